//! The parsed pattern: a tree of nodes whose flags-dependent parts (case folding of
//! classes, which `^`/`$`/`.` apply) are already resolved by the parser.

use crate::charset::CharSet;

#[derive(Debug)]
pub enum Node {
    Empty,
    /// one character (code point with `u`/`v`, otherwise code unit)
    Char {
        c: u32,
        ignore_case: bool,
    },
    /// a character class
    Class(Box<Class>),
    /// `.`
    Dot {
        dot_all: bool,
    },
    /// terms matched one after the other
    Seq(Vec<Node>),
    /// alternatives tried in order
    Alt(Vec<Node>),
    /// a capturing group (index from 1)
    Capture {
        index: u32,
        body: Box<Node>,
    },
    Look {
        behind: bool,
        negate: bool,
        body: Box<Node>,
    },
    Repeat(Box<Repeat>),
    Assert(Assertion),
    /// a backreference: the groups it may refer to (several for a duplicated name)
    BackRef {
        groups: Vec<u32>,
        ignore_case: bool,
    },
    /// a named backreference, resolved once all groups are known
    NamedBackRef {
        name: String,
        ignore_case: bool,
    },
}

#[derive(Debug)]
pub struct Repeat {
    pub body: Node,
    pub min: u64,
    /// u64::MAX for no upper bound
    pub max: u64,
    pub greedy: bool,
    /// the capture groups inside the body: `first..first + count`
    pub first_group: u32,
    pub group_count: u32,
}

#[derive(Debug)]
pub struct Class {
    pub set: CharSet,
    /// strings of zero or two and more characters (`v` flag), each matched before the set
    pub strings: Vec<Vec<u32>>,
    /// `[^...]` outside `v` mode: matches characters outside the closed set
    pub negate: bool,
    /// match with case folding: the set is closed over case at compile time
    pub ignore_case: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assertion {
    /// `^` without / with multiline
    Start,
    LineStart,
    End,
    LineEnd,
    /// `\b` / `\B`; `unicode_ignore_case` selects the word characters of `/ui`
    WordBoundary {
        negate: bool,
        unicode_ignore_case: bool,
    },
}
