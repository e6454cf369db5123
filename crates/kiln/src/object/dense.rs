//! Dense element storage: a vector that keeps free room at its front as well as its
//! back, so taking an element off the front (`shift`, `splice(0, k)`) and putting one
//! there (`unshift`) cost O(1) amortised, as `push` and `pop` do at the back. A queue
//! built with `push` and `shift` is then linear, not quadratic.
//!
//! It reads as a slice of the live elements (`Deref<Target = [Value]>`), so indexing and
//! iteration work as on a `Vec`; the methods that change the length are listed here.
//! Those that may move elements say how many they moved, for built-ins to charge as fuel.

use crate::value::Value;
use std::ops::{Deref, DerefMut, Range};

/// Elements `buf[head..]`; `buf[..head]` is free room, filled with holes.
#[derive(Clone, Debug, Default)]
pub struct DenseElements {
    buf: Vec<Value>,
    head: usize,
}

impl From<Vec<Value>> for DenseElements {
    fn from(buf: Vec<Value>) -> Self {
        DenseElements { buf, head: 0 }
    }
}

impl Deref for DenseElements {
    type Target = [Value];
    #[inline(always)]
    fn deref(&self) -> &[Value] {
        &self.buf[self.head..]
    }
}

impl DerefMut for DenseElements {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Value] {
        &mut self.buf[self.head..]
    }
}

impl DenseElements {
    pub fn new() -> Self {
        Self::default()
    }

    /// Slots allocated, free room at the front included (for memory accounting).
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    pub fn push(&mut self, v: Value) {
        self.buf.push(v);
    }

    pub fn pop(&mut self) -> Option<Value> {
        if self.is_empty() {
            return None;
        }
        let v = self.buf.pop();
        if self.is_empty() {
            self.clear();
        }
        v
    }

    pub fn extend_from_slice(&mut self, values: &[Value]) {
        self.buf.extend_from_slice(values);
    }

    pub fn truncate(&mut self, len: usize) {
        self.buf.truncate(self.head + len);
        if self.is_empty() {
            self.clear();
        }
    }

    pub fn resize(&mut self, len: usize, v: Value) {
        self.buf.resize(self.head + len, v);
    }

    pub fn reserve(&mut self, additional: usize) {
        self.buf.reserve(additional);
    }

    pub fn clear(&mut self) {
        self.buf.clear();
        self.head = 0;
    }

    /// Remove and return the first element; also the number of elements moved.
    pub fn pop_front(&mut self) -> (Option<Value>, usize) {
        let Some(first) = self.buf.get_mut(self.head) else {
            return (None, 0);
        };
        let v = std::mem::replace(first, Value::HOLE);
        self.head += 1;
        (Some(v), self.compact())
    }

    /// Put `values` before the first element; the number of elements moved.
    pub fn prepend(&mut self, values: &[Value]) -> usize {
        let mut moved = 0;
        if self.head < values.len() {
            // Make front room in proportion to the length, so a run of prepends
            // copies each element O(1) times.
            let room = values.len() + self.len().max(4);
            let mut buf = Vec::with_capacity(room + self.len());
            buf.resize(room, Value::HOLE);
            buf.extend_from_slice(self);
            moved = self.len();
            self.buf = buf;
            self.head = room;
        }
        self.head -= values.len();
        self.buf[self.head..self.head + values.len()].copy_from_slice(values);
        moved + values.len()
    }

    /// Replace the elements in `range` by `items`; the removed elements and the number
    /// of elements moved.
    pub fn splice(&mut self, range: Range<usize>, items: Vec<Value>) -> (Vec<Value>, usize) {
        let removed = self[range.clone()].to_vec();
        if range.start == 0 && items.len() <= range.end {
            // At the front: drop the removed ones by moving the start.
            self[..range.end].fill(Value::HOLE);
            self.head += range.end;
            let moved = self.prepend(&items);
            let compacted = self.compact();
            return (removed, range.end + moved + compacted);
        }
        let at = self.head;
        let tail = self.len() - range.end;
        let inserted = items.len();
        self.buf.splice(at + range.start..at + range.end, items);
        (removed, range.len() + tail + inserted)
    }

    /// The elements as a vector.
    pub fn into_vec(mut self) -> Vec<Value> {
        self.buf.drain(..self.head);
        self.buf
    }

    /// Give back the front room once it is as large as the elements: each element is
    /// moved at most once per time the room doubles, O(1) amortised per removal. The
    /// number of elements moved.
    fn compact(&mut self) -> usize {
        if self.is_empty() {
            self.clear();
        } else if self.head >= 16 && self.head >= self.len() {
            self.buf.drain(..self.head);
            self.head = 0;
            return self.len();
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(d: &DenseElements) -> Vec<i32> {
        d.iter().map(|v| v.as_int().unwrap()).collect()
    }

    #[test]
    fn a_queue_moves_each_element_a_bounded_number_of_times() {
        let mut d = DenseElements::new();
        let mut moved = 0;
        for i in 0..1000 {
            d.push(Value::int(i));
            d.push(Value::int(i));
            let (first, m) = d.pop_front();
            assert_eq!(first.and_then(|v| v.as_int()), Some(i / 2));
            moved += m;
        }
        assert_eq!(d.len(), 1000);
        assert_eq!(d[0].as_int(), Some(500));
        assert!(moved <= 2 * 1000, "moved {moved}");
        // the front room never exceeds the live elements by more than the slack
        assert!(d.capacity() <= 4 * d.len());
        let mut moved = 0;
        while let (Some(_), m) = d.pop_front() {
            moved += m;
        }
        assert!(moved <= 2 * 1000, "moved {moved}");
    }

    #[test]
    fn prepend_and_splice_at_the_front() {
        let mut d = DenseElements::from(vec![Value::int(3), Value::int(4)]);
        assert_eq!(d.prepend(&[Value::int(1), Value::int(2)]), 4);
        assert_eq!(ints(&d), [1, 2, 3, 4]);
        assert_eq!(d.prepend(&[Value::int(0)]), 1, "room was made in front");
        let (removed, _) = d.splice(0..4, vec![Value::int(9)]);
        assert_eq!(ints(&DenseElements::from(removed)), [0, 1, 2, 3]);
        assert_eq!(ints(&d), [9, 4]);
        let (removed, moved) = d.splice(1..2, vec![Value::int(5), Value::int(6)]);
        assert_eq!((removed.len(), moved), (1, 3));
        assert_eq!(ints(&d), [9, 5, 6]);
        d.truncate(1);
        assert_eq!(ints(&d.clone()), [9]);
        assert_eq!(d.into_vec().len(), 1);
    }
}
