//! Checking a script before a VM loads it, whether it was decoded from bytes (see
//! [`crate::serial`]) or came from the compiler: every index an instruction or table holds
//! must be in range, so that interpreting it can only ever index what exists. The
//! interpreter reads registers and instructions without bounds checks on that ground, so
//! it loads only a [`ValidScript`].
//!
//! Checked: register operands (and the registers an instruction uses after them, such as
//! `r[dst+1]` or a call's arguments) against the frame's register count; constants
//! against the constant table and, where an instruction needs one kind (a function, a
//! string, a regular expression, a template), its kind; property sites; jump targets, switch
//! tables and exception handlers inside the function; that only `Loop`, a safe point, jumps
//! backward (every other jump, switch target and handler target lies ahead, so fuel,
//! cancellation and the time budget hold in any loop); that control cannot run past the
//! last instruction; function indices; source ranges on character boundaries; module tables
//! (requests, imports, exports, environment slots). Not checked statically: environment
//! depths and slots of `GetEnv`/`SetEnv` (they depend on the environments pushed at run
//! time); the interpreter bounds-checks those accesses, and the embedding API turns a
//! failure there into an engine error of that runtime, never a crash.

use crate::serial::{OperandVisitor, visit_operands};
use crate::*;

/// Why a script is not valid bytecode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidBytecode {
    /// the function (index into [`Script::functions`]) and instruction, where one applies
    pub function: usize,
    pub pc: Option<usize>,
    pub message: String,
}

impl fmt::Display for InvalidBytecode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pc {
            Some(pc) => write!(
                f,
                "{} (function {}, instruction {pc})",
                self.message, self.function
            ),
            None => write!(f, "{} (function {})", self.message, self.function),
        }
    }
}

impl std::error::Error for InvalidBytecode {}

/// Check `script` as described in the module documentation.
pub fn validate(script: &Script) -> Result<(), InvalidBytecode> {
    let fail = |function: usize, pc: Option<usize>, message: String| InvalidBytecode {
        function,
        pc,
        message,
    };
    match script.functions.first() {
        None => return Err(fail(0, None, "a script needs its top-level code".into())),
        Some(top) if top.kind != FunctionKind::Script => {
            return Err(fail(0, None, "function 0 must be top-level code".into()));
        }
        _ => {}
    }
    if script.module.is_some() != (script.kind == ScriptKind::Module) {
        return Err(fail(0, None, "only a module has module tables".into()));
    }
    let imports = script.module.as_ref().map_or(0, |m| m.imports.len());
    for (index, function) in script.functions.iter().enumerate() {
        let checker = FunctionChecker {
            script,
            function,
            imports,
        };
        checker
            .check()
            .map_err(|(pc, message)| fail(index, pc, message))?;
    }
    if let Some(module) = &script.module {
        check_module(script, module).map_err(|message| fail(0, None, message))?;
    }
    Ok(())
}

/// A script [`validate`] accepted. Only [`ValidScript::new`] makes one, so whoever holds
/// one may rely on everything the module documentation lists: the interpreter reads
/// registers and instructions without bounds checks on that ground.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidScript(Script);

impl ValidScript {
    /// `script`, once it has passed [`validate`].
    pub fn new(script: Script) -> Result<ValidScript, InvalidBytecode> {
        validate(&script)?;
        Ok(ValidScript(script))
    }

    pub fn script(&self) -> &Script {
        &self.0
    }

    pub fn into_script(self) -> Script {
        self.0
    }
}

fn check_module(script: &Script, m: &ModuleInfo) -> Result<(), String> {
    let requests = m.requests.len();
    let request = |r: u16| {
        if (r as usize) < requests {
            Ok(())
        } else {
            Err(format!("module request {r} out of range"))
        }
    };
    let slot = |s: u16| {
        if s < m.env_size {
            Ok(())
        } else {
            Err(format!("module environment slot {s} out of range"))
        }
    };
    for i in &m.imports {
        request(i.request)?;
    }
    for &(r, s) in &m.namespace_imports {
        request(r)?;
        slot(s)?;
    }
    for (_, s) in &m.local_exports {
        slot(*s)?;
    }
    for e in &m.indirect_exports {
        request(e.request)?;
    }
    for &r in &m.star_exports {
        request(r)?;
    }
    let init = m.init_function as usize;
    if init == 0 || init >= script.functions.len() {
        return Err(format!("module initialiser {init} out of range"));
    }
    Ok(())
}

struct FunctionChecker<'a> {
    script: &'a Script,
    function: &'a FunctionCode,
    imports: usize,
}

type Failure = (Option<usize>, String);

impl FunctionChecker<'_> {
    fn check(&self) -> Result<(), Failure> {
        let f = self.function;
        let registers = f.register_count.max(1) as usize;
        if f.param_count as usize >= registers {
            return Err((None, "more parameters than registers".into()));
        }
        let len = f.instructions.len();
        if !f.instructions.last().is_some_and(ends_control) {
            return Err((None, "control can run past the last instruction".into()));
        }
        for (pc, instr) in f.instructions.iter().enumerate() {
            let mut operands = Operands {
                checker: self,
                pc,
                registers,
                safe_point: matches!(instr, Instr::Loop { .. }),
            };
            visit_operands(instr, &mut operands).map_err(|m| (Some(pc), m))?;
            self.check_extra(instr, registers)
                .map_err(|m| (Some(pc), m))?;
        }
        for c in &f.constants {
            if let Constant::Function(index) = *c
                && (index == 0 || index as usize >= self.script.functions.len())
            {
                return Err((None, format!("function {index} out of range")));
            }
        }
        for h in &f.handlers {
            let extra = if h.is_finally { 1 } else { 0 };
            if h.start > h.end
                || h.end as usize > len
                || h.target < h.end
                || h.target as usize >= len
                || h.reg as usize + extra >= registers
            {
                return Err((None, format!("handler {h:?} out of range")));
            }
        }
        for (i, t) in f.switch_tables.iter().enumerate() {
            if t.cases.windows(2).any(|w| w[0].0 >= w[1].0) {
                return Err((None, format!("switch table {i} is not sorted by value")));
            }
        }
        let source = &self.script.source;
        let in_source = |offset: u32| {
            (offset as usize) <= source.len() && source.is_char_boundary(offset as usize)
        };
        if !(in_source(f.source_start) && in_source(f.source_end) && f.source_start <= f.source_end)
        {
            return Err((None, "source range out of range".into()));
        }
        if f.positions
            .iter()
            .any(|&(pc, offset)| pc as usize > len || !in_source(offset))
        {
            return Err((None, "source position out of range".into()));
        }
        Ok(())
    }

    fn constant(&self, index: u16) -> Result<&Constant, String> {
        self.function
            .constants
            .get(index as usize)
            .ok_or_else(|| format!("constant {index} out of range"))
    }

    /// What the operand table cannot say: registers used after an operand, constants of
    /// one kind, import indices.
    fn check_extra(&self, instr: &Instr, registers: usize) -> Result<(), String> {
        let span = |base: Reg, extra: usize| {
            if base as usize + extra < registers {
                Ok(())
            } else {
                Err(format!("register r{base}+{extra} out of range"))
            }
        };
        let args = |args: Reg, argc: u8| span(args, if argc == 255 { 1 } else { argc as usize });
        match *instr {
            Instr::IteratorNext { dst, iter } => {
                span(dst, 1)?;
                span(iter, 1)
            }
            Instr::GetIndexUpdate { dst, .. }
            | Instr::ForInNext { dst, .. }
            | Instr::ImportDynamic { src: dst, .. } => span(dst, 1),
            Instr::CreateClass { dst, func, .. } => {
                span(dst, 1)?;
                self.function_constant(func)
            }
            Instr::GetIterator { iter, .. }
            | Instr::GetAsyncIterator { iter, .. }
            | Instr::YieldDelegate { iter, .. } => span(iter, 1),
            Instr::YieldDelegateAsync { iter, .. } => span(iter, 2),
            Instr::DefinePrivateAccessor { funcs, .. } => span(funcs, 1),
            Instr::EndFinally { kind }
            | Instr::DisposeResources { kind, .. }
            | Instr::SuppressError { kind, .. } => span(kind, 1),
            Instr::Call { args: a, argc, .. }
            | Instr::CallEval { args: a, argc, .. }
            | Instr::CallNoThis { args: a, argc, .. }
            | Instr::TailCall { args: a, argc, .. }
            | Instr::New { args: a, argc, .. }
            | Instr::SuperCall { args: a, argc, .. } => args(a, argc),
            Instr::SuperCallFrom {
                func,
                args: a,
                argc,
                ..
            } => {
                span(func, 2)?;
                args(a, argc)
            }
            Instr::CallSpread { args: a, .. }
            | Instr::NewSpread { args: a, .. }
            | Instr::SuperCallSpread { args: a, .. } => span(a, 1),
            Instr::Closure { func, .. } => self.function_constant(func),
            Instr::LoadConst { idx, .. } => match self.constant(idx)? {
                Constant::Number(_) | Constant::String(_) | Constant::BigInt(_) => Ok(()),
                _ => Err(format!("constant {idx} is not a value")),
            },
            Instr::GetEnvChecked { name: c, .. }
            | Instr::ThrowIfHole { name: c, .. }
            | Instr::ThrowError { msg: c, .. }
            | Instr::NewPrivateName { desc: c, .. } => match self.constant(c)? {
                Constant::String(_) => Ok(()),
                _ => Err(format!("constant {c} is not a string")),
            },
            Instr::NewRegExp { idx, .. } => match self.constant(idx)? {
                Constant::RegExp { .. } => Ok(()),
                _ => Err(format!("constant {idx} is not a regular expression")),
            },
            Instr::GetTemplateObject { idx, .. } => match self.constant(idx)? {
                Constant::Template { .. } => Ok(()),
                _ => Err(format!("constant {idx} is not a template")),
            },
            Instr::GetImport { index, .. } if index as usize >= self.imports => {
                Err(format!("import {index} out of range"))
            }
            Instr::LoadImportMeta { .. } | Instr::GetImport { .. }
                if self.script.kind != ScriptKind::Module =>
            {
                Err("import.meta and imports exist in modules only".into())
            }
            _ => Ok(()),
        }
    }

    fn function_constant(&self, index: u16) -> Result<(), String> {
        match self.constant(index)? {
            Constant::Function(f) if *f != 0 && (*f as usize) < self.script.functions.len() => {
                Ok(())
            }
            _ => Err(format!("constant {index} is not a function of this script")),
        }
    }
}

/// An instruction after which control never reaches the next one.
fn ends_control(instr: &Instr) -> bool {
    matches!(
        instr,
        Instr::Jump { .. }
            | Instr::Loop { .. }
            | Instr::Return { .. }
            | Instr::ReturnUndefined
            | Instr::ReturnDerived { .. }
            | Instr::Throw { .. }
            | Instr::ThrowError { .. }
            | Instr::TailCall { .. }
    )
}

struct Operands<'a> {
    checker: &'a FunctionChecker<'a>,
    pc: usize,
    registers: usize,
    /// the instruction is `Loop`, which may jump backward
    safe_point: bool,
}

impl OperandVisitor for Operands<'_> {
    type Error = String;

    fn reg(&mut self, r: Reg) -> Result<(), String> {
        if (r as usize) < self.registers {
            Ok(())
        } else {
            Err(format!("register r{r} out of range"))
        }
    }

    fn constant(&mut self, c: ConstIdx) -> Result<(), String> {
        self.checker.constant(c).map(|_| ())
    }

    fn site(&mut self, s: Site) -> Result<(), String> {
        if (s as usize) < self.checker.function.property_sites.len() {
            Ok(())
        } else {
            Err(format!("property site {s} out of range"))
        }
    }

    fn jump(&mut self, offset: Offset) -> Result<(), String> {
        let target = self.pc as i64 + 1 + offset as i64;
        if !(0..self.checker.function.instructions.len() as i64).contains(&target) {
            Err(format!("jump to {target} out of range"))
        } else if target <= self.pc as i64 && !self.safe_point {
            Err(format!(
                "jump to {target} goes backward without a safe point"
            ))
        } else {
            Ok(())
        }
    }

    fn switch_table(&mut self, table: u16) -> Result<(), String> {
        let f = self.checker.function;
        let Some(t) = f.switch_tables.get(table as usize) else {
            return Err(format!("switch table {table} out of range"));
        };
        for &(_, target) in &t.cases {
            if target as usize >= f.instructions.len() {
                return Err(format!(
                    "switch table {table} jumps to {target}, out of range"
                ));
            }
            if target as usize <= self.pc {
                return Err(format!(
                    "switch table {table} jumps to {target}, not forward"
                ));
            }
        }
        Ok(())
    }
}
