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
        let script = compile_checked(source, key, ScriptKind::Module, true)?;
        Ok(CompiledModule::shared(script))
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

/// An agent script compiled once, to start in any number of runtimes
/// ([`crate::Runtime::start_compiled`]) without parsing or compiling it again: for a host
/// that runs the same script many times (an agent's tool loop, a warm pool). Clones share
/// the code, and so do the runtimes that start it; each start makes only the runtime's
/// own part (interned names, constants as values, inline caches).
///
/// It is not bytes and never leaves the process: a snapshot of an execution started from
/// it stores the source and name, as one started by [`crate::Runtime::start`] does, and
/// the restore compiles them again.
///
/// ```
/// use kiln::{CompiledScript, HostValue, Outcome, Runtime};
///
/// let script = CompiledScript::compile_agent("return 6 * 7", "agent.js").unwrap();
/// let mut rt = Runtime::new();
/// assert_eq!(rt.start_compiled(&script).unwrap(), Outcome::Complete(HostValue::Number(42.0)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledScript {
    script: Arc<SharedScript>,
}

impl CompiledScript {
    /// Compile the agent script `source` named `name` as [`crate::Runtime::start`] would
    /// (a `name` ending in `.ts`, `.mts` or `.cts` makes it TypeScript, its types
    /// stripped). A syntax error is the [`ErrorKind::Syntax`] report `start` gives for the
    /// same source; an internal error of the compiler is an [`ErrorKind::Engine`] report.
    pub fn compile_agent(source: &str, name: &str) -> Result<CompiledScript, ErrorReport> {
        let compiled = std::panic::catch_unwind(|| {
            compile_checked(source, name, ScriptKind::Agent, false).map(SharedScript::new)
        });
        match compiled {
            Ok(script) => Ok(CompiledScript {
                script: Arc::new(script?),
            }),
            Err(panic) => Err(ErrorReport::host(
                ErrorKind::Engine,
                format!("internal error in Kiln: {}", panic_text(panic.as_ref())),
            )),
        }
    }

    pub(crate) fn script(&self) -> &SharedScript {
        &self.script
    }

    /// The source the script was compiled from.
    pub fn source(&self) -> &str {
        self.script.source()
    }
}

/// `kiln_compiler::compile`, then the check of regular expression literals `Vm::load`
/// makes, each failure the [`ErrorKind::Syntax`] report a runtime gives for it.
fn compile_checked(
    source: &str,
    name: &str,
    kind: ScriptKind,
    strict: bool,
) -> Result<ValidScript, ErrorReport> {
    let script = kiln_compiler::compile(source, name, kind, strict).map_err(|e| {
        syntax_error(
            format!("{} ({name}:{}:{})", e.message, e.line, e.column),
            Some(source_location(source, name, e.line, e.column)),
        )
    })?;
    crate::builtins::regexp::literal_errors(&script)
        .map_err(|message| syntax_error(format!("{message} ({name})"), None))?;
    Ok(compiler_output(script))
}

/// What a caught panic says.
pub(crate) fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// Where a compile error is, with the line of `source` it is on.
pub(crate) fn source_location(source: &str, file: &str, line: u32, column: u32) -> SourceLocation {
    SourceLocation {
        file: file.to_string(),
        line,
        column,
        source_line: source
            .lines()
            .nth(line.saturating_sub(1) as usize)
            .unwrap_or_default()
            .to_string(),
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
    use super::{CompiledModule, CompiledScript};
    use crate::snapshot::Snapshot;
    use crate::{
        ErrorKind, ErrorReport, HostReply, HostValue, Limits, ModuleLoader, Options, Outcome,
        Runtime,
    };

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

    /// `source` started from source and from a compiled script in fresh runtimes (with
    /// the capability `get`, which defers), each step's result side by side.
    fn both_ways(source: &str, name: &str) -> [Result<Outcome, ErrorReport>; 2] {
        let make = || {
            let mut rt = Runtime::new();
            rt.register_deferrable("get", |_| HostReply::Defer);
            rt
        };
        let from_source = make().start(source, name);
        let compiled = CompiledScript::compile_agent(source, name);
        let from_compiled = compiled.and_then(|script| make().start_compiled(&script));
        [from_source, from_compiled]
    }

    #[test]
    fn a_compiled_agent_script_gives_what_its_source_gives() {
        let cases = [
            (
                "const xs = [1, 2, 3]; xs.map(x => x * 2).join()",
                "agent.js",
            ),
            (
                "if (1 > 0) return { done: true, n: 2n ** 3n }; 0",
                "agent.js",
            ),
            (
                "const n: number = 20 as number; let s!: string; n! + 1",
                "agent.ts",
            ),
            (
                "const r = await Promise.resolve(4); r + (await get('x'))",
                "agent.js",
            ),
            ("function f() {\n  null.x;\n}\nf()", "trace.js"),
            ("eval('var v = 3; v * 2')", "eval.js"),
            ("throw new TypeError('bad input')", "throw.js"),
            ("let x = ;", "bad.js"),
            ("const a = 1;\nconst b = a +;", "bad.ts"),
            ("enum Color { Red }", "enum.ts"),
            ("/(/.test('x')", "regex.js"),
            ("export const x = 1", "export.js"),
        ];
        for (source, name) in cases {
            let [from_source, from_compiled] = both_ways(source, name);
            assert_eq!(from_compiled, from_source, "{name}: {source}");
        }
        let [Err(trace), _] = both_ways("function f() {\n  null.x;\n}\nf()", "trace.js") else {
            panic!("a TypeError was expected");
        };
        assert_eq!(trace.kind, ErrorKind::Exception);
        assert!(trace.stack.contains("at f (trace.js:2:"), "{}", trace.stack);
        let [Err(syntax), _] = both_ways("const a = 1;\nconst b = a +;", "bad.ts") else {
            panic!("a SyntaxError was expected");
        };
        assert_eq!(syntax.kind, ErrorKind::Syntax);
        let place = syntax.location.unwrap();
        assert_eq!(
            (place.line, place.source_line.as_str()),
            (2, "const b = a +;")
        );
    }

    #[test]
    fn a_compiled_start_counts_the_compilation_against_the_heap_limit_as_start_does() {
        let source = format!("const s = '{}'; s.length", "x".repeat(4096));
        let options = || Options {
            limits: Limits {
                max_heap_bytes: 64 * 1024,
                ..Limits::default()
            },
            ..Options::default()
        };
        let script = CompiledScript::compile_agent(&source, "big.js").unwrap();
        let from_source = Runtime::with_options(options())
            .unwrap()
            .start(&source, "big.js");
        let from_compiled = Runtime::with_options(options())
            .unwrap()
            .start_compiled(&script);
        assert_eq!(from_source.as_ref().unwrap_err().kind, ErrorKind::HeapLimit);
        assert_eq!(from_compiled, from_source);
    }

    #[test]
    fn runtimes_starting_one_compiled_script_share_its_code_not_its_state() {
        let script = CompiledScript::compile_agent(
            "globalThis.count = (globalThis.count ?? 0) + 1; let local = count * 10; local",
            "count.js",
        )
        .unwrap();
        let mut first = Runtime::new();
        let mut second = Runtime::new();
        let number = |n: f64| Ok(Outcome::Complete(HostValue::Number(n)));
        assert_eq!(first.start_compiled(&script), number(10.0));
        assert_eq!(first.start_compiled(&script.clone()), number(20.0));
        assert_eq!(second.start_compiled(&script), number(10.0));
    }

    #[test]
    fn a_snapshot_of_a_compiled_start_restores_as_one_of_a_source_start() {
        let source = "const a = await get('a');\nfunction late() {\n  throw new Error('late ' + a);\n}\ntry { late() } catch (e) { e.stack.split('\\n')[1].trim() + ' ' + eval('a + 1') }";
        let make = || {
            let mut rt = Runtime::with_options(Options {
                random_seed: Some(7),
                ..Options::default()
            })
            .unwrap();
            rt.register_async("get");
            rt
        };
        let mut from_source = make();
        let Ok(Outcome::Suspended(calls)) = from_source.start(source, "agent.ts") else {
            panic!("the script waits for get");
        };
        let mut from_compiled = make();
        let script = CompiledScript::compile_agent(source, "agent.ts").unwrap();
        assert_eq!(
            from_compiled.start_compiled(&script),
            Ok(Outcome::Suspended(calls.clone()))
        );
        // (the bytes differ in the compute time spent and the snapshot's identity)
        for mut suspended in [from_source, from_compiled] {
            let bytes = suspended.snapshot(None).unwrap();
            let snapshot = Snapshot::open(&bytes, None).unwrap();
            let mut restored = Runtime::restore(&snapshot, Options::default()).unwrap();
            restored.register_async("get");
            assert_eq!(
                restored.resume(calls[0].id, Ok("x".into())),
                Ok(Outcome::Complete("at late (agent.ts:3:9) x1".into()))
            );
        }
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
