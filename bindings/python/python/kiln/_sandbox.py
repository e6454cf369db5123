"""The public API: run, run_async, start/load with Suspended and Complete, over native
sessions.

A session is one execution on a Kiln worker thread (or in a worker process). Commands
go to it through the native module; its events come back as tuples (see
``_native.pyi``). Each step of an execution ends with one resting event (suspended,
complete, failed, dumped); a step may also produce console lines and synchronous host
calls, which are answered here as they arrive.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections import deque
from typing import (
    Any,
    Awaitable,
    Callable,
    Deque,
    Dict,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Protocol,
    Set,
    Tuple,
    Union,
)

from . import _native
from ._errors import Cancelled, KilnError, fail, from_failure
from ._signals import WATCH
from ._options import (
    Capabilities,
    CancelToken,
    ConsoleSink,
    HostFunction,
    LimitsLike,
    check_source,
    console_of,
    filename_of,
    functions_of,
    inputs_of,
    is_async,
    key_of,
    limits_of,
    names_of,
    worker_of,
)

Event = Tuple[Any, ...]
Writer = Optional[Callable[[str, str], Any]]


def _refusal(refusal: Tuple[str, str], where: str) -> KilnError:
    what, path = refusal
    return fail("Boundary", f"{where}: {what} cannot cross to the guest (at {path})")


def _host_error(error: object) -> Tuple[str, str, Optional[str]]:
    """What the guest sees of an exception a host function raised: (name, message, code)."""
    if isinstance(error, BaseException):
        code = getattr(error, "code", None)
        return type(error).__name__, str(error), code if isinstance(code, str) else None
    return "Error", str(error), None


def _crossing_error(capability: str, refusal: Tuple[str, ...]) -> Tuple[str, str, None]:
    what, path = refusal[0], refusal[1]
    message = f"{capability} returned {what}, which cannot cross to the guest (at {path})"
    return "TypeError", message, None


def _arguments_error(capability: str, refusal: Tuple[str, str]) -> Tuple[str, str, None]:
    what, path = refusal
    return "TypeError", f"{capability}: {what} cannot cross to the host (at {path})", None


def _complete_value(event: Event) -> Any:
    _, value, refusal = event
    if refusal is not None:
        what, path = refusal
        raise fail("Boundary", f"{what} cannot cross to the host (at {path})")
    return value


def _open(isolation: str, wake: bool = False) -> _native.Session:
    worker = worker_of(isolation)
    try:
        return _native.Session(worker, wake)
    except RuntimeError as e:
        raise fail("Engine", str(e)) from None


def _start(
    session: _native.Session,
    source: str,
    filename: str,
    limits: LimitsLike,
    hardened: bool,
    allow_eval: bool,
    console: bool,
    capabilities: List[Tuple[str, bool]],
    inputs: Optional[Mapping[str, Any]],
) -> None:
    try:
        session.start(
            source,
            filename,
            limits_of(limits),
            hardened is True,
            allow_eval is True,
            console,
            capabilities,
            inputs_of(inputs),
        )
    except _native.BoundaryRefusal as e:
        raise _refusal(e.args, "inputs") from None


# ---- run ------------------------------------------------------------------------------


def run(
    source: str,
    *,
    capabilities: Optional[Capabilities] = None,
    inputs: Optional[Mapping[str, Any]] = None,
    limits: LimitsLike = None,
    cancel: Optional[CancelToken] = None,
    console: Optional[ConsoleSink] = None,
    hardened: bool = False,
    allow_eval: bool = False,
    isolation: str = "thread",
    filename: Optional[str] = None,
    typescript: bool = False,
) -> Any:
    """Run ``source`` as an agent script (top-level await; the result is what it
    returns or its last expression) with host functions, inputs and limits, and return
    the result. Host functions are called in place, on this thread; the GIL is released
    while the guest runs. Coroutine functions need :func:`run_async`.
    """
    check_source(source)
    functions = functions_of(capabilities)
    for name, fn in functions.items():
        if is_async(fn):
            raise TypeError(
                f"capability {name} is a coroutine function: run it with `await kiln.run_async(...)`"
            )
    write = console_of(console)
    filename = filename_of(filename, typescript)
    if cancel is not None and cancel.cancelled:
        raise fail("Cancelled", "the run was cancelled before it started")
    if isolation == "thread":
        return _run_here(_Run(source, functions, inputs, limits, cancel, write, hardened, allow_eval, filename))
    session = _open(isolation)
    unwatch: Callable[[], None] = lambda: None
    try:
        _start(
            session,
            source,
            filename,
            limits,
            hardened,
            allow_eval,
            write is not None,
            [(name, False) for name in functions],
            inputs,
        )
        if cancel is not None:
            unwatch = cancel._watch(lambda: session.cancel("the run was cancelled"))
        return _serve_run(session, functions, write)
    finally:
        unwatch()
        # interrupting an ended session does nothing
        session.interrupt()
        session.close()


def _serve_run(session: Union[_native.Session, _native.LocalRun], functions: Dict[str, HostFunction], write: Writer) -> Any:
    """Take a run's events until it ends, calling host functions in place and writing
    console lines; its result, or its failure raised."""
    while True:
        event = session.next()
        kind = event[0]
        if kind == "call":
            _call_in_place(session, functions, event[1])
        elif kind == "console":
            if write is not None:
                write(event[1], event[2])
        elif kind == "complete":
            return _complete_value(event)
        elif kind == "failed":
            raise from_failure(event[1])
        # nothing is asynchronous here: a suspension has no calls to answer


class _Run(NamedTuple):
    """A run's options, checked."""

    source: str
    functions: Dict[str, HostFunction]
    inputs: Optional[Mapping[str, Any]]
    limits: LimitsLike
    cancel: Optional[CancelToken]
    write: Writer
    hardened: bool
    allow_eval: bool
    filename: str


# How long a guest computes on the event loop's thread (run_async, isolation 'thread')
# before the loop gets a turn, in microseconds: the loop's other tasks wait about this
# long at most. It is the interpreter's default switch interval (sys.getswitchinterval),
# as long as another Python thread may keep the GIL from the loop: when such a thread is
# busy, each pause waits up to that long for the GIL, and a guest that only computes
# runs at about 40 % of its speed (with 2 ms slices, 25 %). On a quiet loop a pause
# costs the guest about 8 microseconds (two switches of stacks, the GIL, a turn of the
# loop): 0.2 %.
_SLICE_US = 5_000


def _start_here(run: _Run, asynchronous: bool) -> _native.LocalRun:
    """A run on this thread, started (the guest runs at its first ``next``); with
    ``asynchronous``, coroutine functions are asynchronous capabilities and the guest
    pauses after each slice of computation (``kiln.run`` never pauses)."""
    local = _native.LocalRun()
    try:
        local.start(
            run.source,
            run.filename,
            limits_of(run.limits),
            run.hardened is True,
            run.allow_eval is True,
            run.write is not None,
            [(name, asynchronous and is_async(fn)) for name, fn in run.functions.items()],
            inputs_of(run.inputs),
            _SLICE_US if asynchronous else None,
        )
    except _native.BoundaryRefusal as e:
        raise _refusal(e.args, "inputs") from None
    return local


def _run_here(run: _Run) -> Any:
    """``run`` with isolation 'thread': the guest runs on this thread (with the GIL
    released), and host functions are called between its steps."""
    local = _start_here(run, asynchronous=False)
    canceller = local.canceller()
    unwatch: Callable[[], None] = lambda: None
    watched = False
    try:
        if run.cancel is not None:
            unwatch = run.cancel._watch(lambda: canceller.cancel("the run was cancelled"))
        watched = WATCH.enter(canceller)
        return _serve_run(local, run.functions, run.write)
    finally:
        unwatch()
        if watched:
            WATCH.leave(canceller)
        local.close()


Defer = Callable[[int, str, Awaitable[Any]], None]


def _call_in_place(
    session: Union[_native.Session, _native.LocalRun],
    functions: Dict[str, HostFunction],
    call: Event,
    defer: Optional[Defer] = None,
) -> None:
    """Answer a synchronous host call: in place, or for ``run_async`` (which gives
    ``defer``) with a promise when the function returns an awaitable."""
    call_id, capability, args, refusal = call
    if refusal is not None:
        session.reply_throw(*_arguments_error(capability, refusal))
        return
    try:
        result = functions[capability](*args)
    except Exception as e:
        session.reply_throw(*_host_error(e))
        return
    if inspect.isawaitable(result):
        if defer is not None:
            session.reply_defer()
            defer(call_id, capability, result)
            return
        if inspect.iscoroutine(result):
            result.close()
        session.reply_throw(
            "TypeError",
            f"{capability} returned an awaitable, which kiln.run() cannot wait for; use kiln.run_async()",
        )
        return
    try:
        session.reply_return(result)
    except _native.BoundaryRefusal as e:
        session.reply_throw(*_crossing_error(capability, e.args))


# ---- run_async --------------------------------------------------------------------------


async def run_async(
    source: str,
    *,
    capabilities: Optional[Capabilities] = None,
    inputs: Optional[Mapping[str, Any]] = None,
    limits: LimitsLike = None,
    cancel: Optional[CancelToken] = None,
    console: Optional[ConsoleSink] = None,
    hardened: bool = False,
    allow_eval: bool = False,
    isolation: str = "thread",
    filename: Optional[str] = None,
    typescript: bool = False,
) -> Any:
    """:func:`run` for asyncio. Coroutine functions are asynchronous capabilities: the
    guest gets a promise, and when it fans out (``await Promise.all([...])``) they run
    concurrently on this event loop. Other functions are called in place, on the loop's
    thread; one that returns an awaitable gives the guest a promise too. Cancelling the
    awaiting task stops the guest.

    With isolation 'thread', the guest runs on the loop's thread with the GIL released,
    in steps: a step lasts until the guest calls the host, writes a console line or
    waits, or has computed for 5 ms, and the loop gets a turn between steps, so other
    tasks wait at most about 5 ms for it. A task cancellation (``asyncio.wait_for``)
    stops the guest at the end of the step, and a :class:`CancelToken` or Ctrl-C stops
    a step at once. With isolation 'process', the guest runs in a worker process.
    """
    check_source(source)
    functions = functions_of(capabilities)
    write = console_of(console)
    filename = filename_of(filename, typescript)
    if cancel is not None and cancel.cancelled:
        raise fail("Cancelled", "the run was cancelled before it started")
    run = _Run(source, functions, inputs, limits, cancel, write, hardened, allow_eval, filename)
    if isolation == "thread":
        return await _run_async_here(run)
    return await _run_async_session(run, isolation)


def _call_async(loop: asyncio.AbstractEventLoop, functions: Dict[str, HostFunction], call: Event, defer: Defer) -> None:
    """Start an asynchronous host call the guest made (its answer comes when what
    ``defer`` is given finishes)."""
    call_id, capability, args, refusal = call
    try:
        if refusal is not None:
            raise TypeError(_arguments_error(capability, refusal)[1])
        result = functions[capability](*args)
    except Exception as e:  # an answer like any other, given when the loop next runs
        future: asyncio.Future[Any] = loop.create_future()
        future.set_exception(e)
        result = future
    if not inspect.isawaitable(result):
        done: asyncio.Future[Any] = loop.create_future()
        done.set_result(result)
        result = done
    defer(call_id, capability, result)


def _answer(session: Union[_native.Session, _native.LocalRun], call_id: int, capability: str, task: "asyncio.Future[Any]") -> None:
    """Settle the outstanding call ``call_id`` with what its host function's task ended with."""
    if task.cancelled():
        session.answer_error(call_id, "CancelledError", f"{capability} was cancelled")
        return
    error = task.exception()
    if error is not None:
        session.answer_error(call_id, *_host_error(error))
        return
    try:
        session.answer_value(call_id, task.result())
    except _native.BoundaryRefusal as e:
        session.answer_error(call_id, *_crossing_error(capability, e.args))


class _InFlight:
    """The host functions of a run on the loop's thread that are still running, and
    those that finished and wait to answer the guest, in the order they finished."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.tasks: Dict[int, "asyncio.Future[Any]"] = {}
        self.finished: Deque[Tuple[int, str, "asyncio.Future[Any]"]] = deque()
        self.cancelled: Optional[str] = None
        self._wake: Optional["asyncio.Future[None]"] = None

    def add(self, call_id: int, capability: str, awaitable: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(awaitable)
        self.tasks[call_id] = task
        task.add_done_callback(lambda task: self._finish(call_id, capability, task))

    def _finish(self, call_id: int, capability: str, task: "asyncio.Future[Any]") -> None:
        if self.tasks.pop(call_id, None) is not None:
            self.finished.append((call_id, capability, task))
            self._poke()

    def _poke(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def cancel_soon(self, message: str) -> None:
        """End the wait for host functions with Cancelled (from any thread)."""

        def cancel() -> None:
            self.cancelled = message
            self._poke()

        try:
            self.loop.call_soon_threadsafe(cancel)
        except RuntimeError:  # the loop is closed, and the run with it
            pass

    async def ready(self) -> List[Tuple[int, str, "asyncio.Future[Any]"]]:
        """Every host function that has finished, in the order they finished, waiting
        for one."""
        while True:
            if self.cancelled is not None:
                raise fail("Cancelled", self.cancelled)
            if self.finished:
                ready = list(self.finished)
                self.finished.clear()
                return ready
            self._wake = self.loop.create_future()
            await self._wake

    def close(self) -> None:
        tasks = list(self.tasks.values())
        self.tasks.clear()
        for task in tasks:
            task.cancel()


async def _run_async_here(run: _Run) -> Any:
    """``run_async`` with isolation 'thread': the guest's steps run on the loop's thread
    (with the GIL released); host functions run on the loop between them, and the ones
    that have finished when the guest waits answer it together, in one step. A guest
    that computes pauses after each slice, and the loop takes a turn before it goes on."""
    loop = asyncio.get_running_loop()
    functions, write = run.functions, run.write
    local = _start_here(run, asynchronous=True)
    canceller = local.canceller()
    in_flight = _InFlight(loop)
    unwatch: Callable[[], None] = lambda: None
    watched = False

    def cancelled() -> None:
        canceller.cancel("the run was cancelled")
        in_flight.cancel_soon("the run was cancelled")

    try:
        if run.cancel is not None:
            unwatch = run.cancel._watch(cancelled)
        watched = WATCH.enter(canceller)
        event = local.next()
        while True:
            kind = event[0]
            if kind == "call":
                _call_in_place(local, functions, event[1], in_flight.add)
                # the loop gets a turn after each host call and console line
                await asyncio.sleep(0)
            elif kind == "pause":
                # the guest has computed for a slice; a cancellation of this task
                # raised here ends the run (``local.close`` stops the guest)
                await asyncio.sleep(0)
            elif kind == "console":
                if write is not None:
                    write(event[1], event[2])
                await asyncio.sleep(0)
            elif kind == "suspended":
                for call in event[1]:
                    _call_async(loop, functions, call, in_flight.add)
                for finished in await in_flight.ready():
                    _answer(local, *finished)
            elif kind == "complete":
                return _complete_value(event)
            else:
                failure = from_failure(event[1])
                if isinstance(failure, Cancelled):
                    # the task's own cancellation, if it is pending (Ctrl-C under
                    # asyncio.run cancels the main task), is what the caller sees
                    await asyncio.sleep(0)
                raise failure
            event = local.next()
    finally:
        unwatch()
        if watched:
            WATCH.leave(canceller)
        in_flight.close()
        local.close()


async def _run_async_session(run: _Run, isolation: str) -> Any:
    """``run_async`` in a worker process: the loop takes the session's events when its
    wake socket becomes readable, and is never blocked by the guest."""
    loop = asyncio.get_running_loop()
    functions, write = run.functions, run.write
    done: asyncio.Future[Any] = loop.create_future()
    # host functions in flight, by call id; calls already answered or in flight (the
    # worker reports a deferred call again at the next suspension)
    tasks: Dict[int, asyncio.Future[Any]] = {}
    answered: Set[int] = set()
    # the answers of host functions that finish in one turn of the loop go to the
    # guest together, as one step, when the turn's callbacks have run
    sending = False

    def settle(outcome: Callable[[], Any]) -> None:
        if not done.done():
            try:
                done.set_result(outcome())
            except BaseException as e:  # noqa: BLE001 - the run's failure, whatever it is
                done.set_exception(e)

    def answer_later(call_id: int, capability: str, awaitable: Awaitable[Any]) -> None:
        answered.add(call_id)
        task = asyncio.ensure_future(awaitable)
        tasks[call_id] = task

        def finished(task: asyncio.Future[Any]) -> None:
            nonlocal sending
            tasks.pop(call_id, None)
            if not done.done():
                _answer(session, call_id, capability, task)
                if not sending:
                    sending = True
                    loop.call_soon(send_answers)

        task.add_done_callback(finished)

    def send_answers() -> None:
        nonlocal sending
        sending = False
        if not done.done():
            session.send_answers()

    def handle(event: Event) -> None:
        kind = event[0]
        if kind == "call":
            _call_in_place(session, functions, event[1], answer_later)
        elif kind == "console":
            if write is not None:
                write(event[1], event[2])
        elif kind == "suspended":
            for call in event[1]:
                if call[0] not in answered:
                    _call_async(loop, functions, call, answer_later)
        elif kind == "complete":
            settle(lambda: _complete_value(event))
        elif kind == "failed":
            failure = from_failure(event[1])
            settle(lambda: _raise(failure))

    def drain() -> None:
        try:
            while not done.done():
                event = session.poll()
                if event is None:
                    return
                handle(event)
        except BaseException as e:  # noqa: BLE001 - a host function or console sink failed the run
            if not done.done():
                done.set_exception(e)

    session = _open(isolation, wake=True)
    wake_fd = session.wake_fd()
    loop.add_reader(wake_fd, drain)
    unwatch: Callable[[], None] = lambda: None
    try:
        _start(
            session,
            run.source,
            run.filename,
            run.limits,
            run.hardened,
            run.allow_eval,
            write is not None,
            [(name, is_async(fn)) for name, fn in functions.items()],
            run.inputs,
        )
        if run.cancel is not None:
            unwatch = run.cancel._watch(lambda: session.cancel("the run was cancelled"))
        return await done
    finally:
        unwatch()
        loop.remove_reader(wake_fd)
        # the guest may still run (a cancelled task, a console sink that raised);
        # interrupting an ended session does nothing
        session.interrupt()
        session.close()
        for task in list(tasks.values()):
            task.cancel()


def _raise(error: BaseException) -> Any:
    raise error


# ---- start, load, Suspended, Complete ------------------------------------------------


class Call(NamedTuple):
    """An outstanding call of a capability, to answer with ``resume``."""

    id: int
    capability: str
    args: List[Any]


class Complete:
    """An execution that finished with ``value``."""

    status = "complete"

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Complete(value={self.value!r})"


class SnapshotStore(Protocol):
    """Snapshot ids already loaded: a ``set``, or your database."""

    def __contains__(self, id: object) -> bool: ...

    def add(self, id: str) -> Any: ...


class _LoadedSnapshots:
    """Snapshot ids already loaded in this process: each snapshot resumes once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: Set[str] = set()

    def claim(self, id: str) -> bool:
        with self._lock:
            if id in self._ids:
                return False
            self._ids.add(id)
            return True


_LOADED = _LoadedSnapshots()


class _Driver:
    """One session driven by hand: each step waits for its resting event."""

    def __init__(self, session: _native.Session, write: Writer) -> None:
        self.session = session
        self.write = write
        self.closed = False

    def rest(self) -> Event:
        """The step's resting event, console lines written on the way."""
        while True:
            try:
                event: Event = self.session.next()
            except BaseException:
                self.close(interrupt=True)
                raise
            kind = event[0]
            if kind == "console":
                if self.write is not None:
                    self.write(event[1], event[2])
            elif kind == "call":
                # start and load make every capability asynchronous; nothing waits here
                self.session.reply_defer()
            else:
                if kind in ("complete", "failed"):
                    self.close()
                return event

    def step(self, known: List[Call]) -> Union["Suspended", Complete]:
        """Wait for the step to rest; the next state, with the calls still outstanding.

        Calls whose arguments cannot be Python objects are answered with a TypeError
        in the guest at once, as ``run`` does.
        """
        refused: List[Event] = []
        event = self.rest()
        while True:
            if event[0] == "complete":
                return Complete(_complete_value(event))
            if event[0] == "failed":
                raise from_failure(event[1])
            for c in event[1]:
                if c[3] is None:
                    known = known + [Call(c[0], c[1], c[2])]
                else:
                    refused.append(c)
            if not refused:
                return Suspended(self, known)
            # each answer is a step of its own
            call_id, capability, _, refusal = refused.pop(0)
            self.session.answer_error(call_id, *_arguments_error(capability, refusal))
            self.session.send_answers()
            event = self.rest()

    def close(self, interrupt: bool = False) -> None:
        if self.closed:
            return
        self.closed = True
        if interrupt:
            self.session.interrupt()
        self.session.close()


class Suspended:
    """An execution waiting for the host to answer its ``calls``.

    Each ``resume`` (or ``resume_error``) returns the next state, ``Suspended`` or
    ``Complete``; the state you resumed is spent.
    """

    status = "suspended"

    def __init__(self, driver: _Driver, calls: List[Call]) -> None:
        self._driver = driver
        self._spent = False
        #: every outstanding call
        self.calls: List[Call] = calls

    def __repr__(self) -> str:
        return f"Suspended(calls={self.calls!r})"

    def _take(self, what: str) -> None:
        if self._spent:
            raise RuntimeError(
                f"cannot {what}: this state was already resumed or cancelled; "
                "use the state its resume() returned"
            )

    def _call(self, id: int) -> Call:
        for call in self.calls:
            if call.id == id:
                return call
        raise ValueError(f"no outstanding call has the id {id}")

    def _continue(self, answered: int) -> Union["Suspended", Complete]:
        self._spent = True
        known = [c for c in self.calls if c.id != answered]
        return self._driver.step(known)

    def resume(self, id: int, value: Any) -> Union["Suspended", Complete]:
        """Answer the outstanding call ``id`` with ``value`` and continue."""
        self._take("resume")
        call = self._call(id)
        try:
            self._driver.session.answer_value(id, value)
        except _native.BoundaryRefusal as e:
            raise _refusal(e.args, f"the answer to {call.capability}") from None
        self._driver.session.send_answers()
        return self._continue(id)

    def resume_error(self, id: int, error: object) -> Union["Suspended", Complete]:
        """Answer the outstanding call ``id`` with an Error the guest can catch (the
        exception's class name, ``str(error)`` and a str ``code`` attribute), and continue."""
        self._take("resume")
        self._call(id)
        self._driver.session.answer_error(id, *_host_error(error))
        self._driver.session.send_answers()
        return self._continue(id)

    def cancel(self) -> None:
        """End the execution and free its runtime."""
        self._spent = True
        self._driver.close()

    def dump(self, *, key: Union[str, bytes, None] = None) -> bytes:
        """The suspended execution as bytes, to continue later (also in another process)
        with :func:`load`; authenticated with HMAC-SHA-256 when a ``key`` is given."""
        self._take("dump")
        self._driver.session.dump(key_of(key))
        event = self._driver.rest()
        if event[0] == "dumped":
            data: bytes = event[1]
            return data
        raise from_failure(event[1])


def start(
    source: str,
    *,
    capabilities: Optional[List[str]] = None,
    inputs: Optional[Mapping[str, Any]] = None,
    limits: LimitsLike = None,
    console: Optional[ConsoleSink] = None,
    hardened: bool = False,
    allow_eval: bool = False,
    isolation: str = "thread",
    filename: Optional[str] = None,
    typescript: bool = False,
) -> Union[Suspended, Complete]:
    """Start ``source`` as an agent script whose capabilities (names) the host answers
    by hand; returns the first state. Every call suspends the execution until you
    answer it with ``resume``."""
    check_source(source)
    names = names_of(capabilities)
    write = console_of(console)
    filename = filename_of(filename, typescript)
    session = _open(isolation)
    driver = _Driver(session, write)
    try:
        _start(
            session,
            source,
            filename,
            limits,
            hardened,
            allow_eval,
            write is not None,
            [(name, True) for name in names],
            inputs,
        )
    except BaseException:
        driver.close()
        raise
    return driver.step([])


def load(
    data: bytes,
    *,
    key: Union[str, bytes, None] = None,
    capabilities: Optional[List[str]] = None,
    limits: LimitsLike = None,
    console: Optional[ConsoleSink] = None,
    hardened: bool = False,
    allow_eval: bool = False,
    isolation: str = "thread",
    snapshots: Optional[SnapshotStore] = None,
) -> Suspended:
    """Continue an execution from the bytes ``Suspended.dump`` wrote, in this process or
    another. A snapshot resumes once: loading it again is refused with
    :class:`kiln.SnapshotError`. Loaded snapshot ids are kept in this process, or in
    ``snapshots`` (anything with ``__contains__`` and ``add``) to share them."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("a snapshot is bytes")
    data = bytes(data)
    raw_key = key_of(key)
    names = names_of(capabilities)
    write = console_of(console)
    limit_values = limits_of(limits)
    worker_of(isolation)  # wrong options are refused before the snapshot is claimed
    try:
        snapshot_id = _native.snapshot_id(data, raw_key)
    except ValueError as e:
        raise fail("Snapshot", str(e)) from None
    replayed = f"the snapshot {snapshot_id} was already resumed; a snapshot resumes once"
    if snapshots is None:
        if not _LOADED.claim(snapshot_id):
            raise fail("Snapshot", replayed)
    else:
        if snapshot_id in snapshots:
            raise fail("Snapshot", replayed)
        snapshots.add(snapshot_id)
    session = _open(isolation)
    driver = _Driver(session, write)
    session.load(
        data, raw_key, limit_values, hardened is True, allow_eval is True, write is not None, names
    )
    state = driver.step([])
    assert isinstance(state, Suspended), "a snapshot holds a suspended execution"
    return state
