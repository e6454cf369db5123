// What the runner and the lanes share: the suite, the agent-script wrapper for engines
// without agent-script semantics, the canonical form a result is compared in, and how
// the Kiln package is found.

import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(HERE, "..", "..");

// The suite: bench/agents/suite.json with each script's source read in.
export function loadSuite() {
  const suite = JSON.parse(readFileSync(join(HERE, "suite.json"), "utf8"));
  for (const s of suite.scripts) s.source = readFileSync(join(HERE, "scripts", `${s.name}.js`), "utf8");
  return suite;
}

// An agent script (top-level await, top-level return) as the body of a strict async
// function, for the engines that only run classic scripts: the expression's value is
// the promise of the script's result. Kiln runs the source itself.
export function wrapAgentScript(source) {
  return `(async function () {"use strict";\n${source}\n})()`;
}

// The canonical text of a result: JSON with the property order kept, except that it
// spells out what JSON would lose (undefined, NaN, the infinities, -0, holes) and names
// anything that is not a plain value. Two results are equal when their texts are.
export function canonical(value) {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (Object.is(value, -0)) return "-0";
      return String(value);
    case "undefined":
      return "undefined";
    case "object": {
      if (Array.isArray(value)) {
        const parts = [];
        for (let i = 0; i < value.length; i++) parts.push(i in value ? canonical(value[i]) : "<hole>");
        return `[${parts.join(",")}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== null && Object.getPrototypeOf(proto) !== null) {
        return `<${Object.prototype.toString.call(value)}>`;
      }
      return `{${Object.keys(value).map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
    }
    default:
      return `<${typeof value}>`;
  }
}

export function checksum(text) {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

// Where two canonical texts first differ, with a little context, for the report.
export function firstDifference(expected, actual) {
  let i = 0;
  while (i < expected.length && i < actual.length && expected[i] === actual[i]) i++;
  const from = Math.max(0, i - 40);
  return `at ${i}: expected …${expected.slice(from, i + 40)}… got …${actual.slice(from, i + 40)}…`;
}

// The package entry of a package directory: exports["."] (import, node, default,
// require), else main, else index.js.
function packageEntry(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  let entry = null;
  let exp = pkg.exports;
  if (exp && typeof exp === "object" && "." in exp) exp = exp["."];
  while (exp && typeof exp === "object") exp = exp.import ?? exp.node ?? exp.default ?? exp.require ?? null;
  if (typeof exp === "string") entry = exp;
  entry ??= pkg.main ?? "index.js";
  const path = join(dir, entry);
  if (existsSync(path) && statSync(path).isDirectory()) return join(path, "index.js");
  return path;
}

// The Kiln package (`kiln-sandbox`): from $KILN_SANDBOX (the package's directory, or a
// directory it was installed into, i.e. one with node_modules/kiln-sandbox), else from
// bench/agents/node_modules. Throws when none can be imported.
export async function importKiln() {
  const tried = [];
  const dirs = [];
  if (process.env.KILN_SANDBOX) {
    const dir = process.env.KILN_SANDBOX;
    dirs.push(dir, join(dir, "node_modules", "kiln-sandbox"));
  }
  dirs.push(join(HERE, "node_modules", "kiln-sandbox"));
  for (const dir of dirs) {
    if (!existsSync(join(dir, "package.json"))) {
      tried.push(`${dir}: no package.json`);
      continue;
    }
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    if (pkg.name !== "kiln-sandbox") {
      tried.push(`${dir}: package is ${pkg.name}`);
      continue;
    }
    const mod = await import(pathToFileURL(packageEntry(dir)).href);
    const api = typeof mod.run === "function" ? mod : mod.default;
    if (!api || typeof api.run !== "function" || typeof api.start !== "function") {
      throw new Error(`${dir}: kiln-sandbox ${pkg.version} exports no run/start`);
    }
    return { api, version: pkg.version, dir };
  }
  throw new Error(`kiln-sandbox not found (set KILN_SANDBOX or install it into bench/agents/node_modules): ${tried.join("; ")}`);
}

// The dotted capability names of a script, with its probe's.
export const PROBE_TOOLS = ["tools.replay", "tools.result"];

// The boundary probe: a script that receives the very values the real script's tool
// calls returned (replayed in one Promise.all) and hands back its result, doing no work
// of its own. What it costs beyond the empty script is the price of moving that data
// across the boundary in both directions.
export const PROBE_SOURCE = `const pending = [];
for (let i = 0; i < probe.calls; i++) pending.push(tools.replay({ i }));
await Promise.all(pending);
return await tools.result();
`;

export const EMPTY_SOURCE = "return null;\n";

// Replay tools for the probe: each call returns a fresh parse of a recorded answer.
export function replayTools(answers, resultText, clock) {
  const timed = (fn) => async (...args) => {
    const t0 = performance.now();
    const value = fn(...args);
    clock.hostMs += performance.now() - t0;
    clock.calls += 1;
    return value;
  };
  return {
    "tools.replay": timed(({ i }) => JSON.parse(answers[i])),
    "tools.result": timed(() => JSON.parse(resultText)),
  };
}

// suite.json's layout: two-space indentation, arrays of plain values on one line.
export function formatSuite(value, indent = "") {
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object")) return JSON.stringify(value).replace(/","/g, '", "').replace(/,(?=\d)/g, ", ");
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const inner = indent + "  ";
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + formatSuite(v, inner)).join(",\n")}\n${indent}]`;
  const keys = Object.keys(value);
  if (keys.length === 0) return "{}";
  return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${formatSuite(value[k], inner)}`).join(",\n")}\n${indent}}`;
}
