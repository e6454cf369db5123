//! The conformance ratchet: runs all of test262 and fails if any scenario
//! listed in `conformance/test262-passing.txt` no longer passes. Scenarios
//! that newly pass are reported, not required; record them with
//! `cargo run --release -p kiln-test262 -- --update`.

use std::process::Command;

#[test]
fn no_passing_test262_scenario_regresses() {
    let output = Command::new(env!("CARGO_BIN_EXE_kiln-test262"))
        .output()
        .expect("the runner starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "test262 ratchet failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
