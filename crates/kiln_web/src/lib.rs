//! The WHATWG web platform a JavaScript HTTP handler needs, over Kiln's embedding API:
//! `Request`, `Response`, `Headers`, `URL`, `URLSearchParams`, `TextEncoder`/`TextDecoder`,
//! `atob`/`btoa`, `structuredClone`, `crypto.getRandomValues`/`randomUUID`, `console`,
//! `setTimeout`/`setInterval` and `fetch`, plus the glue that serves a handler module in
//! the Workers form (`export default { fetch(request, env, ctx) }`).
//!
//! The classes are JavaScript (the module [`MODULE`], source [`SOURCE`], evaluated once per
//! runtime); what needs Rust — URL parsing (the `url` crate), UTF-8 and base64 coding,
//! randomness — is a synchronous host function. Timers and `fetch` are asynchronous host
//! capabilities: the guest suspends on them and the embedder answers each
//! [`kiln::PendingCall`] it reads with [`WebCall::parse`] (the guest never opens a socket).
//!
//! ```
//! use kiln::Runtime;
//! use kiln_web::{IncomingRequest, MemoryLoader, WebLoader, WebOptions};
//!
//! let mut rt = Runtime::new();
//! let web = kiln_web::install(&mut rt, WebOptions::default());
//! let handler = "export default {
//!     fetch(request) { return Response.json({ path: new URL(request.url).pathname }) }
//! }";
//! let files = MemoryLoader::new([("handler.js", handler)]);
//! rt.set_module_loader(Box::new(WebLoader::new("handler.js", files)));
//! rt.run_module(kiln_web::ENTRY, "").unwrap();
//! let request = IncomingRequest {
//!     method: "GET".into(),
//!     url: "http://localhost/hello".into(),
//!     headers: vec![],
//!     body: vec![],
//! };
//! web.dispatch(&mut rt, request).unwrap();
//! let response = web.take_response().unwrap();
//! assert_eq!(response.status, 200);
//! assert_eq!(response.body, br#"{"path":"/hello"}"#);
//! ```

mod codec;
mod handler;
mod host;
mod loader;

pub use codec::{latin1_bytes, latin1_string};
pub use handler::{HandlerResponse, HeaderList, IncomingRequest, Web};
pub use host::{
    ConsoleSink, FetchRequest, FetchResponse, WebCall, WebOptions, install, network_error,
};
pub use loader::{MemoryLoader, WebLoader};

/// The key of the web platform's module.
pub const MODULE: &str = "kiln:web";

/// The key of the entry module [`WebLoader`] generates: it imports the web platform and the
/// handler module, checks the handler's shape and installs the dispatcher.
pub const ENTRY: &str = "kiln:entry";

/// The web platform's JavaScript, one ES module.
pub const SOURCE: &str = concat!(
    include_str!("js/base.js"),
    include_str!("js/headers.js"),
    include_str!("js/url.js"),
    include_str!("js/encoding.js"),
    include_str!("js/body.js"),
    include_str!("js/global.js"),
    include_str!("js/serve.js"),
);
