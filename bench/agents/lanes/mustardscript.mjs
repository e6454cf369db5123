// MustardScript 0.2.1 (npm `mustardscript`, its Node-API addon, in process). A fresh
// execution per run: `new Mustard(source)` compiles, `run()` executes, calling the
// host's capabilities one suspension at a time.
//
// Two adaptations, the same for every script:
// - Capabilities are flat names in MustardScript and become guest globals, so
//   `tools.crm.contacts` is registered as `tools__crm__contacts` and a prelude rebuilds
//   the `tools` object from them.
// - A top-level `return` is accepted only as the last statement (and only in
//   `lenientMode`), so the script body runs inside an async arrow function whose
//   awaited value is the program's final expression, as in the other lanes.
// Budgets are raised well past what the suite needs; the defaults (about 10 million
// instructions among them) stop the larger scripts.
//
// The snapshot script is driven by hand: at every suspension the execution is dumped
// (`progress.dump()`), loaded back (`Progress.load`) and resumed from the copy.

import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Mustard, Progress } = require("mustardscript");

export const name = "mustardscript";

const LIMITS = {
  instructionBudget: 1e12,
  heapLimitBytes: 2 ** 31,
  allocationBudget: 1e12,
  callDepthLimit: 1000,
  maxOutstandingHostCalls: 10000,
};
const SNAPSHOT_KEY = "kiln-bench-agents";

let stats = { snapshots: 0, snapshotBytes: 0 };

export async function setup() {
  return { version: `mustardscript ${require("mustardscript/package.json").version}` };
}

const flatName = (dotted) => dotted.split(".").join("__");

function prelude(toolNames) {
  const root = {};
  for (const dotted of toolNames) {
    const parts = dotted.split(".");
    let o = root;
    for (const p of parts.slice(0, -1)) o = o[p] ??= {};
    o[parts[parts.length - 1]] = flatName(dotted);
  }
  const literal = (o) => `{ ${Object.entries(o).map(([k, v]) => `${k}: ${typeof v === "string" ? v : literal(v)}`).join(", ")} }`;
  return Object.entries(root).map(([k, v]) => `const ${k} = ${literal(v)};`).join("\n");
}

export function adapt(source, toolNames) {
  return `${prelude(toolNames)}\nconst __agent = async () => {\n${source}\n};\nawait __agent();\n`;
}

const bytesOf = (state) =>
  Object.values(state).reduce((n, v) => n + (Buffer.isBuffer(v) ? v.length : typeof v === "string" ? v.length : 0), 0);

export async function runScript(script, tools, inputs) {
  const toolNames = Object.keys(tools);
  const capabilities = {};
  for (const dotted of toolNames) capabilities[flatName(dotted)] = tools[dotted];
  const program = new Mustard(adapt(script.source, toolNames), { inputs: Object.keys(inputs) });
  if (!script.snapshot) return await program.run({ inputs, capabilities, limits: LIMITS });
  let step = program.start({ inputs, capabilities, limits: LIMITS, snapshotKey: SNAPSHOT_KEY });
  while (step instanceof Progress) {
    const state = step.dump();
    stats.snapshots++;
    stats.snapshotBytes += bytesOf(state);
    const loaded = Progress.load(state, { capabilities, limits: LIMITS, snapshotKey: SNAPSHOT_KEY });
    const value = await capabilities[loaded.capability](...loaded.args);
    step = loaded.resume(value);
  }
  return step;
}

export function takeStats() {
  const s = stats;
  stats = { snapshots: 0, snapshotBytes: 0 };
  return s;
}

export async function teardown() {}
