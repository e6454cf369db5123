//! Proxy exotic objects: every internal method forwards to the handler's trap.
//! Not yet written: each trap reports a clear TypeError.

use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::Vm;
use crate::interpreter::property::PropertyDescriptor;
use crate::object::PropertyKey;
use crate::value::Value;

pub fn init(_vm: &mut Vm) {}

fn unsupported<T>(vm: &mut Vm) -> JsResult<T> {
    Err(vm.type_error("Proxy is not supported yet"))
}

pub fn get(vm: &mut Vm, _proxy: ObjectId, _key: PropertyKey, _receiver: Value) -> JsResult<Value> {
    unsupported(vm)
}
pub fn set(
    vm: &mut Vm,
    _proxy: ObjectId,
    _key: PropertyKey,
    _value: Value,
    _receiver: Value,
) -> JsResult<bool> {
    unsupported(vm)
}
pub fn has(vm: &mut Vm, _proxy: ObjectId, _key: PropertyKey) -> JsResult<bool> {
    unsupported(vm)
}
pub fn delete(vm: &mut Vm, _proxy: ObjectId, _key: PropertyKey) -> JsResult<bool> {
    unsupported(vm)
}
pub fn get_own_property(
    vm: &mut Vm,
    _proxy: ObjectId,
    _key: PropertyKey,
) -> JsResult<Option<PropertyDescriptor>> {
    unsupported(vm)
}
pub fn define_own_property(
    vm: &mut Vm,
    _proxy: ObjectId,
    _key: PropertyKey,
    _desc: PropertyDescriptor,
) -> JsResult<bool> {
    unsupported(vm)
}
pub fn own_keys(vm: &mut Vm, _proxy: ObjectId) -> JsResult<Vec<PropertyKey>> {
    unsupported(vm)
}
pub fn get_prototype_of(vm: &mut Vm, _proxy: ObjectId) -> JsResult<Option<ObjectId>> {
    unsupported(vm)
}
pub fn set_prototype_of(vm: &mut Vm, _proxy: ObjectId, _proto: Option<ObjectId>) -> JsResult<bool> {
    unsupported(vm)
}
pub fn is_extensible(vm: &mut Vm, _proxy: ObjectId) -> JsResult<bool> {
    unsupported(vm)
}
pub fn prevent_extensions(vm: &mut Vm, _proxy: ObjectId) -> JsResult<bool> {
    unsupported(vm)
}
pub fn call(vm: &mut Vm, _proxy: ObjectId, _this: Value, _args: &[Value]) -> JsResult<Value> {
    unsupported(vm)
}
pub fn construct(
    vm: &mut Vm,
    _proxy: ObjectId,
    _args: &[Value],
    _new_target: Value,
) -> JsResult<Value> {
    unsupported(vm)
}
