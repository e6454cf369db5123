//! %TypedArray%, its twelve concrete constructors (Int8Array through
//! BigUint64Array, Float16Array included) and the element encoding they share with
//! DataView and Atomics.
//!
//! A typed array is an integer-indexed exotic object: canonical numeric string
//! keys never reach ordinary properties but read and write the viewed buffer
//! (`interpreter/property.rs` calls [`numeric_key`] and the element operations
//! here). Element reads of Number types allocate nothing.
//!
//! # Invariants
//!
//! 1. A typed array's own `elements` stay empty: its indices live in the buffer.
//! 2. `byte_offset` is a multiple of the element size.

use super::array::{callable, relative_end, relative_index};
use super::array_buffer::{self, ArrayBufferData, Bytes};
use super::define_getter;
use crate::JsResult;
use crate::heap::{Heap, ObjectId, StringId};
use crate::interpreter::convert::{f64_to_int32, number_to_string, string_to_number};
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, IterationKind, NativeFn, ObjectKind, PropertyKey};
use crate::realm::Intrinsics;
use crate::value::Value;
use num_bigint::{BigInt, Sign};
use std::cmp::Ordering;

/// The element type of a typed array (the spec's TypedArray element types table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementType {
    Int8,
    Uint8,
    Uint8Clamped,
    Int16,
    Uint16,
    Int32,
    Uint32,
    Float16,
    Float32,
    Float64,
    BigInt64,
    BigUint64,
}

impl ElementType {
    pub const ALL: [ElementType; 12] = [
        ElementType::Int8,
        ElementType::Uint8,
        ElementType::Uint8Clamped,
        ElementType::Int16,
        ElementType::Uint16,
        ElementType::Int32,
        ElementType::Uint32,
        ElementType::Float16,
        ElementType::Float32,
        ElementType::Float64,
        ElementType::BigInt64,
        ElementType::BigUint64,
    ];

    pub fn size(self) -> usize {
        use ElementType::*;
        match self {
            Int8 | Uint8 | Uint8Clamped => 1,
            Int16 | Uint16 | Float16 => 2,
            Int32 | Uint32 | Float32 => 4,
            Float64 | BigInt64 | BigUint64 => 8,
        }
    }

    pub fn is_bigint(self) -> bool {
        matches!(self, ElementType::BigInt64 | ElementType::BigUint64)
    }

    /// The constructor name ([[TypedArrayName]]).
    pub fn name(self) -> &'static str {
        use ElementType::*;
        match self {
            Int8 => "Int8Array",
            Uint8 => "Uint8Array",
            Uint8Clamped => "Uint8ClampedArray",
            Int16 => "Int16Array",
            Uint16 => "Uint16Array",
            Int32 => "Int32Array",
            Uint32 => "Uint32Array",
            Float16 => "Float16Array",
            Float32 => "Float32Array",
            Float64 => "Float64Array",
            BigInt64 => "BigInt64Array",
            BigUint64 => "BigUint64Array",
        }
    }

    /// The intrinsic prototype of this type's constructor.
    pub fn prototype_getter(self) -> fn(&Intrinsics) -> ObjectId {
        use ElementType::*;
        match self {
            Int8 => |i| i.int8_array_prototype,
            Uint8 => |i| i.uint8_array_prototype,
            Uint8Clamped => |i| i.uint8_clamped_array_prototype,
            Int16 => |i| i.int16_array_prototype,
            Uint16 => |i| i.uint16_array_prototype,
            Int32 => |i| i.int32_array_prototype,
            Uint32 => |i| i.uint32_array_prototype,
            Float16 => |i| i.float16_array_prototype,
            Float32 => |i| i.float32_array_prototype,
            Float64 => |i| i.float64_array_prototype,
            BigInt64 => |i| i.bigint64_array_prototype,
            BigUint64 => |i| i.biguint64_array_prototype,
        }
    }

    /// The intrinsic constructor of this type.
    pub fn constructor(self, i: &Intrinsics) -> ObjectId {
        use ElementType::*;
        match self {
            Int8 => i.int8_array,
            Uint8 => i.uint8_array,
            Uint8Clamped => i.uint8_clamped_array,
            Int16 => i.int16_array,
            Uint16 => i.uint16_array,
            Int32 => i.int32_array,
            Uint32 => i.uint32_array,
            Float16 => i.float16_array,
            Float32 => i.float32_array,
            Float64 => i.float64_array,
            BigInt64 => i.bigint64_array,
            BigUint64 => i.biguint64_array,
        }
    }

    fn set_intrinsics(self, i: &mut Intrinsics, ctor: ObjectId, proto: ObjectId) {
        use ElementType::*;
        let (c, p) = match self {
            Int8 => (&mut i.int8_array, &mut i.int8_array_prototype),
            Uint8 => (&mut i.uint8_array, &mut i.uint8_array_prototype),
            Uint8Clamped => (
                &mut i.uint8_clamped_array,
                &mut i.uint8_clamped_array_prototype,
            ),
            Int16 => (&mut i.int16_array, &mut i.int16_array_prototype),
            Uint16 => (&mut i.uint16_array, &mut i.uint16_array_prototype),
            Int32 => (&mut i.int32_array, &mut i.int32_array_prototype),
            Uint32 => (&mut i.uint32_array, &mut i.uint32_array_prototype),
            Float16 => (&mut i.float16_array, &mut i.float16_array_prototype),
            Float32 => (&mut i.float32_array, &mut i.float32_array_prototype),
            Float64 => (&mut i.float64_array, &mut i.float64_array_prototype),
            BigInt64 => (&mut i.bigint64_array, &mut i.bigint64_array_prototype),
            BigUint64 => (&mut i.biguint64_array, &mut i.biguint64_array_prototype),
        };
        *c = ctor;
        *p = proto;
    }
}

/// The internal slots of a typed array.
#[derive(Clone, Copy, Debug)]
pub struct TypedArrayData {
    pub element: ElementType,
    /// [[ViewedArrayBuffer]]
    pub buffer: ObjectId,
    /// [[ByteOffset]]
    pub byte_offset: usize,
    /// [[ArrayLength]]; None when it tracks the length of a resizable buffer ("auto")
    pub length: Option<usize>,
}

// ---- element encoding ----

/// A value ready to store: a Number, or a BigInt reduced to its low 64 bits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Numeric {
    Number(f64),
    BigInt(u64),
}

/// ToNumber or ToBigInt, as the element type wants (may run JavaScript).
pub fn to_numeric_for(vm: &mut Vm, t: ElementType, v: Value) -> JsResult<Numeric> {
    if t.is_bigint() {
        let b = super::bigint::to_bigint(vm, v)?;
        Ok(Numeric::BigInt(bigint_low_bits(vm, b)))
    } else {
        Ok(Numeric::Number(vm.to_number(v)?))
    }
}

/// The low 64 bits of a BigInt value, two's complement (ToBigInt64 / ToBigUint64 before the
/// sign is chosen).
pub fn bigint_low_bits(vm: &Vm, v: Value) -> u64 {
    let Some(b) = v.as_bigint() else { return 0 };
    let (sign, digits) = vm.heap.bigint(b).to_u64_digits();
    let low = digits.first().copied().unwrap_or(0);
    if sign == Sign::Minus {
        low.wrapping_neg()
    } else {
        low
    }
}

/// Round to the nearest binary16 value, ties to even, returning its bits.
pub fn f64_to_f16_bits(x: f64) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return 0x7e00;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < f64::powi(2.0, -14) {
        // Subnormal (or zero): a multiple of 2^-24; 1024 rounds up into the smallest normal.
        let m = (a * f64::powi(2.0, 24)).round_ties_even();
        return sign | m as u16;
    }
    let mut e = ((a.to_bits() >> 52) as i32) - 1023;
    let mut m = (a * f64::powi(2.0, 10 - e)).round_ties_even() as u32;
    if m == 2048 {
        m = 1024;
        e += 1;
    }
    if e > 15 {
        return sign | 0x7c00;
    }
    sign | (((e + 15) as u16) << 10) | (m - 1024) as u16
}

pub fn f16_bits_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    match e {
        0 => sign * m * f64::powi(2.0, -24),
        31 if m == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + m / 1024.0) * f64::powi(2.0, e - 15),
    }
}

/// ToUint8Clamp
fn to_uint8_clamp(n: f64) -> u8 {
    if n.is_nan() || n <= 0.0 {
        return 0;
    }
    if n >= 255.0 {
        return 255;
    }
    n.round_ties_even() as u8
}

/// The bytes of `n` as element type `t` (NumericToRawBytes); the first `t.size()` count.
pub fn encode(t: ElementType, n: Numeric, little: bool) -> [u8; 8] {
    use ElementType::*;
    let mut out = [0u8; 8];
    macro_rules! put {
        ($v:expr) => {{
            let b = if little {
                $v.to_le_bytes()
            } else {
                $v.to_be_bytes()
            };
            out[..b.len()].copy_from_slice(&b);
        }};
    }
    match n {
        Numeric::Number(x) => match t {
            Int8 => put!(f64_to_int32(x) as i8),
            Uint8 => put!(f64_to_int32(x) as u8),
            Uint8Clamped => put!(to_uint8_clamp(x)),
            Int16 => put!(f64_to_int32(x) as i16),
            Uint16 => put!(f64_to_int32(x) as u16),
            Int32 => put!(f64_to_int32(x)),
            Uint32 => put!(f64_to_int32(x) as u32),
            Float16 => put!(f64_to_f16_bits(x)),
            Float32 => put!(x as f32),
            Float64 => put!(x),
            BigInt64 | BigUint64 => {}
        },
        Numeric::BigInt(bits) => put!(bits),
    }
    out
}

/// The value of raw bytes as element type `t` (RawBytesToNumeric).
pub fn decode(t: ElementType, bytes: &[u8], little: bool) -> Numeric {
    use ElementType::*;
    macro_rules! get {
        ($ty:ty) => {{
            let mut b = [0u8; std::mem::size_of::<$ty>()];
            b.copy_from_slice(&bytes[..std::mem::size_of::<$ty>()]);
            if little {
                <$ty>::from_le_bytes(b)
            } else {
                <$ty>::from_be_bytes(b)
            }
        }};
    }
    match t {
        Int8 => Numeric::Number(get!(i8) as f64),
        Uint8 | Uint8Clamped => Numeric::Number(get!(u8) as f64),
        Int16 => Numeric::Number(get!(i16) as f64),
        Uint16 => Numeric::Number(get!(u16) as f64),
        Int32 => Numeric::Number(get!(i32) as f64),
        Uint32 => Numeric::Number(get!(u32) as f64),
        Float16 => Numeric::Number(f16_bits_to_f64(get!(u16))),
        Float32 => Numeric::Number(get!(f32) as f64),
        Float64 => Numeric::Number(get!(f64)),
        BigInt64 | BigUint64 => Numeric::BigInt(get!(u64)),
    }
}

/// A decoded element as a JavaScript value (BigInts allocate).
pub fn numeric_value(vm: &mut Vm, t: ElementType, n: Numeric) -> Value {
    match n {
        Numeric::Number(x) => Value::number(x),
        Numeric::BigInt(bits) => {
            let b = if t == ElementType::BigInt64 {
                BigInt::from(bits as i64)
            } else {
                BigInt::from(bits)
            };
            vm.bigint_value(b)
        }
    }
}

// ---- typed array records ----

/// A new %Uint8Array% over a new %ArrayBuffer% holding `bytes`.
pub fn new_uint8_array(vm: &mut Vm, bytes: Vec<u8>) -> Value {
    let length = Some(bytes.len());
    let buffer_proto = vm.intrinsics.array_buffer_prototype;
    let buffer = array_buffer::new_buffer(vm, buffer_proto, bytes, None);
    let proto = vm.intrinsics.uint8_array_prototype;
    let o = vm.heap.new_object(
        Some(proto),
        ObjectKind::TypedArray(Box::new(TypedArrayData {
            element: ElementType::Uint8,
            buffer,
            byte_offset: 0,
            length,
        })),
    );
    Value::object(o)
}

/// The slots of `obj` if it is a typed array.
pub fn ta_data(vm: &Vm, obj: ObjectId) -> Option<TypedArrayData> {
    match &vm.heap.object(obj).kind {
        ObjectKind::TypedArray(t) => Some(**t),
        _ => None,
    }
}

/// [TypedArrayLength](https://tc39.es/ecma262/#sec-typedarraylength), or None when
/// [IsTypedArrayOutOfBounds](https://tc39.es/ecma262/#sec-istypedarrayoutofbounds)
/// (detached buffers included).
pub fn length_of(vm: &Vm, t: &TypedArrayData) -> Option<usize> {
    length_in(array_buffer::data(vm, t.buffer), t)
}

/// [`length_of`] with the viewed buffer's data in hand.
#[inline]
fn length_in(b: &ArrayBufferData, t: &TypedArrayData) -> Option<usize> {
    if b.detached {
        return None;
    }
    let buf_len = b.len();
    if t.byte_offset > buf_len {
        return None;
    }
    match t.length {
        Some(n) => (t.byte_offset + n * t.element.size() <= buf_len).then_some(n),
        None => Some((buf_len - t.byte_offset) / t.element.size()),
    }
}

/// IsTypedArrayFixedLength
pub fn is_fixed_length(vm: &Vm, t: &TypedArrayData) -> bool {
    if t.length.is_none() {
        return false;
    }
    let b = array_buffer::data(vm, t.buffer);
    b.max_byte_length.is_none() || b.is_shared()
}

/// The element index `index` names if it is a valid integer index
/// ([IsValidIntegerIndex](https://tc39.es/ecma262/#sec-isvalidintegerindex)).
fn valid_index(vm: &Vm, t: &TypedArrayData, index: f64) -> Option<usize> {
    if index.fract() != 0.0 || (index == 0.0 && index.is_sign_negative()) || index < 0.0 {
        return None;
    }
    let len = length_of(vm, t)?;
    (index < len as f64).then_some(index as usize)
}

pub fn is_valid_index(vm: &Vm, obj: ObjectId, index: f64) -> bool {
    ta_data(vm, obj).is_some_and(|t| valid_index(vm, &t, index).is_some())
}

/// Read element `i` (in bounds) without converting to a value: a slice of an
/// ArrayBuffer's bytes (fast path), or a copy of a shared block's.
#[inline]
fn read(vm: &Vm, t: &TypedArrayData, i: usize) -> Numeric {
    let size = t.element.size();
    let at = t.byte_offset + i * size;
    match &array_buffer::data(vm, t.buffer).bytes {
        Bytes::Local(bytes) => decode(t.element, &bytes[at..at + size], true),
        Bytes::Shared(block) => {
            let mut raw = [0; 8];
            block.read(at, &mut raw[..size]);
            decode(t.element, &raw, true)
        }
    }
}

/// Write element `i` (in bounds).
#[inline]
fn write(vm: &mut Vm, t: &TypedArrayData, i: usize, n: Numeric) {
    let size = t.element.size();
    let at = t.byte_offset + i * size;
    let raw = encode(t.element, n, true);
    match &mut array_buffer::data_mut(vm, t.buffer).bytes {
        Bytes::Local(bytes) => bytes[at..at + size].copy_from_slice(&raw[..size]),
        Bytes::Shared(block) => block.write(at, &raw[..size]),
    }
}

/// [TypedArrayGetElement](https://tc39.es/ecma262/#sec-typedarraygetelement)
pub fn get_element(vm: &mut Vm, obj: ObjectId, index: f64) -> Value {
    let Some(t) = ta_data(vm, obj) else {
        return Value::UNDEFINED;
    };
    match valid_index(vm, &t, index) {
        Some(i) => {
            let n = read(vm, &t, i);
            numeric_value(vm, t.element, n)
        }
        None => Value::UNDEFINED,
    }
}

/// The element index `i` names when it is in bounds: [`valid_index`] for an int32 key,
/// with the viewed buffer's data in hand.
#[inline(always)]
fn index_in(b: &ArrayBufferData, t: &TypedArrayData, i: i32) -> Option<usize> {
    let i = usize::try_from(i).ok()?;
    (i < length_in(b, t)?).then_some(i)
}

/// Fast `ta[i]` for the interpreter: never allocates; None for BigInt elements in bounds.
/// Integer elements of an ArrayBuffer's own bytes become int32 values directly (the
/// loops of compression and hashing code read little else).
#[inline]
pub fn fast_get(vm: &Vm, t: &TypedArrayData, i: i32) -> Option<Value> {
    use ElementType::*;
    let b = array_buffer::data(vm, t.buffer);
    let Some(i) = index_in(b, t, i) else {
        return Some(Value::UNDEFINED);
    };
    let Bytes::Local(bytes) = &b.bytes else {
        return match read(vm, t, i) {
            Numeric::Number(x) => Some(Value::number(x)),
            Numeric::BigInt(_) => None,
        };
    };
    let at = t.byte_offset + i * t.element.size();
    let unit = || -> [u8; 2] { [bytes[at], bytes[at + 1]] };
    let word = || -> [u8; 4] { [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]] };
    Some(match t.element {
        Int8 => Value::int(i32::from(bytes[at] as i8)),
        Uint8 | Uint8Clamped => Value::int(i32::from(bytes[at])),
        Int16 => Value::int(i32::from(i16::from_le_bytes(unit()))),
        Uint16 => Value::int(i32::from(u16::from_le_bytes(unit()))),
        Int32 => Value::int(i32::from_le_bytes(word())),
        Uint32 => Value::number(f64::from(u32::from_le_bytes(word()))),
        Float16 | Float32 | Float64 => match decode(t.element, &bytes[at..], true) {
            Numeric::Number(x) => Value::number(x),
            Numeric::BigInt(_) => unreachable!("a Number element type"),
        },
        BigInt64 | BigUint64 => return None,
    })
}

/// Fast `ta[i] = v` for a Number `v` and a Number element type; false when not applicable.
/// An int32 stored into an integer element of an ArrayBuffer's own bytes is its low
/// bytes (ToInt8 … ToUint32 of an int32 keep exactly those), or clamped for
/// Uint8Clamped.
#[inline]
pub fn fast_set(vm: &mut Vm, obj: ObjectId, i: i32, v: Value) -> bool {
    use ElementType::*;
    let Some(x) = v.as_number() else { return false };
    let Some(t) = ta_data(vm, obj) else {
        return false;
    };
    if t.element.is_bigint() {
        return false;
    }
    let b = array_buffer::data_mut(vm, t.buffer);
    let Some(i) = index_in(b, &t, i) else {
        return true;
    };
    let size = t.element.size();
    let at = t.byte_offset + i * size;
    let raw = match (v.as_int(), t.element) {
        (Some(n), Uint8Clamped) => [n.clamp(0, 255) as u8; 8],
        (Some(n), Int8 | Uint8 | Int16 | Uint16 | Int32 | Uint32) => {
            let [b0, b1, b2, b3] = n.to_le_bytes();
            [b0, b1, b2, b3, 0, 0, 0, 0]
        }
        _ => encode(t.element, Numeric::Number(x), true),
    };
    match &mut b.bytes {
        Bytes::Local(bytes) => bytes[at..at + size].copy_from_slice(&raw[..size]),
        Bytes::Shared(block) => block.write(at, &raw[..size]),
    }
    true
}

/// [TypedArraySetElement](https://tc39.es/ecma262/#sec-typedarraysetelement): converts
/// first (may run JavaScript), then writes if the index is still valid.
pub fn set_element(vm: &mut Vm, obj: ObjectId, index: f64, v: Value) -> JsResult<()> {
    let Some(t) = ta_data(vm, obj) else {
        return Ok(());
    };
    let n = to_numeric_for(vm, t.element, v)?;
    let Some(t) = ta_data(vm, obj) else {
        return Ok(());
    };
    if let Some(i) = valid_index(vm, &t, index) {
        write(vm, &t, i, n);
    }
    Ok(())
}

/// [CanonicalNumericIndexString](https://tc39.es/ecma262/#sec-canonicalnumericindexstring)
/// of an atom; None when the string is not canonical numeric.
pub fn canonical_numeric_string(heap: &Heap, s: StringId) -> Option<f64> {
    let units = heap.flat_units(s);
    let first = units.iter().next()?;
    if !(first == b'-' as u16
        || first == b'I' as u16
        || first == b'N' as u16
        || (b'0' as u16..=b'9' as u16).contains(&first))
    {
        return None;
    }
    let text = units.to_rust_string();
    if text == "-0" {
        return Some(-0.0);
    }
    let n = string_to_number(units);
    (number_to_string(n) == text).then_some(n)
}

/// The numeric index `key` names on `obj` when `obj` is a typed array and `key` is a
/// canonical numeric string: such keys never reach ordinary properties.
#[inline]
pub fn numeric_key(vm: &Vm, obj: ObjectId, key: PropertyKey) -> Option<f64> {
    if !matches!(vm.heap.object(obj).kind, ObjectKind::TypedArray(_)) {
        return None;
    }
    match key {
        PropertyKey::Index(i) => Some(i as f64),
        PropertyKey::String(s) => canonical_numeric_string(&vm.heap, s),
        PropertyKey::Symbol(_) => None,
    }
}

// ---- creation ----

/// A typed array object over `buffer`.
fn new_typed_array(vm: &mut Vm, proto: ObjectId, data: TypedArrayData) -> ObjectId {
    vm.heap
        .new_object(Some(proto), ObjectKind::TypedArray(Box::new(data)))
}

/// AllocateTypedArray with a length: a fresh zeroed buffer of `len` elements.
fn allocate_with_length(
    vm: &mut Vm,
    proto: ObjectId,
    t: ElementType,
    len: f64,
) -> JsResult<ObjectId> {
    let bytes = len * t.size() as f64;
    if bytes > u32::MAX as f64 * 2.0 {
        return Err(vm.range_error("Invalid typed array length"));
    }
    let buffer = array_buffer::allocate_plain(vm, bytes as usize)?;
    Ok(new_typed_array(
        vm,
        proto,
        TypedArrayData {
            element: t,
            buffer,
            byte_offset: 0,
            length: Some(len as usize),
        },
    ))
}

/// [ValidateTypedArray](https://tc39.es/ecma262/#sec-validatetypedarray): the array and its
/// current length, or a TypeError when `v` is not a typed array or is out of bounds.
pub fn validate(
    vm: &mut Vm,
    v: Value,
    method: &str,
) -> JsResult<(ObjectId, TypedArrayData, usize)> {
    let Some((o, t)) = v.as_object().and_then(|o| ta_data(vm, o).map(|t| (o, t))) else {
        return Err(vm.type_error(format!("{method}: this is not a typed array")));
    };
    match length_of(vm, &t) {
        Some(len) => Ok((o, t, len)),
        None => Err(vm.type_error(format!(
            "{method}: the typed array is detached or out of bounds"
        ))),
    }
}

/// [TypedArrayCreateFromConstructor](https://tc39.es/ecma262/#sec-typedarraycreatefromconstructor)
fn create_from_constructor(vm: &mut Vm, ctor: Value, args: &[Value]) -> JsResult<ObjectId> {
    let new = vm.construct(ctor, args, None)?;
    let (o, _, len) = validate(vm, new, "TypedArray constructor")?;
    if let [n] = args
        && let Some(n) = n.as_number()
        && (len as f64) < n
    {
        return Err(
            vm.type_error("Derived TypedArray constructor created an array which was too small")
        );
    }
    vm.roots.push(Value::object(o));
    Ok(o)
}

/// [TypedArraySpeciesCreate](https://tc39.es/ecma262/#sec-typedarray-species-create)
fn species_create(vm: &mut Vm, exemplar: ObjectId, args: &[Value]) -> JsResult<ObjectId> {
    let t = ta_data(vm, exemplar).map_or(ElementType::Int8, |t| t.element);
    let default = Value::object(t.constructor(&vm.intrinsics));
    let ctor = super::promise::species_constructor(vm, Value::object(exemplar), default)?;
    let result = create_from_constructor(vm, ctor, args)?;
    let rt = ta_data(vm, result).map_or(t, |r| r.element);
    if rt.is_bigint() != t.is_bigint() {
        return Err(vm.type_error(
            "TypedArray species constructor returned an array with a different content type",
        ));
    }
    Ok(result)
}

/// [TypedArrayCreateSameType](https://tc39.es/ecma262/#sec-typedarray-create-same-type)
fn create_same_type(vm: &mut Vm, t: ElementType, len: usize) -> JsResult<ObjectId> {
    let proto = t.prototype_getter()(&vm.intrinsics);
    let o = allocate_with_length(vm, proto, t, len as f64)?;
    vm.roots.push(Value::object(o));
    Ok(o)
}

// ---- init ----

macro_rules! constructors {
    ($($f:ident => $t:ident),* $(,)?) => {
        $(fn $f(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
            construct(vm, args, ElementType::$t)
        })*
        fn constructor_fn(t: ElementType) -> NativeFn {
            match t { $(ElementType::$t => $f,)* }
        }
    };
}

constructors!(
    int8_ctor => Int8,
    uint8_ctor => Uint8,
    uint8_clamped_ctor => Uint8Clamped,
    int16_ctor => Int16,
    uint16_ctor => Uint16,
    int32_ctor => Int32,
    uint32_ctor => Uint32,
    float16_ctor => Float16,
    float32_ctor => Float32,
    float64_ctor => Float64,
    bigint64_ctor => BigInt64,
    biguint64_ctor => BigUint64,
);

pub fn init(vm: &mut Vm) {
    let object_prototype = vm.intrinsics.object_prototype;
    let proto = vm
        .heap
        .new_object(Some(object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.typed_array_prototype = proto;
    let ctor = super::make_unbound_constructor(vm, "TypedArray", typed_array_constructor, 0, proto);
    vm.intrinsics.typed_array = ctor;
    vm.define_native(ctor, "from", from, 1);
    vm.define_native(ctor, "of", of, 0);
    super::define_species(vm, ctor);

    let getters: [(&str, NativeFn); 4] = [
        ("buffer", get_buffer),
        ("byteLength", get_byte_length),
        ("byteOffset", get_byte_offset),
        ("length", get_length),
    ];
    for (name, f) in getters {
        define_getter(vm, proto, name, f);
    }
    let tag = PropertyKey::Symbol(vm.symbols.to_string_tag);
    let display = vm.heap.intern_static("get [Symbol.toStringTag]");
    super::define_keyed_getter(vm, proto, tag, display, to_string_tag);
    let methods: [(&str, NativeFn, u32); 30] = [
        ("at", at, 1),
        ("copyWithin", copy_within, 2),
        ("entries", entries, 0),
        ("every", every, 1),
        ("fill", fill, 1),
        ("filter", filter, 1),
        ("find", find, 1),
        ("findIndex", find_index, 1),
        ("findLast", find_last, 1),
        ("findLastIndex", find_last_index, 1),
        ("forEach", for_each, 1),
        ("includes", includes, 1),
        ("indexOf", index_of, 1),
        ("join", join, 1),
        ("keys", keys, 0),
        ("lastIndexOf", last_index_of, 1),
        ("map", map, 1),
        ("reduce", reduce, 1),
        ("reduceRight", reduce_right, 1),
        ("reverse", reverse, 0),
        ("set", set, 1),
        ("slice", slice, 2),
        ("some", some, 1),
        ("sort", sort, 1),
        ("subarray", subarray, 2),
        ("toLocaleString", to_locale_string, 0),
        ("toReversed", to_reversed, 0),
        ("toSorted", to_sorted, 1),
        ("with", with, 2),
        ("values", values, 0),
    ];
    for (name, f, len) in methods {
        vm.define_native(proto, name, f, len);
    }
    let values_key = vm.key("values");
    if let Some(p) = vm.heap.own_property(proto, values_key) {
        vm.define_builtin(
            proto,
            PropertyKey::Symbol(vm.symbols.iterator),
            p.value,
            Attrs::HIDDEN,
        );
    }
    // %TypedArray%.prototype.toString is %Array.prototype.toString%.
    let to_string_key = PropertyKey::String(vm.atoms.to_string);
    let array_proto = vm.intrinsics.array_prototype;
    if let Some(p) = vm.heap.own_property(array_proto, to_string_key) {
        vm.define_builtin(proto, to_string_key, p.value, Attrs::HIDDEN);
    }

    let abstract_ctor = ctor;
    let abstract_proto = proto;
    let bytes_key = vm.key("BYTES_PER_ELEMENT");
    for t in ElementType::ALL {
        let proto = vm
            .heap
            .new_object(Some(abstract_proto), ObjectKind::Ordinary);
        let ctor = super::make_constructor(vm, t.name(), constructor_fn(t), 3, proto);
        vm.heap.set_proto_raw(ctor, Some(abstract_ctor));
        let size = Value::int(t.size() as i32);
        vm.define_builtin(ctor, bytes_key, size, Attrs::NONE);
        vm.define_builtin(proto, bytes_key, size, Attrs::NONE);
        t.set_intrinsics(&mut vm.intrinsics, ctor, proto);
    }
}

// ---- constructors ----

/// [%TypedArray%](https://tc39.es/ecma262/#sec-%typedarray%): always throws.
fn typed_array_constructor(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    Err(vm.type_error("Abstract class TypedArray not directly constructable"))
}

/// [TypedArray](https://tc39.es/ecma262/#sec-typedarray) for one element type.
fn construct(vm: &mut Vm, args: Args, t: ElementType) -> JsResult<Value> {
    // 1. If NewTarget is undefined, throw a TypeError exception.
    if args.new_target.is_undefined() {
        return Err(vm.type_error(format!("Constructor {} requires 'new'", t.name())));
    }
    let first = vm.arg(args, 0);
    let Some(source) = first.as_object() else {
        // 6.a. Let elementLength be ? ToIndex(firstArgument).
        let len = vm.to_index(first)?;
        let proto = vm.prototype_from_constructor(args.new_target, t.prototype_getter())?;
        return Ok(Value::object(allocate_with_length(vm, proto, t, len)?));
    };
    let proto = vm.prototype_from_constructor(args.new_target, t.prototype_getter())?;
    vm.roots.push(Value::object(proto));
    let o = match &vm.heap.object(source).kind {
        ObjectKind::TypedArray(src) => {
            let src = **src;
            from_typed_array(vm, proto, t, &src)?
        }
        ObjectKind::ArrayBuffer(_) => {
            let (offset, length) = (vm.arg(args, 1), vm.arg(args, 2));
            from_array_buffer(vm, proto, t, source, offset, length)?
        }
        _ => {
            let iter_key = PropertyKey::Symbol(vm.symbols.iterator);
            let using_iterator = vm.get_method(first, iter_key)?;
            let values = match using_iterator {
                Some(method) => Some(iterator_to_list(vm, first, method)?),
                None => None,
            };
            match values {
                Some(values) => {
                    let o = allocate_with_length(vm, proto, t, values.len() as f64)?;
                    vm.roots.push(Value::object(o));
                    for (k, v) in values.into_iter().enumerate() {
                        set_element(vm, o, k as f64, v)?;
                    }
                    o
                }
                None => {
                    // InitializeTypedArrayFromArrayLike
                    let len = vm.length_of_array_like(first)?;
                    let o = allocate_with_length(vm, proto, t, len)?;
                    vm.roots.push(Value::object(o));
                    let mut k = 0.0;
                    while k < len {
                        let key = index_key(vm, k);
                        let v = vm.get(first, key)?;
                        set_element(vm, o, k, v)?;
                        k += 1.0;
                    }
                    o
                }
            }
        }
    };
    Ok(Value::object(o))
}

/// IteratorToList(GetIteratorFromMethod(v, method)); the values stay on `vm.roots`.
fn iterator_to_list(vm: &mut Vm, v: Value, method: Value) -> JsResult<Vec<Value>> {
    let (iter, next) = vm.get_iterator_from_method(v, method)?;
    vm.roots.push(iter);
    vm.roots.push(next);
    let mut values = Vec::new();
    loop {
        let (value, done) = vm.iterator_step(iter, next)?;
        if done {
            return Ok(values);
        }
        vm.roots.push(value);
        values.push(value);
    }
}

/// The property key of index `k` (an array index or its string).
fn index_key(vm: &mut Vm, k: f64) -> PropertyKey {
    if k < 4294967295.0 {
        PropertyKey::Index(k as u32)
    } else {
        let s = number_to_string(k);
        vm.key(&s)
    }
}

/// [InitializeTypedArrayFromTypedArray](https://tc39.es/ecma262/#sec-initializetypedarrayfromtypedarray)
fn from_typed_array(
    vm: &mut Vm,
    proto: ObjectId,
    t: ElementType,
    src: &TypedArrayData,
) -> JsResult<ObjectId> {
    let Some(len) = length_of(vm, src) else {
        return Err(vm.type_error("Cannot construct from a detached or out-of-bounds typed array"));
    };
    if src.element.is_bigint() != t.is_bigint() {
        return Err(vm.type_error("Cannot mix BigInt and other types, use explicit conversions"));
    }
    let o = allocate_with_length(vm, proto, t, len as f64)?;
    let dst = ta_data(vm, o).expect("typed array");
    copy_elements(vm, src, 0, &dst, 0, len);
    Ok(o)
}

/// Copy `count` elements between typed arrays (both in bounds), converting types as
/// needed; an overlapping source is read before anything is written.
fn copy_elements(
    vm: &mut Vm,
    src: &TypedArrayData,
    src_index: usize,
    dst: &TypedArrayData,
    dst_index: usize,
    count: usize,
) {
    let (ss, ds) = (src.element.size(), dst.element.size());
    let from = src.byte_offset + src_index * ss;
    let bytes = array_buffer::data(vm, src.buffer).to_vec(from..from + count * ss);
    let to = dst.byte_offset + dst_index * ds;
    if src.element == dst.element {
        array_buffer::data_mut(vm, dst.buffer).write(to, &bytes);
        return;
    }
    array_buffer::data_mut(vm, dst.buffer).update(to..to + count * ds, |target| {
        for k in 0..count {
            let n = decode(src.element, &bytes[k * ss..], true);
            let n = match (n, dst.element.is_bigint()) {
                (Numeric::BigInt(b), true) => Numeric::BigInt(b),
                (Numeric::Number(x), false) => Numeric::Number(x),
                _ => unreachable!("content types were checked"),
            };
            let raw = encode(dst.element, n, true);
            target[k * ds..(k + 1) * ds].copy_from_slice(&raw[..ds]);
        }
    });
}

/// [InitializeTypedArrayFromArrayBuffer](https://tc39.es/ecma262/#sec-initializetypedarrayfromarraybuffer)
fn from_array_buffer(
    vm: &mut Vm,
    proto: ObjectId,
    t: ElementType,
    buffer: ObjectId,
    byte_offset: Value,
    length: Value,
) -> JsResult<ObjectId> {
    let size = t.size() as f64;
    // 2. Let offset be ? ToIndex(byteOffset).
    let offset = vm.to_index(byte_offset)?;
    // 3. If offset modulo elementSize ≠ 0, throw a RangeError exception.
    if offset % size != 0.0 {
        return Err(vm.range_error(format!(
            "start offset of {} should be a multiple of {}",
            t.name(),
            size
        )));
    }
    let fixed = array_buffer::is_fixed_length(vm, buffer);
    // 5. If length is not undefined, let newLength be ? ToIndex(length).
    let new_length = if length.is_undefined() {
        None
    } else {
        Some(vm.to_index(length)?)
    };
    // 6. If IsDetachedBuffer(buffer) is true, throw a TypeError exception.
    if array_buffer::is_detached(vm, buffer) {
        return Err(vm.type_error("Cannot construct a typed array on a detached ArrayBuffer"));
    }
    let buffer_len = array_buffer::byte_length_of(vm, buffer) as f64;
    let length = match new_length {
        None if !fixed => {
            if offset > buffer_len {
                return Err(vm.range_error(format!(
                    "Start offset {offset} is outside the bounds of the buffer"
                )));
            }
            None
        }
        None => {
            if buffer_len % size != 0.0 {
                return Err(vm.range_error(format!(
                    "byte length of {} should be a multiple of {}",
                    t.name(),
                    size
                )));
            }
            let new_byte_length = buffer_len - offset;
            if new_byte_length < 0.0 {
                return Err(vm.range_error(format!(
                    "Start offset {offset} is outside the bounds of the buffer"
                )));
            }
            Some((new_byte_length / size) as usize)
        }
        Some(n) => {
            if offset + n * size > buffer_len {
                return Err(vm.range_error(format!("Invalid typed array length: {n}")));
            }
            Some(n as usize)
        }
    };
    Ok(new_typed_array(
        vm,
        proto,
        TypedArrayData {
            element: t,
            buffer,
            byte_offset: offset as usize,
            length,
        },
    ))
}

/// [%TypedArray%.from](https://tc39.es/ecma262/#sec-%typedarray%.from)
fn from(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let (source, mapfn, this_arg) = (vm.arg(args, 0), vm.arg(args, 1), vm.arg(args, 2));
    if !vm.is_constructor(this) {
        return Err(vm.type_error("TypedArray.from: this is not a constructor"));
    }
    let mapping = !mapfn.is_undefined();
    if mapping && !vm.is_callable(mapfn) {
        return Err(vm.type_error("TypedArray.from: mapper is not a function"));
    }
    let iter_key = PropertyKey::Symbol(vm.symbols.iterator);
    let using_iterator = vm.get_method(source, iter_key)?;
    if let Some(method) = using_iterator {
        let values = iterator_to_list(vm, source, method)?;
        let len = values.len();
        let target = create_from_constructor(vm, this, &[Value::number(len as f64)])?;
        for (k, v) in values.into_iter().enumerate() {
            let mapped = if mapping {
                vm.call(mapfn, this_arg, &[v, Value::number(k as f64)])?
            } else {
                v
            };
            typed_set(vm, target, k as f64, mapped)?;
        }
        return Ok(Value::object(target));
    }
    let array_like = vm.to_object(source)?;
    vm.roots.push(Value::object(array_like));
    let len = vm.length_of_array_like(Value::object(array_like))?;
    let target = create_from_constructor(vm, this, &[Value::number(len)])?;
    let mut k = 0.0;
    while k < len {
        let key = index_key(vm, k);
        let v = vm.get(Value::object(array_like), key)?;
        let mapped = if mapping {
            vm.call(mapfn, this_arg, &[v, Value::number(k)])?
        } else {
            v
        };
        typed_set(vm, target, k, mapped)?;
        k += 1.0;
    }
    Ok(Value::object(target))
}

/// Set(O, k, v, true) on an object that was validated as a typed array when created (a
/// constructor may have returned a proxy-free typed array only, so this is its [[Set]]).
fn typed_set(vm: &mut Vm, o: ObjectId, k: f64, v: Value) -> JsResult<()> {
    let key = index_key(vm, k);
    if !vm.set(Value::object(o), key, v, Value::object(o))? {
        return Err(vm.type_error("Cannot assign to read only property of typed array"));
    }
    Ok(())
}

/// [%TypedArray%.of](https://tc39.es/ecma262/#sec-%typedarray%.of)
fn of(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let items = vm.arg_vec(args);
    if !vm.is_constructor(this) {
        return Err(vm.type_error("TypedArray.of: this is not a constructor"));
    }
    let target = create_from_constructor(vm, this, &[Value::number(items.len() as f64)])?;
    for (k, v) in items.into_iter().enumerate() {
        typed_set(vm, target, k as f64, v)?;
    }
    Ok(Value::object(target))
}

// ---- accessors ----

fn this_typed_array(vm: &mut Vm, this: Value, method: &str) -> JsResult<TypedArrayData> {
    match this.as_object().and_then(|o| ta_data(vm, o)) {
        Some(t) => Ok(t),
        None => Err(vm.type_error(format!("{method} called on incompatible receiver"))),
    }
}

/// [get %TypedArray%.prototype.buffer](https://tc39.es/ecma262/#sec-get-%typedarray%.prototype.buffer)
fn get_buffer(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let t = this_typed_array(vm, this, "get TypedArray.prototype.buffer")?;
    Ok(Value::object(t.buffer))
}

/// [get %TypedArray%.prototype.byteLength](https://tc39.es/ecma262/#sec-get-%typedarray%.prototype.bytelength)
fn get_byte_length(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let t = this_typed_array(vm, this, "get TypedArray.prototype.byteLength")?;
    let len = length_of(vm, &t).unwrap_or(0);
    Ok(Value::number((len * t.element.size()) as f64))
}

/// [get %TypedArray%.prototype.byteOffset](https://tc39.es/ecma262/#sec-get-%typedarray%.prototype.byteoffset)
fn get_byte_offset(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let t = this_typed_array(vm, this, "get TypedArray.prototype.byteOffset")?;
    let offset = length_of(vm, &t).map_or(0, |_| t.byte_offset);
    Ok(Value::number(offset as f64))
}

/// [get %TypedArray%.prototype.length](https://tc39.es/ecma262/#sec-get-%typedarray%.prototype.length)
fn get_length(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let t = this_typed_array(vm, this, "get TypedArray.prototype.length")?;
    Ok(Value::number(length_of(vm, &t).unwrap_or(0) as f64))
}

/// [get %TypedArray%.prototype[%Symbol.toStringTag%]](https://tc39.es/ecma262/#sec-get-%typedarray%.prototype-%symbol.tostringtag%)
fn to_string_tag(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    match this.as_object().and_then(|o| ta_data(vm, o)) {
        Some(t) => Ok(vm.intern_value(t.element.name())),
        None => Ok(Value::UNDEFINED),
    }
}

// ---- prototype methods ----

/// [%TypedArray%.prototype.at](https://tc39.es/ecma262/#sec-%typedarray%.prototype.at)
fn at(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let (o, _, len) = validate(vm, this, "TypedArray.prototype.at")?;
    let r = vm.to_integer(vm.arg(args, 0))?;
    let k = if r >= 0.0 { r } else { len as f64 + r };
    if k < 0.0 || k >= len as f64 {
        return Ok(Value::UNDEFINED);
    }
    Ok(get_element(vm, o, k))
}

/// [%TypedArray%.prototype.copyWithin](https://tc39.es/ecma262/#sec-%typedarray%.prototype.copywithin)
fn copy_within(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let (o, _, len) = validate(vm, this, "TypedArray.prototype.copyWithin")?;
    let len = len as f64;
    let to = relative_index(vm, vm.arg(args, 0), len)?;
    let from = relative_index(vm, vm.arg(args, 1), len)?;
    let fin = relative_end(vm, vm.arg(args, 2), len)?;
    let count = (fin - from).min(len - to);
    if count > 0.0 {
        let (_, t, len) = validate(vm, this, "TypedArray.prototype.copyWithin")?;
        let size = t.element.size();
        let limit = len * size + t.byte_offset;
        let to_byte = to as usize * size + t.byte_offset;
        let from_byte = from as usize * size + t.byte_offset;
        let count_bytes = count as usize * size;
        // A shrink during argument coercion truncates the copy to what is still in bounds.
        let n = count_bytes
            .min(limit.saturating_sub(from_byte))
            .min(limit.saturating_sub(to_byte));
        let low = from_byte.min(to_byte);
        array_buffer::data_mut(vm, t.buffer).update(low..from_byte.max(to_byte) + n, |b| {
            b.copy_within(from_byte - low..from_byte - low + n, to_byte - low)
        });
    }
    Ok(Value::object(o))
}

fn iterator(vm: &mut Vm, this: Value, kind: IterationKind, name: &str) -> JsResult<Value> {
    validate(vm, this, name)?;
    Ok(vm.new_array_iterator(this, kind))
}

/// [%TypedArray%.prototype.entries](https://tc39.es/ecma262/#sec-%typedarray%.prototype.entries)
fn entries(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    iterator(
        vm,
        this,
        IterationKind::Entries,
        "TypedArray.prototype.entries",
    )
}

/// [%TypedArray%.prototype.keys](https://tc39.es/ecma262/#sec-%typedarray%.prototype.keys)
fn keys(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    iterator(vm, this, IterationKind::Keys, "TypedArray.prototype.keys")
}

/// [%TypedArray%.prototype.values](https://tc39.es/ecma262/#sec-%typedarray%.prototype.values)
fn values(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    iterator(
        vm,
        this,
        IterationKind::Values,
        "TypedArray.prototype.values",
    )
}

/// What a callback loop does with each answer.
#[derive(Clone, Copy, PartialEq)]
enum Visit {
    Every,
    Some,
    Find,
    FindIndex,
    FindLast,
    FindLastIndex,
    ForEach,
}

/// every, some, find, findIndex, findLast, findLastIndex and forEach.
fn visit(vm: &mut Vm, this: Value, args: Args, how: Visit, name: &str) -> JsResult<Value> {
    let (o, _, len) = validate(vm, this, name)?;
    let f = callable(vm, vm.arg(args, 0))?;
    let this_arg = vm.arg(args, 1);
    let backwards = matches!(how, Visit::FindLast | Visit::FindLastIndex);
    for j in 0..len {
        let k = if backwards { len - 1 - j } else { j };
        let v = get_element(vm, o, k as f64);
        vm.roots.push(v);
        let kv = Value::number(k as f64);
        let r = vm.call(f, this_arg, &[v, kv, this])?;
        let truthy = vm.to_boolean(r);
        match how {
            Visit::Every if !truthy => return Ok(Value::FALSE),
            Visit::Some if truthy => return Ok(Value::TRUE),
            Visit::Find | Visit::FindLast if truthy => return Ok(v),
            Visit::FindIndex | Visit::FindLastIndex if truthy => return Ok(kv),
            _ => {}
        }
    }
    Ok(match how {
        Visit::Every => Value::TRUE,
        Visit::Some => Value::FALSE,
        Visit::FindIndex | Visit::FindLastIndex => Value::int(-1),
        Visit::Find | Visit::FindLast | Visit::ForEach => Value::UNDEFINED,
    })
}

/// [%TypedArray%.prototype.every](https://tc39.es/ecma262/#sec-%typedarray%.prototype.every)
fn every(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    visit(vm, this, args, Visit::Every, "TypedArray.prototype.every")
}
/// [%TypedArray%.prototype.some](https://tc39.es/ecma262/#sec-%typedarray%.prototype.some)
fn some(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    visit(vm, this, args, Visit::Some, "TypedArray.prototype.some")
}
/// [%TypedArray%.prototype.find](https://tc39.es/ecma262/#sec-%typedarray%.prototype.find)
fn find(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    visit(vm, this, args, Visit::Find, "TypedArray.prototype.find")
}
/// [%TypedArray%.prototype.findIndex](https://tc39.es/ecma262/#sec-%typedarray%.prototype.findindex)
fn find_index(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    visit(
        vm,
        this,
        args,
        Visit::FindIndex,
        "TypedArray.prototype.findIndex",
    )
}
/// [%TypedArray%.prototype.findLast](https://tc39.es/ecma262/#sec-%typedarray%.prototype.findlast)
fn find_last(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    visit(
        vm,
        this,
        args,
        Visit::FindLast,
        "TypedArray.prototype.findLast",
    )
}
/// [%TypedArray%.prototype.findLastIndex](https://tc39.es/ecma262/#sec-%typedarray%.prototype.findlastindex)
fn find_last_index(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    visit(
        vm,
        this,
        args,
        Visit::FindLastIndex,
        "TypedArray.prototype.findLastIndex",
    )
}
/// [%TypedArray%.prototype.forEach](https://tc39.es/ecma262/#sec-%typedarray%.prototype.foreach)
fn for_each(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    visit(
        vm,
        this,
        args,
        Visit::ForEach,
        "TypedArray.prototype.forEach",
    )
}

/// [%TypedArray%.prototype.fill](https://tc39.es/ecma262/#sec-%typedarray%.prototype.fill)
fn fill(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let (o, t, len) = validate(vm, this, "TypedArray.prototype.fill")?;
    let n = to_numeric_for(vm, t.element, vm.arg(args, 0))?;
    let len = len as f64;
    let start = relative_index(vm, vm.arg(args, 1), len)?;
    let end = relative_end(vm, vm.arg(args, 2), len)?;
    let (_, t, len) = validate(vm, this, "TypedArray.prototype.fill")?;
    let end = end.min(len as f64);
    let mut k = start;
    while k < end {
        write(vm, &t, k as usize, n);
        k += 1.0;
    }
    Ok(Value::object(o))
}

/// [%TypedArray%.prototype.filter](https://tc39.es/ecma262/#sec-%typedarray%.prototype.filter)
fn filter(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let (o, _, len) = validate(vm, this, "TypedArray.prototype.filter")?;
    let f = callable(vm, vm.arg(args, 0))?;
    let this_arg = vm.arg(args, 1);
    let mut kept = Vec::new();
    for k in 0..len {
        let v = get_element(vm, o, k as f64);
        vm.roots.push(v);
        let r = vm.call(f, this_arg, &[v, Value::number(k as f64), this])?;
        if vm.to_boolean(r) {
            kept.push(v);
        }
    }
    let a = species_create(vm, o, &[Value::number(kept.len() as f64)])?;
    for (n, v) in kept.into_iter().enumerate() {
        typed_set(vm, a, n as f64, v)?;
    }
    Ok(Value::object(a))
}

/// includes, indexOf and lastIndexOf.
fn search(vm: &mut Vm, this: Value, args: Args, which: u8, name: &str) -> JsResult<Value> {
    const INCLUDES: u8 = 0;
    const LAST: u8 = 2;
    let (o, _, len) = validate(vm, this, name)?;
    let not_found = if which == INCLUDES {
        Value::FALSE
    } else {
        Value::int(-1)
    };
    if len == 0 {
        return Ok(not_found);
    }
    let target = vm.arg(args, 0);
    let len = len as f64;
    if which == LAST {
        let n = if args.count > 1 {
            vm.to_integer(vm.arg(args, 1))?
        } else {
            len - 1.0
        };
        if n == f64::NEG_INFINITY {
            return Ok(not_found);
        }
        let mut k = if n >= 0.0 { n.min(len - 1.0) } else { len + n };
        while k >= 0.0 {
            if is_valid_index(vm, o, k) {
                let v = get_element(vm, o, k);
                if vm.strict_equals(v, target) {
                    return Ok(Value::number(k));
                }
            }
            k -= 1.0;
        }
        return Ok(not_found);
    }
    let n = vm.to_integer(vm.arg(args, 1))?;
    if n == f64::INFINITY {
        return Ok(not_found);
    }
    let mut k = if n >= 0.0 { n } else { (len + n).max(0.0) };
    while k < len {
        if which == INCLUDES {
            let v = get_element(vm, o, k);
            if vm.same_value_zero(v, target) {
                return Ok(Value::TRUE);
            }
        } else if is_valid_index(vm, o, k) {
            let v = get_element(vm, o, k);
            if vm.strict_equals(v, target) {
                return Ok(Value::number(k));
            }
        }
        k += 1.0;
    }
    Ok(not_found)
}

/// [%TypedArray%.prototype.includes](https://tc39.es/ecma262/#sec-%typedarray%.prototype.includes)
fn includes(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    search(vm, this, args, 0, "TypedArray.prototype.includes")
}
/// [%TypedArray%.prototype.indexOf](https://tc39.es/ecma262/#sec-%typedarray%.prototype.indexof)
fn index_of(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    search(vm, this, args, 1, "TypedArray.prototype.indexOf")
}
/// [%TypedArray%.prototype.lastIndexOf](https://tc39.es/ecma262/#sec-%typedarray%.prototype.lastindexof)
fn last_index_of(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    search(vm, this, args, 2, "TypedArray.prototype.lastIndexOf")
}

/// Append the code units of string `s` to `out`.
fn push_string(vm: &mut Vm, out: &mut Vec<u16>, s: StringId) -> JsResult<()> {
    if out.len() + vm.heap.string_len(s) as usize > crate::MAX_STRING_LENGTH as usize {
        return Err(vm.range_error("Invalid string length"));
    }
    out.extend(vm.heap.units(s).iter());
    Ok(())
}

/// [%TypedArray%.prototype.join](https://tc39.es/ecma262/#sec-%typedarray%.prototype.join)
fn join(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let (o, _, len) = validate(vm, this, "TypedArray.prototype.join")?;
    let sep = vm.arg(args, 0);
    let sep = if sep.is_undefined() {
        vm.heap.intern(",")
    } else {
        vm.to_string(sep)?
    };
    vm.roots.push(Value::string(sep));
    let mut out: Vec<u16> = Vec::new();
    for k in 0..len {
        if k > 0 {
            push_string(vm, &mut out, sep)?;
        }
        let v = get_element(vm, o, k as f64);
        if !v.is_undefined() {
            let s = vm.to_string(v)?;
            push_string(vm, &mut out, s)?;
        }
    }
    Ok(Value::string(vm.heap.alloc_units(&out)))
}

/// [%TypedArray%.prototype.toLocaleString](https://tc39.es/ecma262/#sec-%typedarray%.prototype.tolocalestring)
fn to_locale_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let (o, _, len) = validate(vm, this, "TypedArray.prototype.toLocaleString")?;
    let key = vm.key("toLocaleString");
    let mut out: Vec<u16> = Vec::new();
    for k in 0..len {
        if k > 0 {
            out.push(b',' as u16);
        }
        let v = get_element(vm, o, k as f64);
        if !v.is_nullish() {
            vm.roots.push(v);
            let f = vm.get(v, key)?;
            let r = vm.call(f, v, &[])?;
            let s = vm.to_string(r)?;
            push_string(vm, &mut out, s)?;
        }
    }
    Ok(Value::string(vm.heap.alloc_units(&out)))
}

/// [%TypedArray%.prototype.map](https://tc39.es/ecma262/#sec-%typedarray%.prototype.map)
fn map(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let (o, _, len) = validate(vm, this, "TypedArray.prototype.map")?;
    let f = callable(vm, vm.arg(args, 0))?;
    let this_arg = vm.arg(args, 1);
    let a = species_create(vm, o, &[Value::number(len as f64)])?;
    for k in 0..len {
        let v = get_element(vm, o, k as f64);
        let mapped = vm.call(f, this_arg, &[v, Value::number(k as f64), this])?;
        typed_set(vm, a, k as f64, mapped)?;
    }
    Ok(Value::object(a))
}

fn reduce_impl(vm: &mut Vm, this: Value, args: Args, right: bool, name: &str) -> JsResult<Value> {
    let (o, _, len) = validate(vm, this, name)?;
    let f = callable(vm, vm.arg(args, 0))?;
    let mut order: Box<dyn Iterator<Item = usize>> = if right {
        Box::new((0..len).rev())
    } else {
        Box::new(0..len)
    };
    let mut acc = if args.count > 1 {
        vm.arg(args, 1)
    } else {
        match order.next() {
            Some(k) => get_element(vm, o, k as f64),
            None => return Err(vm.type_error("Reduce of empty array with no initial value")),
        }
    };
    for k in order {
        vm.roots.push(acc);
        let v = get_element(vm, o, k as f64);
        acc = vm.call(
            f,
            Value::UNDEFINED,
            &[acc, v, Value::number(k as f64), this],
        )?;
    }
    Ok(acc)
}

/// [%TypedArray%.prototype.reduce](https://tc39.es/ecma262/#sec-%typedarray%.prototype.reduce)
fn reduce(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    reduce_impl(vm, this, args, false, "TypedArray.prototype.reduce")
}
/// [%TypedArray%.prototype.reduceRight](https://tc39.es/ecma262/#sec-%typedarray%.prototype.reduceright)
fn reduce_right(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    reduce_impl(vm, this, args, true, "TypedArray.prototype.reduceRight")
}

/// [%TypedArray%.prototype.reverse](https://tc39.es/ecma262/#sec-%typedarray%.prototype.reverse)
fn reverse(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let (o, t, len) = validate(vm, this, "TypedArray.prototype.reverse")?;
    let size = t.element.size();
    let range = t.byte_offset..t.byte_offset + len * size;
    array_buffer::data_mut(vm, t.buffer).update(range, |bytes| {
        for (lo, hi) in (0..len / 2).map(|k| (k, len - 1 - k)) {
            for b in 0..size {
                bytes.swap(lo * size + b, hi * size + b);
            }
        }
    });
    Ok(Value::object(o))
}

/// [%TypedArray%.prototype.set](https://tc39.es/ecma262/#sec-%typedarray%.prototype.set)
fn set(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let target = this_typed_array(vm, this, "TypedArray.prototype.set")?;
    let target_obj = this.as_object().expect("typed array");
    let source = vm.arg(args, 0);
    // 4. Let targetOffset be ? ToIntegerOrInfinity(offset).
    let offset = vm.to_integer(vm.arg(args, 1))?;
    if offset < 0.0 {
        return Err(vm.range_error("offset is out of bounds"));
    }
    let src_ta = source.as_object().and_then(|s| ta_data(vm, s));
    let Some(target_len) = length_of(vm, &target) else {
        return Err(
            vm.type_error("TypedArray.prototype.set: the typed array is detached or out of bounds")
        );
    };
    if let Some(src) = src_ta {
        // SetTypedArrayFromTypedArray
        let Some(src_len) = length_of(vm, &src) else {
            return Err(
                vm.type_error("TypedArray.prototype.set: the source is detached or out of bounds")
            );
        };
        if offset == f64::INFINITY || src_len as f64 + offset > target_len as f64 {
            return Err(vm.range_error("offset is out of bounds"));
        }
        if src.element.is_bigint() != target.element.is_bigint() {
            return Err(
                vm.type_error("Cannot mix BigInt and other types, use explicit conversions")
            );
        }
        copy_elements(vm, &src, 0, &target, offset as usize, src_len);
        return Ok(Value::UNDEFINED);
    }
    // SetTypedArrayFromArrayLike
    let src = vm.to_object(source)?;
    vm.roots.push(Value::object(src));
    let src_len = vm.length_of_array_like(Value::object(src))?;
    if offset == f64::INFINITY || src_len + offset > target_len as f64 {
        return Err(vm.range_error("offset is out of bounds"));
    }
    let mut k = 0.0;
    while k < src_len {
        let key = index_key(vm, k);
        let v = vm.get(Value::object(src), key)?;
        set_element(vm, target_obj, offset + k, v)?;
        k += 1.0;
    }
    Ok(Value::UNDEFINED)
}

/// [%TypedArray%.prototype.slice](https://tc39.es/ecma262/#sec-%typedarray%.prototype.slice)
fn slice(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let (o, _, len) = validate(vm, this, "TypedArray.prototype.slice")?;
    let len = len as f64;
    let start = relative_index(vm, vm.arg(args, 0), len)?;
    let end = relative_end(vm, vm.arg(args, 1), len)?;
    let count = (end - start).max(0.0);
    let a = species_create(vm, o, &[Value::number(count)])?;
    if count > 0.0 {
        let (_, t, len) = validate(vm, this, "TypedArray.prototype.slice")?;
        let end = end.min(len as f64);
        let count = (end - start).max(0.0) as usize;
        let at = ta_data(vm, a).expect("typed array");
        if count == 0 {
        } else if at.element == t.element {
            // Byte by byte, forwards: a result sharing the source buffer sees earlier writes.
            let size = t.element.size();
            let from = t.byte_offset + start as usize * size;
            let to = at.byte_offset;
            let n = count * size;
            if at.buffer == t.buffer {
                let b = array_buffer::data_mut(vm, t.buffer);
                let n = n.min(b.len().saturating_sub(to.max(from)));
                let low = from.min(to);
                b.update(low..from.max(to) + n, |bytes| {
                    for k in 0..n {
                        bytes[to - low + k] = bytes[from - low + k];
                    }
                });
            } else {
                let chunk = array_buffer::data(vm, t.buffer).to_vec(from..from + n);
                let dst = array_buffer::data_mut(vm, at.buffer);
                let n = n.min(dst.len().saturating_sub(to));
                dst.write(to, &chunk[..n]);
            }
        } else {
            let mut k = start as usize;
            let mut n = 0.0;
            while k < end as usize {
                let v = get_element(vm, o, k as f64);
                typed_set(vm, a, n, v)?;
                k += 1;
                n += 1.0;
            }
        }
    }
    Ok(Value::object(a))
}

/// The sorted elements of a typed array: numeric order (or the comparator's), stable.
fn sorted_values(vm: &mut Vm, o: ObjectId, len: usize, comparator: Value) -> JsResult<Vec<Value>> {
    let mut items: Vec<Value> = (0..len).map(|k| get_element(vm, o, k as f64)).collect();
    vm.roots.extend_from_slice(&items);
    if comparator.is_undefined() {
        let heap = &vm.heap;
        items.sort_by(|&x, &y| compare_numeric(heap, x, y));
        return Ok(items);
    }
    super::array::merge_sort(vm, &mut items, &mut |vm, x, y| {
        let r = vm.call(comparator, Value::UNDEFINED, &[x, y])?;
        let n = vm.to_number(r)?;
        Ok(n > 0.0)
    })?;
    Ok(items)
}

/// The default TypedArray comparison: numeric, -0 before +0, NaN last.
fn compare_numeric(heap: &Heap, x: Value, y: Value) -> Ordering {
    if let (Some(a), Some(b)) = (x.as_bigint(), y.as_bigint()) {
        return heap.bigint(a).cmp(heap.bigint(b));
    }
    let (a, b) = (x.as_number().unwrap_or(0.0), y.as_number().unwrap_or(0.0));
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a
            .partial_cmp(&b)
            .unwrap_or(Ordering::Equal)
            .then_with(|| b.is_sign_negative().cmp(&a.is_sign_negative())),
    }
}

fn comparator_arg(vm: &mut Vm, v: Value) -> JsResult<Value> {
    if !v.is_undefined() && !vm.is_callable(v) {
        return Err(vm.type_error("The comparison function must be either a function or undefined"));
    }
    Ok(v)
}

/// [%TypedArray%.prototype.sort](https://tc39.es/ecma262/#sec-%typedarray%.prototype.sort)
fn sort(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let comparator = comparator_arg(vm, vm.arg(args, 0))?;
    let (o, _, len) = validate(vm, this, "TypedArray.prototype.sort")?;
    let sorted = sorted_values(vm, o, len, comparator)?;
    for (k, v) in sorted.into_iter().enumerate() {
        set_element(vm, o, k as f64, v)?;
    }
    Ok(Value::object(o))
}

/// [%TypedArray%.prototype.toSorted](https://tc39.es/ecma262/#sec-%typedarray%.prototype.tosorted)
fn to_sorted(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let comparator = comparator_arg(vm, vm.arg(args, 0))?;
    let (o, t, len) = validate(vm, this, "TypedArray.prototype.toSorted")?;
    let a = create_same_type(vm, t.element, len)?;
    let sorted = sorted_values(vm, o, len, comparator)?;
    for (k, v) in sorted.into_iter().enumerate() {
        set_element(vm, a, k as f64, v)?;
    }
    Ok(Value::object(a))
}

/// [%TypedArray%.prototype.toReversed](https://tc39.es/ecma262/#sec-%typedarray%.prototype.toreversed)
fn to_reversed(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let (o, t, len) = validate(vm, this, "TypedArray.prototype.toReversed")?;
    let a = create_same_type(vm, t.element, len)?;
    let at = ta_data(vm, a).expect("typed array");
    for k in 0..len {
        let n = read(vm, &t, len - 1 - k);
        write(vm, &at, k, n);
    }
    let _ = o;
    Ok(Value::object(a))
}

/// [%TypedArray%.prototype.with](https://tc39.es/ecma262/#sec-%typedarray%.prototype.with)
fn with(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let (o, t, len) = validate(vm, this, "TypedArray.prototype.with")?;
    let r = vm.to_integer(vm.arg(args, 0))?;
    let index = if r >= 0.0 { r } else { len as f64 + r };
    let n = to_numeric_for(vm, t.element, vm.arg(args, 1))?;
    if !is_valid_index(vm, o, index) {
        return Err(vm.range_error("Invalid typed array index"));
    }
    let a = create_same_type(vm, t.element, len)?;
    let at = ta_data(vm, a).expect("typed array");
    for k in 0..len {
        let v = if k as f64 == index {
            n
        } else {
            match ta_data(vm, o).and_then(|t| valid_index(vm, &t, k as f64).map(|i| (t, i))) {
                Some((t, i)) => read(vm, &t, i),
                None => {
                    if t.element.is_bigint() {
                        // Get returns undefined, and Set(A, k, undefined) throws in ToBigInt.
                        return Err(vm.type_error("Cannot convert undefined to a BigInt"));
                    }
                    Numeric::Number(f64::NAN)
                }
            }
        };
        write(vm, &at, k, v);
    }
    Ok(Value::object(a))
}

/// [%TypedArray%.prototype.subarray](https://tc39.es/ecma262/#sec-%typedarray%.prototype.subarray)
fn subarray(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let t = this_typed_array(vm, this, "TypedArray.prototype.subarray")?;
    let o = this.as_object().expect("typed array");
    let src_len = length_of(vm, &t).unwrap_or(0) as f64;
    let start = relative_index(vm, vm.arg(args, 0), src_len)?;
    let end_arg = vm.arg(args, 1);
    let size = t.element.size() as f64;
    let begin_byte_offset = t.byte_offset as f64 + start * size;
    let buffer = Value::object(t.buffer);
    let args: Vec<Value> = if t.length.is_none() && end_arg.is_undefined() {
        vec![buffer, Value::number(begin_byte_offset)]
    } else {
        let end = relative_end(vm, end_arg, src_len)?;
        let new_len = (end - start).max(0.0);
        vec![
            buffer,
            Value::number(begin_byte_offset),
            Value::number(new_len),
        ]
    };
    Ok(Value::object(species_create(vm, o, &args)?))
}
