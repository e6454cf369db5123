//! The `Reflect` namespace ([spec](https://tc39.es/ecma262/#sec-reflect-object)):
//! each function exposes one object internal method.

use super::define_to_string_tag;
use super::object::{from_property_descriptor, to_property_descriptor};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{NativeFn, ObjectKind};
use crate::value::Value;

pub fn init(vm: &mut Vm) {
    let reflect = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    let functions: [(&str, NativeFn, u32); 13] = [
        ("apply", apply, 3),
        ("construct", construct, 2),
        ("defineProperty", define_property, 3),
        ("deleteProperty", delete_property, 2),
        ("get", get, 2),
        ("getOwnPropertyDescriptor", get_own_property_descriptor, 2),
        ("getPrototypeOf", get_prototype_of, 1),
        ("has", has, 2),
        ("isExtensible", is_extensible, 1),
        ("ownKeys", own_keys, 1),
        ("preventExtensions", prevent_extensions, 1),
        ("set", set, 3),
        ("setPrototypeOf", set_prototype_of, 2),
    ];
    for (name, f, len) in functions {
        vm.define_native(reflect, name, f, len);
    }
    define_to_string_tag(vm, reflect, "Reflect");
    super::define_global(vm, "Reflect", Value::object(reflect));
}

/// The target argument, which must be an object.
fn target(vm: &mut Vm, args: Args, method: &str) -> JsResult<ObjectId> {
    match vm.arg(args, 0).as_object() {
        Some(o) => Ok(o),
        None => Err(vm.type_error(format!("Reflect.{method} called on non-object"))),
    }
}

/// [Reflect.apply](https://tc39.es/ecma262/#sec-reflect.apply)
fn apply(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let f = vm.arg(args, 0);
    // 1. If IsCallable(target) is false, throw a TypeError exception.
    if !vm.is_callable(f) {
        let what = vm.display(f);
        return Err(vm.type_error(format!("Reflect.apply: {what} is not a function")));
    }
    // 2. Let args be ? CreateListFromArrayLike(argumentsList).
    // 4. Return ? Call(target, thisArgument, args).
    vm.call_with_array_like(f, vm.arg(args, 1), vm.arg(args, 2))
}

/// [Reflect.construct](https://tc39.es/ecma262/#sec-reflect.construct)
fn construct(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let f = vm.arg(args, 0);
    // 1. If IsConstructor(target) is false, throw a TypeError exception.
    if !vm.is_constructor(f) {
        let what = vm.display(f);
        return Err(vm.type_error(format!("Reflect.construct: {what} is not a constructor")));
    }
    // 2-3. newTarget defaults to target and must be a constructor.
    let new_target = if args.count > 2 { vm.arg(args, 2) } else { f };
    if !vm.is_constructor(new_target) {
        let what = vm.display(new_target);
        return Err(vm.type_error(format!("Reflect.construct: {what} is not a constructor")));
    }
    // 4. Let args be ? CreateListFromArrayLike(argumentsList).
    let list = vm.create_list_from_array_like(vm.arg(args, 1))?;
    // 5. Return ? Construct(target, args, newTarget).
    vm.construct(f, &list, Some(new_target))
}

/// [Reflect.defineProperty](https://tc39.es/ecma262/#sec-reflect.defineproperty)
fn define_property(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = target(vm, args, "defineProperty")?;
    let key = vm.to_property_key(vm.arg(args, 1))?;
    let desc = to_property_descriptor(vm, vm.arg(args, 2))?;
    Ok(Value::bool(vm.define_own_property(obj, key, desc)?))
}

/// [Reflect.deleteProperty](https://tc39.es/ecma262/#sec-reflect.deleteproperty)
fn delete_property(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = target(vm, args, "deleteProperty")?;
    let key = vm.to_property_key(vm.arg(args, 1))?;
    Ok(Value::bool(vm.delete_property(obj, key)?))
}

/// [Reflect.get](https://tc39.es/ecma262/#sec-reflect.get)
fn get(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = target(vm, args, "get")?;
    let key = vm.to_property_key(vm.arg(args, 1))?;
    let receiver = if args.count > 2 {
        vm.arg(args, 2)
    } else {
        Value::object(obj)
    };
    vm.get_with_receiver(obj, key, receiver)
}

/// [Reflect.getOwnPropertyDescriptor](https://tc39.es/ecma262/#sec-reflect.getownpropertydescriptor)
fn get_own_property_descriptor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = target(vm, args, "getOwnPropertyDescriptor")?;
    let key = vm.to_property_key(vm.arg(args, 1))?;
    let desc = vm.get_own_property(obj, key)?;
    from_property_descriptor(vm, desc)
}

/// [Reflect.getPrototypeOf](https://tc39.es/ecma262/#sec-reflect.getprototypeof)
fn get_prototype_of(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = target(vm, args, "getPrototypeOf")?;
    Ok(vm.get_prototype_of(obj)?.map_or(Value::NULL, Value::object))
}

/// [Reflect.has](https://tc39.es/ecma262/#sec-reflect.has)
fn has(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = target(vm, args, "has")?;
    let key = vm.to_property_key(vm.arg(args, 1))?;
    Ok(Value::bool(vm.has_property(obj, key)?))
}

/// [Reflect.isExtensible](https://tc39.es/ecma262/#sec-reflect.isextensible)
fn is_extensible(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = target(vm, args, "isExtensible")?;
    Ok(Value::bool(vm.is_extensible(obj)?))
}

/// [Reflect.ownKeys](https://tc39.es/ecma262/#sec-reflect.ownkeys)
fn own_keys(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = target(vm, args, "ownKeys")?;
    let keys = vm.own_property_keys(obj)?;
    let values = keys.into_iter().map(|k| vm.key_to_value(k)).collect();
    Ok(Value::object(vm.array_from_values(values)))
}

/// [Reflect.preventExtensions](https://tc39.es/ecma262/#sec-reflect.preventextensions)
fn prevent_extensions(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = target(vm, args, "preventExtensions")?;
    Ok(Value::bool(vm.prevent_extensions(obj)?))
}

/// [Reflect.set](https://tc39.es/ecma262/#sec-reflect.set)
fn set(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = target(vm, args, "set")?;
    let key = vm.to_property_key(vm.arg(args, 1))?;
    let value = vm.arg(args, 2);
    let receiver = if args.count > 3 {
        vm.arg(args, 3)
    } else {
        Value::object(obj)
    };
    Ok(Value::bool(vm.set(
        Value::object(obj),
        key,
        value,
        receiver,
    )?))
}

/// [Reflect.setPrototypeOf](https://tc39.es/ecma262/#sec-reflect.setprototypeof)
fn set_prototype_of(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = target(vm, args, "setPrototypeOf")?;
    let proto = vm.arg(args, 1);
    if !proto.is_object() && !proto.is_null() {
        return Err(vm.type_error("Object prototype may only be an Object or null"));
    }
    Ok(Value::bool(vm.set_prototype_of(obj, proto.as_object())?))
}
