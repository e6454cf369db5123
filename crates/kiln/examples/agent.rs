//! An agent-style host: a guest script fans out to three asynchronous tools in parallel,
//! the host answers each call, and the guest reduces the answers to a small result.
//!
//! `cargo run -p kiln --example agent`

use kiln::{HostError, HostValue, Limits, Options, Outcome, PendingCall, Runtime};

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

fn main() {
    let options = Options {
        limits: Limits {
            fuel: Some(10_000_000),
            max_heap_bytes: 64 << 20,
            ..Limits::default()
        },
        hardened: true,
        allow_code_generation: false,
        ..Options::default()
    };
    let mut rt = Runtime::with_options(options).expect("a hardened runtime");
    for tool in ["tools.search", "tools.profile", "tools.weather"] {
        rt.register_async(tool);
    }
    let mut state = rt.start(SCRIPT, "agent.js");
    loop {
        match state {
            Ok(Outcome::Suspended(calls)) => {
                println!("suspended on {} call(s)", calls.len());
                let call = &calls[0];
                println!(
                    "  answering #{} {}({:?})",
                    call.id, call.capability, call.args
                );
                state = rt.resume(call.id, answer(call));
            }
            Ok(Outcome::Complete(value)) => {
                println!("result: {value:?}");
                println!("fuel used: {}", rt.fuel_used());
                return;
            }
            Err(e) => {
                eprintln!("{:?}: {}", e.kind, e.summary);
                std::process::exit(1);
            }
        }
    }
}
