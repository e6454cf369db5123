//! The conversation between a host and the worker running its session, as typed
//! messages and as bytes.
//!
//! The host sends [`Command`]s; the worker answers with [`Event`]s. A session is one
//! execution: `Start` (or `Load` from a snapshot), then as many steps as the guest needs.
//! Each step ends with exactly one *resting* event: `Suspended` (the guest waits for
//! the host's answers to asynchronous calls), `Complete`, `Failed` or, after `Dump`,
//! `Dumped`. While a step runs, the worker may send `Console` lines and `Call`s: a `Call`
//! is a synchronous host call, and the worker waits for its `Reply` before the guest goes
//! on. `Close` ends a session at any time and is acknowledged with `Closed`, after the
//! step running then (unless that step ends the session: then its event is the last).
//! `Answer` settles one asynchronous call; `Answers` settles several in one step, in
//! its order, so that a host with several answers at hand gets one resting event for
//! them however its messages travel.
//!
//! Each message is a tag byte and its fields, in the order the types list them, with
//! the encodings of [`crate::codec`]; call ids and limits are `f64` (what JavaScript
//! numbers hold exactly up to 2^53), a missing limit is `-1`. The JavaScript side is
//! `bindings/node/src/protocol.js`. Between processes each message travels as a frame:
//! its length as a `u32`, then its bytes.

use crate::codec::{DecodeError, Reader, Writer};
use kiln::{CallId, ConsoleLevel, HostError, HostReply, HostValue, PendingCall};

/// Budgets for one execution; `None` leaves the default of [`Limits::default`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// fuel (about one unit per bytecode instruction)
    pub fuel: Option<u64>,
    /// heap bytes
    pub heap_bytes: Option<u64>,
    /// JavaScript call depth
    pub call_depth: Option<u64>,
    /// guest compute time in milliseconds (time waiting for the host not counted)
    pub compute_ms: Option<u64>,
    /// host capability calls in all
    pub host_calls: Option<u64>,
}

/// The defaults every binding documents: generous for agent scripts that reduce tens of
/// thousands of records, small enough that a runaway guest ends within a few seconds
/// and a few tens of MiB.
pub mod defaults {
    pub const FUEL: u64 = 200_000_000;
    pub const HEAP_BYTES: u64 = 64 << 20;
    pub const CALL_DEPTH: u64 = 1_000;
    pub const COMPUTE_MS: u64 = 5_000;
    pub const HOST_CALLS: u64 = 1_000;
}

impl Limits {
    /// The engine's limits for these budgets, defaults filled in.
    pub fn to_engine(&self) -> kiln::Limits {
        let frames = self.call_depth.unwrap_or(defaults::CALL_DEPTH);
        kiln::Limits {
            fuel: Some(self.fuel.unwrap_or(defaults::FUEL)),
            max_heap_bytes: usize::try_from(self.heap_bytes.unwrap_or(defaults::HEAP_BYTES))
                .unwrap_or(usize::MAX),
            max_frames: usize::try_from(frames).unwrap_or(usize::MAX).max(1),
            call_depth_terminates: true,
            compute_time: Some(std::time::Duration::from_millis(
                self.compute_ms.unwrap_or(defaults::COMPUTE_MS),
            )),
            max_host_calls: Some(self.host_calls.unwrap_or(defaults::HOST_CALLS)),
            ..kiln::Limits::default()
        }
    }
}

/// How an execution is set up (everything but its code).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    pub limits: Limits,
    /// freeze the intrinsics and provide `harden`
    pub hardened: bool,
    /// let `eval` and `Function` compile strings
    pub allow_eval: bool,
    /// give the guest a `console` whose lines come back as `Console` events
    pub console: bool,
    /// BigInts cross the boundary
    pub bigint: bool,
    /// Dates cross the boundary
    pub date: bool,
}

impl Settings {
    pub fn to_options(&self) -> kiln::Options {
        kiln::Options {
            limits: self.limits.to_engine(),
            boundary: kiln::host::BoundaryOptions {
                bigint: self.bigint,
                date: self.date,
                ..Default::default()
            },
            hardened: self.hardened,
            allow_code_generation: self.allow_eval,
            ..kiln::Options::default()
        }
    }
}

/// How the guest's calls of a capability are answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// each call is a `Call` event; the host's `Reply` returns, throws or defers it
    Call,
    /// each call returns a promise and waits for an `Answer` (reported by `Suspended`)
    Async,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Capability {
    /// the name the guest calls it by; dots make namespaces (`tools.search`)
    pub name: String,
    pub mode: Mode,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    pub source: String,
    /// the script's name in stack traces; `.ts`, `.mts` and `.cts` names are TypeScript
    pub filename: String,
    pub settings: Settings,
    pub capabilities: Vec<Capability>,
    /// globals the guest sees, each a fresh copy
    pub inputs: Vec<(String, HostValue)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Load {
    pub snapshot: Vec<u8>,
    pub key: Option<Vec<u8>>,
    pub settings: Settings,
    pub capabilities: Vec<Capability>,
}

/// The host's answer to the outstanding asynchronous call with this id: a value, or an
/// error the guest's promise rejects with.
pub type CallAnswer = (CallId, Result<HostValue, HostError>);

/// What a host sends to a session's worker.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Start(Box<Start>),
    Load(Box<Load>),
    /// the answer to the synchronous `Call` the worker waits on
    Reply(HostReply),
    /// the answer to an asynchronous call
    Answer {
        id: CallId,
        result: Result<HostValue, HostError>,
    },
    /// answers to asynchronous calls (one or more), settled in this order in one step:
    /// the guest runs once after the last of them, whenever the frame arrives
    Answers(Vec<CallAnswer>),
    /// write the suspended execution as snapshot bytes (authenticated with `key`)
    Dump {
        key: Option<Vec<u8>>,
    },
    Close,
    /// stop the running guest (between processes only: in a process, the session's
    /// interrupt is a flag)
    Interrupt,
}

/// Why an execution ended without a result.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// the stable kind: a [`kiln::ErrorKind`] name, or `Snapshot`
    pub kind: String,
    pub name: String,
    pub message: String,
    pub stack: String,
    pub location: Option<Box<Location>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub source_line: String,
}

impl Failure {
    /// A failure that is not a guest exception.
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        Failure {
            kind: kind.into(),
            name: kind.into(),
            stack: message.clone(),
            message,
            location: None,
        }
    }

    pub fn from_report(report: kiln::ErrorReport) -> Self {
        Failure {
            kind: report.kind.name().into(),
            name: report.name,
            message: report.message,
            stack: report.stack,
            location: report.location.map(|l| {
                Box::new(Location {
                    file: l.file,
                    line: l.line,
                    column: l.column,
                    source_line: l.source_line,
                })
            }),
        }
    }

    pub fn from_snapshot_error(e: &kiln::snapshot::SnapshotError) -> Self {
        Failure::new("Snapshot", e.to_string())
    }
}

/// What a session's worker sends to its host.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// a synchronous host call: answer it with `Reply`
    Call(PendingCall),
    Console {
        level: ConsoleLevel,
        text: String,
    },
    /// the guest waits for answers; `calls` are the asynchronous calls made since the
    /// last `Suspended` (after `Load`, every outstanding call)
    Suspended {
        calls: Vec<PendingCall>,
    },
    Complete(HostValue),
    Failed(Failure),
    Dumped(Result<Vec<u8>, Failure>),
    Closed,
}

impl Event {
    /// The session is over after this event.
    pub fn ends_session(&self) -> bool {
        matches!(self, Event::Complete(_) | Event::Failed(_) | Event::Closed)
    }

    /// Whether encoded event bytes end the session (read from the tag alone).
    pub fn bytes_end_session(bytes: &[u8]) -> bool {
        matches!(bytes.first(), Some(&(COMPLETE | FAILED | CLOSED)))
    }
}

impl Command {
    /// Whether encoded command bytes start or load an execution (read from the tag
    /// alone).
    pub fn bytes_begin_session(bytes: &[u8]) -> bool {
        matches!(bytes.first(), Some(&(START | LOAD)))
    }
}

// Command tags
const START: u8 = 1;
const LOAD: u8 = 2;
const REPLY: u8 = 3;
const ANSWER: u8 = 4;
const DUMP: u8 = 5;
const CLOSE: u8 = 6;
const INTERRUPT: u8 = 7;
const ANSWERS: u8 = 8;

// Event tags
const CALL: u8 = 1;
const CONSOLE: u8 = 2;
const SUSPENDED: u8 = 3;
const COMPLETE: u8 = 4;
const FAILED: u8 = 5;
const DUMPED: u8 = 6;
const CLOSED: u8 = 7;

// Reply kinds
const RETURN: u8 = 0;
const THROW: u8 = 1;
const DEFER: u8 = 2;

const LEVELS: [ConsoleLevel; 5] = [
    ConsoleLevel::Log,
    ConsoleLevel::Info,
    ConsoleLevel::Debug,
    ConsoleLevel::Warn,
    ConsoleLevel::Error,
];

impl Writer {
    fn opt_u64(&mut self, v: Option<u64>) {
        self.f64(v.map_or(-1.0, |v| v as f64));
    }

    fn opt_blob(&mut self, b: Option<&[u8]>) {
        match b {
            Some(b) => {
                self.u8(1);
                self.blob(b);
            }
            None => self.u8(0),
        }
    }

    fn settings(&mut self, s: &Settings) {
        let l = &s.limits;
        for v in [
            l.fuel,
            l.heap_bytes,
            l.call_depth,
            l.compute_ms,
            l.host_calls,
        ] {
            self.opt_u64(v);
        }
        let flags = [s.hardened, s.allow_eval, s.console, s.bigint, s.date]
            .iter()
            .enumerate()
            .fold(0u8, |acc, (i, &on)| acc | (u8::from(on) << i));
        self.u8(flags);
    }

    fn capabilities(&mut self, caps: &[Capability]) {
        self.len(caps.len());
        for c in caps {
            self.str(&c.name);
            self.u8(match c.mode {
                Mode::Call => 0,
                Mode::Async => 1,
            });
        }
    }

    fn host_error(&mut self, e: &HostError) {
        self.str(&e.name);
        self.str(&e.message);
        self.opt_str(e.code.as_deref());
        match &e.details {
            Some(d) => {
                self.u8(1);
                self.value(d);
            }
            None => self.u8(0),
        }
    }

    /// An answer's result: its kind, then the value or the error.
    fn result(&mut self, result: &Result<HostValue, HostError>) {
        match result {
            Ok(v) => {
                self.u8(RETURN);
                self.value(v);
            }
            Err(e) => {
                self.u8(THROW);
                self.host_error(e);
            }
        }
    }

    fn call(&mut self, c: &PendingCall) {
        self.f64(c.id as f64);
        self.str(&c.capability);
        self.len(c.args.len());
        for a in &c.args {
            self.value(a);
        }
    }

    fn failure(&mut self, f: &Failure) {
        self.str(&f.kind);
        self.str(&f.name);
        self.str(&f.message);
        self.str(&f.stack);
        match &f.location {
            Some(l) => {
                self.u8(1);
                self.str(&l.file);
                self.u32(l.line);
                self.u32(l.column);
                self.str(&l.source_line);
            }
            None => self.u8(0),
        }
    }
}

impl Reader<'_> {
    fn opt_u64(&mut self) -> Result<Option<u64>, DecodeError> {
        let v = self.f64()?;
        if v == -1.0 {
            return Ok(None);
        }
        if !(0.0..=9_007_199_254_740_992.0).contains(&v) || v.fract() != 0.0 {
            return self.fail("a limit that is not a whole number from 0 to 2^53");
        }
        Ok(Some(v as u64))
    }

    fn opt_blob(&mut self) -> Result<Option<Vec<u8>>, DecodeError> {
        match self.u8()? {
            0 => Ok(None),
            1 => Ok(Some(self.blob()?.to_vec())),
            _ => self.fail("optional bytes with a bad marker"),
        }
    }

    fn settings(&mut self) -> Result<Settings, DecodeError> {
        let limits = Limits {
            fuel: self.opt_u64()?,
            heap_bytes: self.opt_u64()?,
            call_depth: self.opt_u64()?,
            compute_ms: self.opt_u64()?,
            host_calls: self.opt_u64()?,
        };
        let flags = self.u8()?;
        let on = |i: u8| flags & (1 << i) != 0;
        Ok(Settings {
            limits,
            hardened: on(0),
            allow_eval: on(1),
            console: on(2),
            bigint: on(3),
            date: on(4),
        })
    }

    fn capabilities(&mut self) -> Result<Vec<Capability>, DecodeError> {
        let n = self.count()?;
        let mut caps = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.str()?;
            let mode = match self.u8()? {
                0 => Mode::Call,
                1 => Mode::Async,
                _ => return self.fail("an unknown capability mode"),
            };
            caps.push(Capability { name, mode });
        }
        Ok(caps)
    }

    fn host_error(&mut self) -> Result<HostError, DecodeError> {
        let mut e = HostError::new(String::new()).with_name(self.str()?);
        e.message = self.str()?;
        e.code = self.opt_str()?;
        e.details = match self.u8()? {
            0 => None,
            1 => Some(self.value()?),
            _ => return self.fail("error details with a bad marker"),
        };
        Ok(e)
    }

    fn call_id(&mut self) -> Result<CallId, DecodeError> {
        match self.opt_u64()? {
            Some(id) => Ok(id),
            None => self.fail("a call id that is not a whole number"),
        }
    }

    fn answer(&mut self) -> Result<CallAnswer, DecodeError> {
        let id = self.call_id()?;
        let result = match self.u8()? {
            RETURN => Ok(self.value()?),
            THROW => Err(self.host_error()?),
            _ => return self.fail("an unknown answer kind"),
        };
        Ok((id, result))
    }

    fn call(&mut self) -> Result<PendingCall, DecodeError> {
        let id = self.call_id()?;
        let capability = self.str()?;
        let n = self.count()?;
        let mut args = Vec::with_capacity(n);
        for _ in 0..n {
            args.push(self.value()?);
        }
        Ok(PendingCall {
            id,
            capability,
            args,
        })
    }

    fn failure(&mut self) -> Result<Failure, DecodeError> {
        Ok(Failure {
            kind: self.str()?,
            name: self.str()?,
            message: self.str()?,
            stack: self.str()?,
            location: match self.u8()? {
                0 => None,
                1 => Some(Box::new(Location {
                    file: self.str()?,
                    line: self.u32()?,
                    column: self.u32()?,
                    source_line: self.str()?,
                })),
                _ => return self.fail("a location with a bad marker"),
            },
        })
    }
}

impl Command {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        match self {
            Command::Start(s) => {
                w.u8(START);
                w.str(&s.source);
                w.str(&s.filename);
                w.settings(&s.settings);
                w.capabilities(&s.capabilities);
                w.len(s.inputs.len());
                for (name, value) in &s.inputs {
                    w.str(name);
                    w.value(value);
                }
            }
            Command::Load(l) => {
                w.u8(LOAD);
                w.blob(&l.snapshot);
                w.opt_blob(l.key.as_deref());
                w.settings(&l.settings);
                w.capabilities(&l.capabilities);
            }
            Command::Reply(reply) => {
                w.u8(REPLY);
                match reply {
                    HostReply::Return(v) => {
                        w.u8(RETURN);
                        w.value(v);
                    }
                    HostReply::Throw(e) => {
                        w.u8(THROW);
                        w.host_error(e);
                    }
                    HostReply::Defer => w.u8(DEFER),
                }
            }
            Command::Answer { id, result } => {
                w.u8(ANSWER);
                w.f64(*id as f64);
                w.result(result);
            }
            Command::Answers(answers) => {
                w.u8(ANSWERS);
                w.len(answers.len());
                for (id, result) in answers {
                    w.f64(*id as f64);
                    w.result(result);
                }
            }
            Command::Dump { key } => {
                w.u8(DUMP);
                w.opt_blob(key.as_deref());
            }
            Command::Close => w.u8(CLOSE),
            Command::Interrupt => w.u8(INTERRUPT),
        }
        w.bytes
    }

    pub fn decode(bytes: &[u8]) -> Result<Command, DecodeError> {
        let mut r = Reader::new(bytes);
        let command = match r.u8()? {
            START => {
                let source = r.str()?;
                let filename = r.str()?;
                let settings = r.settings()?;
                let capabilities = r.capabilities()?;
                let n = r.count()?;
                let mut inputs = Vec::with_capacity(n);
                for _ in 0..n {
                    let name = r.str()?;
                    inputs.push((name, r.value()?));
                }
                Command::Start(Box::new(Start {
                    source,
                    filename,
                    settings,
                    capabilities,
                    inputs,
                }))
            }
            LOAD => Command::Load(Box::new(Load {
                snapshot: r.blob()?.to_vec(),
                key: r.opt_blob()?,
                settings: r.settings()?,
                capabilities: r.capabilities()?,
            })),
            REPLY => Command::Reply(match r.u8()? {
                RETURN => HostReply::Return(r.value()?),
                THROW => HostReply::Throw(r.host_error()?),
                DEFER => HostReply::Defer,
                _ => return r.fail("an unknown reply kind"),
            }),
            ANSWER => {
                let (id, result) = r.answer()?;
                Command::Answer { id, result }
            }
            ANSWERS => {
                let n = r.count()?;
                if n == 0 {
                    return r.fail("a batch of no answers");
                }
                let mut answers = Vec::with_capacity(n);
                for _ in 0..n {
                    answers.push(r.answer()?);
                }
                Command::Answers(answers)
            }
            DUMP => Command::Dump { key: r.opt_blob()? },
            CLOSE => Command::Close,
            INTERRUPT => Command::Interrupt,
            tag => return r.fail(format!("an unknown command tag {tag}")),
        };
        r.finish()?;
        Ok(command)
    }
}

impl Event {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        match self {
            Event::Call(call) => {
                w.u8(CALL);
                w.call(call);
            }
            Event::Console { level, text } => {
                w.u8(CONSOLE);
                w.u8(LEVELS.iter().position(|l| l == level).unwrap_or(0) as u8);
                w.str(text);
            }
            Event::Suspended { calls } => {
                w.u8(SUSPENDED);
                w.len(calls.len());
                for c in calls {
                    w.call(c);
                }
            }
            Event::Complete(v) => {
                w.u8(COMPLETE);
                w.value(v);
            }
            Event::Failed(f) => {
                w.u8(FAILED);
                w.failure(f);
            }
            Event::Dumped(result) => {
                w.u8(DUMPED);
                match result {
                    Ok(bytes) => {
                        w.u8(0);
                        w.blob(bytes);
                    }
                    Err(f) => {
                        w.u8(1);
                        w.failure(f);
                    }
                }
            }
            Event::Closed => w.u8(CLOSED),
        }
        w.bytes
    }

    pub fn decode(bytes: &[u8]) -> Result<Event, DecodeError> {
        let mut r = Reader::new(bytes);
        let event = match r.u8()? {
            CALL => Event::Call(r.call()?),
            CONSOLE => {
                let level = match LEVELS.get(r.u8()? as usize) {
                    Some(&l) => l,
                    None => return r.fail("an unknown console level"),
                };
                Event::Console {
                    level,
                    text: r.str()?,
                }
            }
            SUSPENDED => {
                let n = r.count()?;
                let mut calls = Vec::with_capacity(n);
                for _ in 0..n {
                    calls.push(r.call()?);
                }
                Event::Suspended { calls }
            }
            COMPLETE => Event::Complete(r.value()?),
            FAILED => Event::Failed(r.failure()?),
            DUMPED => Event::Dumped(match r.u8()? {
                0 => Ok(r.blob()?.to_vec()),
                1 => Err(r.failure()?),
                _ => return r.fail("an unknown dump result"),
            }),
            CLOSED => Event::Closed,
            tag => return r.fail(format!("an unknown event tag {tag}")),
        };
        r.finish()?;
        Ok(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            limits: Limits {
                fuel: Some(1_000_000),
                heap_bytes: None,
                call_depth: Some(256),
                compute_ms: Some(0),
                host_calls: None,
            },
            hardened: true,
            allow_eval: false,
            console: true,
            bigint: false,
            date: true,
        }
    }

    fn error() -> HostError {
        HostError::new("no such user")
            .with_name("NotFound")
            .with_code("E404")
            .with_details(HostValue::object([("id", 7.into())]))
    }

    fn commands() -> Vec<Command> {
        vec![
            Command::Start(Box::new(Start {
                source: "return await tools.search(input.q)".into(),
                filename: "agent.ts".into(),
                settings: settings(),
                capabilities: vec![
                    Capability {
                        name: "tools.search".into(),
                        mode: Mode::Async,
                    },
                    Capability {
                        name: "add".into(),
                        mode: Mode::Call,
                    },
                ],
                inputs: vec![("input".into(), HostValue::object([("q", "kiln".into())]))],
            })),
            Command::Load(Box::new(Load {
                snapshot: vec![1, 2, 3],
                key: Some(b"secret".to_vec()),
                settings: Settings::default(),
                capabilities: vec![],
            })),
            Command::Reply(HostReply::Return(3.into())),
            Command::Reply(HostReply::Throw(error())),
            Command::Reply(HostReply::Defer),
            Command::Answer {
                id: 12,
                result: Ok("x".into()),
            },
            Command::Answer {
                id: 9_007_199_254_740_992,
                result: Err(HostError::new("boom")),
            },
            Command::Answers(vec![
                (3, Ok(HostValue::object([("total", 12.into())]))),
                (1, Err(error())),
                (2, Ok(HostValue::Undefined)),
            ]),
            Command::Answers(vec![(9_007_199_254_740_992, Err(HostError::new("late")))]),
            Command::Dump { key: None },
            Command::Close,
            Command::Interrupt,
        ]
    }

    fn events() -> Vec<Event> {
        let call = PendingCall {
            id: 3,
            capability: "tools.search".into(),
            args: vec!["kiln".into(), 2.into()],
        };
        let mut failure = Failure::new("OutOfFuel", "fuel budget exhausted");
        failure.location = Some(Box::new(Location {
            file: "agent.js".into(),
            line: 3,
            column: 9,
            source_line: "while (true) {}".into(),
        }));
        vec![
            Event::Call(call.clone()),
            Event::Console {
                level: ConsoleLevel::Warn,
                text: "careful".into(),
            },
            Event::Suspended {
                calls: vec![call.clone(), call],
            },
            Event::Complete(HostValue::object([("b", 1.into()), ("a", 2.into())])),
            Event::Failed(failure.clone()),
            Event::Dumped(Ok(vec![9; 40])),
            Event::Dumped(Err(failure)),
            Event::Closed,
        ]
    }

    #[test]
    fn commands_survive_the_round_trip() {
        for c in commands() {
            let bytes = c.encode();
            assert_eq!(Command::decode(&bytes).unwrap(), c);
            for end in 0..bytes.len() {
                assert!(
                    Command::decode(&bytes[..end]).is_err(),
                    "{c:?} cut at {end}"
                );
            }
        }
    }

    #[test]
    fn events_survive_the_round_trip() {
        for e in events() {
            let bytes = e.encode();
            assert_eq!(Event::decode(&bytes).unwrap(), e);
            assert_eq!(Event::bytes_end_session(&bytes), e.ends_session());
            for end in 0..bytes.len() {
                assert!(Event::decode(&bytes[..end]).is_err(), "{e:?} cut at {end}");
            }
        }
    }

    /// The bytes of a batch whose answers are given as raw bytes after its count.
    fn answers_bytes(count: u32, body: &[u8]) -> Vec<u8> {
        let mut bytes = vec![ANSWERS];
        bytes.extend_from_slice(&count.to_le_bytes());
        bytes.extend_from_slice(body);
        bytes
    }

    #[test]
    fn malformed_batches_of_answers_are_errors() {
        let one = Command::Answers(vec![(7, Ok(1.into()))]).encode();
        let answer = &one[5..];
        let cases: [(Vec<u8>, &str); 5] = [
            (answers_bytes(0, &[]), "a batch of no answers"),
            (answers_bytes(2, answer), "the input ends too early"),
            (
                answers_bytes(u32::MAX, answer),
                "a count larger than the input",
            ),
            (
                answers_bytes(1, &[answer[..8].to_vec(), vec![9]].concat()),
                "an unknown answer kind",
            ),
            (
                answers_bytes(1, &[&(-1.0f64).to_le_bytes()[..], &answer[8..]].concat()),
                "a call id that is not a whole number",
            ),
        ];
        for (bytes, message) in cases {
            assert_eq!(Command::decode(&bytes).unwrap_err().message, message);
        }
        let mut trailing = one.clone();
        trailing.push(0);
        assert_eq!(
            Command::decode(&trailing).unwrap_err().message,
            "unexpected bytes after the end"
        );
    }

    #[test]
    fn garbage_in_a_batch_of_answers_is_an_error_or_a_batch_never_a_panic() {
        let batch = Command::Answers(vec![
            (
                3,
                Ok(HostValue::object([(
                    "xs",
                    HostValue::Array(vec![1.into(), "two".into()]),
                )])),
            ),
            (1, Err(error())),
        ])
        .encode();
        // every byte after the tag, set to each of a few values that mean something to
        // the reader (markers, kinds, small and huge lengths); changes inside strings and
        // numbers still read as a batch
        for at in 1..batch.len() {
            for byte in [0, 1, 2, 3, 7, 0x7f, 0x80, 0xfe, 0xff] {
                let mut bytes = batch.clone();
                bytes[at] = byte;
                if let Ok(command) = Command::decode(&bytes) {
                    assert!(matches!(command, Command::Answers(_)), "{command:?}");
                }
            }
        }
    }

    #[test]
    fn a_limit_must_be_a_whole_number() {
        let mut bytes = Command::Start(Box::new(Start {
            source: String::new(),
            filename: "a.js".into(),
            settings: Settings::default(),
            capabilities: vec![],
            inputs: vec![],
        }))
        .encode();
        // the fuel limit follows the tag and two empty strings
        bytes[9..17].copy_from_slice(&0.5f64.to_le_bytes());
        assert_eq!(
            Command::decode(&bytes).unwrap_err().message,
            "a limit that is not a whole number from 0 to 2^53"
        );
    }

    #[test]
    fn defaults_fill_in_missing_limits() {
        let engine = Limits::default().to_engine();
        assert_eq!(engine.fuel, Some(defaults::FUEL));
        assert_eq!(engine.max_heap_bytes as u64, defaults::HEAP_BYTES);
        assert_eq!(engine.max_frames as u64, defaults::CALL_DEPTH);
        assert!(engine.call_depth_terminates);
        let set = settings().limits.to_engine();
        assert_eq!(set.fuel, Some(1_000_000));
        assert_eq!(set.max_frames, 256);
        assert_eq!(set.compute_time, Some(std::time::Duration::ZERO));
    }
}
