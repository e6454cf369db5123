"""run_async(): async host functions run concurrently on the event loop; the guest runs
on the loop's thread between them, a slice of computation at a time (or in a worker
process, off the loop)."""

import asyncio
import threading

import pytest

import kiln


def test_fan_out_runs_the_host_functions_concurrently():
    log = []

    async def slow(name):
        log.append(f"start {name}")
        await asyncio.sleep(0.1)
        log.append(f"end {name}")
        return name.upper()

    out = asyncio.run(
        kiln.run_async(
            "await Promise.all([tools.a('a'), tools.b('b'), tools.c('c')])",
            capabilities={"tools": {"a": slow, "b": slow, "c": slow}},
        )
    )
    assert out == ["A", "B", "C"]
    # every call started before the first one finished
    assert sorted(log[:3]) == ["start a", "start b", "start c"]
    assert len(log) == 6


def test_sync_functions_run_in_place_on_the_loop_thread_and_awaitables_become_promises():
    threads = []

    def add(a, b):
        threads.append(threading.get_ident())
        return a + b

    async def search(q):
        threads.append(threading.get_ident())
        return f"found {q}"

    def lookup(id):
        async def later():
            return {"id": id}

        return later()

    async def main():
        out = await kiln.run_async(
            """const sum = add(2, 3);
               const later = tools.search('kiln');
               [sum, typeof later.then, await later, await tools.lookup(1)]""",
            capabilities={"add": add, "tools": {"search": search, "lookup": lookup}},
        )
        return out, threading.get_ident()

    out, loop_thread = asyncio.run(main())
    assert out == [5, "function", "found kiln", {"id": 1}]
    assert threads == [loop_thread, loop_thread]


def test_an_async_host_function_that_raises_is_an_error_the_guest_can_catch():
    class Denied(Exception):
        def __init__(self, message):
            super().__init__(message)
            self.code = "EACCES"

    async def rejects():
        raise Denied("no access")

    out = asyncio.run(
        kiln.run_async(
            "try { await tools.rejects() } catch (e) { [e instanceof Error, e.name, e.message, e.code] }",
            capabilities={"tools": {"rejects": rejects}},
        )
    )
    assert out == [True, "Denied", "no access", "EACCES"]


def test_other_tasks_run_on_the_loop_while_the_guest_waits_for_the_host():
    async def main():
        gate = asyncio.Event()

        async def opener():
            gate.set()

        async def wait():
            await gate.wait()
            return "opened"

        # the run completes only if the loop runs the opener between the guest's steps
        opening = asyncio.ensure_future(opener())
        out = await kiln.run_async("await tools.wait()", capabilities={"tools": {"wait": wait}})
        await opening
        return out

    assert asyncio.run(main()) == "opened"


COMPUTES_FOREVER = kiln.Limits(fuel=10**15, compute_ms=10_000)


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_the_loop_runs_other_tasks_while_the_guest_computes_and_cancelling_the_task_stops_it(isolation):
    async def main():
        started = asyncio.Event()
        run = asyncio.ensure_future(
            kiln.run_async(
                "started(); while (true) {}",
                capabilities={"started": started.set},
                limits=COMPUTES_FOREVER,
                isolation=isolation,
            )
        )
        await started.wait()
        # from here the guest computes and never calls the host again: this task gets
        # its turns only if the loop runs beside the guest
        turns = 0
        for _ in range(20):
            await asyncio.sleep(0)
            turns += 1
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        return turns, await kiln.run_async("'the next run works'", isolation=isolation)

    assert asyncio.run(main()) == (20, "the next run works")


async def counting_turns(run):
    """What ``run`` returns (or the KilnError it raises), and how many turns another task
    had on the loop meanwhile."""
    turns = 0

    async def count():
        nonlocal turns
        while True:
            await asyncio.sleep(0)
            turns += 1

    counter = asyncio.ensure_future(count())
    try:
        return await run, turns
    except kiln.KilnError as e:
        return e, turns
    finally:
        counter.cancel()


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_the_loop_is_not_blocked_while_the_guest_computes(isolation):
    sums = kiln.run_async(
        "let n = 0; for (let i = 0; i < 1e7; i++) n += i; n", limits=kiln.Limits(compute_ms=60_000), isolation=isolation
    )
    out, turns = asyncio.run(counting_turns(sums))
    assert out == 49999995000000
    # the guest computes for hundreds of milliseconds, with a turn every 5 ms or so
    assert turns > 10


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_a_computing_guest_still_meets_its_compute_time_budget_while_the_loop_runs(isolation):
    spins = kiln.run_async("while (true) {}", limits=kiln.Limits(fuel=10**15, compute_ms=200), isolation=isolation)
    failure, turns = asyncio.run(counting_turns(spins))
    assert isinstance(failure, kiln.ComputeTime)
    assert turns > 0


def test_two_computing_guests_on_one_loop_take_turns():
    async def main():
        spinning = asyncio.ensure_future(kiln.run_async("while (true) {}", limits=COMPUTES_FOREVER))
        await asyncio.sleep(0)  # the spinning guest starts computing
        out = await kiln.run_async("let n = 0; for (let i = 0; i < 1e6; i++) n += i; n")
        still_spinning = not spinning.done()
        spinning.cancel()
        with pytest.raises(asyncio.CancelledError):
            await spinning
        return out, still_spinning

    assert asyncio.run(main()) == (499999500000, True)


def test_run_asyncs_guest_pauses_after_a_slice_of_computation_and_kiln_runs_does_not():
    from kiln import _native
    from kiln._options import limits_of

    def started(pause_us):
        local = _native.LocalRun()
        source = "let n = 0; for (let i = 0; i < 1e6; i++) n += i; n"
        local.start(source, "guest.js", limits_of(COMPUTES_FOREVER), False, False, False, [], [], pause_us)
        return local

    # without a pause interval, as kiln.run starts it, the guest runs straight through
    assert started(None).next() == ("complete", 499999500000, None)
    paused = started(100)
    assert paused.next() == ("pause",)
    events = [paused.next()]
    while events[-1] == ("pause",):
        events.append(paused.next())
    assert events[-1] == ("complete", 499999500000, None)


def test_a_guest_stopped_at_a_pause_ends_as_cancelled():
    from kiln import _native
    from kiln._options import limits_of

    local = _native.LocalRun()
    local.start("while (true) {}", "guest.js", limits_of(COMPUTES_FOREVER), False, False, False, [], [], 100)
    assert local.next() == ("pause",)
    local.interrupt()
    kind, failure = local.next()
    assert (kind, failure[0]) == ("failed", "Cancelled")
    with pytest.raises(RuntimeError, match="the run is over"):
        local.next()
    local.close()


def test_cancelling_the_task_stops_the_guest():
    async def main():
        started = asyncio.Event()
        stopped = []

        async def forever():
            started.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                stopped.append("forever")
                raise

        task = asyncio.ensure_future(
            kiln.run_async("await tools.forever()", capabilities={"tools": {"forever": forever}})
        )
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # the host function in flight is cancelled with the run
        await asyncio.sleep(0)
        assert stopped == ["forever"]
        return await kiln.run_async("'the next run works'")

    assert asyncio.run(main()) == "the next run works"


def test_a_cancel_token_stops_a_guest_computing_on_the_loop_thread_from_another_thread():
    token = kiln.CancelToken()

    async def main():
        threading.Timer(0.1, token.cancel).start()
        with pytest.raises(kiln.Cancelled) as caught:
            await kiln.run_async("while (true) {}", cancel=token, limits=kiln.Limits(fuel=10**15, compute_ms=60_000))
        assert str(caught.value) == "the run was cancelled"

    asyncio.run(main())


def test_ctrl_c_stops_a_guest_computing_on_the_main_thread_loop(ctrl_c_soon):
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(kiln.run_async("while (true) {}", limits=kiln.Limits(fuel=10**15, compute_ms=60_000)))
    assert asyncio.run(kiln.run_async("1 + 1")) == 2


def test_a_guest_waiting_for_a_promise_nothing_settles_is_stalled():
    async def main():
        with pytest.raises(kiln.Stalled):
            await kiln.run_async("await new Promise(() => {})")

    asyncio.run(main())
    with pytest.raises(kiln.Stalled):
        kiln.run("await new Promise(() => {})")


def test_answers_that_finish_out_of_order_settle_the_right_promises():
    async def main():
        gate = asyncio.Event()

        async def first():
            await gate.wait()
            return "first"

        async def second():
            gate.set()
            return "second"

        async def third():
            return "third"

        def deferred():
            return third()

        return await kiln.run_async(
            """const order = [];
               const track = (p) => p.then((v) => { order.push(v); return v; });
               const all = await Promise.all([track(tools.first()), track(tools.second()), track(tools.deferred())]);
               [all, order[order.length - 1]]""",
            capabilities={"tools": {"first": first, "second": second, "deferred": deferred}},
        )

    assert asyncio.run(main()) == [["first", "second", "third"], "first"]


def test_answers_ready_together_reach_the_guest_in_the_order_they_finished():
    # 200 calls whose host functions finish on the same turn of the loop: their
    # answers (values, exceptions, values that cannot cross) are given together, and
    # the reactions to them run in the order the functions finished (the call order
    # here); a second wave of calls, made from those reactions, is answered too
    async def get(i):
        if i % 3 == 0:
            raise LookupError(f"no {i}")
        if i % 5 == 0:
            return object()
        return i * 2

    async def twice(v):
        return v * 2

    source = """const order = [];
        const results = await Promise.all(Array.from({ length: 200 }, (_, i) =>
            tools.get(i).then(
                (v) => { order.push(i); return i % 7 === 0 ? tools.twice(v) : v; },
                (e) => { order.push(i); return e.name; })));
        const inOrder = order.every((v, k) => v === k);
        [inOrder, results.slice(0, 8), results.slice(14, 17), results.length]"""
    out = asyncio.run(kiln.run_async(source, capabilities={"tools": {"get": get, "twice": twice}}))
    assert out == [
        True,
        ["LookupError", 2, 4, "LookupError", 8, "TypeError", "LookupError", 28],
        [56, "LookupError", 32],
        200,
    ]


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_answers_ready_together_are_one_step_of_the_guest(isolation):
    # the first reaction queues more work: with both answers settled in one step, both
    # reactions run before it ("a b a+1"); one step per answer would give "a a+1 b"
    async def a():
        return 1

    async def b():
        return 2

    source = """const log = [];
        const a = tools.a().then(() => { log.push('a'); Promise.resolve().then(() => log.push('a+1')); });
        const b = tools.b().then(() => log.push('b'));
        await Promise.all([a, b]);
        log.join(' ')"""
    run = kiln.run_async(source, capabilities={"tools": {"a": a, "b": b}}, isolation=isolation)
    assert asyncio.run(run) == "a b a+1"


def test_a_cancel_token_stops_a_guest_waiting_for_a_host_function():
    token = kiln.CancelToken()

    async def never():
        token.cancel()
        await asyncio.sleep(3600)

    async def main():
        with pytest.raises(kiln.Cancelled):
            await kiln.run_async("await tools.never()", cancel=token, capabilities={"tools": {"never": never}})

    asyncio.run(main())


def test_a_timeout_with_wait_for_cancels_the_run():
    async def forever():
        await asyncio.sleep(3600)

    async def main():
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(
                kiln.run_async("await tools.forever()", capabilities={"tools": {"forever": forever}}), 0.1
            )
        for isolation in ["thread", "process"]:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(
                    kiln.run_async("while (true) {}", limits=COMPUTES_FOREVER, isolation=isolation), 0.1
                )

    asyncio.run(main())


def test_console_and_budgets_in_async_runs():
    lines = []

    async def noop():
        return None

    async def main():
        with pytest.raises(kiln.HostCalls):
            await kiln.run_async(
                "console.log('go'); for (let i = 0; i < 10; i++) await tools.noop()",
                limits=kiln.Limits(host_calls=3),
                capabilities={"tools": {"noop": noop}},
                console=lambda level, line: lines.append((level, line)),
            )

    asyncio.run(main())
    assert lines == [("log", "go")]
