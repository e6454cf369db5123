#!/usr/bin/env node
// Agent-script benchmark: programmatic tool calling (a script calls host tools, fans
// out, reduces the data in code and returns only the answer), run on each lane with the
// same tools and inputs, every result checked against node vm's.
//
//   node bench/agents/run.mjs [--lanes a,b] [--scripts x,y] [--samples 5] [--inner 5]
//                             [--warmup 1] [--no-probe] [--update-suite] [--out DIR]
//
// Method (also in bench/agents/README.md):
// - Reference. Each script runs once in node's `vm` (lanes/node-vm.mjs); the canonical
//   text of its result (JSON with property order kept, harness.mjs) is the reference,
//   and its checksum must match the one in suite.json (a stale checksum fails the run;
//   --update-suite rewrites it with the calls and sizes).
// - Lanes. lanes/NAME.mjs exports setup, runScript(script, tools, inputs) and teardown.
//   A lane whose setup throws (Kiln's package not importable, say) is skipped with a
//   loud line. An execution is the whole source-to-value path: a fresh context or
//   runtime, compiling the script, running it, its tool calls and values crossing.
// - Checks. Every execution's result must have the reference's canonical text; a lane
//   that differs is marked ≠ (kept in the table, out of the ratios), one that throws
//   is marked failing with its error, and is not timed.
// - Timing. Per script: `warmup` executions on each lane (which also check), then
//   `samples` rounds; in each round every lane, in an order rotated by one per round,
//   runs `inner` executions back to back, each timed alone. Reported per execution:
//   median and p95 (nearest rank) of the samples × inner times.
// - Boundary. The time spent inside the tool functions is host time, measured on every
//   execution. The boundary probe (harness.mjs) replays the script's tool answers into
//   a script that does nothing with them and returns the script's result: its time,
//   less its host time and less the empty script's time (startup: a fresh context and
//   a trivial compile), estimates what moving this script's data across the boundary
//   costs on that lane. Guest time is what is left: total − host − boundary − startup.
// - Ratios. Each lane's median over node-vm's, per script; geometric mean per lane over
//   the scripts both passed.
//
// Writes build/bench/agents/<date>-<time>-<commit>.json (every time) and .md (tables).

import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  EMPTY_SOURCE,
  HERE,
  PROBE_SOURCE,
  PROBE_TOOLS,
  ROOT,
  canonical,
  checksum,
  firstDifference,
  formatSuite,
  loadSuite,
  replayTools,
} from "./harness.mjs";
import * as reference from "./lanes/node-vm.mjs";
import { tools as makeTools } from "./tools.mjs";

const ALL_LANES = ["node-vm", "mustardscript", "quickjs-emscripten", "kiln", "kiln-process"];
const TIMEOUT_MS = 300000;

function parseArgs(argv) {
  const opts = { lanes: ALL_LANES, scripts: null, samples: 5, inner: 5, warmup: 1, probe: true, updateSuite: false, out: join(ROOT, "build", "bench", "agents"), capS: 120, budgetS: 40, one: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--lanes") opts.lanes = next().split(",").filter(Boolean);
    else if (a === "--scripts") opts.scripts = next().split(",").filter(Boolean);
    else if (a === "--samples") opts.samples = Number(next());
    else if (a === "--inner") opts.inner = Number(next());
    else if (a === "--warmup") opts.warmup = Number(next());
    else if (a === "--no-probe") opts.probe = false;
    else if (a === "--update-suite") opts.updateSuite = true;
    else if (a === "--out") opts.out = next();
    else if (a === "--cap") opts.capS = Number(next());
    else if (a === "--budget") opts.budgetS = Number(next());
    else if (a === "--one") opts.one = next().split(":");
    else if (a === "--help" || a === "-h") {
      console.log("node bench/agents/run.mjs [--lanes a,b] [--scripts x,y] [--samples 5] [--inner 5] [--warmup 1] [--cap 120] [--budget 40] [--no-probe] [--update-suite] [--out DIR]");
      console.log(`lanes: ${ALL_LANES.join(", ")}`);
      process.exit(0);
    } else throw new Error(`unknown option ${a}`);
  }
  for (const l of opts.lanes) if (!ALL_LANES.includes(l)) throw new Error(`unknown lane ${l} (lanes: ${ALL_LANES.join(", ")})`);
  if (!opts.lanes.includes("node-vm")) opts.lanes = ["node-vm", ...opts.lanes];
  return opts;
}

const log = (line) => process.stderr.write(`${line}\n`);

function median(xs) {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
function p95(xs) {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)];
}
const geomean = (xs) => (xs.length ? Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length) : null);

function errorText(e) {
  const kind = e && (e.kind || e.code) ? `[${e.kind || e.code}] ` : "";
  const name = e && e.name ? `${e.name}: ` : "";
  const lines = String(e && e.message !== undefined ? e.message : e).split("\n").map((l) => l.trim());
  const msg = lines.filter((l) => l && !/^at /.test(l)).slice(0, 3).join(" / ");
  return `${kind}${name}${msg}`.slice(0, 160);
}

async function timed(promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no result after ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function commitOf() {
  try {
    return execFileSync("git", ["rev-parse", "--short=10", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

// One execution on a lane: { ms, hostMs, value } or throws.
async function execute(lane, script, toolsFor, inputs) {
  const clock = { hostMs: 0, calls: 0 };
  const tools = toolsFor(clock);
  const t0 = performance.now();
  const value = await timed(lane.mod.runScript(script, tools, inputs));
  const ms = performance.now() - t0;
  return { ms, hostMs: clock.hostMs, calls: clock.calls, value };
}

// `--one LANE:SCRIPT`: one execution in this process, its time and result's checksum
// as a JSON line on stdout. The parent runs it first for every lane but node-vm, under
// a wall-clock cap it can enforce by killing the process (a native engine busy in one
// call cannot be interrupted from its own thread).
async function one(laneName, scriptName) {
  const s = loadSuite().scripts.find((x) => x.name === scriptName);
  const lane = { mod: await import(`./lanes/${laneName}.mjs`) };
  await lane.mod.setup();
  // Generate the tools' answers first (as the parent's reference run does), so that
  // the time is the lane's alone.
  await reference.runScript(s, makeTools(s.tools), s.inputs);
  try {
    const x = await execute(lane, { name: s.name, source: s.source, snapshot: !!s.snapshot }, (clock) => makeTools(s.tools, clock), s.inputs);
    process.stdout.write(`${JSON.stringify({ ms: x.ms, hostMs: x.hostMs, checksum: checksum(canonical(x.value)) })}\n`);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ error: errorText(e) })}\n`);
  }
  process.exit(0);
}

function precheck(laneName, scriptName, capS) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--one", `${laneName}:${scriptName}`], { stdio: ["ignore", "pipe", "pipe"], env: process.env });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), capS * 1000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (signal === "SIGKILL") return resolve({ overCap: true });
      try {
        resolve(JSON.parse(out.trim().split("\n").pop()));
      } catch {
        resolve({ error: `precheck exited ${code}: ${err.trim().split("\n").pop()}` });
      }
    });
  });
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.one) return one(...opts.one);
  const suite = loadSuite();
  let scripts = suite.scripts;
  if (opts.scripts) {
    for (const n of opts.scripts) if (!scripts.some((s) => s.name === n)) throw new Error(`unknown script ${n}`);
    scripts = scripts.filter((s) => opts.scripts.includes(s.name));
  }

  // Reference results from node vm.
  let stale = 0;
  for (const s of scripts) {
    const clock = { hostMs: 0, calls: 0, answers: [] };
    const value = await reference.runScript(s, makeTools(s.tools, clock), s.inputs);
    const text = canonical(value);
    s.reference = { value, text, json: JSON.stringify(value), checksum: checksum(text), answers: clock.answers };
    const measured = { calls: clock.calls, inKB: Math.round(clock.answers.reduce((n, a) => n + a.length, 0) / 102.4) / 10, outBytes: text.length };
    if (opts.updateSuite) {
      Object.assign(s, measured, { checksum: s.reference.checksum });
    } else if (s.checksum !== s.reference.checksum) {
      stale++;
      log(`!!! ${s.name}: suite.json says checksum ${s.checksum}, node vm gives ${s.reference.checksum} (script or tools changed? --update-suite)`);
    }
    Object.assign(s, { measured });
  }
  if (opts.updateSuite) {
    const full = loadSuite();
    for (const s of full.scripts) {
      const r = scripts.find((x) => x.name === s.name);
      delete s.source;
      if (r) Object.assign(s, { calls: r.calls, inKB: r.inKB, outBytes: r.outBytes, checksum: r.checksum });
    }
    writeFileSync(join(HERE, "suite.json"), `${formatSuite(full)}\n`);
    log(`suite.json updated for ${scripts.length} scripts`);
  }

  // Lanes.
  const lanes = [];
  const skipped = [];
  for (const name of opts.lanes) {
    try {
      const mod = await import(`./lanes/${name}.mjs`);
      const info = await mod.setup();
      lanes.push({ name, mod, info });
      log(`lane ${name}: ${info.version}`);
    } catch (e) {
      skipped.push({ lane: name, reason: errorText(e) });
      log(`\n!!! LANE ${name} SKIPPED: ${errorText(e)}\n`);
    }
  }

  // The empty script first (startup per lane), then the suite.
  const empty = { name: "(empty)", tools: [], inputs: { input: {} }, source: EMPTY_SOURCE, reference: { text: "null" } };
  const results = {};
  for (const s of [empty, ...scripts]) {
    const script = { name: s.name, source: s.source, snapshot: !!s.snapshot };
    const toolsFor = (clock) => makeTools(s.tools, clock);
    const probe = { name: `${s.name} (probe)`, source: PROBE_SOURCE, snapshot: false };
    const probeInputs = { ...s.inputs, probe: { calls: s.reference.answers ? s.reference.answers.length : 0 } };
    const probeToolsFor = (clock) => replayTools(s.reference.answers, s.reference.json, clock);
    const doProbe = opts.probe && s !== empty;
    const row = (results[s.name] = {});
    for (const lane of lanes) {
      const r = (row[lane.name] = { status: "ok", times: [], hostMs: [], probeMs: [], probeHostMs: [], runs: opts.samples * opts.inner });
      if (lane.name !== "node-vm" && s !== empty) {
        const pre = await precheck(lane.name, s.name, opts.capS);
        if (pre.overCap) {
          r.status = "error";
          r.overCap = opts.capS;
          r.error = `no result after ${opts.capS} s (killed)`;
          continue;
        }
        if (pre.error) {
          r.status = "error";
          r.error = pre.error;
          continue;
        }
        r.precheckMs = pre.ms;
        // A slow lane gets fewer timed runs: about budgetS seconds' worth, at least one.
        r.runs = Math.max(1, Math.min(opts.samples * opts.inner, Math.floor((opts.budgetS * 1000) / pre.ms)));
      }
      try {
        for (let w = 0; w < opts.warmup; w++) {
          const x = await execute(lane, script, toolsFor, s.inputs);
          const text = canonical(x.value);
          if (text !== s.reference.text) {
            r.status = "wrong";
            r.difference = firstDifference(s.reference.text, text);
            r.checksum = checksum(text);
          }
        }
        if (doProbe) {
          const x = await execute(lane, probe, probeToolsFor, probeInputs);
          if (canonical(x.value) !== s.reference.text) throw new Error("the boundary probe returned another value");
        }
      } catch (e) {
        r.status = "error";
        r.error = errorText(e);
      }
      if (lane.mod.takeStats) {
        const st = lane.mod.takeStats();
        if (st.snapshots) r.snapshot = { dumps: st.snapshots / opts.warmup, bytesPerDump: Math.round(st.snapshotBytes / st.snapshots) };
      }
    }
    for (let round = 0; round < opts.samples; round++) {
      const order = lanes.map((_, i) => lanes[(i + round) % lanes.length]);
      for (const lane of order) {
        const r = row[lane.name];
        if (r.status === "error") continue;
        // r.runs executions spread over the rounds (all of them: samples × inner).
        const share = Math.floor(r.runs / opts.samples) + (round < r.runs % opts.samples ? 1 : 0);
        if (share === 0) continue;
        try {
          for (let k = 0; k < share; k++) {
            const x = await execute(lane, script, toolsFor, s.inputs);
            r.times.push(x.ms);
            r.hostMs.push(x.hostMs);
            const text = canonical(x.value);
            if (text !== s.reference.text && r.status === "ok") {
              r.status = "wrong";
              r.difference = firstDifference(s.reference.text, text);
            }
          }
          if (doProbe) {
            for (let k = 0; k < share; k++) {
              const x = await execute(lane, probe, probeToolsFor, probeInputs);
              r.probeMs.push(x.ms);
              r.probeHostMs.push(x.hostMs);
            }
          }
        } catch (e) {
          r.status = "error";
          r.error = errorText(e);
        }
      }
    }
    for (const lane of lanes) {
      const r = row[lane.name];
      r.median = median(r.times);
      r.p95 = p95(r.times);
      r.hostMedian = median(r.hostMs);
      r.probeNetMedian = median(r.probeMs.map((t, i) => t - r.probeHostMs[i]));
      if (lane.mod.takeStats) lane.mod.takeStats();
    }
    log(
      `${s.name.padEnd(20)} ${lanes
        .map((l) => {
          const r = row[l.name];
          return `${l.name} ${r.status === "ok" ? `${r.median.toFixed(2)} ms` : r.status === "wrong" ? `≠ ${r.median?.toFixed(2)} ms` : `FAILS ${r.error}`}`;
        })
        .join(" | ")}`,
    );
  }

  // Startup, boundary and guest estimates; ratios.
  for (const lane of lanes) {
    const startup = results["(empty)"][lane.name].median;
    for (const s of scripts) {
      const r = results[s.name][lane.name];
      if (r.status === "error" || r.median === null) continue;
      r.startupMs = startup;
      if (r.probeNetMedian !== null && startup !== null) {
        r.boundaryMs = Math.max(0, r.probeNetMedian - startup);
        r.guestMs = Math.max(0, r.median - r.hostMedian - r.boundaryMs - startup);
      }
      const base = results[s.name]["node-vm"];
      if (r.status === "ok" && base && base.status === "ok") r.ratio = r.median / base.median;
    }
  }
  const summary = {};
  for (const lane of lanes) {
    const ratios = scripts.map((s) => results[s.name][lane.name].ratio).filter((x) => x !== undefined);
    const failing = scripts.filter((s) => results[s.name][lane.name].status === "error").map((s) => s.name);
    const wrong = scripts.filter((s) => results[s.name][lane.name].status === "wrong").map((s) => s.name);
    const overCap = scripts.filter((s) => results[s.name][lane.name].overCap).map((s) => s.name);
    summary[lane.name] = { geomean: geomean(ratios), over: ratios.length, failing: failing.filter((n) => !overCap.includes(n)), overCap, wrong };
  }

  const commit = commitOf();
  const now = new Date();
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 13);
  const meta = {
    date: now.toISOString(),
    commit,
    node: process.versions.node,
    host: { cpus: os.cpus().length, model: os.cpus()[0]?.model, loadavg: os.loadavg() },
    options: { samples: opts.samples, inner: opts.inner, warmup: opts.warmup, probe: opts.probe },
    lanes: Object.fromEntries(lanes.map((l) => [l.name, l.info])),
    skipped,
    stale,
  };
  const scriptsOut = scripts.map((s) => ({ name: s.name, snapshot: !!s.snapshot, tools: s.tools, checksum: s.reference.checksum, ...s.measured }));
  const md = markdown(meta, scriptsOut, lanes.map((l) => l.name), results, summary);
  mkdirSync(opts.out, { recursive: true });
  const base = join(opts.out, `${stamp}-${commit}`);
  writeFileSync(`${base}.json`, `${JSON.stringify({ meta, scripts: scriptsOut, results, summary }, null, 1)}\n`);
  writeFileSync(`${base}.md`, md);
  process.stdout.write(md);
  log(`\nwrote ${base}.json and ${base}.md`);
  for (const lane of lanes) await lane.mod.teardown();
  if (skipped.length) log(`!!! skipped lanes: ${skipped.map((s) => s.lane).join(", ")}`);
  if (stale) {
    log(`!!! ${stale} script(s) differ from their suite.json checksum`);
    process.exitCode = 1;
  }
}

const fmt = (x) => (x === null || x === undefined ? "–" : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

function markdown(meta, scripts, laneNames, results, summary) {
  const out = [];
  const versions = laneNames.map((n) => meta.lanes[n].version).join("; ");
  out.push(`### ${meta.date.slice(0, 16).replace("T", " ")} · agent scripts (\`bench/agents\`) · commit ${meta.commit}`);
  out.push("");
  out.push(`${versions}. ${meta.options.samples} samples × ${meta.options.inner} executions after ${meta.options.warmup} warm-up, lanes interleaved; ms per execution, median (p95), and × the lane's median over node-vm's. Load average at the end ${meta.host.loadavg.map((x) => x.toFixed(1)).join(" ")} on ${meta.host.cpus} cores.`);
  if (meta.skipped.length) out.push(`\nSkipped: ${meta.skipped.map((s) => `**${s.lane}** (${s.reason})`).join("; ")}.`);
  out.push("");
  out.push(`| script | calls | in KB | ${laneNames.join(" | ")} |`);
  out.push(`|---|---:|---:|${laneNames.map(() => "---:").join("|")}|`);
  const startup = laneNames.map((n) => {
    const r = results["(empty)"][n];
    return r.status === "ok" ? `${fmt(r.median)} (${fmt(r.p95)})` : `fails: ${r.error}`;
  });
  out.push(`| *(empty: startup)* | 0 | 0 | ${startup.join(" | ")} |`);
  for (const s of scripts) {
    const cells = laneNames.map((n) => {
      const r = results[s.name][n];
      if (r.overCap) return `**> ${r.overCap} s** (killed)`;
      if (r.status === "error") return `**fails**: ${r.error.replace(/\|/g, "\\|")}`;
      const few = r.times.length < meta.options.samples * meta.options.inner ? ` (${r.times.length} run${r.times.length > 1 ? "s" : ""})` : "";
      const base = r.times.length >= 5 ? `${fmt(r.median)} (${fmt(r.p95)})${few}` : `${fmt(r.median)}${few}`;
      if (r.status === "wrong") return `**≠** ${base}`;
      return n === "node-vm" ? base : `${base} ×${r.ratio.toFixed(1)}`;
    });
    out.push(`| ${s.name}${s.snapshot ? " †" : ""} | ${s.calls} | ${s.inKB} | ${cells.join(" | ")} |`);
  }
  out.push(`| **geomean vs node-vm** | | | ${laneNames.map((n) => (n === "node-vm" ? "1" : summary[n].geomean ? `×${summary[n].geomean.toFixed(1)} (${summary[n].over} scripts${summary[n].overCap.length ? `; not the ${summary[n].overCap.length} over the cap` : ""})` : "–")).join(" | ")} |`);
  out.push("");
  const snapLanes = laneNames.filter((n) => scripts.some((s) => results[s.name][n].snapshot));
  if (scripts.some((s) => s.snapshot)) {
    const done = snapLanes.map((n) => {
      const s = scripts.find((x) => results[x.name][n].snapshot);
      const st = results[s.name][n].snapshot;
      return `${n} (${st.dumps} dumps of ${(st.bytesPerDump / 1024).toFixed(1)} KB on average)`;
    });
    out.push(
      done.length
        ? `† dumped and loaded at every suspension on ${done.join(", ")}; run straight through on the others.`
        : "† meant to be dumped and loaded at every suspension, but no lane of this run that can snapshot ran it to the end; run straight through on the others.",
    );
  }
  out.push("");
  out.push("Where the time goes (ms, medians; estimates, see bench/agents/README.md): startup is the empty script; host is the time inside the tool functions; boundary is the probe replaying the script's tool answers and result, less its host time and startup; guest is the rest.");
  out.push("");
  out.push(`| script | ${laneNames.map((n) => `${n} host · boundary · guest`).join(" | ")} |`);
  out.push(`|---|${laneNames.map(() => "---:").join("|")}|`);
  for (const s of scripts) {
    const cells = laneNames.map((n) => {
      const r = results[s.name][n];
      if (r.status === "error" || r.boundaryMs === undefined) return "–";
      return `${fmt(r.hostMedian)} · ${fmt(r.boundaryMs)} · ${fmt(r.guestMs)}`;
    });
    out.push(`| ${s.name} | ${cells.join(" | ")} |`);
  }
  out.push("");
  const wrong = laneNames.flatMap((n) => scripts.filter((s) => results[s.name][n].status === "wrong").map((s) => `${n} on ${s.name}: ${results[s.name][n].difference}`));
  if (wrong.length) {
    out.push("Wrong results (≠, out of the ratios):");
    out.push("");
    for (const w of wrong) out.push(`- ${w.replace(/\|/g, "\\|")}`);
    out.push("");
  }
  return `${out.join("\n")}\n`;
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
