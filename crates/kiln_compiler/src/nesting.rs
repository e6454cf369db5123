//! A cheap pre-scan that rejects sources nested too deeply for the
//! recursive-descent parser and the compiler's tree walkers.
//!
//! It counts `(`, `[`, `{` and `${` while skipping strings, comments and
//! template text. Regular expression literals are not recognised (telling
//! them from division needs a parser); a bracket inside one only makes the
//! count slightly off, never wrong by more than that literal.
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
//! link, so its operators are counted as well. So it also counts, along the path of open brackets, the operator
//! characters and the keywords that can nest since the last `,` or `;` at each level;
//! past [`MAX_CHAIN`] the source is refused. Without the limit a million such levels
//! (a few megabytes of `eval`ed text) exhausted the compiler thread's 256 MiB stack and
//! aborted the process, and even 100,000 nested arrows made the compiler hold 150 MB.
//! Real code stays in the hundreds: the most in 2,500 files of npm packages, the
//! TypeScript compiler among them, was 295. Over-counting only refuses sooner.

/// The deepest bracket nesting the compiler accepts, and in TypeScript also the most `<`
/// open at once.
pub(crate) const MAX_NESTING: usize = 1000;

/// The most operators and nesting keywords open along one path of brackets (see above).
pub(crate) const MAX_CHAIN: usize = 10_000;

/// Keywords whose operand or body may be another of the same (`new new F`, `if (a) if
/// (b) x`, `class A extends class B extends C {} {}`).
const NESTING_KEYWORDS: &[&[u8]] = &[
    b"await",
    b"delete",
    b"do",
    b"else",
    b"extends",
    b"for",
    b"if",
    b"in",
    b"instanceof",
    b"new",
    b"typeof",
    b"void",
    b"while",
    b"with",
    b"yield",
];

/// Operators and nesting keywords counted since the last `,` or `;` of each open bracket
/// (the first entry: outside any), and their sum.
struct Chain {
    levels: Vec<usize>,
    total: usize,
}

impl Chain {
    /// Counts one more; false when the path now holds more than [`MAX_CHAIN`].
    fn add(&mut self) -> bool {
        if let Some(level) = self.levels.last_mut() {
            *level += 1;
        }
        self.total += 1;
        self.total <= MAX_CHAIN
    }
    fn open(&mut self) {
        self.levels.push(0);
    }
    fn close(&mut self) {
        if self.levels.len() > 1
            && let Some(level) = self.levels.pop()
        {
            self.total -= level;
        }
    }
    /// A `,` or `;`: what follows does not nest in what came before at this level.
    fn separate(&mut self) {
        if let Some(level) = self.levels.last_mut() {
            self.total -= *level;
            *level = 0;
        }
    }
}

/// The byte offset of the first bracket nested deeper than `limit`, of the first operator
/// or keyword past [`MAX_CHAIN`] on one path, or in TypeScript of the first `<` beyond
/// `limit` open ones, if any.
pub(crate) fn too_deep(source: &str, limit: usize, typescript: bool) -> Option<usize> {
    // Each bracket, `<` and counted operator or keyword takes a byte at least: a source no
    // longer than the limits cannot pass them.
    if source.len() <= limit.min(MAX_CHAIN) {
        return None;
    }
    let bytes = source.as_bytes();
    let mut chain = Chain {
        levels: vec![0],
        total: 0,
    };
    // Each open bracket: true if it is the `${` of a template substitution.
    let mut stack: Vec<bool> = Vec::new();
    // TypeScript: the `<` open in each bracket (the first entry: outside any), and in all.
    let mut angles: Vec<usize> = vec![0];
    let mut open_angles = 0;
    let mut i = 0;
    let mut in_template = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_template {
            match b {
                b'\\' => i += 2,
                b'`' => {
                    in_template = false;
                    i += 1;
                }
                b'$' if bytes.get(i + 1) == Some(&b'{') => {
                    stack.push(true);
                    angles.push(0);
                    chain.open();
                    if stack.len() > limit {
                        return Some(i);
                    }
                    in_template = false;
                    i += 2;
                }
                _ => i += 1,
            }
            continue;
        }
        match b {
            b'\'' | b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'`' => {
                in_template = true;
                i += 1;
            }
            b'(' | b'[' | b'{' => {
                stack.push(false);
                angles.push(0);
                chain.open();
                if stack.len() > limit {
                    return Some(i);
                }
                i += 1;
            }
            b')' | b']' | b'}' => {
                if stack.pop() == Some(true) && b == b'}' {
                    in_template = true;
                }
                if angles.len() > 1 {
                    open_angles -= angles.pop().unwrap_or(0);
                }
                chain.close();
                i += 1;
            }
            // `<`, not `<=` or `<<`
            b'<' if typescript && !matches!(bytes.get(i + 1), Some(b'=' | b'<')) => {
                if let Some(level) = angles.last_mut() {
                    *level += 1;
                }
                open_angles += 1;
                if open_angles > limit {
                    return Some(i);
                }
                i += 1;
            }
            b'<' if typescript => i += 2,
            // `>` closes one, not in `=>` or `>=`
            b'>' if typescript
                && i > 0
                && bytes[i - 1] != b'='
                && bytes.get(i + 1) != Some(&b'=') =>
            {
                if let Some(level) = angles.last_mut()
                    && *level > 0
                {
                    *level -= 1;
                    open_angles -= 1;
                }
                i += 1;
            }
            b';' if typescript => {
                if let Some(level) = angles.last_mut() {
                    open_angles -= *level;
                    *level = 0;
                }
                chain.separate();
                i += 1;
            }
            b',' | b';' => {
                chain.separate();
                i += 1;
            }
            b'!' | b'~' | b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'<' | b'>'
            | b'=' | b'?' | b':' | b'.' => {
                if !chain.add() {
                    return Some(i);
                }
                i += 1;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' => {
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'$'))
                {
                    i += 1;
                }
                if NESTING_KEYWORDS.contains(&&bytes[start..i]) && !chain.add() {
                    return Some(start);
                }
            }
            _ => i += 1,
        }
    }
    None
}
