//! Binding analysis: decides which variables must live in heap environments.
//!
//! oxc_semantic resolves every identifier to a symbol. A symbol needs an
//! environment slot only when some reference to it runs in a different
//! function activation than its declaration: inside a nested function or
//! arrow, or inside a class field initialiser (those run in a synthesized
//! initializer closure). This module also finds which functions must store
//! `this`, `new.target` and `arguments` in their environment because an arrow
//! function inside them reads them.

use rustc_hash::{FxHashMap, FxHashSet};

use oxc_ast::ast::*;
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Scoping, SymbolFlags, SymbolId};
use oxc_span::Span;
use oxc_syntax::reference::ReferenceId;
use oxc_syntax::scope::{ScopeFlags, ScopeId};

/// What an ordinary (non-arrow) function needs because of its arrows.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct LexicalNeeds {
    /// an arrow inside reads `this` (or `super`)
    pub this: bool,
    /// an arrow inside reads `new.target`
    pub new_target: bool,
    /// an arrow inside reads `arguments`
    pub arguments_in_arrow: bool,
    /// the function body itself or one of its arrows reads `arguments`
    pub arguments: bool,
    /// the function's `var arguments`, which starts as the arguments object
    /// ([FunctionDeclarationInstantiation](https://tc39.es/ecma262/#sec-functiondeclarationinstantiation)
    /// steps 22 and 27: the var names the binding the arguments object is in)
    pub arguments_var: Option<SymbolId>,
    /// an arrow inside calls `super()`, or a direct eval may: keep the constructor function
    /// in the environment too
    pub super_in_arrow: bool,
    /// this context itself (not a nested function) contains a direct `eval` call
    pub direct_eval: bool,
    /// this context or an arrow inside it contains a direct `eval` call
    pub eval_inside: bool,
}

/// The key of a function-like context: a real function's scope, or a class
/// scope for its synthesized field initialisers (`static` or not).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum ContextKey {
    Scope(ScopeId),
    Fields { class: ScopeId, is_static: bool },
}

pub(crate) struct Analysis {
    /// symbols that must live in an environment slot
    pub captured: FxHashSet<SymbolId>,
    pub needs: FxHashMap<ContextKey, LexicalNeeds>,
}

impl Analysis {
    pub(crate) fn needs(&self, key: ContextKey) -> LexicalNeeds {
        self.needs.get(&key).copied().unwrap_or_default()
    }
}

/// The nearest enclosing scope that starts a new function activation.
pub(crate) fn function_scope_of(scoping: &Scoping, mut scope: ScopeId) -> ScopeId {
    loop {
        let flags = scoping.scope_flags(scope);
        if flags.intersects(ScopeFlags::Top | ScopeFlags::Function | ScopeFlags::ClassStaticBlock) {
            return scope;
        }
        match scoping.scope_parent_id(scope) {
            Some(parent) => scope = parent,
            None => return scope,
        }
    }
}

pub(crate) fn analyse(program: &Program<'_>, scoping: &Scoping) -> Analysis {
    let mut visitor = Collector {
        stack: Vec::new(),
        field_refs: FxHashSet::default(),
        needs: FxHashMap::default(),
        scoping,
        current_class: Vec::new(),
        field_bindings: FxHashSet::default(),
        eval_scopes: FxHashSet::default(),
    };
    visitor.stack.push(Ctx {
        key: ContextKey::Scope(program.scope_id.get().unwrap_or(ScopeId::new(0))),
        arrow: false,
    });
    visitor.visit_program(program);
    let mut captured = std::mem::take(&mut visitor.field_bindings);
    for &scope in &visitor.eval_scopes {
        captured.extend(scoping.get_bindings(scope).values().copied());
    }
    for symbol in scoping.symbol_ids() {
        let home = function_scope_of(scoping, scoping.symbol_scope_id(symbol));
        for &reference_id in scoping.get_resolved_reference_ids(symbol) {
            let reference = scoping.get_reference(reference_id);
            // a name in a TypeScript type never runs
            if reference.flags().is_type_only() {
                continue;
            }
            if visitor.field_refs.contains(&reference_id)
                || function_scope_of(scoping, reference.scope_id()) != home
            {
                captured.insert(symbol);
                break;
            }
        }
    }
    Analysis {
        captured,
        needs: visitor.needs,
    }
}

struct Ctx {
    key: ContextKey,
    arrow: bool,
}

struct Collector<'s> {
    stack: Vec<Ctx>,
    field_refs: FxHashSet<ReferenceId>,
    needs: FxHashMap<ContextKey, LexicalNeeds>,
    scoping: &'s Scoping,
    current_class: Vec<Option<ScopeId>>,
    field_bindings: FxHashSet<SymbolId>,
    /// scopes on the chain of some direct eval call: all their bindings live in environments
    eval_scopes: FxHashSet<ScopeId>,
}

impl Collector<'_> {
    /// The nearest non-arrow context and whether an arrow lies in between.
    fn owner(&mut self) -> (&mut LexicalNeeds, bool) {
        let mut through_arrow = false;
        let mut key = self.stack[0].key;
        for ctx in self.stack.iter().rev() {
            if ctx.arrow {
                through_arrow = true;
            } else {
                key = ctx.key;
                break;
            }
        }
        (self.needs.entry(key).or_default(), through_arrow)
    }

    fn in_fields(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Ctx {
                key: ContextKey::Fields { .. },
                ..
            })
        )
    }
}

impl<'a> Visit<'a> for Collector<'_> {
    fn visit_binary_expression(&mut self, it: &BinaryExpression<'a>) {
        crate::chain::visit_binary(self, it);
    }
    fn visit_logical_expression(&mut self, it: &LogicalExpression<'a>) {
        crate::chain::visit_logical(self, it);
    }
    /// TypeScript types never run (`typeof this.x` names no `this`).
    fn visit_ts_type(&mut self, _it: &TSType<'a>) {}

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        if let Some(scope) = it.scope_id.get() {
            if let Some(sym) = self.scoping.get_binding(scope, "arguments".into())
                && self.scoping.symbol_flags(sym) == SymbolFlags::FunctionScopedVariable
                && !crate::compiler::parameter_bindings(&it.params)
                    .iter()
                    .any(|id| id.symbol_id.get() == Some(sym))
            {
                let needs = self.needs.entry(ContextKey::Scope(scope)).or_default();
                needs.arguments = true;
                needs.arguments_var = Some(sym);
            }
            self.stack.push(Ctx {
                key: ContextKey::Scope(scope),
                arrow: false,
            });
            walk::walk_function(self, it, flags);
            self.stack.pop();
        }
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        if let Some(scope) = it.scope_id.get() {
            self.stack.push(Ctx {
                key: ContextKey::Scope(scope),
                arrow: true,
            });
            walk::walk_arrow_function_expression(self, it);
            self.stack.pop();
        }
    }

    fn visit_static_block(&mut self, it: &StaticBlock<'a>) {
        if let Some(scope) = it.scope_id.get() {
            self.stack.push(Ctx {
                key: ContextKey::Scope(scope),
                arrow: false,
            });
            walk::walk_static_block(self, it);
            self.stack.pop();
        }
    }

    fn visit_class(&mut self, it: &Class<'a>) {
        // Remember the class scope for the field initialisers below.
        self.current_class.push(it.scope_id.get());
        walk::walk_class(self, it);
        self.current_class.pop();
    }

    fn visit_property_definition(&mut self, it: &PropertyDefinition<'a>) {
        self.visit_property_key(&it.key);
        if let (Some(value), Some(Some(class))) = (&it.value, self.current_class.last().copied()) {
            self.stack.push(Ctx {
                key: ContextKey::Fields {
                    class,
                    is_static: it.r#static,
                },
                arrow: false,
            });
            self.visit_expression(value);
            self.stack.pop();
        }
    }

    fn visit_accessor_property(&mut self, it: &AccessorProperty<'a>) {
        self.visit_property_key(&it.key);
        if let (Some(value), Some(Some(class))) = (&it.value, self.current_class.last().copied()) {
            self.stack.push(Ctx {
                key: ContextKey::Fields {
                    class,
                    is_static: it.r#static,
                },
                arrow: false,
            });
            self.visit_expression(value);
            self.stack.pop();
        }
    }

    fn visit_this_expression(&mut self, _it: &ThisExpression) {
        let (needs, through_arrow) = self.owner();
        if through_arrow {
            needs.this = true;
        }
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if matches!(it.callee, Expression::Super(_)) {
            let (needs, through_arrow) = self.owner();
            if through_arrow {
                needs.this = true;
                needs.new_target = true;
                needs.super_in_arrow = true;
            }
        }
        if let Expression::Identifier(id) = &it.callee
            && !it.optional
            && id.name == "eval"
            && let Some(reference) = id.reference_id.get()
            && self.scoping.get_reference(reference).symbol_id().is_none()
        {
            let top_level = self.stack.len() == 1;
            let key = self.stack.last().map(|c| c.key);
            if let Some(key) = key {
                self.needs.entry(key).or_default().direct_eval = true;
            }
            if !top_level {
                let (needs, _) = self.owner();
                needs.this = true;
                needs.new_target = true;
                needs.arguments = true;
                needs.arguments_in_arrow = true;
                needs.super_in_arrow = true;
                needs.eval_inside = true;
            }
            // Everything visible from the call may be named by the evaluated code.
            let mut scope = Some(self.scoping.get_reference(reference).scope_id());
            while let Some(s) = scope {
                self.eval_scopes.insert(s);
                scope = self.scoping.scope_parent_id(s);
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_super(&mut self, _it: &Super) {
        let (needs, through_arrow) = self.owner();
        if through_arrow {
            needs.this = true;
        }
    }

    fn visit_new_target(&mut self, _it: &NewTarget) {
        let (needs, through_arrow) = self.owner();
        if through_arrow {
            needs.new_target = true;
        }
    }

    fn visit_binding_identifier(&mut self, it: &BindingIdentifier<'a>) {
        // A binding made directly in a field initialiser (a named class
        // expression) lives in the initializer closure, not the enclosing
        // function: keep it in an environment.
        if self.in_fields()
            && let Some(symbol) = it.symbol_id.get()
        {
            self.field_bindings.insert(symbol);
        }
    }

    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if self.in_fields()
            && let Some(id) = it.reference_id.get()
        {
            self.field_refs.insert(id);
        }
        if it.name == "arguments"
            && it
                .reference_id
                .get()
                .is_none_or(|id| self.scoping.get_reference(id).symbol_id().is_none())
        {
            let (needs, through_arrow) = self.owner();
            needs.arguments = true;
            if through_arrow {
                needs.arguments_in_arrow = true;
            }
        }
    }
}

/// Annex B.3.3 (function declarations in blocks, sloppy code): oxc_semantic gives such a
/// function its var-scoped binding whenever the var scope has no binding of the name. The
/// spec skips that binding when a `var` of the name would be an early error: an enclosing
/// block (below the var scope) declares the name lexically. Put those functions back in
/// their block and resolve again the references outside it.
pub(crate) fn skip_conflicting_block_functions(program: &Program<'_>, scoping: &mut Scoping) {
    struct Collect<'s> {
        /// (function, the scope around its declaration, name, is an `if` clause)
        functions: Vec<(SymbolId, ScopeId, String, bool)>,
        if_clauses: FxHashSet<Span>,
        /// catch parameters that are a plain identifier (a var may redeclare them: B.3.4)
        simple_catch: FxHashSet<SymbolId>,
        scoping: &'s Scoping,
    }
    impl<'a> Visit<'a> for Collect<'_> {
        fn visit_binary_expression(&mut self, it: &BinaryExpression<'a>) {
            crate::chain::visit_binary(self, it);
        }
        fn visit_logical_expression(&mut self, it: &LogicalExpression<'a>) {
            crate::chain::visit_logical(self, it);
        }
        fn visit_catch_clause(&mut self, it: &CatchClause<'a>) {
            if let Some(param) = &it.param
                && let BindingPattern::BindingIdentifier(id) = &param.pattern
                && let Some(sym) = id.symbol_id.get()
            {
                self.simple_catch.insert(sym);
            }
            walk::walk_catch_clause(self, it);
        }
        fn visit_if_statement(&mut self, it: &IfStatement<'a>) {
            for clause in std::iter::once(&it.consequent).chain(&it.alternate) {
                if let Statement::FunctionDeclaration(f) = clause {
                    self.if_clauses.insert(f.span);
                }
            }
            walk::walk_if_statement(self, it);
        }
        fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
            if it.is_declaration()
                && let Some(id) = &it.id
                && let Some(sym) = id.symbol_id.get()
                && let Some(scope) = it.scope_id.get()
                && let Some(block) = self.scoping.scope_parent_id(scope)
            {
                let in_if = self.if_clauses.contains(&it.span);
                // An `if` clause is a block of its own (B.3.4): its function is hoisted
                // when its binding is not in the scope around the `if`.
                let home = if in_if { scope } else { block };
                if self.scoping.symbol_scope_id(sym) != block || in_if {
                    self.functions.push((sym, home, id.name.to_string(), in_if));
                }
            }
            walk::walk_function(self, it, flags);
        }
    }
    let mut collect = Collect {
        functions: Vec::new(),
        if_clauses: FxHashSet::default(),
        simple_catch: FxHashSet::default(),
        scoping,
    };
    collect.visit_program(program);
    let Collect {
        functions: hoisted,
        simple_catch,
        ..
    } = collect;
    for (sym, block, name, in_if) in hoisted {
        let name = name.as_str();
        let var_scope = scoping.symbol_scope_id(sym);
        let flags = scoping.symbol_flags(sym);
        let around = scoping.scope_parent_id(block);
        if in_if && (around == Some(var_scope) || !flags.contains(SymbolFlags::Function)) {
            // Declared right in the var scope (its binding there is the var binding), or
            // sharing another declaration's binding (the compiler leaves that alone).
            continue;
        }
        // oxc_semantic hoists a `let` that an `if` clause's function redeclares along
        // with the function: that binding belongs to the scope around the `if`.
        let lexical =
            in_if && flags.intersects(SymbolFlags::BlockScopedVariable | SymbolFlags::Class);
        let block = match around {
            Some(around) if lexical => around,
            _ => block,
        };
        // B.3.4: simple catch parameters may be redeclared by a var.
        let conflict = lexical
            || scoping
                .scope_ancestors(block)
                .skip(1)
                .take_while(|&s| s != var_scope)
                .filter_map(|s| scoping.get_binding(s, name.into()))
                .any(|b| !simple_catch.contains(&b));
        if !conflict {
            continue;
        }
        scoping.move_binding_by_symbol_id(var_scope, block, sym);
        let references = scoping.get_resolved_reference_ids(sym).to_vec();
        for id in references {
            let scope = scoping.get_reference(id).scope_id();
            if scoping.scope_ancestors(scope).any(|s| s == block) {
                continue;
            }
            let found = scoping
                .scope_ancestors(scope)
                .find_map(|s| scoping.get_binding(s, name.into()));
            match found {
                Some(other) => {
                    scoping.delete_resolved_reference(sym, id);
                    scoping.get_reference_mut(id).set_symbol_id(other);
                    scoping.add_resolved_reference(other, id);
                }
                None => unresolve(scoping, sym, id, name),
            }
        }
    }
}

/// Detach reference `id` from symbol `sym`: it becomes an unresolved reference to `name`.
pub(crate) fn unresolve(scoping: &mut Scoping, sym: SymbolId, id: ReferenceId, name: &str) {
    let reference = scoping.get_reference(id);
    let (node, scope, flags) = (reference.node_id(), reference.scope_id(), reference.flags());
    scoping.delete_resolved_reference(sym, id);
    *scoping.get_reference_mut(id) = oxc_syntax::reference::Reference::new(node, scope, flags);
    scoping.add_root_unresolved_reference(name.into(), id);
}

/// oxc_semantic resolves `arguments` like any name, but in a non-arrow function a
/// reference to it that no binding of that function's own shadows is the function's
/// arguments object ([FunctionDeclarationInstantiation](https://tc39.es/ecma262/#sec-functiondeclarationinstantiation)
/// step 22): an outer `var arguments` does not reach inside. And a function with parameter
/// expressions evaluates them in an environment that its body's declarations are not in
/// (step 28), while oxc_semantic gives parameters and body one scope. Such references
/// become unresolved again: the compiler then reads the arguments object (or, outside any
/// function, the global binding).
pub(crate) fn resolve_arguments(program: &Program<'_>, scoping: &mut Scoping) {
    // Only a binding named `arguments` can be hidden: without one (nearly every program)
    // the walk below would find nothing.
    if !scoping
        .symbol_ids()
        .any(|sym| scoping.symbol_name(sym) == "arguments")
    {
        return;
    }
    struct Frame {
        scope: ScopeId,
        /// an arrow function: it has no arguments object of its own
        arrow: bool,
        /// the walk is in the function's formal parameters
        in_params: bool,
    }
    struct Collect<'s> {
        scoping: &'s Scoping,
        frames: Vec<Frame>,
        params: FxHashSet<SymbolId>,
        detach: Vec<(SymbolId, ReferenceId)>,
    }
    impl Collect<'_> {
        /// Whether the reference to binding `sym` from the innermost frame really names
        /// it, rather than an arguments object (or a global) that hides it.
        fn names_binding(&self, sym: SymbolId) -> bool {
            let home = self.scoping.symbol_scope_id(sym);
            let mut hidden = false;
            for frame in self.frames.iter().rev() {
                let inside = self.scoping.scope_ancestors(home).any(|s| s == frame.scope);
                if inside
                    && !(home == frame.scope && frame.in_params && !self.params.contains(&sym))
                {
                    return true;
                }
                hidden |= inside;
                if !frame.arrow {
                    return false;
                }
            }
            !hidden
        }
        fn enter(&mut self, scope: Option<ScopeId>, arrow: bool) -> bool {
            let Some(scope) = scope else { return false };
            self.frames.push(Frame {
                scope,
                arrow,
                in_params: false,
            });
            true
        }
    }
    impl<'a> Visit<'a> for Collect<'_> {
        fn visit_binary_expression(&mut self, it: &BinaryExpression<'a>) {
            crate::chain::visit_binary(self, it);
        }
        fn visit_logical_expression(&mut self, it: &LogicalExpression<'a>) {
            crate::chain::visit_logical(self, it);
        }
        fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
            if self.enter(it.scope_id.get(), false) {
                walk::walk_function(self, it, flags);
                self.frames.pop();
            }
        }
        fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
            if self.enter(it.scope_id.get(), true) {
                walk::walk_arrow_function_expression(self, it);
                self.frames.pop();
            }
        }
        fn visit_formal_parameters(&mut self, it: &FormalParameters<'a>) {
            let names = crate::compiler::parameter_bindings(it);
            self.params
                .extend(names.into_iter().filter_map(|id| id.symbol_id.get()));
            if let Some(frame) = self.frames.last_mut() {
                frame.in_params = true;
            }
            walk::walk_formal_parameters(self, it);
            if let Some(frame) = self.frames.last_mut() {
                frame.in_params = false;
            }
        }
        fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
            if it.name == "arguments"
                && let Some(id) = it.reference_id.get()
                && let Some(sym) = self.scoping.get_reference(id).symbol_id()
                && !self.names_binding(sym)
            {
                self.detach.push((sym, id));
            }
        }
    }
    let mut collect = Collect {
        scoping,
        frames: Vec::new(),
        params: FxHashSet::default(),
        detach: Vec::new(),
    };
    collect.visit_program(program);
    for (sym, id) in collect.detach {
        unresolve(scoping, sym, id, "arguments");
    }
}
