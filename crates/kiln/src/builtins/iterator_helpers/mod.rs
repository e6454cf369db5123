//! The `Iterator` constructor and the iterator helpers
//! ([spec](https://tc39.es/ecma262/#sec-iterator-objects)): `Iterator.from`,
//! `Iterator.prototype.map` / `filter` / `take` / `drop` / `flatMap` (lazy,
//! returning Iterator Helper objects) and `reduce` / `toArray` / `forEach` /
//! `some` / `every` / `find` / `includes` (eager); `Iterator.concat`, `zip` and
//! `zipKeyed` (in `combine.rs`) and `chunks` / `windows` (in `chunk.rs`) are
//! Iterator Helpers too.
//!
//! # Representation
//!
//! An Iterator Helper is an ordinary object whose prototype is
//! %IteratorHelperPrototype%; its internal slots live in an
//! `ObjectKind::Internal` cell (see [`Slot`]) stored under a private symbol,
//! which no JavaScript can name. The spec writes the helpers as abstract
//! closures run as generators; here each `next()` runs one step of a small
//! state machine with the same observable calls. Objects made by
//! `Iterator.from` (%WrapForValidIteratorPrototype%) keep their iterator
//! record the same way under a second private symbol. The private symbols,
//! prototypes and `Iterator` itself are kept in a registry cell every native
//! here receives as its data.

mod chunk;
mod combine;

use super::define_to_string_tag;
use crate::heap::{ObjectId, Symbol, SymbolId};
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, NativeFn, ObjectKind, PropertyKey};
use crate::value::Value;
use crate::{JsResult, Thrown};

/// Indices into the registry cell.
const REG_HELPER_SYMBOL: usize = 0;
const REG_WRAP_SYMBOL: usize = 1;
const REG_ITERATOR: usize = 2;
const REG_HELPER_PROTO: usize = 3;
const REG_WRAP_PROTO: usize = 4;

/// The slots of an Iterator Helper's cell.
#[derive(Clone, Copy)]
enum Slot {
    Kind = 0,
    Iterator = 1,
    Next = 2,
    Function = 3,
    Counter = 4,
    Remaining = 5,
    Inner = 6,
    InnerNext = 7,
    State = 8,
}
const SLOTS: usize = 9;

const MAP: i32 = 0;
const FILTER: i32 = 1;
const TAKE: i32 = 2;
const DROP: i32 = 3;
const FLAT_MAP: i32 = 4;
const CONCAT: i32 = 5;
const CHUNKS: i32 = 6;
const WINDOWS: i32 = 7;
const ZIP: i32 = 8;

/// [[GeneratorState]] values.
const SUSPENDED_START: i32 = 0;
const SUSPENDED_YIELD: i32 = 1;
const EXECUTING: i32 = 2;
const COMPLETED: i32 = 3;

pub fn init(vm: &mut Vm) {
    let proto = vm.intrinsics.iterator_prototype;
    let private_symbol = |vm: &mut Vm, name: &str| -> SymbolId {
        let description = Some(vm.heap.intern(name));
        vm.heap.alloc_symbol(Symbol {
            description,
            is_private: true,
            registered: false,
        })
    };
    let helper_symbol = private_symbol(vm, "IteratorHelper");
    let wrap_symbol = private_symbol(vm, "WrappedIterator");
    let helper_proto = vm.heap.new_object(Some(proto), ObjectKind::Ordinary);
    let wrap_proto = vm.heap.new_object(Some(proto), ObjectKind::Ordinary);
    let ctor = vm.new_native(iterator_constructor, "Iterator", 0, true);
    vm.define_builtin(
        ctor,
        PropertyKey::String(vm.atoms.prototype),
        Value::object(proto),
        Attrs::NONE,
    );
    super::define_global(vm, "Iterator", Value::object(ctor));
    let mut reg = vec![Value::UNDEFINED; 5];
    reg[REG_HELPER_SYMBOL] = Value::symbol(helper_symbol);
    reg[REG_WRAP_SYMBOL] = Value::symbol(wrap_symbol);
    reg[REG_ITERATOR] = Value::object(ctor);
    reg[REG_HELPER_PROTO] = Value::object(helper_proto);
    reg[REG_WRAP_PROTO] = Value::object(wrap_proto);
    let registry = vm
        .heap
        .new_object(None, ObjectKind::Internal(reg.into_boxed_slice()));
    let data = || -> Box<[Value]> { Box::new([Value::object(registry)]) };
    let define = |vm: &mut Vm, obj: ObjectId, name: &str, f: NativeFn, len: u32| {
        let n = vm.intern_value(name);
        let func = vm.new_native_with_data(f, n, len, false, data());
        let key = vm.key(name);
        vm.define_builtin(obj, key, Value::object(func), Attrs::HIDDEN);
    };
    define(vm, ctor, "from", iterator_from, 1);
    define(vm, ctor, "concat", combine::concat, 0);
    define(vm, ctor, "zip", combine::zip, 1);
    define(vm, ctor, "zipKeyed", combine::zip_keyed, 1);
    let methods: [(&str, NativeFn, u32); 14] = [
        ("map", map, 1),
        ("filter", filter, 1),
        ("take", take, 1),
        ("drop", drop, 1),
        ("flatMap", flat_map, 1),
        ("reduce", reduce, 1),
        ("toArray", to_array, 0),
        ("forEach", for_each, 1),
        ("some", some, 1),
        ("every", every, 1),
        ("find", find, 1),
        ("includes", includes, 1),
        ("chunks", chunk::chunks, 1),
        ("windows", chunk::windows, 1),
    ];
    for (name, f, len) in methods {
        define(vm, proto, name, f, len);
    }
    // Iterator.prototype[@@toStringTag] and .constructor are accessors whose setters
    // ignore the prototype itself (SetterThatIgnoresPrototypeProperties).
    let accessor = |vm: &mut Vm, key: PropertyKey, name: &str, get: NativeFn, set: NativeFn| {
        let gname = vm.intern_value(&format!("get {name}"));
        let sname = vm.intern_value(&format!("set {name}"));
        let g = vm.new_native_with_data(get, gname, 0, false, data());
        let s = vm.new_native_with_data(set, sname, 1, false, data());
        let pair = vm.new_accessor(Value::object(g), Value::object(s));
        vm.define_builtin(
            proto,
            key,
            pair,
            Attrs(Attrs::ACCESSOR | Attrs::CONFIGURABLE),
        );
    };
    let tag = PropertyKey::Symbol(vm.symbols.to_string_tag);
    accessor(
        vm,
        tag,
        "[Symbol.toStringTag]",
        get_to_string_tag,
        set_to_string_tag,
    );
    let constructor = PropertyKey::String(vm.atoms.constructor);
    accessor(
        vm,
        constructor,
        "constructor",
        get_constructor,
        set_constructor,
    );

    define(vm, helper_proto, "next", helper_next, 0);
    define(vm, helper_proto, "return", helper_return, 0);
    define_to_string_tag(vm, helper_proto, "Iterator Helper");
    define(vm, wrap_proto, "next", wrap_next, 0);
    define(vm, wrap_proto, "return", wrap_return, 0);
}

/// The registry slot `i` of the running native.
fn registry(vm: &Vm, i: usize) -> Value {
    let Some(reg) = vm
        .native_data(vm.native_callee)
        .first()
        .and_then(|v| v.as_object())
    else {
        return Value::UNDEFINED;
    };
    match &vm.heap.object(reg).kind {
        ObjectKind::Internal(v) => v.get(i).copied().unwrap_or(Value::UNDEFINED),
        _ => Value::UNDEFINED,
    }
}

fn registry_symbol(vm: &Vm, i: usize) -> Option<PropertyKey> {
    registry(vm, i).as_symbol().map(PropertyKey::Symbol)
}

/// [Iterator](https://tc39.es/ecma262/#sec-iterator-constructor): abstract; only subclasses construct.
fn iterator_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() || args.new_target == Value::object(vm.native_callee) {
        return Err(vm.type_error("Iterator cannot be constructed directly"));
    }
    let proto = vm.prototype_from_constructor(args.new_target, |i| i.iterator_prototype)?;
    Ok(Value::object(
        vm.heap.new_object(Some(proto), ObjectKind::Ordinary),
    ))
}

/// [GetIteratorFlattenable](https://tc39.es/ecma262/#sec-getiteratorflattenable):
/// `(iterator, next)`; strings are iterated only when `strings` is true.
fn get_iterator_flattenable(vm: &mut Vm, obj: Value, strings: bool) -> JsResult<(Value, Value)> {
    if !obj.is_object() && (!strings || obj.as_string().is_none()) {
        let what = vm.display(obj);
        return Err(vm.type_error(format!("{what} is not an iterator or iterable")));
    }
    let method = vm.get_method(obj, PropertyKey::Symbol(vm.symbols.iterator))?;
    let iterator = match method {
        None => obj,
        Some(m) => vm.call(m, obj, &[])?,
    };
    if !iterator.is_object() {
        return Err(vm.type_error("The iterator is not an object"));
    }
    vm.roots.push(iterator);
    let next = vm.get(iterator, PropertyKey::String(vm.atoms.next))?;
    Ok((iterator, next))
}

/// [Iterator.from](https://tc39.es/ecma262/#sec-iterator.from)
fn iterator_from(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let (iterator, next) = get_iterator_flattenable(vm, vm.arg(args, 0), true)?;
    vm.roots.push(next);
    let ctor = registry(vm, REG_ITERATOR);
    if vm.ordinary_has_instance(ctor, iterator)? {
        return Ok(iterator);
    }
    let (Some(proto), Some(key)) = (
        registry(vm, REG_WRAP_PROTO).as_object(),
        registry_symbol(vm, REG_WRAP_SYMBOL),
    ) else {
        return Err(vm.type_error("Iterator.from is unavailable"));
    };
    let cell = vm
        .heap
        .new_object(None, ObjectKind::Internal(Box::new([iterator, next])));
    let wrapper = vm.heap.new_object(Some(proto), ObjectKind::Ordinary);
    vm.define_builtin(wrapper, key, Value::object(cell), Attrs::NONE);
    Ok(Value::object(wrapper))
}

/// The cell stored under private `key` on `this`, or a TypeError.
fn cell_of(vm: &mut Vm, this: Value, key: Option<PropertyKey>, what: &str) -> JsResult<ObjectId> {
    let cell = this
        .as_object()
        .zip(key)
        .and_then(|(o, k)| vm.heap.own_property(o, k))
        .and_then(|p| p.value.as_object());
    match cell {
        Some(c) => Ok(c),
        None => Err(vm.type_error(format!("{what} called on incompatible receiver"))),
    }
}

fn cell_get(vm: &Vm, cell: ObjectId, i: usize) -> Value {
    match &vm.heap.object(cell).kind {
        ObjectKind::Internal(v) => v.get(i).copied().unwrap_or(Value::UNDEFINED),
        _ => Value::UNDEFINED,
    }
}

fn cell_set(vm: &mut Vm, cell: ObjectId, i: usize, value: Value) {
    if let ObjectKind::Internal(v) = &mut vm.heap.object_mut(cell).kind
        && let Some(slot) = v.get_mut(i)
    {
        *slot = value;
    }
}

/// %WrapForValidIteratorPrototype%.next
fn wrap_next(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let key = registry_symbol(vm, REG_WRAP_SYMBOL);
    let cell = cell_of(vm, this, key, "%WrapForValidIteratorPrototype%.next")?;
    let (iterator, next) = (cell_get(vm, cell, 0), cell_get(vm, cell, 1));
    vm.call(next, iterator, &[])
}

/// %WrapForValidIteratorPrototype%.return
fn wrap_return(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let key = registry_symbol(vm, REG_WRAP_SYMBOL);
    let cell = cell_of(vm, this, key, "%WrapForValidIteratorPrototype%.return")?;
    let iterator = cell_get(vm, cell, 0);
    match vm.get_method(iterator, PropertyKey::String(vm.atoms.return_))? {
        None => Ok(vm.iter_result(Value::UNDEFINED, true)),
        Some(f) => vm.call(f, iterator, &[]),
    }
}

// ---- closing ----

/// Throw a TypeError after closing `iterator` (argument validation of the helpers).
fn close_with_type_error(vm: &mut Vm, iterator: Value, msg: &str) -> Thrown {
    let e = vm.type_error(msg);
    vm.iterator_close_after_throw(iterator, e)
}

/// The receiver of an Iterator.prototype method, which must be an object.
fn this_iterator(vm: &mut Vm, this: Value, method: &str) -> JsResult<Value> {
    if !this.is_object() {
        return Err(vm.type_error(format!(
            "Iterator.prototype.{method} called on a non-object"
        )));
    }
    vm.roots.push(this);
    Ok(this)
}

/// The function argument of a helper, closing the receiver if it is not callable.
fn callable_arg(vm: &mut Vm, this: Value, f: Value, method: &str) -> JsResult<Value> {
    if !vm.is_callable(f) {
        let what = vm.display(f);
        return Err(close_with_type_error(
            vm,
            this,
            &format!("Iterator.prototype.{method}: {what} is not a function"),
        ));
    }
    vm.roots.push(f);
    Ok(f)
}

/// GetIteratorDirect(O): `next`.
fn next_method(vm: &mut Vm, iterator: Value) -> JsResult<Value> {
    let next = vm.get(iterator, PropertyKey::String(vm.atoms.next))?;
    vm.roots.push(next);
    Ok(next)
}

// ---- lazy helpers ----

fn new_helper(
    vm: &mut Vm,
    kind: i32,
    iterator: Value,
    next: Value,
    f: Value,
    remaining: f64,
) -> JsResult<Value> {
    let (Some(proto), Some(key)) = (
        registry(vm, REG_HELPER_PROTO).as_object(),
        registry_symbol(vm, REG_HELPER_SYMBOL),
    ) else {
        return Err(vm.type_error("Iterator helpers are unavailable"));
    };
    let mut slots = vec![Value::UNDEFINED; SLOTS];
    slots[Slot::Kind as usize] = Value::int(kind);
    slots[Slot::Iterator as usize] = iterator;
    slots[Slot::Next as usize] = next;
    slots[Slot::Function as usize] = f;
    slots[Slot::Counter as usize] = Value::int(0);
    slots[Slot::Remaining as usize] = Value::number(remaining);
    slots[Slot::State as usize] = Value::int(SUSPENDED_START);
    let cell = vm
        .heap
        .new_object(None, ObjectKind::Internal(slots.into_boxed_slice()));
    let helper = vm.heap.new_object(Some(proto), ObjectKind::Ordinary);
    vm.define_builtin(helper, key, Value::object(cell), Attrs::NONE);
    Ok(Value::object(helper))
}

/// [Iterator.prototype.map](https://tc39.es/ecma262/#sec-iterator.prototype.map)
fn map(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_iterator(vm, this, "map")?;
    let f = callable_arg(vm, o, vm.arg(args, 0), "map")?;
    let next = next_method(vm, o)?;
    new_helper(vm, MAP, o, next, f, 0.0)
}

/// [Iterator.prototype.filter](https://tc39.es/ecma262/#sec-iterator.prototype.filter)
fn filter(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_iterator(vm, this, "filter")?;
    let f = callable_arg(vm, o, vm.arg(args, 0), "filter")?;
    let next = next_method(vm, o)?;
    new_helper(vm, FILTER, o, next, f, 0.0)
}

/// [Iterator.prototype.flatMap](https://tc39.es/ecma262/#sec-iterator.prototype.flatmap)
fn flat_map(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_iterator(vm, this, "flatMap")?;
    let f = callable_arg(vm, o, vm.arg(args, 0), "flatMap")?;
    let next = next_method(vm, o)?;
    new_helper(vm, FLAT_MAP, o, next, f, 0.0)
}

/// The limit argument of take/drop: ToNumber, not NaN, ToIntegerOrInfinity, not negative;
/// the receiver is closed on failure.
fn limit_arg(vm: &mut Vm, o: Value, limit: Value, method: &str) -> JsResult<f64> {
    let n = match vm.to_number(limit) {
        Ok(n) => n,
        Err(e) => return Err(vm.iterator_close_after_throw(o, e)),
    };
    if n.is_nan() {
        let e = vm.range_error(format!("Iterator.prototype.{method}: the limit is NaN"));
        return Err(vm.iterator_close_after_throw(o, e));
    }
    // (ES2026 also rejects finite limits above 2^53 - 1; test262 follows it.)
    if n.is_finite() && n > 9007199254740991.0 {
        let e = vm.range_error(format!(
            "Iterator.prototype.{method}: the limit is too large"
        ));
        return Err(vm.iterator_close_after_throw(o, e));
    }
    let n = crate::interpreter::convert::f64_to_integer(n);
    if n < 0.0 {
        let e = vm.range_error(format!(
            "Iterator.prototype.{method}: the limit is negative"
        ));
        return Err(vm.iterator_close_after_throw(o, e));
    }
    Ok(n)
}

/// [Iterator.prototype.take](https://tc39.es/ecma262/#sec-iterator.prototype.take)
fn take(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_iterator(vm, this, "take")?;
    let limit = limit_arg(vm, o, vm.arg(args, 0), "take")?;
    let next = next_method(vm, o)?;
    new_helper(vm, TAKE, o, next, Value::UNDEFINED, limit)
}

/// [Iterator.prototype.drop](https://tc39.es/ecma262/#sec-iterator.prototype.drop)
fn drop(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_iterator(vm, this, "drop")?;
    let limit = limit_arg(vm, o, vm.arg(args, 0), "drop")?;
    let next = next_method(vm, o)?;
    new_helper(vm, DROP, o, next, Value::UNDEFINED, limit)
}

fn helper_cell(vm: &mut Vm, this: Value, what: &str) -> JsResult<ObjectId> {
    let key = registry_symbol(vm, REG_HELPER_SYMBOL);
    let cell = cell_of(vm, this, key, what)?;
    vm.roots.push(Value::object(cell));
    Ok(cell)
}

fn state_of(vm: &Vm, cell: ObjectId) -> i32 {
    cell_get(vm, cell, Slot::State as usize)
        .as_int()
        .unwrap_or(COMPLETED)
}

fn set_state(vm: &mut Vm, cell: ObjectId, state: i32) {
    cell_set(vm, cell, Slot::State as usize, Value::int(state));
}

/// %IteratorHelperPrototype%.next: GeneratorResume of the helper's closure.
fn helper_next(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let cell = helper_cell(vm, this, "%IteratorHelperPrototype%.next")?;
    match state_of(vm, cell) {
        EXECUTING => return Err(vm.type_error("Iterator helper is already running")),
        COMPLETED => return Ok(vm.iter_result(Value::UNDEFINED, true)),
        _ => {}
    }
    set_state(vm, cell, EXECUTING);
    match helper_step(vm, cell) {
        Ok(Some(v)) => {
            set_state(vm, cell, SUSPENDED_YIELD);
            Ok(vm.iter_result(v, false))
        }
        Ok(None) => {
            set_state(vm, cell, COMPLETED);
            Ok(vm.iter_result(Value::UNDEFINED, true))
        }
        Err(e) => {
            set_state(vm, cell, COMPLETED);
            Err(e)
        }
    }
}

/// Call the helper's function with (value, counter) and count the call; the underlying
/// iterator is closed if it throws.
fn call_with_counter(vm: &mut Vm, cell: ObjectId, value: Value) -> JsResult<Value> {
    let f = cell_get(vm, cell, Slot::Function as usize);
    let iterator = cell_get(vm, cell, Slot::Iterator as usize);
    let counter = cell_get(vm, cell, Slot::Counter as usize);
    vm.roots.push(value);
    let r = vm.call(f, Value::UNDEFINED, &[value, counter]);
    let n = counter.as_number().unwrap_or(0.0);
    cell_set(vm, cell, Slot::Counter as usize, Value::number(n + 1.0));
    r.map_err(|e| vm.iterator_close_after_throw(iterator, e))
}

/// Take one from the helper's remaining count (which stays at 0 or infinity); the count
/// before.
fn count_down(vm: &mut Vm, cell: ObjectId) -> f64 {
    let remaining = cell_get(vm, cell, Slot::Remaining as usize)
        .as_number()
        .unwrap_or(0.0);
    if remaining > 0.0 && remaining != f64::INFINITY {
        let left = Value::number(remaining - 1.0);
        cell_set(vm, cell, Slot::Remaining as usize, left);
    }
    remaining
}

/// One step of the helper's closure: Some(value) to yield, None when it returns.
fn helper_step(vm: &mut Vm, cell: ObjectId) -> JsResult<Option<Value>> {
    let kind = cell_get(vm, cell, Slot::Kind as usize)
        .as_int()
        .unwrap_or(MAP);
    let iterator = cell_get(vm, cell, Slot::Iterator as usize);
    let next = cell_get(vm, cell, Slot::Next as usize);
    match kind {
        MAP => {
            let (value, done) = vm.iterator_step(iterator, next)?;
            if done {
                return Ok(None);
            }
            call_with_counter(vm, cell, value).map(Some)
        }
        FILTER => loop {
            let (value, done) = vm.iterator_step(iterator, next)?;
            if done {
                return Ok(None);
            }
            let selected = call_with_counter(vm, cell, value)?;
            if vm.to_boolean(selected) {
                return Ok(Some(value));
            }
        },
        TAKE => {
            if count_down(vm, cell) == 0.0 {
                vm.iterator_close(iterator)?;
                return Ok(None);
            }
            let (value, done) = vm.iterator_step(iterator, next)?;
            Ok((!done).then_some(value))
        }
        DROP => {
            while count_down(vm, cell) > 0.0 {
                let (_, done) = vm.iterator_step(iterator, next)?;
                if done {
                    return Ok(None);
                }
            }
            let (value, done) = vm.iterator_step(iterator, next)?;
            Ok((!done).then_some(value))
        }
        CONCAT => combine::concat_step(vm, cell),
        CHUNKS => chunk::buffered_step(vm, cell, false),
        WINDOWS => chunk::buffered_step(vm, cell, true),
        ZIP => combine::zip_step(vm, cell),
        _ => loop {
            // flatMap: drain the inner iterator, then map the next outer value.
            let inner = cell_get(vm, cell, Slot::Inner as usize);
            if inner.is_object() {
                let inner_next = cell_get(vm, cell, Slot::InnerNext as usize);
                let (value, done) = vm
                    .iterator_step(inner, inner_next)
                    .map_err(|e| vm.iterator_close_after_throw(iterator, e))?;
                if !done {
                    return Ok(Some(value));
                }
                cell_set(vm, cell, Slot::Inner as usize, Value::UNDEFINED);
                cell_set(vm, cell, Slot::InnerNext as usize, Value::UNDEFINED);
            }
            let (value, done) = vm.iterator_step(iterator, next)?;
            if done {
                return Ok(None);
            }
            let mapped = call_with_counter(vm, cell, value)?;
            vm.roots.push(mapped);
            let (inner, inner_next) = get_iterator_flattenable(vm, mapped, false)
                .map_err(|e| vm.iterator_close_after_throw(iterator, e))?;
            cell_set(vm, cell, Slot::Inner as usize, inner);
            cell_set(vm, cell, Slot::InnerNext as usize, inner_next);
        },
    }
}

/// [%IteratorHelperPrototype%.return](https://tc39.es/ecma262/#sec-%iteratorhelperprototype%.return)
fn helper_return(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let cell = helper_cell(vm, this, "%IteratorHelperPrototype%.return")?;
    let state = state_of(vm, cell);
    match state {
        EXECUTING => Err(vm.type_error("Iterator helper is already running")),
        COMPLETED => Ok(vm.iter_result(Value::UNDEFINED, true)),
        _ => {
            // Before the start: completed, then IteratorCloseAll of the underlying
            // iterators. Suspended at a yield: the closure resumes with a return completion,
            // which closes flatMap's inner iterator (if any) and then the underlying ones.
            let started = state == SUSPENDED_YIELD;
            set_state(vm, cell, if started { EXECUTING } else { COMPLETED });
            let iterators = underlying_iterators(vm, cell, started);
            let r = close_all(vm, &iterators);
            set_state(vm, cell, COMPLETED);
            r?;
            Ok(vm.iter_result(Value::UNDEFINED, true))
        }
    }
}

/// The iterators a helper's return closes, innermost last (they close last first).
fn underlying_iterators(vm: &Vm, cell: ObjectId, started: bool) -> Vec<Value> {
    let kind = cell_get(vm, cell, Slot::Kind as usize).as_int();
    if kind == Some(ZIP) {
        return combine::zip_open_iterators(vm, cell);
    }
    let mut iterators = Vec::with_capacity(2);
    let iterator = cell_get(vm, cell, Slot::Iterator as usize);
    if iterator.is_object() {
        iterators.push(iterator);
    }
    let inner = cell_get(vm, cell, Slot::Inner as usize);
    if started && kind == Some(FLAT_MAP) && inner.is_object() {
        iterators.push(inner);
    }
    iterators
}

/// [IteratorCloseAll](https://tc39.es/ecma262/#sec-iteratorcloseall) for a normal
/// completion: last first; once one fails, the rest are closed with its error.
fn close_all(vm: &mut Vm, iterators: &[Value]) -> JsResult<()> {
    let mut result = Ok(());
    for &iterator in iterators.iter().rev() {
        result = match result {
            Ok(()) => vm.iterator_close(iterator),
            Err(e) => Err(vm.iterator_close_after_throw(iterator, e)),
        };
    }
    result
}

/// IteratorCloseAll for a throw completion: the error wins.
fn close_all_after_throw(vm: &mut Vm, iterators: &[Value], error: Thrown) -> Thrown {
    for &iterator in iterators.iter().rev() {
        vm.iterator_close_after_throw(iterator, error);
    }
    error
}

// ---- eager methods ----

/// Walk the receiver, calling `visit(vm, value, counter)` until it returns Some (which
/// closes the iterator normally and becomes the result) or the iterator ends (`end`).
fn consume(
    vm: &mut Vm,
    this: Value,
    args: Args,
    method: &str,
    end: Value,
    mut visit: impl FnMut(&mut Vm, Value, Value, f64) -> JsResult<Option<Value>>,
) -> JsResult<Value> {
    let o = this_iterator(vm, this, method)?;
    let f = callable_arg(vm, o, vm.arg(args, 0), method)?;
    let next = next_method(vm, o)?;
    let mut counter = 0.0;
    loop {
        let (value, done) = vm.iterator_step(o, next)?;
        if done {
            return Ok(end);
        }
        vm.roots.push(value);
        match visit(vm, f, value, counter) {
            Ok(Some(result)) => {
                vm.roots.push(result);
                vm.iterator_close(o)?;
                return Ok(result);
            }
            Ok(None) => {}
            Err(e) => return Err(vm.iterator_close_after_throw(o, e)),
        }
        counter += 1.0;
    }
}

/// [Iterator.prototype.forEach](https://tc39.es/ecma262/#sec-iterator.prototype.foreach)
fn for_each(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    consume(
        vm,
        this,
        args,
        "forEach",
        Value::UNDEFINED,
        |vm, f, v, n| {
            vm.call(f, Value::UNDEFINED, &[v, Value::number(n)])?;
            Ok(None)
        },
    )
}

/// [Iterator.prototype.some](https://tc39.es/ecma262/#sec-iterator.prototype.some)
fn some(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    consume(vm, this, args, "some", Value::FALSE, |vm, f, v, n| {
        let r = vm.call(f, Value::UNDEFINED, &[v, Value::number(n)])?;
        Ok(vm.to_boolean(r).then_some(Value::TRUE))
    })
}

/// [Iterator.prototype.every](https://tc39.es/ecma262/#sec-iterator.prototype.every)
fn every(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    consume(vm, this, args, "every", Value::TRUE, |vm, f, v, n| {
        let r = vm.call(f, Value::UNDEFINED, &[v, Value::number(n)])?;
        Ok((!vm.to_boolean(r)).then_some(Value::FALSE))
    })
}

/// [Iterator.prototype.find](https://tc39.es/ecma262/#sec-iterator.prototype.find)
fn find(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    consume(vm, this, args, "find", Value::UNDEFINED, |vm, f, v, n| {
        let r = vm.call(f, Value::UNDEFINED, &[v, Value::number(n)])?;
        Ok(vm.to_boolean(r).then_some(v))
    })
}

/// [Iterator.prototype.includes](https://tc39.es/proposal-iterator-includes/#sec-iterator.prototype.includes)
fn includes(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_iterator(vm, this, "includes")?;
    let search = vm.arg(args, 0);
    let skipped = vm.arg(args, 1);
    // 4-8. skippedElements: undefined (0), ±Infinity or an integral Number, not negative
    // and not above 2^53 - 1; the receiver is closed on failure.
    let to_skip = if skipped.is_undefined() {
        0.0
    } else {
        match skipped.as_number() {
            Some(n) if n.is_infinite() || (!n.is_nan() && n.fract() == 0.0) => n,
            _ => {
                let what = vm.display(skipped);
                let e = vm.type_error(format!(
                    "Iterator.prototype.includes: {what} is not an integer"
                ));
                return Err(vm.iterator_close_after_throw(o, e));
            }
        }
    };
    if to_skip < 0.0 || (to_skip.is_finite() && to_skip > 9007199254740991.0) {
        let e = vm.range_error("Iterator.prototype.includes: skippedElements is out of range");
        return Err(vm.iterator_close_after_throw(o, e));
    }
    vm.roots.push(search);
    let next = next_method(vm, o)?;
    let mut skipped = 0.0;
    loop {
        let (value, done) = vm.iterator_step(o, next)?;
        if done {
            return Ok(Value::FALSE);
        }
        if skipped < to_skip {
            skipped += 1.0;
        } else if vm.same_value_zero(value, search) {
            vm.iterator_close(o)?;
            return Ok(Value::TRUE);
        }
    }
}

/// [Iterator.prototype.reduce](https://tc39.es/ecma262/#sec-iterator.prototype.reduce)
fn reduce(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_iterator(vm, this, "reduce")?;
    let f = callable_arg(vm, o, vm.arg(args, 0), "reduce")?;
    let next = next_method(vm, o)?;
    let (mut accumulator, mut counter) = if args.count < 2 {
        let (first, done) = vm.iterator_step(o, next)?;
        if done {
            return Err(vm.type_error("Reduce of empty iterator with no initial value"));
        }
        (first, 1.0)
    } else {
        (vm.arg(args, 1), 0.0)
    };
    loop {
        vm.roots.push(accumulator);
        let (value, done) = vm.iterator_step(o, next)?;
        if done {
            return Ok(accumulator);
        }
        vm.roots.push(value);
        accumulator = vm
            .call(
                f,
                Value::UNDEFINED,
                &[accumulator, value, Value::number(counter)],
            )
            .map_err(|e| vm.iterator_close_after_throw(o, e))?;
        counter += 1.0;
    }
}

/// [Iterator.prototype.toArray](https://tc39.es/ecma262/#sec-iterator.prototype.toarray)
fn to_array(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_iterator(vm, this, "toArray")?;
    let next = next_method(vm, o)?;
    let mut items = Vec::new();
    loop {
        let (value, done) = vm.iterator_step(o, next)?;
        if done {
            return Ok(Value::object(vm.array_from_values(items)));
        }
        vm.roots.push(value);
        items.push(value);
    }
}

// ---- accessors ----

/// [SetterThatIgnoresPrototypeProperties](https://tc39.es/ecma262/#sec-SetterThatIgnoresPrototypeProperties)
fn setter_ignoring_prototype(
    vm: &mut Vm,
    this: Value,
    key: PropertyKey,
    v: Value,
) -> JsResult<Value> {
    let Some(o) = this.as_object() else {
        return Err(vm.type_error("Cannot set a property of a non-object"));
    };
    if o == vm.intrinsics.iterator_prototype {
        let k = vm.key_to_display(key);
        return Err(vm.type_error(format!("Cannot assign to '{k}' of Iterator.prototype")));
    }
    if vm.get_own_property(o, key)?.is_none() {
        vm.create_data_property_or_throw(o, key, v)?;
    } else if !vm.set(this, key, v, this)? {
        let k = vm.key_to_display(key);
        return Err(vm.type_error(format!("Cannot assign to read only property '{k}'")));
    }
    Ok(Value::UNDEFINED)
}

/// get Iterator.prototype[@@toStringTag]
fn get_to_string_tag(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    Ok(vm.intern_value("Iterator"))
}

/// set Iterator.prototype[@@toStringTag]
fn set_to_string_tag(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let key = PropertyKey::Symbol(vm.symbols.to_string_tag);
    setter_ignoring_prototype(vm, this, key, vm.arg(args, 0))
}

/// get Iterator.prototype.constructor
fn get_constructor(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    Ok(registry(vm, REG_ITERATOR))
}

/// set Iterator.prototype.constructor
fn set_constructor(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let key = PropertyKey::String(vm.atoms.constructor);
    setter_ignoring_prototype(vm, this, key, vm.arg(args, 0))
}
