//! Substring search over code units in linear time: `indexOf`, `includes`,
//! `lastIndexOf`, and the string forms of `split`, `replace` and `replaceAll`.
//!
//! One-byte text is searched with `memchr::memmem` (SIMD two-way). Two-byte text uses
//! Knuth–Morris–Pratt, skipping ahead to the needle's first unit with a plain scan while
//! no partial match is pending, so common searches stay as fast as a naive scan and no
//! search is O(n·m). A needle with a unit above 255 never occurs in one-byte text.
//!
//! Each search also returns the code units it examined, for the caller to charge as
//! fuel: the text memmem scanned (it is linear by construction), or KMP's steps.

use crate::heap::string::Units;

/// The first index at or after `from` where `needle` occurs in `hay`, and the code
/// units examined.
pub fn find(hay: Units<'_>, needle: Units<'_>, from: usize) -> (Option<usize>, usize) {
    let (n, m) = (hay.len(), needle.len());
    if m == 0 {
        return ((from <= n).then_some(from), 0);
    }
    if m > n || from > n - m {
        return (None, 0);
    }
    match hay {
        Units::Latin1(h) => {
            let Some(nd) = narrow(needle) else {
                return (None, m);
            };
            let found = memchr::memmem::find(&h[from..], &nd);
            (
                found.map(|i| i + from),
                found.map_or(n - from, |i| i + m) + m,
            )
        }
        Units::Utf16(h) => {
            let (found, steps) = kmp(&h[from..], &needle.iter().collect::<Vec<_>>());
            (found.map(|i| i + from), steps)
        }
    }
}

/// The last index at or before `from` where `needle` occurs in `hay`, and the code
/// units examined.
pub fn rfind(hay: Units<'_>, needle: Units<'_>, from: usize) -> (Option<usize>, usize) {
    let (n, m) = (hay.len(), needle.len());
    if m > n {
        return (None, 0);
    }
    let end = from.min(n - m) + m;
    if m == 0 {
        return (Some(end), 0);
    }
    match hay {
        Units::Latin1(h) => {
            let Some(nd) = narrow(needle) else {
                return (None, m);
            };
            let found = memchr::memmem::rfind(&h[..end], &nd);
            (found, end - found.unwrap_or(0) + m)
        }
        Units::Utf16(h) => {
            // Search the reversed text for the reversed needle.
            let reversed: Vec<u16> = h[..end].iter().rev().copied().collect();
            let nd: Vec<u16> = needle
                .iter()
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let (found, steps) = kmp(&reversed, &nd);
            (found.map(|i| end - i - m), steps + end)
        }
    }
}

/// The needle as bytes, or None if some unit does not fit in one (it then never
/// occurs in one-byte text).
fn narrow(needle: Units<'_>) -> Option<std::borrow::Cow<'_, [u8]>> {
    match needle {
        Units::Latin1(b) => Some(b.into()),
        Units::Utf16(u) => u
            .iter()
            .map(|&c| u8::try_from(c).ok())
            .collect::<Option<Vec<u8>>>()
            .map(Into::into),
    }
}

/// Knuth–Morris–Pratt: the first index of `needle` (non-empty) in `hay`, and the steps
/// taken (at most 2 per unit of text and of needle).
fn kmp(hay: &[u16], needle: &[u16]) -> (Option<usize>, usize) {
    let m = needle.len();
    let mut steps = m;
    // fail[i]: the length of the longest proper border of needle[..=i]
    let mut fail = vec![0usize; m];
    let mut k = 0;
    for i in 1..m {
        while k > 0 && needle[i] != needle[k] {
            k = fail[k - 1];
            steps += 1;
        }
        if needle[i] == needle[k] {
            k += 1;
        }
        fail[i] = k;
    }
    let first = needle[0];
    let (mut i, mut q) = (0, 0);
    while i < hay.len() {
        if q == 0 {
            // no partial match: skip to the next occurrence of the first unit
            match hay[i..].iter().position(|&u| u == first) {
                Some(skip) => {
                    i += skip;
                    steps += skip;
                }
                None => return (None, steps + hay.len() - i),
            }
        }
        while q > 0 && hay[i] != needle[q] {
            q = fail[q - 1];
            steps += 1;
        }
        steps += 1;
        if hay[i] == needle[q] {
            q += 1;
            if q == m {
                return (Some(i + 1 - m), steps);
            }
        }
        i += 1;
    }
    (None, steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn finds_first_and_last_occurrences_in_both_widths() {
        let cases = [
            ("abcabcabd", "abd", 0, Some(6), Some(6)),
            ("aaaaab", "aab", 0, Some(3), Some(3)),
            ("abababab", "abab", 1, Some(2), Some(4)),
            ("abc", "", 2, Some(2), Some(3)),
            ("abc", "d", 0, None, None),
            ("abc", "abcd", 0, None, None),
        ];
        for (hay, needle, from, first, last) in cases {
            let (h, n) = (wide(hay), wide(needle));
            for hay_units in [Units::Latin1(hay.as_bytes()), Units::Utf16(&h)] {
                for needle_units in [Units::Latin1(needle.as_bytes()), Units::Utf16(&n)] {
                    assert_eq!(
                        find(hay_units, needle_units, from).0,
                        first,
                        "{hay} {needle}"
                    );
                    assert_eq!(
                        rfind(hay_units, needle_units, usize::MAX).0,
                        last,
                        "{hay} {needle}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_wide_needle_is_not_in_one_byte_text() {
        let needle = wide("a\u{4e00}");
        assert_eq!(
            find(Units::Latin1(b"aaaa"), Units::Utf16(&needle), 0).0,
            None
        );
        let hay = wide("xa\u{4e00}a\u{4e00}");
        assert_eq!(
            find(Units::Utf16(&hay), Units::Utf16(&needle), 0).0,
            Some(1)
        );
        assert_eq!(
            rfind(Units::Utf16(&hay), Units::Utf16(&needle), 9).0,
            Some(3)
        );
        assert_eq!(
            rfind(Units::Utf16(&hay), Units::Utf16(&needle), 2).0,
            Some(1)
        );
    }

    #[test]
    fn periodic_needles_match_where_a_naive_search_would() {
        let hay: Vec<u16> = wide(&("ab".repeat(50) + "abc" + &"ab".repeat(50)));
        let needle = wide(&("ab".repeat(20) + "c"));
        let (found, steps) = find(Units::Utf16(&hay), Units::Utf16(&needle), 0);
        assert_eq!(found, Some(62));
        assert!(steps <= 2 * (hay.len() + needle.len()), "{steps} steps");
    }
}
