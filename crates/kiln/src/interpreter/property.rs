//! The object internal methods of the specification: [[Get]], [[Set]],
//! [[GetOwnProperty]], [[DefineOwnProperty]], [[HasProperty]], [[Delete]],
//! [[OwnPropertyKeys]], [[GetPrototypeOf]], [[SetPrototypeOf]],
//! [[IsExtensible]], [[PreventExtensions]], for ordinary and exotic objects.
//! Proxies dispatch to `builtins::proxy`. All of these may run JavaScript
//! (accessors, proxy traps).

use super::Vm;
use crate::JsResult;
use crate::builtins::proxy;
use crate::builtins::typed_array;
use crate::heap::ObjectId;
use crate::object::{Attrs, ObjectKind, Property, PropertyKey, array_length};
use crate::value::{Kind, Value};

/// A property descriptor with optional fields
/// ([spec](https://tc39.es/ecma262/#sec-property-descriptor-specification-type)).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PropertyDescriptor {
    pub value: Option<Value>,
    pub writable: Option<bool>,
    pub get: Option<Value>,
    pub set: Option<Value>,
    pub enumerable: Option<bool>,
    pub configurable: Option<bool>,
}

impl PropertyDescriptor {
    pub fn data(value: Value, attrs: Attrs) -> Self {
        PropertyDescriptor {
            value: Some(value),
            writable: Some(attrs.writable()),
            get: None,
            set: None,
            enumerable: Some(attrs.enumerable()),
            configurable: Some(attrs.configurable()),
        }
    }
    pub fn is_accessor(&self) -> bool {
        self.get.is_some() || self.set.is_some()
    }
    pub fn is_data(&self) -> bool {
        self.value.is_some() || self.writable.is_some()
    }
}

impl Vm {
    fn is_proxy(&self, obj: ObjectId) -> bool {
        matches!(self.heap.object(obj).kind, ObjectKind::Proxy { .. })
    }

    /// The object whose properties a primitive exposes (its prototype).
    fn primitive_prototype(&mut self, v: Value) -> JsResult<ObjectId> {
        Ok(match v.kind() {
            Kind::Bool(_) => self.intrinsics.boolean_prototype,
            Kind::Int(_) | Kind::Double(_) => self.intrinsics.number_prototype,
            Kind::String(_) => self.intrinsics.string_prototype,
            Kind::Symbol(_) => self.intrinsics.symbol_prototype,
            Kind::BigInt(_) => self.intrinsics.bigint_prototype,
            Kind::Object(o) => o,
            _ => {
                let what = self.display(v);
                return Err(self.type_error(format!("Cannot read properties of {what}")));
            }
        })
    }

    /// [GetMethod](https://tc39.es/ecma262/#sec-getmethod): `None` for null or undefined, a
    /// TypeError for anything else that is not callable.
    pub fn get_method(&mut self, v: Value, key: PropertyKey) -> JsResult<Option<Value>> {
        let f = self.get(v, key)?;
        if f.is_nullish() {
            return Ok(None);
        }
        if !self.is_callable(f) {
            let k = self.key_to_display(key);
            return Err(self.type_error(format!("{k} is not a function")));
        }
        Ok(Some(f))
    }

    /// `v[key]` for any value (GetV for primitives).
    pub fn get(&mut self, v: Value, key: PropertyKey) -> JsResult<Value> {
        self.charge(1)?;
        if let Some(obj) = v.as_object() {
            if let Some(value) = self.get_data_cached(obj, key) {
                return Ok(value);
            }
            return self.get_with_receiver(obj, key, v);
        }
        if let Some(s) = v.as_string() {
            match key {
                PropertyKey::Index(i) if i < self.heap.string_len(s) => {
                    let unit = self.heap.units(s).at(i as usize);
                    return Ok(Value::string(self.heap.single_unit_string(unit)));
                }
                PropertyKey::String(k) if k == self.heap.length_atom => {
                    return Ok(Value::int(self.heap.string_len(s) as i32));
                }
                _ => {}
            }
        }
        let proto = self.primitive_prototype(v)?;
        if let Some(value) = self.get_data_cached(proto, key) {
            return Ok(value);
        }
        self.get_with_receiver(proto, key, v)
    }

    /// [[Get]](key, receiver) starting at `obj`.
    pub fn get_with_receiver(
        &mut self,
        mut obj: ObjectId,
        key: PropertyKey,
        receiver: Value,
    ) -> JsResult<Value> {
        loop {
            if self.is_proxy(obj) {
                return proxy::get(self, obj, key, receiver);
            }
            if let Some(index) = typed_array::numeric_key(self, obj, key) {
                return Ok(typed_array::get_element(self, obj, index));
            }
            if self.namespace_exports(obj, key).is_some() {
                return self.namespace_get(obj, key);
            }
            if let Some(p) = self.heap.own_property(obj, key) {
                let p = self.string_wrapper_unit(obj, key, p);
                return self.property_value(p, receiver);
            }
            match self.heap.object(obj).proto {
                Some(p) => obj = p,
                None => return Ok(Value::UNDEFINED),
            }
        }
    }

    /// The value of a found property: the data value, or the getter's result.
    pub fn property_value(&mut self, p: Property, receiver: Value) -> JsResult<Value> {
        if !p.attrs.is_accessor() {
            return Ok(p.value);
        }
        let getter = self.accessor_parts(p.value).0;
        if getter.is_undefined() {
            Ok(Value::UNDEFINED)
        } else {
            self.call(getter, receiver, &[])
        }
    }

    /// The (getter, setter) of an accessor property's stored value.
    pub fn accessor_parts(&self, stored: Value) -> (Value, Value) {
        match stored.as_object().map(|o| &self.heap.object(o).kind) {
            Some(ObjectKind::Accessor { get, set }) => (*get, *set),
            _ => (Value::UNDEFINED, Value::UNDEFINED),
        }
    }

    pub fn new_accessor(&mut self, get: Value, set: Value) -> Value {
        Value::object(
            self.heap
                .new_object(None, ObjectKind::Accessor { get, set }),
        )
    }

    /// `v[key] = value`; returns false where strict code must throw.
    pub fn set(
        &mut self,
        target: Value,
        key: PropertyKey,
        value: Value,
        receiver: Value,
    ) -> JsResult<bool> {
        self.charge(1)?;
        let mut obj = match target.as_object() {
            Some(o) => o,
            None => self.primitive_prototype(target)?,
        };
        // Whether the walk below looked for an own `key` on the receiver and found none.
        let mut receiver_lacks_key = false;
        // OrdinarySet: find the property along the chain.
        loop {
            if self.is_proxy(obj) {
                return proxy::set(self, obj, key, value, receiver);
            }
            // TypedArray [[Set]]: numeric keys write the buffer when the receiver is the
            // array itself; otherwise a valid index behaves as a writable data property.
            if let Some(index) = typed_array::numeric_key(self, obj, key) {
                if receiver == Value::object(obj) {
                    typed_array::set_element(self, obj, index, value)?;
                    return Ok(true);
                }
                if !typed_array::is_valid_index(self, obj, index) {
                    return Ok(true);
                }
                break;
            }
            if self.namespace_exports(obj, key).is_some() {
                return Ok(false);
            }
            if let Some(p) = self.heap.own_property(obj, key) {
                if p.attrs.is_accessor() {
                    let setter = self.accessor_parts(p.value).1;
                    if setter.is_undefined() {
                        return Ok(false);
                    }
                    self.call(setter, receiver, &[value])?;
                    return Ok(true);
                }
                if receiver == Value::object(obj) {
                    if !p.attrs.writable() {
                        return Ok(false);
                    }
                    return self.write_own_data(obj, key, value);
                }
                // the override mistake: under lockdown a read-only inherited property
                // does not stop the receiver from getting its own
                if !p.attrs.writable() && !self.hardened {
                    return Ok(false);
                }
                break;
            }
            receiver_lacks_key |= receiver == Value::object(obj);
            match self.heap.object(obj).proto {
                Some(p) => obj = p,
                None => break,
            }
        }
        let Some(recv) = receiver.as_object() else {
            return Ok(false);
        };
        if receiver_lacks_key && self.adds_plainly(recv) {
            self.heap.add_own(
                recv,
                key,
                Property {
                    value,
                    attrs: Attrs::DEFAULT,
                },
            );
            return Ok(true);
        }
        if let Some(existing) = self.get_own_property(recv, key)? {
            if existing.is_accessor() || existing.writable == Some(false) {
                return Ok(false);
            }
            let desc = PropertyDescriptor {
                value: Some(value),
                ..Default::default()
            };
            return self.define_own_property(recv, key, desc);
        }
        self.create_data_property(recv, key, value)
    }

    /// Overwrite the value of an existing own writable data property.
    fn write_own_data(&mut self, obj: ObjectId, key: PropertyKey, value: Value) -> JsResult<bool> {
        if let ObjectKind::Array { .. } = self.heap.object(obj).kind
            && key == PropertyKey::String(self.heap.length_atom)
        {
            let desc = PropertyDescriptor {
                value: Some(value),
                ..Default::default()
            };
            return self.define_own_property(obj, key, desc);
        }
        if let Some(slot) = self.mapped_argument(obj, key) {
            let env = slot.0;
            self.heap.env_mut(env).slots[slot.1] = value;
            return Ok(true);
        }
        let attrs = self
            .heap
            .own_property(obj, key)
            .map_or(Attrs::DEFAULT, |p| p.attrs);
        self.heap.put_own(obj, key, Property { value, attrs });
        Ok(true)
    }

    /// [CreateDataProperty](https://tc39.es/ecma262/#sec-createdataproperty)
    pub fn create_data_property(
        &mut self,
        obj: ObjectId,
        key: PropertyKey,
        value: Value,
    ) -> JsResult<bool> {
        if self.adds_plainly(obj) && self.heap.own_property(obj, key).is_none() {
            self.heap.add_own(
                obj,
                key,
                Property {
                    value,
                    attrs: Attrs::DEFAULT,
                },
            );
            return Ok(true);
        }
        let desc = PropertyDescriptor::data(value, Attrs::DEFAULT);
        self.define_own_property(obj, key, desc)
    }

    /// True if `obj` is extensible and its [[DefineOwnProperty]] for a key it lacks is
    /// OrdinaryDefineOwnProperty adding a default data property (not an array, whose
    /// `length` may follow, nor another exotic object).
    fn adds_plainly(&self, obj: ObjectId) -> bool {
        let o = self.heap.object(obj);
        o.extensible
            && !matches!(
                o.kind,
                ObjectKind::Array { .. }
                    | ObjectKind::Arguments { .. }
                    | ObjectKind::String(_)
                    | ObjectKind::TypedArray(_)
                    | ObjectKind::Proxy { .. }
            )
    }

    /// CreateDataPropertyOrThrow
    pub fn create_data_property_or_throw(
        &mut self,
        obj: ObjectId,
        key: PropertyKey,
        value: Value,
    ) -> JsResult<()> {
        if !self.create_data_property(obj, key, value)? {
            let k = self.key_to_display(key);
            return Err(self.type_error(format!("Cannot define property {k}")));
        }
        Ok(())
    }

    /// Define a built-in's property directly (no checks: the object is fresh and ordinary).
    pub fn define_builtin(&mut self, obj: ObjectId, key: PropertyKey, value: Value, attrs: Attrs) {
        self.heap.put_own(obj, key, Property { value, attrs });
    }

    /// [`Vm::define_builtin`] for a key `obj` does not have yet (a built-in being made):
    /// no lookup first, so making a large prototype builds no key table on the way (the
    /// first lookup while a program runs builds its final shape's, once). A fresh realm
    /// has no key twice (`no_built_in_defines_a_key_twice`).
    pub fn define_new_builtin(
        &mut self,
        obj: ObjectId,
        key: PropertyKey,
        value: Value,
        attrs: Attrs,
    ) {
        debug_assert!(self.heap.own_property(obj, key).is_none());
        self.heap.add_own(obj, key, Property { value, attrs });
    }

    /// [[GetOwnProperty]]
    pub fn get_own_property(
        &mut self,
        obj: ObjectId,
        key: PropertyKey,
    ) -> JsResult<Option<PropertyDescriptor>> {
        if self.is_proxy(obj) {
            return proxy::get_own_property(self, obj, key);
        }
        if let Some(index) = typed_array::numeric_key(self, obj, key) {
            if !typed_array::is_valid_index(self, obj, index) {
                return Ok(None);
            }
            let value = typed_array::get_element(self, obj, index);
            return Ok(Some(PropertyDescriptor::data(value, Attrs::DEFAULT)));
        }
        if let Some(exported) = self.namespace_exports(obj, key) {
            if !exported {
                return Ok(None);
            }
            let value = self.namespace_get(obj, key)?;
            return Ok(Some(PropertyDescriptor {
                value: Some(value),
                writable: Some(true),
                get: None,
                set: None,
                enumerable: Some(true),
                configurable: Some(false),
            }));
        }
        match self.heap.own_property(obj, key) {
            Some(p) => {
                let p = self.string_wrapper_unit(obj, key, p);
                Ok(Some(self.descriptor_of(p)))
            }
            None => Ok(None),
        }
    }

    /// The heap reports a String wrapper's string indices as code units; JavaScript sees
    /// one-unit strings. (Indices past the string are ordinary properties.)
    fn string_wrapper_unit(&mut self, obj: ObjectId, key: PropertyKey, p: Property) -> Property {
        if let PropertyKey::Index(i) = key
            && let ObjectKind::String(s) = self.heap.object(obj).kind
            && i < self.heap.string_len(s)
            && let Some(unit) = p.value.as_int()
        {
            return Property {
                value: Value::string(self.heap.single_unit_string(unit as u16)),
                attrs: p.attrs,
            };
        }
        p
    }

    pub fn descriptor_of(&self, p: Property) -> PropertyDescriptor {
        if p.attrs.is_accessor() {
            let (get, set) = self.accessor_parts(p.value);
            PropertyDescriptor {
                value: None,
                writable: None,
                get: Some(get),
                set: Some(set),
                enumerable: Some(p.attrs.enumerable()),
                configurable: Some(p.attrs.configurable()),
            }
        } else {
            PropertyDescriptor::data(p.value, p.attrs)
        }
    }

    /// [[DefineOwnProperty]]: false where the definition is not allowed.
    pub fn define_own_property(
        &mut self,
        obj: ObjectId,
        key: PropertyKey,
        desc: PropertyDescriptor,
    ) -> JsResult<bool> {
        // TypedArray [[DefineOwnProperty]] for numeric keys.
        if let Some(index) = typed_array::numeric_key(self, obj, key) {
            if !typed_array::is_valid_index(self, obj, index)
                || desc.configurable == Some(false)
                || desc.enumerable == Some(false)
                || desc.is_accessor()
                || desc.writable == Some(false)
            {
                return Ok(false);
            }
            if let Some(v) = desc.value {
                typed_array::set_element(self, obj, index, v)?;
            }
            return Ok(true);
        }
        match &self.heap.object(obj).kind {
            ObjectKind::Proxy { .. } => return proxy::define_own_property(self, obj, key, desc),
            ObjectKind::ModuleNamespace(_) if !matches!(key, PropertyKey::Symbol(_)) => {
                return self.namespace_define(obj, key, &desc);
            }
            ObjectKind::Array { length_writable } => {
                let length_writable = *length_writable;
                if key == PropertyKey::String(self.heap.length_atom) {
                    return self.array_set_length(obj, desc);
                }
                if let PropertyKey::Index(i) = key {
                    let len = array_length(self.heap.object(obj));
                    if i >= len && !length_writable {
                        return Ok(false);
                    }
                    return self.ordinary_define_own_property(obj, key, desc);
                }
            }
            ObjectKind::String(s) => {
                let s = *s;
                let fixed = match key {
                    PropertyKey::Index(i) => i < self.heap.string_len(s),
                    PropertyKey::String(k) => k == self.heap.length_atom,
                    _ => false,
                };
                if fixed {
                    let current = self
                        .heap
                        .own_property(obj, key)
                        .map(|p| self.descriptor_of(p));
                    return Ok(self.is_compatible_descriptor(false, desc, current));
                }
            }
            ObjectKind::Arguments { .. } => {
                // [[DefineOwnProperty]] of arguments exotic objects
                if let Some((env, slot)) = self.mapped_argument(obj, key) {
                    let PropertyKey::Index(i) = key else {
                        unreachable!("mapped keys are indices")
                    };
                    let mut desc = desc;
                    if desc.is_data() && desc.value.is_none() && desc.writable == Some(false) {
                        desc.value = Some(self.heap.env(env).slots[slot]);
                    }
                    if !self.ordinary_define_own_property(obj, key, desc)? {
                        return Ok(false);
                    }
                    if desc.is_accessor() {
                        self.unmap_argument(obj, i);
                    } else {
                        if let Some(v) = desc.value {
                            self.heap.env_mut(env).slots[slot] = v;
                        }
                        if desc.writable == Some(false) {
                            self.unmap_argument(obj, i);
                        }
                    }
                    return Ok(true);
                }
            }
            _ => {}
        }
        self.ordinary_define_own_property(obj, key, desc)
    }

    /// The (environment, slot) a mapped arguments index aliases.
    fn mapped_argument(
        &self,
        obj: ObjectId,
        key: PropertyKey,
    ) -> Option<(crate::heap::EnvId, usize)> {
        match (&self.heap.object(obj).kind, key) {
            (
                ObjectKind::Arguments {
                    env: Some(env),
                    mapped,
                },
                PropertyKey::Index(i),
            ) if mapped.get(i as usize) == Some(&true) => Some((*env, i as usize)),
            _ => None,
        }
    }

    /// Stop aliasing arguments index `i` with its parameter; the element keeps the current value.
    fn unmap_argument(&mut self, obj: ObjectId, i: u32) {
        let Some((env, slot)) = self.mapped_argument(obj, PropertyKey::Index(i)) else {
            return;
        };
        let value = self.heap.env(env).slots[slot];
        if let Some(p) = self.heap.own_property(obj, PropertyKey::Index(i))
            && !p.attrs.is_accessor()
        {
            self.heap.put_own(
                obj,
                PropertyKey::Index(i),
                Property {
                    value,
                    attrs: p.attrs,
                },
            );
        }
        if let ObjectKind::Arguments { mapped, .. } = &mut self.heap.object_mut(obj).kind {
            mapped[i as usize] = false;
        }
    }

    /// [ArraySetLength](https://tc39.es/ecma262/#sec-arraysetlength)
    fn array_set_length(&mut self, obj: ObjectId, desc: PropertyDescriptor) -> JsResult<bool> {
        let Some(v) = desc.value else {
            let current = self
                .heap
                .own_property(obj, PropertyKey::String(self.heap.length_atom))
                .map(|p| self.descriptor_of(p));
            if !self.is_compatible_descriptor(true, desc, current) {
                return Ok(false);
            }
            if desc.writable == Some(false)
                && let ObjectKind::Array { length_writable } = &mut self.heap.object_mut(obj).kind
            {
                *length_writable = false;
            }
            return Ok(true);
        };
        let new_len = self.to_uint32(v)?;
        let number_len = self.to_number(v)?;
        if new_len as f64 != number_len {
            return Err(self.range_error("Invalid array length"));
        }
        if desc.configurable == Some(true) || desc.enumerable == Some(true) || desc.is_accessor() {
            return Ok(false);
        }
        let length_writable = matches!(
            self.heap.object(obj).kind,
            ObjectKind::Array {
                length_writable: true
            }
        );
        let old_len = array_length(self.heap.object(obj));
        if !length_writable {
            return Ok(new_len == old_len && desc.writable != Some(true));
        }
        let ok = self.heap.set_array_length(obj, new_len);
        if desc.writable == Some(false)
            && let ObjectKind::Array { length_writable } = &mut self.heap.object_mut(obj).kind
        {
            *length_writable = false;
        }
        Ok(ok)
    }

    /// [ValidateAndApplyPropertyDescriptor](https://tc39.es/ecma262/#sec-validateandapplypropertydescriptor)
    /// for an ordinary object.
    pub fn ordinary_define_own_property(
        &mut self,
        obj: ObjectId,
        key: PropertyKey,
        desc: PropertyDescriptor,
    ) -> JsResult<bool> {
        let current = self.heap.own_property(obj, key);
        let Some(current) = current else {
            if !self.heap.object(obj).extensible {
                return Ok(false);
            }
            let mut attrs = 0;
            if desc.enumerable == Some(true) {
                attrs |= Attrs::ENUMERABLE;
            }
            if desc.configurable == Some(true) {
                attrs |= Attrs::CONFIGURABLE;
            }
            let value = if desc.is_accessor() {
                attrs |= Attrs::ACCESSOR;
                self.new_accessor(
                    desc.get.unwrap_or(Value::UNDEFINED),
                    desc.set.unwrap_or(Value::UNDEFINED),
                )
            } else {
                if desc.writable == Some(true) {
                    attrs |= Attrs::WRITABLE;
                }
                desc.value.unwrap_or(Value::UNDEFINED)
            };
            self.heap.put_own(
                obj,
                key,
                Property {
                    value,
                    attrs: Attrs(attrs),
                },
            );
            return Ok(true);
        };
        let current_desc = self.descriptor_of(current);
        if !self.is_compatible_descriptor(
            self.heap.object(obj).extensible,
            desc,
            Some(current_desc),
        ) {
            return Ok(false);
        }
        // Apply: merge the fields.
        let mut attrs = current.attrs.0;
        let set_bit = |attrs: &mut u8, bit: u8, on: Option<bool>| match on {
            Some(true) => *attrs |= bit,
            Some(false) => *attrs &= !bit,
            None => {}
        };
        set_bit(&mut attrs, Attrs::ENUMERABLE, desc.enumerable);
        set_bit(&mut attrs, Attrs::CONFIGURABLE, desc.configurable);
        let value = if desc.is_accessor() {
            let (old_get, old_set) = if current.attrs.is_accessor() {
                self.accessor_parts(current.value)
            } else {
                (Value::UNDEFINED, Value::UNDEFINED)
            };
            attrs |= Attrs::ACCESSOR;
            attrs &= !Attrs::WRITABLE;
            self.new_accessor(desc.get.unwrap_or(old_get), desc.set.unwrap_or(old_set))
        } else if desc.is_data() || !current.attrs.is_accessor() {
            if current.attrs.is_accessor() {
                attrs &= !(Attrs::ACCESSOR | Attrs::WRITABLE);
            }
            set_bit(&mut attrs, Attrs::WRITABLE, desc.writable);
            desc.value.unwrap_or(if current.attrs.is_accessor() {
                Value::UNDEFINED
            } else {
                current.value
            })
        } else {
            current.value
        };
        self.heap.put_own(
            obj,
            key,
            Property {
                value,
                attrs: Attrs(attrs),
            },
        );
        Ok(true)
    }

    /// The validation half of ValidateAndApplyPropertyDescriptor.
    pub fn is_compatible_descriptor(
        &mut self,
        extensible: bool,
        desc: PropertyDescriptor,
        current: Option<PropertyDescriptor>,
    ) -> bool {
        let Some(current) = current else {
            return extensible;
        };
        if current.configurable == Some(false) {
            if desc.configurable == Some(true) {
                return false;
            }
            if desc.enumerable.is_some() && desc.enumerable != current.enumerable {
                return false;
            }
            if (desc.is_accessor() && current.is_data())
                || (desc.is_data() && current.is_accessor())
            {
                return false;
            }
            if current.is_accessor() {
                if let Some(g) = desc.get
                    && !self.same_value(g, current.get.unwrap_or(Value::UNDEFINED))
                {
                    return false;
                }
                if let Some(s) = desc.set
                    && !self.same_value(s, current.set.unwrap_or(Value::UNDEFINED))
                {
                    return false;
                }
            } else if current.writable == Some(false) {
                if desc.writable == Some(true) {
                    return false;
                }
                if let Some(v) = desc.value
                    && !self.same_value(v, current.value.unwrap_or(Value::UNDEFINED))
                {
                    return false;
                }
            }
        }
        true
    }

    /// DefinePropertyOrThrow
    pub fn define_property_or_throw(
        &mut self,
        obj: ObjectId,
        key: PropertyKey,
        desc: PropertyDescriptor,
    ) -> JsResult<()> {
        if !self.define_own_property(obj, key, desc)? {
            let k = self.key_to_display(key);
            return Err(self.type_error(format!("Cannot redefine property: {k}")));
        }
        Ok(())
    }

    /// [[HasProperty]]
    pub fn has_property(&mut self, mut obj: ObjectId, key: PropertyKey) -> JsResult<bool> {
        self.charge(1)?;
        loop {
            if self.is_proxy(obj) {
                return proxy::has(self, obj, key);
            }
            if let Some(index) = typed_array::numeric_key(self, obj, key) {
                return Ok(typed_array::is_valid_index(self, obj, index));
            }
            if let Some(exported) = self.namespace_exports(obj, key) {
                return Ok(exported);
            }
            if self.heap.own_property(obj, key).is_some() {
                return Ok(true);
            }
            match self.heap.object(obj).proto {
                Some(p) => obj = p,
                None => return Ok(false),
            }
        }
    }

    /// HasOwnProperty
    pub fn has_own_property(&mut self, obj: ObjectId, key: PropertyKey) -> JsResult<bool> {
        Ok(self.get_own_property(obj, key)?.is_some())
    }

    /// [[Delete]]
    pub fn delete_property(&mut self, obj: ObjectId, key: PropertyKey) -> JsResult<bool> {
        self.charge(1)?;
        if self.is_proxy(obj) {
            return proxy::delete(self, obj, key);
        }
        if let Some(index) = typed_array::numeric_key(self, obj, key) {
            return Ok(!typed_array::is_valid_index(self, obj, index));
        }
        if let Some(exported) = self.namespace_exports(obj, key) {
            return Ok(!exported);
        }
        match self.heap.own_property(obj, key) {
            None => Ok(true),
            Some(p) if !p.attrs.configurable() => Ok(false),
            Some(_) => {
                if let ObjectKind::String(s) = self.heap.object(obj).kind
                    && matches!(key, PropertyKey::Index(i) if i < self.heap.string_len(s))
                {
                    return Ok(false);
                }
                self.heap.remove_own(obj, key);
                Ok(true)
            }
        }
    }

    /// [[OwnPropertyKeys]]
    pub fn own_property_keys(&mut self, obj: ObjectId) -> JsResult<Vec<PropertyKey>> {
        if self.is_proxy(obj) {
            return proxy::own_keys(self, obj);
        }
        let keys = if let ObjectKind::ModuleNamespace(_) = self.heap.object(obj).kind {
            self.namespace_keys(obj)
        } else if let Some(t) = typed_array::ta_data(self, obj) {
            // Indices first (none while out of bounds), then the ordinary keys.
            let len = typed_array::length_of(self, &t).unwrap_or(0);
            let mut keys: Vec<PropertyKey> = (0..len as u32).map(PropertyKey::Index).collect();
            keys.extend(self.heap.own_keys(obj));
            keys
        } else {
            self.heap.own_keys(obj)
        };
        self.charge(keys.len() as u64)?;
        Ok(keys)
    }

    /// [[GetPrototypeOf]]
    pub fn get_prototype_of(&mut self, obj: ObjectId) -> JsResult<Option<ObjectId>> {
        if self.is_proxy(obj) {
            return proxy::get_prototype_of(self, obj);
        }
        Ok(self.heap.object(obj).proto)
    }

    /// [[SetPrototypeOf]]
    pub fn set_prototype_of(&mut self, obj: ObjectId, proto: Option<ObjectId>) -> JsResult<bool> {
        if self.is_proxy(obj) {
            return proxy::set_prototype_of(self, obj, proto);
        }
        let o = self.heap.object(obj);
        if o.proto == proto {
            return Ok(true);
        }
        if !o.extensible || obj == self.intrinsics.object_prototype {
            return Ok(false);
        }
        // No cycles through ordinary objects.
        let mut p = proto;
        while let Some(q) = p {
            if q == obj {
                return Ok(false);
            }
            if self.is_proxy(q) {
                break;
            }
            p = self.heap.object(q).proto;
        }
        self.heap.set_proto_raw(obj, proto);
        Ok(true)
    }

    /// [[IsExtensible]]
    pub fn is_extensible(&mut self, obj: ObjectId) -> JsResult<bool> {
        if self.is_proxy(obj) {
            return proxy::is_extensible(self, obj);
        }
        Ok(self.heap.object(obj).extensible)
    }

    /// [[PreventExtensions]]
    pub fn prevent_extensions(&mut self, obj: ObjectId) -> JsResult<bool> {
        if self.is_proxy(obj) {
            return proxy::prevent_extensions(self, obj);
        }
        if let Some(t) = typed_array::ta_data(self, obj)
            && !typed_array::is_fixed_length(self, &t)
        {
            return Ok(false);
        }
        // Extensibility is not part of a shape: add-property caches test it.
        self.heap.object_mut(obj).extensible = false;
        Ok(true)
    }

    /// `key in obj` for the `in` operator.
    pub fn has_property_value(&mut self, obj: Value, key: Value) -> JsResult<bool> {
        let Some(o) = obj.as_object() else {
            return Err(
                self.type_error("Cannot use 'in' operator to search for a key in a non-object")
            );
        };
        let key = self.to_property_key(key)?;
        self.has_property(o, key)
    }
}
