//! Snapshot bytes from anywhere: raw input, and edits to a real snapshot re-sealed with
//! a correct checksum so they reach the decoder and the validation behind the envelope.
//! Every input must end in a clean error or a restored runtime, without a panic.
//!
//! Running a forged heap that passes validation is outside this target: inconsistent
//! internal state there is caught by the runtime's panic barrier (`ErrorKind::Engine`),
//! and hosts that accept snapshots from untrusted hands authenticate them with a key.

#![no_main]

use kiln::snapshot::Snapshot;
use kiln::{Options, Outcome, Runtime};
use libfuzzer_sys::fuzz_target;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

const SCRIPT: &str = r#"
class Box { #v; constructor(v) { this.#v = v; } get v() { return this.#v; } }
function* gen() { yield 1; yield 2; }
const g = gen(); g.next();
const m = new Map([['k', new Box(1)], [2, [1, 2, 3]]]);
const s = new Set(['a']);
const re = /a(b)?/g; re.exec('xab');
const bytes = new Uint8Array([1, 2, 3]);
const sym = Symbol('s');
let text = ''; for (let i = 0; i < 40; i++) text += i;
(async () => {
    const [a, b] = await Promise.all([tools.a(1), tools.b({ x: [true, null] })]);
    return [a, b, g.next().value, m.get('k').v, [...s], re.lastIndex, bytes[2], sym.description, text.length, 2n ** 70n];
})()
"#;

/// A snapshot of `SCRIPT` suspended at its two host calls.
fn seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        let mut rt = Runtime::new();
        rt.register_async("tools.a");
        rt.register_async("tools.b");
        match rt.start(SCRIPT, "seed.js") {
            Ok(Outcome::Suspended(_)) => rt.snapshot(None).expect("the seed snapshots"),
            other => panic!("the seed script must suspend: {other:?}"),
        }
    })
}

fn try_restore(bytes: &[u8]) {
    if let Ok(snapshot) = Snapshot::open(bytes, None)
        && let Ok(mut rt) = Runtime::restore(&snapshot, Options::default())
    {
        rt.register_async("tools.a");
        rt.register_async("tools.b");
        let _ = rt.pending_calls();
    }
}

fuzz_target!(|data: &[u8]| {
    try_restore(data);
    // (position, xor) edits to the seed, then a fresh checksum
    let mut bytes = seed().to_vec();
    let body = bytes.len() - 32;
    for edit in data.chunks_exact(4) {
        let at = u32::from_le_bytes([edit[0], edit[1], edit[2], 0]) as usize % body;
        bytes[at] ^= edit[3];
    }
    let tag = Sha256::digest(&bytes[..body]);
    bytes[body..].copy_from_slice(&tag);
    try_restore(&bytes);
});
