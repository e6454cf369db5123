//! Runs every JavaScript fixture under `tests/js/` with the `kiln` binary and
//! compares its output with the expectations written in the file:
//!
//! - `// expect: TEXT` after a statement: the next line printed is TEXT;
//! - `// expect-error: TEXT` anywhere: the run fails and stderr contains TEXT.
//!
//! `.mjs` and `.mts` files run as modules; `.ts` and `.mts` files are TypeScript. Files
//! whose name starts with `_` are only imported by other fixtures (module dependencies),
//! never run on their own.
//!
//! `.agent.js` and `.agent.ts` files run as agent scripts through `kiln sandbox`
//! (from `tests/js`, so file names in messages are relative): each
//! `// capability: NAME` is given to the guest, each `// answer: LINE` is a stdin line
//! (answering host calls in order), the expected lines are the JSON states it prints,
//! and `// expect-error: TEXT` means the run fails with TEXT in its output.
//!
//! `KILN_BLESS=1` rewrites the `// expect:` comments of failing fixtures
//! from the actual output (lines of output are matched in order to the
//! comments; extra output is reported, never silently dropped).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            fixtures(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e == "js" || e == "mjs" || e == "ts" || e == "mts")
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

/// What an agent fixture declares: `// capability: NAME` and `// answer: LINE` comments.
fn sandbox_inputs(source: &str) -> (Vec<String>, String) {
    let mut capabilities = Vec::new();
    let mut answers = String::new();
    for line in source.lines() {
        if let Some(i) = line.find("// capability: ") {
            capabilities.push(line[i + "// capability: ".len()..].trim().to_string());
        } else if let Some(i) = line.find("// answer: ") {
            answers.push_str(line[i + "// answer: ".len()..].trim_end());
            answers.push('\n');
        }
    }
    (capabilities, answers)
}

fn is_agent_fixture(file: &Path) -> bool {
    file.file_name()
        .is_some_and(|n| n.to_string_lossy().contains(".agent."))
}

/// Run a fixture: `kiln run FILE`, or `kiln sandbox` for an agent script.
fn run_fixture(root: &Path, file: &Path, source: &str) -> std::process::Output {
    if !is_agent_fixture(file) {
        return Command::new(env!("CARGO_BIN_EXE_kiln"))
            .arg("run")
            .arg(file)
            .output()
            .expect("kiln runs");
    }
    let (capabilities, answers) = sandbox_inputs(source);
    let mut command = Command::new(env!("CARGO_BIN_EXE_kiln"));
    command
        .current_dir(root)
        .arg("sandbox")
        .arg(file.strip_prefix(root).unwrap_or(file));
    for c in &capabilities {
        command.arg("--capability").arg(c);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kiln runs");
    if let Some(mut stdin) = child.stdin.take() {
        // the guest may finish before reading every answer
        let _ = stdin.write_all(answers.as_bytes());
    }
    child.wait_with_output().expect("kiln runs")
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
        let output = run_fixture(&root, file, &source);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let actual: Vec<String> = stdout.lines().map(str::to_string).collect();
        let error_ok = match &expected.error {
            Some(text) => {
                !output.status.success()
                    && (stderr.contains(text.as_str())
                        || is_agent_fixture(file) && stdout.contains(text.as_str()))
            }
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
