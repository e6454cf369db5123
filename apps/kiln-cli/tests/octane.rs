//! Runs each Octane benchmark from `../shared/bench/octane/` unmodified
//! (`base.js`, the benchmark, then `tests/octane/run-suite.js`) and checks that
//! it completes with its own result validation passing.

use std::path::Path;
use std::process::Command;

fn run_benchmark(file: &str, name: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let octane = root.join("../shared/bench/octane");
    assert!(
        octane.join("base.js").exists(),
        "the Octane programs are expected in {}",
        octane.display()
    );
    let output = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .arg("run")
        .arg(octane.join("base.js"))
        .arg(octane.join(file))
        .arg(root.join("tests/octane/run-suite.js"))
        .output()
        .expect("kiln runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{file} failed:\n{stdout}\n{stderr}"
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("{name}: ")))
        .unwrap_or_default();
    let score: f64 = line
        .rsplit(' ')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    assert!(score > 0.0, "{file} printed no score:\n{stdout}");
}

#[test]
fn richards() {
    run_benchmark("richards.js", "Richards");
}

#[test]
fn deltablue() {
    run_benchmark("deltablue.js", "DeltaBlue");
}

#[test]
fn crypto() {
    run_benchmark("crypto.js", "Crypto");
}

#[test]
fn raytrace() {
    run_benchmark("raytrace.js", "RayTrace");
}

#[test]
fn navier_stokes() {
    run_benchmark("navier-stokes.js", "NavierStokes");
}

#[test]
fn splay() {
    run_benchmark("splay.js", "Splay");
}
