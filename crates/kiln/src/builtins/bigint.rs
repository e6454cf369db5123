//! `BigInt` and `BigInt.prototype`
//! ([spec](https://tc39.es/ecma262/#sec-bigint-objects)), and the parsing of
//! BigInt literals and strings.

use super::{define_to_string_tag, make_constructor};
use crate::JsResult;
use crate::interpreter::convert::Hint;
use crate::interpreter::{Args, Vm};
use crate::object::ObjectKind;
use crate::value::{Kind, Value};
use num_bigint::BigInt;
use num_traits::{FromPrimitive, One, Signed};

/// The widest result `asIntN` / `asUintN` build, in bits (wider ones throw RangeError).
const MAX_BIGINT_BITS: u64 = 1 << 24;

pub fn init(vm: &mut Vm) {
    let proto = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.bigint_prototype = proto;
    let ctor = make_constructor(vm, "BigInt", bigint_constructor, 1, proto);
    vm.intrinsics.bigint = ctor;
    vm.define_native(ctor, "asIntN", as_int_n, 2);
    vm.define_native(ctor, "asUintN", as_uint_n, 2);
    vm.define_native(proto, "toLocaleString", to_locale_string, 0);
    vm.define_native(proto, "toString", to_string, 0);
    vm.define_native(proto, "valueOf", value_of, 0);
    define_to_string_tag(vm, proto, "BigInt");
}

/// [BigInt](https://tc39.es/ecma262/#sec-bigint-constructor-number-value)
fn bigint_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if !args.new_target.is_undefined() {
        return Err(vm.type_error("BigInt is not a constructor"));
    }
    let prim = vm.to_primitive(vm.arg(args, 0), Hint::Number)?;
    if let Some(n) = prim.as_number() {
        return number_to_bigint(vm, n);
    }
    to_bigint(vm, prim)
}

/// [NumberToBigInt](https://tc39.es/ecma262/#sec-numbertobigint)
fn number_to_bigint(vm: &mut Vm, n: f64) -> JsResult<Value> {
    match (n.trunc() == n).then(|| BigInt::from_f64(n)).flatten() {
        Some(b) => Ok(vm.bigint_value(b)),
        None => {
            let what = crate::interpreter::convert::number_to_string(n);
            Err(vm.range_error(format!(
                "The number {what} cannot be converted to a BigInt because it is not an integer"
            )))
        }
    }
}

/// [ToBigInt](https://tc39.es/ecma262/#sec-tobigint)
pub fn to_bigint(vm: &mut Vm, v: Value) -> JsResult<Value> {
    let prim = vm.to_primitive(v, Hint::Number)?;
    match prim.kind() {
        Kind::BigInt(_) => Ok(prim),
        Kind::Bool(b) => Ok(vm.bigint_value(BigInt::from(b as u8))),
        Kind::String(s) => {
            let text = vm.heap.string_to_rust(s);
            match parse_bigint_string(&text) {
                Some(b) => Ok(vm.bigint_value(b)),
                None => Err(vm.syntax_error(format!("Cannot convert {text} to a BigInt"))),
            }
        }
        _ => {
            let what = vm.display(prim);
            Err(vm.type_error(format!("Cannot convert {what} to a BigInt")))
        }
    }
}

/// BigInt.asIntN / asUintN: `bigint` modulo 2^bits, signed or not.
fn as_n(vm: &mut Vm, args: Args, signed: bool) -> JsResult<Value> {
    let bits = vm.to_index(vm.arg(args, 0))? as u64;
    let v = to_bigint(vm, vm.arg(args, 1))?;
    let Some(b) = v.as_bigint() else {
        return Ok(v);
    };
    let x = vm.heap.bigint(b).clone();
    if bits == 0 {
        return Ok(vm.bigint_value(BigInt::from(0)));
    }
    // Already in range: the value is its own result (and 2^bits may be too large to build).
    let fits = if signed {
        x.bits() < bits
    } else {
        !x.is_negative() && x.bits() <= bits
    };
    if fits {
        return Ok(v);
    }
    if bits > MAX_BIGINT_BITS {
        return Err(vm.range_error("Maximum BigInt size exceeded"));
    }
    let modulus = BigInt::one() << bits as usize;
    // Two's-complement AND with 2^bits - 1 is x modulo 2^bits, non-negative.
    let mask: BigInt = &modulus - 1;
    let m: BigInt = &x & &mask;
    let r = if signed && m.bit(bits - 1) {
        m - modulus
    } else {
        m
    };
    Ok(vm.bigint_value(r))
}

/// [BigInt.asIntN](https://tc39.es/ecma262/#sec-bigint.asintn)
fn as_int_n(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    as_n(vm, args, true)
}

/// [BigInt.asUintN](https://tc39.es/ecma262/#sec-bigint.asuintn)
fn as_uint_n(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    as_n(vm, args, false)
}

/// [thisBigIntValue](https://tc39.es/ecma262/#sec-thisbigintvalue)
fn this_bigint_value(vm: &mut Vm, this: Value, method: &str) -> JsResult<Value> {
    if this.as_bigint().is_some() {
        return Ok(this);
    }
    if let Some(o) = this.as_object()
        && let ObjectKind::BigInt(b) = vm.heap.object(o).kind
    {
        return Ok(Value::bigint(b));
    }
    Err(vm.type_error(format!(
        "BigInt.prototype.{method} requires that 'this' be a BigInt"
    )))
}

/// [BigInt.prototype.toString](https://tc39.es/ecma262/#sec-bigint.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let x = this_bigint_value(vm, this, "toString")?;
    let radix = vm.arg(args, 0);
    let radix = if radix.is_undefined() {
        10.0
    } else {
        vm.to_integer(radix)?
    };
    if !(2.0..=36.0).contains(&radix) {
        return Err(vm.range_error("toString() radix must be between 2 and 36"));
    }
    let text = match x.as_bigint() {
        Some(b) => vm.heap.bigint(b).to_str_radix(radix as u32),
        None => String::new(),
    };
    Ok(vm.string_value(&text))
}

/// [BigInt.prototype.toLocaleString](https://tc39.es/ecma262/#sec-bigint.prototype.tolocalestring):
/// the same as `toString()` (no locale data).
fn to_locale_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let x = this_bigint_value(vm, this, "toLocaleString")?;
    let text = match x.as_bigint() {
        Some(b) => vm.heap.bigint(b).to_string(),
        None => String::new(),
    };
    Ok(vm.string_value(&text))
}

/// [BigInt.prototype.valueOf](https://tc39.es/ecma262/#sec-bigint.prototype.valueof)
fn value_of(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    this_bigint_value(vm, this, "valueOf")
}

/// A BigInt literal's digits as the compiler gives them (decimal, optionally negative).
pub fn parse_bigint_literal(digits: &str) -> Option<BigInt> {
    BigInt::parse_bytes(digits.as_bytes(), 10)
}

/// [StringToBigInt](https://tc39.es/ecma262/#sec-stringtobigint): None if the text is not a valid integer.
pub fn parse_bigint_string(text: &str) -> Option<BigInt> {
    let t = text.trim_matches(crate::interpreter::convert::is_js_whitespace);
    if t.is_empty() {
        return Some(BigInt::from(0));
    }
    let (radix, digits) = match t.get(..2) {
        Some("0x") | Some("0X") => (16, &t[2..]),
        Some("0o") | Some("0O") => (8, &t[2..]),
        Some("0b") | Some("0B") => (2, &t[2..]),
        _ => (10, t),
    };
    if digits.is_empty() {
        return None;
    }
    if radix != 10 && (digits.starts_with('+') || digits.starts_with('-')) {
        return None;
    }
    let unsigned = digits.strip_prefix(['+', '-']).unwrap_or(digits);
    if unsigned.is_empty() || !unsigned.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    BigInt::parse_bytes(digits.as_bytes(), radix)
}
