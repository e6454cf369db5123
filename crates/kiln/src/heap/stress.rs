//! GC stress mode (the `gc-stress` feature): collect at every safe point after an
//! allocation and poison what a collection frees, so that a value held across a call
//! that can run JavaScript without being rooted fails at its next use instead of
//! silently reading whatever later took its slot.
//!
//! - **Trigger.** [`Trigger`] makes [`super::Heap::wants_collection`] true once
//!   `KILN_GC_STRESS_EVERY` cells (default 1) were allocated since the last collection,
//!   so every safe point (loop back-edge, function entry) that follows an allocation
//!   collects.
//! - **Poison.** A freed slot is not reused at once: it waits in a quarantine of
//!   [`QUARANTINE`] slots per arena (oldest reused first), so a stale id keeps pointing at
//!   a dead slot. Reading one (`Arena::get`/`get_mut`), marking one (a root or a live
//!   cell still holding it) panics with a message naming the kind of cell, its index,
//!   what it was, the collection that freed it, the caller and the engine frames of the
//!   access ([`stale`]).
//!
//! Nothing here is compiled without the feature.

use std::collections::VecDeque;
use std::fmt::Write;

/// Freed slots an arena holds back before reusing the oldest.
pub const QUARANTINE: usize = 1 << 16;

/// When a stressed heap collects: after every `every` allocations.
#[derive(Clone, Debug)]
pub struct Trigger {
    every: u64,
    /// collect once the arenas' allocation count reaches this
    next: u64,
}

impl Trigger {
    pub fn new() -> Trigger {
        let every = std::env::var("KILN_GC_STRESS_EVERY")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(1);
        Trigger { every, next: every }
    }

    /// True once `allocated` (the arenas' total) reached the next collection's mark.
    #[inline]
    pub fn due(&self, allocated: u64) -> bool {
        allocated >= self.next
    }

    /// A collection ran when the arenas had allocated `allocated` cells.
    pub fn collected(&mut self, allocated: u64) {
        self.next = allocated + self.every;
    }
}

impl Default for Trigger {
    fn default() -> Self {
        Trigger::new()
    }
}

/// What an arena remembers about its freed slots.
#[derive(Clone, Debug)]
pub struct Poison {
    /// `object`, `string`, `symbol`, `BigInt` or `environment`
    kind: &'static str,
    /// cells allocated in this arena, ever
    pub allocated: u64,
    /// collections (sweeps of this arena) so far
    sweeps: u32,
    /// per slot: the sweep that last freed it (0: never freed) and what it held
    freed: Vec<(u32, Box<str>)>,
    /// freed slots not yet handed back to the free list, oldest first
    quarantine: VecDeque<u32>,
}

impl Poison {
    pub fn new<T>() -> Poison {
        let name = std::any::type_name::<T>();
        let kind = match name.rsplit("::").next().unwrap_or(name) {
            "Object" => "object",
            "JsStr" => "string",
            "Symbol" => "symbol",
            "BigInt" => "BigInt",
            "Env" => "environment",
            other => other,
        };
        Poison {
            kind,
            allocated: 0,
            sweeps: 0,
            freed: Vec::new(),
            quarantine: VecDeque::new(),
        }
    }

    pub fn note_alloc(&mut self) {
        self.allocated += 1;
    }

    pub fn start_sweep(&mut self) {
        self.sweeps += 1;
    }

    /// Slot `i`, which held `what`, was freed: quarantine it, and hand the oldest
    /// quarantined slot to `free` once the quarantine is full.
    pub fn freed(&mut self, i: u32, what: String, free: &mut Vec<u32>) {
        let at = i as usize;
        if self.freed.len() <= at {
            self.freed.resize(at + 1, (0, Box::from("")));
        }
        self.freed[at] = (self.sweeps, what.into_boxed_str());
        self.quarantine.push_back(i);
        if self.quarantine.len() > QUARANTINE
            && let Some(oldest) = self.quarantine.pop_front()
        {
            free.push(oldest);
        }
    }

    /// Slots waiting in quarantine (free, but not on the free list).
    pub fn quarantined(&self) -> usize {
        self.quarantine.len()
    }

    /// Panic unless slot `i` is live: `access` says what was being done with it.
    #[inline]
    #[track_caller]
    pub fn check(&self, i: u32, live: &[bool], access: &str) {
        if !live.get(i as usize).copied().unwrap_or(true) {
            self.stale(i, access);
        }
    }

    /// Report a use of freed slot `i` and panic.
    #[cold]
    #[track_caller]
    pub fn stale(&self, i: u32, access: &str) -> ! {
        let (sweep, what) = self
            .freed
            .get(i as usize)
            .map_or((0, ""), |(s, w)| (*s, &**w));
        let what = if what.is_empty() {
            String::new()
        } else {
            format!(" ({what})")
        };
        let freed = if sweep == 0 {
            "never allocated".to_string()
        } else {
            format!("freed by collection {sweep} of {}", self.sweeps)
        };
        panic!(
            "gc-stress: {access} freed {kind} #{i}{what}, {freed}; at {caller}; in {frames}",
            kind = self.kind,
            caller = std::panic::Location::caller(),
            frames = engine_frames(),
        )
    }
}

/// The innermost engine functions on the current stack outside the heap, innermost
/// first: the operation that used a stale id.
fn engine_frames() -> String {
    let trace = std::backtrace::Backtrace::force_capture().to_string();
    let frames: Vec<&str> = trace
        .lines()
        .filter_map(|l| l.trim().split_once(": ").map(|(_, f)| f))
        .filter(|f| f.starts_with("kiln::") && !f.starts_with("kiln::heap::"))
        .take(6)
        .collect();
    if frames.is_empty() {
        "(no symbols; run a build with debug info)".to_string()
    } else {
        frames.join(" <- ")
    }
}

/// The name of a value's variant from its `Debug` form, without formatting the rest:
/// `Closure` for `ObjectKind::Closure(..)`.
pub fn variant_name(value: &impl std::fmt::Debug) -> String {
    /// Keeps the first write (the variant's name) and stops the formatter there.
    struct First(String);
    impl Write for First {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            if self.0.is_empty() {
                self.0.push_str(s);
                Ok(())
            } else {
                Err(std::fmt::Error)
            }
        }
    }
    let mut first = First(String::new());
    let _ = write!(first, "{value:?}");
    first.0
}
