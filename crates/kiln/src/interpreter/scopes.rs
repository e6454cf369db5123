//! Dynamic scoping at run time: object environments (`with` statements and
//! the vars a sloppy direct eval adds to a function), direct eval in the
//! caller's scope, and `super()` from arrow functions and eval code.
//! The compiler side is `kiln_compiler::dynamic`; the design is in
//! `docs/eval.md`.

use super::{Exit, Recipe, ReturnTo, Vm};
use crate::JsResult;
use crate::heap::EnvId;
use crate::object::{ObjectKind, PropertyKey};
use crate::value::Value;
use kiln_bytecode::Constant;
use std::rc::Rc;

impl Vm {
    /// [HasBinding](https://tc39.es/ecma262/#sec-object-environment-records-hasbinding-n) of
    /// an object environment whose object is `holder` (anything else holds no bindings):
    /// the object if it has `key` and `@@unscopables` does not hide it, else undefined.
    pub(crate) fn lookup_object_env(&mut self, holder: Value, key: PropertyKey) -> JsResult<Value> {
        let Some(obj) = holder.as_object() else {
            return Ok(Value::UNDEFINED);
        };
        if !self.has_property(obj, key)? {
            return Ok(Value::UNDEFINED);
        }
        let unscopables_key = PropertyKey::Symbol(self.symbols.unscopables);
        let unscopables = self.get(holder, unscopables_key)?;
        if let Some(u) = unscopables.as_object() {
            let blocked = self.get(Value::object(u), key)?;
            if self.to_boolean(blocked) {
                return Ok(Value::UNDEFINED);
            }
        }
        Ok(holder)
    }

    /// [GetBindingValue](https://tc39.es/ecma262/#sec-object-environment-records-getbindingvalue-n-s)
    /// of the object environment `holder` (a binding object LookupObjectEnv found).
    pub(crate) fn object_env_get(
        &mut self,
        holder: Value,
        key: PropertyKey,
        strict: bool,
    ) -> JsResult<Value> {
        let Some(obj) = holder.as_object() else {
            return Ok(Value::UNDEFINED);
        };
        // 2-3. If the binding went away since it was resolved: undefined, or a
        // ReferenceError in strict code.
        if !self.has_property(obj, key)? {
            if strict {
                return Err(self.unresolvable(key));
            }
            return Ok(Value::UNDEFINED);
        }
        self.get(holder, key)
    }

    /// [SetMutableBinding](https://tc39.es/ecma262/#sec-object-environment-records-setmutablebinding-n-v-s)
    /// of the object environment `holder`.
    pub(crate) fn object_env_set(
        &mut self,
        holder: Value,
        key: PropertyKey,
        value: Value,
        strict: bool,
    ) -> JsResult<()> {
        let Some(obj) = holder.as_object() else {
            return Ok(());
        };
        // 2-3. Strict code may not recreate a binding that went away.
        if !self.has_property(obj, key)? && strict {
            return Err(self.unresolvable(key));
        }
        if !self.set(holder, key, value, holder)? && strict {
            let k = self.key_to_display(key);
            return Err(self.type_error(format!("Cannot assign to read only property '{k}'")));
        }
        Ok(())
    }

    fn unresolvable(&mut self, key: PropertyKey) -> crate::Thrown {
        let k = self.key_to_display(key);
        self.reference_error(format!("{k} is not defined"))
    }

    /// NamedEvaluation of an anonymous function under a computed key.
    pub(crate) fn name_anonymous_function(&mut self, f: Value, key: Value) -> JsResult<()> {
        if let Some(fobj) = f.as_object() {
            let key = self.to_property_key(key)?;
            self.set_function_name(fobj, key, "");
        }
        Ok(())
    }

    /// A var declared by sloppy direct eval code inside a function: a property of the
    /// function's var object (in `env`'s `slot`), created on first use.
    pub(crate) fn declare_eval_var(
        &mut self,
        env: EnvId,
        slot: u16,
        key: PropertyKey,
    ) -> JsResult<()> {
        let Some(&holder) = self.heap.env(env).slots.get(slot as usize) else {
            return Err(self.reference_error("invalid eval variable environment"));
        };
        let obj = match holder.as_object() {
            Some(o) => o,
            None => {
                let o = self.heap.new_object(None, ObjectKind::Ordinary);
                self.heap.env_mut(env).slots[slot as usize] = Value::object(o);
                o
            }
        };
        if self.get_own_property(obj, key)?.is_none() {
            self.create_data_property(obj, key, Value::UNDEFINED)?;
        }
        Ok(())
    }

    /// `super(...)` on behalf of derived constructor `ctor` (from an arrow or eval code):
    /// construct its parent with `new_target`, refuse a second binding of `this` (`this_now`
    /// is the current binding, the hole while unbound), run the field initialisers.
    pub(crate) fn super_call_from(
        &mut self,
        ctor: Value,
        new_target: Value,
        this_now: Value,
        args: &[Value],
    ) -> JsResult<Value> {
        let Some(ctor) = ctor.as_object() else {
            return Err(self.syntax_error("'super' keyword unexpected here"));
        };
        let parent = self.get_prototype_of(ctor)?;
        let parent = parent.map(Value::object).unwrap_or(Value::NULL);
        if !self.is_constructor(parent) {
            return Err(self.type_error("Super constructor is not a constructor"));
        }
        let result = self.construct(parent, args, Some(new_target))?;
        if !this_now.is_hole() {
            return Err(self.reference_error("Super constructor may only be called once"));
        }
        self.initialize_fields(ctor, result)?;
        Ok(result)
    }

    /// A direct `eval(x)` from the running frame: compile `x` against the scope the compiler
    /// recorded for this call site and run it over the frame's current environment. Code
    /// compiled without a recorded scope runs as global code.
    pub(crate) fn direct_eval_in_scope(&mut self, x: Value, strict: bool) -> JsResult<Value> {
        let Some(s) = x.as_string() else {
            return Ok(x);
        };
        let Some(frame) = self.frames.last() else {
            return self.eval_code(x, strict);
        };
        let code = frame.code.clone();
        let pc = frame.pc.saturating_sub(1);
        let (callee, env, new_target) = (frame.callee, frame.env, frame.new_target);
        let scope = code
            .code
            .constants
            .iter()
            .enumerate()
            .find_map(|(i, c)| match c {
                Constant::EvalScope(scope) if scope.pc == pc => Some((i, scope)),
                _ => None,
            });
        let Some((constant, scope)) = scope else {
            return self.eval_code(x, strict);
        };
        self.ensure_can_compile_strings()?;
        let source = self.heap.string_to_rust(s);
        self.reserve_compilation(source.len())?;
        let script = match kiln_compiler::compile_eval(&source, "<eval>", strict, scope) {
            Ok(script) => script,
            Err(e) => {
                let msg = format!("{} (<eval>:{}:{})", e.message, e.line, e.column);
                return Err(self.syntax_error(msg));
            }
        };
        if let Err(message) = crate::builtins::regexp::literal_errors(&script) {
            return Err(self.syntax_error(format!("{message} (<eval>)")));
        }
        let caller_script = code.script;
        let caller_block = self.scripts[caller_script as usize]
            .blocks
            .iter()
            .position(|b| Rc::ptr_eq(b, &code))
            .unwrap_or(0) as u32;
        let recipe = Recipe::DirectEval {
            strict,
            script: caller_script,
            block: caller_block,
            constant: constant as u32,
        };
        let block = self.load_compiled(super::compiler_output(script), recipe);
        // the source's copy is dropped before the code runs: nested evals would each keep one
        drop(source);
        let this = Value::object(self.intrinsics.global);
        self.push_frame(
            block,
            callee,
            env,
            this,
            &[],
            new_target,
            ReturnTo::Exit,
            false,
        )?;
        match self.run()? {
            Exit::Return(v) => Ok(v),
            Exit::Yield(_) | Exit::Await(_) => {
                Err(self.syntax_error("yield and await are not allowed in eval code"))
            }
        }
    }
}
