//! Per-function code buffer: instructions, constants, property sites,
//! registers, exception handlers and the control stack used by
//! `break`/`continue`/`return`.

use rustc_hash::FxHashMap;

use kiln_bytecode::{Constant, FunctionCode, FunctionKind, Handler, Instr, Reg, Site, SwitchTable};
use oxc_semantic::SymbolId;

use crate::error::CompileError;

pub(crate) type R<T> = Result<T, CompileError>;

/// More sites than this and property sites start being shared by name, so
/// enormous functions still fit the 16-bit site index.
const SITE_SHARING_THRESHOLD: usize = 60_000;

/// Where a binding lives at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    Reg(Reg),
    /// slot of a compile-time environment id (see `Compiler::envs`)
    Env {
        env: u32,
        slot: u16,
    },
    /// a global property (script top level or unresolved)
    Global,
    /// a module's named import: entry `i` of `ModuleInfo::imports` (read-only, live)
    Import(u16),
}

/// One entry of the control stack.
pub(crate) struct Ctl {
    pub labels: Vec<String>,
    pub kind: CtlKind,
    /// the function's environment depth outside this construct
    pub env_depth: u16,
    /// environment depth at the continue target (loops)
    pub continue_depth: u16,
    pub break_jumps: Vec<usize>,
    pub continue_jumps: Vec<usize>,
}

pub(crate) enum CtlKind {
    /// a loop (`continue` allowed); `iterator` is set for for-of loops, `is_async` for
    /// `for await` (closing its iterator awaits)
    Loop {
        iterator: Option<Reg>,
        is_async: bool,
    },
    /// a switch (unlabelled `break` allowed)
    Switch,
    /// a labelled statement that is not a loop
    Label,
    /// the protected part of a try/finally: exits go through the finally body
    Finally {
        kind: Reg,
        exits: Vec<Exit>,
        entry_jumps: Vec<usize>,
    },
    /// inside a try block with a catch, or a for-of body: no tail calls
    Protected,
}

/// A pending `break`/`continue`/`return` that passes through a finally.
#[derive(Clone, Copy)]
pub(crate) enum Exit {
    Break(usize),
    Continue(usize),
    /// return the value held in the finally's `kind + 1` register
    Return,
}

pub(crate) struct FnState {
    pub kind: FunctionKind,
    pub strict: bool,
    pub instructions: Vec<Instr>,
    pub constants: Vec<Constant>,
    pub sites: Vec<Vec<u16>>,
    pub handlers: Vec<Handler>,
    pub switch_tables: Vec<SwitchTable>,
    pub positions: Vec<(u32, u32)>,
    number_consts: FxHashMap<u64, u16>,
    string_consts: FxHashMap<Vec<u16>, u16>,
    shared_sites: FxHashMap<Vec<u16>, u16>,
    pub next_reg: u32,
    pub max_reg: u32,
    /// first free register after parameters and locals
    pub temp_base: u32,
    /// index into `Compiler::envs` where this function's environments start
    pub env_base: usize,
    pub ctl: Vec<Ctl>,
    pub this_loc: Option<Loc>,
    pub new_target_loc: Option<Loc>,
    pub arguments_loc: Option<Loc>,
    /// the symbols the formal parameters bind
    pub params: Vec<SymbolId>,
    /// top-level code: register holding the completion value
    pub completion: Option<Reg>,
    pub is_derived: bool,
    /// lexical bindings whose initialisation has been compiled (no TDZ check needed)
    pub initialized: rustc_hash::FxHashSet<SymbolId>,
    /// labels waiting for the next statement
    pub pending_labels: Vec<String>,
    pub is_arrow: bool,
    /// jumps to the short-circuit exit of each enclosing optional chain
    pub chain_jumps: Vec<Vec<usize>>,
    /// derived constructors whose arrows (or evals) call `super()`: the constructor itself
    pub callee_loc: Option<Loc>,
    /// sloppy functions with a direct eval: the object of vars the eval code adds
    pub vars_loc: Option<Loc>,
    /// the function's own top environment
    pub top_env: Option<u32>,
    /// `Compiler::dyn_scopes` length when this function started
    pub dyn_base: usize,
    /// compiling the parameter initialisers
    pub in_params: bool,
    /// while `in_params`: the names the parameter list binds
    pub param_names: Vec<String>,
    /// a class field initialiser (direct eval there may not mention `arguments`)
    pub in_field_initializer: bool,
    /// a method, constructor, field initialiser or static block (`super.x` is allowed)
    pub has_home: bool,
    /// parameters not yet initialised while compiling the parameter list (TDZ)
    pub uninitialized_params: rustc_hash::FxHashSet<SymbolId>,
    /// the register holding the resource list of the innermost scope with `using`
    /// declarations (see `Instr::AddDisposable`)
    pub using_list: Option<Reg>,
}

impl FnState {
    pub(crate) fn new(kind: FunctionKind, strict: bool, env_base: usize) -> Self {
        FnState {
            kind,
            strict,
            instructions: Vec::new(),
            constants: Vec::new(),
            sites: Vec::new(),
            handlers: Vec::new(),
            switch_tables: Vec::new(),
            positions: Vec::new(),
            number_consts: FxHashMap::default(),
            string_consts: FxHashMap::default(),
            shared_sites: FxHashMap::default(),
            next_reg: 1,
            max_reg: 1,
            temp_base: 1,
            env_base,
            ctl: Vec::new(),
            this_loc: None,
            new_target_loc: None,
            arguments_loc: None,
            params: Vec::new(),
            completion: None,
            is_derived: kind == FunctionKind::DerivedConstructor,
            initialized: Default::default(),
            pending_labels: Vec::new(),
            is_arrow: kind.is_arrow(),
            chain_jumps: Vec::new(),
            callee_loc: None,
            vars_loc: None,
            top_env: None,
            dyn_base: 0,
            in_params: false,
            param_names: Vec::new(),
            in_field_initializer: false,
            has_home: matches!(
                kind,
                FunctionKind::Method
                    | FunctionKind::ClassConstructor
                    | FunctionKind::DerivedConstructor
            ),
            uninitialized_params: Default::default(),
            using_list: None,
        }
    }

    pub(crate) fn pc(&self) -> usize {
        self.instructions.len()
    }

    pub(crate) fn emit(&mut self, instr: Instr) -> usize {
        self.instructions.push(instr);
        self.instructions.len() - 1
    }

    pub(crate) fn position(&mut self, offset: u32) {
        let pc = self.instructions.len() as u32;
        match self.positions.last_mut() {
            Some(last) if last.0 == pc => last.1 = offset,
            Some(last) if last.1 == offset => {}
            _ => self.positions.push((pc, offset)),
        }
    }

    // ---- registers ----

    /// A fresh temporary register.
    pub(crate) fn alloc(&mut self) -> R<Reg> {
        self.alloc_n(1)
    }

    /// `n` consecutive fresh temporaries; returns the first.
    pub(crate) fn alloc_n(&mut self, n: u32) -> R<Reg> {
        let first = self.next_reg;
        self.next_reg += n;
        if self.next_reg > u16::MAX as u32 {
            return Err(CompileError::new("too many registers in one function", 0));
        }
        self.max_reg = self.max_reg.max(self.next_reg);
        Ok(first as Reg)
    }

    pub(crate) fn mark(&self) -> u32 {
        self.next_reg
    }

    pub(crate) fn release(&mut self, mark: u32) {
        self.next_reg = mark;
    }

    // ---- constants and sites ----

    fn push_constant(&mut self, c: Constant) -> R<u16> {
        if self.constants.len() >= u16::MAX as usize {
            return Err(CompileError::new("too many constants in one function", 0));
        }
        self.constants.push(c);
        Ok((self.constants.len() - 1) as u16)
    }

    pub(crate) fn number(&mut self, value: f64) -> R<u16> {
        if let Some(&i) = self.number_consts.get(&value.to_bits()) {
            return Ok(i);
        }
        let i = self.push_constant(Constant::Number(value))?;
        self.number_consts.insert(value.to_bits(), i);
        Ok(i)
    }

    pub(crate) fn string(&mut self, value: Vec<u16>) -> R<u16> {
        if let Some(&i) = self.string_consts.get(&value) {
            return Ok(i);
        }
        let i = self.push_constant(Constant::String(value.clone()))?;
        self.string_consts.insert(value, i);
        Ok(i)
    }

    pub(crate) fn str(&mut self, value: &str) -> R<u16> {
        self.string(utf16(value))
    }

    pub(crate) fn constant(&mut self, c: Constant) -> R<u16> {
        self.push_constant(c)
    }

    /// A property site for `name`: one per access point (one inline cache
    /// each) until the function has very many, then shared by name.
    pub(crate) fn site(&mut self, name: &str) -> R<Site> {
        self.site_utf16(utf16(name))
    }

    pub(crate) fn site_utf16(&mut self, name: Vec<u16>) -> R<Site> {
        if self.sites.len() >= SITE_SHARING_THRESHOLD {
            if let Some(&i) = self.shared_sites.get(&name) {
                return Ok(i);
            }
            if self.sites.len() >= u16::MAX as usize {
                return Err(CompileError::new(
                    "too many property accesses in one function",
                    0,
                ));
            }
            self.shared_sites
                .insert(name.clone(), self.sites.len() as u16);
        }
        self.sites.push(name);
        Ok((self.sites.len() - 1) as u16)
    }

    // ---- jumps ----

    /// Point the jump at `at` to `target`.
    pub(crate) fn patch(&mut self, at: usize, target: usize) {
        let offset = target as i64 - (at as i64 + 1);
        let offset = offset as i32;
        match &mut self.instructions[at] {
            Instr::Jump { offset: o }
            | Instr::Loop { offset: o }
            | Instr::JumpIfTrue { offset: o, .. }
            | Instr::JumpIfFalse { offset: o, .. }
            | Instr::JumpIfNullish { offset: o, .. }
            | Instr::JumpIfNotNullish { offset: o, .. }
            | Instr::JumpIfUndefined { offset: o, .. }
            | Instr::JumpIfNotUndefined { offset: o, .. }
            | Instr::JumpIfHole { offset: o, .. } => *o = offset,
            _ => {}
        }
    }

    pub(crate) fn patch_here(&mut self, at: usize) {
        let here = self.pc();
        self.patch(at, here);
    }

    pub(crate) fn patch_all_here(&mut self, jumps: &[usize]) {
        for &j in jumps {
            self.patch_here(j);
        }
    }

    pub(crate) fn jump(&mut self) -> usize {
        self.emit(Instr::Jump { offset: 0 })
    }

    /// A backward jump (a VM safe point) to `target`.
    pub(crate) fn loop_to(&mut self, target: usize) {
        let at = self.emit(Instr::Loop { offset: 0 });
        self.patch(at, target);
    }

    pub(crate) fn finish(
        self,
        name: Vec<u16>,
        length: u32,
        param_count: u16,
        span: (u32, u32),
    ) -> FunctionCode {
        FunctionCode {
            name,
            kind: self.kind,
            strict: self.strict,
            length,
            param_count,
            register_count: self.max_reg.max(param_count as u32 + 1) as u16,
            instructions: self.instructions,
            constants: self.constants,
            property_sites: self.sites,
            handlers: self.handlers,
            switch_tables: self.switch_tables,
            positions: self.positions,
            source_start: span.0,
            source_end: span.1,
        }
    }
}

/// UTF-16 of a Rust string.
pub(crate) fn utf16(s: &str) -> Vec<u16> {
    // Sized once (a string has no more UTF-16 units than bytes): collecting from
    // `encode_utf16` alone grew the vector two or three times per name and literal.
    let mut units = Vec::with_capacity(s.len());
    if s.is_ascii() {
        units.extend(s.bytes().map(u16::from));
    } else {
        units.extend(s.encode_utf16());
    }
    units
}

/// Decode oxc's lone-surrogate escape (`\u{FFFD}XXXX`) back to UTF-16.
pub(crate) fn decode_lone_surrogates(s: &str) -> Vec<u16> {
    let mut out = Vec::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{FFFD}' {
            let hex: String = chars.clone().take(4).collect();
            if hex.len() == 4
                && let Ok(unit) = u16::from_str_radix(&hex, 16)
            {
                for _ in 0..4 {
                    chars.next();
                }
                out.push(unit);
                continue;
            }
        }
        let mut buf = [0u16; 2];
        out.extend_from_slice(c.encode_utf16(&mut buf));
    }
    out
}
