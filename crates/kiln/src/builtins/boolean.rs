//! `Boolean` and `Boolean.prototype`
//! ([spec](https://tc39.es/ecma262/#sec-boolean-objects)).

use super::make_constructor;
use crate::JsResult;
use crate::interpreter::{Args, Vm};
use crate::object::ObjectKind;
use crate::value::Value;

pub fn init(vm: &mut Vm) {
    // Boolean.prototype is itself a Boolean object whose value is false.
    let proto = vm.heap.new_object(
        Some(vm.intrinsics.object_prototype),
        ObjectKind::Boolean(false),
    );
    vm.intrinsics.boolean_prototype = proto;
    let ctor = make_constructor(vm, "Boolean", boolean_constructor, 1, proto);
    vm.intrinsics.boolean = ctor;
    vm.define_native(proto, "toString", to_string, 0);
    vm.define_native(proto, "valueOf", value_of, 0);
}

/// [Boolean](https://tc39.es/ecma262/#sec-boolean-constructor-boolean-value)
fn boolean_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let b = vm.to_boolean(vm.arg(args, 0));
    if args.new_target.is_undefined() {
        return Ok(Value::bool(b));
    }
    let proto = vm.prototype_from_constructor(args.new_target, |i| i.boolean_prototype)?;
    Ok(Value::object(
        vm.heap.new_object(Some(proto), ObjectKind::Boolean(b)),
    ))
}

/// [thisBooleanValue](https://tc39.es/ecma262/#sec-thisbooleanvalue)
fn this_boolean_value(vm: &mut Vm, this: Value, method: &str) -> JsResult<bool> {
    if let Some(b) = this.as_bool() {
        return Ok(b);
    }
    if let Some(o) = this.as_object()
        && let ObjectKind::Boolean(b) = vm.heap.object(o).kind
    {
        return Ok(b);
    }
    Err(vm.type_error(format!(
        "Boolean.prototype.{method} requires that 'this' be a Boolean"
    )))
}

/// [Boolean.prototype.toString](https://tc39.es/ecma262/#sec-boolean.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let b = this_boolean_value(vm, this, "toString")?;
    Ok(Value::string(if b {
        vm.atoms.true_
    } else {
        vm.atoms.false_
    }))
}

/// [Boolean.prototype.valueOf](https://tc39.es/ecma262/#sec-boolean.prototype.valueof)
fn value_of(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    Ok(Value::bool(this_boolean_value(vm, this, "valueOf")?))
}
