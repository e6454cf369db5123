// ---- structuredClone, crypto, console, timers ----

const TYPED_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array];
if (typeof Float16Array === "function") TYPED_ARRAYS.push(Float16Array);
const ERROR_CONSTRUCTORS = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
const PLATFORM_CLASSES = [Headers, Request, Response, URL, URLSearchParams, TextEncoder, TextDecoder];

function dataCloneError(what) {
  return new DOMException(`${what} could not be cloned`, "DataCloneError");
}

// https://html.spec.whatwg.org/multipage/structured-data.html#structuredserializeinternal
// and its deserialization, in one pass; `memory` maps each object to its copy (cycles and
// shared references are kept).
function cloneValue(value, memory) {
  if (typeof value === "symbol") throw dataCloneError("A Symbol");
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return value;
  const known = memory.get(value);
  if (known !== undefined) return known;
  if (typeof value === "function") throw dataCloneError(`The function ${value.name || "(anonymous)"}`);
  let copy;
  if (value instanceof Boolean) copy = new Boolean(Boolean.prototype.valueOf.call(value));
  else if (value instanceof Number) copy = new Number(Number.prototype.valueOf.call(value));
  else if (value instanceof String) copy = new String(String.prototype.valueOf.call(value));
  else if (value instanceof BigInt) copy = Object(BigInt.prototype.valueOf.call(value));
  else if (value instanceof Date) copy = new Date(Date.prototype.getTime.call(value));
  else if (value instanceof RegExp) copy = new RegExp(value.source, value.flags);
  else if (value instanceof ArrayBuffer) copy = value.slice(0);
  else if (ArrayBuffer.isView(value)) {
    const buffer = cloneValue(value.buffer, memory);
    if (value instanceof DataView) copy = new DataView(buffer, value.byteOffset, value.byteLength);
    else {
      const Kind = TYPED_ARRAYS.find((C) => value instanceof C);
      copy = new Kind(buffer, value.byteOffset, value.length);
    }
  } else if (value instanceof Map) {
    copy = new Map();
    memory.set(value, copy);
    for (const [k, v] of Map.prototype.entries.call(value)) copy.set(cloneValue(k, memory), cloneValue(v, memory));
    return copy;
  } else if (value instanceof Set) {
    copy = new Set();
    memory.set(value, copy);
    for (const v of Set.prototype.values.call(value)) copy.add(cloneValue(v, memory));
    return copy;
  } else if (value instanceof Error) {
    const name = Object.hasOwn(ERROR_CONSTRUCTORS, value.name) ? value.name : "Error";
    copy = new ERROR_CONSTRUCTORS[name]();
    const message = Object.getOwnPropertyDescriptor(value, "message");
    if (message !== undefined && "value" in message) copy.message = String(message.value);
    if (typeof value.stack === "string") Object.defineProperty(copy, "stack", { value: value.stack, writable: true, configurable: true });
    if ("cause" in value) copy.cause = cloneValue(value.cause, memory);
  } else if (Array.isArray(value)) {
    copy = new Array(value.length);
    memory.set(value, copy);
    for (const key of Object.keys(value)) copy[key] = cloneValue(value[key], memory);
    return copy;
  } else if (PLATFORM_CLASSES.some((C) => value instanceof C) || value instanceof Promise || value instanceof WeakMap || value instanceof WeakSet || value instanceof WeakRef) {
    throw dataCloneError(`A ${Object.prototype.toString.call(value).slice(8, -1)}`);
  } else {
    // Any other object is cloned as a plain object of its own enumerable string keys.
    copy = {};
    memory.set(value, copy);
    for (const key of Object.keys(value)) copy[key] = cloneValue(value[key], memory);
    return copy;
  }
  memory.set(value, copy);
  return copy;
}

function structuredClone(value, options = undefined) {
  if (arguments.length === 0) throw new TypeError("structuredClone: 1 argument required, but only 0 present");
  const transfer = options?.transfer;
  if (transfer !== undefined && [...transfer].length > 0) throw dataCloneError("A transfer list (transferring is not supported)");
  return cloneValue(value, new Map());
}
expose("structuredClone", structuredClone);

// ---- crypto (https://w3c.github.io/webcrypto/#crypto-interface) ----

const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array];

class Crypto {
  getRandomValues(array) {
    if (!INTEGER_ARRAYS.some((C) => array instanceof C)) {
      throw new DOMException("getRandomValues: the argument must be an integer typed array", "TypeMismatchError");
    }
    if (array.byteLength > 65536) {
      throw new DOMException(`getRandomValues: ${array.byteLength} bytes requested, more than 65536`, "QuotaExceededError");
    }
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(host.randomBytes(array.byteLength));
    return array;
  }

  randomUUID() {
    return host.randomUUID();
  }
}
Object.defineProperty(Crypto.prototype, Symbol.toStringTag, { value: "Crypto", configurable: true });
expose("crypto", new Crypto());

// ---- errors no one catches (timer callbacks, waitUntil promises) ----

// `console` is the embedder's (kiln::Runtime::set_console), installed before this module
// runs; the handler replacing it does not silence these reports.
const consoleError = console.error;

function reportError(error) {
  consoleError.call(console, "Uncaught", error);
}

// ---- timers ----
//
// Each timer waits on the host (`sleep`); the callback runs unless the timer was cleared.
// Timers belong to the request that set them: when its execution ends, the ones still
// waiting are forgotten (`forgetTimers`).

let nextTimerId = 1;
const activeTimers = new Set();
// whether a timer was started since the timers were last forgotten
let timersStarted = false;

function startTimer(callback, delay, args, repeat) {
  if (typeof callback !== "function") throw new TypeError("The timer callback must be a function");
  const id = nextTimerId++;
  const ms = Math.max(0, Number(delay) || 0);
  activeTimers.add(id);
  timersStarted = true;
  const tick = () => {
    host.sleep(ms).then(() => {
      if (!activeTimers.has(id)) return;
      if (!repeat) activeTimers.delete(id);
      try {
        callback(...args);
      } catch (error) {
        reportError(error);
      }
      if (repeat && activeTimers.has(id)) tick();
    });
  };
  tick();
  return id;
}

function forgetTimers() {
  activeTimers.clear();
  timersStarted = false;
}

expose("setTimeout", function setTimeout(callback, delay = 0, ...args) {
  return startTimer(callback, delay, args, false);
});
expose("setInterval", function setInterval(callback, delay = 0, ...args) {
  return startTimer(callback, delay, args, true);
});
expose("clearTimeout", function clearTimeout(id = undefined) {
  activeTimers.delete(id);
});
expose("clearInterval", function clearInterval(id = undefined) {
  activeTimers.delete(id);
});
