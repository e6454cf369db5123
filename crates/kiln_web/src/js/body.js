// ---- Request and Response (https://fetch.spec.whatwg.org/#request-class) ----
//
// A body is held whole: a string (text) or a Uint8Array (bytes), never a stream, in the
// record of the Request/Response that owns it: { source, used, ... }.

// https://fetch.spec.whatwg.org/#null-body-status
function isNullBodyStatus(status) {
  return status === 101 || status === 103 || status === 204 || status === 205 || status === 304;
}
const REDIRECT_STATUS = [301, 302, 303, 307, 308];
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;

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
let requestRecord;

// A Request's or Response's state is one record held in one private field (a private field
// costs a definition per object, an ordinary property of a record made by a literal does
// not). The record is also the body's: { source, used } are read by the body methods.
//
// Its headers are `list`, the flat header list, and `headers`, the Headers object over
// that same list, made when `headers` is first read (null until then): a handler that
// never reads them costs no Headers object. An immutable list (the guard "immutable") is
// not extensible, and so are the Headers over it. Until the headers are read, `list` may
// also be the list as one string joining it with "\n" (see hostHeaderList): the request's
// headers as the host gave them, or a response's when its only header is its body's
// Content-Type; the host reads a response's list in either form.

// The URL of a Request record. The host's request URL (`hostURL`) is parsed when it is
// first read, so that `url` is its serialization.
function requestURL(r) {
  if (r.hostURL) {
    const record = parseURL(r.url);
    if (record !== null) r.url = record[HREF];
    r.hostURL = false;
  }
  return r.url;
}

class Request {
  // { method, url, hostURL, list, headers, redirect, source, used }
  #r;

  constructor(input, init = undefined) {
    if (input === INTERNAL) {
      // init: the record
      this.#r = init;
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
      inputRecord = requestRecord(input);
      r = { method: inputRecord.method, url: inputRecord.url, hostURL: false, list: inputRecord.list.slice(), headers: null, redirect: inputRecord.redirect, source: null, used: false };
      if (inputRecord.used) throw new TypeError("Cannot construct a Request from one whose body was already used");
    } else {
      const record = parseURL(input);
      if (record === null) throw new TypeError(`Invalid URL: ${usv(input)}`);
      if (record[USERNAME] !== record[USERNAME + 1] || record[PASSWORD] !== record[PASSWORD + 1]) {
        throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${record[HREF]}`);
      }
      r = { method: "GET", url: record[HREF], hostURL: false, list: [], headers: null, redirect: "follow", source: null, used: false };
    }
    if (init.method !== undefined) r.method = normalizeMethod(init.method);
    if (init.redirect !== undefined) {
      const redirect = String(init.redirect);
      if (!["follow", "error", "manual"].includes(redirect)) {
        throw new TypeError(`Invalid redirect mode: ${JSON.stringify(redirect)}`);
      }
      r.redirect = redirect;
    }
    if (init.headers !== undefined) {
      const list = [];
      fillHeaders(list, init.headers);
      r.list = list;
    }
    const hasInitBody = init.body !== undefined && init.body !== null;
    if ((hasInitBody || (inputRecord !== null && inputRecord.source !== null)) && (r.method === "GET" || r.method === "HEAD")) {
      throw new TypeError("Request with GET/HEAD method cannot have body");
    }
    if (hasInitBody) {
      const [source, type] = extractBody(init.body);
      r.source = source;
      if (type !== null && !listHas(r.list, "content-type", undefined)) r.list.push("content-type", type);
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
    // The method, URL, header list and body source, for fetch.
    requestRecord = (request) => {
      const r = request.#r;
      requestURL(r);
      if (typeof r.list === "string") r.list = hostHeaderList(r.list);
      return r;
    };
  }

  get method() {
    return this.#r.method;
  }
  get url() {
    return requestURL(this.#r);
  }
  get headers() {
    const r = this.#r;
    if (r.headers === null) {
      if (typeof r.list === "string") r.list = hostHeaderList(r.list);
      r.headers = headersOver(r.list);
    }
    return r.headers;
  }
  get redirect() {
    return this.#r.redirect;
  }
  clone() {
    const r = requestRecord(this);
    if (r.used) throw new TypeError("Cannot clone a Request whose body was already used");
    return new Request(INTERNAL, { method: r.method, url: r.url, hostURL: false, list: r.list.slice(), headers: null, redirect: r.redirect, source: r.source, used: false });
  }
}
Object.defineProperty(Request.prototype, Symbol.toStringTag, { value: "Request", configurable: true });

let responseRecord;
let responseRecordOrNull;
let initializeResponse;

// A new Response's record.
function responseRecordOf(status, list, headers, source, type) {
  return { status, statusText: "", list, headers, source, used: false, type, url: "", redirected: false };
}

// The header list of a response whose only header is the Content-Type `type`, in the
// string form.
function contentTypeList(type) {
  return `content-type\n${type}`;
}

// A response record's list as an array (made from the string form the first time).
function responseList(r) {
  if (typeof r.list === "string") r.list = hostHeaderList(r.list);
  return r.list;
}

class Response {
  // { status, statusText, list, headers, source, used, type, url, redirected }
  #r;

  constructor(body = null, init = undefined) {
    if (body === INTERNAL) {
      // init: the record
      this.#r = init;
      return;
    }
    this.#r = responseRecordOf(200, [], null, null, "default");
    if (body === null || body === undefined) {
      initializeResponse(this.#r, init, null, null);
    } else {
      const extracted = extractBody(body);
      initializeResponse(this.#r, init, extracted[0], extracted[1]);
    }
  }

  static {
    // https://fetch.spec.whatwg.org/#initialize-a-response, on a record whose headers were
    // not read yet, with the body's source and Content-Type (a null source: no body).
    initializeResponse = (r, init, source, type) => {
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
        if (init.headers !== undefined) fillHeaders(r.list, init.headers);
      }
      if (source === null) return;
      if (isNullBodyStatus(r.status)) throw new TypeError(`Response with null body status ${r.status} cannot have body`);
      r.source = source;
      if (type === null) return;
      if (r.list.length === 0) r.list = contentTypeList(type);
      else if (!listHas(r.list, "content-type", undefined)) r.list.push("content-type", type);
    };
    responseRecord = (response) => response.#r;
    // The record of a Response (by its brand, as WebIDL converts one), or null for any
    // other value.
    responseRecordOrNull = (value) => (typeof value === "object" && value !== null && #r in value ? value.#r : null);
    installBodyMethods(Response, responseRecord);
  }

  static json(data, init = undefined) {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError("Response.json: the value is not JSON serializable");
    // No init: the dictionary's defaults, with nothing to check.
    if (init === undefined || init === null) {
      return new Response(INTERNAL, { status: 200, statusText: "", list: "content-type\napplication/json", headers: null, source: text, used: false, type: "default", url: "", redirected: false });
    }
    const r = responseRecordOf(200, [], null, null, "default");
    initializeResponse(r, init, text, "application/json");
    return new Response(INTERNAL, r);
  }

  static redirect(url, status = 302) {
    const record = parseURL(url);
    if (record === null) throw new TypeError(`Invalid URL: ${usv(url)}`);
    status = Number(status) & 0xffff;
    if (!REDIRECT_STATUS.includes(status)) throw new RangeError(`Invalid redirect status: ${status}`);
    return new Response(INTERNAL, responseRecordOf(status, immutableList(["location", record[HREF]]), null, null, "default"));
  }

  static error() {
    return new Response(INTERNAL, responseRecordOf(0, immutableList([]), null, null, "error"));
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
    const r = this.#r;
    r.headers ??= headersOver(responseList(r));
    return r.headers;
  }
  clone() {
    const r = this.#r;
    if (r.used) throw new TypeError("Cannot clone a Response whose body was already used");
    // The clone's headers have the same guard: an immutable list stays so (a list in the
    // string form is a response's own, not immutable, and is shared as it is).
    const list = typeof r.list === "string" ? r.list : Object.isExtensible(r.list) ? r.list.slice() : immutableList(r.list.slice());
    return new Response(INTERNAL, { status: r.status, statusText: r.statusText, list, headers: null, source: r.source, used: false, type: r.type, url: r.url, redirected: r.redirected });
  }
}
Object.defineProperty(Response.prototype, Symbol.toStringTag, { value: "Response", configurable: true });

expose("Request", Request);
expose("Response", Response);
