//! `kiln sandbox`: run a script as a sandboxed guest and drive it over JSON lines.
//!
//! The script is an agent script (`Runtime::start`: top-level `await` and `return`,
//! strict, its declarations local). The guest gets only the ECMAScript built-ins and
//! the asynchronous capabilities named with `--capability`. Each state is one JSON line
//! on stdout:
//!
//! ```text
//! {"type":"suspended","calls":[{"id":1,"capability":"tools.search","args":["kiln"]}]}
//! {"type":"complete","value":{"answer":42}}
//! {"type":"error","kind":"OutOfFuel","message":"RangeError: fuel budget exhausted"}
//! ```
//!
//! While suspended, each stdin line answers one call: `{"id":1,"ok":<value>}` or
//! `{"id":1,"error":{"message":"...","name":"...","code":"...","details":<value>}}`.
//! The line `{"snapshot":"FILE"}` instead writes the suspended execution to FILE,
//! prints `{"type":"snapshot","file":"FILE","id":"...","bytes":N}` and exits; a later
//! `kiln sandbox FILE --restore` (same capabilities and key) continues it.

use kiln::snapshot::Snapshot;
use kiln::{ErrorReport, HostError, HostValue, Limits, Options, Outcome, Runtime};
use serde_json::{Value as Json, json};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `kiln sandbox` was asked for.
#[derive(clap::Args)]
pub struct Settings {
    /// an asynchronous host capability to give the guest (repeatable), e.g. tools.search
    #[arg(long = "capability")]
    pub capabilities: Vec<String>,
    /// fuel budget (about one unit per bytecode instruction)
    #[arg(long)]
    pub fuel: Option<u64>,
    /// heap limit in MiB
    #[arg(long)]
    pub heap_mb: Option<usize>,
    /// guest compute-time budget in milliseconds (time waiting on the host not counted)
    #[arg(long)]
    pub compute_ms: Option<u64>,
    /// freeze the intrinsics and provide `harden`
    #[arg(long)]
    pub hardened: bool,
    /// forbid `eval` and `Function` from compiling strings
    #[arg(long)]
    pub no_eval: bool,
    /// seed for Math.random
    #[arg(long)]
    pub seed: Option<u64>,
    /// FILE is a snapshot to continue, not a script
    #[arg(long)]
    pub restore: bool,
    /// authenticate snapshots with the key in this file (HMAC-SHA-256)
    #[arg(long)]
    pub key_file: Option<PathBuf>,
}

pub fn run(file: &Path, settings: Settings) -> ExitCode {
    let mut limits = Limits {
        fuel: settings.fuel,
        compute_time: settings.compute_ms.map(std::time::Duration::from_millis),
        call_depth_terminates: true,
        ..Limits::default()
    };
    if let Some(mb) = settings.heap_mb {
        limits.max_heap_bytes = mb << 20;
    }
    let options = Options {
        limits,
        hardened: settings.hardened,
        allow_code_generation: !settings.no_eval,
        random_seed: settings.seed,
        ..Options::default()
    };
    let key = match &settings.key_file {
        Some(path) => match std::fs::read(path) {
            Ok(key) => Some(key),
            Err(e) => return usage_error(format!("cannot read {}: {e}", path.display())),
        },
        None => None,
    };
    let bytes = match std::fs::read(file) {
        Ok(bytes) => bytes,
        Err(e) => return usage_error(format!("cannot read {}: {e}", file.display())),
    };
    let (mut rt, mut state) = if settings.restore {
        let restored = Snapshot::open(&bytes, key.as_deref())
            .and_then(|snapshot| Runtime::restore(&snapshot, options));
        let mut rt = match restored {
            Ok(rt) => rt,
            Err(e) => {
                emit(&json!({ "type": "error", "kind": "Snapshot", "message": e.to_string() }));
                return ExitCode::from(1);
            }
        };
        for capability in &settings.capabilities {
            rt.register_async(capability);
        }
        let calls = rt.pending_calls();
        (rt, Ok(Outcome::Suspended(calls)))
    } else {
        let Ok(source) = String::from_utf8(bytes) else {
            return usage_error(format!("{} is not UTF-8 text", file.display()));
        };
        let mut rt = match Runtime::with_options(options) {
            Ok(rt) => rt,
            Err(e) => return emit_error(&e),
        };
        for capability in &settings.capabilities {
            rt.register_async(capability);
        }
        let state = rt.start(&source, &file.display().to_string());
        (rt, state)
    };
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        match state {
            Ok(Outcome::Complete(value)) => {
                emit(&json!({ "type": "complete", "value": value }));
                return ExitCode::SUCCESS;
            }
            Err(e) => return emit_error(&e),
            Ok(Outcome::Suspended(calls)) => {
                let calls: Vec<Json> = calls
                    .iter()
                    .map(|c| json!({ "id": c.id, "capability": c.capability, "args": c.args }))
                    .collect();
                emit(&json!({ "type": "suspended", "calls": calls }));
                let Some(Ok(line)) = lines.next() else {
                    return usage_error("input ended while the guest waits for the host".into());
                };
                state = match parse_line(&line) {
                    Ok(Line::Answer(id, answer)) => rt.resume(id, answer),
                    Ok(Line::Snapshot(path)) => return write_snapshot(&mut rt, &path, key),
                    Err(message) => return usage_error(message),
                };
            }
        }
    }
}

/// What the host said while the guest waits.
enum Line {
    Answer(u64, Result<HostValue, HostError>),
    Snapshot(PathBuf),
}

/// One line: `{"id": N, "ok": value}`, `{"id": N, "error": {...}}` or
/// `{"snapshot": "FILE"}`.
fn parse_line(line: &str) -> Result<Line, String> {
    let answer: Json = serde_json::from_str(line).map_err(|e| format!("bad answer: {e}"))?;
    if let Some(path) = answer.get("snapshot") {
        let path = path.as_str().ok_or("\"snapshot\" needs a file name")?;
        return Ok(Line::Snapshot(path.into()));
    }
    let id = answer["id"]
        .as_u64()
        .ok_or("an answer needs a numeric \"id\"")?;
    if let Some(value) = answer.get("ok") {
        let value: HostValue = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
        return Ok(Line::Answer(id, Ok(value)));
    }
    let Some(error) = answer.get("error") else {
        return Err("an answer needs \"ok\" or \"error\"".into());
    };
    let text = |key: &str| error.get(key).and_then(Json::as_str).map(str::to_string);
    let mut e = HostError::new(text("message").unwrap_or_default());
    if let Some(name) = text("name") {
        e = e.with_name(name);
    }
    if let Some(code) = text("code") {
        e = e.with_code(code);
    }
    if let Some(details) = error.get("details") {
        let details: HostValue =
            serde_json::from_value(details.clone()).map_err(|e| e.to_string())?;
        e = e.with_details(details);
    }
    Ok(Line::Answer(id, Err(e)))
}

fn write_snapshot(rt: &mut Runtime, path: &Path, key: Option<Vec<u8>>) -> ExitCode {
    let bytes = match rt.snapshot(key.as_deref()) {
        Ok(bytes) => bytes,
        Err(e) => {
            emit(&json!({ "type": "error", "kind": "Snapshot", "message": e.to_string() }));
            return ExitCode::from(1);
        }
    };
    if let Err(e) = std::fs::write(path, &bytes) {
        return usage_error(format!("cannot write {}: {e}", path.display()));
    }
    let id = Snapshot::open(&bytes, key.as_deref()).map(|s| s.id().to_string());
    emit(&json!({
        "type": "snapshot",
        "file": path.display().to_string(),
        "id": id.unwrap_or_default(),
        "bytes": bytes.len(),
    }));
    ExitCode::SUCCESS
}

fn usage_error(message: String) -> ExitCode {
    eprintln!("kiln sandbox: {message}");
    ExitCode::from(1)
}

fn emit(line: &Json) {
    let mut out = std::io::stdout().lock();
    // a closed stdout means the host went away; there is no one left to tell
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn emit_error(e: &ErrorReport) -> ExitCode {
    emit(&json!({ "type": "error", "kind": e.kind.name(), "message": e.summary }));
    ExitCode::from(if e.is_syntax_error() { 2 } else { 1 })
}
