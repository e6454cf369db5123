//! The engines measured: Kiln and its peers, each as a command that runs one script
//! file and prints what the script prints. Peers live in build/peers/, installed by
//! `bash bench/install-peers.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One engine as the runner sees it.
#[derive(Debug, Clone)]
pub struct Engine {
    /// short name used on the command line and in tables (`kiln`, `node-jitless`, ...)
    pub name: &'static str,
    pub program: PathBuf,
    /// arguments before the script path
    pub args: Vec<String>,
    /// extra environment variables
    pub env: Vec<(String, String)>,
    /// when set, the script is run through a hard link with the extension `.cjs` made
    /// in this folder (Bun runs a `.js` file without `require`/`module` as an ES module,
    /// in strict mode; as `.cjs` it runs it as Node does, as a sloppy CommonJS script)
    pub as_cjs_in: Option<PathBuf>,
}

impl Engine {
    /// The command that runs `script` on this engine.
    pub fn command(&self, script: &Path) -> Command {
        let script = match &self.as_cjs_in {
            Some(dir) => cjs_link(dir, script),
            None => script.to_path_buf(),
        };
        let mut command = Command::new(&self.program);
        command.args(&self.args).arg(script);
        for (key, value) in &self.env {
            command.env(key, value);
        }
        command
    }

    /// The command line as a person would type it in the repository's root, for the report.
    pub fn display(&self, root: &Path) -> String {
        let mut parts: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        parts.push(relative(&self.program, root));
        parts.extend(self.args.iter().cloned());
        parts.push(
            if self.as_cjs_in.is_some() {
                "FILE (linked as .cjs)"
            } else {
                "FILE"
            }
            .into(),
        );
        parts.join(" ")
    }

    pub fn is_available(&self) -> bool {
        if self.program.components().count() > 1 {
            self.program.is_file()
        } else {
            which(&self.program).is_some()
        }
    }
}

/// Every engine name the runner knows, in table order: Kiln first, then the
/// interpreters, then the JITs.
pub const ALL: &[&str] = &[
    "kiln",
    "quickjs",
    "node-jitless",
    "bun-nojit",
    "hermes",
    "boa",
    "node",
    "bun",
];

/// The engine called `name`. `root` is the repository root; `kiln` overrides Kiln's binary.
pub fn engine(name: &str, root: &Path, kiln: Option<&Path>) -> Option<Engine> {
    let peers = root.join("build/peers");
    let bun = peers.join("npm/node_modules/@oven/bun-linux-x64/bin/bun");
    let (program, args, env): (PathBuf, &[&str], &[(&str, &str)]) = match name {
        "kiln" => (
            kiln.map(Path::to_path_buf)
                .unwrap_or_else(|| root.join("target/release/kiln")),
            &["run"],
            &[],
        ),
        "quickjs" => (peers.join("bin/kiln-quickjs"), &[], &[]),
        "node" => ("node".into(), &[], &[]),
        "node-jitless" => ("node".into(), &["--jitless"], &[]),
        // JavaScriptCore's interpreter (LLInt) only: baseline, DFG and FTL JITs off.
        "bun-nojit" => (bun, &[], &[("BUN_JSC_useJIT", "0")]),
        "bun" => (bun, &[], &[]),
        "hermes" => (
            peers.join("npm/node_modules/hermes-engine-cli/linux64-bin/hermes"),
            &[],
            &[],
        ),
        "boa" => (peers.join("bin/boa"), &[], &[]),
        _ => return None,
    };
    let name = ALL.iter().find(|n| **n == name)?;
    let as_cjs_in = name
        .starts_with("bun")
        .then(|| root.join("build/bench/cjs"));
    Some(Engine {
        name,
        as_cjs_in,
        program,
        args: args.iter().map(|s| s.to_string()).collect(),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    })
}

/// The engine's version as reported by itself (or recorded by the installer).
pub fn version(engine: &Engine, root: &Path) -> String {
    let recorded =
        std::fs::read_to_string(root.join("build/peers/versions.txt")).unwrap_or_default();
    let from_file = |key: &str| {
        recorded
            .lines()
            .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
            .map(str::to_string)
    };
    let run = |args: &[&str]| -> Option<String> {
        let output = Command::new(&engine.program).args(args).output().ok()?;
        let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
        (!text.is_empty()).then_some(text)
    };
    let found = match engine.name {
        "kiln" => run(&["--version"]),
        "node" | "node-jitless" => run(&["--version"]),
        "bun" | "bun-nojit" => run(&["--version"]),
        "quickjs" => run(&["--version"]).map(|v| format!("QuickJS-NG {v} (rquickjs)")),
        "hermes" => run(&["-version"])
            .and_then(|text| {
                text.lines().find_map(|l| {
                    l.split_once("release version:")
                        .map(|(_, v)| v.trim().to_string())
                })
            })
            .or_else(|| from_file("hermes")),
        "boa" => run(&["--version"]).or_else(|| from_file("boa")),
        _ => None,
    };
    found.unwrap_or_else(|| "unknown".into())
}

/// `path` as seen from the repository's root `root` (`../` steps where it lies
/// outside); a bare program name, found on PATH, stays as it is.
pub fn relative(path: &Path, root: &Path) -> String {
    use std::path::Component;
    if path.is_relative() {
        return path.display().to_string();
    }
    let normal = |p: &Path| -> Vec<String> {
        let mut parts: Vec<String> = Vec::new();
        for c in p.components() {
            match c {
                Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
                Component::ParentDir => {
                    parts.pop();
                }
                _ => {}
            }
        }
        parts
    };
    let (path, root) = (normal(path), normal(root));
    let common = path.iter().zip(&root).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); root.len() - common];
    parts.extend(path[common..].iter().cloned());
    parts.join("/")
}

/// `dir/<stem>.cjs`, a hard link to `script` (the same bytes; a copy where linking fails).
fn cjs_link(dir: &Path, script: &Path) -> PathBuf {
    let stem = script
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let link = dir.join(format!("{stem}.cjs"));
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::remove_file(&link);
    if std::fs::hard_link(script, &link).is_err() {
        let _ = std::fs::copy(script, &link);
    }
    link
}

fn which(program: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_name_paths_relative_to_the_repository() {
        let root = Path::new("/work/repo");
        let kiln = engine("kiln", root, None).unwrap();
        assert_eq!(kiln.display(root), "target/release/kiln run FILE");
        let quickjs = engine("quickjs", root, None).unwrap();
        assert_eq!(quickjs.display(root), "build/peers/bin/kiln-quickjs FILE");
        let bun = engine("bun-nojit", root, None).unwrap();
        assert_eq!(
            bun.display(root),
            "BUN_JSC_useJIT=0 build/peers/npm/node_modules/@oven/bun-linux-x64/bin/bun FILE (linked as .cjs)"
        );
        assert_eq!(
            engine("node-jitless", root, None).unwrap().display(root),
            "node --jitless FILE"
        );
        let other = engine(
            "kiln",
            root,
            Some(Path::new("/work/other/target/release/kiln")),
        );
        assert_eq!(
            other.unwrap().display(root),
            "../other/target/release/kiln run FILE"
        );
    }

    #[test]
    fn relative_paths_from_root() {
        let root = Path::new("/a/b/../b/c");
        assert_eq!(relative(Path::new("/a/b/c/d/e"), root), "d/e");
        assert_eq!(relative(Path::new("/a/x"), root), "../../x");
        assert_eq!(relative(Path::new("node"), root), "node");
    }
}
