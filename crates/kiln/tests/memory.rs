//! The heap limit is a bound on the memory a guest can make the process hold, not only on
//! the objects it keeps: each program here grows memory some other way (jobs, compiled
//! code, argument lists, strings being built, buffers, tables) and must end with the
//! uncatchable `HeapLimit` termination, under a 16 MiB limit and budgets generous enough
//! that nothing else stops it first. `apps/kiln-cli/tests/memory.rs` runs some of them in
//! a child process and measures its peak resident memory.

use kiln::{ErrorKind, Limits, Options, Outcome, Runtime};

const LIMIT: usize = 16 << 20;

fn runtime() -> Runtime {
    Runtime::with_options(Options {
        limits: Limits {
            max_heap_bytes: LIMIT,
            fuel: Some(20_000_000_000),
            compute_time: Some(std::time::Duration::from_secs(120)),
            call_depth_terminates: true,
            ..Limits::default()
        },
        ..Options::default()
    })
    .unwrap()
}

/// How `script` ends in a fresh runtime with the 16 MiB limit.
fn outcome(script: &str) -> Result<Outcome, ErrorKind> {
    runtime().start(script, "memory.js").map_err(|e| e.kind)
}

#[track_caller]
fn assert_heap_limit(script: &str) {
    match outcome(script) {
        Err(ErrorKind::HeapLimit) => {}
        other => panic!("expected HeapLimit, got {other:?} from {script}"),
    }
}

#[track_caller]
fn assert_completes(script: &str) {
    match runtime().start(script, "memory.js") {
        Ok(Outcome::Complete(_)) => {}
        other => panic!("expected a result, got {other:?} from {script}"),
    }
}

// ---- the programs that once grew the process past the limit ----

#[test]
fn jobs_that_schedule_two_jobs_each() {
    // the job queue doubles with every generation of jobs
    assert_heap_limit(
        "function f() { Promise.resolve().then(f); Promise.resolve().then(f); } f();",
    );
}

#[test]
fn jobs_that_keep_what_they_make() {
    assert_heap_limit(
        "const keep = []; function f() { keep.push({ a: [1, 2, 3] }); Promise.resolve().then(f); } f();",
    );
}

#[test]
fn joining_a_four_billion_element_array() {
    assert_heap_limit(r#"new Array(2 ** 32 - 1).join("ab")"#);
}

#[test]
fn nested_evals_of_long_sources() {
    // every level compiles 60 KB of source and keeps the compiled script
    assert_heap_limit(
        r#"globalThis.pad = "/*" + "x".repeat(60000) + "*/";
        globalThis.depth = 0;
        globalThis.step = function () { depth++; if (depth < 10000) eval(pad + "step()"); };
        step();"#,
    );
}

#[test]
fn evals_in_a_loop_keep_their_code() {
    assert_heap_limit(
        r#"const pad = "/*" + "x".repeat(60000) + "*/"; for (let i = 0; ; i++) eval(pad + i);"#,
    );
}

#[test]
fn compiling_one_huge_source() {
    // about 2 MB of source: its syntax tree would not fit in 16 MiB
    assert_heap_limit(
        r#"const parts = [];
        for (let i = 0; i < 60000; i++) parts.push("var v" + i + " = [" + i + ", {a: " + i + "}];");
        eval(parts.join("\n"));"#,
    );
}

#[test]
fn apply_with_ten_million_arguments() {
    assert_heap_limit("Math.max.apply(null, new Array(1e7).fill(1))");
    assert_heap_limit("Reflect.apply(Math.max, null, new Array(1e7).fill(1))");
}

#[test]
fn spreading_ten_million_arguments() {
    assert_heap_limit(
        "function f() { return arguments.length } const a = []; a.length = 1e6; f(...a.fill(1), ...a, ...a)",
    );
}

// ---- more ways to grow ----

#[test]
fn concatenating_in_a_loop() {
    assert_heap_limit(r#"let s = ""; for (let i = 0; ; i++) s += "abcdefgh" + i;"#);
    assert_heap_limit(r#"let s = "x"; for (;;) s += s;"#);
}

#[test]
fn repeating_a_string() {
    assert_heap_limit(r#""x".repeat(2 ** 28)"#);
    assert_heap_limit(r#""x".padStart(2 ** 28)"#);
}

#[test]
fn replacing_into_a_long_string() {
    assert_heap_limit(r#""x".repeat(4e6).replaceAll("x", "abcd")"#);
    assert_heap_limit(r#""x".repeat(4e6).replace(/x/g, "abcd")"#);
}

#[test]
fn stringifying_a_big_structure() {
    assert_heap_limit(
        r#"const a = [];
        for (let i = 0; i < 20000; i++) a.push({ k: "v" + i, n: [i, i + 1, { d: "deep" }] });
        JSON.stringify([a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a]);"#,
    );
}

#[test]
fn growing_a_map_and_a_set() {
    assert_heap_limit("const m = new Map(); for (let i = 0; ; i++) m.set(i, i);");
    assert_heap_limit("const s = new Set(); for (let i = 0; ; i++) s.add('k' + i);");
}

#[test]
fn nesting_arrays() {
    assert_heap_limit("let a = []; for (;;) a = [a, a.length, [a]];");
}

#[test]
fn holey_arrays_filled() {
    assert_heap_limit("const keep = []; for (;;) keep.push(new Array(1e6).fill(0));");
}

#[test]
fn one_large_array_buffer() {
    assert_heap_limit("new ArrayBuffer(2 ** 31)");
    assert_heap_limit("const keep = []; for (;;) keep.push(new ArrayBuffer(1 << 20));");
}

#[test]
fn a_regular_expression_that_backtracks_deeply() {
    // every character leaves entries on the matcher's backtrack stack
    assert_heap_limit(r#"/^(?:a|b)*c/.exec("ab".repeat(2e6))"#);
}

#[test]
fn new_property_names_forever() {
    // every name is a new atom and a new shape; neither is ever freed
    assert_heap_limit("for (let i = 0; ; i++) ({})['key' + i] = i;");
}

#[test]
fn the_limit_cannot_be_caught() {
    assert_heap_limit("try { new Array(2 ** 32 - 1).join('ab') } catch { 'caught' }");
    assert_heap_limit("try { new ArrayBuffer(2 ** 31) } catch { 'caught' }");
}

// ---- programs that stay within the limit still finish ----

#[test]
fn garbage_is_collected_between_jobs() {
    // 300,000 jobs, each making garbage: more than the limit in all, collected as it goes
    let script = "let n = 0; function f() { n++; const g = [n, { n }, 'x' + n]; if (n < 3e5) Promise.resolve().then(f); } f();";
    assert_completes(script);
}

#[test]
fn strings_built_among_garbage_are_not_refused() {
    // a concatenation is refused, without a collection, when it does not fit beside the
    // bytes counted now: the collector runs before garbage fills the room it needs
    for piece in ["n + ''", "'abcdefghijklmnopqrstuvwxyz0123456789' + n"] {
        assert_completes(&format!(
            "let n = 0; function f() {{ n++; const g = [{piece}]; if (n < 5e4) Promise.resolve().then(f); }} f();"
        ));
    }
}

#[test]
fn garbage_made_inside_callbacks_is_collected() {
    let script = "let sum = 0; new Array(2e5).fill(1).forEach((x, i) => { sum += [x, i, { i }].length; }); sum";
    assert_completes(script);
}

#[test]
fn modest_programs_finish() {
    let script = r#"
        let s = ""; for (let i = 0; i < 2e4; i++) s += i;
        const m = new Map(); for (let i = 0; i < 2e4; i++) m.set(i, "v" + i);
        for (let i = 0; i < 1000; i++) eval("(" + i + ")");
        const j = JSON.stringify(Array.from({ length: 1e4 }, (_, i) => ({ i })));
        Math.max(...new Array(1e5).fill(1)) + s.length + m.size + j.length"#;
    assert_completes(script);
}
