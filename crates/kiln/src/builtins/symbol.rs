//! `Symbol` and `Symbol.prototype`
//! ([spec](https://tc39.es/ecma262/#sec-symbol-objects)).

use super::{define_getter, define_to_string_tag, make_constructor};
use crate::JsResult;
use crate::heap::{StringId, Symbol, SymbolId};
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, ObjectKind, PropertyKey};
use crate::value::Value;

pub fn init(vm: &mut Vm) {
    let proto = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.symbol_prototype = proto;
    let ctor = make_constructor(vm, "Symbol", symbol_constructor, 0, proto);
    vm.intrinsics.symbol = ctor;
    vm.define_native(ctor, "for", symbol_for, 1);
    vm.define_native(ctor, "keyFor", key_for, 1);
    let s = vm.symbols.clone();
    for (name, sym) in [
        ("asyncDispose", s.async_dispose),
        ("asyncIterator", s.async_iterator),
        ("dispose", s.dispose),
        ("hasInstance", s.has_instance),
        ("isConcatSpreadable", s.is_concat_spreadable),
        ("iterator", s.iterator),
        ("match", s.match_),
        ("matchAll", s.match_all),
        ("replace", s.replace),
        ("search", s.search),
        ("species", s.species),
        ("split", s.split),
        ("toPrimitive", s.to_primitive),
        ("toStringTag", s.to_string_tag),
        ("unscopables", s.unscopables),
    ] {
        let key = vm.key(name);
        vm.define_builtin(ctor, key, Value::symbol(sym), Attrs::NONE);
    }
    vm.define_native(proto, "toString", to_string, 0);
    vm.define_native(proto, "valueOf", value_of, 0);
    define_getter(vm, proto, "description", description);
    let to_primitive = vm.new_native(value_of, "[Symbol.toPrimitive]", 1, false);
    vm.define_builtin(
        proto,
        PropertyKey::Symbol(s.to_primitive),
        Value::object(to_primitive),
        Attrs::CONFIGURABLE_ONLY,
    );
    define_to_string_tag(vm, proto, "Symbol");
}

/// [SymbolDescriptiveString](https://tc39.es/ecma262/#sec-symboldescriptivestring): `Symbol(desc)`.
pub fn symbol_descriptive_string(vm: &mut Vm, sym: SymbolId) -> StringId {
    let mut units: Vec<u16> = "Symbol(".encode_utf16().collect();
    if let Some(d) = vm.heap.symbol(sym).description {
        units.extend(vm.heap.units(d).iter());
    }
    units.push(b')' as u16);
    vm.heap.alloc_units(&units)
}

/// [Symbol](https://tc39.es/ecma262/#sec-symbol-description)
fn symbol_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if !args.new_target.is_undefined() {
        return Err(vm.type_error("Symbol is not a constructor"));
    }
    let d = vm.arg(args, 0);
    let description = if d.is_undefined() {
        None
    } else {
        Some(vm.to_string(d)?)
    };
    let sym = vm.heap.alloc_symbol(Symbol {
        description,
        is_private: false,
        registered: false,
    });
    Ok(Value::symbol(sym))
}

/// [Symbol.for](https://tc39.es/ecma262/#sec-symbol.for)
fn symbol_for(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let s = vm.to_string(vm.arg(args, 0))?;
    let key = vm.heap.intern_string(s);
    if let Some(&sym) = vm.symbol_registry.get(&key) {
        return Ok(Value::symbol(sym));
    }
    let (len, capacity) = (vm.symbol_registry.len(), vm.symbol_registry.capacity());
    if len == capacity {
        // the table is about to double, and its old and new storage exist together
        // while it moves (an entry and a control byte each, with room to spare)
        let entry = size_of::<(StringId, SymbolId)>() + 1;
        vm.check_room((capacity * 2 + 4) * entry * 2)?;
    }
    let sym = vm.heap.alloc_symbol(Symbol {
        description: Some(key),
        is_private: false,
        registered: true,
    });
    vm.symbol_registry.insert(key, sym);
    Ok(Value::symbol(sym))
}

/// [Symbol.keyFor](https://tc39.es/ecma262/#sec-symbol.keyfor)
fn key_for(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let Some(sym) = vm.arg(args, 0).as_symbol() else {
        let what = vm.display(vm.arg(args, 0));
        return Err(vm.type_error(format!("{what} is not a symbol")));
    };
    let s = vm.heap.symbol(sym);
    Ok(match (s.registered, s.description) {
        (true, Some(d)) => Value::string(d),
        _ => Value::UNDEFINED,
    })
}

/// [thisSymbolValue](https://tc39.es/ecma262/#sec-thissymbolvalue)
fn this_symbol_value(vm: &mut Vm, this: Value) -> JsResult<SymbolId> {
    if let Some(s) = this.as_symbol() {
        return Ok(s);
    }
    if let Some(o) = this.as_object()
        && let ObjectKind::Symbol(s) = vm.heap.object(o).kind
    {
        return Ok(s);
    }
    Err(vm.type_error("Symbol.prototype method called on incompatible receiver"))
}

/// [Symbol.prototype.toString](https://tc39.es/ecma262/#sec-symbol.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let sym = this_symbol_value(vm, this)?;
    Ok(Value::string(symbol_descriptive_string(vm, sym)))
}

/// [Symbol.prototype.valueOf](https://tc39.es/ecma262/#sec-symbol.prototype.valueof), also
/// [Symbol.prototype [ %Symbol.toPrimitive% ]](https://tc39.es/ecma262/#sec-symbol.prototype-%symbol.toprimitive%)
fn value_of(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    Ok(Value::symbol(this_symbol_value(vm, this)?))
}

/// [get Symbol.prototype.description](https://tc39.es/ecma262/#sec-symbol.prototype.description)
fn description(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let sym = this_symbol_value(vm, this)?;
    Ok(vm
        .heap
        .symbol(sym)
        .description
        .map_or(Value::UNDEFINED, Value::string))
}
