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

use super::{Attrs, CowVec, PropertyKey};
use crate::heap::{ObjectId, SymbolId};
use rustc_hash::FxHashMap;
use std::cell::{Cell, OnceCell};
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
    /// shared with the realm template the table was copied from until one is added
    transitions: CowVec<(PropertyKey, Attrs, ShapeId)>,
    /// built on first lookup of a large shape; shared by copies of the table, never
    /// changed once built
    table: OnceCell<Rc<FxHashMap<PropertyKey, (u32, Attrs)>>>,
}

#[derive(Clone)]
pub struct ShapeTable {
    shapes: Vec<Shape>,
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

impl ShapeTable {
    /// Bytes the table holds: every shape, its transitions and its lookup table once built.
    pub fn owned_bytes(&self) -> usize {
        let entry = size_of::<(PropertyKey, Attrs, ShapeId)>();
        let lookup = size_of::<(PropertyKey, (u32, Attrs))>() + 1;
        self.shapes.capacity() * size_of::<Shape>()
            + self.roots.capacity() * (size_of::<(Option<ObjectId>, ShapeId)>() + 1)
            + self
                .shapes
                .iter()
                .map(|s| {
                    s.transitions.capacity() * entry
                        + s.table.get().map_or(0, |t| t.capacity() * lookup)
                })
                .sum::<usize>()
    }

    pub fn new() -> Self {
        let dictionary = Shape {
            parent: None,
            key: None,
            len: 0,
            proto: None,
            transitions: CowVec::new(),
            table: OnceCell::new(),
        };
        ShapeTable {
            shapes: vec![dictionary],
            roots: FxHashMap::default(),
            recent: RecentLookups::default(),
        }
    }

    #[inline(always)]
    pub fn get(&self, id: ShapeId) -> &Shape {
        &self.shapes[id.0 as usize]
    }

    /// The empty shape for objects whose prototype is `proto`.
    pub fn root(&mut self, proto: Option<ObjectId>) -> ShapeId {
        if let Some(&id) = self.roots.get(&proto) {
            return id;
        }
        let id = self.push(Shape {
            parent: None,
            key: None,
            len: 0,
            proto,
            transitions: CowVec::new(),
            table: OnceCell::new(),
        });
        self.roots.insert(proto, id);
        id
    }

    fn push(&mut self, shape: Shape) -> ShapeId {
        self.shapes.push(shape);
        ShapeId(self.shapes.len() as u32 - 1)
    }

    /// The shape that adds `key` with `attrs` to `from` (the new property's slot is `from.len`).
    pub fn add(&mut self, from: ShapeId, key: PropertyKey, attrs: Attrs) -> ShapeId {
        let parent = &self.shapes[from.0 as usize];
        if let Some(&(_, _, to)) = parent
            .transitions
            .iter()
            .find(|(k, a, _)| *k == key && *a == attrs)
        {
            return to;
        }
        // A shape grown from one with a table gets its table by copying the parent's:
        // objects built property by property (prototypes, large literals) look up each
        // key before adding it, and rebuilding every table from the chain is quadratic.
        let table = OnceCell::new();
        if let Some(parent_table) = parent.table.get() {
            let mut t = FxHashMap::clone(parent_table);
            t.insert(key, (parent.len, attrs));
            let _ = table.set(Rc::new(t));
        }
        let shape = Shape {
            parent: Some(from),
            key: Some((key, attrs)),
            len: parent.len + 1,
            proto: parent.proto,
            transitions: CowVec::new(),
            table,
        };
        let to = self.push(shape);
        self.shapes[from.0 as usize]
            .transitions
            .push((key, attrs, to));
        to
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
                Rc::new(
                    self.keys(id)
                        .into_iter()
                        .enumerate()
                        .map(|(i, (k, a))| (k, (i as u32, a)))
                        .collect(),
                )
            })
            .get(&key)
            .copied()
    }

    /// The symbols that are the key of some shape. Shapes are never freed, so the
    /// collector keeps these alive as it keeps atoms: an object's symbol-keyed property
    /// must not end up under a new symbol that reused a freed one's slot.
    pub fn symbol_keys(&self) -> impl Iterator<Item = SymbolId> + '_ {
        self.shapes.iter().filter_map(|shape| match shape.key {
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
        self.shapes.len()
    }

    /// Move every shape's transitions into blocks that copies of this table share (a
    /// realm template's table, once built).
    pub fn share(&mut self) {
        for shape in &mut self.shapes {
            shape.transitions.share();
        }
    }

    /// How shape `id` was made (for a snapshot); None for [`ShapeId::DICTIONARY`].
    pub fn origin(&self, id: ShapeId) -> Option<ShapeOrigin> {
        let shape = self.shapes.get(id.0 as usize)?;
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
            let expected = ShapeId(self.shapes.len() as u32);
            let made = match *origin {
                ShapeOrigin::Root(proto) => {
                    if self.roots.contains_key(&proto) {
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
