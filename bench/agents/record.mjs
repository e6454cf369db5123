// Records what the agent scripts see and give, for runners in other languages
// (bench/agents/python): each script's source, tools and inputs, every tool answer it
// receives (as JSON text, keyed by the tool's name and its arguments' JSON) and node's
// result as JSON. Tools are deterministic, so the recording is the tools.
//
//   node bench/agents/record.mjs [OUT]      (default build/bench/agents/recording.json)

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import vm from "node:vm";
import { ROOT, loadSuite, wrapAgentScript } from "./harness.mjs";
import { nest, tools } from "./tools.mjs";

const out = process.argv[2] ?? join(ROOT, "build", "bench", "agents", "recording.json");
const scripts = [];
for (const script of loadSuite().scripts) {
  const answers = {};
  const recording = {};
  for (const [name, fn] of Object.entries(tools(script.tools))) {
    recording[name] = async (...args) => {
      const value = await fn(...args);
      answers[`${name} ${JSON.stringify(args)}`] = JSON.stringify(value);
      return value;
    };
  }
  const context = vm.createContext({ ...script.inputs, ...nest(recording) });
  const result = await new vm.Script(wrapAgentScript(script.source)).runInContext(context);
  scripts.push({
    name: script.name,
    source: script.source,
    tools: script.tools,
    inputs: script.inputs,
    answers,
    result: JSON.stringify(result),
  });
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ scripts }));
console.log(`${out}: ${scripts.length} scripts`);
