//! The host's handle on a session, wherever its worker runs.

use crate::process::Lease;
use crate::protocol::Command;
use crate::worker::{Envelope, Link, Sink, Worker};
use kiln::HostReply;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, OnceLock};

/// Where a session's guest runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// on one of this process's worker threads: the fastest, but a memory-safety bug
    /// in Kiln would be a bug in the host process
    Thread,
    /// in a worker process (the `kiln-worker` binary at this path), from a pool: a
    /// crash, a kill or memory exhaustion there ends only that session
    Process { worker: PathBuf },
}

/// The host's side of one session. Commands go to its worker; events come back through
/// the sink it was opened with, on another thread. Dropping it interrupts the guest and
/// closes the session, so that a session dropped while its guest runs or waits in a
/// synchronous call does not keep its worker busy.
pub struct Session {
    route: Route,
}

enum Route {
    Thread {
        session: u64,
        link: Arc<Link>,
        commands: Sender<Envelope>,
        replies: Sender<HostReply>,
    },
    Process(Lease),
}

/// Why a command could not be delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendError(pub String);

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SendError {}

impl Session {
    /// A new session; `sink` receives its events, encoded ([`crate::protocol::Event`]).
    /// A session in worker processes takes a worker only when it is sent `Start` or
    /// `Load` (starting one when none is idle, which can fail there); one closed or
    /// dropped before then never holds a process.
    pub fn open(isolation: &Isolation, sink: Sink) -> Result<Session, SendError> {
        let route = match isolation {
            Isolation::Thread => {
                let pool = threads();
                if pool.workers.is_empty() {
                    return Err(SendError("no worker thread could be started".into()));
                }
                let session = pool.next_session.fetch_add(1, Ordering::Relaxed);
                let turn = pool.next_worker.fetch_add(1, Ordering::Relaxed);
                let commands = pool.workers[turn % pool.workers.len()].clone();
                let link = Link::new(sink);
                let (replies, receiver) = channel();
                commands
                    .send(Envelope::Open {
                        session,
                        link: link.clone(),
                        replies: receiver,
                    })
                    .map_err(|_| SendError("the worker thread stopped".into()))?;
                Route::Thread {
                    session,
                    link,
                    commands,
                    replies,
                }
            }
            Isolation::Process { worker } => Route::Process(Lease::new(worker, sink)),
        };
        Ok(Session { route })
    }

    /// Deliver `command`. A `Reply` goes to the synchronous call waiting for it and an
    /// `Interrupt` stops the guest wherever it is, even in an endless loop.
    pub fn send(&self, command: Command) -> Result<(), SendError> {
        match &self.route {
            Route::Thread {
                session,
                link,
                commands,
                replies,
            } => match command {
                Command::Interrupt => {
                    link.interrupt();
                    // a guest waiting in a synchronous call wakes up, and stops at once
                    let _ = replies.send(HostReply::Throw(kiln::HostError::new(
                        "the execution was interrupted",
                    )));
                    Ok(())
                }
                Command::Reply(reply) => replies
                    .send(reply)
                    .map_err(|_| SendError("no call is waiting for a reply".into())),
                command => commands
                    .send(Envelope::Command {
                        session: *session,
                        command,
                    })
                    .map_err(|_| SendError("the worker thread stopped".into())),
            },
            Route::Process(lease) => lease.send(&command.encode()),
        }
    }

    /// Deliver a command already encoded ([`Command::encode`]). To a worker process the
    /// bytes go as they are, so a host that encodes its own commands (the Node package)
    /// pays for one encoding and one decoding, not two of each; to a worker thread they
    /// are decoded here. Malformed bytes are an error here, or a `Failed` event from the
    /// worker process.
    pub fn send_encoded(&self, bytes: &[u8]) -> Result<(), SendError> {
        match &self.route {
            Route::Process(lease) => lease.send(bytes),
            Route::Thread { .. } => {
                let command = Command::decode(bytes)
                    .map_err(|e| SendError(format!("a malformed command: {e}")))?;
                self.send(command)
            }
        }
    }

    /// Stop the running guest (the execution ends with kind `Cancelled`).
    pub fn interrupt(&self) {
        let _ = self.send(Command::Interrupt);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.interrupt();
        let _ = self.send(Command::Close);
    }
}

/// The in-process workers: one thread per core, made on first use.
struct Threads {
    workers: Vec<Sender<Envelope>>,
    next_worker: AtomicUsize,
    next_session: AtomicU64,
}

/// The engine recurses on the native stack for deeply nested source and native re-entry.
pub(crate) const WORKER_STACK_BYTES: usize = 256 << 20;

fn threads() -> &'static Threads {
    static THREADS: OnceLock<Threads> = OnceLock::new();
    THREADS.get_or_init(|| {
        let count = std::thread::available_parallelism().map_or(2, |n| n.get());
        let workers = (0..count)
            .filter_map(|index| {
                let (sender, receiver) = channel();
                std::thread::Builder::new()
                    .name(format!("kiln-session-{index}"))
                    .stack_size(WORKER_STACK_BYTES)
                    .spawn(move || Worker::default().serve(receiver))
                    .ok()
                    .map(|_| sender)
            })
            .collect();
        Threads {
            workers,
            next_worker: AtomicUsize::new(0),
            next_session: AtomicU64::new(1),
        }
    })
}
