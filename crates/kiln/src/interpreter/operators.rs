//! The generic (slow) paths of the arithmetic, bitwise and relational
//! operators, including BigInt arithmetic. The dispatch loop handles int32
//! and double operands inline and calls these for everything else.

use super::convert::{Hint, TWO_POW_63, f64_to_int32};
use super::{InlineCache, InstanceofEntry, Vm};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::object::shape::ShapeId;
use crate::object::{ObjectKind, PropertyKey};
use crate::value::Value;
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

/// A binary numeric operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Sub,
    Mul,
    Div,
    Mod,
    Exp,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    UShr,
}

/// `x ** y` per [Number::exponentiate](https://tc39.es/ecma262/#sec-numeric-types-number-exponentiate).
pub fn number_pow(x: f64, y: f64) -> f64 {
    if y.is_nan() {
        return f64::NAN;
    }
    if y == 0.0 {
        return 1.0;
    }
    if (x == 1.0 || x == -1.0) && y.is_infinite() {
        return f64::NAN;
    }
    x.powf(y)
}

/// Number `%` (truncating remainder, sign of the dividend).
pub fn number_rem(x: f64, y: f64) -> f64 {
    // Integral operands below 2^63 (big-number code's limbs and products, negative
    // int32s) divide exactly as integers, many times faster than `fmod`.
    if x.abs() < TWO_POW_63
        && y.abs() < TWO_POW_63
        && let (a, b) = (x as i64, y as i64)
        && a as f64 == x
        && b as f64 == y
        && let Some(r) = a.checked_rem(b)
    {
        return if r == 0 { 0.0f64.copysign(x) } else { r as f64 };
    }
    if y.is_infinite() && x.is_finite() {
        return x;
    }
    let r = x % y;
    if r == 0.0 { 0.0f64.copysign(x) } else { r }
}

pub fn number_op(op: BinaryOp, x: f64, y: f64) -> f64 {
    match op {
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div => x / y,
        BinaryOp::Mod => number_rem(x, y),
        BinaryOp::Exp => number_pow(x, y),
        BinaryOp::BitAnd => (f64_to_int32(x) & f64_to_int32(y)) as f64,
        BinaryOp::BitOr => (f64_to_int32(x) | f64_to_int32(y)) as f64,
        BinaryOp::BitXor => (f64_to_int32(x) ^ f64_to_int32(y)) as f64,
        BinaryOp::Shl => f64_to_int32(x).wrapping_shl(f64_to_int32(y) as u32 & 31) as f64,
        BinaryOp::Shr => (f64_to_int32(x) >> (f64_to_int32(y) as u32 & 31)) as f64,
        BinaryOp::UShr => ((f64_to_int32(x) as u32) >> (f64_to_int32(y) as u32 & 31)) as f64,
    }
}

impl Vm {
    /// The `+` operator on anything.
    pub fn add_slow(&mut self, a: Value, b: Value) -> JsResult<Value> {
        if let (Some(x), Some(y)) = (a.as_string(), b.as_string()) {
            return self.concat_strings(x, y);
        }
        let pa = self.to_primitive(a, Hint::Default)?;
        let pb = self.to_primitive(b, Hint::Default)?;
        if pa.as_string().is_some() || pb.as_string().is_some() {
            let x = self.to_string(pa)?;
            let y = self.to_string(pb)?;
            return self.concat_strings(x, y);
        }
        let na = self.to_numeric(pa)?;
        let nb = self.to_numeric(pb)?;
        match (na.as_bigint(), nb.as_bigint()) {
            (Some(x), Some(y)) => {
                let r = self.heap.bigint(x) + self.heap.bigint(y);
                Ok(self.bigint_value(r))
            }
            (None, None) => Ok(Value::number(
                na.as_number().unwrap_or(f64::NAN) + nb.as_number().unwrap_or(f64::NAN),
            )),
            _ => {
                Err(self.type_error("Cannot mix BigInt and other types, use explicit conversions"))
            }
        }
    }

    /// Concatenate, enforcing the maximum string length.
    pub fn concat_strings(
        &mut self,
        x: crate::heap::StringId,
        y: crate::heap::StringId,
    ) -> JsResult<Value> {
        let len = self.heap.string_len(x) as u64 + self.heap.string_len(y) as u64;
        if len > crate::MAX_STRING_LENGTH as u64 {
            return Err(self.range_error("Invalid string length"));
        }
        // A rope is cheap, but reading it needs its whole length flat: refuse a string
        // that could never be flattened within the heap limit before anything is built.
        if self.heap.bytes().saturating_add(len as usize) > self.limits.max_heap_bytes {
            return Err(self.terminate(super::Termination::HeapLimit));
        }
        Ok(Value::string(self.heap.concat(x, y)))
    }

    pub fn bigint_value(&mut self, b: BigInt) -> Value {
        Value::bigint(self.heap.alloc_bigint(b))
    }

    /// A binary numeric operator on anything (ToNumeric both sides, then Number or BigInt).
    pub fn binary_slow(&mut self, op: BinaryOp, a: Value, b: Value) -> JsResult<Value> {
        let na = self.to_numeric(a)?;
        let nb = self.to_numeric(b)?;
        match (na.as_bigint(), nb.as_bigint()) {
            (None, None) => Ok(Value::number(number_op(
                op,
                na.as_number().unwrap_or(f64::NAN),
                nb.as_number().unwrap_or(f64::NAN),
            ))),
            (Some(x), Some(y)) => {
                let (x, y) = (self.heap.bigint(x).clone(), self.heap.bigint(y).clone());
                let r = self.bigint_op(op, x, y)?;
                Ok(self.bigint_value(r))
            }
            _ => {
                Err(self.type_error("Cannot mix BigInt and other types, use explicit conversions"))
            }
        }
    }

    fn bigint_op(&mut self, op: BinaryOp, x: BigInt, y: BigInt) -> JsResult<BigInt> {
        // fuel for the digit work: quadratic in 64-bit limbs for products and quotients
        let limbs = |b: &BigInt| b.bits() / 64 + 1;
        let work = match op {
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => limbs(&x) * limbs(&y),
            BinaryOp::Exp => {
                let result = limbs(&x).saturating_mul(y.to_u64().unwrap_or(u64::MAX).max(1));
                result.saturating_mul(result.min(1 << 20))
            }
            _ => limbs(&x) + limbs(&y),
        };
        self.charge(work / 16)?;
        Ok(match op {
            BinaryOp::Sub => x - y,
            BinaryOp::Mul => x * y,
            BinaryOp::Div => {
                if y.is_zero() {
                    return Err(self.range_error("Division by zero"));
                }
                x / y
            }
            BinaryOp::Mod => {
                if y.is_zero() {
                    return Err(self.range_error("Division by zero"));
                }
                x % y
            }
            BinaryOp::Exp => {
                if y.is_negative() {
                    return Err(self.range_error("Exponent must be non-negative"));
                }
                let Some(e) = y.to_u32().filter(|&e| e < 1 << 20 || x.bits() <= 1) else {
                    return Err(self.range_error("Maximum BigInt size exceeded"));
                };
                if x.bits() * e as u64 > 1 << 24 {
                    return Err(self.range_error("Maximum BigInt size exceeded"));
                }
                x.pow(e)
            }
            BinaryOp::BitAnd => x & y,
            BinaryOp::BitOr => x | y,
            BinaryOp::BitXor => x ^ y,
            BinaryOp::Shl | BinaryOp::Shr => {
                let shift = y
                    .to_i64()
                    .unwrap_or(if y.is_negative() { i64::MIN } else { i64::MAX });
                let left = if op == BinaryOp::Shl {
                    shift
                } else {
                    shift.saturating_neg()
                };
                if left >= 0 {
                    if left > 1 << 24 {
                        return Err(self.range_error("Maximum BigInt size exceeded"));
                    }
                    x << left as usize
                } else {
                    let right = left.unsigned_abs().min(1 << 32) as usize;
                    // Arithmetic shift right rounds toward negative infinity.
                    if x.is_negative() {
                        -((-x - 1u8) >> right) - 1u8
                    } else {
                        x >> right
                    }
                }
            }
            BinaryOp::UShr => {
                return Err(self.type_error("BigInts have no unsigned right shift, use >> instead"));
            }
        })
    }

    /// Unary minus on anything.
    pub fn negate_slow(&mut self, v: Value) -> JsResult<Value> {
        let n = self.to_numeric(v)?;
        if let Some(b) = n.as_bigint() {
            let r = -self.heap.bigint(b).clone();
            return Ok(self.bigint_value(r));
        }
        Ok(Value::number(-n.as_number().unwrap_or(f64::NAN)))
    }

    /// `~v` on anything.
    pub fn bitnot_slow(&mut self, v: Value) -> JsResult<Value> {
        let n = self.to_numeric(v)?;
        if let Some(b) = n.as_bigint() {
            let r = -self.heap.bigint(b).clone() - 1u8;
            return Ok(self.bigint_value(r));
        }
        Ok(Value::int(!f64_to_int32(n.as_number().unwrap_or(f64::NAN))))
    }

    /// `v + delta` for `++`/`--` on anything.
    pub fn increment_slow(&mut self, v: Value, delta: i32) -> JsResult<Value> {
        let n = self.to_numeric(v)?;
        if let Some(b) = n.as_bigint() {
            let r = self.heap.bigint(b) + BigInt::from(delta);
            return Ok(self.bigint_value(r));
        }
        Ok(Value::number(
            n.as_number().unwrap_or(f64::NAN) + delta as f64,
        ))
    }

    /// [InstanceofOperator](https://tc39.es/ecma262/#sec-instanceofoperator)
    pub fn instance_of(&mut self, v: Value, target: Value) -> JsResult<bool> {
        let Some(t) = target.as_object() else {
            return Err(self.type_error("Right-hand side of 'instanceof' is not an object"));
        };
        if let Some(prototype) = self.ordinary_instanceof_prototype(t) {
            return self.prototype_chain_has(v, prototype);
        }
        let key = PropertyKey::Symbol(self.symbols.has_instance);
        let handler = match self.get_data_cached(t, key) {
            Some(handler) => handler,
            None => self.get(target, key)?,
        };
        // Function.prototype[@@hasInstance] is OrdinaryHasInstance (and cannot be
        // replaced: it is neither writable nor configurable); skip the call
        if handler == Value::object(self.intrinsics.function_has_instance) {
            return self.ordinary_has_instance(target, v);
        }
        if !handler.is_nullish() {
            let r = self.call(handler, target, &[v])?;
            return Ok(self.to_boolean(r));
        }
        if !self.is_callable(target) {
            return Err(self.type_error("Right-hand side of 'instanceof' is not callable"));
        }
        self.ordinary_has_instance(target, v)
    }

    /// The `prototype` of constructor `t` when `v instanceof t` is the ordinary test
    /// (no `Symbol.hasInstance` of its own or on the way to `Function.prototype`, a
    /// closure or built-in function, `prototype` an own data property), read through
    /// [`super::InstanceofCache`]; None when the full operator must run.
    fn ordinary_instanceof_prototype(&mut self, t: ObjectId) -> Option<Value> {
        let o = self.heap.object(t);
        let shape = o.shape;
        if shape == ShapeId::DICTIONARY
            || !matches!(o.kind, ObjectKind::Closure(_) | ObjectKind::Native(_))
        {
            return None;
        }
        if let Some(entry) = self.instanceof_cache.get(shape)
            && entry.epoch == self.heap.proto_epoch
            && entry.realm == self.realm
        {
            return entry.prototype_slot.map(|slot| o.slots[slot as usize]);
        }
        let prototype_slot = self.ordinary_prototype_slot(t);
        self.instanceof_cache.fill(InstanceofEntry {
            shape,
            epoch: self.heap.proto_epoch,
            realm: self.realm,
            prototype_slot,
        });
        prototype_slot.map(|slot| self.heap.object(t).slots[slot as usize])
    }

    /// The slot of `t`'s own data property `prototype` when `Symbol.hasInstance` is
    /// `Function.prototype`'s, found through a cacheable chain.
    fn ordinary_prototype_slot(&self, t: ObjectId) -> Option<u32> {
        let has_instance = PropertyKey::Symbol(self.symbols.has_instance);
        let InlineCache::Proto { holder, .. } = self.cacheable_lookup(t, has_instance)? else {
            return None;
        };
        if holder != self.intrinsics.function_prototype {
            return None;
        }
        let prototype = PropertyKey::String(self.atoms.prototype);
        match self.cacheable_lookup(t, prototype)? {
            InlineCache::Own { slot, .. } => Some(slot),
            _ => None,
        }
    }

    /// [OrdinaryHasInstance](https://tc39.es/ecma262/#sec-ordinaryhasinstance)
    pub fn ordinary_has_instance(&mut self, c: Value, o: Value) -> JsResult<bool> {
        if !self.is_callable(c) {
            return Ok(false);
        }
        let cobj = c.as_object().unwrap_or(self.intrinsics.object_prototype);
        if let ObjectKind::Bound(b) = &self.heap.object(cobj).kind {
            let target = Value::object(b.target);
            return self.instance_of(o, target);
        }
        if !o.is_object() {
            return Ok(false);
        }
        let key = PropertyKey::String(self.atoms.prototype);
        let prototype = match self.get_data_cached(cobj, key) {
            Some(prototype) => prototype,
            None => self.get(c, key)?,
        };
        self.prototype_chain_has(o, prototype)
    }

    /// OrdinaryHasInstance's steps 3 and 5-6: whether `prototype` (C's, already read) is
    /// on `o`'s prototype chain.
    fn prototype_chain_has(&mut self, o: Value, prototype: Value) -> JsResult<bool> {
        let Some(mut obj) = o.as_object() else {
            return Ok(false);
        };
        let Some(prototype) = prototype.as_object() else {
            return Err(self.type_error("Function has non-object prototype in instanceof check"));
        };
        loop {
            let o = self.heap.object(obj);
            let next = match o.kind {
                ObjectKind::Proxy { .. } => self.get_prototype_of(obj)?,
                _ => o.proto,
            };
            match next {
                Some(p) if p == prototype => return Ok(true),
                Some(p) => obj = p,
                None => return Ok(false),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remainder_keeps_the_dividend_sign() {
        assert_eq!(number_rem(5.5, 2.0), 1.5);
        assert!(number_rem(-4.0, 2.0).is_sign_negative());
        assert_eq!(number_rem(3.0, f64::INFINITY), 3.0);
        assert!(number_rem(3.0, 0.0).is_nan());
    }

    #[test]
    fn exponent_edge_cases() {
        assert!(number_pow(1.0, f64::INFINITY).is_nan());
        assert_eq!(number_pow(f64::NAN, 0.0), 1.0);
        assert_eq!(number_pow(2.0, 10.0), 1024.0);
    }

    #[test]
    fn shifts_mask_the_count() {
        assert_eq!(number_op(BinaryOp::Shl, 1.0, 33.0), 2.0);
        assert_eq!(number_op(BinaryOp::UShr, -1.0, 0.0), 4294967295.0);
        assert_eq!(number_op(BinaryOp::Shr, -8.0, 1.0), -4.0);
    }
}
