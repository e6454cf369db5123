//! Unit tests: every construct compiles, with spot checks of the emitted code.

use kiln_bytecode::{Instr, Script, ScriptKind};

use crate::compile;

fn ok(source: &str) -> Script {
    match compile(source, "test.js", ScriptKind::Script, false) {
        Ok(s) => s,
        Err(e) => panic!("compile error for {source:?}: {e:?}"),
    }
}

fn listing(script: &Script) -> String {
    script.functions.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("\n")
}

fn has(script: &Script, needle: &str) -> bool {
    listing(script).contains(needle)
}

#[test]
fn octane_benchmarks_compile() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/octane");
    if !dir.exists() {
        println!("note: {} is absent; skipping", dir.display());
        return;
    }
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "js") {
            let source = std::fs::read_to_string(&path).unwrap();
            if let Err(e) = compile(&source, &path.display().to_string(), ScriptKind::Script, false) {
                panic!("{}: {e:?}", path.display());
            }
            count += 1;
        }
    }
    assert!(count >= 7, "expected the six benchmarks plus base.js, found {count}");
}
