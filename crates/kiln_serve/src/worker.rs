//! One worker thread's runtimes and how a request runs on them.
//!
//! A worker keeps a pool of instances (a Kiln runtime that evaluated the handler, and its
//! web platform). A request takes an idle instance, or makes one when all are busy with
//! suspended requests, and runs as one execution on it:
//!
//! - it completes at once (the common case: no timer, no `fetch`): the response is built
//!   in place, with no task spawned;
//! - or it suspends: a local task answers its host calls and resumes it, and the response
//!   leaves as soon as the handler gave it (`ctx.waitUntil` work goes on after).
//!
//! Module state persists across the requests an instance serves, as in a Workers isolate.
//! Budgets are per request (each execution starts with fresh fuel and compute time). An
//! instance whose request failed on a budget, or in the engine, is dropped and the next
//! request gets a freshly evaluated one, so no half-finished state is served again.

use crate::{Budgets, Config, CurrentCode, fetch};
use kiln::{CallId, ErrorKind, ErrorReport, HostError, HostValue, Limits, Outcome, Runtime};
use kiln_web::{HandlerResponse, HeaderList, Web, WebCall, WebOptions};
use std::cell::RefCell;
use std::collections::HashSet;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::JoinSet;
use tokio::time::Instant;

/// Idle instances a worker keeps; more are dropped when their request ends.
const MAX_IDLE_INSTANCES: usize = 16;

/// What the server sends for a request.
pub enum Reply {
    Response(HandlerResponse),
    /// a failure the server reports itself (500, 503)
    Failure(u16),
}

/// A runtime that evaluated the handler, and its web platform. Instances are held boxed: a
/// runtime is a few kilobytes, and an instance moves out of the idle list and back on
/// every request.
struct Instance {
    runtime: Runtime,
    web: Web,
    /// the handler code generation it evaluated
    generation: u64,
}

pub struct Worker {
    settings: Settings,
    code: CurrentCode,
    #[expect(
        clippy::vec_box,
        reason = "an instance is moved out and back on every request; a box moves as a pointer"
    )]
    idle: RefCell<Vec<Box<Instance>>>,
    /// a runtime with the web platform installed but no code evaluated yet: the worker
    /// builds it while the handler's code is still loading
    blank: RefCell<Option<(Runtime, Web)>>,
}

/// What a worker needs of the configuration.
struct Settings {
    budgets: Budgets,
    allow_fetch: Vec<String>,
    env: Vec<(String, String)>,
    quiet: bool,
    max_body: usize,
    local_address: SocketAddr,
}

fn web_options_of(env: &[(String, String)], quiet: bool) -> WebOptions {
    WebOptions {
        env: env.to_vec(),
        console: if quiet {
            Box::new(|_, _| {})
        } else {
            Box::new(|_, line| eprintln!("{line}"))
        },
    }
}

/// A runtime with the web platform installed, ready to evaluate a handler's code. The first
/// on a thread builds the thread's realm template (most of a worker's start-up work).
pub fn blank_runtime(config: &Config) -> (Runtime, Web) {
    new_blank(&config.env, config.quiet)
}

/// Runtimes are made and called only on worker threads, whose stacks hold
/// `Runtime::LARGE_STACK` to spare (`WORKER_STACK_BYTES`).
fn new_blank(env: &[(String, String)], quiet: bool) -> (Runtime, Web) {
    let mut runtime = Runtime::new();
    runtime.set_large_stack(true);
    let web = kiln_web::install(&mut runtime, web_options_of(env, quiet));
    (runtime, web)
}

impl Worker {
    /// A worker for `code`; `blank` (from [`blank_runtime`]) becomes its first instance.
    pub fn new(
        config: &Config,
        code: CurrentCode,
        local_address: SocketAddr,
        blank: Option<(Runtime, Web)>,
    ) -> Self {
        Worker {
            settings: Settings {
                budgets: config.budgets,
                allow_fetch: config.allow_fetch.clone(),
                env: config.env.clone(),
                quiet: config.quiet,
                max_body: config.max_body,
                local_address,
            },
            code,
            idle: RefCell::new(Vec::new()),
            blank: RefCell::new(blank),
        }
    }

    /// Evaluate the handler in an instance before the first request, so that request
    /// finds it warm. A handler that fails here is left to fail again, and be reported,
    /// at the request that needs it.
    pub fn warm_up(&self) {
        if let Ok(instance) = self.take_instance() {
            self.put_back(instance);
        }
    }

    pub fn max_body(&self) -> usize {
        self.settings.max_body
    }

    pub fn local_address(&self) -> SocketAddr {
        self.settings.local_address
    }

    fn limits(&self) -> Limits {
        let budgets = &self.settings.budgets;
        let mut limits = Limits {
            fuel: budgets.fuel,
            compute_time: budgets.timeout,
            ..Limits::default()
        };
        if let Some(bytes) = budgets.heap_bytes {
            limits.max_heap_bytes = bytes;
        }
        limits
    }

    /// An idle instance of the current code, or a new one.
    fn take_instance(&self) -> Result<Box<Instance>, ErrorReport> {
        let (generation, code) = match self.code.lock() {
            Ok(current) => (current.0, current.1.clone()),
            Err(_) => {
                return Err(host_failure(
                    ErrorKind::Engine,
                    "the handler code is unavailable".into(),
                ));
            }
        };
        let mut idle = self.idle.borrow_mut();
        idle.retain(|i| i.generation == generation);
        if let Some(instance) = idle.pop() {
            return Ok(instance);
        }
        drop(idle);
        let blank = self.blank.borrow_mut().take();
        let (mut runtime, web) =
            blank.unwrap_or_else(|| new_blank(&self.settings.env, self.settings.quiet));
        runtime.set_module_loader(Box::new(code.loader()));
        runtime.run_module(kiln_web::ENTRY, "")?;
        // The budgets are the requests': evaluating the handler is not charged to them.
        *runtime.limits_mut() = self.limits();
        Ok(Box::new(Instance {
            runtime,
            web,
            generation,
        }))
    }

    fn put_back(&self, instance: Box<Instance>) {
        let mut idle = self.idle.borrow_mut();
        if idle.len() < MAX_IDLE_INSTANCES {
            idle.push(instance);
        }
    }

    /// Run a request (its method, absolute URL, headers and body) and give its reply: at
    /// once when the handler completes without waiting on the host, else when the execution
    /// task has the response.
    pub async fn handle(
        self: &Rc<Self>,
        method: String,
        url: String,
        headers: HeaderList,
        body: Vec<u8>,
    ) -> Reply {
        let mut instance = match self.take_instance() {
            Ok(instance) => instance,
            Err(report) => return self.failure(None, &report),
        };
        let started = Instant::now();
        let outcome =
            instance
                .web
                .dispatch_parts(&mut instance.runtime, method, url, headers, body);
        let response = instance.web.take_response();
        match outcome {
            Ok(Outcome::Suspended(calls)) => {
                if let Some(response) = response {
                    let rest = self
                        .clone()
                        .continue_execution(instance, calls, None, started);
                    tokio::task::spawn_local(rest);
                    return Reply::Response(response);
                }
                let (reply, replied) = oneshot::channel();
                let rest = self
                    .clone()
                    .continue_execution(instance, calls, Some(reply), started);
                tokio::task::spawn_local(rest);
                replied.await.unwrap_or(Reply::Failure(500))
            }
            result => self.finish(instance, result.map(|_| ()), response),
        }
    }

    /// The reply for an execution that ended (completed or failed), returning or dropping
    /// its instance.
    fn finish(
        &self,
        instance: Box<Instance>,
        result: Result<(), ErrorReport>,
        response: Option<HandlerResponse>,
    ) -> Reply {
        match result {
            Ok(()) => {
                self.put_back(instance);
                match response {
                    Some(response) => Reply::Response(response),
                    None => Reply::Failure(500),
                }
            }
            Err(report) => {
                let reply = self.failure(response, &report);
                if !is_budget(report.kind) && report.kind != ErrorKind::Engine {
                    self.put_back(instance);
                }
                reply
            }
        }
    }

    /// Log a failed execution; the reply is the response if the handler gave one before
    /// failing (a `waitUntil` task over budget), else 503 for a budget and 500 otherwise.
    fn failure(&self, response: Option<HandlerResponse>, report: &ErrorReport) -> Reply {
        let status = if is_budget(report.kind) { 503 } else { 500 };
        eprintln!("kiln serve: {}", report_line(report));
        match response {
            Some(response) => Reply::Response(response),
            None => Reply::Failure(status),
        }
    }

    /// Answer the execution's host calls until it ends. `reply` is taken when the response
    /// is sent; while it is pending, a client that went away ends the execution early.
    async fn continue_execution(
        self: Rc<Self>,
        mut instance: Box<Instance>,
        calls: Vec<kiln::PendingCall>,
        mut reply: Option<oneshot::Sender<Reply>>,
        started: Instant,
    ) {
        let deadline = self.settings.budgets.timeout.map(|t| started + t);
        let mut in_flight: JoinSet<(CallId, Result<HostValue, HostError>)> = JoinSet::new();
        let mut begun: HashSet<CallId> = HashSet::new();
        let mut calls = calls;
        loop {
            for call in calls.drain(..) {
                if begun.insert(call.id) {
                    let allow = self.settings.allow_fetch.clone();
                    in_flight.spawn_local(async move { (call.id, perform(&call, &allow).await) });
                }
            }
            let next = tokio::select! {
                done = in_flight.join_next() => done,
                _ = sleep_until(deadline) => {
                    let timeout = host_failure(
                        ErrorKind::ComputeTime,
                        format!(
                            "the request took longer than {} ms",
                            self.settings.budgets.timeout.unwrap_or_default().as_millis()
                        ),
                    );
                    if let Some(reply) = reply.take() {
                        let _ = reply.send(self.failure(None, &timeout));
                    } else {
                        eprintln!("kiln serve: {}", report_line(&timeout));
                    }
                    // The instance is dropped: its execution stopped half-way.
                    return;
                }
                _ = client_gone(&mut reply) => {
                    // Nobody waits for the response: the execution is abandoned (the next
                    // request on this instance ends it), with its host calls.
                    self.put_back(instance);
                    return;
                }
            };
            let Some(Ok((id, answer))) = next else {
                if let Some(reply) = reply.take() {
                    let _ = reply.send(Reply::Failure(500));
                }
                return;
            };
            let outcome = instance.runtime.resume(id, answer);
            let response = instance.web.take_response();
            match outcome {
                Ok(Outcome::Suspended(pending)) => {
                    if let Some(response) = response
                        && let Some(reply) = reply.take()
                    {
                        let _ = reply.send(Reply::Response(response));
                    }
                    calls = pending;
                }
                result => {
                    let result = result.map(|_| ());
                    let sent = self.finish(instance, result, response);
                    if let Some(reply) = reply.take() {
                        let _ = reply.send(sent);
                    }
                    return;
                }
            }
        }
    }
}

/// A report of a failure the server saw itself.
fn host_failure(kind: ErrorKind, message: String) -> ErrorReport {
    ErrorReport {
        kind,
        name: kind.name().to_string(),
        summary: message.clone(),
        stack: message.clone(),
        message,
        location: None,
    }
}

/// Budget terminations: the request gets 503.
fn is_budget(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::OutOfFuel
            | ErrorKind::HeapLimit
            | ErrorKind::ComputeTime
            | ErrorKind::HostCalls
            | ErrorKind::Cancelled
    )
}

/// One log line for a failed request: the summary, then the stack's frames.
fn report_line(report: &ErrorReport) -> String {
    let mut line = match &report.location {
        Some(at) => format!("{} ({}:{}:{})", report.summary, at.file, at.line, at.column),
        None => report.summary.clone(),
    };
    for frame in report.stack.lines().skip(1) {
        line.push_str(" | ");
        line.push_str(frame.trim());
    }
    line
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Resolves when the client stopped waiting for the reply (never once it was sent).
async fn client_gone(reply: &mut Option<oneshot::Sender<Reply>>) {
    match reply {
        Some(reply) => reply.closed().await,
        None => std::future::pending().await,
    }
}

/// Perform one host call of the web platform.
async fn perform(call: &kiln::PendingCall, allow_fetch: &[String]) -> Result<HostValue, HostError> {
    match WebCall::parse(call) {
        Some(Ok(WebCall::Sleep(delay))) => {
            tokio::time::sleep(delay.min(Duration::from_secs(24 * 3600))).await;
            Ok(HostValue::Undefined)
        }
        Some(Ok(WebCall::Fetch(request))) => fetch::perform(request, allow_fetch)
            .await
            .map(kiln_web::FetchResponse::into_answer),
        Some(Err(error)) => Err(error),
        None => Err(HostError::new(format!(
            "the capability {} is not provided by kiln serve",
            call.capability
        ))),
    }
}
