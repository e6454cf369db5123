//! `measure::run_through` on real processes, with the kiln-bench binary as the launcher,
//! from a test process that has first raised its own peak RSS past 64 MiB, as
//! kiln-bench's is raised (to about 25 MB) by reading the suites before it measures.

use kiln_bench::measure::{self, Sample};
use std::path::Path;
use std::process::Command;
use std::sync::Once;
use std::time::{Duration, Instant};

const MIB: u64 = 1024; // in KiB, ru_maxrss's unit

fn run(command: Command, timeout: Duration) -> std::io::Result<Sample> {
    static RAISE_OUR_PEAK: Once = Once::new();
    RAISE_OUR_PEAK.call_once(|| {
        let touched = vec![1u8; 80 << 20];
        std::hint::black_box(&touched);
    });
    assert!(
        peak_rss_kb() > 64 * MIB,
        "the test process's own peak RSS should be above 64 MiB"
    );
    measure::run_through(
        Path::new(env!("CARGO_BIN_EXE_kiln-bench")),
        command,
        timeout,
    )
}

/// VmHWM of this process, in KiB.
fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn command(program: &str, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command.args(args);
    command
}

fn sh(script: &str) -> Command {
    command("sh", &["-c", script])
}

#[test]
fn a_small_program_is_not_floored_at_the_measuring_process_peak() {
    let sample = run(Command::new("true"), Duration::from_secs(10)).unwrap();
    assert_eq!(sample.outcome, Ok(()));
    assert!(
        sample.max_rss_kb > 0 && sample.max_rss_kb < 8 * MIB,
        "`true` measured at {} KiB",
        sample.max_rss_kb
    );
}

#[test]
fn a_program_that_touches_64_mib_measures_at_least_that() {
    // dd reads 64 MiB of zeros into one buffer, touching every page of it.
    let dd = command("dd", &["if=/dev/zero", "of=/dev/null", "bs=64M", "count=1"]);
    let sample = run(dd, Duration::from_secs(30)).unwrap();
    assert_eq!(sample.outcome, Ok(()));
    assert!(
        sample.max_rss_kb >= 64 * MIB && sample.max_rss_kb < 80 * MIB,
        "dd measured at {} KiB",
        sample.max_rss_kb
    );
}

#[test]
fn output_exit_status_and_first_error_line() {
    let sample = run(
        sh("echo hello; echo 'something went wrong' >&2; exit 3"),
        Duration::from_secs(10),
    )
    .unwrap();
    assert_eq!(measure::checksum(&sample.stdout), "hello");
    assert_eq!(sample.outcome, Err("exit 3: something went wrong".into()));
    assert!(sample.wall_ms > 0.0 && sample.max_rss_kb > 0);
}

#[test]
fn a_signal_is_reported() {
    let sample = run(sh("kill -SEGV $$"), Duration::from_secs(10)).unwrap();
    assert!(
        sample
            .outcome
            .as_ref()
            .unwrap_err()
            .starts_with("killed by signal 11"),
        "{:?}",
        sample.outcome
    );
}

#[test]
fn environment_and_working_directory_are_the_command_s() {
    let mut script = sh("echo \"$KILN_BENCH_MEASURE_TEST\"; pwd");
    script
        .env("KILN_BENCH_MEASURE_TEST", "set for the engine")
        .current_dir("/");
    let sample = run(script, Duration::from_secs(10)).unwrap();
    assert_eq!(sample.outcome, Ok(()));
    assert_eq!(measure::checksum(&sample.stdout), "set for the engine\n/");
}

#[test]
fn the_engine_gets_the_default_sigpipe_disposition() {
    // Rust programs, the launcher among them, ignore SIGPIPE, and exec keeps an
    // ignored signal ignored; `Command` restores the default for what it starts.
    let sample = run(
        command("grep", &["SigIgn", "/proc/self/status"]),
        Duration::from_secs(10),
    )
    .unwrap();
    let mask = sample.stdout.trim().trim_start_matches("SigIgn:").trim();
    let ignored = u64::from_str_radix(mask, 16).unwrap();
    assert_eq!(ignored & (1 << (libc::SIGPIPE - 1)), 0, "SigIgn: {mask}");
}

#[test]
fn a_program_that_cannot_be_started_is_an_error() {
    let error = run(
        Command::new("/nonexistent/kiln-bench-engine"),
        Duration::from_secs(10),
    )
    .unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
}

#[test]
fn a_timeout_kills_the_engine_promptly() {
    let start = Instant::now();
    // The shell prints its pid, then becomes `sleep` under the same pid.
    let sample = run(sh("echo $$; exec sleep 30"), Duration::from_millis(200)).unwrap();
    let elapsed = start.elapsed();
    assert_eq!(sample.outcome, Err("timed out after 200 ms".into()));
    assert!(
        elapsed < Duration::from_secs(3),
        "returned after {elapsed:?}"
    );
    let pid: u32 = sample.stdout.trim().parse().unwrap();
    let alive = std::fs::read_to_string(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|cmdline| cmdline.starts_with("sleep"));
    assert!(!alive, "sleep (pid {pid}) still runs after the timeout");
}
