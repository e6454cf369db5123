//! `kiln`: run JavaScript files, evaluate code, start a REPL, or build and serve an HTTP
//! handler. TypeScript files (`.ts`, `.mts`, `.cts`) run with their types stripped.
//!
//! Exit codes: 0 on success, 1 on an uncaught exception, 2 on a syntax error.

mod loader;
mod repl;
mod sandbox;
mod serve;
mod shell;

use clap::{Parser, Subcommand};
use kiln::{ErrorReport, Runtime};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "kiln", version, about = "The Kiln JavaScript engine")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one or more script files in order, in one realm
    Run {
        /// the files to run (`.mjs` and `.mts` files are modules; `.ts`, `.mts` and `.cts`
        /// files are TypeScript, run with their types stripped)
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// treat the files as ES modules
        #[arg(long)]
        module: bool,
    },
    /// Evaluate code given on the command line and print its value
    Eval { code: String },
    /// Start an interactive session
    Repl,
    /// Run a script as a sandboxed guest, driven over JSON lines (see `sandbox.rs`), or
    /// continue one from a snapshot (`--restore`)
    Sandbox {
        file: PathBuf,
        #[command(flatten)]
        settings: sandbox::Settings,
    },
    /// Serve a JavaScript HTTP handler: an ES module in the Workers form,
    /// `export default { async fetch(request, env, ctx) { ... } }`
    Serve {
        #[command(flatten)]
        settings: serve::Settings,
    },
    /// Compile a handler module and everything it imports into a .kbc file, which
    /// `kiln serve` starts from without parsing or compiling
    Build {
        /// the handler module
        handler: PathBuf,
        /// the .kbc file to write
        #[arg(short, long)]
        output: PathBuf,
    },
}

/// The engine runs on a thread with a large stack: deeply nested source and
/// native re-entry recurse on the Rust stack even though JavaScript calls do not.
const ENGINE_STACK_BYTES: usize = 256 << 20;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let worker = std::thread::Builder::new()
        .stack_size(ENGINE_STACK_BYTES)
        .spawn(move || run(cli));
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("kiln: internal error");
            ExitCode::from(70)
        }
    }
}

fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Run { files, module } => {
            let mut runtime = shell_runtime();
            let code = run_files(&mut runtime, files, module);
            // The process ends now: freeing the heap cell by cell would only delay the
            // exit (about 1 % of a real program's run).
            std::mem::forget(runtime);
            code
        }
        Command::Eval { code } => match shell_runtime().eval(&code) {
            Ok(text) => {
                println!("{text}");
                ExitCode::SUCCESS
            }
            Err(report) => fail(&report),
        },
        Command::Repl => repl::run(&mut shell_runtime()),
        Command::Sandbox { file, settings } => sandbox::run(&file, settings),
        Command::Serve { settings } => serve::run(settings),
        Command::Build { handler, output } => serve::build(&handler, &output),
    }
}

/// Run each file in turn in `runtime`, stopping at the first that fails.
fn run_files(runtime: &mut Runtime, files: Vec<PathBuf>, module: bool) -> ExitCode {
    for file in files {
        let is_module = module || file.extension().is_some_and(|e| e == "mjs" || e == "mts");
        if is_module {
            if let Err(report) = runtime.run_module(&file.display().to_string(), "") {
                return fail(&report);
            }
            continue;
        }
        let Some(source) = read(&file) else {
            return ExitCode::from(1);
        };
        if let Err(report) = runtime.run_script(&source, &file.display().to_string()) {
            return fail(&report);
        }
    }
    ExitCode::SUCCESS
}

/// A runtime with the shell globals (`print`, `console`) and the file-system module loader.
fn shell_runtime() -> Runtime {
    let mut runtime = Runtime::new();
    shell::install(&mut runtime);
    runtime.set_module_loader(Box::new(loader::FileLoader));
    runtime
}

fn read(file: &std::path::Path) -> Option<String> {
    match std::fs::read_to_string(file) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("kiln: cannot read {}: {e}", file.display());
            None
        }
    }
}

fn fail(report: &ErrorReport) -> ExitCode {
    eprintln!("{report}");
    ExitCode::from(if report.is_syntax_error() { 2 } else { 1 })
}
