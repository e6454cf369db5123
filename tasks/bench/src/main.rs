//! `kiln-bench`: Kiln's benchmark instruments.
//!
//! ```text
//! kiln-bench install                      # peers into build/peers/, the real programs into build/bench/real/
//! kiln-bench list                         # fixtures, engines, versions
//! kiln-bench run [--suite micro,octane,real] [--fixtures a,b] [--runs N] [--engines kiln,quickjs,...] [--record]
//! kiln-bench verify [--suite real]        # each fixture once on Kiln, checked against node's output
//! kiln-bench check                        # fresh run of Kiln against the last recorded one
//! kiln-bench profile FIXTURE              # flame graph + top functions by self time
//! kiln-bench compile-speed                # parse + compile throughput on the largest real programs
//! kiln-bench jit-proof                    # Bun with and without BUN_JSC_useJIT=0 on a hot loop
//! ```
//!
//! Every fixture runs as a whole process, started through kiln-bench itself as a
//! launcher (`launch.rs`); see BENCHMARKS.md for the method and history.

mod engines;
mod profile;
mod real;
mod record;
mod runner;
mod stats;
mod suite;

use clap::{Parser, Subcommand};
use kiln_bench::{launch, measure};
use record::{EngineInfo, RunRecord};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "kiln-bench",
    about = "Kiln's benchmarks: fixtures and Octane against peer engines"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(clap::Args, Clone)]
struct RunArgs {
    /// comma-separated suites: micro, octane, real; default: all
    #[arg(long)]
    suite: Option<String>,
    /// comma-separated fixture names (a suite's name for all its fixtures); default: all
    #[arg(long)]
    fixtures: Option<String>,
    /// timed runs per fixture and engine, after one warm-up
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// comma-separated engines; default: every installed one
    #[arg(long)]
    engines: Option<String>,
    /// Kiln binary (default: target/release/kiln)
    #[arg(long)]
    kiln: Option<PathBuf>,
    /// seconds before a run is killed and counted as failed
    #[arg(long, default_value_t = 120)]
    timeout: u64,
}

#[derive(Subcommand)]
enum Cmd {
    /// Install the peer engines into build/peers/ (runs bench/install-peers.sh) and the
    /// real programs' libraries into build/bench/real/ (npm ci, esbuild)
    Install {
        /// reinstall even what is present
        #[arg(long)]
        force: bool,
        /// only the peers, or only the real programs
        #[arg(long, value_parser = ["peers", "real"])]
        only: Option<String>,
    },
    /// List fixtures and engines (with versions)
    List,
    /// Measure fixtures on engines and print the tables
    Run {
        #[command(flatten)]
        args: RunArgs,
        /// write bench/results/<date>-<commit>.json and put a section first in BENCHMARKS.md
        #[arg(long)]
        record: bool,
        /// the sentence saying what moved the numbers since the previous run (with --record)
        #[arg(long)]
        note: Option<String>,
    },
    /// Run each fixture once on Kiln and fail (exit status 1) unless it prints the
    /// fixture's reference checksum (node's, for the real programs) or, for a fixture
    /// without one, finishes; no timing
    Verify {
        /// comma-separated suites: micro, octane, real; default: real
        #[arg(long, default_value = "real")]
        suite: String,
        /// comma-separated fixture names; default: all of the suites
        #[arg(long)]
        fixtures: Option<String>,
        /// Kiln binary (default: target/release/kiln)
        #[arg(long)]
        kiln: Option<PathBuf>,
    },
    /// Run Kiln afresh and compare with the last recorded run on this host: a fixture more
    /// than 8 % slower or a geomean more than 3 % slower fails (exit status 1)
    Check {
        #[command(flatten)]
        args: RunArgs,
        /// compare Kiln's time relative to this peer, run alongside (steady on a busy
        /// machine, where absolute times drift); `none` compares absolute times
        #[arg(long, default_value = "quickjs")]
        against: String,
    },
    /// Profile a fixture: flame graph SVG and top functions by self time, in build/profiles/
    Profile {
        fixture: String,
        #[arg(long, default_value = "kiln")]
        engine: String,
        #[arg(long = "with", value_enum, default_value_t = profile::Profiler::Auto)]
        profiler: profile::Profiler,
        /// rows in the self-time table
        #[arg(long, default_value_t = 25)]
        top: usize,
        /// perf's samples per second (fewer keep the data of a long run manageable)
        #[arg(long, default_value_t = 499)]
        frequency: u32,
        #[arg(long)]
        kiln: Option<PathBuf>,
    },
    /// Parse + compile throughput (MB of source per second) on the largest real-program
    /// libraries: each library's code in a function that is never called, timed against
    /// an empty script
    CompileSpeed {
        /// how many of the largest libraries
        #[arg(long, default_value_t = 4)]
        largest: usize,
        #[arg(long, default_value_t = 7)]
        runs: usize,
        /// engines that compile a script whole before running it (node compiles lazily)
        #[arg(long, default_value = "kiln,quickjs")]
        engines: String,
        #[arg(long)]
        kiln: Option<PathBuf>,
    },
    /// Show that BUN_JSC_useJIT=0 turns JavaScriptCore's JITs off: a hot loop timed both ways
    JitProof,
}

fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(Path::parent)
        .unwrap_or(manifest)
        .to_path_buf()
}

fn main() -> ExitCode {
    // As the launcher, before anything else: whatever kiln-bench allocates here raises
    // the floor of the peak RSS measured for the engine it starts.
    let mut args = std::env::args_os();
    if args.nth(1).is_some_and(|arg| arg == launch::ARG) {
        return launch::main(args);
    }
    let cli = Cli::parse();
    let root = root();
    let result = match cli.command {
        Cmd::Install { force, only } => install(&root, force, only.as_deref()),
        Cmd::List => list(&root),
        Cmd::Run { args, record, note } => run(&root, &args, record, note),
        Cmd::Verify {
            suite,
            fixtures,
            kiln,
        } => verify(&root, &suite, fixtures.as_deref(), kiln.as_deref()),
        Cmd::Check { args, against } => check(&root, &args, &against),
        Cmd::Profile {
            fixture,
            engine,
            profiler,
            top,
            frequency,
            kiln,
        } => profile_cmd(
            &root,
            &fixture,
            &engine,
            profiler,
            (top, frequency),
            kiln.as_deref(),
        ),
        Cmd::CompileSpeed {
            largest,
            runs,
            engines,
            kiln,
        } => compile_speed(&root, largest, runs, &engines, kiln.as_deref()),
        Cmd::JitProof => jit_proof(&root),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("kiln-bench: {message}");
            ExitCode::from(2)
        }
    }
}

fn install(root: &Path, force: bool, only: Option<&str>) -> Result<ExitCode, String> {
    if only != Some("real") && install_peers(root, force)? != ExitCode::SUCCESS {
        return Ok(ExitCode::FAILURE);
    }
    if only != Some("peers") {
        real::install(root, force)?;
        // Generates the scripts and node's checksums for them.
        suite::all(root)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn install_peers(root: &Path, force: bool) -> Result<ExitCode, String> {
    let mut command = Command::new("bash");
    command
        .arg(root.join("bench/install-peers.sh"))
        .current_dir(root);
    if force {
        command.arg("--force");
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run bash: {e}"))?;
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The engines to run: those named, or every available one; Kiln always first.
fn select_engines(
    root: &Path,
    wanted: Option<&str>,
    kiln: Option<&Path>,
) -> Result<Vec<engines::Engine>, String> {
    let names: Vec<&str> = match wanted {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect(),
        None => engines::ALL.to_vec(),
    };
    let mut chosen = Vec::new();
    for name in engines::ALL
        .iter()
        .filter(|n| **n == "kiln" || names.contains(n))
    {
        let engine = engines::engine(name, root, kiln).expect("known engine");
        if engine.is_available() {
            chosen.push(engine);
        } else if wanted.is_some() || *name == "kiln" {
            return Err(format!(
                "{name} is not installed ({}); `cargo build --release -p kiln-cli` builds Kiln, `kiln-bench install` the peers",
                engine.program.display()
            ));
        } else {
            eprintln!(
                "kiln-bench: {name} not installed, skipped ({})",
                engine.program.display()
            );
        }
    }
    for name in &names {
        if !engines::ALL.contains(name) {
            return Err(format!(
                "unknown engine {name:?}; known: {}",
                engines::ALL.join(", ")
            ));
        }
    }
    Ok(chosen)
}

fn list(root: &Path) -> Result<ExitCode, String> {
    println!("fixtures:");
    for fixture in suite::all(root)? {
        println!(
            "  {:<6} {:<22} {}",
            fixture.suite.name(),
            fixture.name,
            engines::relative(&fixture.script, root)
        );
    }
    println!("real programs:");
    for library in real::libraries(root)? {
        let version =
            real::version(root, &library.package).unwrap_or_else(|| "not installed".into());
        println!(
            "  {:<18} {:<14} {:<10} {}",
            library.name,
            library.package,
            version,
            library.how()
        );
    }
    println!("engines:");
    for name in engines::ALL {
        let engine = engines::engine(name, root, None).expect("known engine");
        let version = if engine.is_available() {
            engines::version(&engine, root)
        } else {
            "not installed".into()
        };
        println!("  {:<14} {:<40} {}", name, version, engine.display(root));
    }
    Ok(ExitCode::SUCCESS)
}

fn measure(root: &Path, args: &RunArgs) -> Result<RunRecord, String> {
    let fixtures = suite::select(
        suite::all(root)?,
        args.suite.as_deref(),
        args.fixtures.as_deref(),
    )?;
    let engines = select_engines(root, args.engines.as_deref(), args.kiln.as_deref())?;
    let options = runner::Options {
        runs: args.runs.max(1),
        timeout: Duration::from_secs(args.timeout),
    };
    let startup = runner::startup(&empty_script(root)?, &engines, &options);
    let infos: Vec<EngineInfo> = engines
        .iter()
        .zip(startup)
        .map(|(e, startup_ms)| EngineInfo {
            name: e.name.to_string(),
            version: engines::version(e, root),
            command: e.display(root),
            startup_ms,
        })
        .collect();
    for info in &infos {
        eprintln!("{:<14} {}", info.name, info.version);
    }
    let mut fixtures = runner::run_all(&fixtures, &engines, &options);
    // Engines name the script in their error messages; records name it from the root.
    let prefix = format!("{}/", root.display());
    for result in fixtures.iter_mut().flat_map(|f| f.results.iter_mut()) {
        if let Some(error) = &mut result.error {
            *error = error.replace(&prefix, "");
        }
    }
    Ok(RunRecord {
        date: shell(&["date", "-u", "+%Y-%m-%d %H:%M"]).unwrap_or_else(|| "unknown".into()),
        commit: kiln_commit(&engines[0].program),
        host: host_line(),
        runs: options.runs,
        engines: infos,
        fixtures,
        note: None,
    })
}

fn run(
    root: &Path,
    args: &RunArgs,
    record_it: bool,
    note: Option<String>,
) -> Result<ExitCode, String> {
    let mut record = measure(root, args)?;
    record.note = note;
    let results = root.join("bench/results");
    let names: Vec<&str> = record.fixtures.iter().map(|f| f.name.as_str()).collect();
    let previous = record::last_on_host(&results, &record.host, &names);
    let section = record.markdown(previous.as_ref());
    println!("{section}");
    if record_it {
        std::fs::create_dir_all(&results).map_err(|e| e.to_string())?;
        let json_path = results.join(record.file_name());
        let json = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())?;
        std::fs::write(&json_path, json + "\n").map_err(|e| e.to_string())?;
        let history_path = root.join("BENCHMARKS.md");
        let history =
            std::fs::read_to_string(&history_path).unwrap_or_else(|_| "# Benchmarks\n".into());
        std::fs::write(&history_path, record::insert_section(&history, &section))
            .map_err(|e| e.to_string())?;
        eprintln!(
            "recorded {} and a section in BENCHMARKS.md",
            json_path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn verify(
    root: &Path,
    suites: &str,
    fixtures: Option<&str>,
    kiln: Option<&Path>,
) -> Result<ExitCode, String> {
    let fixtures = suite::select(suite::all(root)?, Some(suites), fixtures)?;
    let engines = select_engines(root, Some("kiln"), kiln)?;
    let kiln = &engines[0];
    let mut failed = 0;
    for fixture in &fixtures {
        let sample = measure::run(kiln.command(&fixture.script), Duration::from_secs(600))
            .map_err(|e| format!("cannot run {}: {e}", kiln.program.display()))?;
        let verdict = match (&sample.outcome, &fixture.reference) {
            (Err(error), _) => Err(error.clone()),
            (Ok(()), Some(reference))
                if measure::compare(Some(reference), &sample.stdout)
                    != measure::Agreement::Same =>
            {
                Err(format!(
                    "printed `{}`, node printed `{reference}`",
                    measure::checksum(&sample.stdout)
                ))
            }
            (Ok(()), _) => Ok(()),
        };
        match verdict {
            Ok(()) => println!("ok       {} ({:.0} ms)", fixture.name, sample.wall_ms),
            Err(why) => {
                failed += 1;
                println!("FAILED   {}: {why}", fixture.name);
            }
        }
    }
    println!(
        "verify: {} passed, {failed} failed",
        fixtures.len() - failed
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn check(root: &Path, args: &RunArgs, against: &str) -> Result<ExitCode, String> {
    let host = host_line();
    let last = record::last_passed_on_host(&root.join("bench/results"), &host);
    if last.is_empty() {
        return Err(format!(
            "no recorded run from this host ({host}) in bench/results/"
        ));
    }
    let peer = (against != "none").then_some(against);
    let mut args = args.clone();
    if args.engines.is_none() {
        args.engines = Some(peer.map_or("kiln".into(), |p| format!("kiln,{p}")));
    }
    if args.fixtures.is_none() {
        // Every fixture of the chosen suites that still exists and that Kiln passed when
        // last recorded.
        let existing: Vec<String> = suite::select(suite::all(root)?, args.suite.as_deref(), None)?
            .into_iter()
            .map(|f| f.name)
            .collect();
        let names: Vec<&str> = last
            .iter()
            .map(|(_, f)| f.name.as_str())
            .filter(|n| existing.iter().any(|e| e == n))
            .collect();
        args.fixtures = Some(names.join(","));
    }
    let fresh = measure(root, &args)?;
    // The measure compared: Kiln's median, or Kiln's median over the peer's.
    let value = |fixture: &record::FixtureRecord| match peer {
        None => fixture
            .result("kiln")
            .filter(|r| r.status == record::Status::Ok)
            .and_then(|r| r.median_ms),
        Some(p) => fixture.ratio(p),
    };
    let mut changes = Vec::new();
    for fixture in &fresh.fixtures {
        let now = value(fixture);
        let then = last
            .iter()
            .find(|(_, f)| f.name == fixture.name)
            .and_then(|(_, f)| value(f));
        if let (Some(now), Some(then)) = (now, then) {
            changes.push(stats::Change {
                fixture: fixture.name.clone(),
                recorded_ms: then,
                fresh_ms: now,
            });
        } else if fixture
            .result("kiln")
            .is_none_or(|r| r.status != record::Status::Ok)
        {
            println!(
                "{}: Kiln failed now: {}",
                fixture.name,
                fixture
                    .result("kiln")
                    .and_then(|r| r.error.clone())
                    .unwrap_or_default()
            );
        }
    }
    let mut runs: Vec<&str> = last.iter().map(|(run, _)| run.as_str()).collect();
    runs.sort_unstable();
    runs.dedup();
    println!(
        "against each fixture's last recorded run ({}):\n",
        runs.join("; ")
    );
    let (what, digits) = match peer {
        None => ("Kiln ms".to_string(), 0),
        Some(p) => (format!("Kiln/{p}"), 2),
    };
    println!("| fixture | recorded {what} | now {what} | Δ |\n|---|---|---|---|");
    for c in &changes {
        let flag = if c.is_regression() { " **slower**" } else { "" };
        println!(
            "| {} | {:.digits$} | {:.digits$} | {:+.1} %{flag} |",
            c.fixture,
            c.recorded_ms,
            c.fresh_ms,
            (c.factor() - 1.0) * 100.0
        );
    }
    let verdict = stats::judge(&changes);
    if let Some(g) = verdict.geomean_factor {
        println!(
            "\ngeomean now/recorded: {g:.3} ({:+.1} %)",
            (g - 1.0) * 100.0
        );
    }
    let failed_now = fresh.fixtures.iter().any(|f| {
        f.result("kiln")
            .is_none_or(|r| r.status != record::Status::Ok)
    });
    if verdict.passed() && !failed_now {
        println!("check passed: no fixture more than 8 % slower, geomean not more than 3 % slower");
        Ok(ExitCode::SUCCESS)
    } else {
        for c in &verdict.slower {
            println!(
                "SLOWER: {} by {:.1} %",
                c.fixture,
                (c.factor() - 1.0) * 100.0
            );
        }
        if verdict.geomean_regressed() {
            println!("SLOWER: geomean by more than 3 %");
        }
        if failed_now {
            println!("FAILED: a fixture that passed before fails now");
        }
        Ok(ExitCode::FAILURE)
    }
}

fn profile_cmd(
    root: &Path,
    fixture: &str,
    engine: &str,
    profiler: profile::Profiler,
    (top, frequency): (usize, u32),
    kiln: Option<&Path>,
) -> Result<ExitCode, String> {
    let fixtures = suite::select(suite::all(root)?, None, Some(fixture))?;
    let fixture = fixtures.first().ok_or("no such fixture")?;
    let engine = select_engines(root, Some(engine), kiln)?
        .into_iter()
        .find(|e| e.name == engine)
        .ok_or("no such engine")?;
    let out = profile::profile(
        &engine,
        &fixture.name,
        &fixture.script,
        &root.join("build/profiles"),
        profiler,
        top,
        frequency,
    )?;
    println!("{}", out.top);
    println!(
        "flame graph: {}\nself-time table: {}\nfolded stacks: {}",
        out.svg.display(),
        out.table.display(),
        out.folded.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn jit_proof(root: &Path) -> Result<ExitCode, String> {
    let script = root.join("bench/jit-proof.js");
    let engines = select_engines(root, Some("bun-nojit,bun"), None)?;
    println!(
        "| engine | wall ms | functions JIT-compiled | checksum | command |\n|---|---|---|---|---|"
    );
    for engine in engines.iter().filter(|e| e.name != "kiln") {
        let sample = measure::run(engine.command(&script), Duration::from_secs(300))
            .map_err(|e| e.to_string())?;
        // JavaScriptCore reports every baseline/DFG/FTL compilation when asked to.
        let mut report = engine.command(&script);
        report.env("BUN_JSC_reportCompileTimes", "1");
        let out = report.output().map_err(|e| e.to_string())?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let compiled = text
            .lines()
            .filter(|l| l.contains("Compiled") || l.contains("Optimized"))
            .count();
        println!(
            "| {} | {:.0} | {compiled} | {} | `{}` |",
            engine.name,
            sample.wall_ms,
            measure::checksum(&sample.stdout),
            engine.display(root)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// build/bench/empty.js: a script that does nothing, for start-up times.
fn empty_script(root: &Path) -> Result<PathBuf, String> {
    let dir = root.join("build/bench");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join("empty.js");
    std::fs::write(&path, "// nothing\n").map_err(|e| e.to_string())?;
    Ok(path)
}

fn compile_speed(
    root: &Path,
    largest: usize,
    runs: usize,
    engine_names: &str,
    kiln: Option<&Path>,
) -> Result<ExitCode, String> {
    let engines = select_engines(root, Some(engine_names), kiln)?;
    let libraries = real::libraries(root)?;
    let mut sized = Vec::new();
    for library in &libraries {
        let code = real::library_code(root, library)?;
        sized.push((code.len(), library));
    }
    sized.sort_by_key(|(size, _)| std::cmp::Reverse(*size));
    sized.truncate(largest);
    let dir = root.join("build/bench/compile");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let options = runner::Options {
        runs: runs.max(1),
        timeout: Duration::from_secs(300),
    };
    let startup = runner::startup(&empty_script(root)?, &engines, &options);
    let names: Vec<&str> = engines.iter().map(|e| e.name).collect();
    println!(
        "Parse + compile, MB of source per second (median ms over an empty script's {}):\n",
        startup
            .iter()
            .zip(&names)
            .map(|(ms, n)| format!("{n} {}", ms.map_or("–".into(), |ms| format!("{ms:.0} ms"))))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "| library | source | {} |\n|---|---|{}",
        names
            .iter()
            .map(|n| format!("{n} ms | {n} MB/s"))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|---|".repeat(names.len())
    );
    for (size, library) in sized {
        let script = dir.join(format!("{}.js", library.name));
        std::fs::write(&script, real::compile_only_script(root, library)?)
            .map_err(|e| e.to_string())?;
        let fixture = suite::Fixture {
            name: library.name.clone(),
            script,
            suite: suite::Suite::Real,
            reference: Some(String::new()),
        };
        let record = runner::run_all(&[fixture], &engines, &options).remove(0);
        let mb = size as f64 / 1e6;
        let cells: Vec<String> = record
            .results
            .iter()
            .zip(&startup)
            .map(|(r, start)| match (r.median_ms, start) {
                (Some(ms), Some(start)) if r.status == record::Status::Ok => {
                    let compile = (ms - start).max(0.01);
                    format!("{compile:.0} | {:.1}", mb / (compile / 1000.0))
                }
                _ => "FAIL | –".into(),
            })
            .collect();
        println!(
            "| {} | {:.2} MB | {} |",
            library.name,
            mb,
            cells.join(" | ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn shell(argv: &[&str]) -> Option<String> {
    let out = Command::new(argv[0]).args(&argv[1..]).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// CPU model name and core count, from /proc/cpuinfo.
fn host_line() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = info.lines().filter(|l| l.starts_with("processor")).count();
    format!("{model}, {cores} cores")
}

/// The commit of the checkout Kiln's binary was built in, `+dirty` when its engine
/// sources (crates/, apps/) differ from that commit.
fn kiln_commit(kiln: &Path) -> String {
    let dir = kiln.parent().unwrap_or(Path::new("."));
    let dir = dir.to_string_lossy();
    let Some(commit) = shell(&["git", "-C", &dir, "rev-parse", "--short=10", "HEAD"]) else {
        return "unknown".into();
    };
    let top = shell(&["git", "-C", &dir, "rev-parse", "--show-toplevel"]).unwrap_or_default();
    let dirty = shell(&[
        "git",
        "-C",
        &top,
        "status",
        "--porcelain",
        "--",
        "crates",
        "apps",
    ])
    .is_some_and(|s| !s.is_empty());
    if dirty {
        format!("{commit}+dirty")
    } else {
        commit
    }
}
