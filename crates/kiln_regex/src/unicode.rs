//! Unicode data for patterns (Unicode 17, generated into [`crate::tables`]): property
//! escapes, case folding and the case-insensitive closure of character sets.
//!
//! [Canonicalize](https://tc39.es/ecma262/#sec-runtime-semantics-canonicalize-ch) has
//! two forms: with `u`/`v` it is simple case folding (scf); without, it is the full
//! uppercase of a single code unit, kept only when that is one code unit and does not
//! map a non-ASCII character into ASCII. Characters with the same canonical form make
//! an *orbit*; a class under `/i` matches a character when some member shares its
//! orbit, so [`Folding::closure`] adds whole orbits to the class once, at compile time.

use crate::charset::CharSet;
use crate::tables;
use std::sync::OnceLock;

/// The largest code point.
pub const MAX_CODE_POINT: u32 = 0x10FFFF;

/// Case folding tables for one mode: the non-trivial orbits and the canonical form of
/// every character that is not its own.
pub struct Folding {
    /// (character, canonical form) for characters whose form differs, sorted
    mapped: Vec<(u32, u32)>,
    /// every orbit of two or more characters, members sorted
    orbits: Vec<Vec<u32>>,
    /// (character, index of its orbit) for every member of an orbit, sorted: a set's
    /// orbits are found from its ranges, not by testing every orbit
    members: Vec<(u32, u32)>,
    /// the characters whose canonical form is not themselves
    unfixed: CharSet,
}

impl Folding {
    fn build(mapped: Vec<(u32, u32)>) -> Folding {
        let mut mapped = mapped;
        mapped.sort_unstable();
        let mut by_target: Vec<(u32, u32)> = mapped.iter().map(|&(c, k)| (k, c)).collect();
        by_target.sort_unstable();
        let canon = |c: u32| match mapped.binary_search_by_key(&c, |m| m.0) {
            Ok(i) => mapped[i].1,
            Err(_) => c,
        };
        let mut orbits: Vec<Vec<u32>> = Vec::new();
        for group in by_target.chunk_by(|a, b| a.0 == b.0) {
            let k = group[0].0;
            let mut members: Vec<u32> = group.iter().map(|g| g.1).collect();
            if canon(k) == k {
                members.push(k);
            }
            members.sort_unstable();
            if members.len() > 1 {
                orbits.push(members);
            }
        }
        let mut members: Vec<(u32, u32)> = orbits
            .iter()
            .enumerate()
            .flat_map(|(i, orbit)| orbit.iter().map(move |&c| (c, i as u32)))
            .collect();
        members.sort_unstable();
        let unfixed = CharSet::from_ranges(mapped.iter().map(|&(c, _)| (c, c)).collect());
        Folding {
            mapped,
            orbits,
            members,
            unfixed,
        }
    }

    /// The orbits that have a member in `set`, each once, in order.
    fn orbits_meeting(&self, set: &CharSet) -> impl Iterator<Item = &[u32]> {
        let mut hits: Vec<u32> = Vec::new();
        for &(lo, hi) in set.ranges() {
            let start = self.members.partition_point(|m| m.0 < lo);
            let within = self.members[start..].iter().take_while(|m| m.0 <= hi);
            hits.extend(within.map(|m| m.1));
        }
        hits.sort_unstable();
        hits.dedup();
        hits.into_iter().map(|i| self.orbits[i as usize].as_slice())
    }

    /// [Canonicalize](https://tc39.es/ecma262/#sec-runtime-semantics-canonicalize-ch)(ch)
    #[inline]
    pub fn canonicalize(&self, c: u32) -> u32 {
        if c < 0x41 {
            return c;
        }
        match self.mapped.binary_search_by_key(&c, |m| m.0) {
            Ok(i) => self.mapped[i].1,
            Err(_) => c,
        }
    }

    /// Every character whose canonical form is that of a member of `set`.
    pub fn closure(&self, set: &CharSet) -> CharSet {
        // One character (each letter of a pattern under `/i`): its orbit, found directly.
        if let Some(c) = set.single_member() {
            return match self.members.binary_search_by_key(&c, |m| m.0) {
                Ok(i) => {
                    let orbit = &self.orbits[self.members[i].1 as usize];
                    CharSet::from_ranges(orbit.iter().map(|&m| (m, m)).collect())
                }
                Err(_) => set.clone(),
            };
        }
        let mut out = set.clone();
        let mut extra = Vec::new();
        for orbit in self.orbits_meeting(set) {
            extra.extend(orbit.iter().map(|&c| (c, c)));
        }
        if !extra.is_empty() {
            out.union(&CharSet::from_ranges(extra));
        }
        out
    }

    /// [MaybeSimpleCaseFolding](https://tc39.es/ecma262/#sec-maybesimplecasefolding):
    /// the canonical forms of the members of `set`.
    pub fn fold(&self, set: &CharSet) -> CharSet {
        let mut out = set.subtract(&self.unfixed);
        let mut extra = Vec::new();
        for orbit in self.orbits_meeting(set) {
            let k = self.canonicalize(orbit[0]);
            extra.push((k, k));
        }
        out.union(&CharSet::from_ranges(extra));
        out
    }

    /// The characters that are their own canonical form (AllCharacters under `/vi`).
    pub fn fixed_points(&self) -> CharSet {
        self.unfixed.complement(MAX_CODE_POINT)
    }
}

/// The folding of Unicode mode (`u`/`v`): simple case folding.
pub fn unicode_folding() -> &'static Folding {
    static FOLDING: OnceLock<Folding> = OnceLock::new();
    FOLDING.get_or_init(|| Folding::build(tables::SIMPLE_FOLDING.to_vec()))
}

/// The folding of non-Unicode mode: toUppercase of one code unit, with its exceptions.
pub fn legacy_folding() -> &'static Folding {
    static FOLDING: OnceLock<Folding> = OnceLock::new();
    FOLDING.get_or_init(|| {
        let mapped = tables::UPPERCASE
            .iter()
            .map(|&(c, cu)| (c as u32, cu as u32))
            // 6. A non-ASCII character does not map into ASCII.
            .filter(|&(c, cu)| !(c >= 128 && cu < 128))
            .collect();
        Folding::build(mapped)
    })
}

pub fn folding(unicode: bool) -> &'static Folding {
    if unicode {
        unicode_folding()
    } else {
        legacy_folding()
    }
}

/// The characters `\w` matches: with `u`/`v` and `i`, also those whose canonical form is
/// a basic word character (U+017F and U+212A).
pub fn word_set(unicode: bool, ignore_case: bool) -> CharSet {
    let basic = CharSet::from_ranges(vec![
        (b'0' as u32, b'9' as u32),
        (b'A' as u32, b'Z' as u32),
        (b'_' as u32, b'_' as u32),
        (b'a' as u32, b'z' as u32),
    ]);
    if unicode && ignore_case {
        unicode_folding().closure(&basic)
    } else {
        basic
    }
}

/// IsWordChar for one character: with `u`/`v` and `i`, the closed word set.
pub fn is_word_char(c: u32, unicode_ignore_case: bool) -> bool {
    static CLOSED: OnceLock<CharSet> = OnceLock::new();
    if matches!(c, 0x30..=0x39 | 0x41..=0x5A | 0x5F | 0x61..=0x7A) {
        return true;
    }
    unicode_ignore_case && c > 0x7F && CLOSED.get_or_init(|| word_set(true, true)).contains(c)
}

/// The characters `\s` matches: WhiteSpace and LineTerminator.
pub fn space_set() -> CharSet {
    CharSet::from_ranges(vec![
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ])
}

pub fn is_line_terminator(c: u32) -> bool {
    matches!(c, 0x0A | 0x0D | 0x2028 | 0x2029)
}

/// Whether `c` may start a group name (ID_Start, `$`, `_`).
pub fn is_id_start(c: u32) -> bool {
    static SET: OnceLock<CharSet> = OnceLock::new();
    c == '$' as u32
        || c == '_' as u32
        || SET
            .get_or_init(|| binary("ID_Start").unwrap_or_default())
            .contains(c)
}

/// Whether `c` may continue a group name (ID_Continue, `$`, ZWNJ, ZWJ).
pub fn is_id_continue(c: u32) -> bool {
    static SET: OnceLock<CharSet> = OnceLock::new();
    c == '$' as u32
        || c == 0x200C
        || c == 0x200D
        || SET
            .get_or_init(|| binary("ID_Continue").unwrap_or_default())
            .contains(c)
}

/// What a property escape stands for: characters, and strings (properties of strings).
pub struct Property {
    pub set: CharSet,
    /// sequences of two or more code points
    pub strings: Vec<Vec<u32>>,
}

/// Ranges as `gen/unicode_tables.mjs` encodes them: base-32 varints (digits with more
/// to follow from `MORE`, last digits from `LAST`), for each range the gap after the
/// previous one and its length less one.
fn decode_ranges(text: &str) -> CharSet {
    const LAST: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef";
    const MORE: &[u8] = b"ghijklmnopqrstuvwxyz0123456789+/";
    let mut numbers = Vec::new();
    let mut n: u32 = 0;
    for b in text.bytes() {
        if let Some(d) = MORE.iter().position(|&m| m == b) {
            n = n << 5 | d as u32;
        } else if let Some(d) = LAST.iter().position(|&m| m == b) {
            numbers.push(n << 5 | d as u32);
            n = 0;
        }
    }
    let mut ranges = Vec::with_capacity(numbers.len() / 2);
    let mut next = 0u32;
    for pair in numbers.chunks_exact(2) {
        let start = next + pair[0];
        let end = start + pair[1];
        ranges.push((start, end));
        next = end + 1;
    }
    CharSet::from_ranges(ranges)
}

/// The encoded ranges of `name` in a table sorted by name.
fn lookup<'t>(table: &'t [(&str, &'t str)], name: &str) -> Option<&'t str> {
    let i = table.binary_search_by(|e| e.0.cmp(name)).ok()?;
    Some(table[i].1)
}

/// A binary property by any of its names.
fn binary(name: &str) -> Option<CharSet> {
    let canonical = lookup(tables::BINARY_ALIASES, name)?;
    lookup(tables::BINARY, canonical).map(decode_ranges)
}

fn general_category(value: &str) -> Option<CharSet> {
    let canonical = lookup(tables::GENERAL_CATEGORY_ALIASES, value)?;
    lookup(tables::GENERAL_CATEGORY, canonical).map(decode_ranges)
}

/// The property of `\p{name}` or `\p{name=value}`; strings only with `v`. None when the
/// names are not ones ECMAScript lists.
pub fn property(name: &str, value: Option<&str>, strings_allowed: bool) -> Option<Property> {
    let set = match value {
        // A lone name: a General_Category value, a binary property or a property of strings.
        None => match general_category(name).or_else(|| binary(name)) {
            Some(set) => set,
            None if strings_allowed => return property_of_strings(name),
            None => return None,
        },
        Some(value) => match name {
            "General_Category" | "gc" => general_category(value)?,
            "Script" | "sc" | "Script_Extensions" | "scx" => {
                let canonical = lookup(tables::SCRIPT_ALIASES, value)?;
                let table = if name.starts_with("Script_") || name == "scx" {
                    tables::SCRIPT_EXTENSIONS
                } else {
                    tables::SCRIPT
                };
                decode_ranges(lookup(table, canonical)?)
            }
            _ => return None,
        },
    };
    Some(Property {
        set,
        strings: Vec::new(),
    })
}

/// The [properties of strings](https://tc39.es/ecma262/#table-binary-unicode-properties-of-strings).
fn property_of_strings(name: &str) -> Option<Property> {
    let tables: &[&[&str]] = match name {
        "Basic_Emoji" => &[tables::BASIC_EMOJI],
        "Emoji_Keycap_Sequence" => &[tables::EMOJI_KEYCAP_SEQUENCE],
        "RGI_Emoji_Flag_Sequence" => &[tables::RGI_EMOJI_FLAG_SEQUENCE],
        "RGI_Emoji_Modifier_Sequence" => &[tables::RGI_EMOJI_MODIFIER_SEQUENCE],
        "RGI_Emoji_Tag_Sequence" => &[tables::RGI_EMOJI_TAG_SEQUENCE],
        "RGI_Emoji_ZWJ_Sequence" => &[tables::RGI_EMOJI_ZWJ_SEQUENCE],
        "RGI_Emoji" => &[
            tables::BASIC_EMOJI,
            tables::EMOJI_KEYCAP_SEQUENCE,
            tables::RGI_EMOJI_FLAG_SEQUENCE,
            tables::RGI_EMOJI_MODIFIER_SEQUENCE,
            tables::RGI_EMOJI_TAG_SEQUENCE,
            tables::RGI_EMOJI_ZWJ_SEQUENCE,
        ],
        _ => return None,
    };
    let mut singles = Vec::new();
    let mut strings: Vec<Vec<u32>> = Vec::new();
    for s in tables.iter().flat_map(|t| t.iter()) {
        let cps: Vec<u32> = s.chars().map(u32::from).collect();
        match cps.as_slice() {
            [c] => singles.push((*c, *c)),
            _ => strings.push(cps),
        }
    }
    Some(Property {
        set: CharSet::from_ranges(singles),
        strings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonicalize_follows_the_two_modes() {
        let u = unicode_folding();
        let legacy = legacy_folding();
        assert_eq!(u.canonicalize('A' as u32), 'a' as u32);
        assert_eq!(u.canonicalize(0x017F), 's' as u32);
        assert_eq!(u.canonicalize(0x212A), 'k' as u32);
        assert_eq!(legacy.canonicalize('a' as u32), 'A' as u32);
        // ſ uppercases to S, but a non-ASCII character never maps into ASCII
        assert_eq!(legacy.canonicalize(0x017F), 0x017F);
        // ß uppercases to "SS": not one code unit
        assert_eq!(legacy.canonicalize(0xDF), 0xDF);
        let k = u.closure(&CharSet::single('k' as u32));
        assert_eq!(k.ranges(), &[(0x4B, 0x4B), (0x6B, 0x6B), (0x212A, 0x212A)]);
        assert_eq!(
            legacy.closure(&CharSet::single('k' as u32)).ranges().len(),
            2
        );
    }

    /// The closure and the folding of `set` as the definitions say: every orbit tested.
    fn by_every_orbit(folding: &Folding, set: &CharSet) -> (CharSet, CharSet) {
        let meeting: Vec<&Vec<u32>> = folding
            .orbits
            .iter()
            .filter(|orbit| orbit.iter().any(|&c| set.contains(c)))
            .collect();
        let mut closure = set.clone();
        closure.union(&CharSet::from_ranges(
            meeting
                .iter()
                .flat_map(|o| o.iter().map(|&c| (c, c)))
                .collect(),
        ));
        let mut fold = set.subtract(&folding.unfixed);
        fold.union(&CharSet::from_ranges(
            meeting
                .iter()
                .map(|o| (folding.canonicalize(o[0]), folding.canonicalize(o[0])))
                .collect(),
        ));
        (closure, fold)
    }

    #[test]
    fn closure_and_fold_find_the_orbits_a_set_meets() {
        let sets = [
            CharSet::single('k' as u32),
            CharSet::single('1' as u32),
            CharSet::single(0x3A3), // Σ: an orbit of three
            CharSet::range('a' as u32, 'z' as u32),
            CharSet::from_ranges(vec![(0x40, 0x60), (0x100, 0x17F), (0x1E00, 0x1FFF)]),
            CharSet::range('a' as u32, 'z' as u32).complement(MAX_CODE_POINT),
            CharSet::range(0, MAX_CODE_POINT),
            CharSet::new(),
        ];
        for folding in [unicode_folding(), legacy_folding()] {
            for set in &sets {
                let (closure, fold) = by_every_orbit(folding, set);
                assert_eq!(folding.closure(set).ranges(), closure.ranges());
                assert_eq!(folding.fold(set).ranges(), fold.ranges());
            }
        }
    }

    #[test]
    fn properties_by_name() {
        assert!(property("Lu", None, false).is_some_and(|p| p.set.contains('A' as u32)));
        assert!(property("gc", Some("Letter"), false).is_some());
        assert!(property("Script", Some("Greek"), false).is_some());
        assert!(property("scx", Some("Grek"), false).is_some());
        assert!(property("Emoji", None, false).is_some());
        assert!(property("lu", None, false).is_none());
        assert!(property("RGI_Emoji", None, false).is_none());
        assert!(property("RGI_Emoji", None, true).is_some_and(|p| !p.strings.is_empty()));
    }
}
