//! [Array.fromAsync](https://tc39.es/ecma262/#sec-array.fromasync).
//!
//! The spec writes it as an async abstract closure. Here the closure is a state
//! machine in an internal cell: each `Await` subscribes two natives to the awaited
//! promise, and when it settles they run the next step with the result. Everything
//! the closure holds across an await lives in the cell (see [`Field`]), so it is
//! traced by the collector and written by snapshots like any other object.

use super::array::{callable, construct_this_or_array, create_at, set_length};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{NativeFn, ObjectKind, PropertyKey};
use crate::value::Value;

/// The fields of the state cell.
#[derive(Clone, Copy)]
enum Field {
    /// the promise `Array.fromAsync` returned
    Promise = 0,
    Mapper = 1,
    ThisArg = 2,
    /// the array being filled
    Target = 3,
    /// the iterator, or undefined for an array-like
    Iterator = 4,
    Next = 5,
    /// the array-like source and its length
    ArrayLike = 6,
    Length = 7,
    /// the index of the element being produced
    Index = 8,
    /// what the pending await is for (a [`Step`])
    Step = 9,
    /// the error to reject with once an iterator close has been awaited
    Error = 10,
}
const FIELDS: usize = 11;

/// What an await of the closure waits for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    /// the iterator's next result
    NextResult = 0,
    /// the mapper's result for an iterated value
    IteratedMapped = 1,
    /// an array-like element
    Element = 2,
    /// the mapper's result for an array-like element
    ElementMapped = 3,
    /// the iterator's `return` result, before rejecting with the stored error
    Closing = 4,
}

/// The natives this module creates while the guest runs; snapshots name them by their
/// position in this list.
pub(crate) const DYNAMIC_NATIVES: [NativeFn; 2] = [awaited_fulfilled, awaited_rejected];

/// [Array.fromAsync](https://tc39.es/ecma262/#sec-array.fromasync)
pub(super) fn from_async(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    // 2. Let promiseCapability be ! NewPromiseCapability(%Promise%).
    let promise = vm.new_promise();
    let mut fields = vec![Value::UNDEFINED; FIELDS];
    fields[Field::Promise as usize] = Value::object(promise);
    fields[Field::Mapper as usize] = vm.arg(args, 1);
    fields[Field::ThisArg as usize] = vm.arg(args, 2);
    let state = vm
        .heap
        .new_object(None, ObjectKind::Internal(fields.into_boxed_slice()));
    vm.roots.push(Value::object(state));
    // 4. AsyncFunctionStart: run the closure up to its first await.
    let started = start(vm, state, this, vm.arg(args, 0));
    settle_if_done(vm, state, started)?;
    Ok(Value::object(promise))
}

/// Steps 3.a-h (up to the first await): check the mapper, open the source, create the
/// array.
fn start(vm: &mut Vm, state: ObjectId, c: Value, items: Value) -> JsResult<Flow> {
    // a-b. A mapper must be callable.
    let mapper = get(vm, state, Field::Mapper);
    if !mapper.is_undefined() {
        callable(vm, mapper)?;
    }
    // c-d. The async iterator method, else the sync one.
    if items.is_nullish() {
        let what = vm.display(items);
        return Err(vm.type_error(format!("Array.fromAsync: {what} is not iterable")));
    }
    let async_method = vm.get_method(items, PropertyKey::Symbol(vm.symbols.async_iterator))?;
    let sync_method = match async_method {
        Some(_) => None,
        None => vm.get_method(items, PropertyKey::Symbol(vm.symbols.iterator))?,
    };
    // f-g. An iterator record: async, or sync wrapped by CreateAsyncFromSyncIterator.
    let record = match (async_method, sync_method) {
        (Some(m), _) => Some(vm.get_iterator_from_method(items, m)?),
        (None, Some(m)) => {
            let (iterator, next) = vm.get_iterator_from_method(items, m)?;
            let wrapper = super::generator::create_async_from_sync_iterator(vm, iterator, next);
            let next = vm.get(wrapper, PropertyKey::String(vm.atoms.next))?;
            Some((wrapper, next))
        }
        (None, None) => None,
    };
    if let Some((iterator, next)) = record {
        set(vm, state, Field::Iterator, iterator);
        set(vm, state, Field::Next, next);
        // h.i-ii. A = Construct(C) or ArrayCreate(0).
        let a = construct_this_or_array(vm, c, None)?;
        set(vm, state, Field::Target, Value::object(a));
        set(vm, state, Field::Index, Value::int(0));
        return call_next(vm, state);
    }
    // i. An array-like: A = Construct(C, « len ») or ArrayCreate(len).
    let array_like = Value::object(vm.to_object(items)?);
    set(vm, state, Field::ArrayLike, array_like);
    let len = vm.length_of_array_like(array_like)?;
    set(vm, state, Field::Length, Value::number(len));
    let a = construct_this_or_array(vm, c, Some(len))?;
    set(vm, state, Field::Target, Value::object(a));
    set(vm, state, Field::Index, Value::int(0));
    next_element(vm, state)
}

/// Where the closure stands after a step.
enum Flow {
    /// waiting for an await
    Awaiting,
    /// returned this array
    Done(Value),
}

/// h.iv.1-4: call `next` and await its result.
fn call_next(vm: &mut Vm, state: ObjectId) -> JsResult<Flow> {
    let k = index(vm, state);
    if k >= 9007199254740991.0 {
        let proto = vm.intrinsics.type_error_prototype;
        let e = vm.new_error(proto, "Array.fromAsync: too many elements");
        return close_iterator(vm, state, Value::object(e));
    }
    let (iterator, next) = (get(vm, state, Field::Iterator), get(vm, state, Field::Next));
    let result = vm.call(next, iterator, &[])?;
    wait(vm, state, result, Step::NextResult)
}

/// i.vii: the next element of an array-like, awaited; the array's length once done.
fn next_element(vm: &mut Vm, state: ObjectId) -> JsResult<Flow> {
    let k = index(vm, state);
    let len = get(vm, state, Field::Length).as_number().unwrap_or(0.0);
    if k >= len {
        let a = target(vm, state)?;
        set_length(vm, a, len)?;
        return Ok(Flow::Done(Value::object(a)));
    }
    let array_like = get(vm, state, Field::ArrayLike);
    let key = vm.to_property_key(Value::number(k))?;
    let value = vm.get(array_like, key)?;
    wait(vm, state, value, Step::Element)
}

/// The step after an await fulfilled with `value`.
fn resume(vm: &mut Vm, state: ObjectId, step: Step, value: Value) -> JsResult<Flow> {
    let mapper = get(vm, state, Field::Mapper);
    match step {
        Step::NextResult => {
            // h.iv.5-8: the result must be an object; done ends with the length set.
            if !value.is_object() {
                return Err(vm.type_error("Array.fromAsync: the iterator result is not an object"));
            }
            let done = vm.get(value, PropertyKey::String(vm.atoms.done))?;
            if vm.to_boolean(done) {
                let a = target(vm, state)?;
                set_length(vm, a, index(vm, state))?;
                return Ok(Flow::Done(Value::object(a)));
            }
            let item = vm.get(value, PropertyKey::String(vm.atoms.value))?;
            if mapper.is_undefined() {
                return define_then(vm, state, item, true);
            }
            // 9. The mapper's result, awaited; an abrupt completion closes the iterator.
            let this_arg = get(vm, state, Field::ThisArg);
            let k = Value::number(index(vm, state));
            match vm.call(mapper, this_arg, &[item, k]) {
                Ok(mapped) => match wait(vm, state, mapped, Step::IteratedMapped) {
                    Ok(flow) => Ok(flow),
                    Err(_) => {
                        let e = vm.catch_thrown()?;
                        close_iterator(vm, state, e)
                    }
                },
                Err(_) => {
                    let e = vm.catch_thrown()?;
                    close_iterator(vm, state, e)
                }
            }
        }
        Step::IteratedMapped => define_then(vm, state, value, true),
        Step::Element => {
            if mapper.is_undefined() {
                return define_then(vm, state, value, false);
            }
            let this_arg = get(vm, state, Field::ThisArg);
            let k = Value::number(index(vm, state));
            let mapped = vm.call(mapper, this_arg, &[value, k])?;
            wait(vm, state, mapped, Step::ElementMapped)
        }
        Step::ElementMapped => define_then(vm, state, value, false),
        Step::Closing => {
            let e = get(vm, state, Field::Error);
            Err(vm.throw(e))
        }
    }
}

/// The step after an await rejected with `reason`.
fn resume_rejected(vm: &mut Vm, state: ObjectId, step: Step, reason: Value) -> JsResult<Flow> {
    match step {
        // IfAbruptCloseAsyncIterator(mappedValue): close, then reject.
        Step::IteratedMapped => close_iterator(vm, state, reason),
        // The close's own failure loses to the original error.
        Step::Closing => {
            let e = get(vm, state, Field::Error);
            Err(vm.throw(e))
        }
        _ => Err(vm.throw(reason)),
    }
}

/// CreateDataPropertyOrThrow(A, k, value), then on to the next element (an abrupt
/// completion closes the iterator).
fn define_then(vm: &mut Vm, state: ObjectId, value: Value, iterating: bool) -> JsResult<Flow> {
    let a = target(vm, state)?;
    let k = index(vm, state);
    if let Err(thrown) = create_at(vm, a, k, value) {
        if !iterating {
            return Err(thrown);
        }
        let e = vm.catch_thrown()?;
        return close_iterator(vm, state, e);
    }
    set(vm, state, Field::Index, Value::number(k + 1.0));
    if iterating {
        call_next(vm, state)
    } else {
        next_element(vm, state)
    }
}

/// [AsyncIteratorClose](https://tc39.es/ecma262/#sec-asynciteratorclose) with a throw
/// completion: `return` is called and its result awaited, then `error` rejects.
fn close_iterator(vm: &mut Vm, state: ObjectId, error: Value) -> JsResult<Flow> {
    set(vm, state, Field::Error, error);
    let iterator = get(vm, state, Field::Iterator);
    let ret = match vm.get_method(iterator, PropertyKey::String(vm.atoms.return_)) {
        Ok(Some(ret)) => ret,
        _ => return Err(vm.throw(error)),
    };
    match vm.call(ret, iterator, &[]) {
        Ok(result) => wait(vm, state, result, Step::Closing).map_err(|_| vm.throw(error)),
        Err(_) => Err(vm.throw(error)),
    }
}

/// Await(value): resume the closure at `step` when it settles.
fn wait(vm: &mut Vm, state: ObjectId, value: Value, step: Step) -> JsResult<Flow> {
    let promise = vm.promise_resolve(Value::object(vm.intrinsics.promise), value)?;
    set(vm, state, Field::Step, Value::int(step as i32));
    let data = || -> Box<[Value]> { Box::new([Value::object(state)]) };
    let empty = Value::string(vm.atoms.empty);
    let on_ok = vm.new_native_with_data(awaited_fulfilled, empty, 1, false, data());
    let on_err = vm.new_native_with_data(awaited_rejected, empty, 1, false, data());
    vm.perform_then(promise, Value::object(on_ok), Value::object(on_err), None);
    Ok(Flow::Awaiting)
}

fn awaited_fulfilled(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    awaited(vm, Ok(vm.arg(args, 0)))
}

fn awaited_rejected(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    awaited(vm, Err(vm.arg(args, 0)))
}

fn awaited(vm: &mut Vm, outcome: Result<Value, Value>) -> JsResult<Value> {
    let Some(state) = vm
        .native_data(vm.native_callee)
        .first()
        .and_then(|v| v.as_object())
    else {
        return Ok(Value::UNDEFINED);
    };
    vm.roots.push(Value::object(state));
    let step = match get(vm, state, Field::Step).as_int() {
        Some(0) => Step::NextResult,
        Some(1) => Step::IteratedMapped,
        Some(2) => Step::Element,
        Some(3) => Step::ElementMapped,
        _ => Step::Closing,
    };
    let flow = match outcome {
        Ok(value) => resume(vm, state, step, value),
        Err(reason) => resume_rejected(vm, state, step, reason),
    };
    settle_if_done(vm, state, flow)?;
    Ok(Value::UNDEFINED)
}

/// The closure returned or threw: settle the promise. An uncatchable termination is
/// not a rejection: it stays an error.
fn settle_if_done(vm: &mut Vm, state: ObjectId, flow: JsResult<Flow>) -> JsResult<()> {
    let Some(promise) = get(vm, state, Field::Promise).as_object() else {
        return Ok(());
    };
    match flow {
        Ok(Flow::Awaiting) => {}
        // The closure's return value resolves the promise (a thenable is followed).
        Ok(Flow::Done(a)) => {
            let _ = vm.resolve_promise(promise, a);
        }
        Err(_) => {
            let e = vm.catch_thrown()?;
            vm.reject_promise(promise, e);
        }
    }
    Ok(())
}

fn get(vm: &Vm, state: ObjectId, field: Field) -> Value {
    match &vm.heap.object(state).kind {
        ObjectKind::Internal(v) => v.get(field as usize).copied().unwrap_or(Value::UNDEFINED),
        _ => Value::UNDEFINED,
    }
}

fn set(vm: &mut Vm, state: ObjectId, field: Field, value: Value) {
    if let ObjectKind::Internal(v) = &mut vm.heap.object_mut(state).kind
        && let Some(slot) = v.get_mut(field as usize)
    {
        *slot = value;
    }
}

fn index(vm: &Vm, state: ObjectId) -> f64 {
    get(vm, state, Field::Index).as_number().unwrap_or(0.0)
}

/// The array being filled (set before any step that reads it).
fn target(vm: &mut Vm, state: ObjectId) -> JsResult<ObjectId> {
    match get(vm, state, Field::Target).as_object() {
        Some(a) => Ok(a),
        None => Err(vm.type_error("Array.fromAsync: no target array")),
    }
}
