//! The Atomics namespace. Kiln runs one agent per runtime and that agent
//! cannot block (a CanBlockIsFalse host), so every operation is a plain
//! read-modify-write on the buffer, `Atomics.wait` throws a TypeError once its
//! arguments are validated, and `Atomics.notify` finds no waiters.

use super::array_buffer::{self, Bytes};
use super::typed_array::{
    ElementType, Numeric, TypedArrayData, decode, encode, length_of, numeric_value, ta_data,
};
use super::{define_to_string_tag, new_plain_object};
use crate::JsResult;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, NativeFn};
use crate::value::Value;

pub fn init(vm: &mut Vm) {
    let atomics = new_plain_object(vm);
    let methods: [(&str, NativeFn, u32); 14] = [
        ("add", add, 3),
        ("and", and, 3),
        ("compareExchange", compare_exchange, 4),
        ("exchange", exchange, 3),
        ("isLockFree", is_lock_free, 1),
        ("load", load, 2),
        ("or", or, 3),
        ("store", store, 3),
        ("sub", sub, 3),
        ("wait", wait, 4),
        ("waitAsync", wait_async, 4),
        ("notify", notify, 3),
        ("xor", xor, 3),
        ("pause", pause, 0),
    ];
    for (name, f, len) in methods {
        vm.define_native(atomics, name, f, len);
    }
    define_to_string_tag(vm, atomics, "Atomics");
    let key = vm.key("Atomics");
    let global = vm.intrinsics.global;
    vm.define_builtin(global, key, Value::object(atomics), Attrs::HIDDEN);
}

/// [ValidateIntegerTypedArray](https://tc39.es/ecma262/#sec-validateintegertypedarray)
fn validate_integer_typed_array(vm: &mut Vm, v: Value, waitable: bool) -> JsResult<TypedArrayData> {
    let Some(t) = v.as_object().and_then(|o| ta_data(vm, o)) else {
        return Err(vm.type_error("Atomics operation on a value that is not a typed array"));
    };
    if length_of(vm, &t).is_none() {
        return Err(vm.type_error("Atomics operation on a detached or out-of-bounds typed array"));
    }
    use ElementType::*;
    let ok = if waitable {
        matches!(t.element, Int32 | BigInt64)
    } else {
        !matches!(t.element, Float16 | Float32 | Float64 | Uint8Clamped)
    };
    if !ok {
        return Err(vm.type_error(format!(
            "Atomics operation not allowed on {}",
            t.element.name()
        )));
    }
    Ok(t)
}

/// [ValidateAtomicAccess](https://tc39.es/ecma262/#sec-validateatomicaccess): the byte
/// index in the buffer.
fn validate_atomic_access(vm: &mut Vm, t: &TypedArrayData, index: Value) -> JsResult<usize> {
    let len = length_of(vm, t).unwrap_or(0);
    let i = vm.to_index(index)?;
    if i >= len as f64 {
        return Err(vm.range_error("Atomics access index out of range"));
    }
    Ok(i as usize * t.element.size() + t.byte_offset)
}

/// [RevalidateAtomicAccess](https://tc39.es/ecma262/#sec-revalidateatomicaccess)
fn revalidate(vm: &mut Vm, typed_array: Value, byte_index: usize) -> JsResult<TypedArrayData> {
    let t = typed_array
        .as_object()
        .and_then(|o| ta_data(vm, o))
        .expect("validated typed array");
    if length_of(vm, &t).is_none() {
        return Err(vm.type_error("Atomics operation on a detached or out-of-bounds typed array"));
    }
    if byte_index >= array_buffer::byte_length_of(vm, t.buffer) {
        return Err(vm.range_error("Atomics access index out of range"));
    }
    Ok(t)
}

/// The value to store: ToBigInt, or ToIntegerOrInfinity for Number types.
fn to_value(vm: &mut Vm, t: ElementType, v: Value) -> JsResult<Numeric> {
    if t.is_bigint() {
        let b = super::bigint::to_bigint(vm, v)?;
        Ok(Numeric::BigInt(super::typed_array::bigint_low_bits(vm, b)))
    } else {
        Ok(Numeric::Number(vm.to_integer(v)?))
    }
}

/// The element of `t` at byte `at` (in bounds), read atomically: a shared block's element
/// is read inside the block's critical section. Returns its raw little-endian bits, and
/// writes `change(old)` back when that is Some.
fn atomic_update(
    vm: &mut Vm,
    t: &TypedArrayData,
    at: usize,
    change: impl FnOnce(u64) -> Option<u64>,
) -> u64 {
    let size = t.element.size();
    let mut raw = [0u8; 8];
    match &mut array_buffer::data_mut(vm, t.buffer).bytes {
        Bytes::Local(bytes) => {
            raw[..size].copy_from_slice(&bytes[at..at + size]);
            let old = u64::from_le_bytes(raw);
            if let Some(new) = change(old) {
                bytes[at..at + size].copy_from_slice(&new.to_le_bytes()[..size]);
            }
            old
        }
        Bytes::Shared(block) => {
            let _critical = block.enter();
            block.read(at, &mut raw[..size]);
            let old = u64::from_le_bytes(raw);
            if let Some(new) = change(old) {
                block.write(at, &new.to_le_bytes()[..size]);
            }
            old
        }
    }
}

fn read_raw(vm: &mut Vm, t: &TypedArrayData, at: usize) -> u64 {
    atomic_update(vm, t, at, |_| None)
}

fn write_raw(vm: &mut Vm, t: &TypedArrayData, at: usize, raw: u64) {
    atomic_update(vm, t, at, |_| Some(raw));
}

/// The little-endian bit pattern of `n` stored as `t`.
fn raw_of(t: ElementType, n: Numeric) -> u64 {
    u64::from_le_bytes(encode(t, n, true))
}

fn value_of_raw(vm: &mut Vm, t: ElementType, raw: u64) -> Value {
    let n = decode(t, &raw.to_le_bytes(), true);
    numeric_value(vm, t, n)
}

/// [AtomicReadModifyWrite](https://tc39.es/ecma262/#sec-atomicreadmodifywrite): returns the
/// old value.
fn read_modify_write(vm: &mut Vm, args: Args, op: fn(u64, u64) -> u64) -> JsResult<Value> {
    let ta = vm.arg(args, 0);
    let t = validate_integer_typed_array(vm, ta, false)?;
    let at = validate_atomic_access(vm, &t, vm.arg(args, 1))?;
    let v = to_value(vm, t.element, vm.arg(args, 2))?;
    let t = revalidate(vm, ta, at)?;
    let operand = raw_of(t.element, v);
    let old = atomic_update(vm, &t, at, |old| Some(op(old, operand)));
    Ok(value_of_raw(vm, t.element, old))
}

/// [Atomics.add](https://tc39.es/ecma262/#sec-atomics.add)
fn add(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    read_modify_write(vm, args, u64::wrapping_add)
}
/// [Atomics.and](https://tc39.es/ecma262/#sec-atomics.and)
fn and(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    read_modify_write(vm, args, |a, b| a & b)
}
/// [Atomics.exchange](https://tc39.es/ecma262/#sec-atomics.exchange)
fn exchange(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    read_modify_write(vm, args, |_, b| b)
}
/// [Atomics.or](https://tc39.es/ecma262/#sec-atomics.or)
fn or(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    read_modify_write(vm, args, |a, b| a | b)
}
/// [Atomics.sub](https://tc39.es/ecma262/#sec-atomics.sub)
fn sub(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    read_modify_write(vm, args, u64::wrapping_sub)
}
/// [Atomics.xor](https://tc39.es/ecma262/#sec-atomics.xor)
fn xor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    read_modify_write(vm, args, |a, b| a ^ b)
}

/// [Atomics.compareExchange](https://tc39.es/ecma262/#sec-atomics.compareexchange)
fn compare_exchange(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let ta = vm.arg(args, 0);
    let t = validate_integer_typed_array(vm, ta, false)?;
    let at = validate_atomic_access(vm, &t, vm.arg(args, 1))?;
    let expected = to_value(vm, t.element, vm.arg(args, 2))?;
    let replacement = to_value(vm, t.element, vm.arg(args, 3))?;
    let t = revalidate(vm, ta, at)?;
    let mask = if t.element.size() == 8 {
        u64::MAX
    } else {
        (1u64 << (t.element.size() * 8)) - 1
    };
    let (expected, replacement) = (raw_of(t.element, expected), raw_of(t.element, replacement));
    let old = atomic_update(vm, &t, at, |old| {
        (old & mask == expected & mask).then_some(replacement)
    });
    Ok(value_of_raw(vm, t.element, old))
}

/// [Atomics.isLockFree](https://tc39.es/ecma262/#sec-atomics.islockfree)
fn is_lock_free(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let n = vm.to_integer(vm.arg(args, 0))?;
    Ok(Value::bool(
        matches!(n as i64, 1 | 2 | 4 | 8) && n.fract() == 0.0,
    ))
}

/// [Atomics.load](https://tc39.es/ecma262/#sec-atomics.load)
fn load(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let ta = vm.arg(args, 0);
    let t = validate_integer_typed_array(vm, ta, false)?;
    let at = validate_atomic_access(vm, &t, vm.arg(args, 1))?;
    let t = revalidate(vm, ta, at)?;
    let raw = read_raw(vm, &t, at);
    Ok(value_of_raw(vm, t.element, raw))
}

/// [Atomics.store](https://tc39.es/ecma262/#sec-atomics.store)
fn store(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let ta = vm.arg(args, 0);
    let t = validate_integer_typed_array(vm, ta, false)?;
    let at = validate_atomic_access(vm, &t, vm.arg(args, 1))?;
    let value = vm.arg(args, 2);
    let (v, result) = if t.element.is_bigint() {
        let b = super::bigint::to_bigint(vm, value)?;
        (
            Numeric::BigInt(super::typed_array::bigint_low_bits(vm, b)),
            b,
        )
    } else {
        let n = vm.to_integer(value)?;
        (Numeric::Number(n), Value::number(n))
    };
    vm.roots.push(result);
    let t = revalidate(vm, ta, at)?;
    write_raw(vm, &t, at, raw_of(t.element, v));
    Ok(result)
}

/// The validation DoWait performs before it would block: the byte index.
fn validate_wait(vm: &mut Vm, args: Args) -> JsResult<(TypedArrayData, usize, Numeric, f64)> {
    let ta = vm.arg(args, 0);
    let t = validate_integer_typed_array(vm, ta, true)?;
    if !array_buffer::data(vm, t.buffer).is_shared() {
        return Err(vm.type_error("Atomics.wait requires a shared typed array"));
    }
    let at = validate_atomic_access(vm, &t, vm.arg(args, 1))?;
    let v = if t.element.is_bigint() {
        let b = super::bigint::to_bigint(vm, vm.arg(args, 2))?;
        Numeric::BigInt(super::typed_array::bigint_low_bits(vm, b))
    } else {
        Numeric::Number(vm.to_int32(vm.arg(args, 2))? as f64)
    };
    let q = vm.to_number(vm.arg(args, 3))?;
    let timeout = if q.is_nan() {
        f64::INFINITY
    } else {
        q.max(0.0)
    };
    Ok((t, at, v, timeout))
}

/// [Atomics.wait](https://tc39.es/ecma262/#sec-atomics.wait): this agent cannot suspend.
fn wait(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    validate_wait(vm, args)?;
    Err(vm.type_error("Atomics.wait cannot be called in this context"))
}

/// [Atomics.waitAsync](https://tc39.es/ecma262/#sec-atomics.waitasync): "not-equal" and a
/// zero timeout answer at once; a wait that would suspend returns a promise that never
/// settles (there is no waiter list for `notify`, nor timers, yet).
fn wait_async(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let (t, at, v, timeout) = validate_wait(vm, args)?;
    let current = read_raw(vm, &t, at);
    let size = t.element.size();
    let mask = if size == 8 {
        u64::MAX
    } else {
        (1u64 << (size * 8)) - 1
    };
    let result = new_plain_object(vm);
    let async_key = vm.key("async");
    let value_key = vm.key("value");
    let (is_async, value) = if current & mask != raw_of(t.element, v) & mask {
        (false, vm.intern_value("not-equal"))
    } else if timeout == 0.0 {
        (false, vm.intern_value("timed-out"))
    } else {
        let promise = vm.new_promise();
        (true, Value::object(promise))
    };
    vm.define_builtin(result, async_key, Value::bool(is_async), Attrs::DEFAULT);
    vm.define_builtin(result, value_key, value, Attrs::DEFAULT);
    Ok(Value::object(result))
}

/// [Atomics.notify](https://tc39.es/ecma262/#sec-atomics.notify): there are never waiters.
fn notify(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let ta = vm.arg(args, 0);
    let t = validate_integer_typed_array(vm, ta, true)?;
    validate_atomic_access(vm, &t, vm.arg(args, 1))?;
    let count = vm.arg(args, 2);
    if !count.is_undefined() {
        vm.to_integer(count)?;
    }
    Ok(Value::int(0))
}

/// [Atomics.pause](https://tc39.es/proposal-atomics-microwait/)
fn pause(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let n = vm.arg(args, 0);
    if !n.is_undefined()
        && !n
            .as_number()
            .is_some_and(|x| x.is_finite() && x.fract() == 0.0)
    {
        return Err(vm.type_error("Atomics.pause argument must be an integral Number"));
    }
    Ok(Value::UNDEFINED)
}
