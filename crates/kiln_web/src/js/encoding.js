// ---- TextEncoder, TextDecoder (https://encoding.spec.whatwg.org/), atob, btoa ----

function encodeUTF8(text) {
  return host.utf8Encode(usv(text));
}

class TextEncoder {
  get encoding() {
    return "utf-8";
  }

  encode(input = "") {
    return encodeUTF8(input);
  }

  // Encodes as many whole code points of `source` as fit in `destination`.
  encodeInto(source, destination) {
    if (!(destination instanceof Uint8Array)) throw new TypeError("TextEncoder.encodeInto: the destination must be a Uint8Array");
    const text = usv(source);
    let read = 0;
    let written = 0;
    while (read < text.length) {
      const cp = text.codePointAt(read);
      const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (written + size > destination.length) break;
      if (size === 1) {
        destination[written] = cp;
      } else if (size === 2) {
        destination[written] = 0xc0 | (cp >> 6);
        destination[written + 1] = 0x80 | (cp & 0x3f);
      } else if (size === 3) {
        destination[written] = 0xe0 | (cp >> 12);
        destination[written + 1] = 0x80 | ((cp >> 6) & 0x3f);
        destination[written + 2] = 0x80 | (cp & 0x3f);
      } else {
        destination[written] = 0xf0 | (cp >> 18);
        destination[written + 1] = 0x80 | ((cp >> 12) & 0x3f);
        destination[written + 2] = 0x80 | ((cp >> 6) & 0x3f);
        destination[written + 3] = 0x80 | (cp & 0x3f);
      }
      written += size;
      read += size === 4 ? 2 : 1;
    }
    return { read, written };
  }
}
Object.defineProperty(TextEncoder.prototype, Symbol.toStringTag, { value: "TextEncoder", configurable: true });

const UTF8_LABELS = ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"];

// How many bytes at the end of `bytes` start a UTF-8 sequence that is not complete yet.
function incompleteTail(bytes) {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 && byte <= 0xf4 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc2 && byte < 0xe0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

class TextDecoder {
  #fatal;
  #ignoreBOM;
  #pending = new Uint8Array(0);
  #bomSeen = false;

  constructor(label = "utf-8", options = undefined) {
    const name = String(label).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "").toLowerCase();
    if (!UTF8_LABELS.includes(name)) throw new RangeError(`The encoding label provided ('${String(label)}') is not supported (only UTF-8 is)`);
    if (options !== undefined && options !== null && typeof options !== "object") throw new TypeError("TextDecoder options must be an object");
    this.#fatal = Boolean(options?.fatal);
    this.#ignoreBOM = Boolean(options?.ignoreBOM);
  }

  get encoding() {
    return "utf-8";
  }
  get fatal() {
    return this.#fatal;
  }
  get ignoreBOM() {
    return this.#ignoreBOM;
  }

  decode(input = undefined, options = undefined) {
    let bytes = new Uint8Array(0);
    if (input !== undefined) {
      bytes = bufferSourceBytes(input);
      if (bytes === null) throw new TypeError("TextDecoder.decode: the input must be an ArrayBuffer or a view of one");
    }
    const stream = Boolean(options?.stream);
    if (this.#pending.length > 0) {
      const joined = new Uint8Array(this.#pending.length + bytes.length);
      joined.set(this.#pending);
      joined.set(bytes, this.#pending.length);
      bytes = joined;
    }
    const keep = stream ? incompleteTail(bytes) : 0;
    this.#pending = bytes.slice(bytes.length - keep);
    const whole = keep > 0 ? bytes.subarray(0, bytes.length - keep) : bytes;
    const stripBOM = !this.#ignoreBOM && !this.#bomSeen;
    const text = host.utf8Decode(whole, this.#fatal, stripBOM);
    if (text === null) {
      this.#pending = new Uint8Array(0);
      this.#bomSeen = false;
      throw new TypeError("The encoded data was not valid UTF-8");
    }
    if (whole.length > 0) this.#bomSeen = true;
    if (!stream) this.#bomSeen = false;
    return text;
  }
}
Object.defineProperty(TextDecoder.prototype, Symbol.toStringTag, { value: "TextDecoder", configurable: true });

expose("TextEncoder", TextEncoder);
expose("TextDecoder", TextDecoder);

function btoa(data) {
  if (arguments.length === 0) throw new TypeError("btoa: 1 argument required, but only 0 present");
  const text = String(data);
  if (/[^\x00-\xff]/.test(text)) throw new DOMException("btoa: the string contains characters outside of the Latin-1 range", "InvalidCharacterError");
  return host.base64Encode(text);
}

function atob(data) {
  if (arguments.length === 0) throw new TypeError("atob: 1 argument required, but only 0 present");
  const decoded = host.base64Decode(String(data));
  if (decoded === null) throw new DOMException("atob: the string to be decoded is not correctly encoded", "InvalidCharacterError");
  return decoded;
}

expose("btoa", btoa);
expose("atob", atob);
