//! Sets of characters as sorted, disjoint, non-adjacent inclusive ranges, with the set
//! algebra the parser needs (union, intersection, difference, complement).

/// A set of characters (code points, or code units outside Unicode mode).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CharSet {
    /// sorted by start; disjoint and never touching (`a.1 + 1 < b.0`)
    ranges: Vec<(u32, u32)>,
}

impl CharSet {
    pub fn new() -> CharSet {
        CharSet::default()
    }

    pub fn single(c: u32) -> CharSet {
        CharSet {
            ranges: vec![(c, c)],
        }
    }

    pub fn range(a: u32, b: u32) -> CharSet {
        CharSet {
            ranges: vec![(a, b)],
        }
    }

    /// A set from ranges in any order, overlapping or not.
    pub fn from_ranges(mut ranges: Vec<(u32, u32)>) -> CharSet {
        ranges.sort_unstable();
        let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match out.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => out.push((a, b)),
            }
        }
        CharSet { ranges: out }
    }

    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The only member, if there is exactly one.
    pub fn single_member(&self) -> Option<u32> {
        match self.ranges.as_slice() {
            [(a, b)] if a == b => Some(*a),
            _ => None,
        }
    }

    pub fn contains(&self, c: u32) -> bool {
        let i = self.ranges.partition_point(|r| r.1 < c);
        self.ranges.get(i).is_some_and(|r| r.0 <= c)
    }

    pub fn add(&mut self, c: u32) {
        self.add_range(c, c);
    }

    pub fn add_range(&mut self, a: u32, b: u32) {
        let i = self.ranges.partition_point(|r| r.1.saturating_add(1) < a);
        let mut j = i;
        let (mut lo, mut hi) = (a, b);
        while j < self.ranges.len() && self.ranges[j].0 <= hi.saturating_add(1) {
            lo = lo.min(self.ranges[j].0);
            hi = hi.max(self.ranges[j].1);
            j += 1;
        }
        self.ranges.splice(i..j, [(lo, hi)]);
    }

    pub fn union(&mut self, other: &CharSet) {
        if other.ranges.len() <= 4 {
            for &(a, b) in &other.ranges {
                self.add_range(a, b);
            }
            return;
        }
        let mut all = std::mem::take(&mut self.ranges);
        all.extend_from_slice(&other.ranges);
        *self = CharSet::from_ranges(all);
    }

    /// The members of `0..=max` not in this set.
    pub fn complement(&self, max: u32) -> CharSet {
        let mut out = Vec::with_capacity(self.ranges.len() + 1);
        let mut next = 0u32;
        for &(a, b) in &self.ranges {
            if a > max {
                break;
            }
            if a > next {
                out.push((next, a - 1));
            }
            next = b.saturating_add(1);
        }
        if next <= max && self.ranges.last().is_none_or(|r| r.1 < max) {
            out.push((next, max));
        }
        CharSet { ranges: out }
    }

    pub fn intersect(&self, other: &CharSet) -> CharSet {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < self.ranges.len() && j < other.ranges.len() {
            let (a, b) = self.ranges[i];
            let (c, d) = other.ranges[j];
            let lo = a.max(c);
            let hi = b.min(d);
            if lo <= hi {
                out.push((lo, hi));
            }
            if b < d {
                i += 1;
            } else {
                j += 1;
            }
        }
        CharSet { ranges: out }
    }

    pub fn subtract(&self, other: &CharSet) -> CharSet {
        self.intersect(&other.complement(u32::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algebra() {
        let mut s = CharSet::range(10, 20);
        s.add_range(22, 30);
        s.add(21);
        assert_eq!(s.ranges(), &[(10, 30)]);
        s.add_range(40, 50);
        assert_eq!(s.complement(60).ranges(), &[(0, 9), (31, 39), (51, 60)]);
        let t = CharSet::from_ranges(vec![(25, 45), (0, 2)]);
        assert_eq!(s.intersect(&t).ranges(), &[(25, 30), (40, 45)]);
        assert_eq!(s.subtract(&t).ranges(), &[(10, 24), (46, 50)]);
        assert!(s.contains(45) && !s.contains(35) && !s.contains(51));
        assert_eq!(CharSet::new().complement(5).ranges(), &[(0, 5)]);
        assert!(CharSet::range(0, 5).complement(5).is_empty());
    }
}
