//! `kiln sandbox --heap-mb N` bounds the process: adversarial guests run in a child
//! process under a 64 MiB and a 256 MiB heap limit, and each must end the way its case
//! says (a named budget, or an exact result) having never held more than the limit plus
//! the fixed overhead `docs/sandbox.md` documents. The peak is the child's own
//! `ru_maxrss`, read when it is reaped (`wait4`), so nothing is sampled and nothing is
//! missed.
//!
//! The programs: the four of the report that made the limit a promise (jobs scheduling
//! jobs, a four-billion-element `join`, nested `eval`s, `apply` with ten million
//! arguments), the budget-escape attempts of `crates/kiln/tests/sandbox.rs`, the programs
//! of `crates/kiln/tests/memory.rs`, and more ways a hostile guest grows memory: every
//! route to a huge string, typed arrays, generators and async functions kept suspended,
//! weak collections, `Function` bodies, closures, property names, prototype and proxy
//! chains, deep nesting, and iterators that never end. Run with `--nocapture` to see each
//! peak; `KILN_MEMORY_BIN=target/<triple>/release/kiln` measures a release build.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the process may hold beyond the heap limit: the binary, the allocator's slack,
/// the intrinsics and the stacks (`docs/sandbox.md`, "Memory").
const OVERHEAD_MB: u64 = 32;

/// How a program must end.
#[derive(Clone, Copy, Debug)]
enum End {
    /// the run ends with this budget or termination (the `kind` of the error line)
    Budget(&'static str),
    /// the run completes with this value (its JSON)
    Value(&'static str),
}
use End::{Budget, Value};

/// Fuel for the programs that loop without growing: enough for several collections,
/// little enough for a debug build.
const LOOP_FUEL: &[&str] = &["--fuel", "5000000"];

/// An adversarial program and how it ends under each heap limit.
struct Case {
    name: &'static str,
    script: &'static str,
    /// more `kiln sandbox` options (a fuel budget)
    options: &'static [&'static str],
    at_64: End,
    at_256: End,
}

/// A program that ends the same way under both limits.
const fn case(name: &'static str, script: &'static str, end: End) -> Case {
    Case {
        name,
        script,
        options: &[],
        at_64: end,
        at_256: end,
    }
}

/// A program that loops without growing: the fuel budget ends it.
const fn looping(name: &'static str, script: &'static str) -> Case {
    Case {
        name,
        script,
        options: LOOP_FUEL,
        at_64: Budget("OutOfFuel"),
        at_256: Budget("OutOfFuel"),
    }
}

/// A program whose nesting the parser refuses: it catches the SyntaxError.
const fn syntax_error(name: &'static str, script: &'static str) -> Case {
    case(name, script, Value(r#""SyntaxError""#))
}

const HEAP: End = Budget("HeapLimit");

const CASES: &[Case] = &[
    // ---- the four of the report ----
    Case {
        name: "each_job_schedules_one_more",
        script: "let n = 0; function f() { n++; Promise.resolve().then(f); } f();",
        options: &["--fuel", "2000000"],
        at_64: Budget("OutOfFuel"),
        at_256: Budget("OutOfFuel"),
    },
    case("join_of_four_billion", r#"new Array(2 ** 32 - 1).join("ab")"#, HEAP),
    case(
        "nested_evals",
        r#"globalThis.pad = "/*" + "x".repeat(60000) + "*/";
        globalThis.depth = 0;
        globalThis.step = function () { depth++; if (depth < 10000) eval(pad + "step()"); };
        step();"#,
        HEAP,
    ),
    case(
        "apply_with_ten_million_arguments",
        "Math.max.apply(null, new Array(1e7).fill(1))",
        HEAP,
    ),
    // ---- more of crates/kiln/tests/memory.rs ----
    case(
        "each_job_schedules_two_more",
        "function f() { Promise.resolve().then(f); Promise.resolve().then(f); } f();",
        HEAP,
    ),
    case(
        "evals_in_a_loop",
        r#"const pad = "/*" + "x".repeat(60000) + "*/"; for (let i = 0; ; i++) eval(pad + i);"#,
        HEAP,
    ),
    case(
        "concatenation_forever",
        r#"let s = ""; for (let i = 0; ; i++) s += "abcdefgh" + i;"#,
        HEAP,
    ),
    case(
        "stringify_kept",
        r#"const a = [];
        for (let i = 0; i < 1e5; i++) a.push({ k: "v" + i, n: [i, i + 1, { d: "deep" }] });
        const keep = []; for (;;) keep.push(JSON.stringify([a, a, a, a, a, a, a, a]));"#,
        HEAP,
    ),
    case(
        "map_set_forever",
        "const m = new Map(); for (let i = 0; ; i++) m.set(i, i);",
        HEAP,
    ),
    case(
        "holey_arrays_kept",
        "const keep = []; for (;;) keep.push(new Array(1e6).fill(0));",
        HEAP,
    ),
    case("two_gigabyte_buffer", "new ArrayBuffer(2 ** 31)", HEAP),
    Case {
        // the backtrack stack is held to half the room left, and to its own cap, whose
        // RangeError the larger limit reaches first
        name: "backtracking_regular_expression",
        script: r#"try { /^(?:a|b)*c/.exec("ab".repeat(2e7)) } catch (e) { e.name }"#,
        options: &[],
        at_64: HEAP,
        at_256: Value(r#""RangeError""#),
    },
    // ---- the budget-escape attempts of crates/kiln/tests/sandbox.rs ----
    looping("infinite_loop", "while (true) {}"),
    looping(
        "finally_prolongs_the_loop",
        "globalThis.caught = 0;
        for (;;) { try { try { while (true) {} } finally { while (true) {} } } catch (e) { caught++; } }",
    ),
    looping(
        "job_loop_caught",
        "Promise.resolve().then(() => { for (;;) {} }).catch(() => 'swallowed')",
    ),
    looping(
        "thenable_getter_loops",
        "Promise.resolve({ get then() { for (;;) {} } }).catch(() => 'swallowed')",
    ),
    looping(
        "awaited_getter_loops",
        "(async () => { try { await { get then() { for (;;) {} } } } catch (e) {} })()",
    ),
    looping(
        "from_async_callback_loops",
        "Array.fromAsync([1], () => { for (;;) {} }).catch(() => 0)",
    ),
    looping(
        "async_generator_return_loops",
        "async function* g() { yield 1 } const it = g(); it.next();
        it.return({ get then() { for (;;) {} } }).catch(() => 0)",
    ),
    looping(
        "catastrophic_regular_expression",
        "/(a+)+$/.test('a'.repeat(40) + 'b')",
    ),
    case(
        "recursion_caught",
        "function f(n) { return 1 + f(n + 1) } try { f(0) } catch (e) { 'caught' }",
        Budget("CallDepth"),
    ),
    case(
        "recursion_through_a_builtin",
        "function f() { [1].map(f) } try { f() } catch (e) { e.name }",
        Budget("CallDepth"),
    ),
    case(
        "objects_kept",
        "const keep = []; for (let i = 0; ; i++) keep.push({ i, s: 'x' + i });",
        HEAP,
    ),
    case(
        "gigabyte_string",
        "try { 'x'.repeat(2 ** 30); 'built' } catch (e) { e.name }",
        Value(r#""RangeError""#),
    ),
    case(
        "rope_doubling",
        "let s = 'x'; while (true) { s += s; }",
        HEAP,
    ),
    case("promise_never_settles", "new Promise(() => {})", Budget("Stalled")),
    // ---- every route to a huge string ----
    case(
        "template_literals_kept",
        r#"const keep = []; for (let i = 0; ; i++) keep.push(`${i}:${"x".repeat(100)}:${i}`);"#,
        HEAP,
    ),
    case(
        "replace_with_a_function",
        r#""x".repeat(1e6).replace(/x/g, () => "abcdefgh".repeat(100))"#,
        HEAP,
    ),
    case(
        "replace_all_with_a_function",
        r#""x".repeat(1e6).replaceAll("x", () => "abcdefgh".repeat(100))"#,
        HEAP,
    ),
    case("pad_end", r#""".padEnd(2 ** 29, "ab")"#, HEAP),
    case(
        "string_raw_of_four_billion",
        "String.raw({ raw: { length: 2 ** 32 - 1 } }, 0)",
        HEAP,
    ),
    case(
        "split_into_fifty_million",
        r#""x".repeat(5e7).split("").length"#,
        HEAP,
    ),
    case(
        "json_parse_of_guest_text",
        r#"JSON.parse("[" + '{"a":[1,2,3]},'.repeat(5e6) + "1]").length"#,
        HEAP,
    ),
    case(
        "base64_of_a_big_buffer",
        "new Uint8Array(2 ** 27).toBase64().length",
        HEAP,
    ),
    case(
        "upper_case_kept",
        r#"const keep = []; const s = "\u00df".repeat(4e6); for (;;) keep.push(s.toUpperCase());"#,
        HEAP,
    ),
    // ---- regular expressions ----
    case(
        "regular_expressions_kept",
        r#"const keep = []; for (let i = 0; ; i++) keep.push(new RegExp("(?:(?:a{100}){100})" + i));"#,
        HEAP,
    ),
    // ---- arrays, typed arrays, collections ----
    case(
        "array_from_four_billion",
        "Array.from({ length: 2 ** 32 - 1 }).length",
        HEAP,
    ),
    case("typed_array_too_big", "new Float64Array(2 ** 26).length", HEAP),
    case(
        "typed_arrays_kept",
        "const keep = []; for (;;) keep.push(new Uint8Array(1 << 20));",
        HEAP,
    ),
    case(
        "concat_doubling",
        "let a = [1, 2, 3]; for (;;) a = a.concat(a);",
        HEAP,
    ),
    case(
        "flat_doubling",
        "let a = [1, 2, 3]; for (;;) a = [a, a].flat(Infinity);",
        HEAP,
    ),
    case(
        "promise_all_of_ten_million",
        "Promise.all(new Array(1e7).fill(0))",
        HEAP,
    ),
    case(
        "spread_of_an_endless_iterator",
        "Math.max(...(function* () { for (;;) yield new Array(1e4) })())",
        HEAP,
    ),
    case(
        "array_of_an_endless_iterator",
        "[...(function* () { for (;;) yield new Array(1e4) })()]",
        HEAP,
    ),
    case(
        "set_of_an_endless_iterator",
        "new Set((function* () { for (;;) yield new Array(1e4) })())",
        HEAP,
    ),
    case(
        "bigints_kept",
        "const keep = []; for (let i = 0n; ; i++) keep.push(2n ** 100000n + i);",
        HEAP,
    ),
    case(
        "small_bigints_kept",
        "const keep = []; for (;;) keep.push(10n ** 20n + BigInt(keep.length));",
        HEAP,
    ),
    case(
        "bigint_too_big",
        "try { 2n ** 10000000n } catch (e) { e.name }",
        Value(r#""RangeError""#),
    ),
    case(
        "resizable_buffer_past_the_limit",
        "try { new ArrayBuffer(1, { maxByteLength: 2 ** 32 }).resize(2 ** 31) } catch (e) { e.name }",
        Value(r#""RangeError""#),
    ),
    // ---- what functions, generators and promises keep ----
    case(
        "generators_kept_suspended",
        "const keep = [];
        for (let i = 0; ; i++) { const g = (function* () { const a = [i, i, i]; yield a; yield i; })(); g.next(); keep.push(g); }",
        HEAP,
    ),
    Case {
        name: "async_functions_waiting_forever",
        script: "for (;;) (async () => { await new Promise(() => {}); })();",
        options: &["--fuel", "1000000"],
        at_64: Budget("OutOfFuel"),
        at_256: Budget("OutOfFuel"),
    },
    case(
        // each waits on a promise that never settles, kept alive by the array: the heap
        // fills with live cells, near the limit, without a collection at every safe point
        "async_functions_kept_waiting",
        "const keep = []; for (;;) keep.push((async () => { await new Promise(() => {}); })());",
        HEAP,
    ),
    case(
        "closures_keep_their_scope",
        "const keep = []; for (;;) { const big = new Array(1000).fill(1); keep.push(() => big); }",
        HEAP,
    ),
    case(
        "function_constructor_bodies",
        r#"const keep = []; for (let i = 0; ; i++) keep.push(Function("/*" + "x".repeat(1e5) + "*/ return " + i));"#,
        HEAP,
    ),
    case(
        "error_stacks_deep_in_recursion",
        "function f(n) { if (n === 0) { const keep = []; for (;;) keep.push(new Error('x')); } return f(n - 1) + 1; } f(10000)",
        HEAP,
    ),
    case(
        "symbols_kept",
        "const keep = []; for (;;) keep.push(Symbol('s'));",
        HEAP,
    ),
    case(
        // every key is a new atom: the atom table grows with the registry
        "registered_symbols_forever",
        "for (let i = 0; ; i++) Symbol.for('key' + i);",
        HEAP,
    ),
    case(
        // each name is "bound " and the previous one
        "a_chain_of_binds",
        "let f = function () {}; for (;;) f = f.bind(null);",
        HEAP,
    ),
    // ---- weak collections ----
    looping(
        "weak_map_churn",
        "const wm = new WeakMap(); for (;;) wm.set({}, new Array(100).fill(0));",
    ),
    case(
        "weak_refs_keep_targets_until_jobs_run",
        "for (;;) new WeakRef({ a: new Array(1000).fill(0) });",
        HEAP,
    ),
    case(
        "finalization_registrations",
        "const r = new FinalizationRegistry(() => {}); for (let i = 0; ; i++) r.register({}, i);",
        HEAP,
    ),
    // ---- property names and shapes ----
    case(
        "define_property_forever",
        r#"const o = {}; for (let i = 0; ; i++) Object.defineProperty(o, "k" + i, { value: "v".repeat(1000), enumerable: i % 2 === 0 });"#,
        HEAP,
    ),
    // ---- deep nesting ----
    syntax_error(
        "hundred_thousand_unary_operators",
        r#"try { eval("!".repeat(1e5) + "x") } catch (e) { e.name }"#,
    ),
    syntax_error(
        "hundred_thousand_brackets",
        r#"try { eval("[".repeat(1e5)) } catch (e) { e.name }"#,
    ),
    syntax_error(
        "five_million_additions",
        r#"try { Function("return " + "1+".repeat(5e6) + "1")() } catch (e) { e.name }"#,
    ),
    syntax_error(
        "million_brackets_of_json",
        r#"try { JSON.parse("[".repeat(1e6)) } catch (e) { e.name }"#,
    ),
    case(
        "yield_star_recursion",
        "function* g() { yield* g() } try { g().next() } catch (e) { e.name }",
        Budget("CallDepth"),
    ),
];

/// Run `script` under `kiln sandbox` with the heap limit and more options; its first
/// output line and its peak resident memory in KiB.
fn run(name: &str, script: &str, heap_mb: u64, options: &[&str]) -> (String, u64) {
    let dir = std::env::temp_dir().join(format!("kiln-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}-{heap_mb}.js"));
    std::fs::write(&path, script).unwrap();
    // `KILN_MEMORY_BIN` measures another build (a release one, for `docs/sandbox.md`)
    let bin = std::env::var("KILN_MEMORY_BIN").unwrap_or(env!("CARGO_BIN_EXE_kiln").into());
    let mut child = Command::new(bin)
        .arg("sandbox")
        .arg(&path)
        .args(["--heap-mb", &heap_mb.to_string()])
        // a backstop: every program ends sooner by its own budget
        .args(["--compute-ms", "120000"])
        .args(options)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data, so all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `status` and `usage` are valid for writes; `pid` is our unreaped child, and
    // `child` is never waited on through std (it is forgotten below).
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    std::mem::forget(child);
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    let _ = std::fs::remove_file(&path);
    let line = out.lines().next().unwrap_or_default().to_string();
    if !libc::WIFEXITED(status) {
        return (
            format!("killed (status {status:#x}), output {line:?}"),
            usage.ru_maxrss as u64,
        );
    }
    (line, usage.ru_maxrss as u64)
}

/// Whether `line` is the end `expected` describes.
fn ends_as(line: &str, expected: End) -> bool {
    match expected {
        Budget(kind) => {
            line.starts_with(r#"{"type":"error","#) && line.contains(&format!(r#""kind":"{kind}""#))
        }
        Value(json) => line == format!(r#"{{"type":"complete","value":{json}}}"#),
    }
}

/// Run every case under `heap_mb`, two at a time, and fail with every case that ended
/// otherwise than expected or held more than the limit plus the overhead.
fn run_all(heap_mb: u64) {
    let bound_kib = (heap_mb + OVERHEAD_MB) << 10;
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some(case) = CASES.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let expected = if heap_mb == 64 { case.at_64 } else { case.at_256 };
                    let started = std::time::Instant::now();
                    let (line, peak_kib) = run(case.name, case.script, heap_mb, case.options);
                    eprintln!(
                        "{heap_mb} MiB {:<40} peak {:>4} MiB {:>5.1} s  {line}",
                        case.name,
                        peak_kib >> 10,
                        started.elapsed().as_secs_f64()
                    );
                    let mut failures = failures.lock().unwrap();
                    if !ends_as(&line, expected) {
                        failures.push(format!("{}: expected {expected:?}, got {line}", case.name));
                    }
                    if peak_kib >= bound_kib {
                        failures.push(format!(
                            "{}: peak resident memory {peak_kib} KiB, over the {bound_kib} KiB bound",
                            case.name
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn guests_cannot_take_the_process_past_a_64_mib_limit() {
    run_all(64);
}

#[test]
fn guests_cannot_take_the_process_past_a_256_mib_limit() {
    run_all(256);
}
