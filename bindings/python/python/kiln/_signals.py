"""Ctrl-C for runs on the main thread.

``kiln.run`` runs the guest on the calling thread with the GIL released. Python runs
signal handlers only between bytecodes of the main thread, which is busy in the guest,
so a run there would not see Ctrl-C until the guest yields. While such runs go on, the
interpreter's signal wake-up fd (``signal.set_wakeup_fd``) is a pipe that a thread of
this module reads: a SIGINT stops the guests, and the run then raises what the SIGINT
handler raises (KeyboardInterrupt by default). Other signals' handlers run when the
run returns, as they would after any long call into native code. A wake-up fd set
before (asyncio's) is given back when the last run ends, and every byte read meanwhile
is passed on to it.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any, List, Optional


class _Watch:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: List[Any] = []
        self._previous = -1
        self._read: Optional[int] = None
        self._write = -1

    def _start(self) -> None:
        read, write = os.pipe()
        os.set_blocking(write, False)
        self._read, self._write = read, write
        threading.Thread(target=self._serve, name="kiln-signals", daemon=True).start()

    def _serve(self) -> None:
        assert self._read is not None
        while True:
            data = os.read(self._read, 64)
            with self._lock:
                runs = list(self._runs) if signal.SIGINT in data else []
                previous = self._previous
            for run in runs:
                run.interrupt()
            if previous != -1:
                try:
                    os.write(previous, data)
                except OSError:
                    pass

    def enter(self, canceller: Any) -> bool:
        """Watch for Ctrl-C while ``canceller``'s run goes on; False off the main thread."""
        if threading.current_thread() is not threading.main_thread():
            return False
        with self._lock:
            if self._read is None:
                self._start()
            if not self._runs:
                try:
                    previous = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
                except ValueError:  # the main thread of another interpreter
                    return False
                self._previous = previous if previous != self._write else -1
            self._runs.append(canceller)
        return True

    def leave(self, canceller: Any) -> None:
        with self._lock:
            self._runs.remove(canceller)
            if not self._runs:
                signal.set_wakeup_fd(self._previous)
                self._previous = -1


WATCH = _Watch()
