//! Statements: blocks and declarations, control flow, loops (with
//! per-iteration environments and iterator closing), switch, labels,
//! try/catch/finally with the completion protocol of `EndFinally`, and the
//! scopes of `using` declarations, which dispose through that same protocol.

use kiln_bytecode::{Completion, FunctionKind, Handler, Instr, Reg, ScriptKind, SwitchTable};
use oxc_ast::ast::*;
use oxc_semantic::SymbolFlags;
use oxc_span::{GetSpan, Span};
use oxc_syntax::operator::{LogicalOperator, UnaryOperator};
use oxc_syntax::scope::ScopeId;

use crate::compiler::{Compiler, binding_name};
use crate::error::CompileError;
use crate::function::{Ctl, CtlKind, Exit, R};
use crate::typescript;

#[derive(Clone, Copy, PartialEq, Eq)]
enum ExitKind {
    Break,
    Continue,
    Return,
}

impl<'a> Compiler<'a> {
    pub(crate) fn statement(&mut self, s: &Statement<'a>) -> R<()> {
        self.enter(s.span())?;
        let result = self.statement_inner(s);
        self.leave();
        result
    }

    fn statement_inner(&mut self, s: &Statement<'a>) -> R<()> {
        if !matches!(
            s,
            Statement::LabeledStatement(_)
                | Statement::BlockStatement(_)
                | Statement::EmptyStatement(_)
        ) {
            self.pos(s.span());
        }
        let is_loop = matches!(
            s,
            Statement::WhileStatement(_)
                | Statement::DoWhileStatement(_)
                | Statement::ForStatement(_)
                | Statement::ForInStatement(_)
                | Statement::ForOfStatement(_)
        );
        if !is_loop
            && !matches!(s, Statement::LabeledStatement(_))
            && !self.fs.pending_labels.is_empty()
        {
            // A labelled non-loop statement: only `break label` can target it.
            let labels = std::mem::take(&mut self.fs.pending_labels);
            self.push_ctl(CtlKind::Label, labels);
            self.statement_inner(s)?;
            let ctl = self.pop_ctl();
            self.fs.patch_all_here(&ctl.break_jumps);
            return Ok(());
        }
        if is_loop
            || matches!(
                s,
                Statement::SwitchStatement(_)
                    | Statement::TryStatement(_)
                    | Statement::WithStatement(_)
            )
        {
            // These statements complete with UpdateEmpty(result, undefined): a value set
            // before them does not show through an empty body.
            self.reset_completion();
        }
        let mark = self.fs.mark();
        match s {
            // TypeScript declarations for the type checker: interfaces, `declare ...`
            _ if typescript::is_type_only_statement(s) => {}
            Statement::BlockStatement(b) => self.block(b.scope_id.get(), &b.body)?,
            Statement::EmptyStatement(_) => {}
            Statement::DebuggerStatement(_) => {
                self.emit(Instr::Debugger);
            }
            Statement::ExpressionStatement(e) => {
                if let Some(c) = self.fs.completion {
                    self.expr(&e.expression, c)?;
                } else {
                    self.expr_effect(&e.expression)?;
                }
            }
            Statement::VariableDeclaration(d) => self.variable_declaration(d)?,
            Statement::FunctionDeclaration(_) => {}
            Statement::ClassDeclaration(c) => {
                let r = self.fs.alloc()?;
                self.class(c, r, None)?;
            }
            Statement::IfStatement(i) => {
                self.reset_completion();
                let else_jumps = self.jump_if_false(&i.test)?;
                self.if_clause(&i.consequent)?;
                if let Some(alt) = &i.alternate {
                    let end = self.fs.jump();
                    self.fs.patch_all_here(&else_jumps);
                    self.if_clause(alt)?;
                    self.fs.patch_here(end);
                } else {
                    self.fs.patch_all_here(&else_jumps);
                }
            }
            Statement::WhileStatement(w) => {
                let labels = std::mem::take(&mut self.fs.pending_labels);
                self.push_ctl(
                    CtlKind::Loop {
                        iterator: None,
                        is_async: false,
                    },
                    labels,
                );
                let top = self.fs.pc();
                let exits = self.jump_if_false(&w.test)?;
                self.statement(&w.body)?;
                let ctl = self.pop_ctl();
                self.fs.patch_all_here(&ctl.continue_jumps);
                self.fs.loop_to(top);
                self.fs.patch_all_here(&exits);
                self.fs.patch_all_here(&ctl.break_jumps);
            }
            Statement::DoWhileStatement(d) => {
                let labels = std::mem::take(&mut self.fs.pending_labels);
                self.push_ctl(
                    CtlKind::Loop {
                        iterator: None,
                        is_async: false,
                    },
                    labels,
                );
                let top = self.fs.pc();
                self.statement(&d.body)?;
                let ctl = self.pop_ctl();
                self.fs.patch_all_here(&ctl.continue_jumps);
                self.pos(d.test.span());
                let exits = self.jump_if_false(&d.test)?;
                self.fs.loop_to(top);
                self.fs.patch_all_here(&exits);
                self.fs.patch_all_here(&ctl.break_jumps);
            }
            Statement::ForStatement(f) => self.for_statement(f)?,
            Statement::ForInStatement(f) => self.for_in_statement(f)?,
            Statement::ForOfStatement(f) => self.for_of_statement(f)?,
            Statement::LabeledStatement(l) => {
                self.fs.pending_labels.push(l.label.name.to_string());
                self.statement(&l.body)?;
                self.fs.pending_labels.clear();
            }
            Statement::BreakStatement(b) => {
                let target =
                    self.find_target(b.label.as_ref().map(|l| l.name.as_str()), false, b.span)?;
                self.emit_exit(Some(target), ExitKind::Break, None)?;
            }
            Statement::ContinueStatement(c) => {
                let target =
                    self.find_target(c.label.as_ref().map(|l| l.name.as_str()), true, c.span)?;
                self.emit_exit(Some(target), ExitKind::Continue, None)?;
            }
            Statement::ReturnStatement(r) => self.return_statement(r)?,
            Statement::ThrowStatement(t) => {
                let r = self.expr_reg(&t.argument)?;
                self.pos(t.span);
                self.emit(Instr::Throw { src: r });
            }
            Statement::TryStatement(t) => self.try_statement(t)?,
            Statement::SwitchStatement(s) => self.switch_statement(s)?,
            Statement::WithStatement(w) => self.with_statement(w)?,
            Statement::ImportDeclaration(_)
            | Statement::ExportAllDeclaration(_)
            | Statement::ExportDefaultDeclaration(_)
            | Statement::ExportNamedDeclaration(_)
            | Statement::ExportDeclaration(_)
            | Statement::ExportFromDeclaration(_) => self.module_statement(s)?,
            _ => return Err(typescript::refusal(s)),
        }
        self.fs.release(mark);
        Ok(())
    }

    /// Top-level code: set the completion value to undefined, where the spec's statement
    /// completes with UpdateEmpty(result, undefined).
    fn reset_completion(&mut self) {
        if let Some(c) = self.fs.completion {
            self.emit(Instr::LoadUndefined { dst: c });
        }
    }

    pub(crate) fn block(&mut self, scope: Option<ScopeId>, body: &[Statement<'a>]) -> R<()> {
        let pushed = self.enter_scope(scope)?;
        self.hoist_functions(body)?;
        self.statement_list(body)?;
        self.leave_scope(pushed);
        Ok(())
    }

    /// The statements of a block, function body, static block or module: a scope whose
    /// `using` declarations dispose their resources when it is left.
    pub(crate) fn statement_list(&mut self, body: &[Statement<'a>]) -> R<()> {
        let using = body
            .iter()
            .filter_map(|s| match s {
                Statement::VariableDeclaration(d) => using_kind(d),
                _ => None,
            })
            .reduce(|a, b| a || b);
        let statements = |c: &mut Self| body.iter().try_for_each(|s| c.statement(s));
        match using {
            Some(is_async) => self.using_scope(is_async, statements),
            None => statements(self),
        }
    }

    /// Compile `body` as a scope holding `using` declarations: a resource list register
    /// (see `Instr::AddDisposable`) and a finally region that disposes the resources on every
    /// way out ([DisposeResources](https://tc39.es/proposal-explicit-resource-management/#sec-disposeresources)).
    /// `is_async`: the scope has an `await using`, so disposal may await.
    fn using_scope(&mut self, is_async: bool, body: impl FnOnce(&mut Self) -> R<()>) -> R<()> {
        let list = self.fs.alloc()?;
        self.emit(Instr::LoadUndefined { dst: list });
        let outer = self.fs.using_list.replace(list);
        let result = self.with_finally(body, |c, kind| c.dispose_resources(list, kind, is_async));
        self.fs.using_list = outer;
        result
    }

    /// The finally block of a `using` scope. Synchronous disposal is one instruction; an
    /// asynchronous one loops, awaiting each value DisposeResources hands back and folding a
    /// rejection into the completion.
    fn dispose_resources(&mut self, list: Reg, kind: Reg, is_async: bool) -> R<()> {
        let value = self.fs.alloc()?;
        let top = self.fs.pc();
        self.emit(Instr::DisposeResources {
            dst: value,
            list,
            kind,
        });
        if !is_async {
            return Ok(());
        }
        let done = self.emit(Instr::JumpIfHole {
            src: value,
            offset: 0,
        });
        let start = self.fs.pc();
        self.emit(Instr::Await {
            dst: value,
            src: value,
        });
        let end = self.fs.pc();
        self.fs.loop_to(top);
        let exc = self.fs.alloc()?;
        self.fs.handlers.push(Handler {
            start: start as u32,
            end: end as u32,
            target: self.fs.pc() as u32,
            env_depth: self.env_depth(),
            reg: exc,
            is_finally: false,
        });
        self.emit(Instr::SuppressError { kind, src: exc });
        self.fs.loop_to(top);
        self.fs.patch_here(done);
        Ok(())
    }

    pub(crate) fn variable_declaration(&mut self, d: &VariableDeclaration<'a>) -> R<()> {
        if let Some(is_async) = using_kind(d) {
            return self.using_declaration(d, is_async);
        }
        for decl in &d.declarations {
            let mark = self.fs.mark();
            match &decl.init {
                Some(init) => {
                    // A register-resident binding can take the value directly.
                    if let BindingPattern::BindingIdentifier(id) = &decl.id
                        && let Some(sym) = id.symbol_id.get()
                        && let Ok(crate::function::Loc::Reg(r)) = self.plain_loc_of(sym, id.span)
                        && crate::expression::writes_destination_last(init)
                    {
                        self.expr_named(init, r, Some(&id.name))?;
                        self.fs.initialized.insert(sym);
                    } else {
                        let r = self.fs.alloc()?;
                        self.expr_named(init, r, binding_name(&decl.id).as_deref())?;
                        self.bind_pattern(&decl.id, r, true)?;
                    }
                }
                None if d.kind != VariableDeclarationKind::Var => {
                    let r = self.fs.alloc()?;
                    self.emit(Instr::LoadUndefined { dst: r });
                    self.bind_pattern(&decl.id, r, true)?;
                }
                None => {}
            }
            self.fs.release(mark);
        }
        Ok(())
    }

    /// `using x = v, ...` / `await using x = v, ...`: each value joins the scope's resource
    /// list before its binding is initialised
    /// ([InitializeReferencedBinding](https://tc39.es/proposal-explicit-resource-management/#sec-initializereferencedbinding)).
    fn using_declaration(&mut self, d: &VariableDeclaration<'a>, is_async: bool) -> R<()> {
        let list = self.using_list(d.span, is_async)?;
        for decl in &d.declarations {
            let mark = self.fs.mark();
            let r = self.fs.alloc()?;
            match &decl.init {
                Some(init) => self.expr_named(init, r, binding_name(&decl.id).as_deref())?,
                None => {
                    self.emit(Instr::LoadUndefined { dst: r });
                }
            }
            self.pos(decl.span);
            self.emit(Instr::AddDisposable {
                list,
                src: r,
                is_async,
            });
            self.bind_pattern(&decl.id, r, true)?;
            self.fs.release(mark);
        }
        Ok(())
    }

    /// The resource list of the scope a `using` declaration belongs to. Early errors the
    /// parser leaves to us: `using` outside such a scope (script top level, case clauses)
    /// and `await using` where `await` is not allowed.
    fn using_list(&self, span: Span, is_async: bool) -> R<Reg> {
        let async_top = matches!(self.script_kind, ScriptKind::Module | ScriptKind::Agent)
            && self.fs.kind == FunctionKind::Script;
        if is_async && !self.fs.kind.is_async() && !async_top {
            return Err(CompileError::new(
                "'await using' is only valid in async functions and at the top level of modules",
                span.start,
            ));
        }
        self.fs.using_list.ok_or_else(|| {
            CompileError::new(
                "'using' declarations are only allowed in blocks, functions, loops and modules",
                span.start,
            )
        })
    }

    fn return_statement(&mut self, r: &ReturnStatement<'a>) -> R<()> {
        let mark = self.fs.mark();
        let value = match &r.argument {
            Some(arg) => {
                if self.can_tail_call() {
                    self.return_in_tail_position(arg)?;
                    self.fs.release(mark);
                    return Ok(());
                }
                let v = self.expr_reg(arg)?;
                if self.fs.kind.is_async() && self.fs.kind.is_generator() {
                    // `return x` in an async generator awaits x.
                    let t = self.fs.alloc()?;
                    self.emit(Instr::Await { dst: t, src: v });
                    t
                } else {
                    v
                }
            }
            None => {
                let v = self.fs.alloc()?;
                self.emit(Instr::LoadUndefined { dst: v });
                v
            }
        };
        self.emit_exit(None, ExitKind::Return, Some(value))?;
        self.fs.release(mark);
        Ok(())
    }

    /// A clause of an `if`: a function declaration there (sloppy code,
    /// [B.3.4](https://tc39.es/ecma262/#sec-functiondeclarations-in-ifstatement-statement-clauses))
    /// is evaluated as if it were alone in a block.
    fn if_clause(&mut self, clause: &Statement<'a>) -> R<()> {
        let Statement::FunctionDeclaration(f) = clause else {
            return self.statement(clause);
        };
        // Its var binding is skipped (B.3.3) when the name is a parameter's or a lexical
        // declaration's (the binding oxc_semantic shares with it), or when only the
        // function's own scope holds it (see `skip_conflicting_block_functions`): then
        // nothing can reach the function, and it need not be created.
        if let Some(id) = &f.id
            && let Some(sym) = id.symbol_id.get()
            && ((self.scoping.symbol_span(sym) != id.span
                && self.flags(sym).intersects(
                    SymbolFlags::BlockScopedVariable
                        | SymbolFlags::ConstVariable
                        | SymbolFlags::Class,
                ))
                || self.fs.params.contains(&sym)
                || Some(self.scoping.symbol_scope_id(sym)) == f.scope_id.get())
        {
            return Ok(());
        }
        self.hoist_functions(std::slice::from_ref(clause))
    }

    /// `return e` where calls (and tagged templates) in
    /// [tail position](https://tc39.es/ecma262/#sec-isintailposition) replace the frame: `e` itself, the last operand of a comma, either branch of `?:`
    /// and the right operand of `&&`, `||` and `??`.
    fn return_in_tail_position(&mut self, e: &Expression<'a>) -> R<()> {
        match e.get_inner_expression() {
            Expression::CallExpression(call) if self.tail_call(call)? => Ok(()),
            Expression::TaggedTemplateExpression(t) => self.tagged_template_call(t, None),
            Expression::SequenceExpression(seq) => {
                for (i, x) in seq.expressions.iter().enumerate() {
                    if i + 1 == seq.expressions.len() {
                        return self.return_in_tail_position(x);
                    }
                    self.expr_effect(x)?;
                }
                self.return_value_of(e)
            }
            Expression::ConditionalExpression(c) => {
                let otherwise = self.jump_if_false(&c.test)?;
                self.return_in_tail_position(&c.consequent)?;
                self.fs.patch_all_here(&otherwise);
                self.return_in_tail_position(&c.alternate)
            }
            Expression::LogicalExpression(l) => {
                let mark = self.fs.mark();
                let v = self.expr_reg(&l.left)?;
                let done = self.emit(match l.operator {
                    LogicalOperator::And => Instr::JumpIfFalse { src: v, offset: 0 },
                    LogicalOperator::Or => Instr::JumpIfTrue { src: v, offset: 0 },
                    LogicalOperator::Coalesce => Instr::JumpIfNotNullish { src: v, offset: 0 },
                });
                self.return_in_tail_position(&l.right)?;
                self.fs.patch_here(done);
                self.emit_exit(None, ExitKind::Return, Some(v))?;
                self.fs.release(mark);
                Ok(())
            }
            _ => self.return_value_of(e),
        }
    }

    fn return_value_of(&mut self, e: &Expression<'a>) -> R<()> {
        let v = self.expr_reg(e)?;
        self.emit_exit(None, ExitKind::Return, Some(v))
    }

    /// Whether `return f()` here may replace the frame.
    fn can_tail_call(&self) -> bool {
        self.fs.strict
            && matches!(
                self.fs.kind,
                kiln_bytecode::FunctionKind::Normal
                    | kiln_bytecode::FunctionKind::Arrow
                    | kiln_bytecode::FunctionKind::Method
            )
            && self.fs.ctl.iter().all(|c| match &c.kind {
                CtlKind::Finally { .. } | CtlKind::Protected => false,
                CtlKind::Loop { iterator, .. } => iterator.is_none(),
                _ => true,
            })
    }

    // ---- control stack ----

    pub(crate) fn push_ctl(&mut self, kind: CtlKind, labels: Vec<String>) {
        let depth = self.env_depth();
        self.fs.ctl.push(Ctl {
            labels,
            kind,
            env_depth: depth,
            continue_depth: depth,
            break_jumps: Vec::new(),
            continue_jumps: Vec::new(),
        });
    }

    pub(crate) fn pop_ctl(&mut self) -> Ctl {
        self.fs.ctl.pop().unwrap_or(Ctl {
            labels: Vec::new(),
            kind: CtlKind::Label,
            env_depth: 0,
            continue_depth: 0,
            break_jumps: Vec::new(),
            continue_jumps: Vec::new(),
        })
    }

    fn find_target(&self, label: Option<&str>, is_continue: bool, span: Span) -> R<usize> {
        for (i, c) in self.fs.ctl.iter().enumerate().rev() {
            let ok = match label {
                Some(l) => {
                    c.labels.iter().any(|x| x == l)
                        && (!is_continue || matches!(c.kind, CtlKind::Loop { .. }))
                }
                None => {
                    matches!(c.kind, CtlKind::Loop { .. })
                        || (!is_continue && matches!(c.kind, CtlKind::Switch))
                }
            };
            if ok {
                return Ok(i);
            }
        }
        Err(CompileError::new(
            "Illegal break or continue statement",
            span.start,
        ))
    }

    /// Leave to `target` (or return from the function), closing for-of
    /// iterators and running finally bodies on the way.
    fn emit_exit(&mut self, target: Option<usize>, kind: ExitKind, value: Option<Reg>) -> R<()> {
        let bottom = target.map_or(0, |t| t + 1);
        for i in (bottom..self.fs.ctl.len()).rev() {
            match &self.fs.ctl[i].kind {
                &CtlKind::Loop {
                    iterator: Some(iter),
                    is_async,
                } => self.close_iterator(iter, is_async)?,
                CtlKind::Finally { kind: kind_reg, .. } => {
                    let kind_reg = *kind_reg;
                    let depth = self.fs.ctl[i].env_depth;
                    self.pop_envs_to(depth);
                    let exit = match kind {
                        ExitKind::Break => Exit::Break(target.unwrap_or(0)),
                        ExitKind::Continue => Exit::Continue(target.unwrap_or(0)),
                        ExitKind::Return => {
                            if let Some(v) = value {
                                self.emit(Instr::Mov {
                                    dst: kind_reg + 1,
                                    src: v,
                                });
                            }
                            Exit::Return
                        }
                    };
                    let CtlKind::Finally { exits, .. } = &mut self.fs.ctl[i].kind else {
                        unreachable!()
                    };
                    exits.push(exit);
                    let n = exits.len() as i32 - 1;
                    self.emit(Instr::LoadInt {
                        dst: kind_reg,
                        value: Completion::Jump as i32 + n,
                    });
                    let j = self.fs.jump();
                    if let CtlKind::Finally { entry_jumps, .. } = &mut self.fs.ctl[i].kind {
                        entry_jumps.push(j);
                    }
                    return Ok(());
                }
                _ => {}
            }
        }
        match (kind, target) {
            (ExitKind::Return, _) | (_, None) => {
                let v = match value {
                    Some(v) => v,
                    None => {
                        let v = self.fs.alloc()?;
                        self.emit(Instr::LoadUndefined { dst: v });
                        v
                    }
                };
                if self.fs.is_derived {
                    self.sync_this_register()?;
                    self.emit(Instr::ReturnDerived { src: v });
                } else {
                    self.emit(Instr::Return { src: v });
                }
            }
            (ExitKind::Break, Some(t)) => {
                if let CtlKind::Loop {
                    iterator: Some(iter),
                    is_async,
                } = self.fs.ctl[t].kind
                {
                    self.close_iterator(iter, is_async)?;
                }
                let depth = self.fs.ctl[t].env_depth;
                self.pop_envs_to(depth);
                let j = self.fs.jump();
                self.fs.ctl[t].break_jumps.push(j);
            }
            (ExitKind::Continue, Some(t)) => {
                let depth = self.fs.ctl[t].continue_depth;
                self.pop_envs_to(depth);
                let j = self.fs.jump();
                self.fs.ctl[t].continue_jumps.push(j);
            }
        }
        Ok(())
    }

    /// [IteratorClose](https://tc39.es/ecma262/#sec-iteratorclose) of r[iter] on a normal
    /// completion; for an async iterator
    /// ([AsyncIteratorClose](https://tc39.es/ecma262/#sec-asynciteratorclose)) the result of
    /// its `return` method is awaited before it is checked.
    pub(crate) fn close_iterator(&mut self, iter: Reg, is_async: bool) -> R<()> {
        if !is_async {
            self.emit(Instr::IteratorClose { iter });
            return Ok(());
        }
        let result = self.fs.alloc()?;
        let site = self.fs.site("return")?;
        self.emit(Instr::GetNamed {
            dst: result,
            obj: iter,
            site,
        });
        let skip = self.emit(Instr::JumpIfNullish {
            src: result,
            offset: 0,
        });
        // `this` is r[iter] itself: no arguments follow it.
        self.emit(Instr::Call {
            dst: result,
            func: result,
            args: iter,
            argc: 0,
        });
        self.emit(Instr::Await {
            dst: result,
            src: result,
        });
        self.emit(Instr::ThrowIfNotObject { src: result });
        self.fs.patch_here(skip);
        self.fs.release(result as u32);
        Ok(())
    }

    /// Cover the region `start..end`, in which iterator r[iter] is open, with a finally
    /// handler (placed here) that closes the iterator when a throw or a generator's `return()` leaves the
    /// region (break/continue/return close it on their own way out). A throw closes it
    /// ignoring the errors of `return`; a return closes it like a normal exit. `exhausted`:
    /// a register that is true when the iterator must not be closed (it is done, or the
    /// throw came from the iterator itself). Control does not fall into the handler.
    pub(crate) fn close_iterator_on_abrupt_exit(
        &mut self,
        (start, end): (usize, usize),
        depth: u16,
        iter: Reg,
        is_async: bool,
        exhausted: Option<Reg>,
    ) -> R<()> {
        let kind = self.fs.alloc_n(2)?;
        self.fs.handlers.push(Handler {
            start: start as u32,
            end: end as u32,
            target: self.fs.pc() as u32,
            env_depth: depth,
            reg: kind,
            is_finally: true,
        });
        let skip = exhausted.map(|done| {
            self.emit(Instr::JumpIfTrue {
                src: done,
                offset: 0,
            })
        });
        let probe = self.fs.alloc()?;
        self.emit(Instr::LoadInt {
            dst: probe,
            value: Completion::Throw as i32,
        });
        self.emit(Instr::StrictEq {
            dst: probe,
            lhs: kind,
            rhs: probe,
        });
        let on_return = self.emit(Instr::JumpIfFalse {
            src: probe,
            offset: 0,
        });
        self.emit(Instr::IteratorCloseOnThrow { iter });
        let thrown = self.fs.jump();
        self.fs.patch_here(on_return);
        self.close_iterator(iter, is_async)?;
        self.fs.patch_here(thrown);
        if let Some(skip) = skip {
            self.fs.patch_here(skip);
        }
        self.emit(Instr::EndFinally { kind });
        Ok(())
    }

    // ---- loops ----

    fn for_statement(&mut self, f: &ForStatement<'a>) -> R<()> {
        let labels = std::mem::take(&mut self.fs.pending_labels);
        let pushed = self.enter_scope(f.scope_id.get())?;
        let using = match &f.init {
            Some(ForStatementInit::VariableDeclaration(d)) => using_kind(d),
            _ => None,
        };
        match using {
            // `for (using x = ...; ; )`: the resources are disposed once, when the loop ends,
            // so `break` leaves through the disposal.
            Some(is_async) => {
                self.using_scope(is_async, |c| {
                    let depth = c.env_depth();
                    let breaks = c.for_loop(f, labels, pushed, depth)?;
                    c.fs.patch_all_here(&breaks);
                    Ok(())
                })?;
                self.leave_scope(pushed);
            }
            None => {
                let outer_depth = self.env_depth() - pushed as u16;
                let breaks = self.for_loop(f, labels, pushed, outer_depth)?;
                self.leave_scope(pushed);
                self.fs.patch_all_here(&breaks);
            }
        }
        Ok(())
    }

    /// A `for (init; test; update)` loop inside its head's scope (`pushed`: it has an
    /// environment, copied per iteration). `break` leaves at environment depth `break_depth`;
    /// returns the break jumps for the caller to place.
    fn for_loop(
        &mut self,
        f: &ForStatement<'a>,
        labels: Vec<String>,
        pushed: bool,
        break_depth: u16,
    ) -> R<Vec<usize>> {
        match &f.init {
            Some(ForStatementInit::VariableDeclaration(d)) => self.variable_declaration(d)?,
            Some(init) => {
                if let Some(e) = init.as_expression() {
                    self.expr_effect(e)?;
                }
            }
            None => {}
        }
        if pushed {
            self.emit(Instr::CloneEnv);
        }
        self.push_ctl(
            CtlKind::Loop {
                iterator: None,
                is_async: false,
            },
            labels,
        );
        if let Some(c) = self.fs.ctl.last_mut() {
            c.env_depth = break_depth;
        }
        let top = self.fs.pc();
        let exits = match &f.test {
            Some(t) => self.jump_if_false(t)?,
            None => Vec::new(),
        };
        self.statement(&f.body)?;
        let ctl = self.pop_ctl();
        self.fs.patch_all_here(&ctl.continue_jumps);
        if pushed {
            self.emit(Instr::CloneEnv);
        }
        if let Some(u) = &f.update {
            self.pos(u.span());
            self.expr_effect(u)?;
        }
        self.fs.loop_to(top);
        self.fs.patch_all_here(&exits);
        Ok(ctl.break_jumps)
    }

    /// Assign the loop value r[value] to the for-in/for-of left-hand side.
    fn for_left(&mut self, left: &ForStatementLeft<'a>, value: Reg) -> R<()> {
        match left {
            ForStatementLeft::VariableDeclaration(d) => {
                if let Some(is_async) = using_kind(d) {
                    let list = self.using_list(d.span, is_async)?;
                    self.emit(Instr::AddDisposable {
                        list,
                        src: value,
                        is_async,
                    });
                }
                if let Some(decl) = d.declarations.first() {
                    self.bind_pattern(&decl.id, value, true)?;
                }
                Ok(())
            }
            _ => match left.as_assignment_target() {
                Some(target) => self.assign_target(target, value),
                None => self.unsupported("this for-in/of target", left.span()),
            },
        }
    }

    fn for_in_statement(&mut self, f: &ForInStatement<'a>) -> R<()> {
        let labels = std::mem::take(&mut self.fs.pending_labels);
        // [B.3.5](https://tc39.es/ecma262/#sec-initializers-in-forin-statement-heads) (sloppy
        // code): `for (var a = init in o)` assigns `init` before evaluating `o`.
        if let ForStatementLeft::VariableDeclaration(d) = &f.left
            && d.kind == VariableDeclarationKind::Var
            && let Some(decl) = d.declarations.first()
            && let Some(init) = &decl.init
            && let BindingPattern::BindingIdentifier(id) = &decl.id
            && let Some(sym) = id.symbol_id.get()
        {
            let mark = self.fs.mark();
            let r = self.fs.alloc()?;
            self.expr_named(init, r, Some(&id.name))?;
            self.store_symbol(sym, r, false, id.span)?;
            self.fs.release(mark);
        }
        // The right side sees the loop's lexical bindings in their TDZ.
        let pushed = self.enter_scope(f.scope_id.get())?;
        let iter = self.fs.alloc()?;
        let src = self.expr_reg(&f.right)?;
        self.leave_scope(pushed);
        self.pos(f.right.span());
        self.emit(Instr::ForInPrepare { dst: iter, src });
        let pair = self.fs.alloc_n(2)?;
        self.push_ctl(
            CtlKind::Loop {
                iterator: None,
                is_async: false,
            },
            labels,
        );
        let top = self.fs.pc();
        self.emit(Instr::ForInNext { dst: pair, iter });
        let exit = self.emit(Instr::JumpIfTrue {
            src: pair + 1,
            offset: 0,
        });
        let pushed = self.enter_scope(f.scope_id.get())?;
        if let Some(c) = self.fs.ctl.last_mut() {
            c.continue_depth += pushed as u16;
        }
        self.for_left(&f.left, pair)?;
        self.statement(&f.body)?;
        let ctl = self.pop_ctl();
        self.fs.patch_all_here(&ctl.continue_jumps);
        self.leave_scope(pushed);
        self.fs.loop_to(top);
        self.fs.patch_here(exit);
        self.fs.patch_all_here(&ctl.break_jumps);
        Ok(())
    }

    fn for_of_statement(&mut self, f: &ForOfStatement<'a>) -> R<()> {
        let labels = std::mem::take(&mut self.fs.pending_labels);
        let is_async = f.r#await;
        let depth = self.env_depth();
        let pushed = self.enter_scope(f.scope_id.get())?;
        let iter = self.fs.alloc_n(2)?;
        let src = self.expr_reg(&f.right)?;
        self.leave_scope(pushed);
        self.pos(f.right.span());
        if is_async {
            self.emit(Instr::GetAsyncIterator { iter, src });
        } else {
            self.emit(Instr::GetIterator { iter, src });
        }
        let pair = self.fs.alloc_n(2)?;
        let call_base = if is_async { self.fs.alloc()? } else { 0 };
        self.push_ctl(
            CtlKind::Loop {
                iterator: Some(iter),
                is_async,
            },
            labels,
        );
        let top = self.fs.pc();
        if is_async {
            // result = await next.call(iter); if (!IsObject(result)) throw; done/value.
            self.emit(Instr::Mov {
                dst: call_base,
                src: iter,
            });
            self.emit(Instr::Call {
                dst: pair,
                func: iter + 1,
                args: call_base,
                argc: 0,
            });
            self.emit(Instr::Await {
                dst: pair,
                src: pair,
            });
            self.emit(Instr::ThrowIfNotObject { src: pair });
            let done = self.fs.site("done")?;
            self.emit(Instr::GetNamed {
                dst: pair + 1,
                obj: pair,
                site: done,
            });
            let exit_probe = self.emit(Instr::JumpIfTrue {
                src: pair + 1,
                offset: 0,
            });
            let value = self.fs.site("value")?;
            self.emit(Instr::GetNamed {
                dst: pair,
                obj: pair,
                site: value,
            });
            self.for_of_body(f, iter, pair, top, exit_probe)?;
        } else {
            self.emit(Instr::IteratorNext { dst: pair, iter });
            let exit = self.emit(Instr::JumpIfTrue {
                src: pair + 1,
                offset: 0,
            });
            self.for_of_body(f, iter, pair, top, exit)?;
        }
        let _ = depth;
        Ok(())
    }

    fn for_of_body(
        &mut self,
        f: &ForOfStatement<'a>,
        iter: Reg,
        pair: Reg,
        top: usize,
        exit: usize,
    ) -> R<()> {
        let depth = self.env_depth();
        let start = self.fs.pc();
        let pushed = self.enter_scope(f.scope_id.get())?;
        if let Some(c) = self.fs.ctl.last_mut() {
            c.continue_depth += pushed as u16;
        }
        // `for (using x of ...)`: each iteration's value is disposed at the end of the
        // iteration, before the iterator is stepped or closed.
        let using = match &f.left {
            ForStatementLeft::VariableDeclaration(d) => using_kind(d),
            _ => None,
        };
        match using {
            Some(is_async) => self.using_scope(is_async, |c| {
                c.for_left(&f.left, pair)?;
                c.statement(&f.body)
            })?,
            None => {
                self.for_left(&f.left, pair)?;
                self.statement(&f.body)?;
            }
        }
        let ctl = self.pop_ctl();
        self.fs.patch_all_here(&ctl.continue_jumps);
        self.leave_scope(pushed);
        self.fs.loop_to(top);
        let end = self.fs.pc();
        self.close_iterator_on_abrupt_exit((start, end), depth, iter, f.r#await, None)?;
        self.fs.patch_here(exit);
        self.fs.patch_all_here(&ctl.break_jumps);
        Ok(())
    }

    // ---- switch ----

    fn switch_statement(&mut self, s: &SwitchStatement<'a>) -> R<()> {
        let labels = std::mem::take(&mut self.fs.pending_labels);
        let d = self.fs.alloc()?;
        self.expr(&s.discriminant, d)?;
        if let Some(scope) = s.scope_id.get() {
            self.switch_scopes.insert(scope);
        }
        let pushed = self.enter_scope(s.scope_id.get())?;
        for case in &s.cases {
            self.hoist_functions(&case.consequent)?;
        }
        self.push_ctl(CtlKind::Switch, labels);
        if let Some(c) = self.fs.ctl.last_mut() {
            c.env_depth -= pushed as u16;
        }
        let tests = match self.switch_table(s) {
            Some((table, values)) => {
                self.emit(Instr::SwitchInt { src: d, table });
                CaseTests::Table(table, values)
            }
            None => {
                let t = self.fs.alloc()?;
                let mut jumps = Vec::with_capacity(s.cases.len());
                for test in s.cases.iter().filter_map(|case| case.test.as_ref()) {
                    self.expr(test, t)?;
                    self.emit(Instr::StrictEq {
                        dst: t,
                        lhs: d,
                        rhs: t,
                    });
                    jumps.push(self.emit(Instr::JumpIfTrue { src: t, offset: 0 }));
                }
                CaseTests::Jumps(jumps)
            }
        };
        let to_default = self.fs.jump();
        let mut default_found = false;
        let mut tested = 0;
        let mut targets = Vec::new();
        for case in &s.cases {
            if case.test.is_none() {
                self.fs.patch_here(to_default);
                default_found = true;
            } else {
                match &tests {
                    CaseTests::Jumps(jumps) => self.fs.patch_here(jumps[tested]),
                    CaseTests::Table(_, values) => {
                        targets.push((values[tested], self.fs.pc() as u32));
                    }
                }
                tested += 1;
            }
            for st in &case.consequent {
                self.statement(st)?;
            }
        }
        if let CaseTests::Table(table, _) = tests {
            // The first case that tests a value is the one the tests in order would find.
            targets.sort_by_key(|&(value, _)| value);
            targets.dedup_by_key(|&mut (value, _)| value);
            self.fs.switch_tables[table as usize].cases = targets;
        }
        let ctl = self.pop_ctl();
        if !default_found {
            self.fs.patch_here(to_default);
        }
        self.leave_scope(pushed);
        self.fs.patch_all_here(&ctl.break_jumps);
        Ok(())
    }

    /// A table for `s` if every case test is an int32 literal (at least two of them), so
    /// that one lookup replaces testing each case in turn: the table's index, with its
    /// cases filled in once their bodies are placed, and the value each test compares.
    fn switch_table(&mut self, s: &SwitchStatement<'a>) -> Option<(u16, Vec<i32>)> {
        let values = s
            .cases
            .iter()
            .filter_map(|case| case.test.as_ref())
            .map(int32_literal)
            .collect::<Option<Vec<i32>>>()?;
        let table = u16::try_from(self.fs.switch_tables.len()).ok()?;
        if values.len() < 2 {
            return None;
        }
        self.fs.switch_tables.push(SwitchTable::default());
        Some((table, values))
    }

    // ---- try ----

    fn try_statement(&mut self, t: &TryStatement<'a>) -> R<()> {
        let depth = self.env_depth();
        let Some(finalizer) = &t.finalizer else {
            return self.try_catch(t, depth);
        };
        self.with_finally(
            |c| c.try_catch(t, depth),
            |c, _| c.block(finalizer.scope_id.get(), &finalizer.body),
        )
    }

    /// Compile `body` as the protected part of a finally region and `finalizer` as its
    /// finally block: every way out of `body` (its end, a throw, break/continue/return, a
    /// generator's `return()`) enters `finalizer` with the completion in r[kind], r[kind+1]
    /// (see [`Completion`]), and `EndFinally` then resumes that way out.
    fn with_finally(
        &mut self,
        body: impl FnOnce(&mut Self) -> R<()>,
        finalizer: impl FnOnce(&mut Self, Reg) -> R<()>,
    ) -> R<()> {
        let depth = self.env_depth();
        let kind = self.fs.alloc_n(2)?;
        self.push_ctl(
            CtlKind::Finally {
                kind,
                exits: Vec::new(),
                entry_jumps: Vec::new(),
            },
            Vec::new(),
        );
        let start = self.fs.pc();
        body(self)?;
        self.emit(Instr::LoadInt {
            dst: kind,
            value: Completion::Normal as i32,
        });
        let end = self.fs.pc();
        let ctl = self.pop_ctl();
        let CtlKind::Finally {
            exits, entry_jumps, ..
        } = ctl.kind
        else {
            unreachable!()
        };
        self.fs.handlers.push(Handler {
            start: start as u32,
            end: end as u32,
            target: self.fs.pc() as u32,
            env_depth: depth,
            reg: kind,
            is_finally: true,
        });
        self.fs.patch_all_here(&entry_jumps);
        // A finally block that completes normally leaves the protected part's completion
        // value; one left by break/continue keeps its own (undefined if it set none).
        let saved_completion = match self.fs.completion {
            Some(c) => {
                let saved = self.fs.alloc()?;
                self.emit(Instr::Mov { dst: saved, src: c });
                self.emit(Instr::LoadUndefined { dst: c });
                Some((c, saved))
            }
            None => None,
        };
        finalizer(self, kind)?;
        if let Some((c, saved)) = saved_completion {
            self.emit(Instr::Mov { dst: c, src: saved });
        }
        self.emit(Instr::EndFinally { kind });
        for (n, exit) in exits.into_iter().enumerate() {
            let probe = self.fs.alloc()?;
            self.emit(Instr::LoadInt {
                dst: probe,
                value: Completion::Jump as i32 + n as i32,
            });
            self.emit(Instr::StrictEq {
                dst: probe,
                lhs: kind,
                rhs: probe,
            });
            let next = self.emit(Instr::JumpIfFalse {
                src: probe,
                offset: 0,
            });
            match exit {
                Exit::Break(target) => self.emit_exit(Some(target), ExitKind::Break, None)?,
                Exit::Continue(target) => self.emit_exit(Some(target), ExitKind::Continue, None)?,
                Exit::Return => self.emit_exit(None, ExitKind::Return, Some(kind + 1))?,
            }
            self.fs.patch_here(next);
            self.fs.release(probe as u32);
        }
        Ok(())
    }

    fn try_catch(&mut self, t: &TryStatement<'a>, depth: u16) -> R<()> {
        let Some(handler) = &t.handler else {
            return self.block(t.block.scope_id.get(), &t.block.body);
        };
        self.push_ctl(CtlKind::Protected, Vec::new());
        let start = self.fs.pc();
        self.block(t.block.scope_id.get(), &t.block.body)?;
        let end = self.fs.pc();
        self.pop_ctl();
        let skip = self.fs.jump();
        let mark = self.fs.mark();
        let exc = self.fs.alloc()?;
        self.fs.handlers.push(Handler {
            start: start as u32,
            end: end as u32,
            target: self.fs.pc() as u32,
            env_depth: depth,
            reg: exc,
            is_finally: false,
        });
        // The parameter may be bound in the clause's scope or its body's.
        let pushed = self.enter_scope(handler.scope_id.get())?;
        let body_scope = handler
            .body
            .scope_id
            .get()
            .filter(|s| Some(*s) != handler.scope_id.get());
        let body_pushed = self.enter_scope(body_scope)?;
        self.reset_completion();
        if let Some(param) = &handler.param {
            self.bind_pattern(&param.pattern, exc, true)?;
        }
        self.hoist_functions(&handler.body.body)?;
        self.statement_list(&handler.body.body)?;
        self.leave_scope(body_pushed);
        self.leave_scope(pushed);
        self.fs.release(mark);
        self.fs.patch_here(skip);
        Ok(())
    }
}

/// `Some(is_async)` for a `using` / `await using` declaration.
fn using_kind(d: &VariableDeclaration<'_>) -> Option<bool> {
    match d.kind {
        VariableDeclarationKind::Using => Some(false),
        VariableDeclarationKind::AwaitUsing => Some(true),
        _ => None,
    }
}

/// How a switch finds its case: a jump after each case's test, or a [`SwitchTable`].
enum CaseTests {
    Jumps(Vec<usize>),
    Table(u16, Vec<i32>),
}

/// The value of an int32 literal such as `7` or `-1` (`-0` is 0, equal to it under `===`).
fn int32_literal(e: &Expression<'_>) -> Option<i32> {
    let value = match e.without_parentheses() {
        Expression::NumericLiteral(n) => n.value,
        Expression::UnaryExpression(u) if u.operator == UnaryOperator::UnaryNegation => {
            match u.argument.without_parentheses() {
                Expression::NumericLiteral(n) => -n.value,
                _ => return None,
            }
        }
        _ => return None,
    };
    let int = value as i32;
    (int as f64 == value).then_some(int)
}
