// QuickJS compiled to WebAssembly (npm `quickjs-emscripten` 0.32.0, its default release
// build, synchronous variant). A fresh runtime and context per execution.
//
// Async host functions the idiomatic way for Promise.all fan-out: each tool is a
// `newFunction` that returns the handle of a `newPromise()` deferred and resolves it
// when the host's promise settles, then runs `runtime.executePendingJobs()`; the host
// awaits the script's promise with `context.resolvePromise`. (The asyncify variant's
// `newAsyncifiedFunction` makes a tool look synchronous to the guest but can wait on
// only one host call at a time, so fan-out would run one call after another.)
//
// Values cross as JSON text: a host value is stringified on the host and parsed by the
// guest's own JSON.parse; arguments and the result come out through `context.dump`
// (QuickJS's JSON.stringify, then JSON.parse on the host). The script body is wrapped
// in a strict async function (QuickJS runs classic scripts). Memory is capped at 2 GiB;
// there is no instruction budget (an interrupt handler could add a deadline).

import { createRequire } from "node:module";
import { getQuickJS } from "quickjs-emscripten";
import { wrapAgentScript } from "../harness.mjs";

const require = createRequire(import.meta.url);

export const name = "quickjs-emscripten";

let QuickJS = null;

export async function setup() {
  QuickJS = await getQuickJS();
  return { version: `quickjs-emscripten ${require("quickjs-emscripten/package.json").version} (release, sync)` };
}

export async function runScript(script, tools, inputs) {
  const runtime = QuickJS.newRuntime();
  runtime.setMemoryLimit(2 ** 31 - 1);
  const vm = runtime.newContext();
  const owned = [];
  try {
    const json = vm.getProp(vm.global, "JSON");
    const parse = vm.getProp(json, "parse");
    json.dispose();
    owned.push(parse);
    const toGuest = (value) => {
      if (value === undefined) return vm.undefined;
      const text = vm.newString(JSON.stringify(value));
      const result = vm.callFunction(parse, vm.undefined, text);
      text.dispose();
      return vm.unwrapResult(result);
    };
    for (const [key, value] of Object.entries(inputs)) {
      const h = toGuest(value);
      vm.setProp(vm.global, key, h);
      h.dispose();
    }
    const objects = new Map();
    const objectAt = (path) => {
      if (path === "") return vm.global;
      if (!objects.has(path)) {
        const cut = path.lastIndexOf(".");
        const o = vm.newObject();
        vm.setProp(objectAt(cut < 0 ? "" : path.slice(0, cut)), path.slice(cut + 1), o);
        objects.set(path, o);
        owned.push(o);
      }
      return objects.get(path);
    };
    let failure = null;
    for (const [dotted, fn] of Object.entries(tools)) {
      const cut = dotted.lastIndexOf(".");
      const handle = vm.newFunction(dotted, (...argHandles) => {
        const args = argHandles.map((h) => vm.dump(h));
        const deferred = vm.newPromise();
        fn(...args)
          .then(
            (value) => {
              const h = toGuest(value);
              deferred.resolve(h);
              if (h !== vm.undefined) h.dispose();
            },
            (error) => {
              const h = vm.newError(String(error && error.message));
              deferred.reject(h);
              h.dispose();
            },
          )
          .catch((error) => {
            failure ??= error;
          })
          .finally(() => {
            deferred.dispose();
            const jobs = runtime.executePendingJobs();
            if (jobs.error) {
              failure ??= new Error(`pending job threw: ${JSON.stringify(vm.dump(jobs.error))}`);
              jobs.error.dispose();
            }
          });
        return deferred.handle;
      });
      vm.setProp(objectAt(dotted.slice(0, cut)), dotted.slice(cut + 1), handle);
      handle.dispose();
    }
    const promise = vm.unwrapResult(vm.evalCode(wrapAgentScript(script.source), `${script.name}.js`));
    // resolvePromise listens with a guest `then`, which runs only as a pending job.
    const settling = vm.resolvePromise(promise);
    runtime.executePendingJobs();
    const settled = await settling;
    promise.dispose();
    if (failure) throw failure;
    const handle = vm.unwrapResult(settled);
    const value = vm.dump(handle);
    handle.dispose();
    return value;
  } finally {
    for (const h of owned.reverse()) h.dispose();
    vm.dispose();
    runtime.dispose();
  }
}

export async function teardown() {
  QuickJS = null;
}
