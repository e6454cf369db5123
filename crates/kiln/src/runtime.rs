//! The embedding API: a [`Runtime`] owns a VM and runs scripts in it.

mod call;

use crate::builtins::promise::Status;
use crate::builtins::shared_memory::SharedBlock;
use crate::compiled::CompiledScript;
use crate::host::{
    AnswerError, BoundaryOptions, CallId, CallReporting, CapabilityKind, ConsoleLevel, HostError,
    HostReply, HostValue, PendingCall, SyncCapability,
};
use crate::interpreter::{Limits, Recipe, Termination, Vm};
use crate::object::{NativeFn, ObjectKind, PropertyKey};
use crate::snapshot::{Snapshot, SnapshotError, SnapshotErrorKind};
use crate::value::Value;
use kiln_bytecode::ScriptKind;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// How a run ended without a result. The kinds are stable: hosts match on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// the source could not be compiled (a `SyntaxError` before anything ran)
    Syntax,
    /// the guest threw and nothing caught it
    Exception,
    /// the fuel budget is spent
    OutOfFuel,
    /// the heap grew past its limit
    HeapLimit,
    /// calls nested past the call-depth budget
    CallDepth,
    /// the guest compute time budget is spent
    ComputeTime,
    /// too many host calls: more asynchronous calls outstanding at once than
    /// `Limits::max_pending_host_calls`, or more calls in all than `Limits::max_host_calls`
    HostCalls,
    /// the host interrupted the run (cancellation, an external deadline)
    Cancelled,
    /// the result could not cross to the host (see [`crate::host::BoundaryError`])
    Boundary,
    /// the host used the API wrongly (answered a call that is not outstanding, sent a
    /// value the guest cannot represent)
    Host,
    /// the guest waits on a promise that nothing can settle any more
    Stalled,
    /// Kiln itself failed (a bug); the runtime refuses further work
    Engine,
}

impl ErrorKind {
    /// The kind's name as hosts spell it (`"OutOfFuel"`), stable like the kinds.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "Syntax",
            ErrorKind::Exception => "Exception",
            ErrorKind::OutOfFuel => "OutOfFuel",
            ErrorKind::HeapLimit => "HeapLimit",
            ErrorKind::CallDepth => "CallDepth",
            ErrorKind::ComputeTime => "ComputeTime",
            ErrorKind::HostCalls => "HostCalls",
            ErrorKind::Cancelled => "Cancelled",
            ErrorKind::Boundary => "Boundary",
            ErrorKind::Host => "Host",
            ErrorKind::Stalled => "Stalled",
            ErrorKind::Engine => "Engine",
        }
    }
}

impl From<Termination> for ErrorKind {
    fn from(t: Termination) -> Self {
        match t {
            Termination::CallDepth => ErrorKind::CallDepth,
            Termination::Interrupted => ErrorKind::Cancelled,
            Termination::HeapLimit => ErrorKind::HeapLimit,
            Termination::OutOfFuel => ErrorKind::OutOfFuel,
            Termination::ComputeTime => ErrorKind::ComputeTime,
            Termination::HostCalls | Termination::HostCallBudget => ErrorKind::HostCalls,
        }
    }
}

/// A run that ended in an error, ready to print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorReport {
    pub kind: ErrorKind,
    /// the guest exception's `name` (`TypeError`, a custom error's name), read as stored
    /// without running guest code; for a thrown value that is not an Error, and for a
    /// budget, host or engine failure, the kind's name ([`ErrorKind::name`])
    pub name: String,
    /// the guest exception's `message`, read as stored; for a thrown value that is not an
    /// Error, the value as `console.log` shows it; otherwise the failure's description
    pub message: String,
    /// `Name: message` (or the thrown value for non-errors)
    pub summary: String,
    /// the `stack` property, or `summary` when there is none
    pub stack: String,
    /// `file:line:column`, the source line and the column where the exception was thrown
    /// (boxed: a report stays small enough to return by value)
    pub location: Option<Box<SourceLocation>>,
}

impl ErrorReport {
    pub fn is_syntax_error(&self) -> bool {
        self.kind == ErrorKind::Syntax
    }

    /// A report for a host-side failure (no guest value involved).
    pub(crate) fn host(kind: ErrorKind, message: String) -> Self {
        ErrorReport {
            kind,
            name: kind.name().to_string(),
            summary: message.clone(),
            stack: message.clone(),
            message,
            location: None,
        }
    }
}

impl std::error::Error for ErrorReport {}

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

/// Where an execution stands after [`Runtime::start`] or [`Runtime::resume`].
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// the script finished (for a promise, it settled) with this result
    Complete(HostValue),
    /// the guest waits for the host: every asynchronous call not yet answered, oldest
    /// first (or, after [`Runtime::set_call_reporting`] with [`CallReporting::New`], only
    /// the calls the host has not been shown yet)
    Suspended(Vec<PendingCall>),
}

/// How to build a [`Runtime`]. The default is an ordinary JavaScript environment; a
/// sandbox sets budgets, hardens and may turn code generation off.
pub struct Options {
    pub limits: Limits,
    /// what values may cross to the host
    pub boundary: BoundaryOptions,
    /// freeze the intrinsics and provide `harden` (see `host::harden`)
    pub hardened: bool,
    /// allow `eval` and `Function` to compile strings
    pub allow_code_generation: bool,
    /// seed for `Math.random` (a fresh random seed when None)
    pub random_seed: Option<u64>,
    /// the clock for `Date.now()` and `new Date()`, in ms since the epoch (the system
    /// clock when None)
    pub clock: Option<Rc<dyn Fn() -> f64>>,
    /// `Atomics.wait` may block the thread running the guest ([[CanBlock]]), and the
    /// runtime waits for `Atomics.waitAsync` waiters without a timeout before a run
    /// returns; off by default (see docs/sandbox.md)
    pub can_block: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            limits: Limits::default(),
            boundary: BoundaryOptions::default(),
            hardened: false,
            allow_code_generation: true,
            random_seed: None,
            clock: None,
            can_block: false,
        }
    }
}

/// Cancels a runtime's current run from any thread.
#[derive(Clone, Debug)]
pub struct InterruptHandle(Arc<AtomicBool>);

impl InterruptHandle {
    /// Stop the running guest at its next safe point; the run ends with
    /// [`ErrorKind::Cancelled`].
    pub fn interrupt(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// An isolated JavaScript runtime: its own heap, realm, job queue and host capabilities.
///
/// ```
/// use kiln::{HostValue, Outcome, Runtime};
///
/// let mut rt = Runtime::new();
/// rt.register_sync("double", |x: f64| x * 2.0);
/// rt.register_async("tools.lookup");
/// let first = rt.start("tools.lookup('answer').then(v => double(v))", "agent.js").unwrap();
/// let Outcome::Suspended(calls) = first else { panic!("expected a host call") };
/// assert_eq!(calls[0].capability, "tools.lookup");
/// let done = rt.resume(calls[0].id, Ok(HostValue::Number(21.0))).unwrap();
/// assert_eq!(done, Outcome::Complete(HostValue::Number(42.0)));
/// ```
pub struct Runtime {
    vm: Vm,
    /// the result of the script [`Runtime::start`] ran, while its execution is going on
    execution: Option<Value>,
    /// an internal error left the VM in an unknown state
    poisoned: bool,
    /// the host runs this runtime on a stack of [`Runtime::LARGE_STACK`] bytes
    /// ([`Runtime::set_large_stack`])
    large_stack: bool,
}

impl Default for Runtime {
    fn default() -> Self {
        Self::new()
    }
}

impl Runtime {
    pub fn new() -> Self {
        Runtime::over(Vm::new())
    }

    /// A new runtime over `vm`, a VM with a fresh realm.
    fn over(vm: Vm) -> Runtime {
        Runtime {
            vm,
            execution: None,
            poisoned: false,
            large_stack: false,
        }
    }

    /// This runtime made new again: a runtime in the state [`Runtime::new`] returns (no
    /// capabilities, options, globals or jobs of this one's; the realm as built, however
    /// the guest changed it), made from this runtime's heap. Cheaper than dropping it and
    /// making a new one: a runtime copies its realm from a template built once per
    /// thread, and this copies again only the template's cells the guest wrote to,
    /// rather than all of them (about a thousand), and frees only the cells made since.
    /// A runtime that is no copy of the template (the thread's first, one restored from
    /// a snapshot) or that an internal error left in an unknown state is dropped, and a
    /// new one made.
    ///
    /// ```
    /// use kiln::{HostValue, Outcome, Runtime};
    ///
    /// let _first = Runtime::new(); // the first runtime on a thread is built in place
    /// let mut rt = Runtime::new();
    /// rt.start("Array.prototype.first = 1; globalThis.seen = true", "agent.js").unwrap();
    /// let mut rt = rt.recycle();
    /// let out = rt.start("typeof seen + ' ' + [].first", "agent.js").unwrap();
    /// assert_eq!(out, Outcome::Complete(HostValue::from("undefined undefined")));
    /// ```
    pub fn recycle(self) -> Runtime {
        if self.poisoned {
            drop(self);
            return Runtime::new();
        }
        Runtime::over(self.vm.into_pristine())
    }

    /// The native stack a host must give this runtime's calls before
    /// [`Runtime::set_large_stack`]: as much as Kiln's compiler thread has (256 MiB).
    pub const LARGE_STACK: usize = kiln_compiler::COMPILER_STACK;

    /// Declare that every call into this runtime from now on runs with
    /// [`Runtime::LARGE_STACK`] bytes of native stack to spare, as on a thread or
    /// coroutine made with that stack and calling the runtime near its base. The runtime
    /// then compiles every source (scripts, modules, `eval`, `Function`) on the calling
    /// thread. Without it, a source longer than 256 bytes is compiled on a compiler
    /// thread with a stack that deep, and handing it over and back costs two thread
    /// wake-ups (about 25 µs per run).
    ///
    /// A host that breaks the promise does not get undefined behaviour: a source nested
    /// deeply enough overflows its stack, which aborts the process. `false` (the default)
    /// goes back to the compiler thread. Sources compiled while restoring a snapshot
    /// ([`Runtime::restore`]) still use the compiler thread. See `docs/embedding.md`.
    ///
    /// ```
    /// let big = std::thread::Builder::new().stack_size(kiln::Runtime::LARGE_STACK);
    /// let value = big
    ///     .spawn(|| {
    ///         let mut rt = kiln::Runtime::new();
    ///         rt.set_large_stack(true);
    ///         let source = format!("{}1{}", "(".repeat(500), ")".repeat(500));
    ///         let v = rt.run_script(&source, "deep.js").unwrap();
    ///         rt.inspect(v)
    ///     })
    ///     .unwrap()
    ///     .join()
    ///     .unwrap();
    /// assert_eq!(value, "1");
    /// ```
    pub fn set_large_stack(&mut self, large: bool) {
        self.large_stack = large;
    }

    /// A runtime built with `options`; fails only if hardening fails.
    pub fn with_options(options: Options) -> Result<Self, ErrorReport> {
        let mut rt = Runtime::new();
        rt.configure(options)?;
        Ok(rt)
    }

    /// Apply `options` to this runtime, as [`Runtime::with_options`] does to a new one: a
    /// host that keeps runtimes created ahead of time (to take realm creation out of
    /// its latency) configures one when it knows what the next execution needs.
    /// Hardening cannot be undone: `hardened: false` leaves a hardened runtime hardened.
    /// Fails only if hardening fails.
    pub fn configure(&mut self, options: Options) -> Result<(), ErrorReport> {
        let vm = &mut self.vm;
        vm.limits = options.limits;
        vm.host.boundary = options.boundary;
        vm.allow_code_generation = options.allow_code_generation;
        vm.clock = options.clock;
        vm.agent.can_block = options.can_block;
        if let Some(seed) = options.random_seed {
            vm.random_state = seed | 1;
        }
        if options.hardened && !vm.hardened && vm.lockdown().is_err() {
            return Err(self.report(ErrorKind::Exception));
        }
        Ok(())
    }

    /// The underlying VM, for advanced embedding.
    pub fn vm(&mut self) -> &mut Vm {
        &mut self.vm
    }

    /// The limits and budgets; changes apply from the next safe point.
    pub fn limits_mut(&mut self) -> &mut Limits {
        &mut self.vm.limits
    }

    /// A handle that cancels the running guest from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        InterruptHandle(self.vm.interrupt.clone())
    }

    /// Fuel used since the last [`Runtime::start`] or [`Runtime::run_script`].
    pub fn fuel_used(&self) -> u64 {
        self.vm.fuel_used()
    }

    /// Run a script, then its promise jobs; returns the completion value. `name` names
    /// the source in stack traces and error locations; a name ending in `.ts`, `.mts` or
    /// `.cts` makes the source TypeScript, run with its types stripped (lines and columns
    /// stay the source's; what would need a transform, such as an `enum`, is a
    /// SyntaxError; see `docs/embedding.md`).
    ///
    /// ```
    /// let mut rt = kiln::Runtime::new();
    /// let v = rt.run_script("const n: number = 20 as number; n! + 1", "calc.ts").unwrap();
    /// assert_eq!(rt.inspect(v), "21");
    /// ```
    pub fn run_script(&mut self, source: &str, name: &str) -> Result<Value, ErrorReport> {
        self.guarded(|rt| {
            rt.fresh_budgets();
            rt.vm.meter.start_clock();
            let result = rt.run_script_and_jobs(source, name, ScriptKind::Script);
            rt.vm.meter.stop_clock();
            result
        })
    }

    /// Budgets start again for a new execution: fuel, compute time, host calls (and the
    /// last execution's rejection is forgotten).
    fn fresh_budgets(&mut self) {
        self.vm.reset_meter();
        self.vm.host.calls_made = 0;
        self.vm.rejection_origin = None;
    }

    /// Run `f`, turning a panic inside the engine into an [`ErrorKind::Engine`] error
    /// that leaves the host unharmed; the runtime then refuses further work.
    fn guarded<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, ErrorReport>,
    ) -> Result<T, ErrorReport> {
        if self.poisoned {
            return Err(ErrorReport::host(
                ErrorKind::Engine,
                "this runtime stopped after an internal error".into(),
            ));
        }
        let _stack = self.large_stack.then(kiln_compiler::LargeStack::assume);
        // the limit may have changed since the last run (`limits_mut`)
        self.vm
            .heap
            .limit_next_collection(self.vm.limits.max_heap_bytes);
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self))) {
            Ok(result) => result,
            Err(panic) => {
                self.poisoned = true;
                let what = crate::compiled::panic_text(panic.as_ref());
                Err(ErrorReport::host(
                    ErrorKind::Engine,
                    format!("internal error in Kiln: {what}"),
                ))
            }
        }
    }

    /// Run a classic script (`ScriptKind::Script`) or an agent script
    /// (`ScriptKind::Agent`, whose value is its promise), then the jobs.
    fn run_script_and_jobs(
        &mut self,
        source: &str,
        name: &str,
        kind: ScriptKind,
    ) -> Result<Value, ErrorReport> {
        let block = match self.vm.load(source, name, kind, false) {
            Ok(b) => b,
            Err(_) => {
                let mut report = self.report(ErrorKind::Syntax);
                if let Some((line, column)) = self.vm.compile_error_at.take() {
                    report.location = Some(Box::new(crate::compiled::source_location(
                        source, name, line, column,
                    )));
                }
                return Err(report);
            }
        };
        self.run_block_and_jobs(block, kind)
    }

    /// Run a loaded top-level block (of a script of `kind`), then the jobs.
    fn run_block_and_jobs(
        &mut self,
        block: Rc<crate::interpreter::CodeBlock>,
        kind: ScriptKind,
    ) -> Result<Value, ErrorReport> {
        let run = match kind {
            ScriptKind::Agent => self.vm.run_agent_script(block),
            _ => self.vm.run_top_level(block),
        };
        let value = match run {
            Ok(v) => v,
            Err(_) => return Err(self.report(ErrorKind::Exception)),
        };
        self.vm.pinned.push(value);
        let jobs = self.vm.run_until_settled();
        self.vm.pinned.pop();
        match jobs {
            Ok(()) => Ok(value),
            Err(_) => Err(self.report(ErrorKind::Exception)),
        }
    }

    /// Install the loader that resolves and reads modules (`import`, `import()`).
    pub fn set_module_loader(&mut self, loader: Box<dyn crate::ModuleLoader>) {
        self.vm.set_module_loader(loader);
    }

    /// Load, link and evaluate the module `specifier` (resolved by the loader against
    /// `referrer`), then its jobs; returns the module's namespace object. A module whose
    /// key ends in `.ts`, `.mts` or `.cts` is TypeScript, run with its types stripped.
    pub fn run_module(&mut self, specifier: &str, referrer: &str) -> Result<Value, ErrorReport> {
        self.guarded(|rt| {
            rt.fresh_budgets();
            rt.vm.meter.start_clock();
            // Errors before anything ran (syntax, resolution, loading) count as early errors.
            let result = match rt.vm.prepare_module(specifier, referrer) {
                Ok(module) => match rt.vm.run_linked_module(module) {
                    Ok(namespace) => Ok(Value::object(namespace)),
                    Err(_) => Err(rt.report(ErrorKind::Exception)),
                },
                Err(_) => Err(rt.report(ErrorKind::Syntax)),
            };
            rt.vm.meter.stop_clock();
            result
        })
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

    /// The memory of the SharedArrayBuffer `v` (None for any other value), to share with
    /// a runtime on another thread through [`Runtime::share_memory`].
    pub fn shared_memory(&self, v: Value) -> Option<Arc<SharedBlock>> {
        crate::builtins::array_buffer::shared_block(&self.vm, v)
    }

    /// Define the global `name` as a new SharedArrayBuffer over `memory`, which other
    /// runtimes (on other threads) may view too.
    pub fn share_memory(&mut self, name: &str, memory: Arc<SharedBlock>) {
        let buffer = crate::builtins::array_buffer::new_shared(&mut self.vm, memory);
        let global = self.vm.intrinsics.global;
        let key = self.vm.key(name);
        self.vm.define_builtin(
            global,
            key,
            Value::object(buffer),
            crate::object::Attrs::DEFAULT,
        );
    }

    /// Define a global function implemented in Rust.
    pub fn register_function(&mut self, name: &str, func: NativeFn, length: u32) {
        let global = self.vm.intrinsics.global;
        let name = self.vm.heap.intern(name);
        self.vm.define_native_atom(global, name, func, length);
    }

    /// Give the guest a synchronous capability: a closure of up to four typed
    /// arguments (see [`crate::host::FromGuest`]) called in place. A dotted `name`
    /// (`tools.add`) puts it on a namespace object.
    pub fn register_sync<M>(&mut self, name: &str, f: impl SyncCapability<M>) {
        self.vm
            .register_capability(name, CapabilityKind::Sync(f.into_sync_fn()));
    }

    /// Give the guest an asynchronous capability: calling it returns a promise and
    /// records a [`PendingCall`] that the host answers with [`Runtime::resume`].
    pub fn register_async(&mut self, name: &str) {
        self.vm.register_capability(name, CapabilityKind::Async);
    }

    /// Give the guest a synchronous host function of any arity: its arguments cross by
    /// copy as [`HostValue`]s (an argument that cannot cross is a `TypeError` in the
    /// guest naming its path, `$[1].a`), and a returned [`HostError`] is thrown in the
    /// guest as a catchable `Error` with its name, message, code and details. A dotted
    /// `name` (`tools.search`) puts it on a namespace object.
    ///
    /// ```
    /// use kiln::{HostError, HostValue, Outcome, Runtime};
    ///
    /// let mut rt = Runtime::new();
    /// rt.register_host_function("tools.sum", |args: &[HostValue]| {
    ///     let mut total = 0.0;
    ///     for a in args {
    ///         total += a.as_f64().ok_or_else(|| HostError::new("numbers only"))?;
    ///     }
    ///     Ok(HostValue::Number(total))
    /// });
    /// let v = rt.start("tools.sum(1, 2, 3)", "agent.js").unwrap();
    /// assert_eq!(v, Outcome::Complete(HostValue::Number(6.0)));
    /// ```
    pub fn register_host_function(
        &mut self,
        name: &str,
        f: impl FnMut(&[HostValue]) -> Result<HostValue, HostError> + 'static,
    ) {
        let f = crate::host::host_function_fn(name, f);
        self.vm.register_capability(name, CapabilityKind::Sync(f));
    }

    /// Give the guest a host function that decides at each call whether to answer now
    /// ([`HostReply::Return`], [`HostReply::Throw`]) or later ([`HostReply::Defer`]: the
    /// guest gets a promise, and the call is outstanding under the id the function was
    /// shown until [`Runtime::resume`] answers it). Language bindings use it for host
    /// functions that may or may not return a promise. Arguments cross as for
    /// [`Runtime::register_host_function`].
    ///
    /// ```
    /// use kiln::{HostReply, HostValue, Outcome, Runtime};
    ///
    /// let mut rt = Runtime::new();
    /// rt.register_deferrable("tools.lookup", |call| match call.args[0].as_str() {
    ///     Some("cached") => HostReply::Return("from cache".into()),
    ///     _ => HostReply::Defer,
    /// });
    /// let script = "[tools.lookup('cached'), await tools.lookup('remote')].join(' / ')";
    /// let Outcome::Suspended(calls) = rt.start(script, "agent.js").unwrap() else { panic!() };
    /// assert_eq!(calls[0].args, vec![HostValue::from("remote")]);
    /// let done = rt.resume(calls[0].id, Ok("fetched".into())).unwrap();
    /// assert_eq!(done, Outcome::Complete("from cache / fetched".into()));
    /// ```
    pub fn register_deferrable(
        &mut self,
        name: &str,
        f: impl FnMut(&PendingCall) -> HostReply + 'static,
    ) {
        let f = crate::host::deferrable_fn(name, f);
        self.vm.register_capability(name, CapabilityKind::Sync(f));
    }

    /// Define the global `name` as a fresh copy of `value` (the way a host passes inputs
    /// to a guest). Fails with [`ErrorKind::Boundary`] when the value nests deeper than
    /// the boundary allows or is a BigInt that is not a decimal integer.
    pub fn set_global(&mut self, name: &str, value: &HostValue) -> Result<(), ErrorReport> {
        let v = match self.vm.to_guest(value) {
            Ok(v) => v,
            Err(e) => {
                return Err(ErrorReport::host(
                    ErrorKind::Boundary,
                    format!("the global {name}: {e}"),
                ));
            }
        };
        let global = self.vm.intrinsics.global;
        let key = self.vm.key(name);
        self.vm
            .define_builtin(global, key, v, crate::object::Attrs::DEFAULT);
        Ok(())
    }

    /// Give the guest a `console` whose `log`, `info`, `debug`, `warn`, `error` (and
    /// `trace` and `dir`, as `log`) format their arguments as node does into one line and
    /// hand it to `sink`. Without it the guest has no `console`. A snapshot keeps the
    /// guest's `console` object but not the sink: a restored runtime's console writes
    /// nothing until the host calls `set_console` again.
    ///
    /// ```
    /// use kiln::{ConsoleLevel, Runtime};
    /// use std::{cell::RefCell, rc::Rc};
    ///
    /// let lines = Rc::new(RefCell::new(Vec::new()));
    /// let mut rt = Runtime::new();
    /// let sink = lines.clone();
    /// rt.set_console(move |level, line| sink.borrow_mut().push((level, line.to_string())));
    /// rt.start("console.log('%s has %d items', 'cart', 3, { total: 9.5 })", "a.js").unwrap();
    /// assert_eq!(
    ///     lines.borrow()[0],
    ///     (ConsoleLevel::Log, "cart has 3 items { total: 9.5 }".to_string())
    /// );
    /// ```
    pub fn set_console(&mut self, sink: impl FnMut(ConsoleLevel, &str) + 'static) {
        let sink: crate::host::ConsoleSink = Rc::new(std::cell::RefCell::new(sink));
        self.vm.install_console(sink);
    }

    /// Call `pause` between stretches of guest computation, about every `every` of the
    /// guest's compute time, so that the host can give other work a turn while a guest
    /// computes: a host that runs the guest in a coroutine on an event loop's thread
    /// switches back to the loop from `pause`. The time `pause` takes is not charged to
    /// the guest's compute time. `pause` must not use this runtime. A regular
    /// expression match is not paused in the middle.
    ///
    /// ```
    /// use kiln::Runtime;
    /// use std::{cell::Cell, rc::Rc, time::Duration};
    ///
    /// let pauses = Rc::new(Cell::new(0));
    /// let mut rt = Runtime::new();
    /// let count = pauses.clone();
    /// rt.set_pause_point(Duration::from_millis(1), move || count.set(count.get() + 1));
    /// rt.run_script("let t = Date.now(); while (Date.now() - t < 20) {}", "spin.js").unwrap();
    /// assert!(pauses.get() >= 5);
    /// ```
    pub fn set_pause_point(&mut self, every: std::time::Duration, pause: impl FnMut() + 'static) {
        self.vm.pause = Some(crate::interpreter::meter::PausePoint::new(every, pause));
    }

    /// The asynchronous host calls waiting for an answer, oldest first, whatever the
    /// [`CallReporting`].
    pub fn pending_calls(&self) -> Vec<PendingCall> {
        self.vm.host.pending_calls()
    }

    /// Choose which calls each [`Outcome::Suspended`] lists: every outstanding call (the
    /// default, [`CallReporting::Outstanding`]), or only those the host has not been
    /// shown yet ([`CallReporting::New`]). A host with many calls in flight keeps its
    /// own table of them and takes `New`: otherwise each step copies every call still
    /// waiting, and answering n concurrent calls one by one costs n² copies. The choice
    /// is the host's, not the execution's: a snapshot does not carry it, and a restored
    /// runtime starts with `Outstanding` (its host reads the calls waiting with
    /// [`Runtime::pending_calls`]; under `New`, later suspensions list only calls made
    /// after the restore).
    ///
    /// ```
    /// use kiln::host::CallReporting;
    /// use kiln::{HostValue, Outcome, Runtime};
    ///
    /// let mut rt = Runtime::new();
    /// rt.register_async("tools.get");
    /// rt.set_call_reporting(CallReporting::New);
    /// let script = "const [a, b] = await Promise.all([tools.get('a'), tools.get('b')]);
    ///               a + b + await tools.get('c')";
    /// let Outcome::Suspended(first) = rt.start(script, "agent.js").unwrap() else { panic!() };
    /// assert_eq!(first.len(), 2);
    /// // one answer: the guest still waits for the other call, and made none
    /// let Outcome::Suspended(none) = rt.resume(first[0].id, Ok("1".into())).unwrap() else {
    ///     panic!()
    /// };
    /// assert!(none.is_empty());
    /// let Outcome::Suspended(last) = rt.resume(first[1].id, Ok("2".into())).unwrap() else {
    ///     panic!()
    /// };
    /// assert_eq!(last[0].args, vec![HostValue::from("c")]);
    /// let done = rt.resume(last[0].id, Ok("3".into())).unwrap();
    /// assert_eq!(done, Outcome::Complete("123".into()));
    /// ```
    pub fn set_call_reporting(&mut self, reporting: CallReporting) {
        self.vm.host.reporting = reporting;
    }

    /// Which calls a suspension lists (see [`Runtime::set_call_reporting`]).
    pub fn call_reporting(&self) -> CallReporting {
        self.vm.host.reporting
    }

    /// Start an execution: run `source` as an agent script with fresh budgets, then its
    /// jobs. An agent script is the body of an async function: it may `await` and
    /// `return` at the top level, and its result is what it returns, or else the value
    /// of its last expression statement (a promise is awaited). It is strict code, and
    /// its top-level declarations are local to the execution (not properties of the
    /// global object); `run_script` keeps classic script semantics. The execution lasts
    /// until that result settles, and suspends whenever the guest can only wait for the
    /// host.
    ///
    /// A `name` ending in `.ts`, `.mts` or `.cts` makes the source TypeScript: its types
    /// are stripped (`interface`, annotations, `as`, `!`, `declare` ...) and it runs as the
    /// JavaScript left, with the source's own lines and columns; TypeScript that would need
    /// a transform (`enum`, parameter properties, namespaces holding values, decorators)
    /// is a SyntaxError at the construct. Code given to `eval` stays JavaScript.
    ///
    /// ```
    /// use kiln::{HostValue, Outcome, Runtime};
    ///
    /// let mut rt = Runtime::new();
    /// rt.register_async("tools.search");
    /// let script = "const hits = await tools.search('kiln');
    ///               if (hits.length === 0) return 'nothing';
    ///               hits.map(h => h.title).join(', ')";
    /// let Outcome::Suspended(calls) = rt.start(script, "agent.js").unwrap() else { panic!() };
    /// let hits = HostValue::Array(vec![HostValue::object([("title", "Kiln".into())])]);
    /// let done = rt.resume(calls[0].id, Ok(hits)).unwrap();
    /// assert_eq!(done, Outcome::Complete("Kiln".into()));
    /// ```
    pub fn start(&mut self, source: &str, name: &str) -> Result<Outcome, ErrorReport> {
        self.guarded(|rt| rt.start_unguarded(source, name))
    }

    fn start_unguarded(&mut self, source: &str, name: &str) -> Result<Outcome, ErrorReport> {
        self.end_execution();
        self.fresh_budgets();
        self.vm.meter.start_clock();
        let result = self.run_script_and_jobs(source, name, ScriptKind::Agent);
        self.begin_execution(result)
    }

    /// [`CompiledScript::compile_agent`] as this runtime's [`Runtime::start`] compiles:
    /// on this thread whatever the source's size when the runtime has a large stack
    /// ([`Runtime::set_large_stack`]), instead of on Kiln's compiler thread.
    pub fn compile_agent(&self, source: &str, name: &str) -> Result<CompiledScript, ErrorReport> {
        let _stack = self.large_stack.then(kiln_compiler::LargeStack::assume);
        CompiledScript::compile_agent(source, name)
    }

    /// Start an execution of an agent script compiled ahead of time: what
    /// [`Runtime::start`] does with the script's source and name, without parsing or
    /// compiling it again. Results, errors (the heap limit counts the compilation it
    /// stands for, as `start` does), stack traces and snapshots are those of `start`; only
    /// a syntax error cannot happen here, since [`CompiledScript::compile_agent`] reported
    /// it already.
    ///
    /// ```
    /// use kiln::{CompiledScript, HostValue, Outcome, Runtime};
    ///
    /// let script = CompiledScript::compile_agent("const n: number = input * 2; n + 1", "agent.ts")
    ///     .unwrap();
    /// for input in [1.0, 20.0] {
    ///     let mut rt = Runtime::new();
    ///     rt.set_global("input", &HostValue::Number(input)).unwrap();
    ///     let done = rt.start_compiled(&script).unwrap();
    ///     assert_eq!(done, Outcome::Complete(HostValue::Number(input * 2.0 + 1.0)));
    /// }
    /// ```
    pub fn start_compiled(&mut self, script: &CompiledScript) -> Result<Outcome, ErrorReport> {
        self.guarded(|rt| {
            rt.end_execution();
            rt.fresh_budgets();
            rt.vm.meter.start_clock();
            // `Vm::load` reserves room for the compilation before compiling
            let result = match rt.vm.reserve_compilation(script.source().len()) {
                Ok(()) => {
                    let block = rt
                        .vm
                        .load_shared(script.script(), Recipe::Compile { strict: false });
                    rt.run_block_and_jobs(block, ScriptKind::Agent)
                }
                Err(_) => Err(rt.report(ErrorKind::Syntax)),
            };
            rt.begin_execution(result)
        })
    }

    /// The execution whose result `started` is (the completion of an agent script and
    /// its jobs) goes on, or ends the step with its error.
    fn begin_execution(
        &mut self,
        started: Result<Value, ErrorReport>,
    ) -> Result<Outcome, ErrorReport> {
        let result = match started {
            Ok(value) => {
                self.execution = Some(value);
                self.vm.pinned.push(value);
                self.outcome()
            }
            Err(e) => Err(e),
        };
        self.finish_step(result)
    }

    /// The current state as snapshot bytes (see [`crate::snapshot`]), typically while
    /// the execution is suspended at host calls. With a `key`, the bytes are
    /// authenticated (HMAC-SHA-256) and only restore with the same key.
    pub fn snapshot(&mut self, key: Option<&[u8]>) -> Result<Vec<u8>, SnapshotError> {
        if self.poisoned {
            return Err(SnapshotError::new(
                SnapshotErrorKind::Unsupported,
                "this runtime stopped after an internal error",
            ));
        }
        let execution = self.execution;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::snapshot::write(&mut self.vm, execution, key)
        })) {
            Ok(result) => result,
            Err(_) => {
                self.poisoned = true;
                Err(SnapshotError::new(
                    SnapshotErrorKind::Unsupported,
                    "internal error in Kiln while writing a snapshot",
                ))
            }
        }
    }

    /// A runtime continuing from `snapshot`. `options` supplies what a snapshot does not
    /// carry: limits, boundary rules, the code-generation policy and the clock (the
    /// random state and the budgets already spent come from the snapshot; `hardened`
    /// locks the intrinsics down if the snapshot's were not). The host must register
    /// the snapshot's capabilities again (same names) before resuming.
    pub fn restore(snapshot: &Snapshot, options: Options) -> Result<Runtime, SnapshotError> {
        let mut rt = Runtime::new();
        let restored = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::snapshot::restore(&mut rt.vm, snapshot)
        }));
        let execution = match restored {
            Ok(result) => result?,
            Err(_) => {
                return Err(SnapshotError::new(
                    SnapshotErrorKind::Corrupt,
                    "the snapshot's state is inconsistent",
                ));
            }
        };
        rt.execution = execution;
        let vm = &mut rt.vm;
        // the restoring host reads the outstanding calls with `pending_calls`
        vm.host.mark_all_shown();
        vm.limits = options.limits;
        vm.host.boundary = options.boundary;
        vm.allow_code_generation = options.allow_code_generation;
        vm.clock = options.clock;
        vm.agent.can_block = options.can_block;
        if options.hardened && !vm.hardened && vm.lockdown().is_err() {
            return Err(SnapshotError::new(
                SnapshotErrorKind::Unsupported,
                "the restored intrinsics could not be hardened",
            ));
        }
        Ok(rt)
    }

    /// Answer the outstanding host call `id` and continue the execution until it
    /// completes or waits for the host again. An `id` that is not outstanding, or a value
    /// the guest cannot hold, is an [`ErrorKind::Host`] error that changes nothing: the
    /// execution stays suspended as it was.
    pub fn resume(
        &mut self,
        id: CallId,
        answer: Result<HostValue, HostError>,
    ) -> Result<Outcome, ErrorReport> {
        self.guarded(|rt| rt.resume_unguarded(vec![(id, answer)]))
    }

    /// Answer several outstanding host calls, then continue the execution once, until it
    /// completes or waits for the host again: what [`Runtime::resume`] does for each
    /// answer, in one step instead of one step per answer. The promises settle in the
    /// order of `answers`, so the guest's reactions to them run in that order, as they
    /// would after one `resume` per answer (what the guest sees differs only in that no
    /// guest code runs between the answers).
    ///
    /// The batch is applied whole or not at all: an id that is not outstanding, an id
    /// answered twice in the batch, a value the guest cannot hold, or an empty batch is an
    /// [`ErrorKind::Host`] error that changes nothing (the execution stays suspended as
    /// it was, and may be resumed or snapshotted).
    ///
    /// ```
    /// use kiln::{ErrorKind, HostError, HostValue, Outcome, Runtime};
    ///
    /// let mut rt = Runtime::new();
    /// rt.register_async("tools.price");
    /// let script = "const skus = ['a', 'b', 'c'];
    ///               const prices = await Promise.allSettled(skus.map(s => tools.price(s)));
    ///               prices.map(p => p.value ?? p.reason.message).join(' ')";
    /// let Outcome::Suspended(calls) = rt.start(script, "agent.js").unwrap() else { panic!() };
    /// let ids: Vec<_> = calls.iter().map(|c| c.id).collect();
    ///
    /// // a batch that answers a call twice is refused whole
    /// let twice = rt.resume_many([(ids[0], Ok(1.into())), (ids[0], Ok(2.into()))]);
    /// assert_eq!(twice.unwrap_err().kind, ErrorKind::Host);
    ///
    /// let done = rt.resume_many([
    ///     (ids[2], Ok(HostValue::Number(30.0))),
    ///     (ids[0], Ok(HostValue::Number(10.0))),
    ///     (ids[1], Err(HostError::new("no price"))),
    /// ]);
    /// assert_eq!(done.unwrap(), Outcome::Complete("10 no price 30".into()));
    /// ```
    pub fn resume_many(
        &mut self,
        answers: impl IntoIterator<Item = (CallId, Result<HostValue, HostError>)>,
    ) -> Result<Outcome, ErrorReport> {
        let answers: Vec<_> = answers.into_iter().collect();
        if answers.is_empty() {
            return Err(ErrorReport::host(
                ErrorKind::Host,
                "resume_many was given no answers".into(),
            ));
        }
        self.guarded(|rt| rt.resume_unguarded(answers))
    }

    fn resume_unguarded(
        &mut self,
        answers: Vec<(CallId, Result<HostValue, HostError>)>,
    ) -> Result<Outcome, ErrorReport> {
        let missing = self.vm.host.missing_capabilities();
        if !missing.is_empty() {
            return Err(ErrorReport::host(
                ErrorKind::Host,
                format!(
                    "register the restored capabilities before resuming: {}",
                    missing.join(", ")
                ),
            ));
        }
        if let Err(refused) = self.vm.answer_host_calls(answers) {
            let message = match refused {
                AnswerError::NotOutstanding(id) => format!("host call {id} is not outstanding"),
                AnswerError::Duplicate(id) => {
                    format!("host call {id} is answered more than once in one batch")
                }
                AnswerError::Invalid(id, e) => {
                    format!("the answer to host call {id} is invalid: {e}")
                }
            };
            return Err(ErrorReport::host(ErrorKind::Host, message));
        }
        self.vm.meter.start_clock();
        let result = match self.vm.run_until_settled() {
            Ok(()) => self.outcome(),
            Err(_) => Err(self.report(ErrorKind::Exception)),
        };
        self.finish_step(result)
    }

    /// Stop the clock; a finished or failed execution releases its state.
    fn finish_step(
        &mut self,
        result: Result<Outcome, ErrorReport>,
    ) -> Result<Outcome, ErrorReport> {
        self.vm.meter.stop_clock();
        if !matches!(result, Ok(Outcome::Suspended(_))) {
            self.end_execution();
        }
        result
    }

    /// Forget the current execution: its result, outstanding calls and queued jobs.
    fn end_execution(&mut self) {
        if let Some(v) = self.execution.take()
            && let Some(at) = self.vm.pinned.iter().rposition(|&p| p == v)
        {
            self.vm.pinned.remove(at);
        }
        self.vm.host.outstanding.clear();
        self.vm.host.shown.clear();
        self.vm.jobs.clear();
    }

    /// Where the execution stands once the job queue is empty.
    fn outcome(&mut self) -> Result<Outcome, ErrorReport> {
        let value = self.execution.unwrap_or(Value::UNDEFINED);
        let settled = match value.as_object().map(|o| &self.vm.heap.object(o).kind) {
            Some(ObjectKind::Promise(p)) => match p.status {
                Status::Pending => None,
                Status::Fulfilled => Some(Ok(p.result)),
                Status::Rejected => Some(Err(p.result)),
            },
            _ => Some(Ok(value)),
        };
        match settled {
            Some(Ok(v)) => {
                let options = self.vm.host.boundary;
                match self.vm.to_host(v, &options) {
                    Ok(h) => Ok(Outcome::Complete(h)),
                    Err(e) => Err(ErrorReport::host(
                        ErrorKind::Boundary,
                        format!("the result {e}"),
                    )),
                }
            }
            Some(Err(reason)) => {
                self.vm.exception = reason;
                self.vm.exception_origin = match self.vm.rejection_origin.take() {
                    Some((v, origin)) if v == reason => Some(origin),
                    _ => None,
                };
                Err(self.report(ErrorKind::Exception))
            }
            None if self.vm.host.outstanding.is_empty() => Err(ErrorReport::host(
                ErrorKind::Stalled,
                "the script's promise can never settle: nothing is queued and no host \
                 call is outstanding"
                    .into(),
            )),
            None => Ok(Outcome::Suspended(self.vm.host.suspension_calls())),
        }
    }

    /// Describe the pending exception (or termination) and clear it.
    fn report(&mut self, kind: ErrorKind) -> ErrorReport {
        // an exception that ends the run after the host asked to stop it (say, the
        // error a host function threw when the interrupt woke it) is the cancellation
        let interrupted = self.vm.interrupt.load(Ordering::Relaxed);
        let termination = match self.vm.clear_termination() {
            None if interrupted && kind == ErrorKind::Exception => Some(Termination::Interrupted),
            t => t,
        };
        let origin = self.vm.exception_origin.take();
        let exception = self.vm.take_exception();
        let (name, message, summary) = match &termination {
            Some(t) => {
                let (name, message) = self.describe(exception);
                let summary = format!("{name}: {message}");
                let kind = ErrorKind::from(t.clone());
                (kind.name().to_string(), t.message().to_string(), summary)
            }
            None => self.describe_exception(exception, kind),
        };
        let kind = termination.map_or(kind, ErrorKind::from);
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
            Box::new(SourceLocation {
                file: s.name.to_string(),
                line,
                column,
                source_line: s.line_text(line).to_string(),
            })
        });
        ErrorReport {
            kind,
            name,
            message,
            summary,
            stack,
            location,
        }
    }

    /// The name and message of a thrown Error, read as stored: no getter runs while the
    /// host formats a report. None for any other value.
    fn error_parts(&mut self, exception: Value) -> Option<(String, String)> {
        let o = exception.as_object()?;
        if !matches!(self.vm.heap.object(o).kind, ObjectKind::Error) {
            return None;
        }
        Some(self.vm.peek_error_name_and_message(o))
    }

    /// `(name, message)` of the error a termination unwound with.
    fn describe(&mut self, exception: Value) -> (String, String) {
        self.error_parts(exception)
            .unwrap_or_else(|| ("Error".into(), String::new()))
    }

    /// `(name, message, summary)` of an uncaught exception of `kind`.
    fn describe_exception(
        &mut self,
        exception: Value,
        kind: ErrorKind,
    ) -> (String, String, String) {
        if let Some((name, message)) = self.error_parts(exception) {
            let summary = if message.is_empty() {
                name.clone()
            } else {
                format!("{name}: {message}")
            };
            return (name, message, summary);
        }
        let summary = format!(
            "Uncaught {}",
            crate::inspect::inspect(&mut self.vm, exception, true)
        );
        let message = crate::inspect::inspect(&mut self.vm, exception, false);
        (kind.name().to_string(), message, summary)
    }
}
