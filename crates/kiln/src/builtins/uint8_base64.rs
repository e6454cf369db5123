//! Uint8Array to and from base64 and hex: `Uint8Array.fromBase64`,
//! `Uint8Array.fromHex`, and `toBase64`, `toHex`, `setFromBase64`,
//! `setFromHex` on `Uint8Array.prototype`
//! ([proposal-arraybuffer-base64](https://tc39.es/proposal-arraybuffer-base64/spec/)).

use super::array_buffer;
use super::typed_array::{ElementType, TypedArrayData, length_of, new_uint8_array, ta_data};
use crate::JsResult;
use crate::heap::StringId;
use crate::interpreter::{Args, Vm};
use crate::object::Attrs;
use crate::value::Value;

pub fn init(vm: &mut Vm) {
    let ctor = vm.intrinsics.uint8_array;
    let proto = vm.intrinsics.uint8_array_prototype;
    vm.define_native(ctor, "fromBase64", from_base64, 1);
    vm.define_native(ctor, "fromHex", from_hex, 1);
    vm.define_native(proto, "setFromBase64", set_from_base64, 1);
    vm.define_native(proto, "setFromHex", set_from_hex, 1);
    vm.define_native(proto, "toBase64", to_base64, 0);
    vm.define_native(proto, "toHex", to_hex, 0);
}

/// A decoding that stopped: what was read and decoded, and whether it stopped on an error.
struct Decoded {
    read: usize,
    bytes: Vec<u8>,
    error: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum LastChunk {
    Loose,
    Strict,
    StopBeforePartial,
}

fn is_ascii_whitespace(c: u16) -> bool {
    matches!(c, 0x09 | 0x0a | 0x0c | 0x0d | 0x20)
}

fn skip_whitespace(s: &[u16], mut i: usize) -> usize {
    while i < s.len() && is_ascii_whitespace(s[i]) {
        i += 1;
    }
    i
}

fn base64_value(c: u16) -> Option<u32> {
    let c = u8::try_from(c).ok()?;
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// DecodeBase64Chunk: None when `strict` and the padding bits are not zero.
fn decode_chunk(chunk: &[u32], strict: bool) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    for k in 0..4 {
        bits = bits << 6 | chunk.get(k).copied().unwrap_or(0);
    }
    let b = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
    match chunk.len() {
        2 if strict && b[1] != 0 => None,
        2 => Some(vec![b[0]]),
        3 if strict && b[2] != 0 => None,
        3 => Some(vec![b[0], b[1]]),
        _ => Some(b.to_vec()),
    }
}

/// [FromBase64](https://tc39.es/proposal-arraybuffer-base64/spec/#sec-frombase64)
fn decode_base64(s: &[u16], url: bool, last: LastChunk, max_length: usize) -> Decoded {
    let mut out = Decoded {
        read: 0,
        bytes: Vec::new(),
        error: false,
    };
    if max_length == 0 {
        return out;
    }
    let mut chunk: Vec<u32> = Vec::with_capacity(4);
    let mut index = 0;
    let fail = |mut out: Decoded| {
        out.error = true;
        out
    };
    loop {
        index = skip_whitespace(s, index);
        if index == s.len() {
            if !chunk.is_empty() {
                match last {
                    LastChunk::StopBeforePartial => return out,
                    LastChunk::Loose if chunk.len() > 1 => {
                        out.bytes
                            .extend(decode_chunk(&chunk, false).unwrap_or_default());
                    }
                    _ => return fail(out),
                }
            }
            out.read = s.len();
            return out;
        }
        let c = s[index];
        index += 1;
        if c == b'=' as u16 {
            if chunk.len() < 2 {
                return fail(out);
            }
            index = skip_whitespace(s, index);
            if chunk.len() == 2 {
                if index == s.len() {
                    if last == LastChunk::StopBeforePartial {
                        return out;
                    }
                    return fail(out);
                }
                if s[index] == b'=' as u16 {
                    index = skip_whitespace(s, index + 1);
                }
            }
            if index < s.len() {
                return fail(out);
            }
            match decode_chunk(&chunk, last == LastChunk::Strict) {
                Some(b) => out.bytes.extend(b),
                None => return fail(out),
            }
            out.read = s.len();
            return out;
        }
        let c = if url {
            if c == b'+' as u16 || c == b'/' as u16 {
                return fail(out);
            }
            match u8::try_from(c) {
                Ok(b'-') => b'+' as u16,
                Ok(b'_') => b'/' as u16,
                _ => c,
            }
        } else {
            c
        };
        let Some(v) = base64_value(c) else {
            return fail(out);
        };
        let remaining = max_length - out.bytes.len();
        if (remaining == 1 && chunk.len() == 2) || (remaining == 2 && chunk.len() == 3) {
            return out;
        }
        chunk.push(v);
        if chunk.len() == 4 {
            out.bytes
                .extend(decode_chunk(&chunk, false).unwrap_or_default());
            chunk.clear();
            out.read = index;
            if out.bytes.len() == max_length {
                return out;
            }
        }
    }
}

/// `bytes` in base64 (the URL-safe alphabet with `url`), padded with `=` unless
/// `omit_padding`.
pub(crate) fn encode_base64(bytes: &[u8], url: bool, omit_padding: bool) -> String {
    let table: &[u8; 64] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.len();
        let bits = (chunk[0] as u32) << 16
            | (chunk.get(1).copied().unwrap_or(0) as u32) << 8
            | chunk.get(2).copied().unwrap_or(0) as u32;
        for k in 0..4 {
            if k <= n {
                out.push(table[(bits >> (18 - 6 * k) & 63) as usize] as char);
            } else if !omit_padding {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of standard, padded base64 text (`Uint8Array.fromBase64(s, { lastChunkHandling:
/// "strict" })`), or None when `s` is not such text.
pub(crate) fn decode_base64_strict(s: &str) -> Option<Vec<u8>> {
    let units: Vec<u16> = s.encode_utf16().collect();
    let decoded = decode_base64(&units, false, LastChunk::Strict, usize::MAX);
    (!decoded.error).then_some(decoded.bytes)
}

/// [FromHex](https://tc39.es/proposal-arraybuffer-base64/spec/#sec-fromhex)
fn decode_hex(s: &[u16], max_length: usize) -> Decoded {
    let mut out = Decoded {
        read: 0,
        bytes: Vec::new(),
        error: false,
    };
    if !s.len().is_multiple_of(2) {
        out.error = true;
        return out;
    }
    let digit = |c: u16| char::from_u32(c as u32).and_then(|c| c.to_digit(16));
    while out.read < s.len() && out.bytes.len() < max_length {
        let (Some(hi), Some(lo)) = (digit(s[out.read]), digit(s[out.read + 1])) else {
            out.error = true;
            return out;
        };
        out.read += 2;
        out.bytes.push((hi * 16 + lo) as u8);
    }
    out
}

fn string_arg(vm: &mut Vm, v: Value) -> JsResult<Vec<u16>> {
    let Some(s) = v.as_string() else {
        return Err(vm.type_error("The argument must be a string"));
    };
    Ok(units_of(vm, s))
}

fn units_of(vm: &mut Vm, s: StringId) -> Vec<u16> {
    vm.heap.units(s).iter().collect()
}

/// GetOptionsObject: undefined means no options.
fn options(vm: &mut Vm, v: Value) -> JsResult<Option<Value>> {
    if v.is_undefined() {
        return Ok(None);
    }
    if !v.is_object() {
        return Err(vm.type_error("The options argument must be an object"));
    }
    Ok(Some(v))
}

/// An option that must be one of `choices` (not coerced); `None` when undefined.
fn choice(
    vm: &mut Vm,
    opts: Option<Value>,
    name: &str,
    choices: &[&str],
) -> JsResult<Option<usize>> {
    let Some(o) = opts else { return Ok(None) };
    let key = vm.key(name);
    let v = vm.get(o, key)?;
    if v.is_undefined() {
        return Ok(None);
    }
    if let Some(s) = v.as_string() {
        let text = vm.heap.string_to_rust(s);
        if let Some(i) = choices.iter().position(|c| *c == text) {
            return Ok(Some(i));
        }
    }
    Err(vm.type_error(format!("Invalid value for option {name}")))
}

fn alphabet_option(vm: &mut Vm, opts: Option<Value>) -> JsResult<bool> {
    Ok(choice(vm, opts, "alphabet", &["base64", "base64url"])? == Some(1))
}

fn last_chunk_option(vm: &mut Vm, opts: Option<Value>) -> JsResult<LastChunk> {
    Ok(
        match choice(
            vm,
            opts,
            "lastChunkHandling",
            &["loose", "strict", "stop-before-partial"],
        )? {
            Some(1) => LastChunk::Strict,
            Some(2) => LastChunk::StopBeforePartial,
            _ => LastChunk::Loose,
        },
    )
}

/// [Uint8Array.fromBase64](https://tc39.es/proposal-arraybuffer-base64/spec/#sec-uint8array.frombase64)
fn from_base64(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let s = string_arg(vm, vm.arg(args, 0))?;
    let opts = options(vm, vm.arg(args, 1))?;
    let url = alphabet_option(vm, opts)?;
    let last = last_chunk_option(vm, opts)?;
    let result = decode_base64(&s, url, last, usize::MAX);
    if result.error {
        return Err(vm.syntax_error("Invalid base64 string"));
    }
    Ok(new_uint8_array(vm, result.bytes))
}

/// [Uint8Array.fromHex](https://tc39.es/proposal-arraybuffer-base64/spec/#sec-uint8array.fromhex)
fn from_hex(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let s = string_arg(vm, vm.arg(args, 0))?;
    let result = decode_hex(&s, usize::MAX);
    if result.error {
        return Err(vm.syntax_error("Invalid hex string"));
    }
    Ok(new_uint8_array(vm, result.bytes))
}

/// ValidateUint8Array
fn this_uint8_array(vm: &mut Vm, this: Value, method: &str) -> JsResult<TypedArrayData> {
    match this.as_object().and_then(|o| ta_data(vm, o)) {
        Some(t) if t.element == ElementType::Uint8 => Ok(t),
        _ => Err(vm.type_error(format!(
            "{method} called on a value that is not a Uint8Array"
        ))),
    }
}

/// The current length of a Uint8Array, or a TypeError when it is out of bounds.
fn current_length(vm: &mut Vm, t: &TypedArrayData) -> JsResult<usize> {
    match length_of(vm, t) {
        Some(n) => Ok(n),
        None => Err(vm.type_error("The Uint8Array is detached or out of bounds")),
    }
}

/// Write decoded bytes, then report `{ read, written }` or the decoding error.
fn finish_set(vm: &mut Vm, t: &TypedArrayData, result: Decoded, what: &str) -> JsResult<Value> {
    let written = result.bytes.len();
    let at = t.byte_offset;
    array_buffer::data_mut(vm, t.buffer).write(at, &result.bytes[..written]);
    if result.error {
        return Err(vm.syntax_error(format!("Invalid {what} string")));
    }
    let obj = super::new_plain_object(vm);
    let read_key = vm.key("read");
    let written_key = vm.key("written");
    vm.define_builtin(
        obj,
        read_key,
        Value::number(result.read as f64),
        Attrs::DEFAULT,
    );
    vm.define_builtin(
        obj,
        written_key,
        Value::number(written as f64),
        Attrs::DEFAULT,
    );
    Ok(Value::object(obj))
}

/// [Uint8Array.prototype.setFromBase64](https://tc39.es/proposal-arraybuffer-base64/spec/#sec-uint8array.prototype.setfrombase64)
fn set_from_base64(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let t = this_uint8_array(vm, this, "Uint8Array.prototype.setFromBase64")?;
    let s = string_arg(vm, vm.arg(args, 0))?;
    let opts = options(vm, vm.arg(args, 1))?;
    let url = alphabet_option(vm, opts)?;
    let last = last_chunk_option(vm, opts)?;
    let len = current_length(vm, &t)?;
    let result = decode_base64(&s, url, last, len);
    finish_set(vm, &t, result, "base64")
}

/// [Uint8Array.prototype.setFromHex](https://tc39.es/proposal-arraybuffer-base64/spec/#sec-uint8array.prototype.setfromhex)
fn set_from_hex(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let t = this_uint8_array(vm, this, "Uint8Array.prototype.setFromHex")?;
    let s = string_arg(vm, vm.arg(args, 0))?;
    let len = current_length(vm, &t)?;
    let result = decode_hex(&s, len);
    finish_set(vm, &t, result, "hex")
}

/// GetUint8ArrayBytes
fn bytes_of(vm: &mut Vm, t: &TypedArrayData) -> JsResult<Vec<u8>> {
    let len = current_length(vm, t)?;
    Ok(array_buffer::data(vm, t.buffer).to_vec(t.byte_offset..t.byte_offset + len))
}

/// [Uint8Array.prototype.toBase64](https://tc39.es/proposal-arraybuffer-base64/spec/#sec-uint8array.prototype.tobase64)
fn to_base64(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let t = this_uint8_array(vm, this, "Uint8Array.prototype.toBase64")?;
    let opts = options(vm, vm.arg(args, 0))?;
    let url = alphabet_option(vm, opts)?;
    let omit_padding = match opts {
        Some(o) => {
            let key = vm.key("omitPadding");
            let v = vm.get(o, key)?;
            vm.to_boolean(v)
        }
        None => false,
    };
    // the copy of the bytes, the text and the string made of it exist together
    let len = current_length(vm, &t)?;
    vm.charge_allocation(len + 2 * len.div_ceil(3) * 4)?;
    let bytes = bytes_of(vm, &t)?;
    let out = encode_base64(&bytes, url, omit_padding);
    Ok(Value::string(vm.heap.alloc_str(&out)))
}

/// [Uint8Array.prototype.toHex](https://tc39.es/proposal-arraybuffer-base64/spec/#sec-uint8array.prototype.tohex)
fn to_hex(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let t = this_uint8_array(vm, this, "Uint8Array.prototype.toHex")?;
    // the copy of the bytes, the text and the string made of it exist together
    let len = current_length(vm, &t)?;
    vm.charge_allocation(len * 5)?;
    let bytes = bytes_of(vm, &t)?;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    Ok(Value::string(vm.heap.alloc_str(&out)))
}
