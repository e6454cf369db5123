"""isolation="process": the same API, with each guest in a kiln-worker process."""

import asyncio
import os
import signal
import threading
import time
from pathlib import Path

import pytest

import kiln

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds worker processes through /proc")

ISOLATION = "process"

# the idle workers a pool keeps (MAX_IDLE in crates/kiln_bridge/src/process.rs)
MAX_IDLE = 8


def workers():
    """The pids of this process's kiln-worker children."""
    pids = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()  # "pid (comm) state ppid ..."
        except FileNotFoundError:  # it has just gone
            continue
        comm = stat[stat.find("(") + 1 : stat.rfind(")")]
        ppid = int(stat[stat.rfind(")") + 1 :].split()[1])
        if ppid == os.getpid() and comm.startswith("kiln-worker"):
            pids.append(int(entry))
    return pids


def test_runs_with_host_functions_inputs_and_console_in_a_worker_process():
    lines = []

    async def a(x):
        return x * 10

    async def b(x):
        return x * 100

    out = asyncio.run(
        kiln.run_async(
            "console.log('hi', input.n); const [x, y] = await Promise.all([tools.a(1), tools.b(2)]); x + y + add(1, 2)",
            isolation=ISOLATION,
            inputs={"input": {"n": 1}},
            console=lambda level, line: lines.append(line),
            capabilities={"tools": {"a": a, "b": b}, "add": lambda x, y: x + y},
        )
    )
    assert out == 213
    assert lines == ["hi 1"]
    assert kiln.run("add(2, 3)", isolation=ISOLATION, capabilities={"add": lambda x, y: x + y}) == 5
    assert len(workers()) >= 1


def test_budgets_exceptions_and_cancellation_work_as_in_process():
    with pytest.raises(kiln.OutOfFuel):
        kiln.run("for (;;) {}", isolation=ISOLATION, limits=kiln.Limits(fuel=1000))
    with pytest.raises(kiln.GuestException) as thrown:
        kiln.run('\nthrow new RangeError("nope")', isolation=ISOLATION)
    e = thrown.value
    assert (e.kind, e.guest_name, e.guest_message, e.location.line) == ("Exception", "RangeError", "nope", 2)
    token = kiln.CancelToken()
    threading.Timer(0.1, token.cancel).start()
    with pytest.raises(kiln.Cancelled):
        kiln.run("while (true) {}", isolation=ISOLATION, cancel=token, limits=kiln.Limits(fuel=10**15, compute_ms=60_000))
    # the worker that ran the endless loop serves the next guest
    assert kiln.run("1 + 1", isolation=ISOLATION) == 2


def test_snapshots_move_between_the_two_isolations():
    p = kiln.start('const a = await tools.get("a"); const b = await tools.get(a); a + b', isolation=ISOLATION, capabilities=["tools.get"])
    p = p.resume(p.calls[0].id, "x")
    data = p.dump(key="k")
    q = kiln.load(data, key="k", capabilities=["tools.get"])
    assert q.resume(q.calls[0].id, "y").value == "xy"
    r = kiln.start('await tools.get("z")', capabilities=["tools.get"])
    in_process = r.dump()
    r = kiln.load(in_process, isolation=ISOLATION, capabilities=["tools.get"])
    assert r.resume(r.calls[0].id, "from a worker").value == "from a worker"


def test_a_worker_killed_mid_run_fails_that_run_with_kind_engine_and_the_next_run_works():
    ready = threading.Event()
    outcome = {}

    def guest():
        try:
            kiln.run(
                "tools.ready(); while (true) {}",
                isolation=ISOLATION,
                limits=kiln.Limits(fuel=10**15, compute_ms=60_000),
                capabilities={"tools": {"ready": ready.set}},
            )
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            outcome["error"] = e

    thread = threading.Thread(target=guest)
    thread.start()
    assert ready.wait(30)
    time.sleep(0.1)
    before = workers()
    assert before
    for pid in before:
        os.kill(pid, signal.SIGKILL)
    thread.join(30)
    error = outcome["error"]
    assert isinstance(error, kiln.EngineError), repr(error)
    assert error.kind == "Engine"
    assert "killed by signal 9" in str(error)
    # the idle workers were killed too, and may not have exited yet: the next run moves
    # to a fresh worker if the one it is given turns out dead
    assert kiln.run('"still here"', isolation=ISOLATION) == "still here"


def test_idle_workers_killed_just_before_runs_cost_those_runs_nothing():
    async def squares(ns):
        runs = [kiln.run_async("input.n * input.n", isolation=ISOLATION, inputs={"input": {"n": n}}) for n in ns]
        return await asyncio.gather(*runs)

    for _ in range(5):
        # several idle workers, all killed, then as many runs at once
        assert asyncio.run(squares([1, 2, 3])) == [1, 4, 9]
        idle = workers()
        assert idle
        for pid in idle:
            os.kill(pid, signal.SIGKILL)
        assert asyncio.run(squares([4, 5, 6])) == [16, 25, 36]
        # and one run on its own
        for pid in workers():
            os.kill(pid, signal.SIGKILL)
        assert kiln.run("6 * 7", isolation=ISOLATION) == 42


def test_runs_refused_at_their_inputs_take_no_worker():
    refused = {"input": {"f": lambda: 1}}
    ways = [
        lambda: kiln.run("input", isolation=ISOLATION, inputs=refused),
        lambda: asyncio.run(kiln.run_async("input", isolation=ISOLATION, inputs=refused)),
        lambda: kiln.start("input", isolation=ISOLATION, inputs=refused),
    ]
    for round in range(21):
        with pytest.raises(kiln.BoundaryError) as caught:
            ways[round % len(ways)]()
        assert str(caught.value) == "inputs: a function cannot cross to the guest (at $.input.f)"
        assert len(workers()) <= MAX_IDLE, f"round {round}"
    assert kiln.run("input.n * 14", isolation=ISOLATION, inputs={"input": {"n": 3}}) == 42
    assert len(workers()) <= MAX_IDLE


def test_without_the_worker_binary_the_installed_script_runs_the_worker(monkeypatch):
    # a wheel built from the sdist has no kiln-worker binary beside the module
    import kiln._options as options

    monkeypatch.setattr(options, "_WORKER", options._WORKER + "-missing")
    script = options.worker_of("process")
    assert os.path.basename(script) == "kiln-worker-python"
    before = set(workers())
    out = kiln.run(
        "tools.twice(input)",
        capabilities={"tools": {"twice": lambda x: x * 2}},
        inputs={"input": 21},
        isolation=ISOLATION,
    )
    assert out == 42

    async def later():
        return "later"

    assert asyncio.run(kiln.run_async("await tools.later()", capabilities={"tools": {"later": later}}, isolation=ISOLATION)) == "later"
    # the worker that served them is a Python process running the script
    started = [pid for pid in workers() if pid not in before]
    assert started
    for pid in started:
        assert script in Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
