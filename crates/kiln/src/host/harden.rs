//! Hardening: freezing the intrinsics (`lockdown`) and guest objects (`harden`), SES-style.
//!
//! After lockdown no guest can change what another guest (or a later run) sees of the
//! built-ins: every object reachable from the intrinsics is frozen, prototypes included.
//! The global object itself stays extensible and writable so scripts can still declare
//! globals. Assigning to a property that a frozen prototype defines (`obj.toString = f`)
//! would fail under plain JavaScript rules (the "override mistake"); a hardened VM lets
//! the assignment create the own property instead (see `Vm::set`).

use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::value::Value;
use rustc_hash::FxHashSet;

/// Freeze `roots` and everything reachable from them through prototypes and own
/// properties (data values, getters and setters), except the objects in `skip_freeze`,
/// which are traversed but left as they are.
fn freeze_reachable(vm: &mut Vm, roots: Vec<ObjectId>, skip_freeze: &[ObjectId]) -> JsResult<()> {
    let mut seen: FxHashSet<ObjectId> = FxHashSet::default();
    let mut work = roots;
    let base = vm.roots.len();
    while let Some(o) = work.pop() {
        if vm.heap.object(o).hardened || !seen.insert(o) {
            continue;
        }
        vm.roots.push(Value::object(o));
        if !skip_freeze.contains(&o) && !crate::builtins::object::set_integrity_level(vm, o, true)?
        {
            vm.roots.truncate(base);
            return Err(vm.type_error("Cannot harden: an object refused to be frozen"));
        }
        if let Some(proto) = vm.get_prototype_of(o)? {
            work.push(proto);
        }
        for key in vm.own_property_keys(o)? {
            let Some(desc) = vm.get_own_property(o, key)? else {
                continue;
            };
            for v in [desc.value, desc.get, desc.set].into_iter().flatten() {
                if let Some(child) = v.as_object() {
                    work.push(child);
                }
            }
        }
    }
    vm.roots.truncate(base);
    for o in seen {
        if !skip_freeze.contains(&o) {
            vm.heap.object_mut(o).hardened = true;
        }
    }
    Ok(())
}

impl Vm {
    /// Freeze every intrinsic and switch on the override-mistake fix; defines the global
    /// `harden`. Runs once, before guest code.
    pub fn lockdown(&mut self) -> JsResult<()> {
        self.define_native(self.intrinsics.global, "harden", harden, 1);
        let global = self.intrinsics.global;
        let roots = self.intrinsics.all();
        freeze_reachable(self, roots, &[global])?;
        self.hardened = true;
        Ok(())
    }
}

/// `harden(value)`: freeze `value`, its prototypes and everything reachable from its
/// properties; returns `value`.
pub(super) fn harden(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let v = vm.arg(args, 0);
    if let Some(o) = v.as_object() {
        freeze_reachable(vm, vec![o], &[])?;
    }
    Ok(v)
}
