//! Snapshots: a runtime at rest — typically suspended at host calls — as bytes that a
//! fresh process restores to continue exactly where it stopped.
//!
//! # What is stored
//!
//! The whole heap (every object, string, symbol, BigInt and environment, at the same
//! ids), the shape tree, every realm (the first is the pristine realm the snapshot is
//! restored into; realms created later are written whole), the global bindings, the symbol registry, the meter, the
//! host's capability names and outstanding calls, and for each loaded script its
//! source and how it was compiled ([`crate::interpreter::Recipe`]). Bytecode is not
//! stored: restoring compiles the sources again, so every instruction a restored
//! runtime runs was produced by the compiler, never read from the bytes. Native
//! functions are stored by their number in a registry every process of the same build
//! computes alike ([`natives`]). Inline caches and other caches start empty.
//!
//! # Envelope
//!
//! ```text
//! "KILNSNAP"  format version (u32 LE)  engine version (LEB128 length + UTF-8)
//! snapshot id (16 bytes)  authenticated (u8)  payload length (LEB128)  payload
//! tag (32 bytes): SHA-256 of everything before it, or HMAC-SHA-256 with the host's key
//! ```
//!
//! A snapshot restores only in the same Kiln version and build (the registry of
//! natives and the intrinsics must agree; both are checked). Decoding never trusts a
//! length, index or id: a truncated or corrupted snapshot is refused with an error, and
//! a restored heap is validated whole before anything runs ([`read::validate`]).
//! Bytes that pass through untrusted hands should be authenticated with a key: the
//! checks make a forged heap harmless to the host process, not meaningful.

mod codec;
mod natives;
mod read;
mod write;

use crate::interpreter::Vm;
use crate::value::Value;
use codec::{Reader, Writer};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use std::ops::Range;

const MAGIC: &[u8; 8] = b"KILNSNAP";
/// Bumped whenever the payload layout changes.
const FORMAT_VERSION: u32 = 6;
const TAG_LEN: usize = 32;

/// Why a snapshot could not be made or restored. The kinds are stable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SnapshotErrorKind {
    /// the runtime is not at rest, or holds something a snapshot cannot carry (a module,
    /// a native function the host defined)
    Unsupported,
    /// not a Kiln snapshot, or truncated or damaged (checksum, structure)
    Corrupt,
    /// the tag does not verify with the host's key, or a key is missing on either side
    Authentication,
    /// made by another version or build of Kiln
    Version,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotError {
    pub kind: SnapshotErrorKind,
    pub message: String,
}

impl SnapshotError {
    pub fn new(kind: SnapshotErrorKind, message: impl Into<String>) -> Self {
        SnapshotError {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "snapshot: {}", self.message)
    }
}

impl std::error::Error for SnapshotError {}

/// 16 bytes no other snapshot carries: the time and two independently seeded hashes.
fn fresh_id() -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let half = || {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.finish().to_le_bytes()
    };
    let mut id = [0; 16];
    id[..8].copy_from_slice(&half());
    id[8..].copy_from_slice(&half());
    id
}

/// Snapshot bytes whose envelope was checked: magic, versions, checksum or key.
///
/// ```
/// use kiln::{HostValue, Outcome, Runtime, snapshot::Snapshot};
///
/// let mut rt = Runtime::new();
/// rt.register_async("tools.lookup");
/// let Outcome::Suspended(calls) = rt.start("tools.lookup('x').then(v => v + 1)", "a.js").unwrap()
/// else { panic!() };
/// let bytes = rt.snapshot(None).unwrap();
/// drop(rt);
///
/// // later, perhaps in another process
/// let snapshot = Snapshot::open(&bytes, None).unwrap();
/// let mut rt = Runtime::restore(&snapshot, Default::default()).unwrap();
/// rt.register_async("tools.lookup");
/// let done = rt.resume(calls[0].id, Ok(HostValue::Number(41.0))).unwrap();
/// assert_eq!(done, Outcome::Complete(HostValue::Number(42.0)));
/// ```
pub struct Snapshot<'a> {
    /// the id in lowercase hex (32 digits)
    id: String,
    payload: &'a [u8],
}

impl<'a> Snapshot<'a> {
    /// Check the envelope of `bytes`. With a `key`, the snapshot must carry an HMAC made
    /// with that key; without one, it must carry a plain checksum.
    pub fn open(bytes: &'a [u8], key: Option<&[u8]>) -> Result<Snapshot<'a>, SnapshotError> {
        use SnapshotErrorKind::*;
        if bytes.len() < MAGIC.len() + TAG_LEN || &bytes[..MAGIC.len()] != MAGIC {
            return Err(SnapshotError::new(Corrupt, "not a Kiln snapshot"));
        }
        let (signed, tag) = bytes.split_at(bytes.len() - TAG_LEN);
        let mut r = Reader::new(&signed[MAGIC.len()..]);
        let format = r.u32()?;
        let engine = r.string()?;
        if format != FORMAT_VERSION || engine != env!("CARGO_PKG_VERSION") {
            return Err(SnapshotError::new(
                Version,
                format!(
                    "made by Kiln {engine} (format {format}); this is Kiln {} (format {FORMAT_VERSION})",
                    env!("CARGO_PKG_VERSION")
                ),
            ));
        }
        let mut id = [0; 16];
        for b in &mut id {
            *b = r.u8()?;
        }
        let authenticated = r.bool()?;
        match (key, authenticated) {
            (Some(key), true) => {
                let mut mac = hmac_with(key);
                mac.update(signed);
                if mac.verify_slice(tag).is_err() {
                    return Err(SnapshotError::new(
                        Authentication,
                        "the snapshot does not verify with this key",
                    ));
                }
            }
            (None, false) => {
                if Sha256::digest(signed).as_slice() != tag {
                    return Err(SnapshotError::new(Corrupt, "the checksum does not match"));
                }
            }
            (Some(_), false) => {
                return Err(SnapshotError::new(
                    Authentication,
                    "the snapshot is not authenticated, but a key was given",
                ));
            }
            (None, true) => {
                return Err(SnapshotError::new(
                    Authentication,
                    "the snapshot is authenticated: it needs the key",
                ));
            }
        }
        let payload = r.bytes()?;
        if !r.is_at_end() {
            return Err(SnapshotError::new(Corrupt, "bytes after the payload"));
        }
        Ok(Snapshot {
            id: id.iter().map(|b| format!("{b:02x}")).collect(),
            payload,
        })
    }

    /// The snapshot's unique id (32 hex digits), written once per snapshot: a host that
    /// records the ids it resumed can refuse to resume the same snapshot twice.
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// A fresh realm's cells as a snapshot encodes them: a snapshot writes a cell that is
/// unchanged since realm creation as one byte, and restoring takes it from the fresh
/// realm the snapshot is restored into.
struct Pristine {
    bytes: Vec<u8>,
    strings: write::CellRanges,
    symbols: write::CellRanges,
    bigints: write::CellRanges,
    envs: write::CellRanges,
    objects: write::CellRanges,
    /// every VM's shape table starts with these
    shapes: usize,
}

impl Pristine {
    fn with<R>(f: impl FnOnce(&Pristine) -> R) -> R {
        thread_local! {
            static PRISTINE: Pristine = Pristine::encode();
        }
        PRISTINE.with(f)
    }

    /// The pristine encoding with the cell ranges of one arena, as `arena` compares.
    fn base<'a>(&'a self, cells: &'a [Option<Range<usize>>]) -> Option<write::Base<'a>> {
        Some(write::Base {
            bytes: &self.bytes,
            cells,
        })
    }

    fn encode() -> Pristine {
        let vm = Vm::new();
        let mut p = write::PayloadWriter::new(&vm, natives::Registry::get());
        let heap = &vm.heap;
        // A fresh realm has only flat strings, and its natives are the registry's.
        let invariant = "a fresh realm can be encoded";
        let strings = p
            .arena(heap.strings.slots(), None, write::PayloadWriter::string)
            .expect(invariant);
        let symbols = p
            .arena(heap.symbols.slots(), None, write::PayloadWriter::symbol)
            .expect(invariant);
        let bigints = p
            .arena(heap.bigints.slots(), None, write::PayloadWriter::bigint)
            .expect(invariant);
        let envs = p
            .arena(heap.envs.slots(), None, write::PayloadWriter::env)
            .expect(invariant);
        let objects = p
            .arena(heap.objects.slots(), None, write::PayloadWriter::object)
            .expect(invariant);
        Pristine {
            bytes: p.w.bytes,
            strings,
            symbols,
            bigints,
            envs,
            objects,
            shapes: heap.shapes.count(),
        }
    }
}

fn hmac_with(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes keys of any length")
}

/// Serialise `vm` (at rest) and the execution result it waits for into snapshot bytes.
pub(crate) fn write(
    vm: &mut Vm,
    execution: Option<Value>,
    key: Option<&[u8]>,
) -> Result<Vec<u8>, SnapshotError> {
    if !vm.frames.is_empty()
        || vm.realm.0 != 0
        || !vm.jobs.is_empty()
        || !vm.roots.is_empty()
        || vm.native_depth != 0
        || vm.termination.is_some()
    {
        return Err(SnapshotError::new(
            SnapshotErrorKind::Unsupported,
            "the runtime is running; a snapshot is taken between runs",
        ));
    }
    if !vm.agent.waits.is_empty() {
        return Err(SnapshotError::new(
            SnapshotErrorKind::Unsupported,
            "an Atomics.waitAsync waiter is pending; its shared memory cannot be snapshotted",
        ));
    }
    if !vm.modules.records.is_empty() {
        return Err(SnapshotError::new(
            SnapshotErrorKind::Unsupported,
            "modules cannot be snapshotted yet",
        ));
    }
    // Between jobs nothing needs WeakRef targets kept alive (ClearKeptObjects), and
    // where a past rejection was thrown is not state a snapshot carries.
    vm.kept_alive.clear();
    vm.rejection_origin = None;
    // Ropes and slices are stored flat; collecting first drops what nothing can reach.
    for i in vm.heap.strings.live_indices().collect::<Vec<_>>() {
        vm.heap.flatten(crate::heap::StringId(i));
        vm.heap.unshare(crate::heap::StringId(i));
    }
    vm.collect_garbage();

    let registry = natives::Registry::get();
    let payload = Pristine::with(|pristine| -> Result<Vec<u8>, SnapshotError> {
        let mut p = write::PayloadWriter::new(vm, registry);
        p.w.usize(registry.len());
        p.w.usize(registry.fingerprint.len());
        for &id in &registry.fingerprint {
            p.w.u32(id);
        }
        let heap = &vm.heap;
        if heap.shapes.count() < pristine.shapes {
            return Err(SnapshotError::new(
                SnapshotErrorKind::Unsupported,
                "this runtime was not created from Kiln's realm",
            ));
        }
        p.arena(
            heap.strings.slots(),
            pristine.base(&pristine.strings),
            write::PayloadWriter::string,
        )?;
        p.arena(
            heap.symbols.slots(),
            pristine.base(&pristine.symbols),
            write::PayloadWriter::symbol,
        )?;
        p.arena(
            heap.bigints.slots(),
            pristine.base(&pristine.bigints),
            write::PayloadWriter::bigint,
        )?;
        p.arena(
            heap.envs.slots(),
            pristine.base(&pristine.envs),
            write::PayloadWriter::env,
        )?;
        p.shapes(vm, pristine.shapes);
        p.scripts(vm)?;
        p.arena(
            heap.objects.slots(),
            pristine.base(&pristine.objects),
            write::PayloadWriter::object,
        )?;
        p.vm_state(vm, execution)?;
        Ok(p.w.bytes)
    })?;

    let mut out = Writer::default();
    out.bytes.extend_from_slice(MAGIC);
    out.u32(FORMAT_VERSION);
    out.str(env!("CARGO_PKG_VERSION"));
    out.bytes.extend_from_slice(&fresh_id());
    out.bool(key.is_some());
    out.bytes(&payload);
    let tag = match key {
        Some(key) => {
            let mut mac = hmac_with(key);
            mac.update(&out.bytes);
            mac.finalize().into_bytes().to_vec()
        }
        None => Sha256::digest(&out.bytes).to_vec(),
    };
    out.bytes.extend_from_slice(&tag);
    Ok(out.bytes)
}

/// Restore a snapshot's state into `vm`, a fresh VM; returns the execution result the
/// snapshot waited for.
pub(crate) fn restore(vm: &mut Vm, snapshot: &Snapshot) -> Result<Option<Value>, SnapshotError> {
    let registry = natives::Registry::get();
    let mut p = read::PayloadReader::new(snapshot.payload, registry);
    p.fingerprint()?;
    let (mut base, mut base_objects) = vm.heap.take_cells();
    let cells = p.cells(&mut base)?;
    let shapes = p.shapes(&vm.heap.shapes)?;
    vm.heap
        .restore(cells, shapes)
        .map_err(|e| SnapshotError::new(SnapshotErrorKind::Corrupt, e))?;
    vm.scripts.clear();
    vm.code_bytes = 0;
    vm.small_int_strings.fill(None);
    vm.heap.single_unit_strings.fill(None);
    vm.megamorphic_get.clear();
    vm.regexp_memo = None;
    vm.megamorphic_set.clear();
    vm.polymorphic.clear();
    vm.instanceof_cache.clear();
    let templates = p.scripts(vm)?;
    vm.heap.objects = p.objects(vm, &mut base_objects)?;
    vm.heap.recount();
    let execution = p.vm_state(vm)?;
    if !p.r.is_at_end() {
        return Err(codec::corrupt("bytes after the state"));
    }
    read::validate(vm, execution, &templates)?;
    Ok(execution)
}
