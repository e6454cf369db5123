//! Compiles JavaScript source into Kiln bytecode ([`kiln_bytecode::Script`]).
//!
//! Parsing is done by `oxc_parser`; scopes and bindings are resolved with
//! `oxc_semantic` so that variables no inner function captures live in
//! registers and only captured ones in heap environments.
//!
//! Layout: `scope` (which bindings are captured), `compiler` (shared state,
//! bindings, function prologues), `statement`, `expression`, `pattern`
//! (destructuring), `class`, `function` (per-function code buffer),
//! `nesting` (depth pre-scan), `error`.

mod class;
mod compiler;
mod error;
mod expression;
mod function;
mod nesting;
mod pattern;
mod scope;
mod statement;

#[cfg(test)]
mod tests;

use kiln_bytecode::{FunctionKind, Instr, Script, ScriptKind};
use oxc_allocator::Allocator;
use oxc_ast::ast::Statement;
use oxc_parser::{ParseOptions, Parser};
use oxc_semantic::SemanticBuilder;
use oxc_span::SourceType;
use oxc_syntax::scope::ScopeId;

pub use error::CompileError;

use compiler::Compiler;
use function::Loc;
use scope::ContextKey;

/// Stack size of the compiling thread: the parser and the semantic pass
/// recurse once per nesting level of the source.
const COMPILER_STACK: usize = 256 * 1024 * 1024;

/// Compile `source` as a script (sloppy unless it opens with `"use strict"` or
/// `strict` is set), a module, or eval code.
pub fn compile(
    source: &str,
    source_name: &str,
    kind: ScriptKind,
    strict: bool,
) -> Result<Script, CompileError> {
    if let Some(offset) = nesting::too_deep(source, nesting::MAX_NESTING) {
        return Err(CompileError::new("nesting too deep", offset as u32).locate(source));
    }
    let owned_source = source.to_string();
    let owned_name = source_name.to_string();
    let worker = std::thread::Builder::new()
        .name("kiln-compiler".into())
        .stack_size(COMPILER_STACK)
        .spawn(move || compile_on_this_thread(&owned_source, &owned_name, kind, strict));
    match worker {
        Ok(handle) => match handle.join() {
            Ok(result) => result,
            Err(_) => Err(CompileError::new("internal compiler error", 0)),
        },
        // No thread available: compile here (the nesting pre-scan still protects the stack).
        Err(_) => compile_on_this_thread(source, source_name, kind, strict),
    }
}

fn compile_on_this_thread(
    source: &str,
    source_name: &str,
    kind: ScriptKind,
    strict: bool,
) -> Result<Script, CompileError> {
    let allocator = Allocator::default();
    let source_type = match kind {
        ScriptKind::Module => SourceType::mjs(),
        _ => SourceType::script(),
    };
    let options = ParseOptions {
        preserve_parens: false,
        ..ParseOptions::default()
    };
    let parsed = Parser::new(&allocator, source, source_type)
        .with_options(options)
        .parse();
    if let Some(d) = parsed.diagnostics.errors().next() {
        let offset = d.labels.first().map_or(0, |l| l.offset());
        return Err(CompileError::new(d.message.to_string(), offset).locate(source));
    }
    if parsed.panicked {
        return Err(CompileError::new("syntax error", 0).locate(source));
    }
    let program = parsed.program;
    let semantic = SemanticBuilder::new()
        .with_check_syntax_error(true)
        .build(&program);
    if let Some(d) = semantic.diagnostics.errors().next() {
        let offset = d.labels.first().map_or(0, |l| l.offset());
        return Err(CompileError::new(d.message.to_string(), offset).locate(source));
    }
    if kind == ScriptKind::Module {
        return Err(CompileError::unsupported("modules", 0).locate(source));
    }
    let scoping = semantic.semantic.scoping();
    let root = program.scope_id.get().unwrap_or(ScopeId::new(0));
    let analysis = scope::analyse(&program, scoping);
    let strict = strict || program.has_use_strict_directive();
    let mut compiler = Compiler::new(source, scoping, analysis, kind, root, strict);
    let directive = program.directives.last().map(|d| &d.expression);
    compile_top_level(&mut compiler, &program.body, directive, root, strict)
        .map_err(|e| e.locate(source))?;
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
    })
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
    c.begin_function(
        FunctionKind::Script,
        strict,
        Some(root),
        Some(ContextKey::Scope(root)),
        None,
    )?;
    for sym in c.scope_symbols(root) {
        let name = c.scoping.symbol_name(sym).to_string();
        let site = c.fs.site(&name)?;
        if c.is_lexical(sym) {
            let is_const = c.is_const(sym);
            c.emit(Instr::DeclareGlobalLexical { site, is_const });
        } else {
            c.emit(Instr::DeclareGlobalVar { site });
        }
    }
    c.hoist_functions(body)?;
    let completion = c.fs.alloc()?;
    c.fs.temp_base = c.fs.next_reg;
    c.emit(Instr::LoadUndefined { dst: completion });
    // A directive is an expression statement too: `eval('"text"')` completes with "text".
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
    for s in body {
        c.statement(s)?;
    }
    let span = oxc_span::Span::new(0, c.source.len() as u32);
    let _ = Loc::Global;
    c.end_function(Vec::new(), 0, 0, span)?;
    // The top level was finished last; it belongs at index 0.
    if let Some(top) = c.functions.pop() {
        c.functions[0] = top;
    }
    Ok(())
}
