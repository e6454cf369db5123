//! String storage: one-byte (Latin-1) or two-byte (UTF-16) flat strings, slices of
//! them, and ropes, plus the atom table that interns property keys.
//!
//! A rope is the lazy concatenation of two strings; it is flattened the first
//! time its contents are read, so `s += x` in a loop costs O(1) per step and
//! O(n) once at the end. Flattening walks the rope with an explicit stack:
//! ropes built by loops are as deep as the loop is long.
//!
//! A slice is a long substring that shares the storage of the flat string it was
//! taken from, so a tokenizer that keeps cutting the front off its input
//! (`src = src.slice(token.length)`) is linear, not quadratic. A slice reads as
//! flat; it keeps its base alive, and becomes a copy when interned or snapshotted.

use super::{Arena, StringId};
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// The contents of one heap string.
#[derive(Clone, Debug)]
pub enum StrData {
    /// every code unit is below 256
    Latin1(Box<[u8]>),
    /// a one-byte string of at most [`INLINE_LEN`] units, kept in its table entry: most
    /// strings a program makes (words, keys, tokens, numbers) are this short, and making
    /// or freeing one then costs no allocation
    Inline {
        len: u8,
        bytes: [u8; INLINE_LEN],
    },
    Utf16(Box<[u16]>),
    /// units shared with the realm template the heap was copied from (see
    /// [`JsStr::share`]); they read as `Latin1` and `Utf16` do
    SharedLatin1(Rc<[u8]>),
    SharedUtf16(Rc<[u16]>),
    /// units in the program's read-only data (a built-in's name, see
    /// [`super::Heap::intern_static`]); they read as `Latin1` does
    Static(&'static [u8]),
    Rope {
        left: StringId,
        right: StringId,
    },
    /// `len` units of `base` from `start`; `base` is flat (one-byte or two-byte, owned
    /// or shared), never a rope or a slice
    Slice {
        base: StringId,
        start: u32,
    },
}

/// The most units a one-byte string keeps in place ([`StrData::Inline`]): as many as fit
/// beside the variant's tag and length in the space the boxed variants take.
pub const INLINE_LEN: usize = 22;
const _: () = assert!(size_of::<StrData>() == 24);

/// Substrings at least this long share their base's storage instead of copying it.
pub const MIN_SLICE_LEN: usize = 32;

/// A heap string: its data and cached facts about it.
#[derive(Clone, Debug)]
pub struct JsStr {
    pub data: StrData,
    /// length in UTF-16 code units
    pub len: u32,
    /// true when this string is the interned copy of its contents
    pub is_atom: bool,
}

impl Default for JsStr {
    fn default() -> Self {
        JsStr {
            data: StrData::Latin1(Box::new([])),
            len: 0,
            is_atom: false,
        }
    }
}

impl JsStr {
    pub fn from_units(units: &[u16]) -> JsStr {
        let len = units.len() as u32;
        if units.iter().fold(0, |acc, &u| acc | u) < 256 {
            let data = if units.len() <= INLINE_LEN {
                let mut bytes = [0; INLINE_LEN];
                for (b, &u) in bytes.iter_mut().zip(units) {
                    *b = u as u8;
                }
                StrData::Inline {
                    len: len as u8,
                    bytes,
                }
            } else {
                StrData::Latin1(units.iter().map(|&u| u as u8).collect())
            };
            JsStr {
                data,
                len,
                is_atom: false,
            }
        } else {
            JsStr {
                data: StrData::Utf16(units.into()),
                len,
                is_atom: false,
            }
        }
    }

    /// A string of the units `units` (two-byte units all below 256 are stored as one byte).
    pub fn from_view(units: Units<'_>) -> JsStr {
        match units {
            Units::Latin1(b) => JsStr {
                data: StrData::latin1(b),
                len: b.len() as u32,
                is_atom: false,
            },
            Units::Utf16(u) => JsStr::from_units(u),
        }
    }

    pub fn from_latin1(bytes: Box<[u8]>) -> JsStr {
        let len = bytes.len() as u32;
        JsStr {
            data: StrData::Latin1(bytes),
            len,
            is_atom: false,
        }
    }

    pub fn from_text(s: &str) -> JsStr {
        if s.is_ascii() {
            JsStr::from_view(Units::Latin1(s.as_bytes()))
        } else {
            let units: Vec<u16> = s.encode_utf16().collect();
            JsStr::from_units(&units)
        }
    }

    /// Bytes this string owns beyond its table entry (shared units count as its own).
    pub fn payload_bytes(&self) -> usize {
        self.data.units().map_or(0, |u| match u {
            Units::Latin1(b) => b.len(),
            Units::Utf16(u) => u.len() * 2,
        })
    }

    /// Move the units into storage that copies of this string share (a realm template's
    /// strings, once built: a copied heap then allocates nothing per string).
    pub fn share(&mut self) {
        self.data = match &self.data {
            StrData::Latin1(b) => StrData::SharedLatin1(Rc::from(&**b)),
            StrData::Utf16(u) => StrData::SharedUtf16(Rc::from(&**u)),
            _ => return,
        };
    }
}

impl StrData {
    /// One-byte units, kept in place when they fit.
    pub fn latin1(units: &[u8]) -> StrData {
        if units.len() <= INLINE_LEN {
            let mut bytes = [0; INLINE_LEN];
            bytes[..units.len()].copy_from_slice(units);
            StrData::Inline {
                len: units.len() as u8,
                bytes,
            }
        } else {
            StrData::Latin1(units.into())
        }
    }

    /// The units of a flat string stored in place (owned or shared); None for a rope or a
    /// slice.
    #[inline]
    pub fn units(&self) -> Option<Units<'_>> {
        match self {
            StrData::Latin1(b) => Some(Units::Latin1(b)),
            StrData::Inline { len, bytes } => Some(Units::Latin1(&bytes[..*len as usize])),
            StrData::Utf16(u) => Some(Units::Utf16(u)),
            StrData::SharedLatin1(b) => Some(Units::Latin1(b)),
            StrData::SharedUtf16(u) => Some(Units::Utf16(u)),
            StrData::Static(b) => Some(Units::Latin1(b)),
            StrData::Rope { .. } | StrData::Slice { .. } => None,
        }
    }
}

/// The code units of string `id` in `strings`; empty for a rope (flatten it first).
pub fn units_in(strings: &Arena<JsStr>, id: StringId) -> Units<'_> {
    let s = strings.get(id.0);
    if let Some(units) = s.data.units() {
        return units;
    }
    let StrData::Slice { base, start } = &s.data else {
        return Units::Latin1(&[]); // a rope
    };
    let range = *start as usize..*start as usize + s.len as usize;
    match strings.get(base.0).data.units() {
        Some(Units::Latin1(b)) => Units::Latin1(&b[range]),
        Some(Units::Utf16(u)) => Units::Utf16(&u[range]),
        None => Units::Latin1(&[]),
    }
}

/// A borrowed view of a flat string's code units.
#[derive(Clone, Copy, Debug)]
pub enum Units<'a> {
    Latin1(&'a [u8]),
    Utf16(&'a [u16]),
}

impl<'a> Units<'a> {
    pub fn len(self) -> usize {
        match self {
            Units::Latin1(b) => b.len(),
            Units::Utf16(u) => u.len(),
        }
    }
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
    #[inline]
    pub fn at(self, i: usize) -> u16 {
        match self {
            Units::Latin1(b) => b[i] as u16,
            Units::Utf16(u) => u[i],
        }
    }
    /// The code units in order. The iterator knows its exact length (so `Vec::extend`
    /// reserves once) and folds over the underlying slice (so `for_each`, `sum` and
    /// `fold` compile to one plain loop per storage).
    #[inline]
    pub fn iter(self) -> UnitsIter<'a> {
        match self {
            Units::Latin1(b) => UnitsIter::Latin1(b.iter()),
            Units::Utf16(u) => UnitsIter::Utf16(u.iter()),
        }
    }
    /// Append the units to `out`, reserving once.
    #[inline]
    pub fn extend_into(self, out: &mut Vec<u16>) {
        match self {
            Units::Latin1(b) => out.extend(b.iter().map(|&c| u16::from(c))),
            Units::Utf16(u) => out.extend_from_slice(u),
        }
    }
    /// Compare by code units (the order of `<` on strings).
    pub fn cmp_units(self, other: Units<'_>) -> std::cmp::Ordering {
        match (self, other) {
            (Units::Latin1(a), Units::Latin1(b)) => a.cmp(b),
            (Units::Utf16(a), Units::Utf16(b)) => a.cmp(b),
            (Units::Latin1(a), Units::Utf16(b)) => cmp_narrow_wide(a, b),
            (Units::Utf16(a), Units::Latin1(b)) => cmp_narrow_wide(b, a).reverse(),
        }
    }
    pub fn slice(self, range: std::ops::Range<usize>) -> Units<'a> {
        match self {
            Units::Latin1(b) => Units::Latin1(&b[range]),
            Units::Utf16(u) => Units::Utf16(&u[range]),
        }
    }
    pub fn to_vec(self) -> Vec<u16> {
        match self {
            Units::Latin1(b) => b.iter().map(|&c| u16::from(c)).collect(),
            Units::Utf16(u) => u.to_vec(),
        }
    }
    pub fn eq_units(self, other: Units<'_>) -> bool {
        match (self, other) {
            (Units::Latin1(a), Units::Latin1(b)) => a == b,
            (Units::Utf16(a), Units::Utf16(b)) => a == b,
            (Units::Latin1(a), Units::Utf16(b)) | (Units::Utf16(b), Units::Latin1(a)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| u16::from(x) == y)
            }
        }
    }
    /// Exact conversion; None for a string with a lone surrogate (it has no UTF-8 form).
    pub fn to_rust_string_exact(self) -> Option<String> {
        match self {
            Units::Latin1(b) if b.is_ascii() => String::from_utf8(b.to_vec()).ok(),
            Units::Latin1(b) => Some(b.iter().map(|&c| c as char).collect()),
            Units::Utf16(u) => String::from_utf16(u).ok(),
        }
    }
    /// Lossy conversion for messages and printing (lone surrogates become U+FFFD).
    pub fn to_rust_string(self) -> String {
        match self {
            Units::Latin1(b) if b.is_ascii() => String::from_utf8(b.to_vec()).unwrap_or_default(),
            Units::Latin1(b) => b.iter().map(|&c| c as char).collect(),
            Units::Utf16(u) => String::from_utf16_lossy(u),
        }
    }
    /// FxHash-style hash over code units, equal for equal contents whatever the storage.
    pub fn content_hash(self) -> u64 {
        // one loop per storage: the chained iterator of `iter` costs several times more
        // per unit, and every string key a program makes is hashed here
        fn mix(h: u64, unit: u16) -> u64 {
            (h.rotate_left(5) ^ unit as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
        }
        const SEED: u64 = 0xcbf2_9ce4_8422_2325;
        match self {
            Units::Latin1(b) => b.iter().fold(SEED, |h, &c| mix(h, c as u16)),
            Units::Utf16(u) => u.iter().fold(SEED, |h, &c| mix(h, c)),
        }
    }
    /// If these units spell a canonical array index (0 ..= 2^32 - 2), that index.
    pub fn as_array_index(self) -> Option<u32> {
        let len = self.len();
        if len == 0 || len > 10 {
            return None;
        }
        let first = self.at(0);
        if first == b'0' as u16 {
            return if len == 1 { Some(0) } else { None };
        }
        let mut n: u64 = 0;
        for u in self.iter() {
            if !(b'0' as u16..=b'9' as u16).contains(&u) {
                return None;
            }
            n = n * 10 + (u - b'0' as u16) as u64;
        }
        if n < u32::MAX as u64 {
            Some(n as u32)
        } else {
            None
        }
    }
}

/// Compare one-byte units with two-byte units, unit by unit.
fn cmp_narrow_wide(a: &[u8], b: &[u16]) -> std::cmp::Ordering {
    for (&x, &y) in a.iter().zip(b) {
        let x = u16::from(x);
        if x != y {
            return x.cmp(&y);
        }
    }
    a.len().cmp(&b.len())
}

/// The iterator of [`Units::iter`].
#[derive(Clone, Debug)]
pub enum UnitsIter<'a> {
    Latin1(std::slice::Iter<'a, u8>),
    Utf16(std::slice::Iter<'a, u16>),
}

impl Iterator for UnitsIter<'_> {
    type Item = u16;
    #[inline]
    fn next(&mut self) -> Option<u16> {
        match self {
            UnitsIter::Latin1(i) => i.next().map(|&c| u16::from(c)),
            UnitsIter::Utf16(i) => i.next().copied(),
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<u16> {
        match self {
            UnitsIter::Latin1(i) => i.nth(n).map(|&c| u16::from(c)),
            UnitsIter::Utf16(i) => i.nth(n).copied(),
        }
    }
    #[inline]
    fn fold<B, F: FnMut(B, u16) -> B>(self, init: B, f: F) -> B {
        match self {
            UnitsIter::Latin1(i) => i.map(|&c| u16::from(c)).fold(init, f),
            UnitsIter::Utf16(i) => i.copied().fold(init, f),
        }
    }
}

impl DoubleEndedIterator for UnitsIter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<u16> {
        match self {
            UnitsIter::Latin1(i) => i.next_back().map(|&c| u16::from(c)),
            UnitsIter::Utf16(i) => i.next_back().copied(),
        }
    }
    #[inline]
    fn rfold<B, F: FnMut(B, u16) -> B>(self, init: B, f: F) -> B {
        match self {
            UnitsIter::Latin1(i) => i.map(|&c| u16::from(c)).rfold(init, f),
            UnitsIter::Utf16(i) => i.copied().rfold(init, f),
        }
    }
}

impl ExactSizeIterator for UnitsIter<'_> {
    #[inline]
    fn len(&self) -> usize {
        match self {
            UnitsIter::Latin1(i) => i.len(),
            UnitsIter::Utf16(i) => i.len(),
        }
    }
}

impl std::iter::FusedIterator for UnitsIter<'_> {}

/// Interned strings by content: equal atoms are the same [`StringId`].
///
/// Almost every content hash has one atom, kept inline; the rare hashes shared by
/// several atoms keep the others in `collisions`.
#[derive(Clone, Default)]
pub struct AtomTable {
    first: FxHashMap<u64, StringId>,
    collisions: FxHashMap<u64, Vec<StringId>>,
}

impl AtomTable {
    /// The atoms whose contents hash to `hash`.
    pub fn bucket(&self, hash: u64) -> impl Iterator<Item = StringId> + '_ {
        let first = self.first.get(&hash).copied();
        // the others are looked up only when the first is not the one sought
        let others = first
            .into_iter()
            .flat_map(move |_| self.collisions.get(&hash).into_iter().flatten().copied());
        first.into_iter().chain(others)
    }
    /// Add an atom; returns the bytes by which [`AtomTable::owned_bytes`] grew when a map
    /// grew, so that the heap counts them before the next collection does.
    pub fn insert(&mut self, hash: u64, id: StringId) -> usize {
        let before = self.maps_bytes();
        match self.first.entry(hash) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(id);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collisions.entry(hash).or_default().push(id)
            }
        }
        3 * (self.maps_bytes() - before)
    }
    /// Make room for `atoms` atoms in all; returns the bytes by which
    /// [`AtomTable::owned_bytes`] grew, as [`AtomTable::insert`] does.
    pub fn reserve(&mut self, atoms: usize) -> usize {
        let before = self.maps_bytes();
        self.first.reserve(atoms.saturating_sub(self.first.len()));
        3 * (self.maps_bytes() - before)
    }
    /// Bytes the table's maps hold, and those of the maps they become when they next
    /// grow (twice as large): a guest that makes atoms grows them, and while a map grows
    /// its old and new storage exist together, so the room for both must be counted
    /// before the growth, not after it.
    pub fn owned_bytes(&self) -> usize {
        3 * self.maps_bytes()
            + self
                .collisions
                .values()
                .map(|v| v.capacity() * size_of::<StringId>())
                .sum::<usize>()
    }
    /// The two maps' entries and control bytes.
    fn maps_bytes(&self) -> usize {
        self.first.capacity() * (size_of::<(u64, StringId)>() + 1)
            + self.collisions.capacity() * (size_of::<(u64, Vec<StringId>)>() + 1)
    }

    pub fn len(&self) -> usize {
        self.first.len() + self.collisions.values().map(Vec::len).sum::<usize>()
    }
    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }
    pub fn all(&self) -> impl Iterator<Item = StringId> + '_ {
        self.first
            .values()
            .chain(self.collisions.values().flatten())
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_indices_are_canonical() {
        let idx = |s: &str| Units::Latin1(s.as_bytes()).as_array_index();
        assert_eq!(idx("0"), Some(0));
        assert_eq!(idx("42"), Some(42));
        assert_eq!(idx("4294967294"), Some(4294967294));
        assert_eq!(idx("4294967295"), None);
        assert_eq!(idx("01"), None);
        assert_eq!(idx("-1"), None);
        assert_eq!(idx(""), None);
        assert_eq!(idx("1e3"), None);
    }

    #[test]
    fn short_one_byte_strings_are_kept_in_place() {
        let fits = "a".repeat(INLINE_LEN);
        let over = "a".repeat(INLINE_LEN + 1);
        for (text, inline) in [("", true), (fits.as_str(), true), (over.as_str(), false)] {
            let units: Vec<u16> = text.encode_utf16().collect();
            for s in [JsStr::from_text(text), JsStr::from_units(&units)] {
                assert_eq!(matches!(s.data, StrData::Inline { .. }), inline, "{text:?}");
                assert_eq!(s.len as usize, text.len());
                assert!(
                    s.data
                        .units()
                        .unwrap()
                        .eq_units(Units::Latin1(text.as_bytes()))
                );
            }
        }
        // two-byte units stay two-byte, however short
        assert!(matches!(
            JsStr::from_units(&[0x100]).data,
            StrData::Utf16(_)
        ));
    }

    #[test]
    fn hashes_ignore_storage_width() {
        let a = Units::Latin1(b"abc");
        let wide = [97u16, 98, 99];
        let b = Units::Utf16(&wide);
        assert_eq!(a.content_hash(), b.content_hash());
        assert!(a.eq_units(b));
    }

    #[test]
    fn mixed_widths_compare_and_iterate_alike() {
        use std::cmp::Ordering::*;
        let narrow = Units::Latin1(b"abd");
        let wide = [97u16, 98, 99, 0x100];
        let wide = Units::Utf16(&wide);
        assert_eq!(narrow.cmp_units(wide), Greater);
        assert_eq!(wide.cmp_units(narrow), Less);
        assert_eq!(Units::Latin1(b"ab").cmp_units(wide), Less);
        assert!(!narrow.eq_units(wide));
        assert_eq!(wide.iter().len(), 4);
        assert_eq!(wide.iter().rev().collect::<Vec<_>>(), [0x100, 99, 98, 97]);
        let mut out = vec![1u16];
        narrow.extend_into(&mut out);
        assert_eq!(out, [1, 97, 98, 100]);
        assert_eq!(narrow.iter().nth(2), Some(100));
    }
}
