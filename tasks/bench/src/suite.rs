//! The fixtures, in three suites: micro-benchmarks in bench/fixtures/*.js; the six
//! Octane programs read from ../shared/bench/octane/ and joined with
//! bench/octane/driver.js into one generated file each (under build/bench/, never
//! committed), so every engine runs exactly the same single source; and the real
//! programs, npm libraries on generated inputs (see `real`).

use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Fixture {
    pub name: String,
    /// the script every engine runs
    pub script: PathBuf,
    pub suite: Suite,
    /// the checksum every engine must print (node's, for the real programs); without
    /// one, the peers are compared with Kiln
    pub reference: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    Micro,
    Octane,
    Real,
}

impl Suite {
    pub const ALL: [Suite; 3] = [Suite::Micro, Suite::Octane, Suite::Real];

    pub fn name(self) -> &'static str {
        match self {
            Suite::Micro => "micro",
            Suite::Octane => "octane",
            Suite::Real => "real",
        }
    }

    pub fn parse(name: &str) -> Option<Suite> {
        Suite::ALL.into_iter().find(|s| s.name() == name)
    }
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

/// Every fixture: micro-benchmarks (sorted by name), Octane (as `octane-NAME`), then the
/// real programs (by library name). The Octane and real-program scripts are
/// (re)generated on each call.
pub fn all(root: &Path) -> Result<Vec<Fixture>, String> {
    let mut fixtures = micro_and_octane(root)?;
    match crate::real::generate(root)? {
        Some(real) => {
            for generated in real {
                if fixtures.iter().any(|f| f.name == generated.name) {
                    return Err(format!(
                        "the real program {:?} has the name of another fixture",
                        generated.name
                    ));
                }
                fixtures.push(Fixture {
                    name: generated.name,
                    script: generated.script,
                    suite: Suite::Real,
                    reference: Some(generated.reference),
                });
            }
        }
        None => eprintln!(
            "kiln-bench: the real-programs suite is not installed (`kiln-bench install`); skipped"
        ),
    }
    Ok(fixtures)
}

fn micro_and_octane(root: &Path) -> Result<Vec<Fixture>, String> {
    let dir = root.join("bench/fixtures");
    let mut micro: Vec<Fixture> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|p| p.extension().is_some_and(|e| e == "js"))
        .map(|script| Fixture {
            name: script.file_stem().unwrap().to_string_lossy().into_owned(),
            script,
            suite: Suite::Micro,
            reference: None,
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
            suite: Suite::Octane,
            reference: None,
        });
    }
    Ok(micro)
}

/// Keeps the fixtures of the suites in `suites` (comma-separated names; all when `None`)
/// that are named in `wanted` (comma-separated fixture or suite names, so `octane`
/// means all six Octane programs and `real` all real programs; all when `None`).
pub fn select(
    all: Vec<Fixture>,
    suites: Option<&str>,
    wanted: Option<&str>,
) -> Result<Vec<Fixture>, String> {
    let suites: Vec<Suite> = match suites {
        None => Suite::ALL.to_vec(),
        Some(list) => names(list)
            .iter()
            .map(|n| {
                Suite::parse(n).ok_or_else(|| {
                    format!("unknown suite {n:?}; the suites are micro, octane and real")
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let all: Vec<Fixture> = all
        .into_iter()
        .filter(|f| suites.contains(&f.suite))
        .collect();
    let Some(wanted) = wanted else { return Ok(all) };
    let names = names(wanted);
    for name in &names {
        let known = all.iter().any(|f| f.name == *name) || Suite::parse(name).is_some();
        if !known {
            return Err(format!(
                "unknown fixture {name:?}; `kiln-bench list` shows them"
            ));
        }
    }
    Ok(all
        .into_iter()
        .filter(|f| names.contains(&f.name.as_str()) || names.contains(&f.suite.name()))
        .collect())
}

fn names(list: &str) -> Vec<&str> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixtures() -> Vec<Fixture> {
        [
            ("arith", Suite::Micro),
            ("octane-splay", Suite::Octane),
            ("acorn", Suite::Real),
            ("zod", Suite::Real),
        ]
        .into_iter()
        .map(|(name, suite)| Fixture {
            name: name.into(),
            script: PathBuf::from(format!("{name}.js")),
            suite,
            reference: None,
        })
        .collect()
    }

    fn names(selected: Result<Vec<Fixture>, String>) -> Vec<String> {
        selected.unwrap().into_iter().map(|f| f.name).collect()
    }

    #[test]
    fn selects_by_suite_and_by_name() {
        assert_eq!(names(select(fixtures(), None, None)).len(), 4);
        assert_eq!(
            names(select(fixtures(), Some("real"), None)),
            ["acorn", "zod"]
        );
        assert_eq!(
            names(select(fixtures(), Some("micro,octane"), None)),
            ["arith", "octane-splay"]
        );
        assert_eq!(
            names(select(fixtures(), None, Some("zod,arith"))),
            ["arith", "zod"]
        );
        assert_eq!(
            names(select(fixtures(), None, Some("octane,acorn"))),
            ["octane-splay", "acorn"]
        );
        let err = select(fixtures(), Some("real"), Some("arith")).unwrap_err();
        assert!(err.contains("unknown fixture \"arith\""), "{err}");
    }

    #[test]
    fn unknown_suites_and_fixtures_are_errors() {
        let err = select(fixtures(), Some("huge"), None).unwrap_err();
        assert!(err.contains("unknown suite \"huge\""), "{err}");
        let err = select(fixtures(), None, Some("nope")).unwrap_err();
        assert!(err.contains("unknown fixture \"nope\""), "{err}");
    }
}
