//! Writing the payload: the VM at rest (no frame on the stack, nothing queued) as
//! compiler recipes, shapes, every heap cell and the host's outstanding calls.
//!
//! The order of sections is the order [`super::read`] needs them: cells before the
//! scripts (compiling again interns into the restored heap), scripts before objects
//! (closures and suspended frames name their code by script and block).

use super::codec::Writer;
use super::natives::Registry;
use super::{SnapshotError, SnapshotErrorKind};
use crate::builtins::array_buffer::Bytes;
use crate::builtins::disposable_stack::{DisposeCall, StackBrand};
use crate::builtins::promise::Status;
use crate::builtins::typed_array::ElementType;
use crate::heap::string::{JsStr, Units};
use crate::heap::{Env, StringId, Symbol};
use crate::host::HostValue;
use crate::interpreter::generator::{
    GeneratorState, GeneratorStatus, ResumeMode, SavedFrame, SuspendKind,
};
use crate::interpreter::{CodeBlock, Job, Recipe, Vm};
use crate::object::shape::{ShapeId, ShapeOrigin};
use crate::object::{Elements, IterationKind, Object, ObjectKind, PropertyKey};
use crate::value::{Kind, Value};
use kiln_bytecode::ScriptKind;
use num_bigint::BigInt;
use rustc_hash::FxHashMap;
use std::ops::Range;
use std::rc::Rc;

/// Where each cell of an arena was written in full (None: free or unchanged).
pub(super) type CellRanges = Vec<Option<Range<usize>>>;

/// A pristine realm's encoding and where each cell of one of its arenas is in it.
#[derive(Clone, Copy)]
pub(super) struct Base<'a> {
    pub bytes: &'a [u8],
    pub cells: &'a [Option<Range<usize>>],
}

/// How an arena slot is written.
pub(super) mod slot_tag {
    pub const FREE: u8 = 0;
    pub const FULL: u8 = 1;
    /// the same cell as the pristine realm's at this index
    pub const PRISTINE: u8 = 2;
}

/// Tags of [`Value`] kinds.
pub(super) mod tag {
    pub const UNDEFINED: u8 = 0;
    pub const NULL: u8 = 1;
    pub const FALSE: u8 = 2;
    pub const TRUE: u8 = 3;
    pub const HOLE: u8 = 4;
    pub const INT: u8 = 5;
    pub const DOUBLE: u8 = 6;
    pub const STRING: u8 = 7;
    pub const SYMBOL: u8 = 8;
    pub const BIGINT: u8 = 9;
    pub const OBJECT: u8 = 10;
}

pub(super) struct PayloadWriter<'a> {
    pub w: Writer,
    registry: &'a Registry,
    /// each loaded code block -> (script, block)
    blocks: FxHashMap<*const CodeBlock, (u32, u32)>,
}

fn unsupported(message: impl Into<String>) -> SnapshotError {
    SnapshotError::new(SnapshotErrorKind::Unsupported, message)
}

impl<'a> PayloadWriter<'a> {
    pub fn new(vm: &Vm, registry: &'a Registry) -> Self {
        let mut blocks = FxHashMap::default();
        for (s, script) in vm.scripts.iter().enumerate() {
            for (b, block) in script.blocks.iter().enumerate() {
                blocks.insert(Rc::as_ptr(block), (s as u32, b as u32));
            }
        }
        PayloadWriter {
            w: Writer::default(),
            registry,
            blocks,
        }
    }

    pub fn value(&mut self, v: Value) {
        let w = &mut self.w;
        match v.kind() {
            Kind::Undefined => w.u8(tag::UNDEFINED),
            Kind::Null => w.u8(tag::NULL),
            Kind::Bool(false) => w.u8(tag::FALSE),
            Kind::Bool(true) => w.u8(tag::TRUE),
            Kind::Hole => w.u8(tag::HOLE),
            Kind::Int(i) => {
                w.u8(tag::INT);
                w.u32(i as u32);
            }
            Kind::Double(d) => {
                w.u8(tag::DOUBLE);
                w.f64(d);
            }
            Kind::String(s) => {
                w.u8(tag::STRING);
                w.u32(s.0);
            }
            Kind::Symbol(s) => {
                w.u8(tag::SYMBOL);
                w.u32(s.0);
            }
            Kind::BigInt(b) => {
                w.u8(tag::BIGINT);
                w.u32(b.0);
            }
            Kind::Object(o) => {
                w.u8(tag::OBJECT);
                w.u32(o.0);
            }
        }
    }

    fn values(&mut self, vs: &[Value]) {
        self.w.usize(vs.len());
        for &v in vs {
            self.value(v);
        }
    }

    fn key(&mut self, k: PropertyKey) {
        match k {
            PropertyKey::String(s) => {
                self.w.u8(0);
                self.w.u32(s.0);
            }
            PropertyKey::Symbol(s) => {
                self.w.u8(1);
                self.w.u32(s.0);
            }
            PropertyKey::Index(i) => {
                self.w.u8(2);
                self.w.u32(i);
            }
        }
    }

    fn code(&mut self, code: &Rc<CodeBlock>) -> Result<(), SnapshotError> {
        let &(script, block) = self
            .blocks
            .get(&Rc::as_ptr(code))
            .ok_or_else(|| unsupported("a function's code is not loaded in this runtime"))?;
        self.w.u32(script);
        self.w.u32(block);
        Ok(())
    }

    // ---- sections ----

    /// The number of realms, then each script with the realm it was loaded in.
    pub fn scripts(&mut self, vm: &Vm) -> Result<(), SnapshotError> {
        self.w.usize(vm.realms.len());
        self.w.usize(vm.scripts.len());
        for script in &vm.scripts {
            self.w.u32(script.realm.0);
            let kind = match script.kind {
                ScriptKind::Script => 0,
                ScriptKind::Eval => 1,
                ScriptKind::Agent => 2,
                ScriptKind::Module => {
                    return Err(unsupported("modules cannot be snapshotted yet"));
                }
            };
            self.w.str(&script.source);
            self.w.str(&script.name);
            self.w.u8(kind);
            match script.recipe {
                Recipe::Compile { strict } => {
                    self.w.u8(0);
                    self.w.bool(strict);
                }
                Recipe::DirectEval {
                    strict,
                    script,
                    block,
                    constant,
                } => {
                    self.w.u8(1);
                    self.w.bool(strict);
                    self.w.u32(script);
                    self.w.u32(block);
                    self.w.u32(constant);
                }
            }
            self.w.usize(script.blocks.len());
            for block in &script.blocks {
                let templates = block.templates.borrow();
                self.w.usize(templates.len());
                for &(constant, object) in templates.iter() {
                    self.w.u32(constant as u32);
                    self.w.u32(object.0);
                }
            }
        }
        Ok(())
    }

    /// The shapes made after the first `from` (which every VM's table starts with).
    pub fn shapes(&mut self, vm: &Vm, from: usize) {
        let table = &vm.heap.shapes;
        self.w.usize(table.count() - from);
        for id in from..table.count() {
            match table.origin(ShapeId(id as u32)) {
                Some(ShapeOrigin::Child(parent, key, attrs)) => {
                    self.w.u8(1);
                    self.w.u32(parent.0);
                    self.key(key);
                    self.w.u8(attrs.0);
                }
                Some(ShapeOrigin::Root(proto)) => {
                    self.w.u8(0);
                    self.w.option(proto, |w, p| w.u32(p.0));
                }
                // only shape 0 (dictionary mode) has no origin, and it is never written
                None => {}
            }
        }
    }

    /// Write an arena slot by slot: free, in full, or unchanged from the pristine realm
    /// (`base`: the pristine encoding and the range of each of its cells). Returns the
    /// range of each cell written in full.
    pub fn arena<'v, T: 'v>(
        &mut self,
        slots: impl ExactSizeIterator<Item = Option<&'v T>>,
        base: Option<Base<'_>>,
        mut encode: impl FnMut(&mut Self, &T) -> Result<(), SnapshotError>,
    ) -> Result<CellRanges, SnapshotError> {
        self.w.usize(slots.len());
        let mut ranges = Vec::with_capacity(slots.len());
        for (i, slot) in slots.enumerate() {
            let Some(cell) = slot else {
                self.w.u8(slot_tag::FREE);
                ranges.push(None);
                continue;
            };
            self.w.u8(slot_tag::FULL);
            let start = self.w.bytes.len();
            encode(self, cell)?;
            let written = start..self.w.bytes.len();
            let unchanged = base.is_some_and(|base| {
                matches!(base.cells.get(i), Some(Some(r)) if base.bytes[r.clone()] == self.w.bytes[written.clone()])
            });
            if unchanged {
                self.w.bytes.truncate(start - 1);
                self.w.u8(slot_tag::PRISTINE);
                ranges.push(None);
            } else {
                ranges.push(Some(written));
            }
        }
        Ok(ranges)
    }

    /// A flat string (ropes are flattened and slices given their own units before
    /// writing).
    pub fn string(&mut self, s: &JsStr) -> Result<(), SnapshotError> {
        match s.data.units() {
            Some(Units::Latin1(b)) => {
                self.w.u8(1);
                self.w.bytes(b);
            }
            Some(Units::Utf16(u)) => {
                self.w.u8(2);
                self.w.units(u);
            }
            None => return Err(unsupported("a string was not flattened")),
        }
        self.w.bool(s.is_atom);
        Ok(())
    }

    pub fn symbol(&mut self, s: &Symbol) -> Result<(), SnapshotError> {
        self.w.option(s.description, |w, d| w.u32(d.0));
        self.w.bool(s.is_private);
        self.w.bool(s.registered);
        Ok(())
    }

    pub fn bigint(&mut self, b: &BigInt) -> Result<(), SnapshotError> {
        self.w.bytes(&b.to_signed_bytes_le());
        Ok(())
    }

    pub fn env(&mut self, e: &Env) -> Result<(), SnapshotError> {
        self.w.option(e.parent, |w, p| w.u32(p.0));
        self.values(&e.slots);
        Ok(())
    }

    pub fn object(&mut self, o: &Object) -> Result<(), SnapshotError> {
        self.w.u32(o.shape.0);
        self.w.option(o.proto, |w, p| w.u32(p.0));
        self.values(&o.slots);
        match &o.elements {
            Elements::Dense(v) => {
                self.w.u8(0);
                self.values(v);
            }
            Elements::Sparse(s) => {
                self.w.u8(1);
                self.w.u32(s.length);
                self.w.usize(s.map.len());
                for (&i, p) in &s.map {
                    self.w.u32(i);
                    self.value(p.value);
                    self.w.u8(p.attrs.0);
                }
            }
        }
        match &o.dict {
            None => self.w.u8(0),
            Some(d) => {
                self.w.u8(1);
                self.w.usize(d.len());
                for (k, p) in d.iter() {
                    self.key(k);
                    self.value(p.value);
                    self.w.u8(p.attrs.0);
                }
            }
        }
        self.kind(&o.kind)?;
        self.w.bool(o.extensible);
        self.w.bool(o.used_as_prototype);
        self.w.bool(o.hardened);
        Ok(())
    }

    fn kind(&mut self, kind: &ObjectKind) -> Result<(), SnapshotError> {
        match kind {
            ObjectKind::Ordinary => self.w.u8(0),
            ObjectKind::Array { length_writable } => {
                self.w.u8(1);
                self.w.bool(*length_writable);
            }
            ObjectKind::Closure(c) => {
                self.w.u8(2);
                self.code(&c.code)?;
                self.w.option(c.env, |w, e| w.u32(e.0));
                self.w.option(c.home_object(), |w, o| w.u32(o.0));
                self.w.option(c.fields(), |w, o| w.u32(o.0));
            }
            ObjectKind::Native(n) => {
                self.w.u8(3);
                let position = self.registry.position(n.func).ok_or_else(|| {
                    unsupported(
                        "a native function the host defined with register_function \
                         cannot be snapshotted (use a capability)",
                    )
                })?;
                self.w.u32(position);
                self.w.bool(n.constructor);
                self.values(&n.data);
                self.w.u32(n.realm.0);
            }
            ObjectKind::Bound(b) => {
                self.w.u8(4);
                self.w.u32(b.target.0);
                self.value(b.this);
                self.values(&b.args);
            }
            ObjectKind::Accessor { get, set } => {
                self.w.u8(5);
                self.value(*get);
                self.value(*set);
            }
            ObjectKind::Error => self.w.u8(6),
            ObjectKind::RawJson => self.w.u8(34),
            ObjectKind::Boolean(b) => {
                self.w.u8(7);
                self.w.bool(*b);
            }
            ObjectKind::Number(n) => {
                self.w.u8(8);
                self.w.f64(*n);
            }
            ObjectKind::String(s) => {
                self.w.u8(9);
                self.w.u32(s.0);
            }
            ObjectKind::Symbol(s) => {
                self.w.u8(10);
                self.w.u32(s.0);
            }
            ObjectKind::BigInt(b) => {
                self.w.u8(11);
                self.w.u32(b.0);
            }
            ObjectKind::Date(t) => {
                self.w.u8(12);
                self.w.f64(*t);
            }
            ObjectKind::RegExp(r) => {
                self.w.u8(13);
                self.w.u32(r.source.0);
                self.w.u32(r.flags.0);
                self.w.bool(r.legacy);
                self.w.u32(r.realm.0);
            }
            ObjectKind::Map(m)
            | ObjectKind::Set(m)
            | ObjectKind::WeakMap(m)
            | ObjectKind::WeakSet(m) => {
                self.w.u8(match kind {
                    ObjectKind::Map(_) => 14,
                    ObjectKind::Set(_) => 15,
                    ObjectKind::WeakMap(_) => 16,
                    _ => 17,
                });
                let (entries, pins) = m.snapshot_parts();
                self.w.u32(pins);
                self.w.usize(entries.len());
                for e in entries {
                    match e {
                        None => self.w.u8(0),
                        Some((k, v)) => {
                            self.w.u8(1);
                            self.value(*k);
                            self.value(*v);
                        }
                    }
                }
            }
            ObjectKind::Promise(p) => {
                self.w.u8(18);
                self.w.u8(match p.status {
                    Status::Pending => 0,
                    Status::Fulfilled => 1,
                    Status::Rejected => 2,
                });
                self.value(p.result);
                self.w.usize(p.reactions.len());
                for r in p.reactions.iter() {
                    self.w.u32(r.0);
                }
                self.w.bool(p.is_handled);
            }
            ObjectKind::Arguments { env, mapped } => {
                self.w.u8(19);
                self.w.option(*env, |w, e| w.u32(e.0));
                self.w.usize(mapped.len());
                for &m in mapped.iter() {
                    self.w.bool(m);
                }
            }
            ObjectKind::Generator(g) => {
                self.w.u8(20);
                self.generator(g)?;
            }
            ObjectKind::ArrayIterator {
                target,
                index,
                kind,
            } => {
                self.w.u8(21);
                self.value(*target);
                self.w.u32(*index);
                self.w.u8(iteration_kind(*kind));
            }
            ObjectKind::MapIterator {
                target,
                index,
                kind,
                set,
            } => {
                self.w.u8(22);
                self.w.u32(target.0);
                self.w.u32(*index);
                self.w.u8(iteration_kind(*kind));
                self.w.bool(*set);
            }
            ObjectKind::StringIterator { target, index } => {
                self.w.u8(23);
                self.w.u32(target.0);
                self.w.u32(*index);
            }
            ObjectKind::RegExpStringIterator {
                regexp,
                string,
                global,
                unicode,
                done,
            } => {
                self.w.u8(24);
                self.w.u32(regexp.0);
                self.w.u32(string.0);
                self.w.bool(*global);
                self.w.bool(*unicode);
                self.w.bool(*done);
            }
            ObjectKind::ForInIterator(f) => {
                self.w.u8(25);
                self.w.option(f.object, |w, o| w.u32(o.0));
                self.values(&f.keys);
                self.w.usize(f.index);
                self.w.usize(f.visited.len());
                for &k in &f.visited {
                    self.key(k);
                }
                self.w.bool(f.own_only);
            }
            ObjectKind::ModuleNamespace(_) => {
                return Err(unsupported("modules cannot be snapshotted yet"));
            }
            ObjectKind::Proxy {
                target,
                handler,
                callable,
                constructor,
            } => {
                self.w.u8(26);
                self.w.option(*target, |w, o| w.u32(o.0));
                self.w.option(*handler, |w, o| w.u32(o.0));
                self.w.bool(*callable);
                self.w.bool(*constructor);
            }
            ObjectKind::Internal(v) => {
                self.w.u8(27);
                self.values(v);
            }
            ObjectKind::ArrayBuffer(b) => {
                self.w.u8(28);
                match &b.bytes {
                    Bytes::Local(bytes) => self.w.bytes(bytes),
                    // the bytes as they are now; the sharing is not restorable
                    Bytes::Shared(block) => self.w.bytes(&b.to_vec(0..block.len())),
                }
                self.w.bool(b.detached);
                self.w.option(b.max_byte_length, |w, m| w.usize(m));
                self.w.bool(b.is_shared());
            }
            ObjectKind::TypedArray(t) => {
                self.w.u8(29);
                let element = ElementType::ALL.iter().position(|&e| e == t.element);
                self.w.usize(element.unwrap_or(0));
                self.w.u32(t.buffer.0);
                self.w.usize(t.byte_offset);
                self.w.option(t.length, |w, l| w.usize(l));
            }
            ObjectKind::DataView(d) => {
                self.w.u8(30);
                self.w.u32(d.buffer.0);
                self.w.usize(d.byte_offset);
                self.w.option(d.byte_length, |w, l| w.usize(l));
            }
            ObjectKind::WeakRef(target) => {
                self.w.u8(31);
                self.value(*target);
            }
            ObjectKind::FinalizationRegistry(r) => {
                self.w.u8(32);
                self.value(r.cleanup);
                self.w.usize(r.cells.len());
                for c in &r.cells {
                    self.value(c.target);
                    self.value(c.held);
                    self.value(c.token);
                }
            }
            ObjectKind::DisposableStack(d) => {
                self.w.u8(33);
                self.w.u8(match d.brand {
                    StackBrand::Scope => 0,
                    StackBrand::DisposableStack => 1,
                    StackBrand::AsyncDisposableStack => 2,
                });
                self.w.bool(d.disposed);
                self.w.bool(d.needs_await);
                self.w.bool(d.has_awaited);
                self.w.usize(d.resources.len());
                for r in &d.resources {
                    self.value(r.value);
                    self.value(r.method);
                    self.w.bool(r.is_async);
                    self.w.u8(match r.call {
                        DisposeCall::Method => 0,
                        DisposeCall::FromSync => 1,
                        DisposeCall::Adopt => 2,
                    });
                }
            }
            ObjectKind::Temporal(t) => {
                self.w.u8(35);
                let (tag, text) = t.to_snapshot();
                self.w.u8(tag);
                self.w.str(&text);
            }
        }
        Ok(())
    }

    fn generator(&mut self, g: &GeneratorState) -> Result<(), SnapshotError> {
        self.w.u8(match g.kind {
            SuspendKind::Generator => 0,
            SuspendKind::Async => 1,
            SuspendKind::AsyncGenerator => 2,
        });
        self.w.u8(match g.status {
            GeneratorStatus::SuspendedStart => 0,
            GeneratorStatus::SuspendedYield => 1,
            GeneratorStatus::Executing => {
                return Err(unsupported("a generator is running"));
            }
            GeneratorStatus::AwaitingReturn => 2,
            GeneratorStatus::Completed => 3,
            GeneratorStatus::Awaiting => 4,
        });
        match &g.frame {
            None => self.w.u8(0),
            Some(f) => {
                self.w.u8(1);
                self.frame(f)?;
            }
        }
        match g.resume {
            None => self.w.u8(0),
            Some((mode, v)) => {
                self.w.u8(1);
                self.w.u8(resume_mode(mode));
                self.value(v);
            }
        }
        self.w.option(g.promise, |w, p| w.u32(p.0));
        self.w.usize(g.queue.len());
        for r in &g.queue {
            self.w.u8(resume_mode(r.mode));
            self.value(r.value);
            self.w.u32(r.promise.0);
        }
        Ok(())
    }

    fn frame(&mut self, f: &SavedFrame) -> Result<(), SnapshotError> {
        self.code(&f.code)?;
        self.w.u32(f.pc);
        self.w.option(f.env, |w, e| w.u32(e.0));
        self.w.u32(f.env_depth as u32);
        self.w.u32(f.callee.0);
        self.value(f.new_target);
        self.w.u32(f.argc);
        self.values(&f.values);
        self.w.u32(f.args_at);
        Ok(())
    }

    pub fn host_value(&mut self, v: &HostValue) {
        match v {
            HostValue::Undefined => self.w.u8(0),
            HostValue::Null => self.w.u8(1),
            HostValue::Bool(b) => {
                self.w.u8(2);
                self.w.bool(*b);
            }
            HostValue::Number(n) => {
                self.w.u8(3);
                self.w.f64(*n);
            }
            HostValue::String(s) => {
                self.w.u8(4);
                self.w.str(s);
            }
            HostValue::Array(items) => {
                self.w.u8(5);
                self.w.usize(items.len());
                for item in items {
                    self.host_value(item);
                }
            }
            HostValue::Object(entries) => {
                self.w.u8(6);
                self.w.usize(entries.len());
                for (k, v) in entries {
                    self.w.str(k);
                    self.host_value(v);
                }
            }
            HostValue::BigInt(s) => {
                self.w.u8(7);
                self.w.str(s);
            }
            HostValue::Date(t) => {
                self.w.u8(8);
                self.w.f64(*t);
            }
            HostValue::Bytes(b) => {
                self.w.u8(9);
                self.w.bytes(b);
            }
        }
    }

    /// The global lexical bindings of a realm.
    fn global_lexicals(&mut self, names: &FxHashMap<StringId, u32>, values: &[(Value, bool)]) {
        let mut lexicals: Vec<_> = names.iter().map(|(&k, &v)| (k, v)).collect();
        lexicals.sort_by_key(|&(_, index)| index);
        self.w.usize(lexicals.len());
        for (name, index) in lexicals {
            self.w.u32(name.0);
            self.w.u32(index);
        }
        self.w.usize(values.len());
        for &(v, is_const) in values {
            self.value(v);
            self.w.bool(is_const);
        }
    }

    /// The realms: the global lexical bindings of the first (running) realm, whose
    /// intrinsics are the pristine realm's; then the whole record of each realm created
    /// since (intrinsics, the %ThrowTypeError% accessor of strict `arguments.callee`, global
    /// lexical bindings).
    fn realms(&mut self, vm: &Vm) {
        self.global_lexicals(&vm.global_lexicals, &vm.global_lexical_values);
        for realm in &vm.realms[1..] {
            let ids = realm.intrinsics.all();
            self.w.usize(ids.len());
            for id in ids {
                self.w.u32(id.0);
            }
            // the function shapes are derived from the intrinsics again
            self.value(realm.shapes.strict_callee);
            self.global_lexicals(&realm.global_lexicals, &realm.global_lexical_values);
        }
    }

    /// The realms, the symbol registry, pinned values, the meter and the host's
    /// capabilities and outstanding calls.
    pub fn vm_state(&mut self, vm: &Vm, execution: Option<Value>) -> Result<(), SnapshotError> {
        self.realms(vm);
        let mut registry: Vec<_> = vm.symbol_registry.iter().map(|(&k, &v)| (k, v)).collect();
        registry.sort_by_key(|&(k, _)| k);
        self.w.usize(registry.len());
        for (key, symbol) in registry {
            self.w.u32(key.0);
            self.w.u32(symbol.0);
        }
        self.values(&vm.pinned);
        // only cleanup calls can be queued at rest (the collection before writing finds them)
        self.w.usize(vm.jobs.len());
        for job in &vm.jobs {
            let (func, this, arg) = match *job {
                Job::Call { func, this, arg } => (func, this, arg),
                Job::Reaction { .. } | Job::ResolveThenable { .. } => {
                    return Err(unsupported("promise jobs are queued"));
                }
            };
            self.value(func);
            self.value(this);
            self.value(arg);
        }
        match execution {
            None => self.w.u8(0),
            Some(v) => {
                self.w.u8(1);
                self.value(v);
            }
        }
        self.w.u64(vm.random_state);
        self.w.u64(vm.fuel_used());
        self.w.u64(vm.meter.compute_time().as_nanos() as u64);
        self.w.bool(vm.hardened);
        let host = &vm.host;
        self.w.usize(host.capabilities.len());
        for c in &host.capabilities {
            self.w.str(&c.name);
        }
        self.w.u64(host.next_id);
        self.w.u64(host.calls_made);
        self.w.usize(host.outstanding.len());
        for call in &host.outstanding {
            self.w.u64(call.call.id);
            self.w.str(&call.call.capability);
            self.w.usize(call.call.args.len());
            for a in &call.call.args {
                self.host_value(a);
            }
            self.w.u32(call.promise.0);
        }
        Ok(())
    }
}

fn iteration_kind(k: IterationKind) -> u8 {
    match k {
        IterationKind::Keys => 0,
        IterationKind::Values => 1,
        IterationKind::Entries => 2,
    }
}

fn resume_mode(m: ResumeMode) -> u8 {
    match m {
        ResumeMode::Next => 0,
        ResumeMode::Throw => 1,
        ResumeMode::Return => 2,
    }
}
