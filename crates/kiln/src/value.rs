//! The 64-bit JavaScript value.
//!
//! # Invariants
//!
//! A [`Value`] is NaN-boxed: every bit pattern below `TAG_INT` is an IEEE
//! double, and all NaNs are canonicalised to `CANONICAL_NAN` on the way in, so
//! no double can be mistaken for a tagged value. The top 16 bits of a tagged
//! value select the kind; the low 32 bits carry an int32 or a heap index.
//! Heap indices are only meaningful for the [`crate::heap::Heap`] that made
//! them, and they stay valid while the value is reachable from a GC root.

use crate::heap::{BigIntId, ObjectId, StringId, SymbolId};

const CANONICAL_NAN: u64 = 0x7FF8_0000_0000_0000;
const TAG_SHIFT: u32 = 48;
const TAG_INT: u64 = 0xFFF9;
const TAG_SPECIAL: u64 = 0xFFFA;
const TAG_OBJECT: u64 = 0xFFFB;
const TAG_STRING: u64 = 0xFFFC;
const TAG_SYMBOL: u64 = 0xFFFD;
const TAG_BIGINT: u64 = 0xFFFE;

const fn tagged(tag: u64, payload: u32) -> u64 {
    (tag << TAG_SHIFT) | payload as u64
}

/// A JavaScript value in 8 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value(u64);

/// The kind of a [`Value`], for matching.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Undefined,
    Null,
    Bool(bool),
    Int(i32),
    Double(f64),
    String(StringId),
    Symbol(SymbolId),
    BigInt(BigIntId),
    Object(ObjectId),
    /// an uninitialised binding or an array hole; never visible to JavaScript
    Hole,
}

impl Value {
    pub const UNDEFINED: Value = Value(tagged(TAG_SPECIAL, 0));
    pub const NULL: Value = Value(tagged(TAG_SPECIAL, 1));
    pub const FALSE: Value = Value(tagged(TAG_SPECIAL, 2));
    pub const TRUE: Value = Value(tagged(TAG_SPECIAL, 3));
    pub const HOLE: Value = Value(tagged(TAG_SPECIAL, 4));

    #[inline(always)]
    pub fn int(i: i32) -> Value {
        Value(tagged(TAG_INT, i as u32))
    }

    /// A number, stored as an int32 when it is one (but not -0).
    #[inline(always)]
    pub fn number(n: f64) -> Value {
        let i = n as i32;
        if i as f64 == n && (i != 0 || n.to_bits() == 0) {
            Value::int(i)
        } else {
            Value::double(n)
        }
    }

    /// A number kept as a double (callers that know it is not an int32 skip the check).
    #[inline(always)]
    pub fn double(n: f64) -> Value {
        if n.is_nan() {
            Value(CANONICAL_NAN)
        } else {
            Value(n.to_bits())
        }
    }

    #[inline(always)]
    pub fn bool(b: bool) -> Value {
        if b { Value::TRUE } else { Value::FALSE }
    }

    #[inline(always)]
    pub fn object(id: ObjectId) -> Value {
        Value(tagged(TAG_OBJECT, id.0))
    }

    #[inline(always)]
    pub fn string(id: StringId) -> Value {
        Value(tagged(TAG_STRING, id.0))
    }

    #[inline(always)]
    pub fn symbol(id: SymbolId) -> Value {
        Value(tagged(TAG_SYMBOL, id.0))
    }

    #[inline(always)]
    pub fn bigint(id: BigIntId) -> Value {
        Value(tagged(TAG_BIGINT, id.0))
    }

    #[inline(always)]
    fn tag(self) -> u64 {
        self.0 >> TAG_SHIFT
    }

    #[inline(always)]
    fn payload(self) -> u32 {
        self.0 as u32
    }

    #[inline]
    pub fn kind(self) -> Kind {
        match self.tag() {
            TAG_INT => Kind::Int(self.payload() as i32),
            TAG_SPECIAL => match self.payload() {
                0 => Kind::Undefined,
                1 => Kind::Null,
                2 => Kind::Bool(false),
                3 => Kind::Bool(true),
                _ => Kind::Hole,
            },
            TAG_OBJECT => Kind::Object(ObjectId(self.payload())),
            TAG_STRING => Kind::String(StringId(self.payload())),
            TAG_SYMBOL => Kind::Symbol(SymbolId(self.payload())),
            TAG_BIGINT => Kind::BigInt(BigIntId(self.payload())),
            _ => Kind::Double(f64::from_bits(self.0)),
        }
    }

    #[inline(always)]
    pub fn is_undefined(self) -> bool {
        self == Value::UNDEFINED
    }
    #[inline(always)]
    pub fn is_null(self) -> bool {
        self == Value::NULL
    }
    #[inline(always)]
    pub fn is_nullish(self) -> bool {
        self == Value::UNDEFINED || self == Value::NULL
    }
    #[inline(always)]
    pub fn is_hole(self) -> bool {
        self == Value::HOLE
    }
    #[inline(always)]
    pub fn as_int(self) -> Option<i32> {
        if self.tag() == TAG_INT {
            Some(self.payload() as i32)
        } else {
            None
        }
    }
    /// The int32 a number equals, if it equals one (`-0` equals 0): an int, or a double
    /// holding an integer in range.
    #[inline(always)]
    pub fn as_int_exact(self) -> Option<i32> {
        if let Some(i) = self.as_int() {
            return Some(i);
        }
        let n = self.as_number()?;
        let i = n as i32;
        (i as f64 == n).then_some(i)
    }
    #[inline(always)]
    pub fn is_number(self) -> bool {
        self.tag() == TAG_INT || self.tag() < TAG_INT
    }
    /// The numeric value of an int32 or double.
    #[inline(always)]
    pub fn as_number(self) -> Option<f64> {
        let tag = self.tag();
        if tag == TAG_INT {
            Some(self.payload() as i32 as f64)
        } else if tag < TAG_INT {
            Some(f64::from_bits(self.0))
        } else {
            None
        }
    }
    #[inline(always)]
    pub fn as_object(self) -> Option<ObjectId> {
        if self.tag() == TAG_OBJECT {
            Some(ObjectId(self.payload()))
        } else {
            None
        }
    }
    /// Whether the value refers to a heap cell (object, string, symbol or BigInt): what
    /// the collector traces.
    #[inline(always)]
    pub fn is_cell(self) -> bool {
        (TAG_OBJECT..=TAG_BIGINT).contains(&self.tag())
    }
    #[inline(always)]
    pub fn is_object(self) -> bool {
        self.tag() == TAG_OBJECT
    }
    #[inline(always)]
    pub fn as_string(self) -> Option<StringId> {
        if self.tag() == TAG_STRING {
            Some(StringId(self.payload()))
        } else {
            None
        }
    }
    #[inline(always)]
    pub fn as_symbol(self) -> Option<SymbolId> {
        if self.tag() == TAG_SYMBOL {
            Some(SymbolId(self.payload()))
        } else {
            None
        }
    }
    #[inline(always)]
    pub fn as_bigint(self) -> Option<BigIntId> {
        if self.tag() == TAG_BIGINT {
            Some(BigIntId(self.payload()))
        } else {
            None
        }
    }
    #[inline(always)]
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Value::TRUE => Some(true),
            Value::FALSE => Some(false),
            _ => None,
        }
    }
    /// Raw bits, for hashing and snapshots.
    pub fn to_bits(self) -> u64 {
        self.0
    }
}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.kind())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip() {
        for n in [
            0.0,
            1.0,
            -1.0,
            0.5,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            2147483648.0,
        ] {
            assert_eq!(Value::number(n).as_number(), Some(n));
        }
        assert_eq!(Value::number(3.0).as_int(), Some(3));
        assert_eq!(Value::number(-0.0).as_int(), None);
        assert!(Value::number(-0.0).as_number().unwrap().is_sign_negative());
        assert!(Value::number(f64::NAN).as_number().unwrap().is_nan());
    }

    #[test]
    fn nan_payloads_cannot_forge_tagged_values() {
        let forged = f64::from_bits(0xFFFB_0000_0000_0001);
        assert!(forged.is_nan());
        assert_eq!(
            Value::double(forged).to_bits(),
            Value::double(f64::NAN).to_bits()
        );
        assert!(Value::double(forged).as_object().is_none());
    }

    #[test]
    fn specials_are_distinct() {
        let all = [
            Value::UNDEFINED,
            Value::NULL,
            Value::TRUE,
            Value::FALSE,
            Value::HOLE,
            Value::int(0),
        ];
        for (i, a) in all.iter().enumerate() {
            for (j, b) in all.iter().enumerate() {
                assert_eq!(i == j, a == b);
            }
        }
        assert_eq!(Value::object(ObjectId(7)).as_object(), Some(ObjectId(7)));
        assert_eq!(Value::string(StringId(9)).as_string(), Some(StringId(9)));
    }
}
