//! `kiln serve`: an HTTP/1.1 server running a JavaScript handler module in the Workers
//! form (`export default { fetch(request, env, ctx) }`) on Kiln.
//!
//! - The calling thread binds the socket, starts the workers, loads the handler once
//!   ([`code`]: every module of its static import graph, compiled and held in memory; or a
//!   `.kbc` file, [`bundle`]) and then waits for SIGINT/SIGTERM (and, with `watch`, for the
//!   handler's files to change).
//! - `workers` threads accept on the shared socket. Each owns a current-thread tokio runtime
//!   and a pool of Kiln runtimes ([`worker`]): a runtime evaluated the handler once and
//!   serves request after request from that warm state. A worker builds its first runtime
//!   while the handler loads and evaluates the handler in it before accepting, so the first
//!   request finds it warm.
//! - A request is one execution on one runtime ([`kiln::Runtime::call`] of the dispatcher);
//!   one that waits on a timer or `fetch` suspends, and the worker's event loop answers
//!   its host calls ([`fetch`]) while other requests run on other runtimes of the pool.
//!
//! See docs/serve.md for isolation, budgets and failure behaviour.

mod bundle;
mod code;
mod fetch;
mod http;
mod worker;

pub use code::HandlerCode;

use kiln::ModuleLoader;
use std::cell::RefCell;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// How to serve a handler.
#[derive(Clone, Debug)]
pub struct Config {
    /// the handler module (its path, as the module loader resolves it), or a `.kbc` file
    pub handler: PathBuf,
    pub host: String,
    /// 0 picks a free port
    pub port: u16,
    /// worker threads (at least one)
    pub workers: usize,
    /// the largest request body accepted, in bytes (larger: 413)
    pub max_body: usize,
    /// per-request budgets (over budget: 503)
    pub budgets: Budgets,
    /// hosts `fetch()` may reach (`name` or `name:port`); empty: none
    pub allow_fetch: Vec<String>,
    /// the handler's `env`
    pub env: Vec<(String, String)>,
    /// no startup line and no `console` output from the handler
    pub quiet: bool,
    /// reload the handler when one of its files changes
    pub watch: bool,
}

/// The budgets of one request.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budgets {
    pub fuel: Option<u64>,
    /// the runtime's heap (module state included), in bytes
    pub heap_bytes: Option<usize>,
    /// compute time and wall-clock time from the request's start to its response
    pub timeout: Option<Duration>,
}

/// How long in-flight requests may take to finish after SIGINT/SIGTERM.
const DRAIN_TIME: Duration = Duration::from_secs(10);

/// A worker thread's stack: [`kiln::Runtime::LARGE_STACK`] for the runtimes it calls, which
/// are told so ([`kiln::Runtime::set_large_stack`]) and compile every source (`eval`,
/// `Function`) on the worker itself, plus room for the executor's and hyper's frames
/// below them (a few kilobytes deep when a request runs).
const WORKER_STACK_BYTES: usize = kiln::Runtime::LARGE_STACK + (8 << 20);

/// The current handler code with its generation (bumped by each reload).
pub(crate) type CurrentCode = Arc<Mutex<(u64, Arc<HandlerCode>)>>;

/// The `.kbc` bytes of the handler module `handler`, whose modules `loader` reads
/// (`kiln build`).
pub fn build(handler: &Path, loader: impl ModuleLoader + 'static) -> Result<Vec<u8>, String> {
    let code =
        HandlerCode::load(&handler.display().to_string(), loader).map_err(|e| e.to_string())?;
    bundle::write(&code)
}

/// Bind, load the handler, serve until SIGINT or SIGTERM, then drain in-flight requests and
/// return. `loader` reads the handler's modules (on this thread only; not used for a
/// `.kbc` file). Errors are for people: a handler that does not load, an address that
/// cannot be bound.
pub fn run(config: Config, loader: impl ModuleLoader + 'static) -> Result<(), String> {
    let loader = SharedLoader(Rc::new(RefCell::new(loader)));
    // Bind first: connections queue while the code loads and the workers warm up.
    let listener = TcpListener::bind((config.host.as_str(), config.port))
        .map_err(|e| format!("cannot listen on {}:{}: {e}", config.host, config.port))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot configure the socket: {e}"))?;
    let address = listener
        .local_addr()
        .map_err(|e| format!("cannot read the socket's address: {e}"))?;
    let (shutdown, stopped) = tokio::sync::watch::channel(false);
    // The workers start now and build their runtimes (the realm and the web platform)
    // while this thread loads the code; each then evaluates the code before it accepts.
    let mut threads = Vec::new();
    let mut code_senders = Vec::new();
    for index in 0..config.workers.max(1) {
        let socket = listener
            .try_clone()
            .map_err(|e| format!("cannot share the socket: {e}"))?;
        let (code_sender, code) = std::sync::mpsc::channel::<CurrentCode>();
        code_senders.push(code_sender);
        let (config, stopped) = (config.clone(), stopped.clone());
        let thread = std::thread::Builder::new()
            .name(format!("kiln-worker-{index}"))
            .stack_size(WORKER_STACK_BYTES)
            .spawn(move || {
                let blank = worker::blank_runtime(&config);
                // No code: the handler did not load, and the server stops.
                let Ok(current) = code.recv() else { return };
                let worker = worker::Worker::new(&config, current, address, Some(blank));
                worker.warm_up();
                http::serve(worker, socket, stopped, DRAIN_TIME)
            })
            .map_err(|e| format!("cannot start a worker thread: {e}"))?;
        threads.push(thread);
    }
    let initial = match load_code(&config.handler, &loader) {
        Ok(code) => code,
        Err(message) => {
            drop(code_senders);
            for thread in threads {
                let _ = thread.join();
            }
            return Err(message);
        }
    };
    let current: CurrentCode = Arc::new(Mutex::new((0, Arc::new(initial))));
    for sender in code_senders {
        let _ = sender.send(current.clone());
    }
    if !config.quiet {
        println!(
            "kiln serve: listening on http://{address} ({} workers)",
            config.workers.max(1)
        );
    }
    wait_for_stop(&config, &loader, &current)?;
    let _ = shutdown.send(true);
    for thread in threads {
        if thread.join().is_err() {
            return Err("a worker thread failed".into());
        }
    }
    Ok(())
}

/// The handler's code: a `.kbc` file read back, or its modules loaded and compiled.
fn load_code<L: ModuleLoader + 'static>(
    handler: &Path,
    loader: &SharedLoader<L>,
) -> Result<HandlerCode, String> {
    if is_compiled(handler) {
        let bytes = std::fs::read(handler)
            .map_err(|e| format!("cannot read {}: {e}", handler.display()))?;
        return bundle::read(&bytes)
            .map_err(|e| format!("cannot serve {}: {e}", handler.display()));
    }
    HandlerCode::load(&handler.display().to_string(), loader.clone()).map_err(|e| e.to_string())
}

fn is_compiled(handler: &Path) -> bool {
    handler.extension().is_some_and(|e| e == "kbc")
}

/// The host's loader, lent to each check's runtime in turn.
struct SharedLoader<L>(Rc<RefCell<L>>);

impl<L> Clone for SharedLoader<L> {
    fn clone(&self) -> Self {
        SharedLoader(self.0.clone())
    }
}

impl<L: ModuleLoader> ModuleLoader for SharedLoader<L> {
    fn resolve(&mut self, specifier: &str, referrer: &str) -> Result<String, String> {
        self.0.borrow_mut().resolve(specifier, referrer)
    }
    fn load(&mut self, key: &str) -> Result<String, String> {
        self.0.borrow_mut().load(key)
    }
}

/// Block until SIGINT or SIGTERM; with `watch`, reload the handler whenever one of its
/// files changes (a version that fails to load is reported and the old one kept).
fn wait_for_stop<L: ModuleLoader + 'static>(
    config: &Config,
    loader: &SharedLoader<L>,
    current: &CurrentCode,
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the signal handler: {e}"))?;
    runtime.block_on(async {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt =
            signal(SignalKind::interrupt()).map_err(|e| format!("cannot handle SIGINT: {e}"))?;
        let mut terminate =
            signal(SignalKind::terminate()).map_err(|e| format!("cannot handle SIGTERM: {e}"))?;
        let mut stamp = files_stamp(config, &current.lock().map_err(|_| "poisoned")?.1);
        let mut poll = tokio::time::interval(Duration::from_millis(250));
        loop {
            tokio::select! {
                _ = interrupt.recv() => return Ok(()),
                _ = terminate.recv() => return Ok(()),
                _ = poll.tick(), if config.watch => {
                    let code = current.lock().map_err(|_| "poisoned")?.1.clone();
                    let now = files_stamp(config, &code);
                    if now == stamp {
                        continue;
                    }
                    stamp = now;
                    match load_code(&config.handler, loader) {
                        Ok(code) => {
                            let mut current = current.lock().map_err(|_| "poisoned")?;
                            *current = (current.0 + 1, Arc::new(code));
                            if !config.quiet {
                                eprintln!("kiln serve: reloaded {}", config.handler.display());
                            }
                        }
                        Err(e) => eprintln!("kiln serve: keeping the previous handler: {e}"),
                    }
                }
            }
        }
    })
}

/// The modification times of the handler's files (the `.kbc` file, or the module keys that
/// are paths).
fn files_stamp(config: &Config, code: &HandlerCode) -> Vec<Option<SystemTime>> {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    if is_compiled(&config.handler) {
        return vec![modified(&config.handler)];
    }
    code.keys().map(|key| modified(Path::new(key))).collect()
}
