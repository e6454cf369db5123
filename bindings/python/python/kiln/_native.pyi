# Types of kiln._native, the Rust half of the package (bindings/python/src/lib.rs).
# Events are tuples whose first item names them:
#   ("call", call)                 a synchronous host call, waiting for reply_*
#   ("console", level, line)       level: "log" | "info" | "debug" | "warn" | "error"
#   ("suspended", [call, ...])     asynchronous calls made since the last suspension
#   ("complete", value, refusal)
#   ("failed", failure)
#   ("dumped", data) | ("dump_failed", failure)
# call: (id, capability, args, refusal), args None when refusal is not None
# refusal: (what, path) of a guest value Python cannot hold, or None
# failure: (kind, name, message, stack, (file, line, column, source_line) | None)

from typing import Any, Dict, List, Optional, Tuple

Limits = Tuple[Optional[int], Optional[int], Optional[int], Optional[int], Optional[int]]

DEFAULT_LIMITS: Dict[str, int]
MAX_DEPTH: int

class BoundaryRefusal(Exception):
    """args: (what, path) of a value that cannot cross to the guest."""

class Session:
    def __init__(self, worker: Optional[str] = None, wake: bool = False) -> None: ...
    def wake_fd(self) -> int: ...
    def start(
        self,
        source: str,
        filename: str,
        limits: Limits,
        hardened: bool,
        allow_eval: bool,
        console: bool,
        capabilities: List[Tuple[str, bool]],
        inputs: List[Tuple[str, Any]],
    ) -> None: ...
    def load(
        self,
        snapshot: bytes,
        key: Optional[bytes],
        limits: Limits,
        hardened: bool,
        allow_eval: bool,
        console: bool,
        capabilities: List[str],
    ) -> None: ...
    def reply_return(self, value: Any) -> None: ...
    def reply_throw(self, name: str, message: str, code: Optional[str] = None) -> None: ...
    def reply_defer(self) -> None: ...
    def answer_value(self, id: int, value: Any) -> None: ...
    def answer_error(self, id: int, name: str, message: str, code: Optional[str] = None) -> None: ...
    def dump(self, key: Optional[bytes] = None) -> None: ...
    def interrupt(self) -> None: ...
    def cancel(self, message: str) -> None: ...
    def close(self) -> None: ...
    def next(self, timeout: Optional[float] = None) -> Any: ...
    def poll(self) -> Any: ...

def snapshot_id(data: bytes, key: Optional[bytes] = None) -> str: ...
