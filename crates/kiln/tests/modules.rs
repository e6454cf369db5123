//! The module loader API: a host-supplied loader over an in-memory file table.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use kiln::{ModuleLoader, Runtime};

/// Modules by name; specifiers are names (`./` stripped). Counts loads per key.
struct MemoryLoader {
    files: HashMap<&'static str, &'static str>,
    loads: Rc<RefCell<Vec<String>>>,
}

impl ModuleLoader for MemoryLoader {
    fn resolve(&mut self, specifier: &str, _referrer: &str) -> Result<String, String> {
        let key = specifier.trim_start_matches("./");
        if self.files.contains_key(key) {
            Ok(key.to_string())
        } else {
            Err("not found".into())
        }
    }

    fn load(&mut self, key: &str) -> Result<String, String> {
        self.loads.borrow_mut().push(key.to_string());
        self.files
            .get(key)
            .map(|s| s.to_string())
            .ok_or_else(|| "not found".into())
    }
}

fn runtime(files: &[(&'static str, &'static str)]) -> (Runtime, Rc<RefCell<Vec<String>>>) {
    let loads = Rc::new(RefCell::new(Vec::new()));
    let mut rt = Runtime::new();
    rt.set_module_loader(Box::new(MemoryLoader {
        files: files.iter().copied().collect(),
        loads: loads.clone(),
    }));
    (rt, loads)
}

#[test]
fn a_module_graph_loads_each_module_once() {
    let (mut rt, loads) = runtime(&[
        (
            "main",
            "import { a } from './a'; import { b } from './b'; export const sum = a + b;",
        ),
        ("a", "import { b } from './b'; export const a = b + 1;"),
        ("b", "export const b = 10;"),
    ]);
    let ns = rt.run_module("main", "").expect("module runs");
    let key = rt_key(&mut rt, "sum");
    let sum = rt.vm().get(ns, key).expect("sum");
    assert_eq!(sum.as_int(), Some(21));
    assert_eq!(*loads.borrow(), ["main", "a", "b"]);
    // A second run reuses the evaluated records.
    rt.run_module("main", "").expect("module runs again");
    assert_eq!(loads.borrow().len(), 3);
}

fn rt_key(rt: &mut Runtime, name: &str) -> kiln::object::PropertyKey {
    rt.vm().key(name)
}

#[test]
fn errors_are_reported_not_panicked() {
    let (mut rt, _) = runtime(&[
        ("missing-export", "import { nope } from './b';"),
        ("ambiguous", "import { x } from './star';"),
        ("star", "export * from './x1'; export * from './x2';"),
        ("x1", "export const x = 1;"),
        ("x2", "export const x = 2;"),
        ("b", "export const b = 1;"),
        ("bad-syntax", "export {"),
        ("throws", "throw new TypeError('boom');"),
        ("unresolved", "import './nowhere';"),
    ]);
    let e = rt.run_module("missing-export", "").unwrap_err();
    assert!(e.summary.starts_with("SyntaxError"), "{}", e.summary);
    let e = rt.run_module("ambiguous", "").unwrap_err();
    assert!(e.summary.contains("ambiguous"), "{}", e.summary);
    let e = rt.run_module("bad-syntax", "").unwrap_err();
    assert!(e.is_syntax_error() && e.summary.starts_with("SyntaxError"));
    let e = rt.run_module("throws", "").unwrap_err();
    assert_eq!(e.summary, "TypeError: boom");
    // Evaluating an errored module again reports the same error.
    let e = rt.run_module("throws", "").unwrap_err();
    assert_eq!(e.summary, "TypeError: boom");
    let e = rt.run_module("unresolved", "").unwrap_err();
    assert!(e.summary.contains("nowhere"), "{}", e.summary);
}

#[test]
fn without_a_loader_import_is_an_error() {
    let mut rt = Runtime::new();
    let e = rt.run_module("main", "").unwrap_err();
    assert!(e.summary.contains("no module loader"), "{}", e.summary);
    let v = rt
        .eval("var r; import('x').catch(e => { r = e.message }); r")
        .expect("script runs");
    assert_eq!(v, "undefined");
    let v = rt.eval("r").expect("script runs");
    assert!(v.contains("no module loader"), "{v}");
}

#[test]
fn top_level_await_settles_before_run_module_returns() {
    let (mut rt, _) = runtime(&[
        (
            "main",
            "import { v } from './slow'; export const w = v * 2;",
        ),
        (
            "slow",
            "export const v = await new Promise(r => Promise.resolve().then(() => r(21)));",
        ),
    ]);
    let ns = rt.run_module("main", "").expect("module runs");
    let key = rt_key(&mut rt, "w");
    let w = rt.vm().get(ns, key).expect("w");
    assert_eq!(w.as_int(), Some(42));
}
