//! The global object's own functions and values: `globalThis`, `NaN`,
//! `Infinity`, `undefined`, `parseInt`, `parseFloat`, `isNaN`, `isFinite`,
//! `eval` ([spec](https://tc39.es/ecma262/#sec-global-object)).

use super::define_global;
use crate::JsResult;
use crate::interpreter::convert::{is_js_whitespace, string_to_number};
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, PropertyKey};
use crate::value::Value;
use kiln_bytecode::ScriptKind;

pub fn init(vm: &mut Vm) {
    let global = vm.intrinsics.global;
    define_global(vm, "globalThis", Value::object(global));
    for (name, v) in [
        ("NaN", Value::double(f64::NAN)),
        ("Infinity", Value::double(f64::INFINITY)),
        ("undefined", Value::UNDEFINED),
    ] {
        let key = vm.key(name);
        vm.define_builtin(global, key, v, Attrs::NONE);
    }
    vm.define_native(global, "parseInt", parse_int, 2);
    vm.define_native(global, "parseFloat", parse_float, 1);
    vm.define_native(global, "isNaN", is_nan, 1);
    vm.define_native(global, "isFinite", is_finite, 1);
    let eval = vm.define_native(global, "eval", indirect_eval, 1);
    vm.intrinsics.eval = eval;
    let _ = PropertyKey::Index(0);
    // Number.parseFloat / Number.parseInt are these same function objects.
    super::number::share_global_parse_functions(vm);
}

/// [parseInt](https://tc39.es/ecma262/#sec-parseint-string-radix)
pub fn parse_int(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let s = vm.to_string(vm.arg(args, 0))?;
    let text = vm.heap.string_to_rust(s);
    let mut radix = vm.to_int32(vm.arg(args, 1))?;
    let t = text.trim_start_matches(is_js_whitespace);
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut strip_prefix = true;
    if radix != 0 {
        if !(2..=36).contains(&radix) {
            return Ok(Value::double(f64::NAN));
        }
        if radix != 16 {
            strip_prefix = false;
        }
    } else {
        radix = 10;
    }
    let t = if strip_prefix && (t.starts_with("0x") || t.starts_with("0X")) {
        radix = 16;
        &t[2..]
    } else {
        t
    };
    let digits: &str = &t[..t
        .find(|c: char| !c.is_digit(radix as u32))
        .unwrap_or(t.len())];
    if digits.is_empty() {
        return Ok(Value::double(f64::NAN));
    }
    let value = if radix == 10 {
        digits.parse::<f64>().unwrap_or(f64::NAN)
    } else {
        digits.chars().fold(0.0, |acc, c| {
            acc * radix as f64 + c.to_digit(radix as u32).unwrap_or(0) as f64
        })
    };
    Ok(Value::number(if negative { -value } else { value }))
}

/// [parseFloat](https://tc39.es/ecma262/#sec-parsefloat-string)
pub fn parse_float(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let s = vm.to_string(vm.arg(args, 0))?;
    let text = vm.heap.string_to_rust(s);
    let t = text.trim_start_matches(is_js_whitespace);
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    if t[i..].starts_with("Infinity") {
        return Ok(Value::double(if b.first() == Some(&b'-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }));
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    let mantissa_end = i;
    if mantissa_end == digits_start || &t[digits_start..mantissa_end] == "." {
        return Ok(Value::double(f64::NAN));
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_digits = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_digits {
            i = j;
        }
    }
    let units: Vec<u8> = t[..i].bytes().collect();
    Ok(Value::number(string_to_number(
        crate::heap::string::Units::Latin1(&units),
    )))
}

fn is_nan(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    Ok(Value::bool(vm.to_number(vm.arg(args, 0))?.is_nan()))
}

fn is_finite(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    Ok(Value::bool(vm.to_number(vm.arg(args, 0))?.is_finite()))
}

/// [eval](https://tc39.es/ecma262/#sec-eval-x) called indirectly: global code.
fn indirect_eval(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let x = vm.arg(args, 0);
    vm.eval_code(x, false)
}

impl Vm {
    /// PerformEval: run a string as eval code in the global scope.
    pub fn eval_code(&mut self, x: Value, strict: bool) -> JsResult<Value> {
        let Some(s) = x.as_string() else { return Ok(x) };
        let source = self.heap.string_to_rust(s);
        let block = self.load(&source, "<eval>", ScriptKind::Eval, strict)?;
        self.run_top_level(block)
    }

    /// A direct `eval(...)` call. Kiln runs it in the global scope: the caller's local
    /// variables are not visible to the evaluated code.
    pub(crate) fn direct_eval(&mut self, x: Value, strict: bool) -> JsResult<Value> {
        self.eval_code(x, strict)
    }

    /// Dynamic `import()`: modules are not supported yet, so the promise rejects.
    pub(crate) fn import_dynamic(&mut self, _specifier: Value) -> JsResult<Value> {
        let p = self.new_promise();
        let e = self.new_error(
            self.intrinsics.syntax_error_prototype,
            "not yet supported: dynamic import",
        );
        self.reject_promise(p, Value::object(e));
        Ok(Value::object(p))
    }
}
