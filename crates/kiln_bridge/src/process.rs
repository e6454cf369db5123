//! Sessions in worker processes: the pool the host keeps (`lease`), and the loop a
//! worker process runs (`serve`).
//!
//! A worker process serves one session at a time over its standard input and output,
//! each message a frame (its length as a `u32`, then its bytes). The host's pool keeps
//! idle workers per worker binary and starts one when none is idle. A worker that
//! exits, is killed or runs out of memory ends only the session it served: the host
//! sees `Failed` with kind `Engine`, and the pool starts a fresh worker for the next.

use crate::protocol::{Command, Event, Failure};
use crate::session::{SendError, WORKER_STACK_BYTES};
use crate::worker::{Envelope, Link, Sink, Worker, lock};
use kiln::HostReply;
use rustc_hash::FxHashMap;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};

/// The largest frame either side accepts (a snapshot or a value of up to 1 GiB).
const MAX_FRAME: usize = 1 << 30;

/// Idle workers kept per worker binary.
const MAX_IDLE: usize = 8;

fn write_frame(out: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(bytes.len())
        .map_err(|_| std::io::Error::other("a message larger than 4 GiB"))?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(bytes)?;
    out.flush()
}

/// The next frame, or None at the end of the input.
fn read_frame(input: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
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
struct WorkerProcess {
    /// the process itself: its reader thread kills and reaps it, `lease` asks whether an
    /// idle one has exited
    child: Mutex<Child>,
    stdin: Mutex<BufWriter<ChildStdin>>,
    /// the session it serves: its lease number and sink
    serving: Mutex<Option<(u64, Sink)>>,
    alive: AtomicBool,
}

/// A worker process serving one session.
pub(crate) struct Lease {
    process: Arc<WorkerProcess>,
    number: u64,
}

impl Lease {
    /// Write `command` to the worker, unless the session ended (the worker may serve
    /// another session by now).
    pub(crate) fn send(&self, command: &Command) -> Result<(), SendError> {
        let serving = lock(&self.process.serving);
        if !matches!(&*serving, Some((n, _)) if *n == self.number) {
            return Err(SendError("the session has ended".into()));
        }
        if !self.process.alive.load(Ordering::SeqCst) {
            return Err(SendError("the worker process exited".into()));
        }
        write_frame(&mut *lock(&self.process.stdin), &command.encode())
            .map_err(|e| SendError(format!("the worker process cannot be reached: {e}")))
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

/// A worker process for a new session whose events go to `sink`: an idle one, or a
/// new one.
pub(crate) fn lease(worker: &Path, sink: Sink) -> Result<Lease, SendError> {
    let pool = pool(worker);
    let idle = {
        let mut idle = lock(&pool.idle);
        // An idle worker killed a moment ago may not be known dead to its reader thread
        // yet: ask the process itself, so the new session does not start on it (the dead
        // ones popped on the way are dropped).
        std::iter::from_fn(|| idle.pop()).find(|p| {
            p.alive.load(Ordering::SeqCst) && matches!(lock(&p.child).try_wait(), Ok(None))
        })
    };
    let process = match idle {
        Some(p) => p,
        None => spawn(&pool)?,
    };
    static LEASES: AtomicU64 = AtomicU64::new(1);
    let number = LEASES.fetch_add(1, Ordering::Relaxed);
    *lock(&process.serving) = Some((number, sink));
    Ok(Lease { process, number })
}

fn spawn(pool: &Arc<Pool>) -> Result<Arc<WorkerProcess>, SendError> {
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
    let (reader, pool) = (process.clone(), pool.clone());
    std::thread::Builder::new()
        .name("kiln-worker-reader".into())
        .spawn(move || read_events(BufReader::new(stdout), reader, pool))
        .map_err(|e| SendError(format!("cannot start a reader thread: {e}")))?;
    Ok(process)
}

/// Forward a worker's events to the session it serves; return it to the pool when the
/// session ends; report its death to the session when it dies.
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
        if let Some((_, sink)) = serving {
            sink(frame);
        }
        if ends {
            let mut idle = lock(&pool.idle);
            if idle.len() < MAX_IDLE {
                idle.push(process.clone());
            } else {
                let _ = lock(&process.child).kill();
            }
        }
    }
    process.alive.store(false, Ordering::SeqCst);
    let status = {
        let mut child = lock(&process.child);
        let _ = child.kill();
        child.wait()
    };
    if let Some((_, sink)) = lock(&process.serving).take() {
        let why = match status {
            Ok(status) => describe_exit(status),
            Err(e) => e.to_string(),
        };
        let failure = Failure::new(
            "Engine",
            format!("the Kiln worker process running this guest exited ({why})"),
        );
        sink(Event::Failed(failure).encode());
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
/// time, write events to standard output. Returns when the input ends.
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
#[derive(Default)]
struct Current {
    id: u64,
    link: Option<Arc<Link>>,
    replies: Option<Sender<HostReply>>,
}

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
