//! ArrayBuffer and SharedArrayBuffer: byte stores that typed arrays and data
//! views read and write.
//!
//! An ArrayBuffer's bytes live in a `Vec<u8>` inside its [`ArrayBufferData`]; a
//! SharedArrayBuffer's in a [`SharedBlock`] that buffer objects in other runtimes (on
//! other threads) may view too. Both are counted in the heap's byte total of every
//! runtime that holds them, and an allocation the heap budget cannot hold is a
//! RangeError, never an abort. A SharedArrayBuffer cannot be detached and grows only.
//!
//! # Invariants
//!
//! 1. A detached buffer has no bytes (`len() == 0`).
//! 2. `len() <= max_byte_length` when the buffer is resizable or growable.
//! 3. A shared buffer's `max_byte_length` is its block's.

use super::array::{relative_end, relative_index};
use super::shared_memory::SharedBlock;
use super::{define_getter, define_to_string_tag, make_constructor};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{NativeFn, ObjectKind};
use crate::value::Value;
use std::ops::Range;
use std::sync::Arc;

/// The [[ArrayBufferData]] of a buffer and its state.
#[derive(Clone, Debug)]
pub struct ArrayBufferData {
    pub bytes: Bytes,
    pub detached: bool,
    /// Some for resizable (or growable shared) buffers
    pub max_byte_length: Option<usize>,
}

/// A Data Block or a Shared Data Block.
#[derive(Clone, Debug)]
pub enum Bytes {
    /// an ArrayBuffer's own bytes
    Local(Vec<u8>),
    /// a SharedArrayBuffer's block, which other runtimes may hold too
    Shared(Arc<SharedBlock>),
}

impl ArrayBufferData {
    /// [IsSharedArrayBuffer](https://tc39.es/ecma262/#sec-issharedarraybuffer)
    pub fn is_shared(&self) -> bool {
        matches!(self.bytes, Bytes::Shared(_))
    }

    /// The shared block of a SharedArrayBuffer.
    pub fn block(&self) -> Option<&Arc<SharedBlock>> {
        match &self.bytes {
            Bytes::Shared(block) => Some(block),
            Bytes::Local(_) => None,
        }
    }

    /// The current byte length (0 once detached).
    pub fn len(&self) -> usize {
        match &self.bytes {
            Bytes::Local(bytes) => bytes.len(),
            Bytes::Shared(block) => block.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes counted against the heap budget.
    pub fn owned_bytes(&self) -> usize {
        match &self.bytes {
            Bytes::Local(bytes) => bytes.capacity(),
            Bytes::Shared(block) => block.len(),
        }
    }

    /// Copy `out.len()` bytes from `at` (in bounds) into `out`.
    #[inline]
    pub fn read(&self, at: usize, out: &mut [u8]) {
        match &self.bytes {
            Bytes::Local(bytes) => out.copy_from_slice(&bytes[at..at + out.len()]),
            Bytes::Shared(block) => block.read(at, out),
        }
    }

    /// Copy `src` to the bytes from `at` (in bounds).
    #[inline]
    pub fn write(&mut self, at: usize, src: &[u8]) {
        match &mut self.bytes {
            Bytes::Local(bytes) => bytes[at..at + src.len()].copy_from_slice(src),
            Bytes::Shared(block) => block.write(at, src),
        }
    }

    /// A copy of the bytes in `range` (in bounds).
    pub fn to_vec(&self, range: Range<usize>) -> Vec<u8> {
        match &self.bytes {
            Bytes::Local(bytes) => bytes[range].to_vec(),
            Bytes::Shared(block) => {
                let mut out = vec![0; range.len()];
                block.read(range.start, &mut out);
                out
            }
        }
    }

    /// Change the bytes in `range` (in bounds) with `f`. A shared block's bytes are
    /// copied out and back: a non-atomic operation racing with another thread may tear.
    pub fn update(&mut self, range: Range<usize>, f: impl FnOnce(&mut [u8])) {
        match &mut self.bytes {
            Bytes::Local(bytes) => f(&mut bytes[range]),
            Bytes::Shared(block) => {
                let mut copy = vec![0; range.len()];
                block.read(range.start, &mut copy);
                f(&mut copy);
                block.write(range.start, &copy);
            }
        }
    }
}

pub fn init(vm: &mut Vm) {
    let object_prototype = vm.intrinsics.object_prototype;

    let proto = vm
        .heap
        .new_object(Some(object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.array_buffer_prototype = proto;
    let ctor = make_constructor(vm, "ArrayBuffer", array_buffer_constructor, 1, proto);
    vm.intrinsics.array_buffer = ctor;
    vm.define_native(ctor, "isView", is_view, 1);
    super::define_species(vm, ctor);
    let getters: [(&str, NativeFn); 4] = [
        ("byteLength", byte_length),
        ("maxByteLength", max_byte_length),
        ("resizable", resizable),
        ("detached", detached),
    ];
    for (name, f) in getters {
        define_getter(vm, proto, name, f);
    }
    let methods: [(&str, NativeFn, u32); 4] = [
        ("resize", resize, 1),
        ("slice", slice, 2),
        ("transfer", transfer, 0),
        ("transferToFixedLength", transfer_to_fixed_length, 0),
    ];
    for (name, f, len) in methods {
        vm.define_native(proto, name, f, len);
    }
    define_to_string_tag(vm, proto, "ArrayBuffer");

    let proto = vm
        .heap
        .new_object(Some(object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.shared_array_buffer_prototype = proto;
    let ctor = make_constructor(
        vm,
        "SharedArrayBuffer",
        shared_array_buffer_constructor,
        1,
        proto,
    );
    vm.intrinsics.shared_array_buffer = ctor;
    super::define_species(vm, ctor);
    let getters: [(&str, NativeFn); 3] = [
        ("byteLength", shared_byte_length),
        ("growable", growable),
        ("maxByteLength", shared_max_byte_length),
    ];
    for (name, f) in getters {
        define_getter(vm, proto, name, f);
    }
    vm.define_native(proto, "grow", grow, 1);
    vm.define_native(proto, "slice", shared_slice, 2);
    define_to_string_tag(vm, proto, "SharedArrayBuffer");
}

// ---- the operations typed arrays and data views build on ----

/// The buffer data of `buf` (which must be a buffer).
pub fn data(vm: &Vm, buf: ObjectId) -> &ArrayBufferData {
    match &vm.heap.object(buf).kind {
        ObjectKind::ArrayBuffer(b) => b,
        _ => unreachable!("not an ArrayBuffer"),
    }
}

/// The buffer data of `buf` (which must be a buffer), for writing.
pub fn data_mut(vm: &mut Vm, buf: ObjectId) -> &mut ArrayBufferData {
    match &mut vm.heap.object_mut(buf).kind {
        ObjectKind::ArrayBuffer(b) => b,
        _ => unreachable!("not an ArrayBuffer"),
    }
}

/// [IsDetachedBuffer](https://tc39.es/ecma262/#sec-isdetachedbuffer)
pub fn is_detached(vm: &Vm, buf: ObjectId) -> bool {
    data(vm, buf).detached
}

/// [IsFixedLengthArrayBuffer](https://tc39.es/ecma262/#sec-isfixedlengtharraybuffer)
pub fn is_fixed_length(vm: &Vm, buf: ObjectId) -> bool {
    data(vm, buf).max_byte_length.is_none()
}

/// ArrayBufferByteLength: the current length (0 once detached).
pub fn byte_length_of(vm: &Vm, buf: ObjectId) -> usize {
    data(vm, buf).len()
}

/// The SharedArrayBuffer `v`'s block (to share it with another runtime).
pub fn shared_block(vm: &Vm, v: Value) -> Option<Arc<SharedBlock>> {
    match &vm.heap.object(v.as_object()?).kind {
        ObjectKind::ArrayBuffer(b) => b.block().cloned(),
        _ => None,
    }
}

/// A new %SharedArrayBuffer% viewing `block`, which another runtime may hold too.
pub fn new_shared(vm: &mut Vm, block: Arc<SharedBlock>) -> ObjectId {
    let proto = vm.intrinsics.shared_array_buffer_prototype;
    shared_buffer(vm, proto, block)
}

fn shared_buffer(vm: &mut Vm, proto: ObjectId, block: Arc<SharedBlock>) -> ObjectId {
    let max_byte_length = block.max_byte_length();
    let data = ArrayBufferData {
        bytes: Bytes::Shared(block),
        detached: false,
        max_byte_length,
    };
    vm.heap
        .new_object(Some(proto), ObjectKind::ArrayBuffer(Box::new(data)))
}

const OUT_OF_MEMORY: &str = "Array buffer allocation failed: not enough memory";

/// The largest buffer Kiln makes, whatever the heap limit (SpiderMonkey's limit too).
const MAX_BYTE_LENGTH: f64 = (1u64 << 33) as f64;

/// `len` as a byte count, checked before anything is allocated: a RangeError past
/// [`MAX_BYTE_LENGTH`], the `HeapLimit` termination past the room the heap limit leaves.
fn check_room(vm: &mut Vm, len: f64) -> JsResult<usize> {
    if len > MAX_BYTE_LENGTH {
        return Err(vm.range_error(OUT_OF_MEMORY));
    }
    let room = vm.limits.max_heap_bytes.saturating_sub(vm.heap.bytes());
    if len > room as f64 {
        return Err(vm.terminate(crate::interpreter::Termination::HeapLimit));
    }
    Ok(len as usize)
}

/// A zeroed byte vector of `len` bytes, or a RangeError when the heap budget cannot hold it
/// ([CreateByteDataBlock](https://tc39.es/ecma262/#sec-createbytedatablock)).
pub fn create_byte_block(vm: &mut Vm, len: f64) -> JsResult<Vec<u8>> {
    let len = check_room(vm, len)?;
    let mut bytes = Vec::new();
    if bytes.try_reserve_exact(len).is_err() {
        return Err(vm.range_error(OUT_OF_MEMORY));
    }
    bytes.resize(len, 0);
    Ok(bytes)
}

/// [AllocateArrayBuffer](https://tc39.es/ecma262/#sec-allocatearraybuffer) (and
/// AllocateSharedArrayBuffer when `shared`); may run JavaScript (the prototype lookup).
pub fn allocate(
    vm: &mut Vm,
    new_target: Value,
    byte_length: f64,
    max_byte_length: Option<f64>,
    shared: bool,
) -> JsResult<ObjectId> {
    if let Some(max) = max_byte_length
        && byte_length > max
    {
        return Err(vm.range_error("byteLength exceeds maxByteLength"));
    }
    let proto = if shared {
        vm.prototype_from_constructor(new_target, |i| i.shared_array_buffer_prototype)?
    } else {
        vm.prototype_from_constructor(new_target, |i| i.array_buffer_prototype)?
    };
    // A buffer can never grow past the heap budget, so a larger maximum cannot be honoured.
    if let Some(max) = max_byte_length
        && max > vm.limits.max_heap_bytes as f64
    {
        return Err(vm.range_error("maxByteLength exceeds the memory limit"));
    }
    let max_byte_length = max_byte_length.map(|m| m as usize);
    if shared {
        // CreateSharedByteDataBlock
        let len = check_room(vm, byte_length)?;
        let Some(block) = SharedBlock::new(len, max_byte_length) else {
            return Err(vm.range_error(OUT_OF_MEMORY));
        };
        return Ok(shared_buffer(vm, proto, Arc::new(block)));
    }
    let bytes = create_byte_block(vm, byte_length)?;
    Ok(new_buffer(vm, proto, bytes, max_byte_length))
}

/// An ArrayBuffer object holding `bytes`.
pub fn new_buffer(
    vm: &mut Vm,
    proto: ObjectId,
    bytes: Vec<u8>,
    max_byte_length: Option<usize>,
) -> ObjectId {
    vm.heap.new_object(
        Some(proto),
        ObjectKind::ArrayBuffer(Box::new(ArrayBufferData {
            bytes: Bytes::Local(bytes),
            detached: false,
            max_byte_length,
        })),
    )
}

/// A fixed-length %ArrayBuffer% of `len` zero bytes (AllocateArrayBuffer(%ArrayBuffer%, len)).
pub fn allocate_plain(vm: &mut Vm, len: usize) -> JsResult<ObjectId> {
    let bytes = create_byte_block(vm, len as f64)?;
    let proto = vm.intrinsics.array_buffer_prototype;
    Ok(new_buffer(vm, proto, bytes, None))
}

/// [DetachArrayBuffer](https://tc39.es/ecma262/#sec-detacharraybuffer): TypeError for
/// anything but a non-shared ArrayBuffer. Used by `transfer` and by hosts (test262's
/// `$262.detachArrayBuffer`).
pub fn detach(vm: &mut Vm, buf: Value) -> JsResult<()> {
    let ok = buf.as_object().is_some_and(
        |o| matches!(&vm.heap.object(o).kind, ObjectKind::ArrayBuffer(b) if !b.is_shared()),
    );
    let Some(o) = buf.as_object().filter(|_| ok) else {
        return Err(vm.type_error("Cannot detach: not an ArrayBuffer"));
    };
    let b = data_mut(vm, o);
    b.bytes = Bytes::Local(Vec::new());
    b.detached = true;
    Ok(())
}

/// Set a buffer's length, zero-filling new bytes (HostResizeArrayBuffer / HostGrowSharedArrayBuffer).
fn set_length(vm: &mut Vm, buf: ObjectId, len: f64) -> JsResult<()> {
    let current = byte_length_of(vm, buf);
    if len > current as f64 {
        let extra = check_room(vm, len - current as f64)?;
        let len = len as usize;
        let grown = match &mut data_mut(vm, buf).bytes {
            Bytes::Local(bytes) => {
                let grown = bytes.try_reserve_exact(extra).is_ok();
                if grown {
                    bytes.resize(len, 0);
                }
                grown
            }
            Bytes::Shared(block) => block.grow(len),
        };
        if !grown {
            return Err(vm.range_error(OUT_OF_MEMORY));
        }
        vm.heap.note_growth(extra);
    } else if let Bytes::Local(bytes) = &mut data_mut(vm, buf).bytes {
        bytes.truncate(len as usize);
    }
    Ok(())
}

/// GetArrayBufferMaxByteLengthOption
fn max_byte_length_option(vm: &mut Vm, options: Value) -> JsResult<Option<f64>> {
    if !options.is_object() {
        return Ok(None);
    }
    let key = vm.key("maxByteLength");
    let max = vm.get(options, key)?;
    if max.is_undefined() {
        return Ok(None);
    }
    Ok(Some(vm.to_index(max)?))
}

/// `this` as a buffer of the given sharedness, or a TypeError naming the method.
fn this_buffer(vm: &mut Vm, this: Value, shared: bool, method: &str) -> JsResult<ObjectId> {
    match this.as_object() {
        Some(o) if matches!(&vm.heap.object(o).kind, ObjectKind::ArrayBuffer(b) if b.is_shared() == shared) => {
            Ok(o)
        }
        _ => Err(vm.type_error(format!("{method} called on incompatible receiver"))),
    }
}

// ---- ArrayBuffer ----

/// [ArrayBuffer](https://tc39.es/ecma262/#sec-arraybuffer-length)
fn array_buffer_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    construct(vm, args, false)
}

fn construct(vm: &mut Vm, args: Args, shared: bool) -> JsResult<Value> {
    // 1. If NewTarget is undefined, throw a TypeError exception.
    if args.new_target.is_undefined() {
        let name = if shared {
            "SharedArrayBuffer"
        } else {
            "ArrayBuffer"
        };
        return Err(vm.type_error(format!("Constructor {name} requires 'new'")));
    }
    // 2. Let byteLength be ? ToIndex(length).
    let byte_length = vm.to_index(vm.arg(args, 0))?;
    // 3. Let requestedMaxByteLength be ? GetArrayBufferMaxByteLengthOption(options).
    let max = max_byte_length_option(vm, vm.arg(args, 1))?;
    // 4. Return ? AllocateArrayBuffer(NewTarget, byteLength, requestedMaxByteLength).
    let buf = allocate(vm, args.new_target, byte_length, max, shared)?;
    Ok(Value::object(buf))
}

/// [ArrayBuffer.isView](https://tc39.es/ecma262/#sec-arraybuffer.isview)
fn is_view(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let v = vm.arg(args, 0);
    Ok(Value::bool(v.as_object().is_some_and(|o| {
        matches!(
            vm.heap.object(o).kind,
            ObjectKind::TypedArray(_) | ObjectKind::DataView(_)
        )
    })))
}

/// [get ArrayBuffer.prototype.byteLength](https://tc39.es/ecma262/#sec-get-arraybuffer.prototype.bytelength)
fn byte_length(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_buffer(vm, this, false, "ArrayBuffer.prototype.byteLength")?;
    Ok(Value::number(byte_length_of(vm, o) as f64))
}

/// [get ArrayBuffer.prototype.maxByteLength](https://tc39.es/ecma262/#sec-get-arraybuffer.prototype.maxbytelength)
fn max_byte_length(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_buffer(vm, this, false, "ArrayBuffer.prototype.maxByteLength")?;
    let b = data(vm, o);
    let n = if b.detached {
        0
    } else {
        b.max_byte_length.unwrap_or(b.len())
    };
    Ok(Value::number(n as f64))
}

/// [get ArrayBuffer.prototype.resizable](https://tc39.es/ecma262/#sec-get-arraybuffer.prototype.resizable)
fn resizable(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_buffer(vm, this, false, "ArrayBuffer.prototype.resizable")?;
    Ok(Value::bool(!is_fixed_length(vm, o)))
}

/// [get ArrayBuffer.prototype.detached](https://tc39.es/ecma262/#sec-get-arraybuffer.prototype.detached)
fn detached(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_buffer(vm, this, false, "ArrayBuffer.prototype.detached")?;
    Ok(Value::bool(is_detached(vm, o)))
}

/// [ArrayBuffer.prototype.resize](https://tc39.es/ecma262/#sec-arraybuffer.prototype.resize)
fn resize(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_buffer(vm, this, false, "ArrayBuffer.prototype.resize")?;
    let Some(max) = data(vm, o).max_byte_length else {
        return Err(vm.type_error("ArrayBuffer.prototype.resize called on a fixed-length buffer"));
    };
    let new_length = vm.to_index(vm.arg(args, 0))?;
    if is_detached(vm, o) {
        return Err(vm.type_error("Cannot resize a detached ArrayBuffer"));
    }
    if new_length > max as f64 {
        return Err(vm.range_error("new length exceeds maxByteLength"));
    }
    set_length(vm, o, new_length)?;
    Ok(Value::UNDEFINED)
}

/// [ArrayBuffer.prototype.slice](https://tc39.es/ecma262/#sec-arraybuffer.prototype.slice) and
/// [SharedArrayBuffer.prototype.slice](https://tc39.es/ecma262/#sec-sharedarraybuffer.prototype.slice)
fn slice_impl(vm: &mut Vm, this: Value, args: Args, shared: bool) -> JsResult<Value> {
    let name = if shared {
        "SharedArrayBuffer.prototype.slice"
    } else {
        "ArrayBuffer.prototype.slice"
    };
    let o = this_buffer(vm, this, shared, name)?;
    // 4. If IsDetachedBuffer(O) is true, throw a TypeError exception.
    if is_detached(vm, o) {
        return Err(vm.type_error("Cannot slice a detached ArrayBuffer"));
    }
    // 5. Let len be ArrayBufferByteLength(O, seq-cst).
    let len = byte_length_of(vm, o) as f64;
    let first = relative_index(vm, vm.arg(args, 0), len)?;
    let fin = relative_end(vm, vm.arg(args, 1), len)?;
    let new_len = (fin - first).max(0.0);
    // 13. Let ctor be ? SpeciesConstructor(O, %ArrayBuffer%).
    let default = if shared {
        vm.intrinsics.shared_array_buffer
    } else {
        vm.intrinsics.array_buffer
    };
    let ctor = super::promise::species_constructor(vm, this, Value::object(default))?;
    // 14. Let new be ? Construct(ctor, « 𝔽(newLen) »).
    let new = vm.construct(ctor, &[Value::number(new_len)], None)?;
    // 15-19. Validate the new buffer.
    let Some(n) = new.as_object().filter(
        |&n| matches!(&vm.heap.object(n).kind, ObjectKind::ArrayBuffer(b) if b.is_shared() == shared),
    ) else {
        return Err(vm.type_error(format!(
            "{name}: species constructor did not return a buffer"
        )));
    };
    if is_detached(vm, n) {
        return Err(vm.type_error(format!(
            "{name}: species constructor returned a detached buffer"
        )));
    }
    if n == o {
        return Err(vm.type_error(format!(
            "{name}: species constructor returned the same buffer"
        )));
    }
    if (byte_length_of(vm, n) as f64) < new_len {
        return Err(vm.type_error(format!(
            "{name}: species constructor returned a buffer too small"
        )));
    }
    // 21. If IsDetachedBuffer(O) is true, throw a TypeError exception.
    if is_detached(vm, o) {
        return Err(vm.type_error("Cannot slice a detached ArrayBuffer"));
    }
    // 24-25. Copy what is still in bounds.
    let current = byte_length_of(vm, o) as f64;
    if first < current {
        let count = new_len.min(current - first) as usize;
        let first = first as usize;
        let chunk = data(vm, o).to_vec(first..first + count);
        data_mut(vm, n).write(0, &chunk);
    }
    Ok(new)
}

fn slice(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    slice_impl(vm, this, args, false)
}

/// [ArrayBufferCopyAndDetach](https://tc39.es/ecma262/#sec-arraybuffercopyanddetach)
fn copy_and_detach(
    vm: &mut Vm,
    this: Value,
    new_length: Value,
    preserve_resizability: bool,
    name: &str,
) -> JsResult<Value> {
    let o = this_buffer(vm, this, false, name)?;
    // 3-4. newByteLength
    let new_byte_length = if new_length.is_undefined() {
        byte_length_of(vm, o) as f64
    } else {
        vm.to_index(new_length)?
    };
    // 5. If IsDetachedBuffer(arrayBuffer) is true, throw a TypeError exception.
    if is_detached(vm, o) {
        return Err(vm.type_error(format!("{name}: the buffer is detached")));
    }
    // 6. newMaxByteLength
    let max = if preserve_resizability {
        data(vm, o).max_byte_length
    } else {
        None
    };
    if let Some(m) = max
        && new_byte_length > m as f64
    {
        return Err(vm.range_error("new length exceeds maxByteLength"));
    }
    // 8-11. The new buffer takes over the bytes (no copy), resized.
    let current = byte_length_of(vm, o);
    if new_byte_length > current as f64 {
        check_room(vm, new_byte_length - current as f64)?;
    }
    // (this_buffer accepted only a non-shared buffer, whose bytes are Local)
    let mut bytes = match &mut data_mut(vm, o).bytes {
        Bytes::Local(bytes) => std::mem::take(bytes),
        Bytes::Shared(_) => return Err(vm.type_error("cannot transfer a SharedArrayBuffer")),
    };
    let extra = (new_byte_length as usize).saturating_sub(bytes.len());
    if bytes.try_reserve_exact(extra).is_err() {
        data_mut(vm, o).bytes = Bytes::Local(bytes);
        return Err(vm.range_error(OUT_OF_MEMORY));
    }
    bytes.resize(new_byte_length as usize, 0);
    vm.heap.note_growth(extra);
    // 12. Perform ! DetachArrayBuffer(arrayBuffer).
    data_mut(vm, o).detached = true;
    let proto = vm.intrinsics.array_buffer_prototype;
    Ok(Value::object(new_buffer(vm, proto, bytes, max)))
}

/// [ArrayBuffer.prototype.transfer](https://tc39.es/ecma262/#sec-arraybuffer.prototype.transfer)
fn transfer(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let n = vm.arg(args, 0);
    copy_and_detach(vm, this, n, true, "ArrayBuffer.prototype.transfer")
}

/// [ArrayBuffer.prototype.transferToFixedLength](https://tc39.es/ecma262/#sec-arraybuffer.prototype.transfertofixedlength)
fn transfer_to_fixed_length(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let n = vm.arg(args, 0);
    copy_and_detach(
        vm,
        this,
        n,
        false,
        "ArrayBuffer.prototype.transferToFixedLength",
    )
}

// ---- SharedArrayBuffer ----

/// [SharedArrayBuffer](https://tc39.es/ecma262/#sec-sharedarraybuffer-length)
fn shared_array_buffer_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    construct(vm, args, true)
}

/// [get SharedArrayBuffer.prototype.byteLength](https://tc39.es/ecma262/#sec-get-sharedarraybuffer.prototype.bytelength)
fn shared_byte_length(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_buffer(vm, this, true, "SharedArrayBuffer.prototype.byteLength")?;
    Ok(Value::number(byte_length_of(vm, o) as f64))
}

/// [get SharedArrayBuffer.prototype.growable](https://tc39.es/ecma262/#sec-get-sharedarraybuffer.prototype.growable)
fn growable(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_buffer(vm, this, true, "SharedArrayBuffer.prototype.growable")?;
    Ok(Value::bool(!is_fixed_length(vm, o)))
}

/// [get SharedArrayBuffer.prototype.maxByteLength](https://tc39.es/ecma262/#sec-get-sharedarraybuffer.prototype.maxbytelength)
fn shared_max_byte_length(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let o = this_buffer(vm, this, true, "SharedArrayBuffer.prototype.maxByteLength")?;
    let b = data(vm, o);
    Ok(Value::number(b.max_byte_length.unwrap_or(b.len()) as f64))
}

/// [SharedArrayBuffer.prototype.grow](https://tc39.es/ecma262/#sec-sharedarraybuffer.prototype.grow)
fn grow(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = this_buffer(vm, this, true, "SharedArrayBuffer.prototype.grow")?;
    let Some(max) = data(vm, o).max_byte_length else {
        return Err(
            vm.type_error("SharedArrayBuffer.prototype.grow called on a fixed-length buffer")
        );
    };
    let new_length = vm.to_index(vm.arg(args, 0))?;
    if new_length > max as f64 {
        return Err(vm.range_error("new length exceeds maxByteLength"));
    }
    if new_length < byte_length_of(vm, o) as f64 {
        return Err(vm.range_error("SharedArrayBuffer cannot shrink"));
    }
    set_length(vm, o, new_length)?;
    Ok(Value::UNDEFINED)
}

fn shared_slice(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    slice_impl(vm, this, args, true)
}
