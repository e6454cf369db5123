"""Options of run, run_async, start and load: checked before anything runs."""

from __future__ import annotations

import inspect
import logging
import os
import shutil
import sys
import sysconfig
import threading
from dataclasses import dataclass, fields
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

from . import _native

#: the names of the budgets, in the order the native module takes them
LIMIT_NAMES = ("fuel", "heap_bytes", "call_depth", "compute_ms", "host_calls")

_MAX_LIMIT = 2**53


def _whole(name: str, value: Any) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"limits.{name} must be a whole number, not {type(value).__name__}")
    if not 0 <= value <= _MAX_LIMIT:
        raise ValueError(f"limits.{name} must be a whole number from 0 to 2^53, not {value}")
    return value


@dataclass(frozen=True)
class Limits:
    """Budgets for one execution; None keeps the default (see DEFAULT_LIMITS).

    Every budget is bounded by default. Exceeding one ends the run with the KilnError
    subclass of that name (HeapLimit for ``heap_bytes``); guest code cannot catch it.
    """

    #: about one unit per bytecode instruction; built-ins charge for their work
    fuel: Optional[int] = None
    #: bytes of the guest's heap
    heap_bytes: Optional[int] = None
    #: nested JavaScript calls
    call_depth: Optional[int] = None
    #: guest compute time in milliseconds (time waiting for the host is not counted)
    compute_ms: Optional[int] = None
    #: calls of host functions in one run
    host_calls: Optional[int] = None

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, _whole(f.name, getattr(self, f.name)))


#: the budgets a run gets when it names none (the same in every Kiln binding)
DEFAULT_LIMITS = Limits(**_native.DEFAULT_LIMITS)

LimitsLike = Union[Limits, Mapping[str, Optional[int]], None]


def limits_of(
    limits: LimitsLike,
) -> Tuple[Optional[int], Optional[int], Optional[int], Optional[int], Optional[int]]:
    """The budgets in the order of LIMIT_NAMES, None for the default."""
    if limits is None:
        given = Limits()
    elif isinstance(limits, Limits):
        given = limits
    elif isinstance(limits, Mapping):
        for name in limits:
            if name not in LIMIT_NAMES:
                raise TypeError(f"unknown limit {name} (the limits are {', '.join(LIMIT_NAMES)})")
        given = Limits(**limits)
    else:
        raise TypeError("limits must be a kiln.Limits or a dict of them")
    return (given.fuel, given.heap_bytes, given.call_depth, given.compute_ms, given.host_calls)


def check_source(source: Any) -> str:
    if not isinstance(source, str):
        raise TypeError("source must be a str")
    return source


def filename_of(filename: Optional[str], typescript: bool) -> str:
    if filename is not None:
        if not isinstance(filename, str) or filename == "":
            raise TypeError("filename must be a non-empty str")
        return filename
    return "agent.ts" if typescript else "agent.js"


def check_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or name == "" or "" in name.split("."):
        raise ValueError(
            f"{what} names must be non-empty strings (dots separate namespaces): {name!r}"
        )
    return name


HostFunction = Callable[..., Any]
Capabilities = Mapping[str, Union[HostFunction, "Capabilities"]]


def is_async(fn: Callable[..., Any]) -> bool:
    """A coroutine function (or an object whose ``__call__`` is one)."""
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(type(fn), "__call__", None)
    return call is not None and not inspect.isfunction(fn) and inspect.iscoroutinefunction(call)


def functions_of(capabilities: Optional[Capabilities]) -> Dict[str, HostFunction]:
    """``{"search": fn, "tools": {"fetch": fn}, "db.query": fn}`` by name: search,
    tools.fetch and db.query."""
    found: Dict[str, HostFunction] = {}

    def walk(mapping: Mapping[str, Any], prefix: str) -> None:
        for key, value in mapping.items():
            if not isinstance(key, str):
                raise TypeError(f"capability names must be str, not {type(key).__name__}")
            name = prefix + key
            if callable(value):
                found[check_name(name, "capability")] = value
            elif isinstance(value, Mapping):
                walk(value, f"{name}.")
            else:
                raise TypeError(f"capability {name} must be a function or a dict of them")

    if capabilities is not None:
        if not isinstance(capabilities, Mapping):
            raise TypeError("capabilities must be a dict of functions")
        walk(capabilities, "")
    return found


def names_of(capabilities: Any) -> List[str]:
    """The capability names of start and load."""
    if capabilities is None:
        return []
    if isinstance(capabilities, (str, bytes)) or not isinstance(capabilities, (list, tuple)):
        raise TypeError(
            "start() and load() take capability names (a list of str); "
            "the host answers each call with suspended.resume()"
        )
    return [check_name(name, "capability") for name in capabilities]


def inputs_of(inputs: Optional[Mapping[str, Any]]) -> List[Tuple[str, Any]]:
    if inputs is None:
        return []
    if not isinstance(inputs, Mapping):
        raise TypeError("inputs must be a dict of values")
    return [(check_name(name, "input"), value) for name, value in inputs.items()]


def key_of(key: Union[str, bytes, None]) -> Optional[bytes]:
    if key is None:
        return None
    if isinstance(key, str):
        return key.encode("utf-8")
    if isinstance(key, (bytes, bytearray, memoryview)):
        return bytes(key)
    raise TypeError("key must be a str or bytes")


_WORKER = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "kiln-worker.exe" if sys.platform == "win32" else "kiln-worker",
)


#: the script the package installs to run the worker through the native module
_WORKER_SCRIPT = "kiln-worker-python.exe" if sys.platform == "win32" else "kiln-worker-python"


def _worker_script() -> Optional[str]:
    """Where ``kiln-worker-python`` was installed: this environment's scripts, the
    user's (``pip install --user``), or the PATH."""
    for scheme in (None, f"{os.name}_user"):
        try:
            folder = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:
            continue
        candidate = os.path.join(folder, _WORKER_SCRIPT)
        if os.path.isfile(candidate):
            return candidate
    return shutil.which(_WORKER_SCRIPT)


def worker_of(isolation: str) -> Optional[str]:
    """The worker for isolation 'process': the kiln-worker binary in the wheel, else the
    kiln-worker-python script; None for 'thread'."""
    if isolation == "thread":
        return None
    if isolation == "process":
        if os.path.isfile(_WORKER):
            return _WORKER
        script = _worker_script()
        if script is None:
            raise RuntimeError(
                f"kiln: neither the worker binary {_WORKER} nor the {_WORKER_SCRIPT} script is "
                "installed, so isolation 'process' is unavailable"
            )
        return script
    raise ValueError(f"isolation must be 'thread' or 'process', not {isolation!r}")


ConsoleSink = Union[Callable[[str, str], Any], logging.Logger]

# the logging level of each console method
_LOGGING_LEVELS = {
    "log": logging.INFO,
    "info": logging.INFO,
    "debug": logging.DEBUG,
    "warn": logging.WARNING,
    "error": logging.ERROR,
}


def console_of(console: Optional[ConsoleSink]) -> Optional[Callable[[str, str], Any]]:
    """``console(level, line)``: a callable as given, or a Logger's methods."""
    if console is None:
        return None
    if isinstance(console, logging.Logger):
        logger = console
        return lambda level, line: logger.log(_LOGGING_LEVELS.get(level, logging.INFO), line)
    if callable(console):
        return console
    raise TypeError("console must be a callable (level, line) or a logging.Logger")


class CancelToken:
    """Cancels the runs it is given to, from any thread: ``token.cancel()`` stops a
    guest wherever it is, even in ``while (true) {}``, and the run raises
    :class:`kiln.Cancelled`. A token stays cancelled; a run given a cancelled token
    does not start.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._watchers: List[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            watchers, self._watchers = self._watchers, []
        for watcher in watchers:
            watcher()

    def _watch(self, watcher: Callable[[], None]) -> Callable[[], None]:
        """Call ``watcher`` on cancel (now, if already cancelled); returns what
        unregisters it."""
        with self._lock:
            if not self._cancelled:
                self._watchers.append(watcher)
                return lambda: self._unwatch(watcher)
        watcher()
        return lambda: None

    def _unwatch(self, watcher: Callable[[], None]) -> None:
        with self._lock:
            if watcher in self._watchers:
                self._watchers.remove(watcher)
