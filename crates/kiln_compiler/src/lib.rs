//! Compiles JavaScript source into Kiln bytecode ([`kiln_bytecode::Script`]).
//! Scripts, modules and agent scripts named `*.ts`, `*.mts` or `*.cts` are TypeScript,
//! compiled with their types stripped (see `typescript`).
//!
//! Parsing is done by `oxc_parser`; scopes and bindings are resolved with
//! `oxc_semantic` so that variables no inner function captures live in
//! registers and only captured ones in heap environments.
//!
//! Layout: `scope` (which bindings are captured), `compiler` (shared state,
//! bindings, function prologues), `statement`, `expression`, `pattern`
//! (destructuring), `class`, `function` (per-function code buffer),
//! `chain` (left-deep operator chains, walked with loops), `nesting` (depth pre-scan),
//! `typescript` (what is stripped, what is refused), `error`.

mod chain;
mod class;
mod compiler;
mod dynamic;
mod error;
mod expression;
mod function;
mod module;
mod nesting;
mod pattern;
mod scope;
mod statement;
mod typescript;

#[cfg(test)]
mod tests;

use kiln_bytecode::{EvalScope, GlobalDeclaration, Instr, Script, ScriptKind};
use oxc_allocator::Allocator;
use oxc_ast::ast::{Directive, Program, Statement, StringLiteral};
use oxc_parser::{ParseOptions, Parser};
use oxc_semantic::SemanticBuilder;
use oxc_span::GetSpan;
use oxc_span::{SourceType, Span};
use oxc_syntax::scope::ScopeId;

pub use error::CompileError;

use compiler::Compiler;
use function::R;

/// Stack size of the compiling thread: the parser and the semantic pass
/// recurse once per nesting level of the source. A caller with this much native stack to
/// spare may compile any source on its own thread ([`LargeStack`]).
pub const COMPILER_STACK: usize = 256 * 1024 * 1024;

thread_local! {
    /// A [`LargeStack`] is alive on this thread.
    static ON_LARGE_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// While a `LargeStack` lives, every compilation on its thread happens on that thread,
/// whatever the source's size, instead of going to the compiler thread when the source is
/// longer than [`INLINE_SOURCE_LIMIT`]: no hand-over, which costs two thread wake-ups.
///
/// # Contract
///
/// Its maker promises that, as long as it lives, the thread has [`COMPILER_STACK`] bytes
/// of native stack to spare at every compilation (a coroutine or thread made with that
/// stack, compiling near its base). Breaking the promise is not undefined behaviour: a
/// source nested deeply enough overflows the stack, which aborts the process.
#[must_use]
pub struct LargeStack {
    previous: bool,
    /// bound to its thread
    _thread: std::marker::PhantomData<*const ()>,
}

impl LargeStack {
    /// Compile on this thread until the value is dropped (see the contract above).
    pub fn assume() -> LargeStack {
        LargeStack {
            previous: ON_LARGE_STACK.replace(true),
            _thread: std::marker::PhantomData,
        }
    }
}

impl Drop for LargeStack {
    fn drop(&mut self) {
        ON_LARGE_STACK.set(self.previous);
    }
}

/// Sources of at most this many bytes are compiled on the calling thread. Nothing in them
/// nests deeper than their length, so their compilation needs little stack (less than
/// [`INLINE_STACK`], checked by `tests::small_sources_compile_within_the_inline_stack`);
/// larger ones go to the compiler thread, whose stack holds the deepest nesting the
/// pre-scan lets through. Handing a job to that thread and back costs two thread
/// wake-ups, about 10 µs, several times the cost of compiling `1+1`.
const INLINE_SOURCE_LIMIT: usize = 256;

/// The native stack compiling a source of [`INLINE_SOURCE_LIMIT`] bytes may use, which the
/// calling thread must have to spare (a test build compiles the deepest in half of it).
#[cfg_attr(not(test), allow(dead_code))]
const INLINE_STACK: usize = 512 * 1024;

/// Compile `source` as a script (sloppy unless it opens with `"use strict"` or
/// `strict` is set), a module, or eval code. A script, module or agent script whose
/// `source_name` ends in `.ts`, `.mts` or `.cts` is TypeScript: its types are stripped,
/// and TypeScript that would need a transform (enums, namespaces holding values,
/// parameter properties, `import x = require()`, `export =`, decorators) is a
/// SyntaxError. Eval code is always JavaScript.
pub fn compile(
    source: &str,
    source_name: &str,
    kind: ScriptKind,
    strict: bool,
) -> Result<Script, CompileError> {
    compile_with_scope(source, source_name, kind, strict, None)
}

/// Compile the code of a direct `eval` against its caller's scope (described by the
/// [`EvalScope`] the compiler recorded at the call site). Free names resolve to the
/// caller's bindings, then to globals; see `docs/eval.md`.
pub fn compile_eval(
    source: &str,
    source_name: &str,
    strict: bool,
    scope: &EvalScope,
) -> Result<Script, CompileError> {
    compile_with_scope(source, source_name, ScriptKind::Eval, strict, Some(scope))
}

fn compile_with_scope(
    source: &str,
    source_name: &str,
    kind: ScriptKind,
    strict: bool,
    scope: Option<&EvalScope>,
) -> Result<Script, CompileError> {
    // (a `.tsx` name is refused when the source is parsed)
    let typescript =
        kind != ScriptKind::Eval && typescript::is_typescript(source_name).unwrap_or(false);
    let goal = nesting::Goal {
        module: matches!(kind, ScriptKind::Module | ScriptKind::Agent),
        typescript,
    };
    if let Some(offset) = nesting::too_deep(source, nesting::MAX_NESTING, goal) {
        return Err(CompileError::new("nesting too deep", offset as u32).locate(source));
    }
    if source.len() <= INLINE_SOURCE_LIMIT || ON_LARGE_STACK.get() {
        // A panic is an internal error here too, as it is on the compiler thread.
        return std::panic::catch_unwind(|| {
            compile_on_this_thread(source, source_name, kind, strict, scope)
        })
        .unwrap_or_else(|_| Err(CompileError::new("internal compiler error", 0)));
    }
    let job = Job {
        source: source.to_string(),
        source_name: source_name.to_string(),
        kind,
        strict,
        scope: scope.map(|s| Box::new(s.clone())),
    };
    match compile_on_worker(job) {
        Ok(result) => result,
        // No thread available: compile here (the nesting pre-scan still protects the stack).
        Err(job) => compile_on_this_thread(
            &job.source,
            &job.source_name,
            kind,
            strict,
            job.scope.as_deref(),
        ),
    }
}

/// One compilation for the compiler thread.
struct Job {
    source: String,
    source_name: String,
    kind: ScriptKind,
    strict: bool,
    /// Boxed: eval scopes are large and a job is moved through a channel.
    scope: Option<Box<EvalScope>>,
}

/// A compiler thread with a deep stack, started once per calling thread and reused:
/// spawning a thread per compilation would cost more than compiling a small script.
struct Worker {
    jobs: std::sync::mpsc::Sender<Job>,
    results: std::sync::mpsc::Receiver<Result<Script, CompileError>>,
}

thread_local! {
    static WORKER: std::cell::RefCell<Option<Worker>> = const { std::cell::RefCell::new(None) };
}

fn spawn_worker() -> std::io::Result<Worker> {
    let (jobs, job_queue) = std::sync::mpsc::channel::<Job>();
    let (result_sender, results) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("kiln-compiler".into())
        .stack_size(COMPILER_STACK)
        .spawn(move || {
            // ends when the calling thread drops its `Worker`
            for job in job_queue {
                let result = compile_on_this_thread(
                    &job.source,
                    &job.source_name,
                    job.kind,
                    job.strict,
                    job.scope.as_deref(),
                );
                if result_sender.send(result).is_err() {
                    break;
                }
            }
        })?;
    Ok(Worker { jobs, results })
}

/// Compile on this thread's compiler thread; gives the job back when no thread can run.
fn compile_on_worker(job: Job) -> Result<Result<Script, CompileError>, Job> {
    WORKER.with(|cell| {
        let mut worker = cell.borrow_mut();
        if worker.is_none() {
            match spawn_worker() {
                Ok(w) => *worker = Some(w),
                Err(_) => return Err(job),
            }
        }
        let w = worker.as_ref().expect("just started");
        if let Err(returned) = w.jobs.send(job) {
            *worker = None;
            return Err(returned.0);
        }
        match w.results.recv() {
            Ok(result) => Ok(result),
            Err(_) => {
                // the compiler thread panicked: report it and start afresh next time
                *worker = None;
                Ok(Err(CompileError::new("internal compiler error", 0)))
            }
        }
    })
}

/// Whether a parse or early error is lifted because the eval code's caller allows it.
fn allowed_in_eval(message: &str, scope: Option<&EvalScope>) -> bool {
    let Some(scope) = scope else { return false };
    let private_in_scope = || {
        message
            .strip_prefix("Private identifier '#")
            .and_then(|rest| rest.split_once('\''))
            .is_some_and(|(name, rest)| {
                rest.starts_with(" is not allowed outside class bodies")
                    && scope.private_names.iter().any(|p| p.0 == name)
            })
    };
    (message.starts_with("Unexpected new.target") && scope.in_function)
        || private_in_scope()
        || (message.starts_with("Super calls are not permitted") && scope.super_call.is_some())
        || (message.starts_with("'super' can only be referenced") && scope.super_property)
}

/// ContainsArguments: whether an `arguments` reference is not inside a non-arrow function.
fn contains_arguments(semantic: &oxc_semantic::Semantic<'_>) -> bool {
    let scoping = semantic.scoping();
    let Some((_, references)) = scoping
        .root_unresolved_references()
        .iter()
        .find(|(name, _)| name.as_str() == "arguments")
    else {
        return false;
    };
    references
        .iter()
        .map(|&id| scoping.get_reference(id))
        .any(|r| {
            let mut scope = Some(r.scope_id());
            while let Some(id) = scope {
                let flags = scoping.scope_flags(id);
                if flags.is_function() && !flags.is_arrow() {
                    return false;
                }
                scope = scoping.scope_parent_id(id);
            }
            true
        })
}

thread_local! {
    /// The arena of this thread's syntax trees, reset after each compilation and used
    /// again: a new one per compilation allocated and freed its chunks each time.
    static ARENA: std::cell::Cell<Option<Allocator>> = const { std::cell::Cell::new(None) };
}

/// An arena that grew past this many bytes (compiling a large source) is freed after
/// the compilation instead of kept for the next.
const KEPT_ARENA_BYTES: usize = 1024 * 1024;

fn compile_on_this_thread(
    source: &str,
    source_name: &str,
    kind: ScriptKind,
    strict: bool,
    eval_scope: Option<&EvalScope>,
) -> Result<Script, CompileError> {
    // (taken, not borrowed: a compilation that panics leaves no arena behind)
    let mut allocator = ARENA.take().unwrap_or_default();
    let result = compile_in(&allocator, source, source_name, kind, strict, eval_scope);
    if allocator.capacity() <= KEPT_ARENA_BYTES {
        allocator.reset();
        ARENA.set(Some(allocator));
    }
    result
}

fn compile_in(
    allocator: &Allocator,
    source: &str,
    source_name: &str,
    kind: ScriptKind,
    strict: bool,
    eval_scope: Option<&EvalScope>,
) -> Result<Script, CompileError> {
    let is_typescript = kind != ScriptKind::Eval
        && typescript::is_typescript(source_name).map_err(|e| e.locate(source))?;
    // An agent script is parsed with the module goal (strict, `await` at the top level)
    // and may `return` at the top level.
    let source_type = match kind {
        ScriptKind::Module | ScriptKind::Agent => SourceType::mjs(),
        _ => SourceType::script(),
    }
    .with_typescript(is_typescript);
    let options = ParseOptions {
        preserve_parens: false,
        allow_return_outside_function: kind == ScriptKind::Agent,
        ..ParseOptions::default()
    };
    let parsed = Parser::new(allocator, source, source_type)
        .with_options(options)
        .parse();
    if let Some(d) = parsed
        .diagnostics
        .errors()
        .find(|d| !allowed_in_eval(&d.message, eval_scope))
    {
        let offset = d.labels.first().map_or(0, |l| l.offset());
        return Err(CompileError::new(d.message.to_string(), offset).locate(source));
    }
    if parsed.panicked {
        return Err(CompileError::new("syntax error", 0).locate(source));
    }
    let mut program = parsed.program;
    let type_only = if is_typescript {
        Some(typescript::check(&program).map_err(|e| e.locate(source))?)
    } else {
        None
    };
    if strict && !program.has_use_strict_directive() {
        // Eval code inherits strictness from its caller: a synthetic directive (empty span,
        // first, so it never becomes the completion value) makes the early errors of strict
        // code apply.
        let builder = oxc_ast::builder::AstBuilder::new(allocator);
        let literal = StringLiteral::new(Span::empty(0), "use strict", None, &builder);
        let directive = Directive::new(Span::empty(0), literal, "use strict", &builder);
        program.directives.insert(0, directive);
    }
    let semantic = SemanticBuilder::new()
        .with_check_syntax_error(true)
        .build(&program);
    if let Some(d) = semantic
        .diagnostics
        .errors()
        .find(|d| !allowed_in_eval(&d.message, eval_scope))
    {
        let offset = d.labels.first().map_or(0, |l| l.offset());
        return Err(CompileError::new(d.message.to_string(), offset).locate(source));
    }
    // Additional early error for eval in a class field initialiser
    // (https://tc39.es/ecma262/#sec-performeval-rules-in-initializer).
    if eval_scope.is_some_and(|s| s.in_field_initializer) && contains_arguments(&semantic.semantic)
    {
        return Err(CompileError::new(
            "'arguments' is not allowed in class field initializer or static initialization block",
            0,
        )
        .locate(source));
    }
    let mut scoping = semantic.semantic.into_scoping();
    let erased = match &type_only {
        Some(type_only) => typescript::erase_type_bindings(&mut scoping, type_only)
            .map_err(|e| e.locate(source))?,
        None => Default::default(),
    };
    scope::skip_conflicting_block_functions(&program, &mut scoping);
    scope::resolve_arguments(&program, &mut scoping);
    let scoping = &scoping;
    let root = program.scope_id.get().unwrap_or(ScopeId::new(0));
    let analysis = scope::analyse(&program, scoping);
    let strict = strict || program.has_use_strict_directive();
    let mut compiler = Compiler::new(source, scoping, analysis, kind, root, strict, erased);
    // Indirect eval: eval code whose caller is global code.
    let global_caller = EvalScope::default();
    let eval_scope = eval_scope.or((kind == ScriptKind::Eval).then_some(&global_caller));
    if let Some(scope) = eval_scope {
        compiler.enter_eval_scope(scope, strict);
    }
    let mut module = None;
    if kind == ScriptKind::Module {
        let info =
            module::compile_module(&mut compiler, &program, root).map_err(|e| e.locate(source))?;
        module = Some(Box::new(info));
    } else if kind == ScriptKind::Agent {
        compile_agent(&mut compiler, &program, root).map_err(|e| e.locate(source))?;
    } else {
        refuse_module_declarations(&program).map_err(|e| e.locate(source))?;
        compile_top_level(
            &mut compiler,
            &program.body,
            last_directive(&program),
            root,
            strict,
        )
        .map_err(|e| e.locate(source))?;
    }
    let mut functions = Vec::with_capacity(compiler.functions.len());
    for f in compiler.functions {
        match f {
            Some(f) => functions.push(f),
            None => {
                return Err(CompileError::new("internal error: missing function", 0).locate(source));
            }
        }
    }
    Ok(Script {
        kind,
        functions,
        source: source.to_string(),
        source_name: source_name.to_string(),
        module,
    })
}

/// The last directive of the source (not the synthetic one of strict eval code): the
/// completion value of a script without statements.
fn last_directive<'p, 'a>(program: &'p Program<'a>) -> Option<&'p StringLiteral<'a>> {
    program
        .directives
        .iter()
        .rfind(|d| !d.span.is_empty())
        .map(|d| &d.expression)
}

/// The completion value register of top-level code: undefined, or the value of its last
/// directive (a directive is an expression statement too: `eval('"text"')` completes
/// with "text"); the statements that follow update it.
fn begin_completion(c: &mut Compiler<'_>, last_directive: Option<&StringLiteral<'_>>) -> R<()> {
    let completion = c.fs.alloc()?;
    c.fs.temp_base = c.fs.next_reg;
    c.emit(Instr::LoadUndefined { dst: completion });
    if let Some(d) = last_directive {
        let value = if d.lone_surrogates {
            function::decode_lone_surrogates(&d.value)
        } else {
            function::utf16(&d.value)
        };
        let idx = c.fs.string(value)?;
        c.emit(Instr::LoadConst {
            dst: completion,
            idx,
        });
    }
    c.fs.completion = Some(completion);
    Ok(())
}

/// The top level of an agent script: the body of an async function (the VM runs it as
/// one) over the root scope, whose bindings are locals like a function's. It returns
/// what a `return` returns, else the completion value of the body.
fn compile_agent<'a>(c: &mut Compiler<'a>, program: &Program<'a>, root: ScopeId) -> R<()> {
    refuse_module_declarations(program)?;
    c.begin_top_level(true, root)?;
    begin_completion(c, last_directive(program))?;
    c.function_body_statements(&program.body)?;
    c.end_top_level()
}

/// Import and export declarations outside a module: the parser refuses them in a
/// JavaScript script, not in a TypeScript one, and accepts them in an agent script (parsed
/// with the module goal). Those of types only are erased.
fn refuse_module_declarations(program: &Program<'_>) -> R<()> {
    match program
        .body
        .iter()
        .find(|s| s.is_module_declaration() && !typescript::is_type_only_statement(s))
    {
        Some(s) => Err(CompileError::new(
            "import and export declarations are only allowed in modules",
            s.span().start,
        )),
        None => Ok(()),
    }
}

/// The top level of a script: global declarations first, then the body,
/// returning the completion value.
fn compile_top_level<'a>(
    c: &mut Compiler<'a>,
    body: &[Statement<'a>],
    last_directive: Option<&oxc_ast::ast::StringLiteral<'a>>,
    root: ScopeId,
    strict: bool,
) -> Result<(), CompileError> {
    c.begin_top_level(strict, root)?;
    let in_eval_function = c.eval_ctx.as_ref().is_some_and(|ctx| ctx.scope.in_function);
    if in_eval_function {
        // Eval code sees its caller's `this`, `new.target` and `arguments` like an arrow.
        c.fs.is_arrow = true;
        if !strict {
            c.fs.vars_loc = c.outer.first().and_then(|f| f.vars_loc);
        }
    }
    // Top-level function declarations: CreateGlobalFunctionBinding makes their bindings.
    let function_names: Vec<&str> = body
        .iter()
        .filter_map(|s| match s {
            Statement::FunctionDeclaration(f) => f.id.as_ref().map(|id| id.name.as_str()),
            _ => None,
        })
        .collect();
    let symbols = c.scope_symbols(root);
    if c.global_var_env() {
        // Every check of Global/EvalDeclarationInstantiation runs before any binding is made:
        // lexical names, then functions, then vars.
        let mut checks: Vec<(GlobalDeclaration, String)> = symbols
            .iter()
            .filter(|&&sym| c.is_global_symbol(sym))
            .map(|&sym| {
                let name = c.scoping.symbol_name(sym);
                let kind = if c.is_lexical(sym) {
                    GlobalDeclaration::Lexical
                } else if function_names.contains(&name) {
                    GlobalDeclaration::Function
                } else {
                    GlobalDeclaration::Var
                };
                (kind, name.to_string())
            })
            .collect();
        checks.sort_by_key(|(kind, _)| *kind as u8);
        for (kind, name) in checks {
            let site = c.fs.site(&name)?;
            c.emit(Instr::CheckGlobalDeclaration { site, kind });
        }
    }
    for sym in symbols {
        let name = c.scoping.symbol_name(sym).to_string();
        let is_function = function_names.contains(&name.as_str());
        if !c.is_global_symbol(sym) {
            // The eval code's own binding.
            if c.is_lexical(sym)
                && let Some(function::Loc::Reg(r)) = c.locs.get(&sym).copied()
            {
                c.emit(Instr::LoadHole { dst: r });
            }
            continue;
        }
        if c.eval_ctx.is_some() {
            c.declare_eval_var(&name, c.scoping.symbol_span(sym), is_function)?;
            continue;
        }
        let site = c.fs.site(&name)?;
        if c.is_lexical(sym) {
            let is_const = c.is_const(sym);
            c.emit(Instr::DeclareGlobalLexical { site, is_const });
        } else if !is_function {
            c.emit(Instr::DeclareGlobalVar {
                site,
                deletable: false,
            });
        }
    }
    c.hoist_functions(body)?;
    begin_completion(c, last_directive)?;
    for s in body {
        c.statement(s)?;
    }
    c.end_top_level()
}
