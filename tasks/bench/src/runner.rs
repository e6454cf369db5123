//! Runs fixtures on engines: per fixture, one warm-up run of each engine (whose output
//! is the checksum), then N timed runs interleaved across engines (A B C A B C …) so
//! drift of a shared machine hits every engine alike. Checksums are compared with the
//! fixture's reference (node's output, for the real programs) or else with Kiln's.

use crate::engines::Engine;
use crate::measure::{self, Agreement};
use crate::record::{EngineResult, FixtureRecord, Status};
use crate::stats;
use crate::suite::{Fixture, Suite};
use std::path::Path;
use std::time::Duration;

pub struct Options {
    pub runs: usize,
    pub timeout: Duration,
}

/// Measures every fixture on every engine. Kiln, when present, must be first in `engines`.
pub fn run_all(fixtures: &[Fixture], engines: &[Engine], options: &Options) -> Vec<FixtureRecord> {
    fixtures
        .iter()
        .map(|f| run_fixture(f, engines, options))
        .collect()
}

fn run_fixture(fixture: &Fixture, engines: &[Engine], options: &Options) -> FixtureRecord {
    eprint!("{:<22}", fixture.name);
    let mut results: Vec<EngineResult> = Vec::new();
    for engine in engines {
        let sample = measure::run(engine.command(&fixture.script), options.timeout);
        let result = match sample {
            Ok(s) => match s.outcome {
                Ok(()) => ok_result(engine.name, measure::checksum(&s.stdout)),
                Err(error) => failed(engine.name, error),
            },
            Err(e) => failed(engine.name, format!("cannot start: {e}")),
        };
        results.push(result);
    }
    let reference = fixture.reference.clone().or_else(|| {
        results
            .iter()
            .find(|r| r.engine == "kiln" && r.status == Status::Ok)
            .and_then(|r| r.checksum.clone())
    });
    for r in results
        .iter_mut()
        .filter(|r| r.status == Status::Ok && (r.engine != "kiln" || fixture.reference.is_some()))
    {
        if measure::compare(reference.as_deref(), r.checksum.as_deref().unwrap_or(""))
            == Agreement::Different
        {
            r.status = Status::Mismatch;
        }
    }

    let mut rss = vec![0u64; engines.len()];
    for _ in 0..options.runs {
        for (i, engine) in engines.iter().enumerate() {
            if results[i].status == Status::Failed {
                continue;
            }
            match measure::run(engine.command(&fixture.script), options.timeout) {
                Ok(s) if s.outcome.is_ok() => {
                    results[i].times_ms.push(s.wall_ms);
                    results[i].cpu_times_ms.push(s.cpu_ms);
                    rss[i] = rss[i].max(s.max_rss_kb);
                }
                Ok(s) => {
                    results[i] = failed(
                        engine.name,
                        format!("timed run: {}", s.outcome.unwrap_err()),
                    );
                }
                Err(e) => results[i] = failed(engine.name, format!("cannot start: {e}")),
            }
        }
    }
    for (i, r) in results.iter_mut().enumerate() {
        if r.status == Status::Failed {
            eprint!(" {}:FAIL", r.engine);
            continue;
        }
        r.median_ms = stats::median(&r.times_ms);
        r.cpu_median_ms = stats::median(&r.cpu_times_ms);
        if let Some((min, max)) = stats::min_max(&r.times_ms) {
            r.min_ms = Some(min);
            r.max_ms = Some(max);
        }
        r.max_rss_kb = Some(rss[i]);
        let flag = if r.status == Status::Mismatch {
            "≠"
        } else {
            ""
        };
        eprint!(" {}:{:.0}{flag}", r.engine, r.median_ms.unwrap_or(0.0));
    }
    eprintln!();
    FixtureRecord {
        name: fixture.name.clone(),
        suite: fixture.suite.name().to_string(),
        reference: fixture.reference.clone(),
        results,
    }
}

/// Each engine's median time to run a script that does nothing: its start-up and
/// tear-down, paid by every fixture.
pub fn startup(empty_script: &Path, engines: &[Engine], options: &Options) -> Vec<Option<f64>> {
    let fixture = Fixture {
        name: "start-up".into(),
        script: empty_script.to_path_buf(),
        suite: Suite::Micro,
        reference: Some(String::new()),
    };
    run_fixture(&fixture, engines, options)
        .results
        .iter()
        .map(|r| r.median_ms.filter(|_| r.status == Status::Ok))
        .collect()
}

fn ok_result(engine: &str, checksum: String) -> EngineResult {
    EngineResult {
        engine: engine.into(),
        status: Status::Ok,
        median_ms: None,
        min_ms: None,
        max_ms: None,
        max_rss_kb: None,
        times_ms: Vec::new(),
        cpu_times_ms: Vec::new(),
        cpu_median_ms: None,
        checksum: Some(checksum),
        error: None,
    }
}

fn failed(engine: &str, error: String) -> EngineResult {
    EngineResult {
        status: Status::Failed,
        error: Some(error),
        checksum: None,
        ..ok_result(engine, String::new())
    }
}
