//! Shared Data Blocks: the bytes of a SharedArrayBuffer, which runtimes on other
//! threads may hold too ([the memory model](https://tc39.es/ecma262/#sec-memory-model)).
//!
//! A [`SharedBlock`] is reached through an `Arc` from every buffer object that views it,
//! in any runtime. Its bytes are `AtomicU8`s: ordinary typed-array and DataView accesses
//! read and write them byte by byte with relaxed ordering, so a racing non-atomic access
//! may tear, as the memory model allows. Atomics operations on a block are serialised by
//! one mutex per block (the `critical` lock, which also guards the block's waiter list):
//! they are atomic with respect to each other, and the lock's acquire/release order makes
//! them sequentially consistent.
//!
//! # Invariants
//!
//! 1. A block never shrinks: a byte index that was in bounds stays in bounds, so a
//!    range checked against an earlier length can be read or written later.
//! 2. `len() <= max_byte_length` when the block is growable.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard};

/// The bytes of a SharedArrayBuffer and the state Atomics operations share.
pub struct SharedBlock {
    /// the bytes; the write lock is taken only to grow the block
    bytes: RwLock<Vec<AtomicU8>>,
    /// Some for a growable block
    max_byte_length: Option<usize>,
    /// the critical section of Atomics operations on this block
    critical: Mutex<()>,
}

impl std::fmt::Debug for SharedBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedBlock")
            .field("len", &self.len())
            .field("max_byte_length", &self.max_byte_length)
            .finish()
    }
}

/// A block of `len` zero bytes, or None when the memory cannot be reserved.
fn zeroed(len: usize) -> Option<Vec<AtomicU8>> {
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(len).ok()?;
    bytes.resize_with(len, || AtomicU8::new(0));
    Some(bytes)
}

impl SharedBlock {
    /// A block of `len` zero bytes, or None when the memory cannot be reserved.
    pub fn new(len: usize, max_byte_length: Option<usize>) -> Option<SharedBlock> {
        Some(SharedBlock {
            bytes: RwLock::new(zeroed(len)?),
            max_byte_length,
            critical: Mutex::new(()),
        })
    }

    /// A block holding a copy of `bytes` (a restored snapshot's buffer).
    pub fn from_bytes(bytes: &[u8], max_byte_length: Option<usize>) -> Option<SharedBlock> {
        let block = SharedBlock::new(bytes.len(), max_byte_length)?;
        block.write(0, bytes);
        Some(block)
    }

    fn bytes(&self) -> RwLockReadGuard<'_, Vec<AtomicU8>> {
        // No code panics while holding the lock; a poisoned lock still holds valid bytes.
        self.bytes.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// The current byte length (ArrayBufferByteLength with seq-cst order).
    pub fn len(&self) -> usize {
        self.bytes().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn max_byte_length(&self) -> Option<usize> {
        self.max_byte_length
    }

    /// Copy `out.len()` bytes from `at` (in bounds) into `out`.
    pub fn read(&self, at: usize, out: &mut [u8]) {
        let bytes = self.bytes();
        let end = at + out.len();
        for (o, b) in out.iter_mut().zip(&bytes[at..end]) {
            *o = b.load(Ordering::Relaxed);
        }
    }

    /// Copy `src` to the bytes from `at` (in bounds).
    pub fn write(&self, at: usize, src: &[u8]) {
        let bytes = self.bytes();
        for (b, &s) in bytes[at..at + src.len()].iter().zip(src) {
            b.store(s, Ordering::Relaxed);
        }
    }

    /// Grow to `len` bytes (zero-filled); false when the memory cannot be reserved.
    /// A shorter `len` leaves the block as it is (invariant 1).
    pub fn grow(&self, len: usize) -> bool {
        let mut bytes = self.bytes.write().unwrap_or_else(PoisonError::into_inner);
        if len <= bytes.len() {
            return true;
        }
        let extra = len - bytes.len();
        if bytes.try_reserve_exact(extra).is_err() {
            return false;
        }
        bytes.resize_with(len, || AtomicU8::new(0));
        true
    }

    /// Enter the block's critical section: Atomics operations hold it while they read and
    /// write, so they are atomic with respect to one another.
    pub fn enter(&self) -> MutexGuard<'_, ()> {
        self.critical.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_block_grows_while_another_thread_writes_it() {
        let block = Arc::new(SharedBlock::new(4, Some(1 << 16)).unwrap());
        let writer = {
            let block = block.clone();
            std::thread::spawn(move || {
                for k in 0..1000u32 {
                    block.write(0, &k.to_le_bytes());
                }
            })
        };
        for len in (8..1 << 16).step_by(4096) {
            assert!(block.grow(len));
        }
        writer.join().unwrap();
        let mut out = [0; 4];
        block.read(0, &mut out);
        assert_eq!(u32::from_le_bytes(out), 999);
        assert_eq!(block.len(), 8 + 15 * 4096);
    }
}
