//! Generators, async functions and async generators: their prototypes and
//! constructors, and the async-generator request queue
//! ([spec](https://tc39.es/ecma262/#sec-generator-objects)).

use super::{define_to_string_tag, promise::Capability};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::generator::{
    AsyncGeneratorRequest, GeneratorStatus, ResumeMode, SuspendKind,
};
use crate::interpreter::{Args, Exit, Vm};
use crate::object::{Attrs, ObjectKind, PropertyKey};
use crate::value::Value;

pub fn init(vm: &mut Vm) {
    let iterator_proto = vm.intrinsics.iterator_prototype;
    let fproto = vm.intrinsics.function_prototype;
    // %GeneratorFunction.prototype% and %GeneratorPrototype%
    let gen_fn_proto = vm.heap.new_object(Some(fproto), ObjectKind::Ordinary);
    let gen_proto = vm
        .heap
        .new_object(Some(iterator_proto), ObjectKind::Ordinary);
    vm.intrinsics.generator_function_prototype = gen_fn_proto;
    vm.intrinsics.generator_prototype = gen_proto;
    link(
        vm,
        gen_fn_proto,
        gen_proto,
        "GeneratorFunction",
        "Generator",
    );
    vm.define_native(gen_proto, "next", generator_next, 1);
    vm.define_native(gen_proto, "return", generator_return, 1);
    vm.define_native(gen_proto, "throw", generator_throw, 1);
    let gen_fn = vm.new_native(generator_function, "GeneratorFunction", 1, true);
    constructor_links(vm, gen_fn, gen_fn_proto);

    // %AsyncFunction.prototype%
    let async_fn_proto = vm.heap.new_object(Some(fproto), ObjectKind::Ordinary);
    vm.intrinsics.async_function_prototype = async_fn_proto;
    define_to_string_tag(vm, async_fn_proto, "AsyncFunction");
    let async_fn = vm.new_native(async_function, "AsyncFunction", 1, true);
    constructor_links(vm, async_fn, async_fn_proto);

    // %AsyncGeneratorFunction.prototype% and %AsyncGeneratorPrototype%
    let async_iter_proto = vm.intrinsics.async_iterator_prototype;
    let agen_fn_proto = vm.heap.new_object(Some(fproto), ObjectKind::Ordinary);
    let agen_proto = vm
        .heap
        .new_object(Some(async_iter_proto), ObjectKind::Ordinary);
    vm.intrinsics.async_generator_function_prototype = agen_fn_proto;
    vm.intrinsics.async_generator_prototype = agen_proto;
    link(
        vm,
        agen_fn_proto,
        agen_proto,
        "AsyncGeneratorFunction",
        "AsyncGenerator",
    );
    vm.define_native(agen_proto, "next", async_generator_next, 1);
    vm.define_native(agen_proto, "return", async_generator_return, 1);
    vm.define_native(agen_proto, "throw", async_generator_throw, 1);
    let agen_fn = vm.new_native(async_generator_function, "AsyncGeneratorFunction", 1, true);
    constructor_links(vm, agen_fn, agen_fn_proto);

    // %AsyncFromSyncIteratorPrototype%
    let from_sync = vm
        .heap
        .new_object(Some(async_iter_proto), ObjectKind::Ordinary);
    vm.intrinsics.async_from_sync_iterator_prototype = from_sync;
    vm.define_native(from_sync, "next", from_sync_next, 1);
    vm.define_native(from_sync, "return", from_sync_return, 1);
    vm.define_native(from_sync, "throw", from_sync_throw, 1);
}

fn link(vm: &mut Vm, fn_proto: ObjectId, proto: ObjectId, fn_tag: &'static str, tag: &'static str) {
    vm.define_builtin(
        fn_proto,
        PropertyKey::String(vm.atoms.prototype),
        Value::object(proto),
        Attrs::CONFIGURABLE_ONLY,
    );
    vm.define_builtin(
        proto,
        PropertyKey::String(vm.atoms.constructor),
        Value::object(fn_proto),
        Attrs::CONFIGURABLE_ONLY,
    );
    define_to_string_tag(vm, fn_proto, fn_tag);
    define_to_string_tag(vm, proto, tag);
}

fn constructor_links(vm: &mut Vm, ctor: ObjectId, fn_proto: ObjectId) {
    vm.heap.set_proto_raw(ctor, Some(vm.intrinsics.function));
    vm.define_builtin(
        ctor,
        PropertyKey::String(vm.atoms.prototype),
        Value::object(fn_proto),
        Attrs::NONE,
    );
    vm.define_builtin(
        fn_proto,
        PropertyKey::String(vm.atoms.constructor),
        Value::object(ctor),
        Attrs::CONFIGURABLE_ONLY,
    );
}

fn generator_function(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    super::function::create_dynamic_function(vm, args, "function*")
}
fn async_function(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    super::function::create_dynamic_function(vm, args, "async function")
}
fn async_generator_function(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    super::function::create_dynamic_function(vm, args, "async function*")
}

// ---- generators ----

fn generator_status(vm: &Vm, generator: ObjectId, kind: SuspendKind) -> Option<GeneratorStatus> {
    match &vm.heap.object(generator).kind {
        ObjectKind::Generator(g) if g.kind == kind => Some(g.status),
        _ => None,
    }
}

/// [GeneratorResume](https://tc39.es/ecma262/#sec-generatorresume) and friends.
fn generator_resume(
    vm: &mut Vm,
    this: Value,
    mode: ResumeMode,
    value: Value,
    method: &str,
) -> JsResult<Value> {
    let Some(generator) = this
        .as_object()
        .filter(|&g| generator_status(vm, g, SuspendKind::Generator).is_some())
    else {
        return Err(vm.type_error(format!("{method} called on incompatible receiver")));
    };
    match generator_status(vm, generator, SuspendKind::Generator) {
        Some(GeneratorStatus::Executing) => Err(vm.type_error("Generator is already running")),
        Some(GeneratorStatus::Completed) => match mode {
            ResumeMode::Next => Ok(vm.iter_result(Value::UNDEFINED, true)),
            ResumeMode::Return => Ok(vm.iter_result(value, true)),
            ResumeMode::Throw => Err(vm.throw(value)),
        },
        Some(GeneratorStatus::SuspendedStart) if mode != ResumeMode::Next => {
            if let ObjectKind::Generator(g) = &mut vm.heap.object_mut(generator).kind {
                g.status = GeneratorStatus::Completed;
                g.frame = None;
            }
            match mode {
                ResumeMode::Return => Ok(vm.iter_result(value, true)),
                _ => Err(vm.throw(value)),
            }
        }
        _ => match vm.resume_suspended(generator, mode, value)? {
            Exit::Return(v) | Exit::Yield(v) | Exit::Await(v) => Ok(v),
        },
    }
}

fn generator_next(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    generator_resume(
        vm,
        this,
        ResumeMode::Next,
        vm.arg(args, 0),
        "Generator.prototype.next",
    )
}
fn generator_return(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    generator_resume(
        vm,
        this,
        ResumeMode::Return,
        vm.arg(args, 0),
        "Generator.prototype.return",
    )
}
fn generator_throw(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    generator_resume(
        vm,
        this,
        ResumeMode::Throw,
        vm.arg(args, 0),
        "Generator.prototype.throw",
    )
}

// ---- async generators ----

/// [AsyncGeneratorEnqueue](https://tc39.es/ecma262/#sec-asyncgeneratorenqueue) and resume if idle.
fn async_generator_enqueue(
    vm: &mut Vm,
    this: Value,
    mode: ResumeMode,
    value: Value,
) -> JsResult<Value> {
    let cap = vm.new_promise_capability(Value::object(vm.intrinsics.promise))?;
    let promise = cap.promise.as_object().expect("intrinsic promise");
    let Some(generator) = this
        .as_object()
        .filter(|&g| generator_status(vm, g, SuspendKind::AsyncGenerator).is_some())
    else {
        let e = vm.new_error(
            vm.intrinsics.type_error_prototype,
            "AsyncGenerator method called on incompatible receiver",
        );
        vm.reject_promise(promise, Value::object(e));
        return Ok(cap.promise);
    };
    if let ObjectKind::Generator(g) = &mut vm.heap.object_mut(generator).kind {
        g.queue.push_back(AsyncGeneratorRequest {
            mode,
            value,
            promise,
        });
    }
    if generator_status(vm, generator, SuspendKind::AsyncGenerator).is_some_and(|s| !s.is_busy()) {
        async_generator_resume_next(vm, generator)?;
    }
    Ok(cap.promise)
}

/// Serve the head of the queue if the generator is idle.
fn async_generator_resume_next(vm: &mut Vm, generator: ObjectId) -> JsResult<()> {
    loop {
        let (status, head) = match &vm.heap.object(generator).kind {
            ObjectKind::Generator(g) => (g.status, g.queue.front().copied()),
            _ => return Ok(()),
        };
        let Some(request) = head else { return Ok(()) };
        if status.is_busy() {
            return Ok(());
        }
        let mut status = status;
        if request.mode != ResumeMode::Next && status == GeneratorStatus::SuspendedStart {
            if let ObjectKind::Generator(g) = &mut vm.heap.object_mut(generator).kind {
                g.status = GeneratorStatus::Completed;
                g.frame = None;
            }
            status = GeneratorStatus::Completed;
        }
        match (request.mode, status) {
            (ResumeMode::Next, GeneratorStatus::Completed) => {
                settle_head(vm, generator, Ok(Value::UNDEFINED), true);
            }
            (ResumeMode::Throw, GeneratorStatus::Completed) => {
                settle_head(vm, generator, Err(request.value), true);
            }
            // The value of a `return` request is awaited first: by AsyncGeneratorAwaitReturn
            // when the generator has completed, by AsyncGeneratorUnwrapYieldResumption (inside
            // the body, so a rejection is thrown at the yield) when it is suspended.
            (ResumeMode::Return, _) => {
                let intrinsic = Value::object(vm.intrinsics.promise);
                return match vm.promise_resolve(intrinsic, request.value) {
                    Ok(promise) => {
                        vm.async_generator_await_return(generator, promise);
                        Ok(())
                    }
                    Err(_) => {
                        let e = vm.catch_thrown()?;
                        return_awaited(vm, generator, Err(e))
                    }
                };
            }
            (mode, _) => {
                return vm
                    .resume_suspended(generator, mode, request.value)
                    .map(drop);
            }
        }
    }
}

/// A `return` request's value has been awaited: a generator suspended at a yield resumes
/// with it (a rejection is thrown at the yield); a completed one settles the request.
fn return_awaited(vm: &mut Vm, generator: ObjectId, outcome: Result<Value, Value>) -> JsResult<()> {
    let suspended = match &mut vm.heap.object_mut(generator).kind {
        ObjectKind::Generator(g) if g.frame.is_some() => {
            g.status = GeneratorStatus::SuspendedYield;
            true
        }
        ObjectKind::Generator(g) => {
            g.status = GeneratorStatus::Completed;
            false
        }
        _ => return Ok(()),
    };
    if suspended {
        let (mode, value) = match outcome {
            Ok(v) => (ResumeMode::Return, v),
            Err(e) => (ResumeMode::Throw, e),
        };
        return vm.resume_suspended(generator, mode, value).map(drop);
    }
    settle_head(vm, generator, outcome, true);
    async_generator_resume_next(vm, generator)
}

impl Vm {
    /// Wait for `promise`, the awaited value of the `return` request at the head of the
    /// queue; until it settles the generator is busy.
    pub(crate) fn async_generator_await_return(&mut self, generator: ObjectId, promise: ObjectId) {
        if let ObjectKind::Generator(g) = &mut self.heap.object_mut(generator).kind {
            g.status = GeneratorStatus::AwaitingReturn;
        }
        let vm = self;
        let empty = Value::string(vm.atoms.empty);
        let on_ok = vm.new_native_with_data(
            await_return_fulfilled,
            empty,
            1,
            false,
            Box::new([Value::object(generator)]),
        );
        let on_err = vm.new_native_with_data(
            await_return_rejected,
            empty,
            1,
            false,
            Box::new([Value::object(generator)]),
        );
        vm.perform_then(promise, Value::object(on_ok), Value::object(on_err), None);
    }
}

fn await_return_settled(
    vm: &mut Vm,
    args: Args,
    outcome: fn(Value) -> Result<Value, Value>,
) -> JsResult<Value> {
    let generator = vm.native_data(vm.native_callee)[0]
        .as_object()
        .expect("generator");
    return_awaited(vm, generator, outcome(vm.arg(args, 0)))?;
    Ok(Value::UNDEFINED)
}

/// The natives this module creates while the guest runs; snapshots name them by their
/// position in this list.
pub(crate) const DYNAMIC_NATIVES: [crate::object::NativeFn; 4] = [
    await_return_fulfilled,
    await_return_rejected,
    unwrap_fn,
    close_iterator_fn,
];

fn await_return_fulfilled(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    await_return_settled(vm, args, Ok)
}

fn await_return_rejected(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    await_return_settled(vm, args, Err)
}

/// Resolve or reject the head request's promise and drop it from the queue.
fn settle_head(vm: &mut Vm, generator: ObjectId, outcome: Result<Value, Value>, done: bool) {
    let head = match &mut vm.heap.object_mut(generator).kind {
        ObjectKind::Generator(g) => g.queue.pop_front(),
        _ => None,
    };
    let Some(request) = head else { return };
    match outcome {
        Ok(v) => {
            let result = vm.iter_result(v, done);
            let _ = vm.resolve_promise(request.promise, result);
        }
        Err(e) => vm.reject_promise(request.promise, e),
    }
}

impl Vm {
    /// `yield v` in an async generator: settle the head request with `{ v, done: false }`;
    /// returns the next waiting request, which resumes the body at once.
    pub(crate) fn async_generator_settle_yield(
        &mut self,
        generator: ObjectId,
        v: Value,
    ) -> Option<(ResumeMode, Value)> {
        settle_head(self, generator, Ok(v), false);
        match &self.heap.object(generator).kind {
            ObjectKind::Generator(g) => g.queue.front().map(|r| (r.mode, r.value)),
            _ => None,
        }
    }

    /// An async generator body finished: settle the head request and drain the queue.
    pub(crate) fn async_generator_complete(
        &mut self,
        generator: ObjectId,
        outcome: Result<Value, Value>,
    ) {
        settle_head(self, generator, outcome, true);
        let _ = async_generator_resume_next(self, generator);
    }
}

fn async_generator_next(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    async_generator_enqueue(vm, this, ResumeMode::Next, vm.arg(args, 0))
}
fn async_generator_return(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    async_generator_enqueue(vm, this, ResumeMode::Return, vm.arg(args, 0))
}
fn async_generator_throw(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    async_generator_enqueue(vm, this, ResumeMode::Throw, vm.arg(args, 0))
}

// ---- async-from-sync iterators ----

/// [CreateAsyncFromSyncIterator](https://tc39.es/ecma262/#sec-createasyncfromsynciterator)
pub fn create_async_from_sync_iterator(vm: &mut Vm, iter: Value, next: Value) -> Value {
    let proto = vm.intrinsics.async_from_sync_iterator_prototype;
    let obj = vm
        .heap
        .new_object(Some(proto), ObjectKind::Internal(Box::new([iter, next])));
    Value::object(obj)
}

fn from_sync_parts(vm: &Vm, this: Value) -> Option<(Value, Value)> {
    match &vm.heap.object(this.as_object()?).kind {
        ObjectKind::Internal(v) if v.len() == 2 => Some((v[0], v[1])),
        _ => None,
    }
}

/// [AsyncFromSyncIteratorContinuation](https://tc39.es/ecma262/#sec-asyncfromsynciteratorcontinuation)
fn from_sync_continuation(
    vm: &mut Vm,
    result: Value,
    cap: Capability,
    iter: Value,
    close_on_reject: bool,
) -> JsResult<Value> {
    let step: JsResult<()> = (|| {
        if !result.is_object() {
            return Err(vm.type_error("iterator result is not an object"));
        }
        let done = vm.get(result, PropertyKey::String(vm.atoms.done))?;
        let done = vm.to_boolean(done);
        let value = vm.get(result, PropertyKey::String(vm.atoms.value))?;
        let wrapper = match vm.promise_resolve(Value::object(vm.intrinsics.promise), value) {
            Ok(p) => p,
            Err(t) if !done && close_on_reject => {
                return Err(vm.iterator_close_after_throw(iter, t));
            }
            Err(t) => return Err(t),
        };
        let empty = Value::string(vm.atoms.empty);
        let unwrap =
            vm.new_native_with_data(unwrap_fn, empty, 1, false, Box::new([Value::bool(done)]));
        let on_reject = if done || !close_on_reject {
            Value::UNDEFINED
        } else {
            Value::object(vm.new_native_with_data(
                close_iterator_fn,
                empty,
                1,
                false,
                Box::new([iter]),
            ))
        };
        vm.perform_then(wrapper, Value::object(unwrap), on_reject, Some(cap));
        Ok(())
    })();
    if step.is_err() {
        let e = vm.catch_thrown()?;
        vm.call(cap.reject, Value::UNDEFINED, &[e])?;
    }
    Ok(cap.promise)
}

fn unwrap_fn(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let done = vm.native_data(vm.native_callee)[0] == Value::TRUE;
    Ok(vm.iter_result(vm.arg(args, 0), done))
}

fn close_iterator_fn(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let iter = vm.native_data(vm.native_callee)[0];
    let _ = vm.iterator_close(iter);
    Err(vm.throw(vm.arg(args, 0)))
}

fn from_sync_step(vm: &mut Vm, this: Value, args: Args, method: &str) -> JsResult<Value> {
    let cap = vm.new_promise_capability(Value::object(vm.intrinsics.promise))?;
    let Some((iter, next)) = from_sync_parts(vm, this) else {
        return Err(vm.type_error("not an async-from-sync iterator"));
    };
    let has_arg = args.count > 0;
    let arg = vm.arg(args, 0);
    let call: JsResult<Option<Value>> = (|| match method {
        "next" => Ok(Some(if has_arg {
            vm.call(next, iter, &[arg])?
        } else {
            vm.call(next, iter, &[])?
        })),
        name => {
            let key = vm.key(name);
            let m = vm.get(iter, key)?;
            if m.is_nullish() {
                return Ok(None);
            }
            Ok(Some(if has_arg {
                vm.call(m, iter, &[arg])?
            } else {
                vm.call(m, iter, &[])?
            }))
        }
    })();
    match call {
        Ok(Some(result)) => from_sync_continuation(vm, result, cap, iter, method != "return"),
        Ok(None) if method == "return" => {
            let r = vm.iter_result(arg, true);
            vm.call(cap.resolve, Value::UNDEFINED, &[r])?;
            Ok(cap.promise)
        }
        Ok(None) => {
            // throw with no `throw` method: close the iterator and reject with a TypeError,
            // or with what closing threw.
            let reason = match vm.iterator_close(iter) {
                Ok(()) => Value::object(vm.new_error(
                    vm.intrinsics.type_error_prototype,
                    "The iterator does not provide a 'throw' method",
                )),
                Err(_) => vm.catch_thrown()?,
            };
            vm.call(cap.reject, Value::UNDEFINED, &[reason])?;
            Ok(cap.promise)
        }
        Err(_) => {
            let e = vm.catch_thrown()?;
            vm.call(cap.reject, Value::UNDEFINED, &[e])?;
            Ok(cap.promise)
        }
    }
}

fn from_sync_next(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    from_sync_step(vm, this, args, "next")
}
fn from_sync_return(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    from_sync_step(vm, this, args, "return")
}
fn from_sync_throw(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    from_sync_step(vm, this, args, "throw")
}
