//! Reading a payload into a fresh VM, then checking it whole before anything runs.
//!
//! Decoding fails on any malformed byte; [`validate`] then checks what the decoder
//! cannot see locally: every id names a live cell, objects agree with their shapes,
//! prototype, environment, bound-function and proxy chains end, accessor properties
//! hold accessor pairs, suspended frames point inside their code.

use super::codec::{Read, Reader, corrupt};
use super::natives::Registry;
use super::write::{slot_tag, tag};
use super::{SnapshotError, SnapshotErrorKind};
use crate::builtins::array_buffer::{ArrayBufferData, Bytes};
use crate::builtins::collections::OrderedMap;
use crate::builtins::data_view::DataViewData;
use crate::builtins::disposable_stack::{
    DisposableResource, DisposeCall, DisposeCapability, StackBrand,
};
use crate::builtins::promise::{PromiseState, Status};
use crate::builtins::regexp::RegExpData;
use crate::builtins::shared_memory::SharedBlock;
use crate::builtins::temporal::TemporalValue;
use crate::builtins::typed_array::{ElementType, TypedArrayData};
use crate::builtins::weak_ref::{FinalizationRegistryData, RegistryCell};
use crate::heap::string::JsStr;
use crate::heap::{
    Arena, BigIntId, Cell, Env, EnvId, ObjectId, RestoredCells, StringId, Symbol, SymbolId,
};
use crate::host::{Capability, CapabilityKind, HostValue, OutstandingCall, PendingCall};
use crate::interpreter::generator::{
    AsyncGeneratorRequest, GeneratorState, GeneratorStatus, ResumeMode, SavedFrame, SuspendKind,
};
use crate::interpreter::{CodeBlock, Job, Recipe, Vm};
use crate::object::shape::{ShapeId, ShapeOrigin, ShapeTable};
use crate::object::{
    Attrs, BoundFunction, Closure, Dictionary, Elements, ForInState, IterationKind, NativeFunction,
    Object, ObjectKind, Property, PropertyKey, SparseElements,
};
use crate::realm::{Intrinsics, Realm, RealmId};
use crate::value::{Kind, Value};
use kiln_bytecode::{Constant, ScriptKind};
use num_bigint::BigInt;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

/// A realm's global lexical bindings: names to indices, and (value, is_const) pairs.
type GlobalLexicals = (FxHashMap<StringId, u32>, Vec<(Value, bool)>);

/// Host values nest at most this deep in a snapshot (the boundary allows less).
const MAX_HOST_DEPTH: usize = 256;

pub(super) struct PayloadReader<'a> {
    pub r: Reader<'a>,
    registry: &'static Registry,
}

fn mismatch(message: impl Into<String>) -> SnapshotError {
    SnapshotError::new(SnapshotErrorKind::Version, message)
}

impl<'a> PayloadReader<'a> {
    pub fn new(payload: &'a [u8], registry: &'static Registry) -> Self {
        PayloadReader {
            r: Reader::new(payload),
            registry,
        }
    }

    fn value(&mut self) -> Read<Value> {
        value(&mut self.r)
    }

    fn values(&mut self) -> Read<Vec<Value>> {
        self.r.list(1, value)
    }

    fn object_id(&mut self) -> Read<ObjectId> {
        Ok(ObjectId(self.r.u32()?))
    }

    fn opt_object(&mut self) -> Read<Option<ObjectId>> {
        self.r.option(|r| r.u32().map(ObjectId))
    }

    fn opt_env(&mut self) -> Read<Option<EnvId>> {
        self.r.option(|r| r.u32().map(EnvId))
    }

    fn key(&mut self) -> Read<PropertyKey> {
        key(&mut self.r)
    }

    fn attrs(&mut self) -> Read<Attrs> {
        attrs(&mut self.r)
    }

    // ---- sections ----

    pub fn fingerprint(&mut self) -> Read<()> {
        let natives = self.r.usize()?;
        let ids = self.r.list(1, |r| r.u32())?;
        if natives != self.registry.len() || ids != self.registry.fingerprint {
            return Err(mismatch("the snapshot was made by another build of Kiln"));
        }
        Ok(())
    }

    /// Strings, symbols, BigInts and environments; cells the snapshot marks unchanged
    /// are taken from `base`, the fresh realm's.
    pub fn cells(&mut self, base: &mut RestoredCells) -> Read<RestoredCells> {
        Ok(RestoredCells {
            strings: self.arena(&mut base.strings, |p| string(&mut p.r))?,
            symbols: self.arena(&mut base.symbols, |p| symbol(&mut p.r))?,
            bigints: self.arena(&mut base.bigints, |p| bigint(&mut p.r))?,
            envs: self.arena(&mut base.envs, |p| env(&mut p.r))?,
        })
    }

    /// An arena written by `PayloadWriter::arena`.
    pub fn arena<T: Cell>(
        &mut self,
        base: &mut Arena<T>,
        mut decode: impl FnMut(&mut Self) -> Read<T>,
    ) -> Read<Arena<T>> {
        let n = self.r.count(1)?;
        let mut slots = Vec::with_capacity(n);
        for i in 0..n as u32 {
            slots.push(match self.r.u8()? {
                slot_tag::FREE => None,
                slot_tag::FULL => Some(decode(self)?),
                slot_tag::PRISTINE if base.is_live(i) => Some(std::mem::take(base.get_mut(i))),
                _ => return Err(corrupt("bad slot tag")),
            });
        }
        Ok(Arena::from_slots(slots))
    }

    /// The shapes made after `base`'s, replayed on a copy of it.
    pub fn shapes(&mut self, base: &ShapeTable) -> Read<ShapeTable> {
        let origins = self.r.list(2, shape_origin)?;
        let mut table = base.clone();
        if !table.extend(&origins) {
            return Err(corrupt("inconsistent shapes"));
        }
        Ok(table)
    }

    /// Compile every script again from its recipe, in order, and restore the template
    /// objects of its blocks. Returns the template objects (checked later).
    /// The number of realms (their records come with the VM state), then the scripts,
    /// each loaded in its realm.
    pub fn scripts(&mut self, vm: &mut Vm) -> Read<Vec<ObjectId>> {
        // every realm but the first writes at least one byte per intrinsic
        let realms = self.r.count(Intrinsics::placeholder().all().len())?;
        if realms == 0 {
            return Err(corrupt("a snapshot has no realm"));
        }
        vm.realms.resize_with(realms, Realm::placeholder);
        let count = self.r.count(4)?;
        let mut templates_seen = Vec::new();
        for _ in 0..count {
            let realm = self.realm_id(vm)?;
            let source = self.r.string()?;
            let name = self.r.string()?;
            let kind = match self.r.u8()? {
                0 => ScriptKind::Script,
                1 => ScriptKind::Eval,
                2 => ScriptKind::Agent,
                _ => return Err(corrupt("bad script kind")),
            };
            let recipe = match self.r.u8()? {
                0 => Recipe::Compile {
                    strict: self.r.bool()?,
                },
                1 => Recipe::DirectEval {
                    strict: self.r.bool()?,
                    script: self.r.u32()?,
                    block: self.r.u32()?,
                    constant: self.r.u32()?,
                },
                _ => return Err(corrupt("bad script recipe")),
            };
            let compiled = match recipe {
                Recipe::Compile { strict } => kiln_compiler::compile(&source, &name, kind, strict),
                Recipe::DirectEval {
                    strict,
                    script,
                    block,
                    constant,
                } => {
                    let scope = vm
                        .scripts
                        .get(script as usize)
                        .and_then(|s| s.blocks.get(block as usize))
                        .and_then(|b| b.code.constants.get(constant as usize))
                        .and_then(|c| match c {
                            Constant::EvalScope(scope) => Some(scope.clone()),
                            _ => None,
                        })
                        .ok_or_else(|| corrupt("a direct eval names no eval scope"))?;
                    kiln_compiler::compile_eval(&source, &name, strict, &scope)
                }
            }
            .map_err(|_| mismatch("a script of the snapshot no longer compiles"))?;
            if compiled.kind != kind {
                return Err(corrupt("a script's kind does not match its recipe"));
            }
            // The realm's record is a placeholder until the VM state is read; loading
            // code reads only its index.
            let previous = vm.enter_realm(realm);
            vm.load_compiled(crate::interpreter::compiler_output(compiled), recipe);
            vm.enter_realm(previous);
            let blocks = self.r.count(1)?;
            let script = vm.scripts.last().expect("just loaded");
            if blocks != script.blocks.len() {
                return Err(mismatch(
                    "a script compiles to different code in this build",
                ));
            }
            for block in script.blocks.clone() {
                let templates = self.r.list(2, |r| Ok((r.u16()?, ObjectId(r.u32()?))))?;
                for &(constant, object) in &templates {
                    if !matches!(
                        block.code.constants.get(constant as usize),
                        Some(Constant::Template { .. })
                    ) {
                        return Err(corrupt("a template object names no template"));
                    }
                    templates_seen.push(object);
                }
                *block.templates.borrow_mut() = templates;
            }
        }
        Ok(templates_seen)
    }

    fn realm_id(&mut self, vm: &Vm) -> Read<RealmId> {
        let realm = self.r.u32()?;
        if realm as usize >= vm.realms.len() {
            return Err(corrupt("a function names no realm"));
        }
        Ok(RealmId(realm))
    }

    fn code(&mut self, vm: &Vm) -> Read<Rc<CodeBlock>> {
        let script = self.r.u32()?;
        let block = self.r.u32()?;
        vm.scripts
            .get(script as usize)
            .and_then(|s| s.blocks.get(block as usize))
            .cloned()
            .ok_or_else(|| corrupt("a function names code that does not exist"))
    }

    pub fn objects(&mut self, vm: &Vm, base: &mut Arena<Object>) -> Read<Arena<Object>> {
        self.arena(base, |p| p.object(vm))
    }

    fn object(&mut self, vm: &Vm) -> Read<Object> {
        let shape = ShapeId(self.r.u32()?);
        let proto = self.opt_object()?;
        let slots = self.values()?.into();
        let elements = match self.r.u8()? {
            0 => Elements::Dense(self.values()?.into()),
            1 => {
                let length = self.r.u32()?;
                let n = self.r.count(3)?;
                let mut map = BTreeMap::new();
                for _ in 0..n {
                    let i = self.r.u32()?;
                    let value = self.value()?;
                    let attrs = self.attrs()?;
                    map.insert(i, Property { value, attrs });
                }
                Elements::Sparse(Box::new(SparseElements { map, length }))
            }
            _ => return Err(corrupt("bad elements tag")),
        };
        let dict = match self.r.u8()? {
            0 => None,
            1 => {
                let n = self.r.count(3)?;
                let mut d = Dictionary::default();
                for _ in 0..n {
                    let key = self.key()?;
                    let value = self.value()?;
                    let attrs = self.attrs()?;
                    d.insert(key, Property { value, attrs });
                }
                Some(Box::new(d))
            }
            _ => return Err(corrupt("bad dictionary tag")),
        };
        let kind = self.kind(vm)?;
        Ok(Object {
            shape,
            proto,
            slots,
            elements,
            dict,
            kind,
            extensible: self.r.bool()?,
            used_as_prototype: self.r.bool()?,
            hardened: self.r.bool()?,
            pristine_copy: false,
        })
    }

    fn kind(&mut self, vm: &Vm) -> Read<ObjectKind> {
        Ok(match self.r.u8()? {
            0 => ObjectKind::Ordinary,
            1 => ObjectKind::Array {
                length_writable: self.r.bool()?,
            },
            2 => ObjectKind::Closure(Closure::new(
                self.code(vm)?,
                self.opt_env()?,
                self.opt_object()?,
                self.opt_object()?,
            )),
            3 => {
                let func = self
                    .registry
                    .native(self.r.u32()?)
                    .ok_or_else(|| corrupt("unknown native function"))?;
                ObjectKind::Native(NativeFunction {
                    func,
                    constructor: self.r.bool()?,
                    data: self.values()?.into_boxed_slice(),
                    realm: self.realm_id(vm)?,
                })
            }
            4 => ObjectKind::Bound(Box::new(BoundFunction {
                target: self.object_id()?,
                this: self.value()?,
                args: self.values()?.into_boxed_slice(),
            })),
            5 => ObjectKind::Accessor {
                get: self.value()?,
                set: self.value()?,
            },
            6 => ObjectKind::Error,
            34 => ObjectKind::RawJson,
            7 => ObjectKind::Boolean(self.r.bool()?),
            8 => ObjectKind::Number(self.r.f64()?),
            9 => ObjectKind::String(StringId(self.r.u32()?)),
            10 => ObjectKind::Symbol(SymbolId(self.r.u32()?)),
            11 => ObjectKind::BigInt(BigIntId(self.r.u32()?)),
            12 => ObjectKind::Date(self.r.f64()?),
            13 => {
                let source = StringId(self.r.u32()?);
                let flags = StringId(self.r.u32()?);
                let legacy = self.r.bool()?;
                let realm = self.realm_id(vm)?;
                for s in [source, flags] {
                    if !vm.heap.strings.is_live(s.0) {
                        return Err(corrupt("a regular expression names a missing string"));
                    }
                }
                let data = RegExpData::rebuild(&vm.heap, source, flags, legacy, realm)
                    .ok_or_else(|| corrupt("a regular expression does not compile"))?;
                ObjectKind::RegExp(Box::new(data))
            }
            tag @ 14..=17 => {
                let pins = self.r.u32()?;
                let n = self.r.count(1)?;
                let mut entries = Vec::with_capacity(n);
                for _ in 0..n {
                    entries.push(match self.r.u8()? {
                        0 => None,
                        1 => {
                            let k = self.value()?;
                            let v = self.value()?;
                            if let Some(s) = k.as_string()
                                && !vm.heap.strings.is_live(s.0)
                            {
                                return Err(corrupt("a collection key names a missing string"));
                            }
                            if let Some(b) = k.as_bigint()
                                && !vm.heap.bigints.is_live(b.0)
                            {
                                return Err(corrupt("a collection key names a missing BigInt"));
                            }
                            Some((k, v))
                        }
                        _ => return Err(corrupt("bad collection entry")),
                    });
                }
                let map = Box::new(OrderedMap::restore(&vm.heap, entries, pins));
                match tag {
                    14 => ObjectKind::Map(map),
                    15 => ObjectKind::Set(map),
                    16 => ObjectKind::WeakMap(map),
                    _ => ObjectKind::WeakSet(map),
                }
            }
            18 => {
                let status = match self.r.u8()? {
                    0 => Status::Pending,
                    1 => Status::Fulfilled,
                    2 => Status::Rejected,
                    _ => return Err(corrupt("bad promise status")),
                };
                let result = self.value()?;
                let reactions = self.r.list(1, |r| r.u32().map(ObjectId))?;
                ObjectKind::Promise(Box::new(PromiseState {
                    status,
                    result,
                    reactions: reactions.into_iter().collect(),
                    is_handled: self.r.bool()?,
                }))
            }
            19 => ObjectKind::Arguments {
                env: self.opt_env()?,
                mapped: self.r.list(1, |r| r.bool())?.into_boxed_slice(),
            },
            20 => ObjectKind::Generator(Box::new(self.generator(vm)?)),
            21 => ObjectKind::ArrayIterator {
                target: self.value()?,
                index: self.r.u32()?,
                kind: self.iteration_kind()?,
            },
            22 => ObjectKind::MapIterator {
                target: self.object_id()?,
                index: self.r.u32()?,
                kind: self.iteration_kind()?,
                set: self.r.bool()?,
            },
            23 => ObjectKind::StringIterator {
                target: StringId(self.r.u32()?),
                index: self.r.u32()?,
            },
            24 => ObjectKind::RegExpStringIterator {
                regexp: self.object_id()?,
                string: StringId(self.r.u32()?),
                global: self.r.bool()?,
                unicode: self.r.bool()?,
                done: self.r.bool()?,
            },
            25 => ObjectKind::ForInIterator(Box::new(ForInState {
                object: self.opt_object()?,
                keys: self.values()?,
                index: self.r.usize()?,
                visited: {
                    let n = self.r.count(2)?;
                    let mut keys = rustc_hash::FxHashSet::default();
                    for _ in 0..n {
                        keys.insert(self.key()?);
                    }
                    keys
                },
                own_only: self.r.bool()?,
            })),
            26 => ObjectKind::Proxy {
                target: self.opt_object()?,
                handler: self.opt_object()?,
                callable: self.r.bool()?,
                constructor: self.r.bool()?,
            },
            27 => ObjectKind::Internal(self.values()?.into_boxed_slice()),
            28 => {
                let bytes = self.r.bytes()?;
                let detached = self.r.bool()?;
                let max_byte_length = self.r.option(|r| r.usize())?;
                let shared = self.r.bool()?;
                if (detached && (shared || !bytes.is_empty()))
                    || max_byte_length.is_some_and(|m| bytes.len() > m)
                {
                    return Err(corrupt("an array buffer's length is inconsistent"));
                }
                // A shared buffer comes back with a block of its own: the runtimes it
                // was shared with are not part of the snapshot.
                let bytes = if shared {
                    let block = SharedBlock::from_bytes(bytes, max_byte_length)
                        .ok_or_else(|| corrupt("a shared buffer is too large"))?;
                    Bytes::Shared(std::sync::Arc::new(block))
                } else {
                    Bytes::Local(bytes.to_vec())
                };
                ObjectKind::ArrayBuffer(Box::new(ArrayBufferData {
                    bytes,
                    detached,
                    max_byte_length,
                }))
            }
            29 => {
                let element = *ElementType::ALL
                    .get(self.r.usize()?)
                    .ok_or_else(|| corrupt("bad typed array element type"))?;
                ObjectKind::TypedArray(Box::new(TypedArrayData {
                    element,
                    buffer: self.object_id()?,
                    byte_offset: self.r.usize()?,
                    length: self.r.option(|r| r.usize())?,
                }))
            }
            30 => ObjectKind::DataView(Box::new(DataViewData {
                buffer: self.object_id()?,
                byte_offset: self.r.usize()?,
                byte_length: self.r.option(|r| r.usize())?,
            })),
            31 => ObjectKind::WeakRef(self.value()?),
            32 => {
                let cleanup = self.value()?;
                let n = self.r.count(3)?;
                let mut cells = Vec::with_capacity(n);
                for _ in 0..n {
                    cells.push(RegistryCell {
                        target: self.value()?,
                        held: self.value()?,
                        token: self.value()?,
                    });
                }
                ObjectKind::FinalizationRegistry(Box::new(FinalizationRegistryData {
                    cleanup,
                    cells,
                }))
            }
            33 => {
                let brand = match self.r.u8()? {
                    0 => StackBrand::Scope,
                    1 => StackBrand::DisposableStack,
                    2 => StackBrand::AsyncDisposableStack,
                    _ => return Err(corrupt("bad disposable stack brand")),
                };
                let mut d = DisposeCapability::new(brand);
                d.disposed = self.r.bool()?;
                d.needs_await = self.r.bool()?;
                d.has_awaited = self.r.bool()?;
                let n = self.r.count(4)?;
                d.resources.reserve(n);
                for _ in 0..n {
                    let value = self.value()?;
                    let method = self.value()?;
                    let is_async = self.r.bool()?;
                    let call = match self.r.u8()? {
                        0 => DisposeCall::Method,
                        1 => DisposeCall::FromSync,
                        2 => DisposeCall::Adopt,
                        _ => return Err(corrupt("bad disposable resource call")),
                    };
                    d.resources.push(DisposableResource {
                        value,
                        method,
                        is_async,
                        call,
                    });
                }
                ObjectKind::DisposableStack(Box::new(d))
            }
            35 => {
                let tag = self.r.u8()?;
                let text = self.r.string()?;
                let value = TemporalValue::from_snapshot(tag, &text)
                    .ok_or_else(|| corrupt("a Temporal object's value does not parse"))?;
                ObjectKind::Temporal(Box::new(value))
            }
            _ => return Err(corrupt("unknown object kind")),
        })
    }

    fn iteration_kind(&mut self) -> Read<IterationKind> {
        match self.r.u8()? {
            0 => Ok(IterationKind::Keys),
            1 => Ok(IterationKind::Values),
            2 => Ok(IterationKind::Entries),
            _ => Err(corrupt("bad iteration kind")),
        }
    }

    fn resume_mode(&mut self) -> Read<ResumeMode> {
        match self.r.u8()? {
            0 => Ok(ResumeMode::Next),
            1 => Ok(ResumeMode::Throw),
            2 => Ok(ResumeMode::Return),
            _ => Err(corrupt("bad resume mode")),
        }
    }

    fn generator(&mut self, vm: &Vm) -> Read<GeneratorState> {
        let kind = match self.r.u8()? {
            0 => SuspendKind::Generator,
            1 => SuspendKind::Async,
            2 => SuspendKind::AsyncGenerator,
            _ => return Err(corrupt("bad generator kind")),
        };
        let status = match self.r.u8()? {
            0 => GeneratorStatus::SuspendedStart,
            1 => GeneratorStatus::SuspendedYield,
            2 => GeneratorStatus::AwaitingReturn,
            3 => GeneratorStatus::Completed,
            4 => GeneratorStatus::Awaiting,
            _ => return Err(corrupt("bad generator status")),
        };
        let frame = match self.r.u8()? {
            0 => None,
            1 => Some(self.frame(vm)?),
            _ => return Err(corrupt("bad generator frame tag")),
        };
        let resume = match self.r.u8()? {
            0 => None,
            1 => Some((self.resume_mode()?, self.value()?)),
            _ => return Err(corrupt("bad generator resume tag")),
        };
        let promise = self.opt_object()?;
        let n = self.r.count(3)?;
        let mut queue = VecDeque::with_capacity(n);
        for _ in 0..n {
            queue.push_back(AsyncGeneratorRequest {
                mode: self.resume_mode()?,
                value: self.value()?,
                promise: self.object_id()?,
            });
        }
        Ok(GeneratorState {
            kind,
            status,
            frame,
            resume,
            promise,
            queue,
        })
    }

    fn frame(&mut self, vm: &Vm) -> Read<SavedFrame> {
        let code = self.code(vm)?;
        let pc = self.r.u32()?;
        let env = self.opt_env()?;
        let env_depth = self.r.u16()?;
        let callee = self.object_id()?;
        let new_target = self.value()?;
        let argc = self.r.u32()?;
        let values = self.values()?;
        let args_at = self.r.u32()?;
        if pc as usize >= code.code.instructions.len()
            || values.len() < code.register_count as usize
            || args_at as usize > values.len()
        {
            return Err(corrupt("a suspended frame does not fit its code"));
        }
        Ok(SavedFrame {
            code,
            pc,
            env,
            env_depth,
            callee,
            new_target,
            argc,
            values,
            args_at,
        })
    }

    fn host_value(&mut self, depth: usize) -> Read<HostValue> {
        if depth > MAX_HOST_DEPTH {
            return Err(corrupt("a host value nests too deep"));
        }
        Ok(match self.r.u8()? {
            0 => HostValue::Undefined,
            1 => HostValue::Null,
            2 => HostValue::Bool(self.r.bool()?),
            3 => HostValue::Number(self.r.f64()?),
            4 => HostValue::String(self.r.string()?),
            5 => {
                let n = self.r.count(1)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.host_value(depth + 1)?);
                }
                HostValue::Array(items)
            }
            6 => {
                let n = self.r.count(2)?;
                let mut entries = Vec::with_capacity(n);
                for _ in 0..n {
                    let k = self.r.string()?;
                    entries.push((k, self.host_value(depth + 1)?));
                }
                HostValue::Object(entries)
            }
            7 => HostValue::BigInt(self.r.string()?),
            8 => HostValue::Date(self.r.f64()?),
            9 => HostValue::Bytes(self.r.bytes()?.to_vec()),
            _ => return Err(corrupt("unknown host value tag")),
        })
    }

    /// The global lexical bindings of a realm: names to indices, and the values.
    fn global_lexicals(&mut self) -> Read<GlobalLexicals> {
        let lexicals = self.r.list(2, |r| Ok((StringId(r.u32()?), r.u32()?)))?;
        let values = self.r.list(2, |r| {
            let v = value(r)?;
            Ok((v, r.bool()?))
        })?;
        if lexicals.iter().any(|&(_, i)| i as usize >= values.len()) {
            return Err(corrupt("a global lexical binding has no value"));
        }
        Ok((lexicals.into_iter().collect(), values))
    }

    /// The realms (see `PayloadWriter::realms`); the first is the running one.
    fn realms(&mut self, vm: &mut Vm) -> Read<()> {
        (vm.global_lexicals, vm.global_lexical_values) = self.global_lexicals()?;
        for i in 1..vm.realms.len() {
            let ids = self.r.list(1, |r| Ok(ObjectId(r.u32()?)))?;
            let intrinsics = Intrinsics::from_all(&ids)
                .ok_or_else(|| mismatch("a realm has another set of intrinsics"))?;
            let strict_callee = self.value()?;
            let shapes = crate::builtins::function_shapes(
                vm,
                intrinsics.function_prototype,
                intrinsics.object_prototype,
                strict_callee,
            );
            let (global_lexicals, global_lexical_values) = self.global_lexicals()?;
            vm.realms[i] = Realm {
                intrinsics,
                global_lexicals,
                global_lexical_values,
                shapes,
            };
        }
        Ok(())
    }

    pub fn vm_state(&mut self, vm: &mut Vm) -> Read<Option<Value>> {
        self.realms(vm)?;
        let registry = self
            .r
            .list(2, |r| Ok((StringId(r.u32()?), SymbolId(r.u32()?))))?;
        vm.symbol_registry = registry.into_iter().collect();
        vm.pinned = self.values()?;
        let jobs = self.r.count(3)?;
        for _ in 0..jobs {
            vm.jobs.push_back(Job::Call {
                func: self.value()?,
                this: self.value()?,
                arg: self.value()?,
            });
        }
        let execution = match self.r.u8()? {
            0 => None,
            1 => Some(self.value()?),
            _ => return Err(corrupt("bad execution tag")),
        };
        vm.random_state = self.r.u64()? | 1;
        let fuel = self.r.u64()?;
        let compute = std::time::Duration::from_nanos(self.r.u64()?);
        vm.meter.restore(fuel, compute);
        // the strings restoring built are not the guest's work
        vm.heap.take_work();
        vm.hardened = self.r.bool()?;
        let names = self.r.list(1, |r| r.string())?;
        vm.host.capabilities = names
            .into_iter()
            .map(|name| Capability {
                name: name.into(),
                kind: CapabilityKind::Missing,
            })
            .collect();
        vm.host.next_id = self.r.u64()?;
        vm.host.calls_made = self.r.u64()?;
        let n = self.r.count(3)?;
        let mut outstanding = Vec::with_capacity(n);
        for _ in 0..n {
            let id = self.r.u64()?;
            let capability = self.r.string()?;
            let argc = self.r.count(1)?;
            let mut args = Vec::with_capacity(argc);
            for _ in 0..argc {
                args.push(self.host_value(0)?);
            }
            let promise = self.object_id()?;
            outstanding.push(OutstandingCall {
                call: PendingCall {
                    id,
                    capability,
                    args,
                },
                promise,
            });
        }
        vm.host.outstanding = outstanding;
        Ok(execution)
    }
}

fn string(r: &mut Reader<'_>) -> Read<JsStr> {
    let mut s = match r.u8()? {
        1 => JsStr::from_latin1(r.bytes()?.into()),
        2 => JsStr::from_units(&r.units()?),
        _ => return Err(corrupt("bad string tag")),
    };
    s.is_atom = r.bool()?;
    Ok(s)
}

fn symbol(r: &mut Reader<'_>) -> Read<Symbol> {
    Ok(Symbol {
        description: r.option(|r| r.u32().map(StringId))?,
        is_private: r.bool()?,
        registered: r.bool()?,
    })
}

fn bigint(r: &mut Reader<'_>) -> Read<BigInt> {
    Ok(BigInt::from_signed_bytes_le(r.bytes()?))
}

fn env(r: &mut Reader<'_>) -> Read<Env> {
    let parent = r.option(|r| r.u32().map(EnvId))?;
    let slots = r.list(1, value)?;
    Ok(Env {
        parent,
        slots: slots.into(),
    })
}

fn value(r: &mut Reader<'_>) -> Read<Value> {
    Ok(match r.u8()? {
        tag::UNDEFINED => Value::UNDEFINED,
        tag::NULL => Value::NULL,
        tag::FALSE => Value::FALSE,
        tag::TRUE => Value::TRUE,
        tag::HOLE => Value::HOLE,
        tag::INT => Value::int(r.u32()? as i32),
        tag::DOUBLE => Value::double(r.f64()?),
        tag::STRING => Value::string(StringId(r.u32()?)),
        tag::SYMBOL => Value::symbol(SymbolId(r.u32()?)),
        tag::BIGINT => Value::bigint(BigIntId(r.u32()?)),
        tag::OBJECT => Value::object(ObjectId(r.u32()?)),
        _ => return Err(corrupt("unknown value tag")),
    })
}

fn key(r: &mut Reader<'_>) -> Read<PropertyKey> {
    let tag = r.u8()?;
    let n = r.u32()?;
    match tag {
        0 => Ok(PropertyKey::String(StringId(n))),
        1 => Ok(PropertyKey::Symbol(SymbolId(n))),
        2 if n != u32::MAX => Ok(PropertyKey::Index(n)),
        _ => Err(corrupt("bad property key")),
    }
}

fn attrs(r: &mut Reader<'_>) -> Read<Attrs> {
    let a = r.u8()?;
    if a > 15 {
        return Err(corrupt("bad property attributes"));
    }
    Ok(Attrs(a))
}

fn shape_origin(r: &mut Reader<'_>) -> Read<ShapeOrigin> {
    match r.u8()? {
        0 => Ok(ShapeOrigin::Root(r.option(|r| r.u32().map(ObjectId))?)),
        1 => {
            let parent = ShapeId(r.u32()?);
            let key = key(r)?;
            let attrs = attrs(r)?;
            Ok(ShapeOrigin::Child(parent, key, attrs))
        }
        _ => Err(corrupt("bad shape tag")),
    }
}

// ---- validation ----

/// Check the restored VM whole (see the module documentation).
pub(super) fn validate(
    vm: &Vm,
    execution: Option<Value>,
    templates: &[ObjectId],
) -> Result<(), SnapshotError> {
    let heap = &vm.heap;
    let object_live = |o: ObjectId| heap.objects.is_live(o.0);
    let env_live = |e: EnvId| heap.envs.is_live(e.0);
    let value_ok = |v: Value| match v.kind() {
        Kind::Object(o) => object_live(o),
        Kind::String(s) => heap.strings.is_live(s.0),
        Kind::Symbol(s) => heap.symbols.is_live(s.0),
        Kind::BigInt(b) => heap.bigints.is_live(b.0),
        _ => true,
    };
    let key_ok = |k: PropertyKey| match k {
        PropertyKey::String(s) => heap.strings.is_live(s.0) && heap.strings.get(s.0).is_atom,
        PropertyKey::Symbol(s) => heap.symbols.is_live(s.0),
        PropertyKey::Index(_) => true,
    };
    let fail = |what: &str| Err(corrupt(what));

    for s in heap.symbols.slots().flatten() {
        if let Some(d) = s.description
            && !heap.strings.is_live(d.0)
        {
            return fail("a symbol's description is missing");
        }
    }
    for e in heap.envs.slots().flatten() {
        if e.parent.is_some_and(|p| !env_live(p)) || !e.slots.iter().all(|&v| value_ok(v)) {
            return fail("an environment refers to a missing cell");
        }
    }
    let shape_count = heap.shapes.count() as u32;
    for id in 1..shape_count {
        match heap.shapes.origin(ShapeId(id)) {
            Some(ShapeOrigin::Root(Some(p))) if !object_live(p) => {
                return fail("a shape's prototype is missing");
            }
            Some(ShapeOrigin::Child(_, k, _)) if !key_ok(k) => {
                return fail("a shape's key is missing");
            }
            _ => {}
        }
    }
    let (mut values, mut envs) = (Vec::new(), Vec::new());
    for i in heap.objects.live_indices() {
        let o = heap.objects.get(i);
        values.clear();
        envs.clear();
        o.trace(&mut values, &mut envs);
        check_kind_ids(o, &mut values);
        if !values.iter().all(|&v| value_ok(v)) || !envs.iter().all(|&e| env_live(e)) {
            return fail("an object refers to a missing cell");
        }
        check_layout(vm, o)?;
    }
    check_chains(vm)?;
    let roots = vm
        .pinned
        .iter()
        .copied()
        .chain(execution)
        .chain(vm.global_lexical_values.iter().map(|&(v, _)| v))
        .chain(templates.iter().map(|&t| Value::object(t)))
        .chain(vm.host.outstanding.iter().map(|c| Value::object(c.promise)))
        .chain(vm.intrinsics.all().into_iter().map(Value::object))
        .chain(vm.symbol_registry.values().map(|&s| Value::symbol(s)))
        .chain(vm.symbol_registry.keys().map(|&s| Value::string(s)))
        .chain(vm.global_lexicals.keys().map(|&s| Value::string(s)))
        .chain(vm.jobs.iter().flat_map(|job| match *job {
            Job::Call { func, this, arg } => [func, this, arg],
            _ => [Value::UNDEFINED; 3],
        }));
    for v in roots {
        if !value_ok(v) {
            return fail("a root refers to a missing cell");
        }
    }
    // the realms created after the first: their records were read, not taken from a
    // fresh realm
    for realm in &vm.realms[1..] {
        let roots = realm
            .intrinsics
            .all()
            .into_iter()
            .map(Value::object)
            .chain(realm.global_lexical_values.iter().map(|&(v, _)| v))
            .chain(realm.global_lexicals.keys().map(|&s| Value::string(s)));
        for v in roots {
            if !value_ok(v) {
                return fail("a realm refers to a missing cell");
            }
        }
        let callee = realm.shapes.strict_callee;
        if !callee.as_object().is_some_and(|o| {
            object_live(o) && matches!(heap.object(o).kind, ObjectKind::Accessor { .. })
        }) {
            return fail("a realm's arguments.callee accessor is missing");
        }
    }
    for c in &vm.host.outstanding {
        if !matches!(heap.object(c.promise).kind, ObjectKind::Promise(_)) {
            return fail("an outstanding host call has no promise");
        }
    }
    Ok(())
}

/// Add the ids an object's kind holds that its trace leaves out: what it holds weakly.
fn check_kind_ids(o: &Object, values: &mut Vec<Value>) {
    match &o.kind {
        ObjectKind::WeakMap(m) | ObjectKind::WeakSet(m) => {
            for (k, v) in m.pairs() {
                values.push(k);
                values.push(v);
            }
        }
        ObjectKind::WeakRef(target) => values.push(*target),
        ObjectKind::FinalizationRegistry(r) => {
            values.extend(r.cells.iter().flat_map(|c| [c.target, c.token]));
        }
        _ => {}
    }
    if let Some(d) = &o.dict {
        for (k, _) in d.iter() {
            if let PropertyKey::String(s) = k {
                values.push(Value::string(s));
            }
        }
    }
    if let Elements::Sparse(s) = &o.elements {
        values.extend(s.map.values().map(|p| p.value));
    }
}

/// Shape and slots agree, accessor properties hold accessor pairs, arguments objects
/// fit their environment.
fn check_layout(vm: &Vm, o: &Object) -> Result<(), SnapshotError> {
    let heap = &vm.heap;
    let is_pair = |v: Value| {
        v.as_object().is_some_and(|a| {
            heap.objects.is_live(a.0) && matches!(heap.object(a).kind, ObjectKind::Accessor { .. })
        })
    };
    let fail = |what: &str| Err(corrupt(what));
    if o.shape == ShapeId::DICTIONARY {
        let Some(d) = &o.dict else {
            return fail("a dictionary-mode object has no dictionary");
        };
        for (k, p) in d.iter() {
            if matches!(k, PropertyKey::String(s) if !heap.strings.get(s.0).is_atom)
                || (p.attrs.is_accessor() && !is_pair(p.value))
            {
                return fail("a dictionary property is malformed");
            }
        }
    } else {
        if o.dict.is_some() || o.shape.0 >= heap.shapes.count() as u32 {
            return fail("an object's shape is malformed");
        }
        let shape = heap.shapes.get(o.shape);
        if shape.len as usize != o.slots.len() || shape.proto != o.proto {
            return fail("an object does not match its shape");
        }
        for (slot, _, attrs) in heap.shapes.chain(o.shape) {
            if attrs.is_accessor() && !is_pair(o.slots[slot as usize]) {
                return fail("an accessor property holds no accessor pair");
            }
        }
    }
    if let Elements::Sparse(s) = &o.elements
        && s.map
            .values()
            .any(|p| p.attrs.is_accessor() && !is_pair(p.value))
    {
        return fail("an accessor element holds no accessor pair");
    }
    if let ObjectKind::Arguments {
        env: Some(e),
        mapped,
    } = &o.kind
        && heap.env(*e).slots.len() < mapped.len()
    {
        return fail("an arguments object does not fit its environment");
    }
    if let ObjectKind::Generator(g) = &o.kind
        && g.frame.is_some()
        && g.status == GeneratorStatus::Completed
    {
        return fail("a completed generator keeps a frame");
    }
    Ok(())
}

/// Prototype, environment, bound-target and proxy-target chains must end: the engine
/// follows them in loops and recursion that assume so.
fn check_chains(vm: &Vm) -> Result<(), SnapshotError> {
    let heap = &vm.heap;
    let objects = heap.objects.slots().count();
    type Link = fn(&Object) -> Option<ObjectId>;
    let links: [Link; 3] = [
        |o| o.proto,
        |o| match &o.kind {
            ObjectKind::Bound(b) => Some(b.target),
            _ => None,
        },
        |o| match &o.kind {
            ObjectKind::Proxy { target, .. } => *target,
            _ => None,
        },
    ];
    // a free slot links nowhere (the links of live objects were checked to reach live ones)
    for next in links {
        if has_cycle(objects, |i| {
            if !heap.objects.is_live(i) {
                return None;
            }
            next(heap.objects.get(i)).map(|n| n.0)
        }) {
            return Err(corrupt("a prototype, bound or proxy chain is a cycle"));
        }
    }
    if has_cycle(heap.envs.slots().count(), |i| {
        if !heap.envs.is_live(i) {
            return None;
        }
        heap.env(EnvId(i)).parent.map(|p| p.0)
    }) {
        return Err(corrupt("an environment chain is a cycle"));
    }
    Ok(())
}

/// Whether following `next` from any of `n` nodes ever returns to a node on the path.
fn has_cycle(n: usize, next: impl Fn(u32) -> Option<u32>) -> bool {
    // 0 = unvisited, 1 = on the current path, 2 = known to end
    let mut state = vec![0u8; n];
    let mut path = Vec::new();
    for start in 0..n as u32 {
        path.clear();
        let mut cur = Some(start);
        while let Some(i) = cur {
            match state.get(i as usize) {
                Some(0) => {
                    state[i as usize] = 1;
                    path.push(i);
                    cur = next(i);
                }
                Some(1) => return true,
                _ => break,
            }
        }
        for &i in &path {
            state[i as usize] = 2;
        }
    }
    false
}
