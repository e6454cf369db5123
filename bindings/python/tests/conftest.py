"""Fixtures the test files share."""

import os
import signal
import threading

import pytest


@pytest.fixture
def ctrl_c_soon():
    """A SIGINT to this process 0.2 s into the test, as Ctrl-C sends; afterwards the
    interpreter's signal wake-up fd must be the one it had before."""
    assert threading.current_thread() is threading.main_thread()
    before = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(before)
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        yield
    finally:
        timer.join()
    assert signal.set_wakeup_fd(before) == before
