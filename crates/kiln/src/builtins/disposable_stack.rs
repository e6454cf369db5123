//! Explicit resource management: the dispose capability that `using` scopes and
//! `DisposableStack` / `AsyncDisposableStack` share, and those two constructors
//! ([spec](https://tc39.es/proposal-explicit-resource-management/)).
//!
//! A [`DisposeCapability`] is the spec's DisposeCapability Record plus the state of a
//! DisposeResources run in progress (`needs_await`, `has_awaited`), so that a run can stop
//! at each Await and go on later: [`Vm::dispose_resources_step`] disposes resources until
//! one must be awaited and hands that value back. The interpreter awaits it in bytecode
//! (`Instr::DisposeResources`); `disposeAsync` awaits it through promise reactions.

use super::{define_getter, define_to_string_tag, make_constructor};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, ObjectKind, PropertyKey};
use crate::value::Value;

/// Which object a [`DisposeCapability`] belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackBrand {
    /// the resource list of a scope with `using` declarations (never exposed)
    Scope,
    DisposableStack,
    AsyncDisposableStack,
}

impl StackBrand {
    /// The constructor's name, for messages.
    fn class_name(self) -> &'static str {
        match self {
            StackBrand::AsyncDisposableStack => "AsyncDisposableStack",
            _ => "DisposableStack",
        }
    }
}

/// How a resource's dispose method is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisposeCall {
    /// `method.call(value)`; for an async hint the result is awaited
    Method,
    /// an async hint whose method is the value's `[Symbol.dispose]`: the result is ignored
    /// and undefined awaited instead (the closure of
    /// [GetDisposeMethod](https://tc39.es/proposal-explicit-resource-management/#sec-getdisposemethod) step 1.b.ii)
    FromSync,
    /// `adopt(value, onDispose)`: `onDispose(value)` with an undefined `this`
    Adopt,
}

/// A [DisposableResource Record](https://tc39.es/proposal-explicit-resource-management/#sec-disposableresource-records).
#[derive(Clone, Copy, Debug)]
pub struct DisposableResource {
    pub value: Value,
    /// undefined only for a null/undefined `await using` value (nothing to call, but an
    /// Await is still owed)
    pub method: Value,
    /// the async-dispose hint
    pub is_async: bool,
    pub call: DisposeCall,
}

/// A [DisposeCapability Record](https://tc39.es/proposal-explicit-resource-management/#sec-disposecapability-records)
/// and its owner's disposed state.
#[derive(Clone, Debug)]
pub struct DisposeCapability {
    pub brand: StackBrand,
    /// [[DisposableState]] / [[AsyncDisposableState]] is ~disposed~
    pub disposed: bool,
    /// [[DisposableResourceStack]]: disposal pops from the end
    pub resources: Vec<DisposableResource>,
    /// DisposeResources' *needsAwait* and *hasAwaited* of the run in progress
    pub needs_await: bool,
    pub has_awaited: bool,
}

impl DisposeCapability {
    pub fn new(brand: StackBrand) -> Self {
        DisposeCapability {
            brand,
            disposed: false,
            resources: Vec::new(),
            needs_await: false,
            has_awaited: false,
        }
    }

    pub fn trace(&self, out: &mut Vec<Value>) {
        for r in &self.resources {
            out.push(r.value);
            out.push(r.method);
        }
    }
}

/// The natives this module creates while the guest runs (realm creation makes the rest);
/// snapshots name them by their position in this list.
pub(crate) const DYNAMIC_NATIVES: [crate::object::NativeFn; 2] =
    [dispose_async_fulfilled, dispose_async_rejected];

pub fn init(vm: &mut Vm) {
    let proto = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.disposable_stack_prototype = proto;
    let ctor = make_constructor(
        vm,
        "DisposableStack",
        disposable_stack_constructor,
        0,
        proto,
    );
    vm.intrinsics.disposable_stack = ctor;
    vm.define_native(proto, "adopt", adopt, 2);
    vm.define_native(proto, "defer", defer, 1);
    let dispose = vm.define_native(proto, "dispose", dispose, 0);
    define_getter(vm, proto, "disposed", disposed);
    vm.define_native(proto, "move", move_, 0);
    vm.define_native(proto, "use", use_, 1);
    // %DisposableStack.prototype% [ @@dispose ] is the same function object as `dispose`.
    vm.define_builtin(
        proto,
        PropertyKey::Symbol(vm.symbols.dispose),
        Value::object(dispose),
        Attrs::HIDDEN,
    );
    define_to_string_tag(vm, proto, "DisposableStack");

    let proto = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.async_disposable_stack_prototype = proto;
    let ctor = make_constructor(
        vm,
        "AsyncDisposableStack",
        async_disposable_stack_constructor,
        0,
        proto,
    );
    vm.intrinsics.async_disposable_stack = ctor;
    vm.define_native(proto, "adopt", async_adopt, 2);
    vm.define_native(proto, "defer", async_defer, 1);
    let dispose_async = vm.define_native(proto, "disposeAsync", dispose_async, 0);
    define_getter(vm, proto, "disposed", async_disposed);
    vm.define_native(proto, "move", async_move, 0);
    vm.define_native(proto, "use", async_use, 1);
    vm.define_builtin(
        proto,
        PropertyKey::Symbol(vm.symbols.async_dispose),
        Value::object(dispose_async),
        Attrs::HIDDEN,
    );
    define_to_string_tag(vm, proto, "AsyncDisposableStack");
}

impl Vm {
    /// The dispose capability of object `o`, if it has one.
    fn dispose_capability(&mut self, o: ObjectId) -> Option<&mut DisposeCapability> {
        match &mut self.heap.object_mut(o).kind {
            ObjectKind::DisposableStack(d) => Some(d),
            _ => None,
        }
    }

    /// [AddDisposableResource](https://tc39.es/proposal-explicit-resource-management/#sec-adddisposableresource)(list,
    /// value, hint) without a method, for `using` declarations (`list` is the scope's resource
    /// list, undefined until its first resource) and `use`. Returns the list. May run JS.
    pub(crate) fn add_disposable_resource(
        &mut self,
        list: Value,
        value: Value,
        is_async: bool,
    ) -> JsResult<Value> {
        // 1.a. A null or undefined value with the sync-dispose hint is not recorded.
        let resource = if value.is_nullish() {
            if !is_async {
                return Ok(list);
            }
            // 1.b. With async-dispose it is, so that leaving the scope still awaits.
            DisposableResource {
                value: Value::UNDEFINED,
                method: Value::UNDEFINED,
                is_async,
                call: DisposeCall::Method,
            }
        } else {
            // CreateDisposableResource: the value must be an object with a dispose method.
            if !value.is_object() {
                let what = self.display(value);
                return Err(self.type_error(format!(
                    "{what} cannot be disposed: only objects, null and undefined can be"
                )));
            }
            let Some((method, call)) = self.get_dispose_method(value, is_async)? else {
                let what = self.display(value);
                let missing = if is_async {
                    "neither a [Symbol.asyncDispose] nor a [Symbol.dispose] method"
                } else {
                    "no [Symbol.dispose] method"
                };
                return Err(self.type_error(format!("{what} cannot be disposed: it has {missing}")));
            };
            DisposableResource {
                value,
                method,
                is_async,
                call,
            }
        };
        let list = match list.as_object() {
            Some(l) => l,
            None => self.heap.new_object(
                None,
                ObjectKind::DisposableStack(Box::new(DisposeCapability::new(StackBrand::Scope))),
            ),
        };
        self.push_resource(list, resource);
        Ok(Value::object(list))
    }

    fn push_resource(&mut self, list: ObjectId, resource: DisposableResource) {
        if let Some(d) = self.dispose_capability(list) {
            d.resources.push(resource);
        }
    }

    /// [GetDisposeMethod](https://tc39.es/proposal-explicit-resource-management/#sec-getdisposemethod)(value,
    /// hint). May run JS.
    fn get_dispose_method(
        &mut self,
        value: Value,
        is_async: bool,
    ) -> JsResult<Option<(Value, DisposeCall)>> {
        if is_async {
            let key = PropertyKey::Symbol(self.symbols.async_dispose);
            if let Some(m) = self.get_method(value, key)? {
                return Ok(Some((m, DisposeCall::Method)));
            }
            let key = PropertyKey::Symbol(self.symbols.dispose);
            return Ok(self
                .get_method(value, key)?
                .map(|m| (m, DisposeCall::FromSync)));
        }
        let key = PropertyKey::Symbol(self.symbols.dispose);
        Ok(self
            .get_method(value, key)?
            .map(|m| (m, DisposeCall::Method)))
    }

    /// [DisposeResources](https://tc39.es/proposal-explicit-resource-management/#sec-disposeresources)
    /// over the capability of `list`, run until it must await: returns the value to await
    /// (the caller awaits it, folds a rejection into `error` with
    /// [`Vm::suppress_dispose_error`], and calls this again), or None once every resource is
    /// disposed. `error` is the completion's thrown value, if it is a throw; each new value
    /// of it is pushed on `roots` (the caller truncates). Errs only on a termination.
    pub(crate) fn dispose_resources_step(
        &mut self,
        list: ObjectId,
        error: &mut Option<Value>,
    ) -> JsResult<Option<Value>> {
        loop {
            let Some(d) = self.dispose_capability(list) else {
                return Ok(None);
            };
            let Some(&resource) = d.resources.last() else {
                // 4. If needsAwait is true and hasAwaited is false, perform ! Await(undefined).
                if d.needs_await && !d.has_awaited {
                    d.needs_await = false;
                    return Ok(Some(Value::UNDEFINED));
                }
                return Ok(None);
            };
            // 3.d. A sync resource after a skipped async one: Await(undefined) first.
            if !resource.is_async && d.needs_await && !d.has_awaited {
                d.needs_await = false;
                return Ok(Some(Value::UNDEFINED));
            }
            d.resources.pop();
            // 3.f. An async resource without a method (null or undefined): owe an Await.
            if resource.method.is_undefined() {
                d.needs_await = true;
                continue;
            }
            // 3.e.i. Let result be Completion(Call(method, value)).
            let result = match resource.call {
                DisposeCall::Adopt => {
                    self.call(resource.method, Value::UNDEFINED, &[resource.value])
                }
                DisposeCall::Method | DisposeCall::FromSync => {
                    self.call(resource.method, resource.value, &[])
                }
            };
            let awaited = match result {
                // 3.e.ii. A normal completion of an async disposal is awaited.
                Ok(v) if resource.is_async => Some(match resource.call {
                    DisposeCall::FromSync => Value::UNDEFINED,
                    _ => v,
                }),
                Ok(_) => None,
                Err(_) => {
                    // 3.e.iii. Fold the throw into the completion.
                    let e = self.catch_thrown()?;
                    self.suppress_dispose_error(error, e);
                    // The closure around a [Symbol.dispose] method returns a rejected promise
                    // rather than throwing, and that is awaited too.
                    (resource.call == DisposeCall::FromSync).then_some(Value::UNDEFINED)
                }
            };
            if let Some(v) = awaited {
                if let Some(d) = self.dispose_capability(list) {
                    d.has_awaited = true;
                }
                return Ok(Some(v));
            }
        }
    }

    /// DisposeResources step 3.e.iii: a disposal threw `e`; the completion becomes a throw of
    /// `e`, or of a SuppressedError of `e` over the value it was already throwing.
    pub(crate) fn suppress_dispose_error(&mut self, error: &mut Option<Value>, e: Value) {
        let folded = match *error {
            Some(suppressed) => {
                Value::object(super::error::new_suppressed_error(self, e, suppressed))
            }
            None => e,
        };
        self.roots.push(folded);
        *error = Some(folded);
    }

    /// DisposeResources of a capability that never awaits (`using` resources only), to the
    /// end: the completion's thrown value, if any.
    fn dispose_resources_sync(&mut self, list: ObjectId) -> JsResult<Option<Value>> {
        let mut error = None;
        while self.dispose_resources_step(list, &mut error)?.is_some() {}
        Ok(error)
    }
}

/// `this` as a stack of `brand` for the method `name`: a TypeError for anything else.
fn this_stack(vm: &mut Vm, this: Value, brand: StackBrand, name: &str) -> JsResult<ObjectId> {
    if let Some(o) = this.as_object()
        && let ObjectKind::DisposableStack(d) = &vm.heap.object(o).kind
        && d.brand == brand
    {
        return Ok(o);
    }
    let class = brand.class_name();
    Err(vm.type_error(format!(
        "{class}.prototype.{name} called on an object that is not a {class}"
    )))
}

/// `this` as a stack of `brand` that is not yet disposed: a ReferenceError once it is.
fn pending_stack(vm: &mut Vm, this: Value, brand: StackBrand, name: &str) -> JsResult<ObjectId> {
    let stack = this_stack(vm, this, brand, name)?;
    if vm.dispose_capability(stack).is_some_and(|d| d.disposed) {
        return Err(vm.reference_error(format!("cannot {name} on a disposed stack")));
    }
    Ok(stack)
}

/// The constructors: OrdinaryCreateFromConstructor with an empty capability.
fn construct_stack(
    vm: &mut Vm,
    args: Args,
    brand: StackBrand,
    default: fn(&crate::realm::Intrinsics) -> ObjectId,
) -> JsResult<Value> {
    // 1. If NewTarget is undefined, throw a TypeError exception.
    if args.new_target.is_undefined() {
        let class = brand.class_name();
        return Err(vm.type_error(format!("Constructor {class} requires 'new'")));
    }
    let proto = vm.prototype_from_constructor(args.new_target, default)?;
    let stack = vm.heap.new_object(
        Some(proto),
        ObjectKind::DisposableStack(Box::new(DisposeCapability::new(brand))),
    );
    Ok(Value::object(stack))
}

/// [DisposableStack](https://tc39.es/proposal-explicit-resource-management/#sec-disposablestack)
fn disposable_stack_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    construct_stack(vm, args, StackBrand::DisposableStack, |i| {
        i.disposable_stack_prototype
    })
}

/// [AsyncDisposableStack](https://tc39.es/proposal-explicit-resource-management/#sec-asyncdisposablestack)
fn async_disposable_stack_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    construct_stack(vm, args, StackBrand::AsyncDisposableStack, |i| {
        i.async_disposable_stack_prototype
    })
}

/// [DisposableStack.prototype.use](https://tc39.es/proposal-explicit-resource-management/#sec-disposablestack.prototype.use)
/// and AsyncDisposableStack's.
fn use_resource(vm: &mut Vm, this: Value, args: Args, brand: StackBrand) -> JsResult<Value> {
    let stack = pending_stack(vm, this, brand, "use")?;
    let value = vm.arg(args, 0);
    let is_async = brand == StackBrand::AsyncDisposableStack;
    vm.add_disposable_resource(Value::object(stack), value, is_async)?;
    Ok(value)
}

/// [DisposableStack.prototype.adopt](https://tc39.es/proposal-explicit-resource-management/#sec-disposablestack.prototype.adopt)
/// and AsyncDisposableStack's: `onDispose(value)` at disposal.
fn adopt_resource(vm: &mut Vm, this: Value, args: Args, brand: StackBrand) -> JsResult<Value> {
    let stack = pending_stack(vm, this, brand, "adopt")?;
    let (value, on_dispose) = (vm.arg(args, 0), vm.arg(args, 1));
    if !vm.is_callable(on_dispose) {
        return Err(vm.type_error("adopt: the dispose callback is not a function"));
    }
    vm.push_resource(
        stack,
        DisposableResource {
            value,
            method: on_dispose,
            is_async: brand == StackBrand::AsyncDisposableStack,
            call: DisposeCall::Adopt,
        },
    );
    Ok(value)
}

/// [DisposableStack.prototype.defer](https://tc39.es/proposal-explicit-resource-management/#sec-disposablestack.prototype.defer)
/// and AsyncDisposableStack's: `onDispose()` at disposal.
fn defer_callback(vm: &mut Vm, this: Value, args: Args, brand: StackBrand) -> JsResult<Value> {
    let stack = pending_stack(vm, this, brand, "defer")?;
    let on_dispose = vm.arg(args, 0);
    if !vm.is_callable(on_dispose) {
        return Err(vm.type_error("defer: the dispose callback is not a function"));
    }
    vm.push_resource(
        stack,
        DisposableResource {
            value: Value::UNDEFINED,
            method: on_dispose,
            is_async: brand == StackBrand::AsyncDisposableStack,
            call: DisposeCall::Method,
        },
    );
    Ok(Value::UNDEFINED)
}

/// [DisposableStack.prototype.move](https://tc39.es/proposal-explicit-resource-management/#sec-disposablestack.prototype.move)
/// and AsyncDisposableStack's: a new stack takes the resources; this one is disposed.
fn move_resources(vm: &mut Vm, this: Value, brand: StackBrand) -> JsResult<Value> {
    let stack = pending_stack(vm, this, brand, "move")?;
    let proto = match brand {
        StackBrand::AsyncDisposableStack => vm.intrinsics.async_disposable_stack_prototype,
        _ => vm.intrinsics.disposable_stack_prototype,
    };
    let mut moved = DisposeCapability::new(brand);
    if let Some(d) = vm.dispose_capability(stack) {
        moved.resources = std::mem::take(&mut d.resources);
        d.disposed = true;
    }
    let new = vm
        .heap
        .new_object(Some(proto), ObjectKind::DisposableStack(Box::new(moved)));
    Ok(Value::object(new))
}

/// [get DisposableStack.prototype.disposed](https://tc39.es/proposal-explicit-resource-management/#sec-get-disposablestack.prototype.disposed)
/// and AsyncDisposableStack's.
fn is_disposed(vm: &mut Vm, this: Value, brand: StackBrand) -> JsResult<Value> {
    let stack = this_stack(vm, this, brand, "disposed")?;
    let disposed = vm.dispose_capability(stack).is_some_and(|d| d.disposed);
    Ok(Value::bool(disposed))
}

fn use_(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    use_resource(vm, this, args, StackBrand::DisposableStack)
}
fn adopt(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    adopt_resource(vm, this, args, StackBrand::DisposableStack)
}
fn defer(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    defer_callback(vm, this, args, StackBrand::DisposableStack)
}
fn move_(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    move_resources(vm, this, StackBrand::DisposableStack)
}
fn disposed(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    is_disposed(vm, this, StackBrand::DisposableStack)
}
fn async_use(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    use_resource(vm, this, args, StackBrand::AsyncDisposableStack)
}
fn async_adopt(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    adopt_resource(vm, this, args, StackBrand::AsyncDisposableStack)
}
fn async_defer(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    defer_callback(vm, this, args, StackBrand::AsyncDisposableStack)
}
fn async_move(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    move_resources(vm, this, StackBrand::AsyncDisposableStack)
}
fn async_disposed(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    is_disposed(vm, this, StackBrand::AsyncDisposableStack)
}

/// [DisposableStack.prototype.dispose](https://tc39.es/proposal-explicit-resource-management/#sec-disposablestack.prototype.dispose)
fn dispose(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let stack = this_stack(vm, this, StackBrand::DisposableStack, "dispose")?;
    // 3. If disposableStack.[[DisposableState]] is disposed, return undefined.
    // 4. Set disposableStack.[[DisposableState]] to disposed.
    match vm.dispose_capability(stack) {
        Some(d) if !d.disposed => d.disposed = true,
        _ => return Ok(Value::UNDEFINED),
    }
    // 5. Return ? DisposeResources(disposableStack.[[DisposeCapability]], NormalCompletion(undefined)).
    match vm.dispose_resources_sync(stack)? {
        Some(e) => Err(vm.throw(e)),
        None => Ok(Value::UNDEFINED),
    }
}

/// [AsyncDisposableStack.prototype.disposeAsync](https://tc39.es/proposal-explicit-resource-management/#sec-asyncdisposablestack.prototype.disposeAsync)
fn dispose_async(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    // 2. Let promiseCapability be ! NewPromiseCapability(%Promise%).
    let promise = vm.new_promise();
    vm.roots.push(Value::object(promise));
    // 3. Without an [[AsyncDisposableState]] slot: reject with a TypeError.
    let stack = match this_stack(vm, this, StackBrand::AsyncDisposableStack, "disposeAsync") {
        Ok(s) => s,
        Err(_) => {
            let e = vm.take_exception();
            vm.reject_promise(promise, e);
            return Ok(Value::object(promise));
        }
    };
    // 4. Already disposed: resolve with undefined.
    // 5. Set asyncDisposableStack.[[AsyncDisposableState]] to disposed.
    match vm.dispose_capability(stack) {
        Some(d) if !d.disposed => d.disposed = true,
        _ => {
            vm.resolve_promise(promise, Value::UNDEFINED)?;
            return Ok(Value::object(promise));
        }
    }
    // 6-8. DisposeResources, settling the promise when it completes.
    continue_dispose_async(vm, stack, promise, None)?;
    Ok(Value::object(promise))
}

/// Run the DisposeResources of `disposeAsync` on from where it stopped: to its next Await,
/// which resumes it through a promise reaction, or to its end, which settles `promise`.
/// `error` is the completion's thrown value so far.
fn continue_dispose_async(
    vm: &mut Vm,
    stack: ObjectId,
    promise: ObjectId,
    mut error: Option<Value>,
) -> JsResult<()> {
    loop {
        let Some(value) = vm.dispose_resources_step(stack, &mut error)? else {
            match error {
                Some(e) => vm.reject_promise(promise, e),
                None => vm.resolve_promise(promise, Value::UNDEFINED)?,
            }
            return Ok(());
        };
        // Await(value): PromiseResolve(%Promise%, value) may itself throw.
        let awaited = match vm.promise_resolve(Value::object(vm.intrinsics.promise), value) {
            Ok(p) => p,
            Err(_) => {
                let e = vm.catch_thrown()?;
                vm.suppress_dispose_error(&mut error, e);
                continue;
            }
        };
        let (has_error, error) = match error {
            Some(e) => (Value::TRUE, e),
            None => (Value::FALSE, Value::UNDEFINED),
        };
        let data: Box<[Value]> = Box::new([
            Value::object(stack),
            Value::object(promise),
            has_error,
            error,
        ]);
        let empty = Value::string(vm.atoms.empty);
        let on_fulfilled =
            vm.new_native_with_data(dispose_async_fulfilled, empty, 1, false, data.clone());
        let on_rejected = vm.new_native_with_data(dispose_async_rejected, empty, 1, false, data);
        vm.perform_then(
            awaited,
            Value::object(on_fulfilled),
            Value::object(on_rejected),
            None,
        );
        return Ok(());
    }
}

/// The state a `disposeAsync` reaction carries: (stack, promise, error so far).
fn dispose_async_state(vm: &Vm) -> Option<(ObjectId, ObjectId, Option<Value>)> {
    let data = vm.native_data(vm.native_callee);
    let [stack, promise, has_error, error] = data else {
        return None;
    };
    let error = (*has_error == Value::TRUE).then_some(*error);
    Some((stack.as_object()?, promise.as_object()?, error))
}

/// A disposal `disposeAsync` awaited has fulfilled: go on.
fn dispose_async_fulfilled(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    if let Some((stack, promise, error)) = dispose_async_state(vm) {
        continue_dispose_async(vm, stack, promise, error)?;
    }
    Ok(Value::UNDEFINED)
}

/// A disposal `disposeAsync` awaited has rejected: fold the reason in and go on.
fn dispose_async_rejected(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if let Some((stack, promise, mut error)) = dispose_async_state(vm) {
        let reason = vm.arg(args, 0);
        vm.suppress_dispose_error(&mut error, reason);
        continue_dispose_async(vm, stack, promise, error)?;
    }
    Ok(Value::UNDEFINED)
}
