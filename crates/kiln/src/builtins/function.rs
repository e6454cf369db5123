//! `Function` and `Function.prototype`
//! ([spec](https://tc39.es/ecma262/#sec-function-objects)).

use super::{define_symbol_method, make_constructor};
use crate::JsResult;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, BoundFunction, ObjectKind, PropertyKey};
use crate::value::Value;
use kiln_bytecode::ScriptKind;

pub fn init(vm: &mut Vm) {
    let proto = vm.intrinsics.function_prototype;
    vm.define_builtin(
        proto,
        PropertyKey::String(vm.atoms.length),
        Value::int(0),
        Attrs::CONFIGURABLE_ONLY,
    );
    let empty = Value::string(vm.atoms.empty);
    vm.define_builtin(
        proto,
        PropertyKey::String(vm.atoms.name),
        empty,
        Attrs::CONFIGURABLE_ONLY,
    );
    let ctor = make_constructor(vm, "Function", function_constructor, 1, proto);
    vm.intrinsics.function = ctor;
    vm.intrinsics.function_apply = vm.define_native(proto, "apply", apply, 2);
    vm.define_native(proto, "bind", bind, 1);
    vm.intrinsics.function_call = vm.define_native(proto, "call", call, 1);
    vm.define_native(proto, "toString", to_string, 0);
    let has_instance = vm.new_native(has_instance, "[Symbol.hasInstance]", 1, false);
    vm.intrinsics.function_has_instance = has_instance;
    vm.define_builtin(
        proto,
        PropertyKey::Symbol(vm.symbols.has_instance),
        Value::object(has_instance),
        Attrs::NONE,
    );
    let thrower = Value::object(vm.intrinsics.throw_type_error);
    for name in ["caller", "arguments"] {
        let pair = vm.new_accessor(thrower, thrower);
        let key = vm.key(name);
        vm.define_builtin(
            proto,
            key,
            pair,
            Attrs(Attrs::ACCESSOR | Attrs::CONFIGURABLE),
        );
    }
    let _ = define_symbol_method;
}

/// Calling %Function.prototype% itself returns undefined.
pub fn function_prototype_call(_vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    Ok(Value::UNDEFINED)
}

/// [CreateDynamicFunction](https://tc39.es/ecma262/#sec-createdynamicfunction) for `kind`
/// ("function", "function*", "async function", "async function*").
pub fn create_dynamic_function(vm: &mut Vm, args: Args, kind: &str) -> JsResult<Value> {
    let count = args.count as usize;
    let mut params = Vec::new();
    for i in 0..count.saturating_sub(1) {
        let s = vm.to_string(vm.arg(args, i))?;
        params.push(vm.heap.string_to_rust(s));
    }
    let body = if count > 0 {
        let s = vm.to_string(vm.arg(args, count - 1))?;
        vm.heap.string_to_rust(s)
    } else {
        String::new()
    };
    vm.ensure_can_compile_strings()?;
    let params = params.join(",");
    // Check the pieces on their own so `/*` or `}` cannot splice them together.
    let probe_params = format!("({kind} anonymous({params}\n) {{\n}})");
    let probe_body = format!("({kind} anonymous(\n) {{\n{body}\n}})");
    for probe in [&probe_params, &probe_body] {
        if let Err(e) = kiln_compiler::compile(probe, "<function>", ScriptKind::Eval, false) {
            return Err(vm.syntax_error(e.message));
        }
    }
    let source = format!("({kind} anonymous({params}\n) {{\n{body}\n}})");
    let block = vm.load(&source, "<function>", ScriptKind::Eval, false)?;
    let f = vm.run_top_level(block)?;
    if let Some(obj) = f.as_object()
        && !args.new_target.is_undefined()
        && args.new_target != Value::object(vm.native_callee)
    {
        // The fallback is the intrinsic of the kind, in new.target's realm.
        let default: fn(&crate::realm::Intrinsics) -> crate::heap::ObjectId = match kind {
            "function*" => |i| i.generator_function_prototype,
            "async function" => |i| i.async_function_prototype,
            "async function*" => |i| i.async_generator_function_prototype,
            _ => |i| i.function_prototype,
        };
        let proto = vm.prototype_from_constructor(args.new_target, default)?;
        vm.heap.set_proto_raw(obj, Some(proto));
    }
    Ok(f)
}

fn function_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    create_dynamic_function(vm, args, "function")
}

/// [Function.prototype.apply](https://tc39.es/ecma262/#sec-function.prototype.apply)
fn apply(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    if !vm.is_callable(this) {
        return Err(vm.type_error("Function.prototype.apply was called on a non-function"));
    }
    let this_arg = vm.arg(args, 0);
    let list = vm.arg(args, 1);
    if list.is_nullish() {
        return vm.call(this, this_arg, &[]);
    }
    vm.call_with_array_like(this, this_arg, list)
}

/// [Function.prototype.call](https://tc39.es/ecma262/#sec-function.prototype.call)
fn call(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    if !vm.is_callable(this) {
        return Err(vm.type_error("Function.prototype.call was called on a non-function"));
    }
    let this_arg = vm.arg(args, 0);
    let start = args.start as usize + 1;
    let count = (args.count as usize).saturating_sub(1);
    vm.call_from_stack(
        this,
        this_arg,
        start.min(vm.stack.len()),
        count,
        Value::UNDEFINED,
    )
}

/// [Function.prototype.bind](https://tc39.es/ecma262/#sec-function.prototype.bind)
fn bind(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let Some(target) = this.as_object().filter(|_| vm.is_callable(this)) else {
        return Err(vm.type_error("Bind must be called on a function"));
    };
    let bound_this = vm.arg(args, 0);
    let bound_args: Box<[Value]> = (1..args.count as usize).map(|i| vm.arg(args, i)).collect();
    let nargs = bound_args.len() as f64;
    let proto = vm.get_prototype_of(target)?;
    let bound = vm.heap.new_object(
        proto,
        ObjectKind::Bound(Box::new(BoundFunction {
            target,
            this: bound_this,
            args: bound_args,
        })),
    );
    vm.roots.push(Value::object(bound));
    // length: max(0, target.length - bound args) when the target has an own numeric length.
    let mut length = 0.0;
    let length_key = PropertyKey::String(vm.atoms.length);
    if vm.has_own_property(target, length_key)? {
        let l = vm.get(this, length_key)?;
        if let Some(n) = l.as_number() {
            length = if n == f64::INFINITY {
                f64::INFINITY
            } else if n == f64::NEG_INFINITY {
                0.0
            } else {
                (crate::interpreter::convert::f64_to_integer(n) - nargs).max(0.0)
            };
        }
    }
    vm.define_builtin(
        bound,
        length_key,
        Value::number(length),
        Attrs::CONFIGURABLE_ONLY,
    );
    let name = vm.get(this, PropertyKey::String(vm.atoms.name))?;
    let name = name.as_string().unwrap_or(vm.atoms.empty);
    // a rope: a chain of binds makes one string cell per link, not names of every length
    let bound_name = vm.concat_strings(vm.atoms.bound_prefix, name)?;
    vm.define_builtin(
        bound,
        PropertyKey::String(vm.atoms.name),
        bound_name,
        Attrs::CONFIGURABLE_ONLY,
    );
    Ok(Value::object(bound))
}

/// [Function.prototype.toString](https://tc39.es/ecma262/#sec-function.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let Some(f) = this.as_object().filter(|_| vm.is_callable(this)) else {
        return Err(vm.type_error("Function.prototype.toString requires that 'this' be a Function"));
    };
    if let ObjectKind::Closure(c) = &vm.heap.object(f).kind {
        let code = &c.code.code;
        let script = &vm.scripts[c.code.script as usize];
        let text = script
            .source
            .get(code.source_start as usize..code.source_end as usize)
            .map(str::to_string);
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            return Ok(vm.string_value(&text));
        }
    }
    let name = vm.function_name(f);
    Ok(vm.string_value(&format!("function {name}() {{ [native code] }}")))
}

/// [Function.prototype\[@@hasInstance\]](https://tc39.es/ecma262/#sec-function.prototype-@@hasinstance)
fn has_instance(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let v = vm.arg(args, 0);
    Ok(Value::bool(vm.ordinary_has_instance(this, v)?))
}
