//! Shapes (hidden classes): the layout of an object's named properties.
//!
//! A shape is a node in a transition tree. Each root belongs to one
//! prototype, so two objects with the same shape have the same prototype and
//! the same properties, in the same slots, with the same attributes. That is
//! what lets an inline cache check a single shape id and then read a slot.
//!
//! Objects whose layout changes in ways a tree does not model well (deleting
//! a property, redefining attributes, many properties) switch to dictionary
//! mode: their shape becomes [`ShapeId::DICTIONARY`], which no cache accepts,
//! and their properties move to a per-object table.
//!
//! # Copies of a realm template
//!
//! A new VM copies the table of a realm built once per thread (`Vm::new`). Once built,
//! the template's shapes and roots move into storage its copies share
//! ([`ShapeTable::share`]), so a copy of the table costs the same however many shapes
//! the realm has. A copy keeps the shapes and roots it makes itself, and its own
//! transitions for a shared shape it adds one to (`grown`).
//!
//! # Invariants
//!
//! 1. Shape `i` is `shared.shapes[i]`, or else `shapes[i - shared.shapes.len()]`.
//! 2. The shared shapes are never changed: a transition added to a shared shape goes to
//!    `grown`, whose entry starts as a copy of the shared transitions; a key table built
//!    for a shared shape is frozen.

use super::{Attrs, PropertyKey};
use crate::heap::{ObjectId, SymbolId};
use rustc_hash::FxHashMap;
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

/// An index into the [`ShapeTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShapeId(pub u32);

impl ShapeId {
    /// The shape of every dictionary-mode object: never cached.
    pub const DICTIONARY: ShapeId = ShapeId(0);
}

/// Past this many properties an object goes to dictionary mode.
pub const MAX_SHAPED_PROPERTIES: u32 = 128;

/// Shapes this small are searched by walking the chain instead of a table.
const LINEAR_LOOKUP_LIMIT: u32 = 8;

#[derive(Clone)]
pub struct Shape {
    parent: Option<ShapeId>,
    /// the property this shape adds to its parent (absent for roots)
    key: Option<(PropertyKey, Attrs)>,
    /// number of properties, which is also the slot of the next one added
    pub len: u32,
    pub proto: Option<ObjectId>,
    transitions: Transitions,
    /// built on first lookup of a large shape, then shared along its chain (see
    /// [`KeyTable`])
    table: OnceCell<Rc<KeyTable>>,
}

/// The shapes and roots a realm template had when it was shared.
#[derive(Default)]
struct SharedShapes {
    shapes: Vec<Shape>,
    roots: FxHashMap<Option<ObjectId>, ShapeId>,
}

/// The shapes made from a shape by adding one property. Most shapes have at most one,
/// kept inline, so that building an object's chain allocates nothing per shape.
#[derive(Clone, Default)]
enum Transitions {
    #[default]
    None,
    One(Transition),
    Many(Vec<Transition>),
}

/// A transition: the key and attributes added, and the shape they lead to.
type Transition = (PropertyKey, Attrs, ShapeId);

impl Transitions {
    fn find(&self, key: PropertyKey, attrs: Attrs) -> Option<ShapeId> {
        let matches = |&&(k, a, _): &&Transition| k == key && a == attrs;
        match self {
            Transitions::None => None,
            Transitions::One(t) => Some(t).filter(matches).map(|t| t.2),
            Transitions::Many(all) => all.iter().find(matches).map(|t| t.2),
        }
    }

    fn push(&mut self, transition: Transition) {
        *self = match std::mem::take(self) {
            Transitions::None => Transitions::One(transition),
            Transitions::One(first) => Transitions::Many(vec![first, transition]),
            Transitions::Many(mut all) => {
                all.push(transition);
                Transitions::Many(all)
            }
        }
    }

    /// Bytes held outside the shape.
    fn owned_bytes(&self) -> usize {
        match self {
            Transitions::Many(all) => all.capacity() * size_of::<Transition>(),
            _ => 0,
        }
    }
}

/// The slots of the properties of a chain of shapes, shared by the shapes of the chain
/// from the one it was built for to the longest one (its tip): a shape reads the entries
/// below its own length. A child of the tip extends the table in place, so an object
/// built property by property (a prototype, a large literal) makes one table, not one
/// per shape; a child of any other shape copies the part below its parent's length.
/// A realm template's tables are never extended: its copies share them.
struct KeyTable {
    slots: RefCell<FxHashMap<PropertyKey, (u32, Attrs)>>,
    /// set when the table became part of a realm template
    frozen: Cell<bool>,
}

impl KeyTable {
    fn new(slots: FxHashMap<PropertyKey, (u32, Attrs)>) -> Rc<KeyTable> {
        Rc::new(KeyTable {
            slots: RefCell::new(slots),
            frozen: Cell::new(false),
        })
    }

    /// The slot and attributes of `key` in the shape of length `len`.
    fn get(&self, key: PropertyKey, len: u32) -> Option<(u32, Attrs)> {
        let found = self.slots.borrow().get(&key).copied();
        found.filter(|&(slot, _)| slot < len)
    }

    /// The table for a child of the shape of length `len` (in which the child adds
    /// `key` at slot `len`): this table extended, when that shape is its tip, or else a
    /// copy of that shape's part.
    fn for_child(self: &Rc<KeyTable>, len: u32, key: PropertyKey, attrs: Attrs) -> Rc<KeyTable> {
        let mut slots = self.slots.borrow_mut();
        if slots.len() == len as usize && !self.frozen.get() {
            slots.insert(key, (len, attrs));
            return Rc::clone(self);
        }
        let mut own: FxHashMap<_, _> = slots
            .iter()
            .filter(|&(_, &(slot, _))| slot < len)
            .map(|(&k, &v)| (k, v))
            .collect();
        own.insert(key, (len, attrs));
        KeyTable::new(own)
    }
}

pub struct ShapeTable {
    /// the template's shapes and roots (see the module documentation)
    shared: Rc<SharedShapes>,
    /// the shapes made since the table was shared (invariant 1)
    shapes: Vec<Shape>,
    /// the transitions of shared shapes that had one added since (invariant 2)
    grown: FxHashMap<ShapeId, Transitions>,
    /// the roots made since the table was shared
    roots: FxHashMap<Option<ObjectId>, ShapeId>,
    recent: RecentLookups,
}

/// Log2 of the number of entries in [`RecentLookups`].
const RECENT_LOOKUP_BITS: u32 = 9;

/// The answers of recent lookups. A shape never changes once made, so what a lookup found
/// (or did not) in it stays true: a repeated lookup costs one probe instead of a walk up
/// the chain or a table search, found or not. Direct-mapped; made on first use, and a
/// copied table starts without one.
#[derive(Default)]
struct RecentLookups(OnceCell<Box<[Cell<RecentLookup>]>>);

impl Clone for RecentLookups {
    fn clone(&self) -> Self {
        RecentLookups::default()
    }
}

#[derive(Clone, Copy)]
struct RecentLookup {
    shape: ShapeId,
    key: PropertyKey,
    found: Option<(u32, Attrs)>,
}

impl RecentLookups {
    fn entry(&self, id: ShapeId, key: PropertyKey) -> &Cell<RecentLookup> {
        let entries = self.0.get_or_init(|| {
            // the dictionary shape has no properties: a true answer for the empty entries
            let empty = RecentLookup {
                shape: ShapeId::DICTIONARY,
                key: PropertyKey::Index(0),
                found: None,
            };
            (0..1 << RECENT_LOOKUP_BITS)
                .map(|_| Cell::new(empty))
                .collect()
        });
        let key_bits = match key {
            PropertyKey::String(s) => s.0 as u64,
            PropertyKey::Symbol(s) => s.0 as u64 | 1 << 32,
            PropertyKey::Index(i) => i as u64 | 2 << 32,
        };
        let hash = (id.0 as u64 ^ key_bits.rotate_left(17)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &entries[(hash >> (64 - RECENT_LOOKUP_BITS)) as usize]
    }
}

impl Default for ShapeTable {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for ShapeTable {
    fn clone(&self) -> Self {
        ShapeTable {
            shared: Rc::clone(&self.shared),
            shapes: self.shapes.clone(),
            grown: self.grown.clone(),
            roots: self.roots.clone(),
            recent: self.recent.clone(),
        }
    }
}

impl ShapeTable {
    /// Bytes the table holds: every shape, its transitions and its lookup table once built
    /// (what it shares with a realm template counts as its own).
    pub fn owned_bytes(&self) -> usize {
        let lookup = size_of::<(PropertyKey, (u32, Attrs))>() + 1;
        let root = size_of::<(Option<ObjectId>, ShapeId)>() + 1;
        (self.shared.shapes.len() + self.shapes.capacity()) * size_of::<Shape>()
            + (self.shared.roots.capacity() + self.roots.capacity()) * root
            + (self.grown.values())
                .map(Transitions::owned_bytes)
                .sum::<usize>()
            + (self.shared.shapes.iter().chain(&self.shapes))
                .map(|s| {
                    s.transitions.owned_bytes()
                        // a shared table is counted once, at its tip
                        + s.table.get().map_or(0, |t| {
                            let slots = t.slots.borrow();
                            if slots.len() == s.len as usize {
                                slots.capacity() * lookup
                            } else {
                                0
                            }
                        })
                })
                .sum::<usize>()
    }

    pub fn new() -> Self {
        let dictionary = Shape {
            parent: None,
            key: None,
            len: 0,
            proto: None,
            transitions: Transitions::None,
            table: OnceCell::new(),
        };
        ShapeTable {
            shared: Rc::default(),
            shapes: vec![dictionary],
            grown: FxHashMap::default(),
            roots: FxHashMap::default(),
            recent: RecentLookups::default(),
        }
    }

    /// The transitions out of shape `id`, with those added to a shared shape (invariant 2).
    fn transitions_of(&self, id: ShapeId) -> &Transitions {
        if !self.grown.is_empty()
            && let Some(grown) = self.grown.get(&id)
        {
            return grown;
        }
        &self.get(id).transitions
    }

    /// Whether shape `id` is shared with a realm template.
    fn is_shared(&self, id: ShapeId) -> bool {
        (id.0 as usize) < self.shared.shapes.len()
    }

    /// The root shape for `proto`, if it was made.
    fn existing_root(&self, proto: Option<ObjectId>) -> Option<ShapeId> {
        let own = self.roots.get(&proto);
        own.or_else(|| self.shared.roots.get(&proto)).copied()
    }

    /// Shape `id` (invariant 1).
    #[inline(always)]
    pub fn get(&self, id: ShapeId) -> &Shape {
        let i = id.0 as usize;
        match self.shared.shapes.get(i) {
            Some(shape) => shape,
            None => &self.shapes[i - self.shared.shapes.len()],
        }
    }

    /// Make room for `shapes` shapes made since the table was shared.
    pub fn reserve(&mut self, shapes: usize) {
        self.shapes
            .reserve_exact(shapes.saturating_sub(self.shapes.len()));
    }

    /// The empty shape for objects whose prototype is `proto`.
    pub fn root(&mut self, proto: Option<ObjectId>) -> ShapeId {
        if let Some(id) = self.existing_root(proto) {
            return id;
        }
        let root = Shape {
            parent: None,
            key: None,
            len: 0,
            proto,
            transitions: Transitions::None,
            table: OnceCell::new(),
        };
        let id = self.push(root);
        self.roots.insert(proto, id);
        id
    }

    fn push(&mut self, shape: Shape) -> ShapeId {
        self.shapes.push(shape);
        ShapeId(self.count() as u32 - 1)
    }

    /// The shape that adds `key` with `attrs` to `from` (the new property's slot is `from.len`).
    pub fn add(&mut self, from: ShapeId, key: PropertyKey, attrs: Attrs) -> ShapeId {
        if let Some(to) = self.transitions_of(from).find(key, attrs) {
            return to;
        }
        let parent = self.get(from);
        // A shape grown from one with a table gets its table from the parent's: objects
        // built property by property (prototypes, large literals) look up each key
        // before adding it, and rebuilding every table from the chain is quadratic.
        let table = OnceCell::new();
        if let Some(parent_table) = parent.table.get() {
            let _ = table.set(parent_table.for_child(parent.len, key, attrs));
        }
        let shape = Shape {
            parent: Some(from),
            key: Some((key, attrs)),
            len: parent.len + 1,
            proto: parent.proto,
            transitions: Transitions::None,
            table,
        };
        let to = self.push(shape);
        let transition = (key, attrs, to);
        if self.is_shared(from) {
            let shared = &self.shared.shapes[from.0 as usize].transitions;
            (self.grown.entry(from))
                .or_insert_with(|| shared.clone())
                .push(transition);
        } else {
            let own = from.0 as usize - self.shared.shapes.len();
            self.shapes[own].transitions.push(transition);
        }
        to
    }

    /// The transitions out of `from`: each key and attributes added, and the shape made.
    /// A transition adds a key `from` does not have.
    pub fn transitions(&self, from: ShapeId) -> &[(PropertyKey, Attrs, ShapeId)] {
        match self.transitions_of(from) {
            Transitions::None => &[],
            Transitions::One(t) => std::slice::from_ref(t),
            Transitions::Many(all) => all,
        }
    }

    /// The shape of an object of shape `id` whose properties' attributes `change`
    /// rewrote (a reconfigured property, a sealed or frozen object): the same keys in
    /// the same slots. Made by replaying `id`'s chain from the first property whose
    /// attributes change, through the transitions, so objects with one history share it.
    pub fn with_attrs(
        &mut self,
        id: ShapeId,
        change: impl Fn(PropertyKey, Attrs) -> Attrs,
    ) -> ShapeId {
        let props = self.keys(id);
        let Some(first) = props.iter().position(|&(k, a)| change(k, a) != a) else {
            return id;
        };
        let mut shape = id;
        for _ in first..props.len() {
            shape = self
                .get(shape)
                .parent
                .expect("a shape with a property has a parent");
        }
        for &(key, attrs) in &props[first..] {
            shape = self.add(shape, key, change(key, attrs));
        }
        shape
    }

    /// Find `key` in shape `id`: its slot and attributes.
    pub fn lookup(&self, id: ShapeId, key: PropertyKey) -> Option<(u32, Attrs)> {
        let recent = self.recent.entry(id, key);
        let last = recent.get();
        if last.shape == id && last.key == key {
            return last.found;
        }
        let found = self.search(id, key);
        recent.set(RecentLookup {
            shape: id,
            key,
            found,
        });
        found
    }

    fn search(&self, id: ShapeId, key: PropertyKey) -> Option<(u32, Attrs)> {
        let shape = self.get(id);
        if shape.len <= LINEAR_LOOKUP_LIMIT {
            let mut cur = Some(id);
            while let Some(s) = cur {
                let shape = self.get(s);
                match shape.key {
                    Some((k, attrs)) if k == key => return Some((shape.len - 1, attrs)),
                    _ => cur = shape.parent,
                }
            }
            return None;
        }
        shape
            .table
            .get_or_init(|| {
                let table = KeyTable::new(
                    self.keys(id)
                        .into_iter()
                        .enumerate()
                        .map(|(i, (k, a))| (k, (i as u32, a)))
                        .collect(),
                );
                // a shared shape's table is shared too (invariant 2)
                table.frozen.set(self.is_shared(id));
                table
            })
            .get(key, shape.len)
    }

    /// The symbols that are the key of some shape. Shapes are never freed, so the
    /// collector keeps these alive as it keeps atoms: an object's symbol-keyed property
    /// must not end up under a new symbol that reused a freed one's slot.
    pub fn symbol_keys(&self) -> impl Iterator<Item = SymbolId> + '_ {
        let shapes = self.shared.shapes.iter().chain(&self.shapes);
        shapes.filter_map(|shape| match shape.key {
            Some((PropertyKey::Symbol(symbol), _)) => Some(symbol),
            _ => None,
        })
    }

    /// Every property of shape `id` in slot (= insertion) order.
    pub fn keys(&self, id: ShapeId) -> Vec<(PropertyKey, Attrs)> {
        let mut out: Vec<_> = self.chain(id).map(|(_, key, attrs)| (key, attrs)).collect();
        out.reverse();
        out
    }

    /// Every property of shape `id` as (slot, key, attributes), last added first.
    pub fn chain(&self, id: ShapeId) -> impl Iterator<Item = (u32, PropertyKey, Attrs)> + '_ {
        std::iter::successors(Some(id), |&s| self.get(s).parent).filter_map(|s| {
            let shape = self.get(s);
            shape.key.map(|(key, attrs)| (shape.len - 1, key, attrs))
        })
    }

    pub fn count(&self) -> usize {
        self.shared.shapes.len() + self.shapes.len()
    }

    /// Move every shape and root into storage that copies of this table share, and
    /// freeze its key tables (a realm template's table, once built).
    pub fn share(&mut self) {
        let mut shapes = self.shared.shapes.clone();
        for (id, transitions) in self.grown.drain() {
            shapes[id.0 as usize].transitions = transitions;
        }
        shapes.append(&mut self.shapes);
        for table in shapes.iter().filter_map(|s| s.table.get()) {
            table.frozen.set(true);
        }
        let mut roots = self.shared.roots.clone();
        roots.extend(self.roots.drain());
        self.shapes.shrink_to_fit();
        self.roots.shrink_to_fit();
        self.shared = Rc::new(SharedShapes { shapes, roots });
    }

    /// How shape `id` was made (for a snapshot); None for [`ShapeId::DICTIONARY`].
    pub fn origin(&self, id: ShapeId) -> Option<ShapeOrigin> {
        if id.0 as usize >= self.count() {
            return None;
        }
        let shape = self.get(id);
        match (shape.parent, shape.key) {
            (Some(parent), Some((key, attrs))) => Some(ShapeOrigin::Child(parent, key, attrs)),
            _ if id == ShapeId::DICTIONARY => None,
            _ => Some(ShapeOrigin::Root(shape.proto)),
        }
    }

    /// Make the shapes `origins` describe, in order, as the next ids of this table;
    /// false if they are inconsistent (a parent not made before its child, a repeat).
    pub fn extend(&mut self, origins: &[ShapeOrigin]) -> bool {
        for origin in origins {
            let expected = ShapeId(self.count() as u32);
            let made = match *origin {
                ShapeOrigin::Root(proto) => {
                    if self.existing_root(proto).is_some() {
                        return false;
                    }
                    self.root(proto)
                }
                ShapeOrigin::Child(parent, key, attrs) => {
                    if parent == ShapeId::DICTIONARY
                        || parent.0 >= expected.0
                        || self.get(parent).len >= MAX_SHAPE_LENGTH
                    {
                        return false;
                    }
                    self.add(parent, key, attrs)
                }
            };
            if made != expected {
                return false;
            }
        }
        true
    }
}

/// How a shape was made: the root for a prototype, or a parent plus one property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeOrigin {
    Root(Option<ObjectId>),
    Child(ShapeId, PropertyKey, Attrs),
}

/// No shape chain is longer than this (objects go to dictionary mode well before).
const MAX_SHAPE_LENGTH: u32 = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::StringId;

    #[test]
    fn transitions_are_shared_and_ordered() {
        let mut table = ShapeTable::new();
        let root = table.root(None);
        let (x, y) = (
            PropertyKey::String(StringId(1)),
            PropertyKey::String(StringId(2)),
        );
        let a = table.add(root, x, Attrs::DEFAULT);
        let b = table.add(a, y, Attrs::DEFAULT);
        assert_eq!(table.add(root, x, Attrs::DEFAULT), a);
        assert_eq!(table.lookup(b, x), Some((0, Attrs::DEFAULT)));
        assert_eq!(table.lookup(b, y), Some((1, Attrs::DEFAULT)));
        assert_eq!(table.lookup(a, y), None);
        assert_eq!(
            table.keys(b).iter().map(|k| k.0).collect::<Vec<_>>(),
            vec![x, y]
        );
    }

    #[test]
    fn a_chain_built_key_by_key_shares_one_table_and_branches_copy_theirs() {
        let mut table = ShapeTable::new();
        let root = table.root(None);
        let key = |i: u32| PropertyKey::Index(i);
        let mut chain = vec![root];
        for i in 0..20 {
            let tip = *chain.last().unwrap();
            assert_eq!(
                table.lookup(tip, key(i)),
                None,
                "looked up before it is added"
            );
            chain.push(table.add(tip, key(i), Attrs::DEFAULT));
        }
        let tip = *chain.last().unwrap();
        assert_eq!(table.lookup(tip, key(19)), Some((19, Attrs::DEFAULT)));
        let tables = |table: &ShapeTable, shapes: &[ShapeId]| {
            let mut seen: Vec<*const KeyTable> = shapes
                .iter()
                .filter_map(|&s| table.get(s).table.get().map(Rc::as_ptr))
                .collect();
            seen.dedup();
            seen.len()
        };
        assert_eq!(tables(&table, &chain), 1);
        // a branch below the tip copies the part below its parent's length
        let middle = chain[12];
        let branch = table.add(middle, key(100), Attrs::HIDDEN);
        assert_eq!(tables(&table, &[middle, branch]), 2);
        assert_eq!(table.lookup(branch, key(100)), Some((12, Attrs::HIDDEN)));
        assert_eq!(table.lookup(branch, key(11)), Some((11, Attrs::DEFAULT)));
        assert_eq!(table.lookup(branch, key(12)), None);
        // every shape of the chain still sees exactly its own keys
        for (len, &shape) in chain.iter().enumerate() {
            for i in 0..20 {
                let expected = (i < len as u32).then_some((i, Attrs::DEFAULT));
                assert_eq!(table.lookup(shape, key(i)), expected);
            }
            assert_eq!(table.lookup(shape, key(100)), None);
        }
        // a template's tables are not extended by its copies
        table.share();
        let mut copy = table.clone();
        let extended = copy.add(tip, key(200), Attrs::DEFAULT);
        assert_eq!(copy.lookup(extended, key(200)), Some((20, Attrs::DEFAULT)));
        assert_eq!(tables(&copy, &[tip, extended]), 2);
        assert_eq!(table.lookup(tip, key(200)), None);
    }

    #[test]
    fn large_shapes_use_a_table() {
        let mut table = ShapeTable::new();
        let mut s = table.root(Some(ObjectId(3)));
        for i in 0..50 {
            s = table.add(s, PropertyKey::Index(i), Attrs::DEFAULT);
        }
        assert_eq!(
            table.lookup(s, PropertyKey::Index(37)),
            Some((37, Attrs::DEFAULT))
        );
        assert_eq!(table.get(s).proto, Some(ObjectId(3)));
    }
}
