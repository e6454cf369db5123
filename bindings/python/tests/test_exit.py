"""A process that used Kiln exits cleanly: no Kiln thread runs Python while the
interpreter finalises (CPython would end that thread inside Rust frames, an abort)."""

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).parent.parent / "examples" / "agent.py"

# a guest still sending events to an asyncio host as the interpreter exits: the task
# awaiting it is cancelled as asyncio.run ends
CANCELLED = """
import asyncio, kiln

async def main():
    asyncio.ensure_future(kiln.run_async(
        "for (let i = 0; ; i++) console.log(i)",
        console=lambda level, line: None,
        limits=kiln.Limits(fuel=10**12, compute_ms=60_000),
    ))
    await asyncio.sleep(0.05)
    print("leaving")

asyncio.run(main())
"""

# the same, with the loop on a daemon thread: nothing closes the session, and the
# guest runs on through the interpreter's exit
ABANDONED = """
import asyncio, threading, time, kiln

def background():
    asyncio.run(kiln.run_async(
        "for (let i = 0; ; i++) console.log(i)",
        console=lambda level, line: None,
        limits=kiln.Limits(fuel=10**12, compute_ms=60_000),
    ))

threading.Thread(target=background, daemon=True).start()
time.sleep(0.1)
print("leaving")
"""

# a synchronous run on a daemon thread, its guest still ending steps (console lines) as
# the interpreter exits; a finaliser that sleeps lets that thread ask for the GIL while
# the interpreter finalises (CPython then ends the thread where it asked)
DAEMON_RUN = """
import threading, time, kiln

def background():
    kiln.run(
        "for (let i = 0; ; i++) console.log(i)",
        console=lambda level, line: None,
        limits=kiln.Limits(fuel=10**12, compute_ms=60_000),
    )

class SlowToFinalise:
    def __del__(self):
        time.sleep(0.05)

kept_until_exit = SlowToFinalise()
threading.Thread(target=background, daemon=True).start()
time.sleep(0.1)
print("leaving")
"""


def run_python(*args, times):
    """Runs Python with `args` `times` times, several at once (a loaded machine is
    where a thread and the interpreter's exit race)."""
    processes = []
    for _ in range(times):
        processes.append(
            subprocess.Popen(
                [sys.executable, *args],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    outcomes = []
    for p in processes:
        stdout, stderr = p.communicate(timeout=120)
        outcomes.append((p.returncode, stdout, stderr))
    return outcomes


def test_the_agent_example_exits_zero_every_time():
    for returncode, stdout, stderr in run_python(str(EXAMPLE), times=24):
        assert (returncode, stderr) == (0, "")
        assert '"revenue": 24825' in stdout


def test_exiting_while_a_guest_still_sends_events_is_clean():
    for outcome in run_python("-c", CANCELLED, times=12):
        assert outcome == (0, "leaving\n", "")


def test_exiting_while_an_abandoned_guest_runs_is_clean():
    for outcome in run_python("-c", ABANDONED, times=12):
        assert outcome == (0, "leaving\n", "")


def test_exiting_while_a_daemon_thread_runs_a_guest_synchronously_is_clean():
    for outcome in run_python("-c", DAEMON_RUN, times=12):
        assert outcome == (0, "leaving\n", "")
