//! Runs one scenario in a fresh Kiln runtime, following INTERPRETING.md:
//! harness files first (unless `raw`), then the test, then the job queue;
//! negative tests must fail in the named phase with the named error.

use crate::metadata::Metadata;
use kiln::object::{Attrs, ObjectKind};
use kiln::{Args, JsResult, Runtime, Value, Vm};
use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// How one scenario ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail(String),
    Timeout,
}

/// The strictness a scenario runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Sloppy,
    Strict,
    /// `raw` tests run exactly as written
    Raw,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Sloppy => "sloppy",
            Mode::Strict => "strict",
            Mode::Raw => "raw",
        }
    }
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "sloppy" => Some(Mode::Sloppy),
            "strict" => Some(Mode::Strict),
            "raw" => Some(Mode::Raw),
            _ => None,
        }
    }
}

thread_local! {
    /// Lines the test printed (async tests report completion through `print`).
    static PRINTED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn print(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let v = vm.arg(args, 0);
    let s = vm.to_string(v)?;
    let text = vm.heap.string_to_rust(s);
    PRINTED.with(|p| p.borrow_mut().push(text));
    Ok(Value::UNDEFINED)
}

fn eval_script(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let v = vm.arg(args, 0);
    let s = vm.to_string(v)?;
    let source = vm.heap.string_to_rust(s);
    let block = vm.load(&source, "<evalScript>", kiln::ScriptKind::Script, false)?;
    vm.run_top_level(block)
}

fn gc(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    vm.collect_garbage();
    Ok(Value::UNDEFINED)
}

fn detach_array_buffer(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let buffer = vm.arg(args, 0);
    kiln::builtins::array_buffer::detach(vm, buffer)?;
    Ok(Value::NULL)
}

/// Resolves module specifiers against the importing file, as paths relative to the
/// test262 root (`test/language/.../x.js`); the test's own path is the entry's key.
struct TestLoader {
    root: std::path::PathBuf,
}

/// `base/../x/./y` -> `x/y`, lexically.
fn normalize(path: &Path) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(p) => parts.push(p.to_str().unwrap_or("")),
            _ => {}
        }
    }
    parts.join("/")
}

impl kiln::ModuleLoader for TestLoader {
    fn resolve(&mut self, specifier: &str, referrer: &str) -> Result<String, String> {
        let base = Path::new(referrer).parent().unwrap_or(Path::new(""));
        let key = normalize(&base.join(specifier));
        if self.root.join(&key).is_file() {
            Ok(key)
        } else {
            Err(format!("no file {key}"))
        }
    }

    fn load(&mut self, key: &str) -> Result<String, String> {
        std::fs::read_to_string(self.root.join(key)).map_err(|e| e.to_string())
    }
}

/// `$262.createRealm()`: a new realm with its own `print` and `$262`; returns that `$262`.
fn create_realm(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    let realm = vm.create_realm();
    let previous = vm.enter_realm(realm);
    let global = vm.intrinsics.global;
    vm.define_native(global, "print", print, 1);
    let host = define_host(vm);
    vm.enter_realm(previous);
    Ok(Value::object(host))
}

/// Define `print` and `$262` on the runtime's global object.
fn install_host(runtime: &mut Runtime) {
    runtime.register_function("print", print, 1);
    define_host(runtime.vm());
}

/// Define `$262` on the running realm's global object and return it.
fn define_host(vm: &mut Vm) -> kiln::heap::ObjectId {
    let global = vm.intrinsics.global;
    let host = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.define_native(host, "evalScript", eval_script, 1);
    vm.define_native(host, "createRealm", create_realm, 0);
    vm.define_native(host, "gc", gc, 0);
    vm.define_native(host, "detachArrayBuffer", detach_array_buffer, 1);
    let agent = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    crate::agent::define_main(vm, agent);
    let key = vm.key("agent");
    vm.define_builtin(host, key, Value::object(agent), Attrs::HIDDEN);
    let key = vm.key("global");
    vm.define_builtin(host, key, Value::object(global), Attrs::HIDDEN);
    let key = vm.key("$262");
    vm.define_builtin(global, key, Value::object(host), Attrs::HIDDEN);
    host
}

/// Run one scenario of the test at `path` (relative paths resolve under `root`).
/// `interrupt` becomes the runtime's interrupt flag: setting it from another thread stops
/// the scenario as a timeout.
pub fn run(
    root: &Path,
    path: &str,
    mode: Mode,
    harness: &Harness,
    interrupt: Arc<AtomicBool>,
) -> Outcome {
    let file = root.join(path);
    let source = match std::fs::read_to_string(&file) {
        Ok(s) => s,
        Err(e) => return Outcome::Fail(format!("cannot read test: {e}")),
    };
    let meta = crate::metadata::parse(&source);
    PRINTED.with(|p| p.borrow_mut().clear());
    let mut runtime = Runtime::new();
    runtime.vm().interrupt = interrupt.clone();
    // The main agent may block, except in tests written for one that cannot.
    runtime.vm().agent.can_block = !meta.has_flag("CanBlockIsFalse");
    install_host(&mut runtime);
    runtime.set_module_loader(Box::new(TestLoader {
        root: root.to_path_buf(),
    }));
    crate::agent::begin(interrupt.clone());
    let outcome = run_in(&mut runtime, path, &source, &meta, mode, harness);
    let timed_out = interrupt.load(std::sync::atomic::Ordering::Relaxed);
    // (raises the interrupt flag to stop the agents)
    crate::agent::finish();
    if timed_out {
        return Outcome::Timeout;
    }
    outcome
}

fn run_in(
    runtime: &mut Runtime,
    path: &str,
    source: &str,
    meta: &Metadata,
    mode: Mode,
    harness: &Harness,
) -> Outcome {
    if mode != Mode::Raw {
        let mut files = vec!["assert.js", "sta.js"];
        if meta.has_flag("async") {
            files.push("doneprintHandle.js");
        }
        files.extend(meta.includes.iter().map(String::as_str));
        for name in files {
            let Some(script) = harness.compiled(name) else {
                return Outcome::Fail(format!("missing or invalid harness file {name}"));
            };
            let vm = runtime.vm();
            let block =
                vm.load_compiled(script, kiln::interpreter::Recipe::Compile { strict: false });
            if vm.run_top_level(block).is_err() {
                let what = vm.take_exception();
                let what = vm.display(what);
                return Outcome::Fail(format!("harness {name} failed: {what}"));
            }
        }
    }
    let result = if meta.has_flag("module") {
        runtime.run_module(path, "").map(|_| ())
    } else {
        let text = if mode == Mode::Strict {
            format!("\"use strict\";\n{source}")
        } else {
            source.to_string()
        };
        runtime.run_script(&text, path).map(|_| ())
    };
    let printed: Vec<String> = PRINTED.with(|p| p.borrow().clone());
    match (&meta.negative, result) {
        (Some((phase, kind)), Err(report)) => {
            // `Name: message`, or `Uncaught Name { ... }` for a thrown non-Error object.
            let name = report
                .summary
                .trim_start_matches("Uncaught ")
                .split([':', ' '])
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            let phase_ok = match phase.as_str() {
                "parse" | "early" => report.is_syntax_error(),
                "resolution" => true,
                _ => !report.is_syntax_error(),
            };
            if phase_ok && &name == kind {
                Outcome::Pass
            } else {
                Outcome::Fail(format!(
                    "expected {phase} {kind}, got {}{}",
                    if report.is_syntax_error() {
                        "early "
                    } else {
                        ""
                    },
                    report.summary
                ))
            }
        }
        (Some((phase, kind)), Ok(_)) => {
            Outcome::Fail(format!("expected {phase} {kind}, but the test completed"))
        }
        (None, Err(report)) => Outcome::Fail(report.summary),
        (None, Ok(_)) => {
            if meta.has_flag("async") {
                if printed.iter().any(|l| l == "Test262:AsyncTestComplete") {
                    Outcome::Pass
                } else if let Some(l) = printed
                    .iter()
                    .find(|l| l.starts_with("Test262:AsyncTestFailure:"))
                {
                    Outcome::Fail(l.clone())
                } else {
                    Outcome::Fail("async test did not report completion".into())
                }
            } else {
                Outcome::Pass
            }
        }
    }
}

/// The harness files, read once and compiled once per worker.
pub struct Harness {
    files: std::collections::HashMap<String, String>,
    compiled: RefCell<std::collections::HashMap<String, kiln::ValidScript>>,
}

impl Harness {
    pub fn load(root: &Path) -> Harness {
        let mut files = std::collections::HashMap::new();
        if let Ok(entries) = std::fs::read_dir(root.join("harness")) {
            for e in entries.flatten() {
                if let (Some(name), Ok(text)) =
                    (e.file_name().to_str(), std::fs::read_to_string(e.path()))
                {
                    files.insert(name.to_string(), text);
                }
            }
        }
        Harness {
            files,
            compiled: RefCell::default(),
        }
    }

    /// The compiled harness file `name` (None if it is missing or does not compile).
    pub fn compiled(&self, name: &str) -> Option<kiln::ValidScript> {
        if let Some(s) = self.compiled.borrow().get(name) {
            return Some(s.clone());
        }
        let text = self.get(name)?;
        let script = kiln::compile(text, name, kiln::ScriptKind::Script, false).ok()?;
        let script = kiln::ValidScript::new(script).ok()?;
        self.compiled
            .borrow_mut()
            .insert(name.to_string(), script.clone());
        Some(script)
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.files.get(name).map(String::as_str)
    }
}
