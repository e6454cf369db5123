//! A cheap pre-scan that rejects sources nested too deeply for the
//! recursive-descent parser and the compiler's tree walkers.
//!
//! It counts `(`, `[`, `{` and `${` while skipping strings, comments and
//! template text. Regular expression literals are not recognised (telling
//! them from division needs a parser); a bracket inside one only makes the
//! count slightly off, never wrong by more than that literal.

/// The deepest bracket nesting the compiler accepts.
pub(crate) const MAX_NESTING: usize = 1000;

/// The byte offset of the first bracket nested deeper than `limit`, if any.
pub(crate) fn too_deep(source: &str, limit: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    // Each open bracket: true if it is the `${` of a template substitution.
    let mut stack: Vec<bool> = Vec::new();
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
                if stack.len() > limit {
                    return Some(i);
                }
                i += 1;
            }
            b')' | b']' => {
                stack.pop();
                i += 1;
            }
            b'}' => {
                if stack.pop() == Some(true) {
                    in_template = true;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}
