//! Expressions: literals, operators, assignments, calls, member access,
//! optional chains, templates, object/array literals, functions, and the
//! generator/async operators.
//!
//! `expr(e, dst)` writes the value to `dst`. `expr_reg(e)` may instead hand
//! back the register of a local variable, saving a move; callers must then
//! not write to it, and must not use it across code that can assign that
//! variable (`may_assign`).

use kiln_bytecode::{Constant, ErrorKind, Instr, MethodKind, Reg, TypeName};
use oxc_ast::ast::*;
use oxc_span::{GetSpan, Span};
use oxc_syntax::operator::{
    AssignmentOperator, BinaryOperator, LogicalOperator, UnaryOperator, UpdateOperator,
};

use crate::chain::{binary_links, logical_links};
use crate::compiler::{Compiler, defines_static_name, is_anonymous_function};
use crate::error::CompileError;
use crate::function::{Loc, R, decode_lone_surrogates, utf16};
use crate::typescript::{TargetReference, is_type_wrapper, target_reference};

/// Whether compiling `e` straight into a variable's own register is safe:
/// the destination is written only after every operand has been read.
pub(crate) fn writes_destination_last(e: &Expression<'_>) -> bool {
    match e {
        Expression::BooleanLiteral(_)
        | Expression::NullLiteral(_)
        | Expression::NumericLiteral(_)
        | Expression::StringLiteral(_)
        | Expression::BigIntLiteral(_)
        | Expression::RegExpLiteral(_)
        | Expression::Identifier(_)
        | Expression::ThisExpression(_)
        | Expression::FunctionExpression(_)
        | Expression::ArrowFunctionExpression(_)
        | Expression::StaticMemberExpression(_)
        | Expression::ComputedMemberExpression(_)
        | Expression::CallExpression(_)
        | Expression::NewExpression(_) => true,
        Expression::BinaryExpression(_) => true,
        Expression::UnaryExpression(u) => u.operator != UnaryOperator::Delete,
        Expression::TemplateLiteral(t) => t.expressions.is_empty(),
        Expression::ParenthesizedExpression(p) => writes_destination_last(&p.expression),
        e if is_type_wrapper(e) => writes_destination_last(e.get_inner_expression()),
        _ => false,
    }
}

/// Conservatively: may evaluating `e` assign a local variable of this
/// function? (Only assignments and updates can; calls cannot reach
/// register-resident variables.)
pub(crate) fn may_assign(e: &Expression<'_>) -> bool {
    fn walk(e: &Expression<'_>, budget: &mut u32) -> bool {
        if *budget == 0 {
            return true;
        }
        *budget -= 1;
        match e {
            Expression::BooleanLiteral(_)
            | Expression::NullLiteral(_)
            | Expression::NumericLiteral(_)
            | Expression::StringLiteral(_)
            | Expression::BigIntLiteral(_)
            | Expression::RegExpLiteral(_)
            | Expression::Identifier(_)
            | Expression::ThisExpression(_)
            | Expression::FunctionExpression(_)
            | Expression::ArrowFunctionExpression(_) => false,
            Expression::StaticMemberExpression(m) => walk(&m.object, budget),
            Expression::ComputedMemberExpression(m) => {
                walk(&m.object, budget) || walk(&m.expression, budget)
            }
            Expression::BinaryExpression(b) => walk(&b.left, budget) || walk(&b.right, budget),
            Expression::LogicalExpression(b) => walk(&b.left, budget) || walk(&b.right, budget),
            Expression::UnaryExpression(u) => walk(&u.argument, budget),
            Expression::ParenthesizedExpression(p) => walk(&p.expression, budget),
            Expression::ConditionalExpression(c) => {
                walk(&c.test, budget) || walk(&c.consequent, budget) || walk(&c.alternate, budget)
            }
            Expression::CallExpression(c) => {
                walk(&c.callee, budget)
                    || c.arguments
                        .iter()
                        .any(|a| a.as_expression().is_none_or(|e| walk(e, budget)))
            }
            Expression::ArrayExpression(a) => a.elements.iter().any(|el| match el {
                ArrayExpressionElement::Elision(_) => false,
                ArrayExpressionElement::SpreadElement(s) => walk(&s.argument, budget),
                _ => el.as_expression().is_none_or(|e| walk(e, budget)),
            }),
            _ => true,
        }
    }
    let mut budget = 64;
    walk(e, &mut budget)
}

fn binary_instr(op: BinaryOperator, dst: Reg, lhs: Reg, rhs: Reg) -> Option<Instr> {
    use BinaryOperator as B;
    Some(match op {
        B::Addition => Instr::Add { dst, lhs, rhs },
        B::Subtraction => Instr::Sub { dst, lhs, rhs },
        B::Multiplication => Instr::Mul { dst, lhs, rhs },
        B::Division => Instr::Div { dst, lhs, rhs },
        B::Remainder => Instr::Mod { dst, lhs, rhs },
        B::Exponential => Instr::Exp { dst, lhs, rhs },
        B::BitwiseAnd => Instr::BitAnd { dst, lhs, rhs },
        B::BitwiseOR => Instr::BitOr { dst, lhs, rhs },
        B::BitwiseXOR => Instr::BitXor { dst, lhs, rhs },
        B::ShiftLeft => Instr::Shl { dst, lhs, rhs },
        B::ShiftRight => Instr::Shr { dst, lhs, rhs },
        B::ShiftRightZeroFill => Instr::UShr { dst, lhs, rhs },
        B::Equality => Instr::Eq { dst, lhs, rhs },
        B::Inequality => Instr::NotEq { dst, lhs, rhs },
        B::StrictEquality => Instr::StrictEq { dst, lhs, rhs },
        B::StrictInequality => Instr::StrictNotEq { dst, lhs, rhs },
        B::LessThan => Instr::Lt { dst, lhs, rhs },
        B::LessEqualThan => Instr::Le { dst, lhs, rhs },
        B::GreaterThan => Instr::Gt { dst, lhs, rhs },
        B::GreaterEqualThan => Instr::Ge { dst, lhs, rhs },
        B::Instanceof => Instr::InstanceOf { dst, lhs, rhs },
        B::In => Instr::In { dst, lhs, rhs },
    })
}

fn compound_binary(op: AssignmentOperator) -> Option<BinaryOperator> {
    use AssignmentOperator as A;
    use BinaryOperator as B;
    Some(match op {
        A::Addition => B::Addition,
        A::Subtraction => B::Subtraction,
        A::Multiplication => B::Multiplication,
        A::Division => B::Division,
        A::Remainder => B::Remainder,
        A::Exponential => B::Exponential,
        A::ShiftLeft => B::ShiftLeft,
        A::ShiftRight => B::ShiftRight,
        A::ShiftRightZeroFill => B::ShiftRightZeroFill,
        A::BitwiseOR => B::BitwiseOR,
        A::BitwiseXOR => B::BitwiseXOR,
        A::BitwiseAnd => B::BitwiseAnd,
        _ => return None,
    })
}

/// `typeof x === "name"` (or `==`, `!==`, `!=`, either way round) for a name `typeof` can
/// answer: x, the name, and whether the test is for equality.
fn typeof_test<'e, 'a>(
    b: &'e BinaryExpression<'a>,
) -> Option<(&'e Expression<'a>, TypeName, bool)> {
    let equal = match b.operator {
        BinaryOperator::StrictEquality | BinaryOperator::Equality => true,
        BinaryOperator::StrictInequality | BinaryOperator::Inequality => false,
        _ => return None,
    };
    let typeof_of = |e: &'e Expression<'a>| match e.without_parentheses() {
        Expression::UnaryExpression(u) if u.operator == UnaryOperator::Typeof => Some(&u.argument),
        _ => None,
    };
    let name_of = |e: &Expression<'a>| match e.without_parentheses() {
        Expression::StringLiteral(s) => TypeName::from_name(&s.value),
        _ => None,
    };
    let (operand, name) = match (typeof_of(&b.left), typeof_of(&b.right)) {
        (Some(operand), _) => (operand, name_of(&b.right)?),
        (None, Some(operand)) => (operand, name_of(&b.left)?),
        (None, None) => return None,
    };
    Some((operand, name, equal))
}

/// A small integer literal usable as an immediate.
fn small_int(e: &Expression<'_>) -> Option<i16> {
    match e.without_parentheses() {
        Expression::NumericLiteral(n)
            if n.value.fract() == 0.0
                && n.value.abs() <= i16::MAX as f64
                && !(n.value == 0.0 && n.value.is_sign_negative()) =>
        {
            Some(n.value as i16)
        }
        _ => None,
    }
}

/// A reference evaluated for a compound assignment or update.
/// The key of a `super` property reference.
pub(crate) enum SuperKey<'b, 'a> {
    Name(&'b str),
    Expr(&'b Expression<'a>),
}

pub(crate) enum Place {
    Symbol(oxc_semantic::SymbolId, Span),
    Global(String, Span),
    Named {
        obj: Reg,
        name: String,
    },
    Index {
        obj: Reg,
        key: Reg,
    },
    Private {
        obj: Reg,
        key: Reg,
    },
    /// `super[key]`: r[base] from LoadSuperBase
    Super {
        base: Reg,
        key: Reg,
    },
    /// a name an object environment may hold: r[obj] is that object or undefined
    Dynamic {
        obj: Reg,
        name: String,
        target: crate::dynamic::Target,
        span: Span,
    },
}

impl<'a> Compiler<'a> {
    pub(crate) fn expr(&mut self, e: &Expression<'a>, dst: Reg) -> R<()> {
        self.enter(e.span())?;
        let mark = self.fs.mark();
        let result = self.expr_inner(e, dst);
        self.fs.release(mark);
        self.leave();
        result
    }

    /// The value of `e` in some register (a local's own register or a new temporary).
    pub(crate) fn expr_reg(&mut self, e: &Expression<'a>) -> R<Reg> {
        if let Expression::Identifier(id) = e.get_inner_expression()
            && let Some(sym) = self.symbol_of_ref(id)
            && let Some(r) = self.symbol_register(sym, id.span)?
        {
            return Ok(r);
        }
        let r = self.fs.alloc()?;
        self.expr(e, r)?;
        Ok(r)
    }

    /// Like `expr_reg`, but copies a local if `later` may assign it.
    fn expr_reg_before(&mut self, e: &Expression<'a>, later: &[&Expression<'a>]) -> R<Reg> {
        if later.iter().any(|l| may_assign(l)) {
            let r = self.fs.alloc()?;
            self.expr(e, r)?;
            Ok(r)
        } else {
            self.expr_reg(e)
        }
    }

    /// Evaluate `e` for its effects only.
    pub(crate) fn expr_effect(&mut self, e: &Expression<'a>) -> R<()> {
        let mark = self.fs.mark();
        match e.get_inner_expression() {
            Expression::AssignmentExpression(a) => {
                self.enter(a.span)?;
                self.assignment(a, None)?;
                self.leave();
            }
            Expression::UpdateExpression(u) => {
                self.enter(u.span)?;
                self.update(u, None)?;
                self.leave();
            }
            Expression::SequenceExpression(s) => {
                for e in &s.expressions {
                    self.expr_effect(e)?;
                }
            }
            other => {
                let r = self.fs.alloc()?;
                self.expr(other, r)?;
            }
        }
        self.fs.release(mark);
        Ok(())
    }

    /// Compile `e`, naming it `name` if it is an anonymous function or class.
    pub(crate) fn expr_named(&mut self, e: &Expression<'a>, dst: Reg, name: Option<&str>) -> R<()> {
        match (name, e.get_inner_expression()) {
            (Some(name), inner) if is_anonymous_function(inner) => {
                self.enter(e.span())?;
                match inner {
                    Expression::FunctionExpression(f) => {
                        let index = self.compile_function(f, utf16(name), None)?;
                        self.emit_closure(dst, index)?;
                    }
                    Expression::ArrowFunctionExpression(a) => {
                        let index = self.compile_arrow(a, utf16(name))?;
                        self.emit_closure(dst, index)?;
                    }
                    Expression::ClassExpression(c) => self.class(c, dst, Some(utf16(name)))?,
                    _ => {}
                }
                self.leave();
                Ok(())
            }
            _ => self.expr(e, dst),
        }
    }

    fn expr_inner(&mut self, e: &Expression<'a>, dst: Reg) -> R<()> {
        match e {
            Expression::BooleanLiteral(b) => {
                self.emit(if b.value {
                    Instr::LoadTrue { dst }
                } else {
                    Instr::LoadFalse { dst }
                });
            }
            Expression::NullLiteral(_) => {
                self.emit(Instr::LoadNull { dst });
            }
            Expression::NumericLiteral(n) => self.load_number(dst, n.value)?,
            Expression::StringLiteral(s) => {
                let value = if s.lone_surrogates {
                    decode_lone_surrogates(&s.value)
                } else {
                    utf16(&s.value)
                };
                let idx = self.fs.string(value)?;
                self.emit(Instr::LoadConst { dst, idx });
            }
            Expression::BigIntLiteral(b) => {
                let idx = self.fs.constant(Constant::BigInt(b.value.to_string()))?;
                self.emit(Instr::LoadConst { dst, idx });
            }
            Expression::RegExpLiteral(r) => {
                let raw = &self.source[r.span.start as usize..r.span.end as usize];
                let (pattern, flags) = match raw.rfind('/') {
                    Some(i) if i > 0 => (&raw[1..i], &raw[i + 1..]),
                    _ => (raw, ""),
                };
                let idx = self.fs.constant(Constant::RegExp {
                    pattern: utf16(pattern),
                    flags: flags.to_string(),
                })?;
                self.pos(r.span);
                self.emit(Instr::NewRegExp { dst, idx });
            }
            Expression::TemplateLiteral(t) => self.template(t, dst)?,
            Expression::Identifier(id) => self.identifier(id, dst)?,
            Expression::ThisExpression(t) => self.load_this(dst, t.span)?,
            Expression::Super(s) => return self.unsupported("bare super", s.span),
            Expression::ArrayExpression(a) => self.array(a, dst)?,
            Expression::ObjectExpression(o) => self.object(o, dst)?,
            Expression::FunctionExpression(f) => {
                let name = f.id.as_ref().map(|id| utf16(&id.name)).unwrap_or_default();
                let index = self.compile_function(f, name, None)?;
                self.emit_closure(dst, index)?;
            }
            Expression::ArrowFunctionExpression(a) => {
                let index = self.compile_arrow(a, Vec::new())?;
                self.emit_closure(dst, index)?;
            }
            Expression::ClassExpression(c) => self.class(c, dst, None)?,
            Expression::AssignmentExpression(a) => self.assignment(a, Some(dst))?,
            Expression::UpdateExpression(u) => self.update(u, Some(dst))?,
            Expression::UnaryExpression(u) => self.unary(u, dst)?,
            Expression::BinaryExpression(b) => self.binary(b, dst)?,
            Expression::PrivateInExpression(p) => {
                let obj = self.expr_reg(&p.right)?;
                let key = self.private_key(&p.left.name, p.span)?;
                self.pos(p.span);
                self.emit(Instr::HasPrivate { dst, obj, key });
            }
            Expression::LogicalExpression(l) => self.logical(l, dst)?,
            Expression::ConditionalExpression(c) => {
                let else_jumps = self.jump_if_false(&c.test)?;
                self.expr(&c.consequent, dst)?;
                let end = self.fs.jump();
                self.fs.patch_all_here(&else_jumps);
                self.expr(&c.alternate, dst)?;
                self.fs.patch_here(end);
            }
            Expression::SequenceExpression(s) => {
                let n = s.expressions.len();
                for (i, e) in s.expressions.iter().enumerate() {
                    if i + 1 == n {
                        self.expr(e, dst)?;
                    } else {
                        self.expr_effect(e)?;
                    }
                }
            }
            Expression::ParenthesizedExpression(p) => self.expr(&p.expression, dst)?,
            // TypeScript: the value inside the type
            Expression::TSAsExpression(t) => self.expr(&t.expression, dst)?,
            Expression::TSSatisfiesExpression(t) => self.expr(&t.expression, dst)?,
            Expression::TSTypeAssertion(t) => self.expr(&t.expression, dst)?,
            Expression::TSNonNullExpression(t) => self.expr(&t.expression, dst)?,
            Expression::TSInstantiationExpression(t) => self.expr(&t.expression, dst)?,
            Expression::CallExpression(c) => self.call(c, dst)?,
            Expression::NewExpression(n) => self.new_expression(n, dst)?,
            Expression::StaticMemberExpression(_)
            | Expression::ComputedMemberExpression(_)
            | Expression::PrivateFieldExpression(_) => {
                if let Some(m) = e.as_member_expression() {
                    self.member(m, dst)?;
                }
            }
            Expression::ChainExpression(c) => {
                self.fs.chain_jumps.push(Vec::new());
                match &c.expression {
                    ChainElement::CallExpression(call) => self.call(call, dst)?,
                    // `a?.b!`: still part of the chain
                    ChainElement::TSNonNullExpression(t) => self.expr(&t.expression, dst)?,
                    other => {
                        if let Some(m) = other.as_member_expression() {
                            self.member(m, dst)?;
                        }
                    }
                }
                let jumps = self.fs.chain_jumps.pop().unwrap_or_default();
                if !jumps.is_empty() {
                    let end = self.fs.jump();
                    self.fs.patch_all_here(&jumps);
                    self.emit(Instr::LoadUndefined { dst });
                    self.fs.patch_here(end);
                }
            }
            Expression::TaggedTemplateExpression(t) => self.tagged_template_call(t, Some(dst))?,
            Expression::YieldExpression(y) => self.yield_expression(y, dst)?,
            Expression::AwaitExpression(a) => {
                let v = self.expr_reg(&a.argument)?;
                self.pos(a.span);
                self.emit(Instr::Await { dst, src: v });
            }
            Expression::NewTarget(n) => self.load_new_target(dst, n.span)?,
            Expression::ImportMeta(m) => {
                if self.script_kind != kiln_bytecode::ScriptKind::Module {
                    return Err(CompileError::new(
                        "Cannot use 'import.meta' outside a module",
                        m.span.start,
                    ));
                }
                self.emit(Instr::LoadImportMeta { dst });
            }
            Expression::ImportExpression(i) => {
                // `import.defer()` (a proposal) loads like `import()`.
                let mark = self.fs.mark();
                let src = self.fs.alloc_n(2)?;
                self.expr(&i.source, src)?;
                match &i.options {
                    Some(opts) => self.expr(opts, src + 1)?,
                    None => {
                        self.emit(Instr::LoadUndefined { dst: src + 1 });
                    }
                }
                self.pos(i.span);
                let source = i.phase == Some(oxc_ast::ast::ImportPhase::Source);
                self.emit(Instr::ImportDynamic { dst, src, source });
                self.fs.release(mark);
            }
            Expression::JSXElement(_) | Expression::JSXFragment(_) => {
                return self.unsupported("JSX", e.span());
            }
            Expression::V8IntrinsicExpression(v) => {
                return self.unsupported("V8 intrinsics", v.span);
            }
        }
        Ok(())
    }

    fn identifier(&mut self, id: &IdentifierReference<'a>, dst: Reg) -> R<()> {
        if let Some(sym) = self.symbol_of_ref(id) {
            return self.load_symbol(sym, dst, id.span);
        }
        if self.dynamic(&id.name, None).is_some() {
            return self.load_name(&id.name, None, dst, id.span, false);
        }
        match id.name.as_str() {
            "undefined" => {
                self.emit(Instr::LoadUndefined { dst });
                return Ok(());
            }
            "arguments" => {
                if let Some(loc) = self.arguments_loc() {
                    return self.load_loc(loc, dst, id.span);
                }
            }
            _ => {}
        }
        let site = self.fs.site(&id.name)?;
        self.pos(id.span);
        self.emit(Instr::GetGlobal { dst, site });
        Ok(())
    }

    // ---- conditions ----

    /// Jumps taken when `e` is falsy (falls through when truthy).
    pub(crate) fn jump_if_false(&mut self, e: &Expression<'a>) -> R<Vec<usize>> {
        self.jump_if(e, false)
    }

    /// Jumps taken when ToBoolean(`e`) is `when`; falls through otherwise.
    fn jump_if(&mut self, e: &Expression<'a>, when: bool) -> R<Vec<usize>> {
        self.enter(e.span())?;
        let result = match e {
            Expression::ParenthesizedExpression(p) => self.jump_if(&p.expression, when),
            Expression::BooleanLiteral(b) if b.value != when => Ok(Vec::new()),
            Expression::UnaryExpression(u) if u.operator == UnaryOperator::LogicalNot => {
                self.jump_if(&u.argument, !when)
            }
            Expression::LogicalExpression(l) if l.operator != LogicalOperator::Coalesce => {
                self.logical_jumps(l, when)
            }
            _ => {
                let mark = self.fs.mark();
                let r = self.expr_reg(e)?;
                self.fs.release(mark);
                Ok(vec![self.emit(if when {
                    Instr::JumpIfTrue { src: r, offset: 0 }
                } else {
                    Instr::JumpIfFalse { src: r, offset: 0 }
                })])
            }
        };
        self.leave();
        result
    }

    /// The jumps of a condition made of `&&` and `||`, taken when its value is `when`;
    /// the chain in its left operand is compiled in a loop (see `chain.rs`).
    ///
    /// A link `l op r` asked for jumps on `when` compiles `l` for jumps on false (`&&`)
    /// or true (`||`). Those jumps are the link's own when they go the same way; otherwise
    /// they land just past `r`, where the link's outcome is the fall-through one. `r` is
    /// compiled for jumps on `when`, which are the link's.
    fn logical_jumps(&mut self, top: &LogicalExpression<'a>, when: bool) -> R<Vec<usize>> {
        let links = logical_links(top, false);
        let left_when = |op: LogicalOperator| op == LogicalOperator::Or;
        let mut jumps = self.jump_if(&links[0].left, left_when(links[0].operator))?;
        for (i, link) in links.iter().enumerate() {
            // what the enclosing link (or the caller, for the outermost) asks of this one
            let link_when = links
                .get(i + 1)
                .map_or(when, |outer| left_when(outer.operator));
            let (mut own, past_right) = if left_when(link.operator) == link_when {
                (jumps, Vec::new())
            } else {
                (Vec::new(), jumps)
            };
            own.extend(self.jump_if(&link.right, link_when)?);
            self.fs.patch_all_here(&past_right);
            jumps = own;
        }
        Ok(jumps)
    }

    /// `a && b`, `a || b`, `a ?? b`, with the logical operators nested in the left operand
    /// compiled in a loop (see `chain.rs`). Each link leaves its value in `dst`; a link that
    /// short-circuits jumps past its right operand, or past a run of links with the same
    /// operator, which would each short-circuit on the same value.
    fn logical(&mut self, top: &LogicalExpression<'a>, dst: Reg) -> R<()> {
        let links = logical_links(top, true);
        self.expr(&links[0].left, dst)?;
        let mut short_circuits = Vec::new();
        for (i, link) in links.iter().enumerate() {
            short_circuits.push(self.emit(match link.operator {
                LogicalOperator::And => Instr::JumpIfFalse {
                    src: dst,
                    offset: 0,
                },
                LogicalOperator::Or => Instr::JumpIfTrue {
                    src: dst,
                    offset: 0,
                },
                LogicalOperator::Coalesce => Instr::JumpIfNotNullish {
                    src: dst,
                    offset: 0,
                },
            }));
            self.expr(&link.right, dst)?;
            if links
                .get(i + 1)
                .is_none_or(|next| next.operator != link.operator)
            {
                self.fs.patch_all_here(&short_circuits);
                short_circuits.clear();
            }
        }
        Ok(())
    }

    // ---- operators ----

    /// The register holding the value `typeof operand` examines (`dst` or the operand's
    /// own): an unresolvable name reads as undefined instead of throwing.
    fn typeof_operand(&mut self, operand: &Expression<'a>, dst: Reg) -> R<Reg> {
        if let Expression::Identifier(id) = operand.get_inner_expression()
            && let sym = self.symbol_of_ref(id)
            && (sym.is_none() || sym.is_some_and(|s| self.eval_by_name(s)))
            && self.dynamic(&id.name, sym).is_some()
        {
            self.load_name(&id.name, sym, dst, id.span, true)?;
            return Ok(dst);
        }
        if let Expression::Identifier(id) = operand.get_inner_expression()
            && self.symbol_of_ref(id).is_none()
            && !(id.name == "arguments" && self.arguments_loc().is_some())
        {
            if id.name == "undefined" {
                self.emit(Instr::LoadUndefined { dst });
            } else {
                let site = self.fs.site(&id.name)?;
                self.emit(Instr::GetGlobalOrUndefined { dst, site });
            }
            return Ok(dst);
        }
        self.expr_reg(operand)
    }

    /// A binary operator, and the ones nested in its left operand: a left-associative
    /// chain (`a + b - c * d + e`, a generated `"a" + "a" + … + "a"` of thousands of
    /// terms) nests to the left, so its links are compiled in a loop, innermost first,
    /// each into one accumulator; only the right operands recurse. (`**` nests to the
    /// right and still recurses.) A `typeof` test against a name is one `TypeOfIs`.
    fn binary(&mut self, b: &BinaryExpression<'a>, dst: Reg) -> R<()> {
        if let Some((operand, name, equal)) = typeof_test(b) {
            let src = self.typeof_operand(operand, dst)?;
            self.pos(b.span);
            self.emit(Instr::TypeOfIs { dst, src, name });
            if !equal {
                self.emit(Instr::Not { dst, src: dst });
            }
            return Ok(());
        }
        let links = binary_links(b);
        // The running value of the chain; the last link writes `dst`, which may be a
        // variable's own register and so is written only once every operand has been read.
        let acc = if links.len() > 1 {
            self.fs.alloc()?
        } else {
            dst
        };
        let mark = self.fs.mark();
        let mut lhs = None;
        for (i, link) in links.iter().enumerate() {
            let target = if i + 1 == links.len() { dst } else { acc };
            if link.operator == BinaryOperator::Addition
                && let Some(imm) = small_int(&link.right)
            {
                let lhs = match lhs {
                    Some(r) => r,
                    None => self.expr_reg(&link.left)?,
                };
                self.pos(link.span);
                self.emit(Instr::AddImm {
                    dst: target,
                    lhs,
                    imm,
                });
            } else {
                let lhs = match lhs {
                    Some(r) => r,
                    None => self.expr_reg_before(&link.left, &[&link.right])?,
                };
                let rhs = self.expr_reg(&link.right)?;
                self.pos(link.span);
                if let Some(i) = binary_instr(link.operator, target, lhs, rhs) {
                    self.emit(i);
                }
            }
            self.fs.release(mark);
            lhs = Some(target);
        }
        Ok(())
    }

    fn unary(&mut self, u: &UnaryExpression<'a>, dst: Reg) -> R<()> {
        match u.operator {
            UnaryOperator::UnaryNegation => {
                if let Expression::NumericLiteral(n) = &u.argument {
                    return self.load_number(dst, -n.value);
                }
                let src = self.expr_reg(&u.argument)?;
                self.pos(u.span);
                self.emit(Instr::Neg { dst, src });
            }
            UnaryOperator::UnaryPlus => {
                let src = self.expr_reg(&u.argument)?;
                self.pos(u.span);
                self.emit(Instr::ToNumber { dst, src });
            }
            UnaryOperator::LogicalNot => {
                let src = self.expr_reg(&u.argument)?;
                self.emit(Instr::Not { dst, src });
            }
            UnaryOperator::BitwiseNot => {
                let src = self.expr_reg(&u.argument)?;
                self.pos(u.span);
                self.emit(Instr::BitNot { dst, src });
            }
            UnaryOperator::Void => {
                self.expr_effect(&u.argument)?;
                self.emit(Instr::LoadUndefined { dst });
            }
            UnaryOperator::Typeof => {
                let src = self.typeof_operand(&u.argument, dst)?;
                self.emit(Instr::TypeOf { dst, src });
            }
            UnaryOperator::Delete => self.delete(&u.argument, dst, u.span)?,
        }
        Ok(())
    }

    fn delete(&mut self, arg: &Expression<'a>, dst: Reg, span: Span) -> R<()> {
        match arg.get_inner_expression() {
            Expression::StaticMemberExpression(m) => {
                if matches!(m.object, Expression::Super(_)) {
                    return self.throw_error(
                        ErrorKind::ReferenceError,
                        "Unsupported reference to 'super'",
                    );
                }
                let obj = self.expr_reg(&m.object)?;
                let key = self.fs.alloc()?;
                self.load_str(key, &m.property.name)?;
                self.pos(span);
                self.emit(Instr::Delete { dst, obj, key });
            }
            Expression::ComputedMemberExpression(m) => {
                if matches!(m.object, Expression::Super(_)) {
                    return self.throw_error(
                        ErrorKind::ReferenceError,
                        "Unsupported reference to 'super'",
                    );
                }
                let obj = self.expr_reg_before(&m.object, &[&m.expression])?;
                let key = self.expr_reg(&m.expression)?;
                self.pos(span);
                self.emit(Instr::Delete { dst, obj, key });
            }
            Expression::ChainExpression(c) => {
                // `delete a?.b`: undefined/null base gives true.
                let Some(m) = c.expression.as_member_expression() else {
                    self.expr_effect(arg)?;
                    self.emit(Instr::LoadTrue { dst });
                    return Ok(());
                };
                let obj = self.fs.alloc()?;
                self.expr(m.object(), obj)?;
                let skip = if m.optional() {
                    Some(self.emit(Instr::JumpIfNullish {
                        src: obj,
                        offset: 0,
                    }))
                } else {
                    None
                };
                let key = self.fs.alloc()?;
                match m {
                    MemberExpression::StaticMemberExpression(s) => {
                        self.load_str(key, &s.property.name)?
                    }
                    MemberExpression::ComputedMemberExpression(c) => {
                        self.expr(&c.expression, key)?
                    }
                    MemberExpression::PrivateFieldExpression(p) => {
                        return self.unsupported("delete of a private field", p.span);
                    }
                }
                self.emit(Instr::Delete { dst, obj, key });
                if let Some(skip) = skip {
                    let end = self.fs.jump();
                    self.fs.patch_here(skip);
                    self.emit(Instr::LoadTrue { dst });
                    self.fs.patch_here(end);
                }
            }
            Expression::Identifier(id)
                if self.dynamic(&id.name, self.symbol_of_ref(id)).is_some() =>
            {
                let sym = self.symbol_of_ref(id);
                let r = self.resolve(&id.name, sym);
                let obj = self.fs.alloc()?;
                self.emit_lookup(&id.name, &r.objects, obj)?;
                let key = self.fs.alloc()?;
                self.load_str(key, &id.name)?;
                let j = self.emit(Instr::JumpIfUndefined {
                    src: obj,
                    offset: 0,
                });
                self.emit(Instr::Delete { dst, obj, key });
                let end = self.fs.jump();
                self.fs.patch_here(j);
                match r.target {
                    crate::dynamic::Target::Global => {
                        self.emit(Instr::LoadGlobalObject { dst: obj });
                        self.emit(Instr::Delete { dst, obj, key });
                    }
                    _ => {
                        self.emit(Instr::LoadFalse { dst });
                    }
                }
                self.fs.patch_here(end);
            }
            Expression::Identifier(id) => {
                if self
                    .symbol_of_ref(id)
                    .is_some_and(|s| !self.is_global_symbol(s))
                    || (id.name == "arguments" && self.arguments_loc().is_some())
                {
                    self.emit(Instr::LoadFalse { dst });
                } else {
                    // Unqualified delete of a global (sloppy mode only).
                    let obj = self.fs.alloc()?;
                    self.emit(Instr::LoadGlobalObject { dst: obj });
                    let key = self.fs.alloc()?;
                    self.load_str(key, &id.name)?;
                    self.emit(Instr::Delete { dst, obj, key });
                }
            }
            other => {
                self.expr_effect(other)?;
                self.emit(Instr::LoadTrue { dst });
            }
        }
        Ok(())
    }

    // ---- references for compound assignment ----

    fn simple_target_place(
        &mut self,
        target: &SimpleAssignmentTarget<'a>,
        later: &[&Expression<'a>],
    ) -> R<Place> {
        match target_reference(target) {
            Some(TargetReference::Identifier(id)) => self.identifier_place(id),
            Some(TargetReference::Member(m)) => self.member_place(m, later),
            None => Err(CompileError::new(
                "Invalid assignment target",
                target.span().start,
            )),
        }
    }

    pub(crate) fn identifier_place(&mut self, id: &IdentifierReference<'a>) -> R<Place> {
        let sym = self.symbol_of_ref(id);
        if let Some(r) = self.dynamic(&id.name, sym) {
            let obj = self.fs.alloc()?;
            if r.objects.is_empty() {
                self.emit(Instr::LoadUndefined { dst: obj });
            } else {
                self.emit_lookup(&id.name, &r.objects, obj)?;
            }
            return Ok(Place::Dynamic {
                obj,
                name: id.name.to_string(),
                target: r.target,
                span: id.span,
            });
        }
        Ok(match sym {
            Some(sym) => Place::Symbol(sym, id.span),
            None => Place::Global(id.name.to_string(), id.span),
        })
    }

    pub(crate) fn member_place(
        &mut self,
        m: &MemberExpression<'a>,
        later: &[&Expression<'a>],
    ) -> R<Place> {
        match m {
            MemberExpression::StaticMemberExpression(s) => {
                if matches!(s.object, Expression::Super(_)) {
                    let (base, key) = self.super_reference(SuperKey::Name(&s.property.name))?;
                    return Ok(Place::Super { base, key });
                }
                let obj = self.expr_reg_before(&s.object, later)?;
                Ok(Place::Named {
                    obj,
                    name: s.property.name.to_string(),
                })
            }
            MemberExpression::ComputedMemberExpression(c) => {
                if matches!(c.object, Expression::Super(_)) {
                    let (base, key) = self.super_reference(SuperKey::Expr(&c.expression))?;
                    return Ok(Place::Super { base, key });
                }
                let mut after: Vec<&Expression<'a>> = vec![&c.expression];
                after.extend_from_slice(later);
                let obj = self.expr_reg_before(&c.object, &after)?;
                let key = self.expr_reg_before(&c.expression, later)?;
                Ok(Place::Index { obj, key })
            }
            MemberExpression::PrivateFieldExpression(p) => {
                let obj = self.expr_reg_before(&p.object, later)?;
                let key = self.private_key(&p.field.name, p.span)?;
                Ok(Place::Private { obj, key })
            }
        }
    }

    /// Read `place` into r[dst] for a compound assignment or update and return the place to
    /// write back: an `o[k]` place then names the key as converted by the read, in r[dst+1]
    /// (see [`Self::update_value_reg`]).
    fn read_place(&mut self, place: Place, dst: Reg) -> R<Place> {
        match &place {
            Place::Symbol(sym, span) => self.load_symbol(*sym, dst, *span)?,
            Place::Global(name, span) => {
                if name == "arguments"
                    && let Some(loc) = self.arguments_loc()
                {
                    self.load_loc(loc, dst, *span)?;
                    return Ok(place);
                }
                let site = self.fs.site(name)?;
                self.pos(*span);
                self.emit(Instr::GetGlobal { dst, site });
            }
            Place::Named { obj, name } => {
                let site = self.fs.site(name)?;
                self.emit(Instr::GetNamed {
                    dst,
                    obj: *obj,
                    site,
                });
            }
            Place::Index { obj, key } => {
                self.emit(Instr::GetIndexUpdate {
                    dst,
                    obj: *obj,
                    key: *key,
                });
                return Ok(Place::Index {
                    obj: *obj,
                    key: dst + 1,
                });
            }
            Place::Private { obj, key } => {
                self.emit(Instr::GetPrivate {
                    dst,
                    obj: *obj,
                    key: *key,
                });
            }
            Place::Super { base, key } => {
                // The key is converted once, after the base is taken (it is a temporary).
                self.emit(Instr::ToPropertyKey {
                    dst: *key,
                    src: *key,
                });
                self.emit(Instr::GetSuper {
                    dst,
                    base: *base,
                    key: *key,
                });
            }
            Place::Dynamic {
                obj,
                name,
                target,
                span,
            } => {
                let (obj, target, span) = (*obj, *target, *span);
                let name = name.clone();
                self.read_found(obj, target, &name, dst, span, false)?;
            }
        }
        Ok(place)
    }

    /// The register for the value of a compound assignment or update of `place`: `o[k]`
    /// places take two (see [`Self::read_place`]).
    fn update_value_reg(&mut self, place: &Place) -> R<Reg> {
        match place {
            Place::Index { .. } => self.fs.alloc_n(2),
            _ => self.fs.alloc(),
        }
    }

    pub(crate) fn write_place(&mut self, place: &Place, src: Reg) -> R<()> {
        match place {
            Place::Symbol(sym, span) => self.store_symbol(*sym, src, false, *span)?,
            Place::Global(name, span) => {
                if name == "arguments"
                    && let Some(loc) = self.arguments_loc()
                {
                    return self.store_loc(loc, src, *span);
                }
                let site = self.fs.site(name)?;
                self.pos(*span);
                self.emit(Instr::SetGlobal { src, site });
            }
            Place::Named { obj, name } => {
                let site = self.fs.site(name)?;
                self.emit(Instr::SetNamed {
                    obj: *obj,
                    src,
                    site,
                });
            }
            Place::Index { obj, key } => {
                self.emit(Instr::SetIndex {
                    obj: *obj,
                    key: *key,
                    src,
                });
            }
            Place::Private { obj, key } => {
                self.emit(Instr::SetPrivate {
                    obj: *obj,
                    key: *key,
                    src,
                });
            }
            Place::Super { base, key } => {
                self.emit(Instr::SetSuper {
                    base: *base,
                    key: *key,
                    src,
                });
            }
            Place::Dynamic {
                obj,
                name,
                target,
                span,
            } => {
                let (obj, target, span) = (*obj, *target, *span);
                let name = name.clone();
                self.write_found(obj, target, &name, src, false, span)?;
            }
        }
        Ok(())
    }

    // ---- assignment ----

    fn assignment(&mut self, a: &AssignmentExpression<'a>, dst: Option<Reg>) -> R<()> {
        let op = a.operator;
        if op == AssignmentOperator::Assign {
            match &a.left {
                AssignmentTarget::AssignmentTargetIdentifier(id) => {
                    let name = identifier_ref_name(a, id);
                    // Straight into a register-resident variable when safe.
                    if let Some(sym) = self.symbol_of_ref(id)
                        && let Ok(Loc::Reg(r)) = self.plain_loc_of(sym, id.span)
                        && writes_destination_last(&a.right)
                        && !self.is_const(sym)
                        && !self.needs_tdz_check(sym)
                        && !self.self_names.contains(&sym)
                    {
                        self.expr_named(&a.right, r, name)?;
                        if let Some(d) = dst
                            && d != r
                        {
                            self.emit(Instr::Mov { dst: d, src: r });
                        }
                        return Ok(());
                    }
                    let v = match dst {
                        Some(d) => d,
                        None => self.fs.alloc()?,
                    };
                    // A name an object environment may hold is resolved before the value is
                    // evaluated (which may add or delete bindings); other places resolve to
                    // the same binding either way.
                    let early = self
                        .dynamic(&id.name, self.symbol_of_ref(id))
                        .map(|_| self.identifier_place(id))
                        .transpose()?;
                    self.expr_named(&a.right, v, name)?;
                    let place = match early {
                        Some(place) => place,
                        None => self.identifier_place(id)?,
                    };
                    self.pos(a.span);
                    return self.write_place(&place, v);
                }
                AssignmentTarget::ArrayAssignmentTarget(_)
                | AssignmentTarget::ObjectAssignmentTarget(_) => {
                    let v = match dst {
                        Some(d) => d,
                        None => self.fs.alloc()?,
                    };
                    self.expr(&a.right, v)?;
                    // The pattern may overwrite locals `v` aliases: keep the value in v.
                    return self.assign_target(&a.left, v);
                }
                _ => {}
            }
            let Some(simple) = a.left.as_simple_assignment_target() else {
                return self.unsupported("this assignment target", a.span);
            };
            let place = self.simple_target_place(simple, &[&a.right])?;
            let v = match dst {
                Some(d) => d,
                None => self.fs.alloc()?,
            };
            self.expr(&a.right, v)?;
            self.pos(a.span);
            return self.write_place(&place, v);
        }
        // Fast path: `x op= y` on a register-resident variable.
        if let AssignmentTarget::AssignmentTargetIdentifier(id) = &a.left
            && let Some(bop) = compound_binary(op)
            && let Some(sym) = self.symbol_of_ref(id)
            && let Ok(Loc::Reg(r)) = self.plain_loc_of(sym, id.span)
            && !self.is_const(sym)
            && !self.needs_tdz_check(sym)
            && !self.self_names.contains(&sym)
            && !may_assign(&a.right)
        {
            let rhs = self.expr_reg(&a.right)?;
            self.pos(a.span);
            if let Some(i) = binary_instr(bop, r, r, rhs) {
                self.emit(i);
            }
            if let Some(d) = dst
                && d != r
            {
                self.emit(Instr::Mov { dst: d, src: r });
            }
            return Ok(());
        }
        let Some(simple) = a.left.as_simple_assignment_target() else {
            return self.unsupported("this assignment target", a.span);
        };
        let place = self.simple_target_place(simple, &[&a.right])?;
        let v = match dst {
            Some(d) if !matches!(place, Place::Symbol(..) | Place::Index { .. }) => d,
            _ => self.update_value_reg(&place)?,
        };
        self.pos(a.span);
        let place = self.read_place(place, v)?;
        match op {
            AssignmentOperator::LogicalAnd
            | AssignmentOperator::LogicalOr
            | AssignmentOperator::LogicalNullish => {
                let j = match op {
                    AssignmentOperator::LogicalAnd => {
                        self.emit(Instr::JumpIfFalse { src: v, offset: 0 })
                    }
                    AssignmentOperator::LogicalOr => {
                        self.emit(Instr::JumpIfTrue { src: v, offset: 0 })
                    }
                    _ => self.emit(Instr::JumpIfNotNullish { src: v, offset: 0 }),
                };
                let name = match simple {
                    SimpleAssignmentTarget::AssignmentTargetIdentifier(id) => {
                        identifier_ref_name(a, id)
                    }
                    _ => None,
                };
                self.expr_named(&a.right, v, name)?;
                self.pos(a.span);
                self.write_place(&place, v)?;
                self.fs.patch_here(j);
            }
            _ => {
                let Some(bop) = compound_binary(op) else {
                    return self.unsupported("this assignment operator", a.span);
                };
                let rhs = self.expr_reg(&a.right)?;
                self.pos(a.span);
                if let Some(i) = binary_instr(bop, v, v, rhs) {
                    self.emit(i);
                }
                self.write_place(&place, v)?;
            }
        }
        if let Some(d) = dst
            && d != v
        {
            self.emit(Instr::Mov { dst: d, src: v });
        }
        Ok(())
    }

    fn update(&mut self, u: &UpdateExpression<'a>, dst: Option<Reg>) -> R<()> {
        let inc = u.operator == UpdateOperator::Increment;
        let step = |dst: Reg, src: Reg| {
            if inc {
                Instr::Inc { dst, src }
            } else {
                Instr::Dec { dst, src }
            }
        };
        // `Inc` and `Dec` apply ToNumeric themselves; the old value needs its own only
        // when a postfix expression's value is used.
        let old_value_used = dst.is_some() && !u.prefix;
        // Fast path: a variable in a register.
        if let SimpleAssignmentTarget::AssignmentTargetIdentifier(id) = &u.argument
            && let Some(sym) = self.symbol_of_ref(id)
            && let Ok(Loc::Reg(r)) = self.plain_loc_of(sym, id.span)
            && !self.is_const(sym)
            && !self.needs_tdz_check(sym)
            && !self.self_names.contains(&sym)
        {
            self.pos(u.span);
            match dst {
                Some(d) if old_value_used => {
                    self.emit(Instr::ToNumeric { dst: d, src: r });
                    self.emit(step(r, d));
                }
                Some(d) => {
                    self.emit(step(r, r));
                    self.emit(Instr::Mov { dst: d, src: r });
                }
                None => {
                    self.emit(step(r, r));
                }
            }
            return Ok(());
        }
        let place = self.simple_target_place(&u.argument, &[])?;
        let old = self.update_value_reg(&place)?;
        self.pos(u.span);
        let place = self.read_place(place, old)?;
        if old_value_used {
            self.emit(Instr::ToNumeric { dst: old, src: old });
        }
        let new = self.fs.alloc()?;
        self.emit(step(new, old));
        self.write_place(&place, new)?;
        if let Some(d) = dst {
            self.emit(Instr::Mov {
                dst: d,
                src: if u.prefix { new } else { old },
            });
        }
        Ok(())
    }

    // ---- member access ----

    pub(crate) fn member(&mut self, m: &MemberExpression<'a>, dst: Reg) -> R<()> {
        match m {
            MemberExpression::StaticMemberExpression(s) => {
                if matches!(s.object, Expression::Super(_)) {
                    self.pos(s.span);
                    let (base, key) = self.super_reference(SuperKey::Name(&s.property.name))?;
                    self.emit(Instr::GetSuper { dst, base, key });
                    return Ok(());
                }
                let obj = self.expr_reg(&s.object)?;
                if s.optional {
                    self.optional_check(obj);
                }
                let site = self.fs.site(&s.property.name)?;
                self.fs.position(s.property.span.start);
                self.emit(Instr::GetNamed { dst, obj, site });
            }
            MemberExpression::ComputedMemberExpression(c) => {
                if matches!(c.object, Expression::Super(_)) {
                    self.pos(c.span);
                    let (base, key) = self.super_reference(SuperKey::Expr(&c.expression))?;
                    self.pos(c.span);
                    self.emit(Instr::GetSuper { dst, base, key });
                    return Ok(());
                }
                let obj = self.expr_reg_before(&c.object, &[&c.expression])?;
                if c.optional {
                    self.optional_check(obj);
                }
                let key = self.expr_reg(&c.expression)?;
                self.pos(c.span);
                self.emit(Instr::GetIndex { dst, obj, key });
            }
            MemberExpression::PrivateFieldExpression(p) => {
                let obj = self.expr_reg(&p.object)?;
                if p.optional {
                    self.optional_check(obj);
                }
                let key = self.private_key(&p.field.name, p.span)?;
                self.pos(p.span);
                self.emit(Instr::GetPrivate { dst, obj, key });
            }
        }
        Ok(())
    }

    fn optional_check(&mut self, obj: Reg) {
        let j = self.emit(Instr::JumpIfNullish {
            src: obj,
            offset: 0,
        });
        if let Some(list) = self.fs.chain_jumps.last_mut() {
            list.push(j);
        }
    }

    /// A register holding the private name `#name` of an enclosing class.
    pub(crate) fn private_key(&mut self, name: &str, span: Span) -> R<Reg> {
        let loc = self
            .classes
            .iter()
            .rev()
            .find_map(|c| c.names.get(name).copied());
        let Some(loc) = loc else {
            return Err(CompileError::new(
                format!("Private field '#{name}' must be declared in an enclosing class"),
                span.start,
            ));
        };
        let r = self.fs.alloc()?;
        self.load_loc(loc, r, span)?;
        Ok(r)
    }

    // ---- calls ----

    fn has_spread(args: &[Argument<'a>]) -> bool {
        args.len() > 255 || args.iter().any(|a| matches!(a, Argument::SpreadElement(_)))
    }

    /// Put the arguments at r[base+1..] (or an array at r[base+1] for the spread form).
    fn arguments(&mut self, args: &[Argument<'a>], base: Reg, spread: bool) -> R<()> {
        if spread {
            let arr = base + 1;
            self.emit(Instr::NewArray {
                dst: arr,
                capacity: args.len().min(u16::MAX as usize) as u16,
            });
            let t = self.fs.alloc()?;
            for a in args {
                match a {
                    Argument::SpreadElement(s) => {
                        self.expr(&s.argument, t)?;
                        self.pos(s.span);
                        self.emit(Instr::ArraySpread { arr, src: t });
                    }
                    _ => {
                        if let Some(e) = a.as_expression() {
                            self.expr(e, t)?;
                            self.emit(Instr::ArrayPush { arr, src: t });
                        }
                    }
                }
            }
        } else {
            for (i, a) in args.iter().enumerate() {
                if let Some(e) = a.as_expression() {
                    self.expr(e, base + 1 + i as Reg)?;
                }
            }
        }
        Ok(())
    }

    fn call(&mut self, call: &CallExpression<'a>, dst: Reg) -> R<()> {
        if matches!(call.callee, Expression::Super(_)) {
            return self.super_call(&call.arguments, dst, call.span);
        }
        let spread = Self::has_spread(&call.arguments);
        let argc = if spread {
            1
        } else {
            call.arguments.len() as u32
        };
        let func = self.fs.alloc()?;
        let base = self.fs.alloc_n(1 + argc)?;
        let no_this = self.callee_and_this_unless_undefined(&call.callee, func, base)?;
        if call.optional {
            self.optional_check(func);
        }
        self.arguments(&call.arguments, base, spread)?;
        self.pos(call.span);
        let is_eval = matches!(call.callee.without_parentheses(), Expression::Identifier(id) if id.name == "eval" && self.symbol_of_ref(id).is_none())
            && !matches!(call.callee, Expression::ParenthesizedExpression(_))
            && !call.optional;
        if no_this && !is_eval && !spread {
            self.emit(Instr::CallNoThis {
                dst,
                func,
                args: base,
                argc: argc as u8,
            });
            return Ok(());
        }
        if no_this {
            self.emit(Instr::LoadUndefined { dst: base });
        }
        if is_eval {
            self.eval_scope_constant()?;
            self.emit(Instr::CallEval {
                dst,
                func,
                args: base,
                argc: if spread { 255 } else { argc as u8 },
            });
        } else if spread {
            self.emit(Instr::CallSpread {
                dst,
                func,
                args: base,
            });
        } else {
            self.emit(Instr::Call {
                dst,
                func,
                args: base,
                argc: argc as u8,
            });
        }
        Ok(())
    }

    /// `return f(...)` in tail position: emit TailCall if the call is an
    /// ordinary one. Returns false (emitting nothing) otherwise.
    pub(crate) fn tail_call(&mut self, call: &CallExpression<'a>) -> R<bool> {
        if matches!(call.callee, Expression::Super(_))
            || call.optional
            || Self::has_spread(&call.arguments)
            || matches!(
                call.callee.get_inner_expression(),
                Expression::ChainExpression(_)
            )
        {
            return Ok(false);
        }
        // A direct eval (an unresolved `eval`) runs in this frame.
        if matches!(call.callee.without_parentheses(), Expression::Identifier(id) if id.name == "eval" && self.symbol_of_ref(id).is_none())
        {
            return Ok(false);
        }
        let argc = call.arguments.len() as u32;
        let func = self.fs.alloc()?;
        let base = self.fs.alloc_n(1 + argc)?;
        self.callee_and_this(&call.callee, func, base)?;
        self.arguments(&call.arguments, base, false)?;
        self.pos(call.span);
        self.emit(Instr::TailCall {
            func,
            args: base,
            argc: argc as u8,
        });
        Ok(true)
    }

    /// r[func] = the callee, r[base] = the `this` value for the call.
    fn callee_and_this(&mut self, callee: &Expression<'a>, func: Reg, base: Reg) -> R<()> {
        if self.callee_and_this_unless_undefined(callee, func, base)? {
            self.emit(Instr::LoadUndefined { dst: base });
        }
        Ok(())
    }

    /// [`Self::callee_and_this`], except that an undefined `this` (the callee is not a
    /// property) is not written: true then, for a call that says so itself
    /// (`CallNoThis`).
    fn callee_and_this_unless_undefined(
        &mut self,
        callee: &Expression<'a>,
        func: Reg,
        base: Reg,
    ) -> R<bool> {
        if let Some(m) = callee.as_member_expression() {
            self.member_callee_and_this(m, func, base)?;
            return Ok(false);
        }
        match callee {
            Expression::ChainExpression(c) if c.expression.is_member_expression() => {
                // `(a?.b)()` calls with `this` = a as well; a short-circuited chain gives an
                // undefined callee (the call then throws, unless it is optional too).
                self.fs.chain_jumps.push(Vec::new());
                if let Some(m) = c.expression.as_member_expression() {
                    self.member_callee_and_this(m, func, base)?;
                }
                let jumps = self.fs.chain_jumps.pop().unwrap_or_default();
                if !jumps.is_empty() {
                    let end = self.fs.jump();
                    self.fs.patch_all_here(&jumps);
                    self.emit(Instr::LoadUndefined { dst: func });
                    self.emit(Instr::LoadUndefined { dst: base });
                    self.fs.patch_here(end);
                }
            }
            Expression::ParenthesizedExpression(p) if p.expression.is_member_expression() => {
                return self.callee_and_this_unless_undefined(&p.expression, func, base);
            }
            // `(o.f as F)()` and `o.f!()` call with `this` = o, as `(o.f)()` does
            e if is_type_wrapper(e) => {
                return self.callee_and_this_unless_undefined(e.get_inner_expression(), func, base);
            }
            Expression::Identifier(id)
                if self
                    .dynamic(&id.name, self.symbol_of_ref(id))
                    .is_some_and(|r| !r.objects.is_empty()) =>
            {
                let sym = self.symbol_of_ref(id);
                let r = self.resolve(&id.name, sym);
                self.dynamic_callee(&id.name, &r, func, base, id.span)?;
            }
            _ => {
                self.expr(callee, func)?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// [`Self::callee_and_this`] for a member expression: `this` is its object.
    fn member_callee_and_this(
        &mut self,
        callee: &MemberExpression<'a>,
        func: Reg,
        base: Reg,
    ) -> R<()> {
        match callee {
            MemberExpression::StaticMemberExpression(s) => {
                if matches!(s.object, Expression::Super(_)) {
                    self.load_this(base, s.span)?;
                    let (sbase, key) = self.super_reference(SuperKey::Name(&s.property.name))?;
                    self.emit(Instr::GetSuper {
                        dst: func,
                        base: sbase,
                        key,
                    });
                    return Ok(());
                }
                self.expr(&s.object, base)?;
                if s.optional {
                    self.optional_check(base);
                }
                let site = self.fs.site(&s.property.name)?;
                self.fs.position(s.property.span.start);
                self.emit(Instr::GetNamed {
                    dst: func,
                    obj: base,
                    site,
                });
            }
            MemberExpression::ComputedMemberExpression(c) => {
                if matches!(c.object, Expression::Super(_)) {
                    self.load_this(base, c.span)?;
                    let (sbase, key) = self.super_reference(SuperKey::Expr(&c.expression))?;
                    self.emit(Instr::GetSuper {
                        dst: func,
                        base: sbase,
                        key,
                    });
                    return Ok(());
                }
                self.expr(&c.object, base)?;
                if c.optional {
                    self.optional_check(base);
                }
                let key = self.expr_reg(&c.expression)?;
                self.pos(c.span);
                self.emit(Instr::GetIndex {
                    dst: func,
                    obj: base,
                    key,
                });
            }
            MemberExpression::PrivateFieldExpression(p) => {
                self.expr(&p.object, base)?;
                if p.optional {
                    self.optional_check(base);
                }
                let key = self.private_key(&p.field.name, p.span)?;
                self.pos(p.span);
                self.emit(Instr::GetPrivate {
                    dst: func,
                    obj: base,
                    key,
                });
            }
        }
        Ok(())
    }

    fn super_call(&mut self, args: &[Argument<'a>], dst: Reg, span: Span) -> R<()> {
        if self.fs.is_arrow {
            return self.super_call_from_arrow(args, dst, span);
        }
        self.sync_this_register()?;
        let spread = Self::has_spread(args);
        let argc = if spread { 1 } else { args.len() as u32 };
        let base = self.fs.alloc_n(1 + argc)?;
        self.arguments(args, base, spread)?;
        self.pos(span);
        if spread {
            self.emit(Instr::SuperCallSpread { dst, args: base });
        } else {
            self.emit(Instr::SuperCall {
                dst,
                args: base,
                argc: argc as u8,
            });
        }
        // Field initialisers see `this` bound, also through closures.
        self.after_super_call()?;
        self.emit(Instr::InitClassFields);
        Ok(())
    }

    /// `super(...)` in an arrow (or eval code): the constructor, its new.target and `this`
    /// live in the constructor's environment.
    fn super_call_from_arrow(&mut self, args: &[Argument<'a>], dst: Reg, span: Span) -> R<()> {
        let owner = self.outer.iter().rev().find(|f| !f.is_arrow);
        let locs = owner.map(|o| (o.callee_loc, o.new_target_loc, o.this_loc));
        let (Some(callee), Some(new_target), Some(Loc::Env { env, slot })) =
            locs.unwrap_or((None, None, None))
        else {
            return Err(crate::error::CompileError::new(
                "'super' keyword unexpected here",
                span.start,
            ));
        };
        let func = self.fs.alloc_n(3)?;
        self.load_loc(callee, func, span)?;
        self.load_loc(new_target, func + 1, span)?;
        let spread = Self::has_spread(args);
        let argc = if spread { 1 } else { args.len() as u32 };
        if !spread && argc > 254 {
            return self.unsupported("super() with more than 254 arguments", span);
        }
        let base = self.fs.alloc_n(1 + argc)?;
        self.arguments(args, base, spread)?;
        self.get_env(func + 2, env, slot, None, span)?;
        self.pos(span);
        self.emit(Instr::SuperCallFrom {
            dst,
            func,
            args: base,
            argc: if spread { 255 } else { argc as u8 },
        });
        self.set_env(dst, env, slot, span)
    }

    /// `super.x` reads its receiver from r0: in arrows and eval code, put the lexical
    /// `this` there first.
    fn super_receiver(&mut self) -> R<()> {
        if self.fs.is_arrow {
            self.load_this(0, Span::default())
        } else {
            self.sync_this_register()
        }
    }

    /// The reference `super.name` / `super[expr]`, in the order of
    /// [its evaluation](https://tc39.es/ecma262/#sec-super-keyword-runtime-semantics-evaluation):
    /// the `this` binding (ReferenceError before `super()`), the key (into a new register), then
    /// the base. Returns `(base, key)`; ToPropertyKey is left to the access.
    fn super_reference(&mut self, key: SuperKey<'_, 'a>) -> R<(Reg, Reg)> {
        self.super_receiver()?;
        if self.fs.is_derived && !self.fs.is_arrow {
            let name = self.fs.str("this")?;
            self.emit(Instr::ThrowIfHole { src: 0, name });
        }
        let k = self.fs.alloc()?;
        match key {
            SuperKey::Name(name) => self.load_str(k, name)?,
            SuperKey::Expr(e) => self.expr(e, k)?,
        }
        let base = self.fs.alloc()?;
        self.emit(Instr::LoadSuperBase { dst: base });
        Ok((base, k))
    }

    fn new_expression(&mut self, n: &NewExpression<'a>, dst: Reg) -> R<()> {
        let spread = Self::has_spread(&n.arguments);
        let argc = if spread { 1 } else { n.arguments.len() as u32 };
        let func = self.fs.alloc()?;
        self.expr(&n.callee, func)?;
        let base = self.fs.alloc_n(1 + argc)?;
        self.arguments(&n.arguments, base, spread)?;
        self.pos(n.span);
        if spread {
            self.emit(Instr::NewSpread {
                dst,
                func,
                args: base,
            });
        } else {
            self.emit(Instr::New {
                dst,
                func,
                args: base,
                argc: argc as u8,
            });
        }
        Ok(())
    }

    // ---- templates ----

    fn cooked(q: &TemplateElement<'_>) -> Option<Vec<u16>> {
        q.value.cooked.as_ref().map(|c| {
            if q.lone_surrogates {
                decode_lone_surrogates(c)
            } else {
                utf16(c)
            }
        })
    }

    fn template(&mut self, t: &TemplateLiteral<'a>, dst: Reg) -> R<()> {
        let first = t.quasis.first().and_then(Self::cooked).unwrap_or_default();
        let idx = self.fs.string(first)?;
        self.emit(Instr::LoadConst { dst, idx });
        let tmp = self.fs.alloc()?;
        for (i, e) in t.expressions.iter().enumerate() {
            self.expr(e, tmp)?;
            self.pos(e.span());
            self.emit(Instr::ToString { dst: tmp, src: tmp });
            self.emit(Instr::Add {
                dst,
                lhs: dst,
                rhs: tmp,
            });
            if let Some(q) = t.quasis.get(i + 1) {
                let s = Self::cooked(q).unwrap_or_default();
                if !s.is_empty() {
                    let idx = self.fs.string(s)?;
                    self.emit(Instr::LoadConst { dst: tmp, idx });
                    self.emit(Instr::Add {
                        dst,
                        lhs: dst,
                        rhs: tmp,
                    });
                }
            }
        }
        Ok(())
    }

    /// Call the tag of a tagged template; with no `dst`, as a tail call replacing the frame.
    pub(crate) fn tagged_template_call(
        &mut self,
        t: &TaggedTemplateExpression<'a>,
        dst: Option<Reg>,
    ) -> R<()> {
        let n = t.quasi.expressions.len() as u32;
        let func = self.fs.alloc()?;
        let base = self.fs.alloc_n(2 + n)?;
        self.callee_and_this(&t.tag, func, base)?;
        let cooked = t.quasi.quasis.iter().map(Self::cooked).collect();
        let raw = t.quasi.quasis.iter().map(|q| utf16(&q.value.raw)).collect();
        let idx = self.fs.constant(Constant::Template { cooked, raw })?;
        self.emit(Instr::GetTemplateObject { dst: base + 1, idx });
        for (i, e) in t.quasi.expressions.iter().enumerate() {
            self.expr(e, base + 2 + i as Reg)?;
        }
        self.pos(t.span);
        if n + 1 > 255 {
            return self.unsupported("tagged templates with more than 254 substitutions", t.span);
        }
        let argc = (n + 1) as u8;
        self.emit(match dst {
            Some(dst) => Instr::Call {
                dst,
                func,
                args: base,
                argc,
            },
            None => Instr::TailCall {
                func,
                args: base,
                argc,
            },
        });
        Ok(())
    }

    // ---- literals ----

    fn array(&mut self, a: &ArrayExpression<'a>, dst: Reg) -> R<()> {
        // Build in a temporary: elements may read the variable `dst` belongs to.
        let arr = self.fs.alloc()?;
        self.emit(Instr::NewArray {
            dst: arr,
            capacity: a.elements.len().min(u16::MAX as usize) as u16,
        });
        let t = self.fs.alloc()?;
        for el in &a.elements {
            match el {
                ArrayExpressionElement::Elision(_) => {
                    self.emit(Instr::LoadHole { dst: t });
                    self.emit(Instr::ArrayPush { arr, src: t });
                }
                ArrayExpressionElement::SpreadElement(s) => {
                    let v = self.expr_reg(&s.argument)?;
                    self.pos(s.span);
                    self.emit(Instr::ArraySpread { arr, src: v });
                }
                _ => {
                    if let Some(e) = el.as_expression() {
                        let v = self.expr_reg(e)?;
                        self.emit(Instr::ArrayPush { arr, src: v });
                        self.fs.release(t as u32 + 1);
                    }
                }
            }
        }
        self.emit(Instr::Mov { dst, src: arr });
        Ok(())
    }

    /// The static name of a property key, if it has one.
    pub(crate) fn static_key(&self, key: &PropertyKey<'a>) -> Option<Vec<u16>> {
        match key {
            PropertyKey::StaticIdentifier(id) => Some(utf16(&id.name)),
            PropertyKey::StringLiteral(s) => Some(if s.lone_surrogates {
                decode_lone_surrogates(&s.value)
            } else {
                utf16(&s.value)
            }),
            PropertyKey::NumericLiteral(n) => Some(utf16(&number_to_string(n.value))),
            PropertyKey::BigIntLiteral(b) => Some(utf16(&b.value)),
            _ => None,
        }
    }

    /// r[dst] = the key (ToPropertyKey applied to computed keys).
    pub(crate) fn property_key(&mut self, key: &PropertyKey<'a>, dst: Reg) -> R<()> {
        if let Some(name) = self.static_key(key) {
            let idx = self.fs.string(name)?;
            self.emit(Instr::LoadConst { dst, idx });
            return Ok(());
        }
        match key.as_expression() {
            Some(e) => {
                self.expr(e, dst)?;
                self.pos(e.span());
                self.emit(Instr::ToPropertyKey { dst, src: dst });
                Ok(())
            }
            None => self.unsupported("this property key", key.span()),
        }
    }

    fn object(&mut self, o: &ObjectExpression<'a>, dst: Reg) -> R<()> {
        let obj = self.fs.alloc()?;
        let defined = (o.properties.iter())
            .filter(|p| matches!(p, ObjectPropertyKind::ObjectProperty(_)))
            .count();
        self.emit(Instr::NewObject {
            dst: obj,
            capacity: defined.min(u16::MAX as usize) as u16,
        });
        for prop in &o.properties {
            let mark = self.fs.mark();
            match prop {
                ObjectPropertyKind::SpreadProperty(s) => {
                    let v = self.expr_reg(&s.argument)?;
                    self.pos(s.span);
                    self.emit(Instr::CopyDataProperties { dst: obj, src: v });
                }
                ObjectPropertyKind::ObjectProperty(p) => {
                    let static_name = if p.computed {
                        None
                    } else {
                        self.static_key(&p.key)
                    };
                    match p.kind {
                        PropertyKind::Init if !p.method => {
                            let is_proto = static_name.as_deref() == Some(&utf16("__proto__")[..])
                                && !p.shorthand;
                            let v = self.fs.alloc()?;
                            match static_name {
                                Some(name) => {
                                    // [PropertyDefinitionEvaluation](https://tc39.es/ecma262/#sec-runtime-semantics-propertydefinitionevaluation):
                                    // `__proto__: v` names no function and sets the prototype.
                                    if is_proto {
                                        self.expr(&p.value, v)?;
                                        self.emit(Instr::SetLiteralPrototype { obj, src: v });
                                    } else {
                                        let fname = String::from_utf16_lossy(&name);
                                        self.expr_named(&p.value, v, Some(&fname))?;
                                        let site = self.fs.site_utf16(name)?;
                                        self.emit(Instr::DefineNamed { obj, src: v, site });
                                    }
                                }
                                None => {
                                    let key = self.fs.alloc()?;
                                    self.property_key(&p.key, key)?;
                                    self.expr(&p.value, v)?;
                                    if is_anonymous_function(&p.value)
                                        && !defines_static_name(&p.value)
                                    {
                                        self.emit(Instr::SetFunctionName { func: v, key });
                                    }
                                    self.emit(Instr::DefineIndex { obj, key, src: v });
                                }
                            }
                        }
                        _ => {
                            let key = self.fs.alloc()?;
                            self.property_key(&p.key, key)?;
                            let Expression::FunctionExpression(f) = &p.value else {
                                return self.unsupported("this object member", p.span);
                            };
                            let base_name = static_name
                                .map(|n| String::from_utf16_lossy(&n))
                                .unwrap_or_default();
                            let (name, kind) = match p.kind {
                                PropertyKind::Get => {
                                    (format!("get {base_name}"), MethodKind::ObjectGetter)
                                }
                                PropertyKind::Set => {
                                    (format!("set {base_name}"), MethodKind::ObjectSetter)
                                }
                                PropertyKind::Init => (base_name, MethodKind::ObjectMethod),
                            };
                            let index = self.compile_function(
                                f,
                                utf16(&name),
                                Some(kiln_bytecode::FunctionKind::Method),
                            )?;
                            self.set_source_start(index, p.span.start);
                            let func = self.fs.alloc()?;
                            self.emit_closure(func, index)?;
                            self.emit(Instr::DefineMethod {
                                obj,
                                key,
                                func,
                                kind,
                            });
                        }
                    }
                }
            }
            self.fs.release(mark);
        }
        self.emit(Instr::Mov { dst, src: obj });
        Ok(())
    }

    // ---- generators ----

    fn yield_expression(&mut self, y: &YieldExpression<'a>, dst: Reg) -> R<()> {
        let is_async = self.fs.kind.is_async();
        if y.delegate {
            let src = match &y.argument {
                Some(a) => self.expr_reg(a)?,
                None => return self.unsupported("yield* without an operand", y.span),
            };
            self.pos(y.span);
            if is_async {
                let iter = self.fs.alloc_n(3)?;
                self.emit(Instr::GetAsyncIterator { iter, src });
                self.emit(Instr::YieldDelegateAsync { dst, iter });
            } else {
                let iter = self.fs.alloc_n(2)?;
                self.emit(Instr::GetIterator { iter, src });
                self.emit(Instr::YieldDelegate { dst, iter });
            }
            return Ok(());
        }
        let v = self.fs.alloc()?;
        match &y.argument {
            Some(a) => self.expr(a, v)?,
            None => {
                self.emit(Instr::LoadUndefined { dst: v });
            }
        }
        self.pos(y.span);
        if is_async {
            self.emit(Instr::Await { dst: v, src: v });
        }
        self.emit(Instr::Yield { dst, src: v });
        Ok(())
    }
}

/// Number::toString for property keys written as numeric literals.
pub(crate) fn number_to_string(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    if v == 0.0 {
        return "0".into();
    }
    if v.fract() == 0.0 && v.abs() < 1e21 {
        return format!("{}", v as i128);
    }
    // Shortest round-trip digits, then ECMAScript's exponent layout.
    let s = format!("{v:e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let k = digits.len() as i32;
    let n = exp + 1;
    let body = if k <= n && n <= 21 {
        format!("{}{}", digits, "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{}", "0".repeat((-n) as usize), digits)
    } else {
        let e = n - 1;
        let sign = if e >= 0 { "+" } else { "-" };
        if k == 1 {
            format!("{}e{}{}", digits, sign, e.abs())
        } else {
            format!("{}.{}e{}{}", &digits[..1], &digits[1..], sign, e.abs())
        }
    };
    if negative { format!("-{body}") } else { body }
}

/// The name an anonymous function assigned by `a` takes: its target's, when the target is
/// an IdentifierRef: not a parenthesised one (`(f) = function () {}`), whose parentheses the
/// parser drops but whose span starts after the assignment's.
fn identifier_ref_name<'s>(
    a: &AssignmentExpression<'_>,
    id: &'s IdentifierReference<'_>,
) -> Option<&'s str> {
    (a.span.start == id.span.start).then_some(id.name.as_str())
}
