//! `kiln.run` and `kiln.run_async` on the calling thread: the guest runs where the run
//! was called (for `run_async`, the event loop's thread), with the GIL released, and
//! nothing crosses to another thread (no wake-up of a Kiln thread and of the caller at
//! each host call, and values built, read and freed by one thread).
//!
//! The engine expects a deep native stack (Kiln's threads have 256 MiB; a Python thread
//! has what the process's stack limit gives, often 8 MiB), so the guest runs in a
//! coroutine on a stack of its own ([`kiln_bridge::coroutine`]), on this thread. A host call or a
//! console line suspends the coroutine: control comes back to the caller's own stack,
//! where the GIL is taken again and Python runs, and the answer resumes the guest.
//! Python code never runs on the guest's stack. When the guest can only wait for
//! asynchronous calls, the coroutine suspends with the calls made since it last did
//! (`CallReporting::New`); the answers the host has when it resumes the guest are given
//! together, in one step (`Runtime::resume_many`), so that a fan-out of n calls costs
//! as many steps as the host has turns, and no step copies the calls still waiting. A
//! run given
//! a pause interval (`run_async`'s) also suspends between stretches of computation
//! (`Runtime::set_pause_point`), so that the event loop gets a turn at least that often
//! while the guest computes; `kiln.run` has none and runs straight through.
//!
//! The runtime is made, used and dropped inside the coroutine, so it never leaves this
//! thread; the run object is `unsendable` (pyo3 refuses it to other threads), and a
//! [`Canceller`] stops it from any thread.

use crate::values;
use crate::{event_to_python, lock, refused};
use kiln::{
    CallId, CallReporting, ConsoleLevel, ErrorReport, HostError, HostReply, HostValue,
    InterruptHandle, Outcome, PendingCall, Runtime,
};
use kiln_bridge::Event;
use kiln_bridge::coroutine::{Guest as Coroutine, Step, Suspender};
use kiln_bridge::protocol::{Failure, Start};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the guest asks of the host when it suspends.
enum Request {
    /// a synchronous call, answered by a `Reply`
    Call(PendingCall),
    Console(ConsoleLevel, String),
    /// the guest waits for asynchronous calls: these are the ones made since the last
    /// suspension (none, when it waits for calls reported before); a `Settle` answers
    /// some of the outstanding calls
    Waiting(Vec<PendingCall>),
    /// the guest has computed for a pause interval: the host takes a turn, and any
    /// answer continues the computation
    Pause,
}

/// What the host gives back when it resumes the guest: the reply to a synchronous call,
/// the answers to outstanding asynchronous ones (in the order the host gave them), or
/// nothing (after a console line, or before the start).
enum Answer {
    Reply(HostReply),
    Settle(Vec<(CallId, Result<HostValue, HostError>)>),
    Nothing,
}

impl Answer {
    /// Add the answer to the outstanding call `id` to those the next step gives.
    fn settle(&mut self, id: CallId, result: Result<HostValue, HostError>) {
        match self {
            Answer::Settle(answers) => answers.push((id, result)),
            _ => *self = Answer::Settle(vec![(id, result)]),
        }
    }
}

type Guest = Coroutine<Answer, Request, Event>;

/// What a guest still going is resumed with when its run ends (after an interrupt): a
/// host call throws it, a wait for answers ends on it.
fn stop_answer() -> Answer {
    Answer::Reply(HostReply::Throw(HostError::new(
        "the execution was interrupted",
    )))
}

/// What a run and those who stop it share.
#[derive(Default)]
struct Stop {
    /// the runtime's interrupt handle, once it has a runtime
    handle: Mutex<Option<InterruptHandle>>,
    /// why the run was cancelled (`Cancelled`'s message), or None
    cancelled: Mutex<Option<String>>,
    /// asked to stop (also before the runtime exists)
    requested: std::sync::atomic::AtomicBool,
}

impl Stop {
    fn interrupt(&self) {
        self.requested
            .store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(handle) = &*lock(&self.handle) {
            handle.interrupt();
        }
    }

    fn cancel(&self, message: &str) {
        lock(&self.cancelled).get_or_insert_with(|| message.to_string());
        self.interrupt();
    }

    /// Give the stop the runtime's handle; a stop asked for earlier applies now.
    fn attach(&self, runtime: &Runtime) {
        let handle = runtime.interrupt_handle();
        *lock(&self.handle) = Some(handle.clone());
        if self.requested.load(std::sync::atomic::Ordering::SeqCst) {
            handle.interrupt();
        }
    }
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
    guest: Option<Guest>,
    /// what the next `next` resumes the guest with
    answer: Answer,
    stop: Arc<Stop>,
}

#[pymethods]
impl LocalRun {
    #[new]
    fn new() -> Self {
        LocalRun {
            guest: None,
            answer: Answer::Nothing,
            stop: Arc::default(),
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
        if self.guest.is_some() {
            return Err(PyRuntimeError::new_err("the run has already started"));
        }
        let mut values = Vec::with_capacity(inputs.len());
        for (name, value) in inputs {
            let value =
                values::to_host(&value).map_err(|r| refused(r.within(format!(".{name}"))))?;
            values.push((name, value));
        }
        let start = Start {
            source,
            filename,
            settings: crate::settings(limits, hardened, allow_eval, console),
            capabilities: Vec::new(),
            inputs: values,
        };
        let stop = self.stop.clone();
        let guest = Guest::new(stop_answer, move |suspender, _: Answer| {
            let pause = pause_us.map(Duration::from_micros);
            execute(&suspender, start, capabilities, pause, &stop)
        })
        .map_err(|e| PyRuntimeError::new_err(format!("no stack for the guest: {e}")))?;
        self.guest = Some(guest);
        Ok(())
    }

    /// Runs the guest, with the GIL released, until its next event: `("call", call)`,
    /// `("console", level, line)`, `("suspended", [call, ...])`, `("pause",)`, then
    /// `("complete", value, refusal)` or `("failed", failure)`. Python's signal handlers
    /// run after each step (a Ctrl-C that stopped the guest raises KeyboardInterrupt
    /// here).
    fn next(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let Some(guest) = self.guest.as_mut().filter(|g| !g.done()) else {
            return Err(PyRuntimeError::new_err("the run is over"));
        };
        let answer = std::mem::replace(&mut self.answer, Answer::Nothing);
        let carried = OnThisThread((guest, answer));
        let step = py.detach(move || {
            let (guest, answer) = carried.take();
            OnThisThread(guest.resume(answer))
        });
        let event = match step.take() {
            Step::Request(Request::Call(call)) => Some(Event::Call(call)),
            Step::Request(Request::Console(level, text)) => Some(Event::Console { level, text }),
            Step::Request(Request::Waiting(calls)) => Some(Event::Suspended { calls }),
            Step::Request(Request::Pause) => None,
            Step::Over(event) => {
                // (its stack is already left for the next run on this thread)
                self.guest = None;
                Some(event)
            }
        };
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
            stop: self.stop.clone(),
        }
    }

    /// Stops the guest (the run fails with kind `Cancelled`).
    fn interrupt(&self) {
        self.stop.interrupt();
    }

    /// Ends the run: a guest still going is stopped and its runtime freed.
    fn close(&mut self, py: Python<'_>) {
        if self.guest.as_ref().is_some_and(|g| !g.done()) {
            let carried = OnThisThread(&mut *self);
            py.detach(move || carried.take().finish());
        }
        self.guest.take_if(|g| g.done());
    }
}

impl LocalRun {
    /// Stops a started guest, lets it unwind to its end on its own stack, and leaves its
    /// stack for the next run on this thread.
    fn finish(&mut self) {
        self.stop.interrupt();
        if let Some(guest) = &mut self.guest {
            guest.finish();
        }
    }
}

impl Drop for LocalRun {
    fn drop(&mut self) {
        // (the guest, dropped after this, finishes the same way)
        self.stop.interrupt();
    }
}

/// The whole execution, on the guest's stack: make a runtime, run the source step by
/// step as the host answers (pausing every `pause` of computation, if given), and drop
/// the runtime before the coroutine ends.
///
/// The runtime calls its console, pause point and capabilities only while `start` or
/// `resume` runs here, on the guest's stack, where the suspender may suspend.
fn execute(
    suspender: &Suspender<Answer, Request>,
    start: Start,
    capabilities: Vec<(String, bool)>,
    pause: Option<Duration>,
    stop: &Stop,
) -> Event {
    let mut runtime = Runtime::new();
    // the guest's stack is `GUEST_STACK_BYTES`: sources compile on it, not on Kiln's
    // compiler thread
    runtime.set_large_stack(true);
    stop.attach(&runtime);
    if let Err(failure) = kiln_bridge::prepare(&mut runtime, &start) {
        return Event::Failed(failure);
    }
    // a suspension lists only the calls the host has not seen (a synchronous call that
    // the host deferred was seen as a `call`)
    runtime.set_call_reporting(CallReporting::New);
    if start.settings.console {
        let suspender = suspender.clone();
        runtime.set_console(move |level, text| {
            suspender.suspend(Request::Console(level, text.to_string()));
        });
    }
    if let Some(every) = pause {
        let suspender = suspender.clone();
        runtime.set_pause_point(every, move || {
            // whatever the host answers, the computation goes on (a host that stops the
            // run interrupts it first)
            let _ = suspender.suspend(Request::Pause);
        });
    }
    for (name, is_async) in &capabilities {
        if *is_async {
            runtime.register_async(name);
            continue;
        }
        let suspender = suspender.clone();
        runtime.register_deferrable(name, move |call| {
            match suspender.suspend(Request::Call(call.clone())) {
                Answer::Reply(reply) => reply,
                Answer::Settle(..) | Answer::Nothing => {
                    HostReply::Throw(HostError::new("the host did not answer"))
                }
            }
        });
    }
    let mut step = runtime.start(&start.source, &start.filename);
    let event = loop {
        match step {
            Ok(Outcome::Complete(value)) => break Event::Complete(value),
            // (a promise nothing outstanding can settle ends the run with kind Stalled)
            Ok(Outcome::Suspended(calls)) => {
                match suspender.suspend(Request::Waiting(calls)) {
                    Answer::Settle(answers) => step = runtime.resume_many(answers),
                    // only `finish` resumes a waiting guest without an answer
                    Answer::Reply(_) | Answer::Nothing => {
                        break Event::Failed(Failure::new("Cancelled", "the run was closed"));
                    }
                }
            }
            Err(report) => break failed(report, stop),
        }
    };
    drop(runtime);
    event
}

/// The failure a step ended with; a cancellation carries the canceller's message.
fn failed(report: ErrorReport, stop: &Stop) -> Event {
    let mut failure = Failure::from_report(report);
    if failure.kind == "Cancelled"
        && let Some(message) = lock(&stop.cancelled).clone()
    {
        failure = Failure::new("Cancelled", message);
    }
    Event::Failed(failure)
}
