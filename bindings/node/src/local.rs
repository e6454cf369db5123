//! In-process sessions on node's own thread: the guest runs where the package was
//! called, so a step is a function call, not two thread hops (a command to a Kiln
//! worker thread, then its event back through libuv to node's loop). The conversation
//! is the same as with a `kiln_bridge` session: encoded commands in, encoded events out,
//! but each `send` returns the event the step ends with.
//!
//! The engine expects a deep native stack (Kiln's threads have 256 MiB; node's main
//! thread has what the process's stack limit gives, often 8 MiB), so the guest runs in
//! a coroutine on a stack of its own ([`kiln_bridge::coroutine`]), on this thread. A host call, a
//! console line, a dump and a wait for asynchronous answers suspend the coroutine:
//! control comes back to node's stack, where JavaScript runs, and the next command
//! resumes the guest. JavaScript never runs on the guest's stack (V8 checks its stack
//! limit against the stack pointer). The guest also suspends after every `PAUSE` of
//! computation, so that node's loop gets a turn (timers, an `AbortSignal`) while a long
//! guest computes; `proceed` continues it.
//!
//! The runtime is used inside the coroutine and never leaves this thread (napi objects
//! stay on the thread that made them). Making and dropping one is most of a small
//! script's cost, so the package calls [`housekeep`] when node's loop is idle: it makes
//! the next session's runtime and drops those of ended sessions.

use kiln::snapshot::Snapshot;
use kiln::{
    CallId, CallReporting, ConsoleLevel, HostError, HostReply, HostValue, InterruptHandle, Outcome,
    PendingCall, Runtime,
};
use kiln_bridge::coroutine::{Guest as Coroutine, Step, Suspender};
use kiln_bridge::protocol::{Capability, Failure, Load, Mode, Start};
use kiln_bridge::{Command, Event};
use napi::bindgen_prelude::Buffer;
use napi::{Error, Result, Status};
use napi_derive::napi;
use std::cell::{Cell, RefCell};
use std::mem::ManuallyDrop;
use std::rc::Rc;
use std::time::Duration;

/// How long the guest computes before node's loop gets a turn.
const PAUSE: Duration = Duration::from_millis(5);

/// Runtimes of ended sessions kept for `housekeep` to drop; past this many, a session
/// drops its own.
const MAX_ENDED: usize = 4;

thread_local! {
    /// A runtime `housekeep` made while node was idle, for the next `Start`.
    /// (`ManuallyDrop` here and below: a runtime left when the thread ends is not
    /// dropped by the thread's destructors, which may run after the engine's own
    /// thread-local state is gone; it goes with the thread's memory.)
    static SPARE_RUNTIME: RefCell<Option<ManuallyDrop<Runtime>>> = const { RefCell::new(None) };
    /// Runtimes of ended sessions, for `housekeep` to drop while node is idle.
    static ENDED: RefCell<Vec<ManuallyDrop<Runtime>>> = const { RefCell::new(Vec::new()) };
}

/// Work that can wait until node is idle, so that it is not on a run's path: drops the
/// runtimes of ended sessions and makes the runtime the next session starts on. Making
/// and dropping a runtime is most of what a small script costs.
#[napi]
pub fn housekeep() {
    let ended = ENDED.with(|ended| std::mem::take(&mut *ended.borrow_mut()));
    for runtime in ended {
        drop(ManuallyDrop::into_inner(runtime));
    }
    if SPARE_RUNTIME.with(|spare| spare.borrow().is_none()) {
        let runtime = ManuallyDrop::new(Runtime::new());
        SPARE_RUNTIME.with(|spare| *spare.borrow_mut() = Some(runtime));
    }
}

/// Keeps an ended session's runtime for `housekeep` to drop, or drops it now when
/// enough are waiting.
fn retire(runtime: Runtime) {
    let kept = ENDED.with(|ended| {
        let mut ended = ended.borrow_mut();
        if ended.len() < MAX_ENDED {
            ended.push(ManuallyDrop::new(runtime));
            None
        } else {
            Some(runtime)
        }
    });
    drop(kept);
}

/// What the guest asks of the host when it suspends.
enum Request {
    /// a synchronous call, answered by a `Reply`
    Call(PendingCall),
    Console(ConsoleLevel, String),
    /// the guest waits for asynchronous calls: these are the ones made since it last
    /// waited; a `Settle` answers one of the outstanding calls, a `Dump` writes it
    Waiting(Vec<PendingCall>),
    /// the snapshot a `Dump` asked for; the guest waits on
    Dumped(std::result::Result<Vec<u8>, Failure>),
    /// the guest has computed for a pause interval; any answer continues it
    Pause,
}

/// What the host gives back when it resumes the guest.
enum Answer {
    Reply(HostReply),
    Settle(CallId, std::result::Result<HostValue, HostError>),
    Dump(Option<Vec<u8>>),
    /// after a console line or a pause, and at the start
    Nothing,
}

type Guest = Coroutine<Answer, Request, Event>;

/// What a guest still going is resumed with when its session ends (after an interrupt):
/// a host call throws it, a wait for answers ends on it.
fn stop_answer() -> Answer {
    Answer::Reply(HostReply::Throw(HostError::new(
        "the execution was interrupted",
    )))
}

/// How the execution begins.
enum Begin {
    Start(Box<Start>),
    Load(Box<Load>),
}

/// The interrupt of a session: the runtime's handle once it exists, and whether a stop
/// was asked for before.
#[derive(Default)]
struct Stop {
    handle: RefCell<Option<InterruptHandle>>,
    requested: Cell<bool>,
}

impl Stop {
    fn interrupt(&self) {
        self.requested.set(true);
        if let Some(handle) = &*self.handle.borrow() {
            handle.interrupt();
        }
    }

    fn attach(&self, runtime: &Runtime) {
        let handle = runtime.interrupt_handle();
        if self.requested.get() {
            handle.interrupt();
        }
        *self.handle.borrow_mut() = Some(handle);
    }
}

/// One execution on node's thread. `send` takes an encoded command and returns the
/// encoded event it leads to, or null when the guest paused to let node's loop run
/// (`proceed` continues it).
#[napi]
pub struct LocalSession {
    guest: Option<Guest>,
    stop: Rc<Stop>,
    /// the session ended (complete, failed or closed)
    over: bool,
}

#[napi]
impl LocalSession {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        LocalSession {
            guest: None,
            stop: Rc::default(),
            over: false,
        }
    }

    /// Acts on one encoded command; the event the step ends with, or null at a pause.
    #[napi]
    pub fn send(&mut self, command: Buffer) -> Result<Option<Buffer>> {
        let command = Command::decode(&command)
            .map_err(|e| Error::new(Status::InvalidArg, format!("a malformed command: {e}")))?;
        let event = match command {
            Command::Start(start) => self.begin(Begin::Start(start))?,
            Command::Load(load) => self.begin(Begin::Load(load))?,
            Command::Reply(reply) => self.resume(Answer::Reply(reply)),
            Command::Answer { id, result } => self.resume(Answer::Settle(id, result)),
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
        Ok(event.map(|e| e.encode().into()))
    }

    /// Continues a guest that paused; the next event, or null at the next pause.
    #[napi]
    pub fn proceed(&mut self) -> Option<Buffer> {
        self.resume(Answer::Nothing).map(|e| e.encode().into())
    }

    /// Stops the guest at its next safe point: the step it is in (or the next one)
    /// fails with kind `Cancelled`.
    #[napi]
    pub fn interrupt(&self) {
        self.stop.interrupt();
    }

    /// Ends the session: a guest still going is stopped and its runtime freed.
    #[napi]
    pub fn close(&mut self) {
        self.over = true;
        self.finish();
    }
}

impl LocalSession {
    fn begin(&mut self, begin: Begin) -> Result<Option<Event>> {
        if self.guest.is_some() || self.over {
            return Ok(Some(Event::Failed(Failure::new(
                "Host",
                "the session has already started",
            ))));
        }
        let stop = self.stop.clone();
        let guest = Guest::new(stop_answer, move |suspender, _: Answer| {
            execute(&suspender, begin, &stop)
        })
        .map_err(|e| {
            Error::new(
                Status::GenericFailure,
                format!("no stack for the guest: {e}"),
            )
        })?;
        self.guest = Some(guest);
        Ok(self.resume(Answer::Nothing))
    }

    /// Resumes the guest with `answer`; the event it stops at, or None at a pause.
    fn resume(&mut self, answer: Answer) -> Option<Event> {
        let Some(guest) = self.guest.as_mut().filter(|g| !g.done()) else {
            return Some(self.unstarted(&answer));
        };
        match guest.resume(answer) {
            Step::Request(Request::Call(call)) => Some(Event::Call(call)),
            Step::Request(Request::Console(level, text)) => Some(Event::Console { level, text }),
            Step::Request(Request::Waiting(calls)) => Some(Event::Suspended { calls }),
            Step::Request(Request::Dumped(dumped)) => Some(Event::Dumped(dumped)),
            Step::Request(Request::Pause) => None,
            Step::Over(event) => {
                self.over = true;
                // (its stack is already left for the next session on this thread)
                self.guest = None;
                Some(event)
            }
        }
    }

    /// The event for a command that finds no guest to act on (not started yet, or
    /// over), as a worker thread's session answers it.
    fn unstarted(&self, answer: &Answer) -> Event {
        let message = if self.over {
            "the execution is over"
        } else {
            "the session has not started"
        };
        match answer {
            Answer::Dump(_) => Event::Dumped(Err(Failure::new("Snapshot", "nothing to dump"))),
            _ => Event::Failed(Failure::new("Host", message)),
        }
    }

    /// Stops a started guest, lets it unwind to its end on its own stack, and leaves its
    /// stack for the next session on this thread.
    fn finish(&mut self) {
        self.stop.interrupt();
        if let Some(guest) = &mut self.guest {
            guest.finish();
        }
        self.guest.take_if(|g| g.done());
    }
}

impl Drop for LocalSession {
    fn drop(&mut self) {
        // (the guest, dropped after this, finishes the same way)
        self.stop.interrupt();
    }
}

/// The whole execution, on the guest's stack: make (or restore) a runtime, run it step
/// by step as the host answers, and drop the runtime before the coroutine ends.
fn execute(suspender: &Suspender<Answer, Request>, begin: Begin, stop: &Stop) -> Event {
    // The package keeps its own table of outstanding calls, so each suspension lists
    // only calls it has not been shown (`CallReporting::New`): not every outstanding one
    // again, which costs n² copies when n concurrent calls are answered one by one.
    let (mut runtime, mut step) = match begin {
        Begin::Start(start) => {
            let spare = SPARE_RUNTIME.with(|spare| spare.borrow_mut().take());
            let mut runtime = spare.map_or_else(Runtime::new, ManuallyDrop::into_inner);
            // the guest's stack is `GUEST_STACK_BYTES`: sources compile on it, not on Kiln's
            // compiler thread
            runtime.set_large_stack(true);
            stop.attach(&runtime);
            if let Err(failure) = kiln_bridge::prepare(&mut runtime, &start) {
                return Event::Failed(failure);
            }
            bind_host(
                suspender,
                &mut runtime,
                start.settings.console,
                &start.capabilities,
            );
            runtime.set_call_reporting(CallReporting::New);
            let step = runtime.start(&start.source, &start.filename);
            (runtime, step)
        }
        Begin::Load(load) => {
            let restored = Snapshot::open(&load.snapshot, load.key.as_deref())
                .and_then(|snapshot| Runtime::restore(&snapshot, load.settings.to_options()));
            let mut runtime = match restored {
                Ok(runtime) => runtime,
                Err(e) => return Event::Failed(Failure::from_snapshot_error(&e)),
            };
            runtime.set_large_stack(true);
            stop.attach(&runtime);
            bind_host(
                suspender,
                &mut runtime,
                load.settings.console,
                &load.capabilities,
            );
            // after a load, every outstanding call is new to the host; later suspensions
            // list only calls made since
            let calls = runtime.pending_calls();
            runtime.set_call_reporting(CallReporting::New);
            (runtime, Ok(Outcome::Suspended(calls)))
        }
    };
    let event = loop {
        match step {
            Ok(Outcome::Complete(value)) => break Event::Complete(value),
            Ok(Outcome::Suspended(calls)) => {
                let mut request = Request::Waiting(calls);
                step = loop {
                    match suspender.suspend(request) {
                        Answer::Settle(id, result) => break runtime.resume(id, result),
                        Answer::Dump(key) => {
                            let dumped = runtime
                                .snapshot(key.as_deref())
                                .map_err(|e| Failure::from_snapshot_error(&e));
                            request = Request::Dumped(dumped);
                        }
                        // only `finish` resumes a waiting guest with a reply
                        Answer::Reply(_) => {
                            retire(runtime);
                            return Event::Failed(Failure::new(
                                "Cancelled",
                                "the execution was closed",
                            ));
                        }
                        // a `proceed` that found no pause: the guest still waits
                        Answer::Nothing => request = Request::Waiting(Vec::new()),
                    }
                };
            }
            Err(report) => break Event::Failed(Failure::from_report(report)),
        }
    };
    retire(runtime);
    event
}

/// Connects the runtime to the host through the coroutine: console lines, pauses and
/// capabilities each suspend the guest with their request.
///
/// The runtime calls these only while `start`, `resume` or `snapshot` runs inside
/// `execute`, on the guest's stack, where the suspender may suspend.
fn bind_host(
    suspender: &Suspender<Answer, Request>,
    runtime: &mut Runtime,
    console: bool,
    capabilities: &[Capability],
) {
    if console {
        let suspender = suspender.clone();
        runtime.set_console(move |level, text| {
            suspender.suspend(Request::Console(level, text.to_string()));
        });
    }
    let pauser = suspender.clone();
    runtime.set_pause_point(PAUSE, move || {
        // whatever the host answers, the computation goes on (a host that stops the
        // run interrupts it first)
        let _ = pauser.suspend(Request::Pause);
    });
    for capability in capabilities {
        if capability.mode == Mode::Async {
            runtime.register_async(&capability.name);
            continue;
        }
        let suspender = suspender.clone();
        runtime.register_deferrable(&capability.name, move |call| {
            match suspender.suspend(Request::Call(call.clone())) {
                Answer::Reply(reply) => reply,
                Answer::Settle(..) | Answer::Dump(_) | Answer::Nothing => {
                    HostReply::Throw(HostError::new("the host did not answer"))
                }
            }
        });
    }
}
