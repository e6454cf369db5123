//! `Error`, the native errors, `AggregateError` and `SuppressedError`
//! ([spec](https://tc39.es/ecma262/#sec-error-objects)).

use super::make_constructor;
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, ObjectKind, PropertyKey};
use crate::realm::Intrinsics;
use crate::value::Value;

type Slot = fn(&mut Intrinsics) -> (&mut ObjectId, &mut ObjectId);

pub fn init(vm: &mut Vm) {
    let error_proto = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.error_prototype = error_proto;
    let error = make_constructor(vm, "Error", error_constructor, 1, error_proto);
    vm.intrinsics.error = error;
    vm.define_native(error, "isError", is_error, 1);
    set_name_and_message(vm, error_proto, "Error");
    vm.define_native(error_proto, "toString", to_string, 0);
    let natives: [(&str, crate::object::NativeFn, Slot); 6] = [
        ("TypeError", type_error, |i| {
            (&mut i.type_error, &mut i.type_error_prototype)
        }),
        ("RangeError", range_error, |i| {
            (&mut i.range_error, &mut i.range_error_prototype)
        }),
        ("ReferenceError", reference_error, |i| {
            (&mut i.reference_error, &mut i.reference_error_prototype)
        }),
        ("SyntaxError", syntax_error, |i| {
            (&mut i.syntax_error, &mut i.syntax_error_prototype)
        }),
        ("EvalError", eval_error, |i| {
            (&mut i.eval_error, &mut i.eval_error_prototype)
        }),
        ("URIError", uri_error, |i| {
            (&mut i.uri_error, &mut i.uri_error_prototype)
        }),
    ];
    for (name, func, slot) in natives {
        let (ctor, proto) = native_error(vm, name, func, 1);
        let (c, p) = slot(&mut vm.intrinsics);
        *c = ctor;
        *p = proto;
    }
    let (ctor, proto) = native_error(vm, "AggregateError", aggregate_error, 2);
    vm.intrinsics.aggregate_error = ctor;
    vm.intrinsics.aggregate_error_prototype = proto;
    let (ctor, proto) = native_error(vm, "SuppressedError", suppressed_error, 3);
    vm.intrinsics.suppressed_error = ctor;
    vm.intrinsics.suppressed_error_prototype = proto;
}

/// [Error.isError](https://tc39.es/proposal-is-error/): whether the argument has an
/// [[ErrorData]] slot (proxies of errors do not).
fn is_error(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let arg = vm.arg(args, 0);
    let error = arg
        .as_object()
        .is_some_and(|o| matches!(vm.heap.object(o).kind, ObjectKind::Error));
    Ok(Value::bool(error))
}

fn set_name_and_message(vm: &mut Vm, proto: ObjectId, name: &str) {
    let n = vm.intern_value(name);
    vm.define_builtin(proto, PropertyKey::String(vm.atoms.name), n, Attrs::HIDDEN);
    let empty = Value::string(vm.atoms.empty);
    vm.define_builtin(
        proto,
        PropertyKey::String(vm.atoms.message),
        empty,
        Attrs::HIDDEN,
    );
}

fn native_error(
    vm: &mut Vm,
    name: &'static str,
    func: crate::object::NativeFn,
    length: u32,
) -> (ObjectId, ObjectId) {
    let proto = vm
        .heap
        .new_object(Some(vm.intrinsics.error_prototype), ObjectKind::Ordinary);
    let ctor = make_constructor(vm, name, func, length, proto);
    vm.heap.set_proto_raw(ctor, Some(vm.intrinsics.error));
    set_name_and_message(vm, proto, name);
    (ctor, proto)
}

/// The shared body of the error constructors: OrdinaryCreateFromConstructor, `message`,
/// and InstallErrorCause (when `options`: the argument after the message). The callers add
/// their own properties, then the captured `stack`.
fn construct_error(
    vm: &mut Vm,
    args: Args,
    default: fn(&Intrinsics) -> ObjectId,
    message_index: usize,
    options: bool,
) -> JsResult<ObjectId> {
    let new_target = if args.new_target.is_undefined() {
        Value::object(vm.native_callee)
    } else {
        args.new_target
    };
    let proto = vm.prototype_from_constructor(new_target, default)?;
    let obj = vm.heap.new_object(Some(proto), ObjectKind::Error);
    vm.roots.push(Value::object(obj));
    let message = vm.arg(args, message_index);
    if !message.is_undefined() {
        let s = vm.to_string(message)?;
        vm.define_builtin(
            obj,
            PropertyKey::String(vm.atoms.message),
            Value::string(s),
            Attrs::HIDDEN,
        );
    }
    let options = match options {
        true => vm.arg(args, message_index + 1),
        false => Value::UNDEFINED,
    };
    if let Some(o) = options.as_object() {
        let cause = PropertyKey::String(vm.atoms.cause);
        if vm.has_property(o, cause)? {
            let c = vm.get(options, cause)?;
            vm.define_builtin(obj, cause, c, Attrs::HIDDEN);
        }
    }
    Ok(obj)
}

fn error_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = construct_error(vm, args, |i| i.error_prototype, 0, true)?;
    vm.attach_stack(obj);
    Ok(Value::object(obj))
}

macro_rules! native_error_constructor {
    ($name:ident, $proto:ident) => {
        fn $name(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
            let obj = construct_error(vm, args, |i| i.$proto, 0, true)?;
            vm.attach_stack(obj);
            Ok(Value::object(obj))
        }
    };
}
native_error_constructor!(type_error, type_error_prototype);
native_error_constructor!(range_error, range_error_prototype);
native_error_constructor!(reference_error, reference_error_prototype);
native_error_constructor!(syntax_error, syntax_error_prototype);
native_error_constructor!(eval_error, eval_error_prototype);
native_error_constructor!(uri_error, uri_error_prototype);

/// [AggregateError](https://tc39.es/ecma262/#sec-aggregate-error)
fn aggregate_error(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let obj = construct_error(vm, args, |i| i.aggregate_error_prototype, 1, true)?;
    let errors = vm.iterable_to_list(vm.arg(args, 0))?;
    let arr = vm.array_from_values(errors);
    vm.define_builtin(
        obj,
        PropertyKey::String(vm.atoms.errors),
        Value::object(arr),
        Attrs::HIDDEN,
    );
    vm.attach_stack(obj);
    Ok(Value::object(obj))
}

/// [SuppressedError](https://tc39.es/proposal-explicit-resource-management/#sec-suppressederror)(error,
/// suppressed, message): no options argument, so no `cause`.
fn suppressed_error(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    // 1-3. OrdinaryCreateFromConstructor, then the message.
    let obj = construct_error(vm, args, |i| i.suppressed_error_prototype, 2, false)?;
    let (error, suppressed) = (vm.arg(args, 0), vm.arg(args, 1));
    define_suppressed(vm, obj, error, suppressed);
    Ok(Value::object(obj))
}

/// The SuppressedError DisposeResources creates when a disposal throws on top of a throw.
pub(crate) fn new_suppressed_error(vm: &mut Vm, error: Value, suppressed: Value) -> ObjectId {
    let proto = vm.intrinsics.suppressed_error_prototype;
    let obj = vm.heap.new_object(Some(proto), ObjectKind::Error);
    define_suppressed(vm, obj, error, suppressed);
    obj
}

/// CreateNonEnumerableDataPropertyOrThrow of `error`, then of `suppressed`; then the stack.
fn define_suppressed(vm: &mut Vm, obj: ObjectId, error: Value, suppressed: Value) {
    let key = vm.key("error");
    vm.define_builtin(obj, key, error, Attrs::HIDDEN);
    let key = vm.key("suppressed");
    vm.define_builtin(obj, key, suppressed, Attrs::HIDDEN);
    vm.attach_stack(obj);
}

/// [Error.prototype.toString](https://tc39.es/ecma262/#sec-error.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    if !this.is_object() {
        return Err(vm.type_error("Error.prototype.toString called on non-object"));
    }
    let name = vm.get(this, PropertyKey::String(vm.atoms.name))?;
    let name = if name.is_undefined() {
        vm.intern_value("Error")
    } else {
        Value::string(vm.to_string(name)?)
    };
    let msg = vm.get(this, PropertyKey::String(vm.atoms.message))?;
    let msg = if msg.is_undefined() {
        Value::string(vm.atoms.empty)
    } else {
        Value::string(vm.to_string(msg)?)
    };
    let (n, m) = (
        name.as_string().unwrap_or(vm.atoms.empty),
        msg.as_string().unwrap_or(vm.atoms.empty),
    );
    if vm.heap.string_len(n) == 0 {
        return Ok(msg);
    }
    if vm.heap.string_len(m) == 0 {
        return Ok(name);
    }
    let sep = vm.heap.intern(": ");
    let left = vm.heap.concat(n, sep);
    Ok(Value::string(vm.heap.concat(left, m)))
}
