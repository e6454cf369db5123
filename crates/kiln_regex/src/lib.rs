//! ECMAScript regular expressions: the [Pattern grammar](https://tc39.es/ecma262/#sec-patterns)
//! parsed from UTF-16, compiled to a small program, and run by a backtracking VM whose
//! work is metered.
//!
//! ```
//! use kiln_regex::{Flags, Input, Regex};
//! let pattern: Vec<u16> = "(?<year>\\d{4})-(\\d\\d)".encode_utf16().collect();
//! let re = Regex::new(&pattern, Flags::default()).unwrap();
//! let m = re.find_at(Input::Latin1(b"on 2025-06"), 0, false, &mut |_| true).unwrap().unwrap();
//! assert_eq!(m.get(0), Some((3, 10)));
//! assert_eq!(m.get(2), Some((8, 10)));
//! assert_eq!(re.group_names()[0].as_deref(), Some("year"));
//! ```
//!
//! Matching never recurses on the native stack and reports its steps to a meter every
//! few thousand steps ([`vm::REPORT_EVERY`]); the meter can stop it ([`MatchError::Interrupted`]).
//! The backtrack stack is capped too ([`MatchError::BacktrackLimit`]).

mod ast;
mod charset;
mod compile;
mod parser;
mod tables;
mod unicode;
mod vm;

pub use vm::{MAX_BACKTRACK, REPORT_EVERY};

/// The flags that change what a pattern means (`g`, `y` and `d` do not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    pub ignore_case: bool,
    pub multiline: bool,
    pub dot_all: bool,
    pub unicode: bool,
    pub unicode_sets: bool,
}

/// A pattern that does not parse: the message for its SyntaxError.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError(pub String);

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The meter asked the match to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted;

/// Why a match ended without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchError {
    /// the meter returned false
    Interrupted(Interrupted),
    /// the backtrack stack reached [`MAX_BACKTRACK`] entries
    BacktrackLimit,
}

/// The text to search: Kiln's one-byte strings or UTF-16.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    Latin1(&'a [u8]),
    Utf16(&'a [u16]),
}

impl Input<'_> {
    pub fn len(&self) -> usize {
        match self {
            Input::Latin1(b) => b.len(),
            Input::Utf16(u) => u.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A successful match: code-unit positions of the whole match and each group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// start/end pairs: group 0 (the whole match) first; `usize::MAX` when unset
    slots: Vec<usize>,
}

impl Match {
    /// The span of group `i` (0 for the whole match), if it participated.
    pub fn get(&self, i: usize) -> Option<(usize, usize)> {
        let (s, e) = (*self.slots.get(i * 2)?, *self.slots.get(i * 2 + 1)?);
        (s != usize::MAX && e != usize::MAX).then_some((s, e))
    }

    pub fn start(&self) -> usize {
        self.slots[0]
    }

    pub fn end(&self) -> usize {
        self.slots[1]
    }

    /// Groups, including group 0.
    pub fn len(&self) -> usize {
        self.slots.len() / 2
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

/// A compiled regular expression.
pub struct Regex {
    program: compile::Program,
    names: Vec<Option<String>>,
    /// backtrack stack and registers of the last search, reused by the next
    scratch: std::cell::RefCell<vm::Scratch>,
}

impl std::fmt::Debug for Regex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Regex")
            .field("instructions", &self.program.insts.len())
            .field("groups", &self.names.len())
            .finish()
    }
}

impl Regex {
    /// Parse and compile `pattern` (UTF-16 source text).
    pub fn new(pattern: &[u16], flags: Flags) -> Result<Regex, SyntaxError> {
        let parsed = parser::parse(
            pattern,
            parser::ParseFlags {
                ignore_case: flags.ignore_case,
                multiline: flags.multiline,
                dot_all: flags.dot_all,
                unicode: flags.unicode,
                unicode_sets: flags.unicode_sets,
            },
        )
        .map_err(SyntaxError)?;
        let unicode = flags.unicode || flags.unicode_sets;
        let program = compile::compile(&parsed.root, &parsed.names, unicode);
        Ok(Regex {
            program,
            names: parsed.names,
            scratch: Default::default(),
        })
    }

    /// The number of capture groups (not counting the whole match).
    pub fn group_count(&self) -> usize {
        self.names.len()
    }

    /// The name of each capture group, by index from 1 (element 0 is group 1).
    pub fn group_names(&self) -> &[Option<String>] {
        &self.names
    }

    /// Search `input` from code unit `start`; with `anchored` (sticky) only at `start`.
    ///
    /// `meter` receives the steps taken, every [`REPORT_EVERY`] steps and once at the
    /// end; when it returns false the search stops with [`MatchError::Interrupted`].
    pub fn find_at(
        &self,
        input: Input<'_>,
        start: usize,
        anchored: bool,
        meter: &mut dyn FnMut(u64) -> bool,
    ) -> Result<Option<Match>, MatchError> {
        if start > input.len() {
            return Ok(None);
        }
        match input {
            Input::Latin1(bytes) => self.search(vm::Latin1(bytes), start, anchored, meter),
            Input::Utf16(units) if self.program.unicode => {
                self.search(vm::Utf16(units), start, anchored, meter)
            }
            Input::Utf16(units) => self.search(vm::Ucs2(units), start, anchored, meter),
        }
    }

    fn search<T: vm::Text>(
        &self,
        text: T,
        start: usize,
        anchored: bool,
        meter: &mut dyn FnMut(u64) -> bool,
    ) -> Result<Option<Match>, MatchError> {
        let scratch = self.scratch.take();
        let mut m = vm::Matcher::new(&self.program, text, scratch, meter);
        let found = m.search(start, anchored).and_then(|found| {
            m.flush()?;
            Ok(found)
        });
        let slots = std::mem::take(&mut m.captures);
        *self.scratch.borrow_mut() = m.into_scratch();
        Ok(found?.then_some(Match { slots }))
    }
}

#[cfg(test)]
mod tests;
