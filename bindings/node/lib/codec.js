'use strict';
// Values as bytes: the JavaScript side of the format in crates/kiln_bridge/src/codec.rs
// (both must change together). Values cross the boundary by copy and fail closed:
// functions, symbols, proxies, accessors, class instances, symbol keys, cycles and
// shared references, lone surrogates and over-deep nesting are refused with the path
// where they were found ("$.orders[3].total"). No getter or proxy trap ever runs.

const { isProxy } = require('node:util').types;

const UNDEFINED = 0;
const NULL = 1;
const FALSE = 2;
const TRUE = 3;
const INT32 = 4;
const FLOAT64 = 5;
const STRING = 6;
const ARRAY = 7;
const OBJECT = 8;
const BIGINT = 9;
const DATE = 10;
const BYTES = 11;

/** The deepest nesting of arrays and objects that crosses (as the engine's boundary). */
const MAX_DEPTH = 64;

/** A value that cannot cross; `path` is filled in as the refusal unwinds. */
class BoundaryRefusal extends Error {
  constructor(what) {
    super(what);
    this.what = what;
    this.parts = [];
  }

  get path() {
    return '$' + this.parts.reverse().join('');
  }
}

function refuse(what) {
  throw new BoundaryRefusal(what);
}

function describe(value) {
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (isProxy(value)) return 'a proxy';
  return 'an object that is not a plain object or array';
}

/**
 * The buffer, view and set of seen objects that writers start from, one at a time: most
 * messages are small, and a writer of its own costs a buffer, a DataView and a Set,
 * more than writing a small answer does. A writer that finds it taken (a message
 * written while another is) starts on its own.
 */
const SCRATCH_BYTES = 4096;
/** the largest buffer kept as the scratch after a writer outgrew it */
const SCRATCH_KEEP = 1 << 16;
let scratch = newScratch(SCRATCH_BYTES);

function newScratch(size) {
  const buf = Buffer.allocUnsafeSlow(size);
  return { buf, view: new DataView(buf.buffer, buf.byteOffset, buf.byteLength), seen: new Set() };
}

class Writer {
  constructor() {
    const own = scratch ?? newScratch(256);
    scratch = null;
    this.buf = own.buf;
    this.view = own.view;
    this.seen = own.seen;
    this.pos = 0;
  }

  reserve(n) {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const bigger = Buffer.allocUnsafe(size);
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
    this.view = new DataView(bigger.buffer, bigger.byteOffset, bigger.byteLength);
  }

  u8(v) {
    this.reserve(1);
    this.buf[this.pos++] = v;
  }

  u32(v) {
    this.reserve(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
  }

  f64(v) {
    this.reserve(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** A string as its UTF-8 length and bytes; strings with lone surrogates are refused. */
  str(s) {
    const n = s.length;
    this.reserve(4 + n * 3);
    const buf = this.buf;
    const start = this.pos + 4;
    let i = 0;
    // short ASCII strings are copied by hand: cheaper than a call into the encoder
    if (n < 64) {
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + i] = c;
      }
    }
    let written = i;
    if (i < n) {
      if (!s.isWellFormed()) refuse('a string with a lone surrogate');
      written = i + buf.write(i === 0 ? s : s.slice(i), start + i);
    }
    this.view.setUint32(this.pos, written, true);
    this.pos = start + written;
  }

  blob(bytes) {
    this.u32(bytes.length);
    this.reserve(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  value(v, depth = 0) {
    switch (typeof v) {
      case 'undefined':
        return this.u8(UNDEFINED);
      case 'boolean':
        return this.u8(v ? TRUE : FALSE);
      case 'number':
        if ((v | 0) === v && !(v === 0 && 1 / v < 0)) {
          this.reserve(5);
          this.buf[this.pos] = INT32;
          this.view.setInt32(this.pos + 1, v, true);
          this.pos += 5;
        } else {
          this.u8(FLOAT64);
          this.f64(v);
        }
        return;
      case 'string':
        this.u8(STRING);
        return this.str(v);
      case 'bigint':
        this.u8(BIGINT);
        return this.str(v.toString());
      case 'object':
        if (v === null) return this.u8(NULL);
        return this.object(v, depth);
      default:
        refuse(describe(v));
    }
  }

  object(v, depth) {
    if (isProxy(v)) refuse('a proxy');
    const proto = Object.getPrototypeOf(v);
    if (proto === Array.prototype) {
      this.enter(v, depth);
      const n = v.length;
      this.u8(ARRAY);
      this.u32(n);
      for (let i = 0; i < n; i++) {
        const d = Object.getOwnPropertyDescriptor(v, i);
        try {
          if (d !== undefined && d.get === undefined && d.set === undefined) {
            this.value(d.value, depth + 1);
          } else if (d === undefined) {
            this.u8(UNDEFINED); // a hole
          } else {
            refuse('an accessor property');
          }
        } catch (e) {
          if (e instanceof BoundaryRefusal) e.parts.push(`[${i}]`);
          throw e;
        }
      }
      return;
    }
    if (proto === Object.prototype || proto === null) {
      this.enter(v, depth);
      if (Object.getOwnPropertySymbols(v).length > 0) refuse('a symbol-keyed property');
      const keys = Object.keys(v);
      this.u8(OBJECT);
      this.u32(keys.length);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const d = Object.getOwnPropertyDescriptor(v, key);
        try {
          if (d.get !== undefined || d.set !== undefined) refuse('an accessor property');
          this.str(key);
          this.value(d.value, depth + 1);
        } catch (e) {
          if (e instanceof BoundaryRefusal) e.parts.push(`.${key}`);
          throw e;
        }
      }
      return;
    }
    if (v instanceof Date && proto === Date.prototype) {
      this.u8(DATE);
      return this.f64(v.getTime());
    }
    if (v instanceof Uint8Array && (proto === Uint8Array.prototype || proto === Buffer.prototype)) {
      this.enter(v, depth);
      this.u8(BYTES);
      return this.blob(v);
    }
    if (v instanceof ArrayBuffer && proto === ArrayBuffer.prototype) {
      this.enter(v, depth);
      this.u8(BYTES);
      return this.blob(new Uint8Array(v));
    }
    refuse(describe(v));
  }

  enter(v, depth) {
    if (depth >= MAX_DEPTH) refuse('nesting deeper than the limit');
    if (this.seen.has(v)) refuse('an object reached twice (cycle or shared)');
    this.seen.add(v);
  }

  /**
   * The bytes written; the writer is done. A buffer small enough to be the next
   * writers' scratch is copied out of.
   */
  take() {
    const { buf, pos } = this;
    if (buf.length > SCRATCH_KEEP) {
      this.release();
      return buf.subarray(0, pos);
    }
    const bytes = Buffer.allocUnsafe(pos);
    buf.copy(bytes, 0, 0, pos);
    this.release();
    return bytes;
  }

  /** Gives the buffer back as the scratch (when it is not too large); the writer is done. */
  release() {
    if (this.buf === undefined) return;
    if (this.buf.length <= SCRATCH_KEEP && (scratch === null || scratch.buf.length < this.buf.length)) {
      this.seen.clear();
      scratch = { buf: this.buf, view: this.view, seen: this.seen };
    }
    this.buf = undefined;
  }
}

class Reader {
  constructor(buf) {
    this.buf = buf;
    this.pos = 0;
  }

  u8() {
    return this.buf[this.pos++];
  }

  u32() {
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  f64() {
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  str() {
    const n = this.u32();
    const buf = this.buf;
    const start = this.pos;
    const end = start + n;
    this.pos = end;
    if (n < 32) {
      let ascii = '';
      for (let i = start; i < end; i++) {
        const c = buf[i];
        if (c >= 0x80) return buf.toString('utf8', start, end);
        ascii += String.fromCharCode(c);
      }
      return ascii;
    }
    return buf.toString('utf8', start, end);
  }

  blob() {
    const n = this.u32();
    const bytes = new Uint8Array(n);
    bytes.set(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return bytes;
  }

  value() {
    const tag = this.u8();
    switch (tag) {
      case UNDEFINED:
        return undefined;
      case NULL:
        return null;
      case FALSE:
        return false;
      case TRUE:
        return true;
      case INT32: {
        const v = this.buf.readInt32LE(this.pos);
        this.pos += 4;
        return v;
      }
      case FLOAT64:
        return this.f64();
      case STRING:
        return this.str();
      case ARRAY: {
        const n = this.u32();
        const items = new Array(n);
        for (let i = 0; i < n; i++) items[i] = this.value();
        return items;
      }
      case OBJECT: {
        const n = this.u32();
        const object = {};
        for (let i = 0; i < n; i++) {
          const key = this.str();
          const value = this.value();
          if (key === '__proto__') {
            Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
          } else {
            object[key] = value;
          }
        }
        return object;
      }
      case BIGINT:
        return BigInt(this.str());
      case DATE:
        return new Date(this.f64());
      case BYTES:
        return this.blob();
      default:
        throw new Error(`kiln-sandbox: an unknown value tag ${tag} from the engine`);
    }
  }

  done() {
    return this.pos >= this.buf.length;
  }
}

module.exports = { Writer, Reader, BoundaryRefusal, MAX_DEPTH };
