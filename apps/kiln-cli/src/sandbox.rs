//! `kiln sandbox`: run a script as a sandboxed guest and drive it over JSON lines.
//!
//! The guest gets only the ECMAScript built-ins and the asynchronous capabilities named
//! with `--capability`. Each state is one JSON line on stdout:
//!
//! ```text
//! {"type":"suspended","calls":[{"id":1,"capability":"tools.search","args":["kiln"]}]}
//! {"type":"complete","value":{"answer":42}}
//! {"type":"error","kind":"OutOfFuel","message":"RangeError: fuel budget exhausted"}
//! ```
//!
//! While suspended, each stdin line answers one call: `{"id":1,"ok":<value>}` or
//! `{"id":1,"error":{"message":"...","name":"...","code":"...","details":<value>}}`.

use kiln::{ErrorReport, HostError, HostValue, Limits, Options, Outcome, Runtime};
use serde_json::{Value as Json, json};
use std::io::{BufRead, Write};
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
}

pub fn run(source: &str, name: &str, settings: Settings) -> ExitCode {
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
    let mut rt = match Runtime::with_options(options) {
        Ok(rt) => rt,
        Err(e) => return emit_error(&e),
    };
    for capability in &settings.capabilities {
        rt.register_async(capability);
    }
    let mut state = rt.start(source, name);
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
                    eprintln!("kiln sandbox: input ended while the guest waits for the host");
                    return ExitCode::from(1);
                };
                state = match parse_answer(&line) {
                    Ok((id, answer)) => rt.resume(id, answer),
                    Err(message) => {
                        eprintln!("kiln sandbox: {message}");
                        return ExitCode::from(1);
                    }
                };
            }
        }
    }
}

/// One answer line: `{"id": N, "ok": value}` or `{"id": N, "error": {...}}`.
fn parse_answer(line: &str) -> Result<(u64, Result<HostValue, HostError>), String> {
    let answer: Json = serde_json::from_str(line).map_err(|e| format!("bad answer: {e}"))?;
    let id = answer["id"]
        .as_u64()
        .ok_or("an answer needs a numeric \"id\"")?;
    if let Some(value) = answer.get("ok") {
        let value: HostValue = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
        return Ok((id, Ok(value)));
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
    Ok((id, Err(e)))
}

fn emit(line: &Json) {
    let mut out = std::io::stdout().lock();
    // a closed stdout means the host went away; there is no one left to tell
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn emit_error(e: &ErrorReport) -> ExitCode {
    emit(&json!({ "type": "error", "kind": format!("{:?}", e.kind), "message": e.summary }));
    ExitCode::from(if e.is_syntax_error() { 2 } else { 1 })
}
