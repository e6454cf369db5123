//! Executions on the host's own thread: what the in-process sessions of the Node and
//! Python packages share. The guest runs where the package was called, so a step is a
//! function call, not two thread hops (a command to a Kiln worker thread, then its
//! event back to the host's thread), and values are built, read and freed by one
//! thread. The conversation is a session's: commands in, [`Event`]s out, but each
//! [`LocalGuest::resume`] returns the event its step ends with.
//!
//! The guest runs in a [`coroutine`](crate::coroutine) on a deep stack of its own, on
//! this thread. A host call, a console line, a wait for asynchronous answers, a dump
//! and, when the host asks for it, every pause interval of computation suspend it with
//! a [`Request`]: control comes back to the host's stack, where the host's own code runs
//! (JavaScript, Python), and the host resumes the guest with an [`Answer`]. Host code
//! never runs on the guest's stack.
//!
//! The runtime is made (or restored), used and retired inside the coroutine, so it
//! never leaves this thread. A guest that waits for asynchronous calls lists only the
//! calls made since it last waited ([`CallReporting::New`]): the host keeps its own
//! table of outstanding calls, and listing every outstanding call again would cost n²
//! copies when n concurrent calls are answered one by one. The answers the host has
//! when it resumes a waiting guest settle in one step ([`Runtime::resume_many`]), so a
//! fan-out of n calls costs as many steps as the host has turns.
//!
//! ```
//! use kiln_bridge::Event;
//! use kiln_bridge::local::{Answer, Begin, Execution, LocalGuest};
//! use kiln_bridge::protocol::{Capability, Mode, Settings, Start};
//!
//! let mut local = LocalGuest::default();
//! local
//!     .begin(Execution {
//!         begin: Begin::Start(Box::new(Start {
//!             source: "const [a, b] = await Promise.all([get('a'), get('b')]); a + b".into(),
//!             filename: "agent.js".into(),
//!             settings: Settings::default(),
//!             capabilities: vec![Capability { name: "get".into(), mode: Mode::Async }],
//!             inputs: vec![],
//!         })),
//!         pause: None,
//!         runtime: kiln::Runtime::new,
//!         retire: drop,
//!     })
//!     .unwrap();
//! let Some(Event::Suspended { calls }) = local.resume(Answer::Nothing) else { panic!() };
//! // both answers settle in one step, in the order given
//! let mut answer = Answer::Nothing;
//! for call in calls.iter().rev() {
//!     answer.settle(call.id, Ok(call.args[0].clone()));
//! }
//! assert_eq!(local.resume(answer), Some(Event::Complete("ab".into())));
//! assert!(local.over());
//! ```

use crate::coroutine::{Guest, Step, Suspender};
use crate::protocol::{CallAnswer, Capability, Event, Failure, Load, Mode, Start};
use crate::worker::lock;
use kiln::{
    CallId, CallReporting, ConsoleLevel, ErrorReport, HostError, HostReply, HostValue,
    InterruptHandle, Outcome, PendingCall, Runtime,
};
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the guest asks of the host when it suspends.
#[derive(Debug)]
pub enum Request {
    /// a synchronous call, answered by a `Reply`
    Call(PendingCall),
    Console(ConsoleLevel, String),
    /// the guest waits for asynchronous calls: these are the ones made since it last
    /// waited (none, when it waits for calls reported before); a `Settle` answers some
    /// of the outstanding calls, a `Dump` writes the execution
    Waiting(Vec<PendingCall>),
    /// the snapshot a `Dump` asked for; the guest waits on
    Dumped(Result<Vec<u8>, Failure>),
    /// the guest has computed for a pause interval: the host takes a turn, and any
    /// answer continues the computation
    Pause,
}

/// What the host gives back when it resumes the guest.
#[derive(Debug)]
pub enum Answer {
    /// the reply to the synchronous call the guest waits in
    Reply(HostReply),
    /// answers to outstanding asynchronous calls, settled in this order
    Settle(Vec<CallAnswer>),
    /// write the waiting execution as snapshot bytes (authenticated with the key)
    Dump(Option<Vec<u8>>),
    /// at the start, after a console line or a pause, and to a waiting guest: go on
    Nothing,
}

impl Answer {
    /// Adds the answer to the outstanding call `id` to those this answer settles.
    pub fn settle(&mut self, id: CallId, result: Result<HostValue, HostError>) {
        match self {
            Answer::Settle(answers) => answers.push((id, result)),
            _ => *self = Answer::Settle(vec![(id, result)]),
        }
    }
}

/// What a guest still going is resumed with when its execution is closed (after an
/// interrupt): a host call throws it, a wait for answers ends on it.
fn stop_answer() -> Answer {
    Answer::Reply(HostReply::Throw(HostError::new(
        "the execution was interrupted",
    )))
}

/// How the execution begins.
pub enum Begin {
    Start(Box<Start>),
    /// every capability of a restored execution is bound as `Load` lists it; the first
    /// event lists every outstanding call
    Load(Box<Load>),
}

/// One execution: how it begins, and how the host provides and disposes of runtimes
/// (making and dropping one is most of a small script's cost, so a host may do both
/// while it is idle).
pub struct Execution {
    pub begin: Begin,
    /// the guest suspends with `Request::Pause` after computing this long
    pub pause: Option<Duration>,
    /// the runtime a `Start` runs on
    pub runtime: fn() -> Runtime,
    /// takes the runtime when the execution is over
    pub retire: fn(Runtime),
}

/// Runtimes of ended executions kept on a thread, for later executions to start on made
/// new again (`Runtime::recycle`). (`ManuallyDrop`: a runtime left when the thread ends is
/// not dropped by the thread's destructors, which may run after the engine's own
/// thread-local state is gone; it goes with the thread's memory.)
pub type EndedRuntimes = std::thread::LocalKey<std::cell::RefCell<Vec<ManuallyDrop<Runtime>>>>;

/// Keeps an ended execution's runtime in `ended` for a later one, or drops it when `max`
/// are kept already.
pub fn keep_ended(ended: &'static EndedRuntimes, runtime: Runtime, max: usize) {
    let kept = ended.with(|ended| {
        let mut ended = ended.borrow_mut();
        if ended.len() < max {
            ended.push(ManuallyDrop::new(runtime));
            None
        } else {
            Some(runtime)
        }
    });
    drop(kept);
}

/// What stops an execution, from any thread: the runtime's interrupt once it has one.
#[derive(Default)]
pub struct Stop {
    /// the runtime's interrupt handle, once it has a runtime
    handle: Mutex<Option<InterruptHandle>>,
    /// why the execution was cancelled (`Cancelled`'s message), or None
    cancelled: Mutex<Option<String>>,
    /// asked to stop (also before the runtime exists)
    requested: AtomicBool,
}

impl Stop {
    /// Stops the guest at its next safe point; the step fails with kind `Cancelled`.
    pub fn interrupt(&self) {
        self.requested.store(true, Ordering::SeqCst);
        if let Some(handle) = &*lock(&self.handle) {
            handle.interrupt();
        }
    }

    /// As [`interrupt`](Self::interrupt), and the failure has this message (the first
    /// given).
    pub fn cancel(&self, message: &str) {
        lock(&self.cancelled).get_or_insert_with(|| message.to_string());
        self.interrupt();
    }

    /// Gives the stop the runtime's handle; a stop asked for earlier applies now.
    fn attach(&self, runtime: &Runtime) {
        let handle = runtime.interrupt_handle();
        *lock(&self.handle) = Some(handle.clone());
        if self.requested.load(Ordering::SeqCst) {
            handle.interrupt();
        }
    }

    /// The failure a step ended with; a cancellation carries the canceller's message.
    fn failure(&self, report: ErrorReport) -> Failure {
        let failure = Failure::from_report(report);
        match &*lock(&self.cancelled) {
            Some(message) if failure.kind == "Cancelled" => Failure::new("Cancelled", message),
            _ => failure,
        }
    }
}

/// An execution on this thread: [`begin`](Self::begin) it, then
/// [`resume`](Self::resume) it with the answer to each event until the event ends the
/// execution. Dropping it stops a guest still going, which unwinds on its own stack.
#[derive(Default)]
pub struct LocalGuest {
    guest: Option<Guest<Answer, Request, Event>>,
    stop: Arc<Stop>,
    /// the execution ended (complete, failed or closed)
    over: bool,
}

impl LocalGuest {
    /// What stops this execution, from any thread.
    pub fn stop(&self) -> &Arc<Stop> {
        &self.stop
    }

    /// Whether the execution has begun (it may be over since).
    pub fn begun(&self) -> bool {
        self.guest.is_some() || self.over
    }

    /// Whether the guest has begun and is not over: it may be resumed.
    pub fn running(&self) -> bool {
        self.guest.as_ref().is_some_and(|g| !g.done())
    }

    /// Whether the execution has ended (its last event returned, or closed).
    pub fn over(&self) -> bool {
        self.over
    }

    /// Prepares `execution`; it runs at the first [`resume`](Self::resume), which is
    /// given [`Answer::Nothing`]. An error when there is no stack for the guest.
    ///
    /// # Panics
    ///
    /// When the execution has [`begun`](Self::begun).
    pub fn begin(&mut self, execution: Execution) -> std::io::Result<()> {
        assert!(!self.begun(), "an execution begun twice");
        let stop = self.stop.clone();
        let guest = Guest::new(stop_answer, move |suspender, _: Answer| {
            execute(&suspender, execution, &stop)
        })?;
        self.guest = Some(guest);
        Ok(())
    }

    /// Runs the guest with `answer` until its next event, or None when it paused (any
    /// answer continues it, [`Answer::Nothing`] best).
    ///
    /// # Panics
    ///
    /// When the guest is not [`running`](Self::running).
    pub fn resume(&mut self, answer: Answer) -> Option<Event> {
        let guest = self
            .guest
            .as_mut()
            .filter(|g| !g.done())
            .expect("an execution resumed that is not running");
        match guest.resume(answer) {
            Step::Request(Request::Call(call)) => Some(Event::Call(call)),
            Step::Request(Request::Console(level, text)) => Some(Event::Console { level, text }),
            Step::Request(Request::Waiting(calls)) => Some(Event::Suspended { calls }),
            Step::Request(Request::Dumped(dumped)) => Some(Event::Dumped(dumped)),
            Step::Request(Request::Pause) => None,
            Step::Over(event) => {
                self.over = true;
                // (its stack is already left for the next guest on this thread)
                self.guest = None;
                Some(event)
            }
        }
    }

    /// As [`resume`](Self::resume), for an answer that may find no guest to act on (not
    /// begun yet, or over): it is refused as a worker thread's session refuses it.
    pub fn resume_or_refuse(&mut self, answer: Answer) -> Option<Event> {
        if self.running() {
            return self.resume(answer);
        }
        let message = if self.over {
            "the execution is over"
        } else {
            "the session has not started"
        };
        Some(match answer {
            Answer::Dump(_) => Event::Dumped(Err(Failure::new("Snapshot", "nothing to dump"))),
            _ => Event::Failed(Failure::new("Host", message)),
        })
    }

    /// Ends the execution: a guest still going is stopped, unwinds to its end on its own
    /// stack and retires its runtime, and its stack is left for the next guest on this
    /// thread.
    pub fn close(&mut self) {
        self.over = true;
        self.stop.interrupt();
        if let Some(guest) = &mut self.guest {
            guest.finish();
        }
        self.guest.take_if(|g| g.done());
    }
}

impl Drop for LocalGuest {
    fn drop(&mut self) {
        // (the guest, dropped after this, finishes the same way)
        self.stop.interrupt();
    }
}

/// The whole execution, on the guest's stack: make (or restore) a runtime, run it step
/// by step as the host answers, and retire the runtime before the coroutine ends.
fn execute(suspender: &Suspender<Answer, Request>, execution: Execution, stop: &Stop) -> Event {
    let Execution {
        begin,
        pause,
        runtime: make,
        retire,
    } = execution;
    let (mut runtime, mut step) = match begin {
        Begin::Start(start) => {
            let mut runtime = make();
            // the guest's stack is `GUEST_STACK_BYTES`: sources compile on it, not on
            // Kiln's compiler thread
            runtime.set_large_stack(true);
            stop.attach(&runtime);
            if let Err(failure) = crate::prepare(&mut runtime, &start) {
                retire(runtime);
                return Event::Failed(failure);
            }
            let settings = &start.settings;
            bind_host(
                suspender,
                &mut runtime,
                settings.console,
                pause,
                &start.capabilities,
            );
            runtime.set_call_reporting(CallReporting::New);
            let step = crate::script_cache::start(&mut runtime, &start.source, &start.filename);
            (runtime, step)
        }
        Begin::Load(load) => {
            let mut runtime = match crate::restore(&load) {
                Ok(runtime) => runtime,
                Err(failure) => return Event::Failed(failure),
            };
            runtime.set_large_stack(true);
            stop.attach(&runtime);
            let console = load.settings.console;
            bind_host(suspender, &mut runtime, console, pause, &load.capabilities);
            // after a load, every outstanding call is new to the host; later suspensions
            // list only calls made since
            let calls = runtime.pending_calls();
            runtime.set_call_reporting(CallReporting::New);
            (runtime, Ok(Outcome::Suspended(calls)))
        }
    };
    let event = 'steps: loop {
        match step {
            Ok(Outcome::Complete(value)) => break Event::Complete(value),
            // (a promise nothing outstanding can settle ends the execution with kind
            // Stalled, so a waiting guest has calls to wait for)
            Ok(Outcome::Suspended(calls)) => {
                let mut request = Request::Waiting(calls);
                step = loop {
                    match suspender.suspend(request) {
                        Answer::Settle(answers) => break runtime.resume_many(answers),
                        Answer::Dump(key) => {
                            let dumped = runtime
                                .snapshot(key.as_deref())
                                .map_err(|e| Failure::from_snapshot_error(&e));
                            request = Request::Dumped(dumped);
                        }
                        // only `close` resumes a waiting guest with a reply
                        Answer::Reply(_) => {
                            let closed = Failure::new("Cancelled", "the execution was closed");
                            break 'steps Event::Failed(closed);
                        }
                        // a host that continues a pause the guest has already left (it
                        // rests now): the guest still waits
                        Answer::Nothing => request = Request::Waiting(Vec::new()),
                    }
                };
            }
            Err(report) => break Event::Failed(stop.failure(report)),
        }
    };
    retire(runtime);
    event
}

/// Connects the runtime to the host through the coroutine: console lines, pauses and
/// capabilities each suspend the guest with their request.
///
/// The runtime calls these only while `start`, `resume_many` or `snapshot` runs inside
/// `execute`, on the guest's stack, where the suspender may suspend.
fn bind_host(
    suspender: &Suspender<Answer, Request>,
    runtime: &mut Runtime,
    console: bool,
    pause: Option<Duration>,
    capabilities: &[Capability],
) {
    if console {
        let suspender = suspender.clone();
        runtime.set_console(move |level, text| {
            suspender.suspend(Request::Console(level, text.to_string()));
        });
    }
    if let Some(every) = pause {
        let suspender = suspender.clone();
        runtime.set_pause_point(every, move || {
            // whatever the host answers, the computation goes on (a host that stops the
            // execution interrupts it first)
            let _ = suspender.suspend(Request::Pause);
        });
    }
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
