//! The virtual machine: loaded code, the register stack and call frames,
//! the dispatch loop, exceptions, and garbage-collection roots.
//!
//! JavaScript-to-JavaScript calls push a [`Frame`] and continue in the same
//! dispatch loop: they never recurse on the Rust stack. Native functions run
//! as Rust calls; when one calls back into JavaScript it starts a nested
//! dispatch loop ([`Vm::call`]), which counts towards `native_depth`.
//!
//! # Invariants
//!
//! 1. `stack.len()` is the top of the running frame's registers (plus its
//!    copied arguments); a new frame starts there.
//! 2. Every value a native function holds across a call that may run
//!    JavaScript is in its argument registers or on `roots`; everything on
//!    `stack`, `roots`, the frames, the intrinsics, loaded code and the job
//!    queue is a GC root.

pub mod convert;
mod dispatch;
pub mod function;
pub mod generator;
mod globals;
pub mod meter;
pub mod module;
pub mod operators;
pub mod property;
mod realm;
mod scopes;

use crate::heap::{EnvId, Heap, ObjectId, StringId};
use crate::object::shape::ShapeId;
use crate::object::{ObjectKind, PropertyKey};
pub use crate::realm::FunctionShapes;
use crate::realm::{Atoms, Intrinsics, Realm, RealmId, WellKnownSymbols};
use crate::value::Value;
use crate::{JsResult, Thrown};
use kiln_bytecode::{Constant, FunctionCode, Script, ScriptKind, ValidScript};
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;

/// The arguments of a native call: a window on the VM stack.
#[derive(Clone, Copy, Debug)]
pub struct Args {
    pub start: u32,
    pub count: u32,
    /// the constructor `new` was applied to, or undefined for a plain call
    pub new_target: Value,
}

/// One inline-cache entry of a property site.
#[derive(Clone, Copy, Debug, Default)]
pub enum InlineCache {
    #[default]
    Empty,
    /// the property is in the receiver's own slot
    Own { shape: ShapeId, slot: u32 },
    /// the property is a data property in `holder`'s slot, found through the
    /// prototype chain; valid while no prototype changed shape (`epoch`)
    Proto {
        shape: ShapeId,
        holder: ObjectId,
        slot: u32,
        epoch: u32,
    },
    /// the property is the receiver's own, in its dictionary's entry at `position`
    /// (large objects such as a library's namespace): a hit checks the entry's key, so
    /// it serves every dictionary-mode object that has the key there
    DictOwn { position: u32 },
    /// the property is a data property in dictionary-mode `holder`'s entry at `position`
    /// (a prototype with very many methods), found through the prototype chain: a hit
    /// checks the entry's key; valid while no prototype changed layout (`epoch`)
    ProtoDict {
        shape: ShapeId,
        holder: ObjectId,
        position: u32,
        epoch: u32,
    },
    /// the property is an accessor in the receiver's own slot: a read calls the getter
    /// stored there
    OwnGetter { shape: ShapeId, slot: u32 },
    /// the property is an accessor in `holder`'s slot, found through the prototype chain
    /// (class getters; built-in getters such as a typed array's `length`): a read calls
    /// the getter stored there; valid while no prototype changed shape (`epoch`)
    ProtoGetter {
        shape: ShapeId,
        holder: ObjectId,
        slot: u32,
        epoch: u32,
    },
    /// the property is on neither the receiver (of `shape`) nor its prototypes: the
    /// read is undefined; valid while no prototype changed shape (`epoch`)
    Absent { shape: ShapeId, epoch: u32 },
    /// a store that adds the property: shape `from` becomes `to`, slot = from's length
    Add {
        from: ShapeId,
        to: ShapeId,
        epoch: u32,
    },
    /// a global read/write: the global object's dictionary entry at `position`, valid while
    /// its dictionary `generation` and the global lexical declarations are unchanged
    Global {
        position: u32,
        generation: u32,
        lexicals: u32,
    },
    /// a global lexical (script-level let/const/class) binding
    GlobalLexical { index: u32 },
    /// the site has seen objects of a few shapes: its entries, one per receiver shape,
    /// are `Vm::polymorphic[index]`
    Polymorphic { index: u32 },
    /// too many shapes seen: the site uses the runtime's shared megamorphic cache
    Megamorphic,
}

impl InlineCache {
    /// The receiver shape the entry is for; `Some(DICTIONARY)` for a dictionary
    /// entry, which serves every dictionary-mode receiver. A new entry for the same shape
    /// replaces an old one (which no longer applied: a prototype changed).
    pub fn receiver_shape(self) -> Option<ShapeId> {
        match self {
            InlineCache::Own { shape, .. }
            | InlineCache::Proto { shape, .. }
            | InlineCache::ProtoDict { shape, .. }
            | InlineCache::OwnGetter { shape, .. }
            | InlineCache::ProtoGetter { shape, .. }
            | InlineCache::Absent { shape, .. }
            | InlineCache::Add { from: shape, .. } => Some(shape),
            InlineCache::DictOwn { .. } => Some(ShapeId::DICTIONARY),
            _ => None,
        }
    }
}

/// Entries a polymorphic property site keeps.
pub const POLYMORPHIC_ENTRIES: usize = 8;

/// Refills after which a property site stops keeping its own entries and uses the
/// shared megamorphic cache.
pub const MEGAMORPHIC_MISSES: u8 = 64;

/// The entries of one polymorphic site, one per receiver shape, most recently filled
/// first. The shapes sit apart from the entries so that an access compares them
/// alone and looks at the one entry that can apply.
#[derive(Clone, Copy, Debug)]
pub struct PolymorphicEntries {
    /// each entry's receiver shape; [`Self::UNUSED`] where there is no entry
    shapes: [ShapeId; POLYMORPHIC_ENTRIES],
    entries: [InlineCache; POLYMORPHIC_ENTRIES],
}

impl PolymorphicEntries {
    /// No object has this shape (a runtime would need 2^32 shapes first).
    const UNUSED: ShapeId = ShapeId(u32::MAX);

    pub fn new(first: InlineCache, second: InlineCache) -> Self {
        let mut p = PolymorphicEntries {
            shapes: [Self::UNUSED; POLYMORPHIC_ENTRIES],
            entries: [InlineCache::Empty; POLYMORPHIC_ENTRIES],
        };
        p.insert(second);
        p.insert(first);
        p
    }

    /// The entry for receivers of `shape`, if the site has one.
    #[inline(always)]
    pub fn get(&self, shape: ShapeId) -> Option<InlineCache> {
        (0..POLYMORPHIC_ENTRIES)
            .find(|&i| self.shapes[i] == shape)
            .map(|i| self.entries[i])
    }

    /// Put `entry` first, in place of the entry for its shape, else of the least
    /// recent one.
    pub fn insert(&mut self, entry: InlineCache) {
        let shape = entry.receiver_shape().unwrap_or(Self::UNUSED);
        let at = self
            .shapes
            .iter()
            .position(|&s| s == Self::UNUSED || s == shape)
            .unwrap_or(POLYMORPHIC_ENTRIES - 1);
        self.shapes[..=at].rotate_right(1);
        self.entries[..=at].rotate_right(1);
        self.shapes[0] = shape;
        self.entries[0] = entry;
    }
}

/// A function's code ready to run: the bytecode plus materialised constants
/// and its inline caches.
pub struct CodeBlock {
    /// shared by every VM that loaded the same [`SharedScript`]
    pub(crate) code: Arc<FunctionCode>,
    // `code`'s fields that every call reads, kept here beside the block's other hot
    // fields rather than one more pointer away
    pub(crate) kind: kiln_bytecode::FunctionKind,
    pub(crate) strict: bool,
    pub(crate) register_count: u16,
    pub(crate) param_count: u16,
    /// the function's name, interned when the script is loaded
    pub(crate) name: StringId,
    /// index into `Vm::scripts`
    pub(crate) script: u32,
    /// the realm the code was loaded in, which it always runs in
    pub(crate) realm: RealmId,
    /// constants as values; function constants hold their index in the script as an int
    pub(crate) constants: Box<[Value]>,
    /// the property key of each property site
    pub(crate) sites: Box<[PropertyKey]>,
    pub(crate) caches: Box<[Cell<InlineCache>]>,
    /// misses per site, to detect megamorphic sites
    pub(crate) misses: Box<[Cell<u8>]>,
    /// template objects by constant index, created on first use
    pub(crate) templates: RefCell<Vec<(u16, ObjectId)>>,
    /// regular expression literals by constant index, compiled on first evaluation
    pub(crate) regexps: RefCell<Vec<crate::builtins::regexp::Literal>>,
    /// the function reads its arguments beyond the formal parameters
    pub(crate) needs_arguments: bool,
}

impl std::fmt::Debug for CodeBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CodeBlock({})",
            String::from_utf16_lossy(&self.code.name)
        )
    }
}

/// A loaded script: its source (for messages and `toString`) and its functions.
pub struct LoadedScript {
    /// shared with the [`SharedScript`] it was loaded from, as are the line tables
    pub source: Arc<str>,
    pub name: Rc<str>,
    pub kind: ScriptKind,
    /// the realm it was loaded in
    pub realm: RealmId,
    /// how it was compiled (a snapshot records this and compiles the source again)
    pub recipe: Recipe,
    /// byte offset of each line start
    pub line_starts: Arc<[u32]>,
    /// see [`utf16_marks`]
    pub utf16_marks: Arc<[(u32, u32)]>,
    pub blocks: Vec<Rc<CodeBlock>>,
}

/// A validated script in the form VMs load it: its functions shared (each VM that loads it
/// refers to the same bytecode), and what every load needs from its source (line table,
/// UTF-16 marks, the bytes it keeps) computed once.
///
/// # Invariants
/// 1. Made only from a [`ValidScript`] ([`SharedScript::new`]), its functions unchanged:
///    the interpreter relies on their validation as it does on a `ValidScript`'s.
#[derive(Debug, PartialEq)]
pub struct SharedScript {
    pub(crate) kind: ScriptKind,
    source: Arc<str>,
    source_name: Box<str>,
    pub(crate) module: Option<Box<kiln_bytecode::ModuleInfo>>,
    functions: Box<[Arc<FunctionCode>]>,
    line_starts: Arc<[u32]>,
    utf16_marks: Arc<[(u32, u32)]>,
    /// [`script_bytes`] of the script
    bytes: usize,
}

impl SharedScript {
    pub fn new(script: ValidScript) -> SharedScript {
        let script = script.into_script();
        let bytes = script_bytes(&script);
        let mut line_starts = vec![0u32];
        line_starts
            .extend(memchr::memchr_iter(b'\n', script.source.as_bytes()).map(|i| i as u32 + 1));
        let utf16_marks = utf16_marks(&script.source);
        SharedScript {
            kind: script.kind,
            source: script.source.into(),
            source_name: script.source_name.into(),
            module: script.module,
            functions: script.functions.into_iter().map(Arc::new).collect(),
            line_starts: line_starts.into(),
            utf16_marks: utf16_marks.into(),
            bytes,
        }
    }

    /// The source it was compiled from.
    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    /// The script as the compiler gave it (a copy, for writing it out as bytes).
    pub fn to_script(&self) -> Script {
        Script {
            kind: self.kind,
            functions: self.functions.iter().map(|f| f.as_ref().clone()).collect(),
            source: self.source.to_string(),
            source_name: self.source_name.to_string(),
            module: self.module.clone(),
        }
    }
}

/// Bytes between the marks of [`utf16_marks`].
const UTF16_MARK_STRIDE: usize = 1024;

/// `(byte offset, UTF-16 offset)` at the last char boundary at or before each multiple of
/// [`UTF16_MARK_STRIDE`] bytes of `source`; empty for ASCII source, where the two offsets
/// agree.
fn utf16_marks(source: &str) -> Vec<(u32, u32)> {
    if source.is_ascii() {
        return Vec::new();
    }
    let mut marks = Vec::with_capacity(source.len() / UTF16_MARK_STRIDE + 1);
    let (mut byte, mut units) = (0, 0);
    for k in 0..=source.len() / UTF16_MARK_STRIDE {
        let mut next = k * UTF16_MARK_STRIDE;
        while !source.is_char_boundary(next) {
            next -= 1;
        }
        units += source[byte..next].encode_utf16().count();
        byte = next;
        marks.push((byte as u32, units as u32));
    }
    marks
}

/// The compiler inputs of a loaded script besides its source, name and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recipe {
    /// `kiln_compiler::compile(source, name, kind, strict)`
    Compile { strict: bool },
    /// a direct `eval`: `kiln_compiler::compile_eval` against the eval scope that is
    /// constant `constant` of block `block` of script `script`
    DirectEval {
        strict: bool,
        script: u32,
        block: u32,
        constant: u32,
    },
}

impl LoadedScript {
    /// 1-based line and column (in UTF-16 code units) of a byte offset.
    pub fn line_column(&self, offset: u32) -> (u32, u32) {
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        let start = self.line_starts[line - 1] as usize;
        let end = (offset as usize).clamp(start, self.source.len());
        let column = if self.utf16_marks.is_empty() {
            // ASCII: a byte is a code unit
            end - start
        } else if end - start <= UTF16_MARK_STRIDE {
            self.utf16_len(start, end)
        } else {
            self.utf16_offset(end) - self.utf16_offset(start)
        };
        (line as u32, column as u32 + 1)
    }

    /// The UTF-16 offset of byte offset `byte` (a char boundary) in non-ASCII source,
    /// counting from the mark before it, at most [`UTF16_MARK_STRIDE`] bytes: a column
    /// deep in a long minified line costs no more than one near its start.
    fn utf16_offset(&self, byte: usize) -> usize {
        let (from, units) = self.utf16_marks[byte / UTF16_MARK_STRIDE];
        units as usize + self.utf16_len(from as usize, byte)
    }

    /// The UTF-16 code units of the source between two byte offsets (0 unless both are
    /// char boundaries).
    fn utf16_len(&self, from: usize, to: usize) -> usize {
        (self.source.get(from..to)).map_or(0, |s| s.encode_utf16().count())
    }

    /// The text of 1-based line `line`.
    pub fn line_text(&self, line: u32) -> &str {
        let start = self
            .line_starts
            .get(line as usize - 1)
            .copied()
            .unwrap_or(0) as usize;
        let end = self
            .line_starts
            .get(line as usize)
            .map_or(self.source.len(), |&e| e as usize);
        self.source
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }
}

/// Entries in a megamorphic property cache (a power of two).
const MEGAMORPHIC_ENTRIES: usize = 4096;

/// The cache shared by every property site that saw too many shapes: a direct-mapped
/// table from (shape, key) to an inline-cache entry. Reads and writes keep one each: a
/// slot a read may use (a read-only property) is not one a write may. The table is
/// allocated when its first entry is filled: most short runs never go megamorphic, and
/// a new runtime should not pay for it.
pub struct MegamorphicCache(Box<[(ShapeId, PropertyKey, InlineCache)]>);

impl MegamorphicCache {
    pub fn new() -> Self {
        MegamorphicCache(Box::default())
    }

    fn index(shape: ShapeId, key: PropertyKey) -> usize {
        let k = match key {
            PropertyKey::String(s) => s.0 as u64,
            PropertyKey::Symbol(s) => (s.0 as u64) << 1 | 1,
            PropertyKey::Index(i) => (i as u64) << 2 | 2,
        };
        let h = (shape.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ k.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        (h >> 52) as usize & (MEGAMORPHIC_ENTRIES - 1)
    }

    /// The entry for objects of `shape` and `key`, if the table holds one.
    pub fn get(&self, shape: ShapeId, key: PropertyKey) -> Option<InlineCache> {
        let &(s, k, cache) = self.0.get(Self::index(shape, key))?;
        (s == shape && k == key).then_some(cache)
    }

    pub fn fill(&mut self, shape: ShapeId, key: PropertyKey, cache: InlineCache) {
        if self.0.is_empty() {
            let empty = (
                ShapeId::DICTIONARY,
                PropertyKey::Index(0),
                InlineCache::Empty,
            );
            self.0 = vec![empty; MEGAMORPHIC_ENTRIES].into_boxed_slice();
        }
        self.0[Self::index(shape, key)] = (shape, key, cache);
    }

    /// Forget every entry (the shapes they name are gone).
    pub fn clear(&mut self) {
        self.0.iter_mut().for_each(|e| e.2 = InlineCache::Empty);
    }
}

impl Default for MegamorphicCache {
    fn default() -> Self {
        Self::new()
    }
}

/// Entries in the [`InstanceofCache`] (a power of two).
const INSTANCEOF_ENTRIES: usize = 64;

/// What `instanceof` is for constructors of one shape. For a closure or a built-in
/// function of `shape`, either `Symbol.hasInstance` is found on `Function.prototype`
/// (where it can never change) and `prototype` is an own data property in
/// `prototype_slot` (the ordinary test), or something else is on the way (`None`: the
/// full operator runs). An entry holds while no prototype changed layout (`epoch`) and in
/// the realm whose `Function.prototype` the lookup compared with. Direct-mapped; class
/// hierarchies test `instanceof` against a handful of constructors over and over.
pub struct InstanceofCache(Box<[InstanceofEntry; INSTANCEOF_ENTRIES]>);

#[derive(Clone, Copy)]
pub struct InstanceofEntry {
    pub shape: ShapeId,
    pub epoch: u32,
    pub realm: RealmId,
    pub prototype_slot: Option<u32>,
}

impl InstanceofCache {
    fn new() -> Self {
        let empty = InstanceofEntry {
            shape: ShapeId::DICTIONARY,
            epoch: 0,
            realm: RealmId(0),
            prototype_slot: None,
        };
        InstanceofCache(Box::new([empty; INSTANCEOF_ENTRIES]))
    }

    fn index(shape: ShapeId) -> usize {
        (shape.0.wrapping_mul(0x9E37_79B9) >> 26) as usize & (INSTANCEOF_ENTRIES - 1)
    }

    /// The entry for constructors of `shape`, if the table holds one. An empty entry
    /// answers "not ordinary" (which only sends `instanceof` the full way); the caller
    /// never asks for dictionary-mode objects, whose shape says nothing of their
    /// properties.
    pub fn get(&self, shape: ShapeId) -> Option<InstanceofEntry> {
        let entry = self.0[Self::index(shape)];
        (entry.shape == shape).then_some(entry)
    }

    pub fn fill(&mut self, entry: InstanceofEntry) {
        self.0[Self::index(entry.shape)] = entry;
    }

    /// Forget every entry (the shapes they name are gone).
    pub fn clear(&mut self) {
        *self = Self::new();
    }
}

/// Where a returning frame's value goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReturnTo {
    /// into this register of the calling frame, which continues in the same loop
    Register(u16),
    /// out of the dispatch loop that this frame was started by
    Exit,
}

/// One activation of a JavaScript function.
#[derive(Clone, Debug)]
pub struct Frame {
    pub code: Rc<CodeBlock>,
    pub pc: u32,
    pub base: u32,
    pub env: Option<EnvId>,
    pub env_depth: u16,
    pub callee: ObjectId,
    pub new_target: Value,
    pub argc: u32,
    /// where all arguments were copied, when the code reads `arguments` or a rest parameter
    pub args_at: u32,
    pub ret: ReturnTo,
    /// called by `new` on a base constructor: a non-object return yields `this`
    pub construct: bool,
    /// the generator or async function state this frame runs for
    pub generator: Option<ObjectId>,
    /// the realm that was running when the frame was pushed, entered again when it is
    /// popped
    pub caller_realm: RealmId,
}

/// Why a dispatch loop stopped.
#[derive(Clone, Copy, Debug)]
pub enum Exit {
    Return(Value),
    Yield(Value),
    Await(Value),
}

/// A pending job of the job queue.
#[derive(Clone, Copy, Debug)]
pub enum Job {
    /// [PromiseReactionJob](https://tc39.es/ecma262/#sec-newpromisereactionjob): a reaction
    /// record (see `builtins::promise`), the settled value and whether it was a rejection
    Reaction {
        reaction: ObjectId,
        argument: Value,
        rejected: bool,
    },
    /// [PromiseResolveThenableJob](https://tc39.es/ecma262/#sec-newpromiseresolvethenablejob)
    ResolveThenable {
        promise: ObjectId,
        thenable: Value,
        then: Value,
    },
    /// a plain call (host callbacks)
    Call {
        func: Value,
        this: Value,
        arg: Value,
    },
}

/// Why a run was stopped without an exception the guest could catch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// the call-depth budget (`Limits::call_depth_terminates`) was exceeded
    CallDepth,
    /// the host set the interrupt flag (cancellation)
    Interrupted,
    /// the heap grew past `Limits::max_heap_bytes`
    HeapLimit,
    /// the fuel budget `Limits::fuel` is spent
    OutOfFuel,
    /// the guest compute time budget `Limits::compute_time` is spent
    ComputeTime,
    /// more outstanding host calls than `Limits::max_pending_host_calls`
    HostCalls,
    /// more host calls in one execution than `Limits::max_host_calls`
    HostCallBudget,
}

impl Termination {
    /// A short description, also the message of the error value the run unwinds with.
    pub fn message(&self) -> &'static str {
        match self {
            Termination::CallDepth => "call depth limit exceeded",
            Termination::Interrupted => "execution interrupted",
            Termination::HeapLimit => "heap limit exceeded",
            Termination::OutOfFuel => "fuel budget exhausted",
            Termination::ComputeTime => "compute time budget exhausted",
            Termination::HostCalls => "too many outstanding host calls",
            Termination::HostCallBudget => "host call budget exhausted",
        }
    }
}

/// Tunable limits of a VM.
#[derive(Clone, Debug)]
pub struct Limits {
    /// JavaScript frames deeper than this throw RangeError
    pub max_frames: usize,
    /// nested native-to-JavaScript re-entries deeper than this throw RangeError
    pub max_native_depth: usize,
    /// heap bytes beyond which the run terminates (allocation-heavy built-ins throw
    /// RangeError before they would cross it)
    pub max_heap_bytes: usize,
    /// exceeding `max_frames` terminates the run instead of throwing a RangeError the
    /// guest could catch (the call depth as a sandbox budget)
    pub call_depth_terminates: bool,
    /// fuel for the run (see [`meter`]); unlimited when None
    pub fuel: Option<u64>,
    /// guest compute time (time spent waiting on the host not counted); unlimited when None
    pub compute_time: Option<std::time::Duration>,
    /// asynchronous host calls that may be outstanding at once
    pub max_pending_host_calls: usize,
    /// host capability calls (synchronous and asynchronous) one execution may make in
    /// all; unlimited when None
    pub max_host_calls: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_frames: 20_000,
            max_native_depth: 400,
            max_heap_bytes: 4 << 30,
            call_depth_terminates: false,
            fuel: None,
            compute_time: None,
            max_pending_host_calls: 1024,
            max_host_calls: None,
        }
    }
}

pub struct Vm {
    pub heap: Heap,
    /// the running realm's intrinsics (see `crate::realm` for how realms switch)
    pub intrinsics: Intrinsics,
    /// the running realm
    pub realm: RealmId,
    /// every realm's record; the running realm's entry is a placeholder, its record
    /// is in `intrinsics`, `global_lexicals`, `global_lexical_values` and `shapes`
    pub realms: Vec<Realm>,
    pub atoms: Atoms,
    pub symbols: WellKnownSymbols,
    pub(crate) stack: Vec<Value>,
    pub(crate) frames: Vec<Frame>,
    /// native temporaries that must survive calls back into JavaScript
    pub roots: Vec<Value>,
    /// targets read through a WeakRef, alive until the job queue drains ([[KeptAlive]])
    pub kept_alive: Vec<Value>,
    /// the value being thrown while a `JsResult` is `Err(Thrown)`
    pub exception: Value,
    pub scripts: Vec<LoadedScript>,
    /// estimated bytes of every loaded script (source, bytecode, constants, caches), counted
    /// against the heap limit: loaded code is never freed
    pub code_bytes: usize,
    pub jobs: VecDeque<Job>,
    pub limits: Limits,
    pub native_depth: usize,
    /// the running realm's global lexical declarations (script-level let/const/class):
    /// name -> index into `global_lexical_values`; never removed, so indices stay valid
    pub global_lexicals: rustc_hash::FxHashMap<StringId, u32>,
    /// (value, is_const) of each global lexical binding; the hole until initialised
    pub global_lexical_values: Vec<(Value, bool)>,
    /// `Symbol.for` registry (shared by all realms)
    pub symbol_registry: rustc_hash::FxHashMap<StringId, crate::heap::SymbolId>,
    pub small_int_strings: Box<[Option<StringId>; 256]>,
    /// the running realm's shapes of fresh functions and arguments objects
    pub shapes: FunctionShapes,
    /// values a host has pinned (embedding API handles)
    pub pinned: Vec<Value>,
    /// the shared caches of megamorphic property sites, for reads and for writes
    pub megamorphic_get: MegamorphicCache,
    pub megamorphic_set: MegamorphicCache,
    /// the entries of polymorphic property sites (`InlineCache::Polymorphic`)
    pub polymorphic: Vec<PolymorphicEntries>,
    pub instanceof_cache: InstanceofCache,
    /// where %RegExp.prototype%'s methods were last found built in
    pub regexp_memo: Option<crate::builtins::regexp::PrototypeMemo>,
    pub random_state: u64,
    /// the native function being called (natives read their data through it)
    pub native_callee: ObjectId,
    /// set while an uncatchable termination unwinds the stack
    pub termination: Option<Termination>,
    /// where the exception being unwound was thrown: (script index, line, column)
    pub exception_origin: Option<(usize, u32, u32)>,
    /// where the last source `load` refused did not compile: (line, column)
    pub compile_error_at: Option<(u32, u32)>,
    /// the last value an async function body rejected its promise with, and where it was
    /// first thrown (an outer body rejecting with the same value keeps that place), so a
    /// host can locate an execution's rejection
    pub rejection_origin: Option<(Value, (usize, u32, u32))>,
    /// set from any thread to stop the running script at its next safe point
    pub interrupt: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// fuel and compute time used against `limits`
    pub meter: meter::Meter,
    /// host capabilities and the asynchronous host calls waiting for an answer
    pub host: crate::host::HostState,
    /// the host's pause point, called between stretches of guest computation
    pub pause: Option<meter::PausePoint>,
    /// the host's clock for `Date.now()` and `new Date()` (ms since the epoch); the
    /// system clock when None
    pub clock: Option<Rc<dyn Fn() -> f64>>,
    /// `eval` and `Function` may compile strings (HostEnsureCanCompileStrings)
    pub allow_code_generation: bool,
    /// the intrinsics are frozen (`lockdown`); assignments may shadow read-only
    /// inherited properties
    pub hardened: bool,
    /// module records and the host's module loader
    pub modules: module::Modules,
    /// this runtime as an agent: [[CanBlock]] and its `Atomics.waitAsync` waiters
    pub agent: crate::builtins::atomics::Agent,
}

impl Default for Vm {
    fn default() -> Self {
        Self::new()
    }
}

thread_local! {
    /// Whether this thread built a VM in place ([`Vm::new`]).
    static BUILT_IN_PLACE: Cell<bool> = const { Cell::new(false) };
    /// The realm template VMs on this thread are copied from ([`Vm::new`]).
    static TEMPLATE: OnceCell<Vm> = const { OnceCell::new() };
}

impl Vm {
    /// A VM with a fresh realm. From the second VM on a thread, the realm is copied from
    /// a template built once per thread: copying the cells is several times cheaper than
    /// creating the intrinsics. The copy shares the template's storage
    /// ([`Heap::share_storage`]: object slots, string units, shape transitions and lookup
    /// tables, native function records), so it allocates per arena and table rather
    /// than per cell. The first VM on a thread is built in place: a template and its
    /// copy cost about a third more than one realm, which a process that makes a single
    /// VM (the CLI, a server's cold start) would never get back.
    pub fn new() -> Vm {
        if !BUILT_IN_PLACE.replace(true) {
            return Vm::build();
        }
        TEMPLATE.with(|template| {
            template
                .get_or_init(|| {
                    let mut vm = Vm::build();
                    vm.heap.share_storage();
                    vm
                })
                .fork_pristine()
        })
    }

    /// This VM made new again: what [`Vm::new`] returns from the second VM on a thread,
    /// made from this VM's heap when it is a copy of the thread's realm template
    /// ([`Heap::reset_to`]: only the template's cells written to since are copied again,
    /// the cells made since are dropped). Every other field starts as in a new copy.
    pub fn into_pristine(self) -> Vm {
        TEMPLATE.with(|template| {
            let Some(template) = template.get() else {
                drop(self);
                return Vm::new();
            };
            let Vm { mut heap, .. } = self;
            if heap.reset_to(&template.heap) {
                template.pristine_with(heap)
            } else {
                drop(heap);
                template.fork_pristine()
            }
        })
    }

    /// A copy of a freshly built VM (nothing has run in it): the heap, the realm and the
    /// engine's caches of it; every per-run field starts fresh.
    fn fork_pristine(&self) -> Vm {
        self.pristine_with(self.heap.clone())
    }

    /// This freshly built VM over `heap`, a copy of its heap (new, or reset to it).
    fn pristine_with(&self, heap: Heap) -> Vm {
        Vm {
            intrinsics: self.intrinsics.clone(),
            realm: self.realm,
            realms: self.realms.clone(),
            global_lexicals: self.global_lexicals.clone(),
            global_lexical_values: self.global_lexical_values.clone(),
            symbol_registry: self.symbol_registry.clone(),
            small_int_strings: self.small_int_strings.clone(),
            shapes: self.shapes,
            ..Vm::unbuilt(heap, self.atoms.clone(), self.symbols.clone())
        }
    }

    /// Build a VM and its realm from nothing.
    fn build() -> Vm {
        let mut heap = Heap::new();
        heap.reserve_realm();
        let atoms = Atoms::new(&mut heap);
        let symbols = WellKnownSymbols::new(&mut heap);
        let mut vm = Vm::unbuilt(heap, atoms, symbols);
        crate::builtins::init(&mut vm);
        vm
    }

    /// A VM over `heap` before its realm is built (or copied in).
    fn unbuilt(heap: Heap, atoms: Atoms, symbols: WellKnownSymbols) -> Vm {
        Vm {
            heap,
            intrinsics: Intrinsics::placeholder(),
            realm: RealmId(0),
            realms: vec![Realm::placeholder()],
            atoms,
            symbols,
            // grows with the deepest call; most runs stay within this
            stack: Vec::with_capacity(1 << 12),
            frames: Vec::with_capacity(256),
            roots: Vec::new(),
            kept_alive: Vec::new(),
            exception: Value::UNDEFINED,
            scripts: Vec::new(),
            code_bytes: 0,
            jobs: VecDeque::new(),
            limits: Limits::default(),
            native_depth: 0,
            global_lexicals: Default::default(),
            global_lexical_values: Vec::new(),
            symbol_registry: Default::default(),
            small_int_strings: Box::new([None; 256]),
            shapes: FunctionShapes::placeholder(),
            pinned: Vec::new(),
            megamorphic_get: MegamorphicCache::new(),
            megamorphic_set: MegamorphicCache::new(),
            polymorphic: Vec::new(),
            instanceof_cache: InstanceofCache::new(),
            regexp_memo: None,
            random_state: random_seed(),
            native_callee: ObjectId(0),
            termination: None,
            exception_origin: None,
            compile_error_at: None,
            rejection_origin: None,
            interrupt: Default::default(),
            meter: Default::default(),
            host: Default::default(),
            pause: None,
            clock: None,
            allow_code_generation: true,
            hardened: false,
            modules: Default::default(),
            agent: Default::default(),
        }
    }

    pub fn global_object(&self) -> ObjectId {
        self.intrinsics.global
    }

    // ---- loading code ----

    /// Compile and load a script; returns the index of its top-level code.
    pub fn load(
        &mut self,
        source: &str,
        name: &str,
        kind: ScriptKind,
        strict: bool,
    ) -> JsResult<Rc<CodeBlock>> {
        self.reserve_compilation(source.len())?;
        let script = match kiln_compiler::compile(source, name, kind, strict) {
            Ok(s) => s,
            Err(e) => {
                let msg = format!("{} ({}:{}:{})", e.message, name, e.line, e.column);
                self.compile_error_at = Some((e.line, e.column));
                return Err(self.syntax_error(msg));
            }
        };
        if let Err(message) = crate::builtins::regexp::literal_errors(&script) {
            return Err(self.syntax_error(format!("{message} ({name})")));
        }
        Ok(self.load_compiled(compiler_output(script), Recipe::Compile { strict }))
    }

    /// Load a compiled script; `recipe` says how it was compiled from its source.
    pub fn load_compiled(&mut self, script: ValidScript, recipe: Recipe) -> Rc<CodeBlock> {
        self.load_shared(&SharedScript::new(script), recipe)
    }

    /// Load a script whose functions other VMs may run too: each block shares its
    /// function's code, and only what is the VM's own (interned names, constants as
    /// values, inline caches) is made here.
    pub(crate) fn load_shared(&mut self, script: &SharedScript, recipe: Recipe) -> Rc<CodeBlock> {
        // Loaded code stays for the VM's life: counted once, and at every collection.
        self.code_bytes += script.bytes;
        self.heap.note_growth(script.bytes);
        let script_index = self.scripts.len() as u32;
        let blocks = script
            .functions
            .iter()
            .map(|code| Rc::new(self.make_block(code.clone(), script_index)))
            .collect();
        self.scripts.push(LoadedScript {
            source: script.source.clone(),
            name: script.source_name.as_ref().into(),
            kind: script.kind,
            realm: self.realm,
            recipe,
            line_starts: script.line_starts.clone(),
            utf16_marks: script.utf16_marks.clone(),
            blocks,
        });
        self.scripts[script_index as usize].blocks[0].clone()
    }

    /// Reserve the memory compiling `source_len` bytes of source takes (the syntax tree,
    /// scopes and bytecode the compiler holds at its peak) before compiling: ends the run
    /// with [`Termination::HeapLimit`] when it would not fit ([`Vm::reserve_bytes`]).
    pub fn reserve_compilation(&mut self, source_len: usize) -> JsResult<()> {
        self.reserve_bytes(source_len.saturating_mul(COMPILER_BYTES_PER_SOURCE_BYTE))
    }

    fn make_block(&mut self, code: Arc<FunctionCode>, script: u32) -> CodeBlock {
        let constants = code
            .constants
            .iter()
            .map(|c| match c {
                Constant::Number(n) => Value::number(*n),
                Constant::String(units) => Value::string(
                    self.heap
                        .intern_units(crate::heap::string::Units::Utf16(units)),
                ),
                Constant::BigInt(digits) => {
                    match crate::builtins::bigint::parse_bigint_literal(digits) {
                        Some(b) => Value::bigint(self.heap.alloc_bigint(b)),
                        None => Value::UNDEFINED,
                    }
                }
                Constant::Function(i) => Value::int(*i as i32),
                Constant::RegExp { .. } | Constant::Template { .. } | Constant::EvalScope(_) => {
                    Value::UNDEFINED
                }
            })
            .collect();
        let sites: Box<[PropertyKey]> = code
            .property_sites
            .iter()
            .map(|units| {
                let atom = self
                    .heap
                    .intern_units(crate::heap::string::Units::Utf16(units));
                self.key_from_string(atom)
            })
            .collect();
        let caches = sites
            .iter()
            .map(|_| Cell::new(InlineCache::Empty))
            .collect();
        let misses = sites.iter().map(|_| Cell::new(0)).collect();
        let needs_arguments = code.instructions.iter().any(|i| {
            matches!(
                i,
                kiln_bytecode::Instr::CreateArguments { .. }
                    | kiln_bytecode::Instr::CreateRestArray { .. }
                    | kiln_bytecode::Instr::SuperCallForward { .. }
            )
        });
        let name = self
            .heap
            .intern_units(crate::heap::string::Units::Utf16(&code.name));
        CodeBlock {
            kind: code.kind,
            strict: code.strict,
            register_count: code.register_count,
            param_count: code.param_count,
            code,
            name,
            script,
            realm: self.realm,
            constants,
            sites,
            caches,
            misses,
            templates: RefCell::new(Vec::new()),
            regexps: RefCell::new(Vec::new()),
            needs_arguments,
        }
    }

    /// Run a script's top-level code and return its completion value.
    pub fn run_script(&mut self, source: &str, name: &str) -> JsResult<Value> {
        let block = self.load(source, name, ScriptKind::Script, false)?;
        self.run_top_level(block)
    }

    pub fn run_top_level(&mut self, block: Rc<CodeBlock>) -> JsResult<Value> {
        let callee = self.intrinsics.throw_type_error;
        let this = Value::object(self.intrinsics.global);
        self.push_frame(
            block,
            callee,
            None,
            this,
            &[],
            Value::UNDEFINED,
            ReturnTo::Exit,
            false,
        )?;
        match self.run()? {
            Exit::Return(v) => Ok(v),
            Exit::Yield(_) | Exit::Await(_) => {
                Err(self.syntax_error("top-level await is not supported in scripts"))
            }
        }
    }

    /// Run an agent script's top level like the body of an async function: returns
    /// its promise, which a `return` or the completion value fulfils and an uncaught
    /// exception rejects. Only a termination is an error here.
    pub fn run_agent_script(&mut self, block: Rc<CodeBlock>) -> JsResult<Value> {
        let promise = self.new_promise();
        let callee = self.intrinsics.throw_type_error;
        self.push_frame(
            block,
            callee,
            None,
            Value::UNDEFINED,
            &[],
            Value::UNDEFINED,
            ReturnTo::Exit,
            false,
        )?;
        self.run_top_frame_async(promise)?;
        Ok(Value::object(promise))
    }

    /// Run the frame just pushed like the body of an async function whose promise is
    /// `promise`: awaits suspend it, a return fulfils the promise and a throw rejects it;
    /// only a termination is an error here.
    pub(crate) fn run_top_frame_async(&mut self, promise: ObjectId) -> JsResult<()> {
        let state = self.new_generator_state(
            generator::SuspendKind::Async,
            self.intrinsics.object_prototype,
        );
        if let ObjectKind::Generator(g) = &mut self.heap.object_mut(state).kind {
            g.promise = Some(promise);
            g.status = generator::GeneratorStatus::Executing;
        }
        self.frames
            .last_mut()
            .expect("a frame was pushed")
            .generator = Some(state);
        self.run()?;
        Ok(())
    }

    // ---- exceptions ----

    /// Throw `value`.
    pub fn throw(&mut self, value: Value) -> Thrown {
        self.exception = value;
        Thrown
    }

    pub fn type_error(&mut self, msg: impl AsRef<str>) -> Thrown {
        let proto = self.intrinsics.type_error_prototype;
        self.throw_new_error(proto, msg.as_ref())
    }

    pub fn range_error(&mut self, msg: impl AsRef<str>) -> Thrown {
        let proto = self.intrinsics.range_error_prototype;
        self.throw_new_error(proto, msg.as_ref())
    }

    pub fn reference_error(&mut self, msg: impl AsRef<str>) -> Thrown {
        let proto = self.intrinsics.reference_error_prototype;
        self.throw_new_error(proto, msg.as_ref())
    }

    pub fn syntax_error(&mut self, msg: impl AsRef<str>) -> Thrown {
        let proto = self.intrinsics.syntax_error_prototype;
        self.throw_new_error(proto, msg.as_ref())
    }

    fn throw_new_error(&mut self, proto: ObjectId, msg: &str) -> Thrown {
        let e = self.new_error(proto, msg);
        self.throw(Value::object(e))
    }

    /// A new error object with `message` and a `stack` captured from the current frames.
    pub fn new_error(&mut self, proto: ObjectId, msg: &str) -> ObjectId {
        let obj = self.heap.new_object(Some(proto), ObjectKind::Error);
        if !msg.is_empty() {
            let m = self.string_value(msg);
            self.define_builtin(
                obj,
                PropertyKey::String(self.atoms.message),
                m,
                crate::object::Attrs::HIDDEN,
            );
        }
        self.attach_stack(obj);
        obj
    }

    /// Define `stack` on an error object: `Name: message` then one `at` line per frame.
    pub fn attach_stack(&mut self, obj: ObjectId) {
        let (name, msg) = self.peek_error_name_and_message(obj);
        let mut text = name;
        if !msg.is_empty() {
            text.push_str(": ");
            text.push_str(&msg);
        }
        self.write_stack_trace(&mut text);
        let v = self.string_value(&text);
        self.define_builtin(
            obj,
            PropertyKey::String(self.atoms.stack),
            v,
            crate::object::Attrs::HIDDEN,
        );
    }

    /// An error's `name` (`Error` when it has none) and `message` (empty when it has
    /// none), read without running any code.
    pub(crate) fn peek_error_name_and_message(&mut self, obj: ObjectId) -> (String, String) {
        let name = self
            .peek_string_property(obj, PropertyKey::String(self.atoms.name))
            .unwrap_or_else(|| "Error".into());
        let message = self
            .peek_string_property(obj, PropertyKey::String(self.atoms.message))
            .unwrap_or_default();
        (name, message)
    }

    /// A string-valued data property found along the prototype chain, read without
    /// running any code.
    pub(crate) fn peek_string_property(
        &mut self,
        mut obj: ObjectId,
        key: PropertyKey,
    ) -> Option<String> {
        loop {
            if let Some(p) = self.heap.own_property(obj, key) {
                return p
                    .value
                    .as_string()
                    .filter(|_| !p.attrs.is_accessor())
                    .map(|s| self.heap.string_to_rust(s));
            }
            obj = self.heap.object(obj).proto?;
        }
    }

    /// Append `\n    at function (file:line:column)` for each live frame, innermost
    /// first, at most 64. Every error pays this at construction, so it writes into
    /// `text` without a string per frame.
    fn write_stack_trace(&self, text: &mut String) {
        use std::fmt::Write;
        for frame in self.frames.iter().rev().take(64) {
            let code = &frame.code.code;
            let script = &self.scripts[frame.code.script as usize];
            let pc = frame.pc.saturating_sub(1) as usize;
            text.push_str("\n    at ");
            let named = !code.name.is_empty() && code.kind != kiln_bytecode::FunctionKind::Script;
            if named {
                text.extend(
                    char::decode_utf16(code.name.iter().copied())
                        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)),
                );
                text.push_str(" (");
            }
            text.push_str(&script.name);
            if let Some(offset) = code.position_of(pc) {
                let (line, column) = script.line_column(offset);
                // writing to a String cannot fail
                let _ = write!(text, ":{line}:{column}");
            }
            if named {
                text.push(')');
            }
        }
    }

    /// The source position of the innermost frame: (script index, line, column).
    pub fn current_position(&self) -> Option<(usize, u32, u32)> {
        let frame = self.frames.last()?;
        let off = frame
            .code
            .code
            .position_of(frame.pc.saturating_sub(1) as usize)?;
        let script = frame.code.script as usize;
        let (l, c) = self.scripts[script].line_column(off);
        Some((script, l, c))
    }

    // ---- garbage collection ----

    /// Collect garbage now. Only at safe points: see the module invariants.
    pub fn collect_garbage(&mut self) {
        self.regexp_memo = None;
        for &v in &self.stack {
            self.heap.mark_value(v);
        }
        for &v in self.roots.iter().chain(&self.kept_alive) {
            self.heap.mark_value(v);
        }
        for &v in &self.pinned {
            self.heap.mark_value(v);
        }
        self.heap.mark_value(self.exception);
        if let Some((v, _)) = self.rejection_origin {
            // kept so that no other value takes its id and its place
            self.heap.mark_value(v);
        }
        for f in &self.frames {
            self.heap.mark_object(f.callee);
            self.heap.mark_value(f.new_target);
            if let Some(e) = f.env {
                self.heap.mark_env(e);
            }
            if let Some(g) = f.generator {
                self.heap.mark_object(g);
            }
        }
        for o in self.intrinsics.all() {
            self.heap.mark_object(o);
        }
        self.heap.mark_value(self.shapes.strict_callee);
        for (i, realm) in self.realms.iter().enumerate() {
            if i != self.realm.0 as usize {
                for o in realm.intrinsics.all() {
                    self.heap.mark_object(o);
                }
                for &(v, _) in &realm.global_lexical_values {
                    self.heap.mark_value(v);
                }
                self.heap.mark_value(realm.shapes.strict_callee);
            }
        }
        for script in &self.scripts {
            for block in &script.blocks {
                for &c in block.constants.iter() {
                    self.heap.mark_value(c);
                }
                for &(_, t) in block.templates.borrow().iter() {
                    self.heap.mark_object(t);
                }
                for literal in block.regexps.borrow().iter() {
                    self.heap.mark_value(Value::string(literal.source));
                    self.heap.mark_value(Value::string(literal.flags));
                }
            }
        }
        for job in &self.jobs {
            let values = match *job {
                Job::Reaction {
                    reaction, argument, ..
                } => [Value::object(reaction), argument, Value::UNDEFINED],
                Job::ResolveThenable {
                    promise,
                    thenable,
                    then,
                } => [Value::object(promise), thenable, then],
                Job::Call { func, this, arg } => [func, this, arg],
            };
            for v in values {
                self.heap.mark_value(v);
            }
        }
        for w in &self.agent.waits {
            self.heap.mark_object(w.promise);
        }
        let mut host_values = Vec::new();
        self.host.trace(&mut host_values);
        for v in host_values {
            self.heap.mark_value(v);
        }
        for &(v, _) in &self.global_lexical_values {
            self.heap.mark_value(v);
        }
        let (mut values, mut envs) = (Vec::new(), Vec::new());
        self.modules.roots(&mut values, &mut envs);
        for v in values {
            self.heap.mark_value(v);
        }
        for e in envs {
            self.heap.mark_env(e);
        }
        for (_, &s) in self.symbol_registry.iter() {
            self.heap.mark_value(Value::symbol(s));
        }
        for (_, s) in self.symbols.all() {
            self.heap.mark_value(Value::symbol(s));
        }
        for s in self.small_int_strings.iter().flatten() {
            self.heap.mark_value(Value::string(*s));
        }
        self.heap.set_external(self.external_bytes());
        self.heap.finish_collection();
        // HostEnqueueFinalizationRegistryCleanupJob, one job per dead cell; the queue's
        // growth is counted now, so that the limit check after this collection sees it
        let finalized = std::mem::take(&mut self.heap.finalized);
        let capacity = self.jobs.capacity();
        self.jobs.reserve(finalized.len());
        self.heap
            .note_growth((self.jobs.capacity() - capacity) * size_of::<Job>());
        for (func, arg) in finalized {
            self.jobs.push_back(Job::Call {
                func,
                this: Value::UNDEFINED,
                arg,
            });
        }
    }

    /// A safe point (loop back-edges, function entry, between jobs): collect if
    /// allocation pressure asks for it or the heap is over its limit, then charge `fuel`.
    #[inline(always)]
    pub fn safe_point(&mut self, fuel: u64) -> JsResult<()> {
        if self.collection_due() {
            self.collect_and_check_limit()?;
        }
        self.charge(fuel)
    }

    /// Allocation pressure asks for a collection, or the heap is over its limit (the
    /// heap is given the limit whenever the runtime is entered).
    #[inline(always)]
    pub(crate) fn collection_due(&self) -> bool {
        self.heap.wants_collection()
    }

    /// Collect, then end the run if the heap is still over its limit. Only at safe points.
    #[cold]
    pub(crate) fn collect_and_check_limit(&mut self) -> JsResult<()> {
        self.collect_garbage();
        if self.heap.bytes() > self.limits.max_heap_bytes {
            return Err(self.terminate(Termination::HeapLimit));
        }
        Ok(())
    }

    /// Bytes the VM holds outside the heap's cells, as the heap counts them
    /// ([`Heap::set_external`]): the value stack, frames, roots, the job queue and loaded
    /// code.
    pub fn external_bytes(&self) -> usize {
        (self.stack.capacity() + self.roots.capacity() + self.kept_alive.capacity())
            * size_of::<Value>()
            + self.frames.capacity() * size_of::<Frame>()
            + self.jobs.capacity() * size_of::<Job>()
            + self.polymorphic.capacity() * size_of::<PolymorphicEntries>()
            // a hash table's entries and their control bytes
            + self.symbol_registry.capacity()
                * (size_of::<(StringId, crate::heap::SymbolId)>() + 1)
            + self.code_bytes
    }

    /// Reserve `bytes` that native code is about to allocate outside the heap's cells for
    /// a while (a string being built, an argument list, a compiler's syntax tree): ends
    /// the run with [`Termination::HeapLimit`] when they would take the heap past its
    /// limit, and otherwise counts them until the next collection.
    pub fn reserve_bytes(&mut self, bytes: usize) -> JsResult<()> {
        self.check_room(bytes)?;
        self.heap.note_growth(bytes);
        Ok(())
    }

    /// End the run with [`Termination::HeapLimit`] unless `bytes` more fit under the heap
    /// limit (for storage about to be allocated that the heap then counts itself).
    pub fn check_room(&mut self, bytes: usize) -> JsResult<()> {
        if self.heap.bytes().saturating_add(bytes) > self.limits.max_heap_bytes {
            return Err(self.terminate(Termination::HeapLimit));
        }
        Ok(())
    }

    /// Make room in `out` for `additional` more items, reserving the storage it grows by
    /// ([`Vm::reserve_bytes`]) before it is allocated: for vectors a built-in fills (string
    /// builders, argument lists). While the vector moves, its old and new storage exist
    /// together, so the whole new storage must fit beside what is counted.
    pub fn grow_scratch<T>(&mut self, out: &mut Vec<T>, additional: usize) -> JsResult<()> {
        let needed = out.len().saturating_add(additional);
        if needed <= out.capacity() {
            return Ok(());
        }
        let capacity = needed.max(out.capacity() * 2).max(16);
        self.check_room(capacity.saturating_mul(size_of::<T>()))?;
        self.reserve_bytes((capacity - out.capacity()) * size_of::<T>())?;
        out.reserve_exact(capacity - out.len());
        Ok(())
    }

    /// Start an uncatchable termination: no handler runs while it unwinds.
    pub fn terminate(&mut self, why: Termination) -> Thrown {
        let message = why.message();
        self.termination = Some(why);
        let e = self.new_error(self.intrinsics.range_error_prototype, message);
        self.throw(Value::object(e))
    }

    /// End a termination so the runtime can be used again; returns why it stopped.
    pub fn clear_termination(&mut self) -> Option<Termination> {
        self.interrupt
            .store(false, std::sync::atomic::Ordering::Relaxed);
        self.termination.take()
    }

    // ---- jobs ----

    pub fn enqueue_job(&mut self, job: Job) {
        self.jobs.push_back(job);
    }

    /// Run queued jobs until the queue is empty. A job that throws stops the run
    /// (the remaining jobs stay queued).
    pub fn run_jobs(&mut self) -> JsResult<()> {
        let mut ran = 0u32;
        loop {
            // Between jobs nothing is held outside the roots: a safe point, so a guest
            // whose jobs only schedule more jobs is collected and held to its heap limit.
            self.safe_point(0)?;
            let Some(job) = self.jobs.pop_front() else {
                break;
            };
            // A guest that keeps the queue busy (a promise-based polling loop) still sees
            // its `Atomics.waitAsync` waiters settle.
            ran = ran.wrapping_add(1);
            if ran.is_multiple_of(256) && !self.agent.waits.is_empty() {
                self.settle_async_waits()?;
            }
            match job {
                Job::Reaction {
                    reaction,
                    argument,
                    rejected,
                } => {
                    crate::builtins::promise::run_reaction_job(self, reaction, argument, rejected)?
                }
                Job::ResolveThenable {
                    promise,
                    thenable,
                    then,
                } => crate::builtins::promise::run_resolve_thenable_job(
                    self, promise, thenable, then,
                )?,
                Job::Call { func, this, arg } => {
                    self.call(func, this, &[arg])?;
                }
            }
        }
        // ClearKeptObjects: no job is running any more
        self.kept_alive.clear();
        Ok(())
    }

    /// HostEnsureCanCompileStrings: an EvalError unless code generation from strings is
    /// allowed.
    pub fn ensure_can_compile_strings(&mut self) -> JsResult<()> {
        if self.allow_code_generation {
            return Ok(());
        }
        let proto = self.intrinsics.eval_error_prototype;
        Err(self.throw_new_error(proto, "code generation from strings is disabled"))
    }

    /// Take the pending exception value.
    pub fn take_exception(&mut self) -> Value {
        self.exception_origin = None;
        std::mem::replace(&mut self.exception, Value::UNDEFINED)
    }

    /// The pending exception, as a guest `catch` or a promise rejection receives it; an
    /// uncatchable termination stays an error, so no built-in turns it into a value.
    pub fn catch_thrown(&mut self) -> JsResult<Value> {
        if self.terminating() {
            return Err(crate::Thrown);
        }
        Ok(self.take_exception())
    }
}

/// Peak bytes the compiler holds per byte of source it compiles (oxc's syntax tree and
/// semantic tables, Kiln's scopes and bytecode), measured on large sources: 9.4 MB of
/// calls and member expressions peaked at 343 MB (36 bytes per byte) above the idle process.
const COMPILER_BYTES_PER_SOURCE_BYTE: usize = 40;

/// What the allocator spends on the separate allocations of one function's code (about
/// twenty vectors and boxes) and of one script beyond its functions (source, name, line
/// table, block list). Calibrated on 100,000 evals: of `(i)` the process grew by 83 MB, of
/// `(function () { return i; })` by 175 MB, each a little below this estimate.
const ALLOCATIONS_PER_FUNCTION: usize = 320;
const ALLOCATIONS_PER_SCRIPT: usize = 128;

/// The compiler's output, checked as bytecode from outside is ([`ValidScript::new`]),
/// since the interpreter reads registers and instructions unchecked on that ground: a
/// compiler bug becomes a panic here (an engine error of the runtime), never a wild read.
pub(crate) fn compiler_output(script: Script) -> ValidScript {
    ValidScript::new(script).unwrap_or_else(|e| panic!("the compiler made invalid bytecode: {e}"))
}

/// The estimated bytes a loaded script keeps: its source and line table, and per function
/// its bytecode, constants, property sites and their inline caches.
fn script_bytes(script: &Script) -> usize {
    use kiln_bytecode::Instr;
    let constant = |c: &Constant| {
        size_of::<Constant>()
            + size_of::<Value>()
            + match c {
                Constant::String(units) => units.len() * 2,
                Constant::BigInt(digits) => digits.len(),
                Constant::RegExp { pattern, flags } => pattern.len() * 2 + flags.len(),
                Constant::Template { cooked, raw } => {
                    (cooked.len() + raw.len()) * 32 + raw.iter().map(|r| r.len() * 4).sum::<usize>()
                }
                Constant::EvalScope(scope) => {
                    size_of::<kiln_bytecode::EvalScope>() + scope.envs.len() * 256
                }
                Constant::Number(_) | Constant::Function(_) => 0,
            }
    };
    let function = |f: &FunctionCode| {
        ALLOCATIONS_PER_FUNCTION
            + size_of::<CodeBlock>()
            + f.name.len() * 2
            + f.instructions.len() * size_of::<Instr>()
            + f.constants.iter().map(constant).sum::<usize>()
            + f.property_sites
                .iter()
                .map(|s| s.len() * 2 + 24 + size_of::<PropertyKey>() + size_of::<InlineCache>() + 1)
                .sum::<usize>()
            + f.handlers.len() * size_of::<kiln_bytecode::Handler>()
            + f.positions.len() * 8
    };
    ALLOCATIONS_PER_SCRIPT
        + size_of::<LoadedScript>() * 2
        + script.source.len() * 5 / 4
        + script.source_name.len()
        + script.functions.iter().map(function).sum::<usize>()
}

/// A seed for `Math.random` that differs between runtimes (hosts that need a
/// reproducible sequence set `Vm::random_state`). Never zero: xorshift would stay at zero.
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0x2545_F491_4F6C_DD1D);
    h.finish() | 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(shape: u32, slot: u32) -> InlineCache {
        InlineCache::Own {
            shape: ShapeId(shape),
            slot,
        }
    }

    fn slot_for(p: &PolymorphicEntries, shape: u32) -> Option<u32> {
        match p.get(ShapeId(shape))? {
            InlineCache::Own { slot, .. } => Some(slot),
            other => panic!("unexpected entry {other:?}"),
        }
    }

    #[test]
    fn polymorphic_entries_keep_one_entry_per_shape_and_evict_the_least_recent() {
        let mut p = PolymorphicEntries::new(own(2, 20), own(1, 10));
        assert_eq!((slot_for(&p, 1), slot_for(&p, 2)), (Some(10), Some(20)));
        assert_eq!(slot_for(&p, 3), None);
        // a new entry for a shape the site has replaces the old one, not another
        p.insert(own(1, 11));
        for shape in 3..=POLYMORPHIC_ENTRIES as u32 {
            p.insert(own(shape, shape * 10));
        }
        assert_eq!(slot_for(&p, 1), Some(11));
        assert_eq!(slot_for(&p, 2), Some(20));
        // full: the next shape takes the place of the least recently filled (shape 2)
        p.insert(own(99, 990));
        assert_eq!(slot_for(&p, 2), None);
        assert_eq!((slot_for(&p, 99), slot_for(&p, 1)), (Some(990), Some(11)));
    }

    #[test]
    fn a_polymorphic_dictionary_entry_serves_dictionary_mode_receivers() {
        let dict = InlineCache::DictOwn { position: 3 };
        let p = PolymorphicEntries::new(dict, own(5, 0));
        assert!(matches!(
            p.get(ShapeId::DICTIONARY),
            Some(InlineCache::DictOwn { position: 3 })
        ));
    }
}
