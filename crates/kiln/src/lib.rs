//! Kiln: a JavaScript engine.
//!
//! ```
//! let mut runtime = kiln::Runtime::new();
//! let value = runtime.eval("[1, 2, 3].map(x => x * 2).join()").unwrap();
//! assert_eq!(value, "2,4,6");
//! ```

pub mod builtins;
mod compiled;
pub mod heap;
pub mod host;
mod inspect;
pub mod interpreter;
pub mod object;
pub mod realm;
mod runtime;
pub mod snapshot;
pub mod value;

pub use builtins::shared_memory::SharedBlock;
pub use compiled::{CompiledModule, CompiledScript};
pub use host::{CallId, CallReporting, ConsoleLevel, HostError, HostReply, HostValue, PendingCall};
pub use inspect::inspect_value as inspect;
pub use interpreter::Limits;
pub use interpreter::module::ModuleLoader;
pub use interpreter::{Args, Vm};
pub use kiln_bytecode::{Script, ScriptKind, ValidScript};
pub use kiln_compiler::{CompileError, compile};
pub use runtime::{
    ErrorKind, ErrorReport, InterruptHandle, Options, Outcome, Runtime, SourceLocation,
};
pub use value::Value;

/// Marks that a JavaScript exception is pending: its value is in
/// [`Vm::exception`] (take it with [`Vm::take_exception`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thrown;

/// The result of anything that may throw a JavaScript exception.
pub type JsResult<T> = Result<T, Thrown>;

/// The longest string Kiln builds, in UTF-16 code units (2^30 - 25, as V8).
pub const MAX_STRING_LENGTH: u32 = (1 << 30) - 25;
