//! `Iterator.prototype.chunks` and `windows`
//! ([iterator chunking](https://tc39.es/proposal-iterator-chunking/)): Iterator Helpers
//! whose closures buffer values of the underlying iterator.
//!
//! The buffer is a private dense array in the helper's `Inner` slot; the size is in
//! `Remaining`, and `Counter` is true for `windows(n, "allow-partial")`. Once the
//! underlying iterator is exhausted its slot is cleared, so a final partial chunk is
//! yielded without the iterator being stepped or closed again.

use super::{Slot, cell_get, cell_set, new_helper, next_method, this_iterator};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::Elements;
use crate::value::Value;

/// [Iterator.prototype.chunks](https://tc39.es/proposal-iterator-chunking/#sec-iterator.prototype.chunks)
pub(super) fn chunks(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_iterator(vm, this, "chunks")?;
    let size = size_arg(vm, o, vm.arg(args, 0), "chunks", "chunkSize")?;
    let next = next_method(vm, o)?;
    new_buffered(vm, super::CHUNKS, o, next, size, false)
}

/// [Iterator.prototype.windows](https://tc39.es/proposal-iterator-chunking/#sec-iterator.prototype.windows)
pub(super) fn windows(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_iterator(vm, this, "windows")?;
    let size = size_arg(vm, o, vm.arg(args, 0), "windows", "windowSize")?;
    // 5-6. undersized is "only-full" (the default) or "allow-partial", compared as is.
    let undersized = vm.arg(args, 1);
    let allow_partial = match undersized.as_string().map(|s| vm.heap.string_to_rust(s)) {
        None if undersized.is_undefined() => false,
        Some(s) if s == "only-full" => false,
        Some(s) if s == "allow-partial" => true,
        _ => {
            let what = vm.display(undersized);
            let e = vm.type_error(format!(
                "Iterator.prototype.windows: undersized must be \"only-full\" or \"allow-partial\", not {what}"
            ));
            return Err(vm.iterator_close_after_throw(o, e));
        }
    };
    let next = next_method(vm, o)?;
    new_buffered(vm, super::WINDOWS, o, next, size, allow_partial)
}

/// A chunk or window size: an integral Number from 1 to 2^32 - 1, else the receiver is
/// closed with a TypeError (not an integral Number) or a RangeError (out of range).
fn size_arg(vm: &mut Vm, o: Value, size: Value, method: &str, name: &str) -> JsResult<f64> {
    let n = size
        .as_number()
        .filter(|n| n.is_finite() && n.fract() == 0.0);
    let Some(n) = n else {
        let what = vm.display(size);
        let e = vm.type_error(format!(
            "Iterator.prototype.{method}: {name} must be an integer, not {what}"
        ));
        return Err(vm.iterator_close_after_throw(o, e));
    };
    if !(1.0..=4294967295.0).contains(&n) {
        let e = vm.range_error(format!(
            "Iterator.prototype.{method}: {name} must be between 1 and 2^32 - 1"
        ));
        return Err(vm.iterator_close_after_throw(o, e));
    }
    Ok(n)
}

fn new_buffered(
    vm: &mut Vm,
    kind: i32,
    iterator: Value,
    next: Value,
    size: f64,
    allow_partial: bool,
) -> JsResult<Value> {
    let helper = new_helper(vm, kind, iterator, next, Value::UNDEFINED, size)?;
    let cell = super::helper_cell(vm, helper, "Iterator.prototype.chunks")?;
    let buffer = vm.array_from_values(Vec::new());
    cell_set(vm, cell, Slot::Inner as usize, Value::object(buffer));
    cell_set(vm, cell, Slot::Counter as usize, Value::bool(allow_partial));
    Ok(helper)
}

/// One step of chunks' or windows' closure: the next array to yield, or None at the end.
pub(super) fn buffered_step(vm: &mut Vm, cell: ObjectId, windows: bool) -> JsResult<Option<Value>> {
    let size = cell_get(vm, cell, Slot::Remaining as usize)
        .as_number()
        .unwrap_or(1.0) as usize;
    let allow_partial = cell_get(vm, cell, Slot::Counter as usize) == Value::TRUE;
    let Some(buffer) = cell_get(vm, cell, Slot::Inner as usize).as_object() else {
        return Ok(None);
    };
    loop {
        let iterator = cell_get(vm, cell, Slot::Iterator as usize);
        if !iterator.is_object() {
            return Ok(None);
        }
        let next = cell_get(vm, cell, Slot::Next as usize);
        let (value, done) = vm.iterator_step(iterator, next)?;
        if done {
            cell_set(vm, cell, Slot::Iterator as usize, Value::UNDEFINED);
            let held = buffered(vm, buffer).len();
            let partial = if windows {
                allow_partial && held > 0 && held < size
            } else {
                held > 0
            };
            return Ok(partial.then(|| take_or_copy(vm, cell, buffer, windows)));
        }
        vm.charge(1)?;
        if let Elements::Dense(v) = &mut vm.heap.object_mut(buffer).elements {
            if windows && v.len() == size {
                v.pop_front();
            }
            v.push(value);
        }
        vm.heap.note_growth(8);
        if buffered(vm, buffer).len() == size {
            return Ok(Some(take_or_copy(vm, cell, buffer, windows)));
        }
    }
}

fn buffered(vm: &Vm, buffer: ObjectId) -> &[Value] {
    match &vm.heap.object(buffer).elements {
        Elements::Dense(v) => v,
        Elements::Sparse(_) => &[],
    }
}

/// The array to yield: a window is a copy (the buffer slides on); a chunk is the buffer
/// itself, replaced by a fresh one.
fn take_or_copy(vm: &mut Vm, cell: ObjectId, buffer: ObjectId, windows: bool) -> Value {
    if windows {
        let values = buffered(vm, buffer).to_vec();
        return Value::object(vm.array_from_values(values));
    }
    let fresh = vm.array_from_values(Vec::new());
    cell_set(vm, cell, Slot::Inner as usize, Value::object(fresh));
    Value::object(buffer)
}
