//! The real-programs suite: npm libraries at the exact versions of
//! bench/real/package.json (and its lockfile), installed into build/bench/real/ by
//! `kiln-bench install`, never committed. bench/real/suite.json says, per library,
//! which script of the package runs (its UMD or browser bundle) or, for a package
//! that ships none, which entry esbuild (pinned in the same package.json) bundles
//! into a classic script. Each generated script is
//!
//! ```text
//! bench/real/prelude.js          output, a seeded random generator, a checksum
//! the library                    a UMD or esbuild bundle runs inside a function whose
//!                                parameters hide `module`, `exports`, `define`,
//!                                `require` and `process`, so it takes its browser path on every
//!                                engine (Node runs a file as CommonJS and would
//!                                otherwise take another path than the engines that
//!                                do not); a plain script runs as it is
//! var NAME = "...";              inputs: text of files from the installed packages
//! bench/real/drivers/NAME.js     the workload, printing a checksum
//! ```
//!
//! Node's output for each script is the reference every engine, Kiln included, is
//! compared with; it is computed once per script text and kept in
//! build/bench/real/reference.json.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// bench/real/suite.json.
#[derive(Debug, Deserialize)]
struct Manifest {
    libraries: Vec<Library>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Library {
    /// the fixture's name; its driver is bench/real/drivers/NAME.js
    pub name: String,
    /// the npm package measured (its version is reported)
    pub package: String,
    /// a script shipped in the package, relative to node_modules/
    #[serde(default)]
    pub script: Option<String>,
    /// whether `script` is a UMD bundle (run with CommonJS and AMD hidden)
    #[serde(default = "yes")]
    pub umd: bool,
    /// for a package without a browser script: the module esbuild bundles
    #[serde(default)]
    pub bundle: Option<String>,
    /// the global name of the esbuild bundle's exports
    #[serde(default)]
    pub global: Option<String>,
    /// global variables holding the text of files under node_modules/
    #[serde(default)]
    pub inputs: BTreeMap<String, String>,
}

fn yes() -> bool {
    true
}

impl Library {
    /// How the library reaches the script, for the suite's table.
    pub fn how(&self) -> String {
        match (&self.script, &self.bundle) {
            (Some(script), _) if self.umd => format!("UMD `{script}`"),
            (Some(script), _) => format!("script `{script}`"),
            (None, Some(entry)) => format!("esbuild `{entry}`"),
            (None, None) => "?".into(),
        }
    }
}

/// Where the suite is installed and generated.
pub fn dir(root: &Path) -> PathBuf {
    root.join("build/bench/real")
}

pub fn libraries(root: &Path) -> Result<Vec<Library>, String> {
    let path = root.join("bench/real/suite.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let manifest: Manifest =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    for library in &manifest.libraries {
        if library.script.is_some() == library.bundle.is_some()
            || library.bundle.is_some() != library.global.is_some()
        {
            return Err(format!(
                "{}: library {:?} needs either `script`, or `bundle` with `global`",
                path.display(),
                library.name
            ));
        }
    }
    Ok(manifest.libraries)
}

/// Installs the libraries (`npm ci` from the committed lockfile) and bundles those
/// that need esbuild. `force` reinstalls and rebundles everything.
pub fn install(root: &Path, force: bool) -> Result<(), String> {
    let dir = dir(root);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut changed = force || !dir.join("node_modules").is_dir();
    for file in ["package.json", "package-lock.json"] {
        let committed = std::fs::read(root.join("bench/real").join(file))
            .map_err(|e| format!("cannot read bench/real/{file}: {e}"))?;
        if std::fs::read(dir.join(file)).ok().as_ref() != Some(&committed) {
            std::fs::write(dir.join(file), &committed).map_err(|e| e.to_string())?;
            changed = true;
        }
    }
    if changed {
        eprintln!("kiln-bench: npm ci in {}", dir.display());
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status()
            .map_err(|e| format!("cannot run npm: {e}"))?;
        if !status.success() {
            return Err(format!("npm ci failed ({status})"));
        }
    }
    let bundles = dir.join("bundles");
    std::fs::create_dir_all(&bundles).map_err(|e| e.to_string())?;
    for library in libraries(root)? {
        let (Some(entry), Some(global)) = (&library.bundle, &library.global) else {
            continue;
        };
        let out = bundles.join(format!("{}.js", library.name));
        if out.is_file() && !changed {
            continue;
        }
        eprintln!("kiln-bench: esbuild {entry} as {global}");
        let status = Command::new(dir.join("node_modules/.bin/esbuild"))
            .args([
                entry.as_str(),
                "--bundle",
                "--format=iife",
                "--platform=browser",
                "--log-level=warning",
            ])
            .arg(format!("--global-name={global}"))
            .arg(format!("--outfile={}", out.display()))
            .current_dir(&dir)
            .status()
            .map_err(|e| format!("cannot run esbuild: {e}"))?;
        if !status.success() {
            return Err(format!("esbuild failed on {entry} ({status})"));
        }
    }
    Ok(())
}

/// The installed version of a package, from its package.json.
pub fn version(root: &Path, package: &str) -> Option<String> {
    let path = dir(root)
        .join("node_modules")
        .join(package)
        .join("package.json");
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("version")?.as_str().map(str::to_string)
}

/// A generated script and node's output for it.
pub struct Generated {
    pub name: String,
    pub script: PathBuf,
    /// node's checksum, the reference for every engine
    pub reference: String,
}

/// Writes every library's script under build/bench/real/scripts/ and finds node's
/// checksum for each (running node only for scripts whose text changed). `None` when
/// the suite is not installed.
pub fn generate(root: &Path) -> Result<Option<Vec<Generated>>, String> {
    let dir = dir(root);
    if !dir.join("node_modules").is_dir() {
        return Ok(None);
    }
    let prelude = read(&root.join("bench/real/prelude.js"))?;
    let scripts = dir.join("scripts");
    std::fs::create_dir_all(&scripts).map_err(|e| e.to_string())?;
    let reference_path = dir.join("reference.json");
    let mut references: BTreeMap<String, Reference> = std::fs::read_to_string(&reference_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let mut generated = Vec::new();
    for library in libraries(root)? {
        let text = script_text(root, &library, &prelude)?;
        let script = scripts.join(format!("{}.js", library.name));
        if std::fs::read_to_string(&script).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&script, &text).map_err(|e| e.to_string())?;
        }
        let digest = format!("{:016x}", fnv1a64(text.as_bytes()));
        let known = references
            .get(&library.name)
            .filter(|r| r.script_digest == digest);
        let reference = match known {
            Some(r) => r.checksum.clone(),
            None => {
                eprintln!("kiln-bench: node's checksum for {}", library.name);
                let checksum = node_checksum(&script)?;
                references.insert(
                    library.name.clone(),
                    Reference {
                        script_digest: digest,
                        checksum: checksum.clone(),
                    },
                );
                let json = serde_json::to_string_pretty(&references).map_err(|e| e.to_string())?;
                std::fs::write(&reference_path, json + "\n").map_err(|e| e.to_string())?;
                checksum
            }
        };
        generated.push(Generated {
            name: library.name,
            script,
            reference,
        });
    }
    Ok(Some(generated))
}

#[derive(Debug, Serialize, Deserialize)]
struct Reference {
    /// FNV-1a of the script's text when node ran it
    script_digest: String,
    checksum: String,
}

/// The script one library runs as: prelude, library, inputs, driver.
fn script_text(root: &Path, library: &Library, prelude: &str) -> Result<String, String> {
    let modules = dir(root).join("node_modules");
    let driver = read(
        &root
            .join("bench/real/drivers")
            .join(format!("{}.js", library.name)),
    )?;
    let body = library_code(root, library)?;
    let mut inputs = Vec::new();
    for (name, file) in &library.inputs {
        inputs.push((name.clone(), read(&modules.join(file))?));
    }
    let version = version(root, &library.package).unwrap_or_else(|| "?".into());
    Ok(compose(library, &version, prelude, &body, &inputs, &driver))
}

/// The library's code: the shipped script, or esbuild's bundle.
pub fn library_code(root: &Path, library: &Library) -> Result<String, String> {
    match &library.script {
        Some(script) => read(&dir(root).join("node_modules").join(script)),
        None => read(
            &dir(root)
                .join("bundles")
                .join(format!("{}.js", library.name)),
        ),
    }
}

/// The library's code inside a function that is never called: an engine that compiles
/// a script whole before running it parses and compiles all of it, and runs nothing.
pub fn compile_only_script(root: &Path, library: &Library) -> Result<String, String> {
    Ok(format!(
        "(function () {{\n{}\n}});\n",
        library_code(root, library)?
    ))
}

fn compose(
    library: &Library,
    version: &str,
    prelude: &str,
    body: &str,
    inputs: &[(String, String)],
    driver: &str,
) -> String {
    let mut text = format!(
        "// {} {version}: generated by kiln-bench from bench/real/ ({})\n{prelude}\n",
        library.package,
        library.how()
    );
    // CommonJS and AMD hidden, so that the code takes the same path on every engine.
    const HIDDEN: &str = "(function (module, exports, define, require, process) {\n";
    match (&library.script, &library.global) {
        (Some(_), _) if library.umd => {
            text.push_str(HIDDEN);
            text.push_str(body);
            text.push_str("\n}).call(globalThis);\n");
        }
        (None, Some(global)) => {
            text.push_str(&format!("var {global} = {HIDDEN}"));
            text.push_str(body);
            text.push_str(&format!("\nreturn {global};\n}}).call(globalThis);\n"));
        }
        _ => {
            text.push_str(body);
            text.push('\n');
        }
    }
    for (name, input) in inputs {
        text.push_str(&format!("var {name} = {};\n", string_literal(input)));
    }
    text.push_str(driver);
    text
}

/// `text` as a JavaScript string literal (JSON, with the two line separators escaped
/// for engines that predate ES2019's JSON superset).
fn string_literal(text: &str) -> String {
    serde_json::to_string(text)
        .expect("a string serialises")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

fn node_checksum(script: &Path) -> Result<String, String> {
    let mut command = Command::new("node");
    command.arg(script);
    let sample = crate::measure::run(command, Duration::from_secs(600))
        .map_err(|e| format!("cannot run node (the real-programs suite needs it): {e}"))?;
    sample
        .outcome
        .map_err(|e| format!("node failed on {}: {e}", script.display()))?;
    Ok(crate::measure::checksum(&sample.stdout))
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_manifest_names_a_driver_for_every_library() {
        let root = crate::root();
        let libraries = libraries(&root).unwrap();
        assert!(libraries.len() >= 15);
        for library in &libraries {
            let driver = root
                .join("bench/real/drivers")
                .join(format!("{}.js", library.name));
            assert!(driver.is_file(), "{} has no driver", library.name);
            assert!(
                library.package.split('/').count() <= 2,
                "{}",
                library.package
            );
        }
    }

    #[test]
    fn string_literals_escape_quotes_and_line_separators() {
        assert_eq!(string_literal("a\"b\n"), r#""a\"b\n""#);
        assert_eq!(string_literal("x\u{2028}y"), r#""x\u2028y""#);
    }

    fn library(script: Option<&str>, umd: bool) -> Library {
        Library {
            name: "x".into(),
            package: "x".into(),
            script: script.map(str::to_string),
            umd,
            bundle: script.is_none().then(|| "x".into()),
            global: script.is_none().then(|| "X".into()),
            inputs: BTreeMap::new(),
        }
    }

    #[test]
    fn a_umd_bundle_runs_with_commonjs_hidden_and_inputs_follow_it() {
        let inputs = [("SOURCE".to_string(), "a\"b".to_string())];
        let text = compose(
            &library(Some("x.js"), true),
            "1.0.0",
            "P",
            "LIB",
            &inputs,
            "D",
        );
        assert_eq!(
            text,
            "// x 1.0.0: generated by kiln-bench from bench/real/ (UMD `x.js`)\nP\n\
             (function (module, exports, define, require, process) {\nLIB\n}).call(globalThis);\n\
             var SOURCE = \"a\\\"b\";\nD"
        );
    }

    #[test]
    fn plain_scripts_run_at_the_top_level_and_bundles_with_commonjs_hidden() {
        let script = compose(&library(Some("x.js"), false), "1", "P", "LIB", &[], "D");
        assert!(script.ends_with("P\nLIB\nD"), "{script}");
        let bundle = compose(&library(None, true), "1", "P", "var X = 1;", &[], "D");
        assert!(
            bundle.ends_with(
                "P\nvar X = (function (module, exports, define, require, process) {\nvar X = 1;\n\
                 return X;\n}).call(globalThis);\nD"
            ),
            "{bundle}"
        );
        assert!(bundle.contains("(esbuild `x`)"));
    }
}
