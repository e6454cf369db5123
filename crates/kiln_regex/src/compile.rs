//! The parsed pattern to a program for the backtracking VM ([`crate::vm`]).
//!
//! Case-insensitive characters and classes become the set of every character with the
//! same canonical form (closed at compile time, so matching never folds a class). A
//! lookbehind is compiled backwards: its terms in reverse order, reading characters to
//! the left, each capture saving its end before its start.

use crate::ast::{Assertion, Class, Node, Repeat};
use crate::charset::CharSet;
use crate::unicode::{self, MAX_CODE_POINT};

/// A test of one character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CharTest {
    Char(u32),
    /// either of two characters (a letter under `/i`)
    Pair(u32, u32),
    /// a member of `sets[i]`
    Set(u32),
    /// any character
    Any,
    /// any character but a line terminator
    NotLineTerminator,
}

/// One instruction. `back` reads to the left of the position (inside a lookbehind).
#[derive(Clone, Copy, Debug)]
pub enum Inst {
    /// consume one character passing the test
    One {
        test: CharTest,
        back: bool,
    },
    /// consume `min..=max` characters passing the test, greedily or lazily
    Star {
        test: CharTest,
        min: u64,
        max: u64,
        greedy: bool,
        back: bool,
    },
    /// consume the literal `strings[i]` (case-sensitive)
    Literal {
        index: u32,
        back: bool,
    },
    /// go on at `next`; on failure, resume at `alt`
    Split {
        next: u32,
        alt: u32,
    },
    Jump(u32),
    /// captures[slot] = position
    Save(u32),
    /// clear capture slots `from..to` (a quantified group's captures, each iteration)
    ClearCaptures {
        from: u32,
        to: u32,
    },
    Assert(Assertion),
    BackRef {
        /// groups in `group_lists[i]`
        groups: u32,
        ignore_case: bool,
        back: bool,
    },
    /// start a lookaround: registers[reg] = backtrack height; the body follows; `end`
    /// is the instruction after its `LookEnd`
    LookStart {
        reg: u32,
        negate: bool,
        end: u32,
    },
    LookEnd {
        reg: u32,
        negate: bool,
    },
    /// registers[reg] = 0 (a quantifier's iteration count)
    ZeroCounter(u32),
    /// decide on another iteration of a general quantifier; the body follows, `exit`
    /// is after the loop
    Loop {
        counter: u32,
        min: u64,
        max: u64,
        greedy: bool,
        exit: u32,
    },
    /// registers[reg] = position (where an iteration started)
    MarkPosition(u32),
    /// end of an iteration: the empty check, then count it and go back to `head`
    LoopTail {
        counter: u32,
        /// the register of MarkPosition, or u32::MAX when the body cannot match empty
        mark: u32,
        min: u64,
        head: u32,
    },
    Match,
}

/// A character set ready for matching: a bitmap for Latin-1, ranges for the rest.
#[derive(Clone, Debug)]
pub struct SetMatcher {
    latin1: [u64; 4],
    ranges: Box<[(u32, u32)]>,
}

impl SetMatcher {
    fn new(set: &CharSet) -> SetMatcher {
        let mut latin1 = [0u64; 4];
        for &(a, b) in set.ranges() {
            for c in a..=b.min(255) {
                latin1[(c / 64) as usize] |= 1 << (c % 64);
            }
        }
        SetMatcher {
            latin1,
            ranges: set.ranges().into(),
        }
    }

    #[inline]
    pub fn contains(&self, c: u32) -> bool {
        if c < 256 {
            return self.latin1[(c / 64) as usize] & (1 << (c % 64)) != 0;
        }
        let i = self.ranges.partition_point(|r| r.1 < c);
        self.ranges.get(i).is_some_and(|r| r.0 <= c)
    }
}

/// A literal every match starts with, ready for searching.
pub struct Prefix {
    /// the literal in UTF-16
    pub units: Vec<u16>,
    /// a searcher over one-byte text; None when some unit is above 255 (then one-byte
    /// text never contains it)
    pub bytes: Option<memchr::memmem::Finder<'static>>,
}

impl Prefix {
    fn new(chars: &[u32]) -> Prefix {
        let mut units = Vec::with_capacity(chars.len());
        for &c in chars {
            match char::from_u32(c) {
                Some(ch) => units.extend_from_slice(ch.encode_utf16(&mut [0; 2])),
                None => units.push(c as u16), // a lone surrogate
            }
        }
        let bytes = units
            .iter()
            .map(|&u| u8::try_from(u).ok())
            .collect::<Option<Vec<u8>>>()
            .map(|b| memchr::memmem::Finder::new(&b).into_owned());
        Prefix { units, bytes }
    }
}

impl SetMatcher {
    fn heap_bytes(&self) -> usize {
        size_of::<SetMatcher>() + self.ranges.len() * size_of::<(u32, u32)>()
    }
}

impl Prefix {
    /// An estimate: the searcher's tables are in its own size.
    fn heap_bytes(&self) -> usize {
        size_of::<Prefix>() + self.units.capacity() * 3
    }
}

impl Program {
    /// Bytes the program holds, estimated for memory accounting.
    pub fn heap_bytes(&self) -> usize {
        let lists = |v: &Vec<Vec<u32>>| {
            v.iter()
                .map(|l| size_of::<Vec<u32>>() + l.capacity() * size_of::<u32>())
                .sum::<usize>()
        };
        size_of::<Program>()
            + self.insts.capacity() * size_of::<Inst>()
            + self.sets.iter().map(SetMatcher::heap_bytes).sum::<usize>()
            + lists(&self.strings)
            + lists(&self.group_lists)
            + self.first.as_ref().map_or(0, SetMatcher::heap_bytes)
            + self.prefix.as_ref().map_or(0, Prefix::heap_bytes)
            + self.required.as_ref().map_or(0, Prefix::heap_bytes)
    }
}

/// A compiled pattern.
pub struct Program {
    pub insts: Vec<Inst>,
    pub sets: Vec<SetMatcher>,
    pub strings: Vec<Vec<u32>>,
    pub group_lists: Vec<Vec<u32>>,
    pub registers: usize,
    /// capture groups, not counting the whole match
    pub groups: usize,
    pub unicode: bool,
    /// the characters a match can start with (None: any, or unknown)
    pub first: Option<SetMatcher>,
    /// a literal every match starts with (case-sensitive)
    pub prefix: Option<Prefix>,
    /// the pattern starts with `^` without multiline: only position 0 can match
    pub anchored_start: bool,
    /// a literal (case-sensitive, two characters or more) that every match contains,
    /// when it is not the prefix: a search whose remaining text lacks it fails at once
    pub required: Option<Prefix>,
}

struct Compiler<'a> {
    insts: Vec<Inst>,
    sets: Vec<SetMatcher>,
    strings: Vec<Vec<u32>>,
    group_lists: Vec<Vec<u32>>,
    registers: u32,
    unicode: bool,
    names: &'a [Option<String>],
}

/// Compile a parsed pattern.
pub fn compile(root: &Node, names: &[Option<String>], unicode: bool) -> Program {
    let mut c = Compiler {
        insts: Vec::new(),
        sets: Vec::new(),
        strings: Vec::new(),
        group_lists: Vec::new(),
        registers: 0,
        unicode,
        names,
    };
    c.node(root, false);
    c.insts.push(Inst::Match);
    let mut literal = Vec::new();
    literal_prefix(root, &mut literal);
    let prefix = (literal.len() >= 2).then(|| Prefix::new(&literal));
    let first = if can_match_empty(root) {
        None
    } else {
        first_chars(root, unicode).map(|s| SetMatcher::new(&s))
    };
    let anchored_start = starts_anchored(root);
    let required = required_literal(root)
        .filter(|r| r.len() >= 2 && *r != literal)
        .map(|r| Prefix::new(&r));
    Program {
        insts: c.insts,
        sets: c.sets,
        strings: c.strings,
        group_lists: c.group_lists,
        registers: c.registers as usize,
        groups: names.len(),
        unicode,
        first,
        prefix,
        anchored_start,
        required,
    }
}

impl Compiler<'_> {
    fn pc(&self) -> u32 {
        self.insts.len() as u32
    }

    fn register(&mut self) -> u32 {
        self.registers += 1;
        self.registers - 1
    }

    fn max_char(&self) -> u32 {
        if self.unicode { MAX_CODE_POINT } else { 0xFFFF }
    }

    /// The test for a set, using the cheapest form.
    fn set_test(&mut self, set: &CharSet) -> CharTest {
        let ranges = set.ranges();
        if let Some(c) = set.single_member() {
            return CharTest::Char(c);
        }
        if let [(a, a2), (b, b2)] = ranges
            && a == a2
            && b == b2
        {
            return CharTest::Pair(*a, *b);
        }
        if ranges == [(0, self.max_char())] {
            return CharTest::Any;
        }
        self.sets.push(SetMatcher::new(set));
        CharTest::Set(self.sets.len() as u32 - 1)
    }

    fn char_test(&mut self, c: u32, ignore_case: bool) -> CharTest {
        if !ignore_case {
            return CharTest::Char(c);
        }
        let set = unicode::folding(self.unicode).closure(&CharSet::single(c));
        self.set_test(&set)
    }

    /// The single-character test of a node, if it is one.
    fn single_char_test(&mut self, node: &Node) -> Option<CharTest> {
        match node {
            Node::Char { c, ignore_case } => Some(self.char_test(*c, *ignore_case)),
            Node::Dot { dot_all } => Some(if *dot_all {
                CharTest::Any
            } else {
                CharTest::NotLineTerminator
            }),
            Node::Class(class) if class.strings.is_empty() => {
                let set = self.class_set(class);
                Some(self.set_test(&set))
            }
            _ => None,
        }
    }

    fn class_set(&self, class: &Class) -> CharSet {
        let mut set = if class.ignore_case {
            unicode::folding(self.unicode).closure(&class.set)
        } else {
            class.set.clone()
        };
        if class.negate {
            set = set.complement(self.max_char());
        }
        set
    }

    fn node(&mut self, node: &Node, back: bool) {
        if let Some(test) = self.single_char_test(node) {
            self.insts.push(Inst::One { test, back });
            return;
        }
        match node {
            Node::Empty | Node::Char { .. } | Node::Dot { .. } => {}
            Node::Class(class) => self.class_with_strings(class, back),
            Node::Seq(terms) => self.sequence(terms, back),
            Node::Alt(alternatives) => {
                let mut jumps = Vec::new();
                for (i, alt) in alternatives.iter().enumerate() {
                    if i + 1 < alternatives.len() {
                        let split = self.pc();
                        self.insts.push(Inst::Split { next: 0, alt: 0 });
                        self.node(alt, back);
                        jumps.push(self.pc());
                        self.insts.push(Inst::Jump(0));
                        let alt_pc = self.pc();
                        self.insts[split as usize] = Inst::Split {
                            next: split + 1,
                            alt: alt_pc,
                        };
                    } else {
                        self.node(alt, back);
                    }
                }
                let end = self.pc();
                for j in jumps {
                    self.insts[j as usize] = Inst::Jump(end);
                }
            }
            Node::Capture { index, body } => {
                let (open, close) = (index * 2, index * 2 + 1);
                let (first, second) = if back { (close, open) } else { (open, close) };
                self.insts.push(Inst::Save(first));
                self.node(body, back);
                self.insts.push(Inst::Save(second));
            }
            Node::Look {
                behind,
                negate,
                body,
            } => {
                let reg = self.register();
                let start = self.pc();
                self.insts.push(Inst::LookStart {
                    reg,
                    negate: *negate,
                    end: 0,
                });
                self.node(body, *behind);
                self.insts.push(Inst::LookEnd {
                    reg,
                    negate: *negate,
                });
                let end = self.pc();
                self.insts[start as usize] = Inst::LookStart {
                    reg,
                    negate: *negate,
                    end,
                };
            }
            Node::Repeat(repeat) => self.repeat(repeat, back),
            Node::Assert(a) => self.insts.push(Inst::Assert(*a)),
            Node::BackRef {
                groups,
                ignore_case,
            } => self.backref(groups.clone(), *ignore_case, back),
            Node::NamedBackRef { name, ignore_case } => {
                let groups = self
                    .names
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| n.as_deref() == Some(name.as_str()))
                    .map(|(i, _)| i as u32 + 1)
                    .collect();
                self.backref(groups, *ignore_case, back);
            }
        }
    }

    fn backref(&mut self, groups: Vec<u32>, ignore_case: bool, back: bool) {
        self.group_lists.push(groups);
        self.insts.push(Inst::BackRef {
            groups: self.group_lists.len() as u32 - 1,
            ignore_case,
            back,
        });
    }

    /// Terms in order, with runs of case-sensitive characters merged into literals.
    fn sequence(&mut self, terms: &[Node], back: bool) {
        let order: Vec<&Node> = if back {
            terms.iter().rev().collect()
        } else {
            terms.iter().collect()
        };
        let mut i = 0;
        while i < order.len() {
            let mut run = Vec::new();
            while let Some(Node::Char {
                c,
                ignore_case: false,
            }) = order.get(i + run.len())
            {
                run.push(*c);
            }
            if run.len() >= 2 {
                i += run.len();
                if back {
                    run.reverse();
                }
                self.strings.push(run);
                self.insts.push(Inst::Literal {
                    index: self.strings.len() as u32 - 1,
                    back,
                });
                continue;
            }
            self.node(order[i], back);
            i += 1;
        }
    }

    /// A `v`-mode class with strings: the longest strings first, then the characters.
    fn class_with_strings(&mut self, class: &Class, back: bool) {
        let mut strings: Vec<&Vec<u32>> = class.strings.iter().collect();
        strings.sort_by_key(|s| std::cmp::Reverse(s.len()));
        let mut alternatives: Vec<Node> = strings
            .into_iter()
            .map(|s| {
                Node::Seq(
                    s.iter()
                        .map(|&c| Node::Char {
                            c,
                            ignore_case: class.ignore_case,
                        })
                        .collect(),
                )
            })
            .collect();
        if !class.set.is_empty() {
            alternatives.push(Node::Class(Box::new(Class {
                set: class.set.clone(),
                strings: Vec::new(),
                negate: false,
                ignore_case: class.ignore_case,
            })));
        }
        self.node(&Node::Alt(alternatives), back);
    }

    /// [RepeatMatcher](https://tc39.es/ecma262/#sec-runtime-semantics-repeatmatcher-abstract-operation)
    fn repeat(&mut self, r: &Repeat, back: bool) {
        // 1. If max = 0, the body is not tried.
        if r.max == 0 {
            return;
        }
        if let Some(test) = self.single_char_test(&r.body) {
            self.insts.push(Inst::Star {
                test,
                min: r.min,
                max: r.max,
                greedy: r.greedy,
                back,
            });
            return;
        }
        if r.min == 1 && r.max == 1 {
            self.node(&r.body, back);
            return;
        }
        let counter = self.register();
        let mark = if can_match_empty(&r.body) {
            self.register()
        } else {
            u32::MAX
        };
        self.insts.push(Inst::ZeroCounter(counter));
        let head = self.pc();
        self.insts.push(Inst::Loop {
            counter,
            min: r.min,
            max: r.max,
            greedy: r.greedy,
            exit: 0,
        });
        if mark != u32::MAX {
            self.insts.push(Inst::MarkPosition(mark));
        }
        // 3. Each iteration starts with the body's captures cleared.
        if r.group_count > 0 {
            self.insts.push(Inst::ClearCaptures {
                from: r.first_group * 2,
                to: (r.first_group + r.group_count) * 2,
            });
        }
        self.node(&r.body, back);
        self.insts.push(Inst::LoopTail {
            counter,
            mark,
            min: r.min,
            head,
        });
        let exit = self.pc();
        self.insts[head as usize] = Inst::Loop {
            counter,
            min: r.min,
            max: r.max,
            greedy: r.greedy,
            exit,
        };
    }
}

/// Whether a node can match without consuming anything.
fn can_match_empty(node: &Node) -> bool {
    match node {
        Node::Empty | Node::Assert(_) | Node::Look { .. } | Node::BackRef { .. } => true,
        Node::NamedBackRef { .. } => true,
        Node::Char { .. } | Node::Dot { .. } => false,
        Node::Class(c) => c.strings.iter().any(Vec::is_empty),
        Node::Seq(terms) => terms.iter().all(can_match_empty),
        Node::Alt(alts) => alts.iter().any(can_match_empty),
        Node::Capture { body, .. } => can_match_empty(body),
        Node::Repeat(r) => r.min == 0 || can_match_empty(&r.body),
    }
}

/// The case-sensitive literal every match starts with.
fn literal_prefix(node: &Node, out: &mut Vec<u32>) -> bool {
    match node {
        Node::Char {
            c,
            ignore_case: false,
        } => {
            out.push(*c);
            true
        }
        Node::Seq(terms) => terms.iter().all(|t| literal_prefix(t, out)),
        Node::Capture { body, .. } => literal_prefix(body, out),
        _ => false,
    }
}

/// The longest run of literal characters (case-sensitive) among the terms of the
/// pattern's top-level sequence: every match contains it.
fn required_literal(node: &Node) -> Option<Vec<u32>> {
    let terms = match node {
        Node::Seq(terms) => terms,
        Node::Capture { body, .. } => return required_literal(body),
        _ => return None,
    };
    let mut best: Vec<u32> = Vec::new();
    let mut run: Vec<u32> = Vec::new();
    for term in terms {
        let mut literal = Vec::new();
        if literal_prefix(term, &mut literal) {
            run.extend(literal);
        } else {
            run.clear();
        }
        if run.len() > best.len() {
            best = run.clone();
        }
    }
    (!best.is_empty()).then_some(best)
}

/// The characters a non-empty match of `node` can start with; None when unknown.
fn first_chars(node: &Node, unicode: bool) -> Option<CharSet> {
    let max = if unicode { MAX_CODE_POINT } else { 0xFFFF };
    match node {
        Node::Empty | Node::Assert(_) | Node::Look { .. } => Some(CharSet::new()),
        Node::Char { c, ignore_case } => Some(if *ignore_case {
            unicode::folding(unicode).closure(&CharSet::single(*c))
        } else {
            CharSet::single(*c)
        }),
        Node::Dot { .. } | Node::BackRef { .. } | Node::NamedBackRef { .. } => None,
        Node::Class(class) => {
            let mut set = if class.ignore_case {
                unicode::folding(unicode).closure(&class.set)
            } else {
                class.set.clone()
            };
            if class.negate {
                set = set.complement(max);
            }
            for s in &class.strings {
                let &first = s.first()?;
                set.union(&first_chars(
                    &Node::Char {
                        c: first,
                        ignore_case: class.ignore_case,
                    },
                    unicode,
                )?);
            }
            Some(set)
        }
        Node::Seq(terms) => {
            let mut acc = CharSet::new();
            for t in terms {
                acc.union(&first_chars(t, unicode)?);
                if !can_match_empty(t) {
                    break;
                }
            }
            Some(acc)
        }
        Node::Alt(alts) => {
            let mut acc = CharSet::new();
            for a in alts {
                acc.union(&first_chars(a, unicode)?);
            }
            Some(acc)
        }
        Node::Capture { body, .. } => first_chars(body, unicode),
        Node::Repeat(r) => first_chars(&r.body, unicode),
    }
}

/// Whether the pattern can only match at the start of the input.
fn starts_anchored(node: &Node) -> bool {
    match node {
        Node::Assert(Assertion::Start) => true,
        Node::Seq(terms) => terms.first().is_some_and(starts_anchored),
        Node::Alt(alts) => alts.iter().all(starts_anchored),
        Node::Capture { body, .. } => starts_anchored(body),
        _ => false,
    }
}
