//! `Object` and `Object.prototype`
//! ([spec](https://tc39.es/ecma262/#sec-object-objects)).

use super::{define_getter, make_constructor, new_plain_object};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::property::PropertyDescriptor;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, ObjectKind, PropertyKey};
use crate::value::{Kind, Value};

pub fn init(vm: &mut Vm) {
    let proto = vm.intrinsics.object_prototype;
    let ctor = make_constructor(vm, "Object", object_constructor, 1, proto);
    vm.intrinsics.object = ctor;
    let statics: [(&str, crate::object::NativeFn, u32); 23] = [
        ("assign", assign, 2),
        ("create", create, 2),
        ("defineProperty", define_property, 3),
        ("defineProperties", define_properties, 2),
        ("entries", entries, 1),
        ("freeze", freeze, 1),
        ("fromEntries", from_entries, 1),
        ("getOwnPropertyDescriptor", get_own_property_descriptor, 2),
        ("getOwnPropertyDescriptors", get_own_property_descriptors, 1),
        ("getOwnPropertyNames", get_own_property_names, 1),
        ("getOwnPropertySymbols", get_own_property_symbols, 1),
        ("getPrototypeOf", get_prototype_of, 1),
        ("groupBy", group_by, 2),
        ("hasOwn", has_own, 2),
        ("is", is, 2),
        ("isExtensible", is_extensible, 1),
        ("isFrozen", is_frozen, 1),
        ("isSealed", is_sealed, 1),
        ("keys", keys, 1),
        ("preventExtensions", prevent_extensions, 1),
        ("seal", seal, 1),
        ("setPrototypeOf", set_prototype_of, 2),
        ("values", values, 1),
    ];
    for (name, f, len) in statics {
        vm.define_native(ctor, name, f, len);
    }
    let methods: [(&str, crate::object::NativeFn, u32); 10] = [
        ("hasOwnProperty", has_own_property, 1),
        ("isPrototypeOf", is_prototype_of, 1),
        ("propertyIsEnumerable", property_is_enumerable, 1),
        ("toString", to_string, 0),
        ("toLocaleString", to_locale_string, 0),
        ("valueOf", value_of, 0),
        ("__defineGetter__", define_getter_legacy, 2),
        ("__defineSetter__", define_setter_legacy, 2),
        ("__lookupGetter__", lookup_getter, 1),
        ("__lookupSetter__", lookup_setter, 1),
    ];
    for (name, f, len) in methods {
        vm.define_native(proto, name, f, len);
    }
    define_getter(vm, proto, "__proto__", proto_getter);
    let setter = vm.new_native(proto_setter, "set __proto__", 1, false);
    let key = vm.key("__proto__");
    if let Some(p) = vm.heap.own_property(proto, key) {
        let getter = vm.accessor_parts(p.value).0;
        let pair = vm.new_accessor(getter, Value::object(setter));
        vm.define_builtin(
            proto,
            key,
            pair,
            Attrs(Attrs::ACCESSOR | Attrs::CONFIGURABLE),
        );
    }
}

/// [Object](https://tc39.es/ecma262/#sec-object-value)
fn object_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if !args.new_target.is_undefined() && args.new_target != Value::object(vm.native_callee) {
        let proto = vm.prototype_from_constructor(args.new_target, |i| i.object_prototype)?;
        return Ok(Value::object(
            vm.heap.new_object(Some(proto), ObjectKind::Ordinary),
        ));
    }
    let v = vm.arg(args, 0);
    if v.is_nullish() {
        return Ok(Value::object(new_plain_object(vm)));
    }
    Ok(Value::object(vm.to_object(v)?))
}

/// Argument `i` as an object, or a TypeError.
fn object_arg(vm: &mut Vm, args: Args, i: usize, method: &str) -> JsResult<ObjectId> {
    match vm.arg(args, i).as_object() {
        Some(o) => Ok(o),
        None => Err(vm.type_error(format!("{method} called on non-object"))),
    }
}

/// [ToPropertyDescriptor](https://tc39.es/ecma262/#sec-topropertydescriptor)
pub fn to_property_descriptor(vm: &mut Vm, v: Value) -> JsResult<PropertyDescriptor> {
    let Some(obj) = v.as_object() else {
        let what = vm.display(v);
        return Err(vm.type_error(format!("Property description must be an object: {what}")));
    };
    let mut desc = PropertyDescriptor::default();
    let field = |vm: &mut Vm, atom| -> JsResult<Option<Value>> {
        let key = PropertyKey::String(atom);
        if vm.has_property(obj, key)? {
            Ok(Some(vm.get(Value::object(obj), key)?))
        } else {
            Ok(None)
        }
    };
    if let Some(e) = field(vm, vm.atoms.enumerable)? {
        desc.enumerable = Some(vm.to_boolean(e));
    }
    if let Some(c) = field(vm, vm.atoms.configurable)? {
        desc.configurable = Some(vm.to_boolean(c));
    }
    if let Some(value) = field(vm, vm.atoms.value)? {
        desc.value = Some(value);
    }
    if let Some(w) = field(vm, vm.atoms.writable)? {
        desc.writable = Some(vm.to_boolean(w));
    }
    if let Some(g) = field(vm, vm.atoms.get)? {
        if !g.is_undefined() && !vm.is_callable(g) {
            return Err(vm.type_error("Getter must be a function"));
        }
        desc.get = Some(g);
    }
    if let Some(s) = field(vm, vm.atoms.set)? {
        if !s.is_undefined() && !vm.is_callable(s) {
            return Err(vm.type_error("Setter must be a function"));
        }
        desc.set = Some(s);
    }
    if desc.is_accessor() && desc.is_data() {
        return Err(vm.type_error("Invalid property descriptor. Cannot both specify accessors and a value or writable attribute"));
    }
    Ok(desc)
}

/// [FromPropertyDescriptor](https://tc39.es/ecma262/#sec-frompropertydescriptor)
pub fn from_property_descriptor(vm: &mut Vm, desc: Option<PropertyDescriptor>) -> JsResult<Value> {
    let Some(desc) = desc else {
        return Ok(Value::UNDEFINED);
    };
    let obj = new_plain_object(vm);
    let a = vm.atoms.clone();
    let put = |vm: &mut Vm, atom, v: Value| {
        vm.create_data_property(obj, PropertyKey::String(atom), v)
            .map(|_| ())
    };
    if let Some(v) = desc.value {
        put(vm, a.value, v)?;
    }
    if let Some(w) = desc.writable {
        put(vm, a.writable, Value::bool(w))?;
    }
    if let Some(g) = desc.get {
        put(vm, a.get, g)?;
    }
    if let Some(s) = desc.set {
        put(vm, a.set, s)?;
    }
    if let Some(e) = desc.enumerable {
        put(vm, a.enumerable, Value::bool(e))?;
    }
    if let Some(c) = desc.configurable {
        put(vm, a.configurable, Value::bool(c))?;
    }
    Ok(Value::object(obj))
}

/// [Object.assign](https://tc39.es/ecma262/#sec-object.assign)
fn assign(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let target = vm.to_object(vm.arg(args, 0))?;
    // a primitive's wrapper is new: getters of the sources run before it is written
    vm.roots.push(Value::object(target));
    for i in 1..args.count as usize {
        let source = vm.arg(args, i);
        if source.is_nullish() {
            continue;
        }
        let from = vm.to_object(source)?;
        vm.roots.push(Value::object(from));
        for key in vm.own_property_keys(from)? {
            if let Some(desc) = vm.get_own_property(from, key)?
                && desc.enumerable == Some(true)
            {
                let v = vm.get(Value::object(from), key)?;
                if !vm.set(Value::object(target), key, v, Value::object(target))? {
                    let k = vm.key_to_display(key);
                    return Err(vm.type_error(format!("Cannot assign to read only property '{k}'")));
                }
            }
        }
    }
    Ok(Value::object(target))
}

/// [Object.create](https://tc39.es/ecma262/#sec-object.create)
fn create(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let proto = vm.arg(args, 0);
    if !proto.is_object() && !proto.is_null() {
        return Err(vm.type_error("Object prototype may only be an Object or null"));
    }
    let obj = vm.heap.new_object(proto.as_object(), ObjectKind::Ordinary);
    let props = vm.arg(args, 1);
    if !props.is_undefined() {
        vm.roots.push(Value::object(obj));
        object_define_properties(vm, obj, props)?;
    }
    Ok(Value::object(obj))
}

/// [Object.defineProperty](https://tc39.es/ecma262/#sec-object.defineproperty)
fn define_property(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = object_arg(vm, args, 0, "Object.defineProperty")?;
    let key = vm.to_property_key(vm.arg(args, 1))?;
    let desc = to_property_descriptor(vm, vm.arg(args, 2))?;
    vm.define_property_or_throw(obj, key, desc)?;
    Ok(Value::object(obj))
}

/// [ObjectDefineProperties](https://tc39.es/ecma262/#sec-objectdefineproperties)
fn object_define_properties(vm: &mut Vm, obj: ObjectId, props: Value) -> JsResult<()> {
    let props = vm.to_object(props)?;
    vm.roots.push(Value::object(props));
    let mut descriptors = Vec::new();
    for key in vm.own_property_keys(props)? {
        if let Some(d) = vm.get_own_property(props, key)?
            && d.enumerable == Some(true)
        {
            let desc_obj = vm.get(Value::object(props), key)?;
            vm.roots.push(desc_obj);
            descriptors.push((key, to_property_descriptor(vm, desc_obj)?));
        }
    }
    for (key, desc) in descriptors {
        vm.define_property_or_throw(obj, key, desc)?;
    }
    Ok(())
}

fn define_properties(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = object_arg(vm, args, 0, "Object.defineProperties")?;
    object_define_properties(vm, obj, vm.arg(args, 1))?;
    Ok(Value::object(obj))
}

#[derive(Clone, Copy, PartialEq)]
enum EnumKind {
    Keys,
    Values,
    Entries,
}

/// [EnumerableOwnProperties](https://tc39.es/ecma262/#sec-enumerableownproperties)
pub fn enumerable_own_properties(vm: &mut Vm, obj: ObjectId, kind: u8) -> JsResult<Vec<Value>> {
    let kind = match kind {
        0 => EnumKind::Keys,
        1 => EnumKind::Values,
        _ => EnumKind::Entries,
    };
    if matches!(kind, EnumKind::Keys)
        && let Some((keys, scanned)) = vm.heap.stored_enumerable_keys(obj)
    {
        vm.charge(scanned as u64)?;
        return Ok(keys.into_iter().map(|k| vm.key_to_value(k)).collect());
    }
    let mut out = Vec::new();
    let root_mark = vm.roots.len();
    for key in vm.own_property_keys(obj)? {
        if matches!(key, PropertyKey::Symbol(_)) {
            continue;
        }
        let Some(desc) = vm.get_own_property(obj, key)? else {
            continue;
        };
        if desc.enumerable != Some(true) {
            continue;
        }
        let k = vm.key_to_value(key);
        let item = match kind {
            EnumKind::Keys => k,
            EnumKind::Values => vm.get(Value::object(obj), key)?,
            EnumKind::Entries => {
                vm.roots.push(k);
                let v = vm.get(Value::object(obj), key)?;
                Value::object(vm.array_from_values(vec![k, v]))
            }
        };
        vm.roots.push(item);
        out.push(item);
    }
    vm.roots.truncate(root_mark);
    Ok(out)
}

fn keys(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = vm.to_object(vm.arg(args, 0))?;
    let list = enumerable_own_properties(vm, obj, 0)?;
    Ok(Value::object(vm.array_from_values(list)))
}

fn values(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = vm.to_object(vm.arg(args, 0))?;
    let list = enumerable_own_properties(vm, obj, 1)?;
    Ok(Value::object(vm.array_from_values(list)))
}

fn entries(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = vm.to_object(vm.arg(args, 0))?;
    let list = enumerable_own_properties(vm, obj, 2)?;
    Ok(Value::object(vm.array_from_values(list)))
}

/// [SetIntegrityLevel](https://tc39.es/ecma262/#sec-setintegritylevel)
pub(crate) fn set_integrity_level(vm: &mut Vm, obj: ObjectId, frozen: bool) -> JsResult<bool> {
    if matches!(
        vm.heap.object(obj).kind,
        ObjectKind::Proxy { .. } | ObjectKind::TypedArray(_) | ObjectKind::ModuleNamespace(_)
    ) {
        if !vm.prevent_extensions(obj)? {
            return Ok(false);
        }
        for key in vm.own_property_keys(obj)? {
            let desc = if frozen {
                match vm.get_own_property(obj, key)? {
                    Some(d) if d.is_accessor() => PropertyDescriptor {
                        configurable: Some(false),
                        ..Default::default()
                    },
                    Some(_) => PropertyDescriptor {
                        configurable: Some(false),
                        writable: Some(false),
                        ..Default::default()
                    },
                    None => continue,
                }
            } else {
                PropertyDescriptor {
                    configurable: Some(false),
                    ..Default::default()
                }
            };
            vm.define_property_or_throw(obj, key, desc)?;
        }
        return Ok(true);
    }
    vm.heap.seal_or_freeze(obj, frozen);
    Ok(true)
}

/// [TestIntegrityLevel](https://tc39.es/ecma262/#sec-testintegritylevel)
fn test_integrity_level(vm: &mut Vm, obj: ObjectId, frozen: bool) -> JsResult<bool> {
    if vm.is_extensible(obj)? {
        return Ok(false);
    }
    for key in vm.own_property_keys(obj)? {
        if let Some(d) = vm.get_own_property(obj, key)? {
            if d.configurable == Some(true) {
                return Ok(false);
            }
            if frozen && d.is_data() && d.writable == Some(true) {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

fn freeze(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let v = vm.arg(args, 0);
    if let Some(o) = v.as_object()
        && !set_integrity_level(vm, o, true)?
    {
        return Err(vm.type_error("Cannot freeze"));
    }
    Ok(v)
}

fn seal(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let v = vm.arg(args, 0);
    if let Some(o) = v.as_object()
        && !set_integrity_level(vm, o, false)?
    {
        return Err(vm.type_error("Cannot seal"));
    }
    Ok(v)
}

fn is_frozen(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    match vm.arg(args, 0).as_object() {
        Some(o) => Ok(Value::bool(test_integrity_level(vm, o, true)?)),
        None => Ok(Value::TRUE),
    }
}

fn is_sealed(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    match vm.arg(args, 0).as_object() {
        Some(o) => Ok(Value::bool(test_integrity_level(vm, o, false)?)),
        None => Ok(Value::TRUE),
    }
}

fn is_extensible(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    match vm.arg(args, 0).as_object() {
        Some(o) => Ok(Value::bool(vm.is_extensible(o)?)),
        None => Ok(Value::FALSE),
    }
}

fn prevent_extensions(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let v = vm.arg(args, 0);
    if let Some(o) = v.as_object()
        && !vm.prevent_extensions(o)?
    {
        return Err(vm.type_error("Cannot prevent extensions"));
    }
    Ok(v)
}

/// [Object.fromEntries](https://tc39.es/ecma262/#sec-object.fromentries)
fn from_entries(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let iterable = vm.arg(args, 0);
    if iterable.is_nullish() {
        return Err(vm.type_error("Object.fromEntries requires an iterable"));
    }
    let obj = new_plain_object(vm);
    vm.roots.push(Value::object(obj));
    let (iter, next) = vm.get_iterator(iterable)?;
    vm.roots.extend([iter, next]);
    let mark = vm.roots.len();
    loop {
        let (entry, done) = vm.iterator_step(iter, next)?;
        if done {
            break;
        }
        let r: JsResult<()> = (|| {
            if !entry.is_object() {
                return Err(vm.type_error("Iterator value is not an entry object"));
            }
            // the entry and its key may be held by no one else while getters and the
            // key's toString run
            vm.roots.truncate(mark);
            vm.roots.push(entry);
            let k = vm.get(entry, PropertyKey::Index(0))?;
            vm.roots.push(k);
            let v = vm.get(entry, PropertyKey::Index(1))?;
            let key = vm.to_property_key(k)?;
            vm.create_data_property_or_throw(obj, key, v)
        })();
        if let Err(t) = r {
            return Err(vm.iterator_close_after_throw(iter, t));
        }
    }
    Ok(Value::object(obj))
}

/// [Object.getOwnPropertyDescriptor](https://tc39.es/ecma262/#sec-object.getownpropertydescriptor)
fn get_own_property_descriptor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = vm.to_object(vm.arg(args, 0))?;
    // a primitive's wrapper is new: ToPropertyKey may run JavaScript
    vm.roots.push(Value::object(obj));
    let key = vm.to_property_key(vm.arg(args, 1))?;
    let desc = vm.get_own_property(obj, key)?;
    from_property_descriptor(vm, desc)
}

fn get_own_property_descriptors(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = vm.to_object(vm.arg(args, 0))?;
    vm.roots.push(Value::object(obj));
    let result = new_plain_object(vm);
    vm.roots.push(Value::object(result));
    for key in vm.own_property_keys(obj)? {
        let desc = vm.get_own_property(obj, key)?;
        let d = from_property_descriptor(vm, desc)?;
        if !d.is_undefined() {
            vm.create_data_property(result, key, d)?;
        }
    }
    Ok(Value::object(result))
}

fn own_keys_filtered(vm: &mut Vm, v: Value, symbols: bool) -> JsResult<Value> {
    let obj = vm.to_object(v)?;
    let keys = vm.own_property_keys(obj)?;
    let values = keys
        .into_iter()
        .filter(|k| matches!(k, PropertyKey::Symbol(_)) == symbols)
        .map(|k| vm.key_to_value(k))
        .collect();
    Ok(Value::object(vm.array_from_values(values)))
}

fn get_own_property_names(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    own_keys_filtered(vm, vm.arg(args, 0), false)
}

fn get_own_property_symbols(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    own_keys_filtered(vm, vm.arg(args, 0), true)
}

fn get_prototype_of(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = vm.to_object(vm.arg(args, 0))?;
    Ok(vm.get_prototype_of(obj)?.map_or(Value::NULL, Value::object))
}

fn set_prototype_of(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let o = vm.arg(args, 0);
    if o.is_nullish() {
        return Err(vm.type_error("Object.setPrototypeOf called on null or undefined"));
    }
    let proto = vm.arg(args, 1);
    if !proto.is_object() && !proto.is_null() {
        return Err(vm.type_error("Object prototype may only be an Object or null"));
    }
    if let Some(obj) = o.as_object()
        && !vm.set_prototype_of(obj, proto.as_object())?
    {
        return Err(vm.type_error("Cannot set prototype (cyclic or not extensible)"));
    }
    Ok(o)
}

/// [Object.groupBy](https://tc39.es/ecma262/#sec-object.groupby)
fn group_by(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let items = vm.arg(args, 0);
    let callback = vm.arg(args, 1);
    let groups = crate::builtins::iterator::group_by(vm, items, callback, true)?;
    let obj = vm.heap.new_object(None, ObjectKind::Ordinary);
    vm.roots.push(Value::object(obj));
    for (key, values) in groups {
        let arr = vm.array_from_values(values);
        let key = vm.to_property_key(key)?;
        vm.create_data_property_or_throw(obj, key, Value::object(arr))?;
    }
    Ok(Value::object(obj))
}

/// [Object.hasOwn](https://tc39.es/ecma262/#sec-object.hasown)
fn has_own(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = vm.to_object(vm.arg(args, 0))?;
    // a primitive's wrapper is new: ToPropertyKey may run JavaScript
    vm.roots.push(Value::object(obj));
    let key = vm.to_property_key(vm.arg(args, 1))?;
    Ok(Value::bool(vm.has_own_property(obj, key)?))
}

fn is(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let (a, b) = (vm.arg(args, 0), vm.arg(args, 1));
    Ok(Value::bool(vm.same_value(a, b)))
}

// ---- Object.prototype ----

/// [Object.prototype.hasOwnProperty](https://tc39.es/ecma262/#sec-object.prototype.hasownproperty)
fn has_own_property(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let key = vm.to_property_key(vm.arg(args, 0))?;
    let obj = vm.to_object(this)?;
    Ok(Value::bool(vm.has_own_property(obj, key)?))
}

fn is_prototype_of(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let Some(mut v) = vm.arg(args, 0).as_object() else {
        return Ok(Value::FALSE);
    };
    let o = vm.to_object(this)?;
    // a primitive's wrapper is new: a proxy's getPrototypeOf trap runs JavaScript, which
    // must not free it and hand its id to another object
    vm.roots.push(Value::object(o));
    loop {
        match vm.get_prototype_of(v)? {
            Some(p) if p == o => return Ok(Value::TRUE),
            Some(p) => v = p,
            None => return Ok(Value::FALSE),
        }
    }
}

fn property_is_enumerable(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let key = vm.to_property_key(vm.arg(args, 0))?;
    let obj = vm.to_object(this)?;
    Ok(Value::bool(
        vm.get_own_property(obj, key)?
            .is_some_and(|d| d.enumerable == Some(true)),
    ))
}

/// [Object.prototype.toString](https://tc39.es/ecma262/#sec-object.prototype.tostring)
pub fn to_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    match this.kind() {
        Kind::Undefined => return Ok(vm.intern_value("[object Undefined]")),
        Kind::Null => return Ok(vm.intern_value("[object Null]")),
        _ => {}
    }
    let obj = vm.to_object(this)?;
    let builtin = if is_array(vm, Value::object(obj))? {
        "[object Array]"
    } else {
        match &vm.heap.object(obj).kind {
            ObjectKind::Arguments { .. } => "[object Arguments]",
            ObjectKind::Closure(_) | ObjectKind::Native(_) | ObjectKind::Bound(_) => {
                "[object Function]"
            }
            ObjectKind::Proxy { callable: true, .. } => "[object Function]",
            ObjectKind::Error => "[object Error]",
            ObjectKind::Boolean(_) => "[object Boolean]",
            ObjectKind::Number(_) => "[object Number]",
            ObjectKind::String(_) => "[object String]",
            ObjectKind::Date(_) => "[object Date]",
            ObjectKind::RegExp(_) => "[object RegExp]",
            _ => "[object Object]",
        }
    };
    let tag = vm.get(
        Value::object(obj),
        PropertyKey::Symbol(vm.symbols.to_string_tag),
    )?;
    let Some(tag) = tag.as_string() else {
        return Ok(vm.intern_value(builtin));
    };
    let mut units: Vec<u16> = "[object ".encode_utf16().collect();
    units.extend(vm.heap.units(tag).iter());
    units.push(u16::from(b']'));
    Ok(Value::string(vm.heap.alloc_units(&units)))
}

/// [IsArray](https://tc39.es/ecma262/#sec-isarray): sees through proxies.
pub fn is_array(vm: &mut Vm, v: Value) -> JsResult<bool> {
    let Some(mut o) = v.as_object() else {
        return Ok(false);
    };
    loop {
        match &vm.heap.object(o).kind {
            ObjectKind::Array { .. } => return Ok(true),
            ObjectKind::Proxy {
                target: Some(t), ..
            } => o = *t,
            ObjectKind::Proxy { target: None, .. } => {
                return Err(
                    vm.type_error("Cannot perform 'IsArray' on a proxy that has been revoked")
                );
            }
            _ => return Ok(false),
        }
    }
}

fn to_locale_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let f = vm.get(this, PropertyKey::String(vm.atoms.to_string))?;
    vm.call(f, this, &[])
}

fn value_of(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    Ok(Value::object(vm.to_object(this)?))
}

fn define_accessor_legacy(vm: &mut Vm, this: Value, args: Args, getter: bool) -> JsResult<Value> {
    let obj = vm.to_object(this)?;
    // a primitive's wrapper is new: ToPropertyKey may run JavaScript
    vm.roots.push(Value::object(obj));
    let f = vm.arg(args, 1);
    if !vm.is_callable(f) {
        return Err(vm.type_error("Accessor must be a function"));
    }
    let key = vm.to_property_key(vm.arg(args, 0))?;
    let mut desc = PropertyDescriptor {
        enumerable: Some(true),
        configurable: Some(true),
        ..Default::default()
    };
    if getter {
        desc.get = Some(f);
    } else {
        desc.set = Some(f);
    }
    vm.define_property_or_throw(obj, key, desc)?;
    Ok(Value::UNDEFINED)
}

fn define_getter_legacy(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    define_accessor_legacy(vm, this, args, true)
}

fn define_setter_legacy(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    define_accessor_legacy(vm, this, args, false)
}

fn lookup_accessor(vm: &mut Vm, this: Value, args: Args, getter: bool) -> JsResult<Value> {
    let mut obj = vm.to_object(this)?;
    // a primitive's wrapper is new, and a proxy's getPrototypeOf may return a new object:
    // ToPropertyKey and the traps may run JavaScript
    vm.roots.push(Value::object(obj));
    let key = vm.to_property_key(vm.arg(args, 0))?;
    loop {
        if let Some(d) = vm.get_own_property(obj, key)? {
            return Ok(if d.is_accessor() {
                (if getter { d.get } else { d.set }).unwrap_or(Value::UNDEFINED)
            } else {
                Value::UNDEFINED
            });
        }
        match vm.get_prototype_of(obj)? {
            Some(p) => {
                obj = p;
                vm.roots.push(Value::object(p));
            }
            None => return Ok(Value::UNDEFINED),
        }
    }
}

fn lookup_getter(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    lookup_accessor(vm, this, args, true)
}

fn lookup_setter(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    lookup_accessor(vm, this, args, false)
}

fn proto_getter(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let obj = vm.to_object(this)?;
    Ok(vm.get_prototype_of(obj)?.map_or(Value::NULL, Value::object))
}

fn proto_setter(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    if this.is_nullish() {
        return Err(vm.type_error("Object.prototype.__proto__ called on null or undefined"));
    }
    let proto = vm.arg(args, 0);
    let Some(obj) = this.as_object() else {
        return Ok(Value::UNDEFINED);
    };
    if !proto.is_object() && !proto.is_null() {
        return Ok(Value::UNDEFINED);
    }
    if !vm.set_prototype_of(obj, proto.as_object())? {
        return Err(
            vm.type_error("Object.prototype.__proto__ setter failed (cyclic or not extensible)")
        );
    }
    Ok(Value::UNDEFINED)
}
