//! `WeakRef` and `FinalizationRegistry`
//! ([spec](https://tc39.es/ecma262/#sec-managing-memory)).
//!
//! Both hold their targets weakly: the collector traces neither a WeakRef's target
//! nor a registry cell's target or unregister token. After marking it clears the
//! WeakRefs whose target died and takes the registry cells whose target died out of
//! their registry ([`sweep`]); `Vm::collect_garbage` then queues one cleanup job per
//! such cell. A target read through `new WeakRef` or `deref` stays alive until the job
//! queue drains (the spec's [[KeptAlive]] list, `Vm::kept_alive`).

use super::collections::can_be_held_weakly;
use super::{define_to_string_tag, make_constructor};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::ObjectKind;
use crate::value::Value;

/// A [[Cells]] record of a FinalizationRegistry.
#[derive(Clone, Debug)]
pub struct RegistryCell {
    /// held weakly
    pub target: Value,
    pub held: Value,
    /// held weakly; undefined when the cell cannot be unregistered
    pub token: Value,
}

/// The internal slots of a FinalizationRegistry.
#[derive(Clone, Debug)]
pub struct FinalizationRegistryData {
    pub cleanup: Value,
    pub cells: Vec<RegistryCell>,
}

impl FinalizationRegistryData {
    /// The strongly held values: the callback and every cell's held value.
    pub fn trace(&self, out: &mut Vec<Value>) {
        out.push(self.cleanup);
        out.extend(self.cells.iter().map(|c| c.held));
    }
}

/// After marking: clear a WeakRef whose target died; move a registry's cells whose
/// target died to `finalized` as (cleanup callback, held value), and forget tokens that
/// died.
pub fn sweep(
    kind: &mut ObjectKind,
    is_live: impl Fn(Value) -> bool,
    finalized: &mut Vec<(Value, Value)>,
) {
    match kind {
        ObjectKind::WeakRef(target) if !is_live(*target) => *target = Value::UNDEFINED,
        ObjectKind::FinalizationRegistry(r) => {
            let cleanup = r.cleanup;
            r.cells.retain_mut(|cell| {
                if !is_live(cell.token) {
                    cell.token = Value::UNDEFINED;
                }
                if is_live(cell.target) {
                    return true;
                }
                finalized.push((cleanup, cell.held));
                false
            });
        }
        _ => {}
    }
}

pub fn init(vm: &mut Vm) {
    let object_prototype = vm.intrinsics.object_prototype;

    let proto = vm
        .heap
        .new_object(Some(object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.weak_ref_prototype = proto;
    make_constructor(vm, "WeakRef", weak_ref_constructor, 1, proto);
    vm.define_native(proto, "deref", deref, 0);
    define_to_string_tag(vm, proto, "WeakRef");

    let proto = vm
        .heap
        .new_object(Some(object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.finalization_registry_prototype = proto;
    make_constructor(
        vm,
        "FinalizationRegistry",
        finalization_registry_constructor,
        1,
        proto,
    );
    vm.define_native(proto, "register", register, 2);
    vm.define_native(proto, "unregister", unregister, 1);
    define_to_string_tag(vm, proto, "FinalizationRegistry");
}

/// [WeakRef ( target )](https://tc39.es/ecma262/#sec-weak-ref-target)
fn weak_ref_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Constructor WeakRef requires 'new'"));
    }
    let target = vm.arg(args, 0);
    if !can_be_held_weakly(vm, target) {
        return Err(vm.type_error("WeakRef: invalid target"));
    }
    let proto = vm.prototype_from_constructor(args.new_target, |i| i.weak_ref_prototype)?;
    let weak_ref = vm.heap.new_object(Some(proto), ObjectKind::WeakRef(target));
    vm.kept_alive.push(target);
    Ok(Value::object(weak_ref))
}

/// [WeakRef.prototype.deref](https://tc39.es/ecma262/#sec-weak-ref.prototype.deref)
fn deref(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let target = this.as_object().and_then(|o| match vm.heap.object(o).kind {
        ObjectKind::WeakRef(target) => Some(target),
        _ => None,
    });
    let Some(target) = target else {
        return Err(vm.type_error("WeakRef.prototype.deref called on an incompatible receiver"));
    };
    if !target.is_undefined() {
        vm.kept_alive.push(target);
    }
    Ok(target)
}

/// [FinalizationRegistry ( cleanupCallback )](https://tc39.es/ecma262/#sec-finalization-registry-cleanup-callback)
fn finalization_registry_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Constructor FinalizationRegistry requires 'new'"));
    }
    let cleanup = vm.arg(args, 0);
    if !vm.is_callable(cleanup) {
        return Err(vm.type_error("FinalizationRegistry: cleanup must be callable"));
    }
    let proto =
        vm.prototype_from_constructor(args.new_target, |i| i.finalization_registry_prototype)?;
    let data = FinalizationRegistryData {
        cleanup,
        cells: Vec::new(),
    };
    let registry = vm.heap.new_object(
        Some(proto),
        ObjectKind::FinalizationRegistry(Box::new(data)),
    );
    Ok(Value::object(registry))
}

fn this_registry(vm: &mut Vm, this: Value, method: &str) -> JsResult<ObjectId> {
    super::this_object(vm, this, method, |k| {
        matches!(k, ObjectKind::FinalizationRegistry(_))
    })
}

fn cells(vm: &mut Vm, registry: ObjectId) -> Option<&mut Vec<RegistryCell>> {
    match &mut vm.heap.object_mut(registry).kind {
        ObjectKind::FinalizationRegistry(r) => Some(&mut r.cells),
        _ => None,
    }
}

/// [FinalizationRegistry.prototype.register](https://tc39.es/ecma262/#sec-finalization-registry.prototype.register)
fn register(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let registry = this_registry(vm, this, "FinalizationRegistry.prototype.register")?;
    let (target, held, token) = (vm.arg(args, 0), vm.arg(args, 1), vm.arg(args, 2));
    if !can_be_held_weakly(vm, target) {
        return Err(vm.type_error("FinalizationRegistry.prototype.register: invalid target"));
    }
    if target == held {
        return Err(vm.type_error(
            "FinalizationRegistry.prototype.register: the target and the held value are the same",
        ));
    }
    if !can_be_held_weakly(vm, token) && !token.is_undefined() {
        return Err(
            vm.type_error("FinalizationRegistry.prototype.register: invalid unregister token")
        );
    }
    if let Some(cells) = cells(vm, registry) {
        cells.push(RegistryCell {
            target,
            held,
            token,
        });
    }
    Ok(Value::UNDEFINED)
}

/// [FinalizationRegistry.prototype.unregister](https://tc39.es/ecma262/#sec-finalization-registry.prototype.unregister)
fn unregister(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let registry = this_registry(vm, this, "FinalizationRegistry.prototype.unregister")?;
    let token = vm.arg(args, 0);
    if !can_be_held_weakly(vm, token) {
        return Err(
            vm.type_error("FinalizationRegistry.prototype.unregister: invalid unregister token")
        );
    }
    let Some(cells) = cells(vm, registry) else {
        return Ok(Value::FALSE);
    };
    let before = cells.len();
    cells.retain(|c| c.token != token);
    Ok(Value::bool(cells.len() != before))
}

#[cfg(test)]
mod tests {
    use crate::Runtime;

    #[test]
    fn dead_targets_are_cleared_and_their_cleanup_runs() {
        let mut rt = Runtime::new();
        let setup = "var log = []; var kept = {};
            var registry = new FinalizationRegistry(held => log.push(held));
            var weakKept = new WeakRef(kept);
            var weakGone = (() => {
                const gone = {};
                registry.register(gone, 'gone');
                registry.register(kept, 'kept', kept);
                return new WeakRef(gone);
            })();";
        rt.run_script(setup, "setup.js").unwrap();
        // the jobs drained: the targets are no longer kept alive for the script
        rt.vm().collect_garbage();
        let check =
            "[typeof weakGone.deref(), weakKept.deref() === kept, registry.unregister(kept)]";
        // the cleanup job queued by the collection runs after this script
        assert_eq!(rt.eval(check).unwrap(), "[ 'undefined', true, true ]");
        assert_eq!(rt.eval("log.join()").unwrap(), "gone");
    }
}
