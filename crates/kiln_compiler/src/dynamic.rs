//! Dynamic scoping: `with` statements, direct `eval` code compiled against
//! its caller's scope, and the vars a sloppy direct eval adds to a function.
//!
//! Every object whose properties act as bindings lives in an environment
//! slot (a `with` statement pushes a one-slot environment; a sloppy function
//! containing a direct eval reserves a slot in its top environment for the
//! object holding eval-declared vars). A reference that such an object may
//! shadow first runs [`Instr::LookupObjectEnv`] on each candidate, innermost
//! first, and falls back to its static binding. See `docs/eval.md`.

use kiln_bytecode::{
    Constant, ErrorKind, EvalBinding, EvalBindingKind, EvalEnv, EvalScope, Instr, Reg,
};
use oxc_ast::ast::*;
use oxc_semantic::SymbolId;
use oxc_span::Span;
use oxc_syntax::scope::ScopeId;

use crate::compiler::{ClassCtx, Compiler};
use crate::error::CompileError;
use crate::function::{FnState, Loc, R};

/// What a compile-time environment slot holds.
#[derive(Clone, Debug)]
pub(crate) enum EnvEntry {
    Symbol(SymbolId, u16),
    /// a `with` object
    Object(u16),
    /// a function's object of eval-declared vars
    VarObject(u16),
    /// a binding of the eval caller's scope
    Outer(EvalBinding),
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum DynKind {
    /// a `with` statement directly inside scope `outer`
    With { outer: Option<ScopeId> },
    /// the eval var object of function scope `function`
    Vars { function: ScopeId },
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct DynScope {
    pub env: u32,
    pub slot: u16,
    pub kind: DynKind,
}

/// Compiling direct eval code.
pub(crate) struct EvalCtx {
    pub strict: bool,
    pub scope: EvalScope,
    /// compile-time ids of the caller's environments, by depth (index 0 = innermost)
    pub ids: Vec<u32>,
}

/// Where a name resolves after the object environments.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target {
    Symbol(SymbolId),
    Outer {
        env: u32,
        slot: u16,
        kind: EvalBindingKind,
    },
    Arguments(Loc),
    Global,
}

pub(crate) struct Resolution {
    /// object environments to try first, innermost first: (env id, slot)
    pub objects: Vec<(u32, u16)>,
    pub target: Target,
}

impl<'a> Compiler<'a> {
    /// Whether `sym` of eval code is resolved by name in the caller's scope.
    pub(crate) fn eval_by_name(&self, sym: SymbolId) -> bool {
        self.eval_ctx.is_some() && self.is_global_symbol(sym)
    }

    fn scope_is_ancestor_or_self(&self, ancestor: ScopeId, mut scope: ScopeId) -> bool {
        loop {
            if scope == ancestor {
                return true;
            }
            match self.scoping.scope_parent_id(scope) {
                Some(p) => scope = p,
                None => return false,
            }
        }
    }

    fn dyn_relevant(&self, sym: SymbolId, kind: DynKind) -> bool {
        let home = self.scoping.symbol_scope_id(sym);
        match kind {
            DynKind::With { outer } => {
                outer.is_some_and(|o| self.scope_is_ancestor_or_self(home, o))
            }
            DynKind::Vars { function } => {
                home != function && self.scope_is_ancestor_or_self(home, function)
            }
        }
    }

    /// Whether a reference to `sym` here needs the dynamic path.
    pub(crate) fn is_dynamic_symbol(&self, sym: SymbolId) -> bool {
        if self.eval_by_name(sym) {
            return true;
        }
        self.dyn_scopes
            .iter()
            .any(|d| self.dyn_relevant(sym, d.kind))
    }

    pub(crate) fn resolve(&self, name: &str, sym: Option<SymbolId>) -> Resolution {
        let by_name = sym.is_none_or(|s| self.eval_by_name(s));
        let mut objects = Vec::new();
        for d in self.dyn_scopes.iter().rev() {
            let relevant = match sym {
                Some(s) if !by_name => self.dyn_relevant(s, d.kind),
                _ => true,
            };
            if relevant {
                objects.push((d.env, d.slot));
            }
        }
        if let (Some(s), false) = (sym, by_name) {
            return Resolution {
                objects,
                target: Target::Symbol(s),
            };
        }
        if let Some(ctx) = &self.eval_ctx {
            // In parameter initialisers the body's lexical declarations are not in scope.
            let hidden_lexicals = ctx
                .scope
                .var_object
                .filter(|_| ctx.scope.in_parameters)
                .map(|p| p.0 as usize);
            for (depth, &id) in ctx.ids.iter().enumerate() {
                let entries = self.env_names.get(&id).map(Vec::as_slice).unwrap_or(&[]);
                for e in entries {
                    if let EnvEntry::Outer(b) = e
                        && !b.kind.is_object()
                        && b.name == name
                        && !(hidden_lexicals == Some(depth)
                            && matches!(b.kind, EvalBindingKind::Let | EvalBindingKind::Const))
                    {
                        return Resolution {
                            objects,
                            target: Target::Outer {
                                env: id,
                                slot: b.slot,
                                kind: b.kind,
                            },
                        };
                    }
                }
                for e in entries {
                    if let EnvEntry::Outer(b) = e
                        && b.kind.is_object()
                    {
                        objects.push((id, b.slot));
                    }
                }
            }
        }
        if name == "arguments"
            && let Some(loc) = self.arguments_loc()
        {
            return Resolution {
                objects,
                target: Target::Arguments(loc),
            };
        }
        Resolution {
            objects,
            target: Target::Global,
        }
    }

    /// The resolution of a name when it differs from the plain static one.
    pub(crate) fn dynamic(&self, name: &str, sym: Option<SymbolId>) -> Option<Resolution> {
        if self.dyn_scopes.is_empty() && self.eval_ctx.is_none() {
            return None;
        }
        let r = self.resolve(name, sym);
        let differs = !r.objects.is_empty()
            || match sym {
                Some(s) => self.eval_by_name(s),
                None => matches!(r.target, Target::Outer { .. }),
            };
        differs.then_some(r)
    }

    /// Emit the object-environment checks: `r[obj]` = the object holding `name`, or
    /// undefined.
    pub(crate) fn emit_lookup(&mut self, name: &str, objects: &[(u32, u16)], obj: Reg) -> R<()> {
        let mut found = Vec::new();
        for (i, &(env, slot)) in objects.iter().enumerate() {
            let depth = self.env_distance(env, Span::default())?;
            let site = self.fs.site(name)?;
            self.emit(Instr::LookupObjectEnv {
                dst: obj,
                depth,
                slot,
                site,
            });
            if i + 1 < objects.len() {
                found.push(self.emit(Instr::JumpIfNotUndefined {
                    src: obj,
                    offset: 0,
                }));
            }
        }
        self.fs.patch_all_here(&found);
        Ok(())
    }

    pub(crate) fn load_target(
        &mut self,
        target: Target,
        name: &str,
        dst: Reg,
        span: Span,
        typeof_mode: bool,
    ) -> R<()> {
        match target {
            Target::Symbol(s) => self.load_symbol_static(s, dst, span),
            Target::Outer { env, slot, kind } => {
                let checked = matches!(kind, EvalBindingKind::Let | EvalBindingKind::Const);
                self.get_env(dst, env, slot, checked.then_some(name), span)
            }
            Target::Arguments(loc) => self.load_loc(loc, dst, span),
            Target::Global => {
                let site = self.fs.site(name)?;
                self.pos(span);
                if typeof_mode {
                    self.emit(Instr::GetGlobalOrUndefined { dst, site });
                } else {
                    self.emit(Instr::GetGlobal { dst, site });
                }
                Ok(())
            }
        }
    }

    pub(crate) fn store_target(
        &mut self,
        target: Target,
        name: &str,
        src: Reg,
        init: bool,
        span: Span,
    ) -> R<()> {
        match target {
            Target::Symbol(s) => self.store_symbol_static(s, src, init, span),
            Target::Outer { env, slot, kind } => {
                match kind {
                    EvalBindingKind::SelfName => {
                        if self.fs.strict {
                            self.throw_error(
                                ErrorKind::TypeError,
                                "Assignment to constant variable.",
                            )?;
                        }
                    }
                    EvalBindingKind::Const | EvalBindingKind::Let => {
                        let tmp = self.fs.alloc()?;
                        self.get_env(tmp, env, slot, Some(name), span)?;
                        self.fs.release(tmp as u32);
                        if kind == EvalBindingKind::Const {
                            self.throw_error(
                                ErrorKind::TypeError,
                                "Assignment to constant variable.",
                            )?;
                        } else {
                            self.set_env(src, env, slot, span)?;
                        }
                    }
                    _ => self.set_env(src, env, slot, span)?,
                }
                Ok(())
            }
            Target::Arguments(loc) => self.store_loc(loc, src, span),
            Target::Global => {
                let site = self.fs.site(name)?;
                self.pos(span);
                self.emit(Instr::SetGlobal { src, site });
                Ok(())
            }
        }
    }

    /// `r[dst] = name` through object environments.
    pub(crate) fn load_name(
        &mut self,
        name: &str,
        sym: Option<SymbolId>,
        dst: Reg,
        span: Span,
        typeof_mode: bool,
    ) -> R<()> {
        let r = self.resolve(name, sym);
        if r.objects.is_empty() {
            return self.load_target(r.target, name, dst, span, typeof_mode);
        }
        let mark = self.fs.mark();
        let obj = self.fs.alloc()?;
        self.emit_lookup(name, &r.objects, obj)?;
        self.read_found(obj, r.target, name, dst, span, typeof_mode)?;
        self.fs.release(mark);
        Ok(())
    }

    /// Whether the object environment at (`env`, `slot`) holds a function's eval-declared
    /// vars rather than a `with` object (in eval code: as the caller's scope records it).
    fn is_var_object(&self, env: u32, slot: u16) -> bool {
        self.dyn_scopes
            .iter()
            .any(|d| d.env == env && d.slot == slot && matches!(d.kind, DynKind::Vars { .. }))
            || self.env_names.get(&env).is_some_and(|entries| {
                entries.iter().any(|e| match e {
                    EnvEntry::VarObject(s) => *s == slot,
                    EnvEntry::Outer(b) => b.slot == slot && b.kind == EvalBindingKind::VarObject,
                    _ => false,
                })
            })
    }

    /// r[func] = the callee `name` found through object environments, r[this] = the `with`
    /// object it was found on, else undefined: a var object is a declarative environment
    /// in the specification, whose WithBaseObject is undefined.
    pub(crate) fn dynamic_callee(
        &mut self,
        name: &str,
        r: &Resolution,
        func: Reg,
        this: Reg,
        span: Span,
    ) -> R<()> {
        let mut found = Vec::new();
        for &(env, slot) in &r.objects {
            let depth = self.env_distance(env, span)?;
            let site = self.fs.site(name)?;
            self.emit(Instr::LookupObjectEnv {
                dst: this,
                depth,
                slot,
                site,
            });
            let absent = self.emit(Instr::JumpIfUndefined {
                src: this,
                offset: 0,
            });
            let site = self.fs.site(name)?;
            self.pos(span);
            self.emit(Instr::GetBinding {
                dst: func,
                obj: this,
                site,
            });
            if self.is_var_object(env, slot) {
                self.emit(Instr::LoadUndefined { dst: this });
            }
            found.push(self.fs.jump());
            self.fs.patch_here(absent);
        }
        // r[this] is undefined here: no object had the name
        self.load_target(r.target, name, func, span, false)?;
        self.fs.patch_all_here(&found);
        Ok(())
    }

    /// Read `name` from r[obj] if it is an object, else from the static target.
    pub(crate) fn read_found(
        &mut self,
        obj: Reg,
        target: Target,
        name: &str,
        dst: Reg,
        span: Span,
        typeof_mode: bool,
    ) -> R<()> {
        let j = self.emit(Instr::JumpIfUndefined {
            src: obj,
            offset: 0,
        });
        let site = self.fs.site(name)?;
        self.pos(span);
        self.emit(Instr::GetBinding { dst, obj, site });
        let end = self.fs.jump();
        self.fs.patch_here(j);
        self.load_target(target, name, dst, span, typeof_mode)?;
        self.fs.patch_here(end);
        Ok(())
    }

    /// Write `name` to r[obj] if it is an object, else to the static target.
    pub(crate) fn write_found(
        &mut self,
        obj: Reg,
        target: Target,
        name: &str,
        src: Reg,
        init: bool,
        span: Span,
    ) -> R<()> {
        let j = self.emit(Instr::JumpIfUndefined {
            src: obj,
            offset: 0,
        });
        let site = self.fs.site(name)?;
        self.pos(span);
        self.emit(Instr::SetBinding { obj, src, site });
        let end = self.fs.jump();
        self.fs.patch_here(j);
        self.store_target(target, name, src, init, span)?;
        self.fs.patch_here(end);
        Ok(())
    }

    pub(crate) fn store_name(
        &mut self,
        name: &str,
        sym: Option<SymbolId>,
        src: Reg,
        init: bool,
        span: Span,
    ) -> R<()> {
        let r = self.resolve(name, sym);
        if r.objects.is_empty() {
            return self.store_target(r.target, name, src, init, span);
        }
        let mark = self.fs.mark();
        let obj = self.fs.alloc()?;
        self.emit_lookup(name, &r.objects, obj)?;
        self.write_found(obj, r.target, name, src, init, span)?;
        self.fs.release(mark);
        Ok(())
    }

    // ---- with ----

    pub(crate) fn with_statement(&mut self, w: &WithStatement<'a>) -> R<()> {
        if self.fs.strict {
            return Err(CompileError::new(
                "'with' is not allowed in strict mode",
                w.span.start,
            ));
        }
        let mark = self.fs.mark();
        let obj = self.fs.alloc()?;
        self.expr(&w.object, obj)?;
        self.pos(w.span);
        self.emit(Instr::ToObject { dst: obj, src: obj });
        let env = self.push_env(1);
        if let Some(names) = self.env_names.get_mut(&env) {
            names.push(EnvEntry::Object(0));
        }
        self.set_env(obj, env, 0, w.span)?;
        self.fs.release(mark);
        let outer = w
            .scope_id
            .get()
            .and_then(|s| self.scoping.scope_parent_id(s));
        self.dyn_scopes.push(DynScope {
            env,
            slot: 0,
            kind: DynKind::With { outer },
        });
        let result = self.statement(&w.body);
        self.dyn_scopes.pop();
        self.pop_env();
        result
    }

    // ---- direct eval ----

    /// The scope description for a CallEval about to be emitted at the current pc.
    pub(crate) fn eval_scope_constant(&mut self) -> R<u16> {
        let mut scope = EvalScope {
            pc: self.fs.pc() as u32,
            ..EvalScope::default()
        };
        for &id in self.envs.iter().rev() {
            let mut env = EvalEnv::default();
            for e in self.env_names.get(&id).cloned().unwrap_or_default() {
                env.bindings.push(match e {
                    EnvEntry::Outer(b) => b,
                    EnvEntry::Object(slot) => EvalBinding {
                        name: String::new(),
                        slot,
                        kind: EvalBindingKind::Object,
                    },
                    EnvEntry::VarObject(slot) => EvalBinding {
                        name: String::new(),
                        slot,
                        kind: EvalBindingKind::VarObject,
                    },
                    EnvEntry::Symbol(sym, slot) => EvalBinding {
                        name: self.scoping.symbol_name(sym).to_string(),
                        slot,
                        kind: if self.self_names.contains(&sym) {
                            EvalBindingKind::SelfName
                        } else if self.is_const(sym) || self.inner_class_names.contains_key(&sym) {
                            EvalBindingKind::Const
                        } else if self.is_lexical(sym) {
                            EvalBindingKind::Let
                        } else {
                            EvalBindingKind::Var
                        },
                    },
                });
            }
            scope.envs.push(env);
        }
        let place = |c: &Self, loc: Option<Loc>| -> Option<(u16, u16)> {
            match loc {
                Some(Loc::Env { env, slot }) => c
                    .env_distance(env, Span::default())
                    .ok()
                    .map(|d| (d as u16, slot)),
                _ => None,
            }
        };
        for class in self.classes.iter().rev() {
            for (name, &loc) in &class.names {
                if scope.private_names.iter().any(|p| &p.0 == name) {
                    continue;
                }
                if let Some((depth, slot)) = place(self, Some(loc)) {
                    scope.private_names.push((name.clone(), depth, slot));
                }
            }
        }
        scope.var_object = place(self, self.fs.vars_loc);
        scope.in_parameters = self.fs.in_params;
        scope.in_arrow_parameters = self.fs.in_params && self.fs.is_arrow;
        scope.parameter_names = self.fs.param_names.clone();
        let owner: Option<&FnState> = if self.fs.is_arrow {
            self.outer.iter().rev().find(|f| !f.is_arrow)
        } else {
            Some(&self.fs)
        };
        if let Some(owner) = owner
            && owner.kind != kiln_bytecode::FunctionKind::Script
        {
            let (this, nt, args, callee, derived, has_home, in_fields) = (
                owner.this_loc,
                owner.new_target_loc,
                owner.arguments_loc,
                owner.callee_loc,
                owner.is_derived,
                owner.has_home,
                owner.in_field_initializer,
            );
            scope.in_field_initializer = in_fields;
            scope.in_function = true;
            scope.this = place(self, this);
            scope.this_checked = derived;
            scope.new_target = place(self, nt);
            scope.arguments = place(self, args);
            scope.super_call = place(self, callee);
            scope.super_property = has_home;
        } else if let Some(ctx) = &self.eval_ctx {
            // Eval code inside eval code sees what its caller saw.
            scope.in_function = ctx.scope.in_function;
            scope.super_property = ctx.scope.super_property;
            scope.this_checked = ctx.scope.this_checked;
            scope.in_field_initializer = ctx.scope.in_field_initializer;
            let outer = self.outer.iter().rev().find(|f| !f.is_arrow);
            if let Some(o) = outer {
                let (this, nt, args, callee) =
                    (o.this_loc, o.new_target_loc, o.arguments_loc, o.callee_loc);
                scope.this = place(self, this);
                scope.new_target = place(self, nt);
                scope.arguments = place(self, args);
                scope.super_call = place(self, callee);
            }
        }
        self.fs.constant(Constant::EvalScope(Box::new(scope)))
    }

    /// Set up the compiler for eval code: the caller's environments become the outermost
    /// compile-time environments, and a synthetic function state stands for the caller
    /// (its `this`, `new.target`, `arguments` and constructor slots).
    pub(crate) fn enter_eval_scope(&mut self, scope: &EvalScope, strict: bool) {
        let n = scope.envs.len();
        let mut ids = vec![0u32; n];
        for depth in (0..n).rev() {
            let id = self.fresh_env_id();
            self.envs.push(id);
            ids[depth] = id;
            let entries = scope.envs[depth]
                .bindings
                .iter()
                .cloned()
                .map(EnvEntry::Outer)
                .collect();
            self.env_names.insert(id, entries);
        }
        let loc = |p: Option<(u16, u16)>| {
            p.and_then(|(d, slot)| ids.get(d as usize).map(|&env| Loc::Env { env, slot }))
        };
        let mut owner = FnState::new(
            if scope.in_function {
                kiln_bytecode::FunctionKind::Normal
            } else {
                kiln_bytecode::FunctionKind::Script
            },
            strict,
            0,
        );
        owner.this_loc = loc(scope.this);
        owner.new_target_loc = loc(scope.new_target);
        owner.arguments_loc = loc(scope.arguments);
        owner.callee_loc = loc(scope.super_call);
        owner.is_derived = scope.this_checked;
        owner.has_home = scope.super_property;
        owner.vars_loc = loc(scope.var_object);
        self.fs = owner;
        // The private names of the caller's classes (innermost first, so later entries of
        // one context never shadow earlier ones).
        let names = scope
            .private_names
            .iter()
            .rev()
            .filter_map(|(name, depth, slot)| Some((name.clone(), loc(Some((*depth, *slot)))?)))
            .collect::<rustc_hash::FxHashMap<_, _>>();
        if !names.is_empty() {
            self.classes.push(ClassCtx { names });
        }
        self.eval_ctx = Some(EvalCtx {
            strict,
            scope: scope.clone(),
            ids,
        });
    }

    /// Top of sloppy eval code: declare its vars and functions where they belong (a global
    /// function binding is made when the function is: see `hoist_functions`).
    pub(crate) fn declare_eval_var(&mut self, name: &str, span: Span, is_function: bool) -> R<()> {
        let Some(ctx) = &self.eval_ctx else {
            return Ok(());
        };
        let var_depth = ctx.scope.var_object.map(|p| p.0 as usize);
        let in_function = ctx.scope.in_function;
        let in_parameters = ctx.scope.in_parameters;
        if in_parameters && !ctx.scope.in_arrow_parameters && name == "arguments" {
            return Err(CompileError::new(
                "'arguments' cannot be declared by eval code in parameters",
                span.start,
            ));
        }
        if ctx.scope.parameter_names.iter().any(|p| p == name) {
            return Err(CompileError::new(
                format!("Identifier '{name}' has already been declared (a parameter)"),
                span.start,
            ));
        }
        let mut found_var = false;
        let mut conflict = false;
        for (depth, id) in ctx.ids.iter().enumerate() {
            if var_depth.is_some_and(|v| depth > v) {
                break;
            }
            let entries = self.env_names.get(id).map(Vec::as_slice).unwrap_or(&[]);
            for e in entries {
                if let EnvEntry::Outer(b) = e
                    && b.name == name
                {
                    match b.kind {
                        // The body's lexical declarations are not in scope in parameters.
                        EvalBindingKind::Let | EvalBindingKind::Const
                            if in_parameters && var_depth == Some(depth) => {}
                        EvalBindingKind::Let | EvalBindingKind::Const => conflict = true,
                        EvalBindingKind::Object | EvalBindingKind::VarObject => {}
                        _ => found_var = true,
                    }
                }
            }
            if found_var || conflict {
                break;
            }
        }
        if conflict {
            return Err(CompileError::new(
                format!("Identifier '{name}' has already been declared"),
                span.start,
            ));
        }
        if found_var {
            return Ok(());
        }
        let site = self.fs.site(name)?;
        match (self.fs_vars_loc_of_eval(), in_function) {
            (Some(Loc::Env { env, slot }), _) => {
                let depth = self.env_distance(env, span)?;
                self.emit(Instr::DeclareEvalVar { site, depth, slot });
            }
            (_, false) => {
                if !is_function {
                    self.emit(Instr::DeclareGlobalVar {
                        site,
                        deletable: true,
                    });
                }
            }
            _ => {
                return Err(CompileError::unsupported(
                    "var declarations of this eval code",
                    span.start,
                ));
            }
        }
        Ok(())
    }

    fn fs_vars_loc_of_eval(&self) -> Option<Loc> {
        if self.fs.vars_loc.is_some() {
            return self.fs.vars_loc;
        }
        self.outer.first().and_then(|f| f.vars_loc)
    }
}
