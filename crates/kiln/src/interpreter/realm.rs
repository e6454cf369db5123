//! Running code in several realms: creating a realm, switching the running realm,
//! and [GetFunctionRealm](https://tc39.es/ecma262/#sec-getfunctionrealm).
//!
//! The running realm's record is in the VM's fields; the others are parked in
//! `Vm::realms` (see [`crate::realm`]). A switch is four swaps, no allocation; it
//! happens only when a call crosses realms, so a call within one realm pays one
//! comparison on the way in and one on the way out.

use super::Vm;
use crate::JsResult;
use crate::heap::ObjectId;
use crate::object::ObjectKind;
use crate::realm::{Intrinsics, Realm, RealmId};

impl Vm {
    /// Make `to` the running realm; returns the realm that was running.
    #[cold]
    #[inline(never)]
    pub fn enter_realm(&mut self, to: RealmId) -> RealmId {
        let from = self.realm;
        if from != to {
            self.swap_realm_record(from);
            self.swap_realm_record(to);
            self.realm = to;
        }
        from
    }

    /// Exchange the VM's running-realm fields with the parked record of `realm`.
    fn swap_realm_record(&mut self, realm: RealmId) {
        let parked = &mut self.realms[realm.0 as usize];
        std::mem::swap(&mut self.intrinsics, &mut parked.intrinsics);
        std::mem::swap(&mut self.global_lexicals, &mut parked.global_lexicals);
        std::mem::swap(
            &mut self.global_lexical_values,
            &mut parked.global_lexical_values,
        );
        std::mem::swap(&mut self.shapes, &mut parked.shapes);
    }

    /// [InitializeHostDefinedRealm](https://tc39.es/ecma262/#sec-initializehostdefinedrealm)
    /// without running anything in it: a new realm with fresh intrinsics and global
    /// object in this VM's heap. The running realm does not change.
    pub fn create_realm(&mut self) -> RealmId {
        let realm = RealmId(self.realms.len() as u32);
        self.realms.push(Realm::placeholder());
        let previous = self.enter_realm(realm);
        crate::builtins::init(self);
        self.enter_realm(previous);
        realm
    }

    /// The intrinsics of `realm`, running or parked.
    pub fn realm_intrinsics(&self, realm: RealmId) -> &Intrinsics {
        if realm == self.realm {
            &self.intrinsics
        } else {
            &self.realms[realm.0 as usize].intrinsics
        }
    }

    /// The global object of `realm`.
    pub fn realm_global(&self, realm: RealmId) -> ObjectId {
        self.realm_intrinsics(realm).global
    }

    /// [GetFunctionRealm](https://tc39.es/ecma262/#sec-getfunctionrealm): the realm of a
    /// function object, looking through bound functions and proxies (iteratively: a
    /// chain of proxies must not deepen the native stack).
    pub fn function_realm(&mut self, f: ObjectId) -> JsResult<RealmId> {
        let mut f = f;
        loop {
            match &self.heap.object(f).kind {
                // 1. If obj has a [[Realm]] internal slot, return obj.[[Realm]].
                ObjectKind::Closure(c) => return Ok(c.code.realm),
                ObjectKind::Native(n) => return Ok(n.realm),
                // 2. If obj is a bound function exotic object, return GetFunctionRealm(target).
                ObjectKind::Bound(b) => f = b.target,
                // 3. If obj is a Proxy exotic object: a revoked proxy throws a TypeError;
                //    otherwise return GetFunctionRealm(proxyTarget).
                ObjectKind::Proxy { target, .. } => match target {
                    Some(t) => f = *t,
                    None => {
                        return Err(self.type_error("cannot get the realm of a revoked proxy"));
                    }
                },
                // 4. Return the current Realm Record.
                _ => return Ok(self.realm),
            }
        }
    }
}
