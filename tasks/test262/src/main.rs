//! `kiln-test262`: run test262 against Kiln.
//!
//! ```text
//! kiln-test262                      run everything; fail if a listed passing scenario fails
//! kiln-test262 --update             ... and rewrite the passing list and scoreboard
//! kiln-test262 --filter Array/from  only tests whose path contains the text (repeatable)
//! kiln-test262 --feature Symbol     only tests that use the feature (repeatable)
//! kiln-test262 --sample 8           one test in 8 of those selected, by a hash of its path
//! kiln-test262 --sample 8:3         another eighth (hash remainder 3)
//! kiln-test262 --failures           re-run only the failures of the last run
//! kiln-test262 --show PATH          run one test's scenarios and print each failure message
//! kiln-test262 --passing-list FILE  check (or --update) this list instead of conformance/test262-passing.txt
//! kiln-test262 --archive FILE       unpack the corpus from this archive instead of ../shared/test262/...
//! ```
//!
//! Scenarios run in worker processes (`--worker`), so a crash, a stack
//! overflow or a hang loses one scenario, not the run.
//!
//! The ratchet cannot pass vacuously: on a full run every listed scenario must
//! be found, run and pass (a removed, renamed or skipped one is a failure), the
//! list must be readable and non-empty, and a missing corpus fails the run when
//! the `CI` environment variable is set (elsewhere the run says loudly that it
//! skipped). The corpus is unpacked into `build/test262` with a marker written
//! only after `tar` succeeds, so a partly unpacked corpus is unpacked again.

mod agent;
mod metadata;
mod report;
mod worker;

use report::{Class, Results, Status};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use worker::{Mode, Outcome};

const ARCHIVE: &str = "../shared/test262/test262-be13516f.tar.gz";
/// Written into the unpacked corpus once `tar` has finished; holds the archive's file name.
const UNPACKED_MARKER: &str = ".kiln-unpacked";
/// Each scenario gets this long before its VM is interrupted.
const SCENARIO_SECONDS: u64 = 10;

struct Options {
    update: bool,
    filters: Vec<String>,
    features: Vec<String>,
    failures_only: bool,
    show: Option<String>,
    workers: usize,
    passing_list: PathBuf,
    archive: PathBuf,
    /// (n, k): run only tests whose path hash is k modulo n
    sample: Option<(u64, u64)>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--worker") {
        return worker_main(args.get(1).map(PathBuf::from).unwrap_or_default());
    }
    let repo = repo_root();
    let mut opts = Options {
        update: false,
        filters: Vec::new(),
        features: Vec::new(),
        failures_only: false,
        show: None,
        workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
        passing_list: repo.join("conformance/test262-passing.txt"),
        archive: repo.join(ARCHIVE),
        sample: None,
    };
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--update" => opts.update = true,
            "--filter" => opts.filters.extend(it.next()),
            "--feature" => opts.features.extend(it.next()),
            "--failures" => opts.failures_only = true,
            "--show" => opts.show = it.next(),
            "--passing-list" => {
                if let Some(file) = it.next() {
                    opts.passing_list = PathBuf::from(file);
                }
            }
            "--archive" => {
                if let Some(file) = it.next() {
                    opts.archive = PathBuf::from(file);
                }
            }
            "--sample" => {
                let spec = it.next().unwrap_or_default();
                match parse_sample(&spec) {
                    Some(sample) => opts.sample = Some(sample),
                    None => {
                        eprintln!("kiln-test262: --sample takes N or N:K with K < N, not {spec:?}");
                        return ExitCode::from(2);
                    }
                }
            }
            "--workers" => {
                opts.workers = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(opts.workers)
            }
            other => {
                eprintln!("kiln-test262: unknown argument {other}");
                return ExitCode::from(2);
            }
        }
    }
    let root = match corpus(&repo, &opts.archive) {
        Ok(r) => r,
        Err(Corpus::Missing(what)) if !in_ci() => {
            let banner = "=".repeat(72);
            println!("{banner}\nSKIPPED: test262 did not run: {what}\n{banner}");
            eprintln!("kiln-test262: SKIPPED: {what} (this fails the run when CI is set)");
            return ExitCode::SUCCESS;
        }
        Err(Corpus::Missing(e) | Corpus::Broken(e)) => {
            eprintln!("kiln-test262: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(path) = opts.show.clone() {
        return show(&root, &path);
    }
    run_suite(&repo, &root, &opts)
}

/// `N` or `N:K` (K < N, default 0).
fn parse_sample(spec: &str) -> Option<(u64, u64)> {
    let (n, k) = spec.split_once(':').unwrap_or((spec, "0"));
    let (n, k) = (n.parse::<u64>().ok()?, k.parse::<u64>().ok()?);
    (n > 0 && k < n).then_some((n, k))
}

/// Whether `path` is in the sample: FNV-1a of the path, so the choice does not move when
/// other tests are added or removed.
fn in_sample(path: &str, (n, k): (u64, u64)) -> bool {
    let hash = path.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    hash % n == k
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from("."))
}

/// Why there is no corpus to run.
enum Corpus {
    /// the archive is absent (the run is skipped outside CI)
    Missing(String),
    /// it is present but could not be unpacked or read
    Broken(String),
}

/// Whether this run is a CI run, where nothing may be skipped for want of files.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The unpacked corpus: `KILN_TEST262_DIR`, or `archive` unpacked once into `build/test262`.
fn corpus(repo: &Path, archive: &Path) -> Result<PathBuf, Corpus> {
    if let Some(dir) = std::env::var_os("KILN_TEST262_DIR") {
        let dir = PathBuf::from(dir);
        if !(dir.join("test").is_dir() && dir.join("harness").is_dir()) {
            return Err(Corpus::Broken(format!(
                "KILN_TEST262_DIR={} has no test/ and harness/",
                dir.display()
            )));
        }
        return Ok(dir);
    }
    let dir = repo.join("build/test262");
    let archive_name = archive
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let marker = dir.join(UNPACKED_MARKER);
    if std::fs::read_to_string(&marker).is_ok_and(|m| m.trim() == archive_name) {
        return Ok(dir);
    }
    if !archive.is_file() {
        return Err(Corpus::Missing(format!(
            "the test262 archive is missing: {}",
            archive.display()
        )));
    }
    // No marker: never unpacked, unpacked from another archive, or interrupted.
    let broken = |e: String| Corpus::Broken(e);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| broken(e.to_string()))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| broken(e.to_string()))?;
    eprintln!("unpacking {} into {}", archive.display(), dir.display());
    let status = Command::new("tar")
        .arg("xzf")
        .arg(archive)
        .arg("-C")
        .arg(&dir)
        .status()
        .map_err(|e| broken(format!("cannot run tar: {e}")))?;
    if !status.success() {
        return Err(broken("tar failed to unpack the test262 archive".into()));
    }
    if !(dir.join("test").is_dir() && dir.join("harness").is_dir()) {
        return Err(broken(format!(
            "{} holds no test/ and harness/ directories",
            archive.display()
        )));
    }
    std::fs::write(&marker, &archive_name).map_err(|e| broken(e.to_string()))?;
    Ok(dir)
}

/// One scenario to run: the test path (relative to the corpus) and its mode.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Scenario {
    path: String,
    mode: Mode,
}

impl PartialOrd for Mode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Mode {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

impl Scenario {
    fn id(&self) -> String {
        format!("{}:{}", self.path, self.mode.name())
    }
}

/// Every test file under `test/`, sorted.
fn test_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.join("test")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "js")
                && !p.to_string_lossy().contains("_FIXTURE")
                && let Ok(rel) = p.strip_prefix(root)
            {
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

/// Proposal (not yet stage 4) features from features.txt.
fn proposal_features(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("features.txt")).unwrap_or_default();
    proposals_in(&text)
}

/// The feature names of the "Proposed language features" section. Sections are the
/// `## … features` headings; other `##` lines (links, notes) are comments.
fn proposals_in(features_txt: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_proposals = false;
    for line in features_txt.lines() {
        if line.starts_with("## ") && line.to_ascii_lowercase().ends_with("features") {
            in_proposals = line.contains("Proposed");
            continue;
        }
        let name = line.split('#').next().unwrap_or("").trim();
        if in_proposals && !name.is_empty() {
            out.push(name.to_string());
        }
    }
    out
}

/// The scenarios of a test and, for tests not run, the reason.
fn scenarios_of(root: &Path, path: &str) -> (Vec<Scenario>, Option<String>, metadata::Metadata) {
    let source = std::fs::read_to_string(root.join(path)).unwrap_or_default();
    let meta = metadata::parse(&source);
    let mut modes = Vec::new();
    if meta.has_flag("raw") {
        modes.push(Mode::Raw);
    } else if meta.has_flag("module") {
        modes.push(Mode::Strict);
    } else {
        if !meta.has_flag("onlyStrict") {
            modes.push(Mode::Sloppy);
        }
        if !meta.has_flag("noStrict") {
            modes.push(Mode::Strict);
        }
    }
    let scenarios = modes
        .into_iter()
        .map(|mode| Scenario {
            path: path.to_string(),
            mode,
        })
        .collect();
    let skip = if meta.features.iter().any(|f| f == "IsHTMLDDA") {
        Some("no [[IsHTMLDDA]] object in this host".to_string())
    } else {
        None
    };
    (scenarios, skip, meta)
}

fn run_suite(repo: &Path, root: &Path, opts: &Options) -> ExitCode {
    let started = Instant::now();
    let proposals = proposal_features(root);
    // The last run's results belong to the corpus they were run on.
    let last_results = root.join(".kiln-last-run.txt");
    let previous_failures: Option<Vec<String>> = if opts.failures_only {
        std::fs::read_to_string(&last_results).ok().map(|t| {
            t.lines()
                .filter(|l| !l.ends_with("\tpass"))
                .map(|l| l.split('\t').next().unwrap_or("").to_string())
                .collect()
        })
    } else {
        None
    };
    let full_run = opts.filters.is_empty()
        && opts.features.is_empty()
        && opts.sample.is_none()
        && previous_failures.is_none();
    let mut results = Results::default();
    let mut queue = Vec::new();
    for path in test_files(root) {
        if !opts.filters.is_empty() && !opts.filters.iter().any(|f| path.contains(f.as_str())) {
            continue;
        }
        if let Some(sample) = opts.sample
            && !in_sample(&path, sample)
        {
            continue;
        }
        let (scenarios, skip, meta) = scenarios_of(root, &path);
        if !opts.features.is_empty() && !opts.features.iter().any(|f| meta.features.contains(f)) {
            continue;
        }
        let class = Class::of(&path, &meta.features, &proposals);
        for s in scenarios {
            let id = s.id();
            if let Some(prev) = &previous_failures
                && !prev.contains(&id)
            {
                continue;
            }
            match &skip {
                Some(reason) => results.record(id, class, Status::Skipped(reason.clone())),
                None => queue.push((s, class)),
            }
        }
    }
    let total = queue.len();
    eprintln!("running {total} scenarios on {} workers", opts.workers);
    let outcomes = run_parallel(root, queue, opts.workers);
    for (id, class, status) in outcomes {
        results.record(id, class, status);
    }
    let elapsed = started.elapsed();
    let counts = results.counts();
    let passing_file = &opts.passing_list;
    let listed: Vec<String> = match std::fs::read_to_string(passing_file) {
        Ok(text) => text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect(),
        Err(e) if !opts.update => {
            eprintln!(
                "kiln-test262: cannot read the passing list {}: {e}",
                passing_file.display()
            );
            return ExitCode::from(2);
        }
        Err(_) => Vec::new(),
    };
    if listed.is_empty() && !opts.update {
        eprintln!(
            "kiln-test262: the passing list {} is empty: nothing would be checked",
            passing_file.display()
        );
        return ExitCode::from(2);
    }
    // A full run must find, run and pass every listed scenario; a partial run checks
    // the listed scenarios it ran.
    let regressions: Vec<&String> = listed
        .iter()
        .filter(|id| match results.status(id) {
            Some(Status::Pass) => false,
            None => full_run,
            Some(_) => true,
        })
        .collect();
    let _ = std::fs::write(&last_results, results.lines());
    println!();
    report::print_summary(&counts, elapsed);
    if !regressions.is_empty() {
        println!(
            "{} scenarios listed as passing now fail:",
            regressions.len()
        );
        for id in regressions.iter().take(200) {
            println!("  {id}: {}", results.regression_reason(id));
        }
    }
    if opts.update && full_run {
        let _ = std::fs::create_dir_all(repo.join("conformance"));
        if !regressions.is_empty() {
            println!("not updating the scoreboard: fix the regressions first");
        } else {
            let passing = results.passing();
            if let Err(e) = std::fs::write(passing_file, passing.join("\n") + "\n") {
                eprintln!("cannot write {}: {e}", passing_file.display());
            }
            let md = repo.join("conformance/test262.md");
            let commit = Command::new("git")
                .args(["rev-parse", "--short", "HEAD"])
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap_or_default();
            if let Err(e) = report::write_scoreboard(&md, &results, &counts, elapsed, &commit) {
                eprintln!("cannot write {}: {e}", md.display());
            }
            println!("updated {} and {}", passing_file.display(), md.display());
        }
    } else if opts.update {
        println!("--update needs a full run (no filters)");
    }
    if regressions.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// A worker process and the pipes to it.
struct WorkerProcess {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl WorkerProcess {
    fn spawn(root: &Path) -> std::io::Result<WorkerProcess> {
        let exe = std::env::current_exe()?;
        let mut child = Command::new(exe)
            .arg("--worker")
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let input = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no stdin"))?;
        let output = BufReader::new(
            child
                .stdout
                .take()
                .ok_or_else(|| std::io::Error::other("no stdout"))?,
        );
        Ok(WorkerProcess {
            child,
            input,
            output,
        })
    }
}

type Outcomes = Vec<(String, Class, Status)>;

fn run_parallel(root: &Path, queue: Vec<(Scenario, Class)>, workers: usize) -> Outcomes {
    let total = queue.len();
    let queue = Arc::new(Mutex::new(queue.into_iter().rev().collect::<Vec<_>>()));
    let results = Arc::new(Mutex::new(Vec::with_capacity(total)));
    let done = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(AtomicBool::new(false));
    let progress = {
        let (done, failed, finished) = (done.clone(), failed.clone(), finished.clone());
        std::thread::spawn(move || {
            use std::io::IsTerminal;
            // A live bar on a terminal; a line per tenth of the run in logs.
            let live = std::io::stderr().is_terminal();
            let start = Instant::now();
            let mut last_tenth = 0;
            while !finished.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(500));
                let d = done.load(Ordering::Relaxed);
                let pct = (d * 100).checked_div(total).unwrap_or(100);
                let bar: String = (0..40)
                    .map(|i| if i * 100 < pct * 40 { '#' } else { '.' })
                    .collect();
                let line = format!(
                    "[{bar}] {d}/{total} ({} failed) {:.0}s",
                    failed.load(Ordering::Relaxed),
                    start.elapsed().as_secs_f64()
                );
                if live {
                    eprint!("\r{line} ");
                } else if pct / 10 > last_tenth {
                    last_tenth = pct / 10;
                    eprintln!("{line}");
                }
            }
            if live {
                eprintln!();
            }
        })
    };
    let mut handles = Vec::new();
    for _ in 0..workers.max(1) {
        let (queue, results, done, failed) =
            (queue.clone(), results.clone(), done.clone(), failed.clone());
        let root = root.to_path_buf();
        handles.push(std::thread::spawn(move || {
            let mut process: Option<WorkerProcess> = None;
            while let Some((scenario, class)) = queue.lock().ok().and_then(|mut q| q.pop()) {
                if process.is_none() {
                    process = WorkerProcess::spawn(&root).ok();
                }
                let status = match process.as_mut() {
                    Some(p) => ask(p, &scenario),
                    None => Status::Crash("cannot start a worker process".into()),
                };
                if matches!(status, Status::Crash(_) | Status::Timeout)
                    && let Some(mut p) = process.take()
                {
                    let _ = p.child.kill();
                    let _ = p.child.wait();
                }
                if !matches!(status, Status::Pass) {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
                done.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut r) = results.lock() {
                    r.push((scenario.id(), class, status));
                }
            }
            if let Some(mut p) = process {
                drop(p.input);
                let _ = p.child.wait();
            }
        }));
    }
    for h in handles {
        let _ = h.join();
    }
    finished.store(true, Ordering::Relaxed);
    let _ = progress.join();
    Arc::try_unwrap(results)
        .ok()
        .and_then(|m| m.into_inner().ok())
        .unwrap_or_default()
}

/// Send one scenario to a worker and read its verdict; a dead or silent worker is a crash.
fn ask(p: &mut WorkerProcess, scenario: &Scenario) -> Status {
    if writeln!(p.input, "{}\t{}", scenario.path, scenario.mode.name())
        .and_then(|_| p.input.flush())
        .is_err()
    {
        return Status::Crash("worker process died".into());
    }
    let mut line = String::new();
    match p.output.read_line(&mut line) {
        Ok(0) | Err(_) => {
            let code = p.child.wait().ok().and_then(|s| s.code());
            Status::Crash(format!("worker process died (exit {code:?})"))
        }
        Ok(_) => {
            let line = line.trim_end_matches('\n');
            let (verdict, message) = line.split_once('\t').unwrap_or((line, ""));
            match verdict {
                "pass" => Status::Pass,
                "timeout" => Status::Timeout,
                "crash" => Status::Crash(message.to_string()),
                _ => Status::Fail(message.to_string()),
            }
        }
    }
}

/// When the running scenario must stop, and the flag that stops it.
type Deadline = Option<(Instant, Arc<AtomicBool>)>;

/// The worker: read `path\tmode` lines, run each, answer `verdict\tmessage`.
fn worker_main(root: PathBuf) -> ExitCode {
    let harness = worker::Harness::load(&root);
    let deadline: Arc<Mutex<Deadline>> = Arc::new(Mutex::new(None));
    {
        let deadline = deadline.clone();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(50));
                if let Ok(d) = deadline.lock()
                    && let Some((at, flag)) = d.as_ref()
                    && Instant::now() > *at
                {
                    flag.store(true, Ordering::Relaxed);
                }
            }
        });
    }
    // Scenarios run on a thread with a large stack; a panic is caught and reported.
    let runner = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || {
            std::panic::set_hook(Box::new(|_| {}));
            let stdin = std::io::stdin();
            let mut stdout = std::io::stdout();
            for line in stdin.lock().lines() {
                let Ok(line) = line else { break };
                let Some((path, mode)) = line.split_once('\t') else {
                    continue;
                };
                let Some(mode) = Mode::parse(mode) else {
                    continue;
                };
                let interrupt = Arc::new(AtomicBool::new(false));
                if let Ok(mut d) = deadline.lock() {
                    *d = Some((
                        Instant::now() + Duration::from_secs(SCENARIO_SECONDS),
                        interrupt.clone(),
                    ));
                }
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    worker::run(&root, path, mode, &harness, interrupt)
                }));
                if let Ok(mut d) = deadline.lock() {
                    *d = None;
                }
                let answer = match outcome {
                    Ok(Outcome::Pass) => "pass\t".to_string(),
                    Ok(Outcome::Timeout) => "timeout\t".to_string(),
                    Ok(Outcome::Fail(m)) => format!("fail\t{}", one_line(&m)),
                    Err(panic) => {
                        let msg = panic
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        format!("crash\tpanic: {}", one_line(&msg))
                    }
                };
                if writeln!(stdout, "{answer}")
                    .and_then(|_| stdout.flush())
                    .is_err()
                {
                    break;
                }
            }
        });
    match runner.map(|r| r.join()) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        _ => ExitCode::from(70),
    }
}

fn one_line(s: &str) -> String {
    let s: String = s
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .collect();
    s.chars().take(300).collect()
}

/// `--show PATH`: run a test's scenarios here and print the results.
fn show(root: &Path, path: &str) -> ExitCode {
    let path = path.trim_start_matches("./");
    let path = path.split(':').next().unwrap_or(path);
    let harness = worker::Harness::load(root);
    let (scenarios, skip, meta) = scenarios_of(root, path);
    println!(
        "{path}\n  includes: {:?}\n  flags: {:?}\n  features: {:?}\n  negative: {:?}",
        meta.includes, meta.flags, meta.features, meta.negative
    );
    if let Some(reason) = skip {
        println!("  skipped: {reason}");
        return ExitCode::SUCCESS;
    }
    let mut all_pass = true;
    for s in scenarios {
        let outcome = worker::run(
            root,
            &s.path,
            s.mode,
            &harness,
            Arc::new(AtomicBool::new(false)),
        );
        if outcome != Outcome::Pass {
            all_pass = false;
        }
        println!("  {}: {:?}", s.mode.name(), outcome);
    }
    if all_pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn samples_partition_the_tests() {
        assert_eq!(super::parse_sample("8"), Some((8, 0)));
        assert_eq!(super::parse_sample("8:7"), Some((8, 7)));
        assert_eq!(super::parse_sample("8:8"), None);
        assert_eq!(super::parse_sample("0"), None);
        let paths: Vec<String> = (0..1000).map(|i| format!("test/t{i}.js")).collect();
        let counts: Vec<usize> = (0..4)
            .map(|k| paths.iter().filter(|p| super::in_sample(p, (4, k))).count())
            .collect();
        assert_eq!(counts.iter().sum::<usize>(), 1000);
        assert!(counts.iter().all(|&c| c > 200), "{counts:?}");
    }

    #[test]
    fn notes_inside_the_proposals_section_do_not_end_it() {
        let text = "## Proposed language features\n# A\nalpha\n\
                    ## https://example.org/beta\nbeta  # a note\n## test262 special specifier\n\
                    gamma\n\n## Standard language features\n#\ndelta\n";
        assert_eq!(super::proposals_in(text), ["alpha", "beta", "gamma"]);
    }
}
