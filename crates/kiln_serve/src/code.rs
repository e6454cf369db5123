//! The handler's code as the workers load it: every module of its static import graph (the
//! web platform and the entry module included), compiled once and held in memory, so that
//! all workers and all their runtimes run the same version, and a runtime is made without
//! parsing, compiling or touching the file system.
//!
//! From source, the calling thread compiles each module of the handler once, through the
//! host's loader, and evaluates the compiled modules once to check the handler, recording
//! how each import resolved. From a `.kbc` file ([`crate::bundle`]), the same tables are read back.

use kiln::{CompiledModule, ErrorReport, ModuleLoader, Runtime};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

/// The modules of a handler and how each (referrer, specifier) pair resolved.
#[derive(Debug, Default, PartialEq)]
pub struct HandlerCode {
    pub(crate) resolved: BTreeMap<(String, String), String>,
    pub(crate) modules: BTreeMap<String, CompiledModule>,
}

impl HandlerCode {
    /// Load the handler `specifier` through `loader`, evaluating it once in a runtime with
    /// the web platform: a handler that fails to load, or is not in the Workers form, is an
    /// error naming what was expected.
    pub fn load(specifier: &str, loader: impl ModuleLoader + 'static) -> Result<Self, ErrorReport> {
        let recorded = Rc::new(RefCell::new(Recorded::default()));
        let recording = RecordingLoader {
            inner: kiln_web::WebLoader::new(specifier, loader),
            recorded: recorded.clone(),
        };
        let mut runtime = Runtime::new();
        let _web = kiln_web::install(
            &mut runtime,
            kiln_web::WebOptions {
                env: Vec::new(),
                console: Box::new(|_, _| {}),
            },
        );
        runtime.set_module_loader(Box::new(recording));
        runtime.run_module(kiln_web::ENTRY, "")?;
        drop(runtime);
        let recorded = recorded.take();
        let mut modules = recorded.compiled;
        for (key, source) in recorded.sources {
            // A module the check runtime compiled from source (its compiled form was
            // refused): compiling it again gives the error.
            if !modules.contains_key(&key) {
                modules.insert(key.clone(), CompiledModule::compile(&source, &key)?);
            }
        }
        Ok(HandlerCode {
            resolved: recorded.resolved,
            modules,
        })
    }

    /// The keys of the handler's modules, in order (file paths, for a file loader).
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.modules.keys().map(String::as_str)
    }

    /// A loader over this code for one runtime.
    pub fn loader(self: &Arc<Self>) -> CodeLoader {
        CodeLoader(self.clone())
    }
}

/// Serves a [`HandlerCode`]; a module outside its graph (a dynamic `import()` of a module no
/// static import names) cannot be loaded.
pub struct CodeLoader(Arc<HandlerCode>);

const OUTSIDE: &str = "only modules the handler imports statically can be loaded";

impl ModuleLoader for CodeLoader {
    fn resolve(&mut self, specifier: &str, referrer: &str) -> Result<String, String> {
        self.0
            .resolved
            .get(&(referrer.to_string(), specifier.to_string()))
            .cloned()
            .ok_or_else(|| OUTSIDE.into())
    }

    fn load(&mut self, _key: &str) -> Result<String, String> {
        Err(OUTSIDE.into())
    }

    fn load_compiled(&mut self, key: &str) -> Option<CompiledModule> {
        self.0.modules.get(key).cloned()
    }
}

#[derive(Default)]
struct Recorded {
    resolved: BTreeMap<(String, String), String>,
    /// each module, compiled once: the check runtime evaluates this compiled form
    compiled: BTreeMap<String, CompiledModule>,
    /// the source of a module that did not compile (its error is reported)
    sources: HashMap<String, String>,
}

/// Wraps the loader while the handler is first evaluated, recording what it resolves and
/// loads. Each module is compiled once, here, and the check runtime loads that compiled
/// form, so the workers run exactly what was checked.
struct RecordingLoader<L> {
    inner: L,
    recorded: Rc<RefCell<Recorded>>,
}

impl<L: ModuleLoader> ModuleLoader for RecordingLoader<L> {
    fn resolve(&mut self, specifier: &str, referrer: &str) -> Result<String, String> {
        let key = self.inner.resolve(specifier, referrer)?;
        self.recorded
            .borrow_mut()
            .resolved
            .insert((referrer.to_string(), specifier.to_string()), key.clone());
        Ok(key)
    }

    fn load(&mut self, key: &str) -> Result<String, String> {
        let source = self.inner.load(key)?;
        self.recorded
            .borrow_mut()
            .sources
            .insert(key.to_string(), source.clone());
        Ok(source)
    }

    /// The module compiled from its source; None when it cannot be loaded or compiled,
    /// and then [`ModuleLoader::load`] reads it again and the runtime reports the error.
    fn load_compiled(&mut self, key: &str) -> Option<CompiledModule> {
        let source = self.inner.load(key).ok()?;
        let module = CompiledModule::compile(&source, key).ok()?;
        self.recorded
            .borrow_mut()
            .compiled
            .insert(key.to_string(), module.clone());
        Some(module)
    }
}
