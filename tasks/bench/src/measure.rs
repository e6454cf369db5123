//! One timed run of one engine on one script, as a whole process: wall time from
//! fork to exit, peak resident set size and CPU time from `wait4`'s rusage, and the
//! output. Each engine is started through the launcher (`launch.rs`: kiln-bench itself,
//! executed afresh), which forks and execs it and reports those figures; started
//! straight from kiln-bench, an engine's peak RSS could never read below kiln-bench's
//! own.

use crate::launch::{self, Report};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What one process run produced.
#[derive(Debug, Clone)]
pub struct Sample {
    pub wall_ms: f64,
    /// user + system CPU time of the child (all its threads)
    pub cpu_ms: f64,
    /// peak resident set size of the child, in KiB (`ru_maxrss`)
    pub max_rss_kb: u64,
    pub stdout: String,
    /// `Ok(())` on exit status 0; otherwise why it failed
    pub outcome: Result<(), String>,
}

/// How long a launcher that was asked to stop (SIGTERM) gets before it is killed.
const GRACE: Duration = Duration::from_secs(2);

/// Runs `command` (its program, arguments, environment changes and working directory)
/// to completion through the launcher, killing it after `timeout`, and measures it.
/// Only kiln-bench itself can call this: it is its own launcher.
pub fn run(command: Command, timeout: Duration) -> std::io::Result<Sample> {
    run_through(&launcher_path(), command, timeout)
}

/// [`run`] with the kiln-bench executable at `launcher_path` as the launcher.
pub fn run_through(
    launcher_path: &Path,
    command: Command,
    timeout: Duration,
) -> std::io::Result<Sample> {
    let launcher_name = || format!("{} (kiln-bench)", launcher_path.display());
    let report_path = report_path();
    let _ = std::fs::remove_file(&report_path);
    let mut launcher = Command::new(launcher_path);
    launcher
        .arg(launch::ARG)
        .arg(&report_path)
        .arg("--")
        .arg(command.get_program())
        .args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => launcher.env(key, value),
            None => launcher.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        launcher.current_dir(dir);
    }
    launcher
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = launcher.spawn().map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot start the launcher {}: {e}", launcher_name()),
        )
    })?;
    let pid = child.id() as libc::pid_t;
    let mut stdout_pipe = child.stdout.take().expect("piped stdout");
    let mut stderr_pipe = child.stderr.take().expect("piped stderr");
    let stdout_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout_pipe.read_to_end(&mut buf);
        buf
    });
    let stderr_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr_pipe.read_to_end(&mut buf);
        buf
    });

    // The watchdog asks the launcher to kill the engine once `timeout` has passed, and
    // kills the launcher itself if it has not exited `GRACE` later (the engine then dies
    // with it). It stops when `exited` is dropped.
    let (exited, exit_seen) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if exit_seen.recv_timeout(timeout) != Err(mpsc::RecvTimeoutError::Timeout) {
            return false;
        }
        // SAFETY: kill has no memory-safety preconditions; the launcher is not reaped
        // before this thread is joined (it is waited on with WNOWAIT until then), so
        // `pid` still names it.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        if exit_seen.recv_timeout(GRACE) == Err(mpsc::RecvTimeoutError::Timeout) {
            // SAFETY: as above.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        true
    });

    // Wait for the launcher to exit without reaping it, so that its pid cannot be
    // reused while the watchdog may still signal it.
    loop {
        // SAFETY: siginfo_t is plain old data, so all-zero bytes are a valid value.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is valid for writes; `pid` is our unreaped child.
        let waited = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if waited == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
        {
            break;
        }
    }
    let launcher_wall = start.elapsed();
    drop(exited);
    let timed_out = watchdog.join().unwrap_or(false);
    let launcher_status = child.wait()?;
    let stdout = String::from_utf8_lossy(&stdout_reader.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&stderr_reader.join().unwrap_or_default()).into_owned();
    let report = std::fs::read_to_string(&report_path)
        .ok()
        .and_then(|line| Report::parse(&line));
    let _ = std::fs::remove_file(&report_path);

    let timeout_message = || format!("timed out after {}", seconds(timeout));
    let (wall_ns, max_rss_kb, cpu_us, wait_status) = match report {
        Some(Report::Exited {
            wall_ns,
            max_rss_kb,
            user_us,
            system_us,
            wait_status,
        }) => (wall_ns, max_rss_kb, user_us + system_us, wait_status),
        Some(Report::SpawnError(errno)) => {
            return Err(std::io::Error::from_raw_os_error(errno));
        }
        // The launcher was killed before it could report (only after a timeout).
        None if timed_out => {
            return Ok(Sample {
                wall_ms: launcher_wall.as_secs_f64() * 1000.0,
                cpu_ms: 0.0,
                max_rss_kb: 0,
                stdout,
                outcome: Err(timeout_message()),
            });
        }
        None => {
            return Err(std::io::Error::other(format!(
                "the launcher {} wrote no report ({launcher_status}): {}",
                launcher_name(),
                first_error_line(&stderr, "")
            )));
        }
    };

    let outcome = if timed_out {
        Err(timeout_message())
    } else if libc::WIFEXITED(wait_status) && libc::WEXITSTATUS(wait_status) == 0 {
        Ok(())
    } else if libc::WIFEXITED(wait_status) {
        Err(format!(
            "exit {}: {}",
            libc::WEXITSTATUS(wait_status),
            first_error_line(&stderr, &stdout)
        ))
    } else {
        Err(format!(
            "killed by signal {}: {}",
            libc::WTERMSIG(wait_status),
            first_error_line(&stderr, &stdout)
        ))
    };
    Ok(Sample {
        wall_ms: wall_ns as f64 / 1e6,
        cpu_ms: cpu_us as f64 / 1000.0,
        max_rss_kb,
        stdout,
        outcome,
    })
}

/// kiln-bench's own executable, which runs as the launcher when its first argument is
/// [`launch::ARG`]. On Linux, `/proc/self/exe` names the running image even after a
/// rebuild has replaced the file it was started from.
fn launcher_path() -> PathBuf {
    if cfg!(target_os = "linux") {
        PathBuf::from("/proc/self/exe")
    } else {
        std::env::current_exe().unwrap_or_else(|_| PathBuf::from("kiln-bench"))
    }
}

/// A file of its own for each run's report, in the temporary directory.
fn report_path() -> PathBuf {
    static RUNS: AtomicU64 = AtomicU64::new(0);
    std::env::temp_dir().join(format!(
        "kiln-bench-{}-{}.report",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ))
}

/// `2 s`, `200 ms`.
fn seconds(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// The line most likely to say what went wrong: the last stderr line that names an
/// error, else the last non-empty stderr line, else the last stdout line.
fn first_error_line(stderr: &str, stdout: &str) -> String {
    // Lines of a few characters ("Error:" before a backtrace) say nothing.
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| l.len() > 8)
        .collect();
    let pick = lines
        .iter()
        .find(|l| l.contains("Error") || l.contains("error") || l.contains("not yet supported"))
        .or(lines.last())
        .copied()
        .or_else(|| stdout.lines().rev().find(|l| !l.trim().is_empty()))
        .unwrap_or("");
    let mut text: String = pick.chars().take(160).collect();
    if pick.chars().count() > 160 {
        text.push('…');
    }
    text
}

/// The checksum of a run: its stdout with line endings and trailing blanks normalised.
pub fn checksum(stdout: &str) -> String {
    stdout
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// How a peer's checksum compares with Kiln's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agreement {
    Same,
    Different,
    /// Kiln produced no checksum to compare with (it failed)
    NoReference,
}

pub fn compare(kiln: Option<&str>, peer: &str) -> Agreement {
    match kiln {
        None => Agreement::NoReference,
        Some(k) if checksum(k) == checksum(peer) => Agreement::Same,
        Some(_) => Agreement::Different,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_ignores_line_endings_and_trailing_blanks() {
        assert_eq!(checksum("123\r\n"), "123");
        assert_eq!(checksum("a  \nb\n\n"), "a\nb");
        assert_eq!(checksum("  x"), "x");
    }

    #[test]
    fn compare_against_kiln() {
        assert_eq!(compare(Some("42\n"), "42"), Agreement::Same);
        assert_eq!(compare(Some("42\n"), "43\n"), Agreement::Different);
        assert_eq!(compare(Some("a\nb"), "a\r\nb\r\n"), Agreement::Same);
        assert_eq!(compare(Some("a\nb"), "a\nb\nc"), Agreement::Different);
        assert_eq!(compare(None, "42"), Agreement::NoReference);
    }

    #[test]
    fn error_line_prefers_the_error() {
        let stderr = "at foo (x.js:1)\nTypeError: boom\n  at bar\n";
        assert_eq!(first_error_line(stderr, ""), "TypeError: boom");
        assert_eq!(first_error_line("", "last\n"), "last");
        let boa = "Uncaught Error: RuntimeLimitError: too deep\n    at ack\nError: \n   0: execution failed\n";
        assert_eq!(
            first_error_line(boa, ""),
            "Uncaught Error: RuntimeLimitError: too deep"
        );
    }
}
