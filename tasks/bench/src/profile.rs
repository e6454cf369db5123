//! Profiles one fixture on one engine and renders a flame graph (SVG, through the
//! `inferno` crate) plus a text table of the functions with the most self time.
//!
//! Two profilers: `perf record` with call stacks (DWARF unwinding; Kiln's release
//! profile keeps line tables) when the CPU's instruction counter is readable, else
//! `valgrind --tool=callgrind`, whose instruction counts are exact and repeatable on
//! a noisy machine but which records caller→callee edges, not whole stacks: the
//! flame graph then splits each function's cost over its callers in proportion to
//! the edges' inclusive costs, which is exact for trees and an estimate where a
//! function is reached along several paths. The self-time table is exact either way.

use crate::engines::Engine;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Profiler {
    /// perf if the instruction counter works (`perf stat -e instructions true`), else callgrind
    Auto,
    /// perf record (cycles, or cpu-clock sampling when hardware counters are unavailable)
    Perf,
    /// valgrind --tool=callgrind (instruction counts)
    Callgrind,
}

pub struct Output {
    pub svg: PathBuf,
    pub table: PathBuf,
    pub folded: PathBuf,
    pub top: String,
}

/// True when `perf stat -e instructions true` counts instructions (not "<not supported>").
pub fn hardware_counters_work() -> bool {
    let Ok(out) = Command::new("perf")
        .args(["stat", "-x,", "-e", "instructions", "true"])
        .output()
    else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stderr);
    out.status.success()
        && text.lines().any(|l| {
            l.contains("instructions") && !l.contains("not supported") && !l.contains("not counted")
        })
}

pub fn profile(
    engine: &Engine,
    fixture_name: &str,
    script: &Path,
    out_dir: &Path,
    profiler: Profiler,
    top: usize,
    frequency: u32,
) -> Result<Output, String> {
    std::fs::create_dir_all(out_dir).map_err(|e| e.to_string())?;
    let stem = out_dir.join(format!("{fixture_name}-{}", engine.name));
    let hardware = hardware_counters_work();
    let use_perf = match profiler {
        Profiler::Perf => true,
        Profiler::Callgrind => false,
        Profiler::Auto => hardware,
    };
    let (folded, self_costs, unit) = if use_perf {
        let event = if hardware { "cycles" } else { "cpu-clock" };
        eprintln!("kiln-bench: perf record -e {event} (call stacks by DWARF unwinding)");
        let folded = perf_folded(engine, script, &stem, event, frequency)?;
        let self_costs = self_from_folded(&folded);
        (folded, self_costs, "samples")
    } else {
        eprintln!("kiln-bench: valgrind --tool=callgrind (this runs ~50x slower than native)");
        let graphs = callgrind(engine, script, &stem)?;
        let folded: Vec<String> = graphs.iter().flat_map(CallGraph::folded).collect();
        let mut self_costs: HashMap<String, u64> = HashMap::new();
        for graph in &graphs {
            for (name, cost) in &graph.self_cost {
                *self_costs.entry(name.clone()).or_default() += cost;
            }
        }
        (folded, self_costs, "instructions")
    };

    let folded_path = with_suffix(&stem, "folded");
    std::fs::write(&folded_path, folded.join("\n")).map_err(|e| e.to_string())?;

    let svg_path = with_suffix(&stem, "svg");
    let mut options = inferno::flamegraph::Options::default();
    options.title = format!(
        "{fixture_name} on {} ({})",
        engine.name,
        if use_perf { "perf" } else { "callgrind" }
    );
    options.count_name = unit.to_string();
    let svg = std::fs::File::create(&svg_path).map_err(|e| e.to_string())?;
    inferno::flamegraph::from_lines(&mut options, folded.iter().map(String::as_str), svg)
        .map_err(|e| format!("flame graph: {e}"))?;

    let top_text = top_table(&self_costs, top, unit);
    let table_path = with_suffix(&stem, "txt");
    std::fs::write(&table_path, &top_text).map_err(|e| e.to_string())?;
    Ok(Output {
        svg: svg_path,
        table: table_path,
        folded: folded_path,
        top: top_text,
    })
}

/// `stem.EXTENSION`, keeping every dot already in the stem (`highlight.js-kiln.svg`).
fn with_suffix(stem: &Path, extension: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_os_string();
    name.push(".");
    name.push(extension);
    PathBuf::from(name)
}

/// `program` (perf or valgrind) with the engine's environment; the script's own output is dropped.
fn base_command(program: &str, engine: &Engine) -> Command {
    let mut command = Command::new(program);
    for (k, v) in &engine.env {
        command.env(k, v);
    }
    command.stdout(Stdio::null());
    command
}

fn perf_folded(
    engine: &Engine,
    script: &Path,
    stem: &Path,
    event: &str,
    frequency: u32,
) -> Result<Vec<String>, String> {
    let data = with_suffix(stem, "perf.data");
    let status = base_command("perf", engine)
        .args([
            "record",
            "-e",
            event,
            "-F",
            &frequency.to_string(),
            "--call-graph",
            "dwarf,32768",
            "-q",
            "-o",
        ])
        .arg(&data)
        .arg("--")
        .arg(&engine.program)
        .args(&engine.args)
        .arg(script)
        .status()
        .map_err(|e| format!("cannot run perf: {e}"))?;
    if !status.success() {
        return Err(format!("perf record exited with {status}"));
    }
    let script_out = Command::new("perf")
        .args(["script", "-i"])
        .arg(&data)
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("perf script: {e}"))?;
    let mut folder = inferno::collapse::perf::Folder::default();
    let mut collapsed = Vec::new();
    inferno::collapse::Collapse::collapse(&mut folder, &script_out.stdout[..], &mut collapsed)
        .map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&collapsed)
        .lines()
        .map(str::to_string)
        .collect())
}

/// Self cost per function from folded stacks (the last frame of each stack).
fn self_from_folded(folded: &[String]) -> HashMap<String, u64> {
    let mut costs = HashMap::new();
    for line in folded {
        let Some((stack, count)) = line.rsplit_once(' ') else {
            continue;
        };
        let leaf = stack.rsplit(';').next().unwrap_or(stack);
        *costs.entry(leaf.to_string()).or_default() += count.parse::<u64>().unwrap_or(0);
    }
    costs
}

fn top_table(costs: &HashMap<String, u64>, top: usize, unit: &str) -> String {
    let total: u64 = costs.values().sum();
    let mut rows: Vec<(&String, &u64)> = costs.iter().collect();
    rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut text = format!(
        "top {top} functions by self time ({total} {unit} in all)\n\n  self %   {unit:>14}  function\n"
    );
    for (name, cost) in rows.into_iter().take(top) {
        let share = if total > 0 {
            *cost as f64 * 100.0 / total as f64
        } else {
            0.0
        };
        let name: String = name.chars().take(140).collect();
        text.push_str(&format!("{share:7.2}%  {cost:>14}  {name}\n"));
    }
    text
}

/// Runs callgrind with one output file per thread (Kiln runs scripts on a worker
/// thread; a thread's calls have their own roots only in a file of their own) and
/// returns each thread's call graph.
fn callgrind(engine: &Engine, script: &Path, stem: &Path) -> Result<Vec<CallGraph>, String> {
    let out = with_suffix(stem, "callgrind");
    let dir = out.parent().unwrap_or(Path::new("."));
    let prefix = out
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let old: Vec<PathBuf> = thread_files(dir, &prefix);
    for file in old {
        let _ = std::fs::remove_file(file);
    }
    let status = base_command("valgrind", engine)
        .arg("--tool=callgrind")
        .arg("--separate-threads=yes")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg("-q")
        .arg(&engine.program)
        .args(&engine.args)
        .arg(script)
        .status()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    if !status.success() {
        return Err(format!("valgrind exited with {status}"));
    }
    let mut graphs = Vec::new();
    for file in thread_files(dir, &prefix) {
        let reader = std::fs::File::open(&file).map_err(|e| e.to_string())?;
        graphs.push(CallGraph::parse(BufReader::new(reader)).map_err(|e| e.to_string())?);
    }
    if graphs.is_empty() {
        return Err(format!(
            "callgrind wrote no {prefix}* file in {}",
            dir.display()
        ));
    }
    Ok(graphs)
}

/// `prefix` itself and its per-thread variants `prefix-01`, `prefix-02`, ... in `dir`.
fn thread_files(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    let name = p.file_name().unwrap_or_default().to_string_lossy();
                    name == prefix
                        || name
                            .strip_prefix(prefix)
                            .is_some_and(|rest| rest.starts_with('-'))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Self costs and caller→callee inclusive costs from a callgrind output file.
#[derive(Debug, Default)]
pub struct CallGraph {
    pub self_cost: HashMap<String, u64>,
    pub calls: HashMap<String, HashMap<String, u64>>,
}

impl CallGraph {
    pub fn parse(reader: impl BufRead) -> std::io::Result<CallGraph> {
        let mut graph = CallGraph::default();
        let mut names: HashMap<String, String> = HashMap::new();
        let mut positions = 1usize;
        let mut current = String::new();
        let mut callee = String::new();
        let mut call_cost_next = false;
        for line in reader.lines() {
            let line = line?;
            let first = line.as_bytes().first().copied().unwrap_or(b'#');
            if first.is_ascii_digit() || first == b'+' || first == b'-' || first == b'*' {
                let cost: u64 = line
                    .split_whitespace()
                    .nth(positions)
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0);
                if call_cost_next {
                    *graph
                        .calls
                        .entry(current.clone())
                        .or_default()
                        .entry(callee.clone())
                        .or_default() += cost;
                    call_cost_next = false;
                } else {
                    *graph.self_cost.entry(current.clone()).or_default() += cost;
                }
            } else if let Some(rest) = line.strip_prefix("fn=") {
                current = intern(&mut names, rest);
                graph.self_cost.entry(current.clone()).or_default();
            } else if let Some(rest) = line.strip_prefix("cfn=") {
                callee = intern(&mut names, rest);
            } else if line.starts_with("calls=") {
                call_cost_next = true;
            } else if let Some(rest) = line.strip_prefix("positions:") {
                positions = rest.split_whitespace().count().max(1);
            }
        }
        Ok(graph)
    }

    /// Folded stacks (`root;caller;callee cost`), each function's cost split over the
    /// paths that reach it in proportion to the inclusive cost of each call edge.
    pub fn folded(&self) -> Vec<String> {
        let called: std::collections::HashSet<&String> =
            self.calls.values().flat_map(|m| m.keys()).collect();
        let mut roots: Vec<&String> = self
            .self_cost
            .keys()
            .filter(|f| !called.contains(f))
            .collect();
        roots.sort();
        let total: u64 = self.self_cost.values().sum();
        let floor = (total as f64 * 0.00002).max(1.0);
        let mut out: HashMap<String, f64> = HashMap::new();
        for root in roots {
            let budget = self.self_cost[root] as f64
                + self
                    .calls
                    .get(root)
                    .map_or(0.0, |m| m.values().map(|c| *c as f64).sum());
            let mut path = vec![root.as_str()];
            self.spread(root, budget, &mut path, floor, &mut out);
        }
        let mut lines: Vec<String> = out
            .into_iter()
            .filter(|(_, v)| *v >= 0.5)
            .map(|(stack, v)| format!("{stack} {}", v.round() as u64))
            .collect();
        lines.sort();
        lines
    }

    fn spread<'a>(
        &'a self,
        function: &'a str,
        budget: f64,
        path: &mut Vec<&'a str>,
        floor: f64,
        out: &mut HashMap<String, f64>,
    ) {
        let own = self.self_cost.get(function).copied().unwrap_or(0) as f64;
        let edges: Vec<(&'a String, f64)> = self
            .calls
            .get(function)
            .map(|m| {
                m.iter()
                    .filter(|(g, _)| !path.contains(&g.as_str()))
                    .map(|(g, c)| (g, *c as f64))
                    .collect()
            })
            .unwrap_or_default();
        let whole = own + edges.iter().map(|(_, c)| c).sum::<f64>();
        if whole <= 0.0 {
            return;
        }
        let mut kept = budget * own / whole;
        for (callee, cost) in edges {
            let share = budget * cost / whole;
            if share < floor || path.len() >= 96 {
                kept += share;
                continue;
            }
            path.push(callee);
            self.spread(callee, share, path, floor, out);
            path.pop();
        }
        if kept > 0.0 {
            let stack: Vec<String> = path.iter().map(|f| f.replace(';', ":")).collect();
            *out.entry(stack.join(";")).or_default() += kept;
        }
    }
}

/// Resolves callgrind's name compression: `(12) name` defines id 12, `(12)` refers to it.
fn intern(names: &mut HashMap<String, String>, text: &str) -> String {
    let text = text.trim();
    if let Some((id, name)) = text.strip_prefix('(').and_then(|rest| rest.split_once(')')) {
        let name = name.trim();
        if name.is_empty() {
            return names.get(id).cloned().unwrap_or_else(|| format!("fn#{id}"));
        }
        names.insert(id.to_string(), name.to_string());
        return name.to_string();
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_names_keep_the_dots_of_the_fixture_name() {
        let stem = Path::new("build/profiles/highlight.js-kiln");
        assert_eq!(
            with_suffix(stem, "perf.data"),
            Path::new("build/profiles/highlight.js-kiln.perf.data")
        );
    }

    const SAMPLE: &str = "\
version: 1
positions: line
events: Ir
fl=(1) main.c
fn=(1) main
1 10
cfn=(2) work
calls=2 5
3 100
cfn=(3) log
calls=1 9
4 20
fn=(2)
5 60
cfn=(3)
calls=1 9
6 40
fn=(3)
9 60
";

    #[test]
    fn parses_self_costs_and_edges() {
        let graph = CallGraph::parse(SAMPLE.as_bytes()).unwrap();
        assert_eq!(graph.self_cost["main"], 10);
        assert_eq!(graph.self_cost["work"], 60);
        assert_eq!(graph.self_cost["log"], 60);
        assert_eq!(graph.calls["main"]["work"], 100);
        assert_eq!(graph.calls["work"]["log"], 40);
    }

    #[test]
    fn folded_stacks_split_shared_callees_by_edge_cost() {
        let graph = CallGraph::parse(SAMPLE.as_bytes()).unwrap();
        let folded = graph.folded();
        assert_eq!(
            folded,
            vec!["main 10", "main;log 20", "main;work 60", "main;work;log 40"]
        );
        let self_costs = self_from_folded(&folded);
        assert_eq!(self_costs["log"], 60);
    }
}
