//! The shell globals the CLI adds: `console` (through `Runtime::set_console`: `log`,
//! `info`, `debug` on stdout, `warn`, `error` on stderr) and `print`, which is
//! `console.log`. They exist only in `kiln run/eval/repl`, never in `kiln sandbox`.

use kiln::{ConsoleLevel, Runtime};
use std::io::Write;

pub fn install(runtime: &mut Runtime) {
    runtime.set_console(|level, line| {
        // A closed pipe (`kiln run f.js | head`) ends output quietly instead of panicking.
        let _ = match level {
            ConsoleLevel::Warn | ConsoleLevel::Error => writeln!(std::io::stderr(), "{line}"),
            _ => writeln!(std::io::stdout(), "{line}"),
        };
    });
    let print = "Object.defineProperty(globalThis, 'print', \
                 { value: console.log, writable: true, configurable: true })";
    if let Err(report) = runtime.run_script(print, "<shell>") {
        unreachable!("the shell globals are defined: {report}");
    }
}
