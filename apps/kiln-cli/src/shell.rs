//! The shell globals the CLI adds: `print(...)` and `console.log/info/warn/error/debug`.
//! They exist only in the CLI, never in an embedded runtime.

use kiln::object::{Attrs, ObjectKind, PropertyKey};
use kiln::{Args, JsResult, Runtime, Value, Vm};
use std::io::Write;

pub fn install(runtime: &mut Runtime) {
    runtime.register_function("print", print, 0);
    let vm = runtime.vm();
    let console = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.define_native(console, "log", print, 0);
    vm.define_native(console, "info", print, 0);
    vm.define_native(console, "debug", print, 0);
    vm.define_native(console, "warn", print_stderr, 0);
    vm.define_native(console, "error", print_stderr, 0);
    let key = vm.key("console");
    let global = vm.intrinsics.global;
    vm.define_builtin(global, key, Value::object(console), Attrs::HIDDEN);
    let _ = PropertyKey::Index(0);
}

/// The arguments as text: strings as they are, other values as the REPL shows them.
fn format_args(vm: &mut Vm, args: Args) -> JsResult<String> {
    let mut parts = Vec::with_capacity(args.count as usize);
    for i in 0..args.count as usize {
        let v = vm.arg(args, i);
        parts.push(if v.as_string().is_some() {
            vm.display(v)
        } else {
            kiln::inspect(vm, v)
        });
    }
    Ok(parts.join(" "))
}

fn print(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let text = format_args(vm, args)?;
    // A closed pipe (`kiln run f.js | head`) ends output quietly instead of panicking.
    let _ = writeln!(std::io::stdout(), "{text}");
    Ok(Value::UNDEFINED)
}

fn print_stderr(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let text = format_args(vm, args)?;
    let _ = writeln!(std::io::stderr(), "{text}");
    Ok(Value::UNDEFINED)
}
