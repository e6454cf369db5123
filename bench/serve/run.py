#!/usr/bin/env python3
"""HTTP handler benchmark: kiln serve against Node http, Bun.serve and Deno.serve.

Throughput: each server pinned to core 0 (taskset), wrk -t1 -c50 pinned to core 1; for each
handler (trivial, realistic), three interleaved rounds (every server once per round) of a
warm-up then a 10 s measurement; every response's status and body checked by check.lua.
Reported: median req/s, p50 and p99 latency over the rounds.

Cold start (as zigttp measures it): spawn -> first complete 200 response, 20 runs after 3
warm-ups, min/p50/p95 and the RSS after the first response; Kiln from source and from .kbc.

    python3 bench/serve/run.py [--duration 10] [--rounds 3] [--json out.json] [--kiln PATH]

The raw rounds, the load average beside each and the cold starts go to --json (by default
bench/serve/results/YYYYMMDD-HHMM-COMMIT.json).

Needs: a release kiln (target/release/kiln, or target/x86_64-unknown-linux-gnu/release/kiln
when cargo builds for that target), wrk (apt-get install wrk), node, and the npm packages
@oven/bun-linux-x64 and deno under build/peers/serve (bench/serve/install.sh).
"""

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HANDLERS = os.path.join(HERE, "handlers")
KILN = next(
    (path for path in [os.path.join(ROOT, "target", "release", "kiln"), os.path.join(ROOT, "target", "x86_64-unknown-linux-gnu", "release", "kiln")] if os.path.exists(path)),
    os.path.join(ROOT, "target", "release", "kiln"),
)
PEERS = os.path.join(ROOT, "build", "peers", "serve", "node_modules")
BUN = os.path.join(PEERS, "@oven", "bun-linux-x64", "bin", "bun")
DENO = os.path.join(PEERS, "@deno", "linux-x64-glibc", "deno")
PORT = 18480
# another kiln binary measured beside KILN as the server "kiln-base" (--baseline)
BASELINE = None

ORDER = os.path.join(HERE, "order.json")


def expected_body(handler, cache={}):
    """The exact response body, as Node computes it from the same handler logic."""
    if handler == "trivial":
        return '{"ok":true}'
    if handler not in cache:
        script = (
            "import { readFileSync } from 'node:fs';"
            f"const {{ summarize }} = await import({json.dumps(os.path.join(HANDLERS, 'realistic.js'))});"
            f"process.stdout.write(JSON.stringify(summarize(JSON.parse(readFileSync({json.dumps(ORDER)}, 'utf8')))));"
        )
        cache[handler] = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True).stdout
    return cache[handler]


def commands(handler, kbc):
    js = os.path.join(HANDLERS, f"{handler}.js")
    return {
        "kiln": [KILN, "serve", js, "--port", str(PORT), "--workers", "1", "--quiet"],
        "kiln .kbc": [KILN, "serve", kbc, "--port", str(PORT), "--workers", "1", "--quiet"],
        "kiln-base": [BASELINE, "serve", js, "--port", str(PORT), "--workers", "1", "--quiet"],
        "node": ["node", os.path.join(HANDLERS, "node.mjs"), handler, str(PORT)],
        "bun": [BUN, os.path.join(HANDLERS, "bun.js"), handler, str(PORT)],
        "deno": [DENO, "run", "--allow-net", "--allow-read", os.path.join(HANDLERS, "deno.js"), handler, str(PORT)],
    }


def request(handler):
    if handler == "trivial":
        return b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    body = open(ORDER, "rb").read()
    head = f"POST /api/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    return head.encode() + body


def try_request(handler):
    """The (status, body) of one request, or None when the server is not listening yet."""
    try:
        with socket.create_connection(("127.0.0.1", PORT), timeout=5) as s:
            s.sendall(request(handler))
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return None
    head, _, body = data.partition(b"\r\n\r\n")
    if not head:
        return None
    status = int(head.split(b" ")[1])
    if b"transfer-encoding: chunked" in head.lower():
        body = dechunk(body)
    return status, body.decode()


def dechunk(data):
    out = b""
    while data:
        size_line, _, rest = data.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            break
        out += rest[:size]
        data = rest[size + 2:]
    return out


def start(command, pin="0"):
    return subprocess.Popen(["taskset", "-c", pin] + command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_ready(handler, process):
    deadline = time.time() + 20
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        got = try_request(handler)
        if got is not None:
            return got
        time.sleep(0.01)
    raise RuntimeError("server did not answer")


def wrk(handler, seconds):
    expect = tempfile.NamedTemporaryFile("w", delete=False)
    expect.write(expected_body(handler))
    expect.close()
    env = dict(os.environ, BENCH_EXPECT=expect.name, BENCH_BODY=ORDER if handler == "realistic" else "")
    path = "/" if handler == "trivial" else "/api/orders"
    out = subprocess.run(
        ["taskset", "-c", "1", "wrk", "-t1", "-c50", f"-d{seconds}s", "-s", os.path.join(HERE, "check.lua"), f"http://127.0.0.1:{PORT}{path}"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout
    os.unlink(expect.name)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = int(re.search(r"BAD (\d+)", out).group(1))
    errors = re.search(r"Socket errors: (.*)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rps": rps,
        "p50_us": int(re.search(r"P50 (\d+)", out).group(1)),
        "p99_us": int(re.search(r"P99 (\d+)", out).group(1)),
        "bad": bad + (int(non2xx.group(1)) if non2xx else 0),
        "socket_errors": errors.group(1) if errors else "",
    }


def throughput(handlers, servers, rounds, seconds, kbc_of):
    results = {}
    for handler in handlers:
        for round_index in range(rounds):
            for name in servers:
                command = commands(handler, kbc_of[handler])[name]
                process = start(command)
                try:
                    status, body = wait_ready(handler, process)
                    if status != 200 or body != expected_body(handler):
                        raise RuntimeError(f"{name} {handler}: unexpected response {status} {body[:200]!r}")
                    wrk(handler, 3)
                    r = wrk(handler, seconds)
                finally:
                    stop(process)
                r["load"] = os.getloadavg()[0]
                print(f"{handler:10} round {round_index + 1} {name:10} {r['rps']:9.0f} req/s  p50 {r['p50_us']:6} us  p99 {r['p99_us']:6} us  bad {r['bad']}  load {r['load']:.2f}", flush=True)
                results.setdefault(handler, {}).setdefault(name, []).append(r)
    return results


def cold_start(command, runs=20, warmups=3):
    times, rss = [], []
    for i in range(warmups + runs):
        t0 = time.perf_counter()
        process = subprocess.Popen(["taskset", "-c", "0"] + command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        got = None
        while got is None:
            got = try_request("trivial")
        elapsed = time.perf_counter() - t0
        with open(f"/proc/{process.pid}/status") as f:
            kb = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
        stop(process)
        if got[0] != 200 or got[1] != expected_body("trivial"):
            raise RuntimeError(f"cold start: unexpected response {got}")
        if i >= warmups:
            times.append(elapsed * 1000)
            rss.append(kb / 1024)
    times.sort()
    return {
        "min_ms": times[0],
        "p50_ms": statistics.median(times),
        "p95_ms": times[int(0.95 * (len(times) - 1))],
        "rss_mb": statistics.median(rss),
    }


def main():
    # the runner (and the wrk it starts) keep to core 1; servers run on core 0
    os.sched_setaffinity(0, {1})
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--servers", default="kiln,node,bun,deno")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--kiln", help="the kiln binary (default: the release build)")
    parser.add_argument("--baseline", help="another kiln binary, measured as the server kiln-base (add it to --servers)")
    args = parser.parse_args()
    global KILN, BASELINE
    if args.kiln:
        KILN = os.path.abspath(args.kiln)
    if args.baseline:
        BASELINE = os.path.abspath(args.baseline)
    if args.json is None:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True).stdout.strip()
        args.json = os.path.join(HERE, "results", time.strftime("%Y%m%d-%H%M-", time.gmtime()) + commit + ".json")
    servers = args.servers.split(",")
    work = tempfile.mkdtemp()
    kbc_of = {}
    for handler in ["trivial", "realistic"]:
        kbc_of[handler] = os.path.join(work, f"{handler}.kbc")
        subprocess.run([KILN, "build", os.path.join(HANDLERS, f"{handler}.js"), "-o", kbc_of[handler]], check=True)
    report = {"commit": subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip(), "baseline": BASELINE, "versions": {
        "kiln": subprocess.run([KILN, "--version"], capture_output=True, text=True).stdout.strip(),
        "node": subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip(),
        "bun": subprocess.run([BUN, "--version"], capture_output=True, text=True).stdout.strip(),
        "deno": subprocess.run([DENO, "--version"], capture_output=True, text=True).stdout.split("\n")[0],
        "wrk": subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split("\n")[0],
    }}
    if not args.skip_throughput:
        results = throughput(["trivial", "realistic"], servers, args.rounds, args.duration, kbc_of)
        summary = {}
        print()
        for handler, by_server in results.items():
            for name, runs in by_server.items():
                s = {
                    "rps": statistics.median(r["rps"] for r in runs),
                    "p50_us": statistics.median(r["p50_us"] for r in runs),
                    "p99_us": statistics.median(r["p99_us"] for r in runs),
                    "bad": sum(r["bad"] for r in runs),
                }
                summary.setdefault(handler, {})[name] = s
                print(f"{handler:10} {name:10} median {s['rps']:9.0f} req/s  p50 {s['p50_us']:6} us  p99 {s['p99_us']:6} us  bad {s['bad']}")
        report["throughput"] = {"rounds": results, "median": summary}
    print()
    starts = {}
    for name, command in [
        ("kiln (source)", commands("trivial", kbc_of["trivial"])["kiln"]),
        ("kiln (.kbc)", commands("trivial", kbc_of["trivial"])["kiln .kbc"]),
        ("node", commands("trivial", None)["node"]),
        ("bun", commands("trivial", None)["bun"]),
        ("deno", commands("trivial", None)["deno"]),
    ]:
        if name.split(" ")[0] not in servers:
            continue
        c = cold_start(command)
        c["load"] = os.getloadavg()[0]
        starts[name] = c
        print(f"cold start {name:14} min {c['min_ms']:6.2f} ms  p50 {c['p50_ms']:6.2f} ms  p95 {c['p95_ms']:6.2f} ms  RSS {c['rss_mb']:5.1f} MB", flush=True)
    report["cold_start"] = starts
    json.dump(report, open(args.json, "w"), indent=1)
    print(f"raw results: {os.path.relpath(args.json, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
