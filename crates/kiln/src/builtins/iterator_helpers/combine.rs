//! Iterators over several iterators: `Iterator.concat`
//! ([iterator sequencing](https://tc39.es/proposal-iterator-sequencing/)) and
//! `Iterator.zip` / `Iterator.zipKeyed`
//! ([joint iteration](https://tc39.es/proposal-joint-iteration/)). Both are Iterator
//! Helpers: their closures run as steps of the state machine in the parent module.
//!
//! A zip helper keeps its iterators in one internal cell, three values each:
//! `iterator, next, open`, where `open` is false once the iterator is done or was
//! closed (the spec's removal from openIters; in "longest" mode a done iterator's
//! place yields its padding).

use super::{Slot, cell_get, cell_set, get_iterator_flattenable, new_helper};
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{ObjectKind, PropertyKey};
use crate::value::Value;
use crate::{JsResult, Thrown};

/// The zip modes, stored in the helper's `Remaining` slot.
const SHORTEST: i32 = 0;
const LONGEST: i32 = 1;
const STRICT: i32 = 2;

/// Values per iterator in a zip helper's iterator cell.
const PER_ITER: usize = 3;

/// [Iterator.concat](https://tc39.es/proposal-iterator-sequencing/#sec-iterator.concat)
pub(super) fn concat(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    // 1-2. Each item must be an object with a callable @@iterator; record (method, item).
    let mut iterables = Vec::with_capacity(args.count as usize * 2);
    for i in 0..args.count as usize {
        let item = vm.arg(args, i);
        if !item.is_object() {
            let what = vm.display(item);
            return Err(vm.type_error(format!("Iterator.concat: {what} is not an object")));
        }
        let Some(method) = vm.get_method(item, PropertyKey::Symbol(vm.symbols.iterator))? else {
            let what = vm.display(item);
            return Err(vm.type_error(format!("Iterator.concat: {what} is not iterable")));
        };
        vm.roots.push(method);
        iterables.extend([method, item]);
    }
    let list = internal_cell(vm, iterables);
    new_helper(
        vm,
        super::CONCAT,
        Value::UNDEFINED,
        Value::UNDEFINED,
        list,
        0.0,
    )
}

/// One step of Iterator.concat's closure: the next value of the current iterable, opening
/// the following iterables in turn.
pub(super) fn concat_step(vm: &mut Vm, cell: ObjectId) -> JsResult<Option<Value>> {
    loop {
        let iterator = cell_get(vm, cell, Slot::Iterator as usize);
        if iterator.is_object() {
            let next = cell_get(vm, cell, Slot::Next as usize);
            let (value, done) = vm.iterator_step(iterator, next)?;
            if !done {
                return Ok(Some(value));
            }
            cell_set(vm, cell, Slot::Iterator as usize, Value::UNDEFINED);
            cell_set(vm, cell, Slot::Next as usize, Value::UNDEFINED);
        }
        let list = cell_get(vm, cell, Slot::Function as usize);
        let index = cell_get(vm, cell, Slot::Counter as usize)
            .as_int()
            .unwrap_or(0) as usize;
        let (Some(method), Some(iterable)) = (
            internal_at(vm, list, 2 * index),
            internal_at(vm, list, 2 * index + 1),
        ) else {
            return Ok(None);
        };
        cell_set(
            vm,
            cell,
            Slot::Counter as usize,
            Value::int(index as i32 + 1),
        );
        // a.i-iii. Let iter be ? Call(openMethod, iterable); it must be an object;
        // GetIteratorDirect(iter).
        let iterator = vm.call(method, iterable, &[])?;
        if !iterator.is_object() {
            return Err(vm.type_error("Iterator.concat: the iterator is not an object"));
        }
        cell_set(vm, cell, Slot::Iterator as usize, iterator);
        let next = vm.get(iterator, PropertyKey::String(vm.atoms.next))?;
        cell_set(vm, cell, Slot::Next as usize, next);
    }
}

/// [Iterator.zip](https://tc39.es/proposal-joint-iteration/#sec-iterator.zip)
pub(super) fn zip(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let iterables = vm.arg(args, 0);
    // 1-7.
    let (mode, padding_option) = zip_options(vm, iterables, vm.arg(args, 1), "zip")?;
    // 10-12. Open each iterable's iterator; on a failure close those opened so far (and the
    // input iterator, unless it was the one that failed).
    let mut iters = Vec::new();
    let (input, input_next) = vm.get_iterator(iterables)?;
    vm.roots.push(input);
    vm.roots.push(input_next);
    loop {
        let (item, done) = match vm.iterator_step(input, input_next) {
            Ok(step) => step,
            Err(e) => return Err(close_opened(vm, &iters, e)),
        };
        if done {
            break;
        }
        match get_iterator_flattenable(vm, item, false) {
            Ok((iterator, next)) => {
                vm.roots.push(next);
                iters.extend([iterator, next]);
            }
            Err(e) => {
                let e = close_opened(vm, &iters, e);
                return Err(vm.iterator_close_after_throw(input, e));
            }
        }
    }
    // 14. The padding: undefined each, or the values of the padding iterable.
    let count = iters.len() / 2;
    let mut padding = vec![Value::UNDEFINED; count];
    if mode == LONGEST && !padding_option.is_undefined() {
        let (pad, pad_next) = match vm.get_iterator(padding_option) {
            Ok(record) => record,
            Err(e) => return Err(close_opened(vm, &iters, e)),
        };
        vm.roots.push(pad);
        vm.roots.push(pad_next);
        let mut using_iterator = true;
        for slot in padding.iter_mut() {
            match vm.iterator_step(pad, pad_next) {
                Ok((_, true)) => {
                    using_iterator = false;
                    break;
                }
                Ok((value, false)) => {
                    vm.roots.push(value);
                    *slot = value;
                }
                Err(e) => return Err(close_opened(vm, &iters, e)),
            }
        }
        if using_iterator && let Err(e) = vm.iterator_close(pad) {
            return Err(close_opened(vm, &iters, e));
        }
    }
    new_zip(vm, &iters, mode, padding, Value::UNDEFINED)
}

/// [Iterator.zipKeyed](https://tc39.es/proposal-joint-iteration/#sec-iterator.zipkeyed)
pub(super) fn zip_keyed(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let iterables = vm.arg(args, 0);
    let (mode, padding_option) = zip_options(vm, iterables, vm.arg(args, 1), "zipKeyed")?;
    let Some(source) = iterables.as_object() else {
        return Err(vm.type_error("Iterator.zipKeyed: the iterables are not an object"));
    };
    // 10-12. Each enumerable own property whose value is not undefined is an iterable.
    let mut iters = Vec::new();
    let mut keys = Vec::new();
    let all_keys = vm.own_property_keys(source)?;
    for key in all_keys {
        let step = (|| -> JsResult<Option<(Value, Value)>> {
            let Some(desc) = vm.get_own_property(source, key)? else {
                return Ok(None);
            };
            if desc.enumerable != Some(true) {
                return Ok(None);
            }
            let value = vm.get(iterables, key)?;
            if value.is_undefined() {
                return Ok(None);
            }
            get_iterator_flattenable(vm, value, false).map(Some)
        })();
        match step {
            Ok(Some((iterator, next))) => {
                vm.roots.push(next);
                iters.extend([iterator, next]);
                keys.push(vm.key_to_value(key));
            }
            Ok(None) => {}
            Err(e) => return Err(close_opened(vm, &iters, e)),
        }
    }
    // 14. The padding: the padding object's value for each key.
    let mut padding = vec![Value::UNDEFINED; keys.len()];
    if mode == LONGEST && !padding_option.is_undefined() {
        for (slot, &key) in padding.iter_mut().zip(&keys) {
            let key = vm.to_property_key(key)?;
            match vm.get(padding_option, key) {
                Ok(value) => {
                    vm.roots.push(value);
                    *slot = value;
                }
                Err(e) => return Err(close_opened(vm, &iters, e)),
            }
        }
    }
    let keys = internal_cell(vm, keys);
    new_zip(vm, &iters, mode, padding, keys)
}

/// Steps 1-7 of zip and zipKeyed: `(mode, padding option)`.
fn zip_options(
    vm: &mut Vm,
    iterables: Value,
    options: Value,
    method: &str,
) -> JsResult<(i32, Value)> {
    if !iterables.is_object() {
        return Err(vm.type_error(format!(
            "Iterator.{method}: the iterables are not an object"
        )));
    }
    // GetOptionsObject: undefined is an empty options bag.
    if options.is_undefined() {
        return Ok((SHORTEST, Value::UNDEFINED));
    }
    if !options.is_object() {
        return Err(vm.type_error(format!("Iterator.{method}: the options are not an object")));
    }
    let key = vm.key("mode");
    let mode_value = vm.get(options, key)?;
    let mode = if mode_value.is_undefined() {
        SHORTEST
    } else {
        match mode_value.as_string().map(|s| vm.heap.string_to_rust(s)) {
            Some(m) if m == "shortest" => SHORTEST,
            Some(m) if m == "longest" => LONGEST,
            Some(m) if m == "strict" => STRICT,
            _ => {
                let what = vm.display(mode_value);
                return Err(vm.type_error(format!(
                    "Iterator.{method}: mode must be \"shortest\", \"longest\" or \"strict\", not {what}"
                )));
            }
        }
    };
    if mode != LONGEST {
        return Ok((mode, Value::UNDEFINED));
    }
    let key = vm.key("padding");
    let padding = vm.get(options, key)?;
    if !padding.is_undefined() && !padding.is_object() {
        return Err(vm.type_error(format!("Iterator.{method}: the padding is not an object")));
    }
    vm.roots.push(padding);
    Ok((mode, padding))
}

/// [IteratorZip](https://tc39.es/proposal-joint-iteration/#sec-IteratorZip): the helper over
/// `iters` (iterator, next pairs); `keys` is a cell of result keys, or undefined for arrays.
fn new_zip(
    vm: &mut Vm,
    iters: &[Value],
    mode: i32,
    padding: Vec<Value>,
    keys: Value,
) -> JsResult<Value> {
    let mut records = Vec::with_capacity(iters.len() / 2 * PER_ITER);
    for pair in iters.chunks(2) {
        records.extend([pair[0], pair[1], Value::TRUE]);
    }
    let records = internal_cell(vm, records);
    vm.roots.push(records);
    let padding = internal_cell(vm, padding);
    vm.roots.push(padding);
    let helper = new_helper(
        vm,
        super::ZIP,
        Value::UNDEFINED,
        Value::UNDEFINED,
        records,
        mode as f64,
    )?;
    let cell = super::helper_cell(vm, helper, "Iterator.zip")?;
    cell_set(vm, cell, Slot::Inner as usize, padding);
    cell_set(vm, cell, Slot::InnerNext as usize, keys);
    Ok(helper)
}

/// One step of IteratorZip's closure: the next tuple, or None when the zip ends.
pub(super) fn zip_step(vm: &mut Vm, cell: ObjectId) -> JsResult<Option<Value>> {
    let records = cell_get(vm, cell, Slot::Function as usize);
    let padding = cell_get(vm, cell, Slot::Inner as usize);
    let mode = cell_get(vm, cell, Slot::Remaining as usize)
        .as_int()
        .unwrap_or(SHORTEST);
    let count = internal_len(vm, records) / PER_ITER;
    // a. If iterCount = 0, return.
    if count == 0 {
        return Ok(None);
    }
    let mut results = Vec::with_capacity(count);
    for i in 0..count {
        let Some(iterator) = open_iterator(vm, records, i) else {
            // A finished iterator of "longest" mode: its padding.
            results.push(internal_at(vm, padding, i).unwrap_or(Value::UNDEFINED));
            continue;
        };
        let next = internal_at(vm, records, i * PER_ITER + 1).unwrap_or(Value::UNDEFINED);
        let (value, done) = match vm.iterator_step(iterator, next) {
            Ok(step) => step,
            Err(e) => {
                set_closed(vm, records, i);
                return Err(close_open_after_throw(vm, records, e));
            }
        };
        if !done {
            vm.roots.push(value);
            results.push(value);
            continue;
        }
        set_closed(vm, records, i);
        match mode {
            SHORTEST => {
                close_open(vm, records)?;
                return Ok(None);
            }
            STRICT => {
                if i != 0 {
                    let e = vm.type_error("Iterator.zip: the iterators have different lengths");
                    return Err(close_open_after_throw(vm, records, e));
                }
                // Every other iterator must be done too.
                for k in 1..count {
                    let iterator =
                        internal_at(vm, records, k * PER_ITER).unwrap_or(Value::UNDEFINED);
                    let next =
                        internal_at(vm, records, k * PER_ITER + 1).unwrap_or(Value::UNDEFINED);
                    match iterator_step_done(vm, iterator, next) {
                        Ok(true) => set_closed(vm, records, k),
                        Ok(false) => {
                            let e =
                                vm.type_error("Iterator.zip: the iterators have different lengths");
                            return Err(close_open_after_throw(vm, records, e));
                        }
                        Err(e) => {
                            set_closed(vm, records, k);
                            return Err(close_open_after_throw(vm, records, e));
                        }
                    }
                }
                return Ok(None);
            }
            _ => {
                if (0..count).all(|k| open_iterator(vm, records, k).is_none()) {
                    return Ok(None);
                }
                results.push(internal_at(vm, padding, i).unwrap_or(Value::UNDEFINED));
            }
        }
    }
    // iv. finishResults: an array, or a null-prototype object keyed like the input.
    let keys = cell_get(vm, cell, Slot::InnerNext as usize);
    if keys.is_undefined() {
        return Ok(Some(Value::object(vm.array_from_values(results))));
    }
    let obj = vm.heap.new_object(None, ObjectKind::Ordinary);
    vm.roots.push(Value::object(obj));
    for (i, value) in results.into_iter().enumerate() {
        let key = internal_at(vm, keys, i).unwrap_or(Value::UNDEFINED);
        let key = vm.to_property_key(key)?;
        vm.create_data_property_or_throw(obj, key, value)?;
    }
    Ok(Some(Value::object(obj)))
}

/// The iterators a zip helper still has open, in order (its [[UnderlyingIterators]]).
pub(super) fn zip_open_iterators(vm: &Vm, cell: ObjectId) -> Vec<Value> {
    let records = cell_get(vm, cell, Slot::Function as usize);
    let count = internal_len(vm, records) / PER_ITER;
    (0..count)
        .filter_map(|i| open_iterator(vm, records, i))
        .collect()
}

/// [IteratorCloseAll](https://tc39.es/proposal-joint-iteration/#sec-closeall) over the
/// open iterators, for a normal completion.
fn close_open(vm: &mut Vm, records: Value) -> JsResult<()> {
    let open = take_open(vm, records);
    super::close_all(vm, &open)
}

/// IteratorCloseAll over the open iterators, for a throw completion.
fn close_open_after_throw(vm: &mut Vm, records: Value, error: Thrown) -> Thrown {
    let open = take_open(vm, records);
    super::close_all_after_throw(vm, &open, error)
}

/// The open iterators, which are marked closed.
fn take_open(vm: &mut Vm, records: Value) -> Vec<Value> {
    let count = internal_len(vm, records) / PER_ITER;
    let open = (0..count)
        .filter_map(|i| open_iterator(vm, records, i))
        .collect();
    for i in 0..count {
        set_closed(vm, records, i);
    }
    open
}

/// IfAbruptCloseIterators while opening: close the (iterator, next) pairs opened so far.
fn close_opened(vm: &mut Vm, iters: &[Value], error: Thrown) -> Thrown {
    let iterators: Vec<Value> = iters.iter().step_by(2).copied().collect();
    super::close_all_after_throw(vm, &iterators, error)
}

/// [IteratorStep](https://tc39.es/ecma262/#sec-iteratorstep) reduced to whether it is done
/// (the result's `value` is not read).
fn iterator_step_done(vm: &mut Vm, iterator: Value, next: Value) -> JsResult<bool> {
    let result = vm.call(next, iterator, &[])?;
    if !result.is_object() {
        let what = vm.display(result);
        return Err(vm.type_error(format!("Iterator result {what} is not an object")));
    }
    let done = vm.get(result, PropertyKey::String(vm.atoms.done))?;
    Ok(vm.to_boolean(done))
}

fn open_iterator(vm: &Vm, records: Value, i: usize) -> Option<Value> {
    let open = internal_at(vm, records, i * PER_ITER + 2)?;
    if open != Value::TRUE {
        return None;
    }
    internal_at(vm, records, i * PER_ITER)
}

fn set_closed(vm: &mut Vm, records: Value, i: usize) {
    if let Some(cell) = records.as_object() {
        cell_set(vm, cell, i * PER_ITER + 2, Value::FALSE);
    }
}

fn internal_cell(vm: &mut Vm, values: Vec<Value>) -> Value {
    let cell = vm
        .heap
        .new_object(None, ObjectKind::Internal(values.into_boxed_slice()));
    Value::object(cell)
}

fn internal_at(vm: &Vm, cell: Value, i: usize) -> Option<Value> {
    match &vm.heap.object(cell.as_object()?).kind {
        ObjectKind::Internal(v) => v.get(i).copied(),
        _ => None,
    }
}

fn internal_len(vm: &Vm, cell: Value) -> usize {
    match cell.as_object().map(|c| &vm.heap.object(c).kind) {
        Some(ObjectKind::Internal(v)) => v.len(),
        _ => 0,
    }
}
