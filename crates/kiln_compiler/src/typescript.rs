//! TypeScript sources: Kiln strips types, it does not transform TypeScript.
//!
//! A script, module or agent script whose source name ends in `.ts`, `.mts` or `.cts` is
//! parsed as TypeScript, and the compiler works on that AST directly: it skips the nodes
//! that exist only for the type checker and looks through the expressions that wrap a
//! value in a type (`x as T`, `x!`, `<T>x`, `x satisfies T`, `f<T>`). Nothing is printed
//! and parsed again, so every line and column is the original source's. Eval code and
//! `Function` bodies are JavaScript.
//!
//! Before compiling, [`check`] walks the program once:
//!
//! - it refuses the constructs that have runtime semantics of their own (enums,
//!   parameter properties, namespaces holding values, `import x = ...`, `export =`,
//!   decorators) with a SyntaxError at the construct;
//! - it notes every binding declared only for the type checker: inside ambient
//!   declarations (`declare ...`, `declare global`, `declare module`, a namespace of types
//!   only), overload signatures and other function signatures without a body, and type
//!   annotations (the parameters of a function type).
//!
//! Then [`erase_type_bindings`] removes from the scoping every symbol that no runtime
//! declaration makes (interfaces, type aliases, type parameters, `import type`, ambient
//! declarations), and, as TypeScript does by default, every imported binding the program
//! never uses as a value. Value references to a removed symbol (`declare const x` then
//! `x`) become free names: the host provides them as globals. After that the compiler
//! sees what the JavaScript the types were stripped from would give it.

use rustc_hash::FxHashSet;

use oxc_ast::ast::*;
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolFlags, SymbolId};
use oxc_span::{GetSpan, Span};
use oxc_syntax::reference::ReferenceId;
use oxc_syntax::scope::ScopeFlags;

use crate::error::CompileError;

/// Whether a source named `source_name` is TypeScript: its name ends in `.ts`, `.mts` or
/// `.cts` (the rule Deno and Bun follow). `.tsx` is refused: JSX needs a transform.
pub(crate) fn is_typescript(source_name: &str) -> Result<bool, CompileError> {
    let extension = source_name
        .rsplit_once('.')
        .map_or("", |(_, extension)| extension);
    if extension == "tsx" {
        return Err(CompileError::new(
            "TSX is not supported: Kiln strips types from .ts, .mts and .cts sources but does \
             not transform JSX",
            0,
        ));
    }
    Ok(matches!(extension, "ts" | "mts" | "cts"))
}

/// The error for a construct Kiln would have to transform: `refused` says what is not
/// supported, `instead` what to write instead; it points where the construct starts.
fn not_erasable(refused: &str, instead: &str, span: Span) -> CompileError {
    CompileError::new(
        format!("{refused}: Kiln strips types but does not transform TypeScript ({instead})"),
        span.start,
    )
}

/// What [`check`] learnt about a TypeScript program.
#[derive(Default)]
pub(crate) struct TypeOnly {
    /// the binding identifiers declared only for the type checker
    bindings: FxHashSet<Span>,
    /// the program calls something named `eval`: its code may name any import, so no
    /// import is dropped as unused
    calls_eval: bool,
}

/// Refuse the TypeScript that cannot be erased, and find the bindings that only the type
/// checker sees.
pub(crate) fn check(program: &Program<'_>) -> Result<TypeOnly, CompileError> {
    let mut checker = Checker {
        found: TypeOnly::default(),
        error: None,
    };
    checker.visit_program(program);
    match checker.error {
        Some(e) => Err(e),
        None => Ok(checker.found),
    }
}

struct Checker {
    found: TypeOnly,
    /// the first construct that cannot be erased
    error: Option<CompileError>,
}

impl Checker {
    fn refuse(&mut self, e: CompileError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Everything `visit` declares is for the type checker only.
    fn type_only(&mut self, visit: impl FnOnce(&mut BindingSpans<'_>)) {
        visit(&mut BindingSpans(&mut self.found.bindings));
    }
}

/// Collects the spans of the binding identifiers it walks over.
struct BindingSpans<'s>(&'s mut FxHashSet<Span>);

impl<'a> Visit<'a> for BindingSpans<'_> {
    fn visit_binding_identifier(&mut self, it: &BindingIdentifier<'a>) {
        self.0.insert(it.span);
    }
}

impl<'a> Visit<'a> for Checker {
    fn visit_binary_expression(&mut self, it: &BinaryExpression<'a>) {
        crate::chain::visit_binary(self, it);
    }
    fn visit_logical_expression(&mut self, it: &LogicalExpression<'a>) {
        crate::chain::visit_logical(self, it);
    }
    fn visit_ts_type(&mut self, it: &TSType<'a>) {
        self.type_only(|c| c.visit_ts_type(it));
    }

    fn visit_ts_type_alias_declaration(&mut self, it: &TSTypeAliasDeclaration<'a>) {
        self.type_only(|c| c.visit_ts_type_alias_declaration(it));
    }

    fn visit_ts_interface_declaration(&mut self, it: &TSInterfaceDeclaration<'a>) {
        self.type_only(|c| c.visit_ts_interface_declaration(it));
    }

    fn visit_ts_global_declaration(&mut self, it: &TSGlobalDeclaration<'a>) {
        self.type_only(|c| c.visit_ts_global_declaration(it));
    }

    fn visit_ts_external_module_declaration(&mut self, it: &TSExternalModuleDeclaration<'a>) {
        self.type_only(|c| c.visit_ts_external_module_declaration(it));
    }

    fn visit_ts_namespace_declaration(&mut self, it: &TSNamespaceDeclaration<'a>) {
        if namespace_has_values(it) {
            self.refuse(not_erasable(
                "TypeScript namespace with runtime code is not supported",
                "use a module or an object; a namespace holding only types is stripped",
                it.span,
            ));
        }
        self.type_only(|c| c.visit_ts_namespace_declaration(it));
    }

    fn visit_ts_enum_declaration(&mut self, it: &TSEnumDeclaration<'a>) {
        if !it.declare {
            let what = if it.r#const {
                "TypeScript const enum is not supported"
            } else {
                "TypeScript enum is not supported"
            };
            self.refuse(not_erasable(
                what,
                "use a union of literals or an object",
                it.span,
            ));
        }
        self.type_only(|c| c.visit_ts_enum_declaration(it));
    }

    fn visit_ts_import_equals_declaration(&mut self, it: &TSImportEqualsDeclaration<'a>) {
        if !it.import_kind.is_type() {
            self.refuse(match &it.module_reference {
                TSModuleReference::ExternalModuleReference(_) => not_erasable(
                    "TypeScript `import = require()` is not supported",
                    "use `import ... from`",
                    it.span,
                ),
                _ => not_erasable(
                    "TypeScript import alias (`import x = A.B`) is not supported",
                    "use `const x = A.B`",
                    it.span,
                ),
            });
        }
        self.type_only(|c| c.visit_ts_import_equals_declaration(it));
    }

    fn visit_ts_export_assignment(&mut self, it: &TSExportAssignment<'a>) {
        self.refuse(not_erasable(
            "TypeScript `export =` is not supported",
            "use `export default`",
            it.span,
        ));
    }

    fn visit_decorator(&mut self, it: &Decorator<'a>) {
        self.refuse(not_erasable(
            "decorators are not supported",
            "call the decorating function yourself",
            it.span,
        ));
    }

    fn visit_formal_parameter(&mut self, it: &FormalParameter<'a>) {
        if it.accessibility.is_some() || it.readonly || it.r#override {
            self.refuse(not_erasable(
                "TypeScript parameter property is not supported",
                "declare the field in the class and assign it in the constructor",
                it.span,
            ));
        }
        walk::walk_formal_parameter(self, it);
    }

    fn visit_variable_declaration(&mut self, it: &VariableDeclaration<'a>) {
        if it.declare {
            self.type_only(|c| c.visit_variable_declaration(it));
        } else {
            walk::walk_variable_declaration(self, it);
        }
    }

    fn visit_class(&mut self, it: &Class<'a>) {
        if it.declare {
            self.type_only(|c| c.visit_class(it));
        } else {
            walk::walk_class(self, it);
        }
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        // `declare function`, overload signatures, abstract methods
        if it.declare || it.body.is_none() {
            self.type_only(|c| c.visit_function(it, flags));
        } else {
            walk::walk_function(self, it, flags);
        }
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if matches!(&it.callee, Expression::Identifier(id) if id.name == "eval") {
            self.found.calls_eval = true;
        }
        walk::walk_call_expression(self, it);
    }
}

/// Whether namespace `n` holds anything but types and ambient declarations (TypeScript
/// calls such a namespace instantiated: it becomes an object at run time).
fn namespace_has_values(n: &TSNamespaceDeclaration<'_>) -> bool {
    if n.declare {
        return false;
    }
    match &n.body {
        TSNamespaceDeclarationBody::TSNamespaceDeclaration(inner) => namespace_has_values(inner),
        TSNamespaceDeclarationBody::TSModuleBlock(block) => {
            block.body.iter().any(|s| !is_type_only_statement(s))
        }
    }
}

/// Whether statement `s` exists only for the type checker: compiling it emits nothing.
/// Always false for JavaScript.
pub(crate) fn is_type_only_statement(s: &Statement<'_>) -> bool {
    match s {
        Statement::ImportDeclaration(d) => d.import_kind.is_type(),
        Statement::ExportNamedDeclaration(d) => d.export_kind.is_type(),
        Statement::ExportFromDeclaration(d) => d.export_kind.is_type(),
        Statement::ExportAllDeclaration(d) => d.export_kind.is_type(),
        Statement::ExportDeclaration(d) => is_type_only_declaration(&d.declaration),
        Statement::ExportDefaultDeclaration(d) => match &d.declaration {
            ExportDefaultDeclarationKind::TSInterfaceDeclaration(_) => true,
            ExportDefaultDeclarationKind::FunctionDeclaration(f) => f.body.is_none(),
            _ => false,
        },
        Statement::TSNamespaceExportDeclaration(_) => true,
        _ => s.as_declaration().is_some_and(is_type_only_declaration),
    }
}

/// Whether declaration `d` exists only for the type checker.
pub(crate) fn is_type_only_declaration(d: &Declaration<'_>) -> bool {
    match d {
        Declaration::VariableDeclaration(v) => v.declare,
        Declaration::FunctionDeclaration(f) => f.declare || f.body.is_none(),
        Declaration::ClassDeclaration(c) => c.declare,
        Declaration::TSTypeAliasDeclaration(_)
        | Declaration::TSInterfaceDeclaration(_)
        | Declaration::TSGlobalDeclaration(_)
        | Declaration::TSExternalModuleDeclaration(_) => true,
        Declaration::TSEnumDeclaration(e) => e.declare,
        Declaration::TSNamespaceDeclaration(n) => !namespace_has_values(n),
        Declaration::TSImportEqualsDeclaration(i) => i.import_kind.is_type(),
    }
}

/// The error for a statement [`check`] refuses, should one reach the compiler.
pub(crate) fn refusal(s: &Statement<'_>) -> CompileError {
    let mut checker = Checker {
        found: TypeOnly::default(),
        error: None,
    };
    checker.visit_statement(s);
    checker.error.unwrap_or_else(|| {
        CompileError::new(
            "internal error: TypeScript statement neither erased nor refused",
            s.span().start,
        )
    })
}

/// Whether class element `el` exists only for the type checker: index signatures,
/// `declare` and abstract fields, abstract methods and accessors, overload signatures.
pub(crate) fn is_type_only_element(el: &ClassElement<'_>) -> bool {
    match el {
        ClassElement::TSIndexSignature(_) => true,
        ClassElement::MethodDefinition(m) => m.value.body.is_none(),
        ClassElement::PropertyDefinition(p) => {
            p.declare || p.r#type == PropertyDefinitionType::TSAbstractPropertyDefinition
        }
        ClassElement::AccessorProperty(a) => {
            a.r#type == AccessorPropertyType::TSAbstractAccessorProperty
        }
        ClassElement::StaticBlock(_) => false,
    }
}

/// The elements of a class body that exist at run time.
pub(crate) fn runtime_elements<'x, 'a>(
    body: &'x ClassBody<'a>,
) -> impl Iterator<Item = &'x ClassElement<'a>> {
    body.body.iter().filter(|el| !is_type_only_element(el))
}

/// Whether `e` only wraps an expression in a type: `e as T`, `e satisfies T`, `<T>e`,
/// `e!`, `e<T>`.
pub(crate) fn is_type_wrapper(e: &Expression<'_>) -> bool {
    matches!(
        e,
        Expression::TSAsExpression(_)
            | Expression::TSSatisfiesExpression(_)
            | Expression::TSTypeAssertion(_)
            | Expression::TSNonNullExpression(_)
            | Expression::TSInstantiationExpression(_)
    )
}

/// What a simple assignment target refers to once type wrappers are stripped.
pub(crate) enum TargetReference<'x, 'a> {
    Identifier(&'x IdentifierReference<'a>),
    Member(&'x MemberExpression<'a>),
}

/// The reference a simple assignment target stands for: `x`, `o.p`, and the same wrapped
/// in types (`x! = 1`, `(o.p as T) += 1`). None for anything else.
pub(crate) fn target_reference<'x, 'a>(
    t: &'x SimpleAssignmentTarget<'a>,
) -> Option<TargetReference<'x, 'a>> {
    let inner = match t {
        SimpleAssignmentTarget::AssignmentTargetIdentifier(id) => {
            return Some(TargetReference::Identifier(id));
        }
        SimpleAssignmentTarget::TSAsExpression(e) => &e.expression,
        SimpleAssignmentTarget::TSSatisfiesExpression(e) => &e.expression,
        SimpleAssignmentTarget::TSNonNullExpression(e) => &e.expression,
        SimpleAssignmentTarget::TSTypeAssertion(e) => &e.expression,
        _ => return t.as_member_expression().map(TargetReference::Member),
    };
    match inner.get_inner_expression() {
        Expression::Identifier(id) => Some(TargetReference::Identifier(id)),
        e => e.as_member_expression().map(TargetReference::Member),
    }
}

/// The flags of a declaration that makes a binding at run time.
const RUNTIME_DECLARATION: SymbolFlags = SymbolFlags::Variable
    .union(SymbolFlags::Class)
    .union(SymbolFlags::Function)
    .union(SymbolFlags::Import);

/// Remove from `scoping` the symbols only the type checker sees (see the module
/// documentation) and return them. Value references to them become unresolved.
///
/// oxc_semantic lets TypeScript declarations merge (`interface C` with `class C`), also
/// some that make two bindings of one name at run time, which JavaScript refuses: those
/// are an error here.
pub(crate) fn erase_type_bindings(
    scoping: &mut Scoping,
    type_only: &TypeOnly,
) -> Result<FxHashSet<SymbolId>, CompileError> {
    // A declaration makes a binding when it declares a value outside the type world.
    let makes_binding = |flags: SymbolFlags, span: Span| {
        flags.intersects(RUNTIME_DECLARATION)
            && !flags.contains(SymbolFlags::Ambient)
            && !type_only.bindings.contains(&span)
    };
    let mut erased = FxHashSet::default();
    for sym in scoping.symbol_ids() {
        let flags = scoping.symbol_flags(sym);
        let redeclarations = scoping.symbol_redeclarations(sym);
        let bindings: Vec<(SymbolFlags, Span)> = if redeclarations.is_empty() {
            vec![(flags, scoping.symbol_span(sym))]
        } else {
            redeclarations.iter().map(|r| (r.flags, r.span)).collect()
        };
        let bindings: Vec<(SymbolFlags, Span)> = bindings
            .into_iter()
            .filter(|&(flags, span)| makes_binding(flags, span))
            .collect();
        if let [first, second, ..] = bindings[..]
            && (first.0 | second.0).intersects(SymbolFlags::Import | SymbolFlags::Class)
        {
            return Err(CompileError::new(
                format!(
                    "Identifier `{}` has already been declared",
                    scoping.symbol_name(sym)
                ),
                second.1.start,
            ));
        }
        // TypeScript's default import elision: an import never used as a value is
        // dropped, so `import { Options } from './x'` may name an interface.
        let unused_import = flags.contains(SymbolFlags::Import)
            && !type_only.calls_eval
            && !scoping
                .get_resolved_references(sym)
                .any(|r| r.flags().is_value());
        if bindings.is_empty() || unused_import {
            erased.insert(sym);
        }
    }
    for &sym in &erased {
        let name = scoping.symbol_name(sym).to_string();
        let scope = scoping.symbol_scope_id(sym);
        if scoping.get_binding(scope, name.as_str().into()) == Some(sym) {
            scoping.remove_binding(scope, name.as_str().into());
        }
        let values: Vec<ReferenceId> = scoping
            .get_resolved_reference_ids(sym)
            .iter()
            .copied()
            .filter(|&id| scoping.get_reference(id).flags().is_value())
            .collect();
        for id in values {
            crate::scope::unresolve(scoping, sym, id, &name);
        }
    }
    Ok(erased)
}
