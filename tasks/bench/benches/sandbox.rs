//! The sandbox path: what a host pays per synchronous capability call, per
//! start → suspend → resume round trip, and to write and restore a snapshot.
//!
//! `cargo bench -p kiln-bench --bench sandbox`

use divan::counter::ItemsCount;
use kiln::snapshot::Snapshot;
use kiln::{HostValue, Options, Outcome, Runtime};

fn main() {
    divan::main();
}

const CALLS: usize = 100_000;

/// A loop of 100,000 synchronous capability calls (`add(i, 1)`).
#[divan::bench]
fn sync_capability_calls(bencher: divan::Bencher) {
    let mut rt = Runtime::new();
    rt.register_sync("add", |a: f64, b: f64| a + b);
    let script = format!("{{ let s = 0; for (let i = 0; i < {CALLS}; i++) s = add(s, 1); s }}");
    bencher
        .counter(ItemsCount::new(CALLS))
        .bench_local(|| rt.run_script(&script, "calls.js").unwrap());
}

/// The same loop calling a JavaScript function instead: the baseline the capability
/// call is compared with.
#[divan::bench]
fn js_function_calls(bencher: divan::Bencher) {
    let mut rt = Runtime::new();
    let script = format!(
        "{{ function add(a, b) {{ return a + b }} let s = 0; for (let i = 0; i < {CALLS}; i++) s = add(s, 1); s }}"
    );
    bencher
        .counter(ItemsCount::new(CALLS))
        .bench_local(|| rt.run_script(&script, "calls.js").unwrap());
}

/// One asynchronous call: start (suspends at the call), resume with the answer, complete.
#[divan::bench]
fn start_suspend_resume(bencher: divan::Bencher) {
    let mut rt = Runtime::new();
    rt.register_async("tools.get");
    bencher.bench_local(|| {
        let Ok(Outcome::Suspended(calls)) = rt.start("tools.get(1).then(v => v + 1)", "a.js")
        else {
            unreachable!()
        };
        rt.resume(calls[0].id, Ok(HostValue::Number(41.0))).unwrap()
    });
}

/// The agent script in a fresh runtime, suspended at its three parallel tool calls.
fn suspended_agent() -> (Runtime, Vec<kiln::PendingCall>) {
    let mut rt = Runtime::new();
    for name in ["tools.search", "tools.fetch", "tools.rank"] {
        rt.register_async(name);
    }
    let script = "(async () => {
        const [hits, doc, ranks] = await Promise.all([
            tools.search('kiln'), tools.fetch(7), tools.rank(['a', 'b'])]);
        return { best: hits.filter(h => h.score > 0.5).map(h => h.id), title: doc.title, top: ranks[0] };
    })()";
    let Ok(Outcome::Suspended(calls)) = rt.start(script, "agent.js") else {
        unreachable!()
    };
    (rt, calls)
}

/// The agent pattern end to end in a fresh runtime: three tools called in parallel, the
/// answers reduced in code.
#[divan::bench]
fn agent_script_end_to_end() -> Outcome {
    let (mut rt, calls) = suspended_agent();
    let answers = [
        HostValue::Array(vec![
            HostValue::object([("id", 1.into()), ("score", 0.9.into())]),
            HostValue::object([("id", 2.into()), ("score", 0.1.into())]),
        ]),
        HostValue::object([("title", "Kiln".into())]),
        HostValue::Array(vec!["b".into(), "a".into()]),
    ];
    let mut last = None;
    for (call, answer) in calls.iter().zip(answers) {
        last = Some(rt.resume(call.id, Ok(answer)).unwrap());
    }
    last.unwrap()
}

/// Writing the snapshot of the suspended agent script (its size is printed once).
#[divan::bench]
fn snapshot_write(bencher: divan::Bencher) {
    let (mut rt, _) = suspended_agent();
    eprintln!("agent snapshot: {} bytes", rt.snapshot(None).unwrap().len());
    bencher.bench_local(|| rt.snapshot(None).unwrap());
}

/// Checking and restoring that snapshot into a fresh runtime.
#[divan::bench]
fn snapshot_restore(bencher: divan::Bencher) {
    let (mut rt, _) = suspended_agent();
    let bytes = rt.snapshot(None).unwrap();
    bencher.bench_local(|| {
        let snapshot = Snapshot::open(&bytes, None).unwrap();
        Runtime::restore(&snapshot, Options::default()).unwrap()
    });
}
