//! Guests on the host's own thread, on a stack of their own: what the in-process
//! sessions of the Node and Python packages share.
//!
//! The engine expects a deep native stack (Kiln's threads have
//! [`Runtime::LARGE_STACK`](kiln::Runtime::LARGE_STACK); a host's main thread has what
//! the process's stack limit gives, often 8 MiB), so an in-process guest runs in a
//! coroutine ([`corosensei`]) on a stack that deep, on the host's thread. The guest
//! suspends with a request (a host call, a console line, a pause...) through its
//! [`Suspender`]; control comes back to the host's stack, where the host's own code
//! runs, and [`Guest::resume`] gives the answer back. Host code never runs on the guest's
//! stack (V8, for one, checks its stack limit against the stack pointer).
//!
//! A finished guest leaves its stack to the next guest on the same thread (its touched
//! pages are already mapped); dropping a guest that is still going resumes it with the
//! stop answer it was made with until it ends, so that it unwinds on its own stack.
//!
//! ```
//! use kiln_bridge::coroutine::{Guest, Step};
//!
//! // the guest asks for two numbers and returns their sum
//! let mut guest = Guest::new(
//!     || 0,
//!     |suspender, _first: i32| suspender.suspend("a") + suspender.suspend("b"),
//! )
//! .unwrap();
//! assert!(matches!(guest.resume(0), Step::Request("a")));
//! assert!(matches!(guest.resume(2), Step::Request("b")));
//! assert!(matches!(guest.resume(3), Step::Over(5)));
//! ```
//!
//! # Invariants
//!
//! 1. A [`Suspender`]'s yielder pointer is non-null only while the guest's body runs
//!    (it is set when the body starts and cleared when it returns or unwinds), and the
//!    `Yielder` it points to lives on the guest's stack for as long as the body runs.
//! 2. [`CURRENT`] names the guest whose coroutine this thread is running at the moment:
//!    [`Guest::resume`] sets it for the duration of its `resume` and puts back the one
//!    before (guests may resume other guests).

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// The guest's stack, as deep as a Kiln worker thread's (what
/// `Runtime::set_large_stack` asks for); reserved, and touched only as deep as the guest
/// goes.
pub const GUEST_STACK_BYTES: usize = kiln::Runtime::LARGE_STACK;

thread_local! {
    /// A guest stack a finished guest left on this thread: the next guest takes it
    /// instead of mapping a new one.
    static SPARE_STACK: RefCell<Option<DefaultStack>> = const { RefCell::new(None) };
    /// The guest whose coroutine runs on this thread now (the address of its shared
    /// state), or 0: invariant 2.
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

/// Where a [`Guest::resume`] stopped.
#[derive(Debug)]
pub enum Step<Request, Output> {
    /// the guest suspended with this request; the next `resume` answers it
    Request(Request),
    /// the guest's body returned this; the guest is over
    Over(Output),
}

/// What a guest and its suspenders share.
struct Shared<Answer, Request> {
    /// the coroutine's yielder while the body runs, else null (invariant 1)
    yielder: Cell<*const Yielder<Answer, Request>>,
}

/// Suspends the guest it belongs to, from code the guest runs (a runtime's console,
/// capability or pause callback). Cheap to clone; clones may be kept in callbacks that
/// outlive the body, but only the guest's own code may call [`suspend`](Self::suspend).
pub struct Suspender<Answer, Request> {
    shared: Rc<Shared<Answer, Request>>,
}

impl<Answer, Request> Clone for Suspender<Answer, Request> {
    fn clone(&self) -> Self {
        Suspender {
            shared: self.shared.clone(),
        }
    }
}

impl<Answer, Request> Suspender<Answer, Request> {
    /// Suspends the guest with `request`; returns the answer the next
    /// [`Guest::resume`] gives.
    ///
    /// # Panics
    ///
    /// When not called from the guest's own code while it runs (from the host's stack,
    /// from another guest, or after the body returned).
    pub fn suspend(&self, request: Request) -> Answer {
        let yielder = self.shared.yielder.get();
        let running = CURRENT.with(Cell::get) == Rc::as_ptr(&self.shared) as usize;
        assert!(
            running && !yielder.is_null(),
            "a guest suspended from outside its own coroutine"
        );
        // SAFETY: the yielder is non-null, so the body runs and the yielder lives on the
        // guest's stack (invariant 1); this guest's coroutine is the one running on this
        // thread (invariant 2), so this code runs on that coroutine's stack, the only
        // place its yielder may suspend from.
        let yielder = unsafe { &*yielder };
        yielder.suspend(request)
    }
}

/// Clears the suspender's yielder when the body ends, also by unwinding (invariant 1).
struct ClearOnExit<'a, Answer, Request>(&'a Shared<Answer, Request>);

impl<Answer, Request> Drop for ClearOnExit<'_, Answer, Request> {
    fn drop(&mut self) {
        self.0.yielder.set(std::ptr::null());
    }
}

/// Puts back the guest that ran before, also by unwinding (invariant 2).
struct RestoreCurrent(usize);

impl Drop for RestoreCurrent {
    fn drop(&mut self) {
        CURRENT.with(|current| current.set(self.0));
    }
}

/// One guest: a body that runs on a deep stack of its own, on this thread, and suspends
/// with `Request`s that the host answers with `Answer`s, until it returns an `Output`.
pub struct Guest<Answer: 'static, Request: 'static, Output: 'static> {
    coroutine: Option<Coroutine<Answer, Request, Output, DefaultStack>>,
    shared: Rc<Shared<Answer, Request>>,
    /// the answer that a guest still going is resumed with when it is finished
    stop: fn() -> Answer,
}

impl<Answer: 'static, Request: 'static, Output: 'static> Guest<Answer, Request, Output> {
    /// A guest that runs `body` at its first [`resume`](Self::resume) (given that
    /// resume's answer), on the spare stack of a guest that finished on this thread or a
    /// new one of [`GUEST_STACK_BYTES`]. A guest still going when it is
    /// [`finish`](Self::finish)ed or dropped is resumed with `stop()` until it ends: its
    /// body must end on that answer (a host call's body throws it, say).
    pub fn new(
        stop: fn() -> Answer,
        body: impl FnOnce(Suspender<Answer, Request>, Answer) -> Output + 'static,
    ) -> std::io::Result<Self> {
        let stack = match SPARE_STACK.with(|spare| spare.borrow_mut().take()) {
            Some(stack) => stack,
            None => DefaultStack::new(GUEST_STACK_BYTES)?,
        };
        let shared = Rc::new(Shared {
            yielder: Cell::new(std::ptr::null()),
        });
        let suspender = Suspender {
            shared: shared.clone(),
        };
        let coroutine = Coroutine::with_stack(
            stack,
            move |yielder: &Yielder<Answer, Request>, first: Answer| {
                let shared = suspender.shared.clone();
                shared.yielder.set(yielder);
                let _clear = ClearOnExit(&shared);
                body(suspender, first)
            },
        );
        Ok(Guest {
            coroutine: Some(coroutine),
            shared,
            stop,
        })
    }

    /// Whether the body has begun.
    pub fn started(&self) -> bool {
        self.coroutine.as_ref().is_some_and(Coroutine::started)
    }

    /// Whether the body has returned.
    pub fn done(&self) -> bool {
        self.coroutine.as_ref().is_none_or(Coroutine::done)
    }

    /// Runs the guest with `answer` (the first argument of its body, at the first
    /// resume) until it suspends or returns. When it returns, its stack is left for the
    /// next guest on this thread.
    ///
    /// # Panics
    ///
    /// When the guest is [`done`](Self::done); a panic in the body goes on from here.
    pub fn resume(&mut self, answer: Answer) -> Step<Request, Output> {
        let coroutine = self
            .coroutine
            .as_mut()
            .filter(|c| !c.done())
            .expect("a guest resumed after it ended");
        let before = CURRENT.with(|current| current.replace(Rc::as_ptr(&self.shared) as usize));
        let _restore = RestoreCurrent(before);
        match coroutine.resume(answer) {
            CoroutineResult::Yield(request) => Step::Request(request),
            CoroutineResult::Return(output) => {
                self.recycle();
                Step::Over(output)
            }
        }
    }

    /// Stops a started guest: resumes it with the stop answer until its body returns,
    /// so that it unwinds on its own stack, and leaves its stack for the next guest.
    pub fn finish(&mut self) {
        while self.started() && !self.done() {
            let _ = self.resume((self.stop)());
        }
        self.recycle();
    }

    /// Leaves the stack of a finished guest for the next guest on this thread.
    fn recycle(&mut self) {
        if let Some(coroutine) = self.coroutine.take_if(|c| c.done()) {
            let stack = coroutine.into_stack();
            SPARE_STACK.with(|spare| *spare.borrow_mut() = Some(stack));
        }
    }
}

impl<Answer: 'static, Request: 'static, Output: 'static> Drop for Guest<Answer, Request, Output> {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    //! corosensei switches stacks with inline assembly, which Miri does not interpret,
    //! so these tests do not run under Miri.
    use super::*;

    #[cfg_attr(miri, ignore)]
    #[test]
    fn requests_and_answers_alternate_until_the_body_returns() {
        let mut guest = Guest::new(
            || 0,
            |suspender, first: i32| first + suspender.suspend('a') * suspender.suspend('b'),
        )
        .unwrap();
        assert!(!guest.started());
        assert!(matches!(guest.resume(1), Step::Request('a')));
        assert!(guest.started() && !guest.done());
        assert!(matches!(guest.resume(6), Step::Request('b')));
        assert!(matches!(guest.resume(7), Step::Over(43)));
        assert!(guest.done());
    }

    #[cfg_attr(miri, ignore)]
    #[test]
    fn dropping_a_guest_still_going_resumes_it_with_the_stop_answer() {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let log = seen.clone();
        let mut guest = Guest::new(
            || -1,
            move |suspender, _: i32| loop {
                let answer = suspender.suspend(());
                log.borrow_mut().push(answer);
                if answer < 0 {
                    return "stopped";
                }
            },
        )
        .unwrap();
        assert!(matches!(guest.resume(0), Step::Request(())));
        assert!(matches!(guest.resume(5), Step::Request(())));
        drop(guest);
        assert_eq!(*seen.borrow(), [5, -1]);
    }

    #[cfg_attr(miri, ignore)]
    #[test]
    fn a_finished_guest_leaves_its_stack_to_the_next() {
        let mut first: Guest<(), (), ()> = Guest::new(|| (), |_, ()| ()).unwrap();
        assert!(matches!(first.resume(()), Step::Over(())));
        assert!(SPARE_STACK.with(|spare| spare.borrow().is_some()));
        let second: Guest<(), (), ()> = Guest::new(|| (), |_, ()| ()).unwrap();
        assert!(SPARE_STACK.with(|spare| spare.borrow().is_none()));
        drop(second);
    }

    #[cfg_attr(miri, ignore)]
    #[test]
    fn guests_may_run_guests() {
        let mut outer = Guest::new(
            || 0,
            |suspender, _: i32| {
                let mut inner =
                    Guest::new(|| 0, |inner, _: i32| inner.suspend("inner") + 1).unwrap();
                let Step::Request("inner") = inner.resume(0) else {
                    panic!()
                };
                let from_host = suspender.suspend("outer");
                let Step::Over(sum) = inner.resume(from_host) else {
                    panic!()
                };
                sum
            },
        )
        .unwrap();
        assert!(matches!(outer.resume(0), Step::Request("outer")));
        assert!(matches!(outer.resume(41), Step::Over(42)));
    }

    #[cfg_attr(miri, ignore)]
    #[test]
    #[should_panic(expected = "outside its own coroutine")]
    fn suspending_from_the_host_panics() {
        let kept = Rc::new(RefCell::new(None));
        let keep = kept.clone();
        let mut guest = Guest::new(
            || (),
            move |suspender, ()| {
                *keep.borrow_mut() = Some(suspender.clone());
                suspender.suspend(());
            },
        )
        .unwrap();
        assert!(matches!(guest.resume(()), Step::Request(())));
        let suspender: Suspender<(), ()> = kept.borrow().clone().unwrap();
        suspender.suspend(());
    }
}
