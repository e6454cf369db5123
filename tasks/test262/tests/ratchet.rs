//! The conformance ratchet: runs all of test262 and fails if any scenario
//! listed in `conformance/test262-passing.txt` no longer passes. Scenarios
//! that newly pass are reported, not required; record them with
//! `cargo run --release -p kiln-test262 -- --update`.
//!
//! The other tests here run the runner on a corpus of two tests made on the
//! spot, to show that the ratchet cannot pass vacuously.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[test]
fn no_passing_test262_scenario_regresses() {
    let output = Command::new(env!("CARGO_BIN_EXE_kiln-test262"))
        .output()
        .expect("the runner starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    if let Some(line) = stdout.lines().find(|l| l.starts_with("SKIPPED:")) {
        // past the test harness's capture, so a skipped run is seen in `cargo test`
        let _ = writeln!(std::io::stderr(), "kiln-test262: {line}");
    }
    assert!(
        output.status.success(),
        "test262 ratchet failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A corpus with the two harness files every test includes and two passing tests,
/// and a passing list naming their four scenarios.
struct TinyCorpus {
    dir: PathBuf,
}

impl TinyCorpus {
    fn new(name: &str) -> TinyCorpus {
        let dir = std::env::temp_dir().join(format!("kiln-ratchet-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let write = |path: &str, text: &str| {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "corpus/harness/sta.js",
            "function Test262Error(message) { this.message = message; }",
        );
        write(
            "corpus/harness/assert.js",
            "function assert(v) { if (!v) throw new Test262Error('not true'); }\n\
             assert.sameValue = function (a, b) { if (a !== b) throw new Test262Error(a + ' !== ' + b); };",
        );
        write("corpus/test/one.js", "assert.sameValue(1 + 1, 2);");
        write("corpus/test/two.js", "assert.sameValue('a' + 'b', 'ab');");
        write(
            "passing.txt",
            "test/one.js:sloppy\ntest/one.js:strict\ntest/two.js:sloppy\ntest/two.js:strict\n",
        );
        TinyCorpus { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// Run the ratchet over this corpus with its passing list.
    fn run(&self) -> Output {
        ratchet(&[
            ("KILN_TEST262_DIR", self.path("corpus").as_os_str()),
            ("CI", "true".as_ref()),
        ])
        .arg("--passing-list")
        .arg(self.path("passing.txt"))
        .output()
        .expect("the runner starts")
    }
}

impl Drop for TinyCorpus {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn ratchet(env: &[(&str, &std::ffi::OsStr)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kiln-test262"));
    command.env_remove("KILN_TEST262_DIR").env_remove("CI");
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_tiny_corpus_passes_as_listed() {
    let corpus = TinyCorpus::new("passes");
    let output = corpus.run();
    assert!(output.status.success(), "{}", text(&output));
}

#[test]
fn a_listed_scenario_whose_file_is_removed_fails_the_ratchet() {
    let corpus = TinyCorpus::new("removed");
    std::fs::remove_file(corpus.path("corpus/test/two.js")).unwrap();
    let output = corpus.run();
    let text = text(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("2 scenarios listed as passing now fail"),
        "{text}"
    );
    assert!(
        text.contains("test/two.js:sloppy: not found in the corpus (removed or renamed)"),
        "{text}"
    );
}

#[test]
fn a_listed_scenario_that_fails_fails_the_ratchet() {
    let corpus = TinyCorpus::new("fails");
    std::fs::write(corpus.path("corpus/test/one.js"), "assert.sameValue(1, 2);").unwrap();
    let output = corpus.run();
    let text = text(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("test/one.js:strict: "), "{text}");
}

#[test]
fn an_empty_or_missing_passing_list_fails_the_ratchet() {
    let corpus = TinyCorpus::new("empty-list");
    std::fs::write(corpus.path("passing.txt"), "\n").unwrap();
    let output = corpus.run();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("is empty"), "{}", text(&output));
    std::fs::remove_file(corpus.path("passing.txt")).unwrap();
    let output = corpus.run();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("cannot read the passing list"),
        "{}",
        text(&output)
    );
}

#[test]
fn a_missing_corpus_fails_under_ci_and_is_skipped_loudly_elsewhere() {
    let nowhere = Path::new("/nonexistent/test262-missing.tar.gz");
    let in_ci = ratchet(&[("CI", "true".as_ref())])
        .arg("--archive")
        .arg(nowhere)
        .output()
        .expect("the runner starts");
    assert_eq!(in_ci.status.code(), Some(2), "{}", text(&in_ci));
    assert!(
        text(&in_ci).contains("the test262 archive is missing"),
        "{}",
        text(&in_ci)
    );
    let outside = ratchet(&[])
        .arg("--archive")
        .arg(nowhere)
        .output()
        .expect("the runner starts");
    assert!(outside.status.success(), "{}", text(&outside));
    assert!(
        String::from_utf8_lossy(&outside.stdout).contains("SKIPPED: test262 did not run"),
        "{}",
        text(&outside)
    );
}
