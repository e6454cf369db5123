//! The launcher every measured engine is started through: kiln-bench itself, executed
//! afresh as `kiln-bench __launch REPORT -- PROGRAM ARGS...`. It forks, the child execs
//! PROGRAM (standard streams, environment and working directory inherited), and once
//! the child has exited the launcher writes the child's figures to REPORT in one line.
//!
//! Why a separate process: on Linux a child's `ru_maxrss` starts where the address
//! space it was made from left off. At exec the kernel folds the old address space's
//! high-water mark into the process's `maxrss`, and Rust's `Command` spawns with
//! `CLONE_VM | CLONE_VFORK`, so that old address space was kiln-bench's own, whose peak
//! is about 25 MB during a run: every engine with a smaller peak read as 25 MB. A plain
//! fork from kiln-bench would start the copy's high-water mark at the pages it copies
//! (kiln-bench's anonymous memory at that moment, a few MB, varying over a run). The
//! launcher is an image of kiln-bench that has done nothing yet, whose fork copies a
//! few hundred KiB, so an engine's figure is its own.
//!
//! Report line: `ok WALL_NS MAX_RSS_KB USER_US SYSTEM_US WAIT_STATUS` once the child has
//! been reaped (the wall time runs from fork to reap, so the launcher's own start-up is
//! not counted), or `spawn-error ERRNO` when the fork or the exec failed.
//!
//! SIGTERM to the launcher kills the child with SIGKILL (and the report says so); the
//! child is also killed if the launcher dies first (`PR_SET_PDEATHSIG`).

use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStringExt;
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Instant;

/// The first argument that makes kiln-bench run as the launcher.
pub const ARG: &str = "__launch";

/// The child's pid once forked, for the SIGTERM handler; 0 before.
static CHILD: AtomicI32 = AtomicI32::new(0);

/// What the launcher learnt about its child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    Exited {
        wall_ns: u64,
        max_rss_kb: u64,
        user_us: u64,
        system_us: u64,
        /// as `waitpid` gives it: decode with `libc::WIFEXITED` and friends
        wait_status: i32,
    },
    /// errno of the fork or exec that failed
    SpawnError(i32),
}

impl Report {
    pub fn to_line(self) -> String {
        match self {
            Report::Exited {
                wall_ns,
                max_rss_kb,
                user_us,
                system_us,
                wait_status,
            } => format!("ok {wall_ns} {max_rss_kb} {user_us} {system_us} {wait_status}\n"),
            Report::SpawnError(errno) => format!("spawn-error {errno}\n"),
        }
    }

    pub fn parse(line: &str) -> Option<Report> {
        let mut words = line.split_whitespace();
        let report = match words.next()? {
            "ok" => Report::Exited {
                wall_ns: words.next()?.parse().ok()?,
                max_rss_kb: words.next()?.parse().ok()?,
                user_us: words.next()?.parse().ok()?,
                system_us: words.next()?.parse().ok()?,
                wait_status: words.next()?.parse().ok()?,
            },
            "spawn-error" => Report::SpawnError(words.next()?.parse().ok()?),
            _ => return None,
        };
        words.next().is_none().then_some(report)
    }
}

/// Runs the launcher on the arguments after [`ARG`]; exits as the child did (128 + N
/// when signal N killed it, 127 when it could not be started, 2 on a usage error).
pub fn main(mut args: impl Iterator<Item = OsString>) -> ExitCode {
    let (Some(report_path), Some(separator)) = (args.next(), args.next()) else {
        return usage();
    };
    if separator != "--" {
        return usage();
    }
    let Ok(argv) = args
        .map(|a| CString::new(a.into_vec()))
        .collect::<Result<Vec<CString>, _>>()
    else {
        eprintln!("kiln-bench {ARG}: an argument contains a NUL byte");
        return ExitCode::from(2);
    };
    if argv.is_empty() {
        return usage();
    }
    let report = launch(&argv);
    if let Err(e) = std::fs::write(&report_path, report.to_line()) {
        eprintln!(
            "kiln-bench {ARG}: cannot write {}: {e}",
            report_path.to_string_lossy()
        );
        return ExitCode::from(2);
    }
    ExitCode::from(match report {
        Report::Exited { wait_status, .. } if libc::WIFEXITED(wait_status) => {
            libc::WEXITSTATUS(wait_status) as u8
        }
        Report::Exited { wait_status, .. } => (128 + libc::WTERMSIG(wait_status)) as u8,
        Report::SpawnError(_) => 127,
    })
}

fn usage() -> ExitCode {
    eprintln!("usage: kiln-bench {ARG} REPORT -- PROGRAM [ARGS...]");
    ExitCode::from(2)
}

/// Forks, execs `argv` in the child, waits for it and measures it.
fn launch(argv: &[CString]) -> Report {
    // Everything the child touches between fork and exec is made here: it may only make
    // async-signal-safe calls.
    let mut pointers: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    pointers.push(std::ptr::null());
    let launcher_pid = std::process::id() as libc::pid_t;

    // The child reports a failed exec through this pipe; a successful exec closes it.
    let mut pipe = [0 as libc::c_int; 2];
    // SAFETY: `pipe` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Report::SpawnError(errno());
    }
    let [read_end, write_end] = pipe;

    // SIGTERM stays blocked until CHILD holds the child's pid, so the handler never
    // misses the child it has to kill.
    // SAFETY: sigset_t is plain old data; sigemptyset initialises it.
    let mut term: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let mut old_mask: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: sigaction is plain old data; the fields that matter are set below.
    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
    action.sa_sigaction = on_sigterm as extern "C" fn(libc::c_int) as libc::sighandler_t;
    action.sa_flags = libc::SA_RESTART;
    // SAFETY: the pointers are to live locals; `on_sigterm` only makes
    // async-signal-safe calls.
    unsafe {
        libc::sigemptyset(&mut term);
        libc::sigaddset(&mut term, libc::SIGTERM);
        libc::sigprocmask(libc::SIG_BLOCK, &term, &mut old_mask);
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }

    let start = Instant::now();
    // SAFETY: the launcher is single-threaded, and the child only makes
    // async-signal-safe calls before it execs or exits.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: in the child: every call is async-signal-safe and every pointer is to
        // memory made before the fork (`pointers` ends in a null pointer).
        unsafe {
            // The engine dies with the launcher; if the launcher is already gone,
            // don't start it.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != launcher_pid {
                libc::_exit(127);
            }
            // Rust ignores SIGPIPE and an ignored signal stays ignored across exec:
            // give the engine the default, as `Command` does.
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            libc::sigprocmask(libc::SIG_SETMASK, &old_mask, std::ptr::null_mut());
            libc::execvp(pointers[0], pointers.as_ptr());
            let code = errno().to_ne_bytes();
            libc::write(write_end, code.as_ptr().cast(), code.len());
            libc::_exit(127);
        }
    }
    let fork_error = (pid < 0).then(errno);
    CHILD.store(pid.max(0), Ordering::SeqCst);
    // SAFETY: restores the mask saved above (a pending SIGTERM is handled now, with CHILD
    // set); closes our copy of the write end, which the child still holds until it
    // execs or exits.
    unsafe {
        libc::sigprocmask(libc::SIG_SETMASK, &old_mask, std::ptr::null_mut());
        libc::close(write_end);
    }
    if let Some(errno) = fork_error {
        // SAFETY: closes the read end, which nothing else uses.
        unsafe { libc::close(read_end) };
        return Report::SpawnError(errno);
    }

    let mut exec_error = [0u8; 4];
    let mut got = 0;
    while got < exec_error.len() {
        // SAFETY: the buffer has `len - got` bytes of room after `got`.
        let n = unsafe {
            libc::read(
                read_end,
                exec_error[got..].as_mut_ptr().cast(),
                exec_error.len() - got,
            )
        };
        match n {
            0 => break,
            n if n > 0 => got += n as usize,
            _ if errno() == libc::EINTR => {}
            _ => break,
        }
    }
    // SAFETY: closes the read end, which nothing else uses.
    unsafe { libc::close(read_end) };

    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data, so all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `usage` are valid for writes; `pid` is our unreaped child.
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if reaped == pid {
            break;
        }
        if errno() != libc::EINTR {
            return Report::SpawnError(errno());
        }
    }
    let wall = start.elapsed();
    if got == exec_error.len() {
        return Report::SpawnError(i32::from_ne_bytes(exec_error));
    }
    Report::Exited {
        wall_ns: wall.as_nanos() as u64,
        max_rss_kb: usage.ru_maxrss.max(0) as u64,
        user_us: timeval_us(usage.ru_utime),
        system_us: timeval_us(usage.ru_stime),
        wait_status: status,
    }
}

/// SIGTERM: kill the child, whose exit the main path then reports.
extern "C" fn on_sigterm(_: libc::c_int) {
    let pid = CHILD.load(Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill is async-signal-safe; the child is unreaped until wait4 returns in
        // the main path, so `pid` still names it.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn timeval_us(t: libc::timeval) -> u64 {
    (t.tv_sec.max(0) as u64) * 1_000_000 + t.tv_usec.max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lines_round_trip() {
        let exited = Report::Exited {
            wall_ns: 1_500_000,
            max_rss_kb: 1320,
            user_us: 700,
            system_us: 300,
            wait_status: 9,
        };
        assert_eq!(exited.to_line(), "ok 1500000 1320 700 300 9\n");
        assert_eq!(Report::parse(&exited.to_line()), Some(exited));
        assert_eq!(
            Report::parse("spawn-error 2\n"),
            Some(Report::SpawnError(2))
        );
        assert_eq!(Report::parse(""), None);
        assert_eq!(Report::parse("ok 1 2 3"), None);
        assert_eq!(Report::parse("ok 1 2 3 4 5 6"), None);
    }
}
