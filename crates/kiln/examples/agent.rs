//! An agent-style host across two processes: a guest script fans out to three
//! asynchronous tools in parallel; the first process runs it until it waits for the
//! tools and writes the suspended execution to disk as an authenticated snapshot; a
//! second process loads it, answers the calls and prints the guest's result.
//!
//! `cargo run -p kiln --example agent` (the second process is this program again, run
//! as `agent resume FILE`).

use kiln::snapshot::Snapshot;
use kiln::{HostError, HostValue, Limits, Options, Outcome, PendingCall, Runtime};
use std::collections::HashSet;
use std::path::Path;

const SCRIPT: &str = r#"
(async () => {
    const [hits, profile, weather] = await Promise.all([
        tools.search("rust javascript engines"),
        tools.profile({ user: "ada" }),
        tools.weather("London").catch(e => ({ unavailable: e.code })),
    ]);
    const best = hits.filter(h => h.score > 0.5).map(h => h.title);
    return { greeting: `Hello ${profile.name}`, best, weather };
})()
"#;

const TOOLS: [&str; 3] = ["tools.search", "tools.profile", "tools.weather"];

/// Both processes share this key (a real host keeps it in its secret store).
const KEY: &[u8] = b"example host key";

/// The host's side of each tool.
fn answer(call: &PendingCall) -> Result<HostValue, HostError> {
    match call.capability.as_str() {
        "tools.search" => Ok(HostValue::Array(vec![
            HostValue::object([("title", "Kiln".into()), ("score", 0.9.into())]),
            HostValue::object([("title", "Other".into()), ("score", 0.2.into())]),
        ])),
        "tools.profile" => Ok(HostValue::object([("name", "Ada".into())])),
        _ => Err(HostError::new("weather service down").with_code("E_UNAVAILABLE")),
    }
}

/// The sandbox both processes use: the snapshot carries the state, never the limits.
fn options() -> Options {
    Options {
        limits: Limits {
            fuel: Some(10_000_000),
            max_heap_bytes: 64 << 20,
            ..Limits::default()
        },
        hardened: true,
        allow_code_generation: false,
        ..Options::default()
    }
}

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("{message}");
    std::process::exit(1);
}

/// First process: run until the guest waits for the tools, then snapshot to `path`.
fn suspend(path: &Path) {
    let mut rt = Runtime::with_options(options()).unwrap_or_else(|e| fail(e));
    for tool in TOOLS {
        rt.register_async(tool);
    }
    match rt.start(SCRIPT, "agent.js") {
        Ok(Outcome::Suspended(calls)) => {
            println!("[1] suspended on {} calls:", calls.len());
            for c in &calls {
                println!("      #{} {}({:?})", c.id, c.capability, c.args);
            }
        }
        other => fail(format!(
            "expected the guest to wait for its tools: {other:?}"
        )),
    }
    let bytes = rt.snapshot(Some(KEY)).unwrap_or_else(|e| fail(e));
    std::fs::write(path, &bytes).unwrap_or_else(|e| fail(e));
    println!("[1] wrote {} bytes to {}", bytes.len(), path.display());
}

/// Second process: restore from `path`, refuse a replay, answer every call.
fn resume(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| fail(e));
    let snapshot = Snapshot::open(&bytes, Some(KEY)).unwrap_or_else(|e| fail(e));
    // A real host keeps the ids it resumed in durable storage.
    let mut resumed = HashSet::new();
    if !resumed.insert(snapshot.id().to_string()) {
        fail("this snapshot was already resumed");
    }
    let mut rt = Runtime::restore(&snapshot, options()).unwrap_or_else(|e| fail(e));
    for tool in TOOLS {
        rt.register_async(tool);
    }
    println!("[2] restored snapshot {}", snapshot.id());
    let mut state = Ok(Outcome::Suspended(rt.pending_calls()));
    loop {
        match state {
            Ok(Outcome::Suspended(calls)) => {
                let call = &calls[0];
                println!("[2] answering #{} {}", call.id, call.capability);
                state = rt.resume(call.id, answer(call));
            }
            Ok(Outcome::Complete(value)) => {
                println!("[2] result: {value:?}");
                println!("[2] fuel used in both processes: {}", rt.fuel_used());
                return;
            }
            Err(e) => fail(format!("{:?}: {}", e.kind, e.summary)),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, command, path] = args.as_slice()
        && command == "resume"
    {
        return resume(Path::new(path));
    }
    let path = std::env::temp_dir().join(format!("kiln-agent-{}.snapshot", std::process::id()));
    suspend(&path);
    let exe = std::env::current_exe().unwrap_or_else(|e| fail(e));
    let status = std::process::Command::new(exe)
        .arg("resume")
        .arg(&path)
        .status()
        .unwrap_or_else(|e| fail(e));
    let _ = std::fs::remove_file(&path);
    std::process::exit(status.code().unwrap_or(1));
}
