//! Function objects and calls: creating closures, pushing frames, and the
//! [[Call]] / [[Construct]] entry points native code uses.

use super::generator::{GeneratorState, GeneratorStatus, ResumeMode, SavedFrame, SuspendKind};
use super::{Args, CodeBlock, Exit, Frame, ReturnTo, Vm};
use crate::JsResult;
use crate::builtins::proxy;
use crate::heap::{EnvId, ObjectId, StringId};
use crate::object::{
    Attrs, Closure, NativeFn, NativeFunction, ObjectKind, Property, PropertyKey, Slots,
};
use crate::value::Value;
use kiln_bytecode::FunctionKind;
use std::rc::Rc;

impl Vm {
    /// Push a frame for `code` with arguments `stack[args_start .. args_start + argc]`.
    /// Inlined: in the dispatch loop's plain calls most of its arguments are constants.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn push_frame_from_stack(
        &mut self,
        code: Rc<CodeBlock>,
        callee: ObjectId,
        env: Option<EnvId>,
        this: Value,
        args_start: usize,
        argc: usize,
        new_target: Value,
        ret: ReturnTo,
        construct: bool,
    ) -> JsResult<()> {
        if self.frames.len() >= self.limits.max_frames {
            return Err(self.stack_overflow());
        }
        let base = self.stack.len();
        let registers = code.register_count.max(1) as usize;
        let params = code.param_count as usize;
        let copied = argc.min(params).min(registers - 1);
        self.stack.reserve(registers);
        self.stack.push(this);
        // A loop, not `copy_within`: calls pass a few arguments, fewer than a `memmove`
        // call costs to set up.
        for i in args_start..args_start + copied {
            let arg = self.stack[i];
            self.stack.push(arg);
        }
        // The other registers start undefined, written in place: `resize` is an outlined
        // call that costs more than the few registers a small function has.
        let filled = 1 + copied;
        self.stack.spare_capacity_mut()[..registers - filled]
            .fill(std::mem::MaybeUninit::new(Value::UNDEFINED));
        // SAFETY: the capacity holds `registers` values past `base` (reserved above), and
        // the ones past the `filled` pushed were initialised just above.
        unsafe { self.stack.set_len(base + registers) };
        let args_at = base + registers;
        if code.needs_arguments {
            self.stack.extend_from_within(args_start..args_start + argc);
        }
        // PrepareForOrdinaryCall: the callee's realm runs (checked before the frame is
        // built, so the common case builds it in place).
        let caller_realm = self.realm;
        if code.realm != caller_realm {
            self.enter_realm(code.realm);
        }
        // The frame is written straight into the vector's storage. Built as a value and
        // pushed, it would be assembled on the native stack in narrow stores and copied
        // in wide loads, which wait for those stores on every call.
        self.frames.reserve(1);
        let len = self.frames.len();
        self.frames.spare_capacity_mut()[0].write(Frame {
            code,
            pc: 0,
            base: base as u32,
            env,
            env_depth: 0,
            callee,
            new_target,
            argc: argc as u32,
            args_at: args_at as u32,
            ret,
            construct,
            generator: None,
            caller_realm,
        });
        // SAFETY: the slot at `len`, within the capacity, was initialised just above.
        unsafe { self.frames.set_len(len + 1) };
        Ok(())
    }

    /// Pop the running frame and enter again the realm its caller ran in.
    #[inline(always)]
    pub(crate) fn pop_frame(&mut self) -> Frame {
        let frame = self.frames.pop().expect("a running frame");
        if frame.caller_realm != self.realm {
            self.enter_realm(frame.caller_realm);
        }
        frame
    }

    /// Push a frame whose arguments are given as a slice.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push_frame(
        &mut self,
        code: Rc<CodeBlock>,
        callee: ObjectId,
        env: Option<EnvId>,
        this: Value,
        args: &[Value],
        new_target: Value,
        ret: ReturnTo,
        construct: bool,
    ) -> JsResult<()> {
        let start = self.stack.len();
        self.stack.extend_from_slice(args);
        let r = self.push_frame_from_stack(
            code,
            callee,
            env,
            this,
            start,
            args.len(),
            new_target,
            ret,
            construct,
        );
        if r.is_err() {
            self.stack.truncate(start);
        }
        r
    }

    // ---- creating functions ----

    /// A new closure over `env` for compiled function `code`.
    pub fn new_closure(
        &mut self,
        code: Rc<CodeBlock>,
        env: Option<EnvId>,
        home_object: Option<ObjectId>,
    ) -> ObjectId {
        let kind = code.kind;
        let strict = code.strict;
        let proto = match kind {
            FunctionKind::Generator => self.intrinsics.generator_function_prototype,
            FunctionKind::Async | FunctionKind::AsyncArrow => {
                self.intrinsics.async_function_prototype
            }
            FunctionKind::AsyncGenerator => self.intrinsics.async_generator_function_prototype,
            _ => self.intrinsics.function_prototype,
        };
        let length = Value::int(code.code.length as i32);
        let name = Value::string(code.name);
        let closure = ObjectKind::Closure(Closure::new(code, env, home_object, None));
        if proto == self.intrinsics.function_prototype {
            let with_prototype = kind == FunctionKind::Normal;
            let sloppy = with_prototype && !strict;
            let shape = if sloppy {
                self.shapes.sloppy
            } else if with_prototype {
                self.shapes.with_prototype
            } else {
                self.shapes.plain
            };
            let f = self.heap.new_object_with_shape(shape, Some(proto), closure);
            self.heap.object_mut(f).slots = if with_prototype {
                let p = self.heap.new_object_with_shape(
                    self.shapes.prototype_object,
                    Some(self.intrinsics.object_prototype),
                    ObjectKind::Ordinary,
                );
                self.heap.object_mut(p).slots = Slots::from_slice(&[Value::object(f)]);
                let p = Value::object(p);
                if sloppy {
                    Slots::from_slice(&[length, name, p, Value::UNDEFINED, Value::UNDEFINED])
                } else {
                    Slots::from_slice(&[length, name, p])
                }
            } else {
                Slots::from_slice(&[length, name])
            };
            return f;
        }
        let f = self.heap.new_object(Some(proto), closure);
        self.define_builtin(
            f,
            PropertyKey::String(self.atoms.length),
            length,
            Attrs::CONFIGURABLE_ONLY,
        );
        self.define_builtin(
            f,
            PropertyKey::String(self.atoms.name),
            name,
            Attrs::CONFIGURABLE_ONLY,
        );
        if kind.is_generator() {
            let gen_proto = if kind == FunctionKind::Generator {
                self.intrinsics.generator_prototype
            } else {
                self.intrinsics.async_generator_prototype
            };
            let p = self.heap.new_object(Some(gen_proto), ObjectKind::Ordinary);
            self.define_builtin(
                f,
                PropertyKey::String(self.atoms.prototype),
                Value::object(p),
                Attrs(Attrs::WRITABLE),
            );
        }
        f
    }

    /// A new native function object named `name` with `length`.
    pub fn new_native(
        &mut self,
        func: NativeFn,
        name: &'static str,
        length: u32,
        constructor: bool,
    ) -> ObjectId {
        let name = self.heap.intern_static(name);
        self.new_native_with_data(func, Value::string(name), length, constructor, Box::new([]))
    }

    pub fn new_native_with_data(
        &mut self,
        func: NativeFn,
        name: Value,
        length: u32,
        constructor: bool,
        data: Box<[Value]>,
    ) -> ObjectId {
        let shape = self.shapes.plain;
        let proto = Some(self.intrinsics.function_prototype);
        let kind = ObjectKind::Native(NativeFunction {
            func,
            constructor,
            data,
            realm: self.realm,
        });
        let f = self.heap.new_object_with_shape(shape, proto, kind);
        self.heap.object_mut(f).slots = Slots::from_slice(&[Value::int(length as i32), name]);
        f
    }

    /// The error for a call nested too deeply: a RangeError, or a termination when the
    /// call depth is a budget.
    pub fn stack_overflow(&mut self) -> crate::Thrown {
        if self.limits.call_depth_terminates {
            return self.terminate(super::Termination::CallDepth);
        }
        self.range_error("Maximum call stack size exceeded")
    }

    /// Define a native method `name` on `obj` (writable, configurable, not enumerable),
    /// which does not have `name` yet (a built-in being made, or a dictionary-mode
    /// object such as the global object).
    pub fn define_native(
        &mut self,
        obj: ObjectId,
        name: &'static str,
        func: NativeFn,
        length: u32,
    ) -> ObjectId {
        let name = self.heap.intern_static(name);
        let f = self.new_native_with_data(func, Value::string(name), length, false, Box::new([]));
        let key = self.key_from_string(name);
        self.define_new_builtin(obj, key, Value::object(f), Attrs::HIDDEN);
        f
    }

    /// Define a native method named by an atom on `obj`, replacing a property of that
    /// name (an embedder's function, its name interned by the caller).
    pub fn define_native_atom(
        &mut self,
        obj: ObjectId,
        name: StringId,
        func: NativeFn,
        length: u32,
    ) -> ObjectId {
        let f = self.new_native_with_data(func, Value::string(name), length, false, Box::new([]));
        let key = self.key_from_string(name);
        self.define_builtin(obj, key, Value::object(f), Attrs::HIDDEN);
        f
    }

    /// The data of the running native function (for natives created with data).
    pub fn native_data(&self, f: ObjectId) -> &[Value] {
        match &self.heap.object(f).kind {
            ObjectKind::Native(n) => &n.data,
            _ => &[],
        }
    }

    /// Argument `i` of a native call, or undefined.
    #[inline]
    pub fn arg(&self, args: Args, i: usize) -> Value {
        if i < args.count as usize {
            self.stack[args.start as usize + i]
        } else {
            Value::UNDEFINED
        }
    }

    /// All arguments of a native call, copied.
    pub fn arg_vec(&self, args: Args) -> Vec<Value> {
        self.stack[args.start as usize..(args.start + args.count) as usize].to_vec()
    }

    pub fn is_callable(&self, v: Value) -> bool {
        v.as_object()
            .is_some_and(|o| self.heap.object(o).is_callable())
    }

    pub fn is_constructor(&self, v: Value) -> bool {
        let Some(o) = v.as_object() else { return false };
        match &self.heap.object(o).kind {
            ObjectKind::Closure(c) => c.code.kind.is_constructor(),
            ObjectKind::Native(n) => n.constructor,
            ObjectKind::Bound(b) => self.is_constructor(Value::object(b.target)),
            ObjectKind::Proxy { constructor, .. } => *constructor,
            _ => false,
        }
    }

    /// The `name` of a function for messages (never runs JavaScript).
    pub fn function_name(&mut self, f: ObjectId) -> String {
        match self
            .heap
            .own_property(f, PropertyKey::String(self.atoms.name))
        {
            Some(Property { value, attrs }) if !attrs.is_accessor() => match value.as_string() {
                Some(s) => self.heap.string_to_rust(s),
                None => String::new(),
            },
            _ => String::new(),
        }
    }

    // ---- calling ----

    /// [[Call]] `f` with `this` and `args`; runs to completion.
    pub fn call(&mut self, f: Value, this: Value, args: &[Value]) -> JsResult<Value> {
        let start = self.stack.len();
        self.stack.extend_from_slice(args);
        let result = self.call_from_stack(f, this, start, args.len(), Value::UNDEFINED);
        self.stack.truncate(start);
        result
    }

    /// [[Construct]] `f` with `args`; `new_target` defaults to `f`.
    pub fn construct(
        &mut self,
        f: Value,
        args: &[Value],
        new_target: Option<Value>,
    ) -> JsResult<Value> {
        if !self.is_constructor(f) {
            let what = self.display(f);
            return Err(self.type_error(format!("{what} is not a constructor")));
        }
        let start = self.stack.len();
        self.stack.extend_from_slice(args);
        let result = self.call_from_stack(
            f,
            this_for_construct(),
            start,
            args.len(),
            new_target.unwrap_or(f),
        );
        self.stack.truncate(start);
        result
    }

    /// Call or construct (when `new_target` is not undefined) with arguments on the stack.
    pub(crate) fn call_from_stack(
        &mut self,
        f: Value,
        this: Value,
        start: usize,
        argc: usize,
        new_target: Value,
    ) -> JsResult<Value> {
        let Some(fobj) = f.as_object() else {
            let what = self.display(f);
            return Err(self.type_error(format!("{what} is not a function")));
        };
        let constructing = !new_target.is_undefined();
        match &self.heap.object(fobj).kind {
            ObjectKind::Closure(c) => {
                let code = c.code.clone();
                let env = c.env;
                if self.native_depth >= self.limits.max_native_depth {
                    return Err(self.stack_overflow());
                }
                let (this, construct) = if constructing {
                    self.prepare_construct(fobj, &code, new_target)?
                } else {
                    if code.kind.is_class_constructor() {
                        // The error is made in the callee's context, so of its realm.
                        let name = self.function_name(fobj);
                        let caller_realm = self.enter_realm(code.realm);
                        let error = self.type_error(format!(
                            "Class constructor {name} cannot be invoked without 'new'"
                        ));
                        self.enter_realm(caller_realm);
                        return Err(error);
                    }
                    (this, false)
                };
                self.push_frame_from_stack(
                    code,
                    fobj,
                    env,
                    this,
                    start,
                    argc,
                    new_target,
                    ReturnTo::Exit,
                    construct,
                )?;
                // A built-in calling back into JavaScript holds its values on the roots, so
                // this is a safe point: callbacks that make garbage (`forEach`, `map`,
                // `sort`) are collected as they go, before the heap limit is enforced.
                if self.collection_due()
                    && let Err(t) = self.collect_and_check_limit()
                {
                    let frame = self.pop_frame();
                    self.stack.truncate(frame.base as usize);
                    return Err(t);
                }
                // An async function gets its state and promise before its first instruction;
                // when it awaits, the call returns that promise.
                let kind = self.frames.last().expect("frame").code.kind;
                let promise = if matches!(kind, FunctionKind::Async | FunctionKind::AsyncArrow) {
                    if let Err(t) = self.enter_frame() {
                        let frame = self.pop_frame();
                        self.stack.truncate(frame.base as usize);
                        return Err(t);
                    }
                    self.frames.last().and_then(|f| f.generator).and_then(|g| {
                        match &self.heap.object(g).kind {
                            ObjectKind::Generator(state) => state.promise,
                            _ => None,
                        }
                    })
                } else {
                    None
                };
                self.native_depth += 1;
                let result = self.run_after_push();
                self.native_depth -= 1;
                match result? {
                    Exit::Return(v) => Ok(v),
                    Exit::Await(v) => Ok(promise.map_or(v, Value::object)),
                    Exit::Yield(v) => Ok(v),
                }
            }
            ObjectKind::Native(n) => {
                let func = n.func;
                let realm = n.realm;
                if constructing && !n.constructor {
                    let what = self.display(f);
                    return Err(self.type_error(format!("{what} is not a constructor")));
                }
                if self.native_depth >= self.limits.max_native_depth {
                    return Err(self.stack_overflow());
                }
                let roots = self.roots.len();
                self.native_depth += 1;
                let saved_callee = std::mem::replace(&mut self.native_callee, fobj);
                // A built-in runs in its own realm: what it creates and throws is of it.
                let caller_realm = self.realm;
                let other_realm = realm != caller_realm;
                if other_realm {
                    self.enter_realm(realm);
                }
                let result = func(
                    self,
                    this,
                    Args {
                        start: start as u32,
                        count: argc as u32,
                        new_target,
                    },
                );
                if other_realm {
                    self.enter_realm(caller_realm);
                }
                self.native_callee = saved_callee;
                self.native_depth -= 1;
                self.roots.truncate(roots);
                result
            }
            ObjectKind::Bound(b) => {
                let target = Value::object(b.target);
                let bound_this = b.this;
                let bound_args = b.args.clone();
                let new_start = self.stack.len();
                self.stack.extend_from_slice(&bound_args);
                self.stack.extend_from_within(start..start + argc);
                let nt = if constructing && new_target == f {
                    target
                } else {
                    new_target
                };
                let result = self.call_from_stack(
                    target,
                    bound_this,
                    new_start,
                    bound_args.len() + argc,
                    nt,
                );
                self.stack.truncate(new_start);
                result
            }
            ObjectKind::Proxy { .. } => {
                let args = self.stack[start..start + argc].to_vec();
                if constructing {
                    proxy::construct(self, fobj, &args, new_target)
                } else {
                    proxy::call(self, fobj, this, &args)
                }
            }
            _ => {
                let what = self.display(f);
                Err(self.type_error(format!("{what} is not a function")))
            }
        }
    }

    /// For `new F(...)` on a closure: the initial `this` and whether non-object returns use it.
    pub(crate) fn prepare_construct(
        &mut self,
        f: ObjectId,
        code: &CodeBlock,
        new_target: Value,
    ) -> JsResult<(Value, bool)> {
        match code.kind {
            FunctionKind::DerivedConstructor => Ok((Value::HOLE, false)),
            FunctionKind::Normal | FunctionKind::ClassConstructor => {
                let proto = self.prototype_from_constructor(new_target, |i| i.object_prototype)?;
                let this = self.heap.new_object(Some(proto), ObjectKind::Ordinary);
                let _ = f;
                Ok((Value::object(this), true))
            }
            _ => {
                let name = self.function_name(f);
                Err(self.type_error(format!("{name} is not a constructor")))
            }
        }
    }

    /// [GetPrototypeFromConstructor](https://tc39.es/ecma262/#sec-getprototypefromconstructor):
    /// `new_target.prototype` if it is an object, else the `default` intrinsic of
    /// `new_target`'s realm.
    pub fn prototype_from_constructor(
        &mut self,
        new_target: Value,
        default: fn(&crate::realm::Intrinsics) -> ObjectId,
    ) -> JsResult<ObjectId> {
        let Some(nt) = new_target.as_object() else {
            return Ok(default(&self.intrinsics));
        };
        // Fast path: a plain function's `prototype` data property is its third slot.
        let shape = self.heap.object(nt).shape;
        let proto = if shape == self.shapes.with_prototype || shape == self.shapes.sloppy {
            self.heap.object(nt).slots[2]
        } else {
            // 2. Let proto be ? Get(constructor, "prototype").
            self.get(new_target, PropertyKey::String(self.atoms.prototype))?
        };
        if let Some(p) = proto.as_object() {
            return Ok(p);
        }
        // 3.a. Let realm be ? GetFunctionRealm(constructor).
        // 3.b. Set proto to realm's intrinsic object named intrinsicDefaultProto.
        let realm = self.function_realm(nt)?;
        Ok(default(self.realm_intrinsics(realm)))
    }

    /// Run the field initialiser of class constructor `f` on `this`.
    pub(crate) fn initialize_fields(&mut self, f: ObjectId, this: Value) -> JsResult<()> {
        let init = match &self.heap.object(f).kind {
            ObjectKind::Closure(c) => c.fields(),
            _ => None,
        };
        if let Some(init) = init {
            self.call(Value::object(init), this, &[])?;
        }
        Ok(())
    }

    // ---- generators and async functions ----

    /// Move the top frame into a new generator-like object (at InitialYield or first Await).
    pub(crate) fn suspend_top_frame(&mut self, state_obj: ObjectId) {
        let frame = self.pop_frame();
        let saved = SavedFrame::save(&frame, &self.stack);
        self.stack.truncate(frame.base as usize);
        if let ObjectKind::Generator(g) = &mut self.heap.object_mut(state_obj).kind {
            g.frame = Some(saved);
        }
    }

    /// Resume a suspended generator-like object; runs until it yields, awaits or finishes.
    pub(crate) fn resume_suspended(
        &mut self,
        generator: ObjectId,
        mode: ResumeMode,
        value: Value,
    ) -> JsResult<Exit> {
        let (saved, status) = match &mut self.heap.object_mut(generator).kind {
            ObjectKind::Generator(g) => {
                // A fresh generator starts after InitialYield, which takes no resumption value.
                let status = g.status;
                g.status = GeneratorStatus::Executing;
                g.resume = (status != GeneratorStatus::SuspendedStart).then_some((mode, value));
                (g.frame.take(), status)
            }
            _ => (None, GeneratorStatus::Completed),
        };
        let Some(saved) = saved else {
            return Err(self.type_error("Generator is not suspended"));
        };
        if self.frames.len() >= self.limits.max_frames
            || self.native_depth >= self.limits.max_native_depth
        {
            if let ObjectKind::Generator(g) = &mut self.heap.object_mut(generator).kind {
                g.frame = Some(saved);
                g.status = status;
                g.resume = None;
            }
            return Err(self.stack_overflow());
        }
        let frame = saved.restore(&mut self.stack, generator, self.realm);
        if frame.code.realm != self.realm {
            self.enter_realm(frame.code.realm);
        }
        self.frames.push(frame);
        self.native_depth += 1;
        let r = self.run_after_push();
        self.native_depth -= 1;
        r
    }

    /// Take the pending resumption of the running generator frame, if it was just resumed.
    pub(crate) fn take_resumption(&mut self) -> Option<(ResumeMode, Value)> {
        let generator = self.frames.last()?.generator?;
        match &mut self.heap.object_mut(generator).kind {
            ObjectKind::Generator(g) => g.resume.take(),
            _ => None,
        }
    }

    pub(crate) fn new_generator_state(&mut self, kind: SuspendKind, proto: ObjectId) -> ObjectId {
        self.heap.new_object(
            Some(proto),
            ObjectKind::Generator(Box::new(GeneratorState::new(kind))),
        )
    }
}

/// The `this` placeholder passed to construct calls (the callee computes the real one).
fn this_for_construct() -> Value {
    Value::UNDEFINED
}
