// ---- URL and URLSearchParams (https://url.spec.whatwg.org/) ----
//
// Parsing and the setters are the `url` crate's (WHATWG-conformant). A URL object keeps
// the record the host returns: its href and, for each component, where the component's
// getter finds it in href (every getter but `origin` returns a slice of href), so a parse
// crosses the boundary as one string and a component is made only when it is read.

// Indices into a URL record: href, then the start of each component (its end follows).
const HREF = 0;
const PROTOCOL = 1;
const USERNAME = 3;
const PASSWORD = 5;
const HOST = 7;
const HOSTNAME = 9;
const PORT = 11;
const PATHNAME = 13;
const SEARCH = 15;
const HASH = 17;
// true when parsing href again gives this record
const REPARSES = 19;

// The search component of a record (the getters slice theirs in place: a call costs more).
function recordSearch(record) {
  return record[HREF].slice(record[SEARCH], record[SEARCH + 1]);
}

// The last record parsed without a base whose href parses to itself: a parse of that href
// is answered from it, so `new URL(request.url)` after `request.url` crosses to the host
// once. Records are never changed (a setter makes a new one), so one may be shared.
let lastParsed = null;

function parseURL(url, base) {
  // (A string equal to a serialized URL is well-formed: the USVString conversion would
  // give it back unchanged.)
  if (base === undefined && lastParsed !== null && url === lastParsed[HREF]) return lastParsed;
  const input = usv(url);
  if (base !== undefined) return host.urlParse(input, usv(base));
  const record = host.urlParse(input, undefined);
  if (record !== null && record[REPARSES]) lastParsed = record;
  return record;
}

let searchParamsUpdated;
let setURLComponent;
let syncURLSearchParams;
let newSearchParamsFor;
let syncSearchParams;
let searchParamsPairs;

// The URLSearchParams of each URL whose `searchParams` was read (most never are; a second
// private field would cost every URL a definition).
const urlSearchParams = new WeakMap();

class URL {
  #record;

  constructor(url, base = undefined) {
    const record = parseURL(url, base);
    if (record === null) throw new TypeError(`Invalid URL: ${usv(url)}`);
    this.#record = record;
  }

  static {
    // URLSearchParams of this URL changed: its query becomes their serialization.
    searchParamsUpdated = (url, serialized) => {
      url.#record = host.urlSet(url.#record[HREF], "search", serialized);
    };
    // (Functions rather than private methods: a private method is defined on every
    // instance.)
    setURLComponent = (url, component, value) => {
      const record = host.urlSet(url.#record[HREF], component, usv(value));
      // A setter given a value it cannot use leaves the URL unchanged.
      if (record !== null) url.#record = record;
      if (component === "search") syncURLSearchParams(url);
    };
    syncURLSearchParams = (url) => {
      const params = urlSearchParams.get(url);
      if (params !== undefined) syncSearchParams(params, recordSearch(url.#record));
    };
  }

  static canParse(url, base = undefined) {
    return parseURL(url, base) !== null;
  }

  static parse(url, base = undefined) {
    const record = parseURL(url, base);
    if (record === null) return null;
    return new URL(record[HREF]);
  }

  get href() {
    return this.#record[HREF];
  }
  set href(value) {
    const record = parseURL(value);
    if (record === null) throw new TypeError(`Invalid URL: ${usv(value)}`);
    this.#record = record;
    syncURLSearchParams(this);
  }
  get origin() {
    return host.urlOrigin(this.#record[HREF]);
  }
  get protocol() {
    const record = this.#record;
    return record[HREF].slice(record[PROTOCOL], record[PROTOCOL + 1]);
  }
  set protocol(value) {
    setURLComponent(this, "protocol", value);
  }
  get username() {
    const record = this.#record;
    return record[HREF].slice(record[USERNAME], record[USERNAME + 1]);
  }
  set username(value) {
    setURLComponent(this, "username", value);
  }
  get password() {
    const record = this.#record;
    return record[HREF].slice(record[PASSWORD], record[PASSWORD + 1]);
  }
  set password(value) {
    setURLComponent(this, "password", value);
  }
  get host() {
    const record = this.#record;
    return record[HREF].slice(record[HOST], record[HOST + 1]);
  }
  set host(value) {
    setURLComponent(this, "host", value);
  }
  get hostname() {
    const record = this.#record;
    return record[HREF].slice(record[HOSTNAME], record[HOSTNAME + 1]);
  }
  set hostname(value) {
    setURLComponent(this, "hostname", value);
  }
  get port() {
    const record = this.#record;
    return record[HREF].slice(record[PORT], record[PORT + 1]);
  }
  set port(value) {
    setURLComponent(this, "port", value);
  }
  get pathname() {
    const record = this.#record;
    return record[HREF].slice(record[PATHNAME], record[PATHNAME + 1]);
  }
  set pathname(value) {
    setURLComponent(this, "pathname", value);
  }
  get search() {
    const record = this.#record;
    return record[HREF].slice(record[SEARCH], record[SEARCH + 1]);
  }
  set search(value) {
    setURLComponent(this, "search", value);
  }
  get searchParams() {
    let params = urlSearchParams.get(this);
    if (params === undefined) {
      params = newSearchParamsFor(this, recordSearch(this.#record));
      urlSearchParams.set(this, params);
    }
    return params;
  }
  get hash() {
    const record = this.#record;
    return record[HREF].slice(record[HASH], record[HASH + 1]);
  }
  set hash(value) {
    setURLComponent(this, "hash", value);
  }
  toString() {
    return this.#record[HREF];
  }
  toJSON() {
    return this.#record[HREF];
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
