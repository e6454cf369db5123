"""KilnError and its one subclass per kind of failure."""

from __future__ import annotations

from typing import Dict, NamedTuple, Optional, Tuple, Type

#: The stable kinds of failure, as the Node package names them.
KINDS: Tuple[str, ...] = (
    "Syntax",
    "Exception",
    "OutOfFuel",
    "HeapLimit",
    "CallDepth",
    "ComputeTime",
    "HostCalls",
    "Cancelled",
    "Boundary",
    "Snapshot",
    "Stalled",
    "Host",
    "Engine",
)


class Location(NamedTuple):
    """Where the guest was when it failed."""

    file: str
    line: int
    column: int
    source_line: str


class KilnError(Exception):
    """An execution that ended without a result, or a value or snapshot that was refused.

    ``kind`` is one of :data:`KINDS`; each kind has its own subclass
    (``except kiln.OutOfFuel``). ``str(error)`` is ``Name: message`` for guest
    exceptions and syntax errors, else what went wrong.
    """

    #: the kind of every instance of this class (``KilnError`` itself takes any)
    KIND = "Engine"

    kind: str
    guest_name: str
    guest_message: str
    guest_stack: str
    location: Optional[Location]

    def __init__(
        self,
        message: str,
        *,
        kind: Optional[str] = None,
        guest_name: Optional[str] = None,
        guest_message: Optional[str] = None,
        guest_stack: Optional[str] = None,
        location: Optional[Location] = None,
    ) -> None:
        super().__init__(message)
        #: one of KINDS
        self.kind = kind if kind is not None else self.KIND
        #: the guest exception's name (``TypeError``), or the kind
        self.guest_name = guest_name if guest_name is not None else self.kind
        #: the guest exception's message, or what went wrong
        self.guest_message = guest_message if guest_message is not None else message
        #: the guest's stack, with line:column of each frame
        self.guest_stack = guest_stack if guest_stack is not None else message
        #: where the guest threw
        self.location = location


class GuestSyntaxError(KilnError):
    """``Syntax``: the source does not compile."""

    KIND = "Syntax"


class GuestException(KilnError):
    """``Exception``: the guest threw and did not catch it."""

    KIND = "Exception"


class OutOfFuel(KilnError):
    """``OutOfFuel``: the fuel budget is spent."""

    KIND = "OutOfFuel"


class HeapLimit(KilnError):
    """``HeapLimit``: the heap budget is spent."""

    KIND = "HeapLimit"


class CallDepth(KilnError):
    """``CallDepth``: the guest nested calls deeper than its budget."""

    KIND = "CallDepth"


class ComputeTime(KilnError):
    """``ComputeTime``: the guest's compute time is spent."""

    KIND = "ComputeTime"


class HostCalls(KilnError):
    """``HostCalls``: the guest called the host more often than its budget."""

    KIND = "HostCalls"


class Cancelled(KilnError):
    """``Cancelled``: the run was cancelled (a CancelToken, or Ctrl-C)."""

    KIND = "Cancelled"


class BoundaryError(KilnError):
    """``Boundary``: a value could not cross; the message says what and where."""

    KIND = "Boundary"


class SnapshotError(KilnError):
    """``Snapshot``: snapshot bytes were refused (damaged, wrong key, other Kiln
    version, replayed)."""

    KIND = "Snapshot"


class Stalled(KilnError):
    """``Stalled``: the guest waits for a promise nothing can settle."""

    KIND = "Stalled"


class HostError(KilnError):
    """``Host``: the host drove the execution wrongly."""

    KIND = "Host"


class EngineError(KilnError):
    """``Engine``: Kiln itself failed, or a worker process died; the host is unharmed."""

    KIND = "Engine"


#: the class of each kind (every subclass of KilnError is one kind)
CLASSES: Dict[str, Type[KilnError]] = {cls.KIND: cls for cls in KilnError.__subclasses__()}

#: a failure as the native module reports it: (kind, name, message, stack, location)
Failure = Tuple[str, str, str, str, Optional[Tuple[str, int, int, str]]]


def from_failure(failure: Failure) -> KilnError:
    """The error for a failure the engine reported."""
    kind, name, message, stack, location = failure
    if kind in ("Exception", "Syntax"):
        summary = f"{name}: {message}" if message else name
    else:
        summary = message
    return CLASSES.get(kind, KilnError)(
        summary,
        kind=kind,
        guest_name=name,
        guest_message=message,
        guest_stack=stack or summary,
        location=Location(*location) if location is not None else None,
    )


def fail(kind: str, message: str) -> KilnError:
    """A failure that is not a guest exception."""
    return CLASSES[kind](message)
