//! The values of an object's shaped properties, in slot order ([`Slots`]).
//!
//! Most objects have a few named properties: a closure its `length`, `name` and
//! `prototype`, a function's prototype its `constructor`, an iterator result its `value`
//! and `done`, a match array its `index`, `input` and `groups`. Up to [`INLINE_SLOTS`]
//! values live in the object itself, so making such an object allocates nothing beyond
//! its arena entry and reading a slot follows no pointer. A larger object keeps a vector;
//! a realm template's vectors move into shared blocks that copies share until their first
//! write ([`Slots::share`]).
//!
//! # Invariants
//!
//! 1. An inline object's `len` is at most [`INLINE_SLOTS`]; the values past `len` are
//!    unused (and not traced).
//! 2. A shared block is never written: every mutable access gives the holder its own
//!    vector first.

use crate::value::Value;
use std::ops::{Deref, DerefMut};
use std::rc::Rc;

/// The values an object holds in itself before it needs a vector.
pub const INLINE_SLOTS: usize = 3;

#[derive(Clone, Debug)]
pub enum Slots {
    Inline {
        len: u8,
        values: [Value; INLINE_SLOTS],
    },
    Owned(Vec<Value>),
    /// the template's block (see the module documentation)
    Shared(Rc<[Value]>),
}

impl Default for Slots {
    fn default() -> Self {
        Slots::new()
    }
}

impl Deref for Slots {
    type Target = [Value];
    #[inline(always)]
    fn deref(&self) -> &[Value] {
        match self {
            Slots::Inline { len, values } => &values[..*len as usize],
            Slots::Owned(v) => v,
            Slots::Shared(s) => s,
        }
    }
}

impl DerefMut for Slots {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Value] {
        if let Slots::Shared(_) = self {
            self.unshare();
        }
        match self {
            Slots::Inline { len, values } => &mut values[..*len as usize],
            Slots::Owned(v) => v,
            Slots::Shared(_) => unreachable!("made owned above"),
        }
    }
}

impl Slots {
    pub const fn new() -> Self {
        Slots::Inline {
            len: 0,
            values: [Value::UNDEFINED; INLINE_SLOTS],
        }
    }

    /// Empty, with room for `n` values without growing.
    pub fn with_capacity(n: usize) -> Self {
        if n <= INLINE_SLOTS {
            Slots::new()
        } else {
            Slots::Owned(Vec::with_capacity(n))
        }
    }

    /// `n` slots holding `value`.
    pub fn filled(n: usize, value: Value) -> Self {
        if n <= INLINE_SLOTS {
            Slots::Inline {
                len: n as u8,
                values: [value; INLINE_SLOTS],
            }
        } else {
            Slots::Owned(vec![value; n])
        }
    }

    /// Slots holding `values`.
    #[inline]
    pub fn from_slice(values: &[Value]) -> Self {
        let mut slots = Slots::with_capacity(values.len());
        for &v in values {
            slots.push(v);
        }
        slots
    }

    /// Bytes held outside the object (for memory accounting; a shared block counts as
    /// the holder's own).
    pub fn heap_bytes(&self) -> usize {
        size_of::<Value>()
            * match self {
                Slots::Inline { .. } => 0,
                Slots::Owned(v) => v.capacity(),
                Slots::Shared(s) => s.len(),
            }
    }

    #[inline]
    pub fn push(&mut self, v: Value) {
        match self {
            Slots::Inline { len, values } if (*len as usize) < INLINE_SLOTS => {
                values[*len as usize] = v;
                *len += 1;
            }
            Slots::Owned(vec) => vec.push(v),
            _ => self.push_spilled(v),
        }
    }

    /// A push that first moves full inline slots, or a shared block, into a vector.
    #[cold]
    #[inline(never)]
    fn push_spilled(&mut self, v: Value) {
        let mut vec = Vec::with_capacity((self.len() * 2).max(INLINE_SLOTS + 1));
        vec.extend_from_slice(self);
        vec.push(v);
        *self = Slots::Owned(vec);
    }

    /// The first write to a shared block: kept out of line, so the writes that find the
    /// storage owned (all but one per object) stay a test and a branch.
    #[cold]
    #[inline(never)]
    fn unshare(&mut self) {
        if let Slots::Shared(block) = self {
            *self = Slots::Owned(block.to_vec());
        }
    }

    /// Move a vector into a block that copies share (a template's, once built).
    pub fn share(&mut self) {
        if let Slots::Owned(v) = self
            && !v.is_empty()
        {
            *self = Slots::Shared(Rc::from(std::mem::take(v)));
        }
    }

    /// Whether these values, a clone of `original`'s, are certainly still the same: the
    /// same shared block, the same values in place, or both empty without a vector.
    pub fn unchanged_from(&self, original: &Slots) -> bool {
        match (self, original) {
            (Slots::Shared(a), Slots::Shared(b)) => Rc::ptr_eq(a, b),
            (
                Slots::Inline { len, values },
                Slots::Inline {
                    len: original_len,
                    values: original_values,
                },
            ) => len == original_len && values == original_values,
            (Slots::Owned(a), Slots::Owned(b)) => a.capacity() == 0 && b.is_empty(),
            _ => false,
        }
    }

    /// Whether the values are in a shared block.
    pub fn is_shared(&self) -> bool {
        matches!(self, Slots::Shared(_))
    }

    /// Whether the values are in a vector of the object's own.
    pub fn owns_vector(&self) -> bool {
        matches!(self, Slots::Owned(_))
    }
}

impl From<Vec<Value>> for Slots {
    fn from(values: Vec<Value>) -> Self {
        if values.len() <= INLINE_SLOTS {
            Slots::from_slice(&values)
        } else {
            Slots::Owned(values)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: i32) -> Vec<Value> {
        (0..n).map(Value::int).collect()
    }

    #[test]
    fn a_few_values_stay_in_the_object_and_more_move_to_a_vector() {
        let mut slots = Slots::new();
        for (i, v) in values(INLINE_SLOTS as i32 + 2).into_iter().enumerate() {
            slots.push(v);
            assert_eq!(slots.owns_vector(), i >= INLINE_SLOTS);
            assert_eq!(&slots[..], &values(i as i32 + 1)[..]);
        }
        slots[0] = Value::int(9);
        assert_eq!(slots[0], Value::int(9));
        assert!(Slots::with_capacity(INLINE_SLOTS).heap_bytes() == 0);
        assert!(!Slots::from(values(INLINE_SLOTS as i32)).owns_vector());
    }

    #[test]
    fn filled_slots_stay_in_the_holder_up_to_the_inline_count() {
        let few = Slots::filled(INLINE_SLOTS, Value::HOLE);
        assert_eq!((few.len(), few.heap_bytes()), (INLINE_SLOTS, 0));
        assert!(few.iter().all(|v| v.is_hole()));
        let many = Slots::filled(INLINE_SLOTS + 1, Value::int(1));
        assert!(many.owns_vector());
        assert_eq!(&many[..], &[Value::int(1); INLINE_SLOTS + 1][..]);
    }

    #[test]
    fn a_write_copies_a_shared_block_first() {
        let mut template = Slots::from(values(INLINE_SLOTS as i32 + 1));
        template.share();
        let mut copy = template.clone();
        assert!(copy.is_shared());
        copy[1] = Value::int(7);
        copy.push(Value::int(8));
        assert!(copy.owns_vector());
        let mut expected = values(INLINE_SLOTS as i32 + 1);
        expected[1] = Value::int(7);
        expected.push(Value::int(8));
        assert_eq!(&copy[..], &expected[..]);
        assert_eq!(&template[..], &values(INLINE_SLOTS as i32 + 1)[..]);
    }
}
