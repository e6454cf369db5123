//! Type conversions and comparisons of the specification
//! ([ToPrimitive](https://tc39.es/ecma262/#sec-toprimitive) and friends).
//! Every function taking `&mut Vm` may run JavaScript (a `valueOf`,
//! `toString` or `Symbol.toPrimitive` method).

use super::Vm;
use crate::JsResult;
use crate::heap::{StringId, string::Units};
use crate::object::{ObjectKind, PropertyKey};
use crate::value::{Kind, Value};
use kiln_bytecode::TypeName;
use num_bigint::BigInt;
use num_traits::{ToPrimitive as _, Zero};

/// The preferred type of [`Vm::to_primitive`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    Default,
    Number,
    String,
}

/// Format a number the way `Number.prototype.toString()` does: the shortest
/// string that round-trips.
pub fn number_to_string(n: f64) -> String {
    if let Some(i) = (n as i32 as f64 == n && n != 0.0).then_some(n as i32) {
        return i.to_string();
    }
    if n == 0.0 {
        return "0".into();
    }
    ryu_js::Buffer::new().format(n).to_string()
}

/// [StringToNumber](https://tc39.es/ecma262/#sec-stringtonumber)
pub fn string_to_number(units: Units<'_>) -> f64 {
    let s = units.to_rust_string();
    let t = s.trim_matches(is_js_whitespace);
    if t.is_empty() {
        return 0.0;
    }
    let (radix, digits) = match t.get(..2) {
        Some("0x") | Some("0X") => (16, &t[2..]),
        Some("0o") | Some("0O") => (8, &t[2..]),
        Some("0b") | Some("0B") => (2, &t[2..]),
        _ => (10, t),
    };
    if radix != 10 {
        if digits.is_empty() {
            return f64::NAN;
        }
        let mut value = 0.0f64;
        for c in digits.chars() {
            match c.to_digit(radix) {
                Some(d) => value = value * radix as f64 + d as f64,
                None => return f64::NAN,
            }
        }
        return value;
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    // Only the StrDecimalLiteral grammar: Rust's parser also takes "inf", "nan" and "1_0"-free forms.
    let valid = t
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && t.bytes().any(|b| b.is_ascii_digit());
    if !valid {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// WhiteSpace and LineTerminator code points, which `trim` and StringToNumber strip.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}' | '\u{A}' | '\u{B}' | '\u{C}' | '\u{D}' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// 2^63: doubles below it in magnitude convert to an i64 exactly (after truncation).
pub(crate) const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

/// [ToInt32](https://tc39.es/ecma262/#sec-toint32) of a number.
#[inline]
pub fn f64_to_int32(n: f64) -> i32 {
    // Below 2^63 (a NaN fails the test) the integer part fits an i64, whose low 32 bits
    // are the result: no floating-point remainder.
    if n.abs() < TWO_POW_63 {
        return n as i64 as i32;
    }
    if !n.is_finite() {
        return 0;
    }
    let m = n.trunc().rem_euclid(4294967296.0);
    m as u32 as i32
}

/// [ToIntegerOrInfinity](https://tc39.es/ecma262/#sec-tointegerorinfinity) of a number.
pub fn f64_to_integer(n: f64) -> f64 {
    if n.is_nan() { 0.0 } else { n.trunc() + 0.0 }
}

impl Vm {
    /// [ToBoolean](https://tc39.es/ecma262/#sec-toboolean)
    #[inline]
    pub fn to_boolean(&self, v: Value) -> bool {
        match v.kind() {
            Kind::Bool(b) => b,
            Kind::Int(i) => i != 0,
            Kind::Double(d) => !(d == 0.0 || d.is_nan()),
            Kind::Undefined | Kind::Null | Kind::Hole => false,
            Kind::String(s) => self.heap.string_len(s) != 0,
            Kind::BigInt(b) => !self.heap.bigint(b).is_zero(),
            Kind::Symbol(_) | Kind::Object(_) => true,
        }
    }

    /// [ToPrimitive](https://tc39.es/ecma262/#sec-toprimitive)
    pub fn to_primitive(&mut self, v: Value, hint: Hint) -> JsResult<Value> {
        let Some(obj) = v.as_object() else {
            return Ok(v);
        };
        let exotic = self.get(v, PropertyKey::Symbol(self.symbols.to_primitive))?;
        if !exotic.is_nullish() {
            if !self.is_callable(exotic) {
                return Err(self.type_error("Symbol.toPrimitive is not a function"));
            }
            let hint_name = match hint {
                Hint::Default => self.atoms.default,
                Hint::Number => self.atoms.number,
                Hint::String => self.atoms.string,
            };
            let result = self.call(exotic, v, &[Value::string(hint_name)])?;
            if result.is_object() {
                return Err(self.type_error("Cannot convert object to primitive value"));
            }
            return Ok(result);
        }
        self.ordinary_to_primitive(obj, hint == Hint::String)
    }

    /// [OrdinaryToPrimitive](https://tc39.es/ecma262/#sec-ordinarytoprimitive): `toString`
    /// then `valueOf` when `string_first`, else the other way round.
    pub fn ordinary_to_primitive(
        &mut self,
        obj: crate::heap::ObjectId,
        string_first: bool,
    ) -> JsResult<Value> {
        let (to_string, value_of) = (self.atoms.to_string, self.atoms.value_of);
        let order = if string_first {
            [to_string, value_of]
        } else {
            [value_of, to_string]
        };
        for name in order {
            let v = Value::object(obj);
            let method = self.get(v, PropertyKey::String(name))?;
            if self.is_callable(method) {
                let result = self.call(method, v, &[])?;
                if !result.is_object() {
                    return Ok(result);
                }
            }
        }
        Err(self.type_error("Cannot convert object to primitive value"))
    }

    /// [ToNumber](https://tc39.es/ecma262/#sec-tonumber)
    #[inline]
    pub fn to_number(&mut self, v: Value) -> JsResult<f64> {
        if let Some(n) = v.as_number() {
            return Ok(n);
        }
        self.number_from_non_number(v)
    }

    #[inline(never)]
    fn number_from_non_number(&mut self, v: Value) -> JsResult<f64> {
        Ok(match v.kind() {
            Kind::Undefined | Kind::Hole => f64::NAN,
            Kind::Null => 0.0,
            Kind::Bool(b) => b as u8 as f64,
            Kind::Int(i) => i as f64,
            Kind::Double(d) => d,
            Kind::String(s) => string_to_number(self.heap.units(s)),
            Kind::Symbol(_) => {
                return Err(self.type_error("Cannot convert a Symbol value to a number"));
            }
            Kind::BigInt(_) => {
                return Err(self.type_error("Cannot convert a BigInt value to a number"));
            }
            Kind::Object(_) => {
                let p = self.to_primitive(v, Hint::Number)?;
                return self.to_number(p);
            }
        })
    }

    /// [ToNumeric](https://tc39.es/ecma262/#sec-tonumeric): a number or BigInt value.
    pub fn to_numeric(&mut self, v: Value) -> JsResult<Value> {
        if v.is_number() || v.as_bigint().is_some() {
            return Ok(v);
        }
        let p = self.to_primitive(v, Hint::Number)?;
        if p.as_bigint().is_some() {
            return Ok(p);
        }
        Ok(Value::number(self.to_number(p)?))
    }

    pub fn to_int32(&mut self, v: Value) -> JsResult<i32> {
        if let Some(i) = v.as_int() {
            return Ok(i);
        }
        Ok(f64_to_int32(self.to_number(v)?))
    }

    pub fn to_uint32(&mut self, v: Value) -> JsResult<u32> {
        Ok(self.to_int32(v)? as u32)
    }

    /// [ToIntegerOrInfinity](https://tc39.es/ecma262/#sec-tointegerorinfinity)
    pub fn to_integer(&mut self, v: Value) -> JsResult<f64> {
        if let Some(i) = v.as_int() {
            return Ok(i as f64);
        }
        Ok(f64_to_integer(self.to_number(v)?))
    }

    /// [ToLength](https://tc39.es/ecma262/#sec-tolength)
    pub fn to_length(&mut self, v: Value) -> JsResult<f64> {
        let n = self.to_integer(v)?;
        Ok(n.clamp(0.0, 9007199254740991.0))
    }

    /// [ToIndex](https://tc39.es/ecma262/#sec-toindex)
    pub fn to_index(&mut self, v: Value) -> JsResult<f64> {
        if v.is_undefined() {
            return Ok(0.0);
        }
        let n = self.to_integer(v)?;
        if !(0.0..=9007199254740991.0).contains(&n) {
            return Err(self.range_error("Invalid index"));
        }
        Ok(n)
    }

    /// [ToString](https://tc39.es/ecma262/#sec-tostring)
    pub fn to_string(&mut self, v: Value) -> JsResult<StringId> {
        if let Some(s) = v.as_string() {
            return Ok(s);
        }
        Ok(match v.kind() {
            Kind::Undefined | Kind::Hole => self.atoms.undefined,
            Kind::Null => self.atoms.null,
            Kind::Bool(true) => self.atoms.true_,
            Kind::Bool(false) => self.atoms.false_,
            Kind::Int(i) => self.int_to_string(i),
            Kind::Double(d) => {
                let s = number_to_string(d);
                self.heap.alloc_str(&s)
            }
            Kind::String(s) => s,
            Kind::Symbol(_) => {
                return Err(self.type_error("Cannot convert a Symbol value to a string"));
            }
            Kind::BigInt(b) => {
                let s = self.heap.bigint(b).to_string();
                self.heap.alloc_str(&s)
            }
            Kind::Object(_) => {
                let p = self.to_primitive(v, Hint::String)?;
                return self.to_string(p);
            }
        })
    }

    /// Small integers convert through a cache of interned strings.
    pub fn int_to_string(&mut self, i: i32) -> StringId {
        if (0..256).contains(&i) {
            if let Some(s) = self.small_int_strings[i as usize] {
                return s;
            }
            let s = self.heap.intern(&i.to_string());
            self.small_int_strings[i as usize] = Some(s);
            return s;
        }
        self.heap.alloc_str(&i.to_string())
    }

    /// ToString for display in messages: never runs JavaScript, never fails.
    pub fn display(&mut self, v: Value) -> String {
        match v.kind() {
            Kind::String(s) => self.heap.string_to_rust(s),
            Kind::Symbol(s) => {
                let desc = self.heap.symbol(s).description;
                format!(
                    "Symbol({})",
                    desc.map(|d| self.heap.string_to_rust(d))
                        .unwrap_or_default()
                )
            }
            Kind::Object(o) => {
                if self.is_callable(v) {
                    let name = self.function_name(o);
                    format!("function {name}")
                } else if self.heap.object(o).is_array() {
                    "[object Array]".into()
                } else {
                    "[object Object]".into()
                }
            }
            Kind::BigInt(b) => format!("{}n", self.heap.bigint(b)),
            _ => {
                let s = self.to_string(v).unwrap_or(self.atoms.undefined);
                self.heap.string_to_rust(s)
            }
        }
    }

    /// [ToPropertyKey](https://tc39.es/ecma262/#sec-topropertykey)
    #[inline]
    pub fn to_property_key(&mut self, v: Value) -> JsResult<PropertyKey> {
        if let Some(i) = v.as_int()
            && i >= 0
        {
            return Ok(PropertyKey::Index(i as u32));
        }
        match v.kind() {
            Kind::String(s) => Ok(self.key_from_string(s)),
            Kind::Symbol(s) => Ok(PropertyKey::Symbol(s)),
            Kind::Object(_) => {
                let p = self.to_primitive(v, Hint::String)?;
                self.to_property_key(p)
            }
            Kind::Double(d) if d >= 0.0 && d < u32::MAX as f64 && d.fract() == 0.0 => {
                Ok(PropertyKey::Index(d as u32))
            }
            _ => {
                let s = self.to_string(v)?;
                Ok(self.key_from_string(s))
            }
        }
    }

    /// The property key a string names (an index or an atom).
    pub fn key_from_string(&mut self, s: StringId) -> PropertyKey {
        let units = self.heap.units(s);
        if let Some(i) = units.as_array_index() {
            return PropertyKey::Index(i);
        }
        PropertyKey::String(self.heap.intern_string(s))
    }

    /// The property key for a Rust string (built-in names).
    pub fn key(&mut self, s: &str) -> PropertyKey {
        let atom = self.heap.intern(s);
        self.key_from_string(atom)
    }

    /// [`Vm::key`] for a name in the program's read-only data (a built-in's), which the
    /// key's atom reads in place ([`crate::heap::Heap::intern_static`]).
    pub fn static_key(&mut self, s: &'static str) -> PropertyKey {
        let atom = self.heap.intern_static(s);
        self.key_from_string(atom)
    }

    /// A property key as a JavaScript value (a string or symbol).
    pub fn key_to_value(&mut self, key: PropertyKey) -> Value {
        match key {
            PropertyKey::String(s) => Value::string(s),
            PropertyKey::Symbol(s) => Value::symbol(s),
            PropertyKey::Index(i) => {
                if i < i32::MAX as u32 {
                    Value::string(self.int_to_string(i as i32))
                } else {
                    Value::string(self.heap.alloc_str(&i.to_string()))
                }
            }
        }
    }

    pub fn key_to_display(&mut self, key: PropertyKey) -> String {
        let v = self.key_to_value(key);
        self.display(v)
    }

    pub fn intern_value(&mut self, s: &str) -> Value {
        Value::string(self.heap.intern(s))
    }

    pub fn string_value(&mut self, s: &str) -> Value {
        Value::string(self.heap.alloc_str(s))
    }

    /// [ToObject](https://tc39.es/ecma262/#sec-toobject)
    pub fn to_object(&mut self, v: Value) -> JsResult<crate::heap::ObjectId> {
        let (proto, kind) = match v.kind() {
            Kind::Object(o) => return Ok(o),
            Kind::Undefined | Kind::Null | Kind::Hole => {
                let what = self.display(v);
                return Err(self.type_error(format!("Cannot convert {what} to object")));
            }
            Kind::Bool(b) => (self.intrinsics.boolean_prototype, ObjectKind::Boolean(b)),
            Kind::Int(_) | Kind::Double(_) => (
                self.intrinsics.number_prototype,
                ObjectKind::Number(v.as_number().unwrap_or(0.0)),
            ),
            Kind::String(s) => {
                self.heap.flatten(s);
                (self.intrinsics.string_prototype, ObjectKind::String(s))
            }
            Kind::Symbol(s) => (self.intrinsics.symbol_prototype, ObjectKind::Symbol(s)),
            Kind::BigInt(b) => (self.intrinsics.bigint_prototype, ObjectKind::BigInt(b)),
        };
        Ok(self.heap.new_object(Some(proto), kind))
    }

    /// `typeof v`
    pub fn type_of(&self, v: Value) -> StringId {
        let a = &self.atoms;
        match self.type_name(v) {
            TypeName::Undefined => a.undefined,
            TypeName::Object => a.object,
            TypeName::Boolean => a.boolean,
            TypeName::Number => a.number,
            TypeName::String => a.string,
            TypeName::Symbol => a.symbol,
            TypeName::BigInt => a.bigint,
            TypeName::Function => a.function,
        }
    }

    /// What `typeof v` answers, as a name the bytecode can hold.
    pub fn type_name(&self, v: Value) -> TypeName {
        match v.kind() {
            Kind::Undefined | Kind::Hole => TypeName::Undefined,
            Kind::Null => TypeName::Object,
            Kind::Bool(_) => TypeName::Boolean,
            Kind::Int(_) | Kind::Double(_) => TypeName::Number,
            Kind::String(_) => TypeName::String,
            Kind::Symbol(_) => TypeName::Symbol,
            Kind::BigInt(_) => TypeName::BigInt,
            Kind::Object(_) if self.is_callable(v) => TypeName::Function,
            Kind::Object(_) => TypeName::Object,
        }
    }

    /// [`Vm::strict_equals`] with the int32 case decided inline (the dispatch loop's `===`).
    #[inline(always)]
    pub(crate) fn strict_equals_inline(&mut self, a: Value, b: Value) -> bool {
        match (a.as_int(), b.as_int()) {
            (Some(x), Some(y)) => x == y,
            _ => self.strict_equals(a, b),
        }
    }

    /// [IsStrictlyEqual](https://tc39.es/ecma262/#sec-isstrictlyequal)
    #[inline]
    pub fn strict_equals(&mut self, a: Value, b: Value) -> bool {
        if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
            return x == y;
        }
        if a == b {
            return true;
        }
        match (a.kind(), b.kind()) {
            (Kind::String(x), Kind::String(y)) => self.heap.string_eq(x, y),
            (Kind::BigInt(x), Kind::BigInt(y)) => self.heap.bigint(x) == self.heap.bigint(y),
            _ => false,
        }
    }

    /// [SameValue](https://tc39.es/ecma262/#sec-samevalue)
    pub fn same_value(&mut self, a: Value, b: Value) -> bool {
        if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
            return (x.is_nan() && y.is_nan())
                || (x == y && x.is_sign_negative() == y.is_sign_negative());
        }
        self.strict_equals(a, b)
    }

    /// [SameValueZero](https://tc39.es/ecma262/#sec-samevaluezero)
    pub fn same_value_zero(&mut self, a: Value, b: Value) -> bool {
        if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
            return (x.is_nan() && y.is_nan()) || x == y;
        }
        self.strict_equals(a, b)
    }

    /// [IsLooselyEqual](https://tc39.es/ecma262/#sec-islooselyequal)
    pub fn loose_equals(&mut self, a: Value, b: Value) -> JsResult<bool> {
        if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
            return Ok(x == y);
        }
        Ok(match (a.kind(), b.kind()) {
            (Kind::Undefined | Kind::Null, Kind::Undefined | Kind::Null) => true,
            (Kind::Undefined | Kind::Null, _) | (_, Kind::Undefined | Kind::Null) => false,
            (Kind::String(_), Kind::Int(_) | Kind::Double(_)) => {
                let x = self.to_number(a)?;
                x == b.as_number().unwrap_or(f64::NAN)
            }
            (Kind::Int(_) | Kind::Double(_), Kind::String(_)) => {
                let y = self.to_number(b)?;
                a.as_number().unwrap_or(f64::NAN) == y
            }
            (Kind::BigInt(x), Kind::String(s)) | (Kind::String(s), Kind::BigInt(x)) => {
                let text = self.heap.string_to_rust(s);
                match crate::builtins::bigint::parse_bigint_string(&text) {
                    Some(n) => &n == self.heap.bigint(x),
                    None => false,
                }
            }
            (Kind::Bool(_), _) => {
                let x = Value::number(self.to_number(a)?);
                return self.loose_equals(x, b);
            }
            (_, Kind::Bool(_)) => {
                let y = Value::number(self.to_number(b)?);
                return self.loose_equals(a, y);
            }
            (Kind::Object(_), Kind::Object(_)) => a == b,
            (Kind::Object(_), _) => {
                let p = self.to_primitive(a, Hint::Default)?;
                return self.loose_equals(p, b);
            }
            (_, Kind::Object(_)) => {
                let p = self.to_primitive(b, Hint::Default)?;
                return self.loose_equals(a, p);
            }
            (Kind::BigInt(x), Kind::Int(_) | Kind::Double(_))
            | (Kind::Int(_) | Kind::Double(_), Kind::BigInt(x)) => {
                let n = if a.is_number() {
                    a.as_number()
                } else {
                    b.as_number()
                }
                .unwrap_or(f64::NAN);
                bigint_equals_number(self.heap.bigint(x), n)
            }
            _ => self.strict_equals(a, b),
        })
    }

    /// [IsLessThan](https://tc39.es/ecma262/#sec-islessthan): None means undefined (a NaN was involved).
    pub fn less_than(&mut self, a: Value, b: Value, left_first: bool) -> JsResult<Option<bool>> {
        let (px, py) = if left_first {
            let px = self.to_primitive(a, Hint::Number)?;
            (px, self.to_primitive(b, Hint::Number)?)
        } else {
            let py = self.to_primitive(b, Hint::Number)?;
            (self.to_primitive(a, Hint::Number)?, py)
        };
        if let (Some(x), Some(y)) = (px.as_string(), py.as_string()) {
            let xs = self.heap.units_vec(x);
            let ys = self.heap.units(y);
            return Ok(Some(xs.iter().copied().lt(ys.iter())));
        }
        match (px.kind(), py.kind()) {
            (Kind::BigInt(x), Kind::String(s)) => {
                let text = self.heap.string_to_rust(s);
                let Some(y) = crate::builtins::bigint::parse_bigint_string(&text) else {
                    return Ok(None);
                };
                return Ok(Some(self.heap.bigint(x) < &y));
            }
            (Kind::String(s), Kind::BigInt(y)) => {
                let text = self.heap.string_to_rust(s);
                let Some(x) = crate::builtins::bigint::parse_bigint_string(&text) else {
                    return Ok(None);
                };
                return Ok(Some(&x < self.heap.bigint(y)));
            }
            _ => {}
        }
        let nx = self.to_numeric(px)?;
        let ny = self.to_numeric(py)?;
        Ok(match (nx.kind(), ny.kind()) {
            (Kind::BigInt(x), Kind::BigInt(y)) => Some(self.heap.bigint(x) < self.heap.bigint(y)),
            (Kind::BigInt(x), _) => {
                compare_bigint_number(self.heap.bigint(x), ny.as_number().unwrap_or(f64::NAN))
                    .map(|o| o == std::cmp::Ordering::Less)
            }
            (_, Kind::BigInt(y)) => {
                compare_bigint_number(self.heap.bigint(y), nx.as_number().unwrap_or(f64::NAN))
                    .map(|o| o == std::cmp::Ordering::Greater)
            }
            _ => {
                let (x, y) = (
                    nx.as_number().unwrap_or(f64::NAN),
                    ny.as_number().unwrap_or(f64::NAN),
                );
                if x.is_nan() || y.is_nan() {
                    None
                } else {
                    Some(x < y)
                }
            }
        })
    }
}

fn bigint_equals_number(b: &BigInt, n: f64) -> bool {
    compare_bigint_number(b, n) == Some(std::cmp::Ordering::Equal)
}

/// Compare a BigInt with a Number exactly.
pub fn compare_bigint_number(b: &BigInt, n: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    if n.is_nan() {
        return None;
    }
    if n == f64::INFINITY {
        return Some(Ordering::Less);
    }
    if n == f64::NEG_INFINITY {
        return Some(Ordering::Greater);
    }
    let floor = n.floor();
    let fb = num_bigint::BigInt::from(floor as i128);
    let exact = if floor.abs() < 1e38 {
        fb
    } else {
        BigInt::parse_bytes(format!("{floor:.0}").as_bytes(), 10)?
    };
    match b.cmp(&exact) {
        Ordering::Equal if n > floor => Some(Ordering::Less),
        o => Some(o),
    }
}

/// A BigInt's value as f64 (rounded), for mixed operations that need one.
pub fn bigint_to_f64(b: &BigInt) -> f64 {
    b.to_f64().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_like_javascript() {
        assert_eq!(number_to_string(1.0), "1");
        assert_eq!(number_to_string(-0.0), "0");
        assert_eq!(number_to_string(0.1), "0.1");
        assert_eq!(number_to_string(1e21), "1e+21");
        assert_eq!(
            number_to_string(123456789012345680000.0),
            "123456789012345680000"
        );
        assert_eq!(number_to_string(1.5e-7), "1.5e-7");
        assert_eq!(number_to_string(f64::NAN), "NaN");
        assert_eq!(number_to_string(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn strings_parse_like_javascript() {
        let n = |s: &str| string_to_number(Units::Latin1(s.as_bytes()));
        assert_eq!(n("  42 "), 42.0);
        assert_eq!(n(""), 0.0);
        assert_eq!(n("0x1F"), 31.0);
        assert_eq!(n("1e3"), 1000.0);
        assert_eq!(n(".5"), 0.5);
        assert_eq!(n("-Infinity"), f64::NEG_INFINITY);
        assert!(n("inf").is_nan());
        assert!(n("12px").is_nan());
        assert!(n("0x").is_nan());
    }

    #[test]
    fn int32_wraps() {
        assert_eq!(f64_to_int32(4294967296.0 + 5.0), 5);
        assert_eq!(f64_to_int32(2147483648.0), -2147483648);
        assert_eq!(f64_to_int32(-1.5), -1);
        assert_eq!(f64_to_int32(f64::NAN), 0);
    }
}
