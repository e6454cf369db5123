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

/// `top` and the binary operators nested in its left operand, innermost first: the links
/// of `((a + b) - c) * d` are `a + b`, `… - c`, `… * d`.
pub(crate) fn binary_links<'e, 'a>(top: &'e BinaryExpression<'a>) -> Vec<&'e BinaryExpression<'a>> {
    let mut links = vec![top];
    let mut left = &top.left;
    while let Expression::BinaryExpression(inner) = left {
        links.push(inner);
        left = &inner.left;
    }
    links.reverse();
    links
}

/// `top` and the logical operators nested in its left operand, innermost first; with
/// `through_coalesce` false the chain stops at a `??` (conditions treat only `&&` and `||`
/// as jumps).
pub(crate) fn logical_links<'e, 'a>(
    top: &'e LogicalExpression<'a>,
    through_coalesce: bool,
) -> Vec<&'e LogicalExpression<'a>> {
    let mut links = vec![top];
    let mut left = &top.left;
    while let Expression::LogicalExpression(inner) = left
        && (through_coalesce || inner.operator != LogicalOperator::Coalesce)
    {
        links.push(inner);
        left = &inner.left;
    }
    links.reverse();
    links
}

/// A visitor's `visit_binary_expression` without recursion per link: the leftmost operand,
/// then the right operands from the innermost link out, the order of the default walk.
/// (The links' `enter_node`, `leave_node` and `visit_span` are skipped: the compiler's
/// visitors do not override them.)
pub(crate) fn visit_binary<'a, V: Visit<'a>>(visitor: &mut V, top: &BinaryExpression<'a>) {
    let links = binary_links(top);
    visitor.visit_expression(&links[0].left);
    for link in links {
        visitor.visit_expression(&link.right);
    }
}

/// A visitor's `visit_logical_expression` without recursion per link (see
/// [`visit_binary`]).
pub(crate) fn visit_logical<'a, V: Visit<'a>>(visitor: &mut V, top: &LogicalExpression<'a>) {
    let links = logical_links(top, true);
    visitor.visit_expression(&links[0].left);
    for link in links {
        visitor.visit_expression(&link.right);
    }
}
