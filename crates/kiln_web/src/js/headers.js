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

// Internal access to a Headers object's list, for Request, Response and fetch.
let headerList;

// A Headers object's state is its list alone (each private field or private method costs
// every instance a definition): the list of headers whose guard is "immutable" is made
// non-extensible, which is also what the guard is read from.
function checkMutable(list) {
  if (!Object.isExtensible(list)) throw new TypeError("These headers are immutable");
}

// The list the next `new Headers(INTERNAL)` takes.
let listForHeaders = null;

class Headers {
  // name (lower case), value, name, value, ... in insertion order
  #list;

  constructor(init = undefined) {
    if (init === INTERNAL) {
      this.#list = listForHeaders;
      listForHeaders = null;
      return;
    }
    this.#list = [];
    if (init !== undefined) fillHeaders(this.#list, init);
  }

  static {
    headerList = (headers) => headers.#list;
  }

  append(name, value) {
    name = headerName(name);
    value = headerValue(value);
    checkMutable(this.#list);
    this.#list.push(name, value);
  }

  delete(name) {
    name = headerName(name);
    checkMutable(this.#list);
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
    checkMutable(this.#list);
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

// (sequence<sequence<ByteString>> or record<ByteString, ByteString>), appended to `list`
function fillHeaders(list, init) {
  if (init === null || (typeof init !== "object" && typeof init !== "function")) {
    throw new TypeError("Headers init must be an object, an iterable of [name, value] pairs or a Headers");
  }
  for (const [name, value] of initPairs(init, "Headers")) list.push(headerName(name), headerValue(value));
}

// Headers over `list` itself (not a copy): Request and Response hand their list to the
// Headers object they make when `headers` is first read.
function headersOver(list) {
  listForHeaders = list;
  return new Headers(INTERNAL);
}

// `list` (lower-case names, valid values), made immutable: Headers over it refuse changes.
function immutableList(list) {
  return Object.preventExtensions(list);
}

// The host's header list: name, value, ... as an array, or as one string that joins them
// with "\n" (which no header name or value holds).
function hostHeaderList(list) {
  if (typeof list !== "string") return list;
  return list === "" ? [] : list.split("\n");
}

expose("Headers", Headers);
