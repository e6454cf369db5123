//! ECMAScript modules: module records, the host loader, linking, evaluation (with
//! top-level await), namespace objects, `import.meta` and dynamic `import()`.
//!
//! The host supplies a [`ModuleLoader`] that resolves specifiers to keys and loads source
//! text; the VM keeps one [`ModuleRecord`] per (key, kind), so each module is compiled,
//! linked and evaluated once. Loading is synchronous: the loader returns the source.
//!
//! # Life of a module
//!
//! 1. **Load** ([`Vm::load_module_graph`]): compile the requested module and, transitively,
//!    everything it imports. Each record gets its module environment at once (all holes),
//!    so bindings can be resolved to `(environment, slot)` pairs before anything runs.
//! 2. **Link** ([`Vm::link_module`]): resolve every import and indirect export
//!    ([ResolveExport](https://tc39.es/ecma262/#sec-resolveexport)); a missing or
//!    ambiguous name is a SyntaxError. Fill namespace imports and run each module's
//!    initialiser (vars, hoisted functions).
//! 3. **Evaluate** ([`Vm::evaluate_module`]): the spec's
//!    [InnerModuleEvaluation](https://tc39.es/ecma262/#sec-innermoduleevaluation), with
//!    async modules (top-level await, or waiting on one) continued from promise reactions.
//!    Returns a promise for the whole graph.
//!
//! Imports read the exporter's environment slot through `Instr::GetImport`, so they are
//! live bindings and see the exporter's temporal dead zone.

use std::rc::Rc;

use super::{Args, Exit, ReturnTo, Vm};
use crate::JsResult;
use crate::builtins::promise::Status as PromiseStatus;
use crate::heap::{EnvId, ObjectId};
use crate::object::{Attrs, ObjectKind, PropertyKey};
use crate::value::Value;
use kiln_bytecode::{ModuleInfo, ScriptKind};

/// Resolves and loads modules for a VM. Implemented by the host (the CLI reads files).
pub trait ModuleLoader {
    /// The key of the module `specifier` names when imported from `referrer` (the key of
    /// the importing module, or the name of the importing script). Keys identify modules:
    /// two specifiers with the same key share one module instance.
    fn resolve(&mut self, specifier: &str, referrer: &str) -> Result<String, String>;
    /// The source text of the module `key`.
    fn load(&mut self, key: &str) -> Result<String, String>;
    /// The module `key` compiled ahead of time ([`crate::CompiledModule`]), when the host
    /// has it: it is loaded without parsing or compiling, and [`ModuleLoader::load`] is not
    /// called. The default has none.
    fn load_compiled(&mut self, _key: &str) -> Option<crate::CompiledModule> {
        None
    }
}

/// Index into [`Modules::records`].
pub type ModuleId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleStatus {
    Unlinked,
    Linked,
    Evaluating,
    EvaluatingAsync,
    Evaluated,
}

/// What an import or export resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// slot of a module environment
    Slot(EnvId, u16),
    /// the namespace object of a module (`export * as ns from`)
    Namespace(ModuleId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resolution {
    Found(Binding),
    NotFound,
    Ambiguous,
}

/// A module record: source text modules and JSON modules.
pub struct ModuleRecord {
    pub key: Rc<str>,
    pub json: bool,
    /// index into `Vm::scripts` (None for JSON modules)
    pub script: Option<u32>,
    pub info: Rc<ModuleInfo>,
    pub env: EnvId,
    pub status: ModuleStatus,
    /// the module each request of `info.requests` resolved to
    pub requested: Vec<ModuleId>,
    /// what each entry of `info.imports` resolved to (filled when linking)
    pub import_bindings: Vec<Binding>,
    pub namespace: Option<ObjectId>,
    pub meta: Option<ObjectId>,
    pub error: Option<Value>,
    dfs_index: u32,
    dfs_ancestor_index: u32,
    cycle_root: ModuleId,
    /// [[AsyncEvaluation]]: the order in which the module became async, while pending
    async_evaluation: Option<u64>,
    top_level_capability: Option<ObjectId>,
    async_parents: Vec<ModuleId>,
    pending_async_dependencies: u32,
}

/// The module registry of a VM.
#[derive(Default)]
pub struct Modules {
    pub records: Vec<ModuleRecord>,
    by_key: rustc_hash::FxHashMap<(Rc<str>, bool), ModuleId>,
    /// the module whose code each loaded script index holds
    by_script: rustc_hash::FxHashMap<u32, ModuleId>,
    pub loader: Option<Box<dyn ModuleLoader>>,
    async_order: u64,
}

impl Modules {
    /// Values and environments the collector must keep.
    pub fn roots(&self, values: &mut Vec<Value>, envs: &mut Vec<EnvId>) {
        for r in &self.records {
            envs.push(r.env);
            values.extend(r.namespace.map(Value::object));
            values.extend(r.meta.map(Value::object));
            values.extend(r.error);
            values.extend(r.top_level_capability.map(Value::object));
        }
    }

    /// The module whose code the loaded script `script` is.
    pub fn of_script(&self, script: u32) -> Option<ModuleId> {
        self.by_script.get(&script).copied()
    }
}

/// The export names and bindings of a module namespace object, sorted by name.
#[derive(Clone, Debug, Default)]
pub struct NamespaceData {
    pub exports: Vec<(PropertyKey, NamespaceBinding)>,
}

#[derive(Clone, Copy, Debug)]
pub enum NamespaceBinding {
    Slot(EnvId, u16),
    Value(Value),
}

impl NamespaceData {
    pub fn trace(&self, out: &mut Vec<Value>, envs: &mut Vec<EnvId>) {
        for (key, b) in &self.exports {
            if let PropertyKey::String(s) = key {
                out.push(Value::string(*s));
            }
            match b {
                NamespaceBinding::Slot(env, _) => envs.push(*env),
                NamespaceBinding::Value(v) => out.push(*v),
            }
        }
    }

    pub fn binding(&self, key: PropertyKey) -> Option<NamespaceBinding> {
        self.exports
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, b)| *b)
    }
}

/// A module a key names, and whether it is JSON.
fn is_json_request(attributes: &[(String, String)]) -> Result<bool, String> {
    let mut json = false;
    for (key, value) in attributes {
        match (key.as_str(), value.as_str()) {
            ("type", "json") => json = true,
            ("type", other) => return Err(format!("unsupported module type '{other}'")),
            (other, _) => return Err(format!("unsupported import attribute '{other}'")),
        }
    }
    Ok(json)
}

impl Vm {
    /// Install the host's module loader.
    pub fn set_module_loader(&mut self, loader: Box<dyn ModuleLoader>) {
        self.modules.loader = Some(loader);
    }

    fn module_load_error(&mut self, msg: String) -> crate::Thrown {
        self.type_error(msg)
    }

    /// The record for `key`, loading and compiling it if it is new (not its imports).
    fn module_record_for(&mut self, key: &str, json: bool) -> JsResult<(ModuleId, bool)> {
        if let Some(&id) = self.modules.by_key.get(&(Rc::from(key), json)) {
            return Ok((id, false));
        }
        let precompiled = match self.modules.loader.as_mut() {
            Some(loader) if !json => loader.load_compiled(key),
            _ => None,
        };
        let source = match (&precompiled, self.modules.loader.as_mut()) {
            (Some(_), _) => Ok(String::new()),
            (None, Some(loader)) => loader.load(key),
            (None, None) => Err("no module loader is installed".to_string()),
        };
        let source = source
            .map_err(|e| self.module_load_error(format!("Cannot load module '{key}': {e}")))?;
        let key: Rc<str> = Rc::from(key);
        let (script, info) = if json {
            (None, ModuleInfo::default())
        } else {
            self.reserve_compilation(source.len())?;
            let loaded_from_source;
            let compiled = match &precompiled {
                Some(module) => module.script(),
                None => {
                    let script =
                        match kiln_compiler::compile(&source, &key, ScriptKind::Module, true) {
                            Ok(s) => s,
                            Err(e) => {
                                let msg =
                                    format!("{} ({}:{}:{})", e.message, key, e.line, e.column);
                                return Err(self.syntax_error(msg));
                            }
                        };
                    if let Err(message) = crate::builtins::regexp::literal_errors(&script) {
                        return Err(self.syntax_error(format!("{message} ({key})")));
                    }
                    loaded_from_source = super::SharedScript::new(super::compiler_output(script));
                    &loaded_from_source
                }
            };
            let info = compiled.module.as_deref().cloned().unwrap_or_default();
            self.load_shared(compiled, super::Recipe::Compile { strict: true });
            (Some(self.scripts.len() as u32 - 1), info)
        };
        let env_size = if json { 1 } else { info.env_size as usize };
        let env = self.heap.alloc_env(None, env_size);
        let mut info = info;
        if json {
            info.local_exports.push(("default".to_string(), 0));
            let text = self.string_value(&source);
            let start = self.stack.len();
            self.stack.push(text);
            let parsed = crate::builtins::json::parse(
                self,
                Value::UNDEFINED,
                Args {
                    start: start as u32,
                    count: 1,
                    new_target: Value::UNDEFINED,
                },
            );
            self.stack.truncate(start);
            self.heap.env_mut(env).slots[0] = parsed?;
        }
        let id = self.modules.records.len();
        self.modules.records.push(ModuleRecord {
            key: key.clone(),
            json,
            script,
            info: Rc::new(info),
            env,
            status: ModuleStatus::Unlinked,
            requested: Vec::new(),
            import_bindings: Vec::new(),
            namespace: None,
            meta: None,
            error: None,
            dfs_index: 0,
            dfs_ancestor_index: 0,
            cycle_root: id,
            async_evaluation: None,
            top_level_capability: None,
            async_parents: Vec::new(),
            pending_async_dependencies: 0,
        });
        self.modules.by_key.insert((key, json), id);
        if let Some(s) = script {
            self.modules.by_script.insert(s, id);
        }
        Ok((id, true))
    }

    /// Resolve `specifier` from `referrer` and load that module and everything it imports.
    pub fn load_module_graph(
        &mut self,
        specifier: &str,
        referrer: &str,
        attributes: &[(String, String)],
    ) -> JsResult<ModuleId> {
        let root = self.load_requested(specifier, referrer, attributes)?;
        let mut work = vec![root];
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(id) = work.pop() {
            if !seen.insert(id) {
                continue;
            }
            let record = &self.modules.records[id];
            if record.requested.len() == record.info.requests.len() {
                // Loaded before; its dependencies were loaded with it (or are being
                // loaded further up this work list).
                work.extend(record.requested.iter().copied());
                continue;
            }
            let info = record.info.clone();
            let key = record.key.clone();
            let mut requested = Vec::with_capacity(info.requests.len());
            for request in &info.requests {
                requested.push(self.load_requested(
                    &request.specifier,
                    &key,
                    &request.attributes,
                )?);
            }
            work.extend(requested.iter().copied());
            self.modules.records[id].requested = requested;
        }
        Ok(root)
    }

    fn load_requested(
        &mut self,
        specifier: &str,
        referrer: &str,
        attributes: &[(String, String)],
    ) -> JsResult<ModuleId> {
        let json = is_json_request(attributes).map_err(|e| self.syntax_error(e))?;
        let key = match self.modules.loader.as_mut() {
            Some(loader) => loader.resolve(specifier, referrer),
            None => Err("no module loader is installed".to_string()),
        };
        let key = key.map_err(|e| {
            self.module_load_error(format!(
                "Cannot resolve module '{specifier}' from '{referrer}': {e}"
            ))
        })?;
        Ok(self.module_record_for(&key, json)?.0)
    }

    // ---- linking ----

    /// [ResolveExport](https://tc39.es/ecma262/#sec-resolveexport)
    fn resolve_export(
        &self,
        module: ModuleId,
        name: &str,
        set: &mut Vec<(ModuleId, String)>,
    ) -> Resolution {
        // 1-2. A circular import request: no resolution.
        if set.iter().any(|(m, n)| *m == module && n == name) {
            return Resolution::NotFound;
        }
        set.push((module, name.to_string()));
        let record = &self.modules.records[module];
        let info = &record.info;
        // 5. Local exports.
        if let Some((_, slot)) = info.local_exports.iter().find(|(n, _)| n == name) {
            return Resolution::Found(Binding::Slot(record.env, *slot));
        }
        // 6. Indirect exports.
        if let Some(e) = info.indirect_exports.iter().find(|e| e.export_name == name) {
            let Some(&imported) = record.requested.get(e.request as usize) else {
                return Resolution::NotFound;
            };
            return match &e.import_name {
                None => Resolution::Found(Binding::Namespace(imported)),
                Some(import_name) => self.resolve_export(imported, import_name, set),
            };
        }
        // 7. `default` is never re-exported by `export *`.
        if name == "default" {
            return Resolution::NotFound;
        }
        // 8-9. Star exports.
        let mut star: Option<Binding> = None;
        for &request in &info.star_exports {
            let Some(&imported) = record.requested.get(request as usize) else {
                continue;
            };
            match self.resolve_export(imported, name, set) {
                Resolution::Ambiguous => return Resolution::Ambiguous,
                Resolution::NotFound => {}
                Resolution::Found(b) => match star {
                    None => star = Some(b),
                    Some(existing) if existing != b => return Resolution::Ambiguous,
                    Some(_) => {}
                },
            }
        }
        star.map_or(Resolution::NotFound, Resolution::Found)
    }

    /// [GetExportedNames](https://tc39.es/ecma262/#sec-getexportednames)
    fn exported_names(&self, module: ModuleId, visited: &mut Vec<ModuleId>) -> Vec<String> {
        if visited.contains(&module) {
            return Vec::new();
        }
        visited.push(module);
        let record = &self.modules.records[module];
        let mut names: Vec<String> = record
            .info
            .local_exports
            .iter()
            .map(|(n, _)| n.clone())
            .chain(
                record
                    .info
                    .indirect_exports
                    .iter()
                    .map(|e| e.export_name.clone()),
            )
            .collect();
        for &request in &record.info.star_exports {
            let Some(&imported) = record.requested.get(request as usize) else {
                continue;
            };
            for n in self.exported_names(imported, visited) {
                if n != "default" && !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        names
    }

    /// [GetModuleNamespace](https://tc39.es/ecma262/#sec-getmodulenamespace)
    pub fn module_namespace(&mut self, module: ModuleId) -> ObjectId {
        if let Some(ns) = self.modules.records[module].namespace {
            return ns;
        }
        let ns = self
            .heap
            .new_object(None, ObjectKind::ModuleNamespace(Box::default()));
        let tag = self.string_value("Module");
        let to_string_tag = PropertyKey::Symbol(self.symbols.to_string_tag);
        self.define_builtin(ns, to_string_tag, tag, Attrs::NONE);
        self.heap.object_mut(ns).extensible = false;
        self.modules.records[module].namespace = Some(ns);
        let mut names = self.exported_names(module, &mut Vec::new());
        names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
        let mut exports = Vec::new();
        for name in names {
            let binding = match self.resolve_export(module, &name, &mut Vec::new()) {
                Resolution::Found(Binding::Slot(env, slot)) => NamespaceBinding::Slot(env, slot),
                Resolution::Found(Binding::Namespace(m)) => {
                    NamespaceBinding::Value(Value::object(self.module_namespace(m)))
                }
                _ => continue,
            };
            let atom = self.heap.intern(&name);
            let key = self.key_from_string(atom);
            exports.push((key, binding));
        }
        if let ObjectKind::ModuleNamespace(data) = &mut self.heap.object_mut(ns).kind {
            data.exports = exports;
        }
        ns
    }

    /// Link `root` and every module it depends on: resolve imports, fill namespace imports
    /// and instantiate hoisted functions. A name that does not resolve is a SyntaxError.
    pub fn link_module(&mut self, root: ModuleId) -> JsResult<()> {
        // Modules still to link, dependencies first.
        let mut order = Vec::new();
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if expanded {
                order.push(id);
                continue;
            }
            if self.modules.records[id].status != ModuleStatus::Unlinked || !seen.insert(id) {
                continue;
            }
            stack.push((id, true));
            for &dep in self.modules.records[id].requested.iter().rev() {
                stack.push((dep, false));
            }
        }
        for &id in &order {
            if let Err(t) = self.initialize_environment(id) {
                for &m in &order {
                    self.modules.records[m].status = ModuleStatus::Unlinked;
                }
                return Err(t);
            }
            self.modules.records[id].status = ModuleStatus::Linked;
        }
        Ok(())
    }

    /// [InitializeEnvironment](https://tc39.es/ecma262/#sec-source-text-module-record-initialize-environment)
    fn initialize_environment(&mut self, id: ModuleId) -> JsResult<()> {
        let record = &self.modules.records[id];
        let info = record.info.clone();
        let key = record.key.clone();
        let requested = record.requested.clone();
        // Indirect exports must resolve.
        for e in &info.indirect_exports {
            match self.resolve_export(id, &e.export_name, &mut Vec::new()) {
                Resolution::Found(_) => {}
                Resolution::NotFound => {
                    let msg = format!(
                        "The requested module '{}' does not provide an export named '{}' (re-exported by '{key}')",
                        info.requests[e.request as usize].specifier,
                        e.import_name.as_deref().unwrap_or(&e.export_name),
                    );
                    return Err(self.syntax_error(msg));
                }
                Resolution::Ambiguous => {
                    let msg = format!(
                        "The export '{}' of '{key}' is ambiguous (several `export *` provide it)",
                        e.export_name
                    );
                    return Err(self.syntax_error(msg));
                }
            }
        }
        let mut bindings = Vec::with_capacity(info.imports.len());
        let Some(max_request) = info.requests.len().checked_sub(1) else {
            return self.finish_initialize_environment(id, &info, Vec::new());
        };
        if requested.len() <= max_request {
            return Err(self.reference_error(format!("module '{key}' was not fully loaded")));
        }
        for import in &info.imports {
            let target = requested[import.request as usize];
            match self.resolve_export(target, &import.import_name, &mut Vec::new()) {
                Resolution::Found(b) => bindings.push(b),
                Resolution::NotFound => {
                    let msg = format!(
                        "The requested module '{}' does not provide an export named '{}' (imported by '{key}')",
                        info.requests[import.request as usize].specifier, import.import_name
                    );
                    return Err(self.syntax_error(msg));
                }
                Resolution::Ambiguous => {
                    let msg = format!(
                        "The requested module '{}' provides an ambiguous export named '{}' (imported by '{key}')",
                        info.requests[import.request as usize].specifier, import.import_name
                    );
                    return Err(self.syntax_error(msg));
                }
            }
        }
        self.finish_initialize_environment(id, &info, bindings)
    }

    /// Record the resolved imports, fill namespace imports and run the initialiser.
    fn finish_initialize_environment(
        &mut self,
        id: ModuleId,
        info: &ModuleInfo,
        bindings: Vec<Binding>,
    ) -> JsResult<()> {
        self.modules.records[id].import_bindings = bindings;
        let requested = self.modules.records[id].requested.clone();
        let env = self.modules.records[id].env;
        for &(request, slot) in &info.namespace_imports {
            let ns = self.module_namespace(requested[request as usize]);
            self.heap.env_mut(env).slots[slot as usize] = Value::object(ns);
        }
        // Hoisted functions and vars.
        if let Some(script) = self.modules.records[id].script {
            let block = self.scripts[script as usize].blocks[info.init_function as usize].clone();
            self.run_module_code(block, env)?;
        }
        Ok(())
    }

    /// Push a frame for module code over its module environment (`this` is undefined).
    fn push_module_frame(&mut self, block: Rc<super::CodeBlock>, env: EnvId) -> JsResult<()> {
        let callee = self.intrinsics.throw_type_error;
        self.push_frame(
            block,
            callee,
            Some(env),
            Value::UNDEFINED,
            &[],
            Value::UNDEFINED,
            ReturnTo::Exit,
            false,
        )
    }

    /// Run module code (initialiser or synchronous body) to completion.
    fn run_module_code(&mut self, block: Rc<super::CodeBlock>, env: EnvId) -> JsResult<Value> {
        self.push_module_frame(block, env)?;
        match self.run()? {
            Exit::Return(v) | Exit::Yield(v) | Exit::Await(v) => Ok(v),
        }
    }

    // ---- evaluation ----

    /// [Evaluate](https://tc39.es/ecma262/#sec-moduleevaluation): run a linked module
    /// graph; the promise settles when every module (async ones included) has run.
    pub fn evaluate_module(&mut self, module: ModuleId) -> ObjectId {
        let mut module = module;
        // 4. An evaluated module: its cycle root holds the promise.
        if matches!(
            self.modules.records[module].status,
            ModuleStatus::EvaluatingAsync | ModuleStatus::Evaluated
        ) {
            module = self.modules.records[module].cycle_root;
        }
        if let Some(p) = self.modules.records[module].top_level_capability {
            return p;
        }
        let promise = self.new_promise();
        self.modules.records[module].top_level_capability = Some(promise);
        let mut stack = Vec::new();
        match self.inner_module_evaluation(module, &mut stack, 0) {
            Err(_) => {
                let e = self.take_exception();
                for m in stack {
                    let r = &mut self.modules.records[m];
                    r.status = ModuleStatus::Evaluated;
                    r.error = Some(e);
                }
                self.reject_promise(promise, e);
            }
            Ok(_) => {
                if self.modules.records[module].async_evaluation.is_none() {
                    let _ = self.resolve_promise(promise, Value::UNDEFINED);
                }
            }
        }
        promise
    }

    /// [InnerModuleEvaluation](https://tc39.es/ecma262/#sec-innermoduleevaluation)
    fn inner_module_evaluation(
        &mut self,
        module: ModuleId,
        stack: &mut Vec<ModuleId>,
        index: u32,
    ) -> JsResult<u32> {
        let mut index = index;
        let record = &self.modules.records[module];
        match record.status {
            ModuleStatus::EvaluatingAsync | ModuleStatus::Evaluated => {
                return match record.error {
                    Some(e) => Err(self.throw(e)),
                    None => Ok(index),
                };
            }
            ModuleStatus::Evaluating => return Ok(index),
            ModuleStatus::Unlinked => {
                return Err(self.reference_error("module is not linked"));
            }
            ModuleStatus::Linked => {}
        }
        if stack.len() >= self.limits.max_native_depth * 8 {
            return Err(self.range_error("module graph too deep"));
        }
        let r = &mut self.modules.records[module];
        r.status = ModuleStatus::Evaluating;
        r.dfs_index = index;
        r.dfs_ancestor_index = index;
        r.pending_async_dependencies = 0;
        index += 1;
        stack.push(module);
        let requested = self.modules.records[module].requested.clone();
        for required in requested {
            index = self.inner_module_evaluation(required, stack, index)?;
            let req = &self.modules.records[required];
            let required = if req.status == ModuleStatus::Evaluating {
                let ancestor = req.dfs_ancestor_index;
                let r = &mut self.modules.records[module];
                r.dfs_ancestor_index = r.dfs_ancestor_index.min(ancestor);
                required
            } else {
                let root = req.cycle_root;
                if let Some(e) = self.modules.records[root].error {
                    return Err(self.throw(e));
                }
                root
            };
            if self.modules.records[required].async_evaluation.is_some() {
                self.modules.records[module].pending_async_dependencies += 1;
                self.modules.records[required].async_parents.push(module);
            }
        }
        let has_tla = self.modules.records[module].info.has_top_level_await;
        if self.modules.records[module].pending_async_dependencies > 0 || has_tla {
            self.modules.async_order += 1;
            self.modules.records[module].async_evaluation = Some(self.modules.async_order);
            if self.modules.records[module].pending_async_dependencies == 0 {
                self.execute_async_module(module)?;
            }
        } else {
            self.execute_module_sync(module)?;
        }
        let r = &self.modules.records[module];
        if r.dfs_ancestor_index == r.dfs_index {
            while let Some(m) = stack.pop() {
                let rm = &mut self.modules.records[m];
                rm.status = if rm.async_evaluation.is_none() {
                    ModuleStatus::Evaluated
                } else {
                    ModuleStatus::EvaluatingAsync
                };
                rm.cycle_root = module;
                if m == module {
                    break;
                }
            }
        }
        Ok(index)
    }

    fn execute_module_sync(&mut self, module: ModuleId) -> JsResult<()> {
        let Some(script) = self.modules.records[module].script else {
            return Ok(());
        };
        let env = self.modules.records[module].env;
        let block = self.scripts[script as usize].blocks[0].clone();
        self.run_module_code(block, env)?;
        Ok(())
    }

    /// [ExecuteAsyncModule](https://tc39.es/ecma262/#sec-execute-async-module): run the
    /// body like an async function; its promise continues the graph.
    fn execute_async_module(&mut self, module: ModuleId) -> JsResult<()> {
        let promise = self.new_promise();
        let id = Value::int(module as i32);
        let name = self.string_value("");
        let on_fulfilled =
            self.new_native_with_data(async_module_fulfilled, name, 0, false, Box::new([id]));
        let on_rejected =
            self.new_native_with_data(async_module_rejected, name, 1, false, Box::new([id]));
        self.perform_then(
            promise,
            Value::object(on_fulfilled),
            Value::object(on_rejected),
            None,
        );
        let Some(script) = self.modules.records[module].script else {
            let _ = self.resolve_promise(promise, Value::UNDEFINED);
            return Ok(());
        };
        let env = self.modules.records[module].env;
        let block = self.scripts[script as usize].blocks[0].clone();
        self.push_module_frame(block, env)?;
        self.run_top_frame_async(promise)
    }

    /// [GatherAvailableAncestors](https://tc39.es/ecma262/#sec-gather-available-ancestors)
    fn gather_available_ancestors(&mut self, module: ModuleId, exec: &mut Vec<ModuleId>) {
        let parents = self.modules.records[module].async_parents.clone();
        for m in parents {
            let root = self.modules.records[m].cycle_root;
            if exec.contains(&m) || self.modules.records[root].error.is_some() {
                continue;
            }
            let r = &mut self.modules.records[m];
            r.pending_async_dependencies = r.pending_async_dependencies.saturating_sub(1);
            if r.pending_async_dependencies == 0 {
                exec.push(m);
                if !r.info.has_top_level_await {
                    self.gather_available_ancestors(m, exec);
                }
            }
        }
    }

    /// [AsyncModuleExecutionFulfilled](https://tc39.es/ecma262/#sec-async-module-execution-fulfilled)
    fn async_module_execution_fulfilled(&mut self, module: ModuleId) -> JsResult<()> {
        if self.modules.records[module].status == ModuleStatus::Evaluated {
            return Ok(());
        }
        let r = &mut self.modules.records[module];
        r.async_evaluation = None;
        r.status = ModuleStatus::Evaluated;
        if let Some(p) = r.top_level_capability {
            self.resolve_promise(p, Value::UNDEFINED)?;
        }
        let mut exec = Vec::new();
        self.gather_available_ancestors(module, &mut exec);
        exec.sort_by_key(|&m| self.modules.records[m].async_evaluation.unwrap_or(u64::MAX));
        for m in exec {
            if self.modules.records[m].status == ModuleStatus::Evaluated {
                continue;
            }
            if self.modules.records[m].info.has_top_level_await {
                self.execute_async_module(m)?;
            } else {
                match self.execute_module_sync(m) {
                    Err(_) => {
                        let e = self.catch_thrown()?;
                        self.async_module_execution_rejected(m, e);
                    }
                    Ok(()) => {
                        let r = &mut self.modules.records[m];
                        r.async_evaluation = None;
                        r.status = ModuleStatus::Evaluated;
                        if let Some(p) = r.top_level_capability {
                            self.resolve_promise(p, Value::UNDEFINED)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// [AsyncModuleExecutionRejected](https://tc39.es/ecma262/#sec-async-module-execution-rejected)
    fn async_module_execution_rejected(&mut self, module: ModuleId, error: Value) {
        if self.modules.records[module].status == ModuleStatus::Evaluated {
            return;
        }
        let r = &mut self.modules.records[module];
        r.error = Some(error);
        r.status = ModuleStatus::Evaluated;
        r.async_evaluation = None;
        let parents = r.async_parents.clone();
        if let Some(p) = r.top_level_capability {
            self.reject_promise(p, error);
        }
        for m in parents {
            self.async_module_execution_rejected(m, error);
        }
    }

    // ---- running from the host ----

    /// Load, link and evaluate the module `specifier` (resolved against `referrer`), then
    /// run jobs until the queue is empty. Returns the module's namespace object; the
    /// module's evaluation error (or a loading/linking error) is the pending exception.
    pub fn run_module(&mut self, specifier: &str, referrer: &str) -> JsResult<ObjectId> {
        let module = self.prepare_module(specifier, referrer)?;
        self.run_linked_module(module)
    }

    /// Load and link the module `specifier` and its dependencies, without running them.
    pub fn prepare_module(&mut self, specifier: &str, referrer: &str) -> JsResult<ModuleId> {
        let module = self.load_module_graph(specifier, referrer, &[])?;
        self.link_module(module)?;
        Ok(module)
    }

    /// Evaluate a linked module, then run jobs (and `Atomics.waitAsync` waiters) until
    /// nothing is left to run. Returns the module's namespace object; its evaluation
    /// error is the pending exception.
    pub fn run_linked_module(&mut self, module: ModuleId) -> JsResult<ObjectId> {
        let promise = self.evaluate_module(module);
        self.pinned.push(Value::object(promise));
        let jobs = self.run_until_settled();
        self.pinned.pop();
        jobs?;
        let (status, result) = match &self.heap.object(promise).kind {
            ObjectKind::Promise(p) => (p.status, p.result),
            _ => (PromiseStatus::Pending, Value::UNDEFINED),
        };
        match status {
            PromiseStatus::Fulfilled => Ok(self.module_namespace(module)),
            PromiseStatus::Rejected => Err(self.throw(result)),
            PromiseStatus::Pending => {
                Err(self.type_error("the module's top-level await never finished"))
            }
        }
    }

    // ---- instructions ----

    /// The module the running frame's code belongs to.
    fn running_module(&self) -> Option<ModuleId> {
        let frame = self.frames.last()?;
        self.modules.of_script(frame.code.script)
    }

    /// `GetImport`: the value of import `index` of the running module.
    pub(crate) fn get_import(&mut self, index: u16) -> JsResult<Value> {
        let Some(module) = self.running_module() else {
            return Err(self.syntax_error("import bindings are only valid in modules"));
        };
        let record = &self.modules.records[module];
        match record.import_bindings.get(index as usize).copied() {
            Some(Binding::Slot(env, slot)) => {
                let v = self.heap.env(env).slots[slot as usize];
                if v.is_hole() {
                    let name = record.info.imports[index as usize].local_name.clone();
                    return Err(self
                        .reference_error(format!("Cannot access '{name}' before initialization")));
                }
                Ok(v)
            }
            Some(Binding::Namespace(m)) => Ok(Value::object(self.module_namespace(m))),
            None => Err(self.reference_error("module is not linked")),
        }
    }

    /// `LoadImportMeta`: the running module's `import.meta` object (created on first use).
    pub(crate) fn import_meta(&mut self) -> JsResult<Value> {
        let Some(module) = self.running_module() else {
            return Err(self.syntax_error("import.meta is only valid in modules"));
        };
        if let Some(m) = self.modules.records[module].meta {
            return Ok(Value::object(m));
        }
        let meta = self.heap.new_object(None, ObjectKind::Ordinary);
        let url = self.modules.records[module].key.to_string();
        let url = self.string_value(&url);
        let key = self.heap.intern("url");
        let key = self.key_from_string(key);
        self.create_data_property(meta, key, url)?;
        self.modules.records[module].meta = Some(meta);
        Ok(Value::object(meta))
    }

    /// [`import(specifier, options)`](https://tc39.es/ecma262/#sec-import-call-runtime-semantics-evaluation):
    /// a promise for the namespace; loading starts from a job.
    pub(crate) fn import_dynamic_call(
        &mut self,
        specifier: Value,
        options: Value,
        source_phase: bool,
    ) -> JsResult<Value> {
        let promise = self.new_promise();
        // The referrer: the innermost script or module; code from `eval` imports relative
        // to the code that called eval.
        let referrer = self
            .frames
            .iter()
            .rev()
            .map(|f| f.code.script)
            .find(|&s| self.scripts[s as usize].kind != ScriptKind::Eval)
            .or_else(|| self.frames.last().map(|f| f.code.script))
            .unwrap_or(0);
        // What we hold across steps that may run JavaScript (and collect) stays on `roots`.
        let mark = self.roots.len();
        self.roots.push(Value::object(promise));
        let checked: JsResult<(Value, Value)> = (|| {
            let spec = self.to_string(specifier)?;
            self.roots.push(Value::string(spec));
            if source_phase {
                // [GetModuleSource](https://tc39.es/ecma262/#sec-source-text-module-record-getmodulesource)
                return Err(self.syntax_error(
                    "source phase imports of source text modules are not available",
                ));
            }
            let mut attributes = Vec::new();
            if !options.is_undefined() {
                if !options.is_object() {
                    return Err(
                        self.type_error("The second argument of import() must be an object")
                    );
                }
                let with_key = self.heap.intern("with");
                let with_key = self.key_from_string(with_key);
                let with = self.get(options, with_key)?;
                if !with.is_undefined() {
                    let Some(with_obj) = with.as_object() else {
                        return Err(
                            self.type_error("The 'with' option of import() must be an object")
                        );
                    };
                    self.roots.push(with);
                    for key in self.own_property_keys(with_obj)? {
                        let (PropertyKey::String(_) | PropertyKey::Index(_)) = key else {
                            continue;
                        };
                        let Some(desc) = self.get_own_property(with_obj, key)? else {
                            continue;
                        };
                        if desc.enumerable != Some(true) {
                            continue;
                        }
                        let value = self.get(with, key)?;
                        if value.as_string().is_none() {
                            return Err(self.type_error("import attribute values must be strings"));
                        }
                        let name = self.key_to_display(key);
                        let value = self.display(value);
                        attributes.push((name, value));
                    }
                }
            }
            let pairs: Vec<Value> = attributes
                .iter()
                .flat_map(|(k, v)| [k.clone(), v.clone()])
                .map(|s| self.string_value(&s))
                .collect();
            let attrs = self.array_from_values(pairs);
            Ok((Value::string(spec), Value::object(attrs)))
        })();
        self.roots.truncate(mark);
        match checked {
            Ok((spec, attrs)) => {
                let name = self.string_value("");
                let job = self.new_native_with_data(
                    continue_dynamic_import,
                    name,
                    1,
                    false,
                    Box::new([Value::object(promise), Value::int(referrer as i32), attrs]),
                );
                self.enqueue_job(super::Job::Call {
                    func: Value::object(job),
                    this: Value::UNDEFINED,
                    arg: spec,
                });
            }
            Err(_) => {
                let e = self.catch_thrown()?;
                self.reject_promise(promise, e);
            }
        }
        Ok(Value::object(promise))
    }
}

fn module_of(vm: &Vm) -> ModuleId {
    vm.native_data(vm.native_callee)
        .first()
        .and_then(|v| v.as_int())
        .map_or(0, |i| i as usize)
}

fn async_module_fulfilled(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    let module = module_of(vm);
    vm.async_module_execution_fulfilled(module)?;
    Ok(Value::UNDEFINED)
}

fn async_module_rejected(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let module = module_of(vm);
    let error = vm.arg(args, 0);
    vm.async_module_execution_rejected(module, error);
    Ok(Value::UNDEFINED)
}

/// The job that loads, links and evaluates a dynamically imported module
/// ([ContinueDynamicImport](https://tc39.es/ecma262/#sec-ContinueDynamicImport)).
fn continue_dynamic_import(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let data = vm.native_data(vm.native_callee).to_vec();
    let (Some(promise), Some(referrer)) = (
        data.first().and_then(|v| v.as_object()),
        data.get(1).and_then(|v| v.as_int()),
    ) else {
        return Ok(Value::UNDEFINED);
    };
    vm.roots.push(Value::object(promise));
    let specifier = vm.arg(args, 0);
    let specifier = vm.display(specifier);
    let mut attributes = Vec::new();
    if let Some(list) = data.get(2).copied() {
        let values = vm.create_list_from_array_like(list)?;
        for pair in values.chunks(2) {
            if let [k, v] = pair {
                attributes.push((vm.display(*k), vm.display(*v)));
            }
        }
    }
    let referrer_name = vm
        .scripts
        .get(referrer as usize)
        .map(|s| s.name.to_string())
        .unwrap_or_default();
    let loaded = vm
        .load_module_graph(&specifier, &referrer_name, &attributes)
        .and_then(|m| vm.link_module(m).map(|_| m));
    let module = match loaded {
        Ok(m) => m,
        Err(_) => {
            let e = vm.catch_thrown()?;
            vm.reject_promise(promise, e);
            return Ok(Value::UNDEFINED);
        }
    };
    let evaluation = vm.evaluate_module(module);
    let name = vm.string_value("");
    let id = Value::int(module as i32);
    let on_fulfilled = vm.new_native_with_data(
        dynamic_import_fulfilled,
        name,
        0,
        false,
        Box::new([Value::object(promise), id]),
    );
    let on_rejected = vm.new_native_with_data(
        dynamic_import_rejected,
        name,
        1,
        false,
        Box::new([Value::object(promise)]),
    );
    vm.perform_then(
        evaluation,
        Value::object(on_fulfilled),
        Value::object(on_rejected),
        None,
    );
    Ok(Value::UNDEFINED)
}

fn dynamic_import_fulfilled(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    let data = vm.native_data(vm.native_callee).to_vec();
    if let (Some(promise), Some(module)) = (
        data.first().and_then(|v| v.as_object()),
        data.get(1).and_then(|v| v.as_int()),
    ) {
        let ns = vm.module_namespace(module as usize);
        vm.resolve_promise(promise, Value::object(ns))?;
    }
    Ok(Value::UNDEFINED)
}

fn dynamic_import_rejected(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let data = vm.native_data(vm.native_callee).to_vec();
    if let Some(promise) = data.first().and_then(|v| v.as_object()) {
        let reason = vm.arg(args, 0);
        vm.reject_promise(promise, reason);
    }
    Ok(Value::UNDEFINED)
}

// ---- module namespace exotic objects ----

impl Vm {
    /// The namespace data of `obj` if it is a module namespace and `key` is a string key
    /// (symbol-keyed properties of a namespace are ordinary).
    pub(crate) fn namespace_exports(&self, obj: ObjectId, key: PropertyKey) -> Option<bool> {
        match &self.heap.object(obj).kind {
            ObjectKind::ModuleNamespace(ns) if !matches!(key, PropertyKey::Symbol(_)) => {
                Some(ns.binding(key).is_some())
            }
            _ => None,
        }
    }

    /// [[Get]] of an export: its current value; ReferenceError while uninitialised.
    pub(crate) fn namespace_get(&mut self, obj: ObjectId, key: PropertyKey) -> JsResult<Value> {
        let binding = match &self.heap.object(obj).kind {
            ObjectKind::ModuleNamespace(ns) => ns.binding(key),
            _ => None,
        };
        match binding {
            None => Ok(Value::UNDEFINED),
            Some(NamespaceBinding::Value(v)) => Ok(v),
            Some(NamespaceBinding::Slot(env, slot)) => {
                let v = self.heap.env(env).slots[slot as usize];
                if v.is_hole() {
                    let name = self.key_to_display(key);
                    return Err(self
                        .reference_error(format!("Cannot access '{name}' before initialization")));
                }
                Ok(v)
            }
        }
    }

    /// [[OwnPropertyKeys]]: the export names in code-unit order, then the symbols.
    pub(crate) fn namespace_keys(&mut self, obj: ObjectId) -> Vec<PropertyKey> {
        let mut keys: Vec<PropertyKey> = match &self.heap.object(obj).kind {
            ObjectKind::ModuleNamespace(ns) => ns.exports.iter().map(|(k, _)| *k).collect(),
            _ => Vec::new(),
        };
        keys.extend(
            self.heap
                .own_keys(obj)
                .into_iter()
                .filter(|k| matches!(k, PropertyKey::Symbol(_))),
        );
        keys
    }

    /// [[DefineOwnProperty]] of a string key
    /// ([spec](https://tc39.es/ecma262/#sec-module-namespace-exotic-objects-defineownproperty-p-desc)).
    pub(crate) fn namespace_define(
        &mut self,
        obj: ObjectId,
        key: PropertyKey,
        desc: &super::property::PropertyDescriptor,
    ) -> JsResult<bool> {
        if self.namespace_exports(obj, key) != Some(true) {
            return Ok(false);
        }
        let current = self.namespace_get(obj, key)?;
        if desc.configurable == Some(true)
            || desc.enumerable == Some(false)
            || desc.get.is_some()
            || desc.set.is_some()
            || desc.writable == Some(false)
        {
            return Ok(false);
        }
        Ok(desc.value.is_none_or(|v| self.same_value(v, current)))
    }
}
