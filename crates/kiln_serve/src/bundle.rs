//! `.kbc` files: a handler's code compiled ahead of time (`kiln build`), so that `kiln serve`
//! starts without parsing or compiling.
//!
//! ```text
//! magic        8 bytes  "KILNKBC\n"
//! version      u8 length + the Kiln version that wrote it
//! format       u64      kiln_bytecode::FORMAT_ID
//! checksum     32 bytes SHA-256 of the payload
//! payload      resolutions: u32 count of (referrer, specifier, key) strings
//!              modules:     u32 count of (key string, u32 length + CompiledModule bytes)
//! ```
//!
//! Strings are a u32 length and UTF-8; numbers little-endian. A file from another Kiln
//! version or format is refused with a message saying so; a file whose checksum does not
//! match is corrupt; each module is decoded and validated ([`kiln::CompiledModule::from_bytes`]).
//! Any bytes give a [`HandlerCode`] or an error, never a panic.

use crate::HandlerCode;
use kiln::CompiledModule;
use sha2::{Digest, Sha256};

const MAGIC: &[u8; 8] = b"KILNKBC\n";
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The `.kbc` bytes of `code`.
pub fn write(code: &HandlerCode) -> Result<Vec<u8>, String> {
    let mut payload = Vec::new();
    put_u32(&mut payload, code.resolved.len());
    for ((referrer, specifier), key) in &code.resolved {
        put_str(&mut payload, referrer);
        put_str(&mut payload, specifier);
        put_str(&mut payload, key);
    }
    put_u32(&mut payload, code.modules.len());
    for (key, module) in &code.modules {
        put_str(&mut payload, key);
        let bytes = module.to_bytes().map_err(|e| format!("{key}: {e}"))?;
        put_u32(&mut payload, bytes.len());
        payload.extend_from_slice(&bytes);
    }
    let mut out = Vec::with_capacity(payload.len() + 64);
    out.extend_from_slice(MAGIC);
    out.push(VERSION.len() as u8);
    out.extend_from_slice(VERSION.as_bytes());
    out.extend_from_slice(&kiln_bytecode::FORMAT_ID.to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&payload));
    out.extend_from_slice(&payload);
    Ok(out)
}

/// The handler code in `.kbc` bytes.
pub fn read(bytes: &[u8]) -> Result<HandlerCode, String> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(MAGIC.len()).ok() != Some(&MAGIC[..]) {
        return Err("not a compiled Kiln handler (a .kbc file written by `kiln build`)".into());
    }
    let corrupt = |what: &str| format!("the file is corrupt: {what}");
    let version_length = r.take(1).map_err(|_| corrupt("truncated header"))?[0] as usize;
    let version = r
        .take(version_length)
        .ok()
        .and_then(|v| std::str::from_utf8(v).ok())
        .ok_or_else(|| corrupt("truncated header"))?
        .to_string();
    let format = r.u64().map_err(|_| corrupt("truncated header"))?;
    if version != VERSION || format != kiln_bytecode::FORMAT_ID {
        return Err(format!(
            "it was built by Kiln {version} (bytecode format {format:016x}); this is Kiln \
             {VERSION} (bytecode format {:016x}): build it again with `kiln build`",
            kiln_bytecode::FORMAT_ID
        ));
    }
    let checksum = r
        .take(32)
        .map_err(|_| corrupt("truncated header"))?
        .to_vec();
    if Sha256::digest(&bytes[r.at..])[..] != checksum[..] {
        return Err(corrupt("its checksum does not match its contents"));
    }
    let mut code = HandlerCode::default();
    let resolutions = r.count(12).map_err(|e| corrupt(&e))?;
    for _ in 0..resolutions {
        let referrer = r.str().map_err(|e| corrupt(&e))?;
        let specifier = r.str().map_err(|e| corrupt(&e))?;
        let key = r.str().map_err(|e| corrupt(&e))?;
        code.resolved.insert((referrer, specifier), key);
    }
    let modules = r.count(8).map_err(|e| corrupt(&e))?;
    for _ in 0..modules {
        let key = r.str().map_err(|e| corrupt(&e))?;
        let length = r.count(1).map_err(|e| corrupt(&e))?;
        let module_bytes = r.take(length).map_err(|e| corrupt(&e))?;
        let module = CompiledModule::from_bytes(module_bytes).map_err(|e| format!("{key}: {e}"))?;
        code.modules.insert(key, module);
    }
    if r.at != bytes.len() {
        return Err(corrupt("trailing bytes"));
    }
    if !code.modules.contains_key(kiln_web::ENTRY) {
        return Err(corrupt("it has no entry module"));
    }
    Ok(code)
}

fn put_u32(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u32).to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        if self.bytes.len() - self.at < n {
            return Err("unexpected end of file".into());
        }
        self.at += n;
        Ok(&self.bytes[self.at - n..self.at])
    }

    fn u64(&mut self) -> Result<u64, String> {
        let mut array = [0u8; 8];
        array.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(array))
    }

    /// A u32 count of items of at least `item_bytes` each, bounded by the bytes left.
    fn count(&mut self, item_bytes: usize) -> Result<usize, String> {
        let mut array = [0u8; 4];
        array.copy_from_slice(self.take(4)?);
        let n = u32::from_le_bytes(array) as usize;
        if n.saturating_mul(item_bytes) > self.bytes.len() - self.at {
            return Err(format!("a count of {n} is longer than the file"));
        }
        Ok(n)
    }

    fn str(&mut self) -> Result<String, String> {
        let n = self.count(1)?;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| "a name is not UTF-8".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_web::MemoryLoader;

    fn sample() -> HandlerCode {
        HandlerCode::load(
            "handler.js",
            MemoryLoader::new([
                ("handler.js", "import { answer } from 'lib.js'; export default { fetch() { return Response.json({ answer }) } }"),
                ("lib.js", "export const answer = 42;"),
            ]),
        )
        .unwrap()
    }

    #[test]
    fn handler_code_round_trips_through_kbc_bytes() {
        let code = sample();
        assert_eq!(
            code.keys().collect::<Vec<_>>(),
            ["handler.js", "kiln:entry", "kiln:web", "lib.js"]
        );
        let bytes = write(&code).unwrap();
        assert_eq!(read(&bytes).unwrap(), code);
    }

    #[test]
    fn other_versions_and_formats_are_refused_by_name() {
        let mut bytes = write(&sample()).unwrap();
        let format_at = MAGIC.len() + 1 + VERSION.len();
        bytes[format_at] ^= 1;
        let refused = read(&bytes).unwrap_err();
        assert!(
            refused.starts_with(&format!("it was built by Kiln {VERSION} (bytecode format ")),
            "{refused}"
        );
        assert!(
            refused.ends_with("build it again with `kiln build`"),
            "{refused}"
        );
    }

    #[test]
    fn truncated_corrupt_and_foreign_bytes_are_errors() {
        let bytes = write(&sample()).unwrap();
        assert_eq!(
            read(b"export default {}").unwrap_err(),
            "not a compiled Kiln handler (a .kbc file written by `kiln build`)"
        );
        for len in [0, 5, 8, 9, 20, 40, 60, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                read(&bytes[..len]).is_err(),
                "a prefix of {len} bytes was read"
            );
        }
        let mut flipped = bytes.clone();
        let last = flipped.len() - 3;
        flipped[last] ^= 0xff;
        assert_eq!(
            read(&flipped).unwrap_err(),
            "the file is corrupt: its checksum does not match its contents"
        );
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..300 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut garbage = bytes.clone();
            let at = state as usize % garbage.len();
            garbage[at] = (state >> 32) as u8;
            let _ = read(&garbage);
        }
    }
}
