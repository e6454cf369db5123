//! `$262.agent` (INTERPRETING.md, "agent"): the scenario's main agent starts agents, each
//! a thread with its own Kiln runtime, and broadcasts SharedArrayBuffers to them; the
//! agents view the same shared block, so Atomics operations, `wait` and `notify` work
//! across them. Agents report strings back through the cluster's report queue.
//!
//! Every agent runtime shares the scenario's interrupt flag: the scenario's time limit
//! stops the agents too, and [`finish`] raises it to stop agents still running when the
//! scenario ends, then joins them (an agent that does not stop within [`JOIN_WAIT`] is
//! left behind rather than hanging the worker).

use kiln::builtins::array_buffer;
use kiln::builtins::shared_memory::{STOP_POLL, SharedBlock};
use kiln::object::{Attrs, ObjectKind};
use kiln::{Args, JsResult, Options, Runtime, Value, Vm};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long [`finish`] waits for stopped agents to end before leaving them behind.
const JOIN_WAIT: Duration = Duration::from_secs(2);

/// The agents of one scenario and what they exchange.
struct Cluster {
    state: Mutex<State>,
    /// signalled on every change of `state`
    changed: Condvar,
    /// the scenario's interrupt flag, shared by every agent's runtime
    stop: Arc<AtomicBool>,
}

#[derive(Default)]
struct State {
    reports: VecDeque<String>,
    /// the latest broadcast; ids count from 1
    broadcast: Option<Broadcast>,
    agents: Vec<AgentSlot>,
}

#[derive(Clone)]
struct Broadcast {
    id: u64,
    block: Arc<SharedBlock>,
    number: Option<f64>,
}

#[derive(Default)]
struct AgentSlot {
    /// the runtime is built and about to run the agent's script
    running: bool,
    /// the id of the last broadcast it took
    received: u64,
    /// its thread is ending: broadcasts no longer wait for it
    done: bool,
}

impl Cluster {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wait for a change (or `STOP_POLL`, to look at the stop flag again).
    fn wait<'a>(&self, state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed
            .wait_timeout(state, STOP_POLL)
            .unwrap_or_else(PoisonError::into_inner)
            .0
    }

    /// Wait as the main agent until `ready(state)`; the scenario's end or time limit ends
    /// the wait with the runtime's termination.
    fn wait_until(
        &self,
        vm: &mut Vm,
        mut state: MutexGuard<'_, State>,
        ready: impl Fn(&State) -> bool,
    ) -> JsResult<Value> {
        while !ready(&state) {
            if self.stopped() {
                drop(state);
                return vm.check_budgets().map(|()| Value::UNDEFINED);
            }
            state = self.wait(state);
        }
        Ok(Value::UNDEFINED)
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn update(&self, f: impl FnOnce(&mut State)) {
        f(&mut self.state());
        self.changed.notify_all();
    }
}

/// The main agent's view: its cluster and the agent threads.
struct Main {
    cluster: Arc<Cluster>,
    threads: Vec<JoinHandle<()>>,
}

/// An agent thread's view: its cluster and its broadcast callback.
struct Agent {
    cluster: Arc<Cluster>,
    callback: Option<Value>,
    leaving: bool,
}

thread_local! {
    static MAIN: RefCell<Option<Main>> = const { RefCell::new(None) };
    static AGENT: RefCell<Option<Agent>> = const { RefCell::new(None) };
}

/// A new cluster for the scenario about to run on this thread; `stop` is its interrupt flag.
pub fn begin(stop: Arc<AtomicBool>) {
    let cluster = Arc::new(Cluster {
        state: Mutex::new(State::default()),
        changed: Condvar::new(),
        stop,
    });
    MAIN.with(|m| {
        *m.borrow_mut() = Some(Main {
            cluster,
            threads: Vec::new(),
        })
    });
}

/// End the scenario's cluster: stop the agents still running and join them.
pub fn finish() {
    let Some(main) = MAIN.with(|m| m.borrow_mut().take()) else {
        return;
    };
    let cluster = main.cluster;
    cluster.stop.store(true, Ordering::Relaxed);
    cluster.changed.notify_all();
    let until = Instant::now() + JOIN_WAIT;
    let mut state = cluster.state();
    while state.agents.iter().any(|a| !a.done) && Instant::now() < until {
        state = cluster.wait(state);
    }
    drop(state);
    for thread in main.threads {
        if thread.is_finished() {
            let _ = thread.join();
        }
    }
}

/// Define the main agent's `$262.agent` functions on `agent`.
pub fn define_main(vm: &mut Vm, agent: kiln::heap::ObjectId) {
    vm.define_native(agent, "start", start, 1);
    vm.define_native(agent, "broadcast", broadcast, 2);
    vm.define_native(agent, "getReport", get_report, 0);
    define_common(vm, agent);
}

fn define_common(vm: &mut Vm, agent: kiln::heap::ObjectId) {
    vm.define_native(agent, "sleep", sleep, 1);
    vm.define_native(agent, "monotonicNow", monotonic_now, 0);
}

fn main_cluster(vm: &mut Vm) -> JsResult<Arc<Cluster>> {
    match MAIN.with(|m| m.borrow().as_ref().map(|m| m.cluster.clone())) {
        Some(c) => Ok(c),
        None => Err(vm.type_error("$262.agent: only the main agent can start agents")),
    }
}

/// `$262.agent.start(source)`: run `source` in a new agent; returns once it runs.
fn start(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let cluster = main_cluster(vm)?;
    let source = vm.to_string(vm.arg(args, 0))?;
    let source = vm.heap.string_to_rust(source);
    let index = {
        let mut state = cluster.state();
        state.agents.push(AgentSlot::default());
        state.agents.len() - 1
    };
    let thread = {
        let cluster = cluster.clone();
        std::thread::Builder::new()
            .name(format!("agent {index}"))
            .stack_size(64 << 20)
            .spawn(move || run_agent(cluster, index, source))
    };
    let thread = match thread {
        Ok(t) => t,
        Err(e) => {
            cluster.update(|s| s.agents[index].done = true);
            return Err(vm.type_error(format!("$262.agent.start: no thread: {e}")));
        }
    };
    MAIN.with(|m| {
        if let Some(m) = m.borrow_mut().as_mut() {
            m.threads.push(thread)
        }
    });
    let state = cluster.state();
    cluster.wait_until(vm, state, |s| {
        s.agents[index].running || s.agents[index].done
    })
}

/// `$262.agent.broadcast(sab, num)`: hand the buffer to every agent; returns once every
/// running agent has taken it.
fn broadcast(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let cluster = main_cluster(vm)?;
    let Some(block) = array_buffer::shared_block(vm, vm.arg(args, 0)) else {
        return Err(vm.type_error("$262.agent.broadcast: not a SharedArrayBuffer"));
    };
    let number = match vm.arg(args, 1) {
        v if v.is_undefined() => None,
        v => Some(vm.to_number(v)?),
    };
    let mut state = cluster.state();
    let id = state.broadcast.as_ref().map_or(1, |b| b.id + 1);
    state.broadcast = Some(Broadcast { id, block, number });
    cluster.changed.notify_all();
    cluster.wait_until(vm, state, |s| {
        s.agents.iter().all(|a| a.done || a.received >= id)
    })
}

/// `$262.agent.getReport()`: the oldest report not yet read, or null.
fn get_report(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    let cluster = main_cluster(vm)?;
    let report = cluster.state().reports.pop_front();
    Ok(match report {
        Some(text) => vm.intern_value(&text),
        None => Value::NULL,
    })
}

/// `$262.agent.sleep(ms)`: sleep, stopping early when the scenario is interrupted.
fn sleep(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let ms = vm.to_number(vm.arg(args, 0))?;
    let until = Instant::now() + Duration::try_from_secs_f64(ms / 1000.0).unwrap_or_default();
    loop {
        vm.check_budgets()?;
        let now = Instant::now();
        if now >= until {
            return Ok(Value::UNDEFINED);
        }
        std::thread::sleep((until - now).min(STOP_POLL));
    }
}

/// `$262.agent.monotonicNow()`: milliseconds since the worker started (one clock for
/// every agent).
fn monotonic_now(_vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let start = START.get_or_init(Instant::now);
    Ok(Value::number(start.elapsed().as_secs_f64() * 1000.0))
}

/// Marks the agent's slot done when its thread ends, however it ends.
struct Done(Arc<Cluster>, usize);

impl Drop for Done {
    fn drop(&mut self) {
        self.0.update(|s| s.agents[self.1].done = true);
    }
}

/// An agent thread: run its script, then serve broadcasts until it leaves or the
/// scenario ends.
fn run_agent(cluster: Arc<Cluster>, index: usize, source: String) {
    let _done = Done(cluster.clone(), index);
    let Ok(mut rt) = Runtime::with_options(Options {
        can_block: true,
        ..Options::default()
    }) else {
        return;
    };
    rt.vm().interrupt = cluster.stop.clone();
    define_agent_host(rt.vm());
    AGENT.with(|a| {
        *a.borrow_mut() = Some(Agent {
            cluster: cluster.clone(),
            callback: None,
            leaving: false,
        })
    });
    cluster.update(|s| s.agents[index].running = true);
    let _ = rt.run_script(&source, "agent.js");
    while let Some(callback) = AGENT.with(|a| a.borrow().as_ref().and_then(|a| a.callback)) {
        let Some(b) = next_broadcast(&cluster, index) else {
            break;
        };
        let vm = rt.vm();
        let sab = Value::object(array_buffer::new_shared(vm, b.block));
        let number = b.number.map_or(Value::UNDEFINED, Value::number);
        vm.meter.start_clock();
        let ran = vm
            .call(callback, Value::UNDEFINED, &[sab, number])
            .and_then(|_| vm.run_until_settled());
        vm.meter.stop_clock();
        if ran.is_err() {
            vm.take_exception();
            if vm.termination.is_some() {
                break;
            }
        }
        if AGENT.with(|a| a.borrow().as_ref().is_some_and(|a| a.leaving)) {
            break;
        }
    }
    AGENT.with(|a| a.borrow_mut().take());
}

/// Wait for a broadcast this agent has not taken yet and take it; None once the
/// scenario ends.
fn next_broadcast(cluster: &Cluster, index: usize) -> Option<Broadcast> {
    let mut state = cluster.state();
    loop {
        if cluster.stopped() {
            return None;
        }
        let received = state.agents[index].received;
        if let Some(b) = state.broadcast.clone().filter(|b| b.id > received) {
            state.agents[index].received = b.id;
            cluster.changed.notify_all();
            return Some(b);
        }
        state = cluster.wait(state);
    }
}

/// An agent's `$262.agent`: receiveBroadcast, report, leaving, sleep, monotonicNow.
fn define_agent_host(vm: &mut Vm) {
    let global = vm.intrinsics.global;
    let proto = vm.intrinsics.object_prototype;
    let host = vm.heap.new_object(Some(proto), ObjectKind::Ordinary);
    let agent = vm.heap.new_object(Some(proto), ObjectKind::Ordinary);
    vm.define_native(agent, "receiveBroadcast", receive_broadcast, 1);
    vm.define_native(agent, "report", report, 1);
    vm.define_native(agent, "leaving", leaving, 0);
    define_common(vm, agent);
    let key = vm.key("agent");
    vm.define_builtin(host, key, Value::object(agent), Attrs::HIDDEN);
    let key = vm.key("$262");
    vm.define_builtin(global, key, Value::object(host), Attrs::HIDDEN);
}

fn with_agent<T>(vm: &mut Vm, f: impl FnOnce(&mut Agent) -> T) -> JsResult<T> {
    match AGENT.with(|a| a.borrow_mut().as_mut().map(f)) {
        Some(t) => Ok(t),
        None => Err(vm.type_error("$262.agent: not inside an agent")),
    }
}

/// `$262.agent.receiveBroadcast(callback)`: call `callback(sab, num)` for each broadcast.
fn receive_broadcast(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let callback = vm.arg(args, 0);
    if !vm.is_callable(callback) {
        return Err(vm.type_error("$262.agent.receiveBroadcast: the callback is not a function"));
    }
    // the callback lives as long as the runtime
    vm.pinned.push(callback);
    with_agent(vm, |a| a.callback = Some(callback))?;
    Ok(Value::UNDEFINED)
}

/// `$262.agent.report(value)`: queue `String(value)` for the main agent's getReport.
fn report(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let text = vm.to_string(vm.arg(args, 0))?;
    let text = vm.heap.string_to_rust(text);
    let cluster = with_agent(vm, |a| a.cluster.clone())?;
    cluster.update(|s| s.reports.push_back(text));
    Ok(Value::UNDEFINED)
}

/// `$262.agent.leaving()`: this agent takes no more broadcasts.
fn leaving(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    with_agent(vm, |a| a.leaving = true)?;
    Ok(Value::UNDEFINED)
}
