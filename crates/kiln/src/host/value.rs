//! Values that cross the host boundary, and the conversions that guard it.
//!
//! A [`HostValue`] is a tree of plain data. Converting a JavaScript value into one
//! fails closed: functions, symbols, proxies, accessors, class instances, typed arrays
//! other than Uint8Array, DataViews, shared memory, cycles,
//! shared references, over-deep nesting and over-long arrays are refused with a
//! [`BoundaryError`] naming the path, and the conversion reads object storage directly,
//! so no getter, proxy trap or `toJSON` ever runs.

use crate::builtins::array_buffer;
use crate::builtins::typed_array::{self, ElementType, TypedArrayData};
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, ObjectKind, PropertyKey};
use crate::value::Value;
use rustc_hash::FxHashSet;

/// Plain data exchanged with the host.
#[derive(Clone, Debug, PartialEq)]
pub enum HostValue {
    Undefined,
    Null,
    Bool(bool),
    /// NaN, the infinities and −0 are kept
    Number(f64),
    String(String),
    Array(Vec<HostValue>),
    /// own enumerable properties in JavaScript property order
    Object(Vec<(String, HostValue)>),
    /// a BigInt in decimal (only with [`BoundaryOptions::bigint`])
    BigInt(String),
    /// a Date as milliseconds since the epoch (only with [`BoundaryOptions::date`])
    Date(f64),
    /// binary data: a `Uint8Array` in the guest; from the guest, the bytes a
    /// `Uint8Array` views or the bytes of an `ArrayBuffer`
    Bytes(Vec<u8>),
}

impl HostValue {
    /// An object from `(key, value)` pairs.
    pub fn object<K: Into<String>>(entries: impl IntoIterator<Item = (K, HostValue)>) -> Self {
        HostValue::Object(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// The property `key` of an object.
    pub fn get(&self, key: &str) -> Option<&HostValue> {
        match self {
            HostValue::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            HostValue::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            HostValue::Number(n) => Some(*n),
            _ => None,
        }
    }
}

impl From<&str> for HostValue {
    fn from(s: &str) -> Self {
        HostValue::String(s.to_string())
    }
}

impl From<String> for HostValue {
    fn from(s: String) -> Self {
        HostValue::String(s)
    }
}

impl From<f64> for HostValue {
    fn from(n: f64) -> Self {
        HostValue::Number(n)
    }
}

impl From<i32> for HostValue {
    fn from(n: i32) -> Self {
        HostValue::Number(n as f64)
    }
}

impl From<bool> for HostValue {
    fn from(b: bool) -> Self {
        HostValue::Bool(b)
    }
}

impl<T: Into<HostValue>> From<Vec<T>> for HostValue {
    fn from(items: Vec<T>) -> Self {
        HostValue::Array(items.into_iter().map(Into::into).collect())
    }
}

/// What may cross the boundary, and how much of it.
#[derive(Clone, Copy, Debug)]
pub struct BoundaryOptions {
    /// BigInts cross as [`HostValue::BigInt`] (otherwise they are refused)
    pub bigint: bool,
    /// Dates cross as [`HostValue::Date`] (otherwise they are refused)
    pub date: bool,
    /// the deepest nesting of arrays and objects
    pub max_depth: usize,
    /// the longest array and the most properties of one object
    pub max_length: usize,
}

impl Default for BoundaryOptions {
    fn default() -> Self {
        BoundaryOptions {
            bigint: false,
            date: false,
            max_depth: 64,
            max_length: 1 << 20,
        }
    }
}

/// Why a value could not cross the boundary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoundaryErrorKind {
    Function,
    Symbol,
    Proxy,
    /// an accessor property (its getter is never run)
    Accessor,
    /// an object that is not a plain object or array (class instances, maps, errors, ...)
    NotPlainData,
    /// a symbol-keyed property
    SymbolKey,
    /// an object reached twice (a cycle or a shared reference)
    SharedReference,
    TooDeep,
    TooLong,
    BigInt,
    Date,
    /// a string with a lone surrogate, which has no UTF-8 form
    LoneSurrogate,
    /// a detached ArrayBuffer, or a Uint8Array whose buffer shrank below it
    Detached,
}

/// A value refused at the boundary, with where in the tree it was found (`$` is the root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundaryError {
    pub kind: BoundaryErrorKind,
    pub path: String,
}

impl std::fmt::Display for BoundaryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            BoundaryErrorKind::Function => "a function",
            BoundaryErrorKind::Symbol => "a symbol",
            BoundaryErrorKind::Proxy => "a proxy",
            BoundaryErrorKind::Accessor => "an accessor property",
            BoundaryErrorKind::NotPlainData => "an object that is not a plain object or array",
            BoundaryErrorKind::SymbolKey => "a symbol-keyed property",
            BoundaryErrorKind::SharedReference => "an object reached twice (cycle or shared)",
            BoundaryErrorKind::TooDeep => "nesting deeper than the limit",
            BoundaryErrorKind::TooLong => "an array or object longer than the limit",
            BoundaryErrorKind::BigInt => "a BigInt",
            BoundaryErrorKind::Date => "a Date",
            BoundaryErrorKind::LoneSurrogate => "a string with a lone surrogate",
            BoundaryErrorKind::Detached => "a detached or out-of-bounds buffer",
        };
        write!(f, "{what} cannot cross to the host (at {})", self.path)
    }
}

impl std::error::Error for BoundaryError {}

/// Converts guest values into host values.
struct ToHost<'a> {
    vm: &'a mut Vm,
    options: &'a BoundaryOptions,
    seen: FxHashSet<ObjectId>,
    path: Vec<PathPart>,
    /// the leading parts of `path` that place the value being converted (its argument
    /// index), not nesting inside it
    root: usize,
}

enum PathPart {
    Index(u32),
    /// a property of an object (an index key is shown as a name too: `.0`)
    Key(PropertyKey),
}

impl ToHost<'_> {
    fn fail(&self, kind: BoundaryErrorKind) -> BoundaryError {
        let mut path = String::from("$");
        for part in &self.path {
            match part {
                PathPart::Index(i) => path.push_str(&format!("[{i}]")),
                PathPart::Key(PropertyKey::Index(i)) => path.push_str(&format!(".{i}")),
                PathPart::Key(PropertyKey::String(s)) => {
                    path.push('.');
                    path.push_str(&self.vm.heap.flat_units(*s).to_rust_string());
                }
                PathPart::Key(PropertyKey::Symbol(_)) => path.push_str(".[symbol]"),
            }
        }
        BoundaryError { kind, path }
    }

    fn string(&mut self, id: crate::heap::StringId) -> Result<String, BoundaryError> {
        self.vm
            .heap
            .units(id)
            .to_rust_string_exact()
            .ok_or_else(|| self.fail(BoundaryErrorKind::LoneSurrogate))
    }

    fn convert(&mut self, v: Value) -> Result<HostValue, BoundaryError> {
        if v.is_undefined() {
            return Ok(HostValue::Undefined);
        }
        if v.is_null() {
            return Ok(HostValue::Null);
        }
        if let Some(b) = v.as_bool() {
            return Ok(HostValue::Bool(b));
        }
        if let Some(n) = v.as_number() {
            return Ok(HostValue::Number(n));
        }
        if let Some(s) = v.as_string() {
            return self.string(s).map(HostValue::String);
        }
        if v.as_symbol().is_some() {
            return Err(self.fail(BoundaryErrorKind::Symbol));
        }
        if let Some(b) = v.as_bigint() {
            if !self.options.bigint {
                return Err(self.fail(BoundaryErrorKind::BigInt));
            }
            return Ok(HostValue::BigInt(self.vm.heap.bigint(b).to_string()));
        }
        let o = v.as_object().expect("every other value is an object");
        self.object(o)
    }

    fn object(&mut self, o: ObjectId) -> Result<HostValue, BoundaryError> {
        let object = self.vm.heap.object(o);
        let proto = object.proto;
        match &object.kind {
            ObjectKind::Proxy { .. } => return Err(self.fail(BoundaryErrorKind::Proxy)),
            k if object.is_callable() || matches!(k, ObjectKind::Bound(_)) => {
                return Err(self.fail(BoundaryErrorKind::Function));
            }
            &ObjectKind::Date(t) => {
                if !self.options.date {
                    return Err(self.fail(BoundaryErrorKind::Date));
                }
                return Ok(HostValue::Date(t));
            }
            ObjectKind::Array { .. } if proto == Some(self.vm.intrinsics.array_prototype) => {}
            ObjectKind::Ordinary
                if proto.is_none() || proto == Some(self.vm.intrinsics.object_prototype) => {}
            ObjectKind::TypedArray(t)
                if t.element == ElementType::Uint8
                    && proto == Some(self.vm.intrinsics.uint8_array_prototype) =>
            {
                let t = **t;
                return self.bytes(o, t.buffer, Some(t));
            }
            ObjectKind::ArrayBuffer(b)
                if !b.is_shared() && proto == Some(self.vm.intrinsics.array_buffer_prototype) =>
            {
                return self.bytes(o, o, None);
            }
            _ => return Err(self.fail(BoundaryErrorKind::NotPlainData)),
        }
        if self.path.len() - self.root >= self.options.max_depth {
            return Err(self.fail(BoundaryErrorKind::TooDeep));
        }
        if !self.seen.insert(o) {
            return Err(self.fail(BoundaryErrorKind::SharedReference));
        }
        if self.vm.heap.object(o).is_array() {
            self.array(o)
        } else {
            self.plain_object(o)
        }
    }

    /// The bytes of the ArrayBuffer `buffer`, or of the part of it the Uint8Array `o`
    /// views (`view`). Like arrays, they carry no properties of their own.
    fn bytes(
        &mut self,
        o: ObjectId,
        buffer: ObjectId,
        view: Option<TypedArrayData>,
    ) -> Result<HostValue, BoundaryError> {
        if !self.seen.insert(o) {
            return Err(self.fail(BoundaryErrorKind::SharedReference));
        }
        let extra = match self.vm.heap.own_keys(o).first() {
            None => None,
            Some(&PropertyKey::Symbol(_)) => return Err(self.fail(BoundaryErrorKind::SymbolKey)),
            Some(&PropertyKey::Index(i)) => Some(PathPart::Index(i)),
            Some(&key) => Some(PathPart::Key(key)),
        };
        if let Some(part) = extra {
            self.path.push(part);
            return Err(self.fail(BoundaryErrorKind::NotPlainData));
        }
        let data = array_buffer::data(self.vm, buffer);
        if data.is_shared() {
            return Err(self.fail(BoundaryErrorKind::NotPlainData));
        }
        if data.detached {
            return Err(self.fail(BoundaryErrorKind::Detached));
        }
        let range = match view {
            None => 0..data.len(),
            Some(t) => match typed_array::length_of(self.vm, &t) {
                Some(len) => t.byte_offset..t.byte_offset + len,
                None => return Err(self.fail(BoundaryErrorKind::Detached)),
            },
        };
        Ok(HostValue::Bytes(
            array_buffer::data(self.vm, buffer).to_vec(range),
        ))
    }

    fn array(&mut self, o: ObjectId) -> Result<HostValue, BoundaryError> {
        let length = crate::object::array_length(self.vm.heap.object(o));
        if length as usize > self.options.max_length {
            return Err(self.fail(BoundaryErrorKind::TooLong));
        }
        let mut items = Vec::with_capacity(length as usize);
        for i in 0..length {
            self.path.push(PathPart::Index(i));
            let item = match self.vm.heap.own_property(o, PropertyKey::Index(i)) {
                None => HostValue::Undefined,
                Some(p) if p.attrs.is_accessor() => {
                    return Err(self.fail(BoundaryErrorKind::Accessor));
                }
                Some(p) => self.convert(p.value)?,
            };
            self.path.pop();
            items.push(item);
        }
        match self.vm.heap.named_keys(o).first() {
            None => Ok(HostValue::Array(items)),
            Some(&PropertyKey::Symbol(_)) => Err(self.fail(BoundaryErrorKind::SymbolKey)),
            Some(&key) => {
                self.path.push(PathPart::Key(key));
                Err(self.fail(BoundaryErrorKind::NotPlainData))
            }
        }
    }

    fn plain_object(&mut self, o: ObjectId) -> Result<HostValue, BoundaryError> {
        let keys = self.vm.heap.own_keys(o);
        if keys.len() > self.options.max_length {
            return Err(self.fail(BoundaryErrorKind::TooLong));
        }
        let mut entries = Vec::with_capacity(keys.len());
        for key in keys {
            let name = match key {
                PropertyKey::Index(i) => i.to_string(),
                PropertyKey::String(s) => self.string(s)?,
                PropertyKey::Symbol(_) => return Err(self.fail(BoundaryErrorKind::SymbolKey)),
            };
            let Some(p) = self.vm.heap.own_property(o, key) else {
                continue;
            };
            self.path.push(PathPart::Key(key));
            if p.attrs.is_accessor() {
                return Err(self.fail(BoundaryErrorKind::Accessor));
            }
            if p.attrs.enumerable() {
                let value = self.convert(p.value)?;
                entries.push((name, value));
            }
            self.path.pop();
        }
        Ok(HostValue::Object(entries))
    }
}

impl Vm {
    /// Convert a guest value into host data, refusing anything that is not plain data.
    pub fn to_host(
        &mut self,
        value: Value,
        options: &BoundaryOptions,
    ) -> Result<HostValue, BoundaryError> {
        ToHost {
            vm: self,
            options,
            seen: FxHashSet::default(),
            path: Vec::new(),
            root: 0,
        }
        .convert(value)
    }

    /// Convert a call's arguments into host data; a refusal's path starts at the
    /// argument list (`$[1].a` is property `a` of the second argument).
    pub(crate) fn args_to_host(
        &mut self,
        args: Args,
        options: &BoundaryOptions,
    ) -> Result<Vec<HostValue>, BoundaryError> {
        (0..args.count)
            .map(|i| {
                let v = self.arg(args, i as usize);
                ToHost {
                    vm: self,
                    options,
                    seen: FxHashSet::default(),
                    path: vec![PathPart::Index(i)],
                    root: 1,
                }
                .convert(v)
            })
            .collect()
    }

    /// Build the guest value for host data: fresh arrays and plain objects. Fails for a
    /// [`HostValue::BigInt`] that is not a decimal integer and for nesting deeper than
    /// the boundary's `max_depth`.
    pub fn to_guest(&mut self, value: &HostValue) -> Result<Value, BoundaryError> {
        self.guest_value_at(value, 0)
    }

    /// `depth`: the arrays and objects around `value`. As in [`Vm::to_host`], an array
    /// or object may have at most `max_depth - 1` around it, so that whatever crosses in
    /// can cross back.
    fn guest_value_at(&mut self, value: &HostValue, depth: usize) -> Result<Value, BoundaryError> {
        let container = matches!(value, HostValue::Array(_) | HostValue::Object(_));
        if container && depth >= self.host.boundary.max_depth {
            return Err(BoundaryError {
                kind: BoundaryErrorKind::TooDeep,
                path: "$".into(),
            });
        }
        // nothing here reaches a safe point, so the new objects need no rooting
        Ok(match value {
            HostValue::Undefined => Value::UNDEFINED,
            HostValue::Null => Value::NULL,
            &HostValue::Bool(b) => Value::bool(b),
            &HostValue::Number(n) => Value::number(n),
            HostValue::String(s) => self.string_value(s),
            HostValue::Array(items) => {
                let values = items
                    .iter()
                    .map(|item| self.guest_value_at(item, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                Value::object(self.array_from_values(values))
            }
            HostValue::Object(entries) => {
                let proto = self.intrinsics.object_prototype;
                let o = self.heap.new_object(Some(proto), ObjectKind::Ordinary);
                for (key, item) in entries {
                    let v = self.guest_value_at(item, depth + 1)?;
                    let key = self.key(key);
                    self.define_builtin(o, key, v, Attrs::DEFAULT);
                }
                Value::object(o)
            }
            HostValue::BigInt(digits) => match digits.parse::<num_bigint::BigInt>() {
                Ok(b) => Value::bigint(self.heap.alloc_bigint(b)),
                Err(_) => {
                    return Err(BoundaryError {
                        kind: BoundaryErrorKind::BigInt,
                        path: "$".into(),
                    });
                }
            },
            &HostValue::Date(t) => {
                let proto = self.intrinsics.date_prototype;
                let t = crate::builtins::date::time_clip(t);
                Value::object(self.heap.new_object(Some(proto), ObjectKind::Date(t)))
            }
            HostValue::Bytes(bytes) => typed_array::new_uint8_array(self, bytes.clone()),
        })
    }
}
