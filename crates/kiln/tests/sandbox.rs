//! The sandbox embedding API: capabilities, suspension, budgets, the host boundary,
//! hardening and the policy options.

use kiln::{ErrorKind, HostError, HostValue, Limits, Options, Outcome, Runtime};
use std::rc::Rc;

fn complete(outcome: Result<Outcome, kiln::ErrorReport>) -> HostValue {
    match outcome {
        Ok(Outcome::Complete(v)) => v,
        other => panic!("expected a result, got {other:?}"),
    }
}

fn error_kind(outcome: Result<Outcome, kiln::ErrorReport>) -> ErrorKind {
    match outcome {
        Err(e) => e.kind,
        other => panic!("expected an error, got {other:?}"),
    }
}

fn with_limits(limits: Limits) -> Runtime {
    Runtime::with_options(Options {
        limits,
        ..Options::default()
    })
    .unwrap()
}

fn str(s: &str) -> HostValue {
    HostValue::from(s)
}

// ---- capabilities and suspension ----

#[test]
fn sync_capabilities_take_typed_arguments() {
    let mut rt = Runtime::new();
    rt.register_sync("add", |a: f64, b: f64| a + b);
    rt.register_sync("text.upper", |s: String| s.to_uppercase());
    rt.register_sync("maybe", |x: Option<f64>| x.unwrap_or(-1.0));
    let v = complete(rt.start("[add(2, 3), text.upper('kiln'), maybe(), maybe(4)]", "t.js"));
    assert_eq!(
        v,
        HostValue::Array(vec![5.into(), str("KILN"), (-1).into(), 4.into()])
    );
    let v = complete(rt.start(
        "try { add('2', 3) } catch (e) { `${e.name}: ${e.message}` }",
        "t.js",
    ));
    assert_eq!(v, str("TypeError: expected a number"));
}

#[test]
fn a_sync_capability_can_fail_with_a_host_error() {
    let mut rt = Runtime::new();
    rt.register_sync("check", |n: f64| -> Result<f64, HostError> {
        if n < 0.0 {
            Err(HostError::new("negative").with_code("E_NEG"))
        } else {
            Ok(n)
        }
    });
    let v = complete(rt.start(
        "try { check(-1) } catch (e) { [e instanceof Error, e.message, e.code] }",
        "t.js",
    ));
    assert_eq!(
        v,
        HostValue::Array(vec![true.into(), str("negative"), str("E_NEG")])
    );
}

#[test]
fn parallel_async_calls_suspend_together_and_resume_one_by_one() {
    let mut rt = Runtime::new();
    for name in ["tools.a", "tools.b", "tools.c"] {
        rt.register_async(name);
    }
    let script = "
        (async () => {
            const [a, b, c] = await Promise.all([tools.a(1), tools.b('x'), tools.c({ k: [1, 2] })]);
            return { sum: a + b.length + c };
        })()";
    let Ok(Outcome::Suspended(calls)) = rt.start(script, "agent.js") else {
        panic!("expected to suspend");
    };
    let names: Vec<&str> = calls.iter().map(|c| c.capability.as_str()).collect();
    assert_eq!(names, ["tools.a", "tools.b", "tools.c"]);
    assert_eq!(calls[0].args, vec![HostValue::from(1)]);
    assert_eq!(calls[1].args, vec![str("x")]);
    assert_eq!(
        calls[2].args,
        vec![HostValue::object([("k", HostValue::from(vec![1, 2]))])]
    );
    let Ok(Outcome::Suspended(left)) = rt.resume(calls[1].id, Ok(str("four"))) else {
        panic!("two calls are still outstanding");
    };
    assert_eq!(left.len(), 2);
    let Ok(Outcome::Suspended(left)) = rt.resume(calls[0].id, Ok(10.into())) else {
        panic!("one call is still outstanding");
    };
    assert_eq!(left.len(), 1);
    let v = complete(rt.resume(calls[2].id, Ok(100.into())));
    assert_eq!(v, HostValue::object([("sum", HostValue::from(114))]));
}

#[test]
fn async_host_errors_reject_with_error_objects() {
    let mut rt = Runtime::new();
    rt.register_async("fetch");
    let script = "
        fetch('u').then(() => 'no', e => [e.name, e.message, e.code, e.details.status])";
    let Ok(Outcome::Suspended(calls)) = rt.start(script, "t.js") else {
        panic!("expected to suspend");
    };
    let error = HostError::new("not found")
        .with_name("FetchError")
        .with_code("E404")
        .with_details(HostValue::object([("status", HostValue::from(404))]));
    let v = complete(rt.resume(calls[0].id, Err(error)));
    assert_eq!(
        v,
        HostValue::Array(vec![
            str("FetchError"),
            str("not found"),
            str("E404"),
            404.into()
        ])
    );
}

#[test]
fn answering_an_unknown_call_is_a_host_error_and_changes_nothing() {
    let mut rt = Runtime::new();
    rt.register_async("t");
    let Ok(Outcome::Suspended(calls)) = rt.start("t()", "t.js") else {
        panic!("expected to suspend");
    };
    assert_eq!(
        error_kind(rt.resume(999, Ok(HostValue::Null))),
        ErrorKind::Host
    );
    assert_eq!(complete(rt.resume(calls[0].id, Ok(7.into()))), 7.into());
    assert_eq!(
        error_kind(rt.resume(calls[0].id, Ok(7.into()))),
        ErrorKind::Host
    );
}

#[test]
fn a_promise_nothing_can_settle_is_reported_as_stalled() {
    let mut rt = Runtime::new();
    assert_eq!(
        error_kind(rt.start("new Promise(() => {})", "t.js")),
        ErrorKind::Stalled
    );
}

#[test]
fn a_rejected_result_is_a_guest_exception() {
    let mut rt = Runtime::new();
    let e = rt
        .start("Promise.reject(new TypeError('bad'))", "t.js")
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Exception);
    assert_eq!(e.summary, "TypeError: bad");
}

#[test]
fn arguments_that_cannot_cross_throw_in_the_guest() {
    let mut rt = Runtime::new();
    rt.register_async("send");
    let v = complete(rt.start(
        "try { send(() => 1); 'sent' } catch (e) { e.message }",
        "t.js",
    ));
    assert_eq!(
        v,
        str("send: a function cannot cross to the host (at $[0])")
    );
    assert!(rt.pending_calls().is_empty());
}

// ---- budgets ----

#[test]
fn fuel_stops_an_infinite_loop() {
    let mut rt = with_limits(Limits {
        fuel: Some(1_000_000),
        ..Limits::default()
    });
    let e = rt.start("while (true) {}", "t.js").unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfFuel);
    assert_eq!(e.summary, "RangeError: fuel budget exhausted");
    assert!(rt.fuel_used() >= 1_000_000);
}

#[test]
fn try_catch_finally_cannot_swallow_or_prolong_a_termination() {
    let script = "
        globalThis.caught = 0;
        for (;;) {
            try {
                try { while (true) {} } finally { while (true) {} }
            } catch (e) { caught++; }
        }";
    let mut rt = with_limits(Limits {
        fuel: Some(100_000),
        ..Limits::default()
    });
    assert_eq!(error_kind(rt.start(script, "t.js")), ErrorKind::OutOfFuel);
    // the runtime is still usable, with a fresh budget
    assert_eq!(complete(rt.start("typeof caught", "t.js")), str("number"));
    assert_eq!(complete(rt.start("caught", "t.js")), 0.into());
}

#[test]
fn a_promise_job_cannot_escape_the_budget() {
    let mut rt = with_limits(Limits {
        fuel: Some(100_000),
        ..Limits::default()
    });
    let script = "Promise.resolve().then(() => { for (;;) {} }).catch(() => 'swallowed')";
    assert_eq!(error_kind(rt.start(script, "t.js")), ErrorKind::OutOfFuel);
}

#[test]
fn a_builtin_cannot_turn_a_termination_into_a_rejection() {
    for script in [
        "Promise.resolve({ get then() { for (;;) {} } }).catch(() => 'swallowed')",
        "(async () => { try { await { get then() { for (;;) {} } } } catch (e) {} })()",
        "Promise.resolve().then(() => ({ get then() { for (;;) {} } })).catch(() => 0)",
        "Array.fromAsync([1], () => { for (;;) {} }).catch(() => 0)",
        "async function* g() { yield 1 } const it = g(); it.next(); it.return({ get then() { for (;;) {} } }).catch(() => 0)",
    ] {
        let mut rt = with_limits(Limits {
            fuel: Some(100_000),
            ..Limits::default()
        });
        assert_eq!(
            error_kind(rt.start(script, "t.js")),
            ErrorKind::OutOfFuel,
            "{script}"
        );
    }
}

#[test]
fn deep_recursion_is_a_range_error_or_a_call_depth_termination() {
    let mut rt = Runtime::new();
    let v = complete(rt.start(
        // not a tail call: agent scripts are strict, and a strict tail call never deepens
        "function f(n) { return 1 + f(n + 1) } try { f(0) } catch (e) { e.name }",
        "t.js",
    ));
    assert_eq!(v, str("RangeError"));
    let mut rt = with_limits(Limits {
        max_frames: 500,
        call_depth_terminates: true,
        ..Limits::default()
    });
    let script = "function f(n) { return 1 + f(n + 1) } try { f(0) } catch (e) { 'caught' }";
    assert_eq!(error_kind(rt.start(script, "t.js")), ErrorKind::CallDepth);
}

#[test]
fn the_heap_limit_stops_a_growing_program() {
    let mut rt = with_limits(Limits {
        max_heap_bytes: 32 << 20,
        ..Limits::default()
    });
    let script = "const keep = []; for (let i = 0; ; i++) keep.push({ i, s: 'x' + i });";
    assert_eq!(error_kind(rt.start(script, "t.js")), ErrorKind::HeapLimit);
}

#[test]
fn a_gigabyte_string_is_refused() {
    let mut rt = with_limits(Limits {
        max_heap_bytes: 64 << 20,
        ..Limits::default()
    });
    let v = complete(rt.start(
        "try { 'x'.repeat(2 ** 30); 'built' } catch (e) { e.name }",
        "t.js",
    ));
    assert_eq!(v, str("RangeError"));
    // doubling a rope costs nothing until it is read; it is refused once its length
    // could not be flattened within the limit
    let script = "let s = 'x'; while (true) { s += s; }";
    assert_eq!(error_kind(rt.start(script, "t.js")), ErrorKind::HeapLimit);
}

#[test]
fn outstanding_host_calls_are_bounded() {
    let mut rt = with_limits(Limits {
        max_pending_host_calls: 2,
        ..Limits::default()
    });
    rt.register_async("t");
    let script = "try { [t(), t(), t()] } catch (e) { 'caught' }";
    assert_eq!(error_kind(rt.start(script, "t.js")), ErrorKind::HostCalls);
}

#[test]
fn another_thread_can_cancel_a_run() {
    let mut rt = Runtime::new();
    let handle = rt.interrupt_handle();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        handle.interrupt();
    });
    let e = rt.start("for (;;) {}", "t.js").unwrap_err();
    canceller.join().unwrap();
    assert_eq!(e.kind, ErrorKind::Cancelled);
    assert_eq!(complete(rt.start("1 + 1", "t.js")), 2.into());
}

/// Catastrophic backtracking: (a+)+ tries every split of the a's before failing at "b".
const CATASTROPHIC_REGEX: &str = "/(a+)+$/.test('a'.repeat(40) + 'b')";

#[test]
fn fuel_stops_a_catastrophic_regular_expression() {
    let mut rt = with_limits(Limits {
        fuel: Some(1_000_000),
        ..Limits::default()
    });
    let e = rt.start(CATASTROPHIC_REGEX, "t.js").unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfFuel);
    // the matcher reports its steps every few thousand: it stops close to the budget
    assert!(rt.fuel_used() < 1_020_000, "used {}", rt.fuel_used());
    assert_eq!(
        complete(rt.start("/(a+)+$/.test('aab')", "t.js")),
        false.into()
    );
}

#[test]
fn another_thread_can_cancel_a_catastrophic_regular_expression() {
    let mut rt = Runtime::new();
    let handle = rt.interrupt_handle();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        handle.interrupt();
    });
    let e = rt.start(CATASTROPHIC_REGEX, "t.js").unwrap_err();
    canceller.join().unwrap();
    assert_eq!(e.kind, ErrorKind::Cancelled);
    assert_eq!(complete(rt.start("1 + 1", "t.js")), 2.into());
}

#[test]
fn a_pause_point_is_called_while_the_guest_computes_and_its_time_is_the_hosts() {
    let mut rt = with_limits(Limits {
        compute_time: Some(std::time::Duration::from_millis(150)),
        ..Limits::default()
    });
    let pauses = Rc::new(std::cell::Cell::new(0));
    let count = pauses.clone();
    rt.set_pause_point(std::time::Duration::from_millis(5), move || {
        count.set(count.get() + 1);
        // the host works longer than the guest's whole budget in all
        std::thread::sleep(std::time::Duration::from_millis(20));
    });
    // about 50 ms of guest computation, paused at least every 5 ms
    let script = "let n = 0; for (let i = 0; i < 10; i++) { \
                  let t = Date.now(); while (Date.now() - t < 5) n++; } n > 0";
    assert_eq!(complete(rt.start(script, "t.js")), true.into());
    assert!(pauses.get() >= 5, "{} pauses", pauses.get());
    assert_eq!(
        error_kind(rt.start("for (;;) {}", "t.js")),
        ErrorKind::ComputeTime
    );
}

#[test]
fn the_time_a_host_call_takes_does_not_bring_a_pause_forward() {
    let mut rt = Runtime::new();
    let pauses = Rc::new(std::cell::Cell::new(0));
    let count = pauses.clone();
    rt.set_pause_point(std::time::Duration::from_millis(20), move || {
        count.set(count.get() + 1)
    });
    rt.register_async("wait");
    let script = "wait().then(() => { let t = Date.now(), n = 0; \
                  while (Date.now() - t < 3) n++; return n > 0; })";
    let Ok(Outcome::Suspended(calls)) = rt.start(script, "t.js") else {
        panic!("expected to suspend");
    };
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(
        complete(rt.resume(calls[0].id, Ok(HostValue::Null))),
        true.into()
    );
    assert_eq!(pauses.get(), 0);
}

#[test]
fn compute_time_stops_a_catastrophic_regular_expression() {
    let mut rt = with_limits(Limits {
        compute_time: Some(std::time::Duration::from_millis(100)),
        ..Limits::default()
    });
    let started = std::time::Instant::now();
    let e = rt.start(CATASTROPHIC_REGEX, "t.js").unwrap_err();
    assert_eq!(e.kind, ErrorKind::ComputeTime);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn compute_time_counts_guest_time_only() {
    let mut rt = with_limits(Limits {
        compute_time: Some(std::time::Duration::from_millis(200)),
        ..Limits::default()
    });
    rt.register_async("wait");
    let Ok(Outcome::Suspended(calls)) = rt.start("wait().then(() => 'done')", "t.js") else {
        panic!("expected to suspend");
    };
    // the host takes longer than the whole budget: that time is not the guest's
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        complete(rt.resume(calls[0].id, Ok(HostValue::Null))),
        str("done")
    );
    assert_eq!(
        error_kind(rt.start("for (;;) {}", "t.js")),
        ErrorKind::ComputeTime
    );
}

// ---- the boundary ----

#[test]
fn results_keep_special_numbers() {
    let mut rt = Runtime::new();
    let v = complete(rt.start("[NaN, -0, Infinity, -Infinity, 1.5]", "t.js"));
    let HostValue::Array(items) = v else {
        panic!("expected an array")
    };
    let n: Vec<f64> = items.iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(n[0].is_nan());
    assert!(n[1] == 0.0 && n[1].is_sign_negative());
    assert_eq!(&n[2..], [f64::INFINITY, f64::NEG_INFINITY, 1.5]);
}

#[test]
fn results_that_are_not_plain_data_are_refused() {
    let cases = [
        (
            "(function f() {})",
            "a function cannot cross to the host (at $)",
        ),
        (
            "({ s: Symbol() })",
            "a symbol cannot cross to the host (at $.s)",
        ),
        (
            "({ a: [1, new Map()] })",
            "an object that is not a plain object or array cannot cross to the host (at $.a[1])",
        ),
        (
            "new (class Point {})",
            "an object that is not a plain object or array cannot cross to the host (at $)",
        ),
        ("10n", "a BigInt cannot cross to the host (at $)"),
        ("new Date(0)", "a Date cannot cross to the host (at $)"),
        (
            "const o = {}; o.self = o; o",
            "an object reached twice (cycle or shared) cannot cross to the host (at $.self)",
        ),
        (
            "const s = {}; [s, s]",
            "an object reached twice (cycle or shared) cannot cross to the host (at $[1])",
        ),
        (
            "let d = []; for (let i = 0; i < 100; i++) d = [d]; d",
            "nesting deeper than the limit cannot cross to the host (at $[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0])",
        ),
        (
            "'\\uD800'",
            "a string with a lone surrogate cannot cross to the host (at $)",
        ),
        (
            "({ [Symbol.iterator]: 1 })",
            "a symbol-keyed property cannot cross to the host (at $)",
        ),
    ];
    let mut rt = Runtime::new();
    for (source, message) in cases {
        let e = rt.start(source, "t.js").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Boundary, "{source}");
        assert_eq!(e.summary, format!("the result {message}"), "{source}");
    }
}

#[test]
fn no_getter_or_proxy_trap_runs_during_conversion() {
    let mut rt = Runtime::new();
    let e = rt
        .start(
            "globalThis.ran = false; ({ get x() { ran = true; return 1 } })",
            "t.js",
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Boundary);
    assert!(e.summary.contains("an accessor property"), "{}", e.summary);
    let e = rt
        .start(
            "new Proxy({}, { ownKeys() { ran = true; return [] } })",
            "t.js",
        )
        .unwrap_err();
    assert!(e.summary.contains("a proxy"), "{}", e.summary);
    assert_eq!(complete(rt.start("ran", "t.js")), false.into());
}

#[test]
fn bigint_and_date_cross_when_allowed() {
    let mut rt = Runtime::with_options(Options {
        boundary: kiln::host::BoundaryOptions {
            bigint: true,
            date: true,
            ..Default::default()
        },
        ..Options::default()
    })
    .unwrap();
    let v = complete(rt.start("[2n ** 70n, new Date(86400000)]", "t.js"));
    assert_eq!(
        v,
        HostValue::Array(vec![
            HostValue::BigInt("1180591620717411303424".into()),
            HostValue::Date(86_400_000.0)
        ])
    );
}

#[test]
fn plain_objects_keep_property_order_and_skip_non_enumerables() {
    let mut rt = Runtime::new();
    let v = complete(rt.start(
        "const o = { b: 1, 2: 'two', a: [, 3] }; Object.defineProperty(o, 'h', { value: 1 }); o",
        "t.js",
    ));
    assert_eq!(
        v,
        HostValue::object([
            ("2", str("two")),
            ("b", HostValue::from(1)),
            ("a", HostValue::Array(vec![HostValue::Undefined, 3.into()])),
        ])
    );
}

// ---- isolation and policy ----

#[test]
fn a_runtime_has_no_ambient_authority() {
    let mut rt = Runtime::new();
    let v = complete(rt.start(
        "['print', 'console', 'setTimeout', 'require', 'process', 'fetch', 'Deno']
            .filter(name => name in globalThis)",
        "t.js",
    ));
    assert_eq!(v, HostValue::Array(vec![]));
}

#[test]
fn hardened_runtimes_freeze_the_intrinsics() {
    let mut rt = Runtime::with_options(Options {
        hardened: true,
        ..Options::default()
    })
    .unwrap();
    let v = complete(rt.start(
        "'use strict';
        const frozen = [Object.prototype, Array.prototype, Array.prototype.push, Math, JSON,
            Object.getPrototypeOf(function* () {}), Object.getPrototypeOf([][Symbol.iterator]())]
            .every(Object.isFrozen);
        let threw = false;
        try { Array.prototype.push = null } catch (e) { threw = e instanceof TypeError }
        const o = {};
        o.toString = () => 'mine';
        const h = harden({ inner: { n: 1 } });
        let inner = false;
        try { h.inner.n = 2 } catch (e) { inner = true }
        globalThis.mine = 1;
        [frozen, threw, String(o), inner, Object.isFrozen(globalThis), mine]",
        "t.js",
    ));
    assert_eq!(
        v,
        HostValue::Array(vec![
            true.into(),
            true.into(),
            str("mine"),
            true.into(),
            false.into(),
            1.into()
        ])
    );
}

#[test]
fn code_generation_from_strings_can_be_disabled() {
    let mut rt = Runtime::with_options(Options {
        allow_code_generation: false,
        ..Options::default()
    })
    .unwrap();
    let v = complete(rt.start(
        "const r = [];
        for (const f of [() => eval('1'), () => (0, eval)('1'), () => Function('return 1'),
                         () => new (Object.getPrototypeOf(async function () {}).constructor)('')]) {
            try { f(); r.push('ran') } catch (e) { r.push(e.name) }
        }
        r.push(eval(42));
        r",
        "t.js",
    ));
    let e = str("EvalError");
    assert_eq!(
        v,
        HostValue::Array(vec![e.clone(), e.clone(), e.clone(), e, 42.into()])
    );
}

#[test]
fn deterministic_mode_seeds_random_and_supplies_the_clock() {
    let make = || {
        Runtime::with_options(Options {
            random_seed: Some(7),
            clock: Some(Rc::new(|| 1_700_000_000_000.0)),
            ..Options::default()
        })
        .unwrap()
    };
    let script = "[Math.random(), Math.random(), Date.now(), new Date().getTime()]";
    let a = complete(make().start(script, "t.js"));
    let b = complete(make().start(script, "t.js"));
    assert_eq!(a, b);
    let HostValue::Array(items) = a else {
        panic!("expected an array")
    };
    assert_eq!(items[2], HostValue::Number(1_700_000_000_000.0));
    assert_eq!(items[3], HostValue::Number(1_700_000_000_000.0));
    let c = complete(Runtime::new().start("Math.random()", "t.js"));
    let d = complete(Runtime::new().start("Math.random()", "t.js"));
    assert_ne!(c, d, "unseeded runtimes differ");
}

#[test]
fn fuel_is_charged_inside_long_running_builtins() {
    let cases = [
        "'x'.repeat(2 ** 27)",
        "'x'.padEnd(2 ** 27)",
        "Array(1e9).join()",
        "Array(1e8).fill(0)",
        "Array.from({ length: 1e8 })",
        "[...Array(1e8).keys()]",
        "Array(2e6).fill(0).map(String).sort()",
        "Object.keys(Array(3e6).fill(1))",
        "JSON.parse('[' + '1,'.repeat(3e6) + '1]')",
        "JSON.stringify(Array(3e6).fill({}))",
        "10n ** 300000n",
        "'ab'.repeat(2e6).split('').reverse().join('')",
        "/x/g[Symbol.replace]('y'.repeat(3e7), 'z')",
        "Array(3e6).fill(1).indexOf(2)",
        "for (const k in Array(3e6).fill(1)) {}",
        "const c = 'chinese'; Temporal.PlainDate.from({ year: 2000, month: 1, day: 1, calendar: c })\
           .until(Temporal.PlainDate.from({ year: 200000, month: 1, day: 1, calendar: c }), \
           { largestUnit: 'months' })",
    ];
    let escaped: Vec<&str> = cases
        .into_iter()
        .filter(|source| {
            let mut rt = with_limits(Limits {
                fuel: Some(1_000_000),
                ..Limits::default()
            });
            let result = rt.start(&format!("{source}; 'finished'"), "t.js");
            !matches!(result, Err(e) if e.kind == ErrorKind::OutOfFuel)
        })
        .collect();
    assert!(escaped.is_empty(), "not metered: {escaped:?}");
}

#[test]
fn json_stringify_charges_fuel_per_property() {
    // only the text written was charged (64 bytes a unit), so a loop of calls ran
    // hundreds of times past its budget, and its compute time as far
    let mut rt = with_limits(Limits {
        fuel: Some(1_000_000),
        ..Limits::default()
    });
    let script = "const a = Array.from({ length: 1e4 }, (_, i) => ({ i }));
        globalThis.calls = 0; for (;;) { JSON.stringify(a); calls++; }";
    assert_eq!(error_kind(rt.start(script, "t.js")), ErrorKind::OutOfFuel);
    let calls = complete(rt.start("calls", "t.js"));
    assert!(calls.as_f64().is_some_and(|n| n < 20.0), "{calls:?}");
}

#[test]
fn a_panic_inside_a_run_is_an_engine_error_not_a_crash() {
    let mut rt = Runtime::new();
    rt.register_sync("boom", || -> f64 { panic!("capability bug") });
    let e = rt.start("boom()", "t.js").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Engine);
    assert_eq!(e.summary, "internal error in Kiln: capability bug");
    assert_eq!(error_kind(rt.start("1", "t.js")), ErrorKind::Engine);
}

#[test]
fn over_deep_host_answers_are_refused() {
    let mut rt = Runtime::new();
    rt.register_async("t");
    let Ok(Outcome::Suspended(calls)) = rt.start("t()", "t.js") else {
        panic!("expected to suspend");
    };
    let mut deep = HostValue::Null;
    for _ in 0..1000 {
        deep = HostValue::Array(vec![deep]);
    }
    assert_eq!(
        error_kind(rt.resume(calls[0].id, Ok(deep))),
        ErrorKind::Host
    );
    assert_eq!(complete(rt.resume(calls[0].id, Ok(1.into()))), 1.into());
}

#[test]
fn serde_json_values_cross_both_ways() {
    let mut rt = Runtime::new();
    rt.register_async("db.get");
    let Ok(Outcome::Suspended(calls)) = rt.start(
        "db.get({ id: 7 }).then(row => ({ name: row.name.toUpperCase(), tags: row.tags.length }))",
        "t.js",
    ) else {
        panic!("expected to suspend");
    };
    let arg = serde_json::to_value(&calls[0].args[0]).unwrap();
    assert_eq!(arg, serde_json::json!({ "id": 7 }));
    let row: HostValue =
        serde_json::from_value(serde_json::json!({ "name": "ada", "tags": ["x", "y"] })).unwrap();
    let v = complete(rt.resume(calls[0].id, Ok(row)));
    assert_eq!(
        serde_json::to_value(&v).unwrap(),
        serde_json::json!({ "name": "ADA", "tags": 2 })
    );
}

// ---- host functions and inputs ----

#[test]
fn host_functions_take_any_number_of_host_values() {
    let mut rt = Runtime::new();
    let mut calls = 0;
    rt.register_host_function("tools.describe", move |args: &[HostValue]| {
        calls += 1;
        Ok(HostValue::object([
            ("call", HostValue::from(calls)),
            ("args", HostValue::Array(args.to_vec())),
        ]))
    });
    let v = complete(rt.start(
        "[tools.describe(), tools.describe(1, 'two', { three: [3] })]",
        "t.js",
    ));
    assert_eq!(
        v,
        HostValue::Array(vec![
            HostValue::object([("call", 1.into()), ("args", HostValue::Array(vec![]))]),
            HostValue::object([
                ("call", 2.into()),
                (
                    "args",
                    HostValue::Array(vec![
                        1.into(),
                        str("two"),
                        HostValue::object([("three", HostValue::from(vec![3]))]),
                    ])
                ),
            ]),
        ])
    );
}

#[test]
fn host_function_arguments_that_cannot_cross_name_their_path() {
    let mut rt = Runtime::new();
    rt.register_host_function("tools.send", |_| Ok(HostValue::Null));
    rt.register_async("tools.later");
    let v = complete(rt.start(
        "const out = [];
         for (const f of [() => tools.send(1, { a: () => 1 }), () => tools.later([0, Symbol()])]) {
             try { f(); out.push('sent'); } catch (e) { out.push(`${e.name}: ${e.message}`); }
         }
         out",
        "t.js",
    ));
    assert_eq!(
        v,
        HostValue::Array(vec![
            str("TypeError: tools.send: a function cannot cross to the host (at $[1].a)"),
            str("TypeError: tools.later: a symbol cannot cross to the host (at $[0][1])"),
        ])
    );
    assert!(rt.pending_calls().is_empty());
}

#[test]
fn a_host_function_error_is_a_catchable_guest_error() {
    let mut rt = Runtime::new();
    rt.register_host_function("search", |args: &[HostValue]| {
        Err(
            HostError::new(format!("no results for {:?}", args[0].as_str()))
                .with_name("SearchError")
                .with_code("E_EMPTY")
                .with_details(HostValue::object([("tried", HostValue::from(3))])),
        )
    });
    let v = complete(rt.start(
        "try { search('kiln') } catch (e) {
             [e instanceof Error, e.name, e.message, e.code, e.details.tried]
         }",
        "t.js",
    ));
    assert_eq!(
        v,
        HostValue::Array(vec![
            true.into(),
            str("SearchError"),
            str("no results for Some(\"kiln\")"),
            str("E_EMPTY"),
            3.into(),
        ])
    );
    let e = rt.start("search('x')", "t.js").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Exception);
    assert_eq!(
        (e.name.as_str(), e.message.as_str()),
        ("SearchError", "no results for Some(\"x\")")
    );
}

#[test]
fn a_host_function_returning_an_over_deep_value_is_a_type_error() {
    let mut rt = Runtime::new();
    rt.register_host_function("deep", |_| {
        let mut deep = HostValue::Null;
        for _ in 0..100 {
            deep = HostValue::Array(vec![deep]);
        }
        Ok(deep)
    });
    let v = complete(rt.start("try { deep() } catch (e) { e.name }", "t.js"));
    assert_eq!(v, str("TypeError"));
}

#[test]
fn globals_from_host_values_are_fresh_copies() {
    let mut rt = Runtime::new();
    let input = HostValue::object([
        ("name", str("ada")),
        ("id", HostValue::from(7)),
        ("tags", HostValue::from(vec!["x", "y"])),
    ]);
    rt.set_global("input", &input).unwrap();
    rt.set_global("limit", &HostValue::from(2)).unwrap();
    let v = complete(rt.start(
        "input.tags.push('z'); [Object.keys(input), input.tags.length, limit]",
        "t.js",
    ));
    assert_eq!(
        v,
        HostValue::Array(vec![
            HostValue::from(vec!["name", "id", "tags"]),
            3.into(),
            2.into()
        ])
    );
    // a new execution sees the guest's changes; the host's value is untouched
    assert_eq!(complete(rt.start("input.tags.length", "t.js")), 3.into());
    assert_eq!(input.get("tags"), Some(&HostValue::from(vec!["x", "y"])));
}

/// The nesting limit (64) is the same in both directions: a global nested as deep as a
/// result may be comes back unchanged, and one level more is refused on the way in. The
/// way in allowed one level more, so a host value could enter and not come back (found
/// by the host_boundary fuzzer).
#[test]
fn what_crosses_into_the_guest_can_cross_back() {
    let nested = |levels: usize| {
        let mut v = HostValue::Array(vec![]);
        for _ in 1..levels {
            v = HostValue::Array(vec![HostValue::Bool(true), v]);
        }
        v
    };
    let mut rt = Runtime::new();
    rt.set_global("deepest", &nested(64)).unwrap();
    assert_eq!(complete(rt.start("deepest", "t.js")), nested(64));
    let e = rt.set_global("deeper", &nested(65)).unwrap_err();
    assert_eq!(
        e.message,
        "the global deeper: nesting deeper than the limit cannot cross to the host (at $)"
    );
    let e = rt.start("[deepest]", "t.js").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Boundary);
}

#[test]
fn an_over_deep_global_is_a_boundary_error() {
    let mut rt = Runtime::new();
    let mut deep = HostValue::Null;
    for _ in 0..100 {
        deep = HostValue::Array(vec![deep]);
    }
    let e = rt.set_global("deep", &deep).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Boundary);
    assert_eq!(e.name, "Boundary");
    assert_eq!(
        e.message,
        "the global deep: nesting deeper than the limit cannot cross to the host (at $)"
    );
    assert_eq!(complete(rt.start("typeof deep", "t.js")), str("undefined"));
}

// ---- bytes ----

#[test]
fn bytes_cross_as_uint8_arrays() {
    let mut rt = Runtime::new();
    rt.set_global("data", &HostValue::Bytes(vec![1, 2, 250]))
        .unwrap();
    let v = complete(rt.start(
        "[data instanceof Uint8Array, data.length, data[2], data.buffer.byteLength]",
        "t.js",
    ));
    assert_eq!(
        v,
        HostValue::Array(vec![true.into(), 3.into(), 250.into(), 3.into()])
    );
    let v = complete(rt.start(
        "({
            whole: new Uint8Array([1, 2, 3]),
            view: new Uint8Array([0, 1, 2, 3, 4]).subarray(1, 3),
            buffer: new Uint8Array([9, 8]).buffer,
            empty: new ArrayBuffer(0),
        })",
        "t.js",
    ));
    assert_eq!(
        v,
        HostValue::object([
            ("whole", HostValue::Bytes(vec![1, 2, 3])),
            ("view", HostValue::Bytes(vec![1, 2])),
            ("buffer", HostValue::Bytes(vec![9, 8])),
            ("empty", HostValue::Bytes(vec![])),
        ])
    );
}

#[test]
fn other_binary_data_is_refused() {
    let cases = [
        (
            "new Int16Array(2)",
            "an object that is not a plain object or array cannot cross to the host (at $)",
        ),
        (
            "new DataView(new ArrayBuffer(2))",
            "an object that is not a plain object or array cannot cross to the host (at $)",
        ),
        (
            "new SharedArrayBuffer(2)",
            "an object that is not a plain object or array cannot cross to the host (at $)",
        ),
        (
            "new Uint8Array(new SharedArrayBuffer(2))",
            "an object that is not a plain object or array cannot cross to the host (at $)",
        ),
        (
            "[new (class Bytes extends Uint8Array {})(1)]",
            "an object that is not a plain object or array cannot cross to the host (at $[0])",
        ),
        (
            "const b = new Uint8Array(1); b.tag = 1; ({ b })",
            "an object that is not a plain object or array cannot cross to the host (at $.b.tag)",
        ),
        (
            "const b = new ArrayBuffer(1); b.transfer(); b",
            "a detached or out-of-bounds buffer cannot cross to the host (at $)",
        ),
        (
            "const r = new ArrayBuffer(4, { maxByteLength: 4 }); const v = new Uint8Array(r, 2, 2); r.resize(1); v",
            "a detached or out-of-bounds buffer cannot cross to the host (at $)",
        ),
        (
            "const b = new Uint8Array(1); [b, b]",
            "an object reached twice (cycle or shared) cannot cross to the host (at $[1])",
        ),
    ];
    for (source, message) in cases {
        let e = Runtime::new().start(source, "t.js").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Boundary, "{source}");
        assert_eq!(e.summary, format!("the result {message}"), "{source}");
    }
}

#[test]
fn bytes_cross_through_async_calls_both_ways() {
    let mut rt = Runtime::new();
    rt.register_async("blob.transform");
    let calls = match rt.start(
        "blob.transform(new TextLikeBytes()).then(b => [b.constructor.name, ...b])
         function TextLikeBytes() { return Uint8Array.from([104, 105]) }",
        "t.js",
    ) {
        Ok(Outcome::Suspended(calls)) => calls,
        other => panic!("expected to suspend, got {other:?}"),
    };
    assert_eq!(calls[0].args, vec![HostValue::Bytes(b"hi".to_vec())]);
    let v = complete(rt.resume(calls[0].id, Ok(HostValue::Bytes(vec![7, 8]))));
    assert_eq!(
        v,
        HostValue::Array(vec![str("Uint8Array"), 7.into(), 8.into()])
    );
}

// ---- the host call budget ----

#[test]
fn the_host_call_budget_counts_sync_and_async_calls() {
    let limits = Limits {
        max_host_calls: Some(3),
        ..Limits::default()
    };
    let mut rt = with_limits(limits);
    rt.register_sync("add", |a: f64, b: f64| a + b);
    rt.register_host_function("id", |args: &[HostValue]| Ok(args[0].clone()));
    rt.register_async("later");
    // three calls fit
    let calls = match rt.start("later(add(1, id(2)))", "t.js") {
        Ok(Outcome::Suspended(calls)) => calls,
        other => panic!("expected to suspend, got {other:?}"),
    };
    assert_eq!(calls[0].args, vec![HostValue::from(3)]);
    assert_eq!(complete(rt.resume(calls[0].id, Ok(4.into()))), 4.into());
    // the fourth ends the run, even inside try/catch
    let e = rt
        .start(
            "try { add(1, 1); id(1); add(2, 2); id(3); 'done' } catch (e) { 'caught' }",
            "t.js",
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::HostCalls);
    assert_eq!(e.name, "HostCalls");
    assert_eq!(e.message, "host call budget exhausted");
    // each execution has its own budget
    assert_eq!(complete(rt.start("add(1, 2)", "t.js")), 3.into());
}

// ---- error reports ----

#[test]
fn error_reports_carry_the_guest_exception_name_and_message() {
    let mut rt = Runtime::new();
    let cases = [
        (
            "null.x",
            "TypeError",
            "Cannot read properties of null (reading 'x')",
        ),
        (
            "class Oops extends Error { name = 'Oops' }; throw new Oops('bad')",
            "Oops",
            "bad",
        ),
        ("throw new RangeError()", "RangeError", ""),
        ("throw 'boom'", "Exception", "boom"),
        ("throw { code: 1 }", "Exception", "{ code: 1 }"),
        ("let x = ;", "SyntaxError", "Unexpected token (t.js:1:9)"),
    ];
    for (source, name, message) in cases {
        let e = rt.start(source, "t.js").unwrap_err();
        assert_eq!(
            (e.name.as_str(), e.message.as_str()),
            (name, message),
            "{source}"
        );
    }
    let e = rt.start("throw 'boom'", "t.js").unwrap_err();
    assert_eq!(e.summary, "Uncaught 'boom'");
}

#[test]
fn budget_reports_are_named_after_their_kind() {
    let mut rt = with_limits(Limits {
        fuel: Some(10_000),
        ..Limits::default()
    });
    let e = rt.start("while (true) {}", "t.js").unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfFuel);
    assert_eq!(
        (e.name.as_str(), e.message.as_str()),
        ("OutOfFuel", "fuel budget exhausted")
    );
    assert_eq!(e.summary, "RangeError: fuel budget exhausted");
}

#[test]
fn the_stack_of_a_report_has_a_frame_per_function() {
    let mut rt = Runtime::new();
    let e = rt
        .start(
            "function inner() { throw new Error('deep') }\nfunction outer() { inner() }\nouter()",
            "agent.js",
        )
        .unwrap_err();
    assert_eq!(
        e.stack,
        "Error: deep\n    at inner (agent.js:1:26)\n    at outer (agent.js:2:20)\n    at agent.js:3:1"
    );
}

// ---- agent scripts ----

#[test]
fn an_agent_script_returns_its_result() {
    let mut rt = Runtime::new();
    assert_eq!(complete(rt.start("return 42", "t.js")), 42.into());
    assert_eq!(complete(rt.start("return", "t.js")), HostValue::Undefined);
    assert_eq!(complete(rt.start("1; 'last'", "t.js")), str("last"));
    assert_eq!(
        complete(rt.start("let x = 2; if (x) { x * 21 } else { 0 }", "t.js")),
        42.into()
    );
    // a promise result is awaited, as before
    assert_eq!(complete(rt.start("Promise.resolve(7)", "t.js")), 7.into());
}

#[test]
fn top_level_await_waits_for_host_calls() {
    let mut rt = Runtime::new();
    rt.register_async("tools.lookup");
    rt.register_host_function("tools.double", |args: &[HostValue]| {
        Ok(HostValue::Number(args[0].as_f64().unwrap_or(0.0) * 2.0))
    });
    let script = "const a = await tools.lookup('a');
                  const b = await tools.lookup('b');
                  return tools.double(a + b);";
    let Ok(Outcome::Suspended(first)) = rt.start(script, "agent.js") else {
        panic!("expected to suspend");
    };
    assert_eq!(first[0].args, vec![str("a")]);
    let Ok(Outcome::Suspended(second)) = rt.resume(first[0].id, Ok(20.into())) else {
        panic!("expected to suspend again");
    };
    assert_eq!(second[0].args, vec![str("b")]);
    assert_eq!(complete(rt.resume(second[0].id, Ok(1.into()))), 42.into());
}

#[test]
fn a_return_inside_blocks_and_loops_ends_the_script() {
    let mut rt = Runtime::new();
    let script = "
        const log = [];
        outer: for (let i = 0; i < 3; i++) {
            for (const j of [0, 1]) {
                try {
                    if (i === 1 && j === 1) { return log; }
                    log.push(`${i}${j}`);
                } finally {
                    log.push('f');
                }
            }
        }
        'not reached'";
    let v = complete(rt.start(script, "t.js"));
    // the last `finally` ran after the return read `log`
    assert_eq!(
        v,
        HostValue::from(vec!["00", "f", "01", "f", "10", "f", "f"])
    );
}

#[test]
fn agent_declarations_are_local_to_the_execution() {
    let mut rt = Runtime::new();
    assert_eq!(
        complete(rt.start(
            "var seen = 1; function f() {} [typeof globalThis.seen, typeof globalThis.f]",
            "t.js"
        )),
        HostValue::from(vec!["undefined", "undefined"])
    );
    assert_eq!(complete(rt.start("typeof seen", "t.js")), str("undefined"));
    // run_script keeps classic script semantics: vars are global properties
    rt.run_script("var classic = 1", "c.js").unwrap();
    assert_eq!(complete(rt.start("classic + 1", "t.js")), 2.into());
    // agent scripts are strict: an undeclared assignment is an error
    let e = rt.start("undeclared = 1", "t.js").unwrap_err();
    assert_eq!(e.name, "ReferenceError");
}

#[test]
fn agent_errors_carry_their_location() {
    let mut rt = Runtime::new();
    rt.register_async("tools.lookup");
    let e = rt
        .start("const x = 1;\nlet y = await 2 +;", "agent.js")
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert_eq!(e.message, "Unexpected token (agent.js:2:18)");
    let loc = e.location.expect("a syntax error has a location");
    assert_eq!(
        (
            loc.file.as_str(),
            loc.line,
            loc.column,
            loc.source_line.as_str()
        ),
        ("agent.js", 2, 18, "let y = await 2 +;")
    );
    // thrown before any await
    let e = rt.start("const o = null;\n  o.x", "agent.js").unwrap_err();
    let loc = e.location.expect("a location");
    assert_eq!(
        (loc.line, loc.column, loc.source_line.as_str()),
        (2, 5, "  o.x")
    );
    // thrown after the execution suspended
    let Ok(Outcome::Suspended(calls)) = rt.start(
        "const row = await tools.lookup();\nrow.missing.field",
        "agent.js",
    ) else {
        panic!("expected to suspend");
    };
    let e = rt
        .resume(calls[0].id, Ok(HostValue::object([("id", 1.into())])))
        .unwrap_err();
    assert_eq!(e.name, "TypeError");
    let loc = e.location.expect("a location");
    assert_eq!(
        (loc.file.as_str(), loc.line, loc.column),
        ("agent.js", 2, 13)
    );
}
