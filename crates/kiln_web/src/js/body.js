// ---- Request and Response (https://fetch.spec.whatwg.org/#request-class) ----
//
// A body is held whole: a string (text) or a Uint8Array (bytes), never a stream, in the
// record of the Request/Response that owns it: { source, used, ... }.

const NULL_BODY_STATUS = [101, 103, 204, 205, 304];
const REDIRECT_STATUS = [301, 302, 303, 307, 308];
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;
// Marks a construction from trusted parts (the host's request, fetch's response).
const INTERNAL = Symbol("internal");

// https://fetch.spec.whatwg.org/#concept-bodyinit-extract: [source, Content-Type or null]
function extractBody(init) {
  if (typeof init === "string") return [init, "text/plain;charset=UTF-8"];
  if (init instanceof URLSearchParams) return [init.toString(), "application/x-www-form-urlencoded;charset=UTF-8"];
  const bytes = bufferSourceBytes(init);
  if (bytes !== null) return [bytes, null];
  return [usv(init), "text/plain;charset=UTF-8"];
}

function bodyText(source) {
  const text = typeof source === "string" ? source : host.utf8Decode(source, false, false);
  // UTF-8 decode removes a leading byte order mark.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function bodyBytes(source) {
  return typeof source === "string" ? encodeUTF8(source) : source.slice();
}

// https://fetch.spec.whatwg.org/#concept-body-consume-body
function consumeBody(record, kind) {
  if (record.used) return Promise.reject(new TypeError("Body has already been used"));
  const source = record.source;
  if (source !== null) record.used = true;
  try {
    switch (kind) {
      case "text":
        return Promise.resolve(source === null ? "" : bodyText(source));
      case "json":
        return Promise.resolve(JSON.parse(source === null ? "" : bodyText(source)));
      case "arrayBuffer":
        return Promise.resolve(source === null ? new ArrayBuffer(0) : bodyBytes(source).buffer);
      default:
        return Promise.resolve(source === null ? new Uint8Array(0) : bodyBytes(source));
    }
  } catch (error) {
    return Promise.reject(error);
  }
}

// https://fetch.spec.whatwg.org/#body-mixin on a class whose body record `recordOf` reads
// (and brand-checks: it throws a TypeError for another object).
function installBodyMethods(Class, recordOf) {
  const methods = {
    get bodyUsed() {
      return recordOf(this).used;
    },
    text() {
      return consumeBody(recordOf(this), "text");
    },
    json() {
      return consumeBody(recordOf(this), "json");
    },
    arrayBuffer() {
      return consumeBody(recordOf(this), "arrayBuffer");
    },
    bytes() {
      return consumeBody(recordOf(this), "bytes");
    },
  };
  for (const name of Reflect.ownKeys(methods)) {
    const desc = Object.getOwnPropertyDescriptor(methods, name);
    desc.enumerable = false;
    Object.defineProperty(Class.prototype, name, desc);
  }
}

function normalizeMethod(method) {
  const s = byteString(method, "Method");
  if (!HEADER_NAME.test(s)) throw new TypeError(`Invalid method: ${JSON.stringify(s)}`);
  const upper = s.toUpperCase();
  if (upper === "CONNECT" || upper === "TRACE" || upper === "TRACK") throw new TypeError(`Method ${s} is forbidden`);
  if (["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"].includes(upper)) return upper;
  return s;
}

let requestBodyRecord;

// A Request's or Response's state is one record held in one private field (a private field
// costs a definition per object, an ordinary property of a record made by a literal does
// not). The record is also the body's: { source, used } are read by the body methods.

class Request {
  // { method, url, headers: a Headers, or the host's flat list until `headers` is first
  // read, redirect, source, used }
  #r;

  constructor(input, init = undefined) {
    if (input === INTERNAL) {
      // init: [method, url, flat header list, body source]
      this.#r = { method: init[0], url: init[1], headers: init[2], redirect: "follow", source: init[3], used: false };
      return;
    }
    if (arguments.length === 0) throw new TypeError("Request constructor: 1 argument required, but only 0 present");
    if (init !== undefined && init !== null && typeof init !== "object" && typeof init !== "function") {
      throw new TypeError("Request init must be an object");
    }
    init ??= {};
    let inputRecord = null;
    let r;
    if (input instanceof Request) {
      inputRecord = input.#r;
      r = { method: inputRecord.method, url: inputRecord.url, headers: new Headers(input.headers), redirect: inputRecord.redirect, source: null, used: false };
      if (inputRecord.used) throw new TypeError("Cannot construct a Request from one whose body was already used");
    } else {
      const parts = parseURL(input);
      if (parts === null) throw new TypeError(`Invalid URL: ${usv(input)}`);
      if (parts[USERNAME] !== "" || parts[PASSWORD] !== "") {
        throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${parts[HREF]}`);
      }
      r = { method: "GET", url: parts[HREF], headers: new Headers(), redirect: "follow", source: null, used: false };
    }
    if (init.method !== undefined) r.method = normalizeMethod(init.method);
    if (init.redirect !== undefined) {
      const redirect = String(init.redirect);
      if (!["follow", "error", "manual"].includes(redirect)) {
        throw new TypeError(`Invalid redirect mode: ${JSON.stringify(redirect)}`);
      }
      r.redirect = redirect;
    }
    if (init.headers !== undefined) r.headers = new Headers(init.headers);
    const hasInitBody = init.body !== undefined && init.body !== null;
    if ((hasInitBody || (inputRecord !== null && inputRecord.source !== null)) && (r.method === "GET" || r.method === "HEAD")) {
      throw new TypeError("Request with GET/HEAD method cannot have body");
    }
    if (hasInitBody) {
      const [source, type] = extractBody(init.body);
      r.source = source;
      if (type !== null && !r.headers.has("content-type")) r.headers.append("content-type", type);
    } else if (inputRecord !== null && inputRecord.source !== null) {
      // The new request takes the input's body; the input's is then used.
      r.source = inputRecord.source;
      inputRecord.used = true;
    }
    this.#r = r;
  }

  static {
    requestBodyRecord = (request) => request.#r;
    installBodyMethods(Request, requestBodyRecord);
  }

  get method() {
    return this.#r.method;
  }
  get url() {
    return this.#r.url;
  }
  get headers() {
    const r = this.#r;
    if (Array.isArray(r.headers)) r.headers = headersFromList(r.headers, "none");
    return r.headers;
  }
  get redirect() {
    return this.#r.redirect;
  }
  clone() {
    const r = this.#r;
    if (r.used) throw new TypeError("Cannot clone a Request whose body was already used");
    const headers = this.headers;
    return new Request(INTERNAL, [r.method, r.url, headerList(headers).slice(), r.source]);
  }
}
Object.defineProperty(Request.prototype, Symbol.toStringTag, { value: "Request", configurable: true });

let responseRecord;
let initializeResponse;

class Response {
  // { status, statusText, headers, source, used, type, url, redirected }
  #r;

  constructor(body = null, init = undefined) {
    if (body === INTERNAL) {
      // init: [status, statusText, Headers, body source, type, url, redirected]
      this.#r = { status: init[0], statusText: init[1], headers: init[2], source: init[3], used: false, type: init[4], url: init[5], redirected: init[6] };
      return;
    }
    this.#r = { status: 200, statusText: "", headers: new Headers(), source: null, used: false, type: "default", url: "", redirected: false };
    let extracted = null;
    if (body !== null && body !== undefined) extracted = extractBody(body);
    initializeResponse(this, init, extracted);
  }

  static {
    // https://fetch.spec.whatwg.org/#initialize-a-response
    initializeResponse = (response, init, extracted) => {
      const r = response.#r;
      if (init !== undefined && init !== null && typeof init !== "object" && typeof init !== "function") {
        throw new TypeError("Response init must be an object");
      }
      // A missing init is the dictionary's defaults (nothing to read).
      if (init !== undefined && init !== null) {
        // WebIDL unsigned short
        const code = init.status === undefined ? 200 : Number(init.status) & 0xffff;
        if (code < 200 || code > 599) throw new RangeError(`The status provided (${code}) is outside the range [200, 599]`);
        const statusText = init.statusText === undefined ? "" : byteString(init.statusText, "Status text");
        if (statusText !== "" && !REASON_PHRASE.test(statusText)) throw new TypeError(`Invalid status text: ${JSON.stringify(statusText)}`);
        r.status = code;
        r.statusText = statusText;
        if (init.headers !== undefined) fillHeaders(r.headers, init.headers);
      }
      if (extracted === null) return;
      if (NULL_BODY_STATUS.includes(r.status)) throw new TypeError(`Response with null body status ${r.status} cannot have body`);
      r.source = extracted[0];
      const list = headerList(r.headers);
      if (extracted[1] !== null && !listHas(list, "content-type", undefined)) list.push("content-type", extracted[1]);
    };
    responseRecord = (response) => response.#r;
    installBodyMethods(Response, responseRecord);
  }

  static json(data, init = undefined) {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError("Response.json: the value is not JSON serializable");
    const response = new Response(INTERNAL, [200, "", new Headers(), null, "default", "", false]);
    initializeResponse(response, init, [text, "application/json"]);
    return response;
  }

  static redirect(url, status = 302) {
    const parts = parseURL(url);
    if (parts === null) throw new TypeError(`Invalid URL: ${usv(url)}`);
    status = Number(status) & 0xffff;
    if (!REDIRECT_STATUS.includes(status)) throw new RangeError(`Invalid redirect status: ${status}`);
    return new Response(INTERNAL, [status, "", headersFromList(["location", parts[HREF]], "immutable"), null, "default", "", false]);
  }

  static error() {
    return new Response(INTERNAL, [0, "", headersFromList([], "immutable"), null, "error", "", false]);
  }

  get type() {
    return this.#r.type;
  }
  get url() {
    return this.#r.url;
  }
  get redirected() {
    return this.#r.redirected;
  }
  get status() {
    return this.#r.status;
  }
  get ok() {
    const status = this.#r.status;
    return status >= 200 && status <= 299;
  }
  get statusText() {
    return this.#r.statusText;
  }
  get headers() {
    return this.#r.headers;
  }
  clone() {
    const r = this.#r;
    if (r.used) throw new TypeError("Cannot clone a Response whose body was already used");
    const headers = headersFromList(headerList(r.headers), headersGuard(r.headers));
    return new Response(INTERNAL, [r.status, r.statusText, headers, r.source, r.type, r.url, r.redirected]);
  }
}
Object.defineProperty(Response.prototype, Symbol.toStringTag, { value: "Response", configurable: true });

expose("Request", Request);
expose("Response", Response);
