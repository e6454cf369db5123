//! `String`, `String.prototype` and %StringIteratorPrototype%
//! ([spec](https://tc39.es/ecma262/#sec-string-objects)).
//!
//! Strings are sequences of UTF-16 code units; lone surrogates are kept as
//! they are everywhere except `toWellFormed`. The regular-expression methods
//! (`match`, `matchAll`, `replace`, `replaceAll`, `search`, `split`) delegate
//! to the argument's `Symbol.match` / `Symbol.replace` / ... method when the
//! argument is an object that has one, as the spec says; `regexp.rs` supplies
//! those methods for RegExp objects.
//!
//! Deviations: `localeCompare` compares code units, `normalize` validates its
//! form argument but returns the string unchanged (Kiln has no Unicode
//! normalisation tables), and the `toLocale*Case` methods are the
//! locale-independent mappings.

use super::string_search;
use super::{define_symbol_method, define_to_string_tag, grow_held, make_constructor};
use crate::JsResult;
use crate::heap::StringId;
use crate::heap::string::{JsStr, Units};
use crate::interpreter::convert::is_js_whitespace;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, ObjectKind, PropertyKey};
use crate::value::Value;

pub fn init(vm: &mut Vm) {
    let empty = vm.atoms.empty;
    let proto = vm.heap.new_object(
        Some(vm.intrinsics.object_prototype),
        ObjectKind::String(empty),
    );
    vm.intrinsics.string_prototype = proto;
    let ctor = make_constructor(vm, "String", string_constructor, 1, proto);
    vm.intrinsics.string = ctor;
    vm.define_native(ctor, "fromCharCode", from_char_code, 1);
    vm.define_native(ctor, "fromCodePoint", from_code_point, 1);
    vm.define_native(ctor, "raw", raw, 1);

    let methods: [(&str, crate::object::NativeFn, u32); 33] = [
        ("at", at, 1),
        ("charAt", char_at, 1),
        ("charCodeAt", char_code_at, 1),
        ("codePointAt", code_point_at, 1),
        ("concat", concat, 1),
        ("endsWith", ends_with, 1),
        ("includes", includes, 1),
        ("indexOf", index_of, 1),
        ("isWellFormed", is_well_formed, 0),
        ("lastIndexOf", last_index_of, 1),
        ("localeCompare", locale_compare, 1),
        ("match", match_, 1),
        ("matchAll", match_all, 1),
        ("normalize", normalize, 0),
        ("padEnd", pad_end, 1),
        ("padStart", pad_start, 1),
        ("repeat", repeat, 1),
        ("replace", replace, 2),
        ("replaceAll", replace_all, 2),
        ("search", search, 1),
        ("slice", slice, 2),
        ("split", split, 2),
        ("startsWith", starts_with, 1),
        ("substring", substring, 2),
        ("substr", substr, 2),
        ("toLocaleLowerCase", to_lower_case, 0),
        ("toLocaleUpperCase", to_upper_case, 0),
        ("toLowerCase", to_lower_case, 0),
        ("toString", to_string, 0),
        ("toUpperCase", to_upper_case, 0),
        ("toWellFormed", to_well_formed, 0),
        ("trim", trim, 0),
        ("valueOf", value_of, 0),
    ];
    for (name, f, len) in methods {
        vm.define_native(proto, name, f, len);
    }
    // Annex B: trimLeft and trimRight are the same function objects as trimStart and trimEnd.
    let trim_start = vm.define_native(proto, "trimStart", trim_start, 0);
    let trim_end = vm.define_native(proto, "trimEnd", trim_end, 0);
    for (alias, f) in [("trimLeft", trim_start), ("trimRight", trim_end)] {
        let key = vm.key(alias);
        vm.define_builtin(proto, key, Value::object(f), Attrs::HIDDEN);
    }
    define_symbol_method(
        vm,
        proto,
        vm.symbols.iterator,
        "[Symbol.iterator]",
        iterator,
        0,
    );
    let html: [(&str, crate::object::NativeFn, u32); 13] = [
        ("anchor", html_anchor, 1),
        ("big", html_big, 0),
        ("blink", html_blink, 0),
        ("bold", html_bold, 0),
        ("fixed", html_fixed, 0),
        ("fontcolor", html_fontcolor, 1),
        ("fontsize", html_fontsize, 1),
        ("italics", html_italics, 0),
        ("link", html_link, 1),
        ("small", html_small, 0),
        ("strike", html_strike, 0),
        ("sub", html_sub, 0),
        ("sup", html_sup, 0),
    ];
    for (name, f, len) in html {
        vm.define_native(proto, name, f, len);
    }

    // %StringIteratorPrototype%
    let iter_proto = vm
        .heap
        .new_object(Some(vm.intrinsics.iterator_prototype), ObjectKind::Ordinary);
    vm.intrinsics.string_iterator_prototype = iter_proto;
    vm.define_native(iter_proto, "next", string_iterator_next, 0);
    define_to_string_tag(vm, iter_proto, "String Iterator");
}

// ---- helpers ----

/// RequireObjectCoercible(this) then ToString; the string stays reachable for the call.
fn this_str(vm: &mut Vm, this: Value, method: &str) -> JsResult<StringId> {
    if this.is_nullish() {
        return Err(vm.type_error(format!(
            "String.prototype.{method} called on null or undefined"
        )));
    }
    let s = vm.to_string(this)?;
    vm.roots.push(Value::string(s));
    Ok(s)
}

/// ToString of an argument, kept reachable for the rest of the call.
fn arg_str(vm: &mut Vm, v: Value) -> JsResult<StringId> {
    let s = vm.to_string(v)?;
    vm.roots.push(Value::string(s));
    Ok(s)
}

fn len_of(vm: &Vm, s: StringId) -> usize {
    vm.heap.string_len(s) as usize
}

/// A new string of `units`, enforcing the maximum string length.
fn new_string(vm: &mut Vm, units: &[u16]) -> JsResult<Value> {
    if units.len() > crate::MAX_STRING_LENGTH as usize {
        return Err(vm.range_error("Invalid string length"));
    }
    Ok(Value::string(vm.heap.alloc_units(units)))
}

/// The substring `from..to` of `s` (shares `s` when whole).
pub(crate) fn substring_of(vm: &mut Vm, s: StringId, from: usize, to: usize) -> StringId {
    let len = len_of(vm, s);
    let to = to.min(len);
    if from == 0 && to == len {
        return s;
    }
    if to <= from {
        return vm.atoms.empty;
    }
    vm.heap.substring(s, from, to)
}

/// [StringIndexOf](https://tc39.es/ecma262/#sec-stringindexof) on two heap strings,
/// charging for the text it scans.
fn string_index_of(vm: &mut Vm, hay: StringId, needle: StringId, from: usize) -> Option<usize> {
    vm.heap.flatten(hay);
    vm.heap.flatten(needle);
    let (found, examined) =
        string_search::find(vm.heap.flat_units(hay), vm.heap.flat_units(needle), from);
    vm.heap.note_work(examined * 2);
    found
}

/// Whether `s` has `needle` at `at`.
fn units_at(vm: &mut Vm, s: StringId, needle: StringId, at: usize) -> bool {
    vm.heap.flatten(s);
    vm.heap.flatten(needle);
    let (h, nd) = (vm.heap.flat_units(s), vm.heap.flat_units(needle));
    at + nd.len() <= h.len() && (0..nd.len()).all(|j| h.at(at + j) == nd.at(j))
}

fn is_high_surrogate(u: u16) -> bool {
    (0xD800..0xDC00).contains(&u)
}

fn is_low_surrogate(u: u16) -> bool {
    (0xDC00..0xE000).contains(&u)
}

/// [CodePointAt](https://tc39.es/ecma262/#sec-codepointat): (code point, code unit count).
fn code_point_at_units(units: Units<'_>, i: usize) -> (u32, usize) {
    let first = units.at(i);
    if is_high_surrogate(first) && i + 1 < units.len() {
        let second = units.at(i + 1);
        if is_low_surrogate(second) {
            let cp = 0x10000 + ((first as u32 - 0xD800) << 10) + (second as u32 - 0xDC00);
            return (cp, 2);
        }
    }
    (first as u32, 1)
}

/// ToIntegerOrInfinity(v) clamped to `0..=len`.
fn clamped_position(vm: &mut Vm, v: Value, len: usize) -> JsResult<usize> {
    let n = vm.to_integer(v)?;
    Ok(n.clamp(0.0, len as f64) as usize)
}

/// [IsRegExp](https://tc39.es/ecma262/#sec-isregexp)
pub(crate) fn is_regexp(vm: &mut Vm, v: Value) -> JsResult<bool> {
    let Some(o) = v.as_object() else {
        return Ok(false);
    };
    let matcher = vm.get(v, PropertyKey::Symbol(vm.symbols.match_))?;
    if !matcher.is_undefined() {
        return Ok(vm.to_boolean(matcher));
    }
    Ok(matches!(vm.heap.object(o).kind, ObjectKind::RegExp(_)))
}

fn no_regexp(vm: &mut Vm, v: Value, method: &str) -> JsResult<()> {
    if is_regexp(vm, v)? {
        return Err(vm.type_error(format!(
            "First argument to String.prototype.{method} must not be a regular expression"
        )));
    }
    Ok(())
}

/// [RegExpCreate](https://tc39.es/ecma262/#sec-regexpcreate)(pattern, flags) through %RegExp%.
fn regexp_create(vm: &mut Vm, pattern: Value, flags: Option<&str>) -> JsResult<Value> {
    let ctor = Value::object(vm.intrinsics.regexp);
    if !vm.is_constructor(ctor) {
        return Err(vm.type_error("RegExp is not supported"));
    }
    let flags = match flags {
        Some(f) => vm.intern_value(f),
        None => Value::UNDEFINED,
    };
    let pattern = if pattern.is_undefined() {
        Value::string(vm.atoms.empty)
    } else {
        pattern
    };
    let rx = vm.construct(ctor, &[pattern, flags], None)?;
    vm.roots.push(rx);
    Ok(rx)
}

/// Invoke(v, key, args)
fn invoke(vm: &mut Vm, v: Value, key: PropertyKey, args: &[Value]) -> JsResult<Value> {
    let f = vm.get(v, key)?;
    vm.call(f, v, args)
}

// ---- the constructor and its functions ----

/// [String](https://tc39.es/ecma262/#sec-string-constructor-string-value)
fn string_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let s = if args.count == 0 {
        vm.atoms.empty
    } else {
        let value = vm.arg(args, 0);
        if args.new_target.is_undefined()
            && let Some(sym) = value.as_symbol()
        {
            let d = super::symbol::symbol_descriptive_string(vm, sym);
            return Ok(Value::string(d));
        }
        vm.to_string(value)?
    };
    if args.new_target.is_undefined() {
        return Ok(Value::string(s));
    }
    vm.roots.push(Value::string(s));
    let proto = vm.prototype_from_constructor(args.new_target, |i| i.string_prototype)?;
    vm.heap.flatten(s);
    Ok(Value::object(
        vm.heap.new_object(Some(proto), ObjectKind::String(s)),
    ))
}

/// [String.fromCharCode](https://tc39.es/ecma262/#sec-string.fromcharcode)
fn from_char_code(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let mut units = Vec::with_capacity(args.count as usize);
    for i in 0..args.count as usize {
        let v = vm.arg(args, i);
        units.push(vm.to_uint32(v)? as u16);
    }
    if units.len() == 1 {
        return Ok(Value::string(vm.heap.single_unit_string(units[0])));
    }
    new_string(vm, &units)
}

/// [String.fromCodePoint](https://tc39.es/ecma262/#sec-string.fromcodepoint)
fn from_code_point(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let mut units = Vec::with_capacity(args.count as usize);
    for i in 0..args.count as usize {
        let v = vm.arg(args, i);
        let n = vm.to_number(v)?;
        if n.fract() != 0.0 || !(0.0..=1114111.0).contains(&n) {
            let what = crate::interpreter::convert::number_to_string(n);
            return Err(vm.range_error(format!("Invalid code point {what}")));
        }
        push_code_point(&mut units, n as u32);
    }
    new_string(vm, &units)
}

/// Append code point `cp` as UTF-16 (code points in the surrogate range stay single units).
fn push_code_point(out: &mut Vec<u16>, cp: u32) {
    if cp < 0x10000 {
        out.push(cp as u16);
    } else {
        let c = cp - 0x10000;
        out.push(0xD800 + (c >> 10) as u16);
        out.push(0xDC00 + (c & 0x3FF) as u16);
    }
}

/// [String.raw](https://tc39.es/ecma262/#sec-string.raw)
fn raw(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let cooked = vm.to_object(vm.arg(args, 0))?;
    vm.roots.push(Value::object(cooked));
    let raw_value = vm.get(Value::object(cooked), PropertyKey::String(vm.atoms.raw))?;
    let literals = vm.to_object(raw_value)?;
    vm.roots.push(Value::object(literals));
    let literal_count = vm.length_of_array_like(Value::object(literals))?;
    let mut out: Vec<u16> = Vec::new();
    if literal_count <= 0.0 {
        return Ok(Value::string(vm.atoms.empty));
    }
    let substitutions = args.count.saturating_sub(1) as usize;
    let mut next_index = 0u32;
    loop {
        let v = vm.get(Value::object(literals), PropertyKey::Index(next_index))?;
        let s = vm.to_string(v)?;
        append(vm, &mut out, s)?;
        if (next_index + 1) as f64 >= literal_count {
            return new_string(vm, &out);
        }
        if (next_index as usize) < substitutions {
            let sub = vm.arg(args, next_index as usize + 1);
            let s = vm.to_string(sub)?;
            append(vm, &mut out, s)?;
        }
        next_index += 1;
    }
}

/// Append a string's units within the maximum string length, reserving the storage
/// `out` grows by against the heap limit.
fn append(vm: &mut Vm, out: &mut Vec<u16>, s: StringId) -> JsResult<()> {
    let len = len_of(vm, s);
    if out.len() + len > crate::MAX_STRING_LENGTH as usize {
        return Err(vm.range_error("Invalid string length"));
    }
    vm.grow_scratch(out, len)?;
    out.extend(vm.heap.units(s).iter());
    Ok(())
}

// ---- String.prototype ----

/// [thisStringValue](https://tc39.es/ecma262/#sec-thisstringvalue)
fn this_string_value(vm: &mut Vm, this: Value, method: &str) -> JsResult<Value> {
    if this.as_string().is_some() {
        return Ok(this);
    }
    if let Some(o) = this.as_object()
        && let ObjectKind::String(s) = vm.heap.object(o).kind
    {
        return Ok(Value::string(s));
    }
    Err(vm.type_error(format!(
        "String.prototype.{method} requires that 'this' be a String"
    )))
}

/// [String.prototype.toString](https://tc39.es/ecma262/#sec-string.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    this_string_value(vm, this, "toString")
}

/// [String.prototype.valueOf](https://tc39.es/ecma262/#sec-string.prototype.valueof)
fn value_of(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    this_string_value(vm, this, "valueOf")
}

/// [String.prototype.at](https://tc39.es/ecma262/#sec-string.prototype.at)
fn at(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "at")?;
    let len = len_of(vm, s) as f64;
    let rel = vm.to_integer(vm.arg(args, 0))?;
    let k = if rel >= 0.0 { rel } else { len + rel };
    if k < 0.0 || k >= len {
        return Ok(Value::UNDEFINED);
    }
    let unit = vm.heap.units(s).at(k as usize);
    Ok(Value::string(vm.heap.single_unit_string(unit)))
}

/// [String.prototype.charAt](https://tc39.es/ecma262/#sec-string.prototype.charat)
fn char_at(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "charAt")?;
    let pos = vm.to_integer(vm.arg(args, 0))?;
    if pos < 0.0 || pos >= len_of(vm, s) as f64 {
        return Ok(Value::string(vm.atoms.empty));
    }
    let unit = vm.heap.units(s).at(pos as usize);
    Ok(Value::string(vm.heap.single_unit_string(unit)))
}

/// [String.prototype.charCodeAt](https://tc39.es/ecma262/#sec-string.prototype.charcodeat)
fn char_code_at(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "charCodeAt")?;
    let pos = vm.to_integer(vm.arg(args, 0))?;
    if pos < 0.0 || pos >= len_of(vm, s) as f64 {
        return Ok(Value::double(f64::NAN));
    }
    Ok(Value::int(vm.heap.units(s).at(pos as usize) as i32))
}

/// [String.prototype.codePointAt](https://tc39.es/ecma262/#sec-string.prototype.codepointat)
fn code_point_at(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "codePointAt")?;
    let pos = vm.to_integer(vm.arg(args, 0))?;
    if pos < 0.0 || pos >= len_of(vm, s) as f64 {
        return Ok(Value::UNDEFINED);
    }
    let (cp, _) = code_point_at_units(vm.heap.units(s), pos as usize);
    Ok(Value::int(cp as i32))
}

/// [String.prototype.concat](https://tc39.es/ecma262/#sec-string.prototype.concat)
fn concat(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let mut r = this_str(vm, this, "concat")?;
    for i in 0..args.count as usize {
        let next = arg_str(vm, vm.arg(args, i))?;
        r = vm
            .concat_strings(r, next)?
            .as_string()
            .unwrap_or(vm.atoms.empty);
        vm.roots.push(Value::string(r));
    }
    Ok(Value::string(r))
}

/// [String.prototype.endsWith](https://tc39.es/ecma262/#sec-string.prototype.endswith)
fn ends_with(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "endsWith")?;
    let search = vm.arg(args, 0);
    no_regexp(vm, search, "endsWith")?;
    let search = arg_str(vm, search)?;
    let len = len_of(vm, s);
    let end_position = vm.arg(args, 1);
    let end = if end_position.is_undefined() {
        len
    } else {
        clamped_position(vm, end_position, len)?
    };
    let search_len = len_of(vm, search);
    if search_len == 0 {
        return Ok(Value::TRUE);
    }
    if search_len > end {
        return Ok(Value::FALSE);
    }
    Ok(Value::bool(units_at(vm, s, search, end - search_len)))
}

/// [String.prototype.startsWith](https://tc39.es/ecma262/#sec-string.prototype.startswith)
fn starts_with(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "startsWith")?;
    let search = vm.arg(args, 0);
    no_regexp(vm, search, "startsWith")?;
    let search = arg_str(vm, search)?;
    let len = len_of(vm, s);
    let start = clamped_position(vm, vm.arg(args, 1), len)?;
    let search_len = len_of(vm, search);
    if search_len == 0 {
        return Ok(Value::TRUE);
    }
    Ok(Value::bool(units_at(vm, s, search, start)))
}

/// [String.prototype.includes](https://tc39.es/ecma262/#sec-string.prototype.includes)
fn includes(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "includes")?;
    let search = vm.arg(args, 0);
    no_regexp(vm, search, "includes")?;
    let search = arg_str(vm, search)?;
    let len = len_of(vm, s);
    let start = clamped_position(vm, vm.arg(args, 1), len)?;
    Ok(Value::bool(string_index_of(vm, s, search, start).is_some()))
}

/// [String.prototype.indexOf](https://tc39.es/ecma262/#sec-string.prototype.indexof)
fn index_of(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "indexOf")?;
    let search = arg_str(vm, vm.arg(args, 0))?;
    let len = len_of(vm, s);
    let start = clamped_position(vm, vm.arg(args, 1), len)?;
    Ok(match string_index_of(vm, s, search, start) {
        Some(i) => Value::number(i as f64),
        None => Value::int(-1),
    })
}

/// [String.prototype.lastIndexOf](https://tc39.es/ecma262/#sec-string.prototype.lastindexof)
fn last_index_of(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "lastIndexOf")?;
    let search = arg_str(vm, vm.arg(args, 0))?;
    let num_pos = vm.to_number(vm.arg(args, 1))?;
    let pos = if num_pos.is_nan() {
        f64::INFINITY
    } else {
        crate::interpreter::convert::f64_to_integer(num_pos)
    };
    let len = len_of(vm, s);
    let search_len = len_of(vm, search);
    if search_len > len {
        return Ok(Value::int(-1));
    }
    let start = (pos.clamp(0.0, len as f64) as usize).min(len - search_len);
    vm.heap.flatten(s);
    vm.heap.flatten(search);
    let (found, examined) =
        string_search::rfind(vm.heap.flat_units(s), vm.heap.flat_units(search), start);
    vm.heap.note_work(examined * 2);
    Ok(found.map_or(Value::int(-1), |i| Value::number(i as f64)))
}

/// [String.prototype.isWellFormed](https://tc39.es/ecma262/#sec-string.prototype.iswellformed)
fn is_well_formed(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "isWellFormed")?;
    let units = vm.heap.units(s);
    let Units::Utf16(u) = units else {
        return Ok(Value::TRUE);
    };
    Ok(Value::bool(
        char::decode_utf16(u.iter().copied()).all(|c| c.is_ok()),
    ))
}

/// [String.prototype.toWellFormed](https://tc39.es/ecma262/#sec-string.prototype.towellformed)
fn to_well_formed(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "toWellFormed")?;
    let Units::Utf16(u) = vm.heap.units(s) else {
        return Ok(Value::string(s));
    };
    let mut out = Vec::with_capacity(u.len());
    for c in char::decode_utf16(u.iter().copied()) {
        let c = c.unwrap_or('\u{FFFD}');
        let mut buf = [0u16; 2];
        out.extend_from_slice(c.encode_utf16(&mut buf));
    }
    new_string(vm, &out)
}

/// [String.prototype.localeCompare](https://tc39.es/ecma262/#sec-string.prototype.localecompare)
fn locale_compare(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "localeCompare")?;
    let that = arg_str(vm, vm.arg(args, 0))?;
    // Without collation data: canonically equivalent strings are equal, others compare
    // by the code units of their canonical decompositions.
    let (a, b) = (vm.heap.units_vec(s), vm.heap.units_vec(that));
    vm.charge((a.len() + b.len()) as u64 / 64)?;
    let (a, b) = (normalize_units(&a, nfd), normalize_units(&b, nfd));
    Ok(Value::int(match a.cmp(&b) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }))
}

/// [String.prototype.normalize](https://tc39.es/ecma262/#sec-string.prototype.normalize)
fn normalize(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    use icu_normalizer::{ComposingNormalizerBorrowed, DecomposingNormalizerBorrowed};
    let s = this_str(vm, this, "normalize")?;
    let form = vm.arg(args, 0);
    let form = if form.is_undefined() {
        "NFC".to_string()
    } else {
        let f = vm.to_string(form)?;
        vm.heap.string_to_rust(f)
    };
    let normalize: fn(&[u16]) -> std::borrow::Cow<'_, [u16]> = match form.as_str() {
        "NFC" => |u| ComposingNormalizerBorrowed::new_nfc().normalize_utf16(u),
        "NFD" => nfd,
        "NFKC" => |u| ComposingNormalizerBorrowed::new_nfkc().normalize_utf16(u),
        "NFKD" => |u| DecomposingNormalizerBorrowed::new_nfkd().normalize_utf16(u),
        f => {
            return Err(vm.range_error(format!(
                "The normalization form should be one of NFC, NFD, NFKC, NFKD, not {f}"
            )));
        }
    };
    // Latin-1 text without a combining character is in every form already.
    if let Units::Latin1(b) = vm.heap.units(s)
        && b.iter().all(|&c| c < 0xA0)
    {
        return Ok(Value::string(s));
    }
    let units = vm.heap.units_vec(s);
    vm.charge(units.len() as u64 / 64)?;
    let out = normalize_units(&units, normalize);
    if out == units {
        return Ok(Value::string(s));
    }
    Ok(Value::string(vm.heap.alloc_units(&out)))
}

/// Normalization Form D.
fn nfd(units: &[u16]) -> std::borrow::Cow<'_, [u16]> {
    icu_normalizer::DecomposingNormalizerBorrowed::new_nfd().normalize_utf16(units)
}

/// `units` normalized by `normalize`, keeping lone surrogates as they are: they are
/// starters, so normalizing the well-formed runs between them gives the same result as
/// a whole.
fn normalize_units(
    units: &[u16],
    normalize: fn(&[u16]) -> std::borrow::Cow<'_, [u16]>,
) -> Vec<u16> {
    let mut out = Vec::with_capacity(units.len());
    let mut run_start = 0;
    let mut i = 0;
    while i < units.len() {
        let unit = units[i];
        let paired = (0xD800..0xDC00).contains(&unit)
            && units
                .get(i + 1)
                .is_some_and(|t| (0xDC00..0xE000).contains(t));
        if paired {
            i += 2;
            continue;
        }
        if (0xD800..0xE000).contains(&unit) {
            out.extend_from_slice(&normalize(&units[run_start..i]));
            out.push(unit);
            run_start = i + 1;
        }
        i += 1;
    }
    out.extend_from_slice(&normalize(&units[run_start..]));
    out
}

/// [StringPad](https://tc39.es/ecma262/#sec-stringpad) for padStart / padEnd.
fn pad(vm: &mut Vm, this: Value, args: Args, at_start: bool) -> JsResult<Value> {
    let method = if at_start { "padStart" } else { "padEnd" };
    let s = this_str(vm, this, method)?;
    let max_length = vm.to_length(vm.arg(args, 0))?;
    let len = len_of(vm, s);
    if max_length <= len as f64 {
        return Ok(Value::string(s));
    }
    let fill = vm.arg(args, 1);
    let filler: Vec<u16> = if fill.is_undefined() {
        vec![b' ' as u16]
    } else {
        let f = vm.to_string(fill)?;
        vm.heap.units_vec(f)
    };
    if filler.is_empty() {
        return Ok(Value::string(s));
    }
    if max_length > crate::MAX_STRING_LENGTH as f64 {
        return Err(vm.range_error("Invalid string length"));
    }
    let fill_len = max_length as usize - len;
    vm.charge_allocation(max_length as usize * 2)?;
    let padding: Vec<u16> = filler.iter().copied().cycle().take(fill_len).collect();
    let mut out = Vec::with_capacity(max_length as usize);
    let own = vm.heap.units_vec(s);
    if at_start {
        out.extend_from_slice(&padding);
        out.extend_from_slice(&own);
    } else {
        out.extend_from_slice(&own);
        out.extend_from_slice(&padding);
    }
    new_string(vm, &out)
}

/// [String.prototype.padEnd](https://tc39.es/ecma262/#sec-string.prototype.padend)
fn pad_end(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    pad(vm, this, args, false)
}

/// [String.prototype.padStart](https://tc39.es/ecma262/#sec-string.prototype.padstart)
fn pad_start(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    pad(vm, this, args, true)
}

/// [String.prototype.repeat](https://tc39.es/ecma262/#sec-string.prototype.repeat)
fn repeat(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "repeat")?;
    let n = vm.to_integer(vm.arg(args, 0))?;
    if n < 0.0 || n == f64::INFINITY {
        let what = crate::interpreter::convert::number_to_string(n);
        return Err(vm.range_error(format!("Invalid count value: {what}")));
    }
    let len = len_of(vm, s);
    if n == 0.0 || len == 0 {
        return Ok(Value::string(vm.atoms.empty));
    }
    if len as f64 * n > crate::MAX_STRING_LENGTH as f64 {
        return Err(vm.range_error("Invalid string length"));
    }
    vm.charge_allocation(len * n as usize * 2)?;
    let piece = match vm.heap.units(s) {
        Units::Latin1(b) => JsStr::from_latin1(b.repeat(n as usize).into()),
        Units::Utf16(u) => JsStr::from_units(&u.repeat(n as usize)),
    };
    Ok(Value::string(vm.heap.alloc_string(piece)))
}

/// [String.prototype.slice](https://tc39.es/ecma262/#sec-string.prototype.slice)
fn slice(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "slice")?;
    let len = len_of(vm, s) as f64;
    let rel = |vm: &mut Vm, v: Value| -> JsResult<f64> {
        let r = vm.to_integer(v)?;
        Ok(if r < 0.0 {
            (len + r).max(0.0)
        } else {
            r.min(len)
        })
    };
    let from = rel(vm, vm.arg(args, 0))?;
    let end = vm.arg(args, 1);
    let to = if end.is_undefined() {
        len
    } else {
        rel(vm, end)?
    };
    if from >= to {
        return Ok(Value::string(vm.atoms.empty));
    }
    Ok(Value::string(substring_of(
        vm,
        s,
        from as usize,
        to as usize,
    )))
}

/// [String.prototype.substring](https://tc39.es/ecma262/#sec-string.prototype.substring)
fn substring(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "substring")?;
    let len = len_of(vm, s);
    let start = clamped_position(vm, vm.arg(args, 0), len)?;
    let end = vm.arg(args, 1);
    let end = if end.is_undefined() {
        len
    } else {
        clamped_position(vm, end, len)?
    };
    let (from, to) = (start.min(end), start.max(end));
    Ok(Value::string(substring_of(vm, s, from, to)))
}

/// [String.prototype.substr](https://tc39.es/ecma262/#sec-string.prototype.substr) (Annex B)
fn substr(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "substr")?;
    let size = len_of(vm, s) as f64;
    let int_start = vm.to_integer(vm.arg(args, 0))?;
    let int_start = if int_start < 0.0 {
        (size + int_start).max(0.0)
    } else {
        int_start.min(size)
    };
    let length = vm.arg(args, 1);
    let int_length = if length.is_undefined() {
        size
    } else {
        vm.to_integer(length)?
    };
    let int_length = int_length.clamp(0.0, size);
    let int_end = (int_start + int_length).min(size);
    Ok(Value::string(substring_of(
        vm,
        s,
        int_start as usize,
        int_end as usize,
    )))
}

/// Map the case of a string: valid code points through Rust's full Unicode
/// mappings (which handle the final sigma), lone surrogates unchanged.
fn map_case(units: Units<'_>, upper: bool) -> Vec<u16> {
    if let Units::Latin1(b) = units
        && b.is_ascii()
    {
        return b
            .iter()
            .map(|&c| {
                let mapped = if upper {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                };
                mapped as u16
            })
            .collect();
    }
    let mut out = Vec::with_capacity(units.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut Vec<u16>| {
        if !run.is_empty() {
            let mapped = if upper {
                run.to_uppercase()
            } else {
                run.to_lowercase()
            };
            out.extend(mapped.encode_utf16());
            run.clear();
        }
    };
    for c in char::decode_utf16(units.iter()) {
        match c {
            Ok(c) => run.push(c),
            Err(e) => {
                flush(&mut run, &mut out);
                out.push(e.unpaired_surrogate());
            }
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Refuse a case mapping whose buffers would not fit under the heap limit: the mapped
/// units (two bytes each), and for text beyond ASCII the UTF-8 copy and its mapping
/// (about three bytes a unit each, `ß` becoming `SS`), besides the new string.
fn check_room_for_case_mapping(vm: &mut Vm, s: StringId) -> JsResult<()> {
    let len = len_of(vm, s);
    let per_unit = match vm.heap.units(s) {
        Units::Latin1(b) if b.is_ascii() => 2 + 1,
        _ => 2 * 2 + 3 + 3 + 2,
    };
    vm.charge_allocation(len.saturating_mul(per_unit))
}

/// [String.prototype.toLowerCase](https://tc39.es/ecma262/#sec-string.prototype.tolowercase)
fn to_lower_case(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "toLowerCase")?;
    check_room_for_case_mapping(vm, s)?;
    let out = map_case(vm.heap.units(s), false);
    new_string(vm, &out)
}

/// [String.prototype.toUpperCase](https://tc39.es/ecma262/#sec-string.prototype.touppercase)
fn to_upper_case(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "toUpperCase")?;
    check_room_for_case_mapping(vm, s)?;
    let out = map_case(vm.heap.units(s), true);
    new_string(vm, &out)
}

fn is_whitespace_unit(u: u16) -> bool {
    char::from_u32(u as u32).is_some_and(is_js_whitespace)
}

/// [TrimString](https://tc39.es/ecma262/#sec-trimstring)
fn trim_string(vm: &mut Vm, this: Value, start: bool, end: bool, method: &str) -> JsResult<Value> {
    let s = this_str(vm, this, method)?;
    let units = vm.heap.units(s);
    let len = units.len();
    let mut from = 0;
    let mut to = len;
    if start {
        while from < len && is_whitespace_unit(units.at(from)) {
            from += 1;
        }
    }
    if end {
        while to > from && is_whitespace_unit(units.at(to - 1)) {
            to -= 1;
        }
    }
    Ok(Value::string(substring_of(vm, s, from, to)))
}

/// [String.prototype.trim](https://tc39.es/ecma262/#sec-string.prototype.trim)
fn trim(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    trim_string(vm, this, true, true, "trim")
}

/// [String.prototype.trimStart](https://tc39.es/ecma262/#sec-string.prototype.trimstart)
fn trim_start(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    trim_string(vm, this, true, false, "trimStart")
}

/// [String.prototype.trimEnd](https://tc39.es/ecma262/#sec-string.prototype.trimend)
fn trim_end(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    trim_string(vm, this, false, true, "trimEnd")
}

// ---- the RegExp-protocol methods ----

/// The `Symbol.match` / `Symbol.search` delegation shared by `match` and `search`.
fn match_or_search(vm: &mut Vm, this: Value, args: Args, search: bool) -> JsResult<Value> {
    let method = if search { "search" } else { "match" };
    if this.is_nullish() {
        return Err(vm.type_error(format!(
            "String.prototype.{method} called on null or undefined"
        )));
    }
    let regexp = vm.arg(args, 0);
    let symbol = if search {
        vm.symbols.search
    } else {
        vm.symbols.match_
    };
    // 2. If regexp is an Object, delegate to its Symbol.match / Symbol.search method.
    if regexp.is_object()
        && let Some(f) = vm.get_method(regexp, PropertyKey::Symbol(symbol))?
    {
        return vm.call(f, regexp, &[this]);
    }
    // 3-5. Let S be ? ToString(O); rx be ? RegExpCreate(regexp, undefined); Invoke it.
    let s = this_str(vm, this, method)?;
    let rx = regexp_create(vm, regexp, None)?;
    invoke(vm, rx, PropertyKey::Symbol(symbol), &[Value::string(s)])
}

/// [String.prototype.match](https://tc39.es/ecma262/#sec-string.prototype.match)
fn match_(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    match_or_search(vm, this, args, false)
}

/// [String.prototype.search](https://tc39.es/ecma262/#sec-string.prototype.search)
fn search(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    match_or_search(vm, this, args, true)
}

/// For matchAll / replaceAll: a RegExp argument must have the `g` flag.
fn require_global_flag(vm: &mut Vm, regexp: Value, method: &str) -> JsResult<()> {
    if is_regexp(vm, regexp)? {
        let key = vm.key("flags");
        let flags = vm.get(regexp, key)?;
        if flags.is_nullish() {
            return Err(vm.type_error(format!(
                "String.prototype.{method} called with a RegExp whose flags are {}",
                if flags.is_null() { "null" } else { "undefined" }
            )));
        }
        let flags = vm.to_string(flags)?;
        if !vm.heap.units(flags).iter().any(|u| u == b'g' as u16) {
            return Err(vm.type_error(format!(
                "String.prototype.{method} called with a non-global RegExp argument"
            )));
        }
    }
    Ok(())
}

/// [String.prototype.matchAll](https://tc39.es/ecma262/#sec-string.prototype.matchall)
fn match_all(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    if this.is_nullish() {
        return Err(vm.type_error("String.prototype.matchAll called on null or undefined"));
    }
    let regexp = vm.arg(args, 0);
    if regexp.is_object() {
        require_global_flag(vm, regexp, "matchAll")?;
        if let Some(f) = vm.get_method(regexp, PropertyKey::Symbol(vm.symbols.match_all))? {
            return vm.call(f, regexp, &[this]);
        }
    }
    let s = this_str(vm, this, "matchAll")?;
    let rx = regexp_create(vm, regexp, Some("g"))?;
    invoke(
        vm,
        rx,
        PropertyKey::Symbol(vm.symbols.match_all),
        &[Value::string(s)],
    )
}

/// [GetSubstitution](https://tc39.es/ecma262/#sec-getsubstitution): expand `$$`, `$&`,
/// `` $` ``, `$'`, `$n`, `$nn` and `$<name>` in `template`. `captures` are strings or
/// undefined and must be reachable; `named_captures` is undefined or an object.
pub fn get_substitution(
    vm: &mut Vm,
    matched: &[u16],
    string: &[u16],
    position: usize,
    captures: &[Value],
    named_captures: Value,
    template: &[u16],
) -> JsResult<Vec<u16>> {
    const DOLLAR: u16 = b'$' as u16;
    let is_digit = |u: u16| (b'0' as u16..=b'9' as u16).contains(&u);
    let string_length = string.len();
    let position = position.min(string_length);
    let mut result: Vec<u16> = Vec::with_capacity(template.len());
    let mut i = 0;
    while i < template.len() {
        let c = template[i];
        let next = template.get(i + 1).copied();
        if c != DOLLAR || next.is_none() {
            result.push(c);
            i += 1;
            continue;
        }
        let next = next.unwrap_or(0);
        match next {
            DOLLAR => {
                result.push(DOLLAR);
                i += 2;
            }
            0x60 => {
                // $`
                result.extend_from_slice(&string[..position]);
                i += 2;
            }
            0x26 => {
                // $&
                result.extend_from_slice(matched);
                i += 2;
            }
            0x27 => {
                // $'
                let tail = (position + matched.len()).min(string_length);
                result.extend_from_slice(&string[tail..]);
                i += 2;
            }
            d if is_digit(d) => {
                let two = template.get(i + 2).copied().filter(|&u| is_digit(u));
                let mut digit_count = if two.is_some() { 2 } else { 1 };
                let mut index = (d - b'0' as u16) as usize;
                if let Some(t) = two {
                    index = index * 10 + (t - b'0' as u16) as usize;
                }
                if index > captures.len() && digit_count == 2 {
                    digit_count = 1;
                    index = (d - b'0' as u16) as usize;
                }
                let reference = &template[i..i + 1 + digit_count];
                if (1..=captures.len()).contains(&index) {
                    let capture = captures[index - 1];
                    if let Some(s) = capture.as_string() {
                        result.extend(vm.heap.units(s).iter());
                    }
                } else {
                    result.extend_from_slice(reference);
                }
                i += 1 + digit_count;
            }
            0x3C => {
                // $<
                let gt = template[i..].iter().position(|&u| u == b'>' as u16);
                match gt {
                    Some(gt) if !named_captures.is_undefined() => {
                        let name = &template[i + 2..i + gt];
                        let name = vm.heap.alloc_units(name);
                        let key = vm.key_from_string(name);
                        let capture = vm.get(named_captures, key)?;
                        if !capture.is_undefined() {
                            let s = vm.to_string(capture)?;
                            result.extend(vm.heap.units(s).iter());
                        }
                        i += gt + 1;
                    }
                    _ => {
                        result.extend_from_slice(&template[i..i + 2]);
                        i += 2;
                    }
                }
            }
            _ => {
                result.push(DOLLAR);
                i += 1;
            }
        }
        if result.len() > crate::MAX_STRING_LENGTH as usize {
            return Err(vm.range_error("Invalid string length"));
        }
    }
    Ok(result)
}

/// The shared body of `replace` (first match) and `replaceAll` (every match).
fn replace_impl(vm: &mut Vm, this: Value, args: Args, all: bool) -> JsResult<Value> {
    let method = if all { "replaceAll" } else { "replace" };
    if this.is_nullish() {
        return Err(vm.type_error(format!(
            "String.prototype.{method} called on null or undefined"
        )));
    }
    let search_value = vm.arg(args, 0);
    let replace_value = vm.arg(args, 1);
    // 2. If searchValue is an Object, delegate to its Symbol.replace method.
    if search_value.is_object() {
        if all {
            require_global_flag(vm, search_value, method)?;
        }
        if let Some(f) = vm.get_method(search_value, PropertyKey::Symbol(vm.symbols.replace))? {
            return vm.call(f, search_value, &[this, replace_value]);
        }
    }
    let string = this_str(vm, this, method)?;
    let search_string = arg_str(vm, search_value)?;
    let functional = vm.is_callable(replace_value);
    let template: Vec<u16> = if functional {
        Vec::new()
    } else {
        let t = vm.to_string(replace_value)?;
        vm.heap.units_vec(t)
    };
    let search_length = len_of(vm, search_string);
    let advance_by = search_length.max(1);
    // the positions are held across the replacer's calls
    let mut positions = Vec::new();
    let mut held_positions = vm.heap.hold_bytes();
    let mut position = string_index_of(vm, string, search_string, 0);
    while let Some(p) = position {
        grow_held(vm, &mut held_positions, 0, &mut positions, 1)?;
        positions.push(p);
        if !all {
            break;
        }
        position = string_index_of(vm, string, search_string, p + advance_by);
    }
    if positions.is_empty() {
        return Ok(Value::string(string));
    }
    // Copies of both strings' units; a replacer function may collect while they and the
    // result are held: they stay counted across collections.
    let copies = (len_of(vm, string) + search_length + template.len()) * size_of::<u16>();
    vm.check_room(copies)?;
    let mut held = vm.heap.hold_bytes();
    held.set(&mut vm.heap, copies);
    let string_units = vm.heap.units_vec(string);
    let search_units = vm.heap.units_vec(search_string);
    let mut end_of_last_match = 0;
    let mut result: Vec<u16> = Vec::new();
    for p in positions {
        let replacement = if functional {
            let r = vm.call(
                replace_value,
                Value::UNDEFINED,
                &[
                    Value::string(search_string),
                    Value::number(p as f64),
                    Value::string(string),
                ],
            )?;
            let r = vm.to_string(r)?;
            vm.heap.units_vec(r)
        } else {
            get_substitution(
                vm,
                &search_units,
                &string_units,
                p,
                &[],
                Value::UNDEFINED,
                &template,
            )?
        };
        let kept = &string_units[end_of_last_match.min(p)..p];
        grow_held(
            vm,
            &mut held,
            copies,
            &mut result,
            kept.len() + replacement.len(),
        )?;
        result.extend_from_slice(kept);
        result.extend_from_slice(&replacement);
        if result.len() > crate::MAX_STRING_LENGTH as usize {
            return Err(vm.range_error("Invalid string length"));
        }
        end_of_last_match = p + search_length;
    }
    if end_of_last_match < string_units.len() {
        let tail = &string_units[end_of_last_match..];
        grow_held(vm, &mut held, copies, &mut result, tail.len())?;
        result.extend_from_slice(tail);
    }
    new_string(vm, &result)
}

/// [String.prototype.replace](https://tc39.es/ecma262/#sec-string.prototype.replace)
fn replace(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    replace_impl(vm, this, args, false)
}

/// [String.prototype.replaceAll](https://tc39.es/ecma262/#sec-string.prototype.replaceall)
fn replace_all(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    replace_impl(vm, this, args, true)
}

/// [String.prototype.split](https://tc39.es/ecma262/#sec-string.prototype.split)
fn split(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    if this.is_nullish() {
        return Err(vm.type_error("String.prototype.split called on null or undefined"));
    }
    let separator = vm.arg(args, 0);
    let limit = vm.arg(args, 1);
    // 2. If separator is an Object, delegate to its Symbol.split method.
    if separator.is_object()
        && let Some(f) = vm.get_method(separator, PropertyKey::Symbol(vm.symbols.split))?
    {
        return vm.call(f, separator, &[this, limit]);
    }
    let s = this_str(vm, this, "split")?;
    let lim = if limit.is_undefined() {
        u32::MAX
    } else {
        vm.to_uint32(limit)?
    } as usize;
    let r = arg_str(vm, separator)?;
    if lim == 0 {
        return Ok(Value::object(vm.array_from_values(Vec::new())));
    }
    if separator.is_undefined() {
        return Ok(Value::object(vm.array_from_values(vec![Value::string(s)])));
    }
    let separator_length = len_of(vm, r);
    let len = len_of(vm, s);
    if separator_length == 0 {
        let count = len.min(lim);
        let mut parts = Vec::new();
        vm.grow_scratch(&mut parts, count)?;
        for i in 0..count {
            let unit = vm.heap.units(s).at(i);
            parts.push(Value::string(vm.heap.single_unit_string(unit)));
        }
        return Ok(Value::object(vm.array_from_values(parts)));
    }
    if len == 0 {
        return Ok(Value::object(vm.array_from_values(vec![Value::string(s)])));
    }
    let mut parts = Vec::new();
    let mut i = 0;
    let mut j = string_index_of(vm, s, r, 0);
    while let Some(at) = j {
        let t = substring_of(vm, s, i, at);
        vm.grow_scratch(&mut parts, 1)?;
        parts.push(Value::string(t));
        if parts.len() >= lim {
            return Ok(Value::object(vm.array_from_values(parts)));
        }
        i = at + separator_length;
        j = string_index_of(vm, s, r, i);
    }
    let t = substring_of(vm, s, i, len);
    parts.push(Value::string(t));
    Ok(Value::object(vm.array_from_values(parts)))
}

// ---- iteration ----

/// [String.prototype [ %Symbol.iterator% ]](https://tc39.es/ecma262/#sec-string.prototype-%symbol.iterator%)
fn iterator(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let s = this_str(vm, this, "[Symbol.iterator]")?;
    vm.heap.flatten(s);
    let proto = vm.intrinsics.string_iterator_prototype;
    Ok(Value::object(vm.heap.new_object(
        Some(proto),
        ObjectKind::StringIterator {
            target: s,
            index: 0,
        },
    )))
}

/// [%StringIteratorPrototype%.next](https://tc39.es/ecma262/#sec-%stringiteratorprototype%.next)
fn string_iterator_next(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let state = this.as_object().and_then(|o| match vm.heap.object(o).kind {
        ObjectKind::StringIterator { target, index } => Some((o, target, index)),
        _ => None,
    });
    let Some((it, target, index)) = state else {
        return Err(vm.type_error("next called on incompatible receiver"));
    };
    let len = len_of(vm, target);
    if index as usize >= len {
        return Ok(vm.iter_result(Value::UNDEFINED, true));
    }
    let (_, count) = code_point_at_units(vm.heap.units(target), index as usize);
    let piece = substring_of(vm, target, index as usize, index as usize + count);
    if let ObjectKind::StringIterator { index: i, .. } = &mut vm.heap.object_mut(it).kind {
        *i += count as u32;
    }
    Ok(vm.iter_result(Value::string(piece), false))
}

// ---- Annex B HTML methods ----

/// [CreateHTML](https://tc39.es/ecma262/#sec-createhtml)
fn create_html(
    vm: &mut Vm,
    this: Value,
    tag: &str,
    attribute: Option<(&str, Value)>,
) -> JsResult<Value> {
    let s = this_str(vm, this, tag)?;
    let mut out: Vec<u16> = Vec::new();
    out.push(b'<' as u16);
    out.extend(tag.encode_utf16());
    if let Some((name, value)) = attribute {
        let v = vm.to_string(value)?;
        out.push(b' ' as u16);
        out.extend(name.encode_utf16());
        out.extend("=\"".encode_utf16());
        for u in vm.heap.units_vec(v) {
            if u == b'"' as u16 {
                out.extend("&quot;".encode_utf16());
            } else {
                out.push(u);
            }
        }
        out.push(b'"' as u16);
    }
    out.push(b'>' as u16);
    append(vm, &mut out, s)?;
    out.extend("</".encode_utf16());
    out.extend(tag.encode_utf16());
    out.push(b'>' as u16);
    new_string(vm, &out)
}

macro_rules! html_methods {
    ($($name:ident => $tag:literal $(, $attr:literal)?;)*) => {
        $(
            #[doc = concat!("Annex B [String.prototype.", stringify!($name), "](https://tc39.es/ecma262/#sec-createhtml): `<", $tag, ">`")]
            fn $name(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
                #[allow(unused_mut, unused_assignments)]
                let mut attribute = None;
                $(attribute = Some(($attr, vm.arg(_args, 0)));)?
                create_html(vm, this, $tag, attribute)
            }
        )*
    };
}

html_methods! {
    html_anchor => "a", "name";
    html_big => "big";
    html_blink => "blink";
    html_bold => "b";
    html_fixed => "tt";
    html_fontcolor => "font", "color";
    html_fontsize => "font", "size";
    html_italics => "i";
    html_link => "a", "href";
    html_small => "small";
    html_strike => "strike";
    html_sub => "sub";
    html_sup => "sup";
}
