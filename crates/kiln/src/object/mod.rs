//! Objects: named properties in shape-described slots, indexed properties in
//! dense or sparse elements, and the internal data of exotic and built-in
//! objects ([`ObjectKind`]).
//!
//! This module stores and finds properties; it never runs JavaScript. The
//! spec's [[Get]]/[[Set]] with accessors and proxies live in
//! `crate::interpreter::ops`, which builds on these primitives.
//!
//! # Invariants
//!
//! 1. In shape mode, `slots.len() == shapes.get(shape).len` and `dict` is None.
//! 2. In dictionary mode, `shape == ShapeId::DICTIONARY` and `dict` is Some.
//! 3. Dense elements hold only writable, enumerable, configurable data
//!    properties; [`Value::HOLE`] marks a missing one. For arrays with dense
//!    elements, the array's length is `elements.len()`.
//! 4. An accessor property's value is an [`ObjectKind::Accessor`] object.

pub mod dense;
pub mod shape;
pub mod slots;

use crate::heap::{BigIntId, EnvId, Heap, ObjectId, StringId, SymbolId, malloc_block};
use crate::interpreter::CodeBlock;
use crate::value::Value;
pub use dense::DenseElements;
use rustc_hash::FxHashMap;
use shape::{MAX_SHAPED_PROPERTIES, ShapeId};
pub use slots::Slots;
use std::collections::BTreeMap;
use std::rc::Rc;

/// A property key: an interned string, a symbol, or an array index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PropertyKey {
    /// always an atom (see [`Heap::intern`]) that is not an array index
    String(StringId),
    Symbol(SymbolId),
    /// 0 ..= 2^32 - 2
    Index(u32),
}

/// Property attributes as bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Attrs(pub u8);

impl Attrs {
    pub const WRITABLE: u8 = 1;
    pub const ENUMERABLE: u8 = 2;
    pub const CONFIGURABLE: u8 = 4;
    pub const ACCESSOR: u8 = 8;
    /// writable, enumerable, configurable: what assignment creates
    pub const DEFAULT: Attrs = Attrs(7);
    /// writable, configurable, not enumerable: built-in methods
    pub const HIDDEN: Attrs = Attrs(5);
    pub const NONE: Attrs = Attrs(0);
    /// configurable only (`name` and `length` of functions)
    pub const CONFIGURABLE_ONLY: Attrs = Attrs(4);

    pub fn writable(self) -> bool {
        self.0 & Self::WRITABLE != 0
    }
    pub fn enumerable(self) -> bool {
        self.0 & Self::ENUMERABLE != 0
    }
    pub fn configurable(self) -> bool {
        self.0 & Self::CONFIGURABLE != 0
    }
    pub fn is_accessor(self) -> bool {
        self.0 & Self::ACCESSOR != 0
    }
}

/// One own property as stored: a data value or an accessor pair object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Property {
    pub value: Value,
    pub attrs: Attrs,
}

/// Indexed properties.
#[derive(Clone, Debug)]
pub enum Elements {
    Dense(DenseElements),
    Sparse(Box<SparseElements>),
}

#[derive(Clone, Debug, Default)]
pub struct SparseElements {
    pub map: BTreeMap<u32, Property>,
    /// the array length (arrays only)
    pub length: u32,
}

/// Named properties of a dictionary-mode object, in insertion order.
///
/// Entry positions are stable until `generation` changes (a removal or an
/// attribute change), so a cache may remember a position with the generation.
#[derive(Clone, Debug, Default)]
pub struct Dictionary {
    entries: Vec<Option<(PropertyKey, Property)>>,
    index: FxHashMap<PropertyKey, u32>,
    removed: usize,
    pub generation: u32,
}

impl Dictionary {
    /// The position of `key`'s entry.
    pub fn position(&self, key: PropertyKey) -> Option<u32> {
        self.index.get(&key).copied()
    }
    /// The property at a position found with [`Dictionary::position`] (same generation).
    #[inline]
    pub fn at(&self, position: u32) -> Option<&Property> {
        self.entries
            .get(position as usize)
            .and_then(|e| e.as_ref())
            .map(|(_, p)| p)
    }
    /// The property at `position` if it is `key`'s: a position remembered from another
    /// dictionary (or an older generation) is checked, not trusted.
    #[inline]
    pub fn at_key(&self, position: u32, key: PropertyKey) -> Option<&Property> {
        match self.entries.get(position as usize) {
            Some(Some((k, p))) if *k == key => Some(p),
            _ => None,
        }
    }
    #[inline]
    pub fn at_mut(&mut self, position: u32) -> Option<&mut Property> {
        self.entries
            .get_mut(position as usize)
            .and_then(|e| e.as_mut())
            .map(|(_, p)| p)
    }
    pub fn get(&self, key: PropertyKey) -> Option<Property> {
        self.index
            .get(&key)
            .and_then(|&i| self.entries[i as usize].map(|(_, p)| p))
    }
    pub fn get_mut(&mut self, key: PropertyKey) -> Option<&mut Property> {
        let i = *self.index.get(&key)?;
        self.entries[i as usize].as_mut().map(|(_, p)| p)
    }
    pub fn insert(&mut self, key: PropertyKey, prop: Property) {
        if let Some(p) = self.get_mut(key) {
            let attrs_changed = p.attrs != prop.attrs;
            *p = prop;
            if attrs_changed {
                self.generation = self.generation.wrapping_add(1);
            }
        } else {
            self.index.insert(key, self.entries.len() as u32);
            self.entries.push(Some((key, prop)));
        }
    }
    pub fn remove(&mut self, key: PropertyKey) -> bool {
        let Some(i) = self.index.remove(&key) else {
            return false;
        };
        self.entries[i as usize] = None;
        self.removed += 1;
        if self.removed > 16 && self.removed * 2 > self.entries.len() {
            self.entries.retain(Option::is_some);
            self.index = self
                .entries
                .iter()
                .enumerate()
                .filter_map(|(i, e)| e.map(|(k, _)| (k, i as u32)))
                .collect();
            self.removed = 0;
        }
        true
    }
    pub fn iter(&self) -> impl Iterator<Item = (PropertyKey, Property)> + '_ {
        self.entries.iter().flatten().copied()
    }
    pub fn len(&self) -> usize {
        self.index.len()
    }
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
}

/// A native function: `fn(vm, this, args) -> result`.
pub type NativeFn =
    fn(&mut crate::interpreter::Vm, Value, crate::interpreter::Args) -> crate::JsResult<Value>;

/// The internal state of a native function object.
#[derive(Clone, Debug)]
pub struct NativeFunction {
    pub func: NativeFn,
    /// whether `new` may call it (it then receives `args.new_target`)
    pub constructor: bool,
    /// values the function closes over (promise capabilities, bound data, ...)
    pub data: Box<[Value]>,
    /// the realm it was created in, which runs while it is called
    pub realm: crate::realm::RealmId,
}

/// A compiled JavaScript function closed over an environment.
///
/// It lives in its object, not in a box of its own: making a function then allocates
/// nothing beyond its arena entry. To fit without making every object larger, it is no
/// larger than the largest other [`ObjectKind`] (24 bytes), so its two rarely set object
/// references take four bytes each.
#[derive(Clone, Debug)]
pub struct Closure {
    pub code: Rc<CodeBlock>,
    pub env: Option<EnvId>,
    /// the object whose prototype `super` refers to
    home_object: MaybeObject,
    /// class constructors: the instance field initialiser
    fields: MaybeObject,
}

impl Closure {
    pub fn new(
        code: Rc<CodeBlock>,
        env: Option<EnvId>,
        home_object: Option<ObjectId>,
        fields: Option<ObjectId>,
    ) -> Closure {
        Closure {
            code,
            env,
            home_object: MaybeObject::from(home_object),
            fields: MaybeObject::from(fields),
        }
    }
    pub fn home_object(&self) -> Option<ObjectId> {
        self.home_object.get()
    }
    pub fn set_home_object(&mut self, home_object: ObjectId) {
        self.home_object = MaybeObject::from(Some(home_object));
    }
    pub fn fields(&self) -> Option<ObjectId> {
        self.fields.get()
    }
    pub fn set_fields(&mut self, fields: ObjectId) {
        self.fields = MaybeObject::from(Some(fields));
    }
}

/// An `Option<ObjectId>` in four bytes: `u32::MAX` is none. No object has that id: the
/// arena would need four billion entries first, far past any heap limit.
#[derive(Clone, Copy, Debug)]
struct MaybeObject(u32);

impl MaybeObject {
    const NONE: u32 = u32::MAX;
    fn get(self) -> Option<ObjectId> {
        (self.0 != Self::NONE).then_some(ObjectId(self.0))
    }
}

impl From<Option<ObjectId>> for MaybeObject {
    fn from(id: Option<ObjectId>) -> MaybeObject {
        MaybeObject(id.map_or(Self::NONE, |id| id.0))
    }
}

#[derive(Clone, Debug)]
pub struct BoundFunction {
    pub target: ObjectId,
    pub this: Value,
    pub args: Box<[Value]>,
}

/// Which values an iterator over a collection yields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IterationKind {
    Keys,
    Values,
    Entries,
}

// A closure is held unboxed only while that leaves every object its size (see [`Closure`]).
const _: () = assert!(size_of::<ObjectKind>() == 32);

/// Per-kind data of an object.
#[derive(Clone, Debug, Default)]
pub enum ObjectKind {
    #[default]
    Ordinary,
    /// an Array exotic object; `length_writable` is false once frozen or made read-only
    Array {
        length_writable: bool,
    },
    Closure(Closure),
    /// held in place: making one allocates nothing (a realm makes about 800), and a copy
    /// of a realm template copies it with the object
    Native(NativeFunction),
    Bound(Box<BoundFunction>),
    /// the getter and setter of an accessor property (internal, never exposed)
    Accessor {
        get: Value,
        set: Value,
    },
    Error,
    Boolean(bool),
    Number(f64),
    String(StringId),
    Symbol(SymbolId),
    BigInt(BigIntId),
    Date(f64),
    RegExp(Box<crate::builtins::regexp::RegExpData>),
    Map(Box<crate::builtins::collections::OrderedMap>),
    Set(Box<crate::builtins::collections::OrderedMap>),
    WeakMap(Box<crate::builtins::collections::OrderedMap>),
    WeakSet(Box<crate::builtins::collections::OrderedMap>),
    Promise(Box<crate::builtins::promise::PromiseState>),
    /// an arguments object; every index has an ordinary element, and where `mapped[i]` is
    /// true its value is read from and written to slot `i` of `env` instead
    Arguments {
        env: Option<EnvId>,
        mapped: Box<[bool]>,
    },
    Generator(Box<crate::interpreter::generator::GeneratorState>),
    ArrayIterator {
        target: Value,
        index: u32,
        kind: IterationKind,
    },
    MapIterator {
        target: ObjectId,
        index: u32,
        kind: IterationKind,
        set: bool,
    },
    StringIterator {
        target: StringId,
        index: u32,
    },
    RegExpStringIterator {
        regexp: ObjectId,
        string: StringId,
        global: bool,
        unicode: bool,
        done: bool,
    },
    ForInIterator(Box<ForInState>),
    /// a [module namespace exotic object](https://tc39.es/ecma262/#sec-module-namespace-exotic-objects):
    /// its string-keyed properties are the module's exports, read live
    ModuleNamespace(Box<crate::interpreter::module::NamespaceData>),
    /// a proxy; target and handler are None once revoked; callability is fixed at creation
    Proxy {
        target: Option<ObjectId>,
        handler: Option<ObjectId>,
        callable: bool,
        constructor: bool,
    },
    /// an internal cell holding values for native code (never exposed)
    Internal(Box<[Value]>),
    /// an ArrayBuffer or SharedArrayBuffer and its bytes
    ArrayBuffer(Box<crate::builtins::array_buffer::ArrayBufferData>),
    /// a TypedArray (integer-indexed exotic object) viewing a buffer
    TypedArray(Box<crate::builtins::typed_array::TypedArrayData>),
    /// a DataView over a buffer
    DataView(Box<crate::builtins::data_view::DataViewData>),
    /// a WeakRef and its target (undefined once collected), held weakly
    WeakRef(Value),
    /// a FinalizationRegistry: its cleanup callback and cells
    FinalizationRegistry(Box<crate::builtins::weak_ref::FinalizationRegistryData>),
    /// a DisposableStack, an AsyncDisposableStack, or the internal resource list of a scope
    /// with `using` declarations
    DisposableStack(Box<crate::builtins::disposable_stack::DisposeCapability>),
    /// an object made by `JSON.rawJSON` (the [[IsRawJSON]] slot)
    RawJson,
    /// a Temporal object (Duration, Instant, PlainDate, ...) and its temporal_rs value
    Temporal(Box<crate::builtins::temporal::TemporalValue>),
}

/// The keys still to visit in a `for-in` loop.
#[derive(Clone, Debug, Default)]
pub struct ForInState {
    pub object: Option<ObjectId>,
    pub keys: Vec<Value>,
    pub index: usize,
    /// the keys returned or skipped so far: a key of a prototype is skipped when an
    /// object before it had the same key
    pub visited: rustc_hash::FxHashSet<PropertyKey>,
    /// the loop's object is the only one with keys to visit: when it started, nothing
    /// up its prototype chain had an enumerable key, so keys need no `visited` record
    /// and the loop ends with the object's own
    pub own_only: bool,
}

pub struct Object {
    pub shape: ShapeId,
    pub proto: Option<ObjectId>,
    pub slots: Slots,
    pub elements: Elements,
    pub dict: Option<Box<Dictionary>>,
    pub kind: ObjectKind,
    pub extensible: bool,
    /// some object has this one as its prototype: layout changes bump `Heap::proto_epoch`
    pub used_as_prototype: bool,
    /// frozen together with everything reachable from it (`harden`, `lockdown`)
    pub hardened: bool,
    /// an object of a realm template, or a copy of one not written to since: set when the
    /// template is shared ([`crate::heap::Heap::share_storage`]), cleared by every write
    /// ([`crate::heap::Arena::get_mut`]); [`crate::heap::Heap::reset_to`] copies again the
    /// objects where it is clear
    pub pristine_copy: bool,
}

/// Inlined wherever it is called: a copy of a realm template clones about a thousand
/// objects in one loop, which took about 30 more instructions per object once a second
/// caller (`Arena::reset_to`) made the compiler call the clone out of line.
impl Clone for Object {
    #[inline(always)]
    fn clone(&self) -> Self {
        Object {
            shape: self.shape,
            proto: self.proto,
            slots: self.slots.clone(),
            elements: self.elements.clone(),
            dict: self.dict.clone(),
            kind: self.kind.clone(),
            extensible: self.extensible,
            used_as_prototype: self.used_as_prototype,
            hardened: self.hardened,
            pristine_copy: self.pristine_copy,
        }
    }
}

impl Object {
    pub fn new(shape: ShapeId, proto: Option<ObjectId>, kind: ObjectKind) -> Object {
        let dict = if shape == ShapeId::DICTIONARY {
            Some(Box::default())
        } else {
            None
        };
        Object {
            shape,
            proto,
            slots: Slots::new(),
            elements: Elements::Dense(DenseElements::new()),
            dict,
            kind,
            extensible: true,
            used_as_prototype: false,
            hardened: false,
            pristine_copy: false,
        }
    }

    pub fn is_array(&self) -> bool {
        matches!(self.kind, ObjectKind::Array { .. })
    }

    pub fn is_callable(&self) -> bool {
        matches!(
            self.kind,
            ObjectKind::Closure(_) | ObjectKind::Native(_) | ObjectKind::Bound(_)
        ) || matches!(self.kind, ObjectKind::Proxy { callable: true, .. })
    }

    /// Bytes this object owns outside its table entry.
    #[inline]
    pub fn owned_bytes(&self) -> usize {
        let elements = match &self.elements {
            Elements::Dense(v) => v.capacity() * 8,
            Elements::Sparse(s) => s.map.len() * 48,
        };
        let dict = self
            .dict
            .as_ref()
            .map_or(0, |d| d.entries.capacity() * 40 + d.index.capacity() * 24);
        self.slots.heap_bytes() + elements + dict + self.kind_bytes()
    }

    fn kind_bytes(&self) -> usize {
        match &self.kind {
            ObjectKind::Promise(p) => {
                malloc_block(size_of::<crate::builtins::promise::PromiseState>())
                    + p.reactions.heap_bytes()
            }
            ObjectKind::Native(n) => 32 + n.data.len() * 8,
            ObjectKind::Bound(b) => 32 + b.args.len() * 8,
            ObjectKind::Map(m)
            | ObjectKind::Set(m)
            | ObjectKind::WeakMap(m)
            | ObjectKind::WeakSet(m) => m.owned_bytes(),
            ObjectKind::ForInIterator(f) => f.keys.capacity() * 8 + f.visited.capacity() * 16,
            ObjectKind::Generator(g) => {
                malloc_block(size_of::<crate::interpreter::generator::GeneratorState>())
                    + g.owned_bytes()
            }
            ObjectKind::Internal(v) => v.len() * 8,
            ObjectKind::ArrayBuffer(b) => 32 + b.owned_bytes(),
            ObjectKind::TypedArray(_) => 32,
            ObjectKind::FinalizationRegistry(r) => 16 + r.cells.capacity() * 24,
            ObjectKind::DataView(_) => 32,
            // a compiled pattern is shared by the objects made from one literal or
            // source (and the compile cache): each counts its share
            ObjectKind::RegExp(r) => {
                std::mem::size_of::<crate::builtins::regexp::RegExpData>()
                    + r.matcher.heap_bytes() / std::rc::Rc::strong_count(&r.matcher)
            }
            ObjectKind::DisposableStack(d) => 16 + d.resources.capacity() * 24,
            ObjectKind::Temporal(_) => {
                std::mem::size_of::<crate::builtins::temporal::TemporalValue>()
            }
            _ => 0,
        }
    }

    /// Push every value and environment this object references.
    pub fn trace(&self, out: &mut Vec<Value>, envs: &mut Vec<EnvId>) {
        if let Some(p) = self.proto {
            out.push(Value::object(p));
        }
        out.extend_from_slice(&self.slots);
        match &self.elements {
            // only cells: the collector's work list for an array of ten million numbers
            // would be as large as the array
            Elements::Dense(v) => out.extend(v.iter().copied().filter(|v| v.is_cell())),
            Elements::Sparse(s) => out.extend(s.map.values().map(|p| p.value)),
        }
        if let Some(d) = &self.dict {
            for (k, p) in d.iter() {
                if let PropertyKey::Symbol(s) = k {
                    out.push(Value::symbol(s));
                }
                out.push(p.value);
            }
        }
        match &self.kind {
            ObjectKind::Closure(c) => {
                if let Some(e) = c.env {
                    envs.push(e);
                }
                out.extend(c.home_object().map(Value::object));
                out.extend(c.fields().map(Value::object));
            }
            ObjectKind::Native(n) => out.extend_from_slice(&n.data),
            ObjectKind::Bound(b) => {
                out.push(Value::object(b.target));
                out.push(b.this);
                out.extend_from_slice(&b.args);
            }
            ObjectKind::Accessor { get, set } => {
                out.push(*get);
                out.push(*set);
            }
            ObjectKind::String(s) => out.push(Value::string(*s)),
            ObjectKind::Symbol(s) => out.push(Value::symbol(*s)),
            ObjectKind::BigInt(b) => out.push(Value::bigint(*b)),
            ObjectKind::RegExp(r) => r.trace(out),
            ObjectKind::Map(m) | ObjectKind::Set(m) => m.trace(out),
            // Weak collections are ephemerons: the heap marks a value only once its key is
            // reachable from elsewhere (Heap::trace_ephemerons).
            ObjectKind::WeakMap(_) | ObjectKind::WeakSet(_) => {}
            // Held weakly too: the heap clears them after marking (builtins::weak_ref).
            ObjectKind::WeakRef(_) => {}
            ObjectKind::FinalizationRegistry(r) => r.trace(out),
            ObjectKind::Promise(p) => p.trace(out),
            ObjectKind::Arguments { env, .. } => envs.extend(*env),
            ObjectKind::Generator(g) => g.trace(out, envs),
            ObjectKind::ArrayIterator { target, .. } => out.push(*target),
            ObjectKind::MapIterator { target, .. } => out.push(Value::object(*target)),
            ObjectKind::StringIterator { target, .. } => out.push(Value::string(*target)),
            ObjectKind::RegExpStringIterator { regexp, string, .. } => {
                out.push(Value::object(*regexp));
                out.push(Value::string(*string));
            }
            ObjectKind::ForInIterator(f) => {
                out.extend(f.object.map(Value::object));
                out.extend_from_slice(&f.keys);
                for k in &f.visited {
                    if let PropertyKey::Symbol(s) = k {
                        out.push(Value::symbol(*s));
                    }
                }
            }
            ObjectKind::Proxy {
                target, handler, ..
            } => {
                out.extend(target.map(Value::object));
                out.extend(handler.map(Value::object));
            }
            ObjectKind::Internal(v) => out.extend_from_slice(v),
            ObjectKind::ModuleNamespace(ns) => ns.trace(out, envs),
            ObjectKind::TypedArray(t) => out.push(Value::object(t.buffer)),
            ObjectKind::DataView(d) => out.push(Value::object(d.buffer)),
            ObjectKind::DisposableStack(d) => d.trace(out),
            ObjectKind::ArrayBuffer(_)
            | ObjectKind::Ordinary
            | ObjectKind::Array { .. }
            | ObjectKind::Error
            | ObjectKind::RawJson
            | ObjectKind::Boolean(_)
            | ObjectKind::Number(_)
            | ObjectKind::Date(_)
            | ObjectKind::Temporal(_) => {}
        }
    }
}

/// Storage-level property operations. None of these runs JavaScript.
impl Heap {
    /// A new ordinary-layout object with prototype `proto`.
    pub fn new_object(&mut self, proto: Option<ObjectId>, kind: ObjectKind) -> ObjectId {
        let shape = self.shapes.root(proto);
        self.new_object_with_shape(shape, proto, kind)
    }

    /// A new ordinary object with room for `room` named properties in its slots.
    pub fn new_object_with_room(&mut self, proto: ObjectId, room: usize) -> ObjectId {
        let o = self.new_object(Some(proto), ObjectKind::Ordinary);
        let slots = Slots::with_capacity(room);
        self.note_growth(slots.heap_bytes());
        self.object_mut(o).slots = slots;
        o
    }

    /// A new object with a known shape (whose root must be `proto`'s) and no properties yet
    /// stored; the caller fills `slots` to match the shape.
    pub fn new_object_with_shape(
        &mut self,
        shape: ShapeId,
        proto: Option<ObjectId>,
        kind: ObjectKind,
    ) -> ObjectId {
        if let Some(p) = proto {
            self.object_mut(p).used_as_prototype = true;
        }
        self.alloc_object(Object::new(shape, proto, kind))
    }

    /// A new ordinary object of `shape` (a non-dictionary shape whose root is `proto`'s)
    /// holding `slots`, one value per property of the shape, in slot order.
    pub fn new_object_with_slots(
        &mut self,
        shape: ShapeId,
        proto: ObjectId,
        slots: &[Value],
    ) -> ObjectId {
        debug_assert_eq!(self.shapes.get(shape).len as usize, slots.len());
        let o = self.new_object_with_shape(shape, Some(proto), ObjectKind::Ordinary);
        self.object_mut(o).slots = Slots::from_slice(slots);
        o
    }

    /// Record a layout change of `obj`: prototype-chain caches must revalidate.
    #[inline]
    fn layout_changed(&mut self, obj: ObjectId) {
        if self.object(obj).used_as_prototype {
            self.proto_epoch = self.proto_epoch.wrapping_add(1);
        }
    }

    /// The own property `key` of `obj` as stored, including the virtual ones
    /// (array `length`, string wrapper indices and `length`, mapped arguments).
    pub fn own_property(&self, obj: ObjectId, key: PropertyKey) -> Option<Property> {
        let o = self.object(obj);
        match key {
            PropertyKey::Index(i) => {
                match &o.kind {
                    ObjectKind::String(s) => {
                        let s = *s;
                        if i < self.string_len(s) && self.is_flat(s) {
                            let unit = self.flat_units(s).at(i as usize);
                            return Some(Property {
                                value: Value::int(unit as i32),
                                attrs: Attrs(Attrs::ENUMERABLE),
                            });
                        }
                    }
                    ObjectKind::Arguments {
                        env: Some(env),
                        mapped,
                    } if mapped.get(i as usize) == Some(&true) => {
                        let value = self.env(*env).slots[i as usize];
                        let attrs = self
                            .stored_element(o, i)
                            .map_or(Attrs::DEFAULT, |p| p.attrs);
                        return Some(Property { value, attrs });
                    }
                    _ => {}
                }
                self.stored_element(o, i)
            }
            _ => {
                if let Some(len) = self.virtual_length(o, key) {
                    return Some(len);
                }
                if let Some(d) = &o.dict {
                    d.get(key)
                } else {
                    self.shapes
                        .lookup(o.shape, key)
                        .map(|(slot, attrs)| Property {
                            value: o.slots[slot as usize],
                            attrs,
                        })
                }
            }
        }
    }

    fn stored_element(&self, o: &Object, i: u32) -> Option<Property> {
        match &o.elements {
            Elements::Dense(v) => {
                v.get(i as usize)
                    .filter(|v| !v.is_hole())
                    .map(|&value| Property {
                        value,
                        attrs: Attrs::DEFAULT,
                    })
            }
            Elements::Sparse(s) => s.map.get(&i).copied(),
        }
    }

    fn virtual_length(&self, o: &Object, key: PropertyKey) -> Option<Property> {
        if key != PropertyKey::String(self.length_atom) {
            return None;
        }
        match &o.kind {
            ObjectKind::Array { length_writable } => Some(Property {
                value: Value::number(array_length(o) as f64),
                attrs: Attrs(if *length_writable { Attrs::WRITABLE } else { 0 }),
            }),
            ObjectKind::String(s) => Some(Property {
                value: Value::int(self.string_len(*s) as i32),
                attrs: Attrs::NONE,
            }),
            _ => None,
        }
    }

    /// Create or overwrite own property `key` without any checks (the caller
    /// has validated it per ValidateAndApplyPropertyDescriptor). Array
    /// `length` must go through [`Heap::set_array_length`].
    pub fn put_own(&mut self, obj: ObjectId, key: PropertyKey, prop: Property) {
        match key {
            PropertyKey::Index(i) => self.put_element(obj, i, prop),
            _ => self.put_named(obj, key, prop),
        }
    }

    /// Add own property `key`, which `obj` is known not to have, without any other checks
    /// (as [`Heap::put_own`]): one lookup fewer than `put_own` on the path that adds.
    pub fn add_own(&mut self, obj: ObjectId, key: PropertyKey, prop: Property) {
        match key {
            PropertyKey::Index(i) => self.put_element(obj, i, prop),
            _ => self.add_named(obj, key, prop),
        }
    }

    fn put_named(&mut self, obj: ObjectId, key: PropertyKey, prop: Property) {
        let shape = self.object(obj).shape;
        if shape == ShapeId::DICTIONARY {
            self.layout_changed(obj);
            if let Some(d) = self.object_mut(obj).dict.as_mut() {
                d.insert(key, prop)
            }
            return;
        }
        match self.shapes.lookup(shape, key) {
            Some((slot, attrs)) if attrs == prop.attrs => {
                self.object_mut(obj).slots[slot as usize] = prop.value;
            }
            Some((slot, _)) => {
                self.layout_changed(obj);
                let next = self
                    .shapes
                    .with_attrs(shape, |k, a| if k == key { prop.attrs } else { a });
                let o = self.object_mut(obj);
                o.shape = next;
                o.slots[slot as usize] = prop.value;
            }
            None => self.add_named(obj, key, prop),
        }
    }

    fn add_named(&mut self, obj: ObjectId, key: PropertyKey, prop: Property) {
        self.layout_changed(obj);
        let shape = self.object(obj).shape;
        if shape == ShapeId::DICTIONARY || self.shapes.get(shape).len >= MAX_SHAPED_PROPERTIES {
            self.to_dictionary(obj);
            if let Some(d) = self.object_mut(obj).dict.as_mut() {
                d.insert(key, prop)
            }
        } else {
            let next = self.shapes.add(shape, key, prop.attrs);
            let o = self.object_mut(obj);
            o.shape = next;
            o.slots.push(prop.value);
            self.note_growth(8);
        }
    }

    fn put_element(&mut self, obj: ObjectId, i: u32, prop: Property) {
        let o = self.object_mut(obj);
        if let Elements::Dense(v) = &mut o.elements {
            let dense_ok = prop.attrs == Attrs::DEFAULT && !prop.value.is_hole();
            let idx = i as usize;
            if dense_ok && idx < v.len() {
                v[idx] = prop.value;
                return;
            }
            // Grow densely when writing near the end, or within twice the length while
            // small; far writes go sparse (doubling writes must not grow memory without bound).
            if dense_ok && (idx < v.len() + 1024 || (idx <= v.len() * 2 && idx < DENSE_HOLES_LIMIT))
            {
                let old = v.capacity();
                v.resize(idx, Value::HOLE);
                v.push(prop.value);
                let grown = (v.capacity() - old) * 8;
                self.note_growth(grown);
                return;
            }
            self.to_sparse_elements(obj);
        }
        let o = self.object_mut(obj);
        let is_array = o.is_array();
        if let Elements::Sparse(s) = &mut o.elements {
            s.map.insert(i, prop);
            if is_array && i >= s.length {
                s.length = i + 1;
            }
        }
        self.note_growth(48);
    }

    /// Convert dense elements to the sparse representation (keeps the array length).
    pub fn to_sparse_elements(&mut self, obj: ObjectId) {
        let o = self.object_mut(obj);
        if let Elements::Dense(v) = &o.elements {
            let map = v
                .iter()
                .enumerate()
                .filter(|(_, v)| !v.is_hole())
                .map(|(i, &value)| {
                    (
                        i as u32,
                        Property {
                            value,
                            attrs: Attrs::DEFAULT,
                        },
                    )
                })
                .collect();
            o.elements = Elements::Sparse(Box::new(SparseElements {
                map,
                length: v.len() as u32,
            }));
        }
    }

    /// Move an object's named properties into a per-object dictionary.
    pub fn to_dictionary(&mut self, obj: ObjectId) {
        let shape = self.object(obj).shape;
        if shape == ShapeId::DICTIONARY {
            return;
        }
        self.layout_changed(obj);
        let keys = self.shapes.keys(shape);
        let o = self.object_mut(obj);
        let mut dict = Dictionary::default();
        for (slot, (key, attrs)) in keys.into_iter().enumerate() {
            dict.insert(
                key,
                Property {
                    value: o.slots[slot],
                    attrs,
                },
            );
        }
        o.slots = Slots::new();
        o.dict = Some(Box::new(dict));
        o.shape = ShapeId::DICTIONARY;
    }

    /// Remove own property `key` (the caller checked it is configurable).
    pub fn remove_own(&mut self, obj: ObjectId, key: PropertyKey) {
        match key {
            PropertyKey::Index(i) => {
                let o = self.object_mut(obj);
                match &mut o.elements {
                    Elements::Dense(v) => {
                        if (i as usize) < v.len() {
                            v[i as usize] = Value::HOLE;
                        }
                    }
                    Elements::Sparse(s) => {
                        s.map.remove(&i);
                    }
                }
                if let ObjectKind::Arguments { mapped, .. } = &mut o.kind
                    && let Some(m) = mapped.get_mut(i as usize)
                {
                    *m = false;
                }
            }
            _ => {
                self.to_dictionary(obj);
                self.layout_changed(obj);
                if let Some(d) = self.object_mut(obj).dict.as_mut() {
                    d.remove(key);
                }
            }
        }
    }

    /// Own property keys in spec order: indices ascending, then strings, then
    /// symbols, each in creation order. Private names are left out.
    pub fn own_keys(&mut self, obj: ObjectId) -> Vec<PropertyKey> {
        let mut keys = Vec::new();
        let o = self.object(obj);
        if let ObjectKind::String(s) = o.kind {
            keys.extend((0..self.string_len(s)).map(PropertyKey::Index));
        }
        match &o.elements {
            Elements::Dense(v) => keys.extend(
                v.iter()
                    .enumerate()
                    .filter(|(_, v)| !v.is_hole())
                    .map(|(i, _)| PropertyKey::Index(i as u32)),
            ),
            Elements::Sparse(s) => keys.extend(s.map.keys().map(|&i| PropertyKey::Index(i))),
        }
        if matches!(o.kind, ObjectKind::Array { .. } | ObjectKind::String(_)) {
            keys.push(PropertyKey::String(self.length_atom));
        }
        self.push_named_keys(obj, &mut keys);
        keys
    }

    /// The string and symbol keys `obj` stores (not its elements, nor a virtual
    /// `length`): strings first, then symbols, each in insertion order. Private names
    /// are not keys.
    pub fn named_keys(&self, obj: ObjectId) -> Vec<PropertyKey> {
        let mut keys = Vec::new();
        self.push_named_keys(obj, &mut keys);
        keys
    }

    /// [`Heap::named_keys`], appended to `out`.
    fn push_named_keys(&self, obj: ObjectId, out: &mut Vec<PropertyKey>) {
        let start = out.len();
        let o = self.object(obj);
        match &o.dict {
            Some(d) => out.extend(d.iter().map(|(k, _)| k)),
            None => {
                out.extend(self.shapes.chain(o.shape).map(|(_, k, _)| k));
                out[start..].reverse();
            }
        }
        if out[start..]
            .iter()
            .all(|k| matches!(k, PropertyKey::String(_)))
        {
            return;
        }
        let symbols: Vec<PropertyKey> = out[start..]
            .iter()
            .filter(|k| matches!(k, PropertyKey::Symbol(s) if !self.symbol(*s).is_private))
            .copied()
            .collect();
        let mut kept = start;
        for i in start..out.len() {
            if matches!(out[i], PropertyKey::String(_)) {
                out[kept] = out[i];
                kept += 1;
            }
        }
        out.truncate(kept);
        out.extend(symbols);
    }

    /// The enumerable string-keyed own properties of an object whose keys and attributes
    /// are all stored (no proxy, typed array, module namespace or String wrapper) and
    /// whose elements are dense, in spec order, with how many keys it looked at; None
    /// for other objects. What `Object.keys` and `for-in` return, without a descriptor
    /// per key.
    pub fn stored_enumerable_keys(&self, obj: ObjectId) -> Option<(Vec<PropertyKey>, usize)> {
        let o = self.object(obj);
        if matches!(
            o.kind,
            ObjectKind::Proxy { .. }
                | ObjectKind::TypedArray(_)
                | ObjectKind::ModuleNamespace(_)
                | ObjectKind::String(_)
        ) {
            return None;
        }
        let Elements::Dense(elements) = &o.elements else {
            return None;
        };
        // dense elements are enumerable: other attributes make elements sparse
        let mut keys: Vec<PropertyKey> = (elements.iter().enumerate())
            .filter(|(_, v)| !v.is_hole())
            .map(|(i, _)| PropertyKey::Index(i as u32))
            .collect();
        let named = |key: PropertyKey, attrs: Attrs| {
            matches!(key, PropertyKey::String(_)) && attrs.enumerable()
        };
        let named_count = match &o.dict {
            Some(d) => {
                keys.extend(d.iter().filter(|&(k, p)| named(k, p.attrs)).map(|(k, _)| k));
                d.len()
            }
            None => {
                let start = keys.len();
                keys.extend(
                    (self.shapes.chain(o.shape))
                        .filter(|&(_, k, attrs)| named(k, attrs))
                        .map(|(_, k, _)| k),
                );
                keys[start..].reverse();
                self.shapes.get(o.shape).len as usize
            }
        };
        Some((keys, elements.len() + named_count))
    }

    /// Change the prototype, keeping the layout (shape-mode objects move to the new root's tree).
    pub fn set_proto_raw(&mut self, obj: ObjectId, proto: Option<ObjectId>) {
        let shape = self.object(obj).shape;
        if shape != ShapeId::DICTIONARY {
            let keys = self.shapes.keys(shape);
            let mut s = self.shapes.root(proto);
            for (k, a) in keys {
                s = self.shapes.add(s, k, a);
            }
            self.object_mut(obj).shape = s;
        }
        self.layout_changed(obj);
        if let Some(p) = proto {
            self.object_mut(p).used_as_prototype = true;
        }
        self.object_mut(obj).proto = proto;
    }

    /// Set an array's length, deleting elements at or above it. Returns false
    /// if a non-configurable element stopped the truncation (the length then
    /// ends just above it).
    pub fn set_array_length(&mut self, obj: ObjectId, len: u32) -> bool {
        let o = self.object_mut(obj);
        match &mut o.elements {
            Elements::Dense(v) => {
                let current = v.len();
                if (len as usize) <= current {
                    v.truncate(len as usize);
                    true
                } else if ((len as usize) <= DENSE_HOLES_LIMIT || len as usize <= current * 4)
                    // holes ahead of need only where the heap limit has room for them
                    && self.has_room((len as usize - current) * 8)
                {
                    let Elements::Dense(v) = &mut self.object_mut(obj).elements else {
                        unreachable!("matched above")
                    };
                    let before = v.capacity();
                    v.resize(len as usize, Value::HOLE);
                    let grown = (v.capacity() - before) * 8;
                    self.note_growth(grown);
                    true
                } else {
                    self.to_sparse_elements(obj);
                    self.set_array_length(obj, len)
                }
            }
            Elements::Sparse(s) => {
                if len < s.length {
                    let doomed: Vec<u32> = s.map.range(len..).map(|(&i, _)| i).collect();
                    for i in doomed.into_iter().rev() {
                        if !s.map[&i].attrs.configurable() {
                            s.length = i + 1;
                            return false;
                        }
                        s.map.remove(&i);
                    }
                }
                s.length = len;
                true
            }
        }
    }

    /// Make every own property non-configurable (and non-writable when `freeze`).
    /// An object stays in shape mode (its shape is the one with the restricted
    /// attributes), so reads of frozen objects — hardened intrinsics included — stay
    /// cached.
    pub fn seal_or_freeze(&mut self, obj: ObjectId, freeze: bool) {
        self.to_sparse_elements(obj);
        let restrict = |mut attrs: Attrs| {
            attrs.0 &= !Attrs::CONFIGURABLE;
            if freeze && !attrs.is_accessor() {
                attrs.0 &= !Attrs::WRITABLE;
            }
            attrs
        };
        let shape = self.object(obj).shape;
        if shape != ShapeId::DICTIONARY {
            let next = self.shapes.with_attrs(shape, |_, a| restrict(a));
            if next != shape {
                self.layout_changed(obj);
                self.object_mut(obj).shape = next;
            }
        }
        let o = self.object_mut(obj);
        o.extensible = false;
        if let Elements::Sparse(s) = &mut o.elements {
            s.map.values_mut().for_each(|p| p.attrs = restrict(p.attrs));
        }
        if let Some(d) = o.dict.as_mut() {
            for e in d.entries.iter_mut().flatten() {
                e.1.attrs = restrict(e.1.attrs);
            }
        }
        if freeze && let ObjectKind::Array { length_writable } = &mut o.kind {
            *length_writable = false;
        }
    }
}

/// Arrays up to this length stay dense when their length is set (`new Array(n)`),
/// holes and all; longer ones start sparse.
const DENSE_HOLES_LIMIT: usize = 1 << 20;

/// The length of an array object.
pub fn array_length(o: &Object) -> u32 {
    match &o.elements {
        Elements::Dense(v) => v.len() as u32,
        Elements::Sparse(s) => s.length,
    }
}
