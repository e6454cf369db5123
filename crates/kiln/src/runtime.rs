//! The embedding API: a [`Runtime`] owns a VM and runs scripts in it.

use crate::interpreter::Vm;
use crate::object::{NativeFn, PropertyKey};
use crate::value::Value;

/// A JavaScript error that escaped to the host, ready to print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorReport {
    /// the source could not be compiled (a `SyntaxError` before anything ran)
    pub is_syntax_error: bool,
    /// `Name: message` (or the thrown value for non-errors)
    pub summary: String,
    /// the `stack` property, or `summary` when there is none
    pub stack: String,
    /// `file:line:column`, the source line and the column where the exception was thrown
    pub location: Option<SourceLocation>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLocation {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub source_line: String,
}

impl std::fmt::Display for ErrorReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(loc) = &self.location {
            writeln!(f, "{}:{}:{}", loc.file, loc.line, loc.column)?;
            writeln!(f, "{}", loc.source_line)?;
            let pad: String = loc
                .source_line
                .chars()
                .take(loc.column.saturating_sub(1) as usize)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            writeln!(f, "{pad}^")?;
            writeln!(f)?;
        }
        write!(f, "{}", self.stack)
    }
}

/// An isolated JavaScript runtime: its own heap, realm and job queue.
pub struct Runtime {
    vm: Vm,
}

impl Default for Runtime {
    fn default() -> Self {
        Self::new()
    }
}

impl Runtime {
    pub fn new() -> Self {
        Runtime { vm: Vm::new() }
    }

    /// The underlying VM, for advanced embedding.
    pub fn vm(&mut self) -> &mut Vm {
        &mut self.vm
    }

    /// Run a script, then its promise jobs; returns the completion value.
    pub fn run_script(&mut self, source: &str, name: &str) -> Result<Value, ErrorReport> {
        let block = match self
            .vm
            .load(source, name, kiln_bytecode::ScriptKind::Script, false)
        {
            Ok(b) => b,
            Err(_) => return Err(self.report(true)),
        };
        let value = match self.vm.run_top_level(block) {
            Ok(v) => v,
            Err(_) => return Err(self.report(false)),
        };
        self.vm.pinned.push(value);
        let jobs = self.vm.run_jobs();
        self.vm.pinned.pop();
        match jobs {
            Ok(()) => Ok(value),
            Err(_) => Err(self.report(false)),
        }
    }

    /// Install the loader that resolves and reads modules (`import`, `import()`).
    pub fn set_module_loader(&mut self, loader: Box<dyn crate::ModuleLoader>) {
        self.vm.set_module_loader(loader);
    }

    /// Load, link and evaluate the module `specifier` (resolved by the loader against
    /// `referrer`), then its jobs; returns the module's namespace object.
    pub fn run_module(&mut self, specifier: &str, referrer: &str) -> Result<Value, ErrorReport> {
        // Errors before anything ran (syntax, resolution, loading) count as early errors.
        let module = match self.vm.prepare_module(specifier, referrer) {
            Ok(m) => m,
            Err(_) => return Err(self.report(true)),
        };
        match self.vm.run_linked_module(module) {
            Ok(namespace) => Ok(Value::object(namespace)),
            Err(_) => Err(self.report(false)),
        }
    }

    /// Evaluate `source` and describe the result the way a REPL prints it.
    pub fn eval(&mut self, source: &str) -> Result<String, ErrorReport> {
        let v = self.run_script(source, "<eval>")?;
        Ok(self.inspect(v))
    }

    /// A REPL-style description of a value (strings unquoted at top level).
    pub fn inspect(&mut self, v: Value) -> String {
        crate::inspect::inspect(&mut self.vm, v, false)
    }

    /// Define a global function implemented in Rust.
    pub fn register_function(&mut self, name: &str, func: NativeFn, length: u32) {
        let global = self.vm.intrinsics.global;
        self.vm.define_native(global, name, func, length);
    }

    /// Describe the pending exception and clear it.
    fn report(&mut self, is_syntax_error: bool) -> ErrorReport {
        self.vm.clear_termination();
        let origin = self.vm.exception_origin.take();
        let exception = self.vm.take_exception();
        let summary = self.summarize(exception);
        let stack = match exception.as_object() {
            Some(o) => match self
                .vm
                .heap
                .own_property(o, PropertyKey::String(self.vm.atoms.stack))
            {
                Some(p) if p.value.as_string().is_some() => self.vm.display(p.value),
                _ => summary.clone(),
            },
            None => summary.clone(),
        };
        let location = origin.map(|(script, line, column)| {
            let s = &self.vm.scripts[script];
            SourceLocation {
                file: s.name.to_string(),
                line,
                column,
                source_line: s.line_text(line).to_string(),
            }
        });
        ErrorReport {
            is_syntax_error,
            summary,
            stack,
            location,
        }
    }

    fn summarize(&mut self, exception: Value) -> String {
        if let Some(o) = exception.as_object()
            && let crate::object::ObjectKind::Error = self.vm.heap.object(o).kind
        {
            let name = self
                .vm
                .get(exception, PropertyKey::String(self.vm.atoms.name))
                .ok();
            let msg = self
                .vm
                .get(exception, PropertyKey::String(self.vm.atoms.message))
                .ok();
            let name = name
                .map(|v| self.vm.display(v))
                .unwrap_or_else(|| "Error".into());
            let msg = msg.map(|v| self.vm.display(v)).unwrap_or_default();
            self.vm.take_exception();
            return if msg.is_empty() {
                name
            } else {
                format!("{name}: {msg}")
            };
        }
        format!(
            "Uncaught {}",
            crate::inspect::inspect(&mut self.vm, exception, true)
        )
    }
}
