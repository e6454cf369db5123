//! Modules: the import/export tables ([`ModuleInfo`]) and the two functions a module
//! compiles to (see `docs/modules.md`).
//!
//! Every top-level binding of a module lives in the *module environment*, which the VM
//! creates at link time and hands to both functions as their outer environment:
//!
//! - the **initialiser** (`ModuleInfo::init_function`) runs at link time: `var`s become
//!   `undefined` and hoisted function declarations are instantiated, so modules in a
//!   cycle can call each other's functions before either body has run;
//! - the **body** (`functions[0]`) runs the statements. With a top-level `await` it runs
//!   like an async function body.
//!
//! Named imports are not bindings of their own: they read the exporter's binding through
//! [`Instr::GetImport`] (`Loc::Import`), so they are live and share its temporal dead zone.
//! Namespace imports (`import * as ns`) are slots the VM fills at link time.

use rustc_hash::FxHashMap;

use kiln_bytecode::{FunctionKind, ImportEntry, IndirectExport, Instr, ModuleInfo, ModuleRequest};
use oxc_ast::ast::*;
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::SymbolId;
use oxc_span::{GetSpan, Span};
use oxc_syntax::scope::{ScopeFlags, ScopeId};

use crate::compiler::Compiler;
use crate::error::CompileError;
use crate::function::{Loc, R, utf16};
use crate::typescript;

fn export_name(n: &ModuleExportName<'_>) -> String {
    n.name().to_string()
}

fn request_of(
    requests: &mut Vec<ModuleRequest>,
    source: &StringLiteral<'_>,
    with: Option<&WithClause<'_>>,
) -> R<u16> {
    let mut attributes = Vec::new();
    if let Some(w) = with {
        for entry in &w.with_entries {
            let key = match &entry.key {
                ImportAttributeKey::Identifier(id) => id.name.to_string(),
                ImportAttributeKey::StringLiteral(s) => s.value.to_string(),
            };
            if attributes.iter().any(|(k, _): &(String, String)| *k == key) {
                return Err(CompileError::new(
                    format!("duplicate import attribute '{key}'"),
                    entry.span.start,
                ));
            }
            attributes.push((key, entry.value.value.to_string()));
        }
    }
    attributes.sort();
    let request = ModuleRequest {
        specifier: source.value.to_string(),
        attributes,
    };
    if let Some(i) = requests.iter().position(|r| *r == request) {
        return Ok(i as u16);
    }
    if requests.len() >= u16::MAX as usize {
        return Err(CompileError::new(
            "too many module requests",
            source.span.start,
        ));
    }
    requests.push(request);
    Ok((requests.len() - 1) as u16)
}

/// Whether a TypeScript import loads nothing: `import type`, or every binding it makes is
/// erased (types, and imports never used as values, which TypeScript drops by default).
/// `import './x'` and `import {} from './x'` always load.
fn import_erased(c: &Compiler<'_>, d: &ImportDeclaration<'_>) -> bool {
    d.import_kind.is_type()
        || d.specifiers.as_ref().is_some_and(|specifiers| {
            !specifiers.is_empty()
                && specifiers.iter().all(|s| {
                    s.local()
                        .symbol_id
                        .get()
                        .is_none_or(|sym| c.erased.contains(&sym))
                })
        })
}

/// Whether a TypeScript `export ... from` re-exports only types (`export type { T } from`,
/// `export { type T } from`): it is dropped, request included.
fn export_from_erased(d: &ExportFromDeclaration<'_>) -> bool {
    d.export_kind.is_type()
        || (!d.specifiers.is_empty() && d.specifiers.iter().all(|s| s.export_kind.is_type()))
}

/// Whether `export default e` exports a TypeScript type (`export default SomeInterface`).
fn default_names_type(c: &Compiler<'_>, kind: &ExportDefaultDeclarationKind<'_>) -> bool {
    matches!(kind, ExportDefaultDeclarationKind::Identifier(id) if c.names_type(id))
}

/// Whether the module body (outside nested functions) contains `await`.
struct AwaitFinder {
    found: bool,
}

impl<'a> Visit<'a> for AwaitFinder {
    fn visit_binary_expression(&mut self, it: &BinaryExpression<'a>) {
        crate::chain::visit_binary(self, it);
    }
    fn visit_logical_expression(&mut self, it: &LogicalExpression<'a>) {
        crate::chain::visit_logical(self, it);
    }
    fn visit_function(&mut self, _it: &Function<'a>, _flags: ScopeFlags) {}
    fn visit_arrow_function_expression(&mut self, _it: &ArrowFunctionExpression<'a>) {}
    fn visit_property_definition(&mut self, it: &PropertyDefinition<'a>) {
        // Field initialisers are functions; computed keys are not.
        if it.computed {
            self.visit_property_key(&it.key);
        }
    }
    fn visit_static_block(&mut self, _it: &StaticBlock<'a>) {}
    fn visit_await_expression(&mut self, _it: &AwaitExpression<'a>) {
        self.found = true;
    }
    fn visit_for_of_statement(&mut self, it: &ForOfStatement<'a>) {
        if it.r#await {
            self.found = true;
        }
        walk::walk_for_of_statement(self, it);
    }
    fn visit_variable_declaration(&mut self, it: &VariableDeclaration<'a>) {
        if it.kind == VariableDeclarationKind::AwaitUsing {
            self.found = true;
        }
        walk::walk_variable_declaration(self, it);
    }
}

/// Compile a module's top level: the tables, the initialiser and the body.
pub(crate) fn compile_module<'a>(
    c: &mut Compiler<'a>,
    program: &Program<'a>,
    root: ScopeId,
) -> R<ModuleInfo> {
    let body = &program.body;
    let mut info = ModuleInfo::default();
    let mut import_syms: FxHashMap<SymbolId, u16> = FxHashMap::default();
    let mut namespace_syms: Vec<(SymbolId, u16)> = Vec::new();

    // Requests in source order: that is the evaluation order of dependencies.
    for s in body {
        if typescript::is_type_only_statement(s) {
            continue;
        }
        match s {
            Statement::ImportDeclaration(d) if !import_erased(c, d) => {
                request_of(&mut info.requests, &d.source, d.with_clause.as_deref())?;
            }
            Statement::ExportFromDeclaration(d) if !export_from_erased(d) => {
                request_of(&mut info.requests, &d.source, d.with_clause.as_deref())?;
            }
            Statement::ExportAllDeclaration(d) => {
                request_of(&mut info.requests, &d.source, d.with_clause.as_deref())?;
            }
            _ => {}
        }
    }
    // Imports next: they decide how the export specifiers below resolve.
    for s in body {
        if let Statement::ImportDeclaration(d) = s {
            if import_erased(c, d) {
                continue;
            }
            if d.phase.is_some() {
                return c.unsupported("import phases", d.span);
            }
            let request = request_of(&mut info.requests, &d.source, d.with_clause.as_deref())?;
            for spec in d.specifiers.iter().flatten() {
                let (local, import_name) = match spec {
                    ImportDeclarationSpecifier::ImportSpecifier(s) => {
                        (&s.local, Some(export_name(&s.imported)))
                    }
                    ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => {
                        (&s.local, Some("default".to_string()))
                    }
                    ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => (&s.local, None),
                };
                let Some(sym) = local.symbol_id.get().filter(|s| !c.erased.contains(s)) else {
                    continue;
                };
                match import_name {
                    Some(import_name) => {
                        import_syms.insert(sym, info.imports.len() as u16);
                        info.imports.push(ImportEntry {
                            request,
                            import_name,
                            local_name: local.name.to_string(),
                        });
                    }
                    None => namespace_syms.push((sym, request)),
                }
            }
        }
    }

    // Slots of the module environment: every top-level binding but the named imports.
    let mut slots: FxHashMap<SymbolId, u16> = FxHashMap::default();
    for sym in c.scope_symbols(root) {
        if import_syms.contains_key(&sym) {
            continue;
        }
        slots.insert(sym, slots.len() as u16);
    }
    let mut next_slot = slots.len() as u16;
    let mut default_slot: Option<u16> = None;
    let mut slot_of_default = |next_slot: &mut u16| -> u16 {
        *default_slot.get_or_insert_with(|| {
            *next_slot += 1;
            *next_slot - 1
        })
    };
    for &(sym, request) in &namespace_syms {
        if let Some(&slot) = slots.get(&sym) {
            info.namespace_imports.push((request, slot));
        }
    }

    // Exports.
    let symbol_slot = |sym: Option<SymbolId>, span: Span| -> R<u16> {
        sym.and_then(|s| slots.get(&s).copied())
            .ok_or_else(|| CompileError::new("internal error: unplaced export", span.start))
    };
    for s in body {
        if typescript::is_type_only_statement(s) {
            continue;
        }
        match s {
            Statement::ExportDeclaration(d) => match &d.declaration {
                Declaration::VariableDeclaration(v) => {
                    for decl in &v.declarations {
                        for id in decl.id.get_binding_identifiers() {
                            let slot = symbol_slot(id.symbol_id.get(), id.span)?;
                            info.local_exports.push((id.name.to_string(), slot));
                        }
                    }
                }
                Declaration::FunctionDeclaration(f) => {
                    if let Some(id) = &f.id {
                        let slot = symbol_slot(id.symbol_id.get(), id.span)?;
                        info.local_exports.push((id.name.to_string(), slot));
                    }
                }
                Declaration::ClassDeclaration(cl) => {
                    if let Some(id) = &cl.id {
                        let slot = symbol_slot(id.symbol_id.get(), id.span)?;
                        info.local_exports.push((id.name.to_string(), slot));
                    }
                }
                _ => return Err(typescript::refusal(s)),
            },
            Statement::ExportDefaultDeclaration(d) if default_names_type(c, &d.declaration) => {}
            Statement::ExportDefaultDeclaration(d) => {
                let named = match &d.declaration {
                    ExportDefaultDeclarationKind::FunctionDeclaration(f) => f.id.as_ref(),
                    ExportDefaultDeclarationKind::ClassDeclaration(cl) => cl.id.as_ref(),
                    _ => None,
                };
                let slot = match named {
                    Some(id) => symbol_slot(id.symbol_id.get(), id.span)?,
                    None => slot_of_default(&mut next_slot),
                };
                info.local_exports.push(("default".to_string(), slot));
            }
            Statement::ExportNamedDeclaration(d) => {
                for spec in &d.specifiers {
                    let exported = export_name(&spec.exported);
                    let local = match &spec.local {
                        ModuleExportName::IdentifierReference(r) => Some(r),
                        _ => None,
                    };
                    // `export { type T }`, `export { T }` of a type
                    if spec.export_kind.is_type() || local.is_some_and(|r| c.names_type(r)) {
                        continue;
                    }
                    let sym = local.and_then(|r| c.symbol_of_ref(r));
                    if let Some(&index) = sym.and_then(|s| import_syms.get(&s)) {
                        let entry = &info.imports[index as usize];
                        info.indirect_exports.push(IndirectExport {
                            export_name: exported,
                            request: entry.request,
                            import_name: Some(entry.import_name.clone()),
                        });
                        continue;
                    }
                    // `import * as ns; export {ns}` re-exports the namespace like
                    // `export * as ns from`.
                    if let Some(&(_, request)) =
                        namespace_syms.iter().find(|(n, _)| Some(*n) == sym)
                    {
                        info.indirect_exports.push(IndirectExport {
                            export_name: exported,
                            request,
                            import_name: None,
                        });
                        continue;
                    }
                    let Some(slot) = sym.and_then(|s| slots.get(&s).copied()) else {
                        return Err(CompileError::new(
                            format!("Export '{}' is not defined in module", spec.local.name()),
                            spec.span.start,
                        ));
                    };
                    info.local_exports.push((exported, slot));
                }
            }
            Statement::ExportFromDeclaration(d) if export_from_erased(d) => {}
            Statement::ExportFromDeclaration(d) => {
                let request = request_of(&mut info.requests, &d.source, d.with_clause.as_deref())?;
                for spec in d.specifiers.iter().filter(|s| !s.export_kind.is_type()) {
                    info.indirect_exports.push(IndirectExport {
                        export_name: export_name(&spec.exported),
                        request,
                        import_name: Some(export_name(&spec.local)),
                    });
                }
            }
            Statement::ExportAllDeclaration(d) => {
                let request = request_of(&mut info.requests, &d.source, d.with_clause.as_deref())?;
                match &d.exported {
                    Some(name) => info.indirect_exports.push(IndirectExport {
                        export_name: export_name(name),
                        request,
                        import_name: None,
                    }),
                    None => info.star_exports.push(request),
                }
            }
            _ => {}
        }
    }
    info.env_size = next_slot;
    c.module_default_slot = default_slot;

    let mut finder = AwaitFinder { found: false };
    for s in body {
        finder.visit_statement(s);
    }
    info.has_top_level_await = finder.found;

    // The module environment: the outer environment of both functions.
    let env = c.fresh_env_id();
    c.envs.push(env);
    c.env_names.insert(env, Vec::new());
    c.module_env = Some(env);
    for (&sym, &slot) in &slots {
        c.name_slot(env, sym, slot);
        c.locs.insert(sym, Loc::Env { env, slot });
        c.module_bound.insert(sym);
    }
    for (&sym, &index) in &import_syms {
        c.locs.insert(sym, Loc::Import(index));
        c.module_bound.insert(sym);
    }

    // The initialiser: vars, then hoisted functions.
    c.begin_function(FunctionKind::Script, true, None, None, None)?;
    let tmp = c.fs.alloc()?;
    c.emit(Instr::LoadUndefined { dst: tmp });
    let mut var_slots: Vec<u16> = slots
        .iter()
        .filter(|&(&sym, _)| !c.is_lexical(sym) && !namespace_syms.iter().any(|n| n.0 == sym))
        .map(|(_, &slot)| slot)
        .collect();
    var_slots.sort_unstable();
    for slot in var_slots {
        c.emit(Instr::SetEnv {
            src: tmp,
            depth: 0,
            slot,
        });
    }
    c.fs.release(tmp as u32);
    for s in body {
        if typescript::is_type_only_statement(s) {
            continue;
        }
        let f = match s {
            Statement::FunctionDeclaration(f) => f,
            Statement::ExportDeclaration(d) => match &d.declaration {
                Declaration::FunctionDeclaration(f) => f,
                _ => continue,
            },
            Statement::ExportDefaultDeclaration(d) => match &d.declaration {
                ExportDefaultDeclarationKind::FunctionDeclaration(f) => f,
                _ => continue,
            },
            _ => continue,
        };
        let name =
            f.id.as_ref()
                .map_or_else(|| utf16("default"), |id| utf16(&id.name));
        let index = c.compile_function(f, name, None)?;
        let r = c.fs.alloc()?;
        c.emit_closure(r, index)?;
        match f.id.as_ref().and_then(|id| id.symbol_id.get()) {
            Some(sym) => c.store_symbol(sym, r, true, f.span)?,
            None => c.store_module_default(r, f.span)?,
        }
        c.fs.release(r as u32);
    }
    let whole = Span::new(0, c.source.len() as u32);
    info.init_function = c.end_function(Vec::new(), 0, 0, whole)?;

    // The body.
    c.begin_top_level(true, root)?;
    c.statement_list(body)?;
    c.end_top_level()?;
    Ok(info)
}

impl<'a> Compiler<'a> {
    /// Store r[src] in the `*default*` binding of an anonymous default export.
    pub(crate) fn store_module_default(&mut self, src: kiln_bytecode::Reg, span: Span) -> R<()> {
        match (self.module_env, self.module_default_slot) {
            (Some(env), Some(slot)) => self.set_env(src, env, slot, span),
            _ => Err(CompileError::new(
                "internal error: no default export binding",
                span.start,
            )),
        }
    }

    /// Module-only statements in a module body.
    pub(crate) fn module_statement(&mut self, s: &Statement<'a>) -> R<()> {
        match s {
            Statement::ImportDeclaration(_)
            | Statement::ExportAllDeclaration(_)
            | Statement::ExportNamedDeclaration(_)
            | Statement::ExportFromDeclaration(_) => Ok(()),
            Statement::ExportDeclaration(d) => match &d.declaration {
                Declaration::VariableDeclaration(v) => self.variable_declaration(v),
                Declaration::FunctionDeclaration(_) => Ok(()),
                Declaration::ClassDeclaration(cl) => {
                    let r = self.fs.alloc()?;
                    self.class(cl, r, None)
                }
                _ => Err(typescript::refusal(s)),
            },
            Statement::ExportDefaultDeclaration(d) if default_names_type(self, &d.declaration) => {
                Ok(())
            }
            Statement::ExportDefaultDeclaration(d) => match &d.declaration {
                ExportDefaultDeclarationKind::FunctionDeclaration(_) => Ok(()),
                ExportDefaultDeclarationKind::ClassDeclaration(cl) => {
                    let r = self.fs.alloc()?;
                    if cl.id.is_some() {
                        self.class(cl, r, None)
                    } else {
                        self.class(cl, r, Some(utf16("default")))?;
                        self.store_module_default(r, cl.span)
                    }
                }
                ExportDefaultDeclarationKind::TSInterfaceDeclaration(_) => Ok(()),
                other => {
                    let Some(e) = other.as_expression() else {
                        return Err(typescript::refusal(s));
                    };
                    let r = self.fs.alloc()?;
                    self.expr_named(e, r, Some("default"))?;
                    self.store_module_default(r, e.span())
                }
            },
            _ => Err(typescript::refusal(s)),
        }
    }
}
