//! Several realms in one VM, through the JavaScript fixtures in `tests/realms/`.
//!
//! The fixtures run with a test-only hook (embedders cannot create realms yet):
//! `createRealm()` makes a realm and returns its global object, which has its own
//! `print`, `evalScript(source)` (run a script in that realm) and `createRealm`;
//! `gc()` collects garbage. Expectations are written as for `tests/js` fixtures:
//! `// expect: TEXT` for each printed line, in order.

use kiln::{Args, JsResult, Value, Vm};
use std::cell::RefCell;
use std::path::Path;

thread_local! {
    static PRINTED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn print(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let mut parts = Vec::new();
    for i in 0..args.count as usize {
        let s = vm.to_string(vm.arg(args, i))?;
        parts.push(vm.heap.string_to_rust(s));
    }
    PRINTED.with(|p| p.borrow_mut().push(parts.join(" ")));
    Ok(Value::UNDEFINED)
}

fn eval_script(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let s = vm.to_string(vm.arg(args, 0))?;
    let source = vm.heap.string_to_rust(s);
    vm.run_script(&source, "<evalScript>")
}

fn gc(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    vm.collect_garbage();
    Ok(Value::UNDEFINED)
}

fn create_realm(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    let realm = vm.create_realm();
    let previous = vm.enter_realm(realm);
    install_hooks(vm);
    vm.enter_realm(previous);
    Ok(Value::object(vm.realm_global(realm)))
}

/// Define the hooks on the running realm's global object.
fn install_hooks(vm: &mut Vm) {
    let global = vm.intrinsics.global;
    vm.define_native(global, "print", print, 1);
    vm.define_native(global, "evalScript", eval_script, 1);
    vm.define_native(global, "createRealm", create_realm, 0);
    vm.define_native(global, "gc", gc, 0);
}

/// Run one fixture; the printed lines, or the uncaught exception.
fn run(source: &str, name: &str) -> Result<Vec<String>, String> {
    PRINTED.with(|p| p.borrow_mut().clear());
    let mut vm = Vm::new();
    install_hooks(&mut vm);
    let result = vm.run_script(source, name).and_then(|_| vm.run_jobs());
    if result.is_err() {
        let e = vm.take_exception();
        return Err(vm.display(e));
    }
    assert_eq!(
        vm.realm.0, 0,
        "{name}: back in the first realm after the run"
    );
    Ok(PRINTED.with(|p| p.borrow().clone()))
}

#[test]
fn realm_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realms");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/realms exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "js"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    let mut failures = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).expect("readable fixture");
        let expected: Vec<String> = source
            .lines()
            .filter_map(|l| {
                l.split_once("// expect: ")
                    .map(|(_, e)| e.trim_end().to_string())
            })
            .collect();
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        match run(&source, &name) {
            Ok(lines) if lines == expected => {}
            Ok(lines) => failures.push(format!(
                "{name}: expected\n  {}\ngot\n  {}",
                expected.join("\n  "),
                lines.join("\n  ")
            )),
            Err(e) => failures.push(format!("{name}: uncaught {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn parked_realms_survive_collection() {
    let mut vm = Vm::new();
    install_hooks(&mut vm);
    let realm = vm.create_realm();
    vm.collect_garbage();
    let previous = vm.enter_realm(realm);
    let v = vm.run_script("[1, 2, 3].map(x => x * 2).join()", "t.js");
    vm.enter_realm(previous);
    let v = v.unwrap_or_else(|_| panic!("the script runs"));
    assert_eq!(vm.display(v), "2,4,6");
}
