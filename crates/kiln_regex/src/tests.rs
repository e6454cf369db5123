//! Matching semantics, checked against what the specification says each case gives.

use super::*;

fn flags_of(f: &str) -> Flags {
    Flags {
        ignore_case: f.contains('i'),
        multiline: f.contains('m'),
        dot_all: f.contains('s'),
        unicode: f.contains('u'),
        unicode_sets: f.contains('v'),
    }
}

/// The groups of the first match of /pattern/flags in `input`, as strings.
fn exec(pattern: &str, flags: &str, input: &str) -> Option<Vec<Option<String>>> {
    let p: Vec<u16> = pattern.encode_utf16().collect();
    let re = Regex::new(&p, flags_of(flags)).unwrap_or_else(|e| panic!("/{pattern}/: {e}"));
    let units: Vec<u16> = input.encode_utf16().collect();
    let m = re
        .find_at(Input::Utf16(&units), 0, flags.contains('y'), &mut |_| true)
        .unwrap()?;
    // a one-byte input must give the same answer
    if input.chars().all(|c| (c as u32) < 256) {
        let bytes: Vec<u8> = input.chars().map(|c| c as u8).collect();
        let m2 = re
            .find_at(Input::Latin1(&bytes), 0, flags.contains('y'), &mut |_| true)
            .unwrap();
        assert_eq!(
            m2.as_ref(),
            Some(&m),
            "Latin-1 and UTF-16 differ for /{pattern}/"
        );
    }
    Some(
        (0..m.len())
            .map(|i| {
                m.get(i)
                    .map(|(s, e)| String::from_utf16_lossy(&units[s..e]))
            })
            .collect(),
    )
}

fn groups(list: &[Option<&str>]) -> Option<Vec<Option<String>>> {
    Some(list.iter().map(|g| g.map(str::to_string)).collect())
}

#[test]
fn quantifiers() {
    assert_eq!(exec("a*?b", "", "aaab"), groups(&[Some("aaab")]));
    assert_eq!(exec("a{2,3}", "", "aaaa"), groups(&[Some("aaa")]));
    assert_eq!(exec("a{2,3}?", "", "aaaa"), groups(&[Some("aa")]));
    assert_eq!(
        exec("(a|ab)(c|bcd)(d*)", "", "abcd"),
        groups(&[Some("abcd"), Some("a"), Some("bcd"), Some("")])
    );
    assert_eq!(
        exec("a[a-z]{2,4}", "", "abcdefghi"),
        groups(&[Some("abcde")])
    );
    assert_eq!(
        exec("a[a-z]{2,4}?", "", "abcdefghi"),
        groups(&[Some("abc")])
    );
    assert_eq!(
        exec("(aa|aabaac|ba|b|c)*", "", "aabaac"),
        groups(&[Some("aaba"), Some("ba")])
    );
    assert_eq!(exec("x{9007199254740991}", "", "x"), None);
    assert_eq!(exec("(?:){9007199254740991}", "", "x"), groups(&[Some("")]));
}

#[test]
fn empty_check_and_capture_reset() {
    // the spec's examples for RepeatMatcher
    assert_eq!(
        exec("(z)((a+)?(b+)?(c))*", "", "zaacbbbcac"),
        groups(&[
            Some("zaacbbbcac"),
            Some("z"),
            Some("ac"),
            Some("a"),
            None,
            Some("c")
        ])
    );
    assert_eq!(exec("(a*)*", "", "b"), groups(&[Some(""), None]));
    assert_eq!(
        exec("(a*)b\\1+", "", "baaaac"),
        groups(&[Some("b"), Some("")])
    );
    assert_eq!(exec("(?:a|())*b", "", "aab"), groups(&[Some("aab"), None]));
    assert_eq!(exec("(a?)*?b", "", "ab"), groups(&[Some("ab"), Some("a")]));
}

#[test]
fn lookarounds() {
    assert_eq!(
        exec("(?=(a+))", "", "baaabac"),
        groups(&[Some(""), Some("aaa")])
    );
    assert_eq!(
        exec("(?=(a+))a*b\\1", "", "baaabac"),
        groups(&[Some("aba"), Some("a")])
    );
    assert_eq!(
        exec("(.*?)a(?!(a+)b\\2c)\\2(.*)", "", "baaabaac"),
        groups(&[Some("baaabaac"), Some("ba"), None, Some("abaac")])
    );
    assert_eq!(
        exec("(?<=\\$)\\d+(\\.\\d*)?", "", "cost $10.53"),
        groups(&[Some("10.53"), Some(".53")])
    );
    assert_eq!(exec("(?<!\\$)\\b\\d+", "", "$10 20"), groups(&[Some("20")]));
    // captures in a lookbehind are found right to left
    assert_eq!(
        exec("(?<=(\\d+)(\\d+))$", "", "1053"),
        groups(&[Some(""), Some("1"), Some("053")])
    );
    assert_eq!(
        exec("(?<=\\1(a))b", "", "aab"),
        groups(&[Some("b"), Some("a")])
    );
    assert_eq!(
        exec("(?<=(?<a>\\w){3})f", "", "abcdef"),
        groups(&[Some("f"), Some("c")])
    );
}

#[test]
fn backreferences() {
    assert_eq!(exec("\\1(a)", "", "aa"), groups(&[Some("a"), Some("a")]));
    assert_eq!(exec("(a)\\1", "i", "aA"), groups(&[Some("aA"), Some("a")]));
    assert_eq!(
        exec("(?<x>a)|(?<x>b)\\k<x>", "", "bb"),
        groups(&[Some("bb"), None, Some("b")])
    );
    assert_eq!(
        exec("(?:(?<x>a)|(?<x>b))\\k<x>", "", "bb"),
        groups(&[Some("bb"), None, Some("b")])
    );
    assert_eq!(
        exec("\\k<a>(?<a>x)", "", "x"),
        groups(&[Some("x"), Some("x")])
    );
    // legacy: \2 without a second group is an octal escape
    assert_eq!(
        exec("(a)\\2", "", "a\u{2}"),
        groups(&[Some("a\u{2}"), Some("a")])
    );
    assert_eq!(exec("\\8", "", "8"), groups(&[Some("8")]));
}

#[test]
fn case_folding() {
    assert_eq!(exec("\\u212a", "i", "k"), None);
    assert_eq!(exec("\\u212a", "iu", "k"), groups(&[Some("k")]));
    assert_eq!(exec("\\w", "iu", "\u{17f}"), groups(&[Some("\u{17f}")]));
    assert_eq!(exec("\\w", "i", "\u{17f}"), None);
    assert_eq!(exec("\\W", "iu", "\u{17f}"), None);
    assert_eq!(exec("\\b", "iu", "\u{212a}"), groups(&[Some("")]));
    assert_eq!(exec("[a-z]+", "i", "HeLLo"), groups(&[Some("HeLLo")]));
    assert_eq!(exec("\u{df}", "i", "SS"), None);
    assert_eq!(exec("[^a]", "i", "A"), None);
    assert_eq!(exec("\u{3a3}", "i", "\u{3c2}"), groups(&[Some("\u{3c2}")]));
    assert_eq!(
        exec("[\\u{10400}]", "ui", "\u{10428}"),
        groups(&[Some("\u{10428}")])
    );
    assert_eq!(exec("\\p{Lu}", "ui", "a"), groups(&[Some("a")]));
    assert_eq!(exec("[^\\P{Lowercase}]", "vi", "A"), groups(&[Some("A")]));
    assert_eq!(exec("(?i:a)b", "", "Ab"), groups(&[Some("Ab")]));
    assert_eq!(exec("(?i:a)b", "", "AB"), None);
    assert_eq!(exec("a(?-i:b)", "i", "Ab"), groups(&[Some("Ab")]));
    assert_eq!(exec("a(?-i:b)", "i", "AB"), None);
}

#[test]
fn unicode_mode() {
    assert_eq!(exec(".", "u", "\u{1F600}"), groups(&[Some("\u{1F600}")]));
    assert_eq!(exec("^.$", "", "\u{1F600}"), None);
    assert_eq!(exec("\\udf06", "u", "\u{1d306}"), None);
    assert_eq!(
        exec("\\udf06", "", "\u{1d306}"),
        groups(&[Some("\u{FFFD}")])
    );
    assert_eq!(
        exec("\\u{1d306}", "u", "\u{1d306}"),
        groups(&[Some("\u{1d306}")])
    );
    assert_eq!(
        exec("\\ud834\\udf06", "u", "\u{1d306}"),
        groups(&[Some("\u{1d306}")])
    );
    assert_eq!(
        exec("[\\ud834\\udf06]", "u", "\u{1d306}"),
        groups(&[Some("\u{1d306}")])
    );
    assert_eq!(
        exec("(?<=\u{1d306})x", "u", "\u{1d306}x"),
        groups(&[Some("x")])
    );
    assert_eq!(
        exec("\\p{Script=Greek}+", "u", "abc\u{3b1}\u{3b2}"),
        groups(&[Some("\u{3b1}\u{3b2}")])
    );
}

#[test]
fn unicode_sets() {
    assert_eq!(exec("[\\p{L}--[a-z]]", "v", "abcD"), groups(&[Some("D")]));
    assert_eq!(
        exec("[[a-z]&&[^aeiou]]+", "v", "aebcd"),
        groups(&[Some("bcd")])
    );
    assert_eq!(exec("^[\\q{abc|a}]$", "v", "abc"), groups(&[Some("abc")]));
    assert_eq!(exec("[\\q{abc|a}]", "v", "abc"), groups(&[Some("abc")]));
    assert_eq!(
        exec(
            "^\\p{RGI_Emoji}$",
            "v",
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"
        ),
        groups(&[Some("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}")])
    );
    assert_eq!(
        exec("^\\p{RGI_Emoji_Flag_Sequence}$", "v", "\u{1F1E9}\u{1F1EA}"),
        groups(&[Some("\u{1F1E9}\u{1F1EA}")])
    );
}

#[test]
fn assertions_and_flags() {
    assert_eq!(exec("^b", "m", "a\nb"), groups(&[Some("b")]));
    assert_eq!(exec("^b", "", "a\nb"), None);
    assert_eq!(exec("a$", "m", "a\nb"), groups(&[Some("a")]));
    assert_eq!(exec("a.b", "", "a\nb"), None);
    assert_eq!(exec("a.b", "s", "a\nb"), groups(&[Some("a\nb")]));
    assert_eq!(exec("\\bfoo\\b", "", "a foo b"), groups(&[Some("foo")]));
    assert_eq!(exec("b", "y", "ab"), None);
    assert_eq!(exec("[]", "", "a"), None);
    assert_eq!(exec("[^]", "", "\n"), groups(&[Some("\n")]));
    assert_eq!(exec("\\c1", "", "\\c1"), groups(&[Some("\\c1")]));
    assert_eq!(exec("[\\c1]", "", "\u{11}"), groups(&[Some("\u{11}")]));
}

#[test]
fn catastrophic_backtracking_is_metered() {
    let p: Vec<u16> = "(a+)+$".encode_utf16().collect();
    let re = Regex::new(&p, Flags::default()).unwrap();
    let input = format!("{}b", "a".repeat(40));
    let mut budget: u64 = 1_000_000;
    let result = re.find_at(Input::Latin1(input.as_bytes()), 0, false, &mut |n| {
        budget = budget.saturating_sub(n);
        budget > 0
    });
    assert_eq!(result, Err(MatchError::Interrupted(Interrupted)));
}

#[test]
fn deep_patterns_do_not_overflow() {
    let p: Vec<u16> = format!("{}a{}", "(?:".repeat(200), ")*".repeat(200))
        .encode_utf16()
        .collect();
    let re = Regex::new(&p, Flags::default()).unwrap();
    let input = "a".repeat(10_000);
    let m = re.find_at(Input::Latin1(input.as_bytes()), 0, false, &mut |_| true);
    assert!(matches!(m, Ok(Some(_))));
    // a long input: the backtrack stack grows on the heap
    let long = format!("{}c", "ab".repeat(100_000));
    let re = Regex::new(
        &"(?:a|b)*c".encode_utf16().collect::<Vec<_>>(),
        Flags::default(),
    )
    .unwrap();
    let m = re.find_at(Input::Latin1(long.as_bytes()), 0, false, &mut |_| true);
    assert_eq!(m.map(|m| m.map(|m| m.end())), Ok(Some(200_001)));
}

#[test]
fn a_missing_required_literal_fails_without_trying_each_position() {
    let p: Vec<u16> = "[a-z]+(\\d)XY".encode_utf16().collect();
    let re = Regex::new(&p, Flags::default()).unwrap();
    let text = "ab1".repeat(2000);
    let mut steps = 0;
    let found = re
        .find_at(Input::Latin1(text.as_bytes()), 0, false, &mut |n| {
            steps += n;
            true
        })
        .unwrap();
    assert_eq!(found, None);
    assert!(steps < 1_000, "{steps} steps");
    assert_eq!(
        exec("[a-z]+(\\d)XY", "", "ab1 cd2XY"),
        groups(&[Some("cd2XY"), Some("2")])
    );
    // a sticky search is not prefiltered, and matches as before
    assert_eq!(exec("[a-z]+XY", "y", "abXY"), groups(&[Some("abXY")]));
    assert_eq!(exec("[a-z]+XY", "y", "ab XY"), None);
}
