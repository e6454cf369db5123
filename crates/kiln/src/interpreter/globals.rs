//! Global bindings: the global object's properties and the script-level
//! lexical declarations (`let`/`const`/`class` at the top of a script),
//! which shadow them.
//!
//! The global object is always in dictionary mode, so global sites cache the
//! position of the property's dictionary entry (a property cell): a hit is an
//! index and two generation checks, no hashing.

use kiln_bytecode::GlobalDeclaration;

use super::property::PropertyDescriptor;
use super::{CodeBlock, InlineCache, Vm};
use crate::JsResult;
use crate::object::{Attrs, Property, PropertyKey};
use crate::value::Value;

impl Vm {
    /// The fast path of a global read. None sends the read to the generic path.
    #[inline]
    pub(crate) fn global_cached(&self, code: &CodeBlock, site: u16) -> Option<Value> {
        match code.caches[site as usize].get() {
            InlineCache::Global {
                position,
                generation,
                lexicals,
            } => {
                let dict = self.heap.object(self.intrinsics.global).dict.as_ref()?;
                if dict.generation != generation
                    || lexicals != self.global_lexical_values.len() as u32
                {
                    return None;
                }
                dict.at(position).map(|p| p.value)
            }
            InlineCache::GlobalLexical { index } => {
                let v = self.global_lexical_values[index as usize].0;
                (!v.is_hole()).then_some(v)
            }
            _ => None,
        }
    }

    /// Remember where a global binding lives, if it is a plain data property or a lexical.
    fn fill_global_cache(&self, code: &CodeBlock, site: u16, writing: bool) {
        let key = code.sites[site as usize];
        let cache = if let PropertyKey::String(name) = key
            && let Some(&index) = self.global_lexicals.get(&name)
        {
            if writing && self.global_lexical_values[index as usize].1 {
                return;
            }
            InlineCache::GlobalLexical { index }
        } else {
            let Some(dict) = self.heap.object(self.intrinsics.global).dict.as_ref() else {
                return;
            };
            let Some(position) = dict.position(key) else {
                return;
            };
            match dict.at(position) {
                Some(p) if !p.attrs.is_accessor() && (!writing || p.attrs.writable()) => {
                    InlineCache::Global {
                        position,
                        generation: dict.generation,
                        lexicals: self.global_lexical_values.len() as u32,
                    }
                }
                _ => return,
            }
        };
        code.caches[site as usize].set(cache);
    }

    pub(crate) fn get_global_slow(
        &mut self,
        code: &CodeBlock,
        site: u16,
        throw: bool,
    ) -> JsResult<Value> {
        let key = code.sites[site as usize];
        if let PropertyKey::String(name) = key
            && let Some(&i) = self.global_lexicals.get(&name)
        {
            let v = self.global_lexical_values[i as usize].0;
            if v.is_hole() {
                let n = self.heap.string_to_rust(name);
                return Err(
                    self.reference_error(format!("Cannot access '{n}' before initialization"))
                );
            }
            self.fill_global_cache(code, site, false);
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
        self.fill_global_cache(code, site, false);
        self.get_with_receiver(global, key, Value::object(global))
    }

    /// The fast path of a global write to a cached writable binding; false means take the
    /// generic path.
    #[inline]
    pub(crate) fn set_global_cached(&mut self, code: &CodeBlock, site: u16, v: Value) -> bool {
        match code.caches[site as usize].get() {
            InlineCache::Global {
                position,
                generation,
                lexicals,
            } => {
                if lexicals != self.global_lexical_values.len() as u32 {
                    return false;
                }
                let global = self.intrinsics.global;
                let Some(dict) = self.heap.object_mut(global).dict.as_mut() else {
                    return false;
                };
                if dict.generation != generation {
                    return false;
                }
                match dict.at_mut(position) {
                    Some(p) => {
                        p.value = v;
                        true
                    }
                    None => false,
                }
            }
            InlineCache::GlobalLexical { index } => {
                let slot = &mut self.global_lexical_values[index as usize];
                if slot.0.is_hole() {
                    return false;
                }
                slot.0 = v;
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
            && let Some(&i) = self.global_lexicals.get(&name)
        {
            let (old, is_const) = self.global_lexical_values[i as usize];
            if old.is_hole() {
                let n = self.heap.string_to_rust(name);
                return Err(
                    self.reference_error(format!("Cannot access '{n}' before initialization"))
                );
            }
            if is_const {
                return Err(self.type_error("Assignment to constant variable."));
            }
            self.global_lexical_values[i as usize].0 = v;
            self.fill_global_cache(code, site, true);
            return Ok(());
        }
        let global = self.intrinsics.global;
        let strict = code.strict;
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
        self.fill_global_cache(code, site, true);
        Ok(())
    }

    /// CreateGlobalVarBinding: a non-configurable `undefined` property unless one exists.
    /// The checks [GlobalDeclarationInstantiation](https://tc39.es/ecma262/#sec-globaldeclarationinstantiation)
    /// (and EvalDeclarationInstantiation with the global variable environment) make for
    /// every declared name before creating any binding.
    pub(crate) fn check_global_declaration(
        &mut self,
        key: PropertyKey,
        kind: GlobalDeclaration,
    ) -> JsResult<()> {
        let global = self.intrinsics.global;
        let lexical =
            matches!(key, PropertyKey::String(name) if self.global_lexicals.contains_key(&name));
        let existing = self.get_own_property(global, key)?;
        // HasLexicalDeclaration, and for a lexical name HasRestrictedGlobalProperty.
        let clash = lexical
            || (kind == GlobalDeclaration::Lexical
                && existing.is_some_and(|d| d.configurable == Some(false)));
        if clash {
            let n = self.key_to_display(key);
            return Err(self.syntax_error(format!("Identifier '{n}' has already been declared")));
        }
        let definable = match (kind, existing) {
            (GlobalDeclaration::Lexical, _) => true,
            // CanDeclareGlobalVar / CanDeclareGlobalFunction with no such property.
            (_, None) => self.is_extensible(global)?,
            (GlobalDeclaration::Var, Some(_)) => true,
            // CanDeclareGlobalFunction: a configurable property, or a writable and
            // enumerable data property.
            (GlobalDeclaration::Function, Some(d)) => {
                d.configurable == Some(true)
                    || (d.get.is_none()
                        && d.set.is_none()
                        && d.writable == Some(true)
                        && d.enumerable == Some(true))
            }
        };
        if !definable {
            let n = self.key_to_display(key);
            return Err(self.type_error(format!("Cannot declare global binding '{n}'")));
        }
        Ok(())
    }

    /// [CreateGlobalVarBinding](https://tc39.es/ecma262/#sec-createglobalvarbinding).
    pub(crate) fn declare_global_var(&mut self, key: PropertyKey, deletable: bool) -> JsResult<()> {
        if let PropertyKey::String(name) = key
            && self.global_lexicals.contains_key(&name)
        {
            let n = self.heap.string_to_rust(name);
            return Err(self.syntax_error(format!("Identifier '{n}' has already been declared")));
        }
        let global = self.intrinsics.global;
        if self.get_own_property(global, key)?.is_none() && self.is_extensible(global)? {
            let configurable = if deletable { Attrs::CONFIGURABLE } else { 0 };
            self.heap.put_own(
                global,
                key,
                Property {
                    value: Value::UNDEFINED,
                    attrs: Attrs(Attrs::WRITABLE | Attrs::ENUMERABLE | configurable),
                },
            );
        }
        Ok(())
    }

    /// [CreateGlobalFunctionBinding](https://tc39.es/ecma262/#sec-createglobalfunctionbinding).
    pub(crate) fn declare_global_function(
        &mut self,
        key: PropertyKey,
        f: Value,
        deletable: bool,
    ) -> JsResult<()> {
        let global = self.intrinsics.global;
        // 3-5. A new or configurable property is redefined whole; otherwise only its value.
        let redefine = self
            .get_own_property(global, key)?
            .is_none_or(|d| d.configurable == Some(true));
        let desc = if redefine {
            PropertyDescriptor {
                value: Some(f),
                writable: Some(true),
                enumerable: Some(true),
                configurable: Some(deletable),
                ..PropertyDescriptor::default()
            }
        } else {
            PropertyDescriptor {
                value: Some(f),
                ..PropertyDescriptor::default()
            }
        };
        self.define_property_or_throw(global, key, desc)?;
        // 7. Perform ? Set(globalObject, N, V, false).
        self.set(Value::object(global), key, f, Value::object(global))?;
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
        // A new lexical may shadow a cached global property: caches record the count.
        self.global_lexicals
            .insert(name, self.global_lexical_values.len() as u32);
        self.global_lexical_values.push((Value::HOLE, is_const));
        Ok(())
    }
}
