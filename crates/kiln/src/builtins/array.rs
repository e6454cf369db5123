//! `Array` and `Array.prototype`
//! ([spec](https://tc39.es/ecma262/#sec-array-objects)).
//!
//! Every method has a generic path that follows the spec over any array-like
//! object. Fast paths work on dense arrays where the result cannot be told
//! apart from the generic path: an own data element is read without running
//! JavaScript ([`fast_element`]), and a write to a missing index only creates
//! an own property when no prototype has indexed properties ([`protos_clean`]).

use super::make_constructor;
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::convert::number_to_string;
use crate::interpreter::{Args, Vm};
use crate::object::{
    Attrs, DenseElements, Elements, IterationKind, Object, ObjectKind, PropertyKey,
};
use crate::value::Value;
use std::cmp::Ordering;

/// 2^53 - 1: the largest length of an array-like object.
const MAX_SAFE_INTEGER: f64 = 9007199254740991.0;
/// 2^32 - 1: the largest array length.
const MAX_ARRAY_LENGTH: f64 = 4294967295.0;
/// The most values a sort collects (the list lives outside the heap budget).
const MAX_SORT_ITEMS: usize = 1 << 27;
/// Nesting depth beyond which `flat` gives up rather than exhaust the Rust stack.
const MAX_FLATTEN_DEPTH: u32 = 2_000;

pub fn init(vm: &mut Vm) {
    let proto = vm.heap.new_object(
        Some(vm.intrinsics.object_prototype),
        ObjectKind::Array {
            length_writable: true,
        },
    );
    vm.intrinsics.array_prototype = proto;
    let ctor = make_constructor(vm, "Array", array_constructor, 1, proto);
    vm.intrinsics.array = ctor;
    vm.define_native(ctor, "isArray", is_array, 1);
    vm.define_native(ctor, "from", from, 1);
    vm.define_native(ctor, "fromAsync", super::array_from_async::from_async, 1);
    vm.define_native(ctor, "of", of, 0);
    super::define_species(vm, ctor);

    let methods: [(&str, crate::object::NativeFn, u32); 37] = [
        ("at", at, 1),
        ("concat", concat, 1),
        ("copyWithin", copy_within, 2),
        ("entries", entries, 0),
        ("every", every, 1),
        ("fill", fill, 1),
        ("filter", filter, 1),
        ("find", find, 1),
        ("findIndex", find_index, 1),
        ("findLast", find_last, 1),
        ("findLastIndex", find_last_index, 1),
        ("flat", flat, 0),
        ("flatMap", flat_map, 1),
        ("forEach", for_each, 1),
        ("includes", includes, 1),
        ("indexOf", index_of, 1),
        ("join", join, 1),
        ("keys", keys, 0),
        ("lastIndexOf", last_index_of, 1),
        ("map", map, 1),
        ("pop", pop, 0),
        ("push", push, 1),
        ("reduce", reduce, 1),
        ("reduceRight", reduce_right, 1),
        ("reverse", reverse, 0),
        ("shift", shift, 0),
        ("slice", slice, 2),
        ("some", some, 1),
        ("sort", sort, 1),
        ("splice", splice, 2),
        ("toLocaleString", to_locale_string, 0),
        ("toReversed", to_reversed, 0),
        ("toSorted", to_sorted, 1),
        ("toSpliced", to_spliced, 2),
        ("toString", to_string, 0),
        ("unshift", unshift, 1),
        ("with", with, 2),
    ];
    for (name, f, len) in methods {
        vm.define_native(proto, name, f, len);
    }
    let values = vm.define_native(proto, "values", values, 0);
    vm.intrinsics.array_prototype_values = values;
    vm.define_builtin(
        proto,
        PropertyKey::Symbol(vm.symbols.iterator),
        Value::object(values),
        Attrs::HIDDEN,
    );

    // 23.1.3.41 Array.prototype [ %Symbol.unscopables% ]
    let unscopables = vm.heap.new_object(None, ObjectKind::Ordinary);
    for name in [
        "at",
        "copyWithin",
        "entries",
        "fill",
        "find",
        "findIndex",
        "findLast",
        "findLastIndex",
        "flat",
        "flatMap",
        "includes",
        "keys",
        "toReversed",
        "toSorted",
        "toSpliced",
        "values",
    ] {
        let key = vm.key(name);
        vm.define_builtin(unscopables, key, Value::TRUE, Attrs::DEFAULT);
    }
    vm.define_builtin(
        proto,
        PropertyKey::Symbol(vm.symbols.unscopables),
        Value::object(unscopables),
        Attrs::CONFIGURABLE_ONLY,
    );
}

impl Vm {
    /// A new empty array with room for `capacity` elements.
    pub fn new_array_with_capacity(&mut self, capacity: usize) -> ObjectId {
        let proto = self.intrinsics.array_prototype;
        let a = self.heap.new_object(
            Some(proto),
            ObjectKind::Array {
                length_writable: true,
            },
        );
        if capacity > 0 {
            self.heap.object_mut(a).elements = Elements::Dense(Vec::with_capacity(capacity).into());
            self.heap.note_growth(capacity * 8);
        }
        a
    }

    /// [CreateArrayFromList](https://tc39.es/ecma262/#sec-createarrayfromlist)
    pub fn array_from_values(&mut self, values: Vec<Value>) -> ObjectId {
        let proto = self.intrinsics.array_prototype;
        let a = self.heap.new_object(
            Some(proto),
            ObjectKind::Array {
                length_writable: true,
            },
        );
        self.heap.note_growth(values.capacity() * 8);
        self.heap.object_mut(a).elements = Elements::Dense(values.into());
        a
    }
}

// ---- abstract operations and helpers ----

/// The property key of index `k` (a string key from 2^32 - 1 up).
fn index_key(vm: &mut Vm, k: f64) -> PropertyKey {
    if (0.0..MAX_ARRAY_LENGTH).contains(&k) {
        PropertyKey::Index(k as u32)
    } else {
        let s = number_to_string(k);
        vm.key(&s)
    }
}

/// Own element `k` of an array or ordinary object with dense elements, if
/// present. Reading an own data property runs no JavaScript, so callers may use
/// it in place of HasProperty + Get.
/// String wrappers answer their indices from the string.
#[inline]
fn fast_element(vm: &mut Vm, o: ObjectId, k: f64) -> Option<Value> {
    let obj = vm.heap.object(o);
    match obj.kind {
        ObjectKind::Array { .. } | ObjectKind::Ordinary => {}
        ObjectKind::String(s) if k < vm.heap.string_len(s) as f64 => {
            let unit = vm.heap.units(s).at(k as usize);
            return Some(Value::string(vm.heap.single_unit_string(unit)));
        }
        _ => return None,
    }
    match &obj.elements {
        Elements::Dense(v) if k < v.len() as f64 => Some(v[k as usize]).filter(|v| !v.is_hole()),
        _ => None,
    }
}

/// Get(O, ! ToString(k))
fn get_at(vm: &mut Vm, o: ObjectId, k: f64) -> JsResult<Value> {
    if let Some(v) = fast_element(vm, o, k) {
        return Ok(v);
    }
    let key = index_key(vm, k);
    vm.get(Value::object(o), key)
}

/// HasProperty(O, k) then Get(O, k): None when the element is absent.
fn get_if_present(vm: &mut Vm, o: ObjectId, k: f64) -> JsResult<Option<Value>> {
    if let Some(v) = fast_element(vm, o, k) {
        return Ok(Some(v));
    }
    let key = index_key(vm, k);
    if !vm.has_property(o, key)? {
        return Ok(None);
    }
    Ok(Some(vm.get(Value::object(o), key)?))
}

/// Set(O, k, v, true)
fn set_at(vm: &mut Vm, o: ObjectId, k: f64, v: Value) -> JsResult<()> {
    let key = index_key(vm, k);
    set_key(vm, o, key, v)
}

fn set_key(vm: &mut Vm, o: ObjectId, key: PropertyKey, v: Value) -> JsResult<()> {
    if !vm.set(Value::object(o), key, v, Value::object(o))? {
        let k = vm.key_to_display(key);
        return Err(vm.type_error(format!("Cannot assign to read only property '{k}'")));
    }
    Ok(())
}

/// Set(O, "length", len, true)
pub(super) fn set_length(vm: &mut Vm, o: ObjectId, len: f64) -> JsResult<()> {
    let key = PropertyKey::String(vm.atoms.length);
    set_key(vm, o, key, Value::number(len))
}

/// DeletePropertyOrThrow(O, k)
fn delete_at(vm: &mut Vm, o: ObjectId, k: f64) -> JsResult<()> {
    let key = index_key(vm, k);
    if !vm.delete_property(o, key)? {
        let k = vm.key_to_display(key);
        return Err(vm.type_error(format!("Cannot delete property '{k}'")));
    }
    Ok(())
}

/// CreateDataPropertyOrThrow(A, k, v)
pub(super) fn create_at(vm: &mut Vm, a: ObjectId, k: f64, v: Value) -> JsResult<()> {
    let key = index_key(vm, k);
    vm.create_data_property_or_throw(a, key, v)
}

/// ToObject(this value), kept reachable for the rest of the native call.
fn this_object(vm: &mut Vm, this: Value) -> JsResult<ObjectId> {
    let o = vm.to_object(this)?;
    vm.roots.push(Value::object(o));
    Ok(o)
}

/// The callback argument, or a TypeError.
pub(crate) fn callable(vm: &mut Vm, f: Value) -> JsResult<Value> {
    if !vm.is_callable(f) {
        let what = vm.display(f);
        return Err(vm.type_error(format!("{what} is not a function")));
    }
    Ok(f)
}

/// A relative start index (`start < 0` counts from `len`), clamped to `0..=len`.
pub(crate) fn relative_index(vm: &mut Vm, v: Value, len: f64) -> JsResult<f64> {
    let r = vm.to_integer(v)?;
    Ok(if r < 0.0 {
        (len + r).max(0.0)
    } else {
        r.min(len)
    })
}

/// A relative end index: `len` when undefined.
pub(crate) fn relative_end(vm: &mut Vm, v: Value, len: f64) -> JsResult<f64> {
    if v.is_undefined() {
        Ok(len)
    } else {
        relative_index(vm, v, len)
    }
}

/// End the run once the heap passes its limit (checked every 64K steps of long loops).
fn heap_guard(vm: &mut Vm, k: f64) -> JsResult<()> {
    if (k as u64) & 0xFFFF == 0xFFFF && vm.heap.bytes() > vm.limits.max_heap_bytes {
        return Err(vm.terminate(crate::interpreter::Termination::HeapLimit));
    }
    Ok(())
}

fn elements_empty(o: &Object) -> bool {
    match &o.elements {
        Elements::Dense(v) => v.iter().all(|v| v.is_hole()),
        Elements::Sparse(s) => s.map.is_empty(),
    }
}

/// True when `o`'s prototype chain is the intrinsic `Array.prototype` then
/// `Object.prototype` and neither has indexed properties: a missing index of
/// `o` then reads as undefined and a write to it creates an own property,
/// without running JavaScript.
fn protos_clean(vm: &Vm, o: ObjectId) -> bool {
    let array_proto = vm.intrinsics.array_prototype;
    let object_proto = vm.intrinsics.object_prototype;
    if vm.heap.object(o).proto != Some(array_proto) {
        return false;
    }
    let ap = vm.heap.object(array_proto);
    if ap.proto != Some(object_proto) || !elements_empty(ap) {
        return false;
    }
    let op = vm.heap.object(object_proto);
    op.proto.is_none() && elements_empty(op)
}

/// The elements of an array with dense storage, writable length and no holes.
fn packed_elements(vm: &mut Vm, o: ObjectId) -> Option<&mut DenseElements> {
    dense_elements(vm, o).filter(|v| !v.iter().any(|v| v.is_hole()))
}

/// The elements of an array with dense storage and writable length, when its
/// prototypes are clean and it is extensible: then moving elements, holes included,
/// only reads, overwrites, creates and deletes own data elements, without running
/// JavaScript, so a built-in may move them directly.
fn movable_elements(vm: &mut Vm, o: ObjectId) -> Option<&mut DenseElements> {
    if !protos_clean(vm, o) || !vm.heap.object(o).extensible {
        return None;
    }
    dense_elements(vm, o)
}

/// The dense elements of an array with writable length.
fn dense_elements(vm: &mut Vm, o: ObjectId) -> Option<&mut DenseElements> {
    let obj = vm.heap.object_mut(o);
    if !matches!(
        obj.kind,
        ObjectKind::Array {
            length_writable: true
        }
    ) {
        return None;
    }
    match &mut obj.elements {
        Elements::Dense(v) => Some(v),
        Elements::Sparse(_) => None,
    }
}

/// [ArrayCreate](https://tc39.es/ecma262/#sec-arraycreate) with %Array.prototype%.
fn array_create(vm: &mut Vm, len: f64) -> JsResult<ObjectId> {
    if len > MAX_ARRAY_LENGTH {
        return Err(vm.range_error("Invalid array length"));
    }
    let a = vm.new_array_with_capacity(0);
    if len > 0.0 {
        vm.heap.set_array_length(a, len as u32);
    }
    Ok(a)
}

/// [ArraySpeciesCreate](https://tc39.es/ecma262/#sec-arrayspeciescreate): the new
/// object, and whether it is a fresh intrinsic array (so fast paths may fill it).
fn array_species_create(vm: &mut Vm, original: ObjectId, len: f64) -> JsResult<(ObjectId, bool)> {
    // 1-2. If IsArray(originalArray) is false, return ? ArrayCreate(length).
    if !super::object::is_array(vm, Value::object(original))? {
        return Ok((array_create(vm, len)?, true));
    }
    // 3. Let C be ? Get(originalArray, "constructor").
    let mut c = vm.get(
        Value::object(original),
        PropertyKey::String(vm.atoms.constructor),
    )?;
    // 4. If IsConstructor(C) is true: if C is another realm's %Array%, set C to undefined
    //    (an array made in one realm from another's does not become the other's kind).
    if let Some(f) = c.as_object()
        && vm.is_constructor(c)
    {
        let realm = vm.function_realm(f)?;
        if realm != vm.realm && f == vm.realm_intrinsics(realm).array {
            c = Value::UNDEFINED;
        }
    }
    // 5. If C is an Object, set C to ? Get(C, %Symbol.species%); null becomes undefined.
    if c.is_object() {
        c = vm.get(c, PropertyKey::Symbol(vm.symbols.species))?;
        if c.is_null() {
            c = Value::UNDEFINED;
        }
    }
    // 6. If C is undefined, return ? ArrayCreate(length).
    // Construct(%Array%, «length») is ArrayCreate too: %Array%.prototype cannot change.
    if c.is_undefined() || c == Value::object(vm.intrinsics.array) {
        return Ok((array_create(vm, len)?, true));
    }
    // 7. If IsConstructor(C) is false, throw a TypeError exception.
    if !vm.is_constructor(c) {
        return Err(vm.type_error("object.constructor[Symbol.species] is not a constructor"));
    }
    // 8. Return ? Construct(C, « 𝔽(length) »).
    let a = vm.construct(c, &[Value::number(len)], None)?;
    match a.as_object() {
        Some(a) => {
            vm.roots.push(Value::object(a));
            Ok((a, false))
        }
        None => Err(vm.type_error("Array species constructor returned a non-object")),
    }
}

/// `this` as a constructor for Array.from / Array.of, or ArrayCreate.
pub(super) fn construct_this_or_array(
    vm: &mut Vm,
    c: Value,
    len: Option<f64>,
) -> JsResult<ObjectId> {
    // Construct(%Array%) is ArrayCreate: %Array%.prototype cannot change.
    if vm.is_constructor(c) && c != Value::object(vm.intrinsics.array) {
        let args: Vec<Value> = len.map(Value::number).into_iter().collect();
        let a = vm.construct(c, &args, None)?;
        return match a.as_object() {
            Some(a) => {
                vm.roots.push(Value::object(a));
                Ok(a)
            }
            None => Err(vm.type_error("constructor returned a non-object")),
        };
    }
    let a = array_create(vm, len.unwrap_or(0.0))?;
    vm.roots.push(Value::object(a));
    Ok(a)
}

// ---- the constructor and its functions ----

/// [Array](https://tc39.es/ecma262/#sec-array)
fn array_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let new_target = if args.new_target.is_undefined() {
        Value::object(vm.native_callee)
    } else {
        args.new_target
    };
    let proto = vm.prototype_from_constructor(new_target, |i| i.array_prototype)?;
    let arr = vm.heap.new_object(
        Some(proto),
        ObjectKind::Array {
            length_writable: true,
        },
    );
    if args.count == 1 {
        let len = vm.arg(args, 0);
        if let Some(n) = len.as_number() {
            let int_len = crate::interpreter::convert::f64_to_int32(n) as u32;
            if int_len as f64 != n {
                return Err(vm.range_error("Invalid array length"));
            }
            vm.heap.set_array_length(arr, int_len);
        } else {
            vm.heap.object_mut(arr).elements = Elements::Dense(vec![len].into());
        }
    } else {
        let values = vm.arg_vec(args);
        vm.heap.object_mut(arr).elements = Elements::Dense(values.into());
    }
    Ok(Value::object(arr))
}

/// [Array.isArray](https://tc39.es/ecma262/#sec-array.isarray)
fn is_array(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    Ok(Value::bool(super::object::is_array(vm, vm.arg(args, 0))?))
}

/// [Array.from](https://tc39.es/ecma262/#sec-array.from)
fn from(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let c = this;
    let items = vm.arg(args, 0);
    let mapfn = vm.arg(args, 1);
    let this_arg = vm.arg(args, 2);
    // 2-3. mapfn must be callable when present.
    let mapping = !mapfn.is_undefined();
    if mapping {
        callable(vm, mapfn)?;
    }
    // 4. Let usingIterator be ? GetMethod(items, %Symbol.iterator%).
    let using_iterator = if items.is_nullish() {
        Value::UNDEFINED
    } else {
        let m = vm.get(items, PropertyKey::Symbol(vm.symbols.iterator))?;
        if m.is_nullish() {
            Value::UNDEFINED
        } else if !vm.is_callable(m) {
            return Err(vm.type_error("Symbol.iterator is not a function"));
        } else {
            m
        }
    };
    // 5. Iterable path.
    if !using_iterator.is_undefined() {
        let a = construct_this_or_array(vm, c, None)?;
        let (iter, next) = vm.get_iterator_from_method(items, using_iterator)?;
        vm.roots.push(iter);
        let mut k = 0.0;
        loop {
            let (value, done) = vm.iterator_step(iter, next)?;
            if done {
                set_length(vm, a, k)?;
                return Ok(Value::object(a));
            }
            let step: JsResult<()> = (|| {
                if k >= MAX_SAFE_INTEGER {
                    return Err(vm.type_error("Array.from: too many elements"));
                }
                let mapped = if mapping {
                    vm.call(mapfn, this_arg, &[value, Value::number(k)])?
                } else {
                    value
                };
                heap_guard(vm, k)?;
                create_at(vm, a, k, mapped)
            })();
            if let Err(thrown) = step {
                return Err(vm.iterator_close_after_throw(iter, thrown));
            }
            k += 1.0;
        }
    }
    // 6-7. Array-like path.
    let array_like = this_object(vm, items)?;
    let len = vm.length_of_array_like(Value::object(array_like))?;
    let a = construct_this_or_array(vm, c, Some(len))?;
    let mut k = 0.0;
    while k < len {
        let v = get_at(vm, array_like, k)?;
        let mapped = if mapping {
            vm.call(mapfn, this_arg, &[v, Value::number(k)])?
        } else {
            v
        };
        heap_guard(vm, k)?;
        create_at(vm, a, k, mapped)?;
        k += 1.0;
    }
    set_length(vm, a, len)?;
    Ok(Value::object(a))
}

/// [Array.of](https://tc39.es/ecma262/#sec-array.of)
fn of(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let len = args.count as f64;
    let a = construct_this_or_array(vm, this, Some(len))?;
    for k in 0..args.count as usize {
        let v = vm.arg(args, k);
        create_at(vm, a, k as f64, v)?;
    }
    set_length(vm, a, len)?;
    Ok(Value::object(a))
}

// ---- Array.prototype ----

/// [Array.prototype.at](https://tc39.es/ecma262/#sec-array.prototype.at)
fn at(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let rel = vm.to_integer(vm.arg(args, 0))?;
    let k = if rel >= 0.0 { rel } else { len + rel };
    if k < 0.0 || k >= len {
        return Ok(Value::UNDEFINED);
    }
    get_at(vm, o, k)
}

/// [IsConcatSpreadable](https://tc39.es/ecma262/#sec-isconcatspreadable)
fn is_concat_spreadable(vm: &mut Vm, v: Value) -> JsResult<bool> {
    if !v.is_object() {
        return Ok(false);
    }
    let spreadable = vm.get(v, PropertyKey::Symbol(vm.symbols.is_concat_spreadable))?;
    if !spreadable.is_undefined() {
        return Ok(vm.to_boolean(spreadable));
    }
    super::object::is_array(vm, v)
}

/// [Array.prototype.concat](https://tc39.es/ecma262/#sec-array.prototype.concat)
fn concat(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let (a, fresh) = array_species_create(vm, o, 0.0)?;
    vm.roots.push(Value::object(a));
    let mut n = 0.0;
    let count = args.count as usize;
    for i in 0..=count {
        let e = if i == 0 {
            Value::object(o)
        } else {
            vm.arg(args, i - 1)
        };
        if is_concat_spreadable(vm, e)? {
            let Some(eo) = e.as_object() else {
                continue;
            };
            let len = vm.length_of_array_like(e)?;
            if n + len > MAX_SAFE_INTEGER {
                return Err(vm.type_error("Array.prototype.concat: result too long"));
            }
            // Fast path: appending a packed array to the fresh result we are building
            // copies own data elements, which reading one by one would find too.
            // The result's storage grows once, reserved before it is allocated (old and
            // new storage exist together while it moves); the source is read in place.
            if fresh && vm.heap.object(eo).is_array() && n + len <= MAX_ARRAY_LENGTH {
                let packed = matches!(&vm.heap.object(eo).elements,
                    Elements::Dense(v) if !v.iter().any(|v| v.is_hole()));
                let target = match &vm.heap.object(a).elements {
                    Elements::Dense(t) if packed && t.len() as f64 == n => {
                        Some((t.len(), t.capacity()))
                    }
                    _ => None,
                };
                if let Some((target_len, capacity)) = target {
                    let needed = target_len + len as usize;
                    let grown = if needed > capacity {
                        needed.max(capacity * 2)
                    } else {
                        capacity
                    };
                    vm.check_room(grown * size_of::<Value>())?;
                    vm.heap.note_growth((grown - capacity) * size_of::<Value>());
                    let mut elements = std::mem::replace(
                        &mut vm.heap.object_mut(a).elements,
                        Elements::Dense(Default::default()),
                    );
                    if let (Elements::Dense(target), Elements::Dense(source)) =
                        (&mut elements, &vm.heap.object(eo).elements)
                    {
                        target.reserve(grown - target_len);
                        target.extend_from_slice(source);
                    }
                    vm.heap.object_mut(a).elements = elements;
                    n += len;
                    continue;
                }
            }
            let mut k = 0.0;
            while k < len {
                if let Some(v) = get_if_present(vm, eo, k)? {
                    heap_guard(vm, n)?;
                    create_at(vm, a, n, v)?;
                }
                n += 1.0;
                k += 1.0;
            }
        } else {
            if n >= MAX_SAFE_INTEGER {
                return Err(vm.type_error("Array.prototype.concat: result too long"));
            }
            create_at(vm, a, n, e)?;
            n += 1.0;
        }
    }
    set_length(vm, a, n)?;
    Ok(Value::object(a))
}

/// [Array.prototype.copyWithin](https://tc39.es/ecma262/#sec-array.prototype.copywithin)
fn copy_within(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let to = relative_index(vm, vm.arg(args, 0), len)?;
    let from = relative_index(vm, vm.arg(args, 1), len)?;
    let end = relative_end(vm, vm.arg(args, 2), len)?;
    let count = (end - from).min(len - to);
    if count <= 0.0 {
        return Ok(Value::object(o));
    }
    // Fast path: within a packed array every element read and written is an own data property.
    if let Some(v) = packed_elements(vm, o)
        && v.len() as f64 == len
    {
        let (from, to, count) = (from as usize, to as usize, count as usize);
        v.copy_within(from..from + count, to);
        return Ok(Value::object(o));
    }
    let (mut from, mut to, mut count) = (from, to, count);
    let direction = if from < to && to < from + count {
        from += count - 1.0;
        to += count - 1.0;
        -1.0
    } else {
        1.0
    };
    while count > 0.0 {
        match get_if_present(vm, o, from)? {
            Some(v) => set_at(vm, o, to, v)?,
            None => delete_at(vm, o, to)?,
        }
        from += direction;
        to += direction;
        count -= 1.0;
    }
    Ok(Value::object(o))
}

/// [Array.prototype.entries](https://tc39.es/ecma262/#sec-array.prototype.entries)
fn entries(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let obj = vm.to_object(this)?;
    Ok(vm.new_array_iterator(Value::object(obj), IterationKind::Entries))
}

/// [Array.prototype.keys](https://tc39.es/ecma262/#sec-array.prototype.keys)
fn keys(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let obj = vm.to_object(this)?;
    Ok(vm.new_array_iterator(Value::object(obj), IterationKind::Keys))
}

/// [Array.prototype.values](https://tc39.es/ecma262/#sec-array.prototype.values)
fn values(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let obj = vm.to_object(this)?;
    Ok(vm.new_array_iterator(Value::object(obj), IterationKind::Values))
}

/// The shared loop of `every` and `some`: stop at the first callback result equal to `stop_on`.
fn every_or_some(vm: &mut Vm, this: Value, args: Args, stop_on: bool) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let f = callable(vm, vm.arg(args, 0))?;
    let this_arg = vm.arg(args, 1);
    let mut k = 0.0;
    while k < len {
        if let Some(v) = get_if_present(vm, o, k)? {
            let r = vm.call(f, this_arg, &[v, Value::number(k), Value::object(o)])?;
            if vm.to_boolean(r) == stop_on {
                return Ok(Value::bool(stop_on));
            }
        }
        k += 1.0;
    }
    Ok(Value::bool(!stop_on))
}

/// [Array.prototype.every](https://tc39.es/ecma262/#sec-array.prototype.every)
fn every(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    every_or_some(vm, this, args, false)
}

/// [Array.prototype.some](https://tc39.es/ecma262/#sec-array.prototype.some)
fn some(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    every_or_some(vm, this, args, true)
}

/// [Array.prototype.fill](https://tc39.es/ecma262/#sec-array.prototype.fill)
fn fill(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let value = vm.arg(args, 0);
    let k = relative_index(vm, vm.arg(args, 1), len)?;
    let end = relative_end(vm, vm.arg(args, 2), len)?;
    if k >= end {
        return Ok(Value::object(o));
    }
    // An array this large cannot be stored: refuse rather than exhaust memory.
    if vm.heap.object(o).is_array() && end - k > (1u64 << 28) as f64 {
        return Err(vm.range_error("Invalid array length"));
    }
    // Fast path: writing a dense array with clean prototypes creates or overwrites own
    // data elements only.
    if protos_clean(vm, o) && vm.heap.object(o).extensible {
        let obj = vm.heap.object_mut(o);
        if let (
            ObjectKind::Array {
                length_writable: true,
            },
            Elements::Dense(v),
        ) = (&obj.kind, &mut obj.elements)
            && v.len() as f64 == len
        {
            v[k as usize..end as usize].fill(value);
            return Ok(Value::object(o));
        }
    }
    let mut k = k;
    while k < end {
        heap_guard(vm, k)?;
        set_at(vm, o, k, value)?;
        k += 1.0;
    }
    Ok(Value::object(o))
}

/// [Array.prototype.filter](https://tc39.es/ecma262/#sec-array.prototype.filter)
fn filter(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let f = callable(vm, vm.arg(args, 0))?;
    let this_arg = vm.arg(args, 1);
    let (a, _) = array_species_create(vm, o, 0.0)?;
    vm.roots.push(Value::object(a));
    let mut k = 0.0;
    let mut to = 0.0;
    while k < len {
        if let Some(v) = get_if_present(vm, o, k)? {
            let mark = vm.roots.len();
            vm.roots.push(v);
            let selected = vm.call(f, this_arg, &[v, Value::number(k), Value::object(o)])?;
            if vm.to_boolean(selected) {
                create_at(vm, a, to, v)?;
                to += 1.0;
            }
            vm.roots.truncate(mark);
        }
        k += 1.0;
    }
    Ok(Value::object(a))
}

/// [FindViaPredicate](https://tc39.es/ecma262/#sec-findviapredicate): (index, value) or (-1, undefined).
fn find_via_predicate(
    vm: &mut Vm,
    this: Value,
    args: Args,
    ascending: bool,
) -> JsResult<(f64, Value)> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let f = callable(vm, vm.arg(args, 0))?;
    let this_arg = vm.arg(args, 1);
    let mut i = 0.0;
    while i < len {
        let k = if ascending { i } else { len - 1.0 - i };
        let v = get_at(vm, o, k)?;
        let mark = vm.roots.len();
        vm.roots.push(v);
        let r = vm.call(f, this_arg, &[v, Value::number(k), Value::object(o)])?;
        vm.roots.truncate(mark);
        if vm.to_boolean(r) {
            return Ok((k, v));
        }
        i += 1.0;
    }
    Ok((-1.0, Value::UNDEFINED))
}

/// [Array.prototype.find](https://tc39.es/ecma262/#sec-array.prototype.find)
fn find(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    Ok(find_via_predicate(vm, this, args, true)?.1)
}

/// [Array.prototype.findIndex](https://tc39.es/ecma262/#sec-array.prototype.findindex)
fn find_index(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    Ok(Value::number(find_via_predicate(vm, this, args, true)?.0))
}

/// [Array.prototype.findLast](https://tc39.es/ecma262/#sec-array.prototype.findlast)
fn find_last(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    Ok(find_via_predicate(vm, this, args, false)?.1)
}

/// [Array.prototype.findLastIndex](https://tc39.es/ecma262/#sec-array.prototype.findlastindex)
fn find_last_index(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    Ok(Value::number(find_via_predicate(vm, this, args, false)?.0))
}

/// [FlattenIntoArray](https://tc39.es/ecma262/#sec-flattenintoarray); `mapper` is
/// (function, thisArg) for flatMap; `level` counts the Rust recursion.
#[allow(clippy::too_many_arguments)]
fn flatten_into_array(
    vm: &mut Vm,
    target: ObjectId,
    source: ObjectId,
    source_len: f64,
    start: f64,
    depth: f64,
    mapper: Option<(Value, Value)>,
    level: u32,
) -> JsResult<f64> {
    if level > MAX_FLATTEN_DEPTH {
        return Err(vm.stack_overflow());
    }
    let mut target_index = start;
    let mut source_index = 0.0;
    while source_index < source_len {
        if let Some(mut element) = get_if_present(vm, source, source_index)? {
            if let Some((f, this_arg)) = mapper {
                element = vm.call(
                    f,
                    this_arg,
                    &[element, Value::number(source_index), Value::object(source)],
                )?;
            }
            let mark = vm.roots.len();
            vm.roots.push(element);
            let flatten = depth > 0.0 && super::object::is_array(vm, element)?;
            if let (true, Some(eo)) = (flatten, element.as_object()) {
                let new_depth = if depth == f64::INFINITY {
                    depth
                } else {
                    depth - 1.0
                };
                let element_len = vm.length_of_array_like(element)?;
                target_index = flatten_into_array(
                    vm,
                    target,
                    eo,
                    element_len,
                    target_index,
                    new_depth,
                    None,
                    level + 1,
                )?;
            } else {
                if target_index >= MAX_SAFE_INTEGER {
                    return Err(vm.type_error("Array.prototype.flat: result too long"));
                }
                heap_guard(vm, target_index)?;
                create_at(vm, target, target_index, element)?;
                target_index += 1.0;
            }
            vm.roots.truncate(mark);
        }
        source_index += 1.0;
    }
    Ok(target_index)
}

/// [Array.prototype.flat](https://tc39.es/ecma262/#sec-array.prototype.flat)
fn flat(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let depth_arg = vm.arg(args, 0);
    let depth = if depth_arg.is_undefined() {
        1.0
    } else {
        vm.to_integer(depth_arg)?.max(0.0)
    };
    let (a, _) = array_species_create(vm, o, 0.0)?;
    vm.roots.push(Value::object(a));
    flatten_into_array(vm, a, o, len, 0.0, depth, None, 0)?;
    Ok(Value::object(a))
}

/// [Array.prototype.flatMap](https://tc39.es/ecma262/#sec-array.prototype.flatmap)
fn flat_map(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let f = callable(vm, vm.arg(args, 0))?;
    let this_arg = vm.arg(args, 1);
    let (a, _) = array_species_create(vm, o, 0.0)?;
    vm.roots.push(Value::object(a));
    flatten_into_array(vm, a, o, len, 0.0, 1.0, Some((f, this_arg)), 0)?;
    Ok(Value::object(a))
}

/// [Array.prototype.forEach](https://tc39.es/ecma262/#sec-array.prototype.foreach)
fn for_each(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let f = callable(vm, vm.arg(args, 0))?;
    let this_arg = vm.arg(args, 1);
    let mut k = 0.0;
    while k < len {
        if let Some(v) = get_if_present(vm, o, k)? {
            vm.call(f, this_arg, &[v, Value::number(k), Value::object(o)])?;
        }
        k += 1.0;
    }
    Ok(Value::UNDEFINED)
}

/// [Array.prototype.includes](https://tc39.es/ecma262/#sec-array.prototype.includes)
fn includes(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    if len == 0.0 {
        return Ok(Value::FALSE);
    }
    let search = vm.arg(args, 0);
    let n = vm.to_integer(vm.arg(args, 1))?;
    let mut k = if n >= 0.0 { n } else { (len + n).max(0.0) };
    while k < len {
        let v = get_at(vm, o, k)?;
        if vm.same_value_zero(v, search) {
            return Ok(Value::TRUE);
        }
        k += 1.0;
    }
    Ok(Value::FALSE)
}

/// [Array.prototype.indexOf](https://tc39.es/ecma262/#sec-array.prototype.indexof)
fn index_of(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    if len == 0.0 {
        return Ok(Value::int(-1));
    }
    let search = vm.arg(args, 0);
    let n = vm.to_integer(vm.arg(args, 1))?;
    let mut k = if n >= 0.0 { n } else { (len + n).max(0.0) };
    while k < len {
        if let Some(v) = get_if_present(vm, o, k)?
            && vm.strict_equals(v, search)
        {
            return Ok(Value::number(k));
        }
        k += 1.0;
    }
    Ok(Value::int(-1))
}

/// [Array.prototype.lastIndexOf](https://tc39.es/ecma262/#sec-array.prototype.lastindexof)
fn last_index_of(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    if len == 0.0 {
        return Ok(Value::int(-1));
    }
    let search = vm.arg(args, 0);
    let n = if args.count >= 2 {
        vm.to_integer(vm.arg(args, 1))?
    } else {
        len - 1.0
    };
    if n == f64::NEG_INFINITY {
        return Ok(Value::int(-1));
    }
    let mut k = if n >= 0.0 { n.min(len - 1.0) } else { len + n };
    while k >= 0.0 {
        if let Some(v) = get_if_present(vm, o, k)?
            && vm.strict_equals(v, search)
        {
            return Ok(Value::number(k));
        }
        k -= 1.0;
    }
    Ok(Value::int(-1))
}

/// Append the code units of string `s` to `out`, within the maximum string length.
fn push_units(vm: &mut Vm, out: &mut Vec<u16>, s: crate::heap::StringId) -> JsResult<()> {
    let n = vm.heap.string_len(s) as usize;
    if out.len() + n > crate::MAX_STRING_LENGTH as usize {
        return Err(vm.range_error("Invalid string length"));
    }
    vm.grow_scratch(out, n)?;
    out.extend(vm.heap.units(s).iter());
    Ok(())
}

/// [Array.prototype.join](https://tc39.es/ecma262/#sec-array.prototype.join)
fn join(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let sep = vm.arg(args, 0);
    let sep: Vec<u16> = if sep.is_undefined() {
        vec![b',' as u16]
    } else {
        let s = vm.to_string(sep)?;
        vm.heap.units_vec(s)
    };
    let mut out: Vec<u16> = Vec::new();
    let mut k = 0.0;
    while k < len {
        if k > 0.0 {
            if out.len() + sep.len() > crate::MAX_STRING_LENGTH as usize {
                return Err(vm.range_error("Invalid string length"));
            }
            vm.grow_scratch(&mut out, sep.len())?;
            out.extend_from_slice(&sep);
        }
        vm.charge(1)?;
        let v = get_at(vm, o, k)?;
        if let Some(i) = v.as_int() {
            // Fast path: an int's decimal digits are its ToString, without a heap string.
            vm.grow_scratch(&mut out, 11)?;
            out.extend(i.to_string().bytes().map(u16::from));
        } else if !v.is_nullish() {
            let s = vm.to_string(v)?;
            push_units(vm, &mut out, s)?;
        }
        k += 1.0;
    }
    if out.len() > crate::MAX_STRING_LENGTH as usize {
        return Err(vm.range_error("Invalid string length"));
    }
    vm.charge_allocation(out.len() * 2)?;
    Ok(Value::string(vm.heap.alloc_units(&out)))
}

/// [Array.prototype.map](https://tc39.es/ecma262/#sec-array.prototype.map)
fn map(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let f = callable(vm, vm.arg(args, 0))?;
    let this_arg = vm.arg(args, 1);
    let (a, fresh) = array_species_create(vm, o, len)?;
    vm.roots.push(Value::object(a));
    // A fresh result as long as a dense source gets dense storage up front (memory the
    // source already spends), so the fast path below fills it in place.
    if fresh
        && len > 0.0
        && let Elements::Dense(source) = &vm.heap.object(o).elements
        && source.len() as f64 >= len
    {
        vm.heap.note_growth(len as usize * 8);
        vm.heap.object_mut(a).elements = Elements::Dense(vec![Value::HOLE; len as usize].into());
    }
    let mut k = 0.0;
    while k < len {
        if let Some(v) = get_if_present(vm, o, k)? {
            let mapped = vm.call(f, this_arg, &[v, Value::number(k), Value::object(o)])?;
            // Fast path: the fresh result's dense slot k is ours to fill (nothing else sees it yet).
            if fresh
                && let Elements::Dense(e) = &mut vm.heap.object_mut(a).elements
                && (k as usize) < e.len()
            {
                e[k as usize] = mapped;
            } else {
                create_at(vm, a, k, mapped)?;
            }
        }
        k += 1.0;
    }
    Ok(Value::object(a))
}

/// [Array.prototype.pop](https://tc39.es/ecma262/#sec-array.prototype.pop)
fn pop(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    // Fast path: removing the last own data element of a dense array with writable length.
    if let Some(o) = this.as_object() {
        let obj = vm.heap.object_mut(o);
        if let (
            ObjectKind::Array {
                length_writable: true,
            },
            Elements::Dense(v),
        ) = (&obj.kind, &mut obj.elements)
            && v.last().is_none_or(|v| !v.is_hole())
        {
            return Ok(v.pop().unwrap_or(Value::UNDEFINED));
        }
    }
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    if len == 0.0 {
        set_length(vm, o, 0.0)?;
        return Ok(Value::UNDEFINED);
    }
    let new_len = len - 1.0;
    let element = get_at(vm, o, new_len)?;
    vm.roots.push(element);
    delete_at(vm, o, new_len)?;
    set_length(vm, o, new_len)?;
    Ok(element)
}

/// [Array.prototype.push](https://tc39.es/ecma262/#sec-array.prototype.push)
fn push(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    // Fast path: appending to a dense array whose prototypes have no indexed
    // properties creates own data elements and nothing else.
    if let Some(o) = this.as_object()
        && protos_clean(vm, o)
        && vm.heap.object(o).extensible
    {
        let start = args.start as usize;
        let count = args.count as usize;
        let (stack, heap) = (&vm.stack, &mut vm.heap);
        let obj = heap.object_mut(o);
        if let (
            ObjectKind::Array {
                length_writable: true,
            },
            Elements::Dense(v),
        ) = (&obj.kind, &mut obj.elements)
            && v.len() + count < MAX_ARRAY_LENGTH as usize
        {
            let old = v.capacity();
            v.extend_from_slice(&stack[start..start + count]);
            let new_len = v.len();
            let grown = (v.capacity() - old) * 8;
            heap.note_growth(grown);
            return Ok(Value::number(new_len as f64));
        }
    }
    let obj = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(obj))?;
    let count = args.count as f64;
    if len + count > MAX_SAFE_INTEGER {
        return Err(vm.type_error("Pushing too many elements"));
    }
    for i in 0..args.count as usize {
        let v = vm.arg(args, i);
        set_at(vm, obj, len + i as f64, v)?;
    }
    set_length(vm, obj, len + count)?;
    Ok(Value::number(len + count))
}

/// The shared loop of `reduce` and `reduceRight`.
fn reduce_impl(vm: &mut Vm, this: Value, args: Args, ascending: bool) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let f = callable(vm, vm.arg(args, 0))?;
    let index = |i: f64| if ascending { i } else { len - 1.0 - i };
    let mut i = 0.0;
    let mut acc = if args.count >= 2 {
        vm.arg(args, 1)
    } else {
        let mut found = None;
        while i < len && found.is_none() {
            found = get_if_present(vm, o, index(i))?;
            i += 1.0;
        }
        match found {
            Some(v) => v,
            None => return Err(vm.type_error("Reduce of empty array with no initial value")),
        }
    };
    let mark = vm.roots.len();
    while i < len {
        let k = index(i);
        if let Some(v) = get_if_present(vm, o, k)? {
            vm.roots.truncate(mark);
            vm.roots.push(acc);
            acc = vm.call(
                f,
                Value::UNDEFINED,
                &[acc, v, Value::number(k), Value::object(o)],
            )?;
        }
        i += 1.0;
    }
    Ok(acc)
}

/// [Array.prototype.reduce](https://tc39.es/ecma262/#sec-array.prototype.reduce)
fn reduce(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    reduce_impl(vm, this, args, true)
}

/// [Array.prototype.reduceRight](https://tc39.es/ecma262/#sec-array.prototype.reduceright)
fn reduce_right(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    reduce_impl(vm, this, args, false)
}

/// [Array.prototype.reverse](https://tc39.es/ecma262/#sec-array.prototype.reverse)
fn reverse(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    // Fast path: swapping own data elements of a packed array runs no JavaScript.
    if let Some(v) = packed_elements(vm, o) {
        v.reverse();
        return Ok(Value::object(o));
    }
    let len = vm.length_of_array_like(Value::object(o))?;
    let middle = (len / 2.0).floor();
    let mut lower = 0.0;
    while lower != middle {
        let upper = len - lower - 1.0;
        let lower_value = get_if_present(vm, o, lower)?;
        let mark = vm.roots.len();
        vm.roots.extend(lower_value);
        let upper_value = get_if_present(vm, o, upper)?;
        match (lower_value, upper_value) {
            (Some(l), Some(u)) => {
                set_at(vm, o, lower, u)?;
                set_at(vm, o, upper, l)?;
            }
            (None, Some(u)) => {
                set_at(vm, o, lower, u)?;
                delete_at(vm, o, upper)?;
            }
            (Some(l), None) => {
                delete_at(vm, o, lower)?;
                set_at(vm, o, upper, l)?;
            }
            (None, None) => {}
        }
        vm.roots.truncate(mark);
        lower += 1.0;
    }
    Ok(Value::object(o))
}

/// [Array.prototype.shift](https://tc39.es/ecma262/#sec-array.prototype.shift)
fn shift(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    // Fast path: the elements move down by one (holes too), in O(1) amortised. In a
    // packed array every move reads and overwrites own data elements, whatever the
    // prototypes hold.
    if let Some(o) = this.as_object()
        && (movable_elements(vm, o).is_some() || packed_elements(vm, o).is_some())
        && let Some(v) = dense_elements(vm, o)
    {
        let (first, moved) = v.pop_front();
        vm.charge_elements(moved)?;
        let first = first.unwrap_or(Value::UNDEFINED);
        return Ok(if first.is_hole() {
            Value::UNDEFINED
        } else {
            first
        });
    }
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    if len == 0.0 {
        set_length(vm, o, 0.0)?;
        return Ok(Value::UNDEFINED);
    }
    let first = get_at(vm, o, 0.0)?;
    vm.roots.push(first);
    let mut k = 1.0;
    while k < len {
        match get_if_present(vm, o, k)? {
            Some(v) => set_at(vm, o, k - 1.0, v)?,
            None => delete_at(vm, o, k - 1.0)?,
        }
        k += 1.0;
    }
    delete_at(vm, o, len - 1.0)?;
    set_length(vm, o, len - 1.0)?;
    Ok(first)
}

/// [Array.prototype.slice](https://tc39.es/ecma262/#sec-array.prototype.slice)
fn slice(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let mut k = relative_index(vm, vm.arg(args, 0), len)?;
    let end = relative_end(vm, vm.arg(args, 1), len)?;
    let count = (end - k).max(0.0);
    let (a, fresh) = array_species_create(vm, o, count)?;
    vm.roots.push(Value::object(a));
    // Fast path: copying a run of own data elements into the fresh result.
    if fresh && k <= end && vm.heap.object(o).is_array() {
        let run = match &vm.heap.object(o).elements {
            Elements::Dense(v) if end as usize <= v.len() => {
                let run = &v[k as usize..end as usize];
                (!run.iter().any(|v| v.is_hole())).then(|| run.to_vec())
            }
            _ => None,
        };
        if let Some(run) = run {
            vm.heap.note_growth(run.len() * 8);
            vm.heap.object_mut(a).elements = Elements::Dense(run.into());
            return Ok(Value::object(a));
        }
    }
    let mut n = 0.0;
    while k < end {
        if let Some(v) = get_if_present(vm, o, k)? {
            create_at(vm, a, n, v)?;
        }
        k += 1.0;
        n += 1.0;
    }
    set_length(vm, a, n)?;
    Ok(Value::object(a))
}

// ---- sorting ----

/// The comparator of a sort: user function or the default string order.
#[derive(Clone, Copy)]
enum Comparator {
    Default,
    Function(Value),
}

/// [SortCompare](https://tc39.es/ecma262/#sec-sortcompare) with a user comparator:
/// true when `x` must come after `y`. Undefined values never reach it.
fn compare_greater(vm: &mut Vm, f: Value, x: Value, y: Value) -> JsResult<bool> {
    let v = vm.call(f, Value::UNDEFINED, &[x, y])?;
    let n = vm.to_number(v)?;
    Ok(n > 0.0)
}

/// A stable merge sort whose comparison may throw: insertion sort for short
/// runs, merging through a buffer. Any comparator answers (even inconsistent
/// ones) leave `items` a permutation of its input.
pub(crate) fn merge_sort(
    vm: &mut Vm,
    items: &mut [Value],
    greater: &mut dyn FnMut(&mut Vm, Value, Value) -> JsResult<bool>,
) -> JsResult<()> {
    const RUN: usize = 12;
    let n = items.len();
    // Insertion-sort runs of RUN elements.
    let mut start = 0;
    while start < n {
        let end = (start + RUN).min(n);
        for i in start + 1..end {
            let mut j = i;
            while j > start && greater(vm, items[j - 1], items[j])? {
                items.swap(j - 1, j);
                j -= 1;
            }
        }
        start = end;
    }
    // Merge runs of doubling width.
    let mut buffer: Vec<Value> = Vec::with_capacity(n / 2 + 1);
    let mut width = RUN;
    while width < n {
        let mut lo = 0;
        while lo + width < n {
            let mid = lo + width;
            let hi = (lo + 2 * width).min(n);
            // Already in order: nothing to merge.
            if greater(vm, items[mid - 1], items[mid])? {
                buffer.clear();
                buffer.extend_from_slice(&items[lo..mid]);
                let (mut i, mut j, mut k) = (0, mid, lo);
                while i < buffer.len() && j < hi {
                    if greater(vm, buffer[i], items[j])? {
                        items[k] = items[j];
                        j += 1;
                    } else {
                        items[k] = buffer[i];
                        i += 1;
                    }
                    k += 1;
                }
                while i < buffer.len() {
                    items[k] = buffer[i];
                    i += 1;
                    k += 1;
                }
            }
            lo = hi;
        }
        width *= 2;
    }
    Ok(())
}

/// Sort collected values per SortCompare: undefined last, then by the comparator.
/// The values must be reachable (on `vm.roots`) while a user comparator runs.
fn sort_values(vm: &mut Vm, items: &mut Vec<Value>, comparator: Comparator) -> JsResult<()> {
    let undefined_count = items.iter().filter(|v| v.is_undefined()).count();
    items.retain(|v| !v.is_undefined());
    match comparator {
        Comparator::Function(f) => {
            merge_sort(vm, items, &mut |vm, x, y| compare_greater(vm, f, x, y))?;
        }
        // One value or none: SortCompare, and the ToString it would call, never runs.
        Comparator::Default if items.len() < 2 => {}
        Comparator::Default => {
            let n = items.len() as u64;
            vm.charge(n * (64 - n.leading_zeros() as u64))?;
            // ToString each value once (the order of these calls is not observable beyond
            // what the spec allows: an implementation-defined number of SortCompare calls).
            let mark = vm.roots.len();
            let mut keyed: Vec<(Value, crate::heap::StringId)> = Vec::with_capacity(items.len());
            for &v in items.iter() {
                let s = vm.to_string(v)?;
                vm.roots.push(Value::string(s));
                keyed.push((v, s));
            }
            for &(_, s) in &keyed {
                vm.heap.flatten(s);
            }
            let heap = &vm.heap;
            // Code-unit order is a total order, so the standard stable sort applies.
            keyed.sort_by(|a, b| compare_units(heap, a.1, b.1));
            items.clear();
            items.extend(keyed.into_iter().map(|(v, _)| v));
            vm.roots.truncate(mark);
        }
    }
    items.extend(std::iter::repeat_n(Value::UNDEFINED, undefined_count));
    Ok(())
}

/// Compare two flat strings by code units.
fn compare_units(
    heap: &crate::heap::Heap,
    a: crate::heap::StringId,
    b: crate::heap::StringId,
) -> Ordering {
    heap.flat_units(a).cmp_units(heap.flat_units(b))
}

fn comparator_arg(vm: &mut Vm, v: Value) -> JsResult<Comparator> {
    if v.is_undefined() {
        Ok(Comparator::Default)
    } else if vm.is_callable(v) {
        Ok(Comparator::Function(v))
    } else {
        Err(vm.type_error("The comparison function must be either a function or undefined"))
    }
}

/// [SortIndexedProperties](https://tc39.es/ecma262/#sec-sortindexedproperties): the
/// sorted values, pushed on `vm.roots`.
fn sort_indexed_properties(
    vm: &mut Vm,
    o: ObjectId,
    len: f64,
    comparator: Comparator,
    skip_holes: bool,
) -> JsResult<Vec<Value>> {
    let mut items = Vec::new();
    let mut k = 0.0;
    while k < len {
        let v = if skip_holes {
            get_if_present(vm, o, k)?
        } else {
            Some(get_at(vm, o, k)?)
        };
        if let Some(v) = v {
            if items.len() >= MAX_SORT_ITEMS {
                return Err(vm.range_error("Invalid array length"));
            }
            vm.roots.push(v);
            items.push(v);
        }
        heap_guard(vm, k)?;
        k += 1.0;
    }
    sort_values(vm, &mut items, comparator)?;
    Ok(items)
}

/// [Array.prototype.sort](https://tc39.es/ecma262/#sec-array.prototype.sort)
fn sort(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let comparator = comparator_arg(vm, vm.arg(args, 0))?;
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let sorted = sort_indexed_properties(vm, o, len, comparator, true)?;
    let mut j = 0.0;
    for &v in &sorted {
        set_at(vm, o, j, v)?;
        j += 1.0;
    }
    // Holes were skipped: delete the indices past the sorted values.
    while j < len {
        delete_at(vm, o, j)?;
        j += 1.0;
    }
    Ok(Value::object(o))
}

/// [Array.prototype.toSorted](https://tc39.es/ecma262/#sec-array.prototype.tosorted)
fn to_sorted(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let comparator = comparator_arg(vm, vm.arg(args, 0))?;
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let a = array_create(vm, len)?;
    vm.roots.push(Value::object(a));
    let sorted = sort_indexed_properties(vm, o, len, comparator, false)?;
    vm.heap.note_growth(sorted.len() * 8);
    vm.heap.object_mut(a).elements = Elements::Dense(sorted.into());
    Ok(Value::object(a))
}

/// [Array.prototype.splice](https://tc39.es/ecma262/#sec-array.prototype.splice)
fn splice(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let actual_start = relative_index(vm, vm.arg(args, 0), len)?;
    let item_count = args.count.saturating_sub(2) as f64;
    let delete_count = if args.count == 0 {
        0.0
    } else if args.count == 1 {
        len - actual_start
    } else {
        let dc = vm.to_integer(vm.arg(args, 1))?;
        dc.clamp(0.0, len - actual_start)
    };
    if len + item_count - delete_count > MAX_SAFE_INTEGER {
        return Err(vm.type_error("Array.prototype.splice: result too long"));
    }
    let (a, fresh) = array_species_create(vm, o, delete_count)?;
    vm.roots.push(Value::object(a));
    let items: Vec<Value> = (2..args.count as usize).map(|i| vm.arg(args, i)).collect();

    // Fast path: moving the elements (holes too) only reads, overwrites, creates and
    // deletes own data elements; the fresh result only receives them.
    if fresh
        && let Some(v) = movable_elements(vm, o)
        && v.len() as f64 == len
        && len + item_count - delete_count < MAX_ARRAY_LENGTH
    {
        let start = actual_start as usize;
        let (removed, moved) = v.splice(start..start + delete_count as usize, items);
        vm.charge_elements(moved)?;
        vm.heap
            .note_growth(removed.len() * 8 + args.count as usize * 8);
        vm.heap.object_mut(a).elements = Elements::Dense(removed.into());
        return Ok(Value::object(a));
    }

    // 11-12. Copy the deleted elements into A.
    let mut k = 0.0;
    while k < delete_count {
        if let Some(v) = get_if_present(vm, o, actual_start + k)? {
            create_at(vm, a, k, v)?;
        }
        k += 1.0;
    }
    set_length(vm, a, delete_count)?;
    // 15-16. Move the tail.
    if item_count < delete_count {
        let mut k = actual_start;
        while k < len - delete_count {
            let from = k + delete_count;
            let to = k + item_count;
            match get_if_present(vm, o, from)? {
                Some(v) => set_at(vm, o, to, v)?,
                None => delete_at(vm, o, to)?,
            }
            k += 1.0;
        }
        let mut k = len;
        while k > len - delete_count + item_count {
            delete_at(vm, o, k - 1.0)?;
            k -= 1.0;
        }
    } else if item_count > delete_count {
        let mut k = len - delete_count;
        while k > actual_start {
            let from = k + delete_count - 1.0;
            let to = k + item_count - 1.0;
            match get_if_present(vm, o, from)? {
                Some(v) => set_at(vm, o, to, v)?,
                None => delete_at(vm, o, to)?,
            }
            k -= 1.0;
        }
    }
    // 17. Insert the items.
    for (i, item) in items.into_iter().enumerate() {
        set_at(vm, o, actual_start + i as f64, item)?;
    }
    set_length(vm, o, len - delete_count + item_count)?;
    Ok(Value::object(a))
}

/// [Array.prototype.toLocaleString](https://tc39.es/ecma262/#sec-array.prototype.tolocalestring)
fn to_locale_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let key = vm.key("toLocaleString");
    let mut out: Vec<u16> = Vec::new();
    let mut k = 0.0;
    while k < len {
        if k > 0.0 {
            out.push(b',' as u16);
        }
        let v = get_at(vm, o, k)?;
        if !v.is_nullish() {
            let mark = vm.roots.len();
            vm.roots.push(v);
            let f = vm.get(v, key)?;
            let r = vm.call(f, v, &[])?;
            let s = vm.to_string(r)?;
            push_units(vm, &mut out, s)?;
            vm.roots.truncate(mark);
        }
        k += 1.0;
    }
    Ok(Value::string(vm.heap.alloc_units(&out)))
}

/// [Array.prototype.toReversed](https://tc39.es/ecma262/#sec-array.prototype.toreversed)
fn to_reversed(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let a = array_create(vm, len)?;
    vm.roots.push(Value::object(a));
    let mut k = 0.0;
    while k < len {
        let v = get_at(vm, o, len - k - 1.0)?;
        heap_guard(vm, k)?;
        create_at(vm, a, k, v)?;
        k += 1.0;
    }
    Ok(Value::object(a))
}

/// [Array.prototype.toSpliced](https://tc39.es/ecma262/#sec-array.prototype.tospliced)
fn to_spliced(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let actual_start = relative_index(vm, vm.arg(args, 0), len)?;
    let insert_count = args.count.saturating_sub(2) as f64;
    let skip_count = if args.count == 0 {
        0.0
    } else if args.count == 1 {
        len - actual_start
    } else {
        let sc = vm.to_integer(vm.arg(args, 1))?;
        sc.clamp(0.0, len - actual_start)
    };
    let new_len = len + insert_count - skip_count;
    if new_len > MAX_SAFE_INTEGER {
        return Err(vm.type_error("Array.prototype.toSpliced: result too long"));
    }
    let a = array_create(vm, new_len)?;
    vm.roots.push(Value::object(a));
    let mut i = 0.0;
    let mut r = actual_start + skip_count;
    while i < actual_start {
        let v = get_at(vm, o, i)?;
        heap_guard(vm, i)?;
        create_at(vm, a, i, v)?;
        i += 1.0;
    }
    for j in 2..args.count as usize {
        let v = vm.arg(args, j);
        create_at(vm, a, i, v)?;
        i += 1.0;
    }
    while i < new_len {
        let v = get_at(vm, o, r)?;
        heap_guard(vm, i)?;
        create_at(vm, a, i, v)?;
        i += 1.0;
        r += 1.0;
    }
    Ok(Value::object(a))
}

/// [Array.prototype.toString](https://tc39.es/ecma262/#sec-array.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let key = vm.key("join");
    let f = vm.get(Value::object(o), key)?;
    if vm.is_callable(f) {
        return vm.call(f, Value::object(o), &[]);
    }
    let no_args = Args {
        start: vm.stack.len() as u32,
        count: 0,
        new_target: Value::UNDEFINED,
    };
    super::object::to_string(vm, Value::object(o), no_args)
}

/// [Array.prototype.unshift](https://tc39.es/ecma262/#sec-array.prototype.unshift)
fn unshift(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let count = args.count as usize;
    // Fast path: the elements move up (holes too) and the arguments fill the front, in
    // O(1) amortised per argument.
    if let Some(o) = this.as_object()
        && let Some(len) = movable_elements(vm, o).map(|v| v.len())
        && len + count < MAX_ARRAY_LENGTH as usize
    {
        let start = args.start as usize;
        let values = vm.stack[start..start + count].to_vec();
        if let Some(v) = movable_elements(vm, o) {
            let before = v.capacity();
            let moved = v.prepend(&values);
            let grown = v.capacity().saturating_sub(before) * 8;
            vm.heap.note_growth(grown);
            vm.charge_elements(moved)?;
        }
        return Ok(Value::number((len + count) as f64));
    }
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let arg_count = count as f64;
    if arg_count > 0.0 {
        if len + arg_count > MAX_SAFE_INTEGER {
            return Err(vm.type_error("Array.prototype.unshift: result too long"));
        }
        let mut k = len;
        while k > 0.0 {
            let from = k - 1.0;
            let to = k + arg_count - 1.0;
            match get_if_present(vm, o, from)? {
                Some(v) => set_at(vm, o, to, v)?,
                None => delete_at(vm, o, to)?,
            }
            k -= 1.0;
        }
        for j in 0..count {
            let v = vm.arg(args, j);
            set_at(vm, o, j as f64, v)?;
        }
    }
    set_length(vm, o, len + arg_count)?;
    Ok(Value::number(len + arg_count))
}

/// [Array.prototype.with](https://tc39.es/ecma262/#sec-array.prototype.with)
fn with(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_object(vm, this)?;
    let len = vm.length_of_array_like(Value::object(o))?;
    let rel = vm.to_integer(vm.arg(args, 0))?;
    let actual = if rel >= 0.0 { rel } else { len + rel };
    if actual >= len || actual < 0.0 {
        return Err(vm.range_error("Invalid index"));
    }
    let value = vm.arg(args, 1);
    let a = array_create(vm, len)?;
    vm.roots.push(Value::object(a));
    let mut k = 0.0;
    while k < len {
        let v = if k == actual {
            value
        } else {
            get_at(vm, o, k)?
        };
        heap_guard(vm, k)?;
        create_at(vm, a, k, v)?;
        k += 1.0;
    }
    Ok(Value::object(a))
}
