//! The guest's `console`, when the host asks for one ([`crate::Runtime::set_console`]):
//! `log`, `info`, `debug`, `warn`, `error`, `trace` and `dir` format their arguments as
//! node does (`util.format`: `%s %d %i %f %j %o %O %c %%` substitutions, strings raw at
//! the top level, other values as `util.inspect` shows them, on one line) and hand the
//! line to the host's sink with its [`ConsoleLevel`].
//!
//! Where node would call guest code, so does Kiln: `%d` converts with `Number()`, `%i`
//! and `%f` with `parseInt`/`parseFloat`, `%j` with `JSON.stringify`. `%s` shows an
//! object as `util.inspect` does at depth 0 (node calls a user-defined `toString`
//! instead), and `%o` is `%O` at depth 4 (node also shows non-enumerable properties).

use crate::JsResult;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, PropertyKey};
use crate::value::Value;
use std::cell::RefCell;
use std::rc::Rc;

/// The severity of a console line: which method wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConsoleLevel {
    /// `console.log`, and `console.trace` and `console.dir`
    Log,
    Info,
    Debug,
    Warn,
    Error,
}

/// Where console lines go.
pub(crate) type ConsoleSink = Rc<RefCell<dyn FnMut(ConsoleLevel, &str)>>;

/// The console methods: name, level, and whether it inspects its first argument only
/// (`dir`) instead of formatting them all.
const METHODS: [(&str, ConsoleLevel, bool); 7] = [
    ("log", ConsoleLevel::Log, false),
    ("info", ConsoleLevel::Info, false),
    ("debug", ConsoleLevel::Debug, false),
    ("warn", ConsoleLevel::Warn, false),
    ("error", ConsoleLevel::Error, false),
    ("trace", ConsoleLevel::Log, false),
    ("dir", ConsoleLevel::Log, true),
];

impl Vm {
    /// Send console lines to `sink` and define the global `console` (again).
    pub(crate) fn install_console(&mut self, sink: ConsoleSink) {
        self.host.console = Some(sink);
        let proto = self.intrinsics.object_prototype;
        let console = self
            .heap
            .new_object(Some(proto), crate::object::ObjectKind::Ordinary);
        for (index, (name, _, _)) in METHODS.iter().enumerate() {
            let fname = self.string_value(name);
            let f = self.new_native_with_data(
                console_method,
                fname,
                0,
                false,
                Box::new([Value::int(index as i32)]),
            );
            let key = self.key(name);
            self.define_builtin(console, key, Value::object(f), Attrs::HIDDEN);
        }
        let global = self.intrinsics.global;
        let key = self.key("console");
        self.define_builtin(global, key, Value::object(console), Attrs::HIDDEN);
    }
}

/// The native behind every console method: its data is the method's index in
/// [`METHODS`].
pub(crate) fn console_method(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let index = vm
        .native_data(vm.native_callee)
        .first()
        .and_then(|v| v.as_int())
        .unwrap_or(0);
    let (_, level, dir) = METHODS.get(index as usize).copied().unwrap_or(METHODS[0]);
    let line = if dir {
        crate::inspect::inspect(vm, vm.arg(args, 0), true)
    } else {
        format(vm, args)?
    };
    vm.charge(1 + line.len() as u64 / 64)?;
    // A restored runtime has no sink until the host sets one again.
    let Some(sink) = vm.host.console.clone() else {
        return Ok(Value::UNDEFINED);
    };
    // The sink cannot reach the guest, so it is never re-entered.
    if let Ok(mut sink) = sink.try_borrow_mut() {
        sink(level, &line);
    }
    Ok(Value::UNDEFINED)
}

/// node's `util.format(...args)`.
pub(crate) fn format(vm: &mut Vm, args: Args) -> JsResult<String> {
    let mut out = String::new();
    let mut next = 0;
    if let Some(s) = vm.arg(args, 0).as_string() {
        let template = vm.heap.string_to_rust(s);
        next = 1;
        let mut chars = template.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let Some(&spec) = chars.peek() else {
                out.push('%');
                break;
            };
            if spec == '%' {
                chars.next();
                out.push('%');
                continue;
            }
            if !"sdifjoOc".contains(spec) || next >= args.count {
                out.push('%');
                continue;
            }
            chars.next();
            let at = Args {
                start: args.start + next,
                count: 1,
                new_target: Value::UNDEFINED,
            };
            next += 1;
            out.push_str(&substitute(vm, spec, at)?);
        }
    }
    for i in next..args.count {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&crate::inspect::inspect(
            vm,
            vm.arg(args, i as usize),
            false,
        ));
    }
    Ok(out)
}

/// The text of one `%` substitution for the argument `arg` (a window of one).
fn substitute(vm: &mut Vm, spec: char, arg: Args) -> JsResult<String> {
    let v = vm.arg(arg, 0);
    let number = |vm: &mut Vm, n: Value| crate::inspect::inspect(vm, n, false);
    Ok(match spec {
        's' if v.is_object() => crate::inspect::inspect_to_depth(vm, v, true, 0),
        's' => crate::inspect::inspect(vm, v, false),
        'd' | 'i' | 'f' if v.as_symbol().is_some() => "NaN".into(),
        'd' | 'i' if v.as_bigint().is_some() => number(vm, v),
        'd' => {
            let n = vm.to_number(v)?;
            number(vm, Value::number(n))
        }
        'i' => {
            let n = crate::builtins::global::parse_int(vm, Value::UNDEFINED, arg)?;
            number(vm, n)
        }
        'f' => {
            let n = crate::builtins::global::parse_float(vm, Value::UNDEFINED, arg)?;
            number(vm, n)
        }
        'j' => json(vm, arg)?,
        'o' => crate::inspect::inspect_to_depth(vm, v, true, 4),
        'O' => crate::inspect::inspect(vm, v, true),
        // 'c': CSS for browsers' consoles; the argument is consumed and not shown
        _ => String::new(),
    })
}

/// `JSON.stringify(arg)`, or `[Circular]` for a cyclic value as node writes it.
fn json(vm: &mut Vm, arg: Args) -> JsResult<String> {
    match crate::builtins::json::stringify(vm, Value::UNDEFINED, arg) {
        Ok(v) if v.is_undefined() => Ok("undefined".into()),
        Ok(v) => Ok(vm.display(v)),
        Err(thrown) => {
            let exception = vm.catch_thrown()?;
            let circular = exception.as_object().is_some_and(|o| {
                vm.peek_string_property(o, PropertyKey::String(vm.atoms.message))
                    .is_some_and(|m| m.starts_with("Converting circular structure"))
            });
            if circular {
                return Ok("[Circular]".into());
            }
            vm.exception = exception;
            Err(thrown)
        }
    }
}
