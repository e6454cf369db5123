//! The native half of the `kiln-sandbox` npm package: a session handle over
//! `kiln_bridge`. Everything else (values, messages, the API) is JavaScript in `lib/`;
//! commands and events cross as bytes, so this file only moves buffers.

use kiln_bridge::{Command, Isolation, Session};
use napi::bindgen_prelude::{Buffer, Function};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Error, Result, Status};
use napi_derive::napi;
use std::path::PathBuf;
use std::sync::Arc;

/// Calls the session's event handler on node's thread; weak, so a session never keeps
/// node alive by itself (the package holds the event loop while a step is running).
type EventHandler = ThreadsafeFunction<Buffer, (), Buffer, Status, false, true>;

/// One execution's session, on a worker thread or in a worker process.
#[napi]
pub struct NativeSession {
    session: Option<Session>,
}

#[napi]
impl NativeSession {
    /// Opens a session: in-process when `worker` is absent, else in a pool of
    /// `kiln-worker` processes at that path. `onEvent` receives each encoded event.
    #[napi(constructor)]
    pub fn new(worker: Option<String>, on_event: Function<Buffer, ()>) -> Result<Self> {
        let handler: EventHandler = on_event
            .build_threadsafe_function()
            .weak::<true>()
            .callee_handled::<false>()
            .build()?;
        let sink = Arc::new(move |bytes: Vec<u8>| {
            handler.call(bytes.into(), ThreadsafeFunctionCallMode::NonBlocking);
        });
        let isolation = match worker {
            Some(path) => Isolation::Process {
                worker: PathBuf::from(path),
            },
            None => Isolation::Thread,
        };
        let session = Session::open(&isolation, sink)
            .map_err(|e| Error::new(Status::GenericFailure, e.to_string()))?;
        Ok(NativeSession {
            session: Some(session),
        })
    }

    /// Sends one encoded command.
    #[napi]
    pub fn send(&self, command: Buffer) -> Result<()> {
        let command = Command::decode(&command)
            .map_err(|e| Error::new(Status::InvalidArg, format!("a malformed command: {e}")))?;
        let session = self
            .session
            .as_ref()
            .ok_or_else(|| Error::new(Status::GenericFailure, "the session is closed"))?;
        session
            .send(command)
            .map_err(|e| Error::new(Status::GenericFailure, e.to_string()))
    }

    /// Stops the running guest, even one in an endless loop.
    #[napi]
    pub fn interrupt(&self) {
        if let Some(session) = &self.session {
            session.interrupt();
        }
    }

    /// Ends the session and frees its runtime.
    #[napi]
    pub fn close(&mut self) {
        self.session = None;
    }
}

/// The id of the snapshot in `bytes` after checking its envelope (and, with `key`,
/// its authentication); throws with the snapshot error's message.
#[napi]
pub fn snapshot_id(bytes: Buffer, key: Option<Buffer>) -> Result<String> {
    kiln_bridge::snapshot_id(&bytes, key.as_deref())
        .map_err(|f| Error::new(Status::InvalidArg, f.message))
}
