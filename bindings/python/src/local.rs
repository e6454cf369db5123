//! `kiln.run` and `kiln.run_async` on the calling thread: the guest runs where the run
//! was called (for `run_async`, the event loop's thread), with the GIL released, and
//! nothing crosses to another thread (no wake-up of a Kiln thread and of the caller at
//! each host call, and values built, read and freed by one thread).
//!
//! The guest runs as a [`kiln_bridge::local`] execution: on a stack of its own, on this
//! thread, suspending at each host call and console line, so that control comes back
//! to the caller's own stack, where the GIL is taken again and Python runs, and the
//! answer resumes the guest. Python code never runs on the guest's stack. When the
//! guest can only wait for asynchronous calls, it suspends with the calls made since it
//! last did; the answers the host has when it resumes the guest are given together, in
//! one step, so that a fan-out of n calls costs as many steps as the host has turns. A
//! run given a pause interval (`run_async`'s) also suspends between stretches of
//! computation, so that the event loop gets a turn at least that often while the guest
//! computes; `kiln.run` has none and runs straight through. This file is the pyo3 glue:
//! Python values to answers, events to Python.
//!
//! The runtime is taken, used and given back inside the guest, so it never leaves this
//! thread: an ended run's runtime waits in this thread's pool and the next run starts on
//! it made new again (`Runtime::recycle`, several times cheaper than making one). The
//! run object is `unsendable` (pyo3 refuses it to other threads), and a [`Canceller`]
//! stops it from any thread.

use crate::{event_to_python, refused, values};
use kiln::{CallId, HostReply, Runtime};
use kiln_bridge::local::{Answer, Begin, Execution, LocalGuest, Stop};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::sync::Arc;
use std::time::Duration;

/// Runtimes of ended runs kept on a thread for the next runs; past this many, a run drops
/// its own.
const MAX_ENDED: usize = 4;

thread_local! {
    /// Runtimes of ended runs on this thread (see `kiln_bridge::local::EndedRuntimes`).
    static ENDED: RefCell<Vec<ManuallyDrop<Runtime>>> = const { RefCell::new(Vec::new()) };
}

/// A runtime for a run: an ended run's, made new again, or a new one.
fn runtime() -> Runtime {
    let ended = ENDED.with(|ended| ended.borrow_mut().pop());
    ended.map_or_else(Runtime::new, |r| ManuallyDrop::into_inner(r).recycle())
}

/// Keeps an ended run's runtime for the next run, or drops it when enough are kept.
fn retire(runtime: Runtime) {
    kiln_bridge::local::keep_ended(&ENDED, runtime, MAX_ENDED);
}

/// Stops a [`LocalRun`] from any thread.
#[pyclass(module = "kiln._native", frozen)]
pub struct Canceller {
    stop: Arc<Stop>,
}

#[pymethods]
impl Canceller {
    /// Stops the guest at its next safe point; the run fails with kind `Cancelled`.
    fn interrupt(&self) {
        self.stop.interrupt();
    }

    /// As `interrupt`, and the run's failure has this message.
    fn cancel(&self, message: &str) {
        self.stop.cancel(message);
    }
}

/// A value `Python::detach` may carry although it is not `Send`.
struct OnThisThread<T>(T);

// SAFETY: `Python::detach` calls its closure on the calling thread and returns only after
// the closure has, so a value carried in it never leaves the thread that owns it.
unsafe impl<T> Send for OnThisThread<T> {}

impl<T> OnThisThread<T> {
    /// The value (a method, so that a closure captures the whole wrapper)
    fn take(self) -> T {
        self.0
    }
}

/// One execution on this thread: `start` it, then take its events with `next` as from a
/// `Session`, answering each `call` with `reply_return`, `reply_throw` or `reply_defer`
/// before the next `next`, and after a `suspended`, one or more outstanding calls with
/// `answer_value` or `answer_error` (the next `next` gives them all to the guest in one
/// step); after a `pause`, the next `next` continues.
#[pyclass(module = "kiln._native", unsendable)]
pub struct LocalRun {
    local: LocalGuest,
    /// what the next `next` resumes the guest with
    answer: Answer,
}

#[pymethods]
impl LocalRun {
    #[new]
    fn new() -> Self {
        LocalRun {
            local: LocalGuest::default(),
            answer: Answer::Nothing,
        }
    }

    /// Prepares the execution (it runs at the first `next`); a refused input raises
    /// BoundaryRefusal (path from `$.name`). Capabilities are `(name, is_async)`: an
    /// asynchronous one gives the guest a promise and its call is reported at the next
    /// `suspended`; the others are `call`s answered in place. With `pause_us`, the guest
    /// stops with a `pause` event after about that many microseconds of computation.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (source, filename, limits, hardened, allow_eval, console, capabilities, inputs, pause_us=None))]
    fn start(
        &mut self,
        source: String,
        filename: String,
        limits: crate::LimitArgs,
        hardened: bool,
        allow_eval: bool,
        console: bool,
        capabilities: Vec<(String, bool)>,
        inputs: Vec<(String, Bound<'_, PyAny>)>,
        pause_us: Option<u64>,
    ) -> PyResult<()> {
        if self.local.begun() {
            return Err(PyRuntimeError::new_err("the run has already started"));
        }
        let settings = crate::settings(limits, hardened, allow_eval, console);
        let start = crate::start(source, filename, settings, capabilities, inputs)?;
        let execution = Execution {
            begin: Begin::Start(Box::new(start)),
            pause: pause_us.map(Duration::from_micros),
            runtime,
            retire,
        };
        self.local
            .begin(execution)
            .map_err(|e| PyRuntimeError::new_err(format!("no stack for the guest: {e}")))
    }

    /// Runs the guest, with the GIL released, until its next event: `("call", call)`,
    /// `("console", level, line)`, `("suspended", [call, ...])`, `("pause",)`, then
    /// `("complete", value, refusal)` or `("failed", failure)`. Python's signal handlers
    /// run after each step (a Ctrl-C that stopped the guest raises KeyboardInterrupt
    /// here).
    fn next(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if !self.local.running() {
            return Err(PyRuntimeError::new_err("the run is over"));
        }
        let answer = std::mem::replace(&mut self.answer, Answer::Nothing);
        let carried = OnThisThread((&mut self.local, answer));
        let event = py.detach(move || {
            let (local, answer) = carried.take();
            OnThisThread(local.resume(answer))
        });
        let event = event.take();
        py.check_signals()?;
        match event {
            Some(event) => event_to_python(py, event),
            None => Ok(("pause",).into_pyobject(py)?.into_any().unbind()),
        }
    }

    /// Returns `value` from the call the guest waits in.
    fn reply_return(&mut self, value: Bound<'_, PyAny>) -> PyResult<()> {
        let value = values::to_host(&value).map_err(refused)?;
        self.answer = Answer::Reply(HostReply::Return(value));
        Ok(())
    }

    /// Throws an Error in the guest from the call it waits in.
    #[pyo3(signature = (name, message, code=None))]
    fn reply_throw(&mut self, name: String, message: String, code: Option<String>) {
        let error = crate::host_error(name, message, code);
        self.answer = Answer::Reply(HostReply::Throw(error));
    }

    /// Gives the guest a promise from the call it waits in; the call is outstanding
    /// until `answer_value` or `answer_error` settles it.
    fn reply_defer(&mut self) {
        self.answer = Answer::Reply(HostReply::Defer);
    }

    /// Settles the outstanding call `id` with `value` at the next `next` (the guest
    /// waits at a `suspended`); a refused value raises BoundaryRefusal and settles
    /// nothing.
    fn answer_value(&mut self, id: CallId, value: Bound<'_, PyAny>) -> PyResult<()> {
        let value = values::to_host(&value).map_err(refused)?;
        self.answer.settle(id, Ok(value));
        Ok(())
    }

    /// Rejects the outstanding call `id` with an Error at the next `next`.
    #[pyo3(signature = (id, name, message, code=None))]
    fn answer_error(&mut self, id: CallId, name: String, message: String, code: Option<String>) {
        let error = crate::host_error(name, message, code);
        self.answer.settle(id, Err(error));
    }

    /// What stops this run from any thread.
    fn canceller(&self) -> Canceller {
        Canceller {
            stop: self.local.stop().clone(),
        }
    }

    /// Stops the guest (the run fails with kind `Cancelled`).
    fn interrupt(&self) {
        self.local.stop().interrupt();
    }

    /// Ends the run: a guest still going is stopped and its runtime freed.
    fn close(&mut self, py: Python<'_>) {
        if self.local.running() {
            let carried = OnThisThread(&mut self.local);
            py.detach(move || carried.take().close());
        } else {
            self.local.close();
        }
    }
}
