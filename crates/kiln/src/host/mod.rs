//! Host capabilities: the named functions a host gives the guest, and the only way
//! guest code reaches anything outside the engine.
//!
//! A synchronous capability is a Rust closure called in place; its arguments are read
//! from the VM stack through [`FromGuest`] and its result converted by [`IntoGuest`], so a
//! call allocates nothing beyond what the closure itself returns. An asynchronous
//! capability returns a guest promise and records a [`PendingCall`]; the host answers it
//! later (see [`crate::Runtime::resume`]), possibly in another process after a snapshot.
//! A host function ([`crate::Runtime::register_host_function`]) is a synchronous
//! capability of any arity that takes and returns [`HostValue`]s, for hosts that bind
//! their functions at run time (the language bindings). A deferrable host function
//! ([`crate::Runtime::register_deferrable`]) decides per call: it answers at once, or the
//! call becomes asynchronous (a binding calling a function that returned a promise).

mod console;
mod harden;
#[cfg(feature = "serde")]
mod serde;
pub mod value;

use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Termination, Vm};
use crate::object::{Attrs, ObjectKind, PropertyKey};
use crate::value::Value;
pub use console::ConsoleLevel;
pub(crate) use console::ConsoleSink;
use std::rc::Rc;
pub use value::{BoundaryError, BoundaryErrorKind, BoundaryOptions, HostValue};

/// Identifies one asynchronous host call until the host answers it.
pub type CallId = u64;

/// An asynchronous host call waiting for the host's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingCall {
    pub id: CallId,
    /// the capability's registered name (e.g. `tools.search`)
    pub capability: String,
    pub args: Vec<HostValue>,
}

/// A failure the host reports to the guest; the guest sees an `Error` object with this
/// `name` and `message`, and `code` and `details` properties when given.
#[derive(Clone, Debug, PartialEq)]
pub struct HostError {
    pub name: String,
    pub message: String,
    pub code: Option<String>,
    pub details: Option<HostValue>,
}

impl HostError {
    pub fn new(message: impl Into<String>) -> Self {
        HostError {
            name: "Error".into(),
            message: message.into(),
            code: None,
            details: None,
        }
    }

    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    pub fn with_details(mut self, details: HostValue) -> Self {
        self.details = Some(details);
        self
    }
}

/// How a deferrable host function ([`crate::Runtime::register_deferrable`]) answers one
/// call.
#[derive(Clone, Debug, PartialEq)]
pub enum HostReply {
    /// the call returns this value
    Return(HostValue),
    /// the call throws this error in the guest
    Throw(HostError),
    /// the call returns a promise and becomes an outstanding [`PendingCall`] (with the
    /// id the host function was shown), answered later with [`crate::Runtime::resume`]
    Defer,
}

/// Which calls a suspension ([`crate::Outcome::Suspended`]) lists; set with
/// [`crate::Runtime::set_call_reporting`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CallReporting {
    /// every call still outstanding, oldest first: a host may answer from each
    /// suspension alone, keeping no table of its own
    #[default]
    Outstanding,
    /// only the calls the host has not been shown yet, oldest first: those made since
    /// the previous suspension by asynchronous capabilities. A call a deferrable host
    /// function deferred is not listed (the function was shown it), and a suspension
    /// may list no call at all while the guest waits for older ones. A host that answers
    /// many concurrent calls keeps its own table of them, and each step then costs what
    /// is new in it, not what is outstanding.
    New,
}

/// Why a batch of answers was refused; none of the batch was applied.
#[derive(Debug)]
pub(crate) enum AnswerError {
    /// no call with this id is outstanding
    NotOutstanding(CallId),
    /// the batch answers this call more than once
    Duplicate(CallId),
    /// this call's value cannot enter the guest
    Invalid(CallId, BoundaryError),
}

/// A synchronous capability as the VM calls it.
pub type SyncFn = Rc<dyn Fn(&mut Vm, Args) -> JsResult<Value>>;

#[derive(Clone)]
pub(crate) enum CapabilityKind {
    Sync(SyncFn),
    Async,
    /// named in a restored snapshot, not yet registered again by the host
    Missing,
}

#[derive(Clone)]
pub(crate) struct Capability {
    pub name: Rc<str>,
    pub kind: CapabilityKind,
}

/// An asynchronous call the guest is waiting on: the promise it holds.
#[derive(Clone, Debug)]
pub(crate) struct OutstandingCall {
    pub call: PendingCall,
    pub promise: ObjectId,
}

/// The host side of a VM: capabilities, outstanding calls, boundary rules.
#[derive(Clone, Default)]
pub struct HostState {
    pub(crate) capabilities: Vec<Capability>,
    pub(crate) outstanding: Vec<OutstandingCall>,
    pub(crate) next_id: CallId,
    /// capability calls made in the current execution (against `Limits::max_host_calls`)
    pub(crate) calls_made: u64,
    /// which calls a suspension lists
    pub(crate) reporting: CallReporting,
    /// the newest call id the host had been shown at the last suspension: the calls
    /// after it are new (ids only grow, and `outstanding` is in id order)
    pub(crate) reported_through: CallId,
    /// the calls a deferrable host function deferred since the last suspension, in id
    /// order: shown to the host already, so not new
    pub(crate) shown: Vec<CallId>,
    /// where the guest's `console` writes (see [`crate::Runtime::set_console`])
    pub(crate) console: Option<ConsoleSink>,
    /// what values may cross to the host
    pub boundary: BoundaryOptions,
}

impl HostState {
    /// Capabilities a restored snapshot names that the host has not registered again.
    pub fn missing_capabilities(&self) -> Vec<String> {
        self.capabilities
            .iter()
            .filter(|c| matches!(c.kind, CapabilityKind::Missing))
            .map(|c| c.name.to_string())
            .collect()
    }

    /// The calls waiting for an answer, oldest first.
    pub fn pending_calls(&self) -> Vec<PendingCall> {
        self.outstanding.iter().map(|c| c.call.clone()).collect()
    }

    /// The calls a suspension lists under the reporting rule (see [`CallReporting`]);
    /// from here on, every call made so far counts as shown.
    pub(crate) fn suspension_calls(&mut self) -> Vec<PendingCall> {
        let calls = match self.reporting {
            CallReporting::Outstanding => self.pending_calls(),
            CallReporting::New => {
                // the new calls are a tail of `outstanding`, which is in id order
                let first = self
                    .outstanding
                    .partition_point(|c| c.call.id <= self.reported_through);
                let shown = &self.shown;
                self.outstanding[first..]
                    .iter()
                    .filter(|c| shown.binary_search(&c.call.id).is_err())
                    .map(|c| c.call.clone())
                    .collect()
            }
        };
        self.mark_all_shown();
        calls
    }

    /// Count every call made so far as shown to the host (after a suspension, or a
    /// restore, whose host reads the outstanding calls with `pending_calls`).
    pub(crate) fn mark_all_shown(&mut self) {
        self.reported_through = self.next_id;
        self.shown.clear();
    }

    /// The index in `outstanding` of the call `id`.
    fn outstanding_index(&self, id: CallId) -> Option<usize> {
        // `outstanding` is in id order (calls are added with growing ids); a restored
        // snapshot that broke the order is still searched, only more slowly
        let at = self.outstanding.partition_point(|c| c.call.id < id);
        match self.outstanding.get(at) {
            Some(c) if c.call.id == id => Some(at),
            _ => self.outstanding.iter().position(|c| c.call.id == id),
        }
    }

    pub(crate) fn trace(&self, out: &mut Vec<Value>) {
        out.extend(self.outstanding.iter().map(|c| Value::object(c.promise)));
    }
}

/// A guest value read as a Rust argument. A value of the wrong type throws a TypeError
/// in the guest; nothing is coerced.
pub trait FromGuest: Sized {
    fn from_guest(vm: &mut Vm, value: Value) -> JsResult<Self>;
}

/// A Rust result returned to the guest.
pub trait IntoGuest {
    fn into_guest(self, vm: &mut Vm) -> JsResult<Value>;
}

impl FromGuest for Value {
    fn from_guest(_vm: &mut Vm, value: Value) -> JsResult<Self> {
        Ok(value)
    }
}

impl FromGuest for f64 {
    fn from_guest(vm: &mut Vm, value: Value) -> JsResult<Self> {
        match value.as_number() {
            Some(n) => Ok(n),
            None => Err(vm.type_error("expected a number")),
        }
    }
}

impl FromGuest for i64 {
    fn from_guest(vm: &mut Vm, value: Value) -> JsResult<Self> {
        match value.as_number() {
            Some(n) if n.fract() == 0.0 && n.abs() <= 9_007_199_254_740_991.0 => Ok(n as i64),
            _ => Err(vm.type_error("expected a safe integer")),
        }
    }
}

impl FromGuest for bool {
    fn from_guest(vm: &mut Vm, value: Value) -> JsResult<Self> {
        match value.as_bool() {
            Some(b) => Ok(b),
            None => Err(vm.type_error("expected a boolean")),
        }
    }
}

impl FromGuest for String {
    fn from_guest(vm: &mut Vm, value: Value) -> JsResult<Self> {
        match HostValue::from_guest(vm, value)? {
            HostValue::String(s) => Ok(s),
            _ => Err(vm.type_error("expected a string")),
        }
    }
}

impl FromGuest for HostValue {
    fn from_guest(vm: &mut Vm, value: Value) -> JsResult<Self> {
        let options = vm.host.boundary;
        vm.to_host(value, &options)
            .map_err(|e| vm.type_error(e.to_string()))
    }
}

impl<T: FromGuest> FromGuest for Option<T> {
    fn from_guest(vm: &mut Vm, value: Value) -> JsResult<Self> {
        if value.is_undefined() {
            return Ok(None);
        }
        T::from_guest(vm, value).map(Some)
    }
}

impl IntoGuest for Value {
    fn into_guest(self, _vm: &mut Vm) -> JsResult<Value> {
        Ok(self)
    }
}

impl IntoGuest for () {
    fn into_guest(self, _vm: &mut Vm) -> JsResult<Value> {
        Ok(Value::UNDEFINED)
    }
}

impl IntoGuest for f64 {
    fn into_guest(self, _vm: &mut Vm) -> JsResult<Value> {
        Ok(Value::number(self))
    }
}

impl IntoGuest for i64 {
    fn into_guest(self, _vm: &mut Vm) -> JsResult<Value> {
        Ok(Value::number(self as f64))
    }
}

impl IntoGuest for bool {
    fn into_guest(self, _vm: &mut Vm) -> JsResult<Value> {
        Ok(Value::bool(self))
    }
}

impl IntoGuest for String {
    fn into_guest(self, vm: &mut Vm) -> JsResult<Value> {
        Ok(vm.string_value(&self))
    }
}

impl IntoGuest for &str {
    fn into_guest(self, vm: &mut Vm) -> JsResult<Value> {
        Ok(vm.string_value(self))
    }
}

impl IntoGuest for HostValue {
    fn into_guest(self, vm: &mut Vm) -> JsResult<Value> {
        vm.to_guest(&self)
            .map_err(|e| vm.type_error(format!("the host returned an invalid value: {e}")))
    }
}

impl<T: IntoGuest> IntoGuest for Result<T, HostError> {
    fn into_guest(self, vm: &mut Vm) -> JsResult<Value> {
        match self {
            Ok(v) => v.into_guest(vm),
            Err(e) => {
                let error = vm.host_error(&e);
                Err(vm.throw(error))
            }
        }
    }
}

/// A Rust closure usable as a synchronous capability: `Fn(A, B, ...) -> R` for up to
/// four arguments that are [`FromGuest`], with a result that is [`IntoGuest`].
pub trait SyncCapability<Marker> {
    fn into_sync_fn(self) -> SyncFn;
}

macro_rules! sync_capability {
    ($($arg:ident),*) => {
        impl<F, R, $($arg),*> SyncCapability<($($arg,)*)> for F
        where
            F: Fn($($arg),*) -> R + 'static,
            R: IntoGuest,
            $($arg: FromGuest,)*
        {
            #[allow(non_snake_case, unused_variables, unused_mut, unused_assignments)]
            fn into_sync_fn(self) -> SyncFn {
                Rc::new(move |vm: &mut Vm, args: Args| {
                    let mut index = 0;
                    $(
                        let $arg = $arg::from_guest(vm, vm.arg(args, index))?;
                        index += 1;
                    )*
                    self($($arg),*).into_guest(vm)
                })
            }
        }
    };
}

sync_capability!();
sync_capability!(A);
sync_capability!(A, B);
sync_capability!(A, B, C);
sync_capability!(A, B, C, D);

/// A host function: any number of arguments crossing as [`HostValue`]s, a result or a
/// [`HostError`] thrown in the guest.
pub(crate) fn host_function_fn(
    name: &str,
    f: impl FnMut(&[HostValue]) -> Result<HostValue, HostError> + 'static,
) -> SyncFn {
    let f = std::cell::RefCell::new(f);
    let name: Rc<str> = name.into();
    Rc::new(move |vm: &mut Vm, args: Args| {
        let host_args = vm.capability_args(&name, args)?;
        // A host function cannot reach the guest, so it is never re-entered.
        let result = match f.try_borrow_mut() {
            Ok(mut f) => f(&host_args),
            Err(_) => Err(HostError::new(format!("{name} is already running"))),
        };
        result.into_guest(vm)
    })
}

/// A deferrable host function: shown each call (its id, capability and arguments), it
/// answers now or defers the call to the host's later answer.
pub(crate) fn deferrable_fn(
    name: &str,
    f: impl FnMut(&PendingCall) -> HostReply + 'static,
) -> SyncFn {
    let f = std::cell::RefCell::new(f);
    let name: Rc<str> = name.into();
    Rc::new(move |vm: &mut Vm, args: Args| {
        let host_args = vm.capability_args(&name, args)?;
        let call = PendingCall {
            id: vm.host.next_id + 1,
            capability: name.to_string(),
            args: host_args,
        };
        let reply = match f.try_borrow_mut() {
            Ok(mut f) => f(&call),
            Err(_) => HostReply::Throw(HostError::new(format!("{name} is already running"))),
        };
        match reply {
            HostReply::Return(value) => value.into_guest(vm),
            HostReply::Throw(error) => Err::<HostValue, _>(error).into_guest(vm),
            HostReply::Defer => {
                let id = call.id;
                let promise = vm.defer_host_call(call)?;
                vm.host.shown.push(id);
                Ok(promise)
            }
        }
    })
}

/// The natives a host adds after realm creation (capabilities, `harden`, `console`); snapshots name
/// them by their position in this list.
pub(crate) const DYNAMIC_NATIVES: [crate::object::NativeFn; 3] =
    [call_capability, harden::harden, console::console_method];

/// The native behind every capability: its data is the capability's index.
fn call_capability(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let index = vm
        .native_data(vm.native_callee)
        .first()
        .and_then(|v| v.as_int())
        .unwrap_or(-1);
    let Some(capability) = vm.host.capabilities.get(index as usize).cloned() else {
        return Err(vm.type_error("this host capability is not available"));
    };
    if !matches!(capability.kind, CapabilityKind::Missing) {
        if vm
            .limits
            .max_host_calls
            .is_some_and(|max| vm.host.calls_made >= max)
        {
            return Err(vm.terminate(Termination::HostCallBudget));
        }
        vm.host.calls_made += 1;
    }
    match capability.kind {
        CapabilityKind::Sync(f) => f(vm, args),
        CapabilityKind::Async => vm.start_host_call(&capability.name, args),
        CapabilityKind::Missing => Err(vm.type_error(format!(
            "the host capability {} was not provided to this runtime",
            capability.name
        ))),
    }
}

impl Vm {
    /// Make a capability callable by the guest under `name`; a dotted name
    /// (`tools.search`) defines it on a plain namespace object (`tools`) of the global.
    pub(crate) fn register_capability(&mut self, name: &str, kind: CapabilityKind) {
        // a runtime restored from a snapshot already has the guest's function: bind it
        if let Some(known) = self.host.capabilities.iter_mut().find(|c| &*c.name == name) {
            known.kind = kind;
            return;
        }
        let index = self.host.capabilities.len() as i32;
        let mut holder = self.intrinsics.global;
        let mut parts: Vec<&str> = name.split('.').collect();
        let last = parts.pop().unwrap_or(name);
        for part in parts {
            let key = self.key(part);
            holder = match self.heap.own_property(holder, key) {
                Some(p) if p.value.is_object() && !p.attrs.is_accessor() => {
                    p.value.as_object().expect("checked")
                }
                _ => {
                    let proto = self.intrinsics.object_prototype;
                    let ns = self.heap.new_object(Some(proto), ObjectKind::Ordinary);
                    self.define_builtin(holder, key, Value::object(ns), Attrs::HIDDEN);
                    ns
                }
            };
        }
        let fname = self.string_value(last);
        let f = self.new_native_with_data(
            call_capability,
            fname,
            0,
            false,
            Box::new([Value::int(index)]),
        );
        let key = self.key(last);
        self.define_builtin(holder, key, Value::object(f), Attrs::HIDDEN);
        self.host.capabilities.push(Capability {
            name: name.into(),
            kind,
        });
    }

    /// An asynchronous capability was called: record the call, return its promise.
    fn start_host_call(&mut self, name: &str, args: Args) -> JsResult<Value> {
        let host_args = self.capability_args(name, args)?;
        let call = PendingCall {
            id: self.host.next_id + 1,
            capability: name.to_string(),
            args: host_args,
        };
        self.defer_host_call(call)
    }

    /// The arguments of a call of capability `name`, copied for the host; one that
    /// cannot cross is a TypeError naming its path.
    fn capability_args(&mut self, name: &str, args: Args) -> JsResult<Vec<HostValue>> {
        let options = self.host.boundary;
        self.args_to_host(args, &options)
            .map_err(|e| self.type_error(format!("{name}: {e}")))
    }

    /// Make `call` (whose id is the next one) outstanding and return its promise.
    fn defer_host_call(&mut self, call: PendingCall) -> JsResult<Value> {
        if self.host.outstanding.len() >= self.limits.max_pending_host_calls {
            return Err(self.terminate(Termination::HostCalls));
        }
        debug_assert_eq!(call.id, self.host.next_id + 1);
        let promise = self.new_promise();
        self.host.next_id = call.id;
        self.host
            .outstanding
            .push(OutstandingCall { call, promise });
        Ok(Value::object(promise))
    }

    /// Settle the promises of the outstanding calls `answers` names, in its order (which
    /// is the order the guest's reactions run in), and forget those calls. All or
    /// nothing: an id that is not outstanding, an id answered twice or a value that
    /// cannot enter the guest refuses the whole batch, and then no promise is settled.
    /// Runs no guest code (host data is never a thenable, so promises are fulfilled
    /// directly and no inherited `then` getter runs).
    pub(crate) fn answer_host_calls(
        &mut self,
        answers: Vec<(CallId, Result<HostValue, HostError>)>,
    ) -> Result<(), AnswerError> {
        // 1. Find every call, and refuse a batch that names one twice.
        let mut at = Vec::with_capacity(answers.len());
        for (id, _) in &answers {
            match self.host.outstanding_index(*id) {
                Some(i) => at.push(i),
                None => return Err(AnswerError::NotOutstanding(*id)),
            }
        }
        let mut sorted = at.clone();
        sorted.sort_unstable();
        if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(AnswerError::Duplicate(
                self.host.outstanding[pair[0]].call.id,
            ));
        }
        // 2. Bring the values into the guest before settling anything. No collection
        //    happens outside the dispatch loop, so the values made stay alive until
        //    their promises hold them.
        let mut settled = Vec::with_capacity(answers.len());
        for ((id, answer), &i) in answers.into_iter().zip(&at) {
            let promise = self.host.outstanding[i].promise;
            match answer {
                Ok(value) => match self.to_guest(&value) {
                    Ok(v) => settled.push((promise, Ok(v))),
                    Err(e) => return Err(AnswerError::Invalid(id, e)),
                },
                Err(e) => settled.push((promise, Err(e))),
            }
        }
        // 3. Settle, in the batch's order, and forget the answered calls.
        for (promise, answer) in settled {
            match answer {
                Ok(v) => self.fulfill_promise(promise, v),
                Err(e) => {
                    let error = self.host_error(&e);
                    self.reject_promise(promise, error);
                }
            }
        }
        let mut index = 0;
        let mut answered = sorted.iter().peekable();
        self.host.outstanding.retain(|_| {
            let this = index;
            index += 1;
            if answered.peek() == Some(&&this) {
                answered.next();
                return false;
            }
            true
        });
        Ok(())
    }

    /// The guest `Error` object for a host failure.
    pub fn host_error(&mut self, e: &HostError) -> Value {
        let error = self.new_error(self.intrinsics.error_prototype, &e.message);
        if e.name != "Error" {
            let name = self.string_value(&e.name);
            self.define_builtin(
                error,
                PropertyKey::String(self.atoms.name),
                name,
                Attrs::HIDDEN,
            );
            self.attach_stack(error);
        }
        if let Some(code) = &e.code {
            let key = self.key("code");
            let code = self.string_value(code);
            self.define_builtin(error, key, code, Attrs::DEFAULT);
        }
        if let Some(details) = &e.details {
            let key = self.key("details");
            let details = self.to_guest(details).unwrap_or(Value::UNDEFINED);
            self.define_builtin(error, key, details, Attrs::DEFAULT);
        }
        Value::object(error)
    }
}
