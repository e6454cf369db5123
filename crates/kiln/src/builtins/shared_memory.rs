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
//! [Waiter lists](https://tc39.es/ecma262/#sec-waiterlist-objects): the block keeps one
//! FIFO list of [`Waiter`]s for all its byte indices (the spec's per-index lists are the
//! entries with that index). A blocking `Atomics.wait` sleeps on the block's condition
//! variable; an `Atomics.waitAsync` waiter belongs to an agent (a runtime) and is
//! delivered by raising that agent's [`AgentSignal`], which its event loop sleeps on.
//!
//! # Invariants
//!
//! 1. A block never shrinks: a byte index that was in bounds stays in bounds, so a
//!    range checked against an earlier length can be read or written later.
//! 2. `len() <= max_byte_length` when the block is growable.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

/// The bytes of a SharedArrayBuffer and the state Atomics operations share.
pub struct SharedBlock {
    /// the bytes; the write lock is taken only to grow the block
    bytes: RwLock<Vec<AtomicU8>>,
    /// Some for a growable block
    max_byte_length: Option<usize>,
    /// the critical section of Atomics operations on this block, and its waiters
    critical: Mutex<Vec<Waiter>>,
    /// blocking waiters sleep here; `notify` wakes them all and each checks its record
    woken: Condvar,
}

/// One entry of a waiter list.
struct Waiter {
    /// the byte index in the block the waiter waits on
    index: usize,
    record: Arc<WaiterRecord>,
}

/// A [Waiter Record](https://tc39.es/ecma262/#sec-waiter-record): shared between the
/// waiting agent and whoever removes it from the list (`notify`, or its own timeout).
#[derive(Debug, Default)]
pub struct WaiterRecord {
    /// set (inside the critical section) when `notify` removed the record
    notified: AtomicBool,
    /// the agent to signal, for an `Atomics.waitAsync` waiter
    agent: Option<Arc<AgentSignal>>,
}

impl WaiterRecord {
    /// True once `notify` has removed this waiter (its result is "ok").
    pub fn is_notified(&self) -> bool {
        self.notified.load(Ordering::Acquire)
    }
}

/// A block's critical section, held until dropped.
pub struct Critical<'a> {
    _waiters: MutexGuard<'a, Vec<Waiter>>,
}

/// How a blocking wait ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitOutcome {
    /// the value was not the expected one; nothing waited
    NotEqual,
    /// `notify` woke the waiter
    Ok,
    TimedOut,
    /// the waiting agent was told to stop (an interrupt or an exhausted budget)
    Stopped,
}

/// Blocking waits wake this often to ask whether their agent must stop (interrupts and
/// budgets are flags, which cannot wake a condition variable).
pub const STOP_POLL: Duration = Duration::from_millis(20);

/// What an agent's event loop sleeps on while it has `Atomics.waitAsync` waiters: raised
/// when `notify` removes one of them.
#[derive(Debug, Default)]
pub struct AgentSignal {
    raised: Mutex<bool>,
    changed: Condvar,
}

impl AgentSignal {
    /// Wake the agent.
    pub fn raise(&self) {
        *self.raised.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.changed.notify_all();
    }

    /// Sleep until the signal is raised or `until` passes (at most `STOP_POLL` when
    /// `until` is None); lowers the signal again.
    pub fn sleep(&self, until: Option<Instant>) {
        let limit = Instant::now() + STOP_POLL;
        let until = until.map_or(limit, |u| u.min(limit));
        let mut raised = self.raised.lock().unwrap_or_else(PoisonError::into_inner);
        while !*raised {
            let now = Instant::now();
            if now >= until {
                break;
            }
            raised = self
                .changed
                .wait_timeout(raised, until - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *raised = false;
    }
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
            critical: Mutex::new(Vec::new()),
            woken: Condvar::new(),
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
    pub fn enter(&self) -> Critical<'_> {
        Critical {
            _waiters: self.lock(),
        }
    }

    /// The critical section and the waiter list it guards.
    fn lock(&self) -> MutexGuard<'_, Vec<Waiter>> {
        // No code panics inside; a poisoned lock still holds a consistent list.
        self.critical.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The element of `size` bytes at `index`, as little-endian bits (inside the critical
    /// section).
    fn element(&self, index: usize, size: usize) -> u64 {
        let mut raw = [0u8; 8];
        self.read(index, &mut raw[..size]);
        u64::from_le_bytes(raw)
    }

    /// The blocking half of [DoWait](https://tc39.es/ecma262/#sec-dowait) (steps 15-29):
    /// if the `size`-byte element at `index` holds `expected`, wait until notified, until
    /// `deadline` (None: forever) or until `stop` says the agent must stop.
    pub fn wait(
        &self,
        index: usize,
        size: usize,
        expected: u64,
        deadline: Option<Instant>,
        mut stop: impl FnMut() -> bool,
    ) -> WaitOutcome {
        // 15. EnterCriticalSection(WL).
        let mut waiters = self.lock();
        // 17-18. A different value: leave at once.
        if self.element(index, size) != expected {
            return WaitOutcome::NotEqual;
        }
        // 25-26. AddWaiter(WL, waiterRecord).
        let record = Arc::new(WaiterRecord::default());
        waiters.push(Waiter {
            index,
            record: record.clone(),
        });
        // 27. SuspendThisAgent(WL, waiterRecord): the wait releases the critical section.
        loop {
            if record.is_notified() {
                return WaitOutcome::Ok;
            }
            let now = Instant::now();
            let ended = if deadline.is_some_and(|d| now >= d) {
                Some(WaitOutcome::TimedOut)
            } else if stop() {
                Some(WaitOutcome::Stopped)
            } else {
                None
            };
            if let Some(outcome) = ended {
                // Woken by the timeout (or stopped): RemoveWaiter(WL, waiterRecord).
                waiters.retain(|w| !Arc::ptr_eq(&w.record, &record));
                return outcome;
            }
            let slice = deadline.map_or(STOP_POLL, |d| (d - now).min(STOP_POLL));
            waiters = self
                .woken
                .wait_timeout(waiters, slice)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// The waiting half of DoWait for `Atomics.waitAsync` (steps 15-28): if the element
    /// holds `expected` and the timeout is not zero, add a waiter that `notify` delivers
    /// by raising `agent`. Otherwise the immediate result: `NotEqual` or `TimedOut`.
    pub fn wait_async(
        &self,
        index: usize,
        size: usize,
        expected: u64,
        zero_timeout: bool,
        agent: Arc<AgentSignal>,
    ) -> Result<Arc<WaiterRecord>, WaitOutcome> {
        let mut waiters = self.lock();
        // 18. A different value: "not-equal".
        if self.element(index, size) != expected {
            return Err(WaitOutcome::NotEqual);
        }
        // 19. A zero timeout: "timed-out" without waiting.
        if zero_timeout {
            return Err(WaitOutcome::TimedOut);
        }
        // 25-26. AddWaiter(WL, waiterRecord).
        let record = Arc::new(WaiterRecord {
            notified: AtomicBool::new(false),
            agent: Some(agent),
        });
        waiters.push(Waiter {
            index,
            record: record.clone(),
        });
        Ok(record)
    }

    /// The timeout of an `Atomics.waitAsync` waiter
    /// ([EnqueueAtomicsWaitAsyncTimeoutJob](https://tc39.es/ecma262/#sec-enqueueatomicswaitasynctimeoutjob)):
    /// removes it and returns true, or false when `notify` removed it first.
    pub fn time_out(&self, record: &Arc<WaiterRecord>) -> bool {
        let mut waiters = self.lock();
        let before = waiters.len();
        waiters.retain(|w| !Arc::ptr_eq(&w.record, record));
        waiters.len() != before
    }

    /// [Atomics.notify](https://tc39.es/ecma262/#sec-atomics.notify) steps 7-11: remove up
    /// to `count` waiters on `index`, oldest first, wake them and return how many.
    pub fn notify(&self, index: usize, count: usize) -> usize {
        // 7. EnterCriticalSection(WL).
        let mut waiters = self.lock();
        // 8. RemoveWaiters(WL, c), in FIFO order.
        let mut removed = 0;
        let mut blocking = false;
        waiters.retain(|w| {
            if removed == count || w.index != index {
                return true;
            }
            removed += 1;
            // 9. NotifyWaiter(WL, W).
            w.record.notified.store(true, Ordering::Release);
            match &w.record.agent {
                Some(agent) => agent.raise(),
                None => blocking = true,
            }
            false
        });
        if blocking {
            self.woken.notify_all();
        }
        removed
    }

    /// Waiters on this block, of every agent.
    pub fn waiter_count(&self) -> usize {
        self.lock().len()
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

    /// Wait on `block[0]` (4 bytes, expecting 0) on a new thread; returns the thread.
    fn waiter(
        block: &Arc<SharedBlock>,
        timeout: Option<Duration>,
    ) -> std::thread::JoinHandle<WaitOutcome> {
        let block = block.clone();
        std::thread::spawn(move || {
            let deadline = timeout.map(|t| Instant::now() + t);
            block.wait(0, 4, 0, deadline, || false)
        })
    }

    /// Spin until `n` waiters are listed.
    fn until_waiting(block: &SharedBlock, n: usize) {
        while block.waiter_count() < n {
            std::thread::yield_now();
        }
    }

    #[test]
    fn a_different_value_does_not_wait() {
        let block = SharedBlock::new(8, None).unwrap();
        block.write(0, &7u32.to_le_bytes());
        assert_eq!(block.wait(0, 4, 0, None, || false), WaitOutcome::NotEqual);
        assert_eq!(block.waiter_count(), 0);
    }

    #[test]
    fn notify_wakes_blocked_threads_and_counts_them() {
        let block = Arc::new(SharedBlock::new(8, None).unwrap());
        let threads: Vec<_> = (0..3).map(|_| waiter(&block, None)).collect();
        until_waiting(&block, 3);
        assert_eq!(block.notify(4, usize::MAX), 0, "no waiter on index 4");
        assert_eq!(block.notify(0, 2), 2);
        until_waiting(&block, 1);
        assert_eq!(block.notify(0, usize::MAX), 1);
        for t in threads {
            assert_eq!(t.join().unwrap(), WaitOutcome::Ok);
        }
        assert_eq!(block.waiter_count(), 0);
    }

    #[test]
    fn a_timed_out_waiter_leaves_the_list() {
        let block = Arc::new(SharedBlock::new(8, None).unwrap());
        let started = Instant::now();
        let t = waiter(&block, Some(Duration::from_millis(30)));
        assert_eq!(t.join().unwrap(), WaitOutcome::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(30));
        assert_eq!(block.notify(0, usize::MAX), 0);
    }

    #[test]
    fn a_stopped_waiter_leaves_the_list() {
        let block = SharedBlock::new(8, None).unwrap();
        let mut polls = 0;
        let outcome = block.wait(0, 4, 0, None, || {
            polls += 1;
            polls == 2
        });
        assert_eq!(outcome, WaitOutcome::Stopped);
        assert_eq!(block.waiter_count(), 0);
    }

    #[test]
    fn async_waiters_are_notified_in_fifo_order_and_signal_their_agent() {
        let block = SharedBlock::new(8, None).unwrap();
        let agent = Arc::new(AgentSignal::default());
        let first = block.wait_async(0, 4, 0, false, agent.clone()).unwrap();
        let second = block.wait_async(0, 4, 0, false, agent.clone()).unwrap();
        assert_eq!(
            block.wait_async(0, 4, 1, false, agent.clone()).err(),
            Some(WaitOutcome::NotEqual)
        );
        assert_eq!(
            block.wait_async(0, 4, 0, true, agent.clone()).err(),
            Some(WaitOutcome::TimedOut)
        );
        assert_eq!(block.notify(0, 1), 1);
        assert!(first.is_notified() && !second.is_notified());
        // the signal is raised: sleeping returns at once
        let before = Instant::now();
        agent.sleep(Some(before + Duration::from_secs(5)));
        assert!(before.elapsed() < Duration::from_secs(1));
        // a timeout after notify finds the waiter gone; before, it removes it
        assert!(!block.time_out(&first));
        assert!(block.time_out(&second));
        assert_eq!(block.notify(0, usize::MAX), 0);
    }
}
