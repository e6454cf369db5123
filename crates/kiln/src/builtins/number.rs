//! `Number` and `Number.prototype`
//! ([spec](https://tc39.es/ecma262/#sec-number-objects)).
//!
//! `toFixed`, `toExponential` and `toPrecision` compute their digits exactly
//! from the double's binary value (with big integers), so results such as
//! `(1.005).toFixed(2) === "1.00"` match the spec rather than a rounded
//! intermediate.

use super::make_constructor;
use crate::JsResult;
use crate::interpreter::convert::{bigint_to_f64, number_to_string};
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, ObjectKind};
use crate::value::Value;
use num_bigint::BigUint;
use num_traits::{One, Zero};

pub fn init(vm: &mut Vm) {
    // Number.prototype is itself a Number object whose value is +0.
    let proto = vm.heap.new_object(
        Some(vm.intrinsics.object_prototype),
        ObjectKind::Number(0.0),
    );
    vm.intrinsics.number_prototype = proto;
    let ctor = make_constructor(vm, "Number", number_constructor, 1, proto);
    vm.intrinsics.number = ctor;
    for (name, v) in [
        ("EPSILON", f64::EPSILON),
        ("MAX_SAFE_INTEGER", 9007199254740991.0),
        ("MIN_SAFE_INTEGER", -9007199254740991.0),
        ("MAX_VALUE", f64::MAX),
        ("MIN_VALUE", 5e-324),
        ("NaN", f64::NAN),
        ("NEGATIVE_INFINITY", f64::NEG_INFINITY),
        ("POSITIVE_INFINITY", f64::INFINITY),
    ] {
        let key = vm.key(name);
        vm.define_builtin(ctor, key, Value::number(v), Attrs::NONE);
    }
    vm.define_native(ctor, "isFinite", is_finite, 1);
    vm.define_native(ctor, "isInteger", is_integer, 1);
    vm.define_native(ctor, "isNaN", is_nan, 1);
    vm.define_native(ctor, "isSafeInteger", is_safe_integer, 1);
    let methods: [(&str, crate::object::NativeFn, u32); 6] = [
        ("toExponential", to_exponential, 1),
        ("toFixed", to_fixed, 1),
        ("toLocaleString", to_locale_string, 0),
        ("toPrecision", to_precision, 1),
        ("toString", to_string, 1),
        ("valueOf", value_of, 0),
    ];
    for (name, f, len) in methods {
        vm.define_native(proto, name, f, len);
    }
}

/// `Number.parseFloat` and `Number.parseInt` are the global functions: copy them
/// over once `global::init` has defined those.
pub fn share_global_parse_functions(vm: &mut Vm) {
    let global = vm.intrinsics.global;
    let ctor = vm.intrinsics.number;
    for name in ["parseFloat", "parseInt"] {
        let key = vm.key(name);
        if let Some(p) = vm.heap.own_property(global, key) {
            vm.define_builtin(ctor, key, p.value, Attrs::HIDDEN);
        }
    }
}

/// [Number](https://tc39.es/ecma262/#sec-number-constructor-number-value)
fn number_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let n = if args.count == 0 {
        0.0
    } else {
        let prim = vm.to_numeric(vm.arg(args, 0))?;
        match prim.as_bigint() {
            Some(b) => bigint_to_f64(vm.heap.bigint(b)),
            None => prim.as_number().unwrap_or(f64::NAN),
        }
    };
    if args.new_target.is_undefined() {
        return Ok(Value::number(n));
    }
    let proto = vm.prototype_from_constructor(args.new_target, |i| i.number_prototype)?;
    Ok(Value::object(
        vm.heap.new_object(Some(proto), ObjectKind::Number(n)),
    ))
}

/// [Number.isFinite](https://tc39.es/ecma262/#sec-number.isfinite)
fn is_finite(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    Ok(Value::bool(
        vm.arg(args, 0).as_number().is_some_and(f64::is_finite),
    ))
}

/// [Number.isInteger](https://tc39.es/ecma262/#sec-number.isinteger)
fn is_integer(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    Ok(Value::bool(
        vm.arg(args, 0)
            .as_number()
            .is_some_and(|n| n.is_finite() && n.trunc() == n),
    ))
}

/// [Number.isNaN](https://tc39.es/ecma262/#sec-number.isnan)
fn is_nan(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    Ok(Value::bool(
        vm.arg(args, 0).as_number().is_some_and(f64::is_nan),
    ))
}

/// [Number.isSafeInteger](https://tc39.es/ecma262/#sec-number.issafeinteger)
fn is_safe_integer(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    Ok(Value::bool(vm.arg(args, 0).as_number().is_some_and(|n| {
        n.is_finite() && n.trunc() == n && n.abs() <= 9007199254740991.0
    })))
}

/// [thisNumberValue](https://tc39.es/ecma262/#sec-thisnumbervalue)
fn this_number_value(vm: &mut Vm, this: Value, method: &str) -> JsResult<f64> {
    if let Some(n) = this.as_number() {
        return Ok(n);
    }
    if let Some(o) = this.as_object()
        && let ObjectKind::Number(n) = vm.heap.object(o).kind
    {
        return Ok(n);
    }
    Err(vm.type_error(format!(
        "Number.prototype.{method} requires that 'this' be a Number"
    )))
}

/// [Number.prototype.valueOf](https://tc39.es/ecma262/#sec-number.prototype.valueof)
fn value_of(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    Ok(Value::number(this_number_value(vm, this, "valueOf")?))
}

/// [Number.prototype.toLocaleString](https://tc39.es/ecma262/#sec-number.prototype.tolocalestring):
/// the same as `toString()` (no locale data).
fn to_locale_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let x = this_number_value(vm, this, "toLocaleString")?;
    Ok(vm.string_value(&number_to_string(x)))
}

/// [Number.prototype.toString](https://tc39.es/ecma262/#sec-number.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let x = this_number_value(vm, this, "toString")?;
    let radix = vm.arg(args, 0);
    let radix = if radix.is_undefined() {
        10.0
    } else {
        vm.to_integer(radix)?
    };
    if !(2.0..=36.0).contains(&radix) {
        return Err(vm.range_error("toString() radix must be between 2 and 36"));
    }
    if radix == 10.0 {
        if let Some(i) = Value::number(x).as_int() {
            return Ok(Value::string(vm.int_to_string(i)));
        }
        return Ok(vm.string_value(&number_to_string(x)));
    }
    Ok(vm.string_value(&number_to_radix_string(x, radix as u32)))
}

const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// A double's exact value as `mantissa * 2^exponent` (finite, non-negative input).
fn decompose(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7FF) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), exponent - 1075)
    }
}

/// The integer part of a finite non-negative double, exactly.
fn integer_part(x: f64) -> BigUint {
    let (m, e) = decompose(x.floor());
    if e >= 0 {
        BigUint::from(m) << e as usize
    } else {
        BigUint::from(m) >> (-e) as usize
    }
}

/// `x` in base `radix` (2..=36, not 10): the exact integer part, then fraction digits
/// until the value is uniquely identified (the algorithm V8 uses).
fn number_to_radix_string(x: f64, radix: u32) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let negative = x < 0.0;
    let value = x.abs();
    let mut integer = value.floor();
    let mut fraction = value - integer;
    // Half the distance to the next double: digits past this cannot matter.
    let next = f64::from_bits(value.to_bits() + 1);
    let mut delta = (0.5 * (next - value)).max(f64::from_bits(1));
    let mut fraction_digits: Vec<u8> = Vec::new();
    if fraction >= delta {
        loop {
            fraction *= radix as f64;
            delta *= radix as f64;
            let digit = fraction as u32;
            fraction_digits.push(digit as u8);
            fraction -= digit as f64;
            if (fraction > 0.5 || (fraction == 0.5 && digit & 1 == 1)) && fraction + delta > 1.0 {
                // Round up, carrying into the integer part if every digit overflows.
                loop {
                    match fraction_digits.pop() {
                        None => {
                            integer += 1.0;
                            break;
                        }
                        Some(d) if (d as u32) + 1 < radix => {
                            fraction_digits.push(d + 1);
                            break;
                        }
                        Some(_) => {}
                    }
                }
                break;
            }
            if fraction < delta {
                break;
            }
        }
    }
    let int_digits = integer_part(integer).to_radix_be(radix);
    let mut out = String::with_capacity(int_digits.len() + fraction_digits.len() + 2);
    if negative {
        out.push('-');
    }
    for d in int_digits {
        out.push(DIGITS[d as usize] as char);
    }
    if !fraction_digits.is_empty() {
        out.push('.');
        for d in fraction_digits {
            out.push(DIGITS[d as usize] as char);
        }
    }
    out
}

fn pow10(n: u32) -> BigUint {
    BigUint::from(10u32).pow(n)
}

/// `x * 10^scale` exactly: its integer part, and the nearest integer (ties pick the larger).
fn scaled(x: f64, scale: i32) -> (BigUint, BigUint) {
    let (m, e) = decompose(x);
    let mut numerator = BigUint::from(m);
    let mut denominator = BigUint::one();
    if e >= 0 {
        numerator <<= e as usize;
    } else {
        denominator <<= (-e) as usize;
    }
    if scale >= 0 {
        numerator *= pow10(scale as u32);
    } else {
        denominator *= pow10((-scale) as u32);
    }
    let q = &numerator / &denominator;
    let r = numerator - &q * &denominator;
    let rounded = if r * 2u32 >= denominator {
        &q + 1u32
    } else {
        q.clone()
    };
    (q, rounded)
}

/// The integer `n` nearest to `x * 10^scale` (ties pick the larger), exactly.
fn scaled_round(x: f64, scale: i32) -> BigUint {
    scaled(x, scale).1
}

/// For finite `x > 0`: the `digits` significant digits `n` and exponent `e` with
/// `10^(digits-1) <= n < 10^digits` and `n * 10^(e - digits + 1)` nearest to `x`
/// (ties pick the larger), as toExponential and toPrecision need.
fn exact_significant(x: f64, digits: u32) -> (String, i32) {
    let low = pow10(digits - 1);
    let high = pow10(digits);
    // Find the exact decimal exponent: 10^e <= x < 10^(e+1), from an estimate off by
    // at most one.
    let mut e = x.log10().floor() as i32;
    for _ in 0..4 {
        let (floor, rounded) = scaled(x, digits as i32 - 1 - e);
        if floor >= high {
            e += 1;
        } else if floor < low {
            e -= 1;
        } else if rounded >= high {
            // Rounding up carried into a new digit: 10^digits * 10^(e-digits+1).
            return (low.to_string(), e + 1);
        } else {
            return (rounded.to_string(), e);
        }
    }
    // Unreachable for finite positive doubles; answer the shortest form rather than panic.
    shortest_significant(x)
}

/// The shortest round-tripping digits of finite `x > 0` and its decimal exponent.
fn shortest_significant(x: f64) -> (String, i32) {
    let formatted = format!("{x:e}");
    let (mantissa, exponent) = formatted.split_once('e').unwrap_or((&formatted, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exponent.parse().unwrap_or(0))
}

/// `e+N` / `e-N`
fn exponent_suffix(e: i32) -> String {
    if e >= 0 {
        format!("e+{e}")
    } else {
        format!("e-{}", -e)
    }
}

/// [Number.prototype.toExponential](https://tc39.es/ecma262/#sec-number.prototype.toexponential)
fn to_exponential(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let x = this_number_value(vm, this, "toExponential")?;
    let fraction_digits = vm.arg(args, 0);
    let f = vm.to_integer(fraction_digits)?;
    if !x.is_finite() {
        return Ok(vm.string_value(&number_to_string(x)));
    }
    if !(0.0..=100.0).contains(&f) {
        return Err(vm.range_error("toExponential() argument must be between 0 and 100"));
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let x = x.abs();
    let (digits, e) = if x == 0.0 {
        let count = if fraction_digits.is_undefined() {
            1
        } else {
            f as usize + 1
        };
        ("0".repeat(count), 0)
    } else if fraction_digits.is_undefined() {
        shortest_significant(x)
    } else {
        exact_significant(x, f as u32 + 1)
    };
    let mantissa = if digits.len() > 1 {
        format!("{}.{}", &digits[..1], &digits[1..])
    } else {
        digits
    };
    let text = format!("{sign}{mantissa}{}", exponent_suffix(e));
    Ok(vm.string_value(&text))
}

/// [Number.prototype.toFixed](https://tc39.es/ecma262/#sec-number.prototype.tofixed)
fn to_fixed(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let x = this_number_value(vm, this, "toFixed")?;
    let f = vm.to_integer(vm.arg(args, 0))?;
    if !f.is_finite() || !(0.0..=100.0).contains(&f) {
        return Err(vm.range_error("toFixed() digits argument must be between 0 and 100"));
    }
    if !x.is_finite() {
        return Ok(vm.string_value(&number_to_string(x)));
    }
    let f = f as usize;
    let sign = if x < 0.0 { "-" } else { "" };
    let x = x.abs();
    if x >= 1e21 {
        return Ok(vm.string_value(&format!("{sign}{}", number_to_string(x))));
    }
    let n = scaled_round(x, f as i32);
    let mut m = if n.is_zero() {
        "0".to_string()
    } else {
        n.to_string()
    };
    if f != 0 {
        if m.len() <= f {
            m = format!("{}{m}", "0".repeat(f + 1 - m.len()));
        }
        let k = m.len();
        m = format!("{}.{}", &m[..k - f], &m[k - f..]);
    }
    Ok(vm.string_value(&format!("{sign}{m}")))
}

/// [Number.prototype.toPrecision](https://tc39.es/ecma262/#sec-number.prototype.toprecision)
fn to_precision(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let x = this_number_value(vm, this, "toPrecision")?;
    let precision = vm.arg(args, 0);
    if precision.is_undefined() {
        return Ok(vm.string_value(&number_to_string(x)));
    }
    let p = vm.to_integer(precision)?;
    if !x.is_finite() {
        return Ok(vm.string_value(&number_to_string(x)));
    }
    if !(1.0..=100.0).contains(&p) {
        return Err(vm.range_error("toPrecision() argument must be between 1 and 100"));
    }
    let p = p as i32;
    let sign = if x < 0.0 { "-" } else { "" };
    let x = x.abs();
    let (m, e) = if x == 0.0 {
        ("0".repeat(p as usize), 0)
    } else {
        exact_significant(x, p as u32)
    };
    let text = if x != 0.0 && (e < -6 || e >= p) {
        let mantissa = if p != 1 {
            format!("{}.{}", &m[..1], &m[1..])
        } else {
            m
        };
        format!("{sign}{mantissa}{}", exponent_suffix(e))
    } else if e == p - 1 {
        format!("{sign}{m}")
    } else if e >= 0 {
        let split = e as usize + 1;
        format!("{sign}{}.{}", &m[..split], &m[split..])
    } else {
        format!("{sign}0.{}{m}", "0".repeat((-(e + 1)) as usize))
    };
    Ok(vm.string_value(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_strings() {
        assert_eq!(number_to_radix_string(255.0, 16), "ff");
        assert_eq!(number_to_radix_string(-255.5, 16), "-ff.8");
        assert_eq!(number_to_radix_string(0.5, 2), "0.1");
        assert_eq!(number_to_radix_string(2f64.powi(60), 2).len(), 61);
    }

    #[test]
    fn exact_digits() {
        assert_eq!(scaled_round(1.005, 2).to_string(), "100");
        assert_eq!(scaled_round(1.5, 0).to_string(), "2");
        assert_eq!(scaled_round(2.5, 0).to_string(), "3");
        assert_eq!(exact_significant(123.456, 3), ("123".to_string(), 2));
        assert_eq!(exact_significant(9.99, 2), ("10".to_string(), 1));
    }
}
