// ---- fetch (https://fetch.spec.whatwg.org/#fetch-method) ----
//
// The guest never opens a connection: `fetch` asks the host, which performs the request
// when its URL's host is allowed and answers
// [status, statusText, flat header list, body (text or bytes), final URL, redirected].

async function fetch(input, init = undefined) {
  const request = new Request(input, init);
  const record = requestRecord(request);
  if (record.source !== null) record.used = true;
  const answer = await host.fetch([record.method, record.url, record.list, record.source, record.redirect]);
  const list = immutableList(hostHeaderList(answer[2]));
  return new Response(INTERNAL, { status: answer[0], statusText: answer[1], list, headers: null, source: answer[3], used: false, type: "basic", url: answer[4], redirected: answer[5] });
}
expose("fetch", fetch);

// ---- the Workers module form: export default { fetch(request, env, ctx) } ----

// The context of the request being served and the promises given to its waitUntil (null
// when none were). A runtime serves one request at a time (an execution ends before the
// next one starts), so this state lives here rather than in a private field of each
// context, which would cost a definition per request.
let currentContext = null;
let currentWaits = null;

class ExecutionContext {
  // Keeps the request's execution alive until `promise` settles (after the response).
  waitUntil(promise) {
    if (this !== currentContext) throw new TypeError("waitUntil() must be called on the context of the request being served");
    if (currentWaits === null) currentWaits = [];
    currentWaits.push(Promise.resolve(promise));
  }
}
Object.defineProperty(ExecutionContext.prototype, Symbol.toStringTag, { value: "ExecutionContext", configurable: true });

function describe(value) {
  if (value === null) return "null";
  if (typeof value === "object") return Array.isArray(value) ? "an array" : `an object (${Object.prototype.toString.call(value)})`;
  return typeof value === "undefined" ? "undefined" : `a ${typeof value}`;
}

// Check the handler module `namespace` (named `name` in messages) and install the global
// `__kiln_dispatch(method, url, headers, body)` the host calls once per request (the URL as
// received, parsed when the handler reads it; the headers as a flat list or one string
// joining it with "\n"; the body: null, text, or a Uint8Array).
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

  // Hand the handler's response (its record) to the host.
  function respond(record) {
    if (record.used) throw new TypeError("fetch() returned a Response whose body was already used");
    if (record.status === 0) throw new TypeError("fetch() returned Response.error()");
    host.respond(record.status, record.statusText, record.list, record.source);
  }

  // The rest of a request whose handler returned a promise (or a thenable) or has work to
  // wait for.
  async function finish(response, context) {
    try {
      let record = responseRecordOrNull(response);
      if (record === null) {
        response = await response;
        record = responseRecordOrNull(response);
        if (record === null) throw new TypeError(`fetch() must return a Response (or a promise of one), but returned ${describe(response)}`);
      }
      respond(record);
      // (A request whose execution was abandoned has no waits of its own: the context is
      // another request's by then.)
      const waits = context === currentContext ? currentWaits : null;
      if (waits !== null) {
        for (const result of await Promise.allSettled(waits)) {
          if (result.status === "rejected") reportError(result.reason);
        }
      }
    } finally {
      if (timersStarted) forgetTimers();
    }
  }

  function dispatch(method, url, headers, body) {
    const request = new Request(INTERNAL, { method, url, hostURL: true, list: headers, headers: null, redirect: "follow", source: body, used: false });
    const context = new ExecutionContext();
    currentContext = context;
    currentWaits = null;
    let response;
    try {
      response = handler.fetch(request, env, context);
    } catch (error) {
      if (timersStarted) forgetTimers();
      throw error;
    }
    // A Response returned synchronously, with nothing given to waitUntil, is answered at
    // once, as Deno.serve does: no promise, no job.
    if (currentWaits === null) {
      const record = responseRecordOrNull(response);
      if (record !== null) {
        try {
          respond(record);
        } finally {
          if (timersStarted) forgetTimers();
        }
        return undefined;
      }
    }
    return finish(response, context);
  }

  Object.defineProperty(globalThis, "__kiln_dispatch", { value: dispatch, writable: false, enumerable: false, configurable: false });
}
