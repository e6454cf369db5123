//! The native half of the `kiln-sandbox` npm package: sessions on node's own thread
//! ([`local`]) and session handles over `kiln_bridge` for worker processes. Everything
//! else (values, messages, the API) is JavaScript in `lib/`; commands and events cross
//! as bytes, so this crate only moves buffers and steps the guest.
//!
//! Events of every session reach node through one dispatcher (a thread-safe function
//! registered once by `listen`) as `(session id, bytes)`: one libuv handle in all, not
//! one per session, so starting a session costs no handle and waking node costs the
//! same however many sessions exist.

mod local;

/// Exported to JavaScript by `#[napi]`; named here so that builds without the N-API
/// registration (the crate's tests) see it used.
pub use local::housekeep;

use kiln_bridge::{Isolation, Session};
use napi::bindgen_prelude::{Buffer, BufferSlice, FnArgs, Function};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Error, Result, Status};
use napi_derive::napi;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// Calls the package's event dispatcher on node's thread. Weak: it never keeps node
/// alive by itself (the package holds the event loop while a step is running).
type Dispatcher =
    ThreadsafeFunction<FnArgs<(u32, Buffer)>, (), FnArgs<(u32, Buffer)>, Status, false, true>;

static DISPATCHER: Mutex<Option<Arc<Dispatcher>>> = Mutex::new(None);

/// Registers the function that receives every session's events as `(id, bytes)`.
#[napi]
pub fn listen(dispatch: Function<FnArgs<(u32, Buffer)>, ()>) -> Result<()> {
    let dispatcher: Dispatcher = dispatch
        .build_threadsafe_function()
        .weak::<true>()
        .callee_handled::<false>()
        .build()?;
    *DISPATCHER.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(dispatcher));
    Ok(())
}

/// One execution's session, on a worker thread or in a worker process.
#[napi]
pub struct NativeSession {
    id: u32,
    session: Option<Session>,
}

#[napi]
impl NativeSession {
    /// Opens a session: in-process when `worker` is absent, else in a pool of
    /// `kiln-worker` processes at that path. Its events go to the `listen` dispatcher.
    #[napi(constructor)]
    pub fn new(worker: Option<String>) -> Result<Self> {
        static IDS: AtomicU32 = AtomicU32::new(1);
        let id = IDS.fetch_add(1, Ordering::Relaxed);
        let dispatcher = DISPATCHER
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| Error::new(Status::GenericFailure, "listen() was not called"))?;
        let sink = Arc::new(move |bytes: Vec<u8>| {
            dispatcher.call(
                (id, Buffer::from(bytes)).into(),
                ThreadsafeFunctionCallMode::NonBlocking,
            );
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
            id,
            session: Some(session),
        })
    }

    /// The id its events carry.
    #[napi(getter)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Sends one encoded command; a worker process is given the bytes as they are.
    #[napi]
    pub fn send(&self, command: BufferSlice) -> Result<()> {
        let session = self
            .session
            .as_ref()
            .ok_or_else(|| Error::new(Status::GenericFailure, "the session is closed"))?;
        session
            .send_encoded(&command)
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
