//! The runtime side of sessions: a worker owns the runtimes of the sessions given to it
//! (a [`Runtime`] never leaves the thread that made it) and turns commands into steps
//! of their executions.
//!
//! A worker thread serves many sessions, one command at a time; a synchronous host
//! call blocks its thread until the host replies. Between commands the worker keeps one
//! runtime made ahead of time, so a new session does not wait for a realm to be built.

use crate::protocol::{CallAnswer, Capability, Command, Event, Failure, Load, Mode, Start};
use kiln::snapshot::Snapshot;
use kiln::{CallId, HostError, HostReply, InterruptHandle, Outcome, Runtime};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Where a session's events go: the host's callback, as encoded bytes.
pub type Sink = Arc<dyn Fn(Vec<u8>) + Send + Sync>;

/// What a session's host side and its worker share.
pub(crate) struct Link {
    sink: Sink,
    /// the interrupt handle of the session's runtime, once it has one
    interrupt: Mutex<Option<InterruptHandle>>,
    /// the host asked to stop the guest (kept for a runtime that does not exist yet)
    cancelled: AtomicBool,
}

impl Link {
    pub(crate) fn new(sink: Sink) -> Arc<Link> {
        Arc::new(Link {
            sink,
            interrupt: Mutex::new(None),
            cancelled: AtomicBool::new(false),
        })
    }

    pub(crate) fn emit(&self, event: &Event) {
        (self.sink)(event.encode());
    }

    /// Stop the guest at its next safe point, now or as soon as it has a runtime.
    pub(crate) fn interrupt(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        if let Some(handle) = &*lock(&self.interrupt) {
            handle.interrupt();
        }
    }

    /// Give the link the runtime's handle; an interrupt that came first applies now.
    fn attach(&self, runtime: &Runtime) {
        let handle = runtime.interrupt_handle();
        *lock(&self.interrupt) = Some(handle.clone());
        if self.cancelled.load(Ordering::SeqCst) {
            handle.interrupt();
        }
    }
}

/// A poisoned lock only means another thread panicked while holding it; the data (an
/// interrupt handle, a pipe) is still usable.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A message for a worker.
pub(crate) enum Envelope {
    /// a new session: its link and the channel its synchronous calls' replies arrive on
    Open {
        session: u64,
        link: Arc<Link>,
        replies: Receiver<HostReply>,
    },
    Command {
        session: u64,
        command: Command,
    },
}

/// A session's runtime and what its worker knows about it.
struct Live {
    runtime: Option<Runtime>,
    link: Arc<Link>,
    replies: Rc<Receiver<HostReply>>,
    /// the newest asynchronous call already reported to the host
    reported: CallId,
}

/// How long a worker with suspended sessions waits for their host before it uses the
/// quiet time to build a runtime: a host answering its calls must not find the worker
/// busy building one.
const QUIET: Duration = Duration::from_millis(2);

/// Serves sessions until every sender of `envelopes` is gone.
#[derive(Default)]
pub(crate) struct Worker {
    sessions: FxHashMap<u64, Live>,
    /// the runtime the next session starts on, built while the worker was quiet
    spare: Option<Runtime>,
    /// runtimes of ended sessions, recycled into the spare or dropped while the worker is
    /// quiet
    ended: Vec<Runtime>,
    /// envelopes taken from the channel early (to look for more answers), in order
    backlog: VecDeque<Envelope>,
}

impl Worker {
    pub(crate) fn serve(mut self, envelopes: Receiver<Envelope>) {
        loop {
            let envelope = match self.backlog.pop_front() {
                Some(e) => e,
                None => match envelopes.try_recv() {
                    Ok(e) => e,
                    Err(TryRecvError::Empty) => match self.wait(&envelopes) {
                        Some(e) => e,
                        None => return,
                    },
                    Err(TryRecvError::Disconnected) => return,
                },
            };
            match envelope {
                Envelope::Command { session, command } => match answers_of(command) {
                    Ok(answers) => {
                        let answers = self.more_answers(session, answers, &envelopes);
                        self.answer(session, answers);
                    }
                    Err(command) => self.handle(Envelope::Command { session, command }),
                },
                envelope => self.handle(envelope),
            }
        }
    }

    /// The answers of one command (`first`) and those for the same session that
    /// arrived with it (before any other command of that session), in order, taken out
    /// of the backlog: answers that arrive together are applied together, in one step
    /// (`Runtime::resume_many`), and the host hears where the execution stands once,
    /// after the last of them. (A host that has several answers at once sends them in
    /// one `Answers` command, which is one step however the commands arrive.)
    fn more_answers(
        &mut self,
        session: u64,
        first: Vec<CallAnswer>,
        envelopes: &Receiver<Envelope>,
    ) -> Vec<CallAnswer> {
        self.backlog.extend(envelopes.try_iter());
        let mut answers = first;
        let mut kept = VecDeque::with_capacity(self.backlog.len());
        let mut batching = true;
        for envelope in self.backlog.drain(..) {
            let envelope = match envelope {
                Envelope::Command {
                    session: s,
                    command,
                } if batching && s == session => match answers_of(command) {
                    Ok(more) => {
                        answers.extend(more);
                        continue;
                    }
                    Err(command) => {
                        batching = false;
                        Envelope::Command {
                            session: s,
                            command,
                        }
                    }
                },
                envelope => envelope,
            };
            kept.push_back(envelope);
        }
        self.backlog = kept;
        answers
    }

    /// Gives a session's guest the answers to outstanding calls, in one step.
    fn answer(&mut self, session: u64, answers: Vec<CallAnswer>) {
        let Some(live) = self.sessions.get_mut(&session) else {
            return;
        };
        let ended = match live.runtime.as_mut() {
            Some(rt) => {
                let step = rt.resume_many(answers);
                report(live, step)
            }
            None => {
                let (event, ends) = unstarted(&Command::Answers(answers));
                if let Some(event) = event {
                    live.link.emit(&event);
                }
                ends
            }
        };
        if ended && let Some(live) = self.sessions.remove(&session) {
            self.ended.extend(live.runtime);
        }
    }

    /// The next envelope; in the meantime, make the spare (from an ended runtime when there
    /// is one, [`Runtime::recycle`]) and drop the other ended runtimes.
    /// With no session live, that housekeeping starts at once; with sessions suspended
    /// at host calls, only after `QUIET` passes without a command.
    fn wait(&mut self, envelopes: &Receiver<Envelope>) -> Option<Envelope> {
        if !self.sessions.is_empty() {
            match envelopes.recv_timeout(QUIET) {
                Ok(e) => return Some(e),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
        let mut ended = std::mem::take(&mut self.ended).into_iter();
        if self.spare.is_none() {
            // an ended runtime made new again costs several times less than a new one
            self.spare = Some(ended.next().map_or_else(Runtime::new, Runtime::recycle));
        }
        drop(ended);
        envelopes.recv().ok()
    }

    /// Act on one envelope (answers go through `answer`).
    fn handle(&mut self, envelope: Envelope) {
        match envelope {
            Envelope::Open {
                session,
                link,
                replies,
            } => {
                self.sessions.insert(
                    session,
                    Live {
                        runtime: None,
                        link,
                        replies: Rc::new(replies),
                        reported: 0,
                    },
                );
            }
            Envelope::Command { session, command } => {
                let Some(live) = self.sessions.get_mut(&session) else {
                    return;
                };
                let ended = match (command, live.runtime.as_mut()) {
                    (Command::Start(start), _) => {
                        let runtime = self.spare.take().unwrap_or_default();
                        start_session(live, runtime, *start)
                    }
                    (Command::Load(load), _) => load_session(live, *load),
                    // (`serve` gives answers to `answer`)
                    (Command::Answer { .. } | Command::Answers(_), Some(_)) => false,
                    (Command::Dump { key }, Some(rt)) => {
                        let dumped = rt
                            .snapshot(key.as_deref())
                            .map_err(|e| Failure::from_snapshot_error(&e));
                        live.link.emit(&Event::Dumped(dumped));
                        false
                    }
                    (Command::Close, Some(_)) => {
                        live.link.emit(&Event::Closed);
                        true
                    }
                    // replies go to the waiting call's channel and interrupts to the
                    // link; either arriving here has nothing left to act on
                    (Command::Reply(_) | Command::Interrupt, Some(_)) => false,
                    (command, None) => {
                        let (event, ends) = unstarted(&command);
                        if let Some(event) = event {
                            live.link.emit(&event);
                        }
                        ends
                    }
                };
                if ended && let Some(live) = self.sessions.remove(&session) {
                    self.ended.extend(live.runtime);
                }
            }
        }
    }
}

/// The answers `command` carries, or the command when it is not an answer.
fn answers_of(command: Command) -> Result<Vec<CallAnswer>, Command> {
    match command {
        Command::Answer { id, result } => Ok(vec![(id, result)]),
        Command::Answers(answers) => Ok(answers),
        command => Err(command),
    }
}

/// How a session that has not started (no `Start` or `Load` yet) answers `command`, other
/// than those two: the event it sends, if any, and whether the session is over. A worker
/// process is leased at a session's start, so before then its host answers with this.
pub(crate) fn unstarted(command: &Command) -> (Option<Event>, bool) {
    match command {
        Command::Answer { .. } | Command::Answers(_) => (
            Some(Event::Failed(Failure::new(
                "Host",
                "the session has not started",
            ))),
            true,
        ),
        Command::Dump { .. } => (
            Some(Event::Dumped(Err(Failure::new(
                "Snapshot",
                "nothing to dump",
            )))),
            false,
        ),
        Command::Close => (Some(Event::Closed), true),
        Command::Start(_) | Command::Load(_) | Command::Reply(_) | Command::Interrupt => {
            (None, false)
        }
    }
}

/// Run `start` on `runtime`; true when the session is over.
fn start_session(live: &mut Live, mut runtime: Runtime, start: Start) -> bool {
    if live.runtime.is_some() {
        return already_started(live);
    }
    if let Err(failure) = prepare(&mut runtime, &start) {
        live.link.emit(&Event::Failed(failure));
        return true;
    }
    bind_host(
        live,
        &mut runtime,
        start.settings.console,
        &start.capabilities,
    );
    let step = runtime.start(&start.source, &start.filename);
    live.runtime = Some(runtime);
    report(live, step)
}

/// Configure `runtime` for the execution `start` describes and give it the inputs:
/// what a host does before [`Runtime::start`] (capabilities apart, which each host
/// answers in its own way).
pub fn prepare(runtime: &mut Runtime, start: &Start) -> Result<(), Failure> {
    runtime
        .configure(start.settings.to_options())
        .map_err(Failure::from_report)?;
    for (name, value) in &start.inputs {
        runtime
            .set_global(name, value)
            .map_err(Failure::from_report)?;
    }
    Ok(())
}

/// The runtime the snapshot in `load` holds, with `load`'s settings: what a host does
/// before binding the restored execution's capabilities.
pub fn restore(load: &Load) -> Result<Runtime, Failure> {
    Snapshot::open(&load.snapshot, load.key.as_deref())
        .and_then(|snapshot| Runtime::restore(&snapshot, load.settings.to_options()))
        .map_err(|e| Failure::from_snapshot_error(&e))
}

/// Restore the snapshot in `load`; true when the session is over.
fn load_session(live: &mut Live, load: Load) -> bool {
    if live.runtime.is_some() {
        return already_started(live);
    }
    let mut runtime = match restore(&load) {
        Ok(rt) => rt,
        Err(failure) => {
            live.link.emit(&Event::Failed(failure));
            return true;
        }
    };
    bind_host(
        live,
        &mut runtime,
        load.settings.console,
        &load.capabilities,
    );
    let calls = runtime.pending_calls();
    live.reported = calls.iter().map(|c| c.id).max().unwrap_or(0);
    live.runtime = Some(runtime);
    live.link.emit(&Event::Suspended { calls });
    false
}

fn already_started(live: &Live) -> bool {
    live.link.emit(&Event::Failed(Failure::new(
        "Host",
        "the session has already started",
    )));
    true
}

/// Connect a session's runtime to its host: interrupts, console lines and capabilities.
fn bind_host(live: &Live, runtime: &mut Runtime, console: bool, capabilities: &[Capability]) {
    live.link.attach(runtime);
    if console {
        let link = live.link.clone();
        runtime.set_console(move |level, text| {
            link.emit(&Event::Console {
                level,
                text: text.to_string(),
            })
        });
    }
    for capability in capabilities {
        match capability.mode {
            Mode::Async => runtime.register_async(&capability.name),
            Mode::Call => {
                let (link, replies) = (live.link.clone(), live.replies.clone());
                runtime.register_deferrable(&capability.name, move |call| {
                    link.emit(&Event::Call(call.clone()));
                    replies.recv().unwrap_or_else(|_| {
                        HostReply::Throw(HostError::new("the host closed the session"))
                    })
                });
            }
        }
    }
}

/// Tell the host where the execution stands after a step; true when it is over.
fn report(live: &mut Live, step: Result<Outcome, kiln::ErrorReport>) -> bool {
    match step {
        Ok(Outcome::Suspended(calls)) => {
            let reported = live.reported;
            let calls: Vec<_> = calls.into_iter().filter(|c| c.id > reported).collect();
            if let Some(newest) = calls.iter().map(|c| c.id).max() {
                live.reported = newest;
            }
            live.link.emit(&Event::Suspended { calls });
            false
        }
        Ok(Outcome::Complete(value)) => {
            live.link.emit(&Event::Complete(value));
            true
        }
        Err(report) => {
            live.link.emit(&Event::Failed(Failure::from_report(report)));
            true
        }
    }
}
