//! Describe values for people (REPL output, `console`, uncaught non-error values) the
//! way node's `util.inspect` does, on one line, without running JavaScript: getters
//! and proxies are shown, not called.
//!
//! What is shown: primitives (strings quoted inside containers, `-0`, `1n`), arrays
//! with holes, plain objects and class instances (`Point { x: 1 }`), functions and
//! classes (`[AsyncFunction: f]`, `[class B extends A]`), Map and Set with their
//! entries, typed arrays and buffers with their contents, errors by their stack, dates,
//! regular expressions, promises, boxed primitives and cycles (`<ref *1>` …
//! `[Circular *1]`). Containers nested deeper than the depth show as `[Object]`,
//! `[Array]`, `[Map]` …; each shows at most 100 entries, and one description at most
//! [`MAX_ENTRIES`] in all, so its cost is bounded whatever the value.

use crate::builtins::promise::Status;
use crate::heap::ObjectId;
use crate::interpreter::Vm;
use crate::object::{Elements, ObjectKind, PropertyKey, array_length};
use crate::value::{Kind, Value};

/// How deep containers are opened by default (node's `depth: 2`).
pub(crate) const DEFAULT_DEPTH: usize = 2;
/// Entries shown per container (node's `maxArrayLength`).
const MAX_ITEMS: usize = 100;
/// Entries shown in one description in all.
const MAX_ENTRIES: usize = 10_000;
/// Characters shown of a string inside a container (node's `maxStringLength`).
const MAX_STRING: usize = 10_000;
/// Bytes shown of a buffer.
const MAX_BYTES: usize = 50;

/// Describe `v` the way a REPL prints a result.
pub fn inspect_value(vm: &mut Vm, v: Value) -> String {
    inspect(vm, v, true)
}

/// Describe `v`; `nested` quotes strings as inside a container.
pub fn inspect(vm: &mut Vm, v: Value, nested: bool) -> String {
    inspect_to_depth(vm, v, nested, DEFAULT_DEPTH)
}

/// Describe `v`, opening containers `depth` levels deep.
pub(crate) fn inspect_to_depth(vm: &mut Vm, v: Value, nested: bool, depth: usize) -> String {
    let mut inspector = Inspector {
        vm,
        max_depth: depth,
        seen: Vec::new(),
        circular: Vec::new(),
        entries_left: MAX_ENTRIES,
    };
    inspector.describe(v, nested, 0)
}

struct Inspector<'a> {
    vm: &'a mut Vm,
    max_depth: usize,
    /// the containers being described, outermost first
    seen: Vec<Value>,
    /// the containers found inside themselves, numbered by position + 1
    circular: Vec<Value>,
    entries_left: usize,
}

impl Inspector<'_> {
    fn describe(&mut self, v: Value, nested: bool, depth: usize) -> String {
        match v.kind() {
            Kind::String(s) => {
                let text = self.vm.heap.string_to_rust(s);
                if nested { quote_limited(&text) } else { text }
            }
            Kind::Double(d) if d == 0.0 && d.is_sign_negative() => "-0".into(),
            Kind::Object(o) => {
                if self.seen.contains(&v) {
                    let n = match self.circular.iter().position(|&c| c == v) {
                        Some(i) => i + 1,
                        None => {
                            self.circular.push(v);
                            self.circular.len()
                        }
                    };
                    return format!("[Circular *{n}]");
                }
                self.seen.push(v);
                let out = self.object(o, depth);
                self.seen.pop();
                match self.circular.iter().position(|&c| c == v) {
                    Some(i) => format!("<ref *{}> {out}", i + 1),
                    None => out,
                }
            }
            _ => self.vm.display(v),
        }
    }

    fn object(&mut self, o: ObjectId, depth: usize) -> String {
        if self.vm.is_callable(Value::object(o)) {
            let base = self.function(o);
            let props = self.properties(o, depth, false);
            return match props.is_empty() || depth > self.max_depth {
                true => base,
                false => format!("{base} {{ {} }}", props.join(", ")),
            };
        }
        let special = match &self.vm.heap.object(o).kind {
            ObjectKind::Error => Some(self.error(o)),
            &ObjectKind::Date(t) => Some(
                crate::builtins::date::to_iso_string(t).unwrap_or_else(|| "Invalid Date".into()),
            ),
            ObjectKind::RegExp(r) => {
                let (source, flags) = (r.source, r.flags);
                Some(format!(
                    "/{}/{}",
                    self.vm.heap.string_to_rust(source),
                    self.vm.heap.string_to_rust(flags)
                ))
            }
            ObjectKind::Proxy { .. } => Some("[Proxy]".into()),
            ObjectKind::Boolean(b) => Some(format!("[Boolean: {b}]")),
            ObjectKind::Number(n) => Some(format!(
                "[Number: {}]",
                crate::interpreter::convert::number_to_string(*n)
            )),
            &ObjectKind::String(s) => Some(format!(
                "[String: {}]",
                quote(&self.vm.heap.string_to_rust(s))
            )),
            &ObjectKind::Symbol(s) => {
                Some(format!("[Symbol: {}]", self.vm.display(Value::symbol(s))))
            }
            &ObjectKind::BigInt(b) => {
                Some(format!("[BigInt: {}]", self.vm.display(Value::bigint(b))))
            }
            ObjectKind::WeakMap(_) => Some("WeakMap { <items unknown> }".into()),
            ObjectKind::WeakSet(_) => Some("WeakSet { <items unknown> }".into()),
            _ => None,
        };
        if let Some(text) = special {
            return text;
        }
        let name = self.constructor_name(o);
        if depth > self.max_depth && !self.is_empty(o) {
            return match name.as_deref() {
                None => "[Object: null prototype]".into(),
                Some("") => "[Object]".into(),
                Some(name) => format!("[{name}]"),
            };
        }
        let (prefix, mut parts, brackets) = match &self.vm.heap.object(o).kind {
            ObjectKind::Promise(p) => {
                let (status, result) = (p.status, p.result);
                let inner = match status {
                    Status::Pending => "<pending>".to_string(),
                    Status::Fulfilled => self.describe(result, true, depth + 1),
                    Status::Rejected => {
                        format!("<rejected> {}", self.describe(result, true, depth + 1))
                    }
                };
                (Some("Promise ".to_string()), vec![inner], false)
            }
            ObjectKind::Map(m) | ObjectKind::Set(m) => {
                let is_map = matches!(self.vm.heap.object(o).kind, ObjectKind::Map(_));
                let entries: Vec<(Value, Value)> = m.live_entries().take(MAX_ITEMS + 1).collect();
                let size = m.live_entries().count();
                let mut parts = Vec::new();
                for (k, v) in entries.into_iter().take(MAX_ITEMS) {
                    if !self.take_entry() {
                        parts.push("...".into());
                        break;
                    }
                    let key = self.describe(k, true, depth + 1);
                    parts.push(match is_map {
                        true => format!("{key} => {}", self.describe(v, true, depth + 1)),
                        false => key,
                    });
                }
                if size > MAX_ITEMS {
                    parts.push(format!("... {} more items", size - MAX_ITEMS));
                }
                let kind = if is_map { "Map" } else { "Set" };
                let base = name.clone().unwrap_or_else(|| kind.into());
                (Some(format!("{base}({size}) ")), parts, false)
            }
            ObjectKind::TypedArray(t) => {
                use crate::builtins::typed_array;
                let t = **t;
                let len = typed_array::length_of(self.vm, &t).unwrap_or(0);
                let mut parts = Vec::new();
                for k in 0..len.min(MAX_ITEMS) {
                    if !self.take_entry() {
                        parts.push("...".into());
                        break;
                    }
                    let v = typed_array::get_element(self.vm, o, k as f64);
                    parts.push(self.describe(v, true, depth + 1));
                }
                if len > MAX_ITEMS {
                    parts.push(format!("... {} more items", len - MAX_ITEMS));
                }
                let base = name.clone().unwrap_or_else(|| t.element.name().into());
                (Some(format!("{base}({len}) ")), parts, true)
            }
            ObjectKind::ArrayBuffer(b) => {
                let len = b.len();
                let shown = b.to_vec(0..len.min(MAX_BYTES));
                let mut hex: Vec<String> = shown.iter().map(|b| format!("{b:02x}")).collect();
                if len > MAX_BYTES {
                    hex.push(format!("... {} more bytes", len - MAX_BYTES));
                }
                let parts = vec![
                    format!("[Uint8Contents]: <{}>", hex.join(" ")),
                    format!("byteLength: {len}"),
                ];
                let base = name.clone().unwrap_or_else(|| "ArrayBuffer".into());
                (Some(format!("{base} ")), parts, false)
            }
            _ if self.vm.heap.object(o).is_array() => {
                let parts = self.elements(o, depth);
                let prefix = name
                    .as_deref()
                    .filter(|n| !n.is_empty() && *n != "Array")
                    .map(|n| format!("{n}({}) ", array_length(self.vm.heap.object(o))));
                (prefix, parts, true)
            }
            ObjectKind::Arguments { .. } => {
                (Some("[Arguments] ".into()), self.elements(o, depth), true)
            }
            _ => {
                let prefix = match name.as_deref() {
                    None => "[Object: null prototype] ".to_string(),
                    Some("Object") => match self.string_tag(o) {
                        Some(tag) => format!("Object [{tag}] "),
                        None => String::new(),
                    },
                    Some("") => String::new(),
                    Some(name) => format!("{name} "),
                };
                (Some(prefix), vec![], false)
            }
        };
        parts.extend(self.properties(o, depth, brackets));
        let prefix = prefix.unwrap_or_default();
        match (brackets, parts.is_empty()) {
            (true, true) => format!("{prefix}[]"),
            (true, false) => format!("{prefix}[ {} ]", parts.join(", ")),
            (false, true) => format!("{prefix}{{}}"),
            (false, false) => format!("{prefix}{{ {} }}", parts.join(", ")),
        }
    }

    /// Whether `o` would show no entries (node shows such objects whole at any depth).
    fn is_empty(&mut self, o: ObjectId) -> bool {
        let entries = match &self.vm.heap.object(o).kind {
            ObjectKind::Map(m) | ObjectKind::Set(m) => m.live_entries().next().is_some(),
            ObjectKind::TypedArray(_) | ObjectKind::ArrayBuffer(_) | ObjectKind::Promise(_) => true,
            _ => false,
        };
        if entries || array_length(self.vm.heap.object(o)) > 0 {
            return false;
        }
        let keys = self.vm.heap.own_keys(o);
        !keys.into_iter().any(|k| {
            k != PropertyKey::String(self.vm.heap.length_atom)
                && self
                    .vm
                    .heap
                    .own_property(o, k)
                    .is_some_and(|p| p.attrs.enumerable())
        })
    }

    /// Spend one of the description's entries; false when they are all spent.
    fn take_entry(&mut self) -> bool {
        if self.entries_left == 0 {
            return false;
        }
        self.entries_left -= 1;
        true
    }

    /// The elements of an array or arguments object, holes counted.
    fn elements(&mut self, o: ObjectId, depth: usize) -> Vec<String> {
        let object = self.vm.heap.object(o);
        let len = match object.kind {
            ObjectKind::Arguments { .. } => (self.vm.heap.own_keys(o).iter())
                .filter_map(|k| match k {
                    PropertyKey::Index(i) => Some(i + 1),
                    _ => None,
                })
                .max()
                .unwrap_or(0),
            _ if matches!(object.elements, Elements::Sparse(_)) => {
                return vec![format!("<sparse array of length {}>", array_length(object))];
            }
            _ => array_length(object),
        };
        let mut parts = Vec::new();
        let mut holes = 0;
        let shown = (len as usize).min(MAX_ITEMS);
        for i in 0..shown as u32 {
            let item = self.vm.heap.own_property(o, PropertyKey::Index(i));
            let Some(p) = item else {
                holes += 1;
                continue;
            };
            if holes > 0 {
                parts.push(empty_items(holes));
                holes = 0;
            }
            if !self.take_entry() {
                parts.push("...".into());
                return parts;
            }
            parts.push(self.property_value(p, depth));
        }
        if holes > 0 {
            parts.push(empty_items(holes));
        }
        if len as usize > MAX_ITEMS {
            parts.push(format!("... {} more items", len as usize - MAX_ITEMS));
        }
        parts
    }

    /// `key: value` for each own enumerable property (an array's indices and `length`
    /// left out when `skip_indices`).
    fn properties(&mut self, o: ObjectId, depth: usize, skip_indices: bool) -> Vec<String> {
        let mut parts = Vec::new();
        for key in self.vm.heap.own_keys(o) {
            if skip_indices
                && (matches!(key, PropertyKey::Index(_))
                    || key == PropertyKey::String(self.vm.heap.length_atom))
            {
                continue;
            }
            let Some(p) = self.vm.heap.own_property(o, key) else {
                continue;
            };
            if !p.attrs.enumerable() {
                continue;
            }
            if parts.len() == MAX_ITEMS || !self.take_entry() {
                parts.push("...".into());
                break;
            }
            let name = match key {
                PropertyKey::String(s) => {
                    let text = self.vm.heap.string_to_rust(s);
                    if is_plain_key(&text) {
                        text
                    } else {
                        quote(&text)
                    }
                }
                PropertyKey::Index(i) => quote(&i.to_string()),
                PropertyKey::Symbol(_) => format!("[{}]", self.vm.key_to_display(key)),
            };
            let value = self.property_value(p, depth);
            parts.push(format!("{name}: {value}"));
        }
        parts
    }

    fn property_value(&mut self, p: crate::object::Property, depth: usize) -> String {
        if !p.attrs.is_accessor() {
            return self.describe(p.value, true, depth + 1);
        }
        let (g, s) = self.vm.accessor_parts(p.value);
        match (g.is_undefined(), s.is_undefined()) {
            (false, false) => "[Getter/Setter]".into(),
            (false, true) => "[Getter]".into(),
            _ => "[Setter]".into(),
        }
    }

    fn function(&mut self, o: ObjectId) -> String {
        let name = self.vm.function_name(o);
        let code_kind = match &self.vm.heap.object(o).kind {
            ObjectKind::Closure(c) => Some(c.code.kind),
            _ => None,
        };
        if code_kind.is_some_and(|k| k.is_class_constructor()) {
            let mut text = match name.is_empty() {
                true => "[class (anonymous)".to_string(),
                false => format!("[class {name}"),
            };
            let parent = self.vm.heap.object(o).proto;
            if let Some(parent) = parent
                && parent != self.vm.intrinsics.function_prototype
                && self.vm.is_callable(Value::object(parent))
            {
                let parent_name = self.vm.function_name(parent);
                if !parent_name.is_empty() {
                    text.push_str(&format!(" extends {parent_name}"));
                }
            }
            text.push(']');
            return text;
        }
        let kind = match code_kind {
            Some(k) if k.is_async() && k.is_generator() => "AsyncGeneratorFunction",
            Some(k) if k.is_async() => "AsyncFunction",
            Some(k) if k.is_generator() => "GeneratorFunction",
            _ => "Function",
        };
        match name.is_empty() {
            true => format!("[{kind} (anonymous)]"),
            false => format!("[{kind}: {name}]"),
        }
    }

    /// An error as its stack, or `[Name: message]` when it has none.
    fn error(&mut self, o: ObjectId) -> String {
        let stack = self
            .vm
            .heap
            .own_property(o, PropertyKey::String(self.vm.atoms.stack))
            .filter(|p| !p.attrs.is_accessor())
            .map(|p| p.value);
        if let Some(s) = stack.filter(|s| s.as_string().is_some()) {
            return self.vm.display(s);
        }
        let (name, message) = self.vm.peek_error_name_and_message(o);
        match message.is_empty() {
            true => format!("[{name}]"),
            false => format!("[{name}: {message}]"),
        }
    }

    /// The name of the constructor on `o`'s prototype, found without running
    /// JavaScript: None for a null prototype, `Object` when the prototype has no
    /// `constructor` data property, empty for an anonymous class.
    fn constructor_name(&mut self, o: ObjectId) -> Option<String> {
        let proto = self.vm.heap.object(o).proto?;
        let constructor = self
            .vm
            .heap
            .own_property(proto, PropertyKey::String(self.vm.atoms.constructor))
            .filter(|p| !p.attrs.is_accessor())
            .and_then(|p| p.value.as_object());
        Some(match constructor {
            Some(c) => self.vm.function_name(c),
            None => "Object".into(),
        })
    }

    /// An own or inherited string-valued `Symbol.toStringTag` data property.
    fn string_tag(&mut self, o: ObjectId) -> Option<String> {
        let key = PropertyKey::Symbol(self.vm.symbols.to_string_tag);
        self.vm.peek_string_property(o, key)
    }
}

fn empty_items(n: usize) -> String {
    format!("<{n} empty item{}>", if n > 1 { "s" } else { "" })
}

/// A string inside a container, cut after [`MAX_STRING`] characters.
fn quote_limited(s: &str) -> String {
    match s.char_indices().nth(MAX_STRING) {
        None => quote(s),
        Some((at, _)) => {
            let more = s[at..].chars().count();
            format!("{}... {more} more characters", quote(&s[..at]))
        }
    }
}

/// A string literal as node writes it: single quotes, unless the text has some and
/// double quotes or backticks would need no escape.
pub(crate) fn quote(s: &str) -> String {
    let q = if !s.contains('\'') {
        '\''
    } else if !s.contains('"') {
        '"'
    } else if !s.contains('`') && !s.contains("${") {
        '`'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// A key node shows without quotes: ASCII letters, digits and `_`, not starting with a
/// digit.
fn is_plain_key(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
