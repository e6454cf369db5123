//! Modules compiled ahead of time: a host compiles a module once ([`CompiledModule::compile`]),
//! keeps it as bytes ([`CompiledModule::to_bytes`]) and later loads it into runtimes through
//! [`crate::ModuleLoader::load_compiled`] without parsing or compiling.
//!
//! Snapshots make the opposite trade: they store source and compile again on restore, so
//! that no stored bytecode is ever trusted. Bytes given to [`CompiledModule::from_bytes`] are
//! not trusted either: they are decoded with every read bounds-checked and then validated
//! (`kiln_bytecode::validate`: registers, constants, sites, jumps, switch tables, handlers,
//! function and module indices in range, and no backward jump but `Loop`, the safe point
//! that meters loops), so malformed bytecode is refused before any runtime sees it.

use crate::interpreter::{SharedScript, compiler_output};
use crate::runtime::{ErrorKind, ErrorReport, SourceLocation};
use kiln_bytecode::{ScriptKind, ValidScript};
use std::sync::Arc;

/// A module's compiled code: its bytecode, constants and module tables, with its source
/// text (for error messages and `Function.prototype.toString`). Clones share the code, and
/// so do the runtimes that load it: loading it makes only each runtime's own part (interned
/// names, constants as values, inline caches).
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledModule {
    script: Arc<SharedScript>,
}

impl CompiledModule {
    /// Compile the module `source`, named `key` (the key its loader resolves it to).
    /// A syntax error is an [`ErrorKind::Syntax`] report.
    pub fn compile(source: &str, key: &str) -> Result<CompiledModule, ErrorReport> {
        let script =
            kiln_compiler::compile(source, key, ScriptKind::Module, true).map_err(|e| {
                syntax_error(
                    format!("{} ({key}:{}:{})", e.message, e.line, e.column),
                    Some(SourceLocation {
                        file: key.to_string(),
                        line: e.line,
                        column: e.column,
                        source_line: source
                            .lines()
                            .nth(e.line.saturating_sub(1) as usize)
                            .unwrap_or_default()
                            .to_string(),
                    }),
                )
            })?;
        crate::builtins::regexp::literal_errors(&script)
            .map_err(|message| syntax_error(format!("{message} ({key})"), None))?;
        Ok(CompiledModule::shared(compiler_output(script)))
    }

    /// The specifiers the module imports statically, in source order.
    pub fn requests(&self) -> impl Iterator<Item = &str> {
        self.script
            .module
            .iter()
            .flat_map(|m| m.requests.iter().map(|r| r.specifier.as_str()))
    }

    /// The module as bytes (the format of `kiln_bytecode::serial`, identified by
    /// `kiln_bytecode::FORMAT_ID`, which the host records beside them). Code with direct
    /// `eval` cannot be written.
    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        kiln_bytecode::serial::encode(&self.script.to_script()).map_err(|e| e.to_string())
    }

    /// A module from bytes [`CompiledModule::to_bytes`] wrote with the same format
    /// (`kiln_bytecode::FORMAT_ID`); any other bytes are an error, never a panic.
    pub fn from_bytes(bytes: &[u8]) -> Result<CompiledModule, String> {
        let script = kiln_bytecode::serial::decode(bytes)
            .map_err(|e| format!("malformed compiled module: {e}"))?;
        if script.kind != ScriptKind::Module {
            return Err("malformed compiled module: not a module".into());
        }
        let script =
            ValidScript::new(script).map_err(|e| format!("invalid compiled module: {e}"))?;
        crate::builtins::regexp::literal_errors(script.script())
            .map_err(|e| format!("invalid compiled module: {e}"))?;
        Ok(CompiledModule::shared(script))
    }

    fn shared(script: ValidScript) -> CompiledModule {
        CompiledModule {
            script: Arc::new(SharedScript::new(script)),
        }
    }

    pub(crate) fn script(&self) -> &SharedScript {
        &self.script
    }
}

fn syntax_error(message: String, location: Option<SourceLocation>) -> ErrorReport {
    ErrorReport {
        kind: ErrorKind::Syntax,
        name: "SyntaxError".into(),
        summary: format!("SyntaxError: {message}"),
        stack: format!("SyntaxError: {message}"),
        message,
        location: location.map(Box::new),
    }
}

#[cfg(test)]
mod tests {
    use super::CompiledModule;
    use crate::{ErrorKind, ModuleLoader, Runtime};

    /// Hands out clones of compiled modules by key.
    struct Precompiled(Vec<(String, CompiledModule)>);

    impl ModuleLoader for Precompiled {
        fn resolve(&mut self, specifier: &str, _referrer: &str) -> Result<String, String> {
            Ok(specifier.to_string())
        }
        fn load(&mut self, key: &str) -> Result<String, String> {
            Err(format!("{key} has no source here"))
        }
        fn load_compiled(&mut self, key: &str) -> Option<CompiledModule> {
            let (_, module) = self.0.iter().find(|(k, _)| k == key)?;
            Some(module.clone())
        }
    }

    #[test]
    fn a_module_graph_runs_from_bytes_without_its_source() {
        let lib = CompiledModule::compile(
            "export const greet = (n) => `hello ${n}`; export class Point { #x = 1; get x() { return this.#x } }",
            "lib.js",
        )
        .unwrap();
        let main = CompiledModule::compile(
            "import { greet, Point } from 'lib.js'; globalThis.result = greet('kiln') + ' ' + new Point().x + ' ' + /a+/.test('caa') + ' ' + String.raw`x${1}`;",
            "main.js",
        )
        .unwrap();
        assert_eq!(main.requests().collect::<Vec<_>>(), ["lib.js"]);
        let mut rt = Runtime::new();
        let from_bytes = |m: CompiledModule| CompiledModule::from_bytes(&m.to_bytes().unwrap());
        rt.set_module_loader(Box::new(Precompiled(vec![
            ("lib.js".into(), from_bytes(lib).unwrap()),
            ("main.js".into(), from_bytes(main).unwrap()),
        ])));
        rt.run_module("main.js", "").unwrap();
        assert_eq!(rt.eval("result").unwrap(), "hello kiln 1 true x1");
    }

    #[test]
    fn runtimes_loading_one_compiled_module_share_its_code_not_its_state() {
        let module = CompiledModule::compile(
            "let count = 0;\nglobalThis.bump = () => ++count;\nglobalThis.fail = () => {\n  throw new Error('no');\n};",
            "counter.js",
        )
        .unwrap();
        let mut first = Runtime::new();
        first.set_module_loader(Box::new(Precompiled(vec![(
            "counter.js".into(),
            module.clone(),
        )])));
        first.run_module("counter.js", "").unwrap();
        let mut second = Runtime::new();
        second.set_module_loader(Box::new(Precompiled(vec![("counter.js".into(), module)])));
        second.run_module("counter.js", "").unwrap();
        assert_eq!(first.eval("bump(); bump()").unwrap(), "2");
        assert_eq!(second.eval("bump()").unwrap(), "1");
        assert_eq!(
            second
                .eval("try { fail() } catch (e) { e.stack.split('\\n')[1].trim() }")
                .unwrap(),
            "at counter.js:4:9"
        );
    }

    #[test]
    fn syntax_errors_are_reported_with_their_place() {
        let err = CompiledModule::compile("let x = ;", "bad.js").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Syntax);
        assert!(err.summary.starts_with("SyntaxError: "), "{}", err.summary);
        assert_eq!(err.location.unwrap().line, 1);
        let regex = CompiledModule::compile("/(/;", "re.js").unwrap_err();
        assert_eq!(regex.kind, ErrorKind::Syntax);
    }

    #[test]
    fn corrupt_bytes_are_refused() {
        let bytes = CompiledModule::compile("export default 1", "m.js")
            .unwrap()
            .to_bytes()
            .unwrap();
        assert!(
            CompiledModule::from_bytes(&bytes[..bytes.len() / 2])
                .unwrap_err()
                .starts_with("malformed compiled module: ")
        );
        assert!(CompiledModule::from_bytes(b"not bytecode at all").is_err());
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x5a;
            // a result or an error, never a panic
            let _ = CompiledModule::from_bytes(&flipped);
        }
    }

    #[test]
    fn compiler_output_for_the_test_fixtures_round_trips_and_validates() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/js");
        let mut checked = 0;
        let mut stack = vec![fixtures];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let Ok(source) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let Ok(module) = CompiledModule::compile(&source, "fixture.js") else {
                    continue;
                };
                if let Ok(bytes) = module.to_bytes() {
                    let back = CompiledModule::from_bytes(&bytes)
                        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    assert_eq!(back, module);
                    checked += 1;
                }
            }
        }
        assert!(checked >= 40, "only {checked} fixtures compiled as modules");
    }
}
