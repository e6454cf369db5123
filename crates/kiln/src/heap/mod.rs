//! The garbage-collected heap: one arena per kind of cell, addressed by 32-bit
//! indices, with a precise mark-and-sweep collector.
//!
//! # Design
//!
//! Every JavaScript-visible cell (object, string, symbol, BigInt) and every
//! captured-variable environment lives in a typed arena owned by [`Heap`]. A
//! [`crate::Value`] carries the arena index, never a pointer, so the heap can
//! be walked whole (for snapshots) and needs no `unsafe`. Freed entries are
//! reset to a cheap placeholder and their index goes on a free list.
//!
//! # Invariants
//!
//! 1. An id held anywhere reachable from a root refers to a live entry.
//! 2. Collection runs only at interpreter safe points (see
//!    `interpreter::Vm::collect_garbage`); native code that holds a value
//!    across a call back into JavaScript keeps it on the VM's root stack.
//! 3. `bytes` is the sum of the estimated sizes of live entries, the arenas' spare
//!    slots, the shape and atom tables and the VM's own storage (`external`), plus what
//!    was allocated since the last collection; it is what the byte budget limits.
//!
//! The `gc-stress` feature ([`stress`]) checks invariants 1 and 2 as the engine runs:
//! it collects at every safe point after an allocation and makes any use of a freed
//! cell panic.

#[cfg(feature = "gc-stress")]
pub mod stress;
pub mod string;

use crate::object::shape::ShapeTable;
use crate::object::{Object, ObjectKind, Slots};
use crate::value::{Kind, Value};
use num_bigint::BigInt;
use std::mem::size_of;
use string::{AtomTable, JsStr, MIN_SLICE_LEN, StrData, Units};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
    };
}
id_type!(/// An object in [`Heap::objects`].
    ObjectId);
id_type!(/// A string in [`Heap::strings`].
    StringId);
id_type!(/// A symbol in [`Heap::symbols`].
    SymbolId);
id_type!(/// A BigInt in [`Heap::bigints`].
    BigIntId);
id_type!(/// A captured-variable environment in [`Heap::envs`].
    EnvId);

/// The bytes of every [`HeldBytes`] of a heap alive now. A copy of a heap starts at zero:
/// what is held belongs to the heap it was held in.
#[derive(Debug, Default)]
struct HeldCounter(std::rc::Rc<std::cell::Cell<usize>>);

impl Clone for HeldCounter {
    fn clone(&self) -> Self {
        HeldCounter::default()
    }
}

/// Bytes of a native buffer that stay counted against the heap limit across
/// collections, until dropped ([`Heap::hold_bytes`]).
#[derive(Debug)]
pub struct HeldBytes {
    counter: std::rc::Rc<std::cell::Cell<usize>>,
    bytes: usize,
}

impl HeldBytes {
    /// The buffer now holds `bytes`: count the difference (the heap's byte count moves
    /// now, and every later collection includes it).
    pub fn set(&mut self, heap: &mut Heap, bytes: usize) {
        self.counter.set(self.counter.get() - self.bytes + bytes);
        heap.bytes = (heap.bytes + bytes).saturating_sub(self.bytes);
        self.bytes = bytes;
    }
}

impl Drop for HeldBytes {
    fn drop(&mut self) {
        self.counter.set(self.counter.get() - self.bytes);
    }
}

/// A symbol: its description and whether it is a class private name.
#[derive(Clone, Debug, Default)]
pub struct Symbol {
    pub description: Option<StringId>,
    /// private names (`#x`) are symbols hidden from every reflective operation
    pub is_private: bool,
    /// for `Symbol.for`: the registry key
    pub registered: bool,
}

/// A heap environment holding the captured variables of one scope. Most scopes capture
/// a few variables, which live in the environment itself: making one allocates nothing
/// beyond its arena entry.
#[derive(Clone, Debug, Default)]
pub struct Env {
    pub parent: Option<EnvId>,
    pub slots: Slots,
}

impl Env {
    /// Bytes the environment accounts for, its arena entry and any vector it holds.
    fn size(&self) -> usize {
        size_of::<Env>() + self.slots.heap_bytes()
    }
}

/// What can live in an [`Arena`]: a cell with a cheap placeholder for free slots.
pub trait Cell: Default {
    /// Called with every write access ([`Arena::get_mut`]): a cell that keeps a flag of
    /// being unchanged since it was copied clears it here.
    #[inline(always)]
    fn note_write(&mut self) {}

    /// Whether this cell, a copy of `original` made by cloning it, is certainly still
    /// equal to it: the same fields, and storage still shared with it or held in place
    /// (so that no reader, and no byte count, can tell the two apart). False when unsure:
    /// [`Arena::reset_to`] then copies the cell again.
    fn unchanged_from(&self, original: &Self) -> bool;

    /// What the cell is, for reports of stale ids (`String` for a String wrapper object).
    #[cfg(feature = "gc-stress")]
    fn describe(&self) -> String {
        String::new()
    }
}

/// A typed arena with a free list and mark bits.
pub struct Arena<T> {
    items: Vec<T>,
    live: Vec<bool>,
    marks: Vec<bool>,
    free: Vec<u32>,
    /// entries marked by the collection under way, so that the sweep sizes `free` once
    marked: usize,
    /// how many entries this arena copied from the arena it was cloned from (0 if it was
    /// not cloned)
    copied: usize,
    #[cfg(feature = "gc-stress")]
    poison: stress::Poison,
}

/// A copy keeps the arena's spare capacity (a derived clone would not): a realm
/// template's arenas are given room ([`Heap::share_storage`]) so that a copy's first
/// allocations do not move the whole arena, and the copy's byte count, taken from the
/// template's, counts that room. The copy records how many entries it copied, so that
/// [`Arena::reset_to`] can make it a copy again.
impl<T: Clone> Clone for Arena<T> {
    fn clone(&self) -> Self {
        Arena {
            items: clone_with_capacity(&self.items),
            live: clone_with_capacity(&self.live),
            marks: clone_with_capacity(&self.marks),
            free: clone_with_capacity(&self.free),
            marked: self.marked,
            copied: self.items.len(),
            #[cfg(feature = "gc-stress")]
            poison: self.poison.clone(),
        }
    }
}

/// A copy of `v` with `v`'s capacity.
fn clone_with_capacity<T: Clone>(v: &Vec<T>) -> Vec<T> {
    let mut copy = Vec::with_capacity(v.capacity());
    copy.extend_from_slice(v);
    copy
}

/// Grow or shrink `v`'s capacity to `capacity` (at least its length).
pub(crate) fn set_capacity<T>(v: &mut Vec<T>, capacity: usize) {
    if v.capacity() < capacity {
        v.reserve_exact(capacity - v.len());
    } else {
        v.shrink_to(capacity);
    }
}

/// The room a realm template's arenas keep past their cells, as a fraction of them
/// (1/8, at least 64): what registering capabilities and a short script allocate.
pub(crate) fn headroom(len: usize) -> usize {
    len / 8 + 64
}

impl<T: Cell> Arena<T> {
    /// Make the capacity exactly the cells plus [`headroom`].
    fn keep_headroom(&mut self) {
        let capacity = self.items.len() + headroom(self.items.len());
        set_capacity(&mut self.items, capacity);
        set_capacity(&mut self.live, capacity);
        set_capacity(&mut self.marks, capacity);
        self.free.shrink_to_fit();
    }

    fn new() -> Self {
        Arena {
            items: Vec::new(),
            live: Vec::new(),
            marks: Vec::new(),
            free: Vec::new(),
            marked: 0,
            copied: 0,
            #[cfg(feature = "gc-stress")]
            poison: stress::Poison::new::<T>(),
        }
    }

    /// Store `item`, which accounts for `size` bytes with its slot. The slot is counted in
    /// `bytes` already, as a spare one or among those the arena grows by now, so `bytes`
    /// gains the rest of `size` and the slots' new storage; `filled` gains the slot.
    #[inline]
    fn alloc(&mut self, item: T, size: usize, bytes: &mut usize, filled: &mut usize) -> u32 {
        #[cfg(feature = "gc-stress")]
        self.poison.note_alloc();
        *bytes += size - size_of::<T>();
        *filled += size_of::<T>();
        if let Some(i) = self.free.pop() {
            self.items[i as usize] = item;
            self.live[i as usize] = true;
            i
        } else {
            if self.items.len() == self.items.capacity() {
                self.grow(bytes);
            }
            self.items.push(item);
            self.live.push(true);
            self.marks.push(false);
            (self.items.len() - 1) as u32
        }
    }

    /// Make room for `cells` slots in all (not fewer than it has), adding the new storage
    /// to `bytes` as [`Arena::grow`] does.
    fn reserve_cells(&mut self, cells: usize, bytes: &mut usize) {
        if cells <= self.items.capacity() {
            return;
        }
        let storage = self.storage_bytes();
        self.items.reserve_exact(cells - self.items.len());
        let capacity = self.items.capacity();
        set_capacity(&mut self.live, capacity);
        set_capacity(&mut self.marks, capacity);
        *bytes += self.storage_bytes() - storage;
    }

    /// Make room for more slots, adding their storage to `bytes`.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, bytes: &mut usize) {
        let storage = self.storage_bytes();
        self.items.reserve(1);
        let capacity = self.items.capacity();
        set_capacity(&mut self.live, capacity);
        set_capacity(&mut self.marks, capacity);
        *bytes += self.storage_bytes() - storage;
    }

    /// The slots' storage and their live and mark bits.
    fn storage_bytes(&self) -> usize {
        self.items.capacity() * size_of::<T>() + self.live.capacity() + self.marks.capacity()
    }

    /// Bytes the arena holds beyond its live entries' own sizes: free and spare slots,
    /// the live and mark bits, the free list.
    fn spare_bytes(&self) -> usize {
        (self.items.capacity() - self.live_count()) * size_of::<T>()
            + self.live.capacity()
            + self.marks.capacity()
            + self.free.capacity() * size_of::<u32>()
    }

    #[inline(always)]
    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn get(&self, i: u32) -> &T {
        #[cfg(feature = "gc-stress")]
        self.poison.check(i, &self.live, "read of");
        &self.items[i as usize]
    }

    #[inline(always)]
    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn get_mut(&mut self, i: u32) -> &mut T {
        #[cfg(feature = "gc-stress")]
        self.poison.check(i, &self.live, "write to");
        let item = &mut self.items[i as usize];
        item.note_write();
        item
    }

    /// Set the mark bit; true if it was clear (the entry needs tracing).
    #[inline]
    #[cfg_attr(feature = "gc-stress", track_caller)]
    fn mark(&mut self, i: u32) -> bool {
        #[cfg(feature = "gc-stress")]
        self.poison.check(i, &self.live, "marking reached");
        let newly = !std::mem::replace(&mut self.marks[i as usize], true);
        self.marked += newly as usize;
        newly
    }

    /// Free every live, unmarked entry; clear all marks. Returns the live entries' total size.
    fn sweep(&mut self, size: impl Fn(&T) -> usize) -> usize {
        let mut live_bytes = 0;
        // The free list grows by what this sweep frees, at once: grown entry by entry, it
        // moved several times, each time among the allocator's fresh frees, which made
        // glibc consolidate them (2.6 % of lodash's time).
        let freed = self.live_count().saturating_sub(self.marked);
        self.marked = 0;
        self.free.reserve(freed);
        #[cfg(feature = "gc-stress")]
        self.poison.start_sweep();
        for i in 0..self.items.len() {
            if !self.live[i] {
                continue;
            }
            if self.marks[i] {
                self.marks[i] = false;
                live_bytes += size(&self.items[i]);
            } else {
                #[cfg(feature = "gc-stress")]
                let what = self.items[i].describe();
                self.items[i] = T::default();
                self.live[i] = false;
                #[cfg(not(feature = "gc-stress"))]
                self.free.push(i as u32);
                #[cfg(feature = "gc-stress")]
                self.poison.freed(i as u32, what, &mut self.free);
            }
        }
        live_bytes
    }

    /// Every slot in index order, None for a free one.
    pub fn slots(&self) -> impl ExactSizeIterator<Item = Option<&T>> + '_ {
        self.items
            .iter()
            .zip(&self.live)
            .map(|(item, &live)| live.then_some(item))
    }

    /// An arena holding exactly these slots (None for a free one).
    pub(crate) fn from_slots(slots: Vec<Option<T>>) -> Self {
        let mut arena = Arena::new();
        for (i, slot) in slots.into_iter().enumerate() {
            arena.live.push(slot.is_some());
            arena.marks.push(false);
            if slot.is_none() {
                arena.free.push(i as u32);
            }
            arena.items.push(slot.unwrap_or_default());
        }
        // allocate from the lowest free index first, as a fresh arena would
        arena.free.reverse();
        arena
    }

    /// Whether `i` is a live entry.
    pub fn is_live(&self, i: u32) -> bool {
        self.live.get(i as usize).copied().unwrap_or(false)
    }

    pub fn live_count(&self) -> usize {
        let free = self.free.len();
        #[cfg(feature = "gc-stress")]
        let free = free + self.poison.quarantined();
        self.items.len() - free
    }

    /// Indices of live entries (for walking the heap whole).
    pub fn live_indices(&self) -> impl Iterator<Item = u32> + '_ {
        self.live
            .iter()
            .enumerate()
            .filter(|(_, l)| **l)
            .map(|(i, _)| i as u32)
    }
}

impl<T: Cell + Clone> Arena<T> {
    /// Whether this arena is a copy ([`Clone`]) of an arena as long as `template`.
    fn is_copy_of(&self, template: &Arena<T>) -> bool {
        self.copied == template.items.len() && self.items.len() >= self.copied
    }

    /// Make this copy of `template` ([`Arena::is_copy_of`]) equal to a new copy of it
    /// again, with the same capacity: the entries made since go, and each copied entry
    /// that is not certainly unchanged ([`Cell::unchanged_from`]) is copied again. Finding
    /// what changed here, rather than recording writes as they happen, keeps every write
    /// free of bookkeeping; a copy that changed few entries costs a comparison per entry
    /// and few clones.
    fn reset_to(&mut self, template: &Arena<T>) {
        debug_assert!(self.is_copy_of(template));
        self.items.truncate(template.items.len());
        for (item, original) in self.items.iter_mut().zip(&template.items) {
            if !item.unchanged_from(original) {
                item.clone_from(original);
            }
        }
        set_capacity(&mut self.items, template.items.capacity());
        for (bits, original) in [
            (&mut self.live, &template.live),
            (&mut self.marks, &template.marks),
        ] {
            bits.clear();
            bits.extend_from_slice(original);
            set_capacity(bits, original.capacity());
        }
        self.free.clear();
        self.free.extend_from_slice(&template.free);
        set_capacity(&mut self.free, template.free.capacity());
        self.marked = template.marked;
        #[cfg(feature = "gc-stress")]
        {
            self.poison = template.poison.clone();
        }
    }
}

/// Every cell of a heap, as a snapshot restores them.
pub(crate) struct RestoredCells {
    pub strings: Arena<JsStr>,
    pub symbols: Arena<Symbol>,
    pub bigints: Arena<BigInt>,
    pub envs: Arena<Env>,
}

/// Heap-wide statistics for budgets and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct HeapStats {
    pub bytes: usize,
    pub collections: usize,
    pub objects: usize,
    pub strings: usize,
}

/// What a realm's intrinsics take ([`Heap::reserve_realm`]): the capacity each table would
/// reach by doubling while they are made, so that reserving it at once changes no
/// count. A test checks that a fresh realm fits (`a_realm_fits_the_room_reserved_for_it`).
pub(crate) struct RealmRoom {
    pub objects: usize,
    pub strings: usize,
    pub shapes: usize,
    pub atoms: usize,
}

pub(crate) const REALM_ROOM: RealmRoom = RealmRoom {
    objects: 1024,
    strings: 1024,
    shapes: 1024,
    atoms: 640,
};

/// Collect once this many bytes were allocated since the last collection, at least.
const MIN_GC_THRESHOLD: usize = 8 << 20;

/// A cycle allocates at least this many bytes, however little the heap holds.
const MIN_GC_ALLOWANCE: usize = 4 << 20;

/// Concatenations at most this long are copied at once instead of made ropes.
const SHORT_CONCAT: usize = 24;

#[derive(Clone)]
pub struct Heap {
    pub objects: Arena<Object>,
    pub strings: Arena<JsStr>,
    pub symbols: Arena<Symbol>,
    pub bigints: Arena<BigInt>,
    pub envs: Arena<Env>,
    pub shapes: ShapeTable,
    /// the atom `"length"`, which arrays and strings answer virtually
    pub length_atom: StringId,
    /// the atoms of one Latin-1 code unit, made on first use: `s[i]`, a one-character
    /// match or slice, and the property keys they become share one string each
    pub single_unit_strings: Box<[Option<StringId>; 256]>,
    /// bumped whenever an object used as a prototype changes layout; prototype-chain
    /// inline caches record it and miss once it moves
    pub proto_epoch: u32,
    atoms: AtomTable,
    /// bytes of live entries and spare slots at the last collection plus allocations
    /// since: a new cell's slot is counted once, as the spare slot it fills
    bytes: usize,
    /// bytes of the arena slots filled since the last collection: with `bytes`, the
    /// volume allocated that paces collections, whether or not it grew the arenas
    filled: usize,
    /// bytes the VM holds outside the heap (value stack, frames, job queue, loaded code),
    /// as it last reported them ([`Heap::set_external`]); part of `bytes`
    external: usize,
    /// bytes native code holds in buffers across calls into JavaScript ([`HeldBytes`]);
    /// part of `bytes`, also after a collection
    held: HeldCounter,
    /// collect when `bytes + filled` passes this (the heap grew by what it holds)
    next_gc: usize,
    /// collect when `bytes` passes this (half the room left under the limit is taken)
    next_gc_for_room: usize,
    /// the VM's heap limit, as last given to [`Heap::limit_next_collection`]: storage the
    /// heap sizes ahead of need (holey arrays) is sized within it
    limit: usize,
    /// bytes of string storage written or copied (new strings, flattened ropes, copies
    /// of a string's units) that the VM has not yet charged as fuel ([`Heap::take_work`])
    work: usize,
    collections: usize,
    gray: Vec<Value>,
    gray_envs: Vec<EnvId>,
    /// weak collections, WeakRefs and FinalizationRegistries reached during the current
    /// collection
    weak_holders: Vec<ObjectId>,
    /// (cleanup callback, held value) of registry cells whose target the last collection
    /// freed; the VM turns them into cleanup jobs
    pub finalized: Vec<(Value, Value)>,
    /// when the stress mode collects next
    #[cfg(feature = "gc-stress")]
    stress: stress::Trigger,
    /// which heap this one is, and which it is a copy of ([`Heap::reset_to`])
    lineage: Lineage,
}

/// A heap's identity and the identity of the heap it was cloned from (0: none). A clone
/// gets no identity of its own: only a realm template, which copies are made from, is
/// given one ([`Heap::share_storage`]).
#[derive(Debug, Default)]
struct Lineage {
    id: u64,
    copy_of: u64,
}

impl Clone for Lineage {
    fn clone(&self) -> Self {
        Lineage {
            id: 0,
            copy_of: self.id,
        }
    }
}

impl Lineage {
    /// A new identity, never given before in this process.
    fn new_id() -> u64 {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
}

impl Default for Heap {
    fn default() -> Self {
        Self::new()
    }
}

impl Heap {
    pub fn new() -> Self {
        let mut heap = Heap {
            objects: Arena::new(),
            strings: Arena::new(),
            symbols: Arena::new(),
            bigints: Arena::new(),
            envs: Arena::new(),
            shapes: ShapeTable::new(),
            length_atom: StringId(0),
            single_unit_strings: Box::new([None; 256]),
            proto_epoch: 0,
            atoms: AtomTable::default(),
            bytes: 0,
            external: 0,
            held: HeldCounter::default(),
            filled: 0,
            next_gc: MIN_GC_THRESHOLD,
            next_gc_for_room: usize::MAX,
            limit: usize::MAX,
            work: 0,
            collections: 0,
            gray: Vec::new(),
            gray_envs: Vec::new(),
            weak_holders: Vec::new(),
            finalized: Vec::new(),
            #[cfg(feature = "gc-stress")]
            stress: stress::Trigger::new(),
            lineage: Lineage::default(),
        };
        heap.length_atom = heap.intern_static("length");
        heap
    }

    /// Make room for a realm's intrinsics ([`REALM_ROOM`]) in one step each, instead of
    /// the dozens of copies growing by doubling makes while built-ins are created.
    pub(crate) fn reserve_realm(&mut self) {
        let room = REALM_ROOM;
        self.objects.reserve_cells(room.objects, &mut self.bytes);
        self.strings.reserve_cells(room.strings, &mut self.bytes);
        self.shapes.reserve(room.shapes);
        self.bytes += self.atoms.reserve(room.atoms);
    }

    /// Take every cell out of the heap (a fresh one, which a snapshot then restores into).
    pub(crate) fn take_cells(&mut self) -> (RestoredCells, Arena<Object>) {
        self.lineage = Lineage::default();
        let cells = RestoredCells {
            strings: std::mem::replace(&mut self.strings, Arena::new()),
            symbols: std::mem::replace(&mut self.symbols, Arena::new()),
            bigints: std::mem::replace(&mut self.bigints, Arena::new()),
            envs: std::mem::replace(&mut self.envs, Arena::new()),
        };
        (cells, std::mem::replace(&mut self.objects, Arena::new()))
    }

    /// Replace the strings, symbols, BigInts, environments and shapes (restoring a
    /// snapshot; objects follow, then [`Heap::recount`]); the atom table is computed
    /// again. Fails if two atoms have the same contents.
    pub(crate) fn restore(
        &mut self,
        cells: RestoredCells,
        shapes: ShapeTable,
    ) -> Result<(), &'static str> {
        self.lineage = Lineage::default();
        self.strings = cells.strings;
        self.symbols = cells.symbols;
        self.bigints = cells.bigints;
        self.envs = cells.envs;
        self.shapes = shapes;
        self.proto_epoch = self.proto_epoch.wrapping_add(1);
        self.atoms = AtomTable::default();
        let atoms: Vec<StringId> = self
            .strings
            .live_indices()
            .filter(|&i| self.strings.get(i).is_atom)
            .map(StringId)
            .collect();
        for id in atoms {
            let units = self.flat_units(id);
            let hash = units.content_hash();
            if self
                .atoms
                .bucket(hash)
                .any(|other| self.flat_units(other).eq_units(units))
            {
                return Err("two atoms have the same contents");
            }
            self.bytes += self.atoms.insert(hash, id);
        }
        Ok(())
    }

    /// Move every object's and environment's slots, every flat string's units and the
    /// shape table's shapes into storage that copies of this heap share. A realm template does this once built:
    /// cloning it then allocates per arena and table, not per cell. The byte count stays
    /// as it was (shared storage has no spare room, so it may count a little more than
    /// the cells hold until the next collection counts them again).
    ///
    /// The arenas are also given a fixed room past their cells (copies keep it): without
    /// it, a copy's first allocation moved each arena it touched whole, several times
    /// the cost of the allocations themselves. The byte count moves with the room.
    pub fn share_storage(&mut self) {
        self.lineage.id = Lineage::new_id();
        for object in &mut self.objects.items {
            object.slots.share();
            object.pristine_copy = true;
        }
        for env in &mut self.envs.items {
            env.slots.share();
        }
        for string in &mut self.strings.items {
            string.share();
        }
        self.shapes.share();
        let before = self.overhead_bytes();
        self.objects.keep_headroom();
        self.strings.keep_headroom();
        self.symbols.keep_headroom();
        self.bigints.keep_headroom();
        self.envs.keep_headroom();
        self.bytes = (self.bytes + self.overhead_bytes()).saturating_sub(before);
    }

    /// Make this copy of `template` ([`Clone`], after [`Heap::share_storage`]) what a new
    /// copy of it would be, reusing its arenas: the cells made since are dropped, the
    /// template's cells that were written to since are copied again, and every other
    /// field is copied from the template as a clone copies it. Cheaper than dropping
    /// this heap and cloning the template when little of the template was written to.
    /// False, with nothing changed, if this heap is not a copy of `template` (a heap
    /// built in place, a snapshot restored into it, a copy of another template).
    pub fn reset_to(&mut self, template: &Heap) -> bool {
        let arenas_match = self.objects.is_copy_of(&template.objects)
            && self.strings.is_copy_of(&template.strings)
            && self.symbols.is_copy_of(&template.symbols)
            && self.bigints.is_copy_of(&template.bigints)
            && self.envs.is_copy_of(&template.envs);
        if template.lineage.id == 0 || self.lineage.copy_of != template.lineage.id || !arenas_match
        {
            return false;
        }
        let mut arenas = (
            std::mem::replace(&mut self.objects, Arena::new()),
            std::mem::replace(&mut self.strings, Arena::new()),
            std::mem::replace(&mut self.symbols, Arena::new()),
            std::mem::replace(&mut self.bigints, Arena::new()),
            std::mem::replace(&mut self.envs, Arena::new()),
        );
        arenas.0.reset_to(&template.objects);
        arenas.1.reset_to(&template.strings);
        arenas.2.reset_to(&template.symbols);
        arenas.3.reset_to(&template.bigints);
        arenas.4.reset_to(&template.envs);
        // Every field named, so that a field added later must be decided here too.
        *self = Heap {
            objects: arenas.0,
            strings: arenas.1,
            symbols: arenas.2,
            bigints: arenas.3,
            envs: arenas.4,
            shapes: template.shapes.clone(),
            length_atom: template.length_atom,
            single_unit_strings: template.single_unit_strings.clone(),
            proto_epoch: template.proto_epoch,
            atoms: template.atoms.clone(),
            bytes: template.bytes,
            filled: template.filled,
            external: template.external,
            held: template.held.clone(),
            next_gc: template.next_gc,
            next_gc_for_room: template.next_gc_for_room,
            limit: template.limit,
            work: template.work,
            collections: template.collections,
            gray: template.gray.clone(),
            gray_envs: template.gray_envs.clone(),
            weak_holders: template.weak_holders.clone(),
            finalized: template.finalized.clone(),
            #[cfg(feature = "gc-stress")]
            stress: template.stress.clone(),
            lineage: template.lineage.clone(),
        };
        true
    }

    /// Count the bytes of every live cell again (after a restore).
    pub(crate) fn recount(&mut self) {
        self.bytes = self
            .objects
            .slots()
            .flatten()
            .map(object_size)
            .sum::<usize>()
            + self
                .strings
                .slots()
                .flatten()
                .map(|s| size_of::<JsStr>() + s.payload_bytes())
                .sum::<usize>()
            + self.symbols.live_count() * size_of::<Symbol>()
            + self
                .bigints
                .slots()
                .flatten()
                .map(bigint_size)
                .sum::<usize>()
            + self.envs.slots().flatten().map(Env::size).sum::<usize>()
            + self.overhead_bytes()
            + self.external
            + self.held.0.get();
        self.schedule_collection();
    }

    /// Collect next once as many bytes were allocated as the heap holds, not counting
    /// the arenas' free and spare slots, or once half the room under the limit is taken.
    /// Spare slots are counted against the limit, but an allowance in proportion to them
    /// would let each cycle's garbage, which grows the arenas, raise the next cycle's
    /// allowance: a program with a small live set grew its arenas to the number of
    /// objects made between two collections, several times its live set. The allowance
    /// is never below `MIN_GC_ALLOWANCE`: with a small live set, every collection traces
    /// the realm and sweeps the whole arenas, which a cycle of a few hundred kilobytes
    /// (a closure-heavy loop collected 290 times) repeats far more often than it frees.
    fn schedule_collection(&mut self) {
        let held = self.bytes.saturating_sub(self.arenas_spare_bytes());
        self.filled = 0;
        self.next_gc = self
            .bytes
            .saturating_add(held.max(MIN_GC_ALLOWANCE))
            .max(MIN_GC_THRESHOLD);
        self.limit_next_collection(self.limit);
    }

    /// The arenas' free and spare slots and their bookkeeping.
    fn arenas_spare_bytes(&self) -> usize {
        self.objects.spare_bytes()
            + self.strings.spare_bytes()
            + self.symbols.spare_bytes()
            + self.bigints.spare_bytes()
            + self.envs.spare_bytes()
    }

    /// Bytes the heap holds beyond its live cells' own sizes: the arenas' spare slots and
    /// bookkeeping, the shape table, the atom table and the collector's work lists.
    fn overhead_bytes(&self) -> usize {
        self.arenas_spare_bytes()
            + self.shapes.owned_bytes()
            + self.atoms.owned_bytes()
            + (self.gray.capacity() + self.finalized.capacity() * 2) * size_of::<Value>()
            + self.gray_envs.capacity() * size_of::<EnvId>()
            + self.weak_holders.capacity() * size_of::<ObjectId>()
    }

    /// Record that the VM now holds `bytes` outside the heap (its value stack, frames, job
    /// queue and loaded code), replacing the previous report in the byte count.
    pub fn set_external(&mut self, bytes: usize) {
        self.bytes = (self.bytes + bytes).saturating_sub(self.external);
        self.external = bytes;
    }

    /// Collect no later than when half the room left under `limit` is used, so that
    /// the limit is enforced on live bytes rather than on garbage: a request for storage
    /// (a string being built, an argument list), which is refused without a collection
    /// when it does not fit, finds at most half of that room taken by garbage (called
    /// whenever the runtime is entered, and by each collection). Cells made in spare slots take none of
    /// the room, which counts their slots already: a heap whose arenas have room near the
    /// limit fills it without collecting at every safe point.
    pub fn limit_next_collection(&mut self, limit: usize) {
        self.limit = limit;
        let room = limit.saturating_sub(self.bytes);
        // at most one past the limit: a count over it always wants a collection
        self.next_gc_for_room = self
            .bytes
            .saturating_add(room / 2 + 1)
            .min(limit.saturating_add(1));
    }

    /// Whether `n` more bytes fit under the heap limit now.
    pub fn has_room(&self, n: usize) -> bool {
        self.bytes.saturating_add(n) <= self.limit
    }

    pub fn stats(&self) -> HeapStats {
        HeapStats {
            bytes: self.bytes,
            collections: self.collections,
            objects: self.objects.live_count(),
            strings: self.strings.live_count(),
        }
    }

    /// Bytes currently counted against the heap budget.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// True when enough was allocated that the next safe point should collect, or the
    /// count is over the limit.
    #[inline(always)]
    pub fn wants_collection(&self) -> bool {
        #[cfg(feature = "gc-stress")]
        if self.stress.due(self.allocated()) {
            return true;
        }
        self.bytes + self.filled >= self.next_gc || self.bytes >= self.next_gc_for_room
    }

    /// Cells allocated ever, in every arena (what the stress mode's trigger counts).
    #[cfg(feature = "gc-stress")]
    fn allocated(&self) -> u64 {
        self.objects.poison.allocated
            + self.strings.poison.allocated
            + self.symbols.poison.allocated
            + self.bigints.poison.allocated
            + self.envs.poison.allocated
    }

    /// Count the storage of a buffer native code fills across calls into JavaScript (which
    /// may collect): unlike [`Heap::note_growth`], collections keep counting it, until
    /// the returned record is dropped. Grow it with [`HeldBytes::set`].
    pub fn hold_bytes(&self) -> HeldBytes {
        HeldBytes {
            counter: self.held.0.clone(),
            bytes: 0,
        }
    }

    /// Count `n` more bytes owned by existing cells (a vector grew), or held for a while
    /// by native code (a string being built); the next collection counts again.
    #[inline]
    pub fn note_growth(&mut self, n: usize) {
        self.bytes = self.bytes.saturating_add(n);
    }

    // ---- allocation ----

    pub fn alloc_object(&mut self, object: Object) -> ObjectId {
        let size = object_size(&object);
        ObjectId(
            self.objects
                .alloc(object, size, &mut self.bytes, &mut self.filled),
        )
    }

    pub fn alloc_string(&mut self, s: JsStr) -> StringId {
        let size = size_of::<JsStr>() + s.payload_bytes();
        self.work += s.payload_bytes();
        StringId(
            self.strings
                .alloc(s, size, &mut self.bytes, &mut self.filled),
        )
    }

    pub fn alloc_symbol(&mut self, s: Symbol) -> SymbolId {
        let size = size_of::<Symbol>();
        SymbolId(
            self.symbols
                .alloc(s, size, &mut self.bytes, &mut self.filled),
        )
    }

    pub fn alloc_bigint(&mut self, b: BigInt) -> BigIntId {
        let size = bigint_size(&b);
        BigIntId(
            self.bigints
                .alloc(b, size, &mut self.bytes, &mut self.filled),
        )
    }

    pub fn alloc_env(&mut self, parent: Option<EnvId>, size: usize) -> EnvId {
        let env = Env {
            parent,
            slots: Slots::filled(size, Value::HOLE),
        };
        let size = env.size();
        EnvId(
            self.envs
                .alloc(env, size, &mut self.bytes, &mut self.filled),
        )
    }

    pub fn clone_env(&mut self, env: EnvId) -> EnvId {
        let copy = self.envs.get(env.0).clone();
        let size = copy.size();
        EnvId(
            self.envs
                .alloc(copy, size, &mut self.bytes, &mut self.filled),
        )
    }

    // ---- access ----

    #[inline(always)]
    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn object(&self, id: ObjectId) -> &Object {
        self.objects.get(id.0)
    }

    #[inline(always)]
    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn object_mut(&mut self, id: ObjectId) -> &mut Object {
        self.objects.get_mut(id.0)
    }

    #[inline(always)]
    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn env(&self, id: EnvId) -> &Env {
        self.envs.get(id.0)
    }

    #[inline(always)]
    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn env_mut(&mut self, id: EnvId) -> &mut Env {
        self.envs.get_mut(id.0)
    }

    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn symbol(&self, id: SymbolId) -> &Symbol {
        self.symbols.get(id.0)
    }

    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn bigint(&self, id: BigIntId) -> &BigInt {
        self.bigints.get(id.0)
    }

    // ---- strings ----

    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn string_len(&self, id: StringId) -> u32 {
        self.strings.get(id.0).len
    }

    /// The code units of a string, flattening it first if it is a rope.
    pub fn units(&mut self, id: StringId) -> Units<'_> {
        self.flatten(id);
        self.flat_units(id)
    }

    /// The code units of a string already known to be flat (atoms, constants, fresh strings).
    pub fn flat_units(&self, id: StringId) -> Units<'_> {
        string::units_in(&self.strings, id)
    }

    pub fn is_flat(&self, id: StringId) -> bool {
        !matches!(self.strings.get(id.0).data, StrData::Rope { .. })
    }

    /// Replace a rope by its flat contents (iteratively: ropes can be very deep).
    pub fn flatten(&mut self, id: StringId) {
        if self.is_flat(id) {
            return;
        }
        let len = self.strings.get(id.0).len as usize;
        let mut wide = false;
        let mut leaves = Vec::new();
        let mut stack = vec![id];
        while let Some(s) = stack.pop() {
            match &self.strings.get(s.0).data {
                StrData::Rope { left, right } => {
                    stack.push(*right);
                    stack.push(*left);
                }
                _ => {
                    wide |= matches!(self.flat_units(s), Units::Utf16(_));
                    leaves.push(s);
                }
            }
        }
        let data = if wide {
            let mut out = Vec::with_capacity(len);
            for leaf in leaves {
                self.flat_units(leaf).extend_into(&mut out);
            }
            StrData::Utf16(out.into_boxed_slice())
        } else {
            let mut out = Vec::with_capacity(len);
            for leaf in leaves {
                if let Units::Latin1(b) = self.flat_units(leaf) {
                    out.extend_from_slice(b);
                }
            }
            StrData::Latin1(out.into_boxed_slice())
        };
        let written = if wide { len * 2 } else { len };
        self.bytes += written;
        self.work += written;
        self.strings.get_mut(id.0).data = data;
    }

    /// The substring `from..to` of string `id` (within its length): long ones share the
    /// storage of the flat string they come from, short ones are copied.
    pub fn substring(&mut self, id: StringId, from: usize, to: usize) -> StringId {
        self.flatten(id);
        if to - from == 1 {
            let unit = self.flat_units(id).at(from);
            return self.single_unit_string(unit);
        }
        if to - from < MIN_SLICE_LEN {
            let piece = JsStr::from_view(self.flat_units(id).slice(from..to));
            return self.alloc_string(piece);
        }
        let (base, offset) = match self.strings.get(id.0).data {
            StrData::Slice { base, start } => (base, start),
            _ => (id, 0),
        };
        self.alloc_string(JsStr {
            data: StrData::Slice {
                base,
                start: offset + from as u32,
            },
            len: (to - from) as u32,
            is_atom: false,
        })
    }

    /// Give a slice its own copy of its units (it then no longer keeps its base alive).
    pub fn unshare(&mut self, id: StringId) {
        if !matches!(self.strings.get(id.0).data, StrData::Slice { .. }) {
            return;
        }
        let data = match self.flat_units(id) {
            Units::Latin1(b) => StrData::latin1(b),
            Units::Utf16(u) => StrData::Utf16(u.into()),
        };
        let s = self.strings.get_mut(id.0);
        s.data = data;
        let bytes = s.payload_bytes();
        self.bytes += bytes;
        self.work += bytes;
    }

    /// A copy of a string's code units (flattening it first if it is a rope).
    pub fn units_vec(&mut self, id: StringId) -> Vec<u16> {
        let units = self.units(id);
        let copied = units.len() * 2;
        let copy = units.to_vec();
        self.work += copied;
        copy
    }

    /// Note `bytes` of string storage read or written outside the heap's own
    /// operations (a built-in scanning a string), to be charged as fuel.
    pub fn note_work(&mut self, bytes: usize) {
        self.work = self.work.saturating_add(bytes);
    }

    /// The string work done since the last call, in bytes; the VM charges it as fuel.
    pub fn take_work(&mut self) -> usize {
        std::mem::take(&mut self.work)
    }

    /// The string work not yet taken by [`Heap::take_work`], in bytes.
    pub fn pending_work(&self) -> usize {
        self.work
    }

    pub fn alloc_str(&mut self, s: &str) -> StringId {
        self.alloc_string(JsStr::from_text(s))
    }

    pub fn alloc_units(&mut self, units: &[u16]) -> StringId {
        self.alloc_string(JsStr::from_units(units))
    }

    /// Concatenate two strings: short results are copied, long ones become ropes.
    pub fn concat(&mut self, a: StringId, b: StringId) -> StringId {
        let (la, lb) = (self.string_len(a), self.string_len(b));
        if la == 0 {
            return b;
        }
        if lb == 0 {
            return a;
        }
        let len = la + lb;
        if len as usize <= SHORT_CONCAT && self.is_flat(a) && self.is_flat(b) {
            let mut units = [0; SHORT_CONCAT];
            let (x, y) = (self.flat_units(a), self.flat_units(b));
            for (i, u) in x.iter().chain(y.iter()).enumerate() {
                units[i] = u;
            }
            return self.alloc_units(&units[..len as usize]);
        }
        self.alloc_string(JsStr {
            data: StrData::Rope { left: a, right: b },
            len,
            is_atom: false,
        })
    }

    /// The interned string with these contents.
    pub fn intern_units(&mut self, units: Units<'_>) -> StringId {
        self.intern_with(units, JsStr::from_view)
    }

    /// The atom with contents `units`, or a new one of the string `make` makes of them.
    #[inline(always)]
    fn intern_with<'a>(
        &mut self,
        units: Units<'a>,
        make: impl FnOnce(Units<'a>) -> JsStr,
    ) -> StringId {
        let hash = units.content_hash();
        for candidate in self.atoms.bucket(hash) {
            if self.flat_units(candidate).eq_units(units) {
                return candidate;
            }
        }
        let mut s = make(units);
        s.is_atom = true;
        let id = self.alloc_string(s);
        self.bytes += self.atoms.insert(hash, id);
        id
    }

    /// [`Heap::intern`] for a name in the program's read-only data (a built-in's): a new
    /// atom reads the name where it is instead of a copy, so it allocates no storage.
    pub fn intern_static(&mut self, s: &'static str) -> StringId {
        if !s.is_ascii() {
            return self.intern(s);
        }
        let bytes = s.as_bytes();
        self.intern_with(Units::Latin1(bytes), |_| JsStr {
            data: StrData::Static(bytes),
            len: bytes.len() as u32,
            is_atom: true,
        })
    }

    pub fn intern(&mut self, s: &str) -> StringId {
        if s.is_ascii() {
            self.intern_units(Units::Latin1(s.as_bytes()))
        } else {
            let units: Vec<u16> = s.encode_utf16().collect();
            self.intern_units(Units::Utf16(&units))
        }
    }

    /// A one-code-unit string; the atom of a Latin-1 unit is made once.
    pub fn single_unit_string(&mut self, unit: u16) -> StringId {
        let Ok(latin1) = u8::try_from(unit) else {
            return self.intern_units(Units::Utf16(&[unit]));
        };
        if let Some(s) = self.single_unit_strings[latin1 as usize] {
            return s;
        }
        let s = self.intern_units(Units::Latin1(&[latin1]));
        self.single_unit_strings[latin1 as usize] = Some(s);
        s
    }

    /// The atom for string `id` (itself if it is one).
    pub fn intern_string(&mut self, id: StringId) -> StringId {
        let s = self.strings.get(id.0);
        if s.is_atom {
            return id;
        }
        if let StrData::Slice { base, start: 0 } = s.data
            && self.strings.get(base.0).is_atom
            && self.strings.get(base.0).len == s.len
        {
            return base;
        }
        self.flatten(id);
        // an atom lives for ever: it must not keep a larger string alive
        self.unshare(id);
        let hash = self.flat_units(id).content_hash();
        for candidate in self.atoms.bucket(hash) {
            if self.flat_units(candidate).eq_units(self.flat_units(id)) {
                // the string becomes a view of the atom: the next key made from it
                // (a template's token, a name kept in a table) finds the atom at once
                self.strings.get_mut(id.0).data = StrData::Slice {
                    base: candidate,
                    start: 0,
                };
                return candidate;
            }
        }
        self.strings.get_mut(id.0).is_atom = true;
        self.bytes += self.atoms.insert(hash, id);
        id
    }

    pub fn string_to_rust(&mut self, id: StringId) -> String {
        self.units(id).to_rust_string()
    }

    /// Compare two strings' contents.
    pub fn string_eq(&mut self, a: StringId, b: StringId) -> bool {
        if a == b {
            return true;
        }
        let (sa, sb) = (self.strings.get(a.0), self.strings.get(b.0));
        if sa.len != sb.len || (sa.is_atom && sb.is_atom) {
            return false;
        }
        self.flatten(a);
        self.flatten(b);
        self.flat_units(a).eq_units(self.flat_units(b))
    }

    // ---- collection ----

    /// Mark a root value. Call for every root, then [`Heap::finish_collection`].
    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn mark_value(&mut self, v: Value) {
        #[cfg(feature = "gc-stress")]
        self.check_held(v, "a root holds");
        self.gray.push(v);
    }

    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn mark_env(&mut self, e: EnvId) {
        #[cfg(feature = "gc-stress")]
        self.envs.poison.check(e.0, &self.envs.live, "a root holds");
        self.gray_envs.push(e);
    }

    #[cfg_attr(feature = "gc-stress", track_caller)]
    pub fn mark_object(&mut self, o: ObjectId) {
        #[cfg(feature = "gc-stress")]
        self.check_held(Value::object(o), "a root holds");
        self.gray.push(Value::object(o));
    }

    /// Panic if `v` refers to a freed cell; `holder` says who holds it.
    #[cfg(feature = "gc-stress")]
    #[track_caller]
    fn check_held(&self, v: Value, holder: &str) {
        if let Some((poison, i)) = self.freed_cell(v) {
            poison.stale(i, holder);
        }
    }

    /// The poison record of the arena and the index of the freed cell `v` refers to, if
    /// it refers to one.
    #[cfg(feature = "gc-stress")]
    fn freed_cell(&self, v: Value) -> Option<(&stress::Poison, u32)> {
        let (poison, live, i) = match v.kind() {
            Kind::Object(o) => (&self.objects.poison, &self.objects.live, o.0),
            Kind::String(s) => (&self.strings.poison, &self.strings.live, s.0),
            Kind::Symbol(s) => (&self.symbols.poison, &self.symbols.live, s.0),
            Kind::BigInt(b) => (&self.bigints.poison, &self.bigints.live, b.0),
            _ => return None,
        };
        (!live.get(i as usize).copied().unwrap_or(true)).then_some((poison, i))
    }

    /// Trace from the marked roots, then free everything unreached.
    pub fn finish_collection(&mut self) {
        // Atoms are permanent: shapes and compiled code refer to them by id.
        let atoms: Vec<StringId> = self.atoms.all().collect();
        for a in atoms {
            self.strings.mark(a.0);
        }
        // So are shapes, and the symbols they have as keys.
        self.gray
            .extend(self.shapes.symbol_keys().map(Value::symbol));
        self.trace();
        self.trace_ephemerons();
        let objects = self.objects.sweep(object_size);
        let strings = self
            .strings
            .sweep(|s| size_of::<JsStr>() + s.payload_bytes());
        let symbols = self.symbols.sweep(|_| size_of::<Symbol>());
        let bigints = self.bigints.sweep(bigint_size);
        let envs = self.envs.sweep(Env::size);
        self.bytes = objects
            + strings
            + symbols
            + bigints
            + envs
            + self.overhead_bytes()
            + self.external
            + self.held.0.get();
        self.schedule_collection();
        self.collections += 1;
        #[cfg(feature = "gc-stress")]
        self.stress.collected(self.allocated());
    }

    fn trace(&mut self) {
        let mut children: Vec<Value> = Vec::new();
        let mut child_envs: Vec<EnvId> = Vec::new();
        loop {
            if let Some(v) = self.gray.pop() {
                match v.kind() {
                    Kind::Object(o) if self.objects.mark(o.0) => {
                        let object = self.objects.get(o.0);
                        object.trace(&mut children, &mut child_envs);
                        #[cfg(feature = "gc-stress")]
                        self.check_children("object", o.0, &children, &child_envs);
                        if matches!(
                            object.kind,
                            ObjectKind::WeakMap(_)
                                | ObjectKind::WeakSet(_)
                                | ObjectKind::WeakRef(_)
                                | ObjectKind::FinalizationRegistry(_)
                        ) {
                            self.weak_holders.push(o);
                        }
                    }
                    _ => self.mark_leaf(v),
                }
            } else if let Some(e) = self.gray_envs.pop() {
                if self.envs.mark(e.0) {
                    let env = self.envs.get(e.0);
                    children.extend_from_slice(&env.slots);
                    if let Some(p) = env.parent {
                        child_envs.push(p);
                    }
                    #[cfg(feature = "gc-stress")]
                    self.check_children("environment", e.0, &children, &child_envs);
                }
            } else {
                break;
            }
            // Only objects wait on the work list; a string, symbol or BigInt is marked
            // now, so an array of ten million strings does not copy itself there. A child
            // already marked (a prototype, mostly) or no cell at all (a number) needs no
            // visit.
            for v in children.drain(..) {
                match v.kind() {
                    Kind::Object(o) if !self.objects.marks[o.0 as usize] => self.gray.push(v),
                    Kind::Object(_) => {}
                    _ => self.mark_leaf(v),
                }
            }
            self.gray_envs.append(&mut child_envs);
        }
    }

    /// Panic if a cell being traced (`holder`) refers to a freed one.
    #[cfg(feature = "gc-stress")]
    fn check_children(&self, kind: &str, holder: u32, children: &[Value], envs: &[EnvId]) {
        let holds = || format!("live {kind} #{holder} holds");
        for &v in children {
            if let Some((poison, i)) = self.freed_cell(v) {
                poison.stale(i, &holds());
            }
        }
        for e in envs {
            if !self.envs.is_live(e.0) {
                self.envs.poison.stale(e.0, &holds());
            }
        }
    }

    /// Mark the values of weak collections whose keys are reachable, until nothing new is
    /// reached; then drop the entries whose keys died.
    fn trace_ephemerons(&mut self) {
        loop {
            let mut reached = Vec::new();
            for &w in &self.weak_holders {
                if let ObjectKind::WeakMap(m) | ObjectKind::WeakSet(m) = &self.objects.get(w.0).kind
                {
                    for (k, v) in m.pairs() {
                        if self.is_marked(k) && !self.is_marked(v) {
                            reached.push(v);
                        }
                    }
                }
            }
            if reached.is_empty() {
                break;
            }
            self.gray.extend(reached);
            self.trace();
        }
        let weak = std::mem::take(&mut self.weak_holders);
        for &w in &weak {
            let (objects, symbols) = (&self.objects.marks, &self.symbols.marks);
            let live = |v: Value| match v.kind() {
                Kind::Object(o) => objects[o.0 as usize],
                Kind::Symbol(s) => symbols[s.0 as usize],
                _ => true,
            };
            let object = &mut self.objects.items[w.0 as usize];
            object.note_write();
            let kind = &mut object.kind;
            crate::builtins::collections::sweep_weak(kind, live);
            crate::builtins::weak_ref::sweep(kind, live, &mut self.finalized);
        }
    }

    /// Mark a string, symbol or BigInt and what it holds (a rope's parts, a symbol's
    /// description): cells with no object among their children.
    fn mark_leaf(&mut self, v: Value) {
        match v.kind() {
            Kind::String(s) => self.mark_string(s),
            Kind::Symbol(s) => {
                if self.symbols.mark(s.0)
                    && let Some(d) = self.symbols.get(s.0).description
                {
                    self.mark_string(d);
                }
            }
            Kind::BigInt(b) => {
                self.bigints.mark(b.0);
            }
            _ => {}
        }
    }

    /// Whether a value is marked (non-heap values count as marked).
    fn is_marked(&self, v: Value) -> bool {
        match v.kind() {
            Kind::Object(o) => self.objects.marks[o.0 as usize],
            Kind::String(s) => self.strings.marks[s.0 as usize],
            Kind::Symbol(s) => self.symbols.marks[s.0 as usize],
            Kind::BigInt(b) => self.bigints.marks[b.0 as usize],
            _ => true,
        }
    }

    fn mark_string(&mut self, s: StringId) {
        // a flat string, the common case, allocates no work list
        let mut next = Some(s);
        let mut stack = Vec::new();
        while let Some(s) = next.take().or_else(|| stack.pop()) {
            if self.strings.mark(s.0) {
                match self.strings.get(s.0).data {
                    StrData::Rope { left, right } => {
                        stack.push(right);
                        next = Some(left);
                    }
                    StrData::Slice { base, .. } => next = Some(base),
                    StrData::Latin1(_)
                    | StrData::Inline { .. }
                    | StrData::Utf16(_)
                    | StrData::SharedLatin1(_)
                    | StrData::SharedUtf16(_)
                    | StrData::Static(_) => {}
                }
            }
        }
    }
}

impl Cell for Object {
    /// A write may change any field: comparing them all at a reset cost more than this
    /// one store per write saves.
    #[inline(always)]
    fn note_write(&mut self) {
        self.pristine_copy = false;
    }

    fn unchanged_from(&self, original: &Self) -> bool {
        self.pristine_copy && original.pristine_copy
    }

    #[cfg(feature = "gc-stress")]
    fn describe(&self) -> String {
        stress::variant_name(&self.kind)
    }
}

impl Cell for JsStr {
    fn unchanged_from(&self, original: &Self) -> bool {
        let data = match (&self.data, &original.data) {
            (StrData::SharedLatin1(a), StrData::SharedLatin1(b)) => std::rc::Rc::ptr_eq(a, b),
            (StrData::SharedUtf16(a), StrData::SharedUtf16(b)) => std::rc::Rc::ptr_eq(a, b),
            (StrData::Static(a), StrData::Static(b)) => std::ptr::eq(*a, *b),
            (
                StrData::Inline { len, bytes },
                StrData::Inline {
                    len: original_len,
                    bytes: original_bytes,
                },
            ) => len == original_len && bytes == original_bytes,
            (
                StrData::Rope { left, right },
                StrData::Rope {
                    left: original_left,
                    right: original_right,
                },
            ) => left == original_left && right == original_right,
            (
                StrData::Slice { base, start },
                StrData::Slice {
                    base: original_base,
                    start: original_start,
                },
            ) => base == original_base && start == original_start,
            // boxed units (a template shares its own) and changed data
            _ => false,
        };
        let JsStr {
            data: _,
            len,
            is_atom,
        } = self;
        data && *len == original.len && *is_atom == original.is_atom
    }

    #[cfg(feature = "gc-stress")]
    fn describe(&self) -> String {
        let start: String = match self.data.units() {
            Some(Units::Latin1(b)) => b.iter().take(16).map(|&c| c as char).collect(),
            Some(Units::Utf16(u)) => char::decode_utf16(u.iter().take(16).copied())
                .map(|c| c.unwrap_or('\u{fffd}'))
                .collect(),
            None if matches!(self.data, StrData::Rope { .. }) => {
                return format!("a rope of length {}", self.len);
            }
            None => return format!("a slice of length {}", self.len),
        };
        format!("{start:?} of length {}", self.len)
    }
}

impl Cell for Symbol {
    fn unchanged_from(&self, original: &Self) -> bool {
        let Symbol {
            description,
            is_private,
            registered,
        } = self;
        *description == original.description
            && *is_private == original.is_private
            && *registered == original.registered
    }
}

impl Cell for BigInt {
    fn unchanged_from(&self, original: &Self) -> bool {
        self == original
    }
}

impl Cell for Env {
    fn unchanged_from(&self, original: &Self) -> bool {
        let Env { parent, slots } = self;
        *parent == original.parent && slots.unchanged_from(&original.slots)
    }

    #[cfg(feature = "gc-stress")]
    fn describe(&self) -> String {
        format!("{} slots", self.slots.len())
    }
}

/// The allocator's block for `bytes` of storage: an 8-byte header, in 16-byte steps of
/// at least 32 bytes. A small allocation's block is much larger than what it stores, so
/// a cell's boxed state is counted as its block.
pub(crate) fn malloc_block(bytes: usize) -> usize {
    if bytes == 0 {
        0
    } else {
        (bytes + 8).next_multiple_of(16).max(32)
    }
}

/// A BigInt's arena entry and the allocator's block for its digits: counting only its
/// bits let an array of small BigInts hold 1.5 times the heap limit.
fn bigint_size(b: &BigInt) -> usize {
    size_of::<BigInt>() + malloc_block(b.bits().div_ceil(64) as usize * 8)
}

/// The estimated size of an object and everything it owns.
fn object_size(o: &Object) -> usize {
    size_of::<Object>() + o.owned_bytes()
}

/// The placeholder in a free arena slot, never read as an object: it owns no storage, so
/// sweeping a dead object allocates nothing.
impl Default for Object {
    fn default() -> Self {
        Object {
            shape: crate::object::shape::ShapeId::DICTIONARY,
            proto: None,
            slots: crate::object::Slots::new(),
            elements: crate::object::Elements::Dense(crate::object::DenseElements::new()),
            dict: None,
            kind: ObjectKind::Ordinary,
            extensible: false,
            used_as_prototype: false,
            hardened: false,
            pristine_copy: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreachable_cycles_are_collected() {
        let mut heap = Heap::new();
        let a = heap.alloc_object(Object::default());
        let b = heap.alloc_object(Object::default());
        heap.object_mut(a).slots.push(Value::object(b));
        heap.object_mut(b).slots.push(Value::object(a));
        let kept = heap.alloc_object(Object::default());
        heap.mark_object(kept);
        heap.finish_collection();
        assert_eq!(heap.objects.live_count(), 1);
        // freed slots are reused (after a quarantine in the stress mode)
        #[cfg(not(feature = "gc-stress"))]
        {
            let c = heap.alloc_object(Object::default());
            assert!(c == a || c == b);
        }
    }

    #[test]
    fn long_substrings_share_their_base_and_keep_it_alive() {
        let mut heap = Heap::new();
        let text = "0123456789".repeat(10);
        heap.take_work();
        let base = heap.alloc_str(&text);
        assert_eq!(heap.take_work(), 100);
        let slice = heap.substring(base, 10, 90);
        let inner = heap.substring(slice, 5, 45);
        assert_eq!(heap.take_work(), 0, "no units were copied");
        assert!(matches!(
            heap.strings.get(inner.0).data,
            StrData::Slice { base: b, start: 15 } if b == base
        ));
        assert_eq!(heap.string_to_rust(inner), text[15..55]);
        let short = heap.substring(inner, 0, 3);
        assert_eq!(heap.string_to_rust(short), "567");
        // a reachable slice keeps its base
        heap.mark_value(Value::string(inner));
        heap.finish_collection();
        assert_eq!(heap.string_to_rust(inner), text[15..55]);
        // interning gives the atom its own units
        let atom = heap.intern_string(inner);
        assert!(matches!(heap.strings.get(atom.0).data, StrData::Latin1(_)));
        assert_eq!(heap.string_to_rust(atom), text[15..55]);
    }

    // the stress mode quarantines freed slots and collects at every safe point
    #[cfg(not(feature = "gc-stress"))]
    #[test]
    fn cells_in_spare_slots_take_none_of_the_room_under_the_limit() {
        let mut heap = Heap::new();
        let kept: Vec<ObjectId> = (0..10_000)
            .map(|_| heap.alloc_object(Object::default()))
            .collect();
        for &o in &kept[..5_000] {
            heap.mark_object(o);
        }
        heap.finish_collection();
        // 5,000 free slots, and room for 4 KiB under the limit
        heap.limit_next_collection(heap.bytes() + 4096);
        let before = heap.bytes();
        for _ in 0..5_000 {
            heap.alloc_object(Object::default());
        }
        assert_eq!(heap.bytes(), before, "the slots were counted already");
        assert!(!heap.wants_collection());
        // a cell that owns storage takes room
        heap.alloc_object(Object {
            slots: Slots::filled(1_000, Value::UNDEFINED),
            ..Object::default()
        });
        assert!(heap.wants_collection());
    }

    #[test]
    fn the_running_count_matches_a_recount() {
        let mut heap = Heap::new();
        heap.recount();
        for i in 0..1_000 {
            heap.alloc_object(Object::default());
            heap.alloc_str(&format!("string number {i}"));
            heap.alloc_env(None, i % 7);
            // the atom table's growth is counted as it grows
            heap.intern(&format!("atom {i}"));
        }
        let counted = heap.bytes();
        heap.recount();
        assert_eq!(heap.bytes(), counted);
    }

    #[test]
    fn reachable_graph_survives() {
        let mut heap = Heap::new();
        let s = heap.alloc_str("hello");
        let env = heap.alloc_env(None, 1);
        heap.env_mut(env).slots[0] = Value::string(s);
        let root = heap.alloc_object(Object::default());
        heap.object_mut(root).slots.push(Value::int(1));
        heap.mark_object(root);
        heap.mark_env(env);
        heap.finish_collection();
        assert_eq!(heap.string_to_rust(s), "hello");
        assert_eq!(heap.objects.live_count(), 1);
    }

    #[cfg(feature = "gc-stress")]
    #[test]
    fn a_freed_cell_is_poisoned() {
        let mut heap = Heap::new();
        let kept = heap.alloc_object(Object::default());
        let wrapper = Object {
            kind: ObjectKind::String(heap.length_atom),
            ..Object::default()
        };
        let freed = heap.alloc_object(wrapper);
        heap.mark_object(kept);
        heap.finish_collection();
        // the slot is quarantined, not handed to the next allocation
        assert_ne!(heap.alloc_object(Object::default()), freed);
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            heap.object(freed).extensible
        }))
        .expect_err("reading a freed object panics");
        let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(
            message.starts_with(&format!(
                "gc-stress: read of freed object #{} (String), freed by collection 1 of 1; at ",
                freed.0
            )),
            "{message}"
        );
        assert!(message.contains("heap/mod.rs"), "{message}");
    }

    #[cfg(feature = "gc-stress")]
    #[test]
    fn a_live_cell_holding_a_freed_one_is_reported() {
        let mut heap = Heap::new();
        let holder = heap.alloc_object(Object::default());
        let s = heap.alloc_str("temporary");
        heap.mark_object(holder);
        heap.finish_collection();
        // a stale id stored into a live object
        heap.object_mut(holder).slots.push(Value::string(s));
        heap.mark_object(holder);
        let panic =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| heap.finish_collection()))
                .expect_err("tracing a freed string panics");
        let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(
            message.starts_with(&format!(
                "gc-stress: live object #{} holds freed string #{} (\"temporary\" of length 9)",
                holder.0, s.0
            )),
            "{message}"
        );
    }

    #[test]
    fn deep_ropes_flatten_without_recursion() {
        let mut heap = Heap::new();
        let x = heap.alloc_str("ab");
        let mut s = heap.alloc_str("");
        for _ in 0..200_000 {
            s = heap.concat(s, x);
        }
        assert_eq!(heap.string_len(s), 400_000);
        heap.mark_value(Value::string(s));
        heap.finish_collection();
        let units = heap.units(s);
        assert_eq!(units.len(), 400_000);
        assert_eq!(units.at(399_999), b'b' as u16);
    }

    /// The room reserved for a realm is the capacity its tables reach anyway: a realm
    /// that outgrew it would copy a table as it grows (raise [`REALM_ROOM`] to the next
    /// power of two), and one in less than half of it holds memory it never uses.
    #[test]
    fn a_realm_fits_the_room_reserved_for_it() {
        // the first VM on a thread (each test has its own) is built in place
        let vm = crate::interpreter::Vm::new();
        let heap = &vm.heap;
        let room = REALM_ROOM;
        let used = [
            (
                heap.objects.items.len(),
                heap.objects.items.capacity(),
                room.objects,
            ),
            (
                heap.strings.items.len(),
                heap.strings.items.capacity(),
                room.strings,
            ),
            (heap.shapes.count(), room.shapes, room.shapes),
        ];
        for (len, capacity, reserved) in used {
            assert_eq!(capacity, reserved);
            assert!(len > reserved / 2 && len <= reserved, "{len} of {reserved}");
        }
        // a hash table holds 7/8 of its buckets
        let atoms = heap.atoms.len();
        assert!(
            atoms > room.atoms / 2 && atoms <= room.atoms,
            "{atoms} atoms"
        );
    }

    #[test]
    fn vms_after_the_first_on_a_thread_share_the_realm_template_storage() {
        let first = crate::interpreter::Vm::new();
        assert!(
            first
                .heap
                .objects
                .slots()
                .flatten()
                .all(|o| !o.slots.is_shared()),
            "the first VM on a thread is built in place"
        );
        let vm = crate::interpreter::Vm::new();
        for object in vm.heap.objects.slots().flatten() {
            assert!(!object.slots.owns_vector());
        }
        for string in vm.heap.strings.slots().flatten() {
            assert!(!matches!(
                string.data,
                StrData::Latin1(_) | StrData::Utf16(_)
            ));
        }
    }

    #[test]
    fn runtimes_copied_from_one_template_do_not_see_each_others_writes() {
        let check = "+(typeof Math.max === 'function' && Array.prototype.push.x === undefined \
                     && ({}).y === undefined && Symbol.iterator.description === 'Symbol.iterator')";
        let mut first = crate::Runtime::new();
        first
            .eval("Math.max = 1; Array.prototype.push.x = 2; Object.prototype.y = 3")
            .unwrap();
        assert_eq!(first.eval(check).unwrap(), "0");
        let mut second = crate::Runtime::new();
        assert_eq!(second.eval(check).unwrap(), "1");
        assert_eq!(
            first.eval("Math.max + Array.prototype.push.x").unwrap(),
            "3"
        );
    }

    #[test]
    fn garbage_does_not_grow_the_arenas_past_what_a_cycle_allocates() {
        // three million short-lived objects (about 450 MB made in all) beside 50,000
        // kept ones: each cycle may allocate about what the heap holds, so the object
        // arena stays near the kept objects plus what one cycle makes (about 97,000
        // slots); when the allowance counted the arena's spare slots it grew to 262,144
        let mut vm = crate::interpreter::Vm::new();
        let script = "var kept = []; for (var i = 0; i < 50000; i++) kept.push({ i });
                      for (var i = 0; i < 3e6; i++) ({ a: i, b: i, c: i });
                      kept.length";
        let length = vm
            .run_script(script, "garbage.js")
            .ok()
            .and_then(|v| v.as_number());
        assert_eq!(length, Some(50000.0));
        assert!(
            vm.heap.collections > 10,
            "{} collections",
            vm.heap.collections
        );
        assert!(
            vm.heap.objects.items.capacity() <= 1 << 17,
            "{} object slots",
            vm.heap.objects.items.capacity()
        );
    }

    #[test]
    fn atoms_are_unique_by_content() {
        let mut heap = Heap::new();
        let a = heap.intern("key");
        let b = heap.intern("key");
        let wide: Vec<u16> = "key".encode_utf16().collect();
        let c = heap.intern_units(Units::Utf16(&wide));
        assert_eq!(a, b);
        assert_eq!(a, c);
        let fresh = heap.alloc_str("key");
        assert_eq!(heap.intern_string(fresh), a);
    }
}
