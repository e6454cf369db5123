//! Native functions by number: a snapshot cannot hold a code address, so it names each
//! native by its position in a registry that every process of the same Kiln build
//! computes identically — the natives of a fresh realm in heap order, then the natives
//! modules create while the guest runs (their `DYNAMIC_NATIVES` lists).

use crate::heap::ObjectId;
use crate::interpreter::Vm;
use crate::object::{NativeFn, ObjectKind, PropertyKey};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

pub struct Registry {
    natives: Vec<NativeFn>,
    /// code address -> position in `natives`
    positions: FxHashMap<usize, u32>,
    /// the intrinsics of a fresh realm, then a hash of the names of the realm's natives
    /// in registry order: a snapshot made by another build differs here (or in the
    /// number of natives)
    pub fingerprint: Vec<u32>,
}

impl Registry {
    /// The shared registry of this process (built on first use: it creates one realm).
    pub fn get() -> &'static Registry {
        static REGISTRY: OnceLock<Registry> = OnceLock::new();
        REGISTRY.get_or_init(Registry::build)
    }

    fn build() -> Registry {
        let vm = Vm::new();
        let mut registry = Registry {
            natives: Vec::new(),
            positions: FxHashMap::default(),
            fingerprint: vm.intrinsics.all().iter().map(|o| o.0).collect(),
        };
        let mut names: u64 = 0;
        for i in vm.heap.objects.live_indices() {
            if let ObjectKind::Native(n) = &vm.heap.objects.get(i).kind
                && registry.add(n.func)
            {
                let name = vm
                    .heap
                    .own_property(ObjectId(i), PropertyKey::String(vm.atoms.name))
                    .and_then(|p| p.value.as_string())
                    .map_or(0, |s| vm.heap.flat_units(s).content_hash());
                names = names.rotate_left(7) ^ name;
            }
        }
        registry
            .fingerprint
            .extend([names as u32, (names >> 32) as u32]);
        let dynamic = crate::builtins::promise::DYNAMIC_NATIVES
            .iter()
            .chain(&crate::builtins::generator::DYNAMIC_NATIVES)
            .chain(&crate::builtins::proxy::DYNAMIC_NATIVES)
            .chain(&crate::builtins::disposable_stack::DYNAMIC_NATIVES)
            .chain(&crate::builtins::array_from_async::DYNAMIC_NATIVES)
            .chain(&crate::host::DYNAMIC_NATIVES);
        for &f in dynamic {
            registry.add(f);
        }
        registry
    }

    /// Add `f` if it is new; true if it was.
    fn add(&mut self, f: NativeFn) -> bool {
        let next = self.natives.len() as u32;
        match self.positions.entry(f as usize) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(next);
                self.natives.push(f);
                true
            }
            std::collections::hash_map::Entry::Occupied(_) => false,
        }
    }

    /// The number of a native, None for one the registry does not know (a function the
    /// host defined with `Runtime::register_function`).
    pub fn position(&self, f: NativeFn) -> Option<u32> {
        self.positions.get(&(f as usize)).copied()
    }

    pub fn native(&self, position: u32) -> Option<NativeFn> {
        self.natives.get(position as usize).copied()
    }

    pub fn len(&self) -> usize {
        self.natives.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_realm_native_has_a_number_that_maps_back() {
        let registry = Registry::get();
        assert!(registry.len() > 300);
        let promise_resolve = crate::builtins::promise::DYNAMIC_NATIVES[1];
        let n = registry.position(promise_resolve).unwrap();
        assert_eq!(
            registry.native(n).map(|f| f as usize),
            Some(promise_resolve as usize)
        );
        assert!(registry.native(registry.len() as u32).is_none());
    }
}
