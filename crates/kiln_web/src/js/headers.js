// ---- Headers (https://fetch.spec.whatwg.org/#headers-class) ----

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HTTP_WHITESPACE_EDGES = /^[\t\n\r ]+|[\t\n\r ]+$/g;

function headerName(name) {
  const s = byteString(name, "Header name");
  if (!HEADER_NAME.test(s)) throw new TypeError(`Invalid header name: ${JSON.stringify(s)}`);
  return s.toLowerCase();
}

// Normalize (strip leading and trailing HTTP whitespace), then validate.
function headerValue(value) {
  const s = byteString(value, "Header value").replace(HTTP_WHITESPACE_EDGES, "");
  if (/[\0\r\n]/.test(s)) throw new TypeError(`Invalid header value: ${JSON.stringify(s)}`);
  return s;
}

// Internal access to a Headers object's list and guard, for Request, Response and fetch.
let headerList;
let setHeadersGuard;
let headersGuard;

class Headers {
  // name (lower case), value, name, value, ... in insertion order
  #list = [];
  // "none" or "immutable"
  #guard = "none";

  constructor(init = undefined) {
    if (init !== undefined) fillHeaders(this, init);
  }

  static {
    headerList = (headers) => headers.#list;
    setHeadersGuard = (headers, guard) => {
      headers.#guard = guard;
    };
    headersGuard = (headers) => headers.#guard;
  }

  #checkMutable() {
    if (this.#guard === "immutable") throw new TypeError("These headers are immutable");
  }

  append(name, value) {
    name = headerName(name);
    value = headerValue(value);
    this.#checkMutable();
    this.#list.push(name, value);
  }

  delete(name) {
    name = headerName(name);
    this.#checkMutable();
    listDelete(this.#list, name, undefined);
  }

  get(name) {
    name = headerName(name);
    const list = this.#list;
    let result = null;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === name) result = result === null ? list[i + 1] : `${result}, ${list[i + 1]}`;
    }
    return result;
  }

  getSetCookie() {
    return listGetAll(this.#list, "set-cookie");
  }

  has(name) {
    return listHas(this.#list, headerName(name), undefined);
  }

  set(name, value) {
    name = headerName(name);
    value = headerValue(value);
    this.#checkMutable();
    listSet(this.#list, name, value);
  }

  forEach(callback, thisArg = undefined) {
    if (typeof callback !== "function") throw new TypeError("Headers.prototype.forEach: the callback is not a function");
    const pairs = sortAndCombine(this.#list);
    for (let i = 0; i < pairs.length; i++) {
      callback.call(thisArg, pairs[i][1], pairs[i][0], this);
    }
  }

  entries() {
    return new HeadersIterator(this, "key+value");
  }
  keys() {
    return new HeadersIterator(this, "key");
  }
  values() {
    return new HeadersIterator(this, "value");
  }
}
Headers.prototype[Symbol.iterator] = Headers.prototype.entries;
Object.defineProperty(Headers.prototype, Symbol.toStringTag, { value: "Headers", configurable: true });

// The headers as they are iterated: names sorted, values of one name combined with ", ",
// except `set-cookie`, whose values stay separate.
function sortAndCombine(list) {
  const names = [];
  for (let i = 0; i < list.length; i += 2) {
    if (!names.includes(list[i])) names.push(list[i]);
  }
  names.sort();
  const pairs = [];
  for (const name of names) {
    if (name === "set-cookie") {
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] === name) pairs.push([name, list[i + 1]]);
      }
      continue;
    }
    let value = null;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === name) value = value === null ? list[i + 1] : `${value}, ${list[i + 1]}`;
    }
    pairs.push([name, value]);
  }
  return pairs;
}

const HeadersIterator = makePairIteratorClass("Headers Iterator", (headers) => sortAndCombine(headerList(headers)));

// (sequence<sequence<ByteString>> or record<ByteString, ByteString>)
function fillHeaders(headers, init) {
  if (init === null || (typeof init !== "object" && typeof init !== "function")) {
    throw new TypeError("Headers init must be an object, an iterable of [name, value] pairs or a Headers");
  }
  for (const [name, value] of initPairs(init, "Headers")) headers.append(name, value);
}

// Headers over a list the host or this platform built (lower-case names, valid values).
function headersFromList(list, guard) {
  const headers = new Headers();
  const own = headerList(headers);
  for (let i = 0; i < list.length; i++) own.push(list[i]);
  setHeadersGuard(headers, guard);
  return headers;
}

expose("Headers", Headers);
