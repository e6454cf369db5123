//! The fixtures: micro-benchmarks in bench/fixtures/*.js, and the six Octane programs
//! read from ../shared/bench/octane/ and joined with bench/octane/driver.js into one
//! generated file each (under build/bench/, never committed), so every engine runs
//! exactly the same single source.

use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Fixture {
    pub name: String,
    /// the script every engine runs
    pub script: PathBuf,
}

/// Octane programs in the order Octane lists them.
pub const OCTANE: &[&str] = &[
    "richards",
    "deltablue",
    "crypto",
    "raytrace",
    "navier-stokes",
    "splay",
];

/// Where the Octane sources are: `$KILN_OCTANE_DIR`, else ../shared/bench/octane beside the repository.
pub fn octane_dir(root: &Path) -> PathBuf {
    std::env::var_os("KILN_OCTANE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/bench/octane"))
}

/// Every fixture, micro-benchmarks first (sorted by name), then Octane (as `octane-NAME`).
/// The Octane files are (re)generated on each call.
pub fn all(root: &Path) -> Result<Vec<Fixture>, String> {
    let dir = root.join("bench/fixtures");
    let mut micro: Vec<Fixture> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|p| p.extension().is_some_and(|e| e == "js"))
        .map(|script| Fixture {
            name: script.file_stem().unwrap().to_string_lossy().into_owned(),
            script,
        })
        .collect();
    micro.sort_by(|a, b| a.name.cmp(&b.name));

    let source = octane_dir(root);
    if !source.join("base.js").is_file() {
        eprintln!(
            "kiln-bench: no Octane sources in {}; Octane fixtures skipped",
            source.display()
        );
        return Ok(micro);
    }
    let out_dir = root.join("build/bench/octane");
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let driver = root.join("bench/octane/driver.js");
    for program in OCTANE {
        let mut text = String::new();
        for part in [
            source.join("base.js"),
            source.join(format!("{program}.js")),
            driver.clone(),
        ] {
            let body = std::fs::read_to_string(&part)
                .map_err(|e| format!("cannot read {}: {e}", part.display()))?;
            text.push_str(&body);
            text.push('\n');
        }
        let script = out_dir.join(format!("{program}.js"));
        std::fs::write(&script, text).map_err(|e| e.to_string())?;
        micro.push(Fixture {
            name: format!("octane-{program}"),
            script,
        });
    }
    Ok(micro)
}

/// Keeps the fixtures named in `wanted` (comma-separated; `octane` means all six).
pub fn select(all: Vec<Fixture>, wanted: Option<&str>) -> Result<Vec<Fixture>, String> {
    let Some(wanted) = wanted else { return Ok(all) };
    let names: Vec<&str> = wanted
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    for name in &names {
        let known = all.iter().any(|f| f.name == *name) || *name == "octane";
        if !known {
            return Err(format!(
                "unknown fixture {name:?}; `kiln-bench list` shows them"
            ));
        }
    }
    Ok(all
        .into_iter()
        .filter(|f| {
            names.contains(&f.name.as_str())
                || (names.contains(&"octane") && f.name.starts_with("octane-"))
        })
        .collect())
}
