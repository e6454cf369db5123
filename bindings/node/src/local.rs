//! In-process sessions on node's own thread: the guest runs where the package was
//! called, so a step is a function call, not two thread hops (a command to a Kiln
//! worker thread, then its event back through libuv to node's loop). The conversation
//! is the same as with a `kiln_bridge` session: encoded commands in, encoded events out,
//! but each `send` returns the event the step ends with.
//!
//! The guest runs as a [`kiln_bridge::local`] execution: on a stack of its own, on this
//! thread, suspending at each host call, console line, dump and wait for asynchronous
//! answers, so that control comes back to node's stack, where JavaScript runs, and the
//! next command resumes the guest. JavaScript never runs on the guest's stack (V8 checks
//! its stack limit against the stack pointer). The guest also suspends after every
//! `PAUSE` of computation, so that node's loop gets a turn (timers, an `AbortSignal`)
//! while a long guest computes; `proceed` continues it. This file is the N-API glue:
//! encoded commands to answers, events to bytes.
//!
//! The runtime never leaves this thread (napi objects stay on the thread that made
//! them). Making and dropping one is most of a small script's cost, so the package
//! calls [`housekeep`] when node's loop is idle: it makes runtimes for the next sessions
//! from those of ended sessions (`Runtime::recycle`), or new ones.

use kiln::Runtime;
use kiln_bridge::local::{Answer, Begin, Execution, LocalGuest};
use kiln_bridge::protocol::Failure;
use kiln_bridge::{Command, Event};
use napi::bindgen_prelude::BufferSlice;
use napi::{Env, Error, Result, Status};
use napi_derive::napi;
use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::time::Duration;

/// How long the guest computes before node's loop gets a turn.
const PAUSE: Duration = Duration::from_millis(5);

/// Runtimes of ended sessions kept for `housekeep` to recycle or drop; past this many, a
/// session drops its own.
const MAX_ENDED: usize = 4;

/// Runtimes `housekeep` keeps made while no in-process session runs: the first two runs
/// of a burst (or two started together) both start on one. While sessions run, it keeps
/// one, so that a run pays for at most one runtime made in its turns.
const SPARES_IDLE: usize = 2;

thread_local! {
    /// Runtimes `housekeep` made while node was idle, for the next `Start`s.
    /// (`ManuallyDrop` here and below: a runtime left when the thread ends is not
    /// dropped by the thread's destructors, which may run after the engine's own
    /// thread-local state is gone; it goes with the thread's memory.)
    static SPARE_RUNTIMES: RefCell<Vec<ManuallyDrop<Runtime>>> = const { RefCell::new(Vec::new()) };
    /// Runtimes of ended sessions, for `housekeep` to recycle or drop while node is idle.
    static ENDED: RefCell<Vec<ManuallyDrop<Runtime>>> = const { RefCell::new(Vec::new()) };
}

/// Work that can wait until node is idle, so that it is not on a run's path: makes
/// runtimes for the next sessions to start on, two when `running` is 0 (no in-process
/// session is running) and one otherwise, from the runtimes of ended sessions
/// ([`Runtime::recycle`]) while there are some, and drops the rest of those. Making and
/// dropping a runtime is most of what a small script costs; recycling one is several
/// times cheaper.
#[napi]
pub fn housekeep(running: u32) {
    let mut ended = ENDED
        .with(|ended| std::mem::take(&mut *ended.borrow_mut()))
        .into_iter()
        .map(ManuallyDrop::into_inner);
    let wanted = if running == 0 { SPARES_IDLE } else { 1 };
    while SPARE_RUNTIMES.with(|spares| spares.borrow().len()) < wanted {
        // an ended session's runtime made new again costs several times less than a new one
        let runtime = ManuallyDrop::new(ended.next().map_or_else(Runtime::new, Runtime::recycle));
        SPARE_RUNTIMES.with(|spares| spares.borrow_mut().push(runtime));
    }
}

/// A runtime `housekeep` made for the next sessions, or a new one.
fn spare_runtime() -> Runtime {
    let spare = SPARE_RUNTIMES.with(|spares| spares.borrow_mut().pop());
    spare.map_or_else(Runtime::new, ManuallyDrop::into_inner)
}

/// Keeps an ended session's runtime for `housekeep` to recycle or drop, or drops it now
/// when enough are waiting.
fn retire(runtime: Runtime) {
    kiln_bridge::local::keep_ended(&ENDED, runtime, MAX_ENDED);
}

/// One execution on node's thread. `send` takes an encoded command and returns the
/// encoded event it leads to, or null when the guest paused to let node's loop run
/// (`proceed` continues it).
#[napi]
pub struct LocalSession {
    local: LocalGuest,
}

#[napi]
impl LocalSession {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        LocalSession {
            local: LocalGuest::default(),
        }
    }

    /// Acts on one encoded command; the event the step ends with, or null at a pause.
    ///
    /// The command is read where it lies and the event is copied into a buffer node
    /// owns: a small message costs less that way than a reference held on the one and
    /// a finaliser registered for the other.
    #[napi]
    pub fn send<'env>(
        &mut self,
        env: &'env Env,
        command: BufferSlice,
    ) -> Result<Option<BufferSlice<'env>>> {
        let command = Command::decode(&command)
            .map_err(|e| Error::new(Status::InvalidArg, format!("a malformed command: {e}")))?;
        let event = match command {
            Command::Start(start) => self.begin(Begin::Start(start))?,
            Command::Load(load) => self.begin(Begin::Load(load))?,
            Command::Reply(reply) => self.resume(Answer::Reply(reply)),
            Command::Answer { id, result } => self.resume(Answer::Settle(vec![(id, result)])),
            Command::Answers(answers) => self.resume(Answer::Settle(answers)),
            Command::Dump { key } => self.resume(Answer::Dump(key)),
            Command::Interrupt => {
                self.interrupt();
                None
            }
            Command::Close => {
                self.close();
                Some(Event::Closed)
            }
        };
        event.map(|e| event_bytes(env, &e)).transpose()
    }

    /// Continues a guest that paused; the next event, or null at the next pause.
    #[napi]
    pub fn proceed<'env>(&mut self, env: &'env Env) -> Result<Option<BufferSlice<'env>>> {
        self.resume(Answer::Nothing)
            .map(|e| event_bytes(env, &e))
            .transpose()
    }

    /// Stops the guest at its next safe point: the step it is in (or the next one)
    /// fails with kind `Cancelled`.
    #[napi]
    pub fn interrupt(&self) {
        self.local.stop().interrupt();
    }

    /// Ends the session: a guest still going is stopped and its runtime freed.
    #[napi]
    pub fn close(&mut self) {
        self.local.close();
    }
}

/// Events up to this size are copied into a buffer node allocates; larger ones are
/// handed over as they are (a copy would cost more than the finaliser that frees them).
const COPIED_EVENT_BYTES: usize = 64 * 1024;

/// `event` encoded, as a buffer.
fn event_bytes<'env>(env: &'env Env, event: &Event) -> Result<BufferSlice<'env>> {
    let bytes = event.encode();
    if bytes.len() <= COPIED_EVENT_BYTES {
        BufferSlice::copy_from(env, bytes)
    } else {
        BufferSlice::from_data(env, bytes)
    }
}

impl LocalSession {
    fn begin(&mut self, begin: Begin) -> Result<Option<Event>> {
        if self.local.begun() {
            return Ok(Some(Event::Failed(Failure::new(
                "Host",
                "the session has already started",
            ))));
        }
        let execution = Execution {
            begin,
            pause: Some(PAUSE),
            runtime: spare_runtime,
            retire,
        };
        self.local.begin(execution).map_err(|e| {
            Error::new(
                Status::GenericFailure,
                format!("no stack for the guest: {e}"),
            )
        })?;
        Ok(self.resume(Answer::Nothing))
    }

    /// Resumes the guest with `answer`; the event it stops at, or None at a pause. A
    /// command that finds no guest to act on (not started yet, or over) is answered as
    /// a worker thread's session answers it.
    fn resume(&mut self, answer: Answer) -> Option<Event> {
        self.local.resume_or_refuse(answer)
    }
}
