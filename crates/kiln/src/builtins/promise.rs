//! `Promise` and the promise machinery `await` builds on
//! ([spec](https://tc39.es/ecma262/#sec-promise-objects)).
//!
//! A reaction record is an internal object holding
//! `[kind, on fulfilled, on rejected, capability promise, resolve, reject]`: one record
//! stands for the spec's pair of fulfill and reject reactions, and its job is told which
//! settled. Kind `THEN` calls a JavaScript handler; `AWAIT` resumes the suspended async
//! frame stored as the fulfill handler.
//!
//! `then` on a promise whose species is %Promise% makes no resolving functions: its
//! record's resolve and reject are undefined and the job settles the capability's promise
//! directly. Nothing else could reach those functions, so no program can tell.

use super::{define_species, define_to_string_tag, make_constructor, this_object};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::generator::ResumeMode;
use crate::interpreter::{Args, Job, Vm};
use crate::object::{ObjectKind, PropertyKey};
use crate::value::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Pending,
    Fulfilled,
    Rejected,
}

/// The internal slots of a promise.
#[derive(Clone, Debug)]
pub struct PromiseState {
    pub status: Status,
    pub result: Value,
    /// the reaction records waiting while it is pending
    pub reactions: Reactions,
    pub is_handled: bool,
}

impl PromiseState {
    pub fn trace(&self, out: &mut Vec<Value>) {
        out.push(self.result);
        out.extend(self.reactions.iter().map(Value::object));
    }
}

/// The reaction records of a pending promise, in the order they were added. Most
/// promises get one, which is held without a vector.
#[derive(Clone, Debug, Default)]
pub struct Reactions {
    first: Option<ObjectId>,
    rest: Vec<ObjectId>,
}

impl Reactions {
    fn push(&mut self, reaction: ObjectId) {
        if self.first.is_none() {
            self.first = Some(reaction);
        } else {
            self.rest.push(reaction);
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.first.into_iter().chain(self.rest.iter().copied())
    }

    pub(crate) fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    /// The bytes they hold outside the promise.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.rest.capacity() * size_of::<ObjectId>()
    }
}

impl FromIterator<ObjectId> for Reactions {
    fn from_iter<I: IntoIterator<Item = ObjectId>>(iter: I) -> Reactions {
        let mut reactions = Reactions::default();
        for r in iter {
            reactions.push(r);
        }
        reactions
    }
}

const THEN: i32 = 0;
const AWAIT: i32 = 1;

pub fn init(vm: &mut Vm) {
    let proto = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.promise_prototype = proto;
    let ctor = make_constructor(vm, "Promise", promise_constructor, 1, proto);
    vm.intrinsics.promise = ctor;
    vm.define_native(proto, "then", then, 2);
    vm.define_native(proto, "catch", catch, 1);
    vm.define_native(proto, "finally", finally, 1);
    define_to_string_tag(vm, proto, "Promise");
    vm.define_native(ctor, "resolve", promise_resolve_static, 1);
    vm.define_native(ctor, "reject", promise_reject_static, 1);
    vm.define_native(ctor, "all", all, 1);
    vm.define_native(ctor, "allSettled", all_settled, 1);
    vm.define_native(ctor, "any", any, 1);
    vm.define_native(ctor, "race", race, 1);
    vm.define_native(ctor, "withResolvers", with_resolvers, 0);
    vm.define_native(ctor, "try", promise_try, 1);
    define_species(vm, ctor);
}

fn is_promise(kind: &ObjectKind) -> bool {
    matches!(kind, ObjectKind::Promise(_))
}

impl Vm {
    /// A new pending promise with %Promise.prototype%.
    pub fn new_promise(&mut self) -> ObjectId {
        let proto = self.intrinsics.promise_prototype;
        self.new_promise_with_proto(proto)
    }

    fn new_promise_with_proto(&mut self, proto: ObjectId) -> ObjectId {
        let state = PromiseState {
            status: Status::Pending,
            result: Value::UNDEFINED,
            reactions: Reactions::default(),
            is_handled: false,
        };
        self.heap
            .new_object(Some(proto), ObjectKind::Promise(Box::new(state)))
    }

    /// The resolve function's logic
    /// ([Promise Resolve Functions](https://tc39.es/ecma262/#sec-promise-resolve-functions)).
    pub fn resolve_promise(&mut self, promise: ObjectId, resolution: Value) -> JsResult<()> {
        if resolution == Value::object(promise) {
            let e = self.new_error(
                self.intrinsics.type_error_prototype,
                "Chaining cycle detected for promise",
            );
            self.reject_promise(promise, Value::object(e));
            return Ok(());
        }
        if !resolution.is_object() {
            self.settle(promise, Status::Fulfilled, resolution);
            return Ok(());
        }
        let then = match self.get(resolution, PropertyKey::String(self.atoms.then)) {
            Ok(t) => t,
            Err(_) => {
                let e = self.catch_thrown()?;
                self.reject_promise(promise, e);
                return Ok(());
            }
        };
        if !self.is_callable(then) {
            self.settle(promise, Status::Fulfilled, resolution);
            return Ok(());
        }
        self.enqueue_job(Job::ResolveThenable {
            promise,
            thenable: resolution,
            then,
        });
        Ok(())
    }

    /// Fulfill `promise` with `value` as it is (no thenable check).
    pub(crate) fn fulfill_promise(&mut self, promise: ObjectId, value: Value) {
        self.settle(promise, Status::Fulfilled, value);
    }

    pub fn reject_promise(&mut self, promise: ObjectId, reason: Value) {
        self.settle(promise, Status::Rejected, reason);
    }

    /// FulfillPromise / RejectPromise: record the result and queue the reactions.
    fn settle(&mut self, promise: ObjectId, status: Status, value: Value) {
        let reactions = match &mut self.heap.object_mut(promise).kind {
            ObjectKind::Promise(p) if p.status == Status::Pending => {
                p.status = status;
                p.result = value;
                std::mem::take(&mut p.reactions)
            }
            _ => return,
        };
        let rejected = status == Status::Rejected;
        for reaction in reactions.iter() {
            self.enqueue_job(Job::Reaction {
                reaction,
                argument: value,
                rejected,
            });
        }
    }

    /// [PerformPromiseThen](https://tc39.es/ecma262/#sec-performpromisethen) with a raw
    /// reaction record.
    fn perform_then_record(&mut self, promise: ObjectId, reaction: ObjectId) {
        let settled = match &mut self.heap.object_mut(promise).kind {
            ObjectKind::Promise(p) => {
                p.is_handled = true;
                match p.status {
                    Status::Pending => {
                        p.reactions.push(reaction);
                        None
                    }
                    Status::Fulfilled => Some((p.result, false)),
                    Status::Rejected => Some((p.result, true)),
                }
            }
            _ => None,
        };
        if let Some((argument, rejected)) = settled {
            self.enqueue_job(Job::Reaction {
                reaction,
                argument,
                rejected,
            });
        }
    }

    fn reaction_record(
        &mut self,
        kind: i32,
        on_fulfilled: Value,
        on_rejected: Value,
        capability: Option<Capability>,
    ) -> ObjectId {
        let (p, res, rej) = match capability {
            Some(c) => (c.promise, c.resolve, c.reject),
            None => (Value::UNDEFINED, Value::UNDEFINED, Value::UNDEFINED),
        };
        let values: Box<[Value]> =
            Box::new([Value::int(kind), on_fulfilled, on_rejected, p, res, rej]);
        self.heap.new_object(None, ObjectKind::Internal(values))
    }

    /// PerformPromiseThen(promise, onFulfilled, onRejected, capability).
    pub fn perform_then(
        &mut self,
        promise: ObjectId,
        on_fulfilled: Value,
        on_rejected: Value,
        capability: Option<Capability>,
    ) {
        let f = if self.is_callable(on_fulfilled) {
            on_fulfilled
        } else {
            Value::UNDEFINED
        };
        let r = if self.is_callable(on_rejected) {
            on_rejected
        } else {
            Value::UNDEFINED
        };
        let reaction = self.reaction_record(THEN, f, r, capability);
        self.perform_then_record(promise, reaction);
    }

    /// `await v` in the frame of `generator`: resume it when `v` settles.
    pub(crate) fn await_subscribe(&mut self, generator: ObjectId, v: Value) -> JsResult<()> {
        let promise = self.promise_resolve(Value::object(self.intrinsics.promise), v)?;
        let generator = Value::object(generator);
        let reaction = self.reaction_record(AWAIT, generator, Value::UNDEFINED, None);
        self.perform_then_record(promise, reaction);
        Ok(())
    }

    /// [PromiseResolve](https://tc39.es/ecma262/#sec-promise-resolve)(C, x)
    pub fn promise_resolve(&mut self, c: Value, x: Value) -> JsResult<ObjectId> {
        if let Some(xo) = x.as_object()
            && is_promise(&self.heap.object(xo).kind)
        {
            let ctor = self.get(x, PropertyKey::String(self.atoms.constructor))?;
            if ctor == c {
                return Ok(xo);
            }
        }
        // the new promise is rooted while resolving it runs JavaScript (a thenable's
        // `then` getter, the capability's resolve function); the interpreter calls this
        // too, so the roots are given back here
        let mark = self.roots.len();
        let result = self.promise_resolve_new(c, x);
        self.roots.truncate(mark);
        result
    }

    /// The part of [`Vm::promise_resolve`] that makes a new promise (left on `roots`).
    fn promise_resolve_new(&mut self, c: Value, x: Value) -> JsResult<ObjectId> {
        if c == Value::object(self.intrinsics.promise) {
            // fast path: the resolve function of a new %Promise% capability, which no one
            // else holds, called once
            let p = self.new_promise();
            self.roots.push(Value::object(p));
            self.resolve_promise(p, x)?;
            return Ok(p);
        }
        let cap = self.new_promise_capability(c)?;
        self.call(cap.resolve, Value::UNDEFINED, &[x])?;
        cap.promise
            .as_object()
            .ok_or_else(|| self.type_error("Promise capability is not an object"))
    }

    /// [NewPromiseCapability](https://tc39.es/ecma262/#sec-newpromisecapability)(C).
    /// The capability's promise and functions are left on `roots` (callers go on to run
    /// JavaScript before they are done with them); a caller outside a native truncates.
    pub fn new_promise_capability(&mut self, c: Value) -> JsResult<Capability> {
        let cap = self.new_promise_capability_unrooted(c)?;
        self.roots.extend([cap.promise, cap.resolve, cap.reject]);
        Ok(cap)
    }

    fn new_promise_capability_unrooted(&mut self, c: Value) -> JsResult<Capability> {
        if c == Value::object(self.intrinsics.promise) {
            let p = self.new_promise();
            let (resolve, reject) = self.create_resolving_functions(p);
            return Ok(Capability {
                promise: Value::object(p),
                resolve,
                reject,
            });
        }
        if !self.is_constructor(c) {
            return Err(self.type_error("Promise capability constructor is not a constructor"));
        }
        let record = self.heap.new_object(
            None,
            ObjectKind::Internal(Box::new([Value::UNDEFINED, Value::UNDEFINED])),
        );
        let executor = self.new_native_with_data(
            capability_executor,
            Value::string(self.atoms.empty),
            2,
            false,
            Box::new([Value::object(record)]),
        );
        let mark = self.roots.len();
        self.roots.push(Value::object(record));
        let promise = self.construct(c, &[Value::object(executor)], None)?;
        self.roots.truncate(mark);
        let (resolve, reject) = match &self.heap.object(record).kind {
            ObjectKind::Internal(v) => (v[0], v[1]),
            _ => (Value::UNDEFINED, Value::UNDEFINED),
        };
        if !self.is_callable(resolve) || !self.is_callable(reject) {
            return Err(self.type_error("Promise resolve or reject function is not callable"));
        }
        Ok(Capability {
            promise,
            resolve,
            reject,
        })
    }

    /// [CreateResolvingFunctions](https://tc39.es/ecma262/#sec-createresolvingfunctions)
    pub fn create_resolving_functions(&mut self, promise: ObjectId) -> (Value, Value) {
        let already = self
            .heap
            .new_object(None, ObjectKind::Internal(Box::new([Value::FALSE])));
        let data: Box<[Value]> = Box::new([Value::object(promise), Value::object(already)]);
        let empty = Value::string(self.atoms.empty);
        let resolve = self.new_native_with_data(resolve_function, empty, 1, false, data.clone());
        let reject = self.new_native_with_data(reject_function, empty, 1, false, data);
        (Value::object(resolve), Value::object(reject))
    }
}

/// A promise capability record.
#[derive(Clone, Copy, Debug)]
pub struct Capability {
    pub promise: Value,
    pub resolve: Value,
    pub reject: Value,
}

/// Mark the shared "already resolved" cell; false if it was already set.
fn claim_resolution(vm: &mut Vm, cell: Value) -> bool {
    if let Some(c) = cell.as_object()
        && let ObjectKind::Internal(v) = &mut vm.heap.object_mut(c).kind
    {
        if v[0] == Value::TRUE {
            return false;
        }
        v[0] = Value::TRUE;
    }
    true
}

/// The natives this module creates while the guest runs (realm creation makes the rest);
/// snapshots name them by their position in this list.
pub(crate) const DYNAMIC_NATIVES: [crate::object::NativeFn; 8] = [
    capability_executor,
    resolve_function,
    reject_function,
    then_finally_fn,
    catch_finally_fn,
    value_thunk,
    thrower,
    combinator_element,
];

fn resolve_function(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let (promise, cell) = resolving_function_data(vm);
    if !claim_resolution(vm, cell) {
        return Ok(Value::UNDEFINED);
    }
    if let Some(p) = promise.as_object() {
        vm.resolve_promise(p, vm.arg(args, 0))?;
    }
    Ok(Value::UNDEFINED)
}

fn reject_function(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let (promise, cell) = resolving_function_data(vm);
    if !claim_resolution(vm, cell) {
        return Ok(Value::UNDEFINED);
    }
    if let Some(p) = promise.as_object() {
        vm.reject_promise(p, vm.arg(args, 0));
    }
    Ok(Value::UNDEFINED)
}

/// A resolving function's promise and its shared "already resolved" cell.
fn resolving_function_data(vm: &Vm) -> (Value, Value) {
    match vm.native_data(vm.native_callee) {
        [promise, cell] => (*promise, *cell),
        _ => (Value::UNDEFINED, Value::UNDEFINED),
    }
}

/// GetCapabilitiesExecutor functions.
fn capability_executor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let record = vm.native_data(vm.native_callee)[0];
    let (resolve, reject) = (vm.arg(args, 0), vm.arg(args, 1));
    if let Some(r) = record.as_object()
        && let ObjectKind::Internal(v) = &mut vm.heap.object_mut(r).kind
    {
        if !v[0].is_undefined() || !v[1].is_undefined() {
            return Err(vm.type_error("Promise executor has already been invoked"));
        }
        v[0] = resolve;
        v[1] = reject;
    }
    Ok(Value::UNDEFINED)
}

/// Run one promise reaction job.
pub fn run_reaction_job(
    vm: &mut Vm,
    reaction: ObjectId,
    argument: Value,
    rejected: bool,
) -> JsResult<()> {
    // The job was taken off the queue, so nothing else roots its record while the handler
    // runs JavaScript (and may collect).
    let mark = vm.roots.len();
    vm.roots.extend([Value::object(reaction), argument]);
    let result = reaction_job(vm, reaction, argument, rejected);
    vm.roots.truncate(mark);
    result
}

fn reaction_job(vm: &mut Vm, reaction: ObjectId, argument: Value, rejected: bool) -> JsResult<()> {
    let [kind, on_fulfilled, on_rejected, promise, resolve, reject] =
        match &vm.heap.object(reaction).kind {
            ObjectKind::Internal(v) if v.len() == 6 => [v[0], v[1], v[2], v[3], v[4], v[5]],
            _ => return Ok(()),
        };
    if kind.as_int() == Some(AWAIT) {
        let generator = on_fulfilled
            .as_object()
            .expect("await reaction holds its frame");
        let mode = if rejected {
            ResumeMode::Throw
        } else {
            ResumeMode::Next
        };
        vm.resume_suspended(generator, mode, argument)?;
        return Ok(());
    }
    let handler = if rejected { on_rejected } else { on_fulfilled };
    let outcome = if handler.is_undefined() {
        if rejected {
            Err(argument)
        } else {
            Ok(argument)
        }
    } else {
        match vm.call(handler, Value::UNDEFINED, &[argument]) {
            Ok(v) => Ok(v),
            Err(_) => Err(vm.catch_thrown()?),
        }
    };
    if promise.is_undefined() {
        return Ok(());
    }
    match (outcome, promise.as_object()) {
        (Ok(v), Some(p)) if resolve.is_undefined() => vm.resolve_promise(p, v)?,
        (Err(e), Some(p)) if reject.is_undefined() => vm.reject_promise(p, e),
        (Ok(v), _) => drop(vm.call(resolve, Value::UNDEFINED, &[v])?),
        (Err(e), _) => drop(vm.call(reject, Value::UNDEFINED, &[e])?),
    };
    Ok(())
}

/// [PromiseResolveThenableJob](https://tc39.es/ecma262/#sec-newpromiseresolvethenablejob)
pub fn run_resolve_thenable_job(
    vm: &mut Vm,
    promise: ObjectId,
    thenable: Value,
    then: Value,
) -> JsResult<()> {
    let (resolve, reject) = vm.create_resolving_functions(promise);
    let mark = vm.roots.len();
    vm.roots
        .extend([resolve, reject, Value::object(promise), thenable, then]);
    if vm.call(then, thenable, &[resolve, reject]).is_err() {
        let e = vm.catch_thrown()?;
        vm.call(reject, Value::UNDEFINED, &[e])?;
    }
    vm.roots.truncate(mark);
    Ok(())
}

/// [Promise](https://tc39.es/ecma262/#sec-promise-executor)
fn promise_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Promise constructor cannot be invoked without 'new'"));
    }
    let executor = vm.arg(args, 0);
    if !vm.is_callable(executor) {
        return Err(vm.type_error("Promise resolver is not a function"));
    }
    let proto = vm.prototype_from_constructor(args.new_target, |i| i.promise_prototype)?;
    let promise = vm.new_promise_with_proto(proto);
    vm.roots.push(Value::object(promise));
    let (resolve, reject) = vm.create_resolving_functions(promise);
    vm.roots.extend([resolve, reject]);
    if vm
        .call(executor, Value::UNDEFINED, &[resolve, reject])
        .is_err()
    {
        let e = vm.catch_thrown()?;
        vm.call(reject, Value::UNDEFINED, &[e])?;
    }
    Ok(Value::object(promise))
}

/// [SpeciesConstructor](https://tc39.es/ecma262/#sec-speciesconstructor)
pub fn species_constructor(vm: &mut Vm, obj: Value, default: Value) -> JsResult<Value> {
    let c = vm.get(obj, PropertyKey::String(vm.atoms.constructor))?;
    if c.is_undefined() {
        return Ok(default);
    }
    if !c.is_object() {
        return Err(vm.type_error("object.constructor is not an object"));
    }
    let s = vm.get(c, PropertyKey::Symbol(vm.symbols.species))?;
    if s.is_nullish() {
        return Ok(default);
    }
    if vm.is_constructor(s) {
        return Ok(s);
    }
    Err(vm.type_error("object.constructor[Symbol.species] is not a constructor"))
}

/// [Promise.prototype.then](https://tc39.es/ecma262/#sec-promise.prototype.then)
fn then(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let promise = this_object(vm, this, "Promise.prototype.then", is_promise)?;
    // `this` may be held by no one else (a native's call): SpeciesConstructor runs
    // JavaScript
    vm.roots.push(Value::object(promise));
    let default = Value::object(vm.intrinsics.promise);
    let c = species_constructor(vm, this, default)?;
    let cap = if c == default {
        // fast path: no resolving functions (see the module documentation)
        Capability {
            promise: Value::object(vm.new_promise()),
            resolve: Value::UNDEFINED,
            reject: Value::UNDEFINED,
        }
    } else {
        vm.new_promise_capability(c)?
    };
    vm.perform_then(promise, vm.arg(args, 0), vm.arg(args, 1), Some(cap));
    Ok(cap.promise)
}

fn catch(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let then = vm.get(this, PropertyKey::String(vm.atoms.then))?;
    vm.call(then, this, &[Value::UNDEFINED, vm.arg(args, 0)])
}

/// [Promise.prototype.finally](https://tc39.es/ecma262/#sec-promise.prototype.finally)
fn finally(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    if !this.is_object() {
        return Err(vm.type_error("Promise.prototype.finally called on a non-object"));
    }
    let default = Value::object(vm.intrinsics.promise);
    let c = species_constructor(vm, this, default)?;
    let on_finally = vm.arg(args, 0);
    let (then_finally, catch_finally) = if !vm.is_callable(on_finally) {
        (on_finally, on_finally)
    } else {
        let data: Box<[Value]> = Box::new([on_finally, c]);
        let empty = Value::string(vm.atoms.empty);
        let t = vm.new_native_with_data(then_finally_fn, empty, 1, false, data.clone());
        let k = vm.new_native_with_data(catch_finally_fn, empty, 1, false, data);
        (Value::object(t), Value::object(k))
    };
    let then = vm.get(this, PropertyKey::String(vm.atoms.then))?;
    vm.call(then, this, &[then_finally, catch_finally])
}

fn then_finally_fn(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    finally_step(vm, vm.arg(args, 0), false)
}

fn catch_finally_fn(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    finally_step(vm, vm.arg(args, 0), true)
}

fn finally_step(vm: &mut Vm, value: Value, rethrow: bool) -> JsResult<Value> {
    let data = vm.native_data(vm.native_callee).to_vec();
    let (on_finally, c) = (data[0], data[1]);
    let result = vm.call(on_finally, Value::UNDEFINED, &[])?;
    let promise = vm.promise_resolve(c, result)?;
    let f = if rethrow { thrower } else { value_thunk };
    let empty = Value::string(vm.atoms.empty);
    let thunk = vm.new_native_with_data(f, empty, 0, false, Box::new([value]));
    let then = vm.get(Value::object(promise), PropertyKey::String(vm.atoms.then))?;
    vm.call(then, Value::object(promise), &[Value::object(thunk)])
}

/// A function that returns `value` whatever it is called with.
pub(crate) fn value_thunk_function(vm: &mut Vm, value: Value) -> Value {
    let empty = Value::string(vm.atoms.empty);
    let thunk = vm.new_native_with_data(value_thunk, empty, 0, false, Box::new([value]));
    Value::object(thunk)
}

fn value_thunk(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    Ok(vm.native_data(vm.native_callee)[0])
}

fn thrower(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    let v = vm.native_data(vm.native_callee)[0];
    Err(vm.throw(v))
}

fn promise_resolve_static(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    if !this.is_object() {
        return Err(vm.type_error("Promise.resolve called on non-object"));
    }
    Ok(Value::object(vm.promise_resolve(this, vm.arg(args, 0))?))
}

fn promise_reject_static(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let cap = vm.new_promise_capability(this)?;
    vm.call(cap.reject, Value::UNDEFINED, &[vm.arg(args, 0)])?;
    Ok(cap.promise)
}

fn with_resolvers(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let cap = vm.new_promise_capability(this)?;
    let obj = super::new_plain_object(vm);
    for (name, v) in [
        ("promise", cap.promise),
        ("resolve", cap.resolve),
        ("reject", cap.reject),
    ] {
        let key = vm.key(name);
        vm.create_data_property(obj, key, v)?;
    }
    Ok(Value::object(obj))
}

/// [Promise.try](https://tc39.es/ecma262/#sec-promise.try)
fn promise_try(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    if !this.is_object() {
        return Err(vm.type_error("Promise.try called on non-object"));
    }
    let cap = vm.new_promise_capability(this)?;
    let f = vm.arg(args, 0);
    let rest: Vec<Value> = (1..args.count as usize).map(|i| vm.arg(args, i)).collect();
    match vm.call(f, Value::UNDEFINED, &rest) {
        Ok(v) => vm.call(cap.resolve, Value::UNDEFINED, &[v])?,
        Err(_) => {
            let e = vm.catch_thrown()?;
            vm.call(cap.reject, Value::UNDEFINED, &[e])?
        }
    };
    Ok(cap.promise)
}

#[derive(Clone, Copy, PartialEq)]
enum Combinator {
    All,
    AllSettled,
    Any,
    Race,
}

/// The shared body of Promise.all / allSettled / any / race.
fn combinator(vm: &mut Vm, this: Value, iterable: Value, which: Combinator) -> JsResult<Value> {
    let cap = vm.new_promise_capability(this)?;
    let mark = vm.roots.len();
    vm.roots.extend([cap.promise, cap.resolve, cap.reject]);
    let result = combinator_body(vm, this, iterable, which, cap);
    vm.roots.truncate(mark);
    match result {
        Ok(v) => Ok(v),
        Err(_) => {
            let e = vm.catch_thrown()?;
            vm.call(cap.reject, Value::UNDEFINED, &[e])?;
            Ok(cap.promise)
        }
    }
}

fn combinator_body(
    vm: &mut Vm,
    c: Value,
    iterable: Value,
    which: Combinator,
    cap: Capability,
) -> JsResult<Value> {
    let resolve_key = vm.key("resolve");
    let resolve_fn = vm.get(c, resolve_key)?;
    if !vm.is_callable(resolve_fn) {
        return Err(vm.type_error("Promise resolve is not a function"));
    }
    let (iter, next) = vm.get_iterator(iterable)?;
    vm.roots.push(iter);
    // Shared state: [values array, remaining count]
    let values = vm.new_array_with_capacity(0);
    let state = vm.heap.new_object(
        None,
        ObjectKind::Internal(Box::new([Value::object(values), Value::int(1)])),
    );
    vm.roots.push(Value::object(state));
    let mut index = 0u32;
    loop {
        let (value, done) = vm.iterator_step(iter, next)?;
        if done {
            break;
        }
        let step: JsResult<()> = (|| {
            if which != Combinator::Race {
                // The spec's values list, kept as an array: define, never [[Set]] (a setter
                // on Array.prototype must not see it).
                vm.create_data_property(values, PropertyKey::Index(index), Value::UNDEFINED)?;
            }
            let next_promise = vm.call(resolve_fn, c, &[value])?;
            vm.roots.push(next_promise);
            let (on_ok, on_err) = match which {
                Combinator::Race => (cap.resolve, cap.reject),
                _ => {
                    bump_remaining(vm, state, 1);
                    let empty = Value::string(vm.atoms.empty);
                    let data = |kind: i32| -> Box<[Value]> {
                        Box::new([
                            Value::object(state),
                            Value::int(index as i32),
                            cap.resolve,
                            cap.reject,
                            Value::int(kind),
                            Value::FALSE,
                        ])
                    };
                    let element = |vm: &mut Vm, kind: i32| {
                        let d = data(kind);
                        let called = vm
                            .heap
                            .new_object(None, ObjectKind::Internal(Box::new([Value::FALSE])));
                        let mut d = d.into_vec();
                        d[5] = Value::object(called);
                        Value::object(vm.new_native_with_data(
                            combinator_element,
                            empty,
                            1,
                            false,
                            d.into_boxed_slice(),
                        ))
                    };
                    match which {
                        Combinator::All => (element(vm, 0), cap.reject),
                        Combinator::AllSettled => {
                            let f = element(vm, 1);
                            // Both functions of one element share the "already called" cell.
                            let r = element(vm, 2);
                            share_called_cell(vm, f, r);
                            (f, r)
                        }
                        _ => (cap.resolve, element(vm, 3)),
                    }
                }
            };
            let then = vm.get(next_promise, PropertyKey::String(vm.atoms.then))?;
            vm.call(then, next_promise, &[on_ok, on_err])?;
            Ok(())
        })();
        if let Err(t) = step {
            return Err(vm.iterator_close_after_throw(iter, t));
        }
        index += 1;
    }
    if which != Combinator::Race && bump_remaining(vm, state, -1) == 0 {
        if which == Combinator::Any {
            let list = vm.create_list_from_array_like(Value::object(values))?;
            let err = aggregate(vm, list);
            vm.call(cap.reject, Value::UNDEFINED, &[err])?;
        } else {
            vm.call(cap.resolve, Value::UNDEFINED, &[Value::object(values)])?;
        }
    }
    Ok(cap.promise)
}

fn share_called_cell(vm: &mut Vm, a: Value, b: Value) {
    let cell = a.as_object().map(|o| vm.native_data(o)[5]);
    if let (Some(cell), Some(b)) = (cell, b.as_object())
        && let ObjectKind::Native(n) = &mut vm.heap.object_mut(b).kind
    {
        n.data[5] = cell;
    }
}

fn bump_remaining(vm: &mut Vm, state: ObjectId, delta: i32) -> i32 {
    if let ObjectKind::Internal(v) = &mut vm.heap.object_mut(state).kind {
        let n = v[1].as_int().unwrap_or(0) + delta;
        v[1] = Value::int(n);
        return n;
    }
    0
}

fn aggregate(vm: &mut Vm, errors: Vec<Value>) -> Value {
    let e = vm.new_error(
        vm.intrinsics.aggregate_error_prototype,
        "All promises were rejected",
    );
    let arr = vm.array_from_values(errors);
    vm.define_builtin(
        e,
        PropertyKey::String(vm.atoms.errors),
        Value::object(arr),
        crate::object::Attrs::HIDDEN,
    );
    Value::object(e)
}

/// Promise.all resolve element (kind 0), allSettled fulfilled (1) / rejected (2), any reject (3).
fn combinator_element(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let data = vm.native_data(vm.native_callee).to_vec();
    let (state, index, resolve, reject, kind, called) =
        (data[0], data[1], data[2], data[3], data[4], data[5]);
    if !claim_resolution(vm, called) {
        return Ok(Value::UNDEFINED);
    }
    let x = vm.arg(args, 0);
    let Some(state) = state.as_object() else {
        return Ok(Value::UNDEFINED);
    };
    let values = match &vm.heap.object(state).kind {
        ObjectKind::Internal(v) => v[0],
        _ => return Ok(Value::UNDEFINED),
    };
    let item = match kind.as_int() {
        Some(1) | Some(2) => {
            let obj = super::new_plain_object(vm);
            let status = vm.intern_value(if kind.as_int() == Some(1) {
                "fulfilled"
            } else {
                "rejected"
            });
            let status_key = vm.key("status");
            vm.create_data_property(obj, status_key, status)?;
            let field = if kind.as_int() == Some(1) {
                vm.key("value")
            } else {
                vm.key("reason")
            };
            vm.create_data_property(obj, field, x)?;
            Value::object(obj)
        }
        _ => x,
    };
    let i = index.as_int().unwrap_or(0) as u32;
    if let Some(list) = values.as_object() {
        vm.create_data_property(list, PropertyKey::Index(i), item)?;
    }
    if bump_remaining(vm, state, -1) == 0 {
        if kind.as_int() == Some(3) {
            let list = vm.create_list_from_array_like(values)?;
            let err = aggregate(vm, list);
            vm.call(reject, Value::UNDEFINED, &[err])?;
        } else {
            vm.call(resolve, Value::UNDEFINED, &[values])?;
        }
    }
    Ok(Value::UNDEFINED)
}

fn all(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    combinator(vm, this, vm.arg(args, 0), Combinator::All)
}
fn all_settled(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    combinator(vm, this, vm.arg(args, 0), Combinator::AllSettled)
}
fn any(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    combinator(vm, this, vm.arg(args, 0), Combinator::Any)
}
fn race(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    combinator(vm, this, vm.arg(args, 0), Combinator::Race)
}
