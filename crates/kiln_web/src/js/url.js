// ---- URL and URLSearchParams (https://url.spec.whatwg.org/) ----
//
// Parsing and the setters are the `url` crate's (WHATWG-conformant); a URL object keeps
// its record as the parts the host returns.

// Indices into a URL's parts.
const HREF = 0;
const PROTOCOL = 1;
const USERNAME = 2;
const PASSWORD = 3;
const HOST = 4;
const HOSTNAME = 5;
const PORT = 6;
const PATHNAME = 7;
const SEARCH = 8;
const HASH = 9;
const ORIGIN = 10;

function parseURL(url, base) {
  return host.urlParse(usv(url), base === undefined ? undefined : usv(base));
}

let searchParamsUpdated;
let newSearchParamsFor;
let syncSearchParams;
let searchParamsPairs;

class URL {
  #parts;
  #searchParams = null;

  constructor(url, base = undefined) {
    const parts = parseURL(url, base);
    if (parts === null) throw new TypeError(`Invalid URL: ${usv(url)}`);
    this.#parts = parts;
  }

  static {
    // URLSearchParams of this URL changed: its query becomes their serialization.
    searchParamsUpdated = (url, serialized) => {
      url.#parts = host.urlSet(url.#parts[HREF], "search", serialized);
    };
  }

  static canParse(url, base = undefined) {
    return parseURL(url, base) !== null;
  }

  static parse(url, base = undefined) {
    const parts = parseURL(url, base);
    if (parts === null) return null;
    return new URL(parts[HREF]);
  }

  #set(component, value) {
    const parts = host.urlSet(this.#parts[HREF], component, usv(value));
    // A setter given a value it cannot use leaves the URL unchanged.
    if (parts !== null) this.#parts = parts;
    if (component === "search" || component === "href") if (this.#searchParams !== null) syncSearchParams(this.#searchParams, this.#parts[SEARCH]);
  }

  get href() {
    return this.#parts[HREF];
  }
  set href(value) {
    const parts = parseURL(value);
    if (parts === null) throw new TypeError(`Invalid URL: ${usv(value)}`);
    this.#parts = parts;
    if (this.#searchParams !== null) syncSearchParams(this.#searchParams, parts[SEARCH]);
  }
  get origin() {
    return this.#parts[ORIGIN];
  }
  get protocol() {
    return this.#parts[PROTOCOL];
  }
  set protocol(value) {
    this.#set("protocol", value);
  }
  get username() {
    return this.#parts[USERNAME];
  }
  set username(value) {
    this.#set("username", value);
  }
  get password() {
    return this.#parts[PASSWORD];
  }
  set password(value) {
    this.#set("password", value);
  }
  get host() {
    return this.#parts[HOST];
  }
  set host(value) {
    this.#set("host", value);
  }
  get hostname() {
    return this.#parts[HOSTNAME];
  }
  set hostname(value) {
    this.#set("hostname", value);
  }
  get port() {
    return this.#parts[PORT];
  }
  set port(value) {
    this.#set("port", value);
  }
  get pathname() {
    return this.#parts[PATHNAME];
  }
  set pathname(value) {
    this.#set("pathname", value);
  }
  get search() {
    return this.#parts[SEARCH];
  }
  set search(value) {
    this.#set("search", value);
  }
  get searchParams() {
    this.#searchParams ??= newSearchParamsFor(this, this.#parts[SEARCH]);
    return this.#searchParams;
  }
  get hash() {
    return this.#parts[HASH];
  }
  set hash(value) {
    this.#set("hash", value);
  }
  toString() {
    return this.#parts[HREF];
  }
  toJSON() {
    return this.#parts[HREF];
  }
}
Object.defineProperty(URL.prototype, Symbol.toStringTag, { value: "URL", configurable: true });
for (const name of ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "searchParams", "hash", "toString", "toJSON"]) {
  const desc = Object.getOwnPropertyDescriptor(URL.prototype, name);
  desc.enumerable = true;
  Object.defineProperty(URL.prototype, name, desc);
}

function parseQuery(query) {
  return host.formParse(query.startsWith("?") ? query.slice(1) : query);
}

class URLSearchParams {
  // name, value, name, value, ...
  #list = [];
  #url = null;

  constructor(init = "") {
    if (init !== null && (typeof init === "object" || typeof init === "function")) {
      for (const [name, value] of initPairs(init, "URLSearchParams")) this.#list.push(usv(name), usv(value));
    } else {
      this.#list = parseQuery(usv(init));
    }
  }

  static {
    newSearchParamsFor = (url, query) => {
      const params = new URLSearchParams(query);
      params.#url = url;
      return params;
    };
    syncSearchParams = (params, query) => {
      params.#list = parseQuery(query);
    };
    searchParamsPairs = (params) => {
      const pairs = [];
      for (let i = 0; i < params.#list.length; i += 2) pairs.push([params.#list[i], params.#list[i + 1]]);
      return pairs;
    };
  }

  #update() {
    if (this.#url !== null) searchParamsUpdated(this.#url, this.toString());
  }

  get size() {
    return this.#list.length / 2;
  }

  append(name, value) {
    this.#list.push(usv(name), usv(value));
    this.#update();
  }

  delete(name, value = undefined) {
    listDelete(this.#list, usv(name), value === undefined ? undefined : usv(value));
    this.#update();
  }

  get(name) {
    name = usv(name);
    const list = this.#list;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === name) return list[i + 1];
    }
    return null;
  }

  getAll(name) {
    return listGetAll(this.#list, usv(name));
  }

  has(name, value = undefined) {
    return listHas(this.#list, usv(name), value === undefined ? undefined : usv(value));
  }

  set(name, value) {
    listSet(this.#list, usv(name), usv(value));
    this.#update();
  }

  // A stable sort by name, comparing code units.
  sort() {
    const pairs = [];
    for (let i = 0; i < this.#list.length; i += 2) pairs.push([this.#list[i], this.#list[i + 1]]);
    pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.#list = pairs.flat();
    this.#update();
  }

  forEach(callback, thisArg = undefined) {
    if (typeof callback !== "function") throw new TypeError("URLSearchParams.prototype.forEach: the callback is not a function");
    for (let i = 0; i < this.#list.length; i += 2) {
      callback.call(thisArg, this.#list[i + 1], this.#list[i], this);
    }
  }

  entries() {
    return new URLSearchParamsIterator(this, "key+value");
  }
  keys() {
    return new URLSearchParamsIterator(this, "key");
  }
  values() {
    return new URLSearchParamsIterator(this, "value");
  }

  toString() {
    return host.formSerialize(this.#list);
  }
}
URLSearchParams.prototype[Symbol.iterator] = URLSearchParams.prototype.entries;
Object.defineProperty(URLSearchParams.prototype, Symbol.toStringTag, { value: "URLSearchParams", configurable: true });

const URLSearchParamsIterator = makePairIteratorClass("URLSearchParams Iterator", searchParamsPairs);

expose("URL", URL);
expose("URLSearchParams", URLSearchParams);
