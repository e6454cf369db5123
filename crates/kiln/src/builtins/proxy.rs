//! Proxy exotic objects: every internal method forwards to the handler's trap
//! and checks the invariants the spec requires of the result
//! ([spec](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots)).
//!
//! A proxy is `ObjectKind::Proxy { target, handler, callable, constructor }`;
//! revoking sets `target` and `handler` to None. Each internal method counts
//! one level of `vm.native_depth`, so a chain of proxies of proxies ends in a
//! RangeError instead of overflowing the Rust stack. Target and handler are
//! kept on `vm.roots` while a trap runs: the trap may revoke the proxy.

use super::object::{from_property_descriptor, to_property_descriptor};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::property::PropertyDescriptor;
use crate::interpreter::{Args, Vm};
use crate::object::{ObjectKind, PropertyKey};
use crate::value::{Kind, Value};

pub fn init(vm: &mut Vm) {
    let ctor = vm.new_native(proxy_constructor, "Proxy", 2, true);
    vm.intrinsics.proxy = ctor;
    vm.define_native(ctor, "revocable", revocable, 2);
    super::define_global(vm, "Proxy", Value::object(ctor));
}

/// [ProxyCreate](https://tc39.es/ecma262/#sec-proxycreate)
fn proxy_create(vm: &mut Vm, target: Value, handler: Value) -> JsResult<ObjectId> {
    // 1-2. Target and handler must be objects.
    let (Some(t), Some(h)) = (target.as_object(), handler.as_object()) else {
        return Err(vm.type_error("Cannot create proxy with a non-object as target or handler"));
    };
    let callable = vm.is_callable(target);
    let constructor = vm.is_constructor(target);
    Ok(vm.heap.new_object(
        None,
        ObjectKind::Proxy {
            target: Some(t),
            handler: Some(h),
            callable,
            constructor,
        },
    ))
}

/// [Proxy](https://tc39.es/ecma262/#sec-proxy-target-handler)
fn proxy_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Constructor Proxy requires 'new'"));
    }
    let p = proxy_create(vm, vm.arg(args, 0), vm.arg(args, 1))?;
    Ok(Value::object(p))
}

/// [Proxy.revocable](https://tc39.es/ecma262/#sec-proxy.revocable)
fn revocable(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let p = proxy_create(vm, vm.arg(args, 0), vm.arg(args, 1))?;
    vm.roots.push(Value::object(p));
    let name = Value::string(vm.atoms.empty);
    let revoke =
        vm.new_native_with_data(revoke_proxy, name, 0, false, Box::new([Value::object(p)]));
    vm.roots.push(Value::object(revoke));
    let result = super::new_plain_object(vm);
    let proxy_key = vm.key("proxy");
    vm.create_data_property_or_throw(result, proxy_key, Value::object(p))?;
    let revoke_key = vm.key("revoke");
    vm.create_data_property_or_throw(result, revoke_key, Value::object(revoke))?;
    Ok(Value::object(result))
}

/// [Proxy Revocation Functions](https://tc39.es/ecma262/#sec-proxy-revocation-functions)
/// The natives this module creates while the guest runs; snapshots name them by their
/// position in this list.
pub(crate) const DYNAMIC_NATIVES: [crate::object::NativeFn; 1] = [revoke_proxy];

fn revoke_proxy(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    let f = vm.native_callee;
    let p = vm.native_data(f).first().copied().unwrap_or(Value::NULL);
    let Some(p) = p.as_object() else {
        return Ok(Value::UNDEFINED);
    };
    if let ObjectKind::Native(n) = &mut vm.heap.object_mut(f).kind
        && let Some(slot) = n.data.first_mut()
    {
        *slot = Value::NULL;
    }
    if let ObjectKind::Proxy {
        target, handler, ..
    } = &mut vm.heap.object_mut(p).kind
    {
        *target = None;
        *handler = None;
    }
    Ok(Value::UNDEFINED)
}

// ---- shared steps ----

/// Run one internal method of `proxy` one level deeper; roots pushed inside are dropped after.
fn guarded<R>(vm: &mut Vm, f: impl FnOnce(&mut Vm) -> JsResult<R>) -> JsResult<R> {
    if vm.native_depth >= vm.limits.max_native_depth {
        return Err(vm.range_error("Maximum call stack size exceeded (proxy chain too deep)"));
    }
    let mark = vm.roots.len();
    vm.native_depth += 1;
    let r = f(vm);
    vm.native_depth -= 1;
    vm.roots.truncate(mark);
    r
}

/// ValidateNonRevokedProxy, then GetMethod(handler, name): `(target, handler, trap)`,
/// where `trap` is None when the handler does not define it.
fn trap(vm: &mut Vm, proxy: ObjectId, name: &str) -> JsResult<(ObjectId, Value, Option<Value>)> {
    let (target, handler) = match vm.heap.object(proxy).kind {
        ObjectKind::Proxy {
            target: Some(t),
            handler: Some(h),
            ..
        } => (t, h),
        _ => {
            return Err(vm.type_error(format!(
                "Cannot perform '{name}' on a proxy that has been revoked"
            )));
        }
    };
    vm.roots.push(Value::object(target));
    vm.roots.push(Value::object(handler));
    let key = vm.key(name);
    let method = vm.get(Value::object(handler), key)?;
    if method.is_nullish() {
        return Ok((target, Value::object(handler), None));
    }
    if !vm.is_callable(method) {
        let what = vm.display(method);
        return Err(vm.type_error(format!(
            "Proxy handler's '{name}' trap is {what}, not a function"
        )));
    }
    vm.roots.push(method);
    Ok((target, Value::object(handler), Some(method)))
}

fn invariant<T>(vm: &mut Vm, trap: &str, why: &str) -> JsResult<T> {
    Err(vm.type_error(format!(
        "Proxy '{trap}' trap result violates an invariant: {why}"
    )))
}

/// [CompletePropertyDescriptor](https://tc39.es/ecma262/#sec-completepropertydescriptor)
fn complete(mut d: PropertyDescriptor) -> PropertyDescriptor {
    if d.is_accessor() {
        d.get.get_or_insert(Value::UNDEFINED);
        d.set.get_or_insert(Value::UNDEFINED);
    } else {
        d.value.get_or_insert(Value::UNDEFINED);
        d.writable.get_or_insert(false);
    }
    d.enumerable.get_or_insert(false);
    d.configurable.get_or_insert(false);
    d
}

// ---- the internal methods ----

/// [[[GetPrototypeOf]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-getprototypeof)
pub fn get_prototype_of(vm: &mut Vm, proxy: ObjectId) -> JsResult<Option<ObjectId>> {
    guarded(vm, |vm| {
        let (target, handler, trap) = trap(vm, proxy, "getPrototypeOf")?;
        let Some(trap) = trap else {
            return vm.get_prototype_of(target);
        };
        // 7. Let handlerProto be ? Call(trap, handler, « target »).
        let handler_proto = vm.call(trap, handler, &[Value::object(target)])?;
        // 8. If handlerProto is neither an Object nor null, throw a TypeError exception.
        if !handler_proto.is_object() && !handler_proto.is_null() {
            return invariant(
                vm,
                "getPrototypeOf",
                "the result is neither an object nor null",
            );
        }
        vm.roots.push(handler_proto);
        // 9-10. If the target is extensible, return handlerProto.
        if vm.is_extensible(target)? {
            return Ok(handler_proto.as_object());
        }
        // 11-12. Otherwise it must be the target's prototype.
        let target_proto = vm.get_prototype_of(target)?;
        if handler_proto.as_object() != target_proto {
            return invariant(
                vm,
                "getPrototypeOf",
                "the target is not extensible and the result is not its prototype",
            );
        }
        Ok(target_proto)
    })
}

/// [[[SetPrototypeOf]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-setprototypeof-v)
pub fn set_prototype_of(vm: &mut Vm, proxy: ObjectId, proto: Option<ObjectId>) -> JsResult<bool> {
    guarded(vm, |vm| {
        let (target, handler, trap) = trap(vm, proxy, "setPrototypeOf")?;
        let Some(trap) = trap else {
            return vm.set_prototype_of(target, proto);
        };
        let v = proto.map_or(Value::NULL, Value::object);
        // 8. Let booleanTrapResult be ToBoolean(? Call(trap, handler, « target, V »)).
        let r = vm.call(trap, handler, &[Value::object(target), v])?;
        if !vm.to_boolean(r) {
            return Ok(false);
        }
        // 10-11. An extensible target accepts anything.
        if vm.is_extensible(target)? {
            return Ok(true);
        }
        // 12-13. Otherwise V must be the target's prototype.
        if vm.get_prototype_of(target)? != proto {
            return invariant(
                vm,
                "setPrototypeOf",
                "the target is not extensible and the new prototype is not its prototype",
            );
        }
        Ok(true)
    })
}

/// [[[IsExtensible]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-isextensible)
pub fn is_extensible(vm: &mut Vm, proxy: ObjectId) -> JsResult<bool> {
    guarded(vm, |vm| {
        let (target, handler, trap) = trap(vm, proxy, "isExtensible")?;
        let Some(trap) = trap else {
            return vm.is_extensible(target);
        };
        let r = vm.call(trap, handler, &[Value::object(target)])?;
        let result = vm.to_boolean(r);
        // 8-9. The result must match the target's extensibility.
        if result != vm.is_extensible(target)? {
            return invariant(vm, "isExtensible", "the result differs from the target's");
        }
        Ok(result)
    })
}

/// [[[PreventExtensions]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-preventextensions)
pub fn prevent_extensions(vm: &mut Vm, proxy: ObjectId) -> JsResult<bool> {
    guarded(vm, |vm| {
        let (target, handler, trap) = trap(vm, proxy, "preventExtensions")?;
        let Some(trap) = trap else {
            return vm.prevent_extensions(target);
        };
        let r = vm.call(trap, handler, &[Value::object(target)])?;
        let result = vm.to_boolean(r);
        // 8. If booleanTrapResult is true, the target must now be non-extensible.
        if result && vm.is_extensible(target)? {
            return invariant(
                vm,
                "preventExtensions",
                "returned true but the target is extensible",
            );
        }
        Ok(result)
    })
}

/// [[[GetOwnProperty]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-getownproperty-p)
pub fn get_own_property(
    vm: &mut Vm,
    proxy: ObjectId,
    key: PropertyKey,
) -> JsResult<Option<PropertyDescriptor>> {
    guarded(vm, |vm| {
        let name = "getOwnPropertyDescriptor";
        let (target, handler, trap) = trap(vm, proxy, name)?;
        let Some(trap) = trap else {
            return vm.get_own_property(target, key);
        };
        let k = vm.key_to_value(key);
        // 7. Let trapResultObj be ? Call(trap, handler, « target, P »).
        let result = vm.call(trap, handler, &[Value::object(target), k])?;
        // 8. It must be an object or undefined.
        if !result.is_object() && !result.is_undefined() {
            return invariant(vm, name, "the result is neither an object nor undefined");
        }
        vm.roots.push(result);
        // 9. Let targetDesc be ? target.[[GetOwnProperty]](P).
        let target_desc = vm.get_own_property(target, key)?;
        push_descriptor(vm, target_desc);
        // 10. If trapResultObj is undefined, the property may only be reported missing
        // if the target allows it.
        if result.is_undefined() {
            let Some(td) = target_desc else {
                return Ok(None);
            };
            if td.configurable == Some(false) {
                return invariant(vm, name, "reported a non-configurable property as missing");
            }
            if !vm.is_extensible(target)? {
                return invariant(
                    vm,
                    name,
                    "reported an existing property of a non-extensible target as missing",
                );
            }
            return Ok(None);
        }
        // 11. Let extensibleTarget be ? IsExtensible(target).
        let extensible = vm.is_extensible(target)?;
        // 12-13. Let resultDesc be ? ToPropertyDescriptor(trapResultObj), completed.
        let result_desc = complete(to_property_descriptor(vm, result)?);
        push_descriptor(vm, Some(result_desc));
        // 14-15. It must be compatible with the target's property.
        if !vm.is_compatible_descriptor(extensible, result_desc, target_desc) {
            return invariant(
                vm,
                name,
                "the descriptor is incompatible with the target's property",
            );
        }
        // 16. A non-configurable result must match a non-configurable target property.
        if result_desc.configurable == Some(false) {
            match target_desc {
                None
                | Some(PropertyDescriptor {
                    configurable: Some(true),
                    ..
                }) => {
                    return invariant(
                        vm,
                        name,
                        "reported non-configurable for a configurable or missing property",
                    );
                }
                Some(td) => {
                    if result_desc.writable == Some(false) && td.writable == Some(true) {
                        return invariant(
                            vm,
                            name,
                            "reported non-configurable, non-writable for a writable property",
                        );
                    }
                }
            }
        }
        Ok(Some(result_desc))
    })
}

fn push_descriptor(vm: &mut Vm, d: Option<PropertyDescriptor>) {
    if let Some(d) = d {
        vm.roots
            .extend([d.value, d.get, d.set].into_iter().flatten());
    }
}

/// [[[DefineOwnProperty]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-defineownproperty-p-desc)
pub fn define_own_property(
    vm: &mut Vm,
    proxy: ObjectId,
    key: PropertyKey,
    desc: PropertyDescriptor,
) -> JsResult<bool> {
    guarded(vm, |vm| {
        let name = "defineProperty";
        push_descriptor(vm, Some(desc));
        let (target, handler, trap) = trap(vm, proxy, name)?;
        let Some(trap) = trap else {
            return vm.define_own_property(target, key, desc);
        };
        // 7. Let descObj be FromPropertyDescriptor(Desc).
        let desc_obj = from_property_descriptor(vm, Some(desc))?;
        vm.roots.push(desc_obj);
        let k = vm.key_to_value(key);
        // 8. Let booleanTrapResult be ToBoolean(? Call(trap, handler, « target, P, descObj »)).
        let r = vm.call(trap, handler, &[Value::object(target), k, desc_obj])?;
        if !vm.to_boolean(r) {
            return Ok(false);
        }
        // 10. Let targetDesc be ? target.[[GetOwnProperty]](P).
        let target_desc = vm.get_own_property(target, key)?;
        push_descriptor(vm, target_desc);
        // 11. Let extensibleTarget be ? IsExtensible(target).
        let extensible = vm.is_extensible(target)?;
        // 12. settingConfigFalse
        let setting_config_false = desc.configurable == Some(false);
        match target_desc {
            // 13. A new property needs an extensible target and may not be non-configurable.
            None => {
                if !extensible {
                    return invariant(vm, name, "added a property to a non-extensible target");
                }
                if setting_config_false {
                    return invariant(
                        vm,
                        name,
                        "defined a non-configurable property the target does not have",
                    );
                }
            }
            // 14. An existing property must be compatible.
            Some(td) => {
                if !vm.is_compatible_descriptor(extensible, desc, Some(td)) {
                    return invariant(
                        vm,
                        name,
                        "the descriptor is incompatible with the target's property",
                    );
                }
                if setting_config_false && td.configurable == Some(true) {
                    return invariant(
                        vm,
                        name,
                        "defined a non-configurable property that is configurable on the target",
                    );
                }
                if td.is_data()
                    && td.configurable == Some(false)
                    && td.writable == Some(true)
                    && desc.writable == Some(false)
                {
                    return invariant(
                        vm,
                        name,
                        "made a non-configurable writable property of the target non-writable",
                    );
                }
            }
        }
        Ok(true)
    })
}

/// [[[HasProperty]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-hasproperty-p)
pub fn has(vm: &mut Vm, proxy: ObjectId, key: PropertyKey) -> JsResult<bool> {
    guarded(vm, |vm| {
        let (target, handler, trap) = trap(vm, proxy, "has")?;
        let Some(trap) = trap else {
            return vm.has_property(target, key);
        };
        let k = vm.key_to_value(key);
        let r = vm.call(trap, handler, &[Value::object(target), k])?;
        let result = vm.to_boolean(r);
        // 9. A property reported missing must be allowed to be missing.
        if !result && let Some(td) = vm.get_own_property(target, key)? {
            if td.configurable == Some(false) {
                return invariant(vm, "has", "reported a non-configurable property as missing");
            }
            if !vm.is_extensible(target)? {
                return invariant(
                    vm,
                    "has",
                    "reported an existing property of a non-extensible target as missing",
                );
            }
        }
        Ok(result)
    })
}

/// [[[Get]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-get-p-receiver)
pub fn get(vm: &mut Vm, proxy: ObjectId, key: PropertyKey, receiver: Value) -> JsResult<Value> {
    guarded(vm, |vm| {
        vm.roots.push(receiver);
        let (target, handler, trap) = trap(vm, proxy, "get")?;
        let Some(trap) = trap else {
            return vm.get_with_receiver(target, key, receiver);
        };
        let k = vm.key_to_value(key);
        // 7. Let trapResult be ? Call(trap, handler, « target, P, Receiver »).
        let result = vm.call(trap, handler, &[Value::object(target), k, receiver])?;
        vm.roots.push(result);
        // 8-9. Non-configurable target properties constrain the result.
        if let Some(td) = vm.get_own_property(target, key)?
            && td.configurable == Some(false)
        {
            if td.is_data() && td.writable == Some(false) {
                let v = td.value.unwrap_or(Value::UNDEFINED);
                if !vm.same_value(result, v) {
                    return invariant(
                        vm,
                        "get",
                        "the value differs from the non-writable, non-configurable target property",
                    );
                }
            }
            if td.is_accessor()
                && td.get.unwrap_or(Value::UNDEFINED).is_undefined()
                && !result.is_undefined()
            {
                return invariant(
                    vm,
                    "get",
                    "reported a value for a non-configurable accessor without a getter",
                );
            }
        }
        Ok(result)
    })
}

/// [[[Set]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-set-p-v-receiver)
pub fn set(
    vm: &mut Vm,
    proxy: ObjectId,
    key: PropertyKey,
    value: Value,
    receiver: Value,
) -> JsResult<bool> {
    guarded(vm, |vm| {
        vm.roots.push(receiver);
        vm.roots.push(value);
        let (target, handler, trap) = trap(vm, proxy, "set")?;
        let Some(trap) = trap else {
            return vm.set(Value::object(target), key, value, receiver);
        };
        let k = vm.key_to_value(key);
        // 8. Let booleanTrapResult be ToBoolean(? Call(trap, handler, « target, P, V, Receiver »)).
        let r = vm.call(trap, handler, &[Value::object(target), k, value, receiver])?;
        if !vm.to_boolean(r) {
            return Ok(false);
        }
        // 10-11. Non-configurable target properties constrain the assignment.
        if let Some(td) = vm.get_own_property(target, key)?
            && td.configurable == Some(false)
        {
            if td.is_data() && td.writable == Some(false) {
                let v = td.value.unwrap_or(Value::UNDEFINED);
                if !vm.same_value(value, v) {
                    return invariant(
                        vm,
                        "set",
                        "changed a non-writable, non-configurable target property",
                    );
                }
            }
            if td.is_accessor() && td.set.unwrap_or(Value::UNDEFINED).is_undefined() {
                return invariant(
                    vm,
                    "set",
                    "assigned to a non-configurable accessor without a setter",
                );
            }
        }
        Ok(true)
    })
}

/// [[[Delete]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-delete-p)
pub fn delete(vm: &mut Vm, proxy: ObjectId, key: PropertyKey) -> JsResult<bool> {
    guarded(vm, |vm| {
        let name = "deleteProperty";
        let (target, handler, trap) = trap(vm, proxy, name)?;
        let Some(trap) = trap else {
            return vm.delete_property(target, key);
        };
        let k = vm.key_to_value(key);
        let r = vm.call(trap, handler, &[Value::object(target), k])?;
        if !vm.to_boolean(r) {
            return Ok(false);
        }
        // 10-13. Only deletable properties may be reported deleted.
        let Some(td) = vm.get_own_property(target, key)? else {
            return Ok(true);
        };
        if td.configurable == Some(false) {
            return invariant(vm, name, "deleted a non-configurable property");
        }
        if !vm.is_extensible(target)? {
            return invariant(vm, name, "deleted a property of a non-extensible target");
        }
        Ok(true)
    })
}

/// [[[OwnPropertyKeys]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-ownpropertykeys)
pub fn own_keys(vm: &mut Vm, proxy: ObjectId) -> JsResult<Vec<PropertyKey>> {
    guarded(vm, |vm| {
        let name = "ownKeys";
        let (target, handler, trap) = trap(vm, proxy, name)?;
        let Some(trap) = trap else {
            return vm.own_property_keys(target);
        };
        // 7. Let trapResultArray be ? Call(trap, handler, « target »).
        let array = vm.call(trap, handler, &[Value::object(target)])?;
        vm.roots.push(array);
        // 8. Let trapResult be ? CreateListFromArrayLike(trapResultArray, « String, Symbol »).
        if !array.is_object() {
            return invariant(vm, name, "the result is not an object");
        }
        let list = vm.create_list_from_array_like(array)?;
        let mut keys = Vec::with_capacity(list.len());
        for v in list {
            let key = match v.kind() {
                Kind::String(s) => vm.key_from_string(s),
                Kind::Symbol(s) => PropertyKey::Symbol(s),
                _ => {
                    let what = vm.display(v);
                    return Err(vm.type_error(format!(
                        "Proxy 'ownKeys' trap result contains {what}, which is not a property key"
                    )));
                }
            };
            // 9. If trapResult contains any duplicate entries, throw a TypeError exception.
            if keys.contains(&key) {
                let k = vm.key_to_display(key);
                return invariant(vm, name, &format!("the key '{k}' is listed twice"));
            }
            keys.push(key);
        }
        // 10. Let extensibleTarget be ? IsExtensible(target).
        let extensible = vm.is_extensible(target)?;
        // 11-16. Classify the target's keys.
        let target_keys = vm.own_property_keys(target)?;
        let mut configurable = Vec::new();
        let mut nonconfigurable = Vec::new();
        for key in target_keys {
            match vm.get_own_property(target, key)? {
                Some(d) if d.configurable == Some(false) => nonconfigurable.push(key),
                _ => configurable.push(key),
            }
        }
        // 17. An extensible target without non-configurable keys accepts any list.
        if extensible && nonconfigurable.is_empty() {
            return Ok(keys);
        }
        // 18-19. Every non-configurable key must be reported.
        let mut unchecked: Vec<Option<PropertyKey>> = keys.iter().copied().map(Some).collect();
        let mut take = |key: PropertyKey| -> bool {
            match unchecked.iter_mut().find(|k| **k == Some(key)) {
                Some(slot) => {
                    *slot = None;
                    true
                }
                None => false,
            }
        };
        for key in nonconfigurable {
            if !take(key) {
                let k = vm.key_to_display(key);
                return invariant(
                    vm,
                    name,
                    &format!("the non-configurable key '{k}' is missing"),
                );
            }
        }
        // 20. If extensibleTarget is true, return trapResult.
        if extensible {
            return Ok(keys);
        }
        // 21. A non-extensible target's keys must all be reported ...
        for key in configurable {
            if !take(key) {
                let k = vm.key_to_display(key);
                return invariant(
                    vm,
                    name,
                    &format!("the key '{k}' of a non-extensible target is missing"),
                );
            }
        }
        // 22. ... and nothing else.
        if unchecked.iter().any(Option::is_some) {
            return invariant(
                vm,
                name,
                "reported a key a non-extensible target does not have",
            );
        }
        Ok(keys)
    })
}

/// [[[Call]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-call-thisargument-argumentslist)
pub fn call(vm: &mut Vm, proxy: ObjectId, this: Value, args: &[Value]) -> JsResult<Value> {
    guarded(vm, |vm| {
        vm.roots.push(this);
        vm.roots.extend_from_slice(args);
        let (target, handler, trap) = trap(vm, proxy, "apply")?;
        let Some(trap) = trap else {
            return vm.call(Value::object(target), this, args);
        };
        // 7. Let argArray be CreateArrayFromList(argumentsList).
        let arg_array = vm.array_from_values(args.to_vec());
        // 8. Return ? Call(trap, handler, « target, thisArgument, argArray »).
        vm.call(
            trap,
            handler,
            &[Value::object(target), this, Value::object(arg_array)],
        )
    })
}

/// [[[Construct]]](https://tc39.es/ecma262/#sec-proxy-object-internal-methods-and-internal-slots-construct-argumentslist-newtarget)
pub fn construct(
    vm: &mut Vm,
    proxy: ObjectId,
    args: &[Value],
    new_target: Value,
) -> JsResult<Value> {
    guarded(vm, |vm| {
        vm.roots.push(new_target);
        vm.roots.extend_from_slice(args);
        let (target, handler, trap) = trap(vm, proxy, "construct")?;
        let Some(trap) = trap else {
            return vm.construct(Value::object(target), args, Some(new_target));
        };
        let arg_array = vm.array_from_values(args.to_vec());
        // 9. Let newObj be ? Call(trap, handler, « target, argArray, newTarget »).
        let result = vm.call(
            trap,
            handler,
            &[Value::object(target), Value::object(arg_array), new_target],
        )?;
        // 10. If newObj is not an Object, throw a TypeError exception.
        if !result.is_object() {
            return invariant(vm, "construct", "the result is not an object");
        }
        Ok(result)
    })
}
