//! The [Pattern grammar](https://tc39.es/ecma262/#sec-patterns) over UTF-16 pattern text,
//! with the Annex B extensions outside Unicode mode
//! ([B.1.2](https://tc39.es/ecma262/#sec-regular-expressions-patterns)) and the early
//! errors of both.
//!
//! Recursive descent; groups and nested classes recurse, bounded by [`MAX_DEPTH`] so a
//! deeply nested pattern is a SyntaxError, not a native stack overflow. Alternatives and
//! terms are loops.

use crate::ast::{Assertion, Class, Node, Repeat};
use crate::charset::CharSet;
use crate::unicode::{self, MAX_CODE_POINT};

/// How deep groups and classes may nest.
pub const MAX_DEPTH: u32 = 256;

/// The flags that shape parsing.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParseFlags {
    pub ignore_case: bool,
    pub multiline: bool,
    pub dot_all: bool,
    pub unicode: bool,
    pub unicode_sets: bool,
}

/// A parsed pattern.
pub struct Parsed {
    pub root: Node,
    /// the name of each capture group, by index from 1 (None when unnamed)
    pub names: Vec<Option<String>>,
}

type PResult<T> = Result<T, String>;

/// Parse a pattern; the message of its SyntaxError if it is invalid.
pub fn parse(src: &[u16], flags: ParseFlags) -> PResult<Parsed> {
    let unicode = flags.unicode || flags.unicode_sets;
    let total_groups = count_groups(src, flags.unicode_sets);
    let mut p = Parser::new(src, flags, total_groups, unicode);
    let root = p.parse_pattern()?;
    // Without u/v, a pattern with a group name is parsed again with \k as a reference.
    if !unicode && p.saw_group_name {
        let mut again = Parser::new(src, flags, total_groups, true);
        let root = again.parse_pattern()?;
        return again.finish(root);
    }
    p.finish(root)
}

struct Parser<'a> {
    src: &'a [u16],
    pos: usize,
    unicode: bool,
    sets: bool,
    /// `\k` is a named reference ([+NamedCaptureGroups])
    named: bool,
    ignore_case: bool,
    multiline: bool,
    dot_all: bool,
    total_groups: u32,
    groups: u32,
    names: Vec<Option<String>>,
    /// for each named group: its name and the (disjunction, alternative) path to it
    name_paths: Vec<(String, Vec<(u32, u32)>)>,
    path: Vec<(u32, u32)>,
    disjunctions: u32,
    /// names used by `\k<...>`, checked at the end
    references: Vec<String>,
    saw_group_name: bool,
    depth: u32,
}

fn is_syntax_char(c: u32) -> bool {
    matches!(
        char::from_u32(c),
        Some('^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|')
    )
}

fn hex_value(c: u32) -> Option<u32> {
    char::from_u32(c).and_then(|c| c.to_digit(16))
}

fn is_lead(c: u32) -> bool {
    (0xD800..0xDC00).contains(&c)
}

fn is_trail(c: u32) -> bool {
    (0xDC00..0xE000).contains(&c)
}

fn pair(lead: u32, trail: u32) -> u32 {
    0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00)
}

/// What a class atom is: one character or a set (`\d`, `\p{..}`, ...).
enum ClassAtom {
    Char(u32),
    Set(CharSet),
}

/// A `v`-mode class operand: characters and strings.
#[derive(Default)]
struct SetOperand {
    set: CharSet,
    strings: Vec<Vec<u32>>,
}

impl SetOperand {
    fn union(&mut self, other: SetOperand) {
        self.set.union(&other.set);
        for s in other.strings {
            if !self.strings.contains(&s) {
                self.strings.push(s);
            }
        }
    }
}

impl<'a> Parser<'a> {
    fn new(src: &'a [u16], flags: ParseFlags, total_groups: u32, named: bool) -> Parser<'a> {
        let unicode = flags.unicode || flags.unicode_sets;
        Parser {
            src,
            pos: 0,
            unicode,
            sets: flags.unicode_sets,
            named: named || unicode,
            ignore_case: flags.ignore_case,
            multiline: flags.multiline,
            dot_all: flags.dot_all,
            total_groups,
            groups: 0,
            names: Vec::new(),
            name_paths: Vec::new(),
            path: Vec::new(),
            disjunctions: 0,
            references: Vec::new(),
            saw_group_name: false,
            depth: 0,
        }
    }

    fn finish(self, root: Node) -> PResult<Parsed> {
        for r in &self.references {
            if !self.names.iter().any(|n| n.as_deref() == Some(r.as_str())) {
                return Err(format!("Invalid named capture referenced '{r}'"));
            }
        }
        Ok(Parsed {
            root,
            names: self.names,
        })
    }

    // ---- reading ----

    fn unit_at(&self, i: usize) -> Option<u32> {
        self.src.get(i).map(|&u| u as u32)
    }

    /// The next character and its length in units: a code point in Unicode mode.
    fn peek_char(&self) -> Option<(u32, usize)> {
        let c = self.unit_at(self.pos)?;
        if self.unicode
            && is_lead(c)
            && let Some(t) = self.unit_at(self.pos + 1)
            && is_trail(t)
        {
            return Some((pair(c, t), 2));
        }
        Some((c, 1))
    }

    fn peek(&self) -> Option<u32> {
        self.unit_at(self.pos)
    }

    fn peek_is(&self, c: char) -> bool {
        self.peek() == Some(c as u32)
    }

    fn peek_at_is(&self, offset: usize, c: char) -> bool {
        self.unit_at(self.pos + offset) == Some(c as u32)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek_is(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.src.len()
    }

    // ---- disjunctions, alternatives, terms ----

    fn parse_pattern(&mut self) -> PResult<Node> {
        let node = self.parse_disjunction()?;
        if !self.at_end() {
            // only a ')' stops a top-level disjunction early
            return Err("Unmatched ')'".into());
        }
        Ok(node)
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("Pattern nested too deeply".into());
        }
        Ok(())
    }

    fn parse_disjunction(&mut self) -> PResult<Node> {
        let id = self.disjunctions;
        self.disjunctions += 1;
        let mut alternatives = Vec::new();
        loop {
            self.path.push((id, alternatives.len() as u32));
            let alt = self.parse_alternative();
            self.path.pop();
            alternatives.push(alt?);
            if !self.eat('|') {
                break;
            }
        }
        Ok(if alternatives.len() == 1 {
            alternatives.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alt(alternatives)
        })
    }

    fn parse_alternative(&mut self) -> PResult<Node> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' as u32 || c == ')' as u32 {
                break;
            }
            self.parse_term(&mut terms)?;
        }
        Ok(match terms.len() {
            0 => Node::Empty,
            1 => terms.pop().unwrap_or(Node::Empty),
            _ => Node::Seq(terms),
        })
    }

    fn parse_term(&mut self, terms: &mut Vec<Node>) -> PResult<()> {
        let groups_before = self.groups;
        let Some(c) = self.peek() else {
            return Ok(());
        };
        // Assertions
        let assertion = match char::from_u32(c) {
            Some('^') => Some(if self.multiline {
                Assertion::LineStart
            } else {
                Assertion::Start
            }),
            Some('$') => Some(if self.multiline {
                Assertion::LineEnd
            } else {
                Assertion::End
            }),
            Some('\\') if self.peek_at_is(1, 'b') || self.peek_at_is(1, 'B') => {
                Some(Assertion::WordBoundary {
                    negate: self.peek_at_is(1, 'B'),
                    unicode_ignore_case: self.unicode && self.ignore_case,
                })
            }
            _ => None,
        };
        if let Some(a) = assertion {
            self.pos += if c == '\\' as u32 { 2 } else { 1 };
            terms.push(Node::Assert(a));
            return self.refuse_quantifier();
        }
        // Lookarounds
        if c == '(' as u32 && self.peek_at_is(1, '?') {
            let behind =
                self.peek_at_is(2, '<') && (self.peek_at_is(3, '=') || self.peek_at_is(3, '!'));
            let ahead = self.peek_at_is(2, '=') || self.peek_at_is(2, '!');
            if behind || ahead {
                let negate =
                    self.unit_at(self.pos + if behind { 3 } else { 2 }) == Some('!' as u32);
                self.pos += if behind { 4 } else { 3 };
                let body = self.parse_group_body()?;
                let node = Node::Look {
                    behind,
                    negate,
                    body: Box::new(body),
                };
                // Annex B: a lookahead may be quantified outside Unicode mode.
                if behind || self.unicode {
                    terms.push(node);
                    return self.refuse_quantifier();
                }
                let node = self.parse_quantifier(node, groups_before)?;
                terms.push(node);
                return Ok(());
            }
        }
        let atom = self.parse_atom()?;
        let node = self.parse_quantifier(atom, groups_before)?;
        terms.push(node);
        Ok(())
    }

    /// After an assertion: a quantifier is an error.
    fn refuse_quantifier(&mut self) -> PResult<()> {
        let save = self.pos;
        if self.try_quantifier()?.is_some() {
            return Err("Nothing to repeat".into());
        }
        self.pos = save;
        Ok(())
    }

    /// A quantifier at the current position: (min, max); consumed if present. Outside
    /// Unicode mode a `{` that does not start a quantifier is left alone (a literal).
    fn try_quantifier(&mut self) -> PResult<Option<(u64, u64)>> {
        let Some(c) = self.peek().and_then(char::from_u32) else {
            return Ok(None);
        };
        let bounds = match c {
            '*' => (0, u64::MAX),
            '+' => (1, u64::MAX),
            '?' => (0, 1),
            '{' => {
                let save = self.pos;
                self.pos += 1;
                match self.parse_braces() {
                    Some(b) => {
                        if b.0 > b.1 {
                            return Err("numbers out of order in {} quantifier".into());
                        }
                        self.pos -= 1;
                        b
                    }
                    None => {
                        self.pos = save;
                        if self.unicode {
                            return Err("Incomplete quantifier".into());
                        }
                        return Ok(None);
                    }
                }
            }
            _ => return Ok(None),
        };
        self.pos += 1;
        Ok(Some(bounds))
    }

    /// `n}`, `n,}` or `n,m}` after a `{`; the position ends after the `}`.
    fn parse_braces(&mut self) -> Option<(u64, u64)> {
        let min = self.parse_decimal()?;
        let max = if self.eat(',') {
            if self.peek_is('}') {
                u64::MAX
            } else {
                self.parse_decimal()?
            }
        } else {
            min
        };
        self.eat('}').then_some((min, max))
    }

    /// Decimal digits, saturating (bounds past 2^53 behave as infinite would).
    fn parse_decimal(&mut self) -> Option<u64> {
        let start = self.pos;
        let mut value: u64 = 0;
        while let Some(d) = self
            .peek()
            .and_then(char::from_u32)
            .and_then(|c| c.to_digit(10))
        {
            value = value.saturating_mul(10).saturating_add(d as u64);
            self.pos += 1;
        }
        (self.pos > start).then_some(value)
    }

    fn parse_quantifier(&mut self, atom: Node, groups_before: u32) -> PResult<Node> {
        let Some((min, max)) = self.try_quantifier()? else {
            return Ok(atom);
        };
        let greedy = !self.eat('?');
        Ok(Node::Repeat(Box::new(Repeat {
            body: atom,
            min,
            max,
            greedy,
            first_group: groups_before + 1,
            group_count: self.groups - groups_before,
        })))
    }

    fn parse_atom(&mut self) -> PResult<Node> {
        let Some((c, len)) = self.peek_char() else {
            return Ok(Node::Empty);
        };
        match char::from_u32(c) {
            Some('.') => {
                self.pos += 1;
                Ok(Node::Dot {
                    dot_all: self.dot_all,
                })
            }
            Some('(') => self.parse_group(),
            Some('[') => {
                self.pos += 1;
                self.enter()?;
                let class = if self.sets {
                    self.parse_class_v()
                } else {
                    self.parse_class()
                };
                self.depth -= 1;
                class
            }
            Some('\\') => self.parse_atom_escape(),
            Some('*' | '+' | '?') => Err("Nothing to repeat".into()),
            Some('{') => {
                if self.unicode {
                    return Err("Lone quantifier brackets".into());
                }
                // Annex B: `{` is a literal unless it makes a quantifier here.
                let save = self.pos;
                self.pos += 1;
                if self.parse_braces().is_some() {
                    return Err("Nothing to repeat".into());
                }
                self.pos = save + 1;
                Ok(self.char_node('{' as u32))
            }
            Some('}' | ']') if self.unicode => Err("Lone quantifier brackets".into()),
            _ => {
                self.pos += len;
                Ok(self.char_node(c))
            }
        }
    }

    fn char_node(&self, c: u32) -> Node {
        Node::Char {
            c,
            ignore_case: self.ignore_case,
        }
    }

    fn class_node(&self, set: CharSet, strings: Vec<Vec<u32>>, negate: bool) -> Node {
        Node::Class(Box::new(Class {
            set,
            strings,
            negate,
            ignore_case: self.ignore_case,
        }))
    }

    // ---- groups ----

    fn parse_group(&mut self) -> PResult<Node> {
        // at '('
        self.pos += 1;
        if !self.eat('?') {
            self.groups += 1;
            let index = self.groups;
            self.names.push(None);
            let body = self.parse_group_body()?;
            return Ok(Node::Capture {
                index,
                body: Box::new(body),
            });
        }
        if self.eat(':') {
            return self.parse_group_body();
        }
        if self.eat('<') {
            let name = self.parse_group_name()?;
            self.saw_group_name = true;
            // ES2025: a name may repeat only in alternatives that cannot both participate.
            for (other, other_path) in &self.name_paths {
                if *other == name && might_both_participate(other_path, &self.path) {
                    return Err(format!("Duplicate capture group name '{name}'"));
                }
            }
            self.name_paths.push((name.clone(), self.path.clone()));
            self.groups += 1;
            let index = self.groups;
            self.names.push(Some(name));
            let body = self.parse_group_body()?;
            return Ok(Node::Capture {
                index,
                body: Box::new(body),
            });
        }
        self.parse_modifiers()
    }

    /// `(?ims-ims:...)`: the flags change inside the group only.
    fn parse_modifiers(&mut self) -> PResult<Node> {
        let mut add = [false; 3];
        let mut remove = [false; 3];
        let mut removing = false;
        loop {
            let Some(c) = self.peek().and_then(char::from_u32) else {
                return Err("Invalid group".into());
            };
            let slot = match c {
                'i' => 0,
                'm' => 1,
                's' => 2,
                '-' if !removing => {
                    removing = true;
                    self.pos += 1;
                    continue;
                }
                ':' => break,
                _ => return Err("Invalid group".into()),
            };
            let (mine, other) = if removing {
                (&mut remove, &add)
            } else {
                (&mut add, &remove)
            };
            if mine[slot] || other[slot] {
                return Err("Repeated flag in modifiers".into());
            }
            mine[slot] = true;
            self.pos += 1;
        }
        self.pos += 1;
        if removing && !add.iter().chain(&remove).any(|&b| b) {
            return Err("Invalid modifiers: no flag to add or remove".into());
        }
        let saved = (self.ignore_case, self.multiline, self.dot_all);
        let apply = |current: bool, slot: usize| {
            if add[slot] {
                true
            } else if remove[slot] {
                false
            } else {
                current
            }
        };
        self.ignore_case = apply(self.ignore_case, 0);
        self.multiline = apply(self.multiline, 1);
        self.dot_all = apply(self.dot_all, 2);
        let body = self.parse_group_body();
        (self.ignore_case, self.multiline, self.dot_all) = saved;
        body
    }

    /// A disjunction and its closing `)`.
    fn parse_group_body(&mut self) -> PResult<Node> {
        self.enter()?;
        let body = self.parse_disjunction()?;
        self.depth -= 1;
        if !self.eat(')') {
            return Err("Unterminated group".into());
        }
        Ok(body)
    }

    /// RegExpIdentifierName and its closing `>` (after `<`).
    fn parse_group_name(&mut self) -> PResult<String> {
        let mut name = String::new();
        loop {
            let Some(u) = self.peek() else {
                return Err("Invalid capture group name".into());
            };
            if u == '>' as u32 {
                self.pos += 1;
                break;
            }
            let c = if u == '\\' as u32 {
                self.pos += 1;
                if !self.eat('u') {
                    return Err("Invalid capture group name".into());
                }
                self.parse_unicode_escape_body(true)
                    .ok_or("Invalid Unicode escape in capture group name")?
            } else {
                // Surrogate pairs form one character in group names in every mode.
                self.pos += 1;
                match self.peek() {
                    Some(t) if is_lead(u) && is_trail(t) => {
                        self.pos += 1;
                        pair(u, t)
                    }
                    _ => u,
                }
            };
            let ok = if name.is_empty() {
                unicode::is_id_start(c)
            } else {
                unicode::is_id_continue(c)
            };
            let ch = char::from_u32(c).filter(|_| ok);
            let Some(ch) = ch else {
                return Err("Invalid capture group name".into());
            };
            name.push(ch);
        }
        if name.is_empty() {
            return Err("Invalid capture group name".into());
        }
        Ok(name)
    }

    // ---- escapes ----

    fn parse_atom_escape(&mut self) -> PResult<Node> {
        // at '\'
        self.pos += 1;
        let Some(c) = self.peek() else {
            return Err("\\ at end of pattern".into());
        };
        let ch = char::from_u32(c).unwrap_or('\0');
        // DecimalEscape: a backreference when it names a group.
        if ('1'..='9').contains(&ch) {
            let save = self.pos;
            let n = self.parse_decimal().unwrap_or(0);
            if n <= self.total_groups as u64 {
                return Ok(Node::BackRef {
                    groups: vec![n as u32],
                    ignore_case: self.ignore_case,
                });
            }
            if self.unicode {
                return Err("Invalid escape".into());
            }
            self.pos = save;
        }
        if ch == 'k' && self.named {
            self.pos += 1;
            if !self.eat('<') {
                return Err("Invalid named reference".into());
            }
            let name = self.parse_group_name()?;
            self.references.push(name.clone());
            return Ok(Node::NamedBackRef {
                name,
                ignore_case: self.ignore_case,
            });
        }
        if let Some(set) = self.try_class_escape()? {
            return Ok(self.class_node(set, Vec::new(), false));
        }
        if self.sets && (ch == 'p') {
            // a property of strings outside a class
            if let Some(op) = self.try_string_property()? {
                return Ok(self.class_node(op.set, op.strings, false));
            }
        }
        let c = self.parse_character_escape(false)?;
        Ok(self.char_node(c))
    }

    /// `\d \D \s \S \w \W \p{..} \P{..}` after the backslash: the set (with `v` and `i`, folded).
    fn try_class_escape(&mut self) -> PResult<Option<CharSet>> {
        let Some(ch) = self.peek().and_then(char::from_u32) else {
            return Ok(None);
        };
        let set = match ch {
            'd' | 'D' => CharSet::range('0' as u32, '9' as u32),
            's' | 'S' => unicode::space_set(),
            'w' | 'W' => unicode::word_set(self.unicode, self.ignore_case),
            'p' | 'P' if self.unicode => {
                let save = self.pos;
                self.pos += 1;
                let (name, value) = self.parse_property_name()?;
                let Some(prop) = unicode::property(&name, value.as_deref(), false) else {
                    if self.sets && ch == 'p' && value.is_none() {
                        // maybe a property of strings: the caller tries that
                        self.pos = save;
                        return Ok(None);
                    }
                    if self.sets
                        && value.is_none()
                        && unicode::property(&name, None, true).is_some()
                    {
                        return Err("Invalid property name: negated property of strings".into());
                    }
                    return Err("Invalid property name".into());
                };
                let set = self.maybe_fold(prop.set);
                return Ok(Some(if ch == 'P' {
                    self.complement(&set)
                } else {
                    set
                }));
            }
            _ => return Ok(None),
        };
        self.pos += 1;
        let set = self.maybe_fold(set);
        Ok(Some(if ch.is_ascii_uppercase() {
            self.complement(&set)
        } else {
            set
        }))
    }

    /// `\p{name}` with a property of strings (`v` only), after the backslash.
    fn try_string_property(&mut self) -> PResult<Option<SetOperand>> {
        if !self.peek_is('p') {
            return Ok(None);
        }
        self.pos += 1;
        let (name, value) = self.parse_property_name()?;
        let prop = match value {
            None => unicode::property(&name, None, true),
            Some(_) => None,
        };
        let Some(prop) = prop else {
            return Err("Invalid property name".into());
        };
        let mut op = SetOperand {
            set: self.maybe_fold(prop.set),
            strings: prop.strings,
        };
        if self.ignore_case {
            let folding = unicode::unicode_folding();
            for s in &mut op.strings {
                for c in s.iter_mut() {
                    *c = folding.canonicalize(*c);
                }
            }
        }
        Ok(Some(op))
    }

    /// `{name}` or `{name=value}` after `\p`.
    fn parse_property_name(&mut self) -> PResult<(String, Option<String>)> {
        if !self.eat('{') {
            return Err("Invalid property name".into());
        }
        let mut name = String::new();
        let mut value: Option<String> = None;
        loop {
            let Some(c) = self.peek().and_then(char::from_u32) else {
                return Err("Invalid property name".into());
            };
            self.pos += 1;
            match c {
                '}' => break,
                '=' if value.is_none() => value = Some(String::new()),
                c if c.is_ascii_alphanumeric() || c == '_' => match &mut value {
                    Some(v) => v.push(c),
                    None => name.push(c),
                },
                _ => return Err("Invalid property name".into()),
            }
        }
        if name.is_empty() || value.as_ref().is_some_and(String::is_empty) {
            return Err("Invalid property name".into());
        }
        Ok((name, value))
    }

    /// With `v` and `i`: the set's canonical forms (MaybeSimpleCaseFolding).
    fn maybe_fold(&self, set: CharSet) -> CharSet {
        if self.sets && self.ignore_case {
            unicode::unicode_folding().fold(&set)
        } else {
            set
        }
    }

    /// CharacterComplement: relative to all characters, or under `/vi` all canonical ones.
    fn complement(&self, set: &CharSet) -> CharSet {
        if self.sets && self.ignore_case {
            unicode::unicode_folding().fixed_points().subtract(set)
        } else {
            set.complement(if self.unicode { MAX_CODE_POINT } else { 0xFFFF })
        }
    }

    /// CharacterEscape (and the Annex B identity escapes), after the backslash.
    /// `in_class` allows `\-` in Unicode mode and `\c` with digits and `_` outside it.
    fn parse_character_escape(&mut self, in_class: bool) -> PResult<u32> {
        let Some((c, len)) = self.peek_char() else {
            return Err("\\ at end of pattern".into());
        };
        let ch = char::from_u32(c).unwrap_or('\u{FFFD}');
        let simple = match ch {
            'f' => Some(0x0C),
            'n' => Some(0x0A),
            'r' => Some(0x0D),
            't' => Some(0x09),
            'v' => Some(0x0B),
            _ => None,
        };
        if let Some(v) = simple {
            self.pos += 1;
            return Ok(v);
        }
        match ch {
            'c' => {
                let next = self.unit_at(self.pos + 1).and_then(char::from_u32);
                let ok = match next {
                    Some(l) if l.is_ascii_alphabetic() => true,
                    Some(l) if in_class && !self.unicode => l.is_ascii_digit() || l == '_',
                    _ => false,
                };
                if ok {
                    self.pos += 2;
                    return Ok(next.map_or(0, |l| l as u32 % 32));
                }
                if self.unicode {
                    return Err("Invalid unicode escape".into());
                }
                // Annex B: the backslash is itself; `c` is read next.
                Ok('\\' as u32)
            }
            '0' if !self
                .unit_at(self.pos + 1)
                .and_then(char::from_u32)
                .is_some_and(|d| d.is_ascii_digit()) =>
            {
                self.pos += 1;
                Ok(0)
            }
            '0'..='9' => {
                if self.unicode {
                    return Err(if in_class {
                        "Invalid class escape".into()
                    } else {
                        "Invalid decimal escape".into()
                    });
                }
                if ch >= '8' {
                    self.pos += 1;
                    return Ok(c);
                }
                Ok(self.parse_legacy_octal())
            }
            'x' => {
                self.pos += 1;
                if let (Some(a), Some(b)) = (
                    self.peek().and_then(hex_value),
                    self.unit_at(self.pos + 1).and_then(hex_value),
                ) {
                    self.pos += 2;
                    return Ok(a * 16 + b);
                }
                if self.unicode {
                    return Err("Invalid escape".into());
                }
                Ok('x' as u32)
            }
            'u' => {
                self.pos += 1;
                match self.parse_unicode_escape_body(self.unicode) {
                    Some(v) => Ok(v),
                    None if self.unicode => Err("Invalid Unicode escape".into()),
                    None => Ok('u' as u32),
                }
            }
            _ => {
                if self.unicode {
                    let allowed = is_syntax_char(c) || ch == '/' || (in_class && ch == '-');
                    if !allowed {
                        return Err("Invalid escape".into());
                    }
                } else if ch == 'k' && self.named {
                    return Err("Invalid named reference".into());
                }
                self.pos += len;
                Ok(c)
            }
        }
    }

    /// LegacyOctalEscapeSequence: up to three octal digits, at most 0o377.
    fn parse_legacy_octal(&mut self) -> u32 {
        let digit = |p: &Self, i: usize| {
            p.unit_at(p.pos + i)
                .and_then(char::from_u32)
                .and_then(|c| c.to_digit(8))
        };
        let Some(first) = digit(self, 0) else {
            return 0;
        };
        self.pos += 1;
        let mut value = first;
        if let Some(d) = digit(self, 0) {
            value = value * 8 + d;
            self.pos += 1;
            if first <= 3
                && let Some(d) = digit(self, 0)
            {
                value = value * 8 + d;
                self.pos += 1;
            }
        }
        value
    }

    /// After `\u`: `XXXX` (a surrogate pair of escapes joined in Unicode mode) or, in
    /// Unicode mode, `{X...}`. None if malformed; the position is then unchanged.
    fn parse_unicode_escape_body(&mut self, unicode: bool) -> Option<u32> {
        let start = self.pos;
        if unicode && self.eat('{') {
            let mut value: u32 = 0;
            let mut digits = 0;
            while let Some(d) = self.peek().and_then(hex_value) {
                value = value.saturating_mul(16).saturating_add(d);
                digits += 1;
                self.pos += 1;
            }
            if digits == 0 || value > MAX_CODE_POINT || !self.eat('}') {
                self.pos = start;
                return None;
            }
            return Some(value);
        }
        let hex4 = |p: &Self, at: usize| -> Option<u32> {
            (0..4).try_fold(0u32, |acc, i| {
                Some(acc * 16 + p.unit_at(at + i).and_then(hex_value)?)
            })
        };
        let Some(v) = hex4(self, self.pos) else {
            self.pos = start;
            return None;
        };
        self.pos += 4;
        if unicode
            && is_lead(v)
            && self.peek_is('\\')
            && self.peek_at_is(1, 'u')
            && let Some(t) = hex4(self, self.pos + 2)
            && is_trail(t)
        {
            self.pos += 6;
            return Some(pair(v, t));
        }
        Some(v)
    }

    // ---- classes without v ----

    /// `[...]` after the `[`.
    fn parse_class(&mut self) -> PResult<Node> {
        let negate = self.eat('^');
        let mut set = CharSet::new();
        loop {
            if self.eat(']') {
                break;
            }
            if self.at_end() {
                return Err("Unterminated character class".into());
            }
            let first = self.parse_class_atom()?;
            if self.peek_is('-') && !self.peek_at_is(1, ']') && self.unit_at(self.pos + 1).is_some()
            {
                self.pos += 1;
                let second = self.parse_class_atom()?;
                match (first, second) {
                    (ClassAtom::Char(a), ClassAtom::Char(b)) => {
                        if a > b {
                            return Err("Range out of order in character class".into());
                        }
                        set.add_range(a, b);
                    }
                    (first, second) => {
                        if self.unicode {
                            return Err("Invalid character class".into());
                        }
                        // Annex B: a class escape at either end makes the '-' a literal.
                        for atom in [first, second] {
                            match atom {
                                ClassAtom::Char(c) => set.add(c),
                                ClassAtom::Set(s) => set.union(&s),
                            }
                        }
                        set.add('-' as u32);
                    }
                }
                continue;
            }
            match first {
                ClassAtom::Char(c) => set.add(c),
                ClassAtom::Set(s) => set.union(&s),
            }
        }
        Ok(self.class_node(set, Vec::new(), negate))
    }

    fn parse_class_atom(&mut self) -> PResult<ClassAtom> {
        let Some((c, len)) = self.peek_char() else {
            return Err("Unterminated character class".into());
        };
        if c != '\\' as u32 {
            self.pos += len;
            return Ok(ClassAtom::Char(c));
        }
        self.pos += 1;
        match self.peek().and_then(char::from_u32) {
            None => Err("\\ at end of pattern".into()),
            Some('b') => {
                self.pos += 1;
                Ok(ClassAtom::Char(0x08))
            }
            Some('-') if self.unicode => {
                self.pos += 1;
                Ok(ClassAtom::Char('-' as u32))
            }
            Some('k') if !self.unicode => {
                if self.named {
                    return Err("Invalid named reference".into());
                }
                self.pos += 1;
                Ok(ClassAtom::Char('k' as u32))
            }
            _ => {
                if let Some(set) = self.try_class_escape()? {
                    return Ok(ClassAtom::Set(set));
                }
                Ok(ClassAtom::Char(self.parse_character_escape(true)?))
            }
        }
    }

    // ---- classes with v ----

    /// A `v`-mode class after its `[`: ClassSetExpression and the `]`.
    fn parse_class_v(&mut self) -> PResult<Node> {
        let negate = self.eat('^');
        let op = self.parse_class_set_expression()?;
        if negate && !op.strings.is_empty() {
            return Err("Negated character class may contain strings".into());
        }
        let set = if negate {
            self.complement(&op.set)
        } else {
            op.set
        };
        Ok(self.class_node(set, op.strings, false))
    }

    /// ClassUnion, ClassIntersection or ClassSubtraction, through the closing `]`.
    fn parse_class_set_expression(&mut self) -> PResult<SetOperand> {
        if self.eat(']') {
            return Ok(SetOperand::default());
        }
        let (first, first_char) = self.parse_class_set_operand()?;
        let operator = if self.peek_is('&') && self.peek_at_is(1, '&') {
            Some('&')
        } else if self.peek_is('-') && self.peek_at_is(1, '-') {
            Some('-')
        } else {
            None
        };
        if let Some(op) = operator {
            let mut acc = first;
            loop {
                if self.eat(']') {
                    return Ok(acc);
                }
                let is_op = self.peek_is(op) && self.peek_at_is(1, op);
                if !is_op {
                    return Err("Invalid set operation in character class".into());
                }
                self.pos += 2;
                if op == '&' && self.peek_is('&') {
                    return Err("Invalid set operation in character class".into());
                }
                let (rhs, _) = self.parse_class_set_operand()?;
                acc = if op == '&' {
                    SetOperand {
                        set: acc.set.intersect(&rhs.set),
                        strings: acc
                            .strings
                            .into_iter()
                            .filter(|s| rhs.strings.contains(s))
                            .collect(),
                    }
                } else {
                    SetOperand {
                        set: acc.set.subtract(&rhs.set),
                        strings: acc
                            .strings
                            .into_iter()
                            .filter(|s| !rhs.strings.contains(s))
                            .collect(),
                    }
                };
            }
        }
        // ClassUnion: operands and ranges.
        let mut acc = SetOperand::default();
        let mut pending = first_char;
        let mut pending_op = Some(first);
        loop {
            if let Some(a) = pending
                && self.peek_is('-')
                && !self.peek_at_is(1, '-')
            {
                self.pos += 1;
                let (_, b) = self.parse_class_set_operand()?;
                let Some(b) = b else {
                    return Err("Invalid character class".into());
                };
                if a > b {
                    return Err("Range out of order in character class".into());
                }
                let range = self.maybe_fold(CharSet::range(a, b));
                acc.set.union(&range);
            } else if let Some(op) = pending_op.take() {
                acc.union(op);
            }
            if self.eat(']') {
                return Ok(acc);
            }
            if (self.peek_is('&') && self.peek_at_is(1, '&'))
                || (self.peek_is('-') && self.peek_at_is(1, '-'))
            {
                return Err("Invalid set operation in character class".into());
            }
            let (op, c) = self.parse_class_set_operand()?;
            pending = c;
            pending_op = Some(op);
        }
    }

    /// A ClassSetOperand (nested class, `\q{...}`, class escape) or ClassSetCharacter;
    /// the character too when it is a single one (it may start a range).
    fn parse_class_set_operand(&mut self) -> PResult<(SetOperand, Option<u32>)> {
        let Some((c, len)) = self.peek_char() else {
            return Err("Unterminated character class".into());
        };
        let ch = char::from_u32(c).unwrap_or('\u{FFFD}');
        if ch == '[' {
            self.pos += 1;
            self.enter()?;
            let negate = self.eat('^');
            let inner = self.parse_class_set_expression();
            self.depth -= 1;
            let inner = inner?;
            if negate && !inner.strings.is_empty() {
                return Err("Negated character class may contain strings".into());
            }
            let op = if negate {
                SetOperand {
                    set: self.complement(&inner.set),
                    strings: Vec::new(),
                }
            } else {
                inner
            };
            return Ok((op, None));
        }
        if ch == '\\' {
            self.pos += 1;
            let next = self.peek().and_then(char::from_u32);
            if next == Some('q') && self.peek_at_is(1, '{') {
                self.pos += 2;
                return Ok((self.parse_class_strings()?, None));
            }
            if next == Some('b') {
                self.pos += 1;
                return Ok((self.single(0x08), Some(0x08)));
            }
            if let Some(p) = next
                && "&-!#%,:;<=>@`~".contains(p)
            {
                self.pos += 1;
                return Ok((self.single(p as u32), Some(p as u32)));
            }
            if let Some(set) = self.try_class_escape()? {
                return Ok((
                    SetOperand {
                        set,
                        strings: Vec::new(),
                    },
                    None,
                ));
            }
            if let Some(op) = self.try_string_property()? {
                return Ok((op, None));
            }
            let c = self.parse_character_escape(true)?;
            return Ok((self.single(c), Some(c)));
        }
        if "()[]{}/-|".contains(ch) {
            return Err("Invalid character in character class".into());
        }
        if "&!#$%*+,.:;<=>?@^`~".contains(ch) && self.peek_at_is(1, ch) {
            return Err("Invalid set operation in character class".into());
        }
        self.pos += len;
        Ok((self.single(c), Some(c)))
    }

    fn single(&self, c: u32) -> SetOperand {
        SetOperand {
            set: self.maybe_fold(CharSet::single(c)),
            strings: Vec::new(),
        }
    }

    /// `\q{a|bc|}` after the `{`: its strings.
    fn parse_class_strings(&mut self) -> PResult<SetOperand> {
        let mut op = SetOperand::default();
        let mut current: Vec<u32> = Vec::new();
        loop {
            let Some((c, len)) = self.peek_char() else {
                return Err("Unterminated class string disjunction".into());
            };
            let ch = char::from_u32(c).unwrap_or('\u{FFFD}');
            if ch == '}' || ch == '|' {
                self.pos += 1;
                let s = std::mem::take(&mut current);
                if s.len() == 1 {
                    op.set.union(&self.maybe_fold(CharSet::single(s[0])));
                } else {
                    let s = if self.ignore_case {
                        let folding = unicode::unicode_folding();
                        s.iter().map(|&c| folding.canonicalize(c)).collect()
                    } else {
                        s
                    };
                    if !op.strings.contains(&s) {
                        op.strings.push(s);
                    }
                }
                if ch == '}' {
                    return Ok(op);
                }
                continue;
            }
            if ch == '\\' {
                self.pos += 1;
                let next = self.peek().and_then(char::from_u32);
                let c = match next {
                    Some('b') => {
                        self.pos += 1;
                        0x08
                    }
                    Some(p) if "&-!#%,:;<=>@`~".contains(p) => {
                        self.pos += 1;
                        p as u32
                    }
                    _ => self.parse_character_escape(true)?,
                };
                current.push(c);
                continue;
            }
            if "()[]{}/-|".contains(ch) {
                return Err("Invalid character in character class".into());
            }
            if "&!#$%*+,.:;<=>?@^`~".contains(ch) && self.peek_at_is(1, ch) {
                return Err("Invalid set operation in character class".into());
            }
            self.pos += len;
            current.push(c);
        }
    }
}

/// MightBothParticipate: false only when the two groups sit in different alternatives
/// of one disjunction.
fn might_both_participate(a: &[(u32, u32)], b: &[(u32, u32)]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if x.0 != y.0 {
            return true;
        }
        if x.1 != y.1 {
            return false;
        }
    }
    true
}

/// The number of capturing groups, counted before parsing (decimal escapes need it).
fn count_groups(p: &[u16], nested_classes: bool) -> u32 {
    let mut count = 0;
    let mut class_depth = 0u32;
    let mut i = 0;
    let at = |i: usize| p.get(i).copied().unwrap_or(0);
    while i < p.len() {
        match p[i] {
            0x5C => i += 2,
            0x5B => {
                if class_depth == 0 || nested_classes {
                    class_depth += 1;
                }
                i += 1;
            }
            0x5D if class_depth > 0 => {
                class_depth -= 1;
                i += 1;
            }
            0x28 if class_depth == 0 => {
                if at(i + 1) != '?' as u16
                    || (at(i + 2) == '<' as u16
                        && at(i + 3) != '=' as u16
                        && at(i + 3) != '!' as u16)
                {
                    count += 1;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(pattern: &str, flags: &str) -> Result<(), String> {
        let units: Vec<u16> = pattern.encode_utf16().collect();
        let f = ParseFlags {
            ignore_case: flags.contains('i'),
            multiline: flags.contains('m'),
            dot_all: flags.contains('s'),
            unicode: flags.contains('u'),
            unicode_sets: flags.contains('v'),
        };
        parse(&units, f).map(|_| ())
    }

    #[test]
    fn valid_patterns() {
        for (p, f) in [
            ("a{2,3}?b*c+?", ""),
            ("]{}", ""),
            ("{1", ""),
            ("\\c", ""),
            ("[\\c_]", ""),
            ("\\8\\9\\07\\377", ""),
            ("(?<a>x)|(?<a>y)", ""),
            ("(?<$\\u{1d4d1}>.)\\k<$\\u{1d4d1}>", ""),
            ("(?i:a)(?-m:b)(?s-i:c)", ""),
            ("(?=a)*", ""),
            ("[\\d-a]", ""),
            ("\\p{Script=Greek}\\P{L}", "u"),
            ("[\\p{L}--[a-z]--x]", "v"),
            ("[[a-z]--[aeiou]]", "v"),
            ("[\\q{abc|d|}\\p{RGI_Emoji}]", "v"),
            ("a{9007199254740991}", ""),
            ("\\k", ""),
        ] {
            if let Err(e) = check(p, f) {
                panic!("/{p}/{f}: {e}");
            }
        }
    }

    #[test]
    fn early_errors() {
        for (p, f) in [
            ("*", ""),
            ("a**", ""),
            ("(", ""),
            (")", ""),
            ("[b-a]", ""),
            ("\\", ""),
            ("a{2,1}", ""),
            ("{1}", ""),
            ("]", "u"),
            ("\\c", "u"),
            ("\\8", "u"),
            ("[\\d-a]", "u"),
            ("(?<a>x)(?<a>y)", ""),
            ("(?<a>x)|(?:(?<a>y)(?<a>z))", ""),
            ("\\k<b>(?<a>x)", ""),
            ("(?<a>x)\\k", ""),
            ("(?<1a>x)", ""),
            ("(?ii:a)", ""),
            ("(?i-i:a)", ""),
            ("(?-:a)", ""),
            ("(?i)a", ""),
            ("(?<=a)*", ""),
            ("(?=a)*", "u"),
            ("\\p{Lu", "u"),
            ("\\p{lu}", "u"),
            ("\\P{RGI_Emoji}", "v"),
            ("[^\\p{RGI_Emoji}]", "v"),
            ("[a&&&b]", "v"),
            ("[a--b&&c]", "v"),
            ("[(]", "v"),
            ("[a-z&&b]", "v"),
        ] {
            assert!(check(p, f).is_err(), "/{p}/{f} should be an error");
        }
        let deep = "(".repeat(100_000);
        assert!(check(&deep, "").is_err());
    }
}
