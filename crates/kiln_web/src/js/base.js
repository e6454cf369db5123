// The web platform for Kiln, evaluated once per runtime as the module `kiln:web`.
//
// The classes are written in JavaScript over a few host functions (the `__kiln_web`
// namespace that `kiln_web::install` registers, taken here and removed from the global):
// URL parsing, UTF-8 coding, base64, randomness, timers and fetch. Every global is
// installed as WebIDL does: writable, configurable, not enumerable.

const host = globalThis.__kiln_web;
delete globalThis.__kiln_web;

function expose(name, value) {
  Object.defineProperty(globalThis, name, {
    value,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}

// Marks a construction from trusted parts (the host's request, fetch's response, a
// Headers over an existing list).
const INTERNAL = Symbol("internal");

// WebIDL USVString: ToString (a symbol is a TypeError), then lone surrogates become U+FFFD.
function usv(value) {
  return (typeof value === "string" ? value : `${value}`).toWellFormed();
}

// WebIDL ByteString: ToString (a symbol is a TypeError), then every code unit must be at
// most 0xFF.
function byteString(value, what) {
  const s = typeof value === "string" ? value : `${value}`;
  if (/[^\x00-\xff]/.test(s)) {
    throw new TypeError(`${what} contains a character outside the Latin-1 range: ${JSON.stringify(s)}`);
  }
  return s;
}

// The bytes of a BufferSource (ArrayBuffer or view), copied; null for anything else.
function bufferSourceBytes(value) {
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  if (ArrayBuffer.isView(value)) {
    return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
  }
  return null;
}

// Flat name/value lists (name, value, name, value, ...), as Headers and URLSearchParams
// keep them.

// Replace the first value of `name` and remove the others, or append it.
function listSet(list, name, value) {
  let found = false;
  for (let i = 0; i < list.length; i += 2) {
    if (list[i] !== name) continue;
    if (found) {
      list.splice(i, 2);
      i -= 2;
    } else {
      list[i + 1] = value;
      found = true;
    }
  }
  if (!found) list.push(name, value);
}

// Remove the entries of `name` (with `value` only, unless undefined).
function listDelete(list, name, value) {
  for (let i = list.length - 2; i >= 0; i -= 2) {
    if (list[i] === name && (value === undefined || list[i + 1] === value)) list.splice(i, 2);
  }
}

function listHas(list, name, value) {
  for (let i = 0; i < list.length; i += 2) {
    if (list[i] === name && (value === undefined || list[i + 1] === value)) return true;
  }
  return false;
}

function listGetAll(list, name) {
  const values = [];
  for (let i = 0; i < list.length; i += 2) {
    if (list[i] === name) values.push(list[i + 1]);
  }
  return values;
}

// The [name, value] pairs of a WebIDL (sequence<sequence<T>> or record<T, T>) init, as given.
function initPairs(init, what) {
  const iteratorMethod = init[Symbol.iterator];
  const pairs = [];
  if (iteratorMethod !== undefined && iteratorMethod !== null) {
    if (typeof iteratorMethod !== "function") throw new TypeError(`${what} init's Symbol.iterator is not a function`);
    for (const pair of { [Symbol.iterator]: () => iteratorMethod.call(init) }) {
      if (pair === null || typeof pair !== "object") throw new TypeError(`Each ${what} entry must be a [name, value] pair`);
      const items = [...pair];
      if (items.length !== 2) throw new TypeError(`Each ${what} entry must be a [name, value] pair, got ${items.length} items`);
      pairs.push(items);
    }
    return pairs;
  }
  for (const key of Reflect.ownKeys(init)) {
    if (typeof key === "symbol") continue;
    const desc = Reflect.getOwnPropertyDescriptor(init, key);
    if (desc !== undefined && desc.enumerable) pairs.push([key, init[key]]);
  }
  return pairs;
}

const IteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));

// A WebIDL pair iterator over `entries()` of `target`, recomputed at each step as the
// specification's iterators are (so changes during iteration are seen).
function makePairIteratorClass(tag, entriesOf) {
  class PairIterator {
    #target;
    #kind;
    #index = 0;
    constructor(target, kind) {
      this.#target = target;
      this.#kind = kind;
    }
    next() {
      const pairs = entriesOf(this.#target);
      if (this.#index >= pairs.length) return { value: undefined, done: true };
      const [name, value] = pairs[this.#index++];
      const result = this.#kind === "key" ? name : this.#kind === "value" ? value : [name, value];
      return { value: result, done: false };
    }
  }
  Object.setPrototypeOf(PairIterator.prototype, IteratorPrototype);
  Object.defineProperty(PairIterator.prototype, Symbol.toStringTag, { value: tag, configurable: true });
  return PairIterator;
}

// ---- DOMException ----

const DOM_EXCEPTION_CODES = {
  IndexSizeError: 1,
  HierarchyRequestError: 3,
  WrongDocumentError: 4,
  InvalidCharacterError: 5,
  NoModificationAllowedError: 7,
  NotFoundError: 8,
  NotSupportedError: 9,
  InvalidStateError: 11,
  SyntaxError: 12,
  InvalidModificationError: 13,
  NamespaceError: 14,
  InvalidAccessError: 15,
  TypeMismatchError: 17,
  SecurityError: 18,
  NetworkError: 19,
  AbortError: 20,
  URLMismatchError: 21,
  QuotaExceededError: 22,
  TimeoutError: 23,
  InvalidNodeTypeError: 24,
  DataCloneError: 25,
};

class DOMException extends Error {
  #code;
  constructor(message = "", name = "Error") {
    super(String(message));
    Object.defineProperty(this, "name", { value: String(name), writable: true, configurable: true });
    this.#code = DOM_EXCEPTION_CODES[this.name] ?? 0;
  }
  get code() {
    return this.#code;
  }
}
expose("DOMException", DOMException);
