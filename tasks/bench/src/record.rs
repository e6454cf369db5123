//! A recorded run: what was measured, serialised as bench/results/*.json and rendered
//! as a Markdown section of BENCHMARKS.md (newest first).

use crate::stats;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRecord {
    /// UTC, `YYYY-MM-DD HH:MM`
    pub date: String,
    /// Kiln's commit (`+dirty` when crates/ or apps/ had uncommitted changes)
    pub commit: String,
    /// CPU model name and core count from /proc/cpuinfo
    pub host: String,
    /// timed runs per fixture and engine, after one warm-up
    pub runs: usize,
    pub engines: Vec<EngineInfo>,
    pub fixtures: Vec<FixtureRecord>,
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EngineInfo {
    pub name: String,
    pub version: String,
    /// the command line, with paths relative to the repository
    pub command: String,
    /// median wall time of a script that does nothing, ms
    #[serde(default)]
    pub startup_ms: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FixtureRecord {
    pub name: String,
    /// `micro`, `octane` or `real` (empty in records older than the suites)
    #[serde(default)]
    pub suite: String,
    /// the checksum every engine had to print (node's, for the real programs); when
    /// absent, the peers were compared with Kiln
    #[serde(default)]
    pub reference: Option<String>,
    /// in the engines' order
    pub results: Vec<EngineResult>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// ran, and printed the reference checksum (or, without one, Kiln's)
    Ok,
    /// ran, but printed another checksum
    Mismatch,
    /// did not finish with exit status 0
    Failed,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EngineResult {
    pub engine: String,
    pub status: Status,
    pub median_ms: Option<f64>,
    pub min_ms: Option<f64>,
    pub max_ms: Option<f64>,
    /// peak resident set size over the runs, KiB
    pub max_rss_kb: Option<u64>,
    pub times_ms: Vec<f64>,
    /// user + system CPU time of each timed run (all threads), ms
    #[serde(default)]
    pub cpu_times_ms: Vec<f64>,
    /// median of `cpu_times_ms`
    #[serde(default)]
    pub cpu_median_ms: Option<f64>,
    pub checksum: Option<String>,
    pub error: Option<String>,
}

impl FixtureRecord {
    pub fn result(&self, engine: &str) -> Option<&EngineResult> {
        self.results.iter().find(|r| r.engine == engine)
    }

    /// Kiln's median over the peer's, when both ran and agree.
    pub fn ratio(&self, peer: &str) -> Option<f64> {
        let kiln = self.result("kiln")?;
        let other = self.result(peer)?;
        if kiln.status != Status::Ok || other.status != Status::Ok {
            return None;
        }
        stats::ratio(kiln.median_ms?, other.median_ms?)
    }
}

impl RunRecord {
    pub fn peers(&self) -> impl Iterator<Item = &EngineInfo> {
        self.engines.iter().filter(|e| e.name != "kiln")
    }

    /// Geomean of Kiln/peer over the fixtures both ran with the right checksum, and how many those were.
    pub fn geomean(&self, peer: &str) -> Option<(f64, usize)> {
        self.geomean_in(peer, None)
    }

    /// `geomean` over one suite's fixtures, or over all of them.
    pub fn geomean_in(&self, peer: &str, suite: Option<&str>) -> Option<(f64, usize)> {
        let ratios: Vec<f64> = self
            .fixtures
            .iter()
            .filter(|f| suite.is_none_or(|s| f.suite == s))
            .filter_map(|f| f.ratio(peer))
            .collect();
        stats::geomean(&ratios).map(|g| (g, ratios.len()))
    }

    /// The suites of the fixtures, in the order they first appear (empty for old records).
    fn suites(&self) -> Vec<&str> {
        let mut suites: Vec<&str> = Vec::new();
        for f in &self.fixtures {
            if !f.suite.is_empty() && !suites.contains(&f.suite.as_str()) {
                suites.push(&f.suite);
            }
        }
        suites
    }

    pub fn file_name(&self) -> String {
        let stamp: String = self.date.chars().filter(|c| c.is_ascii_digit()).collect();
        let (day, time) = stamp.split_at(stamp.len().min(8));
        format!("{day}-{time}-{}.json", self.commit.replace('+', "-"))
    }

    /// The Markdown section for BENCHMARKS.md; `previous` is the last record from the same host.
    pub fn markdown(&self, previous: Option<&RunRecord>) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "## {} · commit {}\n", self.date, self.commit);
        let _ = writeln!(
            md,
            "Host: {}. {} timed runs per fixture and engine after one warm-up, interleaved across engines.\n",
            self.host, self.runs
        );
        md.push_str("| engine | version | command | start-up ms |\n|---|---|---|---|\n");
        for e in &self.engines {
            let startup = e.startup_ms.map_or("–".into(), |ms| format!("{ms:.0}"));
            let _ = writeln!(
                md,
                "| {} | {} | `{}` | {startup} |",
                e.name, e.version, e.command
            );
        }

        md.push_str("\n**Kiln/peer, geometric mean** (above 1: Kiln is slower), over the fixtures both ran with the right checksum (and how many):\n\n");
        let suites = self.suites();
        let mut columns: Vec<Option<&str>> = vec![None];
        if suites.len() > 1 {
            columns.extend(suites.iter().map(|s| Some(*s)));
        }
        let headers: Vec<String> = columns
            .iter()
            .map(|c| match c {
                None => "all".to_string(),
                Some(s) => s.to_string(),
            })
            .collect();
        let _ = writeln!(md, "| peer | {} |", headers.join(" | "));
        let _ = writeln!(md, "|---|{}", "---|".repeat(columns.len()));
        for peer in self.peers() {
            let cells: Vec<String> = columns
                .iter()
                .map(|suite| match self.geomean_in(&peer.name, *suite) {
                    Some((g, n)) => format!("{g:.2} ({n})"),
                    None => "– (0)".into(),
                })
                .collect();
            let _ = writeln!(md, "| {} | {} |", peer.name, cells.join(" | "));
        }

        md.push_str("\n**Wall time**, median ms (min–max), and peak RSS:\n\n");
        let names: Vec<&str> = self.engines.iter().map(|e| e.name.as_str()).collect();
        let _ = writeln!(md, "| fixture | {} |", names.join(" | "));
        let _ = writeln!(md, "|---|{}", "---|".repeat(names.len()));
        for fixture in &self.fixtures {
            let cells: Vec<String> = names.iter().map(|n| cell(fixture.result(n))).collect();
            let _ = writeln!(md, "| {} | {} |", fixture.name, cells.join(" | "));
        }

        md.push_str("\n**Ratios Kiln/peer** per fixture:\n\n");
        let peers: Vec<&str> = self.peers().map(|e| e.name.as_str()).collect();
        let _ = writeln!(md, "| fixture | {} |", peers.join(" | "));
        let _ = writeln!(md, "|---|{}", "---|".repeat(peers.len()));
        for fixture in &self.fixtures {
            let cells: Vec<String> = peers
                .iter()
                .map(|p| fixture.ratio(p).map_or("–".into(), |r| format!("{r:.2}")))
                .collect();
            let _ = writeln!(md, "| {} | {} |", fixture.name, cells.join(" | "));
        }
        let cells: Vec<String> = peers
            .iter()
            .map(|p| {
                self.geomean(p)
                    .map_or("–".into(), |(g, _)| format!("**{g:.2}**"))
            })
            .collect();
        let _ = writeln!(md, "| **geomean** | {} |", cells.join(" | "));

        let problems: Vec<String> = self
            .fixtures
            .iter()
            .flat_map(|f| f.results.iter().map(move |r| (f, r)))
            .filter(|(_, r)| r.status != Status::Ok)
            .map(|(f, r)| match r.status {
                Status::Failed => format!(
                    "- {} on {}: failed: {}",
                    f.name,
                    r.engine,
                    r.error.as_deref().unwrap_or("?")
                ),
                _ => format!(
                    "- {} on {}: checksum `{}` differs from {}",
                    f.name,
                    r.engine,
                    short(r.checksum.as_deref().unwrap_or("")),
                    match &f.reference {
                        Some(reference) => format!("node's `{}`", short(reference)),
                        None => format!(
                            "Kiln's `{}`",
                            short(
                                f.result("kiln")
                                    .and_then(|k| k.checksum.as_deref())
                                    .unwrap_or("")
                            )
                        ),
                    }
                ),
            })
            .collect();
        if !problems.is_empty() {
            md.push_str("\n**Failures and checksum mismatches:**\n\n");
            for p in problems {
                md.push_str(&p);
                md.push('\n');
            }
        }

        md.push_str("\n**Δ versus the previous run on this host:** ");
        match previous {
            None => md.push_str("none (first run recorded on this host).\n"),
            Some(prev) => {
                let _ = writeln!(md, "{} · commit {}.\n", prev.date, prev.commit);
                md.push_str(&delta_table(prev, self));
            }
        }
        if let Some(note) = &self.note {
            let _ = writeln!(md, "\n{note}");
        }
        md
    }
}

/// Kiln's own medians, then and now, and each peer's geomean then and now.
fn delta_table(prev: &RunRecord, now: &RunRecord) -> String {
    let mut md =
        String::from("| fixture | Kiln before ms | Kiln now ms | Δ |\n|---|---|---|---|\n");
    for fixture in &now.fixtures {
        let now_ms = fixture
            .result("kiln")
            .filter(|r| r.status == Status::Ok)
            .and_then(|r| r.median_ms);
        let before_ms = prev
            .fixtures
            .iter()
            .find(|f| f.name == fixture.name)
            .and_then(|f| f.result("kiln"))
            .filter(|r| r.status == Status::Ok)
            .and_then(|r| r.median_ms);
        let fmt = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.0}"));
        let delta = match (before_ms, now_ms) {
            (Some(b), Some(n)) => format!("{:+.1} %", (n / b - 1.0) * 100.0),
            _ => "–".into(),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {delta} |",
            fixture.name,
            fmt(before_ms),
            fmt(now_ms)
        );
    }
    md.push_str("\n| peer | geomean before | geomean now |\n|---|---|---|\n");
    for peer in now.peers() {
        let fmt = |g: Option<(f64, usize)>| g.map_or("–".into(), |(g, _)| format!("{g:.2}"));
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            peer.name,
            fmt(prev.geomean(&peer.name)),
            fmt(now.geomean(&peer.name))
        );
    }
    md
}

fn cell(result: Option<&EngineResult>) -> String {
    let Some(r) = result else { return "–".into() };
    if r.status == Status::Failed {
        return "FAIL".into();
    }
    let (Some(median), Some(min), Some(max)) = (r.median_ms, r.min_ms, r.max_ms) else {
        return "–".into();
    };
    let rss = r.max_rss_kb.map_or(String::new(), |kb| {
        format!(" · {:.0} MB", kb as f64 / 1024.0)
    });
    let flag = if r.status == Status::Mismatch {
        " **≠**"
    } else {
        ""
    };
    format!("{median:.0} ({min:.0}–{max:.0}){rss}{flag}")
}

fn short(text: &str) -> String {
    let one_line = text.replace('\n', " ⏎ ");
    if one_line.chars().count() > 60 {
        format!("{}…", one_line.chars().take(60).collect::<String>())
    } else {
        one_line
    }
}

/// All recorded runs in `dir`, oldest first (file names start with the date).
pub fn load_all(dir: &Path) -> Vec<(PathBuf, RunRecord)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            let record: RunRecord = serde_json::from_str(&text).ok()?;
            Some((p, record))
        })
        .collect()
}

/// The newest recorded run from `host` that measured any of the fixtures `names`.
pub fn last_on_host(dir: &Path, host: &str, names: &[&str]) -> Option<RunRecord> {
    load_all(dir)
        .into_iter()
        .rev()
        .map(|(_, r)| r)
        .find(|r| r.host == host && r.fixtures.iter().any(|f| names.contains(&f.name.as_str())))
}

/// For every fixture Kiln passed in some recorded run from `host`: that fixture in the
/// newest such run, with the run's date and commit. Sorted by fixture name.
pub fn last_passed_on_host(dir: &Path, host: &str) -> Vec<(String, FixtureRecord)> {
    let mut found: BTreeMap<String, (String, FixtureRecord)> = BTreeMap::new();
    for (_, run) in load_all(dir)
        .into_iter()
        .rev()
        .filter(|(_, r)| r.host == host)
    {
        for fixture in &run.fixtures {
            let passed = fixture
                .result("kiln")
                .is_some_and(|r| r.status == Status::Ok);
            if passed && !found.contains_key(&fixture.name) {
                let label = format!("{} · commit {}", run.date, run.commit);
                found.insert(fixture.name.clone(), (label, fixture.clone()));
            }
        }
    }
    found.into_values().collect()
}

pub const HISTORY_MARKER: &str = "<!-- kiln-bench: recorded runs below, newest first -->";

/// Puts `section` first under the marker in BENCHMARKS.md's text.
pub fn insert_section(history: &str, section: &str) -> String {
    match history.find(HISTORY_MARKER) {
        Some(at) => {
            let split = at + HISTORY_MARKER.len();
            format!(
                "{}\n\n{}\n{}",
                &history[..split],
                section.trim_end(),
                history[split..]
                    .trim_start_matches('\n')
                    .trim_end()
                    .to_string()
                    + "\n"
            )
            .replace("\n\n\n", "\n\n")
        }
        None => format!(
            "{}\n\n{HISTORY_MARKER}\n\n{}\n",
            history.trim_end(),
            section.trim_end()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(engine: &str, status: Status, median: f64, checksum: &str) -> EngineResult {
        EngineResult {
            engine: engine.into(),
            status,
            median_ms: Some(median),
            min_ms: Some(median),
            max_ms: Some(median),
            max_rss_kb: Some(1024),
            times_ms: vec![median],
            cpu_times_ms: vec![median],
            cpu_median_ms: Some(median),
            checksum: Some(checksum.into()),
            error: None,
        }
    }

    fn record() -> RunRecord {
        let engines = ["kiln", "quickjs"]
            .iter()
            .map(|n| EngineInfo {
                name: n.to_string(),
                version: "1".into(),
                command: n.to_string(),
                startup_ms: Some(20.0),
            })
            .collect();
        RunRecord {
            date: "2026-11-22 01:00".into(),
            commit: "abc1234".into(),
            host: "Test CPU, 2 cores".into(),
            runs: 3,
            engines,
            fixtures: vec![
                FixtureRecord {
                    name: "a".into(),
                    suite: "micro".into(),
                    reference: None,
                    results: vec![
                        result("kiln", Status::Ok, 200.0, "1"),
                        result("quickjs", Status::Ok, 100.0, "1"),
                    ],
                },
                FixtureRecord {
                    name: "b".into(),
                    suite: "micro".into(),
                    reference: None,
                    results: vec![
                        result("kiln", Status::Ok, 400.0, "2"),
                        result("quickjs", Status::Ok, 50.0, "2"),
                    ],
                },
                FixtureRecord {
                    name: "c".into(),
                    suite: "real".into(),
                    reference: Some("3".into()),
                    results: vec![
                        result("kiln", Status::Ok, 100.0, "3"),
                        result("quickjs", Status::Mismatch, 10.0, "4"),
                    ],
                },
            ],
            note: None,
        }
    }

    #[test]
    fn geomean_skips_mismatches() {
        let (g, n) = record().geomean("quickjs").unwrap();
        assert_eq!(n, 2);
        assert!((g - 4.0).abs() < 1e-9); // sqrt(2 * 8)
    }

    #[test]
    fn markdown_flags_mismatch_and_round_trips_json() {
        let rec = record();
        let md = rec.markdown(Some(&rec));
        assert!(md.contains("c on quickjs: checksum `4` differs from node's `3`"));
        assert!(md.contains("| **geomean** | **4.00** |"));
        assert!(md.contains("| peer | all | micro | real |\n|---|---|---|---|\n| quickjs | 4.00 (2) | 4.00 (2) | – (0) |"));
        assert!(md.contains("| kiln | 1 | `kiln` | 20 |"));
        let back: RunRecord = serde_json::from_str(&serde_json::to_string(&rec).unwrap()).unwrap();
        assert_eq!(back.fixtures.len(), 3);
        assert_eq!(rec.file_name(), "20261122-0100-abc1234.json");
    }

    #[test]
    fn records_from_before_the_suites_still_load() {
        let mut json: serde_json::Value = serde_json::to_value(record()).unwrap();
        for fixture in json["fixtures"].as_array_mut().unwrap() {
            let fixture = fixture.as_object_mut().unwrap();
            fixture.remove("suite");
            fixture.remove("reference");
        }
        let old: RunRecord = serde_json::from_value(json).unwrap();
        assert_eq!(old.fixtures[2].suite, "");
        assert_eq!(old.geomean_in("quickjs", Some("micro")), None);
        assert_eq!(old.geomean("quickjs").unwrap().1, 2);
    }

    #[test]
    fn check_compares_each_fixture_with_its_newest_passing_run() {
        let dir = std::env::temp_dir().join(format!("kiln-bench-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let older = record();
        let mut newer = record();
        newer.date = "2026-11-23 01:00".into();
        newer.commit = "def5678".into();
        // The newer run measured only `a`, and Kiln failed `b` in it.
        newer.fixtures.truncate(2);
        newer.fixtures[1].results[0].status = Status::Failed;
        for rec in [&older, &newer] {
            let json = serde_json::to_string(rec).unwrap();
            std::fs::write(dir.join(rec.file_name()), json).unwrap();
        }
        let last = last_passed_on_host(&dir, "Test CPU, 2 cores");
        let runs: Vec<(&str, &str)> = last
            .iter()
            .map(|(run, f)| (f.name.as_str(), run.as_str()))
            .collect();
        assert_eq!(
            runs,
            [
                ("a", "2026-11-23 01:00 · commit def5678"),
                ("b", "2026-11-22 01:00 · commit abc1234"),
                ("c", "2026-11-22 01:00 · commit abc1234"),
            ]
        );
        assert!(last_passed_on_host(&dir, "Other CPU").is_empty());
        let previous = last_on_host(&dir, "Test CPU, 2 cores", &["c"]).unwrap();
        assert_eq!(previous.commit, "abc1234");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sections_go_newest_first() {
        let doc = format!("# Benchmarks\n\nintro\n\n{HISTORY_MARKER}\n\n## old\n");
        let doc = insert_section(&doc, "## new\n");
        let new_at = doc.find("## new").unwrap();
        let old_at = doc.find("## old").unwrap();
        assert!(doc.find(HISTORY_MARKER).unwrap() < new_at && new_at < old_at);
    }
}
