"""kiln-sandbox: run untrusted and agent-written JavaScript and TypeScript in Kiln, with
host capabilities, budgets, cancellation and snapshots. See README.md."""

from ._errors import (
    KINDS,
    BoundaryError,
    CallDepth,
    Cancelled,
    ComputeTime,
    EngineError,
    GuestException,
    GuestSyntaxError,
    HeapLimit,
    HostCalls,
    HostError,
    KilnError,
    Location,
    OutOfFuel,
    SnapshotError,
    Stalled,
)
from ._options import DEFAULT_LIMITS, CancelToken, Limits
from ._sandbox import Call, Complete, SnapshotStore, Suspended, load, run, run_async, start

__all__ = [
    "KINDS",
    "DEFAULT_LIMITS",
    "BoundaryError",
    "Call",
    "CallDepth",
    "CancelToken",
    "Cancelled",
    "Complete",
    "ComputeTime",
    "EngineError",
    "GuestException",
    "GuestSyntaxError",
    "HeapLimit",
    "HostCalls",
    "HostError",
    "KilnError",
    "Limits",
    "Location",
    "OutOfFuel",
    "SnapshotError",
    "SnapshotStore",
    "Stalled",
    "Suspended",
    "load",
    "run",
    "run_async",
    "start",
]
