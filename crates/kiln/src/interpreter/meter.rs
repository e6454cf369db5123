//! Fuel, guest compute time and cancellation: the budgets every run is metered against.
//!
//! Fuel is counted in abstract units that track work done, deterministically: a loop
//! iteration costs the length of its body in instructions, a call costs [`CALL_COST`],
//! and built-ins that loop in Rust (sorting, joining, JSON, string building, BigInt
//! arithmetic, property enumeration, ...) charge per element they process, and the heap
//! counts the bytes of string storage it writes or copies ([`crate::heap::Heap::take_work`]),
//! charged at the next slow check, so a built-in that copies a whole string per call pays
//! for it. Hidden quadratic work therefore shows up as fuel. The hot path
//! is one subtraction and one branch ([`Vm::charge`]); every [`SLICE`] units the slow
//! path settles the account, reads the cancellation flag and the clock, and ends a run
//! whose heap is over its limit.

use super::{Limits, Termination, Vm};
use crate::JsResult;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// What a call charges (frame setup and teardown are worth a few instructions).
pub const CALL_COST: u64 = 4;

/// Units between two slow checks: small enough that cancellation and deadlines are
/// noticed within microseconds, large enough that the check is free.
const SLICE: u64 = 10_000;

/// Bytes of bulk storage worth one unit of fuel (copying is cheaper than interpreting).
const BYTES_PER_FUEL: usize = 64;

/// A host function called between stretches of guest computation ([`Vm::pause`],
/// `Runtime::set_pause_point`), so that a host can give other work a turn while a guest
/// computes (an event loop's, by switching to its coroutine).
pub struct PausePoint {
    /// guest compute time between two calls, at least
    every: Duration,
    /// the guest compute time at which the next call is due
    due: Duration,
    pause: Box<dyn FnMut()>,
}

impl PausePoint {
    pub fn new(every: Duration, pause: impl FnMut() + 'static) -> PausePoint {
        PausePoint {
            every,
            due: every,
            pause: Box::new(pause),
        }
    }
}

/// The running account of a VM's budgets.
#[derive(Clone, Debug)]
pub struct Meter {
    /// units left in the current slice; the slow check runs when it drops below zero
    countdown: i64,
    /// the units the current slice started with
    slice: i64,
    /// fuel consumed before the current slice
    consumed: u64,
    /// guest compute time of finished runs
    compute: Duration,
    /// when the current run started, while the guest runs
    running_since: Option<Instant>,
}

impl Default for Meter {
    fn default() -> Self {
        Meter {
            countdown: SLICE as i64,
            slice: SLICE as i64,
            consumed: 0,
            compute: Duration::ZERO,
            running_since: None,
        }
    }
}

impl Meter {
    /// Fuel consumed so far.
    pub fn fuel_used(&self) -> u64 {
        self.consumed + (self.slice - self.countdown).max(0) as u64
    }

    /// Guest compute time so far (the running time of the current run included).
    pub fn compute_time(&self) -> Duration {
        self.compute + self.running_since.map_or(Duration::ZERO, |t| t.elapsed())
    }

    /// The guest starts running: its compute time counts from now.
    pub fn start_clock(&mut self) {
        if self.running_since.is_none() {
            self.running_since = Some(Instant::now());
        }
    }

    /// Whether the guest's compute clock is running.
    pub fn is_running(&self) -> bool {
        self.running_since.is_some()
    }

    /// The guest stopped (finished, suspended or failed): time from now on is the host's.
    pub fn stop_clock(&mut self) {
        if let Some(t) = self.running_since.take() {
            self.compute += t.elapsed();
        }
    }

    /// Start a fresh account (fuel and compute time back to zero).
    pub fn reset(&mut self) {
        *self = Meter::default();
    }

    /// Continue an account that had used `fuel` and `compute` time (a restored snapshot).
    pub fn restore(&mut self, fuel: u64, compute: Duration) {
        *self = Meter {
            consumed: fuel,
            compute,
            ..Meter::default()
        };
    }
}

impl Vm {
    /// Fuel used so far, the heap's uncharged string work included.
    pub fn fuel_used(&self) -> u64 {
        self.meter.fuel_used() + (self.heap.pending_work() / BYTES_PER_FUEL) as u64
    }

    /// Start a fresh account: fuel (the heap's pending string work too) and compute time
    /// back to zero.
    pub fn reset_meter(&mut self) {
        self.meter.reset();
        self.heap.take_work();
    }

    /// Move the heap's string work into the fuel account (the remainder below one unit
    /// stays with the heap).
    fn charge_heap_work(&mut self) {
        let bytes = self.heap.take_work();
        self.meter.consumed += (bytes / BYTES_PER_FUEL) as u64;
        self.heap.note_work(bytes % BYTES_PER_FUEL);
    }

    /// Charge `units` of fuel; ends the run when a budget is exhausted.
    #[inline(always)]
    pub fn charge(&mut self, units: u64) -> JsResult<()> {
        self.meter.countdown -= units as i64;
        if self.meter.countdown < 0 {
            return self.settle_meter();
        }
        Ok(())
    }

    /// Charge for moving or copying `count` elements (8 bytes each) in bulk.
    pub fn charge_elements(&mut self, count: usize) -> JsResult<()> {
        self.charge((count * size_of::<crate::value::Value>() / BYTES_PER_FUEL) as u64)
    }

    /// Charge for building `bytes` of new storage in one go (strings, buffers), and
    /// refuse it up front when it would take the heap past its limit: a built-in must not
    /// allocate a gigabyte before the next safe point notices.
    pub fn charge_allocation(&mut self, bytes: usize) -> JsResult<()> {
        self.charge((bytes / BYTES_PER_FUEL) as u64)?;
        if self.heap.bytes().saturating_add(bytes) > self.limits.max_heap_bytes {
            return Err(self.terminate(Termination::HeapLimit));
        }
        Ok(())
    }

    /// The slow check: settle the fuel account, then look at cancellation, fuel and the
    /// clock, and start the next slice.
    #[cold]
    fn settle_meter(&mut self) -> JsResult<()> {
        self.charge_heap_work();
        // Built-ins allocate between safe points; one that has taken the heap past its
        // limit (garbage included: collection waits for a safe point) stops here.
        if self.heap.bytes() > self.limits.max_heap_bytes && self.termination.is_none() {
            return Err(self.terminate(Termination::HeapLimit));
        }
        if let Err(why) = settle(
            &mut self.meter,
            &self.termination,
            &self.interrupt,
            &self.limits,
        ) {
            return Err(self.terminate(why));
        }
        self.pause_if_due();
        Ok(())
    }

    /// Call the host's pause point when the guest has computed for its interval since
    /// the last call. The time the host takes is not the guest's: the compute clock
    /// stops while it runs.
    fn pause_if_due(&mut self) {
        let Some(point) = &mut self.pause else {
            return;
        };
        if !self.meter.is_running() {
            return;
        }
        let computed = self.meter.compute_time();
        // a due time more than one interval ahead was set before the account was reset
        // (a new run)
        if point.due > computed + point.every {
            point.due = computed + point.every;
        }
        if computed < point.due {
            return;
        }
        self.meter.stop_clock();
        (point.pause)();
        self.meter.start_clock();
        point.due = self.meter.compute_time() + point.every;
    }

    /// The slow check on its own, for code that waits rather than works (a blocking
    /// `Atomics.wait`, the event loop): ends the run on an interrupt or an exhausted budget.
    pub fn check_budgets(&mut self) -> JsResult<()> {
        self.settle_meter()
    }

    /// The heap to read and the fuel account to charge, borrowed apart: for work in Rust
    /// that reads strings while it charges (regular expression matching).
    pub(crate) fn heap_and_fuel(&mut self) -> (&crate::heap::Heap, Fuel<'_>) {
        (
            &self.heap,
            Fuel {
                meter: &mut self.meter,
                termination: &self.termination,
                interrupt: &self.interrupt,
                limits: &self.limits,
                stopped: None,
            },
        )
    }
}

/// The fuel account apart from the rest of the VM ([`Vm::heap_and_fuel`]). A charge
/// that ends the run records why in `stopped`; the caller then terminates with it.
pub(crate) struct Fuel<'a> {
    meter: &'a mut Meter,
    termination: &'a Option<Termination>,
    interrupt: &'a AtomicBool,
    limits: &'a Limits,
    pub stopped: Option<Termination>,
}

impl Fuel<'_> {
    /// [`Vm::charge`] without the VM: false when a budget is exhausted.
    pub fn charge(&mut self, units: u64) -> bool {
        self.meter.countdown -= units as i64;
        if self.meter.countdown < 0
            && let Err(why) = settle(self.meter, self.termination, self.interrupt, self.limits)
        {
            self.stopped = Some(why);
            return false;
        }
        true
    }
}

/// Settle the fuel account, then look at cancellation, fuel and the clock, and start
/// the next slice; the reason to stop, if any.
fn settle(
    meter: &mut Meter,
    termination: &Option<Termination>,
    interrupt: &AtomicBool,
    limits: &Limits,
) -> Result<(), Termination> {
    let used = meter.fuel_used();
    meter.consumed = used;
    meter.slice = 0;
    meter.countdown = 0;
    if let Some(why) = termination.clone() {
        // a termination stays in force until the host clears it, even if guest
        // code managed to swallow the exception value it unwound with
        return Err(why);
    }
    if interrupt.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(Termination::Interrupted);
    }
    let mut next = SLICE;
    if let Some(fuel) = limits.fuel {
        if used >= fuel {
            return Err(Termination::OutOfFuel);
        }
        next = next.min(fuel - used);
    }
    if let Some(limit) = limits.compute_time
        && meter.compute_time() >= limit
    {
        return Err(Termination::ComputeTime);
    }
    meter.slice = next as i64;
    meter.countdown = next as i64;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuel_is_counted_across_slices() {
        let mut vm = Vm::new();
        vm.reset_meter();
        for _ in 0..25 {
            vm.charge(1_000).unwrap();
        }
        assert_eq!(vm.meter.fuel_used(), 25_000);
    }

    #[test]
    fn the_heaps_string_work_is_charged_at_the_next_slow_check() {
        let mut vm = Vm::new();
        vm.reset_meter();
        let s = vm.heap.alloc_str(&"x".repeat(6_400));
        assert_eq!(vm.fuel_used(), 100, "pending work counts at once");
        vm.heap.units_vec(s);
        assert_eq!(
            vm.fuel_used(),
            300,
            "a copy of 6,400 units as UTF-16 (12,800 bytes)"
        );
        vm.charge(SLICE).unwrap();
        vm.charge(1).unwrap();
        assert_eq!(vm.meter.fuel_used(), SLICE + 1 + 300);
        assert_eq!(vm.heap.pending_work(), 0);
    }

    #[test]
    fn running_out_of_fuel_terminates_and_stays_terminated() {
        let mut vm = Vm::new();
        vm.meter.reset();
        vm.limits.fuel = Some(15_000);
        vm.charge(10_000).unwrap();
        assert!(vm.charge(10_000).is_err());
        assert_eq!(vm.termination, Some(Termination::OutOfFuel));
        vm.take_exception();
        assert!(vm.charge(1).is_err(), "a swallowed termination comes back");
    }

    #[test]
    fn the_interrupt_flag_is_seen_within_a_slice() {
        let mut vm = Vm::new();
        vm.interrupt
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let mut result = Ok(());
        for _ in 0..=SLICE {
            result = vm.charge(1);
            if result.is_err() {
                break;
            }
        }
        assert!(result.is_err());
        assert_eq!(vm.termination, Some(Termination::Interrupted));
    }
}
