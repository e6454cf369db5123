// Kiln through its Node package (`kiln-sandbox`, bindings/node), in process. The
// package is found through $KILN_SANDBOX or bench/agents/node_modules (harness.mjs);
// a lane whose package cannot be imported is skipped by the runner, loudly.
//
// `run(source, { capabilities, inputs, limits })` takes the agent script as it is (Kiln
// runs top-level await and return itself) and the tools under their dotted names. The
// snapshot script is driven by hand with `start`: at every suspension the execution is
// dumped (`p.dump({ key })`), loaded back (`Progress.load`) and its pending calls are
// answered on the copy (`p.resume(id, value)`).

import { importKiln } from "../harness.mjs";

export function kilnLane(laneName, isolation) {
  let kiln = null;
  let stats = { snapshots: 0, snapshotBytes: 0 };
  const KEY = Buffer.from("kiln-bench-agents-snapshot-key-0");
  const LIMITS = { fuel: 1e12, heapBytes: 2 ** 31, callDepth: 1000, computeMs: 120000, hostCalls: 100000 };
  const extra = isolation ? { isolation } : {};

  return {
    name: laneName,
    async setup() {
      const found = await importKiln();
      kiln = found.api;
      return { version: `kiln-sandbox ${found.version}${isolation ? ` (isolation: ${isolation})` : ""}`, dir: found.dir };
    },
    async runScript(script, tools, inputs) {
      if (!script.snapshot) {
        return await kiln.run(script.source, { capabilities: tools, inputs, limits: LIMITS, ...extra });
      }
      const names = Object.keys(tools);
      let p = await kiln.start(script.source, { capabilities: names, inputs, limits: LIMITS, ...extra });
      while (p.status === "suspended") {
        const bytes = await p.dump({ key: KEY });
        stats.snapshots++;
        stats.snapshotBytes += bytes.length;
        p = await kiln.Progress.load(bytes, { key: KEY, capabilities: names, limits: LIMITS, ...extra });
        const calls = p.calls;
        const values = await Promise.all(calls.map((c) => tools[c.capability](...c.args)));
        for (let i = 0; i < calls.length && p.status === "suspended"; i++) p = await p.resume(calls[i].id, values[i]);
      }
      if (p.status !== "complete") throw new Error(`kiln: execution ended as ${p.status}`);
      return p.value;
    },
    takeStats() {
      const s = stats;
      stats = { snapshots: 0, snapshotBytes: 0 };
      return s;
    },
    async teardown() {
      kiln = null;
    },
  };
}

const lane = kilnLane("kiln", null);
export const { name, setup, runScript, takeStats, teardown } = lane;
