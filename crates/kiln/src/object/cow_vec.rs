//! A vector that copies of a realm template share until one of them writes to it
//! (copy on write): shape transitions. (Object slots do the same in [`super::Slots`].)
//!
//! A new VM copies a realm built once per thread (`Vm::new`). Once built, the
//! template's vectors move into shared blocks ([`CowVec::share`]), so copying an
//! object or a shape bumps a reference count instead of allocating a vector. The first
//! write to a copy gives it a vector of its own; reads see a slice either way, so
//! `o.slots[i]` reads and `o.slots[i] = v` writes as on a `Vec`.
//!
//! # Invariants
//!
//! 1. A shared block is never written: every mutable access goes through
//!    [`CowVec::to_mut`], which gives the holder its own copy first.

use std::ops::{Deref, DerefMut};
use std::rc::Rc;

#[derive(Clone, Debug)]
pub enum CowVec<T> {
    Owned(Vec<T>),
    /// the template's block (see the module documentation)
    Shared(Rc<[T]>),
}

impl<T> Default for CowVec<T> {
    fn default() -> Self {
        CowVec::new()
    }
}

impl<T> From<Vec<T>> for CowVec<T> {
    fn from(values: Vec<T>) -> Self {
        CowVec::Owned(values)
    }
}

impl<T> Deref for CowVec<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        match self {
            CowVec::Owned(v) => v,
            CowVec::Shared(s) => s,
        }
    }
}

impl<T: Clone> DerefMut for CowVec<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        self.to_mut()
    }
}

impl<T> CowVec<T> {
    pub const fn new() -> Self {
        CowVec::Owned(Vec::new())
    }

    /// Elements allocated for (for memory accounting; a shared block counts as the
    /// holder's own).
    pub fn capacity(&self) -> usize {
        match self {
            CowVec::Owned(v) => v.capacity(),
            CowVec::Shared(s) => s.len(),
        }
    }
}

impl<T: Clone> CowVec<T> {
    /// The holder's own vector, copied from the shared block first if it has none.
    #[inline(always)]
    pub fn to_mut(&mut self) -> &mut Vec<T> {
        if self.is_shared() {
            self.unshare();
        }
        match self {
            CowVec::Owned(v) => v,
            CowVec::Shared(_) => unreachable!("made owned above"),
        }
    }

    /// The first write to a shared block: kept out of line, so the writes that find the
    /// storage owned (all but one per object) stay a test and a branch.
    #[cold]
    #[inline(never)]
    fn unshare(&mut self) {
        if let CowVec::Shared(block) = self {
            *self = CowVec::Owned(block.to_vec());
        }
    }

    pub fn push(&mut self, v: T) {
        self.to_mut().push(v);
    }

    /// Move the elements into a block that copies share (a template's, once built).
    pub fn share(&mut self) {
        if let CowVec::Owned(v) = self
            && !v.is_empty()
        {
            *self = CowVec::Shared(Rc::from(std::mem::take(v)));
        }
    }

    /// Whether the elements are in a shared block.
    pub fn is_shared(&self) -> bool {
        matches!(self, CowVec::Shared(_))
    }
}
