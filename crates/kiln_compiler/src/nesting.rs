//! A cheap pre-scan that rejects sources nested too deeply for the
//! recursive-descent parser and the compiler's tree walkers.
//!
//! It splits the source into tokens the way oxc's lexer does, as far as nesting
//! depends on it: strings (a `\` before a line break continues one), template
//! literals and their `${`, comments (`//` ends at any line terminator, `\r`,
//! U+2028 and U+2029 included; in a script, `<!--` and a `-->` that starts a line
//! are comments too, as Annex B says), the hashbang line, regular expression literals
//! (whose brackets are not brackets) and identifiers with escapes (`i\u0066` is
//! `if`). It counts `(`, `[`, `{` and `${`: past [`MAX_NESTING`] open at once the
//! source is refused.
//!
//! A `/` starts a regular expression where an expression may start and is a
//! division after one; one token of context tells which, except after a `}` (the end
//! of a block or of an object literal), after `yield`, `await` and `of` (keywords or
//! plain names), after a `}` followed by `++`, and in TypeScript after a `>` (of a
//! comparison or of type arguments). There the scan forks and follows
//! both readings until they meet again at the same place in the same state (then one
//! reading keeps the larger of each count). A reading ends where oxc would stop
//! parsing: at an unterminated regular expression, and at a closing bracket that does
//! not close the innermost open one. The source is refused if any reading goes past a
//! limit, or if more than [`MAX_READINGS`] are open at once. Guessing instead would let
//! a source hide brackets from the count: when the scan read characters, `(/)/,`
//! repeated a million times, or `(` and `<!-- )` on alternate lines, passed as one
//! level and overflowed the compiler thread's stack.
//!
//! In TypeScript it also counts the `<` of type arguments (`A<B<C>>`), which nest as
//! deeply as brackets do. A `<` may be less-than instead, which nothing closes: the
//! count of open `<` starts again at each `;` and is dropped with the bracket it is in,
//! so only a statement with a thousand comparisons at one level would be refused.
//!
//! Operators nest without brackets too (`!!!!x`, `a = a = a`, `x => x => x`, `new new
//! F`, `if (a) if (a) x`, `a ** a ** a`), one level per operator or keyword at most. A
//! left-associative chain (`a + a + a`, `a || a || a`) is parsed with a loop and walked
//! with one by the compiler (see `chain.rs`), but oxc's semantic pass recurses once per
//! link, so its operators are counted as well. So it also counts, along the path of
//! open brackets, the operator characters and the keywords that can nest since the last
//! `,` or `;` at each level; past [`MAX_CHAIN`] the source is refused. An `else` right
//! after a `;` continues the `if` before it (`if (a) x; else if (b) y; else ...`), so
//! the `else` keywords of a chain stay counted until a `;` that no `else` follows.
//! Without the limit a million such levels (a few megabytes of `eval`ed text)
//! exhausted the compiler thread's 256 MiB stack and aborted the process, and even
//! 100,000 nested arrows made the compiler hold 150 MB. Real code stays in the
//! hundreds: the most in 2,500 files of npm packages, the TypeScript compiler among
//! them, was 295. Over-counting only refuses sooner.

/// The deepest bracket nesting the compiler accepts, and in TypeScript also the most `<`
/// open at once.
pub(crate) const MAX_NESTING: usize = 1000;

/// The most operators and nesting keywords open along one path of brackets (see above).
pub(crate) const MAX_CHAIN: usize = 10_000;

/// The most readings of an ambiguous `/` followed at once (see above).
const MAX_READINGS: usize = 8;

/// What a reserved or contextual word means to the scan: a set of the flags below.
type Word = u8;
/// Its operand or body may be another of the same (`new new F`, `if (a) if (b) x`,
/// `class A extends class B extends C {} {}`).
const NESTS: Word = 1;
/// A reserved word after which a `/` starts a regular expression (an operand follows).
const OPERAND: Word = 2;
/// Its `(` holds a header, not an expression: after its `)` a statement starts.
const HEADER: Word = 4;
/// A keyword or a plain identifier by context: after it a `/` may be either, so the scan
/// follows both readings.
const CONTEXTUAL: Word = 8;

/// The flags of a name, decoded (one `match`: names are a good part of the tokens).
fn keyword(name: &[u8]) -> Word {
    match name {
        b"for" | b"if" | b"while" | b"with" => NESTS | OPERAND | HEADER,
        b"catch" | b"switch" => OPERAND | HEADER,
        b"delete" | b"do" | b"else" | b"extends" | b"in" | b"instanceof" | b"new" | b"typeof"
        | b"void" => NESTS | OPERAND,
        b"await" | b"yield" => NESTS | CONTEXTUAL,
        b"of" => CONTEXTUAL,
        b"break" | b"case" | b"class" | b"const" | b"continue" | b"debugger" | b"default"
        | b"enum" | b"export" | b"finally" | b"function" | b"import" | b"return" | b"throw"
        | b"try" | b"var" => OPERAND,
        _ => 0,
    }
}

/// Whether a byte continues a name without an escape: an ASCII letter, digit, `_` or `$`.
const PLAIN_NAME: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
        b += 1;
    }
    table
};

/// How the source is parsed.
#[derive(Clone, Copy)]
pub(crate) struct Goal {
    /// the module goal (modules and agent scripts): no HTML-like comments but a `<!--`
    /// that starts a line
    pub module: bool,
    /// TypeScript: type arguments' `<` are counted
    pub typescript: bool,
}

/// What the last token leaves: whether a `/` now divides or starts a regular expression.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Prev {
    /// after a value (a name, a literal, `)`, `]`): `/` divides
    Value,
    /// where an operand starts (an operator, `(`, `,`, a keyword, the start): `/` starts a
    /// regular expression
    Operand,
    /// after `.`, `?.` or `#`: the next name is a property name, never a keyword
    Member,
    /// either (after `}`, `yield`, `await`, `of`, and TypeScript's `>`)
    Either,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Open {
    /// outside any bracket
    Root,
    /// `(`, and whether it holds a statement header (`if (`, `for (` ...)
    Paren {
        header: bool,
    },
    Bracket,
    Brace,
    /// the `${` of a template literal
    Substitution,
}

/// One open bracket and what was counted inside it.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Level {
    open: Open,
    /// operators and nesting keywords since the last `,` or `;` at this level
    chain: usize,
    /// `else` keywords of an `if` chain at this level (kept across a `;` that an `else`
    /// follows)
    elses: usize,
    /// TypeScript: `<` open at this level
    angles: usize,
}

impl Level {
    fn new(open: Open) -> Self {
        Level {
            open,
            chain: 0,
            elses: 0,
            angles: 0,
        }
    }
}

/// One reading of the source, at `pos`.
#[derive(Clone, Debug)]
struct Reading {
    pos: usize,
    prev: Prev,
    /// a line terminator since the last token (or nothing before): `-->` starts a comment,
    /// `++` is a prefix
    new_line: bool,
    /// inside template text (after a `` ` `` or the `}` of a substitution)
    in_template: bool,
    /// the last token was a header keyword (`if`, `for` ...; `for await` too): its `(`
    /// holds a header
    header_next: bool,
    /// the last token was `;`: an `else` next continues the `if` chain
    after_semicolon: bool,
    /// levels[0] is outside any bracket
    levels: Vec<Level>,
    /// sum of `chain` and `elses` over the levels
    total: usize,
    /// sum of `angles` over the levels
    open_angles: usize,
}

/// What one step of a reading found.
enum Step {
    Next,
    /// the end of the source, or of what oxc parses (it stops at an unterminated regular
    /// expression and at a closing bracket that closes nothing)
    End,
    /// past a limit at this byte offset
    TooDeep(usize),
    /// an ambiguous `/` at `pos`: this reading continues as a division, the returned one
    /// as a regular expression
    Fork(Box<Reading>),
}

/// The byte offset of the first bracket nested deeper than `limit`, of the first operator
/// or keyword past [`MAX_CHAIN`] on one path, or in TypeScript of the first `<` beyond
/// `limit` open ones, if any; also of the first ambiguous `/` past [`MAX_READINGS`].
pub(crate) fn too_deep(source: &str, limit: usize, goal: Goal) -> Option<usize> {
    // Each bracket, `<` and counted operator or keyword takes a byte at least: a source no
    // longer than the limits cannot pass them.
    if source.len() <= limit.min(MAX_CHAIN) {
        return None;
    }
    let scan = Scan {
        bytes: source.as_bytes(),
        source,
        goal,
        limit,
    };
    let mut readings = vec![Reading::new()];
    loop {
        // Step the reading furthest behind, so that readings meet at the same position.
        let index = match readings.len() {
            1 => 0,
            _ => readings.iter().enumerate().min_by_key(|(_, r)| r.pos)?.0,
        };
        match scan.step(&mut readings[index]) {
            Step::Next if readings.len() > 1 => {
                let here = &readings[index];
                if let Some(j) =
                    (0..readings.len()).find(|&j| j != index && readings[j].same_place(here))
                {
                    let here = readings.swap_remove(index);
                    // swap_remove moved the last reading to `index`
                    let j = if j == readings.len() { index } else { j };
                    readings[j].absorb(&here);
                }
            }
            Step::Next => {}
            Step::End => {
                readings.swap_remove(index);
            }
            Step::TooDeep(offset) => return Some(offset),
            Step::Fork(other) => {
                if readings.len() >= MAX_READINGS {
                    return Some(other.pos);
                }
                readings.push(*other);
            }
        }
    }
}

impl Reading {
    fn new() -> Self {
        Reading {
            pos: 0,
            prev: Prev::Operand,
            new_line: true,
            in_template: false,
            header_next: false,
            after_semicolon: false,
            levels: vec![Level::new(Open::Root)],
            total: 0,
            open_angles: 0,
        }
    }

    /// Whether two readings are at the same place in the same state, but for the counts.
    fn same_place(&self, other: &Reading) -> bool {
        self.pos == other.pos
            && self.prev == other.prev
            && self.new_line == other.new_line
            && self.in_template == other.in_template
            && self.header_next == other.header_next
            && self.after_semicolon == other.after_semicolon
            && self.levels.len() == other.levels.len()
            && self
                .levels
                .iter()
                .zip(&other.levels)
                .all(|(a, b)| a.open == b.open)
    }

    /// Takes the larger of each count from a reading at the same place: one reading
    /// that over-counts both.
    fn absorb(&mut self, other: &Reading) {
        for (mine, theirs) in self.levels.iter_mut().zip(&other.levels) {
            mine.chain = mine.chain.max(theirs.chain);
            mine.elses = mine.elses.max(theirs.elses);
            mine.angles = mine.angles.max(theirs.angles);
        }
        self.total = self.levels.iter().map(|l| l.chain + l.elses).sum();
        self.open_angles = self.levels.iter().map(|l| l.angles).sum();
    }

    fn top(&mut self) -> &mut Level {
        self.levels
            .last_mut()
            .expect("the root level is never closed")
    }

    /// Counts one more operator or keyword; false when the path now holds more than
    /// [`MAX_CHAIN`].
    fn add(&mut self) -> bool {
        self.top().chain += 1;
        self.total += 1;
        self.total <= MAX_CHAIN
    }

    /// A `,` or `;`: what follows does not nest in what came before at this level.
    fn separate(&mut self) {
        let level = self.top();
        let dropped = std::mem::take(&mut level.chain);
        self.total -= dropped;
    }

    /// The token after a `;`: unless it is `else`, the `if` chain before has ended.
    fn end_if_chain(&mut self) {
        let level = self.top();
        let dropped = std::mem::take(&mut level.elses);
        self.total -= dropped;
    }

    /// Opens a bracket; false past the nesting limit.
    fn open(&mut self, open: Open, limit: usize) -> bool {
        self.levels.push(Level::new(open));
        self.levels.len() - 1 <= limit
    }

    /// Closes the innermost bracket with `closer`, and returns what it opened; None if
    /// `closer` does not close it (a mismatched or extra closing bracket, where oxc stops
    /// parsing).
    fn close(&mut self, closer: u8) -> Option<Open> {
        let open = self.levels.last()?.open;
        let matches = match open {
            Open::Paren { .. } => closer == b')',
            Open::Bracket => closer == b']',
            Open::Brace | Open::Substitution => closer == b'}',
            Open::Root => false,
        };
        if !matches {
            return None;
        }
        let level = self.levels.pop()?;
        self.total -= level.chain + level.elses;
        self.open_angles -= level.angles;
        Some(open)
    }
}

/// The source being scanned.
struct Scan<'a> {
    bytes: &'a [u8],
    source: &'a str,
    goal: Goal,
    limit: usize,
}

/// Whether `c` is a JavaScript line terminator.
fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

impl Scan<'_> {
    /// The character at `i` and its length in bytes (a byte inside a character, where an
    /// escape ended, reads as one byte of a name).
    fn char_at(&self, i: usize) -> Option<(char, usize)> {
        match self.source.get(i..) {
            Some(rest) => rest.chars().next().map(|c| (c, c.len_utf8())),
            None if i < self.bytes.len() => Some(('\u{FFFD}', 1)),
            None => None,
        }
    }

    /// The offset just past the line terminator-free run starting at `i` (the end of a
    /// single-line comment).
    fn line_end(&self, mut i: usize) -> usize {
        while i < self.bytes.len() && !self.line_terminator_at(i) {
            i += 1;
        }
        i
    }

    /// Whether a line terminator starts at byte `i` (U+2028 and U+2029 are E2 80 A8 and
    /// E2 80 A9).
    fn line_terminator_at(&self, i: usize) -> bool {
        match self.bytes[i] {
            b'\n' | b'\r' => true,
            0xE2 => {
                self.bytes.get(i + 1) == Some(&0x80)
                    && matches!(self.bytes.get(i + 2), Some(0xA8 | 0xA9))
            }
            _ => false,
        }
    }

    /// One token (or comment, or run of template text) of `r`.
    fn step(&self, r: &mut Reading) -> Step {
        let bytes = self.bytes;
        let i = r.pos;
        if r.in_template {
            return self.template_text(r);
        }
        let Some(&b) = bytes.get(i) else {
            return Step::End;
        };
        // whitespace and comments: no token
        match b {
            // a run of ASCII whitespace at once: indentation is a good part of a source
            b'\n' | b'\r' | b' ' | b'\t' | 0x0B | 0x0C => {
                let mut j = i;
                while let Some(&b) = bytes.get(j) {
                    match b {
                        b'\n' | b'\r' => r.new_line = true,
                        b' ' | b'\t' | 0x0B | 0x0C => {}
                        _ => break,
                    }
                    j += 1;
                }
                r.pos = j;
                return Step::Next;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                r.pos = self.line_end(i);
                return Step::Next;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let mut j = i + 2;
                while j < bytes.len() && !(bytes[j] == b'*' && bytes.get(j + 1) == Some(&b'/')) {
                    if self.line_terminator_at(j) {
                        r.new_line = true;
                    }
                    j += 1;
                }
                r.pos = (j + 2).min(bytes.len());
                return Step::Next;
            }
            b'#' if i == 0 && bytes.get(1) == Some(&b'!') => {
                r.pos = self.line_end(i);
                return Step::Next;
            }
            // Annex B HTML-like comments: `<!--` in a script, or starting a line in a module
            // (an error oxc reports after parsing on); `-->` starting a line in a script
            b'<' if bytes[i..].starts_with(b"<!--") && (!self.goal.module || r.new_line) => {
                r.pos = self.line_end(i);
                return Step::Next;
            }
            b'-' if !self.goal.module && r.new_line && bytes[i..].starts_with(b"-->") => {
                r.pos = self.line_end(i);
                return Step::Next;
            }
            0x80.. => {
                let Some((c, len)) = self.char_at(i) else {
                    return Step::End;
                };
                if is_line_terminator(c) {
                    r.new_line = true;
                    r.pos += len;
                    return Step::Next;
                }
                if c.is_whitespace() || c == '\u{FEFF}' {
                    r.pos += len;
                    return Step::Next;
                }
                // any other character: part of a name
            }
            _ => {}
        }
        // a token
        let new_line = std::mem::replace(&mut r.new_line, false);
        let header = std::mem::replace(&mut r.header_next, false);
        let after_semicolon = std::mem::replace(&mut r.after_semicolon, false);
        let name_start = matches!(b, b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' | b'\\' | 0x80..);
        if after_semicolon && !name_start {
            r.end_if_chain();
        }
        match b {
            b'\'' | b'"' => {
                r.pos = self.string_end(i);
                r.prev = Prev::Value;
            }
            b'`' => {
                r.pos = i + 1;
                r.in_template = true;
            }
            b'(' | b'[' | b'{' => {
                let open = match b {
                    b'(' => Open::Paren { header },
                    b'[' => Open::Bracket,
                    _ => Open::Brace,
                };
                r.pos = i + 1;
                r.prev = Prev::Operand;
                if !r.open(open, self.limit) {
                    return Step::TooDeep(i);
                }
            }
            b')' | b']' | b'}' => {
                r.pos = i + 1;
                r.prev = match r.close(b) {
                    // a closing bracket that closes nothing: oxc stops here
                    None => return Step::End,
                    Some(Open::Substitution) => {
                        r.in_template = true;
                        Prev::Value
                    }
                    Some(Open::Paren { header: true }) => Prev::Operand,
                    // a block or an object literal
                    Some(Open::Brace) => Prev::Either,
                    Some(_) => Prev::Value,
                };
            }
            b'/' => return self.slash(r, i),
            b'.' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                r.pos = self.number_end(i);
                r.prev = Prev::Value;
            }
            b'0'..=b'9' => {
                r.pos = self.number_end(i);
                r.prev = Prev::Value;
            }
            b'.' if bytes[i..].starts_with(b"...") => {
                r.pos = i + 3;
                r.prev = Prev::Operand;
                if !r.add() {
                    return Step::TooDeep(i);
                }
            }
            b'.' => {
                r.pos = i + 1;
                r.prev = Prev::Member;
                if !r.add() {
                    return Step::TooDeep(i);
                }
            }
            b'#' => {
                r.pos = i + 1;
                r.prev = Prev::Member;
            }
            b'?' if bytes.get(i + 1) == Some(&b'.')
                && !bytes.get(i + 2).is_some_and(u8::is_ascii_digit) =>
            {
                r.pos = i + 2;
                r.prev = Prev::Member;
                if !r.add() {
                    return Step::TooDeep(i);
                }
            }
            b'+' | b'-' if bytes.get(i + 1) == Some(&b) => {
                // `++` / `--`: a postfix keeps a value (not across a line break: there it
                // is a prefix of the next statement); a prefix wants an operand
                r.pos = i + 2;
                r.prev = match r.prev {
                    Prev::Value if !new_line => Prev::Value,
                    Prev::Either if !new_line => Prev::Either,
                    _ => Prev::Operand,
                };
                if !r.add() || !r.add() {
                    return Step::TooDeep(i);
                }
            }
            b',' => {
                r.pos = i + 1;
                r.prev = Prev::Operand;
                r.separate();
            }
            b';' => {
                r.pos = i + 1;
                r.prev = Prev::Operand;
                r.separate();
                r.after_semicolon = true;
                if self.goal.typescript {
                    let level = r.top();
                    let dropped = std::mem::take(&mut level.angles);
                    r.open_angles -= dropped;
                }
            }
            // `<` (not `<=` or `<<`) opens a type argument list, or compares
            b'<' if self.goal.typescript && !matches!(bytes.get(i + 1), Some(b'=' | b'<')) => {
                r.pos = i + 1;
                r.prev = Prev::Operand;
                r.top().angles += 1;
                r.open_angles += 1;
                if r.open_angles > self.limit || !r.add() {
                    return Step::TooDeep(i);
                }
            }
            // `>` closes one, not in `=>` or `>=`; it ends a comparison (a regular
            // expression may follow) or type arguments (`f<T> / x` divides)
            b'>' if self.goal.typescript
                && i > 0
                && bytes[i - 1] != b'='
                && bytes.get(i + 1) != Some(&b'=') =>
            {
                r.pos = i + 1;
                r.prev = Prev::Either;
                if r.top().angles > 0 {
                    r.top().angles -= 1;
                    r.open_angles -= 1;
                }
                if !r.add() {
                    return Step::TooDeep(i);
                }
            }
            b'!' | b'~' | b'+' | b'-' | b'*' | b'%' | b'&' | b'|' | b'^' | b'<' | b'>' | b'='
            | b'?' | b':' => {
                r.pos = i + 1;
                // TypeScript's non-null assertion `x!` keeps the value
                r.prev = if b == b'!' && r.prev == Prev::Value && !new_line {
                    Prev::Value
                } else {
                    Prev::Operand
                };
                if !r.add() {
                    return Step::TooDeep(i);
                }
            }
            _ if name_start => return self.name(r, i, header, after_semicolon),
            _ => {
                // `@` and other characters oxc refuses
                r.pos = i + 1;
                r.prev = Prev::Operand;
            }
        }
        Step::Next
    }

    /// The end of the string literal opened at `i`: its closing quote, or the line break
    /// that leaves it unterminated (a `\` before a line break, `\r\n` included, continues
    /// it).
    fn string_end(&self, i: usize) -> usize {
        let bytes = self.bytes;
        let quote = bytes[i];
        let mut j = i + 1;
        while j < bytes.len() {
            match bytes[j] {
                b'\\' => {
                    j += if bytes[j + 1..].starts_with(b"\r\n") {
                        3
                    } else {
                        2
                    };
                }
                b'\n' | b'\r' => return j,
                b if b == quote => return j + 1,
                _ => j += 1,
            }
        }
        bytes.len()
    }

    /// The end of the numeric literal at `i` (digits, letters, `_` and `.`; an exponent's
    /// sign is left as an operator, which only counts one more).
    fn number_end(&self, i: usize) -> usize {
        let mut j = i;
        while j < self.bytes.len()
            && (self.bytes[j].is_ascii_alphanumeric() || matches!(self.bytes[j], b'_' | b'.'))
        {
            j += 1;
        }
        j
    }

    /// Template text from `r.pos` to the next `${` (which opens a level) or the closing
    /// `` ` ``.
    fn template_text(&self, r: &mut Reading) -> Step {
        let bytes = self.bytes;
        let mut j = r.pos;
        while j < bytes.len() {
            match bytes[j] {
                b'\\' => j += 2,
                b'`' => {
                    r.in_template = false;
                    r.pos = j + 1;
                    r.prev = Prev::Value;
                    return Step::Next;
                }
                b'$' if bytes.get(j + 1) == Some(&b'{') => {
                    r.in_template = false;
                    r.pos = j + 2;
                    r.prev = Prev::Operand;
                    if !r.open(Open::Substitution, self.limit) {
                        return Step::TooDeep(j);
                    }
                    return Step::Next;
                }
                _ => j += 1,
            }
        }
        Step::End
    }

    /// A `/` that is not a comment: a division, a regular expression, or (where one token
    /// of context cannot tell) both.
    fn slash(&self, r: &mut Reading, i: usize) -> Step {
        match r.prev {
            Prev::Value | Prev::Member => {
                r.pos = i + 1;
                r.prev = Prev::Operand;
                if !r.add() {
                    return Step::TooDeep(i);
                }
                Step::Next
            }
            Prev::Operand => self.regex(r, i),
            Prev::Either => {
                let mut other = r.clone();
                r.prev = Prev::Value;
                match self.slash(r, i) {
                    Step::Next => {}
                    step => return step,
                }
                other.prev = Prev::Operand;
                other.pos = i;
                Step::Fork(Box::new(other))
            }
        }
    }

    /// The regular expression literal at `i`, skipped as oxc's lexer reads it; an
    /// unterminated one ends the parse.
    fn regex(&self, r: &mut Reading, i: usize) -> Step {
        let mut j = i + 1;
        let mut in_class = false;
        loop {
            let Some((c, len)) = self.char_at(j) else {
                return Step::End;
            };
            if is_line_terminator(c) {
                return Step::End;
            }
            j += len;
            match c {
                '\\' => {
                    let Some((c, len)) = self.char_at(j) else {
                        return Step::End;
                    };
                    if is_line_terminator(c) {
                        return Step::End;
                    }
                    j += len;
                }
                '[' => in_class = true,
                ']' => in_class = false,
                '/' if !in_class => break,
                _ => {}
            }
        }
        // the flags
        while j < self.bytes.len()
            && (self.bytes[j].is_ascii_alphanumeric() || self.bytes[j] == b'$')
        {
            j += 1;
        }
        r.pos = j;
        r.prev = Prev::Value;
        Step::Next
    }

    /// A name at `i`: a keyword (unless it follows `.`, `?.` or `#`), or an identifier.
    /// `header`: the token before was a header keyword; `after_semicolon`: it was `;`.
    fn name(&self, r: &mut Reading, i: usize, header: bool, after_semicolon: bool) -> Step {
        let bytes = self.bytes;
        let is_plain = |b: &u8| PLAIN_NAME[*b as usize];
        let plain_end = bytes[i..]
            .iter()
            .position(|b| !is_plain(b))
            .map_or(bytes.len(), |p| i + p);
        // the name with its `\u` escapes decoded, as far as a keyword is long
        let mut buffer = [0u8; 12];
        let word = if !matches!(bytes.get(plain_end), Some(b'\\' | 0x80..)) {
            // ASCII letters, digits, `_` and `$` only (most names): the name is its text
            r.pos = plain_end;
            &bytes[i..plain_end]
        } else {
            let mut j = i;
            let mut length = 0;
            while j < bytes.len() {
                let b = bytes[j];
                let c = if is_plain(&b) {
                    j += 1;
                    b
                } else if b == b'\\' {
                    let (c, end) = self.unicode_escape(j + 1);
                    j = end.max(j + 1);
                    c.filter(char::is_ascii).map_or(b'\\', |c| c as u8)
                } else if b >= 0x80 {
                    let Some((c, len)) = self.char_at(j) else {
                        break;
                    };
                    if c.is_whitespace() || c == '\u{FEFF}' {
                        break;
                    }
                    j += len;
                    // no keyword holds it
                    b'\\'
                } else {
                    break;
                };
                if length < buffer.len() {
                    buffer[length] = c;
                }
                length += 1;
            }
            r.pos = j;
            buffer.get(..length).unwrap_or_default()
        };
        let flags = keyword(word);
        if after_semicolon && word != b"else" {
            r.end_if_chain();
        }
        if word == b"else" {
            // kept across the `;` before the next `else` (see the module's comment)
            r.top().elses += 1;
            r.total += 1;
            if r.total > MAX_CHAIN {
                return Step::TooDeep(i);
            }
        } else if flags & NESTS != 0 && !r.add() {
            return Step::TooDeep(i);
        }
        if r.prev == Prev::Member {
            r.prev = Prev::Value;
            return Step::Next;
        }
        r.prev = if flags & CONTEXTUAL != 0 {
            // `for await (` still has a header
            r.header_next = header && word == b"await";
            Prev::Either
        } else if flags & OPERAND != 0 {
            r.header_next = flags & HEADER != 0;
            Prev::Operand
        } else {
            Prev::Value
        };
        Step::Next
    }

    /// The character of the `u` escape whose `u` is at `i` (`u0066`, `u{66}`), and the
    /// offset after it.
    fn unicode_escape(&self, i: usize) -> (Option<char>, usize) {
        let bytes = self.bytes;
        if bytes.get(i) != Some(&b'u') {
            return (None, i);
        }
        let (digits, end) = if bytes.get(i + 1) == Some(&b'{') {
            let close = bytes[i..].iter().position(|&b| b == b'}').map(|p| i + p);
            match close {
                Some(close) => (&bytes[i + 2..close], close + 1),
                None => return (None, i + 1),
            }
        } else {
            let end = (i + 5).min(bytes.len());
            if !bytes[i + 1..end].iter().all(u8::is_ascii_hexdigit) {
                return (None, i + 1);
            }
            (&bytes[i + 1..end], end)
        };
        let c = std::str::from_utf8(digits)
            .ok()
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .and_then(char::from_u32);
        (c, end)
    }
}
