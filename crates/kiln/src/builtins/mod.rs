//! The standard built-in objects, one module per constructor or namespace.
//!
//! Each module has an `init(vm)` that creates its objects, records them in
//! [`crate::realm::Intrinsics`] and defines its global bindings. [`init`]
//! calls them in dependency order. Native functions have the signature
//! [`crate::object::NativeFn`]; their doc line links the spec section.

pub mod array;
pub mod array_buffer;
pub mod array_from_async;
pub mod atomics;
pub mod bigint;
pub mod boolean;
pub mod collections;
pub mod data_view;
pub mod date;
pub mod disposable_stack;
pub mod error;
pub mod function;
pub mod generator;
pub mod global;
pub mod iterator;
pub mod iterator_helpers;
pub mod json;
pub mod math;
pub mod number;
pub mod object;
pub mod promise;
pub mod proxy;
pub mod reflect;
pub mod regexp;
pub mod shared_memory;
pub mod string;
mod string_search;
pub mod symbol;
pub mod temporal;
pub mod typed_array;
pub mod uint8_base64;
pub mod weak_ref;

use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, NativeFn, ObjectKind, PropertyKey};
use crate::value::Value;

/// Create the realm's intrinsics and global object.
pub fn init(vm: &mut Vm) {
    let object_prototype = vm.heap.new_object(None, ObjectKind::Ordinary);
    vm.intrinsics.object_prototype = object_prototype;
    let function_prototype = vm.heap.new_object(
        Some(object_prototype),
        ObjectKind::Native(crate::object::NativeFunction {
            func: function::function_prototype_call,
            constructor: false,
            data: Box::new([]),
            realm: vm.realm,
        }),
    );
    vm.intrinsics.function_prototype = function_prototype;
    vm.shapes = function_shapes(vm, function_prototype, object_prototype, Value::UNDEFINED);
    let global = vm
        .heap
        .new_object(Some(object_prototype), ObjectKind::Ordinary);
    vm.heap.to_dictionary(global);
    vm.intrinsics.global = global;
    let thrower = vm.new_native(throw_type_error, "", 0, false);
    vm.heap.object_mut(thrower).extensible = false;
    vm.heap.seal_or_freeze(thrower, true);
    vm.intrinsics.throw_type_error = thrower;
    vm.shapes.strict_callee = vm.new_accessor(Value::object(thrower), Value::object(thrower));

    object::init(vm);
    function::init(vm);
    error::init(vm);
    iterator::init(vm);
    iterator_helpers::init(vm);
    array::init(vm);
    string::init(vm);
    number::init(vm);
    boolean::init(vm);
    symbol::init(vm);
    bigint::init(vm);
    math::init(vm);
    json::init(vm);
    regexp::init(vm);
    date::init(vm);
    temporal::init(vm);
    collections::init(vm);
    weak_ref::init(vm);
    array_buffer::init(vm);
    typed_array::init(vm);
    uint8_base64::init(vm);
    data_view::init(vm);
    atomics::init(vm);
    promise::init(vm);
    disposable_stack::init(vm);
    generator::init(vm);
    reflect::init(vm);
    proxy::init(vm);
    global::init(vm);
}

/// A realm's shapes of fresh functions, arguments objects and iterator results, rooted at its
/// %Function.prototype% and %Object.prototype% (found again if they exist: restoring a
/// snapshot derives them rather than reading them).
pub(crate) fn function_shapes(
    vm: &mut Vm,
    function_prototype: ObjectId,
    object_prototype: ObjectId,
    strict_callee: Value,
) -> crate::realm::FunctionShapes {
    let root = vm.heap.shapes.root(Some(function_prototype));
    let with_length = vm.heap.shapes.add(
        root,
        PropertyKey::String(vm.atoms.length),
        Attrs::CONFIGURABLE_ONLY,
    );
    let plain = vm.heap.shapes.add(
        with_length,
        PropertyKey::String(vm.atoms.name),
        Attrs::CONFIGURABLE_ONLY,
    );
    let with_prototype = vm.heap.shapes.add(
        plain,
        PropertyKey::String(vm.atoms.prototype),
        Attrs(Attrs::WRITABLE),
    );
    let with_arguments = vm.heap.shapes.add(
        with_prototype,
        PropertyKey::String(vm.atoms.arguments),
        Attrs::NONE,
    );
    let sloppy = vm.heap.shapes.add(
        with_arguments,
        PropertyKey::String(vm.atoms.caller),
        Attrs::NONE,
    );
    let object_root = vm.heap.shapes.root(Some(object_prototype));
    let prototype_object = vm.heap.shapes.add(
        object_root,
        PropertyKey::String(vm.atoms.constructor),
        Attrs::HIDDEN,
    );
    let length_key = PropertyKey::String(vm.atoms.length);
    let args_length = vm.heap.shapes.add(object_root, length_key, Attrs::HIDDEN);
    let iterator_key = PropertyKey::Symbol(vm.symbols.iterator);
    let args_iter = vm.heap.shapes.add(args_length, iterator_key, Attrs::HIDDEN);
    let callee = PropertyKey::String(vm.atoms.callee);
    let arguments_mapped = vm.heap.shapes.add(args_iter, callee, Attrs::HIDDEN);
    let arguments_unmapped = vm
        .heap
        .shapes
        .add(args_iter, callee, Attrs(Attrs::ACCESSOR));
    let value_key = PropertyKey::String(vm.atoms.value);
    let with_value = vm.heap.shapes.add(object_root, value_key, Attrs::DEFAULT);
    let done_key = PropertyKey::String(vm.atoms.done);
    let iter_result = vm.heap.shapes.add(with_value, done_key, Attrs::DEFAULT);
    crate::realm::FunctionShapes {
        plain,
        with_prototype,
        sloppy,
        prototype_object,
        arguments_mapped,
        arguments_unmapped,
        iter_result,
        strict_callee,
    }
}

/// %ThrowTypeError%
fn throw_type_error(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    Err(vm.type_error("'caller', 'callee', and 'arguments' properties may not be accessed on strict mode functions or the arguments objects for calls to them"))
}

/// Define a global binding (writable, configurable, not enumerable), as built-ins are.
pub fn define_global(vm: &mut Vm, name: &'static str, value: Value) {
    let key = vm.static_key(name);
    let global = vm.intrinsics.global;
    vm.define_builtin(global, key, value, Attrs::HIDDEN);
}

/// Create a constructor `name` whose `prototype` is `proto`, link `proto.constructor` back,
/// and define it as a global.
pub fn make_constructor(
    vm: &mut Vm,
    name: &'static str,
    func: NativeFn,
    length: u32,
    proto: ObjectId,
) -> ObjectId {
    let ctor = make_unbound_constructor(vm, name, func, length, proto);
    define_global(vm, name, Value::object(ctor));
    ctor
}

/// [`make_constructor`] without the global binding (%TypedArray% has none).
pub fn make_unbound_constructor(
    vm: &mut Vm,
    name: &'static str,
    func: NativeFn,
    length: u32,
    proto: ObjectId,
) -> ObjectId {
    let ctor = vm.new_native(func, name, length, true);
    vm.define_builtin(
        ctor,
        PropertyKey::String(vm.atoms.prototype),
        Value::object(proto),
        Attrs::NONE,
    );
    vm.define_builtin(
        proto,
        PropertyKey::String(vm.atoms.constructor),
        Value::object(ctor),
        Attrs::HIDDEN,
    );
    ctor
}

/// Define a getter-only accessor `name` on `obj` (configurable, not enumerable).
pub fn define_getter(vm: &mut Vm, obj: ObjectId, name: &'static str, func: NativeFn) {
    let atom = vm.heap.intern_static(name);
    let key = vm.key_from_string(atom);
    let display = vm.heap.alloc_str(&["get ", name].concat());
    define_keyed_getter(vm, obj, key, display, func);
}

/// [`define_getter`] under any key, the getter function named `display`
/// (`get [Symbol.species]` for a symbol key).
pub fn define_keyed_getter(
    vm: &mut Vm,
    obj: ObjectId,
    key: PropertyKey,
    display: crate::heap::StringId,
    func: NativeFn,
) {
    let getter = vm.new_native_with_data(func, Value::string(display), 0, false, Box::new([]));
    let pair = vm.new_accessor(Value::object(getter), Value::UNDEFINED);
    vm.define_new_builtin(obj, key, pair, Attrs(Attrs::ACCESSOR | Attrs::CONFIGURABLE));
}

/// Define `get [Symbol.species]() { return this }` on a constructor.
pub fn define_species(vm: &mut Vm, ctor: ObjectId) {
    let key = PropertyKey::Symbol(vm.symbols.species);
    let display = vm.heap.intern_static("get [Symbol.species]");
    define_keyed_getter(vm, ctor, key, display, iterator::return_this);
}

/// Define a symbol-keyed native method, named `[description]`.
pub fn define_symbol_method(
    vm: &mut Vm,
    obj: ObjectId,
    symbol: crate::heap::SymbolId,
    name: &'static str,
    func: NativeFn,
    length: u32,
) {
    let f = vm.new_native(func, name, length, false);
    vm.define_new_builtin(
        obj,
        PropertyKey::Symbol(symbol),
        Value::object(f),
        Attrs::HIDDEN,
    );
}

/// Define `Symbol.toStringTag` on a prototype.
pub fn define_to_string_tag(vm: &mut Vm, obj: ObjectId, tag: &'static str) {
    let v = Value::string(vm.heap.intern_static(tag));
    vm.define_new_builtin(
        obj,
        PropertyKey::Symbol(vm.symbols.to_string_tag),
        v,
        Attrs::CONFIGURABLE_ONLY,
    );
}

/// A plain object with `Object.prototype` as prototype.
pub fn new_plain_object(vm: &mut Vm) -> ObjectId {
    vm.heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary)
}

/// The `this` value as an object of a given kind, or a TypeError naming the method.
pub fn this_object(
    vm: &mut Vm,
    this: Value,
    method: &str,
    check: fn(&ObjectKind) -> bool,
) -> JsResult<ObjectId> {
    match this.as_object() {
        Some(o) if check(&vm.heap.object(o).kind) => Ok(o),
        _ => Err(vm.type_error(format!("{method} called on incompatible receiver"))),
    }
}

/// Make room in `out` for `additional` more items, checking the new storage against the
/// heap limit before it is allocated (the old storage is counted already; both exist
/// while it moves) and counting it with `held` (beside `base` bytes of other buffers).
pub(crate) fn grow_held<T>(
    vm: &mut crate::interpreter::Vm,
    held: &mut crate::heap::HeldBytes,
    base: usize,
    out: &mut Vec<T>,
    additional: usize,
) -> crate::JsResult<()> {
    let needed = out.len().saturating_add(additional);
    if needed <= out.capacity() {
        return Ok(());
    }
    let capacity = needed.max(out.capacity() * 2).max(16);
    vm.check_room(capacity * size_of::<T>())?;
    out.reserve_exact(capacity - out.len());
    held.set(&mut vm.heap, base + out.capacity() * size_of::<T>());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::shape::ShapeId;

    /// A built-in in dictionary mode misses every inline cache and the `instanceof` cache
    /// (`x instanceof Promise` once took 1,500 instructions instead of 700): only the
    /// global object, which programs fill with their own globals, starts as one.
    #[test]
    fn no_built_in_starts_in_dictionary_mode() {
        let mut vm = Vm::new();
        let global = vm.intrinsics.global;
        let mut seen = std::collections::HashSet::from([global]);
        let mut work = vec![(global, String::from("globalThis"))];
        let mut dictionaries = Vec::new();
        while let Some((obj, path)) = work.pop() {
            for key in vm.heap.own_keys(obj) {
                let Some(value) = vm
                    .heap
                    .own_property(obj, key)
                    .and_then(|p| p.value.as_object())
                else {
                    continue;
                };
                let path = format!("{path}.{}", vm.key_to_display(key));
                if !seen.insert(value) {
                    continue;
                }
                if vm.heap.object(value).shape == ShapeId::DICTIONARY {
                    dictionaries.push(path.clone());
                }
                work.push((value, path));
            }
        }
        assert_eq!(dictionaries, Vec::<String>::new());
    }

    /// Built-ins are defined without looking for the key first
    /// ([`Vm::define_new_builtin`]): a key defined twice would be in the shape twice.
    #[test]
    fn no_built_in_defines_a_key_twice() {
        let mut vm = Vm::new();
        vm.lockdown().expect("lockdown");
        let objects: Vec<u32> = vm.heap.objects.live_indices().collect();
        let mut twice = Vec::new();
        for i in objects {
            let keys = vm.heap.named_keys(ObjectId(i));
            let mut seen = std::collections::HashSet::new();
            for key in keys {
                if !seen.insert(key) {
                    twice.push(format!("{i}: {}", vm.key_to_display(key)));
                }
            }
        }
        assert_eq!(twice, Vec::<String>::new());
    }
}
