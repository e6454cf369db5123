//! The compiler proper: script-wide state, binding resolution, scopes and
//! environments, and the shared shape of every function (prologue,
//! parameters, implicit return). Statements, expressions, patterns and
//! classes are compiled by the sibling modules as further `impl Compiler`
//! blocks.

use rustc_hash::{FxHashMap, FxHashSet};

use kiln_bytecode::{Constant, ErrorKind, FunctionCode, FunctionKind, Instr, Reg, ScriptKind};
use oxc_ast::ast::*;
use oxc_semantic::{Scoping, SymbolFlags, SymbolId};
use oxc_span::Span;
use oxc_syntax::scope::ScopeId;

use crate::dynamic::{DynKind, DynScope, EnvEntry, EvalCtx};
use crate::error::CompileError;
use crate::function::{FnState, Loc, R, utf16};
use crate::nesting::MAX_NESTING;
use crate::scope::{Analysis, ContextKey, function_scope_of};

/// A private name declared by a class body, and where its key lives.
pub(crate) struct ClassCtx {
    pub names: FxHashMap<String, Loc>,
}

pub(crate) struct Compiler<'a> {
    pub source: &'a str,
    pub scoping: &'a Scoping,
    pub analysis: Analysis,
    pub functions: Vec<Option<FunctionCode>>,
    pub script_kind: ScriptKind,
    /// the function being compiled
    pub fs: FnState,
    /// the enclosing functions being compiled, outermost first
    pub outer: Vec<FnState>,
    /// compile-time mirror of the run-time environment chain (ids)
    pub envs: Vec<u32>,
    next_env: u32,
    pub locs: FxHashMap<SymbolId, Loc>,
    /// the function-activation scope owning each symbol
    owners: FxHashMap<SymbolId, ScopeId>,
    by_function: FxHashMap<ScopeId, Vec<SymbolId>>,
    /// the activation scope of the function being compiled (None: synthesized)
    pub fn_scope: Option<ScopeId>,
    outer_fn_scopes: Vec<Option<ScopeId>>,
    pub root_scope: ScopeId,
    pub classes: Vec<ClassCtx>,
    pub switch_scopes: FxHashSet<ScopeId>,
    /// symbols naming a function expression inside itself (read-only)
    pub self_names: FxHashSet<SymbolId>,
    /// what each compile-time environment holds, for direct-eval scope descriptions
    pub env_names: FxHashMap<u32, Vec<EnvEntry>>,
    /// object environments (`with`, eval var objects) enclosing the code being compiled
    pub dyn_scopes: Vec<DynScope>,
    /// compiling direct eval code: the caller's scope
    pub eval_ctx: Option<EvalCtx>,
    /// a class's own name inside its body: an immutable binding in the class environment
    pub inner_class_names: FxHashMap<SymbolId, Loc>,
    /// modules: the module environment (see `module.rs`)
    pub module_env: Option<u32>,
    /// modules: the slot of an anonymous default export
    pub module_default_slot: Option<u16>,
    /// modules: top-level bindings placed in the module environment or imported
    pub module_bound: FxHashSet<SymbolId>,
    /// TypeScript: symbols only the type checker sees (see `typescript.rs`); they have no
    /// binding, and a reference that still resolves to one is a type
    pub erased: FxHashSet<SymbolId>,
    depth: u32,
}

impl<'a> Compiler<'a> {
    pub(crate) fn new(
        source: &'a str,
        scoping: &'a Scoping,
        analysis: Analysis,
        kind: ScriptKind,
        root: ScopeId,
        strict: bool,
        erased: FxHashSet<SymbolId>,
    ) -> Self {
        let mut owners = FxHashMap::default();
        let mut by_function: FxHashMap<ScopeId, Vec<SymbolId>> = FxHashMap::default();
        for symbol in scoping.symbol_ids().filter(|s| !erased.contains(s)) {
            let owner = function_scope_of(scoping, scoping.symbol_scope_id(symbol));
            owners.insert(symbol, owner);
            by_function.entry(owner).or_default().push(symbol);
        }
        Compiler {
            source,
            scoping,
            analysis,
            functions: vec![None],
            script_kind: kind,
            fs: FnState::new(FunctionKind::Script, strict, 0),
            outer: Vec::new(),
            envs: Vec::new(),
            next_env: 0,
            locs: FxHashMap::default(),
            owners,
            by_function,
            fn_scope: Some(root),
            outer_fn_scopes: Vec::new(),
            root_scope: root,
            classes: Vec::new(),
            switch_scopes: FxHashSet::default(),
            self_names: FxHashSet::default(),
            env_names: FxHashMap::default(),
            dyn_scopes: Vec::new(),
            eval_ctx: None,
            inner_class_names: FxHashMap::default(),
            module_env: None,
            module_default_slot: None,
            module_bound: FxHashSet::default(),
            erased,
            depth: 0,
        }
    }

    // ---- recursion guard ----

    pub(crate) fn enter(&mut self, span: Span) -> R<()> {
        self.depth += 1;
        if self.depth as usize > MAX_NESTING {
            return Err(CompileError::new("nesting too deep", span.start));
        }
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    // ---- small emit helpers ----

    pub(crate) fn emit(&mut self, i: Instr) -> usize {
        self.fs.emit(i)
    }

    pub(crate) fn pos(&mut self, span: Span) {
        self.fs.position(span.start);
    }

    pub(crate) fn unsupported<T>(&self, what: &str, span: Span) -> R<T> {
        Err(CompileError::unsupported(what, span.start))
    }

    pub(crate) fn load_str(&mut self, dst: Reg, s: &str) -> R<()> {
        let idx = self.fs.str(s)?;
        self.emit(Instr::LoadConst { dst, idx });
        Ok(())
    }

    pub(crate) fn load_number(&mut self, dst: Reg, value: f64) -> R<()> {
        if value.fract() == 0.0
            && value.abs() <= i32::MAX as f64
            && !(value == 0.0 && value.is_sign_negative())
        {
            self.emit(Instr::LoadInt {
                dst,
                value: value as i32,
            });
        } else {
            let idx = self.fs.number(value)?;
            self.emit(Instr::LoadConst { dst, idx });
        }
        Ok(())
    }

    pub(crate) fn throw_error(&mut self, kind: ErrorKind, msg: &str) -> R<()> {
        let msg = self.fs.str(msg)?;
        self.emit(Instr::ThrowError { kind, msg });
        Ok(())
    }

    pub(crate) fn env_depth(&self) -> u16 {
        (self.envs.len() - self.fs.env_base) as u16
    }

    /// A new compile-time environment id (not pushed).
    pub(crate) fn fresh_env_id(&mut self) -> u32 {
        let id = self.next_env;
        self.next_env += 1;
        id
    }

    pub(crate) fn push_env(&mut self, size: u16) -> u32 {
        let id = self.next_env;
        self.next_env += 1;
        self.envs.push(id);
        self.env_names.insert(id, Vec::new());
        self.emit(Instr::PushEnv { size });
        id
    }

    pub(crate) fn pop_env(&mut self) {
        self.envs.pop();
        self.emit(Instr::PopEnv);
    }

    /// Emit PopEnv until the function's environment depth is `depth`
    /// (without changing the compile-time chain: used on jumps out).
    pub(crate) fn pop_envs_to(&mut self, depth: u16) {
        for _ in depth..self.env_depth() {
            self.emit(Instr::PopEnv);
        }
    }

    pub(crate) fn env_distance(&self, env: u32, span: Span) -> R<u8> {
        let Some(index) = self.envs.iter().rposition(|&e| e == env) else {
            return Err(CompileError::new(
                "internal error: environment not in scope",
                span.start,
            ));
        };
        let depth = self.envs.len() - 1 - index;
        u8::try_from(depth).map_err(|_| CompileError::new("too many nested scopes", span.start))
    }

    pub(crate) fn get_env(
        &mut self,
        dst: Reg,
        env: u32,
        slot: u16,
        checked: Option<&str>,
        span: Span,
    ) -> R<()> {
        let depth = self.env_distance(env, span)?;
        match checked {
            Some(name) => {
                let name = self.fs.str(name)?;
                self.emit(Instr::GetEnvChecked {
                    dst,
                    depth,
                    slot,
                    name,
                })
            }
            None => self.emit(Instr::GetEnv { dst, depth, slot }),
        };
        Ok(())
    }

    pub(crate) fn set_env(&mut self, src: Reg, env: u32, slot: u16, span: Span) -> R<()> {
        let depth = self.env_distance(env, span)?;
        self.emit(Instr::SetEnv { src, depth, slot });
        Ok(())
    }

    pub(crate) fn store_loc(&mut self, loc: Loc, src: Reg, span: Span) -> R<()> {
        match loc {
            Loc::Reg(r) => {
                if r != src {
                    self.emit(Instr::Mov { dst: r, src });
                }
            }
            Loc::Env { env, slot } => self.set_env(src, env, slot, span)?,
            Loc::Import(_) => {
                self.throw_error(ErrorKind::TypeError, "Assignment to constant variable.")?
            }
            Loc::Global => {
                return Err(CompileError::new(
                    "internal error: global location",
                    span.start,
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn load_loc(&mut self, loc: Loc, dst: Reg, span: Span) -> R<()> {
        match loc {
            Loc::Reg(r) => {
                if r != dst {
                    self.emit(Instr::Mov { dst, src: r });
                }
            }
            Loc::Env { env, slot } => self.get_env(dst, env, slot, None, span)?,
            Loc::Import(index) => {
                self.pos(span);
                self.emit(Instr::GetImport { dst, index });
            }
            Loc::Global => {
                return Err(CompileError::new(
                    "internal error: global location",
                    span.start,
                ));
            }
        }
        Ok(())
    }

    // ---- symbols ----

    pub(crate) fn symbol_of_ref(&self, ident: &IdentifierReference<'_>) -> Option<SymbolId> {
        self.resolved_symbol(ident)
            .filter(|sym| !self.erased.contains(sym))
    }

    /// The symbol `ident` resolves to, a TypeScript type included.
    fn resolved_symbol(&self, ident: &IdentifierReference<'_>) -> Option<SymbolId> {
        ident
            .reference_id
            .get()
            .and_then(|id| self.scoping.get_reference(id).symbol_id())
    }

    /// Whether `ident` names something only the type checker sees (`export { SomeType }`).
    pub(crate) fn names_type(&self, ident: &IdentifierReference<'_>) -> bool {
        self.resolved_symbol(ident)
            .is_some_and(|sym| self.erased.contains(&sym))
    }

    pub(crate) fn flags(&self, sym: SymbolId) -> SymbolFlags {
        self.scoping.symbol_flags(sym)
    }

    pub(crate) fn is_lexical(&self, sym: SymbolId) -> bool {
        self.flags(sym)
            .intersects(SymbolFlags::BlockScopedVariable | SymbolFlags::Class)
            && !self.flags(sym).contains(SymbolFlags::Function)
    }

    pub(crate) fn is_const(&self, sym: SymbolId) -> bool {
        self.flags(sym).contains(SymbolFlags::ConstVariable)
    }

    /// Top-level bindings of scripts are global properties (not those of modules and
    /// agent scripts). The code's var declarations go to the global object: script code,
    /// or eval code whose caller is global code.
    pub(crate) fn global_var_env(&self) -> bool {
        matches!(self.script_kind, ScriptKind::Script | ScriptKind::Eval)
            && self
                .eval_ctx
                .as_ref()
                .is_none_or(|ctx| !ctx.scope.in_function)
    }

    pub(crate) fn is_global_symbol(&self, sym: SymbolId) -> bool {
        if matches!(self.script_kind, ScriptKind::Module | ScriptKind::Agent)
            || self.scoping.symbol_scope_id(sym) != self.root_scope
        {
            return false;
        }
        match &self.eval_ctx {
            // Sloppy eval code: vars and functions go to the caller's variable environment
            // (resolved by name); lexical declarations are the eval's own.
            Some(ctx) => !ctx.strict && !self.is_lexical(sym),
            None => true,
        }
    }

    /// Like `loc_of`, but Global for a binding an object environment may shadow (no fast
    /// register paths for it).
    pub(crate) fn plain_loc_of(&self, sym: SymbolId, span: Span) -> R<Loc> {
        if self.is_dynamic_symbol(sym) {
            return Ok(Loc::Global);
        }
        self.loc_of(sym, span)
    }

    pub(crate) fn loc_of(&self, sym: SymbolId, span: Span) -> R<Loc> {
        if let Some(&loc) = self.inner_class_names.get(&sym) {
            return Ok(loc);
        }
        if self.is_global_symbol(sym) {
            return Ok(Loc::Global);
        }
        self.locs.get(&sym).copied().ok_or_else(|| {
            CompileError::new(
                format!(
                    "internal error: unplaced binding '{}'",
                    self.scoping.symbol_name(sym)
                ),
                span.start,
            )
        })
    }

    /// Whether a read of `sym` here might see the temporal dead zone.
    pub(crate) fn needs_tdz_check(&self, sym: SymbolId) -> bool {
        if self.inner_class_names.contains_key(&sym) {
            return true;
        }
        if !self.is_lexical(sym) {
            return false;
        }
        let same_function =
            self.fn_scope.is_some() && self.owners.get(&sym).copied() == self.fn_scope;
        let in_switch = self
            .switch_scopes
            .contains(&self.scoping.symbol_scope_id(sym));
        !(same_function && !in_switch && self.fs.initialized.contains(&sym))
    }

    /// `r[dst] = <binding sym>` with the TDZ check where needed.
    pub(crate) fn load_symbol(&mut self, sym: SymbolId, dst: Reg, span: Span) -> R<()> {
        if self.is_dynamic_symbol(sym) {
            let name: &'a str = self.scoping.symbol_name(sym);
            return self.load_name(name, Some(sym), dst, span, false);
        }
        self.load_symbol_static(sym, dst, span)
    }

    /// `r[dst] = <binding sym>` ignoring object environments.
    pub(crate) fn load_symbol_static(&mut self, sym: SymbolId, dst: Reg, span: Span) -> R<()> {
        let name: &'a str = self.scoping.symbol_name(sym);
        if self.fs.uninitialized_params.contains(&sym) {
            self.pos(span);
            return self.throw_error(
                ErrorKind::ReferenceError,
                &format!("Cannot access '{name}' before initialization"),
            );
        }
        let check = self.needs_tdz_check(sym);
        match self.loc_of(sym, span)? {
            Loc::Reg(r) => {
                if check {
                    let name = self.fs.str(name)?;
                    self.emit(Instr::ThrowIfHole { src: r, name });
                }
                if r != dst {
                    self.emit(Instr::Mov { dst, src: r });
                }
            }
            Loc::Env { env, slot } => {
                self.get_env(dst, env, slot, if check { Some(name) } else { None }, span)?
            }
            Loc::Import(index) => {
                self.pos(span);
                self.emit(Instr::GetImport { dst, index });
            }
            Loc::Global => {
                let site = self.fs.site(name)?;
                self.pos(span);
                self.emit(Instr::GetGlobal { dst, site });
            }
        }
        Ok(())
    }

    /// The register holding `sym` if it lives in one (after any TDZ check).
    pub(crate) fn symbol_register(&mut self, sym: SymbolId, span: Span) -> R<Option<Reg>> {
        if self.is_dynamic_symbol(sym) || self.fs.uninitialized_params.contains(&sym) {
            return Ok(None);
        }
        if let Loc::Reg(r) = self.loc_of(sym, span)? {
            if self.needs_tdz_check(sym) {
                let name: &'a str = self.scoping.symbol_name(sym);
                let name = self.fs.str(name)?;
                self.emit(Instr::ThrowIfHole { src: r, name });
            }
            return Ok(Some(r));
        }
        Ok(None)
    }

    /// Assign r[src] to `sym`. `init` marks the declaration itself (no
    /// const or TDZ checks; global lexicals get InitGlobalLexical).
    pub(crate) fn store_symbol(
        &mut self,
        sym: SymbolId,
        src: Reg,
        init: bool,
        span: Span,
    ) -> R<()> {
        if self.is_dynamic_symbol(sym) && !(init && self.is_lexical(sym)) {
            let name: &'a str = self.scoping.symbol_name(sym);
            self.store_name(name, Some(sym), src, init, span)?;
            if init {
                self.fs.initialized.insert(sym);
            }
            return Ok(());
        }
        self.store_symbol_static(sym, src, init, span)
    }

    /// Assign `sym` ignoring object environments.
    pub(crate) fn store_symbol_static(
        &mut self,
        sym: SymbolId,
        src: Reg,
        init: bool,
        span: Span,
    ) -> R<()> {
        let name: &'a str = self.scoping.symbol_name(sym);
        if !init && self.inner_class_names.contains_key(&sym) {
            let tmp = self.fs.alloc()?;
            self.load_symbol_static(sym, tmp, span)?;
            self.fs.release(tmp as u32);
            return self.throw_error(ErrorKind::TypeError, "Assignment to constant variable.");
        }
        if !init {
            if self.self_names.contains(&sym) {
                if self.fs.strict {
                    self.throw_error(ErrorKind::TypeError, "Assignment to constant variable.")?;
                }
                return Ok(());
            }
            if self.needs_tdz_check(sym) {
                let tmp = self.fs.alloc()?;
                self.load_symbol(sym, tmp, span)?;
                self.fs.release(tmp as u32);
            }
            let import = self.flags(sym).contains(SymbolFlags::Import);
            if self.is_const(sym) || import {
                if import {
                    // Reading first makes an uninitialised import a ReferenceError.
                    let tmp = self.fs.alloc()?;
                    self.load_symbol(sym, tmp, span)?;
                    self.fs.release(tmp as u32);
                }
                self.throw_error(ErrorKind::TypeError, "Assignment to constant variable.")?;
                return Ok(());
            }
        }
        match self.loc_of(sym, span)? {
            Loc::Global => {
                let site = self.fs.site(name)?;
                self.pos(span);
                if init && self.is_lexical(sym) {
                    self.emit(Instr::InitGlobalLexical { src, site });
                } else {
                    self.emit(Instr::SetGlobal { src, site });
                }
            }
            loc => self.store_loc(loc, src, span)?,
        }
        if init {
            self.fs.initialized.insert(sym);
        }
        Ok(())
    }

    /// Symbols bound directly in `scope`, in declaration order.
    pub(crate) fn scope_symbols(&self, scope: ScopeId) -> Vec<SymbolId> {
        let mut symbols: Vec<SymbolId> =
            self.scoping.get_bindings(scope).values().copied().collect();
        symbols.sort();
        symbols
    }

    /// Enter a block-like scope: captured bindings get a fresh environment,
    /// lexical bindings in registers are reset to the hole. Returns whether
    /// an environment was pushed.
    pub(crate) fn enter_scope(&mut self, scope: Option<ScopeId>) -> R<bool> {
        let Some(scope) = scope else { return Ok(false) };
        let symbols = self.scope_symbols(scope);
        let captured: Vec<SymbolId> = symbols
            .iter()
            .copied()
            .filter(|s| self.analysis.captured.contains(s) && !self.is_global_symbol(*s))
            .collect();
        let mut pushed = false;
        if !captured.is_empty() {
            let env = self.push_env(captured.len() as u16);
            for (slot, sym) in captured.iter().enumerate() {
                self.name_slot(env, *sym, slot as u16);
                self.locs.insert(
                    *sym,
                    Loc::Env {
                        env,
                        slot: slot as u16,
                    },
                );
            }
            pushed = true;
        }
        for sym in symbols {
            self.fs.initialized.remove(&sym);
            if self.is_lexical(sym)
                && let Some(Loc::Reg(r)) = self.locs.get(&sym).copied()
            {
                self.emit(Instr::LoadHole { dst: r });
            }
        }
        Ok(pushed)
    }

    pub(crate) fn leave_scope(&mut self, pushed: bool) {
        if pushed {
            self.pop_env();
        }
    }

    // ---- functions ----

    fn needs_of(&self, key: Option<ContextKey>) -> crate::scope::LexicalNeeds {
        key.map(|k| self.analysis.needs(k)).unwrap_or_default()
    }

    /// Start compiling a new function: save the current one, set up
    /// registers, the function environment and the prologue up to (not
    /// including) parameter initialisers.
    pub(crate) fn begin_function(
        &mut self,
        kind: FunctionKind,
        strict: bool,
        scope: Option<ScopeId>,
        key: Option<ContextKey>,
        params: Option<&FormalParameters<'a>>,
    ) -> R<()> {
        let mut state = FnState::new(kind, strict, self.envs.len());
        state.dyn_base = self.dyn_scopes.len();
        let saved = std::mem::replace(&mut self.fs, state);
        self.outer.push(saved);
        self.outer_fn_scopes.push(self.fn_scope);
        self.fn_scope = scope;

        let param_count = params.map_or(0, |p| p.items.len()) as u32;
        if param_count > u16::MAX as u32 - 16 {
            return Err(CompileError::new("too many parameters", 0));
        }
        self.fs.next_reg = 1 + param_count;
        self.fs.max_reg = self.fs.next_reg;

        let simple = params.is_none_or(|p| {
            p.rest.is_none()
                && p.items.iter().all(|i| {
                    i.initializer.is_none()
                        && matches!(i.pattern, BindingPattern::BindingIdentifier(_))
                })
        });
        let needs = self.needs_of(key);
        let is_arrow = kind.is_arrow();
        let uses_arguments = needs.arguments && !is_arrow && kind != FunctionKind::Script;
        let mapped = uses_arguments
            && simple
            && !strict
            && !kind.is_class_constructor()
            && kind != FunctionKind::Method;

        // Simple parameters live in their argument registers unless captured.
        let mut param_syms: Vec<(u32, SymbolId)> = Vec::new();
        if let Some(p) = params {
            for (i, item) in p.items.iter().enumerate() {
                if let BindingPattern::BindingIdentifier(id) = &item.pattern
                    && let Some(sym) = id.symbol_id.get()
                {
                    param_syms.push((i as u32, sym));
                }
            }
        }
        self.fs.params = params
            .map(parameter_bindings)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|id| id.symbol_id.get())
            .collect();
        let param_sym_set: FxHashSet<SymbolId> = param_syms.iter().map(|p| p.1).collect();
        for &(i, sym) in &param_syms {
            if !self.analysis.captured.contains(&sym) && !mapped {
                self.locs.insert(sym, Loc::Reg(1 + i as Reg));
            }
        }
        // Other locals of this activation get registers now.
        if let Some(scope) = scope {
            let owned = self.by_function.get(&scope).cloned().unwrap_or_default();
            for sym in owned {
                if param_sym_set.contains(&sym)
                    || self.analysis.captured.contains(&sym)
                    || self.is_global_symbol(sym)
                    || self.module_bound.contains(&sym)
                {
                    continue;
                }
                let r = self.fs.alloc()?;
                self.locs.insert(sym, Loc::Reg(r));
            }
        }

        // The function environment.
        let mut env_syms: Vec<SymbolId> = Vec::new();
        if mapped {
            env_syms.extend(param_syms.iter().map(|p| p.1));
        }
        let scope_syms: Vec<SymbolId> = match scope {
            Some(s) => self
                .scope_symbols(s)
                .into_iter()
                .filter(|&sym| !self.is_global_symbol(sym) && !self.module_bound.contains(&sym))
                .collect(),
            _ => Vec::new(),
        };
        for &sym in &scope_syms {
            if self.analysis.captured.contains(&sym) && !(mapped && param_sym_set.contains(&sym)) {
                env_syms.push(sym);
            }
        }
        let mut size = env_syms.len() as u16;
        let this_slot = (needs.this && !is_arrow).then(|| {
            size += 1;
            size - 1
        });
        let new_target_slot = (needs.new_target && !is_arrow).then(|| {
            size += 1;
            size - 1
        });
        let arguments_slot = (needs.arguments_in_arrow && uses_arguments).then(|| {
            size += 1;
            size - 1
        });
        // A sloppy direct eval may add vars: they go to an object in this slot.
        let vars_slot = (needs.direct_eval && !strict && kind != FunctionKind::Script).then(|| {
            size += 1;
            size - 1
        });
        let callee_slot =
            (needs.super_in_arrow && kind == FunctionKind::DerivedConstructor).then(|| {
                size += 1;
                size - 1
            });
        let env = if size > 0 {
            Some(self.push_env(size))
        } else {
            None
        };
        if let Some(env) = env {
            // With mapped arguments, slot i is parameter i; a repeated name binds the last.
            self.fs.top_env = Some(env);
            for (slot, &sym) in env_syms.iter().enumerate() {
                self.name_slot(env, sym, slot as u16);
                self.locs.insert(
                    sym,
                    Loc::Env {
                        env,
                        slot: slot as u16,
                    },
                );
            }
        }
        let arguments_reg = if uses_arguments {
            Some(self.fs.alloc()?)
        } else {
            None
        };
        let tmp = self.fs.alloc()?;
        if let (Some(env), Some(slot)) = (env, this_slot) {
            self.fs.this_loc = Some(Loc::Env { env, slot });
            if kind != FunctionKind::DerivedConstructor {
                self.emit(Instr::LoadThis { dst: tmp });
                self.set_env(tmp, env, slot, Span::default())?;
            }
        }
        if let (Some(env), Some(slot)) = (env, new_target_slot) {
            self.fs.new_target_loc = Some(Loc::Env { env, slot });
            self.emit(Instr::LoadNewTarget { dst: tmp });
            self.set_env(tmp, env, slot, Span::default())?;
        }
        if let (Some(env), Some(slot)) = (env, callee_slot) {
            self.fs.callee_loc = Some(Loc::Env { env, slot });
            self.emit(Instr::LoadCallee { dst: tmp });
            self.set_env(tmp, env, slot, Span::default())?;
        }
        if let (Some(env), Some(slot), Some(function)) = (env, vars_slot, scope) {
            self.fs.vars_loc = Some(Loc::Env { env, slot });
            if let Some(names) = self.env_names.get_mut(&env) {
                names.push(EnvEntry::VarObject(slot));
            }
            self.dyn_scopes.push(DynScope {
                env,
                slot,
                kind: DynKind::Vars { function },
            });
        }
        // Parameters that live in the environment.
        if let Some(env) = env {
            if mapped {
                for (slot, &(i, _)) in param_syms.iter().enumerate() {
                    self.set_env(1 + i as Reg, env, slot as u16, Span::default())?;
                }
            } else {
                for &(i, sym) in &param_syms {
                    if let Some(Loc::Env { env, slot }) = self.locs.get(&sym).copied()
                        && params.is_some_and(|p| p.items[i as usize].initializer.is_none())
                    {
                        self.set_env(1 + i as Reg, env, slot, Span::default())?;
                    }
                }
            }
        }
        if let Some(r) = arguments_reg {
            self.emit(Instr::CreateArguments { dst: r, mapped });
            if let (Some(env), Some(slot)) = (env, arguments_slot) {
                self.set_env(r, env, slot, Span::default())?;
                self.fs.arguments_loc = Some(Loc::Env { env, slot });
            } else {
                self.fs.arguments_loc = Some(Loc::Reg(r));
            }
        }
        // Captured `var`s and functions start undefined (environment slots start as holes).
        let mut undefined_loaded = false;
        for &sym in &scope_syms {
            if param_sym_set.contains(&sym) || self.is_lexical(sym) {
                continue;
            }
            if let Some(Loc::Env { env, slot }) = self.locs.get(&sym).copied() {
                if !undefined_loaded {
                    self.emit(Instr::LoadUndefined { dst: tmp });
                    undefined_loaded = true;
                }
                self.set_env(tmp, env, slot, Span::default())?;
            }
        }
        if let (Some(r), Some(sym)) = (arguments_reg, needs.arguments_var) {
            self.store_symbol(sym, r, true, Span::default())?;
        }
        self.fs.release(tmp as u32);
        self.fs.temp_base = self.fs.next_reg;
        Ok(())
    }

    /// Initialise parameters with defaults, patterns and rest.
    pub(crate) fn compile_params(&mut self, params: &FormalParameters<'a>) -> R<()> {
        self.fs.in_params = true;
        self.fs.param_names = parameter_bindings(params)
            .into_iter()
            .map(|id| id.name.to_string())
            .collect();
        let result = self.compile_params_inner(params);
        self.fs.in_params = false;
        self.fs.param_names.clear();
        result
    }

    fn compile_params_inner(&mut self, params: &FormalParameters<'a>) -> R<()> {
        // With initialisers or patterns, a parameter is in its TDZ until its turn.
        let simple = params.rest.is_none()
            && params.items.iter().all(|i| {
                i.initializer.is_none() && matches!(i.pattern, BindingPattern::BindingIdentifier(_))
            });
        if !simple {
            for item in &params.items {
                if let BindingPattern::BindingIdentifier(id) = &item.pattern
                    && let Some(sym) = id.symbol_id.get()
                {
                    self.fs.uninitialized_params.insert(sym);
                }
            }
        }
        for (i, item) in params.items.iter().enumerate() {
            if let BindingPattern::BindingIdentifier(id) = &item.pattern
                && item.initializer.is_none()
                && let Some(sym) = id.symbol_id.get()
            {
                self.fs.uninitialized_params.remove(&sym);
            }
            let reg = 1 + i as Reg;
            if let Some(init) = &item.initializer {
                let skip = self.emit(Instr::JumpIfNotUndefined {
                    src: reg,
                    offset: 0,
                });
                self.expr_named(init, reg, binding_name(&item.pattern).as_deref())?;
                self.fs.patch_here(skip);
                if let BindingPattern::BindingIdentifier(id) = &item.pattern
                    && let Some(sym) = id.symbol_id.get()
                {
                    self.fs.uninitialized_params.remove(&sym);
                }
                self.bind_pattern(&item.pattern, reg, true)?;
            } else if !matches!(item.pattern, BindingPattern::BindingIdentifier(_)) {
                self.bind_pattern(&item.pattern, reg, true)?;
            } else if let BindingPattern::BindingIdentifier(id) = &item.pattern
                && let Some(sym) = id.symbol_id.get()
            {
                self.fs.initialized.insert(sym);
            }
        }
        self.fs.uninitialized_params.clear();
        if let Some(rest) = &params.rest {
            let mark = self.fs.mark();
            let r = self.fs.alloc()?;
            self.emit(Instr::CreateRestArray {
                dst: r,
                from: params.items.len() as u16,
            });
            self.bind_pattern(&rest.rest.argument, r, true)?;
            self.fs.release(mark);
        }
        Ok(())
    }

    /// Start the top-level code of a script, module body or agent script: a
    /// `FunctionKind::Script` function over the root scope.
    pub(crate) fn begin_top_level(&mut self, strict: bool, root: ScopeId) -> R<()> {
        self.begin_function(
            FunctionKind::Script,
            strict,
            Some(root),
            Some(ContextKey::Scope(root)),
            None,
        )
    }

    /// Finish the top-level code, which is finished last but belongs at index 0 of
    /// `Script::functions`.
    pub(crate) fn end_top_level(&mut self) -> R<()> {
        let whole = Span::new(0, self.source.len() as u32);
        self.end_function(Vec::new(), 0, 0, whole)?;
        if let Some(top) = self.functions.pop() {
            self.functions[0] = top;
        }
        Ok(())
    }

    /// Finish the current function: implicit return, then restore the
    /// enclosing one. Returns the function's index in `Script::functions`.
    pub(crate) fn end_function(
        &mut self,
        name: Vec<u16>,
        length: u32,
        param_count: u16,
        span: Span,
    ) -> R<u32> {
        self.emit_implicit_return()?;
        let index = self.functions.len();
        if index > u32::MAX as usize - 1 {
            return Err(CompileError::new("too many functions", span.start));
        }
        let outer = self
            .outer
            .pop()
            .ok_or_else(|| CompileError::new("internal error: function stack", span.start))?;
        let done = std::mem::replace(&mut self.fs, outer);
        self.envs.truncate(done.env_base);
        self.dyn_scopes.truncate(done.dyn_base);
        self.fn_scope = self.outer_fn_scopes.pop().flatten();
        self.functions.push(Some(done.finish(
            name,
            length,
            param_count,
            (span.start, span.end),
        )));
        Ok(index as u32)
    }

    pub(crate) fn emit_implicit_return(&mut self) -> R<()> {
        if self.fs.is_derived {
            self.sync_this_register()?;
            let r = self.fs.alloc()?;
            self.emit(Instr::LoadUndefined { dst: r });
            self.emit(Instr::ReturnDerived { src: r });
        } else if let Some(c) = self.fs.completion {
            self.emit(Instr::Return { src: c });
        } else {
            self.emit(Instr::ReturnUndefined);
        }
        Ok(())
    }

    /// Make `Function.prototype.toString` of a method show its whole definition.
    pub(crate) fn set_source_start(&mut self, index: u32, start: u32) {
        if let Some(Some(code)) = self.functions.get_mut(index as usize) {
            code.source_start = start;
        }
    }

    /// Where a class element's source text starts: a static method's text (its
    /// [MethodDefinition](https://tc39.es/ecma262/#sec-runtime-semantics-definemethod), the
    /// text `toString` shows) leaves out `static` and the whitespace and comments after it.
    pub(crate) fn method_source_start(&self, span: Span, is_static: bool) -> u32 {
        if !is_static {
            return span.start;
        }
        let text = &self.source[span.start as usize..span.end as usize];
        let mut rest = text.strip_prefix("static").unwrap_or(text);
        loop {
            rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
            if let Some(comment) = rest.strip_prefix("/*") {
                rest = comment.split_once("*/").map_or("", |(_, after)| after);
            } else if let Some(comment) = rest.strip_prefix("//") {
                let end = comment
                    .find(['\n', '\r', '\u{2028}', '\u{2029}'])
                    .unwrap_or(comment.len());
                rest = &comment[end..];
            } else {
                break;
            }
        }
        span.end - rest.len() as u32
    }

    /// `r[dst] = closure` for a compiled function index.
    pub(crate) fn emit_closure(&mut self, dst: Reg, index: u32) -> R<()> {
        let func = self.fs.constant(Constant::Function(index))?;
        self.emit(Instr::Closure { dst, func });
        Ok(())
    }

    /// Compile an ordinary function, generator, async function or method
    /// and return its index.
    pub(crate) fn compile_function(
        &mut self,
        func: &Function<'a>,
        name: Vec<u16>,
        kind_override: Option<FunctionKind>,
    ) -> R<u32> {
        self.enter(func.span)?;
        let Some(body) = &func.body else {
            return self.unsupported("function without a body", func.span);
        };
        let kind = kind_override.unwrap_or(match (func.generator, func.r#async) {
            (true, true) => FunctionKind::AsyncGenerator,
            (true, false) => FunctionKind::Generator,
            (false, true) => FunctionKind::Async,
            (false, false) => FunctionKind::Normal,
        });
        let kind = match (kind, func.generator, func.r#async) {
            (FunctionKind::Method, true, true) => FunctionKind::AsyncGenerator,
            (FunctionKind::Method, true, false) => FunctionKind::Generator,
            (FunctionKind::Method, false, true) => FunctionKind::Async,
            (k, _, _) => k,
        };
        let strict = self.fs.strict || body.has_use_strict_directive();
        let scope = func.scope_id.get();
        self.begin_function(
            kind,
            strict,
            scope,
            scope.map(ContextKey::Scope),
            Some(&func.params),
        )?;
        self.fs.has_home = kind_override.is_some();
        if kind.is_class_constructor() && kind == FunctionKind::ClassConstructor {
            self.emit(Instr::InitClassFields);
        }
        if func.is_expression()
            && let Some(id) = &func.id
            && let Some(sym) = id.symbol_id.get()
            && self.locs.contains_key(&sym)
        {
            self.self_names.insert(sym);
            let r = self.fs.alloc()?;
            self.emit(Instr::LoadCallee { dst: r });
            self.store_symbol(sym, r, true, id.span)?;
            self.fs.release(r as u32);
        }
        self.compile_params(&func.params)?;
        if kind.is_generator() {
            self.emit(Instr::InitialYield);
        }
        self.function_body_statements(&body.statements)?;
        let length = params_length(&func.params);
        let index = self.end_function(name, length, func.params.items.len() as u16, func.span)?;
        self.leave();
        Ok(index)
    }

    pub(crate) fn compile_arrow(
        &mut self,
        arrow: &ArrowFunctionExpression<'a>,
        name: Vec<u16>,
    ) -> R<u32> {
        self.enter(arrow.span)?;
        let kind = if arrow.r#async {
            FunctionKind::AsyncArrow
        } else {
            FunctionKind::Arrow
        };
        let strict = self.fs.strict || arrow.has_use_strict_directive();
        let scope = arrow.scope_id.get();
        self.begin_function(
            kind,
            strict,
            scope,
            scope.map(ContextKey::Scope),
            Some(&arrow.params),
        )?;
        self.compile_params(&arrow.params)?;
        match &arrow.body {
            ArrowFunctionBody::FunctionBody(body) => {
                self.function_body_statements(&body.statements)?
            }
            other => {
                if let Some(e) = other.as_expression() {
                    let r = self.fs.alloc()?;
                    self.expr(e, r)?;
                    self.emit(Instr::Return { src: r });
                }
            }
        }
        let length = params_length(&arrow.params);
        let index = self.end_function(name, length, arrow.params.items.len() as u16, arrow.span)?;
        self.leave();
        Ok(index)
    }

    /// Hoist the function declarations of a statement list, then compile it.
    pub(crate) fn function_body_statements(&mut self, statements: &[Statement<'a>]) -> R<()> {
        // Lexical bindings of the function scope in registers start as holes.
        if let Some(scope) = self.fn_scope {
            for sym in self.scope_symbols(scope) {
                if self.is_lexical(sym)
                    && !self.is_global_symbol(sym)
                    && let Some(Loc::Reg(r)) = self.locs.get(&sym).copied()
                {
                    self.emit(Instr::LoadHole { dst: r });
                }
            }
        }
        self.hoist_functions(statements)?;
        self.statement_list(statements)
    }

    /// Create the closures of function declarations directly in `statements`.
    pub(crate) fn hoist_functions(&mut self, statements: &[Statement<'a>]) -> R<()> {
        for s in statements {
            if let Statement::FunctionDeclaration(f) = s
                && f.body.is_some()
                && let Some(id) = &f.id
                && let Some(sym) = id.symbol_id.get()
            {
                let index = self.compile_function(f, utf16(&id.name), None)?;
                let r = self.fs.alloc()?;
                self.emit_closure(r, index)?;
                // A top-level declaration (not an Annex B function in a block, whose var
                // binding is only assigned).
                let top_level = f
                    .scope_id
                    .get()
                    .and_then(|s| self.scoping.scope_parent_id(s))
                    == Some(self.root_scope);
                if top_level && self.is_global_symbol(sym) && self.global_var_env() {
                    let site = self.fs.site(&id.name)?;
                    self.emit(Instr::DeclareGlobalFunction {
                        src: r,
                        site,
                        deletable: self.eval_ctx.is_some(),
                    });
                } else {
                    self.store_symbol(sym, r, true, id.span)?;
                }
                self.fs.release(r as u32);
            }
        }
        Ok(())
    }

    /// The register holding `this` for the code being compiled.
    pub(crate) fn load_this(&mut self, dst: Reg, span: Span) -> R<()> {
        if !self.fs.is_arrow {
            self.sync_this_register()?;
            self.emit(Instr::LoadThis { dst });
            return Ok(());
        }
        let loc = self
            .outer
            .iter()
            .rev()
            .find(|f| !f.is_arrow)
            .and_then(|f| f.this_loc);
        match loc {
            Some(Loc::Env { env, slot }) => {
                let checked = self
                    .outer
                    .iter()
                    .rev()
                    .find(|f| !f.is_arrow)
                    .is_some_and(|f| f.is_derived);
                self.get_env(
                    dst,
                    env,
                    slot,
                    if checked { Some("this") } else { None },
                    span,
                )
            }
            _ => {
                // An arrow at the top level of a script (no enclosing function env).
                self.emit(Instr::LoadThis { dst });
                Ok(())
            }
        }
    }

    pub(crate) fn load_new_target(&mut self, dst: Reg, span: Span) -> R<()> {
        if !self.fs.is_arrow {
            self.emit(Instr::LoadNewTarget { dst });
            return Ok(());
        }
        match self
            .outer
            .iter()
            .rev()
            .find(|f| !f.is_arrow)
            .and_then(|f| f.new_target_loc)
        {
            Some(Loc::Env { env, slot }) => self.get_env(dst, env, slot, None, span),
            _ => {
                self.emit(Instr::LoadUndefined { dst });
                Ok(())
            }
        }
    }

    /// The location of the implicit `arguments` object, if any.
    pub(crate) fn arguments_loc(&self) -> Option<Loc> {
        if !self.fs.is_arrow {
            return self.fs.arguments_loc;
        }
        self.outer
            .iter()
            .rev()
            .find(|f| !f.is_arrow)
            .and_then(|f| f.arguments_loc)
    }

    /// A derived constructor whose arrows may call `super()` keeps its `this` in an
    /// environment slot: copy it to r0 before r0 is read.
    pub(crate) fn sync_this_register(&mut self) -> R<()> {
        if self.fs.is_derived
            && !self.fs.is_arrow
            && self.fs.callee_loc.is_some()
            && let Some(Loc::Env { env, slot }) = self.fs.this_loc
        {
            self.get_env(0, env, slot, None, Span::default())?;
        }
        Ok(())
    }

    /// Record which binding an environment slot holds (for direct-eval scopes).
    pub(crate) fn name_slot(&mut self, env: u32, sym: SymbolId, slot: u16) {
        if let Some(names) = self.env_names.get_mut(&env) {
            names.push(EnvEntry::Symbol(sym, slot));
        }
    }

    /// After `super()` in a derived constructor, refresh the `this` slot arrows read.
    pub(crate) fn after_super_call(&mut self) -> R<()> {
        if let Some(Loc::Env { env, slot }) = self.fs.this_loc {
            let r = self.fs.alloc()?;
            self.emit(Instr::LoadThis { dst: r });
            self.set_env(r, env, slot, Span::default())?;
            self.fs.release(r as u32);
        }
        Ok(())
    }
}

/// The `length` of a parameter list: parameters before the first default or rest.
pub(crate) fn params_length(params: &FormalParameters<'_>) -> u32 {
    params
        .items
        .iter()
        .take_while(|p| p.initializer.is_none())
        .count() as u32
}

/// The name a function/class gets from a simple binding (NamedEvaluation).
pub(crate) fn binding_name(pattern: &BindingPattern<'_>) -> Option<String> {
    match pattern {
        BindingPattern::BindingIdentifier(id) => Some(id.name.to_string()),
        _ => None,
    }
}

/// BoundNames of formal parameters `params`: every identifier they bind.
pub(crate) fn parameter_bindings<'p, 'a>(
    params: &'p FormalParameters<'a>,
) -> Vec<&'p BindingIdentifier<'a>> {
    params
        .items
        .iter()
        .map(|item| &item.pattern)
        .chain(params.rest.as_ref().map(|r| &r.rest.argument))
        .flat_map(|p| p.get_binding_identifiers())
        .collect()
}

/// Whether class expression `e` may define its own static `name` (a static element named
/// `name`, or a computed one): naming it afterwards (SetFunctionName under a computed key)
/// would replace that element, which the spec defines after the name.
pub(crate) fn defines_static_name(e: &Expression<'_>) -> bool {
    let Expression::ClassExpression(c) = e.get_inner_expression() else {
        return false;
    };
    crate::typescript::runtime_elements(&c.body).any(|el| match el {
        ClassElement::MethodDefinition(m) => {
            m.r#static && (m.computed || m.key.is_specific_static_name("name"))
        }
        ClassElement::PropertyDefinition(p) => {
            p.r#static && (p.computed || p.key.is_specific_static_name("name"))
        }
        ClassElement::AccessorProperty(a) => {
            a.r#static && (a.computed || a.key.is_specific_static_name("name"))
        }
        _ => false,
    })
}

/// Whether an expression is an anonymous function or class (gets a name
/// from its binding), also inside parentheses and TypeScript type wrappers.
pub(crate) fn is_anonymous_function(e: &Expression<'_>) -> bool {
    match e.get_inner_expression() {
        Expression::FunctionExpression(f) => f.id.is_none(),
        Expression::ArrowFunctionExpression(_) => true,
        Expression::ClassExpression(c) => c.id.is_none(),
        _ => false,
    }
}
