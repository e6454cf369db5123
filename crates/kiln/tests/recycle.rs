//! `Runtime::recycle`: a runtime made new again from an old one's heap must be the
//! runtime `Runtime::new` makes, whatever the old one's guest did. Each test lets a
//! guest change what it can reach (intrinsics, globals, the `Symbol.for` registry,
//! frozen objects, pending jobs and host calls, budgets), recycles the runtime, and
//! checks the new one two ways: its heap equals a new runtime's cell by cell
//! (`heap_image`), and a probe script reads what it would read in a new runtime.

use kiln::snapshot::Snapshot;
use kiln::{ErrorKind, HostValue, Limits, Options, Outcome, Runtime};

/// The first runtime on a thread is built in place (recycling it makes a copy of the
/// template instead); the second builds the thread's template. Both come first.
fn warm_up() {
    drop(Runtime::new());
    drop(Runtime::new());
}

/// Every cell of the runtime's heap, written out: two runtimes with the same image hold
/// the same cells at the same ids (slot values to the bit, shapes, prototypes, flags,
/// dictionaries, elements, string storage, symbols), the same number of shapes, and
/// count the same bytes. Objects are also marked unchanged again (`pristine_copy`), so
/// that the next recycle need not copy them.
fn heap_image(rt: &mut Runtime) -> String {
    use std::fmt::Write;
    let heap = &rt.vm().heap;
    let mut image = format!(
        "bytes {} shapes {} epoch {} collections {}\n",
        heap.bytes(),
        heap.shapes.count(),
        heap.proto_epoch,
        heap.stats().collections
    );
    for (i, object) in heap.objects.slots().enumerate() {
        let Some(o) = object else {
            writeln!(image, "o{i} free").unwrap();
            continue;
        };
        let slots: Vec<u64> = o.slots.iter().map(|v| v.to_bits()).collect();
        let dict: Vec<_> = o.dict.iter().flat_map(|d| d.iter()).collect();
        writeln!(
            image,
            "o{i} {:?} {:?} {} {} {} {} {} {:?} {:?} {:?} {:?}",
            o.shape,
            o.proto,
            o.extensible,
            o.used_as_prototype,
            o.hardened,
            o.pristine_copy,
            o.slots.is_shared(),
            slots,
            o.elements,
            dict,
            std::mem::discriminant(&o.kind),
        )
        .unwrap();
    }
    for (i, string) in heap.strings.slots().enumerate() {
        writeln!(image, "s{i} {string:?}").unwrap();
    }
    for (i, symbol) in heap.symbols.slots().enumerate() {
        writeln!(image, "y{i} {symbol:?}").unwrap();
    }
    for (i, bigint) in heap.bigints.slots().enumerate() {
        writeln!(image, "b{i} {bigint:?}").unwrap();
    }
    for (i, env) in heap.envs.slots().enumerate() {
        writeln!(image, "e{i} {env:?}").unwrap();
    }
    image
}

/// What a guest can see of the realm's state: run in a recycled runtime, it must read
/// what it reads in a new one.
const PROBE: &str = r#"
const names = o => Reflect.ownKeys(o).map(String).sort().join(",");
const frozen = o => [Object.isFrozen(o), Object.isExtensible(o)].join("/");
[
  names(globalThis), names(Array.prototype), names(Object.prototype), names(Math),
  names(JSON), names(Symbol), frozen(Array.prototype), frozen(Object.prototype),
  frozen(Math), frozen(globalThis), typeof tools, typeof leaked,
  [1, 2, 3].map(x => x * 2).join(), JSON.stringify({ a: [1, "b"] }),
  Symbol.keyFor(Symbol.for("probe")), Symbol.for("shared") === Symbol.for("shared"),
  String(Object.getOwnPropertyDescriptor(Array.prototype, "push").writable),
  Array.prototype.push.name, Object.getPrototypeOf(Array.prototype) === Object.prototype,
  typeof Reflect, typeof Promise.prototype.then,
].join("|")
"#;

/// A new runtime's probe result and heap image.
fn fresh() -> (Outcome, String) {
    let mut rt = Runtime::new();
    let image = heap_image(&mut rt);
    (rt.start(PROBE, "probe.js").unwrap(), image)
}

/// Recycle `rt` and check the result against a new runtime; returns it for more.
#[track_caller]
fn check_recycled(rt: Runtime, what: &str) -> Runtime {
    let (probe, image) = fresh();
    let mut recycled = rt.recycle();
    let recycled_image = heap_image(&mut recycled);
    if recycled_image != image {
        let first = image
            .lines()
            .zip(recycled_image.lines())
            .find(|(a, b)| a != b);
        panic!(
            "{what}: the recycled heap differs from a new runtime's; first difference {first:?} \
             ({} lines against {})",
            recycled_image.lines().count(),
            image.lines().count()
        );
    }
    assert_eq!(recycled.start(PROBE, "probe.js").unwrap(), probe, "{what}");
    // the probe's own changes are recycled too
    let mut again = recycled.recycle();
    assert_eq!(heap_image(&mut again), image, "{what}, recycled twice");
    again
}

fn start(rt: &mut Runtime, source: &str) -> Outcome {
    rt.start(source, "agent.js").unwrap()
}

#[test]
fn intrinsics_and_globals_changed_by_a_guest_are_not_seen_by_the_next() {
    warm_up();
    let mut rt = Runtime::new();
    rt.register_async("tools.search");
    rt.set_global("input", &HostValue::from("data")).unwrap();
    let out = start(
        &mut rt,
        r#"
        Array.prototype.push = function () { return "hijacked" };
        Array.prototype.extra = 1;
        Object.prototype.polluted = true;
        Object.setPrototypeOf(Array.prototype, null);
        globalThis.leaked = { secret: input };
        Math.max = () => 0;
        delete globalThis.Reflect;
        delete JSON.stringify;
        Symbol.custom = Symbol("custom");
        Promise.prototype.then = null;
        tools.search = 1;
        "done"
        "#,
    );
    assert_eq!(out, Outcome::Complete(HostValue::from("done")));
    let mut rt = check_recycled(rt, "intrinsics changed");
    let seen = start(
        &mut rt,
        "typeof input + typeof leaked + typeof tools + [].push(1) + typeof Math.max(1)",
    );
    assert_eq!(
        seen,
        Outcome::Complete(HostValue::from("undefinedundefinedundefined1number"))
    );
}

#[test]
fn frozen_and_hardened_intrinsics_are_thawed() {
    warm_up();
    let mut rt = Runtime::new();
    start(
        &mut rt,
        "Object.freeze(Array.prototype); Object.freeze(Object.prototype); Object.seal(Math);\
         Object.preventExtensions(globalThis); Object.freeze(JSON); 1",
    );
    let rt = check_recycled(rt, "frozen intrinsics");
    drop(rt);

    let mut hardened = Runtime::with_options(Options {
        hardened: true,
        ..Options::default()
    })
    .unwrap();
    let out = start(&mut hardened, "Object.isFrozen(Array.prototype)");
    assert_eq!(out, Outcome::Complete(HostValue::Bool(true)));
    let mut rt = check_recycled(hardened, "hardened runtime");
    let out = start(&mut rt, "Array.prototype.x = 1; [].x");
    assert_eq!(out, Outcome::Complete(HostValue::Number(1.0)));
}

#[test]
fn registered_symbols_and_new_names_are_forgotten() {
    warm_up();
    let mut rt = Runtime::new();
    start(
        &mut rt,
        r#"
        globalThis.s = Symbol.for("shared");
        for (let i = 0; i < 500; i++) { Symbol.for("k" + i); globalThis["name" + i] = i }
        Symbol.keyFor(s)
        "#,
    );
    check_recycled(rt, "registered symbols");
}

#[test]
fn pending_jobs_and_host_calls_do_not_carry_over() {
    warm_up();
    let mut rt = Runtime::new();
    rt.register_async("tools.wait");
    let out = start(
        &mut rt,
        r#"
        new Promise(() => {});
        Promise.resolve().then(() => { globalThis.late = 1 });
        globalThis.setTimeout?.(() => {});
        const answer = await tools.wait();
        globalThis.after = answer;
        "#,
    );
    let Outcome::Suspended(calls) = out else {
        panic!("expected a suspension, got {out:?}")
    };
    assert_eq!(calls.len(), 1);
    let mut rt = check_recycled(rt, "suspended execution");
    assert!(rt.pending_calls().is_empty());
    // the old call's id means nothing to the new runtime
    assert!(rt.resume(calls[0].id, Ok(HostValue::Null)).is_err());
    let out = start(&mut rt, "typeof late + typeof after");
    assert_eq!(
        out,
        Outcome::Complete(HostValue::from("undefinedundefined"))
    );
}

#[test]
fn budgets_used_and_limits_set_do_not_carry_over() {
    warm_up();
    let mut rt = Runtime::with_options(Options {
        limits: Limits {
            fuel: Some(10_000),
            ..Limits::default()
        },
        ..Options::default()
    })
    .unwrap();
    let err = rt
        .start("for (;;) {}", "agent.js")
        .expect_err("fuel runs out");
    assert_eq!(err.kind, ErrorKind::OutOfFuel);
    let mut rt = check_recycled(rt, "out of fuel");
    // the default budget, not the old one's, and none of it used
    let out = start(
        &mut rt,
        "let s = 0; for (let i = 0; i < 100000; i++) s += i; s",
    );
    assert_eq!(out, Outcome::Complete(HostValue::Number(4999950000.0)));

    let handle = rt.interrupt_handle();
    let mut rt = rt.recycle();
    handle.interrupt();
    assert_eq!(
        start(&mut rt, "1 + 1"),
        Outcome::Complete(HostValue::Number(2.0)),
        "an old runtime's interrupt handle does not reach the new one"
    );
}

#[test]
fn collections_that_freed_and_reused_template_cells_are_undone() {
    warm_up();
    let mut rt = Runtime::new();
    // Reflect, Atomics and JSON's cells become garbage; collections (at least 8 MiB
    // allocated) free them and reuse their slots for the loop's objects and strings
    let out = start(
        &mut rt,
        r#"
        delete globalThis.Reflect; delete globalThis.Atomics; delete globalThis.JSON;
        let keep = [];
        for (let i = 0; i < 300000; i++) {
          const o = { i, s: "x" + i };
          if (i % 1000 === 0) keep.push(o);
        }
        const weak = new WeakMap([[keep[0], 1]]);
        new FinalizationRegistry(() => {}).register({}, 1);
        keep.length
        "#,
    );
    assert_eq!(out, Outcome::Complete(HostValue::Number(300.0)));
    assert!(rt.vm().heap.stats().collections > 0, "the loop collected");
    check_recycled(rt, "collections");
}

#[test]
fn code_compiled_at_run_time_and_modules_of_state_are_dropped() {
    warm_up();
    let mut rt = Runtime::new();
    start(
        &mut rt,
        r#"
        globalThis.f = new Function("return 42");
        eval("var evaluated = 1");
        (0, eval)("var globalVar = 1; let globalLet = 2; class C {}");
        const ab = new SharedArrayBuffer(16);
        Atomics.waitAsync(new Int32Array(ab), 0, 0, 1000);
        new WeakRef({});
        [1, 2, 3].sort((a, b) => b - a);
        /a+/g.exec("caaat");
        1
        "#,
    );
    let mut rt = check_recycled(rt, "run-time code");
    let out = start(
        &mut rt,
        "typeof globalVar + typeof globalLet + typeof C + typeof f",
    );
    assert_eq!(
        out,
        Outcome::Complete(HostValue::from("undefinedundefinedundefinedundefined"))
    );
}

#[test]
fn runtimes_that_are_no_copy_of_the_template_recycle_into_a_new_one() {
    // a fresh thread: its first runtime is built in place
    std::thread::spawn(|| {
        let mut first = Runtime::new();
        start(&mut first, "Array.prototype.x = 1; globalThis.y = 2");
        let mut second = check_recycled(first, "built in place");
        assert_eq!(
            start(&mut second, "typeof [].x + typeof y"),
            Outcome::Complete(HostValue::from("undefinedundefined"))
        );
    })
    .join()
    .unwrap();

    warm_up();
    let mut rt = Runtime::new();
    rt.register_async("tools.wait");
    let out = start(&mut rt, "Array.prototype.x = 1; await tools.wait()");
    assert!(matches!(out, Outcome::Suspended(_)));
    let bytes = rt.snapshot(None).unwrap();
    let snapshot = Snapshot::open(&bytes, None).unwrap();
    let mut restored = Runtime::restore(&snapshot, Options::default()).unwrap();
    assert_eq!(
        start(&mut restored, "typeof [].x"),
        Outcome::Complete(HostValue::from("number"))
    );
    check_recycled(restored, "restored from a snapshot");
}

#[test]
fn a_long_line_of_recycled_runtimes_stays_pristine() {
    warm_up();
    let (probe, image) = fresh();
    let mut rt = Runtime::new();
    for i in 0..40 {
        rt.register_async("tools.search");
        let script = format!(
            "Array.prototype.m{i} = {i}; globalThis.g{i} = {{}}; Object.freeze(Math);\
             Symbol.for('r{i}'); new Promise(() => {{}}); [].length"
        );
        assert_eq!(
            start(&mut rt, &script),
            Outcome::Complete(HostValue::Number(0.0))
        );
        rt = rt.recycle();
        assert_eq!(heap_image(&mut rt), image, "runtime {i}");
    }
    assert_eq!(start(&mut rt, PROBE), probe);
}
