//! The Atomics namespace, and each runtime's state as an agent of an agent cluster.
//!
//! Every runtime is one agent. Read-modify-write operations on a SharedArrayBuffer run
//! inside its block's critical section (`shared_memory.rs`); on an ArrayBuffer they are
//! plain byte updates. `Atomics.wait` blocks the calling thread only when the runtime's
//! agent may block ([`Agent::can_block`], off by default); it wakes every
//! `shared_memory::STOP_POLL` to honour interrupts and budgets. `Atomics.waitAsync`
//! waiters are listed in [`Agent::waits`] with their promises; [`Vm::run_until_settled`]
//! is the event loop that resolves them when notified or timed out, sleeping on the
//! agent's signal in between (no busy-waiting).

use super::array_buffer::{self, Bytes};
use super::shared_memory::{AgentSignal, SharedBlock, WaitOutcome, WaiterRecord};
use super::typed_array::{
    ElementType, Numeric, TypedArrayData, decode, encode, length_of, numeric_value, ta_data,
};
use super::{define_to_string_tag, new_plain_object};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, NativeFn};
use crate::value::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A runtime as an [agent](https://tc39.es/ecma262/#sec-agents).
#[derive(Debug, Default)]
pub struct Agent {
    /// [[CanBlock]]: `Atomics.wait` may suspend this runtime's thread
    pub can_block: bool,
    /// raised when `Atomics.notify` (from any agent) removes one of `waits`
    pub signal: Arc<AgentSignal>,
    /// the `Atomics.waitAsync` waiters whose promises are not settled, oldest first
    pub waits: Vec<AsyncWait>,
}

/// A pending `Atomics.waitAsync`: its promise (a GC root) and its waiter record.
#[derive(Debug)]
pub struct AsyncWait {
    pub promise: ObjectId,
    block: Arc<SharedBlock>,
    record: Arc<WaiterRecord>,
    /// None for an infinite timeout
    deadline: Option<Instant>,
}

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
    let t = typed_array.as_object().and_then(|o| ta_data(vm, o));
    let Some(t) = t.filter(|t| length_of(vm, t).is_some()) else {
        return Err(vm.type_error("Atomics operation on a detached or out-of-bounds typed array"));
    };
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
    let mask = element_mask(t.element);
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

/// [DoWait](https://tc39.es/ecma262/#sec-dowait) steps 1-8: the typed array, the byte
/// index, the expected value's bits and the timeout in milliseconds (+∞ for none).
fn validate_wait(
    vm: &mut Vm,
    args: Args,
) -> JsResult<(TypedArrayData, Arc<SharedBlock>, usize, u64, f64)> {
    // 1. Let taRecord be ? ValidateIntegerTypedArray(typedArray, true).
    let ta = vm.arg(args, 0);
    let t = validate_integer_typed_array(vm, ta, true)?;
    // 3. If IsSharedArrayBuffer(buffer) is false, throw a TypeError exception.
    let Some(block) = array_buffer::data(vm, t.buffer).block().cloned() else {
        return Err(vm.type_error("Atomics.wait requires a shared typed array"));
    };
    // 4. Let i be ? ValidateAtomicAccess(taRecord, index).
    let at = validate_atomic_access(vm, &t, vm.arg(args, 1))?;
    // 6. ToBigInt64(value) or ToInt32(value).
    let v = if t.element.is_bigint() {
        let b = super::bigint::to_bigint(vm, vm.arg(args, 2))?;
        Numeric::BigInt(super::typed_array::bigint_low_bits(vm, b))
    } else {
        Numeric::Number(vm.to_int32(vm.arg(args, 2))? as f64)
    };
    // 7-8. Let q be ? ToNumber(timeout); NaN and +∞ wait forever, negatives not at all.
    let q = vm.to_number(vm.arg(args, 3))?;
    let timeout = if q.is_nan() {
        f64::INFINITY
    } else {
        q.max(0.0)
    };
    let expected = raw_of(t.element, v) & element_mask(t.element);
    Ok((t, block, at, expected, timeout))
}

/// The bits an element of type `t` occupies.
fn element_mask(t: ElementType) -> u64 {
    match t.size() {
        8 => u64::MAX,
        size => (1u64 << (size * 8)) - 1,
    }
}

/// When a wait of `timeout` ms started now ends; None when it never does (or the instant
/// would not be representable, which is as good as never).
fn deadline_after(timeout: f64) -> Option<Instant> {
    let wait = Duration::try_from_secs_f64(timeout / 1000.0).ok()?;
    Instant::now().checked_add(wait)
}

/// [Atomics.wait](https://tc39.es/ecma262/#sec-atomics.wait): DoWait(sync, ...).
fn wait(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let (t, block, at, expected, timeout) = validate_wait(vm, args)?;
    // 9. If mode is sync and AgentCanSuspend() is false, throw a TypeError exception.
    if !vm.agent.can_block {
        return Err(vm.type_error(
            "Atomics.wait cannot block here: this runtime's agent may not suspend (use Atomics.waitAsync)",
        ));
    }
    // 15-29. Wait in the block's waiter list; interrupts and budgets end the wait.
    let mut stopped = None;
    let outcome = block.wait(
        at,
        t.element.size(),
        expected,
        deadline_after(timeout),
        || match vm.check_budgets() {
            Ok(()) => false,
            Err(thrown) => {
                stopped = Some(thrown);
                true
            }
        },
    );
    let result = match outcome {
        WaitOutcome::NotEqual => "not-equal",
        WaitOutcome::Ok => "ok",
        WaitOutcome::TimedOut => "timed-out",
        WaitOutcome::Stopped => {
            return Err(stopped
                .unwrap_or_else(|| vm.terminate(crate::interpreter::Termination::Interrupted)));
        }
    };
    Ok(vm.intern_value(result))
}

/// [Atomics.waitAsync](https://tc39.es/ecma262/#sec-atomics.waitasync): DoWait(async, ...).
/// A waiter's promise settles in [`Vm::run_until_settled`].
fn wait_async(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let (t, block, at, expected, timeout) = validate_wait(vm, args)?;
    // 14. The promise capability and the result object.
    let promise = vm.new_promise();
    let result = new_plain_object(vm);
    // 15-28. Compare and add the waiter inside the critical section.
    let signal = vm.agent.signal.clone();
    let waiter = block.wait_async(at, t.element.size(), expected, timeout == 0.0, signal);
    let (is_async, value) = match waiter {
        Err(WaitOutcome::NotEqual) => (false, vm.intern_value("not-equal")),
        Err(_) => (false, vm.intern_value("timed-out")),
        Ok(record) => {
            vm.agent.waits.push(AsyncWait {
                promise,
                block,
                record,
                deadline: deadline_after(timeout),
            });
            (true, Value::object(promise))
        }
    };
    // 18, 19, 30. { async, value }
    let async_key = vm.key("async");
    let value_key = vm.key("value");
    vm.define_builtin(result, async_key, Value::bool(is_async), Attrs::DEFAULT);
    vm.define_builtin(result, value_key, value, Attrs::DEFAULT);
    Ok(Value::object(result))
}

/// [Atomics.notify](https://tc39.es/ecma262/#sec-atomics.notify)
fn notify(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    // 1-2. Validate the typed array and the index.
    let ta = vm.arg(args, 0);
    let t = validate_integer_typed_array(vm, ta, true)?;
    let at = validate_atomic_access(vm, &t, vm.arg(args, 1))?;
    // 3. c: +∞ when count is undefined, else max(ToIntegerOrInfinity(count), 0).
    let count = vm.arg(args, 2);
    let count = if count.is_undefined() {
        usize::MAX
    } else {
        let c = vm.to_integer(count)?.max(0.0);
        if c >= usize::MAX as f64 {
            usize::MAX
        } else {
            c as usize
        }
    };
    // 5. A non-shared buffer has no waiters.
    let Some(block) = array_buffer::data(vm, t.buffer).block().cloned() else {
        return Ok(Value::int(0));
    };
    // 6-12. Remove and wake up to c waiters, oldest first.
    let woken = block.notify(at, count);
    Ok(Value::number(woken as f64))
}

impl Vm {
    /// Run the job queue, then act as the host's event loop for `Atomics.waitAsync`:
    /// settle the waiters that were notified or timed out (the spec's
    /// EnqueueResolveInAgentJob and timeout jobs) and run the jobs that follow, sleeping
    /// on the agent's signal until the next waiter is due. Returns when no waiter is left,
    /// or when only waiters without a timeout are left and this agent may not block or
    /// waits for the host (their promises stay pending). Interrupts and budgets end the
    /// wait.
    pub fn run_until_settled(&mut self) -> JsResult<()> {
        loop {
            self.run_jobs()?;
            if self.agent.waits.is_empty() {
                return Ok(());
            }
            if self.settle_async_waits()? {
                continue;
            }
            let next = self.agent.waits.iter().filter_map(|w| w.deadline).min();
            // Waiting forever is for agents that may block, and never while the host owes
            // the guest an answer (the execution suspends instead).
            if next.is_none() && (!self.agent.can_block || !self.host.outstanding.is_empty()) {
                return Ok(());
            }
            self.check_budgets()?;
            self.agent.signal.sleep(next);
        }
    }

    /// Resolve the promise of every waiter that was notified ("ok") or whose timeout
    /// passed ("timed-out"), oldest first; true if any was.
    pub(crate) fn settle_async_waits(&mut self) -> JsResult<bool> {
        let now = Instant::now();
        let mut settled = false;
        let mut k = 0;
        while k < self.agent.waits.len() {
            let w = &self.agent.waits[k];
            let result = if w.record.is_notified() {
                "ok"
            } else if w.deadline.is_some_and(|d| now >= d) {
                // notify may have removed it meanwhile: then it was notified after all
                if w.block.time_out(&w.record) {
                    "timed-out"
                } else {
                    "ok"
                }
            } else {
                k += 1;
                continue;
            };
            let w = self.agent.waits.remove(k);
            let value = self.intern_value(result);
            self.resolve_promise(w.promise, value)?;
            settled = true;
        }
        Ok(settled)
    }
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
