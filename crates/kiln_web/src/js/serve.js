// ---- fetch (https://fetch.spec.whatwg.org/#fetch-method) ----
//
// The guest never opens a connection: `fetch` asks the host, which performs the request
// when its URL's host is allowed and answers
// [status, statusText, flat header list, body (text or bytes), final URL, redirected].

async function fetch(input, init = undefined) {
  const request = new Request(input, init);
  const record = requestBodyRecord(request);
  if (record.source !== null) record.used = true;
  const answer = await host.fetch([request.method, request.url, headerList(request.headers), record.source, request.redirect]);
  const headers = headersFromList(answer[2], "immutable");
  return new Response(INTERNAL, [answer[0], answer[1], headers, answer[3], "basic", answer[4], answer[5]]);
}
expose("fetch", fetch);

// ---- the Workers module form: export default { fetch(request, env, ctx) } ----

class ExecutionContext {
  #waits;
  constructor(waits) {
    this.#waits = waits;
  }
  // Keeps the request's execution alive until `promise` settles (after the response).
  waitUntil(promise) {
    this.#waits.push(Promise.resolve(promise));
  }
}
Object.defineProperty(ExecutionContext.prototype, Symbol.toStringTag, { value: "ExecutionContext", configurable: true });

function describe(value) {
  if (value === null) return "null";
  if (typeof value === "object") return Array.isArray(value) ? "an array" : `an object (${Object.prototype.toString.call(value)})`;
  return typeof value === "undefined" ? "undefined" : `a ${typeof value}`;
}

// Check the handler module `namespace` (named `name` in messages) and install the global
// `__kiln_dispatch(method, url, headers, body)` the host calls once per request (the body:
// null, text, or a Uint8Array).
export function serve(namespace, name) {
  const handler = namespace.default;
  if (handler === null || (typeof handler !== "object" && typeof handler !== "function") || typeof handler.fetch !== "function") {
    let found;
    if (!("default" in namespace)) found = "it has no default export";
    else if (handler === null || (typeof handler !== "object" && typeof handler !== "function")) found = `its default export is ${describe(handler)}`;
    else found = "its default export has no fetch method";
    throw new TypeError(`${name} is not a handler module: expected \`export default { async fetch(request, env, ctx) { ... } }\`, but ${found}`);
  }
  const env = Object.freeze(host.env());

  async function dispatch(method, url, headers, body) {
    const request = new Request(INTERNAL, [method, url, headers, body]);
    const waits = [];
    try {
      const response = await handler.fetch(request, env, new ExecutionContext(waits));
      if (!(response instanceof Response)) throw new TypeError(`fetch() must return a Response (or a promise of one), but returned ${describe(response)}`);
      const record = responseRecord(response);
      if (record.used) throw new TypeError("fetch() returned a Response whose body was already used");
      if (record.status === 0) throw new TypeError("fetch() returned Response.error()");
      host.respond(record.status, record.statusText, headerList(record.headers), record.source);
      if (waits.length > 0) {
        for (const result of await Promise.allSettled(waits)) {
          if (result.status === "rejected") reportError(result.reason);
        }
      }
    } finally {
      forgetTimers();
    }
  }

  Object.defineProperty(globalThis, "__kiln_dispatch", { value: dispatch, writable: false, enumerable: false, configurable: false });
}
