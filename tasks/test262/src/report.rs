//! Results and the committed scoreboard (`conformance/test262.md`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

/// Which headline a scenario counts towards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// `test/language` and `test/built-ins`
    Main,
    AnnexB,
    Intl402,
    /// uses a feature that is not yet stage 4 (features.txt "Proposed")
    Proposal,
    /// `test/harness` (tests of the harness files themselves)
    Harness,
}

impl Class {
    pub fn of(path: &str, features: &[String], proposals: &[String]) -> Class {
        if features.iter().any(|f| proposals.contains(f)) {
            return Class::Proposal;
        }
        if path.starts_with("test/annexB/") {
            Class::AnnexB
        } else if path.starts_with("test/intl402/") {
            Class::Intl402
        } else if path.starts_with("test/harness/") {
            Class::Harness
        } else {
            Class::Main
        }
    }

    fn title(self) -> &'static str {
        match self {
            Class::Main => "main (language + built-ins)",
            Class::AnnexB => "annexB",
            Class::Intl402 => "intl402",
            Class::Proposal => "proposals (not yet stage 4)",
            Class::Harness => "harness",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Pass,
    Fail(String),
    Crash(String),
    Timeout,
    Skipped(String),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub pass: usize,
    pub fail: usize,
    pub crash: usize,
    pub timeout: usize,
    pub skipped: usize,
}

impl Counts {
    pub fn total(&self) -> usize {
        self.pass + self.fail + self.crash + self.timeout + self.skipped
    }
    /// Failed, crashed and timed out: everything that ran and did not pass.
    pub fn failed(&self) -> usize {
        self.fail + self.crash + self.timeout
    }
    pub fn percent(&self) -> f64 {
        if self.total() == 0 {
            0.0
        } else {
            self.pass as f64 * 100.0 / self.total() as f64
        }
    }
    fn add(&mut self, s: &Status) {
        match s {
            Status::Pass => self.pass += 1,
            Status::Fail(_) => self.fail += 1,
            Status::Crash(_) => self.crash += 1,
            Status::Timeout => self.timeout += 1,
            Status::Skipped(_) => self.skipped += 1,
        }
    }
}

/// Every scenario's result, by id.
#[derive(Default)]
pub struct Results {
    by_id: BTreeMap<String, (Class, Status)>,
}

/// Per-class and per-area counts.
pub struct Summary {
    pub classes: BTreeMap<Class, Counts>,
    pub areas: BTreeMap<String, Counts>,
    pub skip_reasons: BTreeMap<String, usize>,
}

impl Results {
    pub fn record(&mut self, id: String, class: Class, status: Status) {
        self.by_id.insert(id, (class, status));
    }

    /// The result of scenario `id`, if the run found it.
    pub fn status(&self, id: &str) -> Option<&Status> {
        self.by_id.get(id).map(|(_, s)| s)
    }

    /// Why a scenario listed as passing did not pass in this run.
    pub fn regression_reason(&self, id: &str) -> String {
        match self.status(id) {
            Some(Status::Fail(m) | Status::Crash(m)) => m.clone(),
            Some(Status::Timeout) => "timeout".into(),
            Some(Status::Skipped(reason)) => format!("skipped ({reason})"),
            Some(Status::Pass) => String::new(),
            None => "not found in the corpus (removed or renamed)".into(),
        }
    }

    pub fn passing(&self) -> Vec<String> {
        self.by_id
            .iter()
            .filter(|(_, (_, s))| *s == Status::Pass)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// `id\tstatus` lines, for `--failures`.
    pub fn lines(&self) -> String {
        let mut out = String::new();
        for (id, (_, s)) in &self.by_id {
            let word = match s {
                Status::Pass => "pass",
                Status::Fail(_) => "fail",
                Status::Crash(_) => "crash",
                Status::Timeout => "timeout",
                Status::Skipped(_) => "skipped",
            };
            let _ = writeln!(out, "{id}\t{word}");
        }
        out
    }

    pub fn counts(&self) -> Summary {
        let mut classes = BTreeMap::new();
        let mut areas: BTreeMap<String, Counts> = BTreeMap::new();
        let mut skip_reasons = BTreeMap::new();
        for (id, (class, status)) in &self.by_id {
            classes
                .entry(*class)
                .or_insert_with(Counts::default)
                .add(status);
            areas.entry(area_of(id)).or_default().add(status);
            if let Status::Skipped(r) = status {
                *skip_reasons.entry(r.clone()).or_insert(0) += 1;
            }
        }
        Summary {
            classes,
            areas,
            skip_reasons,
        }
    }
}

/// The first two path components under `test/`, e.g. `built-ins/Array`.
fn area_of(id: &str) -> String {
    let path = id.strip_prefix("test/").unwrap_or(id);
    let mut parts = path.split('/');
    match (parts.next(), parts.next()) {
        (Some(a), Some(b)) if !b.ends_with(".js") && !b.contains(".js:") => format!("{a}/{b}"),
        (Some(a), _) => a.to_string(),
        _ => String::new(),
    }
}

pub fn print_summary(summary: &Summary, elapsed: Duration) {
    for (class, c) in &summary.classes {
        println!(
            "{:<30} {:>6} / {:>6} passed ({:.2}%), {} failed ({} crash, {} timeout), {} skipped",
            class.title(),
            c.pass,
            c.total(),
            c.percent(),
            c.failed(),
            c.crash,
            c.timeout,
            c.skipped
        );
    }
    let all = summary
        .classes
        .values()
        .fold(Counts::default(), |mut a, c| {
            a.pass += c.pass;
            a.fail += c.fail;
            a.crash += c.crash;
            a.timeout += c.timeout;
            a.skipped += c.skipped;
            a
        });
    println!("elapsed {:.0}s", elapsed.as_secs_f64());
    println!("{} passed, {} failed", all.pass, all.failed());
}

/// Rewrite the scoreboard: current scores, then the history with a new row on top.
pub fn write_scoreboard(
    path: &Path,
    results: &Results,
    summary: &Summary,
    elapsed: Duration,
    commit: &str,
) -> std::io::Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let old_rows: Vec<String> = old
        .split("## History")
        .nth(1)
        .map(|h| {
            h.lines()
                .filter(|l| l.starts_with("| 20"))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let main = summary
        .classes
        .get(&Class::Main)
        .copied()
        .unwrap_or_default();
    let previous_pass: Option<usize> = old_rows
        .first()
        .and_then(|r| r.split('|').nth(3))
        .and_then(|c| c.trim().split(' ').next()?.parse().ok());
    let date = today();
    let delta = match previous_pass {
        Some(p) => format!("{:+}", main.pass as i64 - p as i64),
        None => "—".into(),
    };
    let mut out = String::new();
    let _ = writeln!(out, "# test262 conformance\n");
    let _ = writeln!(
        out,
        "Generated by `cargo run --release -p kiln-test262 -- --update` from test262 commit be13516f \
         (`../shared/test262/`). Counting: every test file under `test/` is one scenario per mode it \
         runs in — sloppy and strict unless its flags say `onlyStrict`, `noStrict`, `raw` (run as is) \
         or `module` (strict only). Each scenario is pass, fail, crash, timeout (10 s) or skipped with a \
         reason; skipped scenarios count as not passed. Tests whose `features` are listed as proposals in \
         `features.txt` are counted apart from the main suite. `tasks/test262/independent_count.py` \
         counts the same denominators straight from the corpus, as a check.\n"
    );
    let _ = writeln!(out, "## Scores\n");
    let _ = writeln!(
        out,
        "| suite | passed | total | % | failed | crashed | timed out | skipped |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for (class, c) in &summary.classes {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.2} | {} | {} | {} | {} |",
            class.title(),
            c.pass,
            c.total(),
            c.percent(),
            c.fail,
            c.crash,
            c.timeout,
            c.skipped
        );
    }
    let _ = writeln!(out, "\n### Skipped, by reason\n");
    for (reason, n) in &summary.skip_reasons {
        let _ = writeln!(out, "- {n}: {reason}");
    }
    let _ = writeln!(out, "\n### By area (most failures first)\n");
    let _ = writeln!(out, "| area | passed | total | % | not passed |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|");
    let mut areas: Vec<_> = summary.areas.iter().collect();
    areas.sort_by_key(|(name, c)| (std::cmp::Reverse(c.total() - c.pass), (*name).clone()));
    for (name, c) in areas {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {:.1} | {} |",
            c.pass,
            c.total(),
            c.percent(),
            c.total() - c.pass
        );
    }
    let _ = writeln!(out, "\n## History\n");
    let _ = writeln!(
        out,
        "| date | commit | main passed | main % | Δ passed | annexB | intl402 | proposals | elapsed |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
    let class_pass = |c: Class| summary.classes.get(&c).map_or(0, |c| c.pass);
    let _ = writeln!(
        out,
        "| {date} | {commit} | {} / {} | {:.2} | {delta} | {} | {} | {} | {:.0}s |",
        main.pass,
        main.total(),
        main.percent(),
        class_pass(Class::AnnexB),
        class_pass(Class::Intl402),
        class_pass(Class::Proposal),
        elapsed.as_secs_f64()
    );
    for row in old_rows {
        let _ = writeln!(out, "{row}");
    }
    let _ = results;
    std::fs::write(path, out)
}

/// Today's date as YYYY-MM-DD (UTC), from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let days = secs.div_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    format!("{:04}-{:02}-{:02}", if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_are_two_components() {
        assert_eq!(
            area_of("test/built-ins/Array/from/a.js:strict"),
            "built-ins/Array"
        );
        assert_eq!(
            area_of("test/language/expressions/x.js:sloppy"),
            "language/expressions"
        );
        assert_eq!(area_of("test/harness/assert.js:strict"), "harness");
    }

    #[test]
    fn proposals_are_classified_first() {
        let proposals = vec!["decorators".to_string()];
        assert_eq!(
            Class::of("test/language/a.js", &["decorators".into()], &proposals),
            Class::Proposal
        );
        assert_eq!(
            Class::of("test/annexB/a.js", &[], &proposals),
            Class::AnnexB
        );
        assert_eq!(
            Class::of("test/built-ins/a.js", &[], &proposals),
            Class::Main
        );
    }

    #[test]
    fn skipped_counts_as_not_passed() {
        let mut c = Counts::default();
        c.add(&Status::Pass);
        c.add(&Status::Skipped("x".into()));
        assert_eq!(c.percent(), 50.0);
        assert_eq!(c.failed(), 0);
    }
}
