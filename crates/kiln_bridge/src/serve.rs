//! The worker process's loop on Unix: the guest runs on the thread that reads the
//! commands, as the packages' in-process executions run on the host's thread
//! ([`crate::local`]).
//!
//! A round trip to a worker process used to wake two of its threads: the one reading
//! standard input, then, through a channel, the one running the guest. Here one thread
//! does both. It blocks on its input only while no guest runs; a running guest suspends
//! every [`PAUSE`] of computation, and the loop looks at its input without blocking
//! (`poll`), so that an `Interrupt` stops even an endless loop. Other commands read
//! while the guest runs (answers, a dump, a close) wait in the backlog until it rests,
//! as they waited in the channel to the guest's thread before. A synchronous host call
//! suspends the guest until its `Reply` (or an `Interrupt`) comes.
//!
//! Sessions come one after another, each beginning with `Start` or `Load` (the host's
//! pool gives a worker one session at a time). Between them, and when a suspended guest
//! has waited [`QUIET`] for its host, the loop drops ended runtimes and makes the one the
//! next session starts on.

use crate::local::{Answer, Begin, Execution, LocalGuest};
use crate::process::{read_frame, write_frame};
use crate::protocol::{CallAnswer, Command, Event, Failure};
use kiln::{HostError, HostReply, PendingCall, Runtime};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{BufReader, BufWriter, Stdin, Stdout};
use std::os::fd::AsRawFd;
use std::time::Duration;

/// How long a guest computes between looks at the input.
const PAUSE: Duration = Duration::from_millis(2);

/// How long a suspended guest's host may be silent before the loop uses the time to make
/// a runtime (a host answering its calls must not find the worker busy making one).
const QUIET: Duration = Duration::from_millis(2);

thread_local! {
    /// The runtime the next session starts on, made while the loop was idle.
    static SPARE: RefCell<Option<Runtime>> = const { RefCell::new(None) };
    /// Runtimes of ended sessions, recycled into the spare or dropped while the loop is
    /// idle.
    static ENDED: RefCell<Vec<Runtime>> = const { RefCell::new(Vec::new()) };
}

fn spare_runtime() -> Runtime {
    SPARE
        .with(|spare| spare.borrow_mut().take())
        .unwrap_or_default()
}

fn retire(runtime: Runtime) {
    ENDED.with(|ended| ended.borrow_mut().push(runtime));
}

/// Makes the spare runtime from an ended one ([`Runtime::recycle`], several times cheaper
/// than a new one) or anew, and drops the other ended runtimes.
fn housekeep() {
    let mut ended = ENDED
        .with(|ended| std::mem::take(&mut *ended.borrow_mut()))
        .into_iter();
    if SPARE.with(|spare| spare.borrow().is_none()) {
        let runtime = ended.next().map_or_else(Runtime::new, Runtime::recycle);
        SPARE.with(|spare| *spare.borrow_mut() = Some(runtime));
    }
}

/// Serves sessions until the input ends.
pub fn serve() -> std::io::Result<()> {
    let mut server = Server {
        input: BufReader::new(std::io::stdin()),
        output: BufWriter::new(std::io::stdout()),
        backlog: VecDeque::new(),
        guest: LocalGuest::default(),
        deferred: Vec::new(),
    };
    let served = server.serve();
    // a guest still going unwinds and retires its runtime; the runtimes are dropped
    // before the thread's own state goes
    server.guest.close();
    ENDED.with(|ended| ended.borrow_mut().clear());
    SPARE.with(|spare| spare.borrow_mut().take());
    served
}

struct Server {
    input: BufReader<Stdin>,
    output: BufWriter<Stdout>,
    /// commands read while the guest ran or waited in a call, in order
    backlog: VecDeque<Command>,
    /// the current session's execution
    guest: LocalGuest,
    /// synchronous calls the host deferred since the guest last suspended
    deferred: Vec<PendingCall>,
}

/// Whether `fd` has input (or its end) within `timeout`.
fn readable(fd: i32, timeout: Duration) -> bool {
    let mut poll = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let millis = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: `poll` is one valid `pollfd` that lives across the call, and the count
    // given is 1.
    let ready = unsafe { libc::poll(&mut poll, 1, millis) };
    ready > 0
}

impl Server {
    fn serve(&mut self) -> std::io::Result<()> {
        loop {
            let command = match self.backlog.pop_front() {
                Some(command) => command,
                None => {
                    self.idle();
                    match self.read()? {
                        Some(command) => command,
                        None => return Ok(()),
                    }
                }
            };
            self.act(command)?;
        }
    }

    /// Housekeeping before the loop blocks on its input: at once between sessions, and
    /// after `QUIET` without a command while a guest waits for its host.
    fn idle(&mut self) {
        if self.waiting(Duration::ZERO) {
            return;
        }
        if self.guest.running() && self.waiting(QUIET) {
            return;
        }
        housekeep();
    }

    /// Whether a command is waiting to be read (or the input ended) within `timeout`.
    fn waiting(&self, timeout: Duration) -> bool {
        !self.input.buffer().is_empty() || readable(self.input.get_ref().as_raw_fd(), timeout)
    }

    /// The next command, blocking; None when the input ends. A malformed one is answered
    /// with `Failed` and skipped.
    fn read(&mut self) -> std::io::Result<Option<Command>> {
        loop {
            let Some(frame) = read_frame(&mut self.input)? else {
                return Ok(None);
            };
            match Command::decode(&frame) {
                Ok(command) => return Ok(Some(command)),
                Err(e) => {
                    let failure = Failure::new("Engine", format!("a malformed command: {e}"));
                    self.emit(&Event::Failed(failure))?;
                }
            }
        }
    }

    fn emit(&mut self, event: &Event) -> std::io::Result<()> {
        write_frame(&mut self.output, &event.encode())
    }

    /// Acts on one command and runs the guest until it rests. After a session's last
    /// event, only a new session's `Start` or `Load` is acted on (the host sends nothing
    /// else to an ended session, but may have sent it before it heard of the end).
    fn act(&mut self, command: Command) -> std::io::Result<()> {
        let answer = match command {
            Command::Start(start) => return self.begin(Begin::Start(start)),
            Command::Load(load) => return self.begin(Begin::Load(load)),
            _ if self.guest.over() => return Ok(()),
            Command::Answer { id, result } => {
                Answer::Settle(self.more_answers(vec![(id, result)])?)
            }
            Command::Answers(answers) => Answer::Settle(self.more_answers(answers)?),
            Command::Dump { key } => Answer::Dump(key),
            // a reply with no call waiting for it has nothing to act on
            Command::Reply(_) => return Ok(()),
            Command::Interrupt => {
                self.guest.stop().interrupt();
                return Ok(());
            }
            Command::Close => return self.close(),
        };
        self.drive(answer)
    }

    /// A new session's execution (the last one is over: the host gives a worker its next
    /// session only after the last one's final event).
    fn begin(&mut self, begin: Begin) -> std::io::Result<()> {
        self.guest.close();
        self.guest = LocalGuest::default();
        self.deferred.clear();
        let execution = Execution {
            begin,
            pause: Some(PAUSE),
            runtime: spare_runtime,
            retire,
        };
        if let Err(e) = self.guest.begin(execution) {
            let failure = Failure::new("Engine", format!("no stack for the guest: {e}"));
            return self.emit(&Event::Failed(failure));
        }
        self.drive(Answer::Nothing)
    }

    /// Ends the session: a guest still going is stopped.
    fn close(&mut self) -> std::io::Result<()> {
        self.guest.close();
        self.emit(&Event::Closed)
    }

    /// Answers to add to `first`: those waiting in the backlog and on the input, up to
    /// the first other command, so that answers that arrive together settle in one step.
    fn more_answers(&mut self, mut answers: Vec<CallAnswer>) -> std::io::Result<Vec<CallAnswer>> {
        loop {
            let next = match self.backlog.pop_front() {
                Some(command) => command,
                None if self.waiting(Duration::ZERO) => match self.read()? {
                    Some(command) => command,
                    None => return Ok(answers),
                },
                None => return Ok(answers),
            };
            match next {
                Command::Answer { id, result } => answers.push((id, result)),
                Command::Answers(more) => answers.extend(more),
                other => {
                    self.backlog.push_front(other);
                    return Ok(answers);
                }
            }
        }
    }

    /// Resumes the guest with `answer` and goes on until it rests (suspended, dumped,
    /// complete or failed), writing its events; a session closed meanwhile ends here.
    fn drive(&mut self, mut answer: Answer) -> std::io::Result<()> {
        loop {
            match self.guest.resume_or_refuse(answer) {
                None => {
                    // a pause: look at the input, then go on
                    self.look()?;
                    answer = Answer::Nothing;
                }
                Some(Event::Console { level, text }) => {
                    self.emit(&Event::Console { level, text })?;
                    answer = Answer::Nothing;
                }
                Some(Event::Call(call)) => {
                    self.emit(&Event::Call(call.clone()))?;
                    let reply = self.reply()?;
                    if reply == HostReply::Defer {
                        self.deferred.push(call);
                    }
                    answer = Answer::Reply(reply);
                }
                Some(Event::Suspended { mut calls }) => {
                    // a deferred call is listed at the next suspension, as calls made
                    // since the last one are
                    if !self.deferred.is_empty() {
                        calls.append(&mut self.deferred);
                        calls.sort_by_key(|call| call.id);
                    }
                    return self.emit(&Event::Suspended { calls });
                }
                Some(event) => return self.emit(&event),
            }
        }
    }

    /// At a pause, the commands waiting on the input: an interrupt applies now (as does
    /// the end of the input), others wait in the backlog until the guest rests (a
    /// `Close`, too: the host hears how the step ended first).
    fn look(&mut self) -> std::io::Result<()> {
        while self.waiting(Duration::ZERO) {
            match self.read()? {
                Some(Command::Interrupt) | None => self.guest.stop().interrupt(),
                Some(command) => self.backlog.push_back(command),
            }
        }
        Ok(())
    }

    /// Waits for the reply to the synchronous call the guest waits in; an interrupt (or
    /// the end of the input) answers it with an error the guest stops at. Other
    /// commands wait in the backlog.
    fn reply(&mut self) -> std::io::Result<HostReply> {
        loop {
            match self.read()? {
                Some(Command::Reply(reply)) => return Ok(reply),
                Some(Command::Interrupt) | None => {
                    self.guest.stop().interrupt();
                    let interrupted = HostError::new("the execution was interrupted");
                    return Ok(HostReply::Throw(interrupted));
                }
                Some(command) => self.backlog.push_back(command),
            }
        }
    }
}
