//! The backtracking VM: one loop over the program with an explicit backtrack stack, so
//! neither the pattern nor the input is limited by the native stack.
//!
//! # Invariants
//! 1. Every change to a capture or register that a later failure must undo pushes its
//!    old value ([`Backtrack::Capture`], [`Backtrack::Register`]) first.
//! 2. A lookaround's [`Backtrack::Look`] entry sits at the height kept in its register
//!    while its body runs; everything above it belongs to the body.
//! 3. Steps are counted per instruction and per character a `Star` consumes or gives
//!    back, and reported to the meter every [`REPORT_EVERY`] steps.

use crate::compile::{CharTest, Inst, Prefix, Program};
use crate::unicode;
use crate::{Interrupted, MatchError};

/// Steps between two reports to the meter.
pub const REPORT_EVERY: u64 = 4096;

/// The most backtrack entries a match may hold (about 100 MB).
pub const MAX_BACKTRACK: usize = 1 << 22;

/// The bytes one backtrack entry takes, for callers that bound the stack by memory.
pub const BACKTRACK_ENTRY_BYTES: usize = size_of::<Backtrack>();

const UNSET: usize = usize::MAX;

/// Text to match, read one character at a time in either direction.
pub trait Text {
    fn len(&self) -> usize;
    /// the code unit at `i` (< len)
    fn unit(&self, i: usize) -> u32;
    /// the character starting at `pos` and the position after it
    fn next(&self, pos: usize) -> Option<(u32, usize)>;
    /// the character ending at `pos` and the position before it
    fn prev(&self, pos: usize) -> Option<(u32, usize)>;
    /// the first position from `from` where `prefix` starts (at a character boundary)
    fn find_prefix(&self, from: usize, prefix: &Prefix) -> Option<usize>;
}

/// The first position from `from` where `units` occur in `text`.
fn find_units(text: &[u16], from: usize, units: &[u16]) -> Option<usize> {
    let (&first, rest) = units.split_first()?;
    let mut p = from;
    while p + units.len() <= text.len() {
        let i = text[p..=text.len() - units.len()]
            .iter()
            .position(|&u| u == first)?;
        p += i;
        if text[p + 1..p + units.len()] == *rest {
            return Some(p);
        }
        p += 1;
    }
    None
}

/// One-byte (Latin-1) text.
pub struct Latin1<'a>(pub &'a [u8]);

impl Text for Latin1<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn unit(&self, i: usize) -> u32 {
        self.0[i] as u32
    }
    #[inline]
    fn next(&self, pos: usize) -> Option<(u32, usize)> {
        self.0.get(pos).map(|&b| (b as u32, pos + 1))
    }
    #[inline]
    fn prev(&self, pos: usize) -> Option<(u32, usize)> {
        let p = pos.checked_sub(1)?;
        Some((self.0[p] as u32, p))
    }
    fn find_prefix(&self, from: usize, prefix: &Prefix) -> Option<usize> {
        let finder = prefix.bytes.as_ref()?;
        finder.find(self.0.get(from..)?).map(|i| from + i)
    }
}

/// UTF-16 text read as code units (no `u`/`v`).
pub struct Ucs2<'a>(pub &'a [u16]);

impl Text for Ucs2<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn unit(&self, i: usize) -> u32 {
        self.0[i] as u32
    }
    #[inline]
    fn next(&self, pos: usize) -> Option<(u32, usize)> {
        self.0.get(pos).map(|&u| (u as u32, pos + 1))
    }
    #[inline]
    fn prev(&self, pos: usize) -> Option<(u32, usize)> {
        let p = pos.checked_sub(1)?;
        Some((self.0[p] as u32, p))
    }
    fn find_prefix(&self, from: usize, prefix: &Prefix) -> Option<usize> {
        find_units(self.0, from, &prefix.units)
    }
}

/// UTF-16 text read as code points (`u`/`v`): a surrogate pair is one character.
pub struct Utf16<'a>(pub &'a [u16]);

impl Text for Utf16<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn unit(&self, i: usize) -> u32 {
        self.0[i] as u32
    }
    #[inline]
    fn next(&self, pos: usize) -> Option<(u32, usize)> {
        let u = *self.0.get(pos)? as u32;
        if (0xD800..0xDC00).contains(&u)
            && let Some(&t) = self.0.get(pos + 1)
            && (0xDC00..0xE000).contains(&t)
        {
            return Some((
                0x10000 + ((u - 0xD800) << 10) + (t as u32 - 0xDC00),
                pos + 2,
            ));
        }
        Some((u, pos + 1))
    }
    #[inline]
    fn prev(&self, pos: usize) -> Option<(u32, usize)> {
        let p = pos.checked_sub(1)?;
        let u = self.0[p] as u32;
        if (0xDC00..0xE000).contains(&u)
            && p > 0
            && (0xD800..0xDC00).contains(&(self.0[p - 1] as u32))
        {
            let lead = self.0[p - 1] as u32;
            return Some((0x10000 + ((lead - 0xD800) << 10) + (u - 0xDC00), p - 1));
        }
        Some((u, p))
    }
    fn find_prefix(&self, from: usize, prefix: &Prefix) -> Option<usize> {
        let mut p = from;
        loop {
            p = find_units(self.0, p, &prefix.units)?;
            // not inside a surrogate pair (a match starts at a character boundary)
            let inside = p > from
                && (0xD800..0xDC00).contains(&self.0[p - 1])
                && (0xDC00..0xE000).contains(&self.0[p]);
            if !inside {
                return Some(p);
            }
            p += 1;
        }
    }
}

/// What a failure must undo or retry.
#[derive(Clone, Copy, Debug)]
enum Backtrack {
    /// resume at `pc` with the position `pos`
    Branch {
        pc: u32,
        pos: usize,
    },
    Capture {
        slot: u32,
        old: usize,
    },
    Register {
        reg: u32,
        old: usize,
    },
    /// a greedy `Star` at `pc` that may give back characters down to `min_pos`
    Greedy {
        pc: u32,
        min_pos: usize,
        pos: usize,
    },
    /// a lazy `Star` at `pc` that may take one more character (it has taken `count`)
    Lazy {
        pc: u32,
        pos: usize,
        count: u64,
    },
    /// a lookaround's start: the position to return to
    Look {
        end: u32,
        pos: usize,
        negate: bool,
    },
}

/// The state of one search, reused across start positions.
pub struct Matcher<'p, 'm, T: Text> {
    prog: &'p Program,
    text: T,
    pub captures: Vec<usize>,
    registers: Vec<usize>,
    stack: Vec<Backtrack>,
    /// the most entries `stack` may hold
    max_backtrack: usize,
    /// steps taken since the meter last heard of them
    unreported: u64,
    meter: &'m mut dyn FnMut(u64) -> bool,
}

/// Memory a search needs, kept between searches: the captures of a search that found
/// nothing are reused by the next one (a match takes them with it).
#[derive(Default)]
pub struct Scratch {
    captures: Vec<usize>,
    registers: Vec<usize>,
    stack: Vec<Backtrack>,
}

impl Scratch {
    /// Bytes its vectors hold.
    pub fn heap_bytes(&self) -> usize {
        (self.captures.capacity() + self.registers.capacity()) * size_of::<usize>()
            + self.stack.capacity() * size_of::<Backtrack>()
    }
}

impl<'p, 'm, T: Text> Matcher<'p, 'm, T> {
    pub fn new(
        prog: &'p Program,
        text: T,
        scratch: Scratch,
        max_backtrack: usize,
        meter: &'m mut dyn FnMut(u64) -> bool,
    ) -> Self {
        let Scratch {
            mut captures,
            mut registers,
            mut stack,
        } = scratch;
        captures.clear();
        captures.resize((prog.groups + 1) * 2, UNSET);
        registers.clear();
        registers.resize(prog.registers, 0);
        stack.clear();
        Matcher {
            prog,
            text,
            captures,
            registers,
            stack,
            max_backtrack,
            unreported: 0,
            meter,
        }
    }

    /// The memory to keep for the next search (a huge backtrack stack is let go).
    pub fn into_scratch(self) -> Scratch {
        let mut stack = self.stack;
        if stack.capacity() > 1 << 16 {
            stack = Vec::new();
        }
        Scratch {
            captures: self.captures,
            registers: self.registers,
            stack,
        }
    }

    /// Report the steps not yet reported (at the end of a search).
    pub fn flush(&mut self) -> Result<(), MatchError> {
        let n = std::mem::take(&mut self.unreported);
        if n > 0 && !(self.meter)(n) {
            return Err(MatchError::Interrupted(Interrupted));
        }
        Ok(())
    }

    #[inline]
    fn tick(&mut self, n: u64) -> Result<(), MatchError> {
        self.unreported += n;
        if self.unreported >= REPORT_EVERY {
            self.flush()?;
        }
        Ok(())
    }

    /// Search from `start`: at `start` only when `anchored`, else at each later
    /// character boundary. The captures hold the match.
    pub fn search(&mut self, start: usize, anchored: bool) -> Result<bool, MatchError> {
        let len = self.text.len();
        let mut pos = start;
        if self.prog.anchored_start && !anchored {
            return if start == 0 {
                self.attempt(0)
            } else {
                Ok(false)
            };
        }
        if !anchored && let Some(required) = &self.prog.required {
            // No match without the required literal; searching for it costs a step per
            // 16 code units, like skipping ahead. (Not for sticky searches: they try one
            // position, and a scan to the end would make a tokenizer loop quadratic.)
            let found = self.text.find_prefix(start, required);
            self.tick((found.unwrap_or(len).saturating_sub(start) / 16) as u64)?;
            if found.is_none() {
                return Ok(false);
            }
        }
        loop {
            if !anchored {
                // skipping ahead costs a step per 16 code units skipped
                let found = self.scan(pos);
                self.tick((found.unwrap_or(len).saturating_sub(pos) / 16) as u64)?;
                match found {
                    Some(p) => pos = p,
                    None => return Ok(false),
                }
            }
            if self.attempt(pos)? {
                return Ok(true);
            }
            if anchored || pos >= len {
                return Ok(false);
            }
            pos = match self.text.next(pos) {
                Some((_, next)) if self.prog.unicode => next,
                _ => pos + 1,
            };
        }
    }

    /// The first position from `pos` where a match may start (prefilter); None when none.
    fn scan(&mut self, pos: usize) -> Option<usize> {
        let len = self.text.len();
        if let Some(prefix) = &self.prog.prefix {
            return self.text.find_prefix(pos, prefix);
        }
        if let Some(first) = &self.prog.first {
            let mut p = pos;
            while p < len {
                let (c, next) = self.text.next(p)?;
                if first.contains(c) {
                    return Some(p);
                }
                p = if self.prog.unicode { next } else { p + 1 };
            }
            return None;
        }
        Some(pos)
    }

    fn attempt(&mut self, start: usize) -> Result<bool, MatchError> {
        self.captures.fill(UNSET);
        self.stack.clear();
        self.captures[0] = start;
        self.tick(1)?;
        self.run(start)
    }

    fn test(&self, test: CharTest, c: u32) -> bool {
        match test {
            CharTest::Char(x) => c == x,
            CharTest::Pair(x, y) => c == x || c == y,
            CharTest::Set(i) => self.prog.sets[i as usize].contains(c),
            CharTest::Any => true,
            CharTest::NotLineTerminator => !unicode::is_line_terminator(c),
        }
    }

    #[inline]
    fn read(&self, pos: usize, back: bool) -> Option<(u32, usize)> {
        if back {
            self.text.prev(pos)
        } else {
            self.text.next(pos)
        }
    }

    fn push(&mut self, entry: Backtrack) -> Result<(), MatchError> {
        if self.stack.len() >= self.max_backtrack {
            return Err(MatchError::BacktrackLimit);
        }
        self.stack.push(entry);
        Ok(())
    }

    fn set_register(&mut self, reg: u32, value: usize) -> Result<(), MatchError> {
        let old = self.registers[reg as usize];
        if old != value {
            self.push(Backtrack::Register { reg, old })?;
            self.registers[reg as usize] = value;
        }
        Ok(())
    }

    fn set_capture(&mut self, slot: u32, value: usize) -> Result<(), MatchError> {
        let old = self.captures[slot as usize];
        if old != value {
            self.push(Backtrack::Capture { slot, old })?;
            self.captures[slot as usize] = value;
        }
        Ok(())
    }

    /// IsWordChar: word characters are all in the BMP, so reading a code unit suffices.
    fn is_word_at(&self, i: usize, unicode_ignore_case: bool) -> bool {
        i < self.text.len() && unicode::is_word_char(self.text.unit(i), unicode_ignore_case)
    }

    fn assertion(&self, a: crate::ast::Assertion, pos: usize) -> bool {
        use crate::ast::Assertion;
        let len = self.text.len();
        match a {
            Assertion::Start => pos == 0,
            Assertion::End => pos == len,
            Assertion::LineStart => {
                pos == 0 || unicode::is_line_terminator(self.text.unit(pos - 1))
            }
            Assertion::LineEnd => pos == len || unicode::is_line_terminator(self.text.unit(pos)),
            Assertion::WordBoundary {
                negate,
                unicode_ignore_case,
            } => {
                let a = pos > 0 && self.is_word_at(pos - 1, unicode_ignore_case);
                let b = self.is_word_at(pos, unicode_ignore_case);
                (a != b) != negate
            }
        }
    }

    /// Match the captured text of the first participating group of `groups` at `pos`.
    fn backref(&self, groups: u32, ignore_case: bool, back: bool, pos: usize) -> Option<usize> {
        let list = &self.prog.group_lists[groups as usize];
        let Some((s, e)) = list.iter().find_map(|&g| {
            let (s, e) = (
                self.captures[g as usize * 2],
                self.captures[g as usize * 2 + 1],
            );
            (s != UNSET && e != UNSET && s <= e).then_some((s, e))
        }) else {
            return Some(pos);
        };
        let n = e - s;
        let folding = unicode::folding(self.prog.unicode);
        let start = if back { pos.checked_sub(n)? } else { pos };
        if start + n > self.text.len() {
            return None;
        }
        if !ignore_case {
            if (0..n).all(|i| self.text.unit(s + i) == self.text.unit(start + i)) {
                return Some(if back { start } else { start + n });
            }
            return None;
        }
        // Compare character by character, through Canonicalize.
        let (mut a, mut b) = (s, start);
        while a < e {
            let (x, na) = self.text.next(a)?;
            let (y, nb) = self.text.next(b)?;
            if folding.canonicalize(x) != folding.canonicalize(y) {
                return None;
            }
            a = na;
            b = nb;
        }
        if b != start + n {
            return None;
        }
        Some(if back { start } else { start + n })
    }

    fn literal(&self, index: u32, back: bool, pos: usize) -> Option<usize> {
        let s = &self.prog.strings[index as usize];
        let mut p = pos;
        if back {
            for &c in s.iter().rev() {
                let (x, np) = self.text.prev(p)?;
                if x != c {
                    return None;
                }
                p = np;
            }
        } else {
            for &c in s {
                let (x, np) = self.text.next(p)?;
                if x != c {
                    return None;
                }
                p = np;
            }
        }
        Some(p)
    }

    /// Run the program from `pos`; true when it reaches `Match`.
    fn run(&mut self, mut pos: usize) -> Result<bool, MatchError> {
        let mut pc: u32 = 0;
        loop {
            self.tick(1)?;
            let ok = match self.prog.insts[pc as usize] {
                Inst::One { test, back } => match self.read(pos, back) {
                    Some((c, np)) if self.test(test, c) => {
                        pos = np;
                        pc += 1;
                        true
                    }
                    _ => false,
                },
                Inst::Star {
                    test,
                    min,
                    max,
                    greedy,
                    back,
                } => {
                    let mut count = 0u64;
                    let mut p = pos;
                    let mut min_pos = pos;
                    let limit = if greedy { max } else { min };
                    while count < limit {
                        match self.read(p, back) {
                            Some((c, np)) if self.test(test, c) => {
                                p = np;
                                count += 1;
                                if count == min {
                                    min_pos = p;
                                }
                            }
                            _ => break,
                        }
                    }
                    self.tick(count)?;
                    if count < min {
                        false
                    } else {
                        if greedy {
                            if count > min {
                                self.push(Backtrack::Greedy {
                                    pc,
                                    min_pos,
                                    pos: p,
                                })?;
                            }
                        } else if count < max {
                            self.push(Backtrack::Lazy { pc, pos: p, count })?;
                        }
                        pos = p;
                        pc += 1;
                        true
                    }
                }
                Inst::Literal { index, back } => match self.literal(index, back, pos) {
                    Some(np) => {
                        pos = np;
                        pc += 1;
                        true
                    }
                    None => false,
                },
                Inst::Split { next, alt } => {
                    self.push(Backtrack::Branch { pc: alt, pos })?;
                    pc = next;
                    true
                }
                Inst::Jump(target) => {
                    pc = target;
                    true
                }
                Inst::Save(slot) => {
                    self.set_capture(slot, pos)?;
                    pc += 1;
                    true
                }
                Inst::ClearCaptures { from, to } => {
                    for slot in from..to {
                        self.set_capture(slot, UNSET)?;
                    }
                    pc += 1;
                    true
                }
                Inst::Assert(a) => {
                    pc += 1;
                    self.assertion(a, pos)
                }
                Inst::BackRef {
                    groups,
                    ignore_case,
                    back,
                } => match self.backref(groups, ignore_case, back, pos) {
                    Some(np) => {
                        pos = np;
                        pc += 1;
                        true
                    }
                    None => false,
                },
                Inst::LookStart { reg, negate, end } => {
                    // the register's restore entry sits below the barrier
                    let old = self.registers[reg as usize];
                    self.push(Backtrack::Register { reg, old })?;
                    let at = self.stack.len();
                    self.push(Backtrack::Look { end, pos, negate })?;
                    self.registers[reg as usize] = at;
                    pc += 1;
                    true
                }
                Inst::LookEnd { reg, negate } => {
                    let at = self.registers[reg as usize];
                    let Some(&Backtrack::Look {
                        end, pos: at_pos, ..
                    }) = self.stack.get(at)
                    else {
                        return Err(MatchError::BacktrackLimit);
                    };
                    if negate {
                        // the body matched: undo it and fail
                        while self.stack.len() > at + 1 {
                            if let Some(e) = self.stack.pop() {
                                self.undo(e);
                            }
                        }
                        self.stack.pop();
                        false
                    } else {
                        // the body matched: keep its captures, drop its alternatives
                        let mut keep = at;
                        for i in at + 1..self.stack.len() {
                            let e = self.stack[i];
                            if matches!(e, Backtrack::Capture { .. } | Backtrack::Register { .. }) {
                                self.stack[keep] = e;
                                keep += 1;
                            }
                        }
                        self.stack.truncate(keep);
                        pos = at_pos;
                        pc = end;
                        true
                    }
                }
                Inst::ZeroCounter(reg) => {
                    self.set_register(reg, 0)?;
                    pc += 1;
                    true
                }
                Inst::Loop {
                    counter,
                    min,
                    max,
                    greedy,
                    exit,
                } => {
                    let count = self.registers[counter as usize] as u64;
                    if count < min {
                        pc += 1;
                    } else if count >= max {
                        pc = exit;
                    } else if greedy {
                        self.push(Backtrack::Branch { pc: exit, pos })?;
                        pc += 1;
                    } else {
                        self.push(Backtrack::Branch { pc: pc + 1, pos })?;
                        pc = exit;
                    }
                    true
                }
                Inst::MarkPosition(reg) => {
                    self.set_register(reg, pos)?;
                    pc += 1;
                    true
                }
                Inst::LoopTail {
                    counter,
                    mark,
                    min,
                    head,
                } => {
                    let count = self.registers[counter as usize] as u64;
                    let empty = mark != u32::MAX && self.registers[mark as usize] == pos;
                    if empty && count >= min {
                        // an optional iteration that matched the empty string fails
                        false
                    } else {
                        // an empty mandatory iteration repeats identically: skip to min
                        let next = if empty { min } else { count + 1 };
                        self.set_register(counter, next.min(usize::MAX as u64) as usize)?;
                        pc = head;
                        true
                    }
                }
                Inst::Match => {
                    self.captures[1] = pos;
                    return Ok(true);
                }
            };
            if ok {
                continue;
            }
            // Backtrack: undo until an entry offers another way.
            loop {
                let Some(entry) = self.stack.pop() else {
                    return Ok(false);
                };
                self.tick(1)?;
                match entry {
                    Backtrack::Branch { pc: p, pos: q } => {
                        pc = p;
                        pos = q;
                        break;
                    }
                    Backtrack::Greedy {
                        pc: p,
                        min_pos,
                        pos: q,
                    } => {
                        let Inst::Star { back, .. } = self.prog.insts[p as usize] else {
                            continue;
                        };
                        // give back one character (a surrogate pair taken whole is given
                        // back whole), never past where the minimum was reached
                        let np = if back {
                            self.text.next(q).map_or(q, |r| r.1).min(min_pos)
                        } else {
                            self.text.prev(q).map_or(q, |r| r.1).max(min_pos)
                        };
                        if np != min_pos {
                            self.stack.push(Backtrack::Greedy {
                                pc: p,
                                min_pos,
                                pos: np,
                            });
                        }
                        pc = p + 1;
                        pos = np;
                        break;
                    }
                    Backtrack::Lazy {
                        pc: p,
                        pos: q,
                        count,
                    } => {
                        let Inst::Star {
                            test, max, back, ..
                        } = self.prog.insts[p as usize]
                        else {
                            continue;
                        };
                        match self.read(q, back) {
                            Some((c, np)) if self.test(test, c) => {
                                if count + 1 < max {
                                    self.stack.push(Backtrack::Lazy {
                                        pc: p,
                                        pos: np,
                                        count: count + 1,
                                    });
                                }
                                pc = p + 1;
                                pos = np;
                                break;
                            }
                            _ => continue,
                        }
                    }
                    Backtrack::Look {
                        end,
                        pos: q,
                        negate,
                    } => {
                        if negate {
                            // the body failed: the negative lookaround succeeds
                            pc = end;
                            pos = q;
                            break;
                        }
                    }
                    other => self.undo(other),
                }
            }
        }
    }

    fn undo(&mut self, entry: Backtrack) {
        match entry {
            Backtrack::Capture { slot, old } => self.captures[slot as usize] = old,
            Backtrack::Register { reg, old } => self.registers[reg as usize] = old,
            _ => {}
        }
    }
}
