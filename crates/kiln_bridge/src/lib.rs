//! What Kiln's language bindings share, so that Node and Python hosts get one sandbox
//! with the same behaviour.
//!
//! A host opens a [`Session`] per execution, sends it [`Command`]s and receives
//! [`Event`]s (as bytes, through a callback, on another thread). The guest runs on one of
//! this process's worker threads ([`Isolation::Thread`]) or in a pool of `kiln-worker`
//! processes ([`Isolation::Process`]); the conversation is the same. Values and messages
//! cross as the bytes of [`codec`] and [`protocol`], which the JavaScript side of the
//! Node package reads and writes too. The packages' in-process executions run the
//! guest on the host's own thread instead ([`local`]), with the same commands and
//! events as values.
//!
//! ```
//! use kiln_bridge::protocol::{Capability, Command, Event, Mode, Settings, Start};
//! use kiln_bridge::{Isolation, Session};
//! use std::sync::mpsc::channel;
//!
//! let (events, received) = channel();
//! let sink = std::sync::Arc::new(move |bytes: Vec<u8>| {
//!     let _ = events.send(Event::decode(&bytes).unwrap());
//! });
//! let session = Session::open(&Isolation::Thread, sink).unwrap();
//! session.send(Command::Start(Box::new(Start {
//!     source: "const [a, b] = await Promise.all([tools.get('a'), tools.get('b')]); a + b".into(),
//!     filename: "agent.js".into(),
//!     settings: Settings::default(),
//!     capabilities: vec![Capability { name: "tools.get".into(), mode: Mode::Async }],
//!     inputs: vec![],
//! }))).unwrap();
//! let Event::Suspended { calls } = received.recv().unwrap() else { panic!() };
//! assert_eq!(calls.len(), 2);
//! for call in &calls {
//!     session.send(Command::Answer { id: call.id, result: Ok(call.args[0].clone()) }).unwrap();
//! }
//! // answers that arrive together are applied together: one event or two may follow
//! let mut event = received.recv().unwrap();
//! if event == (Event::Suspended { calls: vec![] }) {
//!     event = received.recv().unwrap();
//! }
//! assert_eq!(event, Event::Complete("ab".into()));
//! ```

pub mod codec;
pub mod coroutine;
pub mod local;
mod process;
pub mod protocol;
pub mod script_cache;
#[cfg(unix)]
mod serve;
mod session;
mod worker;

#[cfg(not(unix))]
pub use process::serve as serve_worker_process;
pub use protocol::{Command, Event};
#[cfg(unix)]
pub use serve::serve as serve_worker_process;
pub use session::{Isolation, SendError, Session};
pub use worker::{Sink, prepare, restore};

/// The id of the snapshot in `bytes`, after checking its envelope (format, version,
/// checksum or, with `key`, its authentication): what a host records so that each
/// snapshot resumes once.
pub fn snapshot_id(bytes: &[u8], key: Option<&[u8]>) -> Result<String, protocol::Failure> {
    kiln::snapshot::Snapshot::open(bytes, key)
        .map(|s| s.id().to_string())
        .map_err(|e| protocol::Failure::from_snapshot_error(&e))
}
