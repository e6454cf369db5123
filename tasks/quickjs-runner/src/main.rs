//! `kiln-quickjs`: run JavaScript files on QuickJS-NG (through `rquickjs`), the way
//! `kiln run` runs them: one realm, the files in order, `print` and `console.log`
//! defined, pending jobs (promise reactions) run after each file.
//!
//! Exit codes follow `kiln`: 0 on success, 1 on an uncaught exception or an
//! unreadable file.

use rquickjs::context::EvalOptions;
use rquickjs::{CatchResultExt, Context, Ctx, Function, Object, Runtime};
use std::process::ExitCode;

/// QuickJS's own default stack limit is small; deep recursion fixtures need more.
const STACK_BYTES: usize = 256 << 20;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--version") {
        println!("{}", version());
        return ExitCode::SUCCESS;
    }
    if args.is_empty() {
        eprintln!("usage: kiln-quickjs FILE [FILE ...]");
        return ExitCode::from(1);
    }
    let worker = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || run(&args));
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("kiln-quickjs: internal error");
            ExitCode::from(70)
        }
    }
}

/// The QuickJS-NG release compiled into `rquickjs-sys`.
fn version() -> String {
    // SAFETY: JS_GetVersion returns a pointer to a static NUL-terminated string.
    let raw = unsafe { std::ffi::CStr::from_ptr(rquickjs::qjs::JS_GetVersion()) };
    raw.to_string_lossy().into_owned()
}

fn run(files: &[String]) -> ExitCode {
    let runtime = Runtime::new().expect("QuickJS runtime");
    runtime.set_max_stack_size(STACK_BYTES - (16 << 20));
    let context = Context::full(&runtime).expect("QuickJS context");
    for file in files {
        let source = match std::fs::read_to_string(file) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("kiln-quickjs: cannot read {file}: {e}");
                return ExitCode::from(1);
            }
        };
        let failed = context.with(|ctx| {
            install_print(&ctx);
            // A classic script, sloppy unless it says "use strict" (rquickjs defaults to strict).
            let mut options = EvalOptions::default();
            options.strict = false;
            options.filename = Some(file.clone());
            let result: rquickjs::Result<()> = ctx.eval_with_options(source, options);
            match result.catch(&ctx) {
                Ok(()) => false,
                Err(e) => {
                    eprintln!("Uncaught {e}");
                    true
                }
            }
        });
        if failed || !run_jobs(&runtime) {
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}

/// Runs promise jobs until none is pending; false if one threw.
fn run_jobs(runtime: &Runtime) -> bool {
    loop {
        match runtime.execute_pending_job() {
            Ok(true) => continue,
            Ok(false) => return true,
            Err(e) => {
                eprintln!("Uncaught exception in a job: {e:?}");
                return false;
            }
        }
    }
}

fn install_print(ctx: &Ctx<'_>) {
    let globals = ctx.globals();
    if globals.contains_key("print").unwrap_or(false) {
        return;
    }
    let print = Function::new(ctx.clone(), print_line).expect("print");
    globals.set("print", print.clone()).expect("set print");
    let console = Object::new(ctx.clone()).expect("console");
    for name in ["log", "info", "warn", "error"] {
        console.set(name, print.clone()).expect("console method");
    }
    globals.set("console", console).expect("set console");
}

/// `print(...values)`: the values converted with String(), joined by spaces.
fn print_line<'js>(ctx: Ctx<'js>, args: rquickjs::function::Rest<rquickjs::Value<'js>>) {
    let mut line = String::new();
    for (i, value) in args.0.into_iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        let text: String = ctx
            .globals()
            .get::<_, Function>("String")
            .and_then(|f| f.call((value,)))
            .unwrap_or_else(|_| "<unprintable>".into());
        line.push_str(&text);
    }
    println!("{line}");
}
