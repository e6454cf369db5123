//! Values as bytes: the format [`HostValue`]s take between a host language and a worker.
//!
//! Every integer is little-endian; a string is its UTF-8 length as a `u32` and its bytes.
//! A value is a tag byte and its payload:
//!
//! | tag | value | payload |
//! |---|---|---|
//! | 0 | `undefined` | none |
//! | 1 | `null` | none |
//! | 2, 3 | `false`, `true` | none |
//! | 4 | a Number that is an int32 (not −0) | `i32` |
//! | 5 | any other Number | `f64` |
//! | 6 | a string | string |
//! | 7 | an array | `u32` count, then the elements |
//! | 8 | a plain object | `u32` count, then key (string) and value pairs in property order |
//! | 9 | a BigInt | its decimal digits as a string |
//! | 10 | a Date | `f64` milliseconds since the epoch |
//! | 11 | bytes (a `Uint8Array`) | `u32` length, then the bytes |
//!
//! The JavaScript side of this format is `bindings/node/src/codec.js`; both must change
//! together. Decoding trusts nothing: a count is checked against the bytes left before
//! anything is allocated for it, nesting is bounded by [`MAX_DEPTH`], and any mistake is
//! a [`DecodeError`], never a panic.

use kiln::HostValue;

/// The deepest nesting the decoder follows (the boundary's own depth limit, 64 by
/// default, is checked again when a value enters a runtime).
pub const MAX_DEPTH: usize = 1024;

const UNDEFINED: u8 = 0;
const NULL: u8 = 1;
const FALSE: u8 = 2;
const TRUE: u8 = 3;
const INT32: u8 = 4;
const FLOAT64: u8 = 5;
const STRING: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;
const BIGINT: u8 = 9;
const DATE: u8 = 10;
const BYTES: u8 = 11;

/// Bytes that are not a well-formed encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    pub message: String,
    /// the offset at which decoding failed
    pub offset: usize,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

impl std::error::Error for DecodeError {}

/// Appends encoded data to a byte vector.
#[derive(Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn new() -> Self {
        Writer::default()
    }

    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn f64(&mut self, v: f64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    /// A length or count, which the format keeps below 2^32.
    pub fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }

    pub fn str(&mut self, s: &str) {
        self.blob(s.as_bytes());
    }

    pub fn blob(&mut self, b: &[u8]) {
        self.len(b.len());
        self.bytes.extend_from_slice(b);
    }

    pub fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
            None => self.u8(0),
        }
    }

    pub fn value(&mut self, v: &HostValue) {
        match v {
            HostValue::Undefined => self.u8(UNDEFINED),
            HostValue::Null => self.u8(NULL),
            HostValue::Bool(false) => self.u8(FALSE),
            HostValue::Bool(true) => self.u8(TRUE),
            HostValue::Number(n) => {
                let i = *n as i32;
                if i as f64 == *n && !(i == 0 && n.is_sign_negative()) {
                    self.u8(INT32);
                    self.bytes.extend_from_slice(&i.to_le_bytes());
                } else {
                    self.u8(FLOAT64);
                    self.f64(*n);
                }
            }
            HostValue::String(s) => {
                self.u8(STRING);
                self.str(s);
            }
            HostValue::Array(items) => {
                self.u8(ARRAY);
                self.len(items.len());
                for item in items {
                    self.value(item);
                }
            }
            HostValue::Object(entries) => {
                self.u8(OBJECT);
                self.len(entries.len());
                for (key, value) in entries {
                    self.str(key);
                    self.value(value);
                }
            }
            HostValue::BigInt(digits) => {
                self.u8(BIGINT);
                self.str(digits);
            }
            HostValue::Date(ms) => {
                self.u8(DATE);
                self.f64(*ms);
            }
            HostValue::Bytes(bytes) => {
                self.u8(BYTES);
                self.blob(bytes);
            }
        }
    }
}

/// Reads encoded data from a byte slice.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }

    pub fn fail<T>(&self, message: impl Into<String>) -> Result<T, DecodeError> {
        Err(DecodeError {
            message: message.into(),
            offset: self.at,
        })
    }

    /// The whole input was read.
    pub fn finish(&self) -> Result<(), DecodeError> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            self.fail("unexpected bytes after the end")
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if self.bytes.len() - self.at < n {
            return self.fail("the input ends too early");
        }
        let slice = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub fn f64(&mut self) -> Result<f64, DecodeError> {
        Ok(f64::from_le_bytes(self.array()?))
    }

    /// A count of items that each take at least one byte: never more than the bytes
    /// left, so a hostile count cannot make the reader allocate.
    pub fn count(&mut self) -> Result<usize, DecodeError> {
        let n = self.u32()? as usize;
        if n > self.bytes.len() - self.at {
            return self.fail("a count larger than the input");
        }
        Ok(n)
    }

    pub fn blob(&mut self) -> Result<&'a [u8], DecodeError> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    pub fn str(&mut self) -> Result<String, DecodeError> {
        let start = self.at;
        let bytes = self.blob()?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_string()),
            Err(_) => Err(DecodeError {
                message: "a string that is not UTF-8".into(),
                offset: start,
            }),
        }
    }

    pub fn opt_str(&mut self) -> Result<Option<String>, DecodeError> {
        match self.u8()? {
            0 => Ok(None),
            1 => Ok(Some(self.str()?)),
            _ => self.fail("an optional string with a bad marker"),
        }
    }

    pub fn value(&mut self) -> Result<HostValue, DecodeError> {
        self.value_at(0)
    }

    fn value_at(&mut self, depth: usize) -> Result<HostValue, DecodeError> {
        if depth > MAX_DEPTH {
            return self.fail("a value nested too deeply");
        }
        Ok(match self.u8()? {
            UNDEFINED => HostValue::Undefined,
            NULL => HostValue::Null,
            FALSE => HostValue::Bool(false),
            TRUE => HostValue::Bool(true),
            INT32 => HostValue::Number(i32::from_le_bytes(self.array()?) as f64),
            FLOAT64 => HostValue::Number(self.f64()?),
            STRING => HostValue::String(self.str()?),
            ARRAY => {
                let n = self.count()?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value_at(depth + 1)?);
                }
                HostValue::Array(items)
            }
            OBJECT => {
                let n = self.count()?;
                let mut entries = Vec::with_capacity(n);
                for _ in 0..n {
                    let key = self.str()?;
                    entries.push((key, self.value_at(depth + 1)?));
                }
                HostValue::Object(entries)
            }
            BIGINT => HostValue::BigInt(self.str()?),
            DATE => HostValue::Date(self.f64()?),
            BYTES => HostValue::Bytes(self.blob()?.to_vec()),
            tag => {
                self.at -= 1;
                return self.fail(format!("an unknown value tag {tag}"));
            }
        })
    }
}

/// One value as bytes.
pub fn encode(value: &HostValue) -> Vec<u8> {
    let mut w = Writer::new();
    w.value(value);
    w.bytes
}

/// The one value `bytes` hold.
pub fn decode(bytes: &[u8]) -> Result<HostValue, DecodeError> {
    let mut r = Reader::new(bytes);
    let v = r.value()?;
    r.finish()?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> HostValue {
        HostValue::object([
            ("name", "Ada".into()),
            ("id", 7.into()),
            ("score", HostValue::Number(-0.0)),
            ("ratio", HostValue::Number(0.25)),
            ("nan", HostValue::Number(f64::NAN)),
            (
                "big",
                HostValue::BigInt("-123456789012345678901234567890".into()),
            ),
            ("when", HostValue::Date(1.7e12)),
            ("bytes", HostValue::Bytes(vec![0, 255, 7])),
            (
                "list",
                HostValue::Array(vec![
                    HostValue::Undefined,
                    HostValue::Null,
                    true.into(),
                    false.into(),
                    "ünïcødé ✓".into(),
                ]),
            ),
        ])
    }

    #[test]
    fn values_survive_the_round_trip_with_their_property_order() {
        let bytes = encode(&sample());
        let back = decode(&bytes).unwrap();
        // NaN != NaN: compare the encodings, which are exact
        assert_eq!(encode(&back), bytes);
        let HostValue::Object(entries) = back else {
            panic!("an object")
        };
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "name", "id", "score", "ratio", "nan", "big", "when", "bytes", "list"
            ]
        );
        assert!(matches!(entries[2].1, HostValue::Number(z) if z == 0.0 && z.is_sign_negative()));
    }

    #[test]
    fn small_integers_take_five_bytes() {
        assert_eq!(encode(&7.into()), [INT32, 7, 0, 0, 0]);
        assert_eq!(encode(&HostValue::Number(-0.0))[0], FLOAT64);
        assert_eq!(encode(&HostValue::Number(2f64.powi(31)))[0], FLOAT64);
    }

    #[test]
    fn every_prefix_of_a_value_is_refused_without_panicking() {
        let bytes = encode(&sample());
        for end in 0..bytes.len() {
            assert!(decode(&bytes[..end]).is_err(), "prefix of {end} bytes");
        }
    }

    #[test]
    fn hostile_input_is_an_error() {
        // a count of four billion elements with nothing behind it
        assert_eq!(
            decode(&[ARRAY, 0xff, 0xff, 0xff, 0xff])
                .unwrap_err()
                .message,
            "a count larger than the input"
        );
        assert_eq!(
            decode(&[STRING, 2, 0, 0, 0, 0xc3, 0x28])
                .unwrap_err()
                .message,
            "a string that is not UTF-8"
        );
        assert_eq!(
            decode(&[42]).unwrap_err().message,
            "an unknown value tag 42"
        );
        assert_eq!(
            decode(&[NULL, NULL]).unwrap_err().message,
            "unexpected bytes after the end"
        );
        let mut deep = vec![];
        for _ in 0..=MAX_DEPTH + 1 {
            deep.extend_from_slice(&[ARRAY, 1, 0, 0, 0]);
        }
        deep.push(NULL);
        assert_eq!(
            decode(&deep).unwrap_err().message,
            "a value nested too deeply"
        );
        // arbitrary bytes never panic
        let mut state = 0x9e37_79b9_u32;
        for _ in 0..20_000 {
            let len = (state % 24) as usize;
            let mut input = Vec::with_capacity(len);
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                input.push((state % 14) as u8);
            }
            let _ = decode(&input);
        }
    }
}
