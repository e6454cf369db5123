//! `kiln sandbox`: the JSON-lines driver, end to end through the binary.

use std::io::Write;
use std::process::{Command, Stdio};

fn sandbox(script: &str, args: &[&str], input: &str) -> (String, i32) {
    let dir = std::env::temp_dir().join(format!("kiln-sandbox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{:x}.js", script.len() * 31 + args.len()));
    std::fs::write(&path, script).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .arg("sandbox")
        .arg(&path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

#[test]
fn parallel_calls_are_answered_line_by_line() {
    let script = "(async () => {
        const [a, b] = await Promise.all([tools.a(1), tools.b('x')]);
        return { sum: a + b.n };
    })()";
    let input = "{\"id\":2,\"ok\":{\"n\":40}}\n{\"id\":1,\"ok\":2}\n";
    let (out, code) = sandbox(
        script,
        &["--capability", "tools.a", "--capability", "tools.b"],
        input,
    );
    assert_eq!(
        out,
        concat!(
            r#"{"type":"suspended","calls":[{"id":1,"capability":"tools.a","args":[1]},{"id":2,"capability":"tools.b","args":["x"]}]}"#,
            "\n",
            r#"{"type":"suspended","calls":[{"id":1,"capability":"tools.a","args":[1]}]}"#,
            "\n",
            r#"{"type":"complete","value":{"sum":42}}"#,
            "\n"
        )
    );
    assert_eq!(code, 0);
}

#[test]
fn host_errors_reach_the_guest() {
    let script = "t().catch(e => [e.name, e.message, e.code, e.details])";
    let input = r#"{"id":1,"error":{"name":"ToolError","message":"quota","code":"E_QUOTA","details":{"retry":5}}}"#;
    let (out, code) = sandbox(script, &["--capability", "t"], input);
    assert_eq!(
        out.lines().last().unwrap(),
        r#"{"type":"complete","value":["ToolError","quota","E_QUOTA",{"retry":5}]}"#
    );
    assert_eq!(code, 0);
}

#[test]
fn budgets_end_the_run_with_their_kind() {
    let (out, code) = sandbox("for (;;) {}", &["--fuel", "100000"], "");
    assert_eq!(
        out,
        "{\"type\":\"error\",\"kind\":\"OutOfFuel\",\"message\":\"RangeError: fuel budget exhausted\"}\n"
    );
    assert_eq!(code, 1);
}

#[test]
fn the_guest_has_no_shell_globals() {
    let (out, code) = sandbox("[typeof print, typeof console]", &[], "");
    assert_eq!(
        out,
        "{\"type\":\"complete\",\"value\":[\"undefined\",\"undefined\"]}\n"
    );
    assert_eq!(code, 0);
}

#[test]
fn a_snapshot_continues_in_a_second_sandbox_process() {
    let dir = std::env::temp_dir().join(format!("kiln-sandbox-snap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let snapshot = dir.join("run.snapshot");
    let key = dir.join("key");
    std::fs::write(&key, "secret").unwrap();
    let key_arg = key.display().to_string();
    let script = "(async () => {
        const seen = [];
        for (const q of ['a', 'b']) seen.push(await tools.ask(q));
        return seen.join('+');
    })()";
    let caps = ["--capability", "tools.ask", "--key-file", &key_arg];
    let input = format!(
        "{{\"id\":1,\"ok\":\"one\"}}\n{{\"snapshot\":{:?}}}\n",
        snapshot.display().to_string()
    );
    let (out, code) = sandbox(script, &caps, &input);
    assert_eq!(code, 0, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[2].starts_with(r#"{"type":"snapshot","file":"#),
        "{out}"
    );

    let resumed = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .arg("sandbox")
        .arg(&snapshot)
        .arg("--restore")
        .args(caps)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut resumed = resumed;
    resumed
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"id\":2,\"ok\":\"two\"}\n")
        .unwrap();
    let out = resumed.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        concat!(
            r#"{"type":"suspended","calls":[{"id":2,"capability":"tools.ask","args":["b"]}]}"#,
            "\n",
            r#"{"type":"complete","value":"one+two"}"#,
            "\n"
        )
    );
    // the wrong key is refused
    std::fs::write(&key, "other").unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .arg("sandbox")
        .arg(&snapshot)
        .arg("--restore")
        .args(caps)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8(refused.stdout)
            .unwrap()
            .contains("does not verify with this key")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn property_order_survives_both_directions() {
    let script = "const r = await tools.get();
                  return { keys: Object.keys(r).join(), zeta: 1, alpha: 2, ...r };";
    let input = "{\"id\":1,\"ok\":{\"name\":\"kiln\",\"id\":7,\"b\":1,\"a\":2}}\n";
    let (out, code) = sandbox(script, &["--capability", "tools.get"], input);
    assert_eq!(
        out.lines().last().unwrap(),
        r#"{"type":"complete","value":{"keys":"name,id,b,a","zeta":1,"alpha":2,"name":"kiln","id":7,"b":1,"a":2}}"#
    );
    assert_eq!(code, 0);
}
