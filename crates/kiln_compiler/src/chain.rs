//! Left-deep operator chains, walked with loops.
//!
//! `a + b + c` is `(a + b) + c`: a chain of left-associative operators nests to the
//! left, one level per operator. Generated code and minified bundles hold chains of
//! thousands (`"a" + "a" + … + "a"`, `a || b || c …`), and oxc's parser builds them with
//! a loop, so every pass of the compiler walks them with a loop too: it takes the links
//! from the innermost out ([`binary_links`], [`logical_links`]) and recurses only into
//! the right operands, whose nesting is the source's brackets and the precedence levels
//! between them. (`**` is right-associative and nests to the right; it recurses, in the
//! parser as well.) oxc's semantic pass still recurses once per link, which is why the
//! nesting pre-scan counts these operators (see `nesting.rs`).

use oxc_ast::ast::{BinaryExpression, Expression, LogicalExpression};
use oxc_ast_visit::Visit;
use oxc_syntax::operator::LogicalOperator;

/// The links of a chain, innermost first. Most operators are not in a chain: one link is
/// kept without allocating.
pub(crate) enum Links<'e, T> {
    One([&'e T; 1]),
    Many(Vec<&'e T>),
}

impl<'e, T> std::ops::Deref for Links<'e, T> {
    type Target = [&'e T];
    fn deref(&self) -> &Self::Target {
        match self {
            Links::One(one) => one,
            Links::Many(many) => many,
        }
    }
}

/// `top` and the binary operators nested in its left operand, innermost first: the links
/// of `((a + b) - c) * d` are `a + b`, `… - c`, `… * d`.
pub(crate) fn binary_links<'e, 'a>(
    top: &'e BinaryExpression<'a>,
) -> Links<'e, BinaryExpression<'a>> {
    let Expression::BinaryExpression(first) = &top.left else {
        return Links::One([top]);
    };
    let mut inner: &'e BinaryExpression<'a> = first;
    let mut links = vec![top];
    loop {
        links.push(inner);
        match &inner.left {
            Expression::BinaryExpression(next) => inner = next,
            _ => break,
        }
    }
    links.reverse();
    Links::Many(links)
}

/// `top` and the logical operators nested in its left operand, innermost first; with
/// `through_coalesce` false the chain stops at a `??` (conditions treat only `&&` and `||`
/// as jumps).
pub(crate) fn logical_links<'e, 'a>(
    top: &'e LogicalExpression<'a>,
    through_coalesce: bool,
) -> Links<'e, LogicalExpression<'a>> {
    let in_chain = |e: &'e Expression<'a>| match e {
        Expression::LogicalExpression(l)
            if through_coalesce || l.operator != LogicalOperator::Coalesce =>
        {
            Some(&**l)
        }
        _ => None,
    };
    let Some(mut inner) = in_chain(&top.left) else {
        return Links::One([top]);
    };
    let mut links = vec![top];
    loop {
        links.push(inner);
        match in_chain(&inner.left) {
            Some(next) => inner = next,
            None => break,
        }
    }
    links.reverse();
    Links::Many(links)
}

/// A visitor's `visit_binary_expression` without recursion per link: the leftmost operand,
/// then the right operands from the innermost link out, the order of the default walk.
/// (The links' `enter_node`, `leave_node` and `visit_span` are skipped: the compiler's
/// visitors do not override them.)
pub(crate) fn visit_binary<'a, V: Visit<'a>>(visitor: &mut V, top: &BinaryExpression<'a>) {
    let links = binary_links(top);
    visitor.visit_expression(&links[0].left);
    for link in links.iter() {
        visitor.visit_expression(&link.right);
    }
}

/// A visitor's `visit_logical_expression` without recursion per link (see
/// [`visit_binary`]).
pub(crate) fn visit_logical<'a, V: Visit<'a>>(visitor: &mut V, top: &LogicalExpression<'a>) {
    let links = logical_links(top, true);
    visitor.visit_expression(&links[0].left);
    for link in links.iter() {
        visitor.visit_expression(&link.right);
    }
}
