//! Runs every JavaScript fixture under `tests/js/` with the `kiln` binary and
//! compares its output with the expectations written in the file:
//!
//! - `// expect: TEXT` after a statement: the next line printed is TEXT;
//! - `// expect-error: TEXT` anywhere: the run fails and stderr contains TEXT.
//!
//! `.mjs` files run as modules; files whose name starts with `_` are only imported
//! by other fixtures (module dependencies), never run on their own.
//!
//! `KILN_BLESS=1` rewrites the `// expect:` comments of failing fixtures
//! from the actual output (lines of output are matched in order to the
//! comments; extra output is reported, never silently dropped).

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            fixtures(&path, out);
        } else if path.extension().is_some_and(|e| e == "js" || e == "mjs")
            && !path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('_'))
        {
            out.push(path);
        }
    }
}

struct Expectations {
    lines: Vec<String>,
    error: Option<String>,
}

fn expectations(source: &str) -> Expectations {
    let mut lines = Vec::new();
    let mut error = None;
    for line in source.lines() {
        if let Some(i) = line.find("// expect-error: ") {
            error = Some(line[i + "// expect-error: ".len()..].trim_end().to_string());
        } else if let Some(i) = line.find("// expect: ") {
            lines.push(line[i + "// expect: ".len()..].trim_end().to_string());
        }
    }
    Expectations { lines, error }
}

#[test]
fn javascript_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/js");
    let mut files = Vec::new();
    fixtures(&root, &mut files);
    assert!(
        !files.is_empty(),
        "no fixtures found under {}",
        root.display()
    );
    let bless = std::env::var_os("KILN_BLESS").is_some();
    let mut failures = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).expect("readable fixture");
        let expected = expectations(&source);
        let output = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .arg("run")
            .arg(file)
            .output()
            .expect("kiln runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let actual: Vec<String> = stdout.lines().map(str::to_string).collect();
        let error_ok = match &expected.error {
            Some(text) => !output.status.success() && stderr.contains(text.as_str()),
            None => output.status.success(),
        };
        if actual != expected.lines || !error_ok {
            if bless && expected.error.is_none() && output.status.success() {
                bless_file(file, &source, &actual);
                continue;
            }
            failures.push(format!(
                "{}\n  expected: {:?}{}\n  actual:   {:?}\n  stderr:   {}",
                file.display(),
                expected.lines,
                expected
                    .error
                    .as_ref()
                    .map(|e| format!(" and error {e:?}"))
                    .unwrap_or_default(),
                actual,
                stderr.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Replace the `// expect:` comments in order with the actual output lines.
fn bless_file(file: &Path, source: &str, actual: &[String]) {
    let mut outputs = actual.iter();
    let mut text = String::new();
    for line in source.lines() {
        match line.find("// expect: ") {
            Some(i) => match outputs.next() {
                Some(out) => text.push_str(&format!("{}// expect: {out}\n", &line[..i])),
                None => text.push_str(&format!("{}\n", line[..i].trim_end())),
            },
            None => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    for out in outputs {
        text.push_str(&format!("// expect: {out}\n"));
    }
    std::fs::write(file, text).expect("writable fixture");
}
