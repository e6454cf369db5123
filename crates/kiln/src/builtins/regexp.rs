//! RegExp: compiled patterns (the `kiln_regex` crate) and their built-ins
//! ([spec](https://tc39.es/ecma262/#sec-regexp-regular-expression-objects)).
//!
//! A RegExp object is `ObjectKind::RegExp(RegExpData)`: the compiled matcher,
//! [[OriginalSource]] and [[OriginalFlags]], plus the parsed flags. Matching
//! runs on the string's own storage (one-byte or UTF-16), so `lastIndex`,
//! `index` and capture positions are code-unit indices as the spec wants, and
//! charges the VM's fuel for every step the matcher takes: a catastrophic
//! pattern stops like a runaway loop.
//!
//! Compiled patterns are shared: a thread-local cache maps (pattern, flags) to
//! the `kiln_regex::Regex`, so a literal evaluated in a loop compiles once while
//! each evaluation still returns a new object.
//!
//! `String.prototype.match`, `replace`, `search` and `split` call the
//! `Symbol.match` / `Symbol.replace` / `Symbol.search` / `Symbol.split`
//! methods defined here; [`regexp_create`], [`is_regexp`] and
//! [`get_substitution`] are shared with them.

use super::define_species;
use super::string::{get_substitution, substring_of};
use super::{
    define_getter, define_symbol_method, define_to_string_tag, grow_held, make_constructor,
};
use crate::JsResult;
use crate::heap::string::Units;
use crate::heap::{ObjectId, StringId};
use crate::interpreter::{Args, CodeBlock, Termination, Vm};
use crate::object::shape::ShapeId;
use crate::object::{Attrs, NativeFn, ObjectKind, PropertyKey};
use crate::realm::{Atoms, RealmId};
use crate::value::Value;
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

/// The flags of a regular expression, parsed from [[OriginalFlags]].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    pub has_indices: bool,
    pub global: bool,
    pub ignore_case: bool,
    pub multiline: bool,
    pub dot_all: bool,
    pub unicode: bool,
    pub unicode_sets: bool,
    pub sticky: bool,
}

impl Flags {
    /// Parse a flags string: only `dgimsuvy`, each at most once, not both `u` and `v`.
    pub fn parse(units: &[u16]) -> Option<Flags> {
        let mut f = Flags::default();
        for &u in units {
            let slot = match u {
                0x64 => &mut f.has_indices,
                0x67 => &mut f.global,
                0x69 => &mut f.ignore_case,
                0x6D => &mut f.multiline,
                0x73 => &mut f.dot_all,
                0x75 => &mut f.unicode,
                0x76 => &mut f.unicode_sets,
                0x79 => &mut f.sticky,
                _ => return None,
            };
            if *slot {
                return None;
            }
            *slot = true;
        }
        if f.unicode && f.unicode_sets {
            return None;
        }
        Some(f)
    }

    /// Whether matching works on code points (`u` or `v`).
    pub fn full_unicode(self) -> bool {
        self.unicode || self.unicode_sets
    }

    fn bits(self) -> u8 {
        [
            self.has_indices,
            self.global,
            self.ignore_case,
            self.multiline,
            self.dot_all,
            self.unicode,
            self.unicode_sets,
            self.sticky,
        ]
        .iter()
        .enumerate()
        .fold(0, |acc, (i, &b)| acc | ((b as u8) << i))
    }
}

/// The internal slots of a RegExp object.
#[derive(Clone, Debug)]
pub struct RegExpData {
    pub matcher: Rc<Compiled>,
    /// [[OriginalSource]]
    pub source: StringId,
    /// [[OriginalFlags]]
    pub flags: StringId,
    pub parsed_flags: Flags,
    /// [[LegacyFeaturesEnabled]] (Annex B): false for instances of subclasses
    pub legacy: bool,
    /// [[Realm]] (Annex B): the realm that allocated it; only that realm's `compile`
    /// may change it
    pub realm: RealmId,
}

impl RegExpData {
    pub fn trace(&self, out: &mut Vec<Value>) {
        out.push(Value::string(self.source));
        out.push(Value::string(self.flags));
    }

    /// The data of a regular expression with this [[OriginalSource]] and
    /// [[OriginalFlags]] (flat strings), compiled again; None if they are invalid.
    pub(crate) fn rebuild(
        heap: &crate::heap::Heap,
        source: StringId,
        flags: StringId,
        legacy: bool,
        realm: RealmId,
    ) -> Option<RegExpData> {
        let parsed_flags = Flags::parse(&heap.flat_units(flags).to_vec())?;
        let matcher = compile(&heap.flat_units(source).to_vec(), parsed_flags).ok()?;
        Some(RegExpData {
            matcher,
            source,
            flags,
            parsed_flags,
            legacy,
            realm,
        })
    }
}

/// Compiled patterns by (pattern, flag bits), with the bytes they hold; cleared when it
/// grows large.
#[derive(Default)]
struct CompiledCache {
    patterns: rustc_hash::FxHashMap<(Vec<u16>, u8), Rc<Compiled>>,
    held_bytes: usize,
}

thread_local! {
    static COMPILED: RefCell<CompiledCache> = RefCell::new(Default::default());
}

const COMPILED_CACHE_LIMIT: usize = 512;

/// The most the cache's patterns may hold (`Compiled::heap_bytes`): it is shared by the
/// thread's runtimes, counted against no heap limit, so it is part of the fixed overhead.
const COMPILED_CACHE_BYTES: usize = 4 << 20;

/// A compiled pattern and the name of each capture group ("" when unnamed; no names at
/// all when no group has one).
#[derive(Debug)]
pub struct Compiled {
    pub regex: kiln_regex::Regex,
    pub group_names: Rc<[String]>,
}

impl Compiled {
    /// Bytes the compiled pattern holds (an estimate, for the heap limit).
    pub fn heap_bytes(&self) -> usize {
        size_of::<Compiled>()
            + self.regex.heap_bytes()
            + self
                .group_names
                .iter()
                .map(|n| size_of::<String>() + n.capacity())
                .sum::<usize>()
    }
}

/// Compile a pattern (UTF-16) with flags, through the shared cache.
fn compile(pattern: &[u16], flags: Flags) -> Result<Rc<Compiled>, String> {
    let key = (pattern.to_vec(), flags.bits());
    if let Some(r) = COMPILED.with(|c| c.borrow().patterns.get(&key).cloned()) {
        return Ok(r);
    }
    let regex = kiln_regex::Regex::new(
        pattern,
        kiln_regex::Flags {
            ignore_case: flags.ignore_case,
            multiline: flags.multiline,
            dot_all: flags.dot_all,
            unicode: flags.unicode,
            unicode_sets: flags.unicode_sets,
        },
    )
    .map_err(|e| e.0)?;
    let names = regex.group_names();
    let group_names = if names.iter().any(Option::is_some) {
        names
            .iter()
            .map(|n| n.clone().unwrap_or_default())
            .collect()
    } else {
        Rc::from([])
    };
    let compiled = Rc::new(Compiled { regex, group_names });
    COMPILED.with(|c| {
        let mut c = c.borrow_mut();
        let bytes = compiled.heap_bytes();
        if c.patterns.len() >= COMPILED_CACHE_LIMIT || c.held_bytes + bytes > COMPILED_CACHE_BYTES {
            *c = CompiledCache::default();
        }
        c.held_bytes += bytes;
        c.patterns.insert(key, compiled.clone());
    });
    Ok(compiled)
}

fn is_regexp_kind(k: &ObjectKind) -> bool {
    matches!(k, ObjectKind::RegExp(_))
}

fn regexp_data(vm: &Vm, o: ObjectId) -> Option<&RegExpData> {
    match &vm.heap.object(o).kind {
        ObjectKind::RegExp(r) => Some(r),
        _ => None,
    }
}

pub fn init(vm: &mut Vm) {
    let proto = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.regexp_prototype = proto;
    let ctor = make_constructor(vm, "RegExp", regexp_constructor, 2, proto);
    vm.intrinsics.regexp = ctor;
    define_species(vm, ctor);
    vm.define_native(ctor, "escape", regexp_escape, 1);
    let methods: [(&str, NativeFn, u32); 4] = [
        ("compile", compile_method, 2),
        ("exec", exec, 1),
        ("test", test, 1),
        ("toString", to_string, 0),
    ];
    for (name, f, len) in methods {
        vm.define_native(proto, name, f, len);
    }
    let getters: [(&str, NativeFn); 10] = [
        ("dotAll", get_dot_all),
        ("flags", get_flags),
        ("global", get_global),
        ("hasIndices", get_has_indices),
        ("ignoreCase", get_ignore_case),
        ("multiline", get_multiline),
        ("source", get_source),
        ("sticky", get_sticky),
        ("unicode", get_unicode),
        ("unicodeSets", get_unicode_sets),
    ];
    for (name, f) in getters {
        define_getter(vm, proto, name, f);
    }
    let s = vm.symbols.clone();
    define_symbol_method(vm, proto, s.match_, "[Symbol.match]", symbol_match, 1);
    define_symbol_method(
        vm,
        proto,
        s.match_all,
        "[Symbol.matchAll]",
        symbol_match_all,
        1,
    );
    define_symbol_method(vm, proto, s.replace, "[Symbol.replace]", symbol_replace, 2);
    define_symbol_method(vm, proto, s.search, "[Symbol.search]", symbol_search, 1);
    define_symbol_method(vm, proto, s.split, "[Symbol.split]", symbol_split, 2);

    let iter_proto = vm
        .heap
        .new_object(Some(vm.intrinsics.iterator_prototype), ObjectKind::Ordinary);
    vm.intrinsics.regexp_string_iterator_prototype = iter_proto;
    vm.define_native(iter_proto, "next", string_iterator_next, 0);
    define_to_string_tag(vm, iter_proto, "RegExp String Iterator");
}

// ---- creation ----

/// A regular expression literal's pattern, compiled at its first evaluation, and the
/// strings every evaluation's object shares.
pub struct Literal {
    constant: u16,
    matcher: Rc<Compiled>,
    parsed_flags: Flags,
    pub source: StringId,
    pub flags: StringId,
}

impl Vm {
    /// A regular expression literal: a new RegExp object each evaluation.
    pub(crate) fn regexp_literal(&mut self, code: &CodeBlock, idx: u16) -> JsResult<Value> {
        let cached = code
            .regexps
            .borrow()
            .iter()
            .find(|l| l.constant == idx)
            .map(|l| (l.matcher.clone(), l.source, l.flags, l.parsed_flags));
        let (matcher, source, flags, parsed) = match cached {
            Some(literal) => literal,
            None => {
                let Some(kiln_bytecode::Constant::RegExp { pattern, flags }) =
                    code.code.constants.get(idx as usize)
                else {
                    return Err(self.syntax_error("Invalid regular expression literal"));
                };
                let (matcher, parsed) = match compile_literal(pattern, flags) {
                    Ok(compiled) => compiled,
                    Err(message) => return Err(self.syntax_error(message)),
                };
                // the block keeps the compiled pattern for the script's life
                let bytes = matcher.heap_bytes();
                self.code_bytes += bytes;
                self.heap.note_growth(bytes);
                let source = self.heap.alloc_units(pattern);
                let flags = self.heap.intern(flags);
                code.regexps.borrow_mut().push(Literal {
                    constant: idx,
                    matcher: matcher.clone(),
                    parsed_flags: parsed,
                    source,
                    flags,
                });
                (matcher, source, flags, parsed)
            }
        };
        let proto = self.intrinsics.regexp_prototype;
        Ok(Value::object(new_regexp_object(
            self, proto, matcher, source, flags, parsed,
        )))
    }
}

/// Compile a regular expression literal; the message of its SyntaxError if it is invalid.
fn compile_literal(pattern: &[u16], flags: &str) -> Result<(Rc<Compiled>, Flags), String> {
    let flag_units: Vec<u16> = flags.encode_utf16().collect();
    let parsed =
        Flags::parse(&flag_units).ok_or(format!("Invalid regular expression flags '{flags}'"))?;
    let matcher = compile(pattern, parsed).map_err(|e| {
        let p = String::from_utf16_lossy(pattern);
        format!("Invalid regular expression: /{p}/{flags}: {e}")
    })?;
    Ok((matcher, parsed))
}

/// The early errors of a script's regular expression literals: the first invalid one's
/// message. (Compiling them now also fills the cache their evaluation reads.)
pub fn literal_errors(script: &kiln_bytecode::Script) -> Result<(), String> {
    for function in &script.functions {
        for constant in &function.constants {
            if let kiln_bytecode::Constant::RegExp { pattern, flags } = constant {
                compile_literal(pattern, flags)?;
            }
        }
    }
    Ok(())
}

/// RegExpAlloc + the slots RegExpInitialize sets, for a fresh object.
fn new_regexp_object(
    vm: &mut Vm,
    proto: ObjectId,
    matcher: Rc<Compiled>,
    source: StringId,
    flags: StringId,
    parsed_flags: Flags,
) -> ObjectId {
    let obj = vm.heap.new_object(
        Some(proto),
        ObjectKind::RegExp(Box::new(RegExpData {
            matcher,
            source,
            flags,
            parsed_flags,
            legacy: true,
            realm: vm.realm,
        })),
    );
    vm.define_builtin(
        obj,
        PropertyKey::String(vm.atoms.last_index),
        Value::int(0),
        Attrs(Attrs::WRITABLE),
    );
    obj
}

/// Parse and compile pattern `p` with flags `f` (both already strings): the slots, or a SyntaxError.
fn parse_pattern(vm: &mut Vm, p: StringId, f: StringId) -> JsResult<(Rc<Compiled>, Flags)> {
    let flag_units = vm.heap.units_vec(f);
    let Some(parsed) = Flags::parse(&flag_units) else {
        let text = vm.heap.string_to_rust(f);
        return Err(vm.syntax_error(format!(
            "Invalid flags supplied to RegExp constructor '{text}'"
        )));
    };
    let pattern = vm.heap.units_vec(p);
    match compile(&pattern, parsed) {
        Ok(m) => Ok((m, parsed)),
        Err(e) => {
            let text = String::from_utf16_lossy(&pattern);
            let flags = String::from_utf16_lossy(&flag_units);
            Err(vm.syntax_error(format!("Invalid regular expression: /{text}/{flags}: {e}")))
        }
    }
}

/// ToString of a pattern or flags argument, with undefined as "".
fn string_or_empty(vm: &mut Vm, v: Value) -> JsResult<StringId> {
    if v.is_undefined() {
        Ok(vm.atoms.empty)
    } else {
        vm.to_string(v)
    }
}

/// [RegExpCreate](https://tc39.es/ecma262/#sec-regexpcreate)(P, F)
pub fn regexp_create(vm: &mut Vm, p: Value, f: Value) -> JsResult<Value> {
    let source = string_or_empty(vm, p)?;
    vm.roots.push(Value::string(source));
    let flags = string_or_empty(vm, f)?;
    let (matcher, parsed) = parse_pattern(vm, source, flags)?;
    let proto = vm.intrinsics.regexp_prototype;
    Ok(Value::object(new_regexp_object(
        vm, proto, matcher, source, flags, parsed,
    )))
}

/// [IsRegExp](https://tc39.es/ecma262/#sec-isregexp)
pub fn is_regexp(vm: &mut Vm, v: Value) -> JsResult<bool> {
    let Some(o) = v.as_object() else {
        return Ok(false);
    };
    let matcher = vm.get(v, PropertyKey::Symbol(vm.symbols.match_))?;
    if !matcher.is_undefined() {
        return Ok(vm.to_boolean(matcher));
    }
    Ok(regexp_data(vm, o).is_some())
}

/// [RegExp](https://tc39.es/ecma262/#sec-regexp-pattern-flags)
fn regexp_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let pattern = vm.arg(args, 0);
    let flags = vm.arg(args, 1);
    // 1. Let patternIsRegExp be ? IsRegExp(pattern).
    let pattern_is_regexp = is_regexp(vm, pattern)?;
    // 2-3. Called as a function with a RegExp and no flags: return it if its constructor is us.
    let new_target = if args.new_target.is_undefined() {
        let nt = Value::object(vm.native_callee);
        if pattern_is_regexp && flags.is_undefined() {
            let c = vm.get(pattern, PropertyKey::String(vm.atoms.constructor))?;
            if c == nt {
                return Ok(pattern);
            }
        }
        nt
    } else {
        args.new_target
    };
    // 4-6. Take the source and flags from a RegExp (or RegExp-like) pattern.
    let (p, f) = match pattern.as_object().and_then(|o| regexp_data(vm, o)) {
        Some(data) => {
            let src = Value::string(data.source);
            let f = if flags.is_undefined() {
                Value::string(data.flags)
            } else {
                flags
            };
            (src, f)
        }
        None if pattern_is_regexp => {
            let src = vm.get(pattern, PropertyKey::String(vm.atoms.source))?;
            vm.roots.push(src);
            let f = if flags.is_undefined() {
                vm.get(pattern, PropertyKey::String(vm.atoms.flags))?
            } else {
                flags
            };
            (src, f)
        }
        None => (pattern, flags),
    };
    vm.roots.push(p);
    vm.roots.push(f);
    // 7. Let O be ? RegExpAlloc(newTarget).
    let proto = vm.prototype_from_constructor(new_target, |i| i.regexp_prototype)?;
    vm.roots.push(Value::object(proto));
    // 8. Return ? RegExpInitialize(O, P, F).
    let source = string_or_empty(vm, p)?;
    vm.roots.push(Value::string(source));
    let flags = string_or_empty(vm, f)?;
    let (matcher, parsed) = parse_pattern(vm, source, flags)?;
    let obj = new_regexp_object(vm, proto, matcher, source, flags, parsed);
    let legacy = new_target == Value::object(vm.intrinsics.regexp);
    if let ObjectKind::RegExp(r) = &mut vm.heap.object_mut(obj).kind {
        r.legacy = legacy;
    }
    Ok(Value::object(obj))
}

/// [RegExp.prototype.compile](https://tc39.es/ecma262/#sec-regexp.prototype.compile) (Annex B)
fn compile_method(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let o = super::this_object(vm, this, "RegExp.prototype.compile", is_regexp_kind)?;
    // 3-5. The running realm must be the one that allocated O.
    if regexp_data(vm, o).is_some_and(|d| d.realm != vm.realm) {
        return Err(
            vm.type_error("RegExp.prototype.compile cannot be used on another realm's RegExp")
        );
    }
    if regexp_data(vm, o).is_some_and(|d| !d.legacy) {
        return Err(
            vm.type_error("RegExp.prototype.compile cannot be used on a RegExp subclass instance")
        );
    }
    let pattern = vm.arg(args, 0);
    let flags = vm.arg(args, 1);
    let (p, f) = match pattern.as_object().and_then(|o| regexp_data(vm, o)) {
        Some(data) => {
            if !flags.is_undefined() {
                return Err(
                    vm.type_error("Cannot supply flags when constructing one RegExp from another")
                );
            }
            (Value::string(data.source), Value::string(data.flags))
        }
        None => (pattern, flags),
    };
    let source = string_or_empty(vm, p)?;
    vm.roots.push(Value::string(source));
    let flags = string_or_empty(vm, f)?;
    let (matcher, parsed) = parse_pattern(vm, source, flags)?;
    if let ObjectKind::RegExp(r) = &mut vm.heap.object_mut(o).kind {
        r.matcher = matcher;
        r.source = source;
        r.flags = flags;
        r.parsed_flags = parsed;
    }
    set_last_index(vm, this, Value::int(0))?;
    Ok(this)
}

/// [RegExp.escape](https://tc39.es/ecma262/#sec-regexp.escape)
fn regexp_escape(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let Some(s) = vm.arg(args, 0).as_string() else {
        return Err(vm.type_error("RegExp.escape requires a string"));
    };
    let units = vm.heap.units_vec(s);
    let mut out: Vec<u16> = Vec::with_capacity(units.len() * 2);
    let push_str = |out: &mut Vec<u16>, s: &str| out.extend(s.encode_utf16());
    for r in char::decode_utf16(units.iter().copied()) {
        let cp = r.map_or_else(|e| e.unpaired_surrogate() as u32, |c| c as u32);
        let c = char::from_u32(cp);
        // A leading digit or ASCII letter is written as \xHH.
        if out.is_empty() && c.is_some_and(|c| c.is_ascii_alphanumeric()) {
            push_str(&mut out, &format!("\\x{cp:02x}"));
            continue;
        }
        // EncodeForRegExpEscape
        match c {
            Some(
                c @ ('^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}'
                | '|' | '/'),
            ) => {
                out.push(b'\\' as u16);
                out.push(c as u16);
            }
            Some('\t') => push_str(&mut out, "\\t"),
            Some('\n') => push_str(&mut out, "\\n"),
            Some('\u{B}') => push_str(&mut out, "\\v"),
            Some('\u{C}') => push_str(&mut out, "\\f"),
            Some('\r') => push_str(&mut out, "\\r"),
            _ => {
                let punctuator = c.is_some_and(|c| ",-=<>#&!%:;@~'`\"".contains(c));
                let space = c.is_some_and(crate::interpreter::convert::is_js_whitespace);
                let surrogate = (0xD800..=0xDFFF).contains(&cp);
                if punctuator || space || surrogate {
                    if cp <= 0xFF {
                        push_str(&mut out, &format!("\\x{cp:02x}"));
                    } else if let Some(c) = c {
                        let mut buf = [0u16; 2];
                        for u in c.encode_utf16(&mut buf) {
                            push_str(&mut out, &format!("\\u{:04x}", *u));
                        }
                    } else {
                        push_str(&mut out, &format!("\\u{cp:04x}"));
                    }
                } else if let Some(c) = c {
                    let mut buf = [0u16; 2];
                    out.extend_from_slice(c.encode_utf16(&mut buf));
                } else {
                    out.push(cp as u16);
                }
            }
        }
    }
    Ok(Value::string(vm.heap.alloc_units(&out)))
}

// ---- matching ----

/// A successful match: positions in code units.
struct MatchRecord {
    start: usize,
    end: usize,
    /// one per capture group
    captures: Vec<Option<(usize, usize)>>,
    /// the name of each capture group ("" for unnamed), empty if the pattern has none
    names: Rc<[String]>,
}

/// Run the matcher of `r` on `s` from `start` (at `start` only when sticky), charging
/// fuel for each step; a budget running out ends the run.
fn run_matcher(
    vm: &mut Vm,
    r: ObjectId,
    s: StringId,
    start: usize,
) -> JsResult<Option<MatchRecord>> {
    let Some(data) = regexp_data(vm, r) else {
        return Ok(None);
    };
    let compiled = data.matcher.clone();
    find(vm, &compiled, s, start, data.parsed_flags.sticky)
}

/// Search `s` with a compiled pattern from `start`, charging fuel for each step.
fn find(
    vm: &mut Vm,
    compiled: &Compiled,
    s: StringId,
    start: usize,
    sticky: bool,
) -> JsResult<Option<MatchRecord>> {
    vm.heap.units(s); // flatten a rope
    // the backtrack stack lives outside the heap: it may take the room the limit leaves,
    // halved because a growing vector briefly holds its old and new storage
    let room = vm.limits.max_heap_bytes.saturating_sub(vm.heap.bytes());
    let max_backtrack = room / 2 / kiln_regex::BACKTRACK_ENTRY_BYTES;
    let (heap, mut fuel) = vm.heap_and_fuel();
    let input = match heap.flat_units(s) {
        Units::Utf16(u) => kiln_regex::Input::Utf16(u),
        Units::Latin1(b) => kiln_regex::Input::Latin1(b),
    };
    let result = compiled
        .regex
        .find_at_within(input, start, sticky, max_backtrack, &mut |steps| {
            fuel.charge(steps)
        });
    let stopped = fuel.stopped.take();
    let m = match result {
        Ok(Some(m)) => m,
        Ok(None) => return Ok(None),
        Err(kiln_regex::MatchError::Interrupted(_)) => {
            return Err(vm.terminate(stopped.unwrap_or(Termination::Interrupted)));
        }
        Err(kiln_regex::MatchError::BacktrackLimit)
            if max_backtrack < kiln_regex::MAX_BACKTRACK =>
        {
            return Err(vm.terminate(Termination::HeapLimit));
        }
        Err(kiln_regex::MatchError::BacktrackLimit) => {
            return Err(
                vm.range_error("Regular expression too complex: backtracking limit reached")
            );
        }
    };
    let names = compiled.group_names.clone();
    Ok(Some(MatchRecord {
        start: m.start(),
        end: m.end(),
        captures: (1..m.len()).map(|i| m.get(i)).collect(),
        names,
    }))
}

/// Set(R, "lastIndex", v, true)
fn set_last_index(vm: &mut Vm, r: Value, v: Value) -> JsResult<()> {
    let key = PropertyKey::String(vm.atoms.last_index);
    if let Some(o) = r.as_object()
        && regexp_data(vm, o).is_some()
        && vm.heap.object(o).shape != ShapeId::DICTIONARY
        && let Some((slot, attrs)) = vm.heap.shapes.lookup(vm.heap.object(o).shape, key)
        && attrs == Attrs(Attrs::WRITABLE)
    {
        vm.heap.object_mut(o).slots[slot as usize] = v;
        return Ok(());
    }
    if !vm.set(r, key, v, r)? {
        return Err(vm.type_error("Cannot assign to read only property 'lastIndex'"));
    }
    Ok(())
}

/// ToLength(? Get(R, "lastIndex"))
fn get_last_index(vm: &mut Vm, r: Value) -> JsResult<f64> {
    let v = vm.get(r, PropertyKey::String(vm.atoms.last_index))?;
    vm.to_length(v)
}

/// [AdvanceStringIndex](https://tc39.es/ecma262/#sec-advancestringindex)
fn advance_string_index(units: Units<'_>, index: f64, unicode: bool) -> f64 {
    if !unicode || index + 1.0 >= units.len() as f64 {
        return index + 1.0;
    }
    let i = index as usize;
    let (lead, trail) = (units.at(i), units.at(i + 1));
    if (0xD800..0xDC00).contains(&lead) && (0xDC00..0xE000).contains(&trail) {
        index + 2.0
    } else {
        index + 1.0
    }
}

/// [RegExpBuiltinExec](https://tc39.es/ecma262/#sec-regexpbuiltinexec)
fn builtin_exec(vm: &mut Vm, r: ObjectId, s: StringId) -> JsResult<Value> {
    match builtin_exec_record(vm, r, s)? {
        Some((m, has_indices)) => build_match_array(vm, s, &m, has_indices),
        None => Ok(Value::NULL),
    }
}

/// Steps 1-18 of RegExpBuiltinExec (reading and setting lastIndex): the match, if any,
/// and whether the regular expression has the `d` flag; the match array is not built.
fn builtin_exec_record(
    vm: &mut Vm,
    r: ObjectId,
    s: StringId,
) -> JsResult<Option<(MatchRecord, bool)>> {
    let rv = Value::object(r);
    // 1. Let length be the length of S.
    let length = vm.heap.string_len(s) as usize;
    // 2. Let lastIndex be ℝ(? ToLength(! Get(R, "lastIndex"))).
    let mut last_index = get_last_index(vm, rv)?;
    let Some(flags) = regexp_data(vm, r).map(|d| d.parsed_flags) else {
        return Err(vm.type_error("RegExp exec called on incompatible receiver"));
    };
    // 4-5. Without g or y the search starts at 0.
    if !flags.global && !flags.sticky {
        last_index = 0.0;
    }
    // 13. If lastIndex > length, fail.
    if last_index > length as f64 {
        if flags.global || flags.sticky {
            set_last_index(vm, rv, Value::int(0))?;
        }
        return Ok(None);
    }
    let Some(m) = run_matcher(vm, r, s, last_index as usize)? else {
        if flags.global || flags.sticky {
            set_last_index(vm, rv, Value::int(0))?;
        }
        return Ok(None);
    };
    // 16. If global or sticky, Set(R, "lastIndex", e, true).
    if flags.global || flags.sticky {
        set_last_index(vm, rv, Value::number(m.end as f64))?;
    }
    Ok(Some((m, flags.has_indices)))
}

/// Steps 19-36 of RegExpBuiltinExec: the match array.
///
/// The array and its groups object are new and nothing else can see them yet, so
/// CreateDataPropertyOrThrow on them is adding an own property (`define_builtin`).
fn build_match_array(
    vm: &mut Vm,
    s: StringId,
    m: &MatchRecord,
    has_indices: bool,
) -> JsResult<Value> {
    let mark = vm.roots.len();
    let mut values = Vec::with_capacity(m.captures.len() + 1);
    values.push(Value::string(substring_of(vm, s, m.start, m.end)));
    for c in &m.captures {
        values.push(capture_value(vm, s, *c));
    }
    vm.roots.extend_from_slice(&values);
    let has_groups = !m.names.is_empty();
    let groups = if has_groups {
        Value::object(vm.heap.new_object(None, ObjectKind::Ordinary))
    } else {
        Value::UNDEFINED
    };
    vm.roots.push(groups);
    // 33-34. Named groups: with duplicate names, the participating group wins.
    let mut group_names: Vec<Option<PropertyKey>> = Vec::with_capacity(m.names.len());
    let mut matched_names: Vec<&str> = Vec::new();
    for (i, name) in m.names.iter().enumerate() {
        if name.is_empty() {
            group_names.push(None);
            continue;
        }
        let captured = values.get(i + 1).copied().unwrap_or(Value::UNDEFINED);
        if matched_names.contains(&name.as_str()) {
            group_names.push(None);
            continue;
        }
        if !captured.is_undefined() {
            matched_names.push(name);
        }
        let key = vm.key(name);
        if let Some(g) = groups.as_object() {
            vm.define_builtin(g, key, captured, Attrs::DEFAULT);
        }
        group_names.push(Some(key));
    }
    let a = vm.array_from_values(values);
    vm.roots.push(Value::object(a));
    let index_key = PropertyKey::String(vm.atoms.index);
    vm.define_builtin(a, index_key, Value::number(m.start as f64), Attrs::DEFAULT);
    let input_key = PropertyKey::String(vm.atoms.input);
    vm.define_builtin(a, input_key, Value::string(s), Attrs::DEFAULT);
    let groups_key = PropertyKey::String(vm.atoms.groups);
    vm.define_builtin(a, groups_key, groups, Attrs::DEFAULT);
    // 35. With the d flag, the index pairs.
    if has_indices {
        let mut pairs = Vec::with_capacity(m.captures.len() + 1);
        let whole = vm.array_from_values(vec![
            Value::number(m.start as f64),
            Value::number(m.end as f64),
        ]);
        vm.roots.push(Value::object(whole));
        pairs.push(Value::object(whole));
        for c in &m.captures {
            let v =
                match c {
                    Some((x, y)) => Value::object(vm.array_from_values(vec![
                        Value::number(*x as f64),
                        Value::number(*y as f64),
                    ])),
                    None => Value::UNDEFINED,
                };
            vm.roots.push(v);
            pairs.push(v);
        }
        let indices = vm.array_from_values(pairs.clone());
        vm.roots.push(Value::object(indices));
        let index_groups = if has_groups {
            Value::object(vm.heap.new_object(None, ObjectKind::Ordinary))
        } else {
            Value::UNDEFINED
        };
        vm.define_builtin(indices, groups_key, index_groups, Attrs::DEFAULT);
        if let Some(g) = index_groups.as_object() {
            for (i, key) in group_names.iter().enumerate() {
                if let Some(key) = key {
                    let pair = pairs.get(i + 1).copied().unwrap_or(Value::UNDEFINED);
                    vm.define_builtin(g, *key, pair, Attrs::DEFAULT);
                }
            }
        }
        let indices_key = vm.key("indices");
        vm.define_builtin(a, indices_key, Value::object(indices), Attrs::DEFAULT);
    }
    vm.roots.truncate(mark);
    Ok(Value::object(a))
}

/// The captured substrings of a match (undefined for a group that did not take part),
/// kept reachable by the caller's root mark.
fn capture_strings(vm: &mut Vm, s: StringId, m: &MatchRecord) -> Vec<Value> {
    m.captures
        .iter()
        .map(|&c| {
            let v = capture_value(vm, s, c);
            vm.roots.push(v);
            v
        })
        .collect()
}

/// The substring a capture group matched, or undefined if it did not take part.
fn capture_value(vm: &mut Vm, s: StringId, capture: Option<(usize, usize)>) -> Value {
    match capture {
        Some((a, b)) => Value::string(substring_of(vm, s, a, b)),
        None => Value::UNDEFINED,
    }
}

/// True if `exec` is the built-in RegExp.prototype.exec.
fn is_builtin_exec(vm: &Vm, f: Value) -> bool {
    match f.as_object().map(|o| &vm.heap.object(o).kind) {
        Some(ObjectKind::Native(n)) => n.func as usize == exec as NativeFn as usize,
        _ => false,
    }
}

/// [RegExpExec](https://tc39.es/ecma262/#sec-regexpexec)
pub fn regexp_exec(vm: &mut Vm, r: Value, s: StringId) -> JsResult<Value> {
    if let Some(o) = pristine_regexp(vm, r) {
        return builtin_exec(vm, o, s);
    }
    let f = vm.get(r, PropertyKey::String(vm.atoms.exec))?;
    if let Some(o) = r.as_object()
        && is_builtin_exec(vm, f)
        && regexp_data(vm, o).is_some()
    {
        return builtin_exec(vm, o, s);
    }
    if vm.is_callable(f) {
        let result = vm.call(f, r, &[Value::string(s)])?;
        if !result.is_object() && !result.is_null() {
            return Err(
                vm.type_error("The result of a RegExp exec method must be an object or null")
            );
        }
        return Ok(result);
    }
    match r.as_object() {
        Some(o) if regexp_data(vm, o).is_some() => builtin_exec(vm, o, s),
        _ => Err(vm.type_error("RegExp exec method called on incompatible receiver")),
    }
}

/// [RegExp.prototype.exec](https://tc39.es/ecma262/#sec-regexp.prototype.exec)
fn exec(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let r = super::this_object(vm, this, "RegExp.prototype.exec", is_regexp_kind)?;
    let s = vm.to_string(vm.arg(args, 0))?;
    vm.roots.push(Value::string(s));
    builtin_exec(vm, r, s)
}

/// [RegExp.prototype.test](https://tc39.es/ecma262/#sec-regexp.prototype.test)
fn test(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let r = this_any_object(vm, this, "RegExp.prototype.test")?;
    let s = vm.to_string(vm.arg(args, 0))?;
    vm.roots.push(Value::string(s));
    // Whether the built-in exec matched is known without the match array it would build.
    if let Some(o) = pristine_regexp(vm, Value::object(r)) {
        return Ok(Value::bool(builtin_exec_record(vm, o, s)?.is_some()));
    }
    let m = regexp_exec(vm, Value::object(r), s)?;
    Ok(Value::bool(!m.is_null()))
}

fn this_any_object(vm: &mut Vm, this: Value, method: &str) -> JsResult<ObjectId> {
    match this.as_object() {
        Some(o) => Ok(o),
        None => Err(vm.type_error(format!("{method} called on a non-object"))),
    }
}

// ---- accessors ----

/// [RegExpHasFlag](https://tc39.es/ecma262/#sec-regexphasflag)
fn has_flag(vm: &mut Vm, this: Value, name: &str, get: fn(Flags) -> bool) -> JsResult<Value> {
    let Some(o) = this.as_object() else {
        return Err(vm.type_error(format!(
            "RegExp.prototype.{name} getter called on a non-object"
        )));
    };
    match regexp_data(vm, o) {
        Some(d) => Ok(Value::bool(get(d.parsed_flags))),
        None if o == vm.intrinsics.regexp_prototype => Ok(Value::UNDEFINED),
        None => Err(vm.type_error(format!(
            "RegExp.prototype.{name} getter called on an object that is not a RegExp"
        ))),
    }
}

fn get_has_indices(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    has_flag(vm, this, "hasIndices", |f| f.has_indices)
}
fn get_global(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    has_flag(vm, this, "global", |f| f.global)
}
fn get_ignore_case(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    has_flag(vm, this, "ignoreCase", |f| f.ignore_case)
}
fn get_multiline(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    has_flag(vm, this, "multiline", |f| f.multiline)
}
fn get_dot_all(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    has_flag(vm, this, "dotAll", |f| f.dot_all)
}
fn get_unicode(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    has_flag(vm, this, "unicode", |f| f.unicode)
}
fn get_unicode_sets(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    has_flag(vm, this, "unicodeSets", |f| f.unicode_sets)
}
fn get_sticky(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    has_flag(vm, this, "sticky", |f| f.sticky)
}

/// [get RegExp.prototype.flags](https://tc39.es/ecma262/#sec-get-regexp.prototype.flags)
fn get_flags(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let r = this_any_object(vm, this, "RegExp.prototype.flags getter")?;
    let mut out = String::new();
    for (name, _, _, c) in flag_properties(&vm.atoms) {
        let v = vm.get(Value::object(r), PropertyKey::String(name))?;
        if vm.to_boolean(v) {
            out.push(char::from(c));
        }
    }
    Ok(vm.intern_value(&out))
}

/// [get RegExp.prototype.source](https://tc39.es/ecma262/#sec-get-regexp.prototype.source)
fn get_source(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let r = this_any_object(vm, this, "RegExp.prototype.source getter")?;
    let Some(source) = regexp_data(vm, r).map(|d| d.source) else {
        if r == vm.intrinsics.regexp_prototype {
            return Ok(vm.intern_value("(?:)"));
        }
        return Err(vm.type_error(
            "RegExp.prototype.source getter called on an object that is not a RegExp",
        ));
    };
    let units = vm.heap.units_vec(source);
    let escaped = escape_pattern(&units);
    Ok(Value::string(vm.heap.alloc_units(&escaped)))
}

/// [EscapeRegExpPattern](https://tc39.es/ecma262/#sec-escaperegexppattern): a source that
/// reads back as the same pattern between slashes on one line.
fn escape_pattern(units: &[u16]) -> Vec<u16> {
    if units.is_empty() {
        return "(?:)".encode_utf16().collect();
    }
    let mut out = Vec::with_capacity(units.len());
    let mut in_class = false;
    let mut escaped = false;
    for &u in units {
        let replacement: Option<&str> = match u {
            0x0A => Some("n"),
            0x0D => Some("r"),
            0x2028 => Some("u2028"),
            0x2029 => Some("u2029"),
            _ => None,
        };
        if let Some(r) = replacement {
            if !escaped {
                out.push(b'\\' as u16);
            }
            out.extend(r.encode_utf16());
            escaped = false;
            continue;
        }
        if escaped {
            out.push(u);
            escaped = false;
            continue;
        }
        match u {
            0x5C => escaped = true,
            0x5B => in_class = true,
            0x5D => in_class = false,
            0x2F if !in_class => out.push(b'\\' as u16),
            _ => {}
        }
        out.push(u);
    }
    out
}

/// [RegExp.prototype.toString](https://tc39.es/ecma262/#sec-regexp.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let r = this_any_object(vm, this, "RegExp.prototype.toString")?;
    let source = vm.get(Value::object(r), PropertyKey::String(vm.atoms.source))?;
    let p = vm.to_string(source)?;
    vm.roots.push(Value::string(p));
    let flags = vm.get(Value::object(r), PropertyKey::String(vm.atoms.flags))?;
    let f = vm.to_string(flags)?;
    let mut units: Vec<u16> = vec![b'/' as u16];
    units.extend(vm.heap.units(p).iter());
    units.push(b'/' as u16);
    units.extend(vm.heap.units(f).iter());
    Ok(Value::string(vm.heap.alloc_units(&units)))
}

// ---- the Symbol methods ----

/// ToString(? Get(rx, "flags")) as code units.
fn flags_of(vm: &mut Vm, rx: Value) -> JsResult<Vec<u16>> {
    if let Some(flags) = builtin_flags(vm, rx) {
        return Ok(flags);
    }
    let f = vm.get(rx, PropertyKey::String(vm.atoms.flags))?;
    let s = vm.to_string(f)?;
    Ok(vm.heap.units_vec(s))
}

/// The value of `flags` on `rx` when reading it runs only the built-in getters: `rx` is a
/// RegExp object whose one own property is `lastIndex`, and its prototype is
/// %RegExp.prototype% as built ([`builtin_prototype`]). Then nothing can observe the reads,
/// and the flags come from the object's slots.
fn builtin_flags(vm: &mut Vm, rx: Value) -> Option<Vec<u16>> {
    let o = rx.as_object()?;
    let parsed = plain_instance(vm, o)?.parsed_flags;
    if !builtin_prototype(vm) {
        return None;
    }
    Some(
        flag_properties(&vm.atoms)
            .iter()
            .filter(|&&(.., is_set, _)| is_set(parsed))
            .map(|&(.., c)| u16::from(c))
            .collect(),
    )
}

/// The data of `o` if it is a RegExp object whose prototype is the running realm's
/// %RegExp.prototype% and whose one own property is `lastIndex`.
fn plain_instance(vm: &Vm, o: ObjectId) -> Option<&RegExpData> {
    let object = vm.heap.object(o);
    let ObjectKind::RegExp(data) = &object.kind else {
        return None;
    };
    (object.proto == Some(vm.intrinsics.regexp_prototype)
        && object.shape != ShapeId::DICTIONARY
        && vm.heap.shapes.get(object.shape).len == 1)
        .then_some(&**data)
}

/// Where %RegExp.prototype%'s `exec`, `flags` and flag getters were found built in: their
/// slots and the values (function and accessor cells) they held. It holds while no
/// prototype changed layout and each slot holds the same value, and is forgotten at each
/// collection, so that a cell it compares with cannot be freed and its id reused.
#[derive(Clone, Copy, Debug)]
pub struct PrototypeMemo {
    proto: ObjectId,
    epoch: u32,
    slots: [(u32, Value); 10],
}

/// True when reading `exec`, `flags` or a flag property of %RegExp.prototype% gets the
/// built-in method or runs the built-in getter.
fn builtin_prototype(vm: &mut Vm) -> bool {
    let proto = vm.intrinsics.regexp_prototype;
    let object = vm.heap.object(proto);
    if let Some(memo) = &vm.regexp_memo
        && memo.proto == proto
        && memo.epoch == vm.heap.proto_epoch
        && memo
            .slots
            .iter()
            .all(|&(slot, v)| object.slots.get(slot as usize) == Some(&v))
    {
        return true;
    }
    if object.shape == ShapeId::DICTIONARY {
        return false;
    }
    let shape = object.shape;
    let flags = flag_properties(&vm.atoms);
    let getters = std::iter::once((vm.atoms.flags, get_flags as NativeFn))
        .chain(flags.iter().map(|&(name, getter, ..)| (name, getter)));
    let is_native = |f: Value, native: NativeFn| {
        matches!(
            f.as_object().map(|f| &vm.heap.object(f).kind),
            Some(ObjectKind::Native(n)) if n.func as usize == native as usize
        )
    };
    let mut slots = [(0, Value::UNDEFINED); 10];
    let exec_key = PropertyKey::String(vm.atoms.exec);
    let Some((slot, attrs)) = vm.heap.shapes.lookup(shape, exec_key) else {
        return false;
    };
    let value = object.slots[slot as usize];
    if attrs.is_accessor() || !is_native(value, exec) {
        return false;
    }
    slots[0] = (slot, value);
    for (entry, (name, getter)) in slots[1..].iter_mut().zip(getters) {
        let Some((slot, attrs)) = vm.heap.shapes.lookup(shape, PropertyKey::String(name)) else {
            return false;
        };
        let cell = object.slots[slot as usize];
        if !attrs.is_accessor() || !is_native(vm.accessor_parts(cell).0, getter) {
            return false;
        }
        *entry = (slot, cell);
    }
    vm.regexp_memo = Some(PrototypeMemo {
        proto,
        epoch: vm.heap.proto_epoch,
        slots,
    });
    true
}

/// A flag property: its name, its built-in getter, whether [`Flags`] has it, its letter.
type FlagProperty = (StringId, NativeFn, fn(Flags) -> bool, u8);

/// The flag properties in the order `flags` reads them.
fn flag_properties(atoms: &Atoms) -> [FlagProperty; 8] {
    [
        (atoms.has_indices, get_has_indices, |f| f.has_indices, b'd'),
        (atoms.global, get_global, |f| f.global, b'g'),
        (atoms.ignore_case, get_ignore_case, |f| f.ignore_case, b'i'),
        (atoms.multiline, get_multiline, |f| f.multiline, b'm'),
        (atoms.dot_all, get_dot_all, |f| f.dot_all, b's'),
        (atoms.unicode, get_unicode, |f| f.unicode, b'u'),
        (
            atoms.unicode_sets,
            get_unicode_sets,
            |f| f.unicode_sets,
            b'v',
        ),
        (atoms.sticky, get_sticky, |f| f.sticky, b'y'),
    ]
}

fn contains(units: &[u16], c: char) -> bool {
    units.contains(&(c as u16))
}

/// ToString(? Get(result, "0"))
fn match_string(vm: &mut Vm, result: Value) -> JsResult<StringId> {
    let v = vm.get(result, PropertyKey::Index(0))?;
    vm.to_string(v)
}

/// After an empty match of a global search: lastIndex = AdvanceStringIndex(S, lastIndex).
fn step_past_empty_match(vm: &mut Vm, rx: Value, s: StringId, unicode: bool) -> JsResult<()> {
    let this_index = get_last_index(vm, rx)?;
    let next = advance_string_index(vm.heap.units(s), this_index, unicode);
    set_last_index(vm, rx, Value::number(next))
}

/// [RegExp.prototype[@@match]](https://tc39.es/ecma262/#sec-regexp.prototype-@@match)
fn symbol_match(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let rx = Value::object(this_any_object(vm, this, "RegExp.prototype[Symbol.match]")?);
    let s = vm.to_string(vm.arg(args, 0))?;
    vm.roots.push(Value::string(s));
    let flags = flags_of(vm, rx)?;
    if !contains(&flags, 'g') {
        return regexp_exec(vm, rx, s);
    }
    let unicode = contains(&flags, 'u') || contains(&flags, 'v');
    set_last_index(vm, rx, Value::int(0))?;
    // With the built-in exec nothing can observe the match arrays: take the matched
    // text from the positions.
    let records = pristine_regexp(vm, rx);
    let mut found = Vec::new();
    let mark = vm.roots.len();
    loop {
        let m = match records {
            Some(o) => match builtin_exec_record(vm, o, s)? {
                Some((m, _)) => Some(substring_of(vm, s, m.start, m.end)),
                None => None,
            },
            None => {
                let result = regexp_exec(vm, rx, s)?;
                if result.is_null() {
                    None
                } else {
                    vm.roots.push(result);
                    Some(match_string(vm, result)?)
                }
            }
        };
        let Some(m) = m else {
            vm.roots.truncate(mark);
            if found.is_empty() {
                return Ok(Value::NULL);
            }
            return Ok(Value::object(vm.array_from_values(found)));
        };
        vm.roots.push(Value::string(m));
        found.push(Value::string(m));
        if vm.heap.string_len(m) == 0 {
            step_past_empty_match(vm, rx, s, unicode)?;
        }
    }
}

/// [RegExp.prototype[@@matchAll]](https://tc39.es/ecma262/#sec-regexp-prototype-matchall)
fn symbol_match_all(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let r = Value::object(this_any_object(
        vm,
        this,
        "RegExp.prototype[Symbol.matchAll]",
    )?);
    let s = vm.to_string(vm.arg(args, 0))?;
    vm.roots.push(Value::string(s));
    let default = Value::object(vm.intrinsics.regexp);
    let c = super::promise::species_constructor(vm, r, default)?;
    vm.roots.push(c);
    let flags = flags_of(vm, r)?;
    let flags_value = Value::string(vm.heap.alloc_units(&flags));
    vm.roots.push(flags_value);
    let matcher = vm.construct(c, &[r, flags_value], None)?;
    vm.roots.push(matcher);
    let last_index = get_last_index(vm, r)?;
    set_last_index(vm, matcher, Value::number(last_index))?;
    let Some(matcher) = matcher.as_object() else {
        return Err(vm.type_error("RegExp species constructor returned a non-object"));
    };
    let proto = vm.intrinsics.regexp_string_iterator_prototype;
    Ok(Value::object(vm.heap.new_object(
        Some(proto),
        ObjectKind::RegExpStringIterator {
            regexp: matcher,
            string: s,
            global: contains(&flags, 'g'),
            unicode: contains(&flags, 'u') || contains(&flags, 'v'),
            done: false,
        },
    )))
}

/// [%RegExpStringIteratorPrototype%.next](https://tc39.es/ecma262/#sec-%regexpstringiteratorprototype%.next)
fn string_iterator_next(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let state = this.as_object().and_then(|o| match vm.heap.object(o).kind {
        ObjectKind::RegExpStringIterator {
            regexp,
            string,
            global,
            unicode,
            done,
        } => Some((o, regexp, string, global, unicode, done)),
        _ => None,
    });
    let Some((it, regexp, s, global, unicode, done)) = state else {
        return Err(vm.type_error("%RegExpStringIterator%.next called on incompatible receiver"));
    };
    if done {
        return Ok(vm.iter_result(Value::UNDEFINED, true));
    }
    let finish = |vm: &mut Vm| {
        if let ObjectKind::RegExpStringIterator { done, .. } = &mut vm.heap.object_mut(it).kind {
            *done = true;
        }
    };
    let rx = Value::object(regexp);
    let result = regexp_exec(vm, rx, s)?;
    if result.is_null() {
        finish(vm);
        return Ok(vm.iter_result(Value::UNDEFINED, true));
    }
    vm.roots.push(result);
    if !global {
        finish(vm);
        return Ok(vm.iter_result(result, false));
    }
    let m = match_string(vm, result)?;
    if vm.heap.string_len(m) == 0 {
        step_past_empty_match(vm, rx, s, unicode)?;
    }
    Ok(vm.iter_result(result, false))
}

/// [RegExp.prototype[@@replace]](https://tc39.es/ecma262/#sec-regexp.prototype-@@replace)
fn symbol_replace(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let rx = Value::object(this_any_object(
        vm,
        this,
        "RegExp.prototype[Symbol.replace]",
    )?);
    // 3-4. Let S be ? ToString(string).
    let s = vm.to_string(vm.arg(args, 0))?;
    vm.roots.push(Value::string(s));
    // 5-6. A non-callable replaceValue becomes a string template.
    let mut replace_value = vm.arg(args, 1);
    let functional = vm.is_callable(replace_value);
    if !functional {
        replace_value = Value::string(vm.to_string(replace_value)?);
    }
    vm.roots.push(replace_value);
    // 7-10. Read the flags; a global search starts at 0.
    let flags = flags_of(vm, rx)?;
    let global = contains(&flags, 'g');
    let unicode = contains(&flags, 'u') || contains(&flags, 'v');
    if global {
        set_last_index(vm, rx, Value::int(0))?;
    }
    // 11-12. Collect the results. With the built-in exec and no named groups, nothing
    // can observe the match arrays: keep the matches as positions instead.
    let records = pristine_regexp(vm, rx)
        .filter(|&o| regexp_data(vm, o).is_some_and(|d| d.matcher.group_names.is_empty()));
    // the matches are held across the replacer's calls too
    let mut results = Vec::new();
    let mut held_results = vm.heap.hold_bytes();
    loop {
        let found = match records {
            Some(o) => match builtin_exec_record(vm, o, s)? {
                Some((m, _)) => Found::Record(m),
                None => break,
            },
            None => {
                let result = regexp_exec(vm, rx, s)?;
                if result.is_null() {
                    break;
                }
                vm.roots.push(result);
                Found::Array(result)
            }
        };
        let empty = match &found {
            Found::Record(m) => m.start == m.end,
            Found::Array(result) if global => {
                let m = match_string(vm, *result)?;
                vm.heap.string_len(m) == 0
            }
            Found::Array(_) => false,
        };
        grow_held(vm, &mut held_results, 0, &mut results, 1)?;
        results.push(found);
        if !global {
            break;
        }
        if empty {
            step_past_empty_match(vm, rx, s, unicode)?;
        }
    }
    // 13-15. Build the result: the string itself when nothing matched. A replacer
    // function may collect while the copy of the string and the result are held: they
    // stay counted across collections.
    if results.is_empty() {
        return Ok(Value::string(s));
    }
    let string = vm.heap.units_vec(s);
    let length = string.len();
    // a replacer function is an object: only a template is a string here
    let template = replace_value
        .as_string()
        .map_or_else(Vec::new, |t| vm.heap.units_vec(t));
    let mut held = vm.heap.hold_bytes();
    let copies = (length + template.len()) * size_of::<u16>();
    vm.check_room(copies + length * size_of::<u16>())?;
    held.set(&mut vm.heap, copies + length * size_of::<u16>());
    let mut accumulated: Vec<u16> = Vec::with_capacity(length);
    let mut next_source_position = 0usize;
    // A template without `$` is its own replacement: a match seen only as positions
    // needs no matched string, captures or substitution.
    let literal = !functional && !template.contains(&u16::from(b'$'));
    for found in results {
        let (position, matched_len, replacement) = match found {
            Found::Record(m) if literal => (m.start, m.end - m.start, Cow::Borrowed(&template[..])),
            found => {
                let (position, matched_len, replacement) =
                    replacement_for(vm, found, &string, s, replace_value, functional, &template)?;
                (position, matched_len, Cow::Owned(replacement))
            }
        };
        if position >= next_source_position {
            let kept = string.get(next_source_position..position).unwrap_or(&[]);
            grow_held(
                vm,
                &mut held,
                copies,
                &mut accumulated,
                kept.len() + replacement.len(),
            )?;
            accumulated.extend_from_slice(kept);
            accumulated.extend_from_slice(&replacement);
            next_source_position = position + matched_len;
        }
    }
    if next_source_position < length {
        let tail = &string[next_source_position..];
        grow_held(vm, &mut held, copies, &mut accumulated, tail.len())?;
        accumulated.extend_from_slice(tail);
    }
    Ok(Value::string(vm.heap.alloc_units(&accumulated)))
}

/// Steps 14.a-14.o of @@replace for one match: its position, its length and its
/// replacement (the replacer's result or the template's substitution).
fn replacement_for(
    vm: &mut Vm,
    found: Found,
    string: &[u16],
    s: StringId,
    replace_value: Value,
    functional: bool,
    template: &[u16],
) -> JsResult<(usize, usize, Vec<u16>)> {
    let length = string.len();
    let (matched, position, captures, named) = match found {
        Found::Record(m) => {
            let matched = substring_of(vm, s, m.start, m.end);
            vm.roots.push(Value::string(matched));
            let captures = capture_strings(vm, s, &m);
            (matched, m.start, captures, Value::UNDEFINED)
        }
        Found::Array(result) => match_result_parts(vm, result, length)?,
    };
    let matched_len = vm.heap.string_len(matched) as usize;
    let replacement: Vec<u16> = if functional {
        let mut call_args = Vec::with_capacity(captures.len() + 4);
        call_args.push(Value::string(matched));
        call_args.extend_from_slice(&captures);
        call_args.push(Value::number(position as f64));
        call_args.push(Value::string(s));
        if !named.is_undefined() {
            call_args.push(named);
        }
        let r = vm.call(replace_value, Value::UNDEFINED, &call_args)?;
        let r = vm.to_string(r)?;
        vm.heap.units_vec(r)
    } else {
        let named = if named.is_undefined() {
            named
        } else {
            Value::object(vm.to_object(named)?)
        };
        vm.roots.push(named);
        let matched_units = vm.heap.units_vec(matched);
        get_substitution(
            vm,
            &matched_units,
            string,
            position,
            &captures,
            named,
            template,
        )?
    };
    Ok((position, matched_len, replacement))
}

/// One match of a replace: an exec result, or positions when no one can see the result.
enum Found {
    Array(Value),
    Record(MatchRecord),
}

/// Steps 14.a-14.k of @@replace for an exec result: the matched string, its position
/// (clamped to the string's `length`), the captures as strings (or undefined) and the
/// `groups` value; all kept reachable.
fn match_result_parts(
    vm: &mut Vm,
    result: Value,
    length: usize,
) -> JsResult<(StringId, usize, Vec<Value>, Value)> {
    let result_length = vm.length_of_array_like(result)?;
    let n_captures = (result_length - 1.0).max(0.0);
    let matched = match_string(vm, result)?;
    vm.roots.push(Value::string(matched));
    let index = vm.get(result, PropertyKey::String(vm.atoms.index))?;
    let position = vm.to_integer(index)?.clamp(0.0, length as f64) as usize;
    let mut captures = Vec::new();
    let mut n = 1.0;
    while n <= n_captures {
        let key = if n < u32::MAX as f64 {
            PropertyKey::Index(n as u32)
        } else {
            let k = vm.string_value(&crate::interpreter::convert::number_to_string(n));
            vm.to_property_key(k)?
        };
        let cap = vm.get(result, key)?;
        let cap = if cap.is_undefined() {
            cap
        } else {
            Value::string(vm.to_string(cap)?)
        };
        vm.roots.push(cap);
        captures.push(cap);
        n += 1.0;
    }
    let named = vm.get(result, PropertyKey::String(vm.atoms.groups))?;
    vm.roots.push(named);
    Ok((matched, position, captures, named))
}

/// [RegExp.prototype[@@search]](https://tc39.es/ecma262/#sec-regexp.prototype-@@search)
fn symbol_search(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let rx = Value::object(this_any_object(
        vm,
        this,
        "RegExp.prototype[Symbol.search]",
    )?);
    let s = vm.to_string(vm.arg(args, 0))?;
    vm.roots.push(Value::string(s));
    let key = PropertyKey::String(vm.atoms.last_index);
    let previous = vm.get(rx, key)?;
    vm.roots.push(previous);
    if !vm.same_value(previous, Value::int(0)) {
        set_last_index(vm, rx, Value::int(0))?;
    }
    let result = regexp_exec(vm, rx, s)?;
    vm.roots.push(result);
    let current = vm.get(rx, key)?;
    if !vm.same_value(current, previous) {
        set_last_index(vm, rx, previous)?;
    }
    if result.is_null() {
        return Ok(Value::int(-1));
    }
    vm.get(result, PropertyKey::String(vm.atoms.index))
}

/// [RegExp.prototype[@@split]](https://tc39.es/ecma262/#sec-regexp.prototype-@@split)
fn symbol_split(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let rx = Value::object(this_any_object(vm, this, "RegExp.prototype[Symbol.split]")?);
    let s = vm.to_string(vm.arg(args, 0))?;
    vm.roots.push(Value::string(s));
    // 4. Let C be ? SpeciesConstructor(rx, %RegExp%).
    let default = Value::object(vm.intrinsics.regexp);
    let c = super::promise::species_constructor(vm, rx, default)?;
    vm.roots.push(c);
    // 5-9. The splitter is sticky.
    let mut flags = flags_of(vm, rx)?;
    let unicode = contains(&flags, 'u') || contains(&flags, 'v');
    if !contains(&flags, 'y') {
        flags.push(b'y' as u16);
    }
    let new_flags = Value::string(vm.heap.alloc_units(&flags));
    vm.roots.push(new_flags);
    let splitter = vm.construct(c, &[rx, new_flags], None)?;
    vm.roots.push(splitter);
    // 10-13. The limit.
    let out = vm.array_from_values(Vec::new());
    vm.roots.push(Value::object(out));
    let limit = vm.arg(args, 1);
    let lim = if limit.is_undefined() {
        u32::MAX
    } else {
        vm.to_uint32(limit)?
    };
    if lim == 0 {
        return Ok(Value::object(out));
    }
    let size = vm.heap.string_len(s) as usize;
    let mut parts: Vec<Value> = Vec::new();
    let mark = vm.roots.len();
    let finish = |vm: &mut Vm, parts: Vec<Value>| -> Value {
        vm.roots.truncate(mark);
        Value::object(vm.array_from_values(parts))
    };
    // 16. An empty string: one piece unless the splitter matches it.
    if size == 0 {
        let z = regexp_exec(vm, splitter, s)?;
        if !z.is_null() {
            return Ok(Value::object(out));
        }
        return Ok(finish(vm, vec![Value::string(s)]));
    }
    // The splitter is a fresh built-in RegExp using the built-in exec: search forward
    // instead of trying each position (the same matches, found without the retries).
    let fast = pristine_regexp(vm, splitter).is_some();
    let mut p = 0usize;
    let mut q = 0usize;
    while q < size {
        let (match_end, z) = if fast {
            let Some(o) = splitter.as_object() else { break };
            // Search without the sticky restriction from q.
            let Some(compiled) = regexp_data(vm, o).map(|d| d.matcher.clone()) else {
                break;
            };
            let found = find(vm, &compiled, s, q, false)?;
            let Some(m) = found else { break };
            q = m.start;
            if q >= size {
                break;
            }
            let e = m.end.min(size);
            if e == p {
                q = advance_string_index(vm.heap.units(s), q as f64, unicode) as usize;
                continue;
            }
            (e, Err(capture_strings(vm, s, &m)))
        } else {
            set_last_index(vm, splitter, Value::number(q as f64))?;
            let z = regexp_exec(vm, splitter, s)?;
            if z.is_null() {
                q = advance_string_index(vm.heap.units(s), q as f64, unicode) as usize;
                continue;
            }
            vm.roots.push(z);
            let e = get_last_index(vm, splitter)?.min(size as f64) as usize;
            if e == p {
                q = advance_string_index(vm.heap.units(s), q as f64, unicode) as usize;
                continue;
            }
            (e, Ok(z))
        };
        // 19.d.iv. Push S[p..q] and the captures.
        let t = Value::string(substring_of(vm, s, p, q));
        vm.roots.push(t);
        parts.push(t);
        if parts.len() as u32 == lim {
            return Ok(finish(vm, parts));
        }
        p = match_end;
        match z {
            Ok(z) => {
                let n = vm.length_of_array_like(z)?;
                let count = (n - 1.0).max(0.0) as u32;
                for i in 1..=count {
                    let cap = vm.get(z, PropertyKey::Index(i))?;
                    vm.roots.push(cap);
                    parts.push(cap);
                    if parts.len() as u32 == lim {
                        return Ok(finish(vm, parts));
                    }
                }
            }
            Err(caps) => {
                for cap in caps {
                    vm.roots.push(cap);
                    parts.push(cap);
                    if parts.len() as u32 == lim {
                        return Ok(finish(vm, parts));
                    }
                }
            }
        }
        q = p;
    }
    let t = Value::string(substring_of(vm, s, p.min(size), size));
    parts.push(t);
    Ok(finish(vm, parts))
}

/// `rx` if it is a RegExp object whose `exec` is the built-in one found on
/// %RegExp.prototype% as a plain data property: reading it has no side effects, and
/// RegExpExec on it is RegExpBuiltinExec.
fn pristine_regexp(vm: &mut Vm, rx: Value) -> Option<ObjectId> {
    let o = rx.as_object()?;
    (regexp_data(vm, o).is_some() && exec_is_pristine(vm, o)).then_some(o)
}

/// True if `exec` looked up on `o` is the built-in one found on %RegExp.prototype% as a
/// plain data property (so reading it has no side effects).
fn exec_is_pristine(vm: &mut Vm, o: ObjectId) -> bool {
    if plain_instance(vm, o).is_some() && builtin_prototype(vm) {
        return true;
    }
    let key = PropertyKey::String(vm.atoms.exec);
    if vm.heap.own_property(o, key).is_some() {
        return false;
    }
    let proto = vm.intrinsics.regexp_prototype;
    if vm.heap.object(o).proto != Some(proto) {
        return false;
    }
    match vm.heap.own_property(proto, key) {
        Some(p) if !p.attrs.is_accessor() => is_builtin_exec(vm, p.value),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(vm: &mut Vm, source: &str) -> String {
        let v = vm.run_script(source, "test.js").expect("runs");
        let s = vm.to_string(v).expect("a string");
        vm.heap.string_to_rust(s)
    }

    /// The memo compares the prototype's slots with the cells it found there. A cell
    /// freed by a collection may come back as another accessor in the same slot: had the
    /// memo outlived the collection, the program's getter below would be skipped.
    #[test]
    fn a_collection_forgets_where_the_prototype_was_built_in() {
        let mut vm = Vm::new();
        let encode = "function encode(s) { return s.replace(/&/g, '&amp;'); } encode('a & b & c')";
        assert_eq!(run(&mut vm, encode), "a &amp; b &amp; c");
        let built_in = vm.regexp_memo.expect("the fast path was taken").slots[1].1;
        let proto = vm.intrinsics.regexp_prototype;
        let key = PropertyKey::String(vm.atoms.flags);
        let attrs = vm.heap.own_property(proto, key).expect("flags").attrs;
        run(
            &mut vm,
            "var noFlags = () => ''; \
             Object.defineProperty(RegExp.prototype, 'flags', { get: noFlags }); ''",
        );
        vm.collect_garbage();
        // the program's getter, in a cell that took the freed cell's id
        let name = PropertyKey::String(vm.heap.intern("noFlags"));
        let getter = vm.get(Value::object(vm.intrinsics.global), name).unwrap();
        let cell = (0..100_000)
            .map(|_| vm.new_accessor(getter, Value::UNDEFINED))
            .find(|&cell| cell == built_in)
            .expect("the freed cell's id is reused");
        vm.heap
            .put_own(proto, key, crate::object::Property { value: cell, attrs });
        assert_eq!(run(&mut vm, "encode('a & b & c')"), "a &amp; b & c");
    }
}
