//! Shared memory between runtimes: two runtimes on two threads view one
//! SharedArrayBuffer, and blocking waits stay under the host's control.

use kiln::{ErrorKind, Options, Runtime, SharedBlock};
use std::sync::Arc;
use std::time::Duration;

fn blocking_runtime() -> Runtime {
    Runtime::with_options(Options {
        can_block: true,
        ..Options::default()
    })
    .unwrap()
}

#[test]
fn two_runtimes_on_two_threads_see_each_others_writes() {
    let memory = Arc::new(SharedBlock::new(8, None).unwrap());
    let waiter = {
        let memory = memory.clone();
        std::thread::spawn(move || {
            let mut rt = blocking_runtime();
            rt.share_memory("sab", memory);
            rt.eval(
                "const i = new Int32Array(sab);
                 const woken = Atomics.wait(i, 0, 0, 10000);
                 woken + ' ' + Atomics.load(i, 1)",
            )
            .unwrap()
        })
    };
    let notifier = std::thread::spawn(move || {
        let mut rt = Runtime::new();
        rt.share_memory("sab", memory);
        rt.eval(
            "const i = new Int32Array(sab);
             Atomics.store(i, 1, 42);
             let n;
             while ((n = Atomics.notify(i, 0)) === 0) {}
             n",
        )
        .unwrap()
    });
    assert_eq!(notifier.join().unwrap(), "1");
    assert_eq!(waiter.join().unwrap(), "ok 42");
}

#[test]
fn a_buffer_made_by_one_runtime_is_shared_with_another() {
    let mut first = Runtime::new();
    let sab = first
        .run_script("globalThis.sab = new SharedArrayBuffer(4); sab", "a.js")
        .unwrap();
    let memory = first.shared_memory(sab).unwrap();
    assert!(first.shared_memory(kiln::Value::int(1)).is_none());
    let second = std::thread::spawn(move || {
        let mut rt = Runtime::new();
        rt.share_memory("sab", memory);
        rt.eval("new Uint8Array(sab)[3] = 9").unwrap()
    });
    assert_eq!(second.join().unwrap(), "9");
    assert_eq!(first.eval("new Uint8Array(sab).join()").unwrap(), "0,0,0,9");
}

/// A wait nothing will notify.
const WAIT_FOREVER: &str = "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)";

#[test]
fn a_runtime_that_may_not_block_refuses_atomics_wait() {
    let mut rt = Runtime::new();
    let err = rt.run_script(WAIT_FOREVER, "wait.js").unwrap_err();
    assert!(err.summary.starts_with("TypeError"), "{}", err.summary);
}

#[test]
fn an_interrupt_stops_a_blocked_wait() {
    let mut rt = blocking_runtime();
    let handle = rt.interrupt_handle();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        handle.interrupt();
    });
    let err = rt.run_script(WAIT_FOREVER, "wait.js").unwrap_err();
    stopper.join().unwrap();
    assert_eq!(err.kind, ErrorKind::Cancelled);
}

#[test]
fn the_compute_budget_stops_a_pending_wait_async() {
    let mut rt = Runtime::with_options(Options {
        can_block: true,
        limits: kiln::Limits {
            compute_time: Some(Duration::from_millis(50)),
            ..kiln::Limits::default()
        },
        ..Options::default()
    })
    .unwrap();
    let err = rt
        .run_script(
            "Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0).value",
            "w.js",
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::ComputeTime);
}

#[test]
fn a_pending_wait_async_without_timeout_does_not_hold_a_sandbox() {
    let mut rt = Runtime::new();
    let out = rt
        .eval(
            "var r = Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
             r.value.then(v => globalThis.settled = v);
             r.async",
        )
        .unwrap();
    assert_eq!(out, "true");
    assert_eq!(rt.eval("globalThis.settled").unwrap(), "undefined");
    let err = rt.snapshot(None).unwrap_err();
    assert!(err.to_string().contains("waitAsync"), "{err}");
}

#[test]
fn a_guest_waiting_for_the_host_suspends_despite_a_pending_wait_async() {
    let mut rt = blocking_runtime();
    rt.register_async("tools.later");
    let outcome = rt
        .start(
            "Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
             tools.later()",
            "suspend.js",
        )
        .unwrap();
    assert!(
        matches!(outcome, kiln::Outcome::Suspended(_)),
        "{outcome:?}"
    );
}
