//! DataView: reads and writes of any element type at any byte offset of a
//! buffer, in either byte order. The encoding is `typed_array::encode`/`decode`.

use super::array_buffer;
use super::typed_array::{ElementType, decode, encode, numeric_value, to_numeric_for};
use super::{define_getter, define_to_string_tag, make_constructor};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{NativeFn, ObjectKind};
use crate::value::Value;

/// The internal slots of a DataView.
#[derive(Clone, Copy, Debug)]
pub struct DataViewData {
    /// [[ViewedArrayBuffer]]
    pub buffer: ObjectId,
    /// [[ByteOffset]]
    pub byte_offset: usize,
    /// [[ByteLength]]; None when it tracks a resizable buffer ("auto")
    pub byte_length: Option<usize>,
}

macro_rules! accessors {
    ($($get:ident, $set:ident => $t:ident, $gname:literal, $sname:literal;)*) => {
        $(
            fn $get(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
                get_view_value(vm, this, args, ElementType::$t)
            }
            fn $set(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
                set_view_value(vm, this, args, ElementType::$t)
            }
        )*
        const METHODS: &[(&str, NativeFn, &str, NativeFn)] = &[$(($gname, $get, $sname, $set),)*];
    };
}

accessors! {
    get_int8, set_int8 => Int8, "getInt8", "setInt8";
    get_uint8, set_uint8 => Uint8, "getUint8", "setUint8";
    get_int16, set_int16 => Int16, "getInt16", "setInt16";
    get_uint16, set_uint16 => Uint16, "getUint16", "setUint16";
    get_int32, set_int32 => Int32, "getInt32", "setInt32";
    get_uint32, set_uint32 => Uint32, "getUint32", "setUint32";
    get_float16, set_float16 => Float16, "getFloat16", "setFloat16";
    get_float32, set_float32 => Float32, "getFloat32", "setFloat32";
    get_float64, set_float64 => Float64, "getFloat64", "setFloat64";
    get_bigint64, set_bigint64 => BigInt64, "getBigInt64", "setBigInt64";
    get_biguint64, set_biguint64 => BigUint64, "getBigUint64", "setBigUint64";
}

pub fn init(vm: &mut Vm) {
    let proto = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.data_view_prototype = proto;
    make_constructor(vm, "DataView", data_view_constructor, 1, proto);
    define_getter(vm, proto, "buffer", get_buffer);
    define_getter(vm, proto, "byteLength", get_byte_length);
    define_getter(vm, proto, "byteOffset", get_byte_offset);
    for &(gname, get, sname, set) in METHODS {
        vm.define_native(proto, gname, get, 1);
        vm.define_native(proto, sname, set, 2);
    }
    define_to_string_tag(vm, proto, "DataView");
}

/// [DataView](https://tc39.es/ecma262/#sec-dataview-buffer-byteoffset-bytelength)
fn data_view_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    // 1. If NewTarget is undefined, throw a TypeError exception.
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Constructor DataView requires 'new'"));
    }
    // 2. Perform ? RequireInternalSlot(buffer, [[ArrayBufferData]]).
    let buffer = vm.arg(args, 0);
    let Some(buf) = buffer
        .as_object()
        .filter(|&b| matches!(vm.heap.object(b).kind, ObjectKind::ArrayBuffer(_)))
    else {
        return Err(vm.type_error("First argument to DataView constructor must be an ArrayBuffer"));
    };
    // 3. Let offset be ? ToIndex(byteOffset).
    let offset = vm.to_index(vm.arg(args, 1))?;
    // 4. If IsDetachedBuffer(buffer) is true, throw a TypeError exception.
    if array_buffer::is_detached(vm, buf) {
        return Err(vm.type_error("Cannot construct a DataView on a detached ArrayBuffer"));
    }
    let buffer_len = array_buffer::byte_length_of(vm, buf) as f64;
    // 6. If offset > bufferByteLength, throw a RangeError exception.
    if offset > buffer_len {
        return Err(vm.range_error(format!(
            "Start offset {offset} is outside the bounds of the buffer"
        )));
    }
    let fixed = array_buffer::is_fixed_length(vm, buf);
    let length_arg = vm.arg(args, 2);
    let view_len = if length_arg.is_undefined() {
        fixed.then_some(buffer_len - offset)
    } else {
        let n = vm.to_index(length_arg)?;
        if offset + n > buffer_len {
            return Err(vm.range_error(format!("Invalid DataView length {n}")));
        }
        Some(n)
    };
    // 10. Let O be ? OrdinaryCreateFromConstructor(NewTarget, "%DataView.prototype%", ...).
    let proto = vm.prototype_from_constructor(args.new_target, |i| i.data_view_prototype)?;
    // 11-14. The prototype lookup may have detached or shrunk the buffer.
    if array_buffer::is_detached(vm, buf) {
        return Err(vm.type_error("Cannot construct a DataView on a detached ArrayBuffer"));
    }
    let buffer_len = array_buffer::byte_length_of(vm, buf) as f64;
    if offset > buffer_len {
        return Err(vm.range_error(format!(
            "Start offset {offset} is outside the bounds of the buffer"
        )));
    }
    if let Some(n) = view_len
        && !length_arg.is_undefined()
        && offset + n > buffer_len
    {
        return Err(vm.range_error(format!("Invalid DataView length {n}")));
    }
    let view = vm.heap.new_object(
        Some(proto),
        ObjectKind::DataView(Box::new(DataViewData {
            buffer: buf,
            byte_offset: offset as usize,
            byte_length: view_len.map(|n| n as usize),
        })),
    );
    Ok(Value::object(view))
}

fn this_view(vm: &mut Vm, this: Value, method: &str) -> JsResult<DataViewData> {
    match this.as_object().map(|o| &vm.heap.object(o).kind) {
        Some(ObjectKind::DataView(d)) => Ok(**d),
        _ => Err(vm.type_error(format!("{method} called on incompatible receiver"))),
    }
}

/// GetViewByteLength, or None when
/// [IsViewOutOfBounds](https://tc39.es/ecma262/#sec-isviewoutofbounds).
fn view_byte_length(vm: &Vm, d: &DataViewData) -> Option<usize> {
    let b = array_buffer::data(vm, d.buffer);
    let len = b.len();
    if b.detached || d.byte_offset > len {
        return None;
    }
    match d.byte_length {
        Some(n) => (d.byte_offset + n <= len).then_some(n),
        None => Some(len - d.byte_offset),
    }
}

/// [get DataView.prototype.buffer](https://tc39.es/ecma262/#sec-get-dataview.prototype.buffer)
fn get_buffer(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let d = this_view(vm, this, "get DataView.prototype.buffer")?;
    Ok(Value::object(d.buffer))
}

/// [get DataView.prototype.byteLength](https://tc39.es/ecma262/#sec-get-dataview.prototype.bytelength)
fn get_byte_length(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let d = this_view(vm, this, "get DataView.prototype.byteLength")?;
    match view_byte_length(vm, &d) {
        Some(n) => Ok(Value::number(n as f64)),
        None => Err(vm.type_error("DataView is detached or out of bounds")),
    }
}

/// [get DataView.prototype.byteOffset](https://tc39.es/ecma262/#sec-get-dataview.prototype.byteoffset)
fn get_byte_offset(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let d = this_view(vm, this, "get DataView.prototype.byteOffset")?;
    match view_byte_length(vm, &d) {
        Some(_) => Ok(Value::number(d.byte_offset as f64)),
        None => Err(vm.type_error("DataView is detached or out of bounds")),
    }
}

/// The byte index of an access of `size` bytes at `index`, after the bounds checks.
fn view_index(vm: &mut Vm, d: &DataViewData, index: f64, size: usize) -> JsResult<usize> {
    let Some(view_size) = view_byte_length(vm, d) else {
        return Err(vm.type_error("DataView is detached or out of bounds"));
    };
    if index + size as f64 > view_size as f64 {
        return Err(vm.range_error("Offset is outside the bounds of the DataView"));
    }
    Ok(index as usize + d.byte_offset)
}

/// [GetViewValue](https://tc39.es/ecma262/#sec-getviewvalue)
fn get_view_value(vm: &mut Vm, this: Value, args: Args, t: ElementType) -> JsResult<Value> {
    let d = this_view(vm, this, "DataView.prototype.get")?;
    let index = vm.to_index(vm.arg(args, 0))?;
    let little = vm.to_boolean(vm.arg(args, 1));
    let at = view_index(vm, &d, index, t.size())?;
    let mut raw = [0; 8];
    array_buffer::data(vm, d.buffer).read(at, &mut raw[..t.size()]);
    let n = decode(t, &raw, little);
    Ok(numeric_value(vm, t, n))
}

/// [SetViewValue](https://tc39.es/ecma262/#sec-setviewvalue)
fn set_view_value(vm: &mut Vm, this: Value, args: Args, t: ElementType) -> JsResult<Value> {
    let d = this_view(vm, this, "DataView.prototype.set")?;
    let index = vm.to_index(vm.arg(args, 0))?;
    let n = to_numeric_for(vm, t, vm.arg(args, 1))?;
    let little = vm.to_boolean(vm.arg(args, 2));
    let at = view_index(vm, &d, index, t.size())?;
    let raw = encode(t, n, little);
    array_buffer::data_mut(vm, d.buffer).write(at, &raw[..t.size()]);
    Ok(Value::UNDEFINED)
}
