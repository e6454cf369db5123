//! Any script in a sandboxed runtime with small budgets ends with a result or an error
//! of a known kind: never a panic, a hang or an `Engine` error.

#![no_main]

use kiln::{ErrorKind, HostValue, Limits, Options, Outcome, Runtime};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|source: &str| {
    let options = Options {
        limits: Limits {
            fuel: Some(200_000),
            max_heap_bytes: 32 << 20,
            max_frames: 2_000,
            call_depth_terminates: true,
            max_pending_host_calls: 16,
            ..Limits::default()
        },
        hardened: true,
        random_seed: Some(1),
        clock: Some(std::rc::Rc::new(|| 0.0)),
        ..Options::default()
    };
    let mut rt = Runtime::with_options(options).expect("a hardened runtime");
    rt.register_async("t");
    rt.register_sync("s", |x: Option<f64>| x.unwrap_or(0.0) + 1.0);
    let mut state = rt.start(source, "fuzz.js");
    for _ in 0..32 {
        match state {
            Ok(Outcome::Suspended(calls)) => {
                state = rt.resume(calls[0].id, Ok(HostValue::Number(1.0)));
            }
            Ok(Outcome::Complete(_)) => return,
            Err(e) => {
                assert_ne!(e.kind, ErrorKind::Engine, "{}", e.summary);
                return;
            }
        }
    }
});
