// node's own `vm` module: V8 with its JIT, a fresh context per execution. The speed
// reference and the source of the reference results, not a sandbox: the guest gets the
// host's tool functions and their values as they are (no copy, no budgets).

import vm from "node:vm";
import { wrapAgentScript } from "../harness.mjs";
import { nest } from "../tools.mjs";

export const name = "node-vm";

export async function setup() {
  return { version: `node ${process.versions.node} (V8 ${process.versions.v8})` };
}

export async function runScript(script, tools, inputs) {
  const context = vm.createContext({ ...inputs, ...nest(tools) });
  const code = new vm.Script(wrapAgentScript(script.source), { filename: `${script.name}.js` });
  return await code.runInContext(context);
}

export async function teardown() {}
