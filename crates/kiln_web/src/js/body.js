// ---- Request and Response (https://fetch.spec.whatwg.org/#request-class) ----
//
// A body is held whole: a string (text) or a Uint8Array (bytes), never a stream. A body
// record is shared by the Request/Response that owns it: { source, used }.

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

class Request {
  #method;
  #url;
  // a Headers, or the host's flat list until `headers` is first read
  #headers;
  #body;
  #redirect;

  constructor(input, init = undefined) {
    if (input === INTERNAL) {
      // init: [method, url, flat header list, body source]
      this.#method = init[0];
      this.#url = init[1];
      this.#headers = init[2];
      this.#body = { source: init[3], used: false };
      this.#redirect = "follow";
      return;
    }
    if (arguments.length === 0) throw new TypeError("Request constructor: 1 argument required, but only 0 present");
    if (init !== undefined && init !== null && typeof init !== "object" && typeof init !== "function") {
      throw new TypeError("Request init must be an object");
    }
    init ??= {};
    let inputBody = null;
    if (input instanceof Request) {
      this.#url = input.#url;
      this.#method = input.#method;
      this.#redirect = input.#redirect;
      this.#headers = new Headers(input.headers);
      inputBody = input.#body;
      if (inputBody.used) throw new TypeError("Cannot construct a Request from one whose body was already used");
    } else {
      const parts = parseURL(input);
      if (parts === null) throw new TypeError(`Invalid URL: ${usv(input)}`);
      if (parts[USERNAME] !== "" || parts[PASSWORD] !== "") {
        throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${parts[HREF]}`);
      }
      this.#url = parts[HREF];
      this.#method = "GET";
      this.#redirect = "follow";
      this.#headers = new Headers();
    }
    if (init.method !== undefined) this.#method = normalizeMethod(init.method);
    if (init.redirect !== undefined) {
      const redirect = String(init.redirect);
      if (!["follow", "error", "manual"].includes(redirect)) {
        throw new TypeError(`Invalid redirect mode: ${JSON.stringify(redirect)}`);
      }
      this.#redirect = redirect;
    }
    if (init.headers !== undefined) this.#headers = new Headers(init.headers);
    const hasInitBody = init.body !== undefined && init.body !== null;
    if ((hasInitBody || (inputBody !== null && inputBody.source !== null)) && (this.#method === "GET" || this.#method === "HEAD")) {
      throw new TypeError("Request with GET/HEAD method cannot have body");
    }
    if (hasInitBody) {
      const [source, type] = extractBody(init.body);
      this.#body = { source, used: false };
      if (type !== null && !this.#headers.has("content-type")) this.#headers.append("content-type", type);
    } else if (inputBody !== null && inputBody.source !== null) {
      // The new request takes the input's body; the input's is then used.
      this.#body = { source: inputBody.source, used: false };
      inputBody.used = true;
    } else {
      this.#body = { source: null, used: false };
    }
  }

  static {
    requestBodyRecord = (request) => request.#body;
    installBodyMethods(Request, requestBodyRecord);
  }

  get method() {
    return this.#method;
  }
  get url() {
    return this.#url;
  }
  get headers() {
    if (Array.isArray(this.#headers)) this.#headers = headersFromList(this.#headers, "none");
    return this.#headers;
  }
  get redirect() {
    return this.#redirect;
  }
  clone() {
    if (this.#body.used) throw new TypeError("Cannot clone a Request whose body was already used");
    const headers = this.headers;
    return new Request(INTERNAL, [this.#method, this.#url, headerList(headers).slice(), this.#body.source]);
  }
}
Object.defineProperty(Request.prototype, Symbol.toStringTag, { value: "Request", configurable: true });

let responseParts;
let initializeResponse;

class Response {
  #status = 200;
  #statusText = "";
  #headers;
  #body;
  #type = "default";
  #url = "";
  #redirected = false;

  constructor(body = null, init = undefined) {
    if (body === INTERNAL) {
      // init: [status, statusText, Headers, body source, type, url, redirected]
      this.#status = init[0];
      this.#statusText = init[1];
      this.#headers = init[2];
      this.#body = { source: init[3], used: false };
      this.#type = init[4];
      this.#url = init[5];
      this.#redirected = init[6];
      return;
    }
    this.#headers = new Headers();
    let extracted = null;
    if (body !== null && body !== undefined) extracted = extractBody(body);
    initializeResponse(this, init, extracted);
  }

  static {
    // https://fetch.spec.whatwg.org/#initialize-a-response
    initializeResponse = (response, init, extracted) => {
      if (init !== undefined && init !== null && typeof init !== "object" && typeof init !== "function") {
        throw new TypeError("Response init must be an object");
      }
      init ??= {};
      // WebIDL unsigned short
      const code = init.status === undefined ? 200 : Number(init.status) & 0xffff;
      if (code < 200 || code > 599) throw new RangeError(`The status provided (${code}) is outside the range [200, 599]`);
      const statusText = init.statusText === undefined ? "" : byteString(init.statusText, "Status text");
      if (statusText !== "" && !REASON_PHRASE.test(statusText)) throw new TypeError(`Invalid status text: ${JSON.stringify(statusText)}`);
      response.#status = code;
      response.#statusText = statusText;
      if (init.headers !== undefined) fillHeaders(response.#headers, init.headers);
      if (extracted === null) {
        response.#body = { source: null, used: false };
        return;
      }
      if (NULL_BODY_STATUS.includes(code)) throw new TypeError(`Response with null body status ${code} cannot have body`);
      response.#body = { source: extracted[0], used: false };
      const list = headerList(response.#headers);
      if (extracted[1] !== null && !listHas(list, "content-type", undefined)) list.push("content-type", extracted[1]);
    };
    installBodyMethods(Response, (response) => response.#body);
    responseParts = (response) => [response.#status, response.#statusText, headerList(response.#headers), response.#body];
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
    return this.#type;
  }
  get url() {
    return this.#url;
  }
  get redirected() {
    return this.#redirected;
  }
  get status() {
    return this.#status;
  }
  get ok() {
    return this.#status >= 200 && this.#status <= 299;
  }
  get statusText() {
    return this.#statusText;
  }
  get headers() {
    return this.#headers;
  }
  clone() {
    if (this.#body.used) throw new TypeError("Cannot clone a Response whose body was already used");
    const headers = headersFromList(headerList(this.#headers), headersGuard(this.#headers));
    return new Response(INTERNAL, [this.#status, this.#statusText, headers, this.#body.source, this.#type, this.#url, this.#redirected]);
  }
}
Object.defineProperty(Response.prototype, Symbol.toStringTag, { value: "Response", configurable: true });

expose("Request", Request);
expose("Response", Response);
