//! The `Math` object ([spec](https://tc39.es/ecma262/#sec-math-object)).
//!
//! Every function converts its arguments with ToNumber first (which may run
//! JavaScript), then computes with Rust's `f64` operations.

use super::{define_global, define_to_string_tag, new_plain_object};
use crate::JsResult;
use crate::interpreter::operators::number_pow;
use crate::interpreter::{Args, Vm};
use crate::object::Attrs;
use crate::value::Value;

pub fn init(vm: &mut Vm) {
    let math = new_plain_object(vm);
    for (name, v) in [
        ("E", std::f64::consts::E),
        ("LN10", std::f64::consts::LN_10),
        ("LN2", std::f64::consts::LN_2),
        ("LOG10E", std::f64::consts::LOG10_E),
        ("LOG2E", std::f64::consts::LOG2_E),
        ("PI", std::f64::consts::PI),
        ("SQRT1_2", std::f64::consts::FRAC_1_SQRT_2),
        ("SQRT2", std::f64::consts::SQRT_2),
    ] {
        let key = vm.key(name);
        vm.define_builtin(math, key, Value::number(v), Attrs::NONE);
    }
    let functions: [(&str, crate::object::NativeFn, u32); 37] = [
        ("abs", abs, 1),
        ("acos", acos, 1),
        ("acosh", acosh, 1),
        ("asin", asin, 1),
        ("asinh", asinh, 1),
        ("atan", atan, 1),
        ("atanh", atanh, 1),
        ("atan2", atan2, 2),
        ("cbrt", cbrt, 1),
        ("ceil", ceil, 1),
        ("clz32", clz32, 1),
        ("cos", cos, 1),
        ("cosh", cosh, 1),
        ("exp", exp, 1),
        ("expm1", expm1, 1),
        ("f16round", f16round, 1),
        ("floor", floor, 1),
        ("fround", fround, 1),
        ("hypot", hypot, 2),
        ("imul", imul, 2),
        ("log", log, 1),
        ("log1p", log1p, 1),
        ("log10", log10, 1),
        ("log2", log2, 1),
        ("max", max, 2),
        ("min", min, 2),
        ("pow", pow, 2),
        ("random", random, 0),
        ("round", round, 1),
        ("sign", sign, 1),
        ("sin", sin, 1),
        ("sinh", sinh, 1),
        ("sqrt", sqrt, 1),
        ("sumPrecise", sum_precise, 1),
        ("tan", tan, 1),
        ("tanh", tanh, 1),
        ("trunc", trunc, 1),
    ];
    for (name, f, len) in functions {
        vm.define_native(math, name, f, len);
    }
    define_to_string_tag(vm, math, "Math");
    define_global(vm, "Math", Value::object(math));
}

/// ToNumber(argument i).
fn num(vm: &mut Vm, args: Args, i: usize) -> JsResult<f64> {
    let v = vm.arg(args, i);
    vm.to_number(v)
}

macro_rules! unary {
    ($($name:ident => $anchor:literal, $f:expr;)*) => {
        $(
            #[doc = concat!("[Math.", stringify!($name), "](https://tc39.es/ecma262/#sec-math.", $anchor, ")")]
            fn $name(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
                let x = num(vm, args, 0)?;
                let f: fn(f64) -> f64 = $f;
                Ok(Value::number(f(x)))
            }
        )*
    };
}

unary! {
    abs => "abs", f64::abs;
    acos => "acos", f64::acos;
    acosh => "acosh", f64::acosh;
    asin => "asin", f64::asin;
    asinh => "asinh", |x| if x == 0.0 { x } else { x.asinh() };
    atan => "atan", f64::atan;
    atanh => "atanh", |x| if x == 0.0 { x } else { x.atanh() };
    cbrt => "cbrt", f64::cbrt;
    ceil => "ceil", f64::ceil;
    cos => "cos", f64::cos;
    cosh => "cosh", f64::cosh;
    exp => "exp", f64::exp;
    expm1 => "expm1", |x| if x == 0.0 { x } else { x.exp_m1() };
    f16round => "f16round", round_to_f16;
    floor => "floor", f64::floor;
    fround => "fround", |x| x as f32 as f64;
    log => "log", f64::ln;
    log1p => "log1p", |x| if x == 0.0 { x } else { x.ln_1p() };
    log10 => "log10", f64::log10;
    log2 => "log2", f64::log2;
    round => "round", round_half_up;
    sign => "sign", |x| if x.is_nan() || x == 0.0 { x } else { x.signum() };
    sin => "sin", f64::sin;
    sinh => "sinh", |x| if x == 0.0 { x } else { x.sinh() };
    sqrt => "sqrt", f64::sqrt;
    tan => "tan", f64::tan;
    tanh => "tanh", |x| if x == 0.0 { x } else { x.tanh() };
    trunc => "trunc", f64::trunc;
}

/// Math.round: the nearest integer, ties towards +∞; -0 for [-0.5, -0].
fn round_half_up(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    if (-0.5..0.0).contains(&x) {
        return -0.0;
    }
    let floor = x.floor();
    if x - floor >= 0.5 { floor + 1.0 } else { floor }
}

/// The nearest IEEE binary16 value (ties to even), as f64.
fn round_to_f16(x: f64) -> f64 {
    use super::typed_array::{f16_bits_to_f64, f64_to_f16_bits};
    f16_bits_to_f64(f64_to_f16_bits(x))
}

/// [Math.atan2](https://tc39.es/ecma262/#sec-math.atan2)
fn atan2(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let y = num(vm, args, 0)?;
    let x = num(vm, args, 1)?;
    Ok(Value::number(y.atan2(x)))
}

/// [Math.clz32](https://tc39.es/ecma262/#sec-math.clz32)
fn clz32(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let n = vm.to_uint32(vm.arg(args, 0))?;
    Ok(Value::int(n.leading_zeros() as i32))
}

/// [Math.imul](https://tc39.es/ecma262/#sec-math.imul)
fn imul(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let a = vm.to_uint32(vm.arg(args, 0))?;
    let b = vm.to_uint32(vm.arg(args, 1))?;
    Ok(Value::int(a.wrapping_mul(b) as i32))
}

/// [Math.pow](https://tc39.es/ecma262/#sec-math.pow)
fn pow(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let x = num(vm, args, 0)?;
    let y = num(vm, args, 1)?;
    Ok(Value::number(number_pow(x, y)))
}

/// All arguments through ToNumber, in order (every one is coerced even after a NaN).
fn all_numbers(vm: &mut Vm, args: Args) -> JsResult<Vec<f64>> {
    let mut out = Vec::with_capacity(args.count as usize);
    for i in 0..args.count as usize {
        out.push(num(vm, args, i)?);
    }
    Ok(out)
}

/// [Math.hypot](https://tc39.es/ecma262/#sec-math.hypot)
fn hypot(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let xs = all_numbers(vm, args)?;
    if xs.iter().any(|x| x.is_infinite()) {
        return Ok(Value::number(f64::INFINITY));
    }
    if xs.iter().any(|x| x.is_nan()) {
        return Ok(Value::number(f64::NAN));
    }
    let largest = xs.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if largest == 0.0 {
        return Ok(Value::number(0.0));
    }
    // Scale by the largest magnitude to avoid overflow and underflow.
    let sum: f64 = xs.iter().map(|x| (x / largest) * (x / largest)).sum();
    Ok(Value::number(largest * sum.sqrt()))
}

/// [Math.max](https://tc39.es/ecma262/#sec-math.max)
fn max(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    extreme(vm, args, f64::NEG_INFINITY, |x, r| {
        x > r || (x == 0.0 && r == 0.0 && r.is_sign_negative())
    })
}

/// [Math.min](https://tc39.es/ecma262/#sec-math.min)
fn min(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    extreme(vm, args, f64::INFINITY, |x, r| {
        x < r || (x == 0.0 && r == 0.0 && x.is_sign_negative())
    })
}

/// Math.max and Math.min: every argument through ToNumber in order (each one is coerced
/// even after a NaN), then NaN if any was NaN, else the last `x` that `replaces` the
/// extreme so far.
fn extreme(vm: &mut Vm, args: Args, start: f64, replaces: fn(f64, f64) -> bool) -> JsResult<Value> {
    let mut r = start;
    let mut nan = false;
    for i in 0..args.count as usize {
        let x = num(vm, args, i)?;
        nan |= x.is_nan();
        if replaces(x, r) {
            r = x;
        }
    }
    Ok(Value::number(if nan { f64::NAN } else { r }))
}

/// [Math.sumPrecise](https://tc39.es/proposal-math-sum/#sec-math.sumprecise): the exact sum
/// of the numbers an iterable yields, rounded once.
fn sum_precise(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let items = vm.arg(args, 0);
    // 1. RequireObjectCoercible(items); 2. GetIterator(items, sync).
    if items.is_nullish() {
        return Err(vm.type_error("Math.sumPrecise requires an iterable"));
    }
    let (iter, next) = vm.get_iterator(items)?;
    vm.roots.push(iter);
    vm.roots.push(next);
    let mut sum = ExactSum::default();
    // 3. Let state be minus-zero.
    let mut state = SumState::MinusZero;
    loop {
        let (item, done) = vm.iterator_step(iter, next)?;
        if done {
            break;
        }
        vm.charge(1)?;
        let Some(n) = item.as_number() else {
            let what = vm.display(item);
            let e = vm.type_error(format!("Math.sumPrecise: {what} is not a number"));
            return Err(vm.iterator_close_after_throw(iter, e));
        };
        state = match state {
            SumState::NaN => SumState::NaN,
            _ if n.is_nan() => SumState::NaN,
            SumState::MinusInfinity if n == f64::INFINITY => SumState::NaN,
            SumState::PlusInfinity if n == f64::NEG_INFINITY => SumState::NaN,
            _ if n == f64::INFINITY => SumState::PlusInfinity,
            _ if n == f64::NEG_INFINITY => SumState::MinusInfinity,
            SumState::PlusInfinity | SumState::MinusInfinity => state,
            _ if n == 0.0 && n.is_sign_negative() => state,
            _ => {
                sum.add(n);
                SumState::Finite
            }
        };
    }
    Ok(Value::number(match state {
        SumState::NaN => f64::NAN,
        SumState::PlusInfinity => f64::INFINITY,
        SumState::MinusInfinity => f64::NEG_INFINITY,
        SumState::MinusZero => -0.0,
        SumState::Finite => sum.to_f64(),
    }))
}

#[derive(Clone, Copy)]
enum SumState {
    MinusZero,
    Finite,
    PlusInfinity,
    MinusInfinity,
    NaN,
}

/// Limbs of [`ExactSum`]: finite doubles span 2^-1074 to 2^1024 (2098 bits); the rest
/// leaves room for carries from 2^53 terms and the sign.
const SUM_LIMBS: usize = 34;

/// An exact sum of finite doubles: a two's-complement integer counting units of 2^-1074,
/// the smallest subnormal, so every double is an integer in it and no addition rounds.
struct ExactSum {
    limbs: [u64; SUM_LIMBS],
}

impl Default for ExactSum {
    fn default() -> Self {
        ExactSum {
            limbs: [0; SUM_LIMBS],
        }
    }
}

impl ExactSum {
    fn add(&mut self, x: f64) {
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as usize;
        let fraction = bits & ((1 << 52) - 1);
        // x = mantissa * 2^(shift - 1074)
        let (mantissa, shift) = if biased == 0 {
            (fraction, 0)
        } else {
            (fraction | 1 << 52, biased - 1)
        };
        let wide = (mantissa as u128) << (shift % 64);
        let at = shift / 64;
        let parts = [wide as u64, (wide >> 64) as u64];
        // Add (or subtract) the term and ripple the carry (or borrow) upwards.
        let step = if x < 0.0 {
            u64::overflowing_sub
        } else {
            u64::overflowing_add
        };
        let mut carry = false;
        for (i, limb) in self.limbs.iter_mut().enumerate().skip(at) {
            let part = parts.get(i - at).copied().unwrap_or(0);
            let (d, c1) = step(*limb, part);
            let (d, c2) = step(d, carry as u64);
            *limb = d;
            carry = c1 || c2;
            if !carry && i > at {
                break;
            }
        }
    }

    /// The sum rounded to the nearest double, ties to even (+0 for an exact zero).
    fn to_f64(&self) -> f64 {
        let negative = self.limbs[SUM_LIMBS - 1] >> 63 == 1;
        let mut magnitude = self.limbs;
        if negative {
            // Two's complement: invert and add one.
            let mut carry = true;
            for limb in magnitude.iter_mut() {
                let (d, c) = (!*limb).overflowing_add(carry as u64);
                *limb = d;
                carry = c;
            }
        }
        let Some(top) = magnitude.iter().rposition(|&l| l != 0) else {
            return 0.0;
        };
        let width = top * 64 + 64 - magnitude[top].leading_zeros() as usize;
        let bit = |i: usize| magnitude[i / 64] >> (i % 64) & 1;
        let value = if width <= 53 {
            // Exactly representable: a multiple of 2^-1074 below 2^-1021.
            magnitude[0] as f64 * f64::from_bits(1)
        } else {
            let mut shift = width - 53;
            let mut q = (shift..width).rev().fold(0u64, |q, i| q << 1 | bit(i));
            let half = bit(shift - 1) == 1;
            let sticky = (0..shift - 1).any(|i| bit(i) == 1);
            if half && (sticky || q & 1 == 1) {
                q += 1;
                if q == 1 << 53 {
                    q >>= 1;
                    shift += 1;
                }
            }
            let exponent = shift as i32 - 1074;
            if exponent > 971 {
                f64::INFINITY
            } else {
                // 2^exponent is a normal double or a subnormal power of two, and q scaled
                // by it is normal: the product is exact.
                let scale = if exponent >= -1022 {
                    f64::from_bits(((exponent + 1023) as u64) << 52)
                } else {
                    f64::from_bits(1 << (exponent + 1074))
                };
                q as f64 * scale
            }
        };
        if negative { -value } else { value }
    }
}

/// [Math.random](https://tc39.es/ecma262/#sec-math.random): xorshift64* on `vm.random_state`.
fn random(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    let mut x = vm.random_state;
    if x == 0 {
        x = 0x2545_F491_4F6C_DD1D;
    }
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    vm.random_state = x;
    let bits = x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
    Ok(Value::double(bits as f64 / (1u64 << 53) as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding() {
        assert_eq!(round_half_up(2.5), 3.0);
        assert_eq!(round_half_up(-2.5), -2.0);
        assert_eq!(round_half_up(0.49999999999999994), 0.0);
        assert!(round_half_up(-0.2).is_sign_negative());
        assert_eq!(round_to_f16(1.337), 1.3369140625);
        assert_eq!(round_to_f16(65519.0), 65504.0);
        assert_eq!(round_to_f16(65520.0), f64::INFINITY);
        assert_eq!(round_to_f16(5.960464477539063e-8), 5.960464477539063e-8);
    }

    fn exact(xs: &[f64]) -> f64 {
        let mut sum = ExactSum::default();
        for &x in xs {
            sum.add(x);
        }
        sum.to_f64()
    }

    #[test]
    fn exact_sums() {
        assert_eq!(exact(&[0.1, 0.2, 0.3]), 0.6);
        assert_eq!(exact(&[1e20, 0.1, -1e20]), 0.1);
        assert_eq!(exact(&[1e308, 1e308, -1e308]), 1e308);
        assert_eq!(exact(&[f64::MAX, f64::MAX]), f64::INFINITY);
        assert_eq!(exact(&[-f64::MAX, -f64::MAX]), f64::NEG_INFINITY);
        assert_eq!(exact(&[5e-324, 5e-324, -1.0, 1.0]), 1e-323);
        assert_eq!(exact(&[1.0, -1.0]).to_bits(), 0.0f64.to_bits());
        // ties to even at 2^53: 2^53 + 1 is exactly between two doubles
        assert_eq!(exact(&[9007199254740992.0, 1.0]), 9007199254740992.0);
        assert_eq!(
            exact(&[9007199254740992.0, 1.0, 1e-300]),
            9007199254740994.0
        );
        assert_eq!(exact(&[-3.5, 1.25]), -2.25);
    }
}
