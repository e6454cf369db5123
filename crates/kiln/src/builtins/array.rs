//! `Array` and `Array.prototype`
//! ([spec](https://tc39.es/ecma262/#sec-array-objects)).

use super::make_constructor;
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, Elements, IterationKind, ObjectKind, PropertyKey};
use crate::value::Value;

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
    vm.define_native(proto, "push", push, 1);
    vm.define_native(proto, "join", join, 1);
    let values = vm.define_native(proto, "values", values, 0);
    vm.intrinsics.array_prototype_values = values;
    vm.define_builtin(
        proto,
        PropertyKey::Symbol(vm.symbols.iterator),
        Value::object(values),
        Attrs::HIDDEN,
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
            self.heap.object_mut(a).elements = Elements::Dense(Vec::with_capacity(capacity));
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
        self.heap.object_mut(a).elements = Elements::Dense(values);
        a
    }
}

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
            vm.heap.object_mut(arr).elements = Elements::Dense(vec![len]);
        }
    } else {
        let values = vm.arg_vec(args);
        vm.heap.object_mut(arr).elements = Elements::Dense(values);
    }
    Ok(Value::object(arr))
}

fn is_array(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    Ok(Value::bool(super::object::is_array(vm, vm.arg(args, 0))?))
}

/// [Array.prototype.push](https://tc39.es/ecma262/#sec-array.prototype.push)
fn push(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let obj = vm.to_object(this)?;
    let len = vm.length_of_array_like(Value::object(obj))?;
    let count = args.count as f64;
    if len + count > 9007199254740991.0 {
        return Err(vm.type_error("Pushing too many elements"));
    }
    for i in 0..args.count as usize {
        let v = vm.arg(args, i);
        let key = vm.to_property_key(Value::number(len + i as f64))?;
        if !vm.set(Value::object(obj), key, v, Value::object(obj))? {
            return Err(vm.type_error("Cannot add property, object is not extensible"));
        }
    }
    let new_len = Value::number(len + count);
    if !vm.set(
        Value::object(obj),
        PropertyKey::String(vm.atoms.length),
        new_len,
        Value::object(obj),
    )? {
        return Err(vm.type_error("Cannot assign to read only property 'length'"));
    }
    Ok(new_len)
}

/// [Array.prototype.join](https://tc39.es/ecma262/#sec-array.prototype.join)
fn join(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let obj = vm.to_object(this)?;
    let len = vm.length_of_array_like(Value::object(obj))?;
    let sep = vm.arg(args, 0);
    let sep = if sep.is_undefined() {
        vm.heap.intern(",")
    } else {
        vm.to_string(sep)?
    };
    let mut out = vm.atoms.empty;
    for i in 0..len as u32 {
        if i > 0 {
            out = vm.heap.concat(out, sep);
        }
        let v = vm.get(Value::object(obj), PropertyKey::Index(i))?;
        if !v.is_nullish() {
            let s = vm.to_string(v)?;
            out = vm.heap.concat(out, s);
        }
        vm.roots.push(Value::string(out));
    }
    Ok(Value::string(out))
}

/// [Array.prototype.values](https://tc39.es/ecma262/#sec-array.prototype.values)
fn values(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let obj = vm.to_object(this)?;
    Ok(vm.new_array_iterator(Value::object(obj), IterationKind::Values))
}
