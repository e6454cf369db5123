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
    uri::init(vm);
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
        self.ensure_can_compile_strings()?;
        // the source's copy is dropped before the code runs: nested evals would each keep one
        let block = {
            let source = self.heap.string_to_rust(s);
            self.load(&source, "<eval>", ScriptKind::Eval, strict)?
        };
        self.run_top_level(block)
    }

    /// A direct `eval(...)` call: the code sees the caller's scope (see
    /// `interpreter/scopes.rs`).
    pub(crate) fn direct_eval(&mut self, x: Value, strict: bool) -> JsResult<Value> {
        self.direct_eval_in_scope(x, strict)
    }
}

/// URI handling ([spec](https://tc39.es/ecma262/#sec-uri-handling-functions)) and the
/// Annex B `escape` / `unescape`.
mod uri {
    use crate::JsResult;
    use crate::interpreter::{Args, Vm};
    use crate::value::Value;

    pub fn init(vm: &mut Vm) {
        let global = vm.intrinsics.global;
        vm.define_native(global, "decodeURI", decode_uri, 1);
        vm.define_native(global, "decodeURIComponent", decode_uri_component, 1);
        vm.define_native(global, "encodeURI", encode_uri, 1);
        vm.define_native(global, "encodeURIComponent", encode_uri_component, 1);
        vm.define_native(global, "escape", escape, 1);
        vm.define_native(global, "unescape", unescape, 1);
    }

    const URI_RESERVED: &str = ";/?:@&=+$,";
    const URI_MARK: &str = "-_.!~*'()";
    const HEX: &[u8; 16] = b"0123456789ABCDEF";

    fn uri_error(vm: &mut Vm, msg: &str) -> crate::Thrown {
        let e = vm.new_error(vm.intrinsics.uri_error_prototype, msg);
        vm.throw(Value::object(e))
    }

    fn string_arg(vm: &mut Vm, args: Args) -> JsResult<Vec<u16>> {
        let s = vm.to_string(vm.arg(args, 0))?;
        Ok(vm.heap.units_vec(s))
    }

    fn push_escape(out: &mut Vec<u16>, byte: u8) {
        out.push(b'%' as u16);
        out.push(HEX[(byte >> 4) as usize] as u16);
        out.push(HEX[(byte & 15) as usize] as u16);
    }

    /// [Encode](https://tc39.es/ecma262/#sec-encode)
    fn encode(vm: &mut Vm, args: Args, extra: &str) -> JsResult<Value> {
        let units = string_arg(vm, args)?;
        let mut out = Vec::with_capacity(units.len());
        let mut k = 0;
        while k < units.len() {
            let c = units[k];
            let unescaped = c < 128 && {
                let ch = c as u8 as char;
                ch.is_ascii_alphanumeric() || URI_MARK.contains(ch) || extra.contains(ch)
            };
            if unescaped {
                out.push(c);
                k += 1;
                continue;
            }
            let cp = match c {
                0xD800..=0xDBFF => match units.get(k + 1) {
                    Some(&t) if (0xDC00..=0xDFFF).contains(&t) => {
                        k += 1;
                        0x10000 + (((c as u32) - 0xD800) << 10) + (t as u32 - 0xDC00)
                    }
                    _ => return Err(uri_error(vm, "URI malformed: lone surrogate")),
                },
                0xDC00..=0xDFFF => return Err(uri_error(vm, "URI malformed: lone surrogate")),
                _ => c as u32,
            };
            k += 1;
            let mut buf = [0u8; 4];
            let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
            for &b in ch.encode_utf8(&mut buf).as_bytes() {
                push_escape(&mut out, b);
            }
        }
        Ok(Value::string(vm.heap.alloc_units(&out)))
    }

    fn hex_value(u: u16) -> Option<u8> {
        char::from_u32(u as u32)?.to_digit(16).map(|d| d as u8)
    }

    fn hex_octet(units: &[u16], at: usize) -> Option<u8> {
        let hi = hex_value(*units.get(at)?)?;
        let lo = hex_value(*units.get(at + 1)?)?;
        Some(hi << 4 | lo)
    }

    /// [Decode](https://tc39.es/ecma262/#sec-decode)
    fn decode(vm: &mut Vm, args: Args, preserve: &str) -> JsResult<Value> {
        let units = string_arg(vm, args)?;
        let len = units.len();
        let mut out = Vec::with_capacity(len);
        let mut k = 0;
        while k < len {
            let c = units[k];
            if c != b'%' as u16 {
                out.push(c);
                k += 1;
                continue;
            }
            let start = k;
            let Some(b) = hex_octet(&units, k + 1) else {
                return Err(uri_error(vm, "URI malformed"));
            };
            k += 2;
            let n = b.leading_ones() as usize;
            if n == 0 {
                if preserve.contains(b as char) {
                    out.extend_from_slice(&units[start..start + 3]);
                } else {
                    out.push(b as u16);
                }
                k += 1;
                continue;
            }
            if n == 1 || n > 4 || k + 3 * (n - 1) >= len {
                return Err(uri_error(vm, "URI malformed"));
            }
            let mut octets = vec![b];
            for _ in 1..n {
                k += 1;
                if units[k] != b'%' as u16 {
                    return Err(uri_error(vm, "URI malformed"));
                }
                let Some(cont) = hex_octet(&units, k + 1) else {
                    return Err(uri_error(vm, "URI malformed"));
                };
                octets.push(cont);
                k += 2;
            }
            let Some(ch) = std::str::from_utf8(&octets)
                .ok()
                .and_then(|s| s.chars().next())
            else {
                return Err(uri_error(vm, "URI malformed: invalid UTF-8"));
            };
            let mut buf = [0u16; 2];
            out.extend_from_slice(ch.encode_utf16(&mut buf));
            k += 1;
        }
        Ok(Value::string(vm.heap.alloc_units(&out)))
    }

    /// [decodeURI](https://tc39.es/ecma262/#sec-decodeuri-encodeduri)
    fn decode_uri(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
        decode(vm, args, ";/?:@&=+$,#")
    }

    /// [decodeURIComponent](https://tc39.es/ecma262/#sec-decodeuricomponent-encodeduricomponent)
    fn decode_uri_component(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
        decode(vm, args, "")
    }

    /// [encodeURI](https://tc39.es/ecma262/#sec-encodeuri-uri)
    fn encode_uri(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
        let extra = format!("{URI_RESERVED}#");
        encode(vm, args, &extra)
    }

    /// [encodeURIComponent](https://tc39.es/ecma262/#sec-encodeuricomponent-uricomponent)
    fn encode_uri_component(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
        encode(vm, args, "")
    }

    /// [escape](https://tc39.es/ecma262/#sec-escape-string) (Annex B)
    fn escape(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
        let units = string_arg(vm, args)?;
        let mut out = Vec::with_capacity(units.len());
        for &u in &units {
            let plain = u < 128 && {
                let ch = u as u8 as char;
                ch.is_ascii_alphanumeric() || "@*_+-./".contains(ch)
            };
            if plain {
                out.push(u);
            } else if u < 256 {
                push_escape(&mut out, u as u8);
            } else {
                out.push(b'%' as u16);
                out.push(b'u' as u16);
                for shift in [12, 8, 4, 0] {
                    out.push(HEX[((u >> shift) & 15) as usize] as u16);
                }
            }
        }
        Ok(Value::string(vm.heap.alloc_units(&out)))
    }

    /// [unescape](https://tc39.es/ecma262/#sec-unescape-string) (Annex B)
    fn unescape(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
        let units = string_arg(vm, args)?;
        let mut out = Vec::with_capacity(units.len());
        let mut k = 0;
        while k < units.len() {
            let mut c = units[k];
            if c == b'%' as u16 {
                let four = (units.get(k + 1) == Some(&(b'u' as u16)))
                    .then(|| Some((hex_octet(&units, k + 2)?, hex_octet(&units, k + 4)?)))
                    .flatten();
                if let Some((hi, lo)) = four {
                    c = (hi as u16) << 8 | lo as u16;
                    k += 5;
                } else if let Some(b) = hex_octet(&units, k + 1) {
                    c = b as u16;
                    k += 2;
                }
            }
            out.push(c);
            k += 1;
        }
        Ok(Value::string(vm.heap.alloc_units(&out)))
    }
}
