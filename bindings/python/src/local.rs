//! `kiln.run` on the calling thread: the guest runs where `run` was called, with the GIL
//! released, and nothing crosses to another thread (no wake-up of a Kiln thread and of
//! the caller at each host call, and values built, read and freed by one thread).
//!
//! The engine expects a deep native stack (Kiln's threads have 256 MiB; a Python thread
//! has what the process's stack limit gives, often 8 MiB), so the guest runs in a
//! coroutine on a stack of its own (`corosensei`), on this thread. A host call or a
//! console line suspends the coroutine: control comes back to the caller's own stack,
//! where the GIL is taken again and Python runs, and the answer resumes the guest.
//! Python code never runs on the guest's stack.
//!
//! The runtime is made, used and dropped inside the coroutine, so it never leaves this
//! thread; the run object is `unsendable` (pyo3 refuses it to other threads), and a
//! [`Canceller`] stops it from any thread.

use crate::values;
use crate::{event_to_python, lock, refused};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use kiln::{ConsoleLevel, HostError, HostReply, InterruptHandle, Outcome, PendingCall, Runtime};
use kiln_bridge::Event;
use kiln_bridge::protocol::{Failure, Start};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// The guest's stack, as deep as a Kiln worker thread's; reserved, and touched only as
/// deep as the guest goes.
const GUEST_STACK_BYTES: usize = 256 << 20;

thread_local! {
    /// A guest stack a finished run left on this thread: the next run takes it instead
    /// of mapping a new one (and its touched pages are already there).
    static SPARE_STACK: RefCell<Option<DefaultStack>> = const { RefCell::new(None) };
}

/// What the guest asks of the host when it suspends.
enum Request {
    Call(PendingCall),
    Console(ConsoleLevel, String),
}

/// What the host gives back when it resumes the guest: the reply to a call, or nothing
/// (after a console line, or before the start).
enum Answer {
    Reply(HostReply),
    Nothing,
}

type Guest = Coroutine<Answer, Request, Event, DefaultStack>;

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

/// One execution of `kiln.run` on this thread: `start` it, then take its events with
/// `next` as from a `Session`, answering each `call` with `reply_return` or
/// `reply_throw` before the next `next`.
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
    /// BoundaryRefusal (path from `$.name`). Capabilities are all called in place.
    #[allow(clippy::too_many_arguments)]
    fn start(
        &mut self,
        source: String,
        filename: String,
        limits: crate::LimitArgs,
        hardened: bool,
        allow_eval: bool,
        console: bool,
        capabilities: Vec<String>,
        inputs: Vec<(String, Bound<'_, PyAny>)>,
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
        let stack = match SPARE_STACK.with(|spare| spare.borrow_mut().take()) {
            Some(stack) => stack,
            None => DefaultStack::new(GUEST_STACK_BYTES)
                .map_err(|e| PyRuntimeError::new_err(format!("no stack for the guest: {e}")))?,
        };
        self.guest = Some(Coroutine::with_stack(
            stack,
            move |yielder: &Yielder<Answer, Request>, _: Answer| {
                execute(yielder, start, capabilities, &stop)
            },
        ));
        Ok(())
    }

    /// Runs the guest, with the GIL released, until its next event: `("call", call)`,
    /// `("console", level, line)`, then `("complete", value, refusal)` or
    /// `("failed", failure)`. Python's signal handlers run after each step (a Ctrl-C
    /// that stopped the guest raises KeyboardInterrupt here).
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
            CoroutineResult::Yield(Request::Call(call)) => Event::Call(call),
            CoroutineResult::Yield(Request::Console(level, text)) => Event::Console { level, text },
            CoroutineResult::Return(event) => {
                self.recycle();
                event
            }
        };
        py.check_signals()?;
        event_to_python(py, event)
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
        self.recycle();
    }
}

impl LocalRun {
    /// Stops a started guest and lets it unwind to its end on its own stack.
    fn finish(&mut self) {
        self.stop.interrupt();
        while let Some(guest) = self.guest.as_mut().filter(|g| g.started() && !g.done()) {
            let reply = HostReply::Throw(HostError::new("the execution was interrupted"));
            let _ = guest.resume(Answer::Reply(reply));
        }
    }

    /// Keeps the stack of a finished guest for the next run on this thread.
    fn recycle(&mut self) {
        let Some(guest) = self.guest.take_if(|g| g.done()) else {
            return;
        };
        let stack = guest.into_stack();
        SPARE_STACK.with(|spare| *spare.borrow_mut() = Some(stack));
    }
}

impl Drop for LocalRun {
    fn drop(&mut self) {
        self.finish();
        self.recycle();
    }
}

/// The whole execution, on the guest's stack: make a runtime, run the source, and drop
/// the runtime before the coroutine ends.
fn execute(
    yielder: &Yielder<Answer, Request>,
    start: Start,
    capabilities: Vec<String>,
    stop: &Stop,
) -> Event {
    let mut runtime = Runtime::new();
    stop.attach(&runtime);
    if let Err(failure) = kiln_bridge::prepare(&mut runtime, &start) {
        return Event::Failed(failure);
    }
    let yielder: *const Yielder<Answer, Request> = yielder;
    if start.settings.console {
        runtime.set_console(move |level, text| {
            // SAFETY: the runtime calls its console only while `runtime.start` runs
            // below, inside this coroutine, whose yielder lives until it returns; the
            // runtime is dropped before that.
            let yielder = unsafe { &*yielder };
            yielder.suspend(Request::Console(level, text.to_string()));
        });
    }
    for name in &capabilities {
        runtime.register_deferrable(name, move |call| {
            // SAFETY: as for the console above.
            let yielder = unsafe { &*yielder };
            match yielder.suspend(Request::Call(call.clone())) {
                Answer::Reply(reply) => reply,
                Answer::Nothing => HostReply::Throw(HostError::new("the host did not answer")),
            }
        });
    }
    let step = runtime.start(&start.source, &start.filename);
    let event = match step {
        Ok(Outcome::Complete(value)) => Event::Complete(value),
        // every capability answers in place, so only a deferred call could leave the
        // guest waiting, and `run` defers none
        Ok(Outcome::Suspended(_)) => Event::Failed(Failure::new(
            "Stalled",
            "the guest waits for a host call that run() cannot answer",
        )),
        Err(report) => {
            let mut failure = Failure::from_report(report);
            if failure.kind == "Cancelled"
                && let Some(message) = lock(&stop.cancelled).clone()
            {
                failure = Failure::new("Cancelled", message);
            }
            Event::Failed(failure)
        }
    };
    drop(runtime);
    event
}
