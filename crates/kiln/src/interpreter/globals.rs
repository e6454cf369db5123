//! Global bindings: the global object's properties and the script-level
//! lexical declarations (`let`/`const`/`class` at the top of a script),
//! which shadow them.

use super::{CodeBlock, Vm};
use crate::JsResult;
use crate::object::{Attrs, Property, PropertyKey};
use crate::value::Value;

impl Vm {
    /// The fast path of a global read: a declared lexical or an own data property of the
    /// global object. None sends the read to the generic path.
    #[inline]
    pub(crate) fn global_cached(&self, code: &CodeBlock, site: u16) -> Option<Value> {
        let key = code.sites[site as usize];
        if let PropertyKey::String(name) = key
            && !self.global_lexicals.is_empty()
            && let Some(&(v, _)) = self.global_lexicals.get(&name)
        {
            return (!v.is_hole()).then_some(v);
        }
        match self.heap.own_property(self.intrinsics.global, key) {
            Some(p) if !p.attrs.is_accessor() => Some(p.value),
            _ => None,
        }
    }

    pub(crate) fn get_global_slow(
        &mut self,
        code: &CodeBlock,
        site: u16,
        throw: bool,
    ) -> JsResult<Value> {
        let key = code.sites[site as usize];
        if let PropertyKey::String(name) = key
            && let Some(&(v, _)) = self.global_lexicals.get(&name)
        {
            if v.is_hole() {
                let n = self.heap.string_to_rust(name);
                return Err(
                    self.reference_error(format!("Cannot access '{n}' before initialization"))
                );
            }
            return Ok(v);
        }
        let global = self.intrinsics.global;
        if !self.has_property(global, key)? {
            if throw {
                let n = self.key_to_display(key);
                return Err(self.reference_error(format!("{n} is not defined")));
            }
            return Ok(Value::UNDEFINED);
        }
        self.get_with_receiver(global, key, Value::object(global))
    }

    /// The fast path of a global write to an existing writable data property; false means
    /// take the generic path.
    #[inline]
    pub(crate) fn set_global_cached(&mut self, code: &CodeBlock, site: u16, v: Value) -> bool {
        let key = code.sites[site as usize];
        if !self.global_lexicals.is_empty()
            && let PropertyKey::String(name) = key
            && self.global_lexicals.contains_key(&name)
        {
            return false;
        }
        let global = self.intrinsics.global;
        match self.heap.own_property(global, key) {
            Some(p) if !p.attrs.is_accessor() && p.attrs.writable() => {
                self.heap.put_own(
                    global,
                    key,
                    Property {
                        value: v,
                        attrs: p.attrs,
                    },
                );
                true
            }
            _ => false,
        }
    }

    pub(crate) fn set_global_slow(
        &mut self,
        code: &CodeBlock,
        site: u16,
        v: Value,
    ) -> JsResult<()> {
        let key = code.sites[site as usize];
        if let PropertyKey::String(name) = key
            && let Some(&(old, is_const)) = self.global_lexicals.get(&name)
        {
            if old.is_hole() {
                let n = self.heap.string_to_rust(name);
                return Err(
                    self.reference_error(format!("Cannot access '{n}' before initialization"))
                );
            }
            if is_const {
                return Err(self.type_error("Assignment to constant variable."));
            }
            self.global_lexicals.insert(name, (v, false));
            return Ok(());
        }
        let global = self.intrinsics.global;
        let strict = code.code.strict;
        if strict && !self.has_property(global, key)? {
            let n = self.key_to_display(key);
            return Err(self.reference_error(format!("{n} is not defined")));
        }
        let ok = self.set(Value::object(global), key, v, Value::object(global))?;
        if !ok && strict {
            let n = self.key_to_display(key);
            return Err(self.type_error(format!(
                "Cannot assign to read only property '{n}' of object"
            )));
        }
        Ok(())
    }

    /// CreateGlobalVarBinding: a configurable-false `undefined` property unless one exists.
    pub(crate) fn declare_global_var(&mut self, key: PropertyKey) -> JsResult<()> {
        if let PropertyKey::String(name) = key
            && self.global_lexicals.contains_key(&name)
        {
            let n = self.heap.string_to_rust(name);
            return Err(self.syntax_error(format!("Identifier '{n}' has already been declared")));
        }
        let global = self.intrinsics.global;
        if self.get_own_property(global, key)?.is_none() && self.is_extensible(global)? {
            self.heap.put_own(
                global,
                key,
                Property {
                    value: Value::UNDEFINED,
                    attrs: Attrs(Attrs::WRITABLE | Attrs::ENUMERABLE),
                },
            );
        }
        Ok(())
    }

    pub(crate) fn declare_global_lexical(
        &mut self,
        key: PropertyKey,
        is_const: bool,
    ) -> JsResult<()> {
        let PropertyKey::String(name) = key else {
            return Ok(());
        };
        let global = self.intrinsics.global;
        let restricted = self
            .get_own_property(global, key)?
            .is_some_and(|d| d.configurable == Some(false));
        if self.global_lexicals.contains_key(&name) || restricted {
            let n = self.heap.string_to_rust(name);
            return Err(self.syntax_error(format!("Identifier '{n}' has already been declared")));
        }
        self.global_lexicals.insert(name, (Value::HOLE, is_const));
        Ok(())
    }
}
