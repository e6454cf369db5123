//! The byte-level encoding of a snapshot payload: LEB128 integers, length-prefixed
//! byte strings, and a reader that checks every read against the end of its input.

use super::{SnapshotError, SnapshotErrorKind};

/// Appends encoded values to a byte vector.
#[derive(Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    pub fn bool(&mut self, v: bool) {
        self.bytes.push(v as u8);
    }

    /// An unsigned integer in LEB128.
    pub fn u64(&mut self, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.bytes.push(byte);
                return;
            }
            self.bytes.push(byte | 0x80);
        }
    }

    pub fn u32(&mut self, v: u32) {
        self.u64(v as u64);
    }

    pub fn usize(&mut self, v: usize) {
        self.u64(v as u64);
    }

    pub fn f64(&mut self, v: f64) {
        self.bytes.extend_from_slice(&v.to_bits().to_le_bytes());
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.usize(b.len());
        self.bytes.extend_from_slice(b);
    }

    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    pub fn units(&mut self, u: &[u16]) {
        self.usize(u.len());
        for &c in u {
            self.bytes.extend_from_slice(&c.to_le_bytes());
        }
    }

    pub fn option<T>(&mut self, v: Option<T>, mut some: impl FnMut(&mut Self, T)) {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                some(self, v);
            }
        }
    }
}

/// Reads encoded values; every method fails cleanly at the end of the input.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

pub type Read<T> = Result<T, SnapshotError>;

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }

    pub fn is_at_end(&self) -> bool {
        self.at == self.bytes.len()
    }

    fn take(&mut self, n: usize) -> Read<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| SnapshotError::new(SnapshotErrorKind::Corrupt, "truncated payload"))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    pub fn u8(&mut self) -> Read<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn bool(&mut self) -> Read<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(corrupt("a boolean is neither 0 nor 1")),
        }
    }

    pub fn u64(&mut self) -> Read<u64> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let byte = self.u8()?;
            let bits = (byte & 0x7f) as u64;
            if shift == 63 && bits > 1 {
                return Err(corrupt("an integer overflows 64 bits"));
            }
            v |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(corrupt("an integer overflows 64 bits"))
    }

    pub fn u32(&mut self) -> Read<u32> {
        u32::try_from(self.u64()?).map_err(|_| corrupt("an integer overflows 32 bits"))
    }

    pub fn u16(&mut self) -> Read<u16> {
        u16::try_from(self.u64()?).map_err(|_| corrupt("an integer overflows 16 bits"))
    }

    pub fn usize(&mut self) -> Read<usize> {
        usize::try_from(self.u64()?).map_err(|_| corrupt("an integer overflows usize"))
    }

    /// A count of items that each take at least `min_bytes` of input: a hostile count
    /// cannot make the reader reserve more memory than the input could fill.
    pub fn count(&mut self, min_bytes: usize) -> Read<usize> {
        let n = self.usize()?;
        if n.saturating_mul(min_bytes.max(1)) > self.bytes.len() - self.at {
            return Err(corrupt("a count exceeds the remaining input"));
        }
        Ok(n)
    }

    pub fn f64(&mut self) -> Read<f64> {
        let b = self.take(8)?;
        Ok(f64::from_bits(u64::from_le_bytes(
            b.try_into().expect("take(8) returns eight bytes"),
        )))
    }

    pub fn bytes(&mut self) -> Read<&'a [u8]> {
        let n = self.count(1)?;
        self.take(n)
    }

    pub fn string(&mut self) -> Read<String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| corrupt("a string is not UTF-8"))
    }

    pub fn units(&mut self) -> Read<Vec<u16>> {
        let n = self.count(2)?;
        let raw = self.take(n * 2)?;
        Ok(raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect())
    }

    pub fn option<T>(&mut self, some: impl FnOnce(&mut Self) -> Read<T>) -> Read<Option<T>> {
        match self.u8()? {
            0 => Ok(None),
            1 => some(self).map(Some),
            _ => Err(corrupt("an option tag is neither 0 nor 1")),
        }
    }

    /// `n` items read by `item`, where each takes at least `min_bytes` of input.
    pub fn list<T>(
        &mut self,
        min_bytes: usize,
        mut item: impl FnMut(&mut Self) -> Read<T>,
    ) -> Read<Vec<T>> {
        let n = self.count(min_bytes)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(item(self)?);
        }
        Ok(out)
    }
}

pub fn corrupt(message: &str) -> SnapshotError {
    SnapshotError::new(SnapshotErrorKind::Corrupt, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_round_trip() {
        let mut w = Writer::default();
        for v in [0, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            w.u64(v);
        }
        w.f64(-0.0);
        w.units(&[0xD800, 65]);
        let mut r = Reader::new(&w.bytes);
        for v in [0, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            assert_eq!(r.u64().unwrap(), v);
        }
        assert_eq!(r.f64().unwrap().to_bits(), (-0.0f64).to_bits());
        assert_eq!(r.units().unwrap(), vec![0xD800, 65]);
        assert!(r.is_at_end());
    }

    #[test]
    fn hostile_input_fails_cleanly() {
        // an endless integer, a length beyond the input, a too-large count
        assert!(Reader::new(&[0xff; 20]).u64().is_err());
        assert!(Reader::new(&[5, 1, 2]).bytes().is_err());
        let mut w = Writer::default();
        w.u64(u64::MAX);
        assert!(Reader::new(&w.bytes).list(8, |r| r.u8()).is_err());
        assert!(Reader::new(&[]).u8().is_err());
        assert!(Reader::new(&[2]).bool().is_err());
    }
}
