//! Describe values for people (REPL output, uncaught non-error values)
//! without running JavaScript: getters and proxies are shown, not called.

use crate::interpreter::Vm;
use crate::object::{Elements, ObjectKind, PropertyKey, array_length};
use crate::value::{Kind, Value};

const MAX_DEPTH: usize = 2;
const MAX_ITEMS: usize = 100;

/// Describe `v` the way a REPL prints a result.
pub fn inspect_value(vm: &mut Vm, v: Value) -> String {
    inspect(vm, v, true)
}

/// Describe `v`; `nested` quotes strings as inside a container.
pub fn inspect(vm: &mut Vm, v: Value, nested: bool) -> String {
    let mut seen = Vec::new();
    describe(vm, v, nested, 0, &mut seen)
}

fn describe(vm: &mut Vm, v: Value, nested: bool, depth: usize, seen: &mut Vec<Value>) -> String {
    match v.kind() {
        Kind::String(s) => {
            let text = vm.heap.string_to_rust(s);
            if nested { quote(&text) } else { text }
        }
        Kind::Double(d) if d == 0.0 && d.is_sign_negative() => "-0".into(),
        Kind::Object(o) => {
            if seen.contains(&v) {
                return "[Circular]".into();
            }
            seen.push(v);
            let out = describe_object(vm, o, depth, seen);
            seen.pop();
            out
        }
        Kind::Symbol(_) | Kind::BigInt(_) => vm.display(v),
        _ => vm.display(v),
    }
}

fn quote(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn describe_object(
    vm: &mut Vm,
    o: crate::heap::ObjectId,
    depth: usize,
    seen: &mut Vec<Value>,
) -> String {
    let callable = vm.is_callable(Value::object(o));
    if callable {
        let name = vm.function_name(o);
        let class = matches!(&vm.heap.object(o).kind, ObjectKind::Closure(c) if c.code.code.kind.is_class_constructor());
        return match (class, name.is_empty()) {
            (true, true) => "[class (anonymous)]".into(),
            (true, false) => format!("[class {name}]"),
            (false, true) => "[Function (anonymous)]".into(),
            (false, false) => format!("[Function: {name}]"),
        };
    }
    match &vm.heap.object(o).kind {
        ObjectKind::Error => {
            let stack = vm
                .heap
                .own_property(o, PropertyKey::String(vm.atoms.stack))
                .map(|p| p.value);
            if let Some(s) = stack.filter(|s| s.as_string().is_some()) {
                return vm.display(s);
            }
        }
        ObjectKind::Date(t) => {
            let t = *t;
            return crate::builtins::date::to_iso_string(t)
                .unwrap_or_else(|| "Invalid Date".into());
        }
        ObjectKind::RegExp(r) => {
            let (source, flags) = (r.source, r.flags);
            return format!(
                "/{}/{}",
                vm.heap.string_to_rust(source),
                vm.heap.string_to_rust(flags)
            );
        }
        ObjectKind::Promise(p) => {
            let (status, result) = (p.status, p.result);
            let inner = match status {
                crate::builtins::promise::Status::Pending => "<pending>".to_string(),
                crate::builtins::promise::Status::Fulfilled => {
                    describe(vm, result, true, depth + 1, seen)
                }
                crate::builtins::promise::Status::Rejected => {
                    format!("<rejected> {}", describe(vm, result, true, depth + 1, seen))
                }
            };
            return format!("Promise {{ {inner} }}");
        }
        ObjectKind::Proxy { .. } => return "[Proxy]".into(),
        ObjectKind::Boolean(b) => return format!("[Boolean: {b}]"),
        ObjectKind::Number(n) => {
            return format!(
                "[Number: {}]",
                crate::interpreter::convert::number_to_string(*n)
            );
        }
        ObjectKind::String(s) => {
            let s = *s;
            return format!("[String: {}]", quote(&vm.heap.string_to_rust(s)));
        }
        ObjectKind::TypedArray(t) => {
            use crate::builtins::typed_array;
            let t = **t;
            let len = typed_array::length_of(vm, &t).unwrap_or(0);
            let mut items: Vec<String> = (0..len.min(MAX_ITEMS))
                .map(|k| {
                    let v = typed_array::get_element(vm, o, k as f64);
                    describe(vm, v, true, depth + 1, seen)
                })
                .collect();
            if len > MAX_ITEMS {
                items.push(format!("... {} more items", len - MAX_ITEMS));
            }
            let name = t.element.name();
            if items.is_empty() {
                return format!("{name}(0) []");
            }
            return format!("{name}({len}) [ {} ]", items.join(", "));
        }
        _ => {}
    }
    let is_array = vm.heap.object(o).is_array();
    if depth > MAX_DEPTH {
        return if is_array {
            "[Array]".into()
        } else {
            "[Object]".into()
        };
    }
    let mut parts = Vec::new();
    let keys = vm.heap.own_keys(o);
    if is_array {
        let len = array_length(vm.heap.object(o));
        let dense: Option<Vec<Value>> = match &vm.heap.object(o).elements {
            Elements::Dense(e) => Some(e.iter().take(MAX_ITEMS).copied().collect()),
            Elements::Sparse(_) => None,
        };
        match dense {
            Some(values) => {
                let mut holes = 0;
                for v in values {
                    if v.is_hole() {
                        holes += 1;
                        continue;
                    }
                    if holes > 0 {
                        parts.push(format!(
                            "<{holes} empty item{}>",
                            if holes > 1 { "s" } else { "" }
                        ));
                        holes = 0;
                    }
                    parts.push(describe(vm, v, true, depth + 1, seen));
                }
                if holes > 0 {
                    parts.push(format!(
                        "<{holes} empty item{}>",
                        if holes > 1 { "s" } else { "" }
                    ));
                }
                if len as usize > MAX_ITEMS {
                    parts.push(format!("... {} more items", len as usize - MAX_ITEMS));
                }
            }
            None => parts.push(format!("<sparse array of length {len}>")),
        }
    }
    for key in keys {
        if is_array && matches!(key, PropertyKey::Index(_)) {
            continue;
        }
        if is_array && key == PropertyKey::String(vm.heap.length_atom) {
            continue;
        }
        let Some(p) = vm.heap.own_property(o, key) else {
            continue;
        };
        if !p.attrs.enumerable() {
            continue;
        }
        let name = match key {
            PropertyKey::String(s) => {
                let text = vm.heap.string_to_rust(s);
                if is_identifier(&text) {
                    text
                } else {
                    quote(&text)
                }
            }
            PropertyKey::Index(i) => i.to_string(),
            PropertyKey::Symbol(_) => format!("[{}]", vm.key_to_display(key)),
        };
        let value = if p.attrs.is_accessor() {
            let (g, s) = vm.accessor_parts(p.value);
            match (g.is_undefined(), s.is_undefined()) {
                (false, false) => "[Getter/Setter]".into(),
                (false, true) => "[Getter]".into(),
                _ => "[Setter]".into(),
            }
        } else {
            describe(vm, p.value, true, depth + 1, seen)
        };
        parts.push(format!("{name}: {value}"));
        if parts.len() > MAX_ITEMS {
            parts.push("...".into());
            break;
        }
    }
    let prefix = class_prefix(vm, o);
    if is_array {
        if parts.is_empty() {
            "[]".into()
        } else {
            format!("[ {} ]", parts.join(", "))
        }
    } else if parts.is_empty() {
        format!("{prefix}{{}}")
    } else {
        format!("{prefix}{{ {} }}", parts.join(", "))
    }
}

/// `ClassName ` for instances of non-Object constructors, found without running JavaScript.
fn class_prefix(vm: &mut Vm, o: crate::heap::ObjectId) -> String {
    let Some(proto) = vm.heap.object(o).proto else {
        return "[Object: null prototype] ".into();
    };
    if proto == vm.intrinsics.object_prototype {
        return String::new();
    }
    match vm
        .heap
        .own_property(proto, PropertyKey::String(vm.atoms.constructor))
    {
        Some(p) if !p.attrs.is_accessor() => match p.value.as_object() {
            Some(c) => {
                let name = vm.function_name(c);
                if name.is_empty() || name == "Object" {
                    String::new()
                } else {
                    format!("{name} ")
                }
            }
            None => String::new(),
        },
        _ => String::new(),
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}
