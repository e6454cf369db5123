//! The handler's code as the workers load it: every module of its static import graph,
//! read once (at start and on each reload) and held in memory, so that all workers and all
//! their runtimes run the same version and never touch the file system.

use kiln::ModuleLoader;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The modules of a handler: how each (referrer, specifier) pair resolved, and each
/// module's source.
#[derive(Debug, Default)]
pub struct HandlerCode {
    /// the specifier of the handler module as the entry imports it
    pub handler: String,
    resolved: HashMap<(String, String), String>,
    sources: BTreeMap<String, String>,
}

impl HandlerCode {
    /// The keys of the handler's modules, in order (file paths, for a file loader).
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.sources.keys().map(String::as_str)
    }

    /// A loader over this code for one runtime.
    pub fn loader(self: &Arc<Self>) -> CodeLoader {
        CodeLoader(self.clone())
    }
}

/// Serves a [`HandlerCode`]; a module outside its graph (a dynamic `import()` of a module no
/// static import names) cannot be loaded.
pub struct CodeLoader(Arc<HandlerCode>);

impl ModuleLoader for CodeLoader {
    fn resolve(&mut self, specifier: &str, referrer: &str) -> Result<String, String> {
        self.0
            .resolved
            .get(&(referrer.to_string(), specifier.to_string()))
            .cloned()
            .ok_or_else(|| "only modules the handler imports statically can be loaded".into())
    }

    fn load(&mut self, key: &str) -> Result<String, String> {
        self.0
            .sources
            .get(key)
            .cloned()
            .ok_or_else(|| "only modules the handler imports statically can be loaded".into())
    }
}

/// Wraps the host's loader while the handler is first evaluated, recording what it
/// resolves and loads.
pub struct RecordingLoader<L> {
    inner: L,
    code: std::rc::Rc<std::cell::RefCell<HandlerCode>>,
}

impl<L: ModuleLoader> RecordingLoader<L> {
    pub fn new(inner: L, handler: &str) -> (Self, std::rc::Rc<std::cell::RefCell<HandlerCode>>) {
        let code = std::rc::Rc::new(std::cell::RefCell::new(HandlerCode {
            handler: handler.to_string(),
            ..HandlerCode::default()
        }));
        (
            RecordingLoader {
                inner,
                code: code.clone(),
            },
            code,
        )
    }
}

impl<L: ModuleLoader> ModuleLoader for RecordingLoader<L> {
    fn resolve(&mut self, specifier: &str, referrer: &str) -> Result<String, String> {
        let key = self.inner.resolve(specifier, referrer)?;
        self.code
            .borrow_mut()
            .resolved
            .insert((referrer.to_string(), specifier.to_string()), key.clone());
        Ok(key)
    }

    fn load(&mut self, key: &str) -> Result<String, String> {
        let source = self.inner.load(key)?;
        self.code
            .borrow_mut()
            .sources
            .insert(key.to_string(), source.clone());
        Ok(source)
    }
}
