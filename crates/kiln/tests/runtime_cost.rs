//! The cost of a runtime's life without a script: create, register capabilities, drop.
//!
//! Measured with callgrind, exact instruction counts per runtime:
//!
//! ```text
//! KILN_RUNTIMES=1000 valgrind --tool=callgrind target/.../runtime_cost-<hash> --exact --ignored create_and_drop
//! KILN_RUNTIMES=0    valgrind --tool=callgrind ...   (the difference, over 1000, is one runtime)
//! ```
//!
//! As an ordinary test it checks that runtimes made in a row stay apart.

use kiln::{HostValue, Outcome, Runtime};

fn runtimes() -> usize {
    std::env::var("KILN_RUNTIMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100)
}

/// The first runtime on a thread is built in place and the second builds the thread's
/// template: both are made before the counted ones.
fn warm_up() {
    drop(Runtime::new());
    drop(Runtime::new());
}

/// A runtime with the three capabilities an agent script typically has.
fn with_three_capabilities() -> Runtime {
    let mut rt = Runtime::new();
    rt.register_async("tools.search");
    rt.register_async("tools.fetch");
    rt.register_async("tools.write");
    rt
}

#[test]
#[ignore = "a measurement: run under callgrind with KILN_RUNTIMES"]
fn create_and_drop() {
    warm_up();
    for _ in 0..runtimes() {
        drop(std::hint::black_box(Runtime::new()));
    }
}

#[test]
#[ignore = "a measurement: run under callgrind with KILN_RUNTIMES"]
fn create_register_three_and_drop() {
    warm_up();
    for _ in 0..runtimes() {
        drop(std::hint::black_box(with_three_capabilities()));
    }
}

#[test]
#[ignore = "a measurement: run under callgrind with KILN_RUNTIMES"]
fn create_run_empty_and_drop() {
    warm_up();
    for _ in 0..runtimes() {
        let mut rt = with_three_capabilities();
        let outcome = rt.start("1", "agent.js").unwrap();
        drop(std::hint::black_box((rt, outcome)));
    }
}

#[test]
#[ignore = "a measurement: run under callgrind with KILN_RUNTIMES"]
fn create_eval_and_drop() {
    warm_up();
    for _ in 0..runtimes() {
        let mut rt = Runtime::new();
        let result = rt.eval("1+1").unwrap();
        drop(std::hint::black_box((rt, result)));
    }
}

/// The runtime after each is the last one recycled ([`Runtime::recycle`]) rather than
/// dropped and made again.
#[test]
#[ignore = "a measurement: run under callgrind with KILN_RUNTIMES"]
fn recycle() {
    warm_up();
    let mut rt = Runtime::new();
    for _ in 0..runtimes() {
        rt = std::hint::black_box(rt).recycle();
    }
}

#[test]
#[ignore = "a measurement: run under callgrind with KILN_RUNTIMES"]
fn recycle_eval() {
    warm_up();
    let mut rt = Runtime::new();
    for _ in 0..runtimes() {
        std::hint::black_box(rt.eval("1+1").unwrap());
        rt = rt.recycle();
    }
}

#[test]
#[ignore = "a measurement: run under callgrind with KILN_RUNTIMES"]
fn recycle_register_three_run_empty() {
    warm_up();
    let mut rt = Runtime::new();
    for _ in 0..runtimes() {
        rt.register_async("tools.search");
        rt.register_async("tools.fetch");
        rt.register_async("tools.write");
        std::hint::black_box(rt.start("1", "agent.js").unwrap());
        rt = rt.recycle();
    }
}

/// What one runtime does to its realm and capabilities is not seen by the next.
#[test]
fn runtimes_made_in_a_row_do_not_see_each_other() {
    warm_up();
    for i in 0..runtimes().min(50) {
        let mut rt = Runtime::new();
        rt.register_async("tools.search");
        let script = "const seen = typeof globalThis.mark + ',' + typeof Array.prototype.mark \
                      + ',' + typeof tools.fetch;\
                      globalThis.mark = 1; Array.prototype.mark = 2; tools.fetch = 3; \
                      Object.prototype.x = 4; seen";
        let out = rt.start(script, "agent.js").unwrap();
        assert_eq!(
            out,
            Outcome::Complete(HostValue::from("undefined,undefined,undefined")),
            "runtime {i}"
        );
    }
}

/// The shapes and names one runtime makes stay its own, though it shares the realm
/// template's shapes and atoms: the next runtime grows the same template shapes (an
/// empty object's, Math's, a function's) by other names.
#[test]
fn shapes_and_names_made_in_one_runtime_stay_in_it() {
    warm_up();
    for i in 0..runtimes().min(20) {
        let mut rt = Runtime::new();
        let script = format!(
            "const o = {{}}; o.p{i} = 1; Math.q{i} = 2; const f = function () {{}}; f.r{i} = 3;\
             [Object.keys(o), Object.keys(Math), Object.keys(f), o.p{i} + Math.q{i} + f.r{i}, \
              typeof Math.max, 'p0' in o].join(';')"
        );
        let out = rt.start(&script, "agent.js").unwrap();
        let expected = format!("p{i};q{i};r{i};6;function;{}", i == 0);
        assert_eq!(
            out,
            Outcome::Complete(HostValue::from(expected.as_str())),
            "runtime {i}"
        );
    }
}
