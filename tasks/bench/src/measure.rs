//! One timed run of one engine on one script, as a whole process: wall time from
//! spawn to exit, peak resident set size from `wait4`'s rusage, and the output.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// Runs `command` to completion (killing it after `timeout`) and measures it.
pub fn run(mut command: Command, timeout: Duration) -> std::io::Result<Sample> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = command.spawn()?;
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

    let done = Arc::new(AtomicBool::new(false));
    let timed_out = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (done, timed_out) = (done.clone(), timed_out.clone());
        std::thread::spawn(move || {
            let deadline = Instant::now() + timeout;
            while Instant::now() < deadline {
                if done.load(Ordering::Acquire) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if !done.load(Ordering::Acquire) {
                timed_out.store(true, Ordering::Release);
                // SAFETY: kill has no memory-safety preconditions; the child is not yet
                // reaped (`done` is false), so `pid` still names it.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        })
    };

    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data, so all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `status` and `usage` are valid for writes; `pid` is our unreaped child,
    // and `child` is never waited on through std (it is forgotten below).
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    done.store(true, Ordering::Release);
    std::mem::forget(child);
    let _ = watchdog.join();
    if reaped != pid {
        return Err(std::io::Error::last_os_error());
    }
    let stdout = String::from_utf8_lossy(&stdout_reader.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&stderr_reader.join().unwrap_or_default()).into_owned();

    let outcome = if timed_out.load(Ordering::Acquire) {
        Err(format!("timed out after {} s", timeout.as_secs()))
    } else if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        Ok(())
    } else if libc::WIFEXITED(status) {
        Err(format!(
            "exit {}: {}",
            libc::WEXITSTATUS(status),
            first_error_line(&stderr, &stdout)
        ))
    } else {
        Err(format!(
            "killed by signal {}: {}",
            libc::WTERMSIG(status),
            first_error_line(&stderr, &stdout)
        ))
    };
    Ok(Sample {
        wall_ms: wall.as_secs_f64() * 1000.0,
        cpu_ms: timeval_ms(usage.ru_utime) + timeval_ms(usage.ru_stime),
        max_rss_kb: usage.ru_maxrss.max(0) as u64,
        stdout,
        outcome,
    })
}

fn timeval_ms(t: libc::timeval) -> f64 {
    t.tv_sec as f64 * 1000.0 + t.tv_usec as f64 / 1000.0
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

    #[test]
    fn measures_a_real_process() {
        let mut command = Command::new("sh");
        command.args(["-c", "echo hello; exit 3"]);
        let sample = run(command, Duration::from_secs(10)).unwrap();
        assert_eq!(checksum(&sample.stdout), "hello");
        assert!(sample.outcome.unwrap_err().starts_with("exit 3"));
        assert!(sample.max_rss_kb > 0);
    }
}
