//! `kiln sandbox --heap-mb N` bounds the process: programs that try to grow memory in
//! different ways run in a child process, which must end with the `HeapLimit`
//! termination (or another budget) having never held more than the limit plus the fixed
//! overhead `docs/sandbox.md` documents. The peak is the child's own `ru_maxrss`, read
//! when it is reaped (`wait4`), so nothing is sampled and nothing is missed.

use std::io::Read;
use std::process::{Command, Stdio};

/// The heap limit the programs run under.
const HEAP_MB: u64 = 64;

/// What the process may hold beyond the heap limit: the binary, the allocator's slack,
/// the intrinsics and the stacks (`docs/sandbox.md`, "Memory").
const OVERHEAD_MB: u64 = 32;

/// Run `script` under `kiln sandbox` with the heap limit and `budget` (more options);
/// its first output line and its peak resident memory in KiB.
fn run(name: &str, script: &str, budget: &[&str]) -> (String, u64) {
    let dir = std::env::temp_dir().join(format!("kiln-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.js"));
    std::fs::write(&path, script).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .arg("sandbox")
        .arg(&path)
        .args(["--heap-mb", &HEAP_MB.to_string()])
        .args(budget)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data, so all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `status` and `usage` are valid for writes; `pid` is our unreaped child, and
    // `child` is never waited on through std (it is forgotten below).
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    std::mem::forget(child);
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(
        libc::WIFEXITED(status),
        "{name}: the process was killed (status {status:#x}), output {out:?}"
    );
    (
        out.lines().next().unwrap_or_default().to_string(),
        usage.ru_maxrss as u64,
    )
}

#[track_caller]
fn assert_bounded(name: &str, script: &str, expected: &str) {
    let (line, peak_kib) = run(name, script, &["--compute-ms", "60000"]);
    let bound_kib = (HEAP_MB + OVERHEAD_MB) << 10;
    eprintln!("{name}: peak {} MiB, {line}", peak_kib >> 10);
    assert!(
        line.contains(&format!("\"kind\":\"{expected}\"")),
        "{name}: expected {expected}, got {line}"
    );
    assert!(
        peak_kib < bound_kib,
        "{name}: peak resident memory {peak_kib} KiB, over the {bound_kib} KiB bound"
    );
}

#[test]
fn guests_cannot_take_the_process_past_the_heap_limit() {
    let cases = [
        (
            "jobs",
            "function f() { Promise.resolve().then(f); Promise.resolve().then(f); } f();",
        ),
        ("join", r#"new Array(2 ** 32 - 1).join("ab")"#),
        (
            "eval",
            r#"globalThis.pad = "/*" + "x".repeat(60000) + "*/";
            globalThis.depth = 0;
            globalThis.step = function () { depth++; if (depth < 10000) eval(pad + "step()"); };
            step();"#,
        ),
        (
            "eval_loop",
            r#"const pad = "/*" + "x".repeat(60000) + "*/"; for (let i = 0; ; i++) eval(pad + i);"#,
        ),
        ("apply", "Math.max.apply(null, new Array(1e7).fill(1))"),
        (
            "concat",
            r#"let s = ""; for (let i = 0; ; i++) s += "abcdefgh" + i;"#,
        ),
        (
            "stringify",
            r#"const a = [];
            for (let i = 0; i < 1e5; i++) a.push({ k: "v" + i, n: [i, i + 1, { d: "deep" }] });
            for (;;) JSON.stringify([a, a, a, a, a, a, a, a]);"#,
        ),
        (
            "map",
            "const m = new Map(); for (let i = 0; ; i++) m.set(i, i);",
        ),
        (
            "arrays",
            "const keep = []; for (;;) keep.push(new Array(1e6).fill(0));",
        ),
        ("buffer", "new ArrayBuffer(2 ** 31)"),
    ];
    for (name, script) in cases {
        assert_bounded(name, script, "HeapLimit");
    }
}

#[test]
fn jobs_that_only_schedule_jobs_run_in_bounded_memory() {
    // each job schedules one more: nothing is kept, so the fuel budget ends it
    let (line, peak_kib) = run(
        "one_job",
        "let n = 0; function f() { n++; Promise.resolve().then(f); } f();",
        &["--fuel", "100000000"],
    );
    assert!(line.contains("\"kind\":\"OutOfFuel\""), "{line}");
    assert!(peak_kib < (HEAP_MB + OVERHEAD_MB) << 10, "{peak_kib} KiB");
}
