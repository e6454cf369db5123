//! `kiln serve handler.js`: serve a JavaScript HTTP handler in the Workers module form
//! (`export default { async fetch(request, env, ctx) { ... } }`) over HTTP/1.1;
//! `kiln build handler.js -o handler.kbc` compiles it ahead of time for
//! `kiln serve handler.kbc`. The server itself is the `kiln_serve` crate; this module reads
//! the command line.

use crate::loader::FileLoader;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// What `kiln serve` was asked for.
#[derive(clap::Args)]
pub struct Settings {
    /// the handler: an ES module whose default export has a fetch(request, env, ctx) method,
    /// or a .kbc file `kiln build` wrote
    pub handler: PathBuf,
    /// the port to listen on (0: any free port)
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// the address to listen on
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// worker threads (default: one per core)
    #[arg(long)]
    pub workers: Option<usize>,
    /// the largest request body, in bytes (suffixes k and m: 64k, 1m); larger gets 413
    #[arg(long, default_value = "1m", value_parser = parse_size)]
    pub max_body: usize,
    /// fuel budget per request (about one unit per bytecode instruction); over it: 503
    #[arg(long)]
    pub fuel: Option<u64>,
    /// heap limit of each runtime in MiB (module state included); over it: 503
    #[arg(long)]
    pub heap_mb: Option<usize>,
    /// time limit per request in milliseconds (compute and waiting); over it: 503
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// hosts fetch() may reach, comma-separated (`api.example.com,127.0.0.1:9000`)
    #[arg(long, value_delimiter = ',')]
    pub allow_fetch: Vec<String>,
    /// a value of the handler's env (repeatable): --env KEY=VALUE
    #[arg(long = "env", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
    /// print neither the startup line nor the handler's console output
    #[arg(long)]
    pub quiet: bool,
    /// reload the handler when one of its files changes
    #[arg(long)]
    pub watch: bool,
}

pub fn run(settings: Settings) -> ExitCode {
    let handler = match settings.handler.canonicalize() {
        Ok(path) => path,
        Err(e) => {
            eprintln!(
                "kiln serve: cannot read {}: {e}",
                settings.handler.display()
            );
            return ExitCode::from(1);
        }
    };
    let workers = settings.workers.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let config = kiln_serve::Config {
        handler,
        host: settings.host,
        port: settings.port,
        workers,
        max_body: settings.max_body,
        budgets: kiln_serve::Budgets {
            fuel: settings.fuel,
            heap_bytes: settings.heap_mb.map(|mb| mb << 20),
            timeout: settings.timeout_ms.map(Duration::from_millis),
        },
        allow_fetch: settings.allow_fetch,
        env: settings.env,
        quiet: settings.quiet,
        watch: settings.watch,
    };
    match kiln_serve::run(config, FileLoader) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("kiln serve: {message}");
            ExitCode::from(1)
        }
    }
}

/// `kiln build`: write the compiled handler to `output`.
pub fn build(handler: &Path, output: &Path) -> ExitCode {
    let handler = match handler.canonicalize() {
        Ok(path) => path,
        Err(e) => {
            eprintln!("kiln build: cannot read {}: {e}", handler.display());
            return ExitCode::from(1);
        }
    };
    let bytes = match kiln_serve::build(&handler, FileLoader) {
        Ok(bytes) => bytes,
        Err(message) => {
            eprintln!("kiln build: {message}");
            return ExitCode::from(1);
        }
    };
    match std::fs::write(output, bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kiln build: cannot write {}: {e}", output.display());
            ExitCode::from(1)
        }
    }
}

/// A byte count: digits with an optional k or m suffix (KiB, MiB).
fn parse_size(text: &str) -> Result<usize, String> {
    let lower = text.trim().to_ascii_lowercase();
    let (digits, unit) = match lower.strip_suffix('k') {
        Some(d) => (d, 1 << 10),
        None => match lower.strip_suffix('m') {
            Some(d) => (d, 1 << 20),
            None => (lower.as_str(), 1),
        },
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .ok_or_else(|| format!("expected a size such as 1048576, 64k or 1m, got {text:?}"))
}

fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!("expected KEY=VALUE, got {text:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_k_and_m_suffixes() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert!(parse_size("1g").is_err());
        assert!(parse_size("").is_err());
    }

    #[test]
    fn env_values_split_at_the_first_equals_sign() {
        assert_eq!(parse_env("A=b=c"), Ok(("A".into(), "b=c".into())));
        assert_eq!(parse_env("EMPTY="), Ok(("EMPTY".into(), String::new())));
        assert!(parse_env("=x").is_err());
        assert!(parse_env("novalue").is_err());
    }
}
