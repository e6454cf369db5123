//! Sessions in worker processes: the pool the host keeps (`Lease`), and the loop a
//! worker process runs (`serve`).
//!
//! A worker process serves one session at a time over its standard input and output,
//! each message a frame (its length as a `u32`, then its bytes). The host's pool keeps
//! idle workers per worker binary and starts one when none is idle. A worker that
//! exits, is killed or runs out of memory ends only the session it served: the host
//! sees `Failed` with kind `Engine`, and the pool starts a fresh worker for the next.
//!
//! A session takes a worker with its `Start` or `Load`, and gives it back with its last
//! event (`Complete`, `Failed` or `Closed`), before the host hears that event. Before
//! its `Start` or `Load` a session holds no worker: the host answers its commands as a
//! worker would (`Close` with `Closed`), so a session closed or dropped before it
//! started (a binding that refused an input, say) costs no process. Each worker's
//! conversation is therefore a run of sessions, each beginning with `Start` or `Load`.
//!
//! Until a worker sends a session's first event, nothing the session did is visible to
//! its host. A worker that dies before then (most often an idle one killed a moment
//! before it was leased, which the pool cannot yet tell from a live one) does not cost
//! the session: it moves to a fresh worker, which is sent every command the session
//! has had so far, in order. It moves once; a session whose fresh worker dies too
//! fails with kind `Engine`, naming how the last one exited.

use crate::protocol::{Command, Event, Failure};
use crate::session::SendError;
use crate::worker::{Sink, lock, unstarted};
use rustc_hash::FxHashMap;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
#[cfg(not(unix))]
use {
    crate::session::WORKER_STACK_BYTES,
    crate::worker::{Envelope, Link, Worker},
    kiln::HostReply,
    std::sync::mpsc::{Sender, channel},
};

/// The largest frame either side accepts (a snapshot or a value of up to 1 GiB).
const MAX_FRAME: usize = 1 << 30;

/// Idle workers kept per worker binary.
const MAX_IDLE: usize = 8;

/// Fresh workers a session may move to when its worker dies before its first event.
const MOVES: u32 = 1;

pub(crate) fn write_frame(out: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(bytes.len())
        .map_err(|_| std::io::Error::other("a message larger than 4 GiB"))?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(bytes)?;
    out.flush()
}

/// The next frame, or None at the end of the input.
pub(crate) fn read_frame(input: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(std::io::Error::other("a frame larger than the limit"));
    }
    let mut bytes = vec![0; len];
    input.read_exact(&mut bytes)?;
    Ok(Some(bytes))
}

/// One worker process, from the host's side.
///
/// # Invariants
///
/// 1. Its reader thread stores `alive = false` before it takes `serving` to fail or
///    move that session, so a session given to it under the `serving` lock while
///    `alive` holds is seen by that thread.
struct WorkerProcess {
    /// the process itself: its reader thread kills and reaps it, `lease` asks whether an
    /// idle one has exited
    child: Mutex<Child>,
    stdin: Mutex<BufWriter<ChildStdin>>,
    /// the session it serves
    serving: Mutex<Option<Arc<Tenancy>>>,
    alive: AtomicBool,
}

/// A session in the worker processes, shared by its host side (`Lease`) and the
/// reader thread of the worker serving it.
struct Tenancy {
    sink: Sink,
    place: Mutex<Place>,
}

/// Where a session runs, and what it takes to run it elsewhere.
struct Place {
    process: Arc<WorkerProcess>,
    /// every command sent so far, encoded, until the worker's first event for the
    /// session: what a fresh worker is sent when this one dies before that event
    replay: Option<Vec<Vec<u8>>>,
    /// the fresh workers the session may still move to
    moves: u32,
    /// the session's last event has come (or its worker died): commands are refused
    ended: bool,
}

impl Tenancy {
    fn new(sink: Sink, process: &Arc<WorkerProcess>) -> Arc<Tenancy> {
        Arc::new(Tenancy {
            sink,
            place: Mutex::new(Place {
                process: process.clone(),
                replay: Some(Vec::new()),
                moves: MOVES,
                ended: false,
            }),
        })
    }

    /// The session's worker sent an event (its last when `ends`): the session has shown
    /// something, so it stays on that worker from now on.
    fn shown(&self, ends: bool) {
        let mut place = lock(&self.place);
        place.replay = None;
        place.ended |= ends;
    }

    /// Write the encoded command `frame` to the session's worker, unless the session
    /// ended (the worker may serve another session by now).
    fn send(&self, frame: &[u8]) -> Result<(), SendError> {
        let mut place = lock(&self.place);
        if place.ended {
            return Err(SendError("the session has ended".into()));
        }
        let written = if place.process.alive.load(Ordering::SeqCst) {
            write_frame(&mut *lock(&place.process.stdin), frame)
                .map_err(|e| SendError(format!("the worker process cannot be reached: {e}")))
        } else {
            Err(SendError("the worker process exited".into()))
        };
        match &mut place.replay {
            // a worker that dies before its first event hands the session, this command
            // included, to a fresh worker
            Some(replay) => {
                replay.push(frame.to_vec());
                Ok(())
            }
            None => written,
        }
    }

    /// The session's worker died (`why` says how): move the session to a fresh worker
    /// if it has shown nothing yet and may still move, else fail it.
    fn worker_died(self: &Arc<Self>, why: &str, pool: &Arc<Pool>) {
        let mut place = lock(&self.place);
        let message = match place.replay.take() {
            Some(replay) if place.moves > 0 => {
                place.moves -= 1;
                let moved = spawn(pool, |fresh| {
                    place.process = fresh.clone();
                    self.clone()
                });
                match moved {
                    Ok(_) => {
                        let mut stdin = lock(&place.process.stdin);
                        // a write fails only when the fresh worker died too: its reader
                        // thread fails the session
                        let _ = replay.iter().try_for_each(|f| write_frame(&mut *stdin, f));
                        drop(stdin);
                        place.replay = Some(replay);
                        return;
                    }
                    Err(e) => format!(
                        "the Kiln worker process running this guest exited ({why}) before \
                         the guest produced anything, and no other could take its place: {e}"
                    ),
                }
            }
            Some(_) => format!(
                "the Kiln worker process running this guest ({}) exited ({why}) before the \
                 guest produced anything, as did the one it replaced",
                pool.worker.display()
            ),
            None => format!("the Kiln worker process running this guest exited ({why})"),
        };
        place.ended = true;
        drop(place);
        (self.sink)(Event::Failed(Failure::new("Engine", message)).encode());
    }
}

/// A session's hold on the worker processes: none until its `Start` or `Load`.
pub(crate) struct Lease {
    pool: Arc<Pool>,
    sink: Sink,
    hold: Mutex<Hold>,
}

enum Hold {
    /// nothing for a worker to run yet; `interrupted` once the host stopped the guest
    /// still to start
    Unleased {
        interrupted: bool,
    },
    Leased(Arc<Tenancy>),
    /// closed, or failed, before it had a worker
    Ended,
}

impl Lease {
    /// A session in the pool of `worker` whose events go to `sink`; it takes a worker
    /// when it is sent `Start` or `Load`.
    pub(crate) fn new(worker: &Path, sink: Sink) -> Lease {
        Lease {
            pool: pool(worker),
            sink,
            hold: Mutex::new(Hold::Unleased { interrupted: false }),
        }
    }

    /// Deliver the encoded command `frame` as it is: to the session's worker, taking one
    /// for `Start` or `Load`; before then, answer it here as the worker would. The worker
    /// decodes it (and answers a malformed one with `Failed`), so a host that encodes its
    /// own commands has them encoded once and decoded once.
    pub(crate) fn send(&self, frame: &[u8]) -> Result<(), SendError> {
        let mut hold = lock(&self.hold);
        let interrupted = match &mut *hold {
            Hold::Leased(tenancy) => return tenancy.send(frame),
            Hold::Ended => return Err(SendError("the session has ended".into())),
            Hold::Unleased { interrupted } => interrupted,
        };
        if Command::bytes_begin_session(frame) {
            let interrupted = *interrupted;
            let tenancy = lease(&self.pool, self.sink.clone())?;
            *hold = Hold::Leased(tenancy.clone());
            tenancy.send(frame)?;
            if interrupted {
                tenancy.send(&Command::Interrupt.encode())?;
            }
            return Ok(());
        }
        let command =
            Command::decode(frame).map_err(|e| SendError(format!("a malformed command: {e}")))?;
        match command {
            // as on a worker thread, an interrupt that comes first stops the guest once
            // it starts
            Command::Interrupt => *interrupted = true,
            command => {
                let (event, ends) = unstarted(&command);
                if ends {
                    *hold = Hold::Ended;
                }
                drop(hold);
                if let Some(event) = event {
                    (self.sink)(event.encode());
                }
            }
        }
        Ok(())
    }
}

/// The idle workers of one worker binary.
struct Pool {
    worker: PathBuf,
    idle: Mutex<Vec<Arc<WorkerProcess>>>,
}

fn pool(worker: &Path) -> Arc<Pool> {
    static POOLS: OnceLock<Mutex<FxHashMap<PathBuf, Arc<Pool>>>> = OnceLock::new();
    let pools = POOLS.get_or_init(Default::default);
    lock(pools)
        .entry(worker.to_path_buf())
        .or_insert_with(|| {
            Arc::new(Pool {
                worker: worker.to_path_buf(),
                idle: Mutex::new(Vec::new()),
            })
        })
        .clone()
}

/// A worker process for a session starting now, whose events go to `sink`: an idle one,
/// or a new one.
fn lease(pool: &Arc<Pool>, sink: Sink) -> Result<Arc<Tenancy>, SendError> {
    loop {
        let Some(process) = lock(&pool.idle).pop() else {
            break;
        };
        // An idle worker killed a moment ago may not be known dead to its reader thread
        // yet: ask the process itself (the dead ones popped on the way are dropped). One
        // that has not exited yet is leased all the same; when it does, the session
        // moves to a fresh worker.
        if !matches!(lock(&process.child).try_wait(), Ok(None)) {
            continue;
        }
        let mut serving = lock(&process.serving);
        // invariant 1: its reader thread will see this session
        if process.alive.load(Ordering::SeqCst) {
            let tenancy = Tenancy::new(sink, &process);
            *serving = Some(tenancy.clone());
            return Ok(tenancy);
        }
    }
    spawn(pool, |process| Tenancy::new(sink, process))
}

/// Start a worker process serving the session `serve` gives it (given before its
/// reader thread starts, so that a worker that dies at once has a session to report to).
fn spawn(
    pool: &Arc<Pool>,
    serve: impl FnOnce(&Arc<WorkerProcess>) -> Arc<Tenancy>,
) -> Result<Arc<Tenancy>, SendError> {
    let mut child = std::process::Command::new(&pool.worker)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| {
            SendError(format!(
                "cannot start the Kiln worker process {}: {e}",
                pool.worker.display()
            ))
        })?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        return Err(SendError("the worker process has no pipes".into()));
    };
    let process = Arc::new(WorkerProcess {
        child: Mutex::new(child),
        stdin: Mutex::new(BufWriter::new(stdin)),
        serving: Mutex::new(None),
        alive: AtomicBool::new(true),
    });
    let tenancy = serve(&process);
    *lock(&process.serving) = Some(tenancy.clone());
    let (reader, pool) = (process.clone(), pool.clone());
    std::thread::Builder::new()
        .name("kiln-worker-reader".into())
        .spawn(move || read_events(BufReader::new(stdout), reader, pool))
        .map_err(|e| {
            let _ = lock(&process.child).kill();
            SendError(format!("cannot start a reader thread: {e}"))
        })?;
    Ok(tenancy)
}

/// Forward a worker's events to the session it serves; return it to the pool when the
/// session ends; when it dies, move its session elsewhere or fail it.
fn read_events(
    mut stdout: BufReader<std::process::ChildStdout>,
    process: Arc<WorkerProcess>,
    pool: Arc<Pool>,
) {
    while let Ok(Some(frame)) = read_frame(&mut stdout) {
        let ends = Event::bytes_end_session(&frame);
        let serving = if ends {
            lock(&process.serving).take()
        } else {
            lock(&process.serving).clone()
        };
        if let Some(tenancy) = &serving {
            tenancy.shown(ends);
        }
        // idle before the host hears the session ended: its next session can have it
        if ends {
            let mut idle = lock(&pool.idle);
            if idle.len() < MAX_IDLE {
                idle.push(process.clone());
            } else {
                let _ = lock(&process.child).kill();
            }
        }
        if let Some(tenancy) = serving {
            (tenancy.sink)(frame);
        }
    }
    // invariant 1
    process.alive.store(false, Ordering::SeqCst);
    let status = {
        let mut child = lock(&process.child);
        let _ = child.kill();
        child.wait()
    };
    if let Some(tenancy) = lock(&process.serving).take() {
        let why = match status {
            Ok(status) => describe_exit(status),
            Err(e) => e.to_string(),
        };
        tenancy.worker_died(&why, &pool);
    }
    lock(&pool.idle).retain(|p| !Arc::ptr_eq(p, &process));
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => status.to_string(),
    }
}

/// The worker process's loop: read commands from standard input, serve one session at a
/// time, write events to standard output. Returns when the input ends. (On Unix the
/// guest runs on the reading thread instead: `serve.rs`.)
#[cfg(not(unix))]
pub fn serve() -> std::io::Result<()> {
    let stdout = Arc::new(Mutex::new(BufWriter::new(std::io::stdout())));
    let sink: Sink = Arc::new(move |bytes| {
        // a host that stopped reading has gone; the reader below sees its input end
        let _ = write_frame(&mut *lock(&stdout), &bytes);
    });
    let (envelopes, receiver) = channel();
    let worker = std::thread::Builder::new()
        .name("kiln-worker".into())
        .stack_size(WORKER_STACK_BYTES)
        .spawn(move || Worker::default().serve(receiver))?;
    let mut input = BufReader::new(std::io::stdin());
    let mut session = Current::default();
    while let Some(frame) = read_frame(&mut input)? {
        let command = match Command::decode(&frame) {
            Ok(c) => c,
            Err(e) => {
                let failure = Failure::new("Engine", format!("a malformed command: {e}"));
                sink(Event::Failed(failure).encode());
                continue;
            }
        };
        session.route(command, &sink, &envelopes);
    }
    drop(envelopes);
    let _ = worker.join();
    Ok(())
}

/// The session a worker process serves now, as its input reader sees it.
#[cfg(not(unix))]
#[derive(Default)]
struct Current {
    id: u64,
    link: Option<Arc<Link>>,
    replies: Option<Sender<HostReply>>,
}

#[cfg(not(unix))]
impl Current {
    fn route(&mut self, command: Command, sink: &Sink, envelopes: &Sender<Envelope>) {
        match command {
            Command::Interrupt => {
                if let Some(link) = &self.link {
                    link.interrupt();
                }
                if let Some(replies) = &self.replies {
                    let _ = replies.send(HostReply::Throw(kiln::HostError::new(
                        "the execution was interrupted",
                    )));
                }
            }
            Command::Reply(reply) => {
                if let Some(replies) = &self.replies {
                    let _ = replies.send(reply);
                }
            }
            command => {
                if matches!(command, Command::Start(_) | Command::Load(_)) {
                    self.id += 1;
                    let link = Link::new(sink.clone());
                    let (replies, receiver) = channel();
                    let _ = envelopes.send(Envelope::Open {
                        session: self.id,
                        link: link.clone(),
                        replies: receiver,
                    });
                    self.link = Some(link);
                    self.replies = Some(replies);
                }
                let _ = envelopes.send(Envelope::Command {
                    session: self.id,
                    command,
                });
            }
        }
    }
}
