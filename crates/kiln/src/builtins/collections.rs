//! `Map`, `Set`, `WeakMap` and `WeakSet` over an insertion-ordered hash table
//! ([spec](https://tc39.es/ecma262/#sec-keyed-collections)).
//!
//! # The table
//!
//! [`OrderedMap`] keeps entries in insertion order in a vector; a deleted
//! entry becomes a tombstone (`None`) so that a live iterator, which holds an
//! index into the vector, skips it and still sees entries appended later —
//! exactly the spec's "List of Records with empty slots". A hash index maps the
//! SameValueZero hash of a key to the positions holding it, so `get`, `set`,
//! `has` and `delete` are O(1).
//!
//! # Invariants
//!
//! 1. `hashes.len() == entries.len()`, and `index` lists every live entry's
//!    position under its hash, and nothing else.
//! 2. Keys are canonical: `-0` is stored as `+0`, strings are flat.
//! 3. The vector is compacted (tombstones dropped, positions change) only while
//!    `pins == 0`: every iterator that has not finished and every native loop
//!    over the entries holds a pin. An iterator abandoned before its end keeps
//!    its pin, which only costs memory (tombstones are kept).
//! 4. Weak collections hold objects and non-registered symbols as keys; the
//!    heap traces only their values ([`OrderedMap::trace_values`]), and the
//!    collector must call [`sweep_weak`] after marking so entries whose key died
//!    are removed before the key's id can be reused.

use super::{define_getter, define_species, define_to_string_tag, make_constructor};
use crate::JsResult;
use crate::heap::string::{JsStr, Units};
use crate::heap::{Arena, ObjectId};
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, IterationKind, NativeFn, ObjectKind, PropertyKey};
use crate::value::{Kind, Value};
use num_bigint::BigInt;
use rustc_hash::FxHashMap;

/// Positions of the entries sharing one hash.
#[derive(Clone, Debug)]
enum Bucket {
    One(u32),
    Many(Vec<u32>),
}

/// An insertion-ordered map from values (SameValueZero) to values; sets use the keys only.
/// Deleted entries leave tombstones so live iterators keep their position.
#[derive(Clone, Debug, Default)]
pub struct OrderedMap {
    entries: Vec<Option<(Value, Value)>>,
    hashes: Vec<u64>,
    index: FxHashMap<u64, Bucket>,
    live: u32,
    /// live iterators and native loops over the entries (see invariant 3)
    pins: u32,
}

/// Read access to the heap cells key comparison needs, borrowed beside the map.
pub struct KeyCtx<'a> {
    strings: &'a Arena<JsStr>,
    bigints: &'a Arena<BigInt>,
}

impl KeyCtx<'_> {
    fn units(&self, s: crate::heap::StringId) -> Units<'_> {
        crate::heap::string::units_in(self.strings, s)
    }

    /// SameValueZero of two canonical keys.
    fn same(&self, a: Value, b: Value) -> bool {
        if a == b {
            return true;
        }
        match (a.kind(), b.kind()) {
            (Kind::String(x), Kind::String(y)) => self.units(x).eq_units(self.units(y)),
            (Kind::BigInt(x), Kind::BigInt(y)) => self.bigints.get(x.0) == self.bigints.get(y.0),
            _ => match (a.as_number(), b.as_number()) {
                (Some(x), Some(y)) => x == y || (x.is_nan() && y.is_nan()),
                _ => false,
            },
        }
    }
}

fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

impl OrderedMap {
    pub fn owned_bytes(&self) -> usize {
        // the index: a key, a bucket and a control byte per slot, at most 7/8 full
        self.entries.capacity() * 24 + self.hashes.capacity() * 8 + self.index.capacity() * 40
    }

    /// Bytes the next insertion may allocate while the storage it replaces still exists:
    /// the new, larger copy of each vector or index that is full (zero when none is).
    pub fn growth_ahead(&self) -> usize {
        let full = |len: usize, capacity: usize, bytes: usize| {
            if len == capacity {
                capacity.max(4) * 2 * bytes
            } else {
                0
            }
        };
        full(self.entries.len(), self.entries.capacity(), 24)
            + full(self.hashes.len(), self.hashes.capacity(), 8)
            + full(self.index.len(), self.index.capacity(), 40)
    }

    pub fn trace(&self, out: &mut Vec<Value>) {
        for (k, v) in self.entries.iter().flatten() {
            out.push(*k);
            out.push(*v);
        }
    }

    /// Weak collections keep values alive but not keys.
    /// Every live (key, value) pair, for the collector's ephemeron pass.
    pub fn pairs(&self) -> impl Iterator<Item = (Value, Value)> + '_ {
        self.entries.iter().flatten().copied()
    }

    /// The number of live entries.
    pub fn len(&self) -> usize {
        self.live as usize
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The entry at position `i` (None for a tombstone or past the end).
    pub fn entry_at(&self, i: usize) -> Option<(Value, Value)> {
        self.entries.get(i).copied().flatten()
    }

    /// The number of positions, tombstones included.
    pub fn positions(&self) -> usize {
        self.entries.len()
    }

    /// The live entries in order.
    pub fn live_entries(&self) -> impl Iterator<Item = (Value, Value)> + '_ {
        self.entries.iter().flatten().copied()
    }

    fn find(&self, ctx: &KeyCtx, key: Value, hash: u64) -> Option<usize> {
        let matches = |i: u32| {
            self.entries
                .get(i as usize)
                .and_then(|e| e.as_ref())
                .is_some_and(|(k, _)| ctx.same(*k, key))
        };
        match self.index.get(&hash)? {
            Bucket::One(i) => matches(*i).then_some(*i as usize),
            Bucket::Many(v) => v.iter().copied().find(|&i| matches(i)).map(|i| i as usize),
        }
    }

    fn get(&self, ctx: &KeyCtx, key: Value, hash: u64) -> Option<Value> {
        self.find(ctx, key, hash)
            .and_then(|i| self.entries[i].map(|(_, v)| v))
    }

    /// Set `key` to `value`, appending a new entry if the key is absent.
    fn set(&mut self, ctx: &KeyCtx, key: Value, value: Value, hash: u64) {
        if let Some(i) = self.find(ctx, key, hash) {
            if let Some(e) = self.entries[i].as_mut() {
                e.1 = value;
            }
            return;
        }
        self.set_new(key, value, hash);
    }

    /// Append an entry for a key known to be absent.
    fn set_new(&mut self, key: Value, value: Value, hash: u64) {
        let pos = self.entries.len() as u32;
        self.entries.push(Some((key, value)));
        self.hashes.push(hash);
        self.live += 1;
        match self.index.get_mut(&hash) {
            None => {
                self.index.insert(hash, Bucket::One(pos));
            }
            Some(b) => match b {
                Bucket::One(i) => *b = Bucket::Many(vec![*i, pos]),
                Bucket::Many(v) => v.push(pos),
            },
        }
    }

    /// Remove `key`; true if it was present.
    fn remove(&mut self, ctx: &KeyCtx, key: Value, hash: u64) -> bool {
        let Some(i) = self.find(ctx, key, hash) else {
            return false;
        };
        self.remove_at(i);
        self.maybe_compact();
        true
    }

    fn remove_at(&mut self, i: usize) {
        let Some(slot) = self.entries.get_mut(i) else {
            return;
        };
        if slot.take().is_none() {
            return;
        }
        self.live -= 1;
        let hash = self.hashes[i];
        let empty = match self.index.get_mut(&hash) {
            Some(Bucket::One(_)) => true,
            Some(Bucket::Many(v)) => {
                v.retain(|&p| p as usize != i);
                v.is_empty()
            }
            None => false,
        };
        if empty {
            self.index.remove(&hash);
        }
    }

    /// Remove every entry (live iterators then continue with later additions).
    fn clear(&mut self) {
        if self.pins == 0 {
            self.entries.clear();
            self.hashes.clear();
        } else {
            self.entries.iter_mut().for_each(|e| *e = None);
        }
        self.index.clear();
        self.live = 0;
    }

    /// Drop tombstones once they dominate, if nothing holds a position (invariant 3).
    fn maybe_compact(&mut self) {
        let dead = self.entries.len() - self.live as usize;
        if self.pins > 0 || dead < 16 || dead * 2 < self.entries.len() {
            return;
        }
        self.compact();
    }

    fn compact(&mut self) {
        let mut entries = Vec::with_capacity(self.live as usize);
        let mut hashes = Vec::with_capacity(self.live as usize);
        self.index.clear();
        for (e, &h) in self.entries.iter().zip(&self.hashes) {
            if e.is_some() {
                let pos = entries.len() as u32;
                entries.push(*e);
                hashes.push(h);
                match self.index.get_mut(&h) {
                    None => {
                        self.index.insert(h, Bucket::One(pos));
                    }
                    Some(b) => match b {
                        Bucket::One(i) => *b = Bucket::Many(vec![*i, pos]),
                        Bucket::Many(v) => v.push(pos),
                    },
                }
            }
        }
        self.entries = entries;
        self.hashes = hashes;
    }

    /// Every position (tombstones as None) and the number of pins, for a snapshot.
    pub(crate) fn snapshot_parts(&self) -> (&[Option<(Value, Value)>], u32) {
        (&self.entries, self.pins)
    }

    /// The table with these positions and pins, its hashes computed again from the keys
    /// (which must be canonical, with flat strings).
    pub(crate) fn restore(
        heap: &crate::heap::Heap,
        entries: Vec<Option<(Value, Value)>>,
        pins: u32,
    ) -> OrderedMap {
        let mut map = OrderedMap {
            pins,
            ..OrderedMap::default()
        };
        for e in entries {
            match e {
                Some((k, v)) => map.set_new(k, v, key_hash(heap, k)),
                None => {
                    map.entries.push(None);
                    map.hashes.push(0);
                }
            }
        }
        map
    }

    fn pin(&mut self) {
        self.pins += 1;
    }

    fn unpin(&mut self) {
        self.pins = self.pins.saturating_sub(1);
        self.maybe_compact();
    }
}

/// Remove the entries of a weak collection whose key is no longer live.
///
/// The collector calls this for every object that survived marking, after
/// tracing and before the arenas are swept, passing whether a value was
/// marked. In `Heap::finish_collection`, right after `self.trace()`:
///
/// ```ignore
/// let marks = &self.objects.marks; // split borrow: items mutably, marks shared
/// for (i, o) in self.objects.items.iter_mut().enumerate() {
///     if marks[i] {
///         crate::builtins::collections::sweep_weak(&mut o.kind, |v| match v.kind() {
///             Kind::Object(id) => marks[id.0 as usize],
///             Kind::Symbol(s) => self.symbols.marks[s.0 as usize],
///             _ => true,
///         });
///     }
/// }
/// ```
///
/// Other kinds of object are left alone.
pub fn sweep_weak(kind: &mut ObjectKind, is_live: impl Fn(Value) -> bool) {
    let (ObjectKind::WeakMap(m) | ObjectKind::WeakSet(m)) = kind else {
        return;
    };
    let mut removed = false;
    for i in 0..m.entries.len() {
        if let Some((k, _)) = m.entries[i]
            && !is_live(k)
        {
            m.remove_at(i);
            removed = true;
        }
    }
    if removed && m.pins == 0 {
        m.compact();
    }
}

// ---- keys ----

/// A canonical key and its hash: CanonicalizeKeyedCollectionKey (−0 becomes +0),
/// strings flattened.
fn prepare_key(vm: &mut Vm, key: Value) -> (Value, u64) {
    let key = if key.as_number() == Some(0.0) {
        Value::int(0)
    } else {
        key
    };
    if let Some(s) = key.as_string() {
        vm.heap.flatten(s);
    }
    (key, key_hash(&vm.heap, key))
}

/// The hash of a canonical key (strings flat).
fn key_hash(heap: &crate::heap::Heap, key: Value) -> u64 {
    match key.kind() {
        Kind::Int(i) => mix((i as f64).to_bits() ^ 0x1),
        Kind::Double(d) if d.is_nan() => mix(f64::NAN.to_bits() ^ 0x1),
        Kind::Double(d) => mix(d.to_bits() ^ 0x1),
        Kind::String(s) => mix(heap.flat_units(s).content_hash() ^ 0x2),
        Kind::BigInt(b) => {
            let bytes = heap.bigint(b).to_signed_bytes_le();
            mix(Units::Latin1(&bytes).content_hash() ^ 0x3)
        }
        _ => mix(key.to_bits()),
    }
}

/// Run `f` on the table of collection `obj` (any of the four kinds).
fn with_table<R>(
    vm: &mut Vm,
    obj: ObjectId,
    f: impl FnOnce(&mut OrderedMap, &KeyCtx) -> R,
) -> Option<R> {
    let heap = &mut vm.heap;
    let ctx = KeyCtx {
        strings: &heap.strings,
        bigints: &heap.bigints,
    };
    match &mut heap.objects.get_mut(obj.0).kind {
        ObjectKind::Map(m)
        | ObjectKind::Set(m)
        | ObjectKind::WeakMap(m)
        | ObjectKind::WeakSet(m) => Some(f(m, &ctx)),
        _ => None,
    }
}

fn table_get(vm: &mut Vm, obj: ObjectId, key: Value) -> Option<Value> {
    let (key, hash) = prepare_key(vm, key);
    with_table(vm, obj, |m, ctx| m.get(ctx, key, hash)).flatten()
}

fn table_has(vm: &mut Vm, obj: ObjectId, key: Value) -> bool {
    let (key, hash) = prepare_key(vm, key);
    with_table(vm, obj, |m, ctx| m.find(ctx, key, hash).is_some()).unwrap_or(false)
}

/// Add or replace an entry; ends the run when the table's storage would grow past the
/// heap limit (checked before it grows: old and new storage both exist while it moves).
fn table_set(vm: &mut Vm, obj: ObjectId, key: Value, value: Value) -> JsResult<()> {
    let ahead = with_table(vm, obj, |m, _| m.growth_ahead()).unwrap_or(0);
    if ahead > 0 {
        vm.check_room(ahead)?;
    }
    let (key, hash) = prepare_key(vm, key);
    // what the storage grew by: nothing unless a vector or the index reallocated
    let grown = with_table(vm, obj, |m, ctx| {
        let before = m.owned_bytes();
        m.set(ctx, key, value, hash);
        m.owned_bytes().saturating_sub(before)
    });
    vm.heap.note_growth(grown.unwrap_or(0));
    Ok(())
}

fn table_remove(vm: &mut Vm, obj: ObjectId, key: Value) -> bool {
    let (key, hash) = prepare_key(vm, key);
    with_table(vm, obj, |m, ctx| m.remove(ctx, key, hash)).unwrap_or(false)
}

fn table(vm: &Vm, obj: ObjectId) -> Option<&OrderedMap> {
    match &vm.heap.object(obj).kind {
        ObjectKind::Map(m)
        | ObjectKind::Set(m)
        | ObjectKind::WeakMap(m)
        | ObjectKind::WeakSet(m) => Some(m),
        _ => None,
    }
}

fn table_len(vm: &Vm, obj: ObjectId) -> usize {
    table(vm, obj).map_or(0, OrderedMap::len)
}

fn table_positions(vm: &Vm, obj: ObjectId) -> usize {
    table(vm, obj).map_or(0, OrderedMap::positions)
}

fn table_entry(vm: &Vm, obj: ObjectId, i: usize) -> Option<(Value, Value)> {
    table(vm, obj).and_then(|m| m.entry_at(i))
}

fn pin(vm: &mut Vm, obj: ObjectId) {
    with_table(vm, obj, |m, _| m.pin());
}

fn unpin(vm: &mut Vm, obj: ObjectId) {
    with_table(vm, obj, |m, _| m.unpin());
}

/// Run `f` with the table of `obj` pinned (positions stable while JavaScript runs).
fn pinned<R>(vm: &mut Vm, obj: ObjectId, f: impl FnOnce(&mut Vm) -> JsResult<R>) -> JsResult<R> {
    pin(vm, obj);
    let r = f(vm);
    unpin(vm, obj);
    r
}

/// [CanBeHeldWeakly](https://tc39.es/ecma262/#sec-canbeheldweakly)
pub fn can_be_held_weakly(vm: &Vm, v: Value) -> bool {
    match v.kind() {
        Kind::Object(_) => true,
        Kind::Symbol(s) => {
            let sym = vm.heap.symbol(s);
            !sym.registered && !sym.is_private
        }
        _ => false,
    }
}

// ---- setup ----

pub fn init(vm: &mut Vm) {
    let object_prototype = vm.intrinsics.object_prototype;
    let iterator_prototype = vm.intrinsics.iterator_prototype;

    // Map
    let map_proto = vm
        .heap
        .new_object(Some(object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.map_prototype = map_proto;
    let map_ctor = make_constructor(vm, "Map", map_constructor, 0, map_proto);
    vm.define_native(map_ctor, "groupBy", map_group_by, 2);
    define_species(vm, map_ctor);
    let methods: [(&str, NativeFn, u32); 9] = [
        ("clear", map_clear, 0),
        ("delete", map_delete, 1),
        ("forEach", map_for_each, 1),
        ("get", map_get, 1),
        ("getOrInsert", map_get_or_insert, 2),
        ("getOrInsertComputed", map_get_or_insert_computed, 2),
        ("has", map_has, 1),
        ("set", map_set, 2),
        ("keys", map_keys, 0),
    ];
    for (name, f, len) in methods {
        vm.define_native(map_proto, name, f, len);
    }
    vm.define_native(map_proto, "values", map_values, 0);
    let entries = vm.define_native(map_proto, "entries", map_entries, 0);
    vm.define_builtin(
        map_proto,
        PropertyKey::Symbol(vm.symbols.iterator),
        Value::object(entries),
        Attrs::HIDDEN,
    );
    define_getter(vm, map_proto, "size", map_size);
    define_to_string_tag(vm, map_proto, "Map");

    // Set
    let set_proto = vm
        .heap
        .new_object(Some(object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.set_prototype = set_proto;
    let set_ctor = make_constructor(vm, "Set", set_constructor, 0, set_proto);
    define_species(vm, set_ctor);
    let methods: [(&str, NativeFn, u32); 13] = [
        ("add", set_add, 1),
        ("clear", set_clear, 0),
        ("delete", set_delete, 1),
        ("entries", set_entries, 0),
        ("forEach", set_for_each, 1),
        ("has", set_has, 1),
        ("union", set_union, 1),
        ("intersection", set_intersection, 1),
        ("difference", set_difference, 1),
        ("symmetricDifference", set_symmetric_difference, 1),
        ("isSubsetOf", set_is_subset_of, 1),
        ("isSupersetOf", set_is_superset_of, 1),
        ("isDisjointFrom", set_is_disjoint_from, 1),
    ];
    for (name, f, len) in methods {
        vm.define_native(set_proto, name, f, len);
    }
    let values = vm.define_native(set_proto, "values", set_values, 0);
    let keys_key = vm.key("keys");
    vm.define_builtin(set_proto, keys_key, Value::object(values), Attrs::HIDDEN);
    vm.define_builtin(
        set_proto,
        PropertyKey::Symbol(vm.symbols.iterator),
        Value::object(values),
        Attrs::HIDDEN,
    );
    define_getter(vm, set_proto, "size", set_size);
    define_to_string_tag(vm, set_proto, "Set");

    // WeakMap
    let weakmap_proto = vm
        .heap
        .new_object(Some(object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.weakmap_prototype = weakmap_proto;
    make_constructor(vm, "WeakMap", weakmap_constructor, 0, weakmap_proto);
    vm.define_native(weakmap_proto, "delete", weakmap_delete, 1);
    vm.define_native(weakmap_proto, "get", weakmap_get, 1);
    vm.define_native(weakmap_proto, "getOrInsert", weakmap_get_or_insert, 2);
    vm.define_native(
        weakmap_proto,
        "getOrInsertComputed",
        weakmap_get_or_insert_computed,
        2,
    );
    vm.define_native(weakmap_proto, "has", weakmap_has, 1);
    vm.define_native(weakmap_proto, "set", weakmap_set, 2);
    define_to_string_tag(vm, weakmap_proto, "WeakMap");

    // WeakSet
    let weakset_proto = vm
        .heap
        .new_object(Some(object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.weakset_prototype = weakset_proto;
    make_constructor(vm, "WeakSet", weakset_constructor, 0, weakset_proto);
    vm.define_native(weakset_proto, "add", weakset_add, 1);
    vm.define_native(weakset_proto, "delete", weakset_delete, 1);
    vm.define_native(weakset_proto, "has", weakset_has, 1);
    define_to_string_tag(vm, weakset_proto, "WeakSet");

    // Iterators
    let map_iter = vm
        .heap
        .new_object(Some(iterator_prototype), ObjectKind::Ordinary);
    vm.intrinsics.map_iterator_prototype = map_iter;
    vm.define_native(map_iter, "next", map_iterator_next, 0);
    define_to_string_tag(vm, map_iter, "Map Iterator");
    let set_iter = vm
        .heap
        .new_object(Some(iterator_prototype), ObjectKind::Ordinary);
    vm.intrinsics.set_iterator_prototype = set_iter;
    vm.define_native(set_iter, "next", set_iterator_next, 0);
    define_to_string_tag(vm, set_iter, "Set Iterator");
}

fn is_map(k: &ObjectKind) -> bool {
    matches!(k, ObjectKind::Map(_))
}
fn is_set(k: &ObjectKind) -> bool {
    matches!(k, ObjectKind::Set(_))
}
fn is_weakmap(k: &ObjectKind) -> bool {
    matches!(k, ObjectKind::WeakMap(_))
}
fn is_weakset(k: &ObjectKind) -> bool {
    matches!(k, ObjectKind::WeakSet(_))
}

fn this_map(vm: &mut Vm, this: Value, method: &str) -> JsResult<ObjectId> {
    super::this_object(vm, this, method, is_map)
}
fn this_set(vm: &mut Vm, this: Value, method: &str) -> JsResult<ObjectId> {
    super::this_object(vm, this, method, is_set)
}

/// Create a collection object from `new_target` with an empty table.
fn new_collection(
    vm: &mut Vm,
    args: Args,
    name: &str,
    default: fn(&crate::realm::Intrinsics) -> ObjectId,
    make: fn(Box<OrderedMap>) -> ObjectKind,
) -> JsResult<ObjectId> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error(format!("Constructor {name} requires 'new'")));
    }
    let proto = vm.prototype_from_constructor(args.new_target, default)?;
    Ok(vm.heap.new_object(Some(proto), make(Box::default())))
}

/// Call `adder` on `target` for each value of `iterable` (AddEntriesFromIterable when
/// `entries`), closing the iterator on an abrupt completion.
fn add_from_iterable(
    vm: &mut Vm,
    target: ObjectId,
    iterable: Value,
    adder_name: &str,
    entries: bool,
) -> JsResult<()> {
    let key = vm.key(adder_name);
    let adder = vm.get(Value::object(target), key)?;
    if !vm.is_callable(adder) {
        return Err(vm.type_error(format!(
            "'{adder_name}' returned for collection is not callable"
        )));
    }
    vm.roots.push(adder);
    let (iter, next) = vm.get_iterator(iterable)?;
    vm.roots.push(iter);
    vm.roots.push(next);
    loop {
        let (item, done) = vm.iterator_step(iter, next)?;
        if done {
            return Ok(());
        }
        let r: JsResult<Value> = if entries {
            if !item.is_object() {
                let what = vm.display(item);
                Err(vm.type_error(format!("Iterator value {what} is not an entry object")))
            } else {
                vm.roots.push(item);
                vm.get(item, PropertyKey::Index(0)).and_then(|k| {
                    vm.roots.push(k);
                    let v = vm.get(item, PropertyKey::Index(1))?;
                    vm.call(adder, Value::object(target), &[k, v])
                })
            }
        } else {
            vm.call(adder, Value::object(target), &[item])
        };
        if let Err(t) = r {
            return Err(vm.iterator_close_after_throw(iter, t));
        }
    }
}

// ---- Map ----

/// [Map](https://tc39.es/ecma262/#sec-map-iterable)
fn map_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let map = new_collection(vm, args, "Map", |i| i.map_prototype, ObjectKind::Map)?;
    vm.roots.push(Value::object(map));
    let iterable = vm.arg(args, 0);
    if !iterable.is_nullish() {
        add_from_iterable(vm, map, iterable, "set", true)?;
    }
    Ok(Value::object(map))
}

/// [Map.groupBy](https://tc39.es/ecma262/#sec-map.groupby)
fn map_group_by(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let groups = super::iterator::group_by(vm, vm.arg(args, 0), vm.arg(args, 1), false)?;
    let proto = vm.intrinsics.map_prototype;
    let map = vm
        .heap
        .new_object(Some(proto), ObjectKind::Map(Box::default()));
    vm.roots.push(Value::object(map));
    for (key, values) in groups {
        let arr = vm.array_from_values(values);
        table_set(vm, map, key, Value::object(arr))?;
    }
    Ok(Value::object(map))
}

/// [Map.prototype.clear](https://tc39.es/ecma262/#sec-map.prototype.clear)
fn map_clear(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "Map.prototype.clear")?;
    with_table(vm, m, |t, _| t.clear());
    Ok(Value::UNDEFINED)
}

/// [Map.prototype.delete](https://tc39.es/ecma262/#sec-map.prototype.delete)
fn map_delete(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "Map.prototype.delete")?;
    Ok(Value::bool(table_remove(vm, m, vm.arg(args, 0))))
}

/// [Map.prototype.get](https://tc39.es/ecma262/#sec-map.prototype.get)
fn map_get(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "Map.prototype.get")?;
    Ok(table_get(vm, m, vm.arg(args, 0)).unwrap_or(Value::UNDEFINED))
}

/// [Map.prototype.getOrInsert](https://tc39.es/proposal-upsert/#sec-map.prototype.getOrInsert)
fn map_get_or_insert(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "Map.prototype.getOrInsert")?;
    get_or_insert(vm, m, vm.arg(args, 0), vm.arg(args, 1))
}

/// [Map.prototype.getOrInsertComputed](https://tc39.es/proposal-upsert/#sec-map.prototype.getOrInsertComputed)
fn map_get_or_insert_computed(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "Map.prototype.getOrInsertComputed")?;
    let callback = require_callback(vm, vm.arg(args, 1), "Map.prototype.getOrInsertComputed")?;
    get_or_insert_computed(vm, m, vm.arg(args, 0), callback)
}

/// The entry for `key`, or a new one holding `value`.
fn get_or_insert(vm: &mut Vm, m: ObjectId, key: Value, value: Value) -> JsResult<Value> {
    if let Some(v) = table_get(vm, m, key) {
        return Ok(v);
    }
    table_set(vm, m, key, value)?;
    Ok(value)
}

/// The entry for `key`, or a new one holding `callback(key)`. The callback may have added
/// the key meanwhile; its result overwrites that entry.
fn get_or_insert_computed(
    vm: &mut Vm,
    m: ObjectId,
    key: Value,
    callback: Value,
) -> JsResult<Value> {
    // CanonicalizeKeyedCollectionKey: -0 is +0, also as the callback's argument.
    let (key, _) = prepare_key(vm, key);
    if let Some(v) = table_get(vm, m, key) {
        return Ok(v);
    }
    let value = vm.call(callback, Value::UNDEFINED, &[key])?;
    table_set(vm, m, key, value)?;
    Ok(value)
}

fn require_callback(vm: &mut Vm, f: Value, method: &str) -> JsResult<Value> {
    if vm.is_callable(f) {
        return Ok(f);
    }
    let what = vm.display(f);
    Err(vm.type_error(format!("{method}: {what} is not a function")))
}

/// [Map.prototype.has](https://tc39.es/ecma262/#sec-map.prototype.has)
fn map_has(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "Map.prototype.has")?;
    Ok(Value::bool(table_has(vm, m, vm.arg(args, 0))))
}

/// [Map.prototype.set](https://tc39.es/ecma262/#sec-map.prototype.set)
fn map_set(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "Map.prototype.set")?;
    table_set(vm, m, vm.arg(args, 0), vm.arg(args, 1))?;
    Ok(this)
}

/// [get Map.prototype.size](https://tc39.es/ecma262/#sec-get-map.prototype.size)
fn map_size(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "get Map.prototype.size")?;
    Ok(Value::number(table_len(vm, m) as f64))
}

/// Walk a collection's entries, calling `callback` on each; the table is pinned.
fn for_each(vm: &mut Vm, obj: ObjectId, args: Args, map: bool) -> JsResult<Value> {
    let callback = vm.arg(args, 0);
    if !vm.is_callable(callback) {
        let what = vm.display(callback);
        return Err(vm.type_error(format!("{what} is not a function")));
    }
    let this_arg = vm.arg(args, 1);
    vm.roots.push(Value::object(obj));
    pinned(vm, obj, |vm| {
        let mut i = 0;
        while i < table_positions(vm, obj) {
            if let Some((k, v)) = table_entry(vm, obj, i) {
                let value = if map { v } else { k };
                vm.call(callback, this_arg, &[value, k, Value::object(obj)])?;
            }
            i += 1;
        }
        Ok(Value::UNDEFINED)
    })
}

/// [Map.prototype.forEach](https://tc39.es/ecma262/#sec-map.prototype.foreach)
fn map_for_each(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "Map.prototype.forEach")?;
    for_each(vm, m, args, true)
}

/// [CreateMapIterator](https://tc39.es/ecma262/#sec-createmapiterator) and
/// [CreateSetIterator](https://tc39.es/ecma262/#sec-createsetiterator)
fn new_iterator(vm: &mut Vm, target: ObjectId, kind: IterationKind, set: bool) -> Value {
    pin(vm, target);
    let proto = if set {
        vm.intrinsics.set_iterator_prototype
    } else {
        vm.intrinsics.map_iterator_prototype
    };
    Value::object(vm.heap.new_object(
        Some(proto),
        ObjectKind::MapIterator {
            target,
            index: 0,
            kind,
            set,
        },
    ))
}

/// [Map.prototype.keys](https://tc39.es/ecma262/#sec-map.prototype.keys)
fn map_keys(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "Map.prototype.keys")?;
    Ok(new_iterator(vm, m, IterationKind::Keys, false))
}

/// [Map.prototype.values](https://tc39.es/ecma262/#sec-map.prototype.values)
fn map_values(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "Map.prototype.values")?;
    Ok(new_iterator(vm, m, IterationKind::Values, false))
}

/// [Map.prototype.entries](https://tc39.es/ecma262/#sec-map.prototype.entries)
fn map_entries(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let m = this_map(vm, this, "Map.prototype.entries")?;
    Ok(new_iterator(vm, m, IterationKind::Entries, false))
}

/// The position value of a finished iterator.
const DONE: u32 = u32::MAX;

/// %MapIteratorPrototype%.next and %SetIteratorPrototype%.next.
fn collection_iterator_next(vm: &mut Vm, this: Value, set: bool) -> JsResult<Value> {
    let it = this.as_object();
    let state = it.and_then(|it| match vm.heap.object(it).kind {
        ObjectKind::MapIterator {
            target,
            index,
            kind,
            set: s,
        } if s == set => Some((target, index, kind)),
        _ => None,
    });
    let (Some(it), Some((target, index, kind))) = (it, state) else {
        let name = if set { "Set Iterator" } else { "Map Iterator" };
        return Err(vm.type_error(format!(
            "next method called on incompatible receiver (not a {name})"
        )));
    };
    if index == DONE {
        return Ok(vm.iter_result(Value::UNDEFINED, true));
    }
    let mut i = index as usize;
    let positions = table_positions(vm, target);
    while i < positions {
        if let Some((k, v)) = table_entry(vm, target, i) {
            if let ObjectKind::MapIterator { index, .. } = &mut vm.heap.object_mut(it).kind {
                *index = (i + 1) as u32;
            }
            let value = match kind {
                IterationKind::Keys => k,
                IterationKind::Values => {
                    if set {
                        k
                    } else {
                        v
                    }
                }
                IterationKind::Entries => {
                    let second = if set { k } else { v };
                    Value::object(vm.array_from_values(vec![k, second]))
                }
            };
            return Ok(vm.iter_result(value, false));
        }
        i += 1;
    }
    if let ObjectKind::MapIterator { index, .. } = &mut vm.heap.object_mut(it).kind {
        *index = DONE;
    }
    unpin(vm, target);
    Ok(vm.iter_result(Value::UNDEFINED, true))
}

/// [%MapIteratorPrototype%.next](https://tc39.es/ecma262/#sec-%mapiteratorprototype%.next)
fn map_iterator_next(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    collection_iterator_next(vm, this, false)
}

/// [%SetIteratorPrototype%.next](https://tc39.es/ecma262/#sec-%setiteratorprototype%.next)
fn set_iterator_next(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    collection_iterator_next(vm, this, true)
}

// ---- Set ----

/// [Set](https://tc39.es/ecma262/#sec-set-iterable)
fn set_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let set = new_collection(vm, args, "Set", |i| i.set_prototype, ObjectKind::Set)?;
    vm.roots.push(Value::object(set));
    let iterable = vm.arg(args, 0);
    if !iterable.is_nullish() {
        add_from_iterable(vm, set, iterable, "add", false)?;
    }
    Ok(Value::object(set))
}

/// [Set.prototype.add](https://tc39.es/ecma262/#sec-set.prototype.add)
fn set_add(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.add")?;
    let v = vm.arg(args, 0);
    table_set(vm, s, v, v)?;
    Ok(this)
}

/// [Set.prototype.clear](https://tc39.es/ecma262/#sec-set.prototype.clear)
fn set_clear(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.clear")?;
    with_table(vm, s, |t, _| t.clear());
    Ok(Value::UNDEFINED)
}

/// [Set.prototype.delete](https://tc39.es/ecma262/#sec-set.prototype.delete)
fn set_delete(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.delete")?;
    Ok(Value::bool(table_remove(vm, s, vm.arg(args, 0))))
}

/// [Set.prototype.has](https://tc39.es/ecma262/#sec-set.prototype.has)
fn set_has(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.has")?;
    Ok(Value::bool(table_has(vm, s, vm.arg(args, 0))))
}

/// [Set.prototype.forEach](https://tc39.es/ecma262/#sec-set.prototype.foreach)
fn set_for_each(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.forEach")?;
    for_each(vm, s, args, false)
}

/// [get Set.prototype.size](https://tc39.es/ecma262/#sec-get-set.prototype.size)
fn set_size(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "get Set.prototype.size")?;
    Ok(Value::number(table_len(vm, s) as f64))
}

/// [Set.prototype.values](https://tc39.es/ecma262/#sec-set.prototype.values) (also `keys`)
fn set_values(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.values")?;
    Ok(new_iterator(vm, s, IterationKind::Values, true))
}

/// [Set.prototype.entries](https://tc39.es/ecma262/#sec-set.prototype.entries)
fn set_entries(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.entries")?;
    Ok(new_iterator(vm, s, IterationKind::Entries, true))
}

/// A [Set Record](https://tc39.es/ecma262/#sec-set-records).
#[derive(Clone, Copy)]
struct SetRecord {
    set: Value,
    size: f64,
    has: Value,
    keys: Value,
}

/// [GetSetRecord](https://tc39.es/ecma262/#sec-getsetrecord)
fn get_set_record(vm: &mut Vm, obj: Value) -> JsResult<SetRecord> {
    // 1. If obj is not an Object, throw a TypeError exception.
    if !obj.is_object() {
        let what = vm.display(obj);
        return Err(vm.type_error(format!("{what} is not a set-like object")));
    }
    // 2. Let rawSize be ? Get(obj, "size").
    let size_key = vm.key("size");
    let raw_size = vm.get(obj, size_key)?;
    // 3-4. Let numSize be ? ToNumber(rawSize); NaN throws.
    let num_size = vm.to_number(raw_size)?;
    if num_size.is_nan() {
        return Err(vm.type_error("The 'size' property of a set-like object must be a number"));
    }
    // 5-6. Let intSize be ! ToIntegerOrInfinity(numSize); negative throws a RangeError.
    let int_size = crate::interpreter::convert::f64_to_integer(num_size);
    if int_size < 0.0 {
        return Err(vm.range_error("The 'size' property of a set-like object must not be negative"));
    }
    // 7-8. Let has be ? Get(obj, "has"), which must be callable.
    let has_key = vm.key("has");
    let has = vm.get(obj, has_key)?;
    if !vm.is_callable(has) {
        return Err(vm.type_error("The 'has' property of a set-like object must be a function"));
    }
    vm.roots.push(has);
    // 9-10. Let keys be ? Get(obj, "keys"), which must be callable.
    let keys_key = vm.key("keys");
    let keys = vm.get(obj, keys_key)?;
    if !vm.is_callable(keys) {
        return Err(vm.type_error("The 'keys' property of a set-like object must be a function"));
    }
    vm.roots.push(keys);
    Ok(SetRecord {
        set: obj,
        size: int_size,
        has,
        keys,
    })
}

/// A new Set (with %Set.prototype%) holding `values`.
fn set_from_values(vm: &mut Vm, values: impl IntoIterator<Item = Value>) -> JsResult<Value> {
    let proto = vm.intrinsics.set_prototype;
    let set = vm
        .heap
        .new_object(Some(proto), ObjectKind::Set(Box::default()));
    for v in values {
        table_set(vm, set, v, v)?;
    }
    Ok(Value::object(set))
}

/// A copy of a Set's table, as a new Set object (the result of union and friends).
fn copy_set(vm: &mut Vm, s: ObjectId) -> JsResult<ObjectId> {
    let values: Vec<Value> = table(vm, s)
        .map(|t| t.live_entries().map(|(k, _)| k).collect())
        .unwrap_or_default();
    let result = set_from_values(vm, values)?;
    Ok(result.as_object().unwrap_or(s))
}

/// The keys iterator of a set record: GetIteratorFromMethod(set, keys).
fn keys_iterator(vm: &mut Vm, rec: SetRecord) -> JsResult<(Value, Value)> {
    let (iter, next) = vm.get_iterator_from_method(rec.set, rec.keys)?;
    vm.roots.push(iter);
    vm.roots.push(next);
    Ok((iter, next))
}

/// Call `rec.has(e)` for each element of `s` in order while `f` says go on
/// (`f(e, in_other) -> Some(result)` stops with that result).
fn each_in_this<R>(
    vm: &mut Vm,
    s: ObjectId,
    rec: SetRecord,
    mut f: impl FnMut(&mut Vm, Value, bool) -> Option<R>,
) -> JsResult<Option<R>> {
    pinned(vm, s, |vm| {
        let mut i = 0;
        while i < table_positions(vm, s) {
            if let Some((e, _)) = table_entry(vm, s, i) {
                let r = vm.call(rec.has, rec.set, &[e])?;
                let in_other = vm.to_boolean(r);
                if let Some(out) = f(vm, e, in_other) {
                    return Ok(Some(out));
                }
            }
            i += 1;
        }
        Ok(None)
    })
}

/// [Set.prototype.union](https://tc39.es/ecma262/#sec-set.prototype.union)
fn set_union(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.union")?;
    let rec = get_set_record(vm, vm.arg(args, 0))?;
    let (iter, next) = keys_iterator(vm, rec)?;
    let result = copy_set(vm, s)?;
    vm.roots.push(Value::object(result));
    loop {
        let (v, done) = vm.iterator_step(iter, next)?;
        if done {
            return Ok(Value::object(result));
        }
        table_set(vm, result, v, v)?;
    }
}

/// [Set.prototype.intersection](https://tc39.es/ecma262/#sec-set.prototype.intersection)
fn set_intersection(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.intersection")?;
    let rec = get_set_record(vm, vm.arg(args, 0))?;
    let result = set_from_values(vm, [])?;
    vm.roots.push(result);
    let Some(result) = result.as_object() else {
        return Ok(result);
    };
    if table_len(vm, s) as f64 <= rec.size {
        // a refused insertion stops the walk and ends the run
        let refused = each_in_this(vm, s, rec, |vm, e, in_other| {
            if in_other {
                table_set(vm, result, e, e).err()
            } else {
                None
            }
        })?;
        if let Some(refused) = refused {
            return Err(refused);
        }
    } else {
        let (iter, next) = keys_iterator(vm, rec)?;
        loop {
            let (v, done) = vm.iterator_step(iter, next)?;
            if done {
                break;
            }
            if table_has(vm, s, v) {
                table_set(vm, result, v, v)?;
            }
        }
    }
    Ok(Value::object(result))
}

/// [Set.prototype.difference](https://tc39.es/ecma262/#sec-set.prototype.difference)
fn set_difference(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.difference")?;
    let rec = get_set_record(vm, vm.arg(args, 0))?;
    let result = copy_set(vm, s)?;
    vm.roots.push(Value::object(result));
    if table_len(vm, s) as f64 <= rec.size {
        // Walk the copy: its positions are fixed (it is pinned; only we remove from it).
        let count = table_positions(vm, result);
        pinned(vm, result, |vm| {
            for i in 0..count {
                if let Some((e, _)) = table_entry(vm, result, i) {
                    let r = vm.call(rec.has, rec.set, &[e])?;
                    if vm.to_boolean(r) {
                        table_remove(vm, result, e);
                    }
                }
            }
            Ok(())
        })?;
    } else {
        let (iter, next) = keys_iterator(vm, rec)?;
        loop {
            let (v, done) = vm.iterator_step(iter, next)?;
            if done {
                break;
            }
            table_remove(vm, result, v);
        }
    }
    Ok(Value::object(result))
}

/// [Set.prototype.symmetricDifference](https://tc39.es/ecma262/#sec-set.prototype.symmetricdifference)
fn set_symmetric_difference(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.symmetricDifference")?;
    let rec = get_set_record(vm, vm.arg(args, 0))?;
    let (iter, next) = keys_iterator(vm, rec)?;
    let result = copy_set(vm, s)?;
    vm.roots.push(Value::object(result));
    loop {
        let (v, done) = vm.iterator_step(iter, next)?;
        if done {
            return Ok(Value::object(result));
        }
        let already = table_has(vm, result, v);
        if table_has(vm, s, v) {
            if already {
                table_remove(vm, result, v);
            }
        } else if !already {
            table_set(vm, result, v, v)?;
        }
    }
}

/// [Set.prototype.isSubsetOf](https://tc39.es/ecma262/#sec-set.prototype.issubsetof)
fn set_is_subset_of(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.isSubsetOf")?;
    let rec = get_set_record(vm, vm.arg(args, 0))?;
    if table_len(vm, s) as f64 > rec.size {
        return Ok(Value::FALSE);
    }
    let r = each_in_this(vm, s, rec, |_, _, in_other| (!in_other).then_some(()))?;
    Ok(Value::bool(r.is_none()))
}

/// [Set.prototype.isSupersetOf](https://tc39.es/ecma262/#sec-set.prototype.issupersetof)
fn set_is_superset_of(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.isSupersetOf")?;
    let rec = get_set_record(vm, vm.arg(args, 0))?;
    if (table_len(vm, s) as f64) < rec.size {
        return Ok(Value::FALSE);
    }
    let (iter, next) = keys_iterator(vm, rec)?;
    loop {
        let (v, done) = vm.iterator_step(iter, next)?;
        if done {
            return Ok(Value::TRUE);
        }
        if !table_has(vm, s, v) {
            vm.iterator_close(iter)?;
            return Ok(Value::FALSE);
        }
    }
}

/// [Set.prototype.isDisjointFrom](https://tc39.es/ecma262/#sec-set.prototype.isdisjointfrom)
fn set_is_disjoint_from(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_set(vm, this, "Set.prototype.isDisjointFrom")?;
    let rec = get_set_record(vm, vm.arg(args, 0))?;
    if table_len(vm, s) as f64 <= rec.size {
        let r = each_in_this(vm, s, rec, |_, _, in_other| in_other.then_some(()))?;
        return Ok(Value::bool(r.is_none()));
    }
    let (iter, next) = keys_iterator(vm, rec)?;
    loop {
        let (v, done) = vm.iterator_step(iter, next)?;
        if done {
            return Ok(Value::TRUE);
        }
        if table_has(vm, s, v) {
            vm.iterator_close(iter)?;
            return Ok(Value::FALSE);
        }
    }
}

// ---- WeakMap and WeakSet ----

/// [WeakMap](https://tc39.es/ecma262/#sec-weakmap-iterable)
fn weakmap_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let map = new_collection(
        vm,
        args,
        "WeakMap",
        |i| i.weakmap_prototype,
        ObjectKind::WeakMap,
    )?;
    vm.roots.push(Value::object(map));
    let iterable = vm.arg(args, 0);
    if !iterable.is_nullish() {
        add_from_iterable(vm, map, iterable, "set", true)?;
    }
    Ok(Value::object(map))
}

fn this_weakmap(vm: &mut Vm, this: Value, method: &str) -> JsResult<ObjectId> {
    super::this_object(vm, this, method, is_weakmap)
}
fn this_weakset(vm: &mut Vm, this: Value, method: &str) -> JsResult<ObjectId> {
    super::this_object(vm, this, method, is_weakset)
}

/// [WeakMap.prototype.delete](https://tc39.es/ecma262/#sec-weakmap.prototype.delete)
fn weakmap_delete(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_weakmap(vm, this, "WeakMap.prototype.delete")?;
    let key = vm.arg(args, 0);
    if !can_be_held_weakly(vm, key) {
        return Ok(Value::FALSE);
    }
    Ok(Value::bool(table_remove(vm, m, key)))
}

/// [WeakMap.prototype.get](https://tc39.es/ecma262/#sec-weakmap.prototype.get)
fn weakmap_get(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_weakmap(vm, this, "WeakMap.prototype.get")?;
    let key = vm.arg(args, 0);
    if !can_be_held_weakly(vm, key) {
        return Ok(Value::UNDEFINED);
    }
    Ok(table_get(vm, m, key).unwrap_or(Value::UNDEFINED))
}

/// [WeakMap.prototype.getOrInsert](https://tc39.es/proposal-upsert/#sec-weakmap.prototype.getOrInsert)
fn weakmap_get_or_insert(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_weakmap(vm, this, "WeakMap.prototype.getOrInsert")?;
    let key = weak_key(vm, vm.arg(args, 0))?;
    get_or_insert(vm, m, key, vm.arg(args, 1))
}

/// [WeakMap.prototype.getOrInsertComputed](https://tc39.es/proposal-upsert/#sec-weakmap.prototype.getOrInsertComputed)
fn weakmap_get_or_insert_computed(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let method = "WeakMap.prototype.getOrInsertComputed";
    let m = this_weakmap(vm, this, method)?;
    let key = weak_key(vm, vm.arg(args, 0))?;
    let callback = require_callback(vm, vm.arg(args, 1), method)?;
    get_or_insert_computed(vm, m, key, callback)
}

/// A key a weak map can hold, else a TypeError.
fn weak_key(vm: &mut Vm, key: Value) -> JsResult<Value> {
    if can_be_held_weakly(vm, key) {
        return Ok(key);
    }
    let what = vm.display(key);
    Err(vm.type_error(format!("Invalid value used as weak map key: {what}")))
}

/// [WeakMap.prototype.has](https://tc39.es/ecma262/#sec-weakmap.prototype.has)
fn weakmap_has(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_weakmap(vm, this, "WeakMap.prototype.has")?;
    let key = vm.arg(args, 0);
    if !can_be_held_weakly(vm, key) {
        return Ok(Value::FALSE);
    }
    Ok(Value::bool(table_has(vm, m, key)))
}

/// [WeakMap.prototype.set](https://tc39.es/ecma262/#sec-weakmap.prototype.set)
fn weakmap_set(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let m = this_weakmap(vm, this, "WeakMap.prototype.set")?;
    let key = weak_key(vm, vm.arg(args, 0))?;
    table_set(vm, m, key, vm.arg(args, 1))?;
    Ok(this)
}

/// [WeakSet](https://tc39.es/ecma262/#sec-weakset-iterable)
fn weakset_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let set = new_collection(
        vm,
        args,
        "WeakSet",
        |i| i.weakset_prototype,
        ObjectKind::WeakSet,
    )?;
    vm.roots.push(Value::object(set));
    let iterable = vm.arg(args, 0);
    if !iterable.is_nullish() {
        add_from_iterable(vm, set, iterable, "add", false)?;
    }
    Ok(Value::object(set))
}

/// [WeakSet.prototype.add](https://tc39.es/ecma262/#sec-weakset.prototype.add)
fn weakset_add(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_weakset(vm, this, "WeakSet.prototype.add")?;
    let v = vm.arg(args, 0);
    if !can_be_held_weakly(vm, v) {
        let what = vm.display(v);
        return Err(vm.type_error(format!("Invalid value used in weak set: {what}")));
    }
    table_set(vm, s, v, Value::UNDEFINED)?;
    Ok(this)
}

/// [WeakSet.prototype.delete](https://tc39.es/ecma262/#sec-weakset.prototype.delete)
fn weakset_delete(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_weakset(vm, this, "WeakSet.prototype.delete")?;
    let v = vm.arg(args, 0);
    if !can_be_held_weakly(vm, v) {
        return Ok(Value::FALSE);
    }
    Ok(Value::bool(table_remove(vm, s, v)))
}

/// [WeakSet.prototype.has](https://tc39.es/ecma262/#sec-weakset.prototype.has)
fn weakset_has(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_weakset(vm, this, "WeakSet.prototype.has")?;
    let v = vm.arg(args, 0);
    if !can_be_held_weakly(vm, v) {
        return Ok(Value::FALSE);
    }
    Ok(Value::bool(table_has(vm, s, v)))
}
