"""The agent scripts of bench/agents, run from Python: Kiln's Python package against
PyPI's `quickjs` (QuickJS, C) and `mini-racer` (V8 with its JIT), with the same tools,
inputs and checks; and, as a cross-language reference, `pydantic-monty` (Monty, a
Python sandbox in Rust) on Python translations of a few of the scripts.

    node bench/agents/record.mjs                 # the scripts, tool answers and results
    python bench/agents/python/run.py [--lanes kiln,quickjs,mini-racer,monty] [--scripts a,b]
                                      [--samples 5] [--inner 5]

`record.mjs` writes build/bench/agents/recording.json: each script's source, inputs,
every answer its tools gave (JSON text keyed by tool name and arguments) and node's
result. Here a tool is an async Python function that looks its answer up and returns a
fresh `json.loads` of it, as a tool reading an HTTP API would.

How each lane runs one execution, in a fresh context (agent runs share nothing):

- kiln: `await kiln.run_async(source, capabilities=..., inputs=...)`; tools receive and
  return Python values, which the package converts.
- kiln-sync: `kiln.run(...)`, the guest on the calling thread, with synchronous tools
  (the same lookup and `json.loads`), as the quickjs lane calls its tools; its round
  trip is the one-call script run straight through, as on the peers.
- quickjs: `quickjs.Context()`; the script wrapped in a strict async function; one
  synchronous callable `__call(name, argsJson)` returns the answer's JSON text, and
  `tools.x` is an async JavaScript function that parses it; pending jobs are run until
  the promise settles; the result comes back as `JSON.stringify` text. PyPI `quickjs`
  has no async host functions, so a fan-out is not concurrent there (the tools here do
  not wait, so nothing is lost).
- mini-racer: `MiniRacer()`; the same wrapper over an async Python function given with
  `wrap_py_function`, the promise awaited on the running event loop.
- monty (a cross-language reference: Python code, not the same JavaScript): the script's
  hand translation in monty/NAME.py (only latency, fanout-4, fanout-20, orders-1k and
  paginate have one; the other scripts show "–"), run by `pydantic_monty.AsyncMonty`:
  one pool of one worker process, kept for the whole run, and a fresh session
  (`pool.checkout()`, fresh globals) per execution, `await session.feed_run(code,
  inputs=..., external_lookup=...)`. A tool `tools.getUser` is the async Python
  function `getUser` there, called with the same arguments and returning the same
  values; a fan-out is `asyncio.gather`, concurrent on the host as in the kiln lane.
  The translations round as the JavaScript does (`Math.round(x)` is
  `math.floor(x + 0.5)`) so that the results are node's, checked the same way.

Every result is compared with node's (`json.loads` of both, so property order and
1 vs 1.0 do not matter); a lane that fails or differs is reported, never timed.

The round trips: `start` -> suspended at one host call -> `resume` -> complete
(`kiln.start`), the same with the suspended execution dumped to bytes and loaded back
(`Suspended.dump`/`kiln.load`), and on the peers the same one-call script run to
completion, the nearest they offer; on monty `feed_start` -> `AsyncFunctionSnapshot` ->
`resume` -> `MontyComplete` in a fresh session, and the same with the snapshot dumped
and loaded into another fresh session (`snapshot.dump()`/`session.load_snapshot`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[3]
RECORDING = ROOT / "build" / "bench" / "agents" / "recording.json"

# Budgets far above what any script needs: the benchmark measures speed, not refusals.
KILN_LIMITS = dict(fuel=10**12, heap_bytes=2**31, call_depth=1000, compute_ms=120_000, host_calls=100_000)

ROUND_TRIP_SOURCE = "const r = await tools.echo(input.x);\nreturn r + 1;\n"
MONTY_ROUND_TRIP_SOURCE = 'r = echo(input["x"])\nr + 1\n'
MONTY_SCRIPTS = Path(__file__).resolve().parent / "monty"
ROUND_TRIP_KEY = b"kiln-bench-agents-snapshot-key-0"


def wrap(source: str) -> str:
    """An agent script as the body of a strict async function, for the peers (Kiln runs
    top-level await and return itself)."""
    return f'(async function () {{"use strict";\n{source}\n}})()'


def shim(tools: List[str]) -> str:
    """`tools.x(...)` for the peers: an async function that passes its arguments as JSON
    to the host's `__call` and parses the answer."""
    lines = []
    for name in tools:
        path = "globalThis"
        for part in name.split(".")[:-1]:
            path += f"[{json.dumps(part)}]"
            lines.append(f"{path} ??= {{}};")
        lines.append(
            f"{path}[{json.dumps(name.split('.')[-1])}] = async (...args) => JSON.parse(await __call({json.dumps(name)}, JSON.stringify(args)));"
        )
    return "\n".join(lines)


def globals_source(inputs: Dict[str, Any]) -> str:
    return "\n".join(f"globalThis[{json.dumps(k)}] = {json.dumps(v)};" for k, v in inputs.items())


class Script:
    def __init__(self, raw: Dict[str, Any]) -> None:
        self.name: str = raw["name"]
        self.source: str = raw["source"]
        self.tools: List[str] = raw["tools"]
        self.inputs: Dict[str, Any] = raw["inputs"]
        self.answers: Dict[str, str] = raw["answers"]
        self.expected = json.loads(raw["result"])
        self.wrapped = wrap(self.source)
        self.prelude = shim(self.tools) + "\n" + globals_source(self.inputs)

    def answer_text(self, name: str, args_json: str) -> str:
        key = f"{name} {args_json}"
        if key not in self.answers:
            raise KeyError(f"{self.name}: no recorded answer for {key[:120]}")
        return self.answers[key]

    def python_tools(self) -> Dict[str, Callable[..., Awaitable[Any]]]:
        def tool(name: str) -> Callable[..., Awaitable[Any]]:
            async def call(*args: Any) -> Any:
                return self.answer_value(name, args)

            return call

        return {name: tool(name) for name in self.tools}

    def python_sync_tools(self) -> Dict[str, Callable[..., Any]]:
        def tool(name: str) -> Callable[..., Any]:
            return lambda *args: self.answer_value(name, args)

        return {name: tool(name) for name in self.tools}

    def answer_value(self, name: str, args: Any) -> Any:
        return json.loads(self.answer_text(name, json.dumps(list(args), separators=(",", ":"), ensure_ascii=False)))


# Lanes: setup() -> version text; run(script) -> awaitable result value.


class KilnLane:
    name = "kiln"

    def __init__(self, isolation: str = "thread") -> None:
        import kiln

        self.kiln = kiln
        self.isolation = isolation
        if isolation != "thread":
            self.name = f"kiln-{isolation}"

    def version(self) -> str:
        from importlib.metadata import version

        return f"kiln-sandbox {version('kiln-sandbox')} (isolation: {self.isolation})"

    async def run(self, script: Script) -> Any:
        return await self.kiln.run_async(
            script.source,
            capabilities=script.python_tools(),
            inputs=script.inputs,
            limits=self.kiln.Limits(**KILN_LIMITS),
            isolation=self.isolation,
        )

    async def round_trip(self, x: int) -> Any:
        state = self.kiln.start(
            ROUND_TRIP_SOURCE, capabilities=["tools.echo"], inputs={"input": {"x": x}}, limits=self.kiln.Limits(**KILN_LIMITS)
        )
        call = state.calls[0]
        return state.resume(call.id, call.args[0]).value

    async def round_trip_snapshot(self, x: int) -> Any:
        state = self.kiln.start(
            ROUND_TRIP_SOURCE, capabilities=["tools.echo"], inputs={"input": {"x": x}}, limits=self.kiln.Limits(**KILN_LIMITS)
        )
        data = state.dump(key=ROUND_TRIP_KEY)
        state = self.kiln.load(data, key=ROUND_TRIP_KEY, capabilities=["tools.echo"], limits=self.kiln.Limits(**KILN_LIMITS))
        call = state.calls[0]
        return state.resume(call.id, call.args[0]).value


class KilnSyncLane:
    """`kiln.run` (synchronous, on the calling thread) with synchronous tools, as the
    quickjs lane calls its tools."""

    name = "kiln-sync"

    def __init__(self) -> None:
        import kiln

        self.kiln = kiln

    def version(self) -> str:
        from importlib.metadata import version

        return f"kiln-sandbox {version('kiln-sandbox')} (kiln.run)"

    async def run(self, script: Script) -> Any:
        return self.kiln.run(
            script.source, capabilities=script.python_sync_tools(), inputs=script.inputs, limits=self.kiln.Limits(**KILN_LIMITS)
        )

    async def round_trip(self, x: int) -> Any:
        # as on the peers: the one-call script run straight through
        return self.kiln.run(
            ROUND_TRIP_SOURCE, capabilities={"tools.echo": lambda v: v}, inputs={"input": {"x": x}}, limits=self.kiln.Limits(**KILN_LIMITS)
        )


class QuickJsLane:
    name = "quickjs"

    def __init__(self) -> None:
        import quickjs

        self.quickjs = quickjs

    def version(self) -> str:
        from importlib.metadata import version

        return f"quickjs {version('quickjs')} (PyPI)"

    def _run(self, prelude: str, wrapped: str, answer: Callable[[str, str], str]) -> Any:
        ctx = self.quickjs.Context()
        ctx.add_callable("__call", answer)
        ctx.eval(prelude)
        ctx.eval(
            f"globalThis.__result = undefined; ({wrapped}).then("
            "(v) => { __result = { ok: JSON.stringify(v) }; }, (e) => { __result = { error: String(e) }; });"
        )
        while ctx.execute_pending_job():
            pass
        outcome = json.loads(ctx.eval("JSON.stringify(__result)") or "null")
        if outcome is None:
            raise RuntimeError("the script's promise never settled")
        if "error" in outcome:
            raise RuntimeError(outcome["error"])
        return json.loads(outcome["ok"])

    async def run(self, script: Script) -> Any:
        return self._run(script.prelude, script.wrapped, script.answer_text)

    async def round_trip(self, x: int) -> Any:
        prelude = shim(["tools.echo"]) + "\n" + globals_source({"input": {"x": x}})
        return self._run(prelude, wrap(ROUND_TRIP_SOURCE), lambda name, args: json.dumps(json.loads(args)[0]))


class MiniRacerLane:
    name = "mini-racer"

    def __init__(self) -> None:
        import py_mini_racer

        self.MiniRacer = py_mini_racer.MiniRacer

    def version(self) -> str:
        from importlib.metadata import version

        return f"mini-racer {version('mini-racer')} (PyPI; V8 {self.MiniRacer().v8_version})"

    async def _run(self, prelude: str, wrapped: str, answer: Callable[[str, str], str]) -> Any:
        ctx = self.MiniRacer()
        try:

            async def call(name: str, args: str) -> str:
                return answer(name, args)

            async with ctx.wrap_py_function(call) as fn:
                ctx.eval("(f) => { globalThis.__call = f; }")(fn)
                ctx.eval(prelude)
                text = await ctx.eval(f"({wrapped}).then((v) => JSON.stringify(v))")
                return json.loads(text)
        finally:
            ctx.close()

    async def run(self, script: Script) -> Any:
        return await self._run(script.prelude, script.wrapped, script.answer_text)

    async def round_trip(self, x: int) -> Any:
        prelude = shim(["tools.echo"]) + "\n" + globals_source({"input": {"x": x}})
        return await self._run(prelude, wrap(ROUND_TRIP_SOURCE), lambda name, args: json.dumps(json.loads(args)[0]))


class MontyLane:
    """A cross-language reference: Monty runs a Python translation of the script
    (monty/NAME.py), not the JavaScript the other lanes run."""

    name = "monty"

    def __init__(self) -> None:
        import pydantic_monty

        self.monty = pydantic_monty
        self.pool: Any = None
        self.sources = {p.stem: p.read_text() for p in sorted(MONTY_SCRIPTS.glob("*.py"))}

    def version(self) -> str:
        from importlib.metadata import version

        return f"pydantic-monty {version('pydantic-monty')} (Python translations: a cross-language reference)"

    def supports(self, script: Script) -> bool:
        return script.name in self.sources

    async def _pool(self) -> Any:
        if self.pool is None:
            pool = self.monty.AsyncMonty(min_processes=1, max_processes=1)
            await pool.__aenter__()
            self.pool = pool
        return self.pool

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.__aexit__(None, None, None)
            self.pool = None

    async def run(self, script: Script) -> Any:
        tools = {name.split(".")[-1]: fn for name, fn in script.python_tools().items()}
        pool = await self._pool()
        async with pool.checkout() as session:
            return await session.feed_run(self.sources[script.name], inputs=script.inputs, external_lookup=tools)

    async def _start(self, session: Any, x: int) -> Any:
        state = await session.feed_start(MONTY_ROUND_TRIP_SOURCE, inputs={"input": {"x": x}})
        if not isinstance(state, self.monty.AsyncFunctionSnapshot) or state.function_name != "echo":
            raise RuntimeError(f"expected a call to echo, got {state!r}")
        return state

    async def _finish(self, state: Any) -> Any:
        done = await state.resume({"return_value": state.args[0]})
        if not isinstance(done, self.monty.MontyComplete):
            raise RuntimeError(f"expected completion, got {done!r}")
        return done.output

    async def round_trip(self, x: int) -> Any:
        pool = await self._pool()
        async with pool.checkout() as session:
            return await self._finish(await self._start(session, x))

    async def round_trip_snapshot(self, x: int) -> Any:
        pool = await self._pool()
        async with pool.checkout() as session:
            data = (await self._start(session, x)).dump()
        async with pool.checkout() as session:
            return await self._finish(await session.load_snapshot(data))


LANES: Dict[str, Callable[[], Any]] = {
    "kiln": lambda: KilnLane("thread"),
    "kiln-process": lambda: KilnLane("process"),
    "kiln-sync": KilnSyncLane,
    "quickjs": QuickJsLane,
    "mini-racer": MiniRacerLane,
    "monty": MontyLane,
}


def percentile(values: List[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(p * len(ordered)) - 1)]


async def timed(fn: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    value = await fn()
    return (time.perf_counter() - t0) * 1000, value


async def measure(
    lanes: List[Any], name: str, job: Callable[[Any], Optional[Callable[[], Awaitable[Any]]]], check: Callable[[Any], bool], args: argparse.Namespace
) -> Dict[str, Dict[str, Any]]:
    """Runs job on every lane: a warm-up, then `samples` rounds of `inner` executions,
    the lanes interleaved within each round. A lane whose execution fails or differs is
    marked and left out of later rounds."""
    out: Dict[str, Dict[str, Any]] = {}
    live = []
    for lane in lanes:
        fn = job(lane)
        if fn is None:
            continue
        try:
            for _ in range(args.warmup):
                _, value = await timed(fn)
                if not check(value):
                    raise RuntimeError(f"wrong result: {json.dumps(value)[:200]}")
            out[lane.name] = {"ms": []}
            live.append((lane, fn))
        except Exception as error:  # a peer that cannot run a script is reported, not dropped
            out[lane.name] = {"error": f"{type(error).__name__}: {str(error)[:160]}"}
    for _ in range(args.samples):
        for lane, fn in live:
            if "error" in out[lane.name]:
                continue
            for _ in range(args.inner):
                ms, value = await timed(fn)
                if not check(value):
                    out[lane.name] = {"error": "wrong result in a timed run"}
                    break
                out[lane.name]["ms"].append(ms)
    for lane_name, r in out.items():
        if "ms" in r:
            r["median"] = statistics.median(r["ms"])
            r["p95"] = percentile(r["ms"], 0.95)
        print(f"  {name:20} {lane_name:12} {format_cell(r)}", file=sys.stderr)
    return out


def format_cell(r: Dict[str, Any]) -> str:
    if "error" in r:
        return f"FAIL ({r['error']})"
    return f"{r['median']:.2f} / {r['p95']:.2f}"


def geomean(values: List[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def report(lane_names: List[str], rows: Dict[str, Dict[str, Dict[str, Any]]], versions: Dict[str, str], args: argparse.Namespace) -> str:
    lines = [
        f"Python {platform.python_version()}; {', '.join(versions[n] for n in lane_names)}; "
        f"{args.samples} rounds × {args.inner} executions after {args.warmup} warm-up, lanes interleaved; load average {os.getloadavg()[0]:.1f}.",
        "",
        "| script | " + " | ".join(lane_names) + " |",
        "|---|" + "---:|" * len(lane_names),
    ]
    for script, results in rows.items():
        cells = [format_cell(results[n]) if n in results else "–" for n in lane_names]
        lines.append(f"| {script} | " + " | ".join(cells) + " |")
    if "monty" in lane_names:
        lines.append("")
        lines.append(
            "monty is a cross-language reference: it runs Python translations of the scripts it has "
            "(bench/agents/python/monty/), not the JavaScript the other lanes run."
        )
    lines.append("")
    lines.append("Median / p95 ms per execution. Geometric mean of the medians, Kiln's time / the peer's, over the scripts both ran:")
    lines.append("")
    for kiln in [n for n in lane_names if n.startswith("kiln")]:
        for peer in lane_names:
            if peer.startswith("kiln"):
                continue
            ratios = [
                r[kiln]["median"] / r[peer]["median"]
                for r in rows.values()
                if "median" in r.get(kiln, {}) and "median" in r.get(peer, {})
            ]
            if ratios:
                lines.append(f"- {kiln} / {peer}: {geomean(ratios):.2f} over {len(ratios)}")
    return "\n".join(lines) + "\n"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lanes", default="kiln,quickjs,mini-racer,monty")
    parser.add_argument("--scripts", default="")
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--inner", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--recording", type=Path, default=RECORDING)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "bench" / "agents")
    args = parser.parse_args()

    if not args.recording.exists():
        sys.exit(f"{args.recording} is missing: run `node bench/agents/record.mjs` first")
    scripts = [Script(raw) for raw in json.loads(args.recording.read_text())["scripts"]]
    if args.scripts:
        wanted = set(args.scripts.split(","))
        scripts = [s for s in scripts if s.name in wanted]

    lanes = []
    versions: Dict[str, str] = {}
    for name in args.lanes.split(","):
        if name not in LANES:
            sys.exit(f"no lane {name} (lanes: {', '.join(LANES)})")
        lane = LANES[name]()
        lanes.append(lane)
        versions[lane.name] = lane.version()
    lane_names = [lane.name for lane in lanes]

    rows: Dict[str, Dict[str, Dict[str, Any]]] = {}
    for script in scripts:
        rows[script.name] = await measure(
            lanes,
            script.name,
            lambda lane, s=script: (lambda: lane.run(s)) if getattr(lane, "supports", lambda _: True)(s) else None,
            lambda v, s=script: v == s.expected,
            args,
        )
    x = 41
    rows["start → suspend → resume"] = await measure(
        lanes, "round trip", lambda lane: (lambda: lane.round_trip(x)), lambda v: v == x + 1, args
    )
    rows["… with dump and load"] = await measure(
        lanes,
        "round trip (snapshot)",
        lambda lane: (lambda: lane.round_trip_snapshot(x)) if hasattr(lane, "round_trip_snapshot") else None,
        lambda v: v == x + 1,
        args,
    )

    for lane in lanes:
        if hasattr(lane, "close"):
            await lane.close()

    text = report(lane_names, rows, versions, args)
    print(text)
    commit = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M")
    args.out.mkdir(parents=True, exist_ok=True)
    base = args.out / f"python-{stamp}-{commit}"
    base.with_suffix(".md").write_text(text)
    base.with_suffix(".json").write_text(json.dumps({"versions": versions, "rows": rows}, indent=1))
    print(f"{base}.md, {base}.json", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
