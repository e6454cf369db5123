//! The native half of the `kiln-sandbox` Python package (`kiln._native`): session
//! handles over `kiln_bridge`, and Python values to and from [`HostValue`]s
//! (`values.rs`). The API, the errors and the asyncio glue are Python, in
//! `python/kiln/`.
//!
//! A session's events arrive on a Kiln thread (or a worker process's reader thread)
//! and wait in the session's queue. A synchronous host takes them with `next`, which
//! waits with the GIL released; an asyncio host watches the session's wake socket
//! (`loop.add_reader`), which gets a byte whenever the queue stops being empty, and
//! takes them with `poll` on the loop's thread. A Kiln thread never runs Python: the
//! GIL is held only on the host's threads, to turn values into Python objects. (A
//! Kiln thread that took the GIL while the interpreter finalises would be ended by
//! CPython in the middle of Rust frames, which aborts the process.)

mod local;
mod values;

use kiln::{CallId, ConsoleLevel, HostError, HostReply, PendingCall};
use kiln_bridge::protocol::{
    CallAnswer, Capability, Failure, Limits, Load, Mode, Settings, Start, defaults,
};
use kiln_bridge::{Command, Event, Isolation, Session as Bridge, Sink};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use values::Refusal;

create_exception!(
    _native,
    BoundaryRefusal,
    PyException,
    "A value that cannot cross to the guest: args are (what, path)."
);

/// How often a waiting `next` wakes to let Python run its signal handlers (Ctrl-C).
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// A poisoned lock only means another thread panicked while holding it; a queue of
/// events is still usable.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A session's events, waiting for the host.
struct Queue {
    state: Mutex<Waiting>,
    ready: Condvar,
}

struct Waiting {
    events: VecDeque<Event>,
    /// a wake byte was written and the host has not yet found the queue empty
    scheduled: bool,
    /// what wakes the host's event loop (asyncio hosts only)
    wake: Option<Wake>,
}

/// A connected socket pair: the host's event loop watches `read`, and a byte on it
/// means events are waiting. At most one byte is unread at a time.
struct Wake {
    read: UnixStream,
    write: UnixStream,
}

impl Wake {
    fn new() -> std::io::Result<Wake> {
        let (read, write) = UnixStream::pair()?;
        read.set_nonblocking(true)?;
        write.set_nonblocking(true)?;
        Ok(Wake { read, write })
    }

    /// Empties `read`, so the loop stops seeing it readable.
    fn clear(&self) {
        let mut buf = [0u8; 16];
        while matches!((&self.read).read(&mut buf), Ok(n) if n > 0) {}
    }
}

impl Queue {
    fn push(&self, event: Event) {
        let mut guard = lock(&self.state);
        let waiting = &mut *guard;
        waiting.events.push_back(event);
        self.ready.notify_all();
        if !waiting.scheduled
            && let Some(wake) = &waiting.wake
        {
            waiting.scheduled = true;
            // a failed write leaves nobody to wake: the host closed the session
            let _ = (&wake.write).write(&[1]);
        }
    }

    /// The next event, if one is waiting; an empty queue wants waking again. The wake
    /// socket is emptied under the lock, so a byte written after this finds
    /// `scheduled` false and is not lost.
    fn pop(&self) -> Option<Event> {
        let mut waiting = lock(&self.state);
        let event = waiting.events.pop_front();
        if event.is_none() {
            if let Some(wake) = &waiting.wake {
                wake.clear();
            }
            waiting.scheduled = false;
        }
        event
    }

    /// The next event, waiting at most `slice` for one.
    fn wait(&self, slice: Duration) -> Option<Event> {
        let mut waiting = lock(&self.state);
        let until = Instant::now() + slice;
        loop {
            if let Some(event) = waiting.events.pop_front() {
                return Some(event);
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            waiting = self
                .ready
                .wait_timeout(waiting, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// One execution's session, on a Kiln worker thread or in a worker process.
#[pyclass(module = "kiln._native", frozen)]
struct Session {
    session: Mutex<Option<Bridge>>,
    queue: Arc<Queue>,
    /// answers given since the last `send_answers`, in order
    answers: Mutex<Vec<CallAnswer>>,
}

type LimitArgs = (
    Option<u64>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
);

fn settings(limits: LimitArgs, hardened: bool, allow_eval: bool, console: bool) -> Settings {
    let (fuel, heap_bytes, call_depth, compute_ms, host_calls) = limits;
    Settings {
        limits: Limits {
            fuel,
            heap_bytes,
            call_depth,
            compute_ms,
            host_calls,
        },
        hardened,
        allow_eval,
        console,
        bigint: true,
        date: true,
    }
}

/// The execution a `start` describes; capabilities are `(name, is_async)`, and a refused
/// input raises BoundaryRefusal (path from `$.name`).
fn start(
    source: String,
    filename: String,
    settings: Settings,
    capabilities: Vec<(String, bool)>,
    inputs: Vec<(String, Bound<'_, PyAny>)>,
) -> PyResult<Start> {
    let mut values = Vec::with_capacity(inputs.len());
    for (name, value) in inputs {
        let value = values::to_host(&value).map_err(|r| refused(r.within(format!(".{name}"))))?;
        values.push((name, value));
    }
    let capabilities = capabilities
        .into_iter()
        .map(|(name, is_async)| Capability {
            name,
            mode: if is_async { Mode::Async } else { Mode::Call },
        })
        .collect();
    Ok(Start {
        source,
        filename,
        settings,
        capabilities,
        inputs: values,
    })
}

fn refused(r: Refusal) -> PyErr {
    let path = r.path();
    BoundaryRefusal::new_err((r.what, path))
}

fn host_error(name: String, message: String, code: Option<String>) -> HostError {
    let mut error = HostError::new(message).with_name(name);
    error.code = code;
    error
}

#[pymethods]
impl Session {
    /// Opens a session: on a Kiln thread when `worker` is None, else in a pool of
    /// `kiln-worker` processes at that path. With `wake`, the session has a socket
    /// (`wake_fd`) that becomes readable whenever events start waiting.
    #[new]
    #[pyo3(signature = (worker=None, wake=false))]
    fn new(py: Python<'_>, worker: Option<PathBuf>, wake: bool) -> PyResult<Self> {
        let wake = match wake {
            true => Some(Wake::new().map_err(|e| PyRuntimeError::new_err(e.to_string()))?),
            false => None,
        };
        let queue = Arc::new(Queue {
            state: Mutex::new(Waiting {
                events: VecDeque::new(),
                scheduled: false,
                wake,
            }),
            ready: Condvar::new(),
        });
        let events = queue.clone();
        let sink: Sink = Arc::new(move |bytes: Vec<u8>| {
            let event = Event::decode(&bytes).unwrap_or_else(|e| {
                Event::Failed(Failure::new(
                    "Engine",
                    format!("a malformed event from the worker: {e}"),
                ))
            });
            if event != Event::Closed {
                events.push(event);
            }
        });
        let isolation = match worker {
            Some(worker) => Isolation::Process { worker },
            None => Isolation::Thread,
        };
        let session = py
            .detach(|| Bridge::open(&isolation, sink))
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(Session {
            session: Mutex::new(Some(session)),
            queue,
            answers: Mutex::new(Vec::new()),
        })
    }

    /// Starts `source`; a refused input raises BoundaryRefusal (path from `$.name`).
    #[allow(clippy::too_many_arguments)]
    fn start(
        &self,
        py: Python<'_>,
        source: String,
        filename: String,
        limits: LimitArgs,
        hardened: bool,
        allow_eval: bool,
        console: bool,
        capabilities: Vec<(String, bool)>,
        inputs: Vec<(String, Bound<'_, PyAny>)>,
    ) -> PyResult<()> {
        let settings = settings(limits, hardened, allow_eval, console);
        let start = start(source, filename, settings, capabilities, inputs)?;
        self.send(py, Command::Start(Box::new(start)));
        Ok(())
    }

    /// Continues the execution in `snapshot`; every capability is asynchronous.
    #[allow(clippy::too_many_arguments)]
    fn load(
        &self,
        py: Python<'_>,
        snapshot: &[u8],
        key: Option<&[u8]>,
        limits: LimitArgs,
        hardened: bool,
        allow_eval: bool,
        console: bool,
        capabilities: Vec<String>,
    ) {
        let capabilities = capabilities
            .into_iter()
            .map(|name| Capability {
                name,
                mode: Mode::Async,
            })
            .collect();
        self.send(
            py,
            Command::Load(Box::new(Load {
                snapshot: snapshot.to_vec(),
                key: key.map(<[u8]>::to_vec),
                settings: settings(limits, hardened, allow_eval, console),
                capabilities,
            })),
        );
    }

    /// Returns `value` from the synchronous call the guest waits in.
    fn reply_return(&self, py: Python<'_>, value: Bound<'_, PyAny>) -> PyResult<()> {
        let value = values::to_host(&value).map_err(refused)?;
        self.send(py, Command::Reply(HostReply::Return(value)));
        Ok(())
    }

    /// Throws an Error in the guest from the synchronous call it waits in.
    #[pyo3(signature = (name, message, code=None))]
    fn reply_throw(&self, py: Python<'_>, name: String, message: String, code: Option<String>) {
        let error = host_error(name, message, code);
        self.send(py, Command::Reply(HostReply::Throw(error)));
    }

    /// Makes the synchronous call the guest waits in return a promise, answered later.
    fn reply_defer(&self, py: Python<'_>) {
        self.send(py, Command::Reply(HostReply::Defer));
    }

    /// Settles the outstanding call `id` with `value` at the next `send_answers`; a
    /// refused value raises BoundaryRefusal and settles nothing.
    fn answer_value(&self, id: CallId, value: Bound<'_, PyAny>) -> PyResult<()> {
        let value = values::to_host(&value).map_err(refused)?;
        lock(&self.answers).push((id, Ok(value)));
        Ok(())
    }

    /// Rejects the outstanding call `id` with an Error at the next `send_answers`.
    #[pyo3(signature = (id, name, message, code=None))]
    fn answer_error(&self, id: CallId, name: String, message: String, code: Option<String>) {
        let error = host_error(name, message, code);
        lock(&self.answers).push((id, Err(error)));
    }

    /// Sends the answers given since the last time as one command: the guest takes them
    /// in one step, in the order given, however the command travels.
    fn send_answers(&self, py: Python<'_>) {
        let answers = std::mem::take(&mut *lock(&self.answers));
        if !answers.is_empty() {
            self.send(py, Command::Answers(answers));
        }
    }

    /// Writes the suspended execution as snapshot bytes (a `dumped` event).
    #[pyo3(signature = (key=None))]
    fn dump(&self, py: Python<'_>, key: Option<&[u8]>) {
        let key = key.map(<[u8]>::to_vec);
        self.send(py, Command::Dump { key });
    }

    /// Stops the running guest, even one in an endless loop.
    fn interrupt(&self, py: Python<'_>) {
        py.detach(|| {
            if let Some(session) = &*lock(&self.session) {
                session.interrupt();
            }
        });
    }

    /// Stops the running guest and ends the step now with kind `Cancelled`, whatever
    /// the guest is doing (running, or waiting for the host).
    fn cancel(&self, py: Python<'_>, message: &str) {
        self.interrupt(py);
        self.queue
            .push(Event::Failed(Failure::new("Cancelled", message)));
    }

    /// Ends the session and frees its runtime.
    fn close(&self, py: Python<'_>) {
        let session = lock(&self.session).take();
        py.detach(move || drop(session));
    }

    /// The file descriptor an event loop watches for waiting events (`add_reader`),
    /// open as long as the session object lives; ValueError for a session opened
    /// without `wake`.
    fn wake_fd(&self) -> PyResult<i32> {
        lock(&self.queue.state)
            .wake
            .as_ref()
            .map(|w| w.read.as_raw_fd())
            .ok_or_else(|| PyValueError::new_err("the session was opened without wake"))
    }

    /// The next event, waiting for it with the GIL released; None after `timeout`
    /// seconds. Python's signal handlers run while it waits (Ctrl-C raises here).
    #[pyo3(signature = (timeout=None))]
    fn next(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<Py<PyAny>>> {
        let deadline = timeout.map(|t| Instant::now() + Duration::from_secs_f64(t.max(0.0)));
        loop {
            let slice = match deadline {
                Some(d) => SIGNAL_CHECK.min(d.saturating_duration_since(Instant::now())),
                None => SIGNAL_CHECK,
            };
            if let Some(event) = py.detach(|| self.queue.wait(slice)) {
                return event_to_python(py, event).map(Some);
            }
            py.check_signals()?;
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(None);
            }
        }
    }

    /// The next event if one is waiting, else None (and the wake socket becomes
    /// readable again at the next one).
    fn poll(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        match self.queue.pop() {
            Some(event) => event_to_python(py, event).map(Some),
            None => Ok(None),
        }
    }
}

impl Session {
    /// Sends `command`; a failure to deliver it is the step's failure, as an event.
    fn send(&self, py: Python<'_>, command: Command) {
        let sent = py.detach(|| lock(&self.session).as_ref().map(|s| s.send(command)));
        if let Some(Err(e)) = sent {
            self.queue.push(Event::Failed(Failure::new("Engine", e.0)));
        }
    }
}

fn level(level: ConsoleLevel) -> &'static str {
    match level {
        ConsoleLevel::Log => "log",
        ConsoleLevel::Info => "info",
        ConsoleLevel::Debug => "debug",
        ConsoleLevel::Warn => "warn",
        ConsoleLevel::Error => "error",
    }
}

/// `(what, path)` of a refusal, or None.
fn refusal_to_python(py: Python<'_>, r: Option<Refusal>) -> PyResult<Py<PyAny>> {
    match r {
        Some(r) => {
            let path = r.path();
            Ok((r.what, path).into_pyobject(py)?.into_any().unbind())
        }
        None => Ok(py.None()),
    }
}

/// `(id, capability, args, refusal)`: args is None when one of them cannot be a Python
/// object, and refusal says which.
fn call_to_python(py: Python<'_>, call: PendingCall) -> PyResult<Py<PyAny>> {
    let args = PyList::empty(py);
    let mut refusal = None;
    for (i, arg) in call.args.iter().enumerate() {
        match values::to_python(py, arg)? {
            Ok(v) => args.append(v)?,
            Err(r) => {
                refusal = Some(r.within(format!("[{i}]")));
                break;
            }
        }
    }
    let args = if refusal.is_some() {
        py.None()
    } else {
        args.into_any().unbind()
    };
    let refusal = refusal_to_python(py, refusal)?;
    Ok((call.id, call.capability, args, refusal)
        .into_pyobject(py)?
        .into_any()
        .unbind())
}

/// `(kind, name, message, stack, location)`, location `(file, line, column,
/// source_line)` or None.
fn failure_to_python(py: Python<'_>, f: Failure) -> PyResult<Py<PyAny>> {
    let location = match f.location {
        Some(l) => (l.file, l.line, l.column, l.source_line)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        None => py.None(),
    };
    Ok((f.kind, f.name, f.message, f.stack, location)
        .into_pyobject(py)?
        .into_any()
        .unbind())
}

/// An event as a tuple whose first item names it: `("call", call)`, `("console",
/// level, text)`, `("suspended", [call, ...])`, `("complete", value, refusal)`,
/// `("failed", failure)`, `("dumped", bytes)`, `("dump_failed", failure)`.
fn event_to_python(py: Python<'_>, event: Event) -> PyResult<Py<PyAny>> {
    let tuple = match event {
        Event::Call(call) => ("call", call_to_python(py, call)?)
            .into_pyobject(py)?
            .into_any(),
        Event::Console { level: l, text } => {
            ("console", level(l), text).into_pyobject(py)?.into_any()
        }
        Event::Suspended { calls } => {
            let list = PyList::empty(py);
            for call in calls {
                list.append(call_to_python(py, call)?)?;
            }
            ("suspended", list).into_pyobject(py)?.into_any()
        }
        Event::Complete(value) => {
            let (value, refusal) = match values::to_python(py, &value)? {
                Ok(v) => (v, None),
                Err(r) => (py.None(), Some(r)),
            };
            ("complete", value, refusal_to_python(py, refusal)?)
                .into_pyobject(py)?
                .into_any()
        }
        Event::Failed(f) => ("failed", failure_to_python(py, f)?)
            .into_pyobject(py)?
            .into_any(),
        Event::Dumped(Ok(bytes)) => ("dumped", PyBytes::new(py, &bytes))
            .into_pyobject(py)?
            .into_any(),
        Event::Dumped(Err(f)) => ("dump_failed", failure_to_python(py, f)?)
            .into_pyobject(py)?
            .into_any(),
        Event::Closed => ("closed",).into_pyobject(py)?.into_any(),
    };
    Ok(tuple.unbind())
}

/// The id of the snapshot in `data` after checking its envelope (and, with `key`, its
/// authentication); raises ValueError with the snapshot error's message.
#[pyfunction]
#[pyo3(signature = (data, key=None))]
fn snapshot_id(py: Python<'_>, data: &[u8], key: Option<&[u8]>) -> PyResult<String> {
    py.detach(|| kiln_bridge::snapshot_id(data, key))
        .map_err(|f| PyValueError::new_err(f.message))
}

/// Serves sessions as a worker process of isolation 'process', on standard input and
/// output, until the input ends (with the GIL released): `kiln-worker-python`, for
/// installs without the `kiln-worker` binary.
#[pyfunction]
fn serve_worker(py: Python<'_>) -> PyResult<()> {
    py.detach(kiln_bridge::serve_worker_process)
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Session>()?;
    m.add_class::<local::LocalRun>()?;
    m.add_class::<local::Canceller>()?;
    m.add_function(wrap_pyfunction!(snapshot_id, m)?)?;
    m.add_function(wrap_pyfunction!(serve_worker, m)?)?;
    m.add("BoundaryRefusal", py.get_type::<BoundaryRefusal>())?;
    let limits = PyDict::new(py);
    limits.set_item("fuel", defaults::FUEL)?;
    limits.set_item("heap_bytes", defaults::HEAP_BYTES)?;
    limits.set_item("call_depth", defaults::CALL_DEPTH)?;
    limits.set_item("compute_ms", defaults::COMPUTE_MS)?;
    limits.set_item("host_calls", defaults::HOST_CALLS)?;
    m.add("DEFAULT_LIMITS", limits)?;
    m.add("MAX_DEPTH", values::MAX_DEPTH)?;
    Ok(())
}
