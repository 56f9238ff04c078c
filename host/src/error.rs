//! Errors: what the memory refused ([`MemoryError`]), apart from the component
//! trapping and from failures to set the runtime up.

use std::fmt;
use std::time::Duration;

use crate::bindings::wit;

/// Boxed source of a setup failure.
type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can go wrong when loading the component or using a memory.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The memory refused the operation (bad input, a missing note, the
    /// filesystem said no). The component is fine and the next call proceeds
    /// as usual.
    #[error(transparent)]
    Memory(#[from] MemoryError),

    /// The component trapped (a bug in it, or it ran out of resources). The
    /// instance is dropped; the next call on the same [`Memory`](crate::Memory)
    /// transparently starts a fresh one with the same options.
    #[error("the memory component trapped: {operation}: {message}")]
    Trap {
        /// The WIT function that was running, e.g. `call-tool`.
        operation: &'static str,
        /// What trapped (e.g. ``wasm trap: wasm `unreachable` instruction
        /// executed``), then the wasm backtrace on the following lines when
        /// there is one.
        message: String,
    },

    /// A resource limit of the host stopped the component: it tried to grow
    /// its memory past [`OpenOptions::max_memory_bytes`](crate::OpenOptions::max_memory_bytes),
    /// or a call ran longer than [`OpenOptions::call_timeout`](crate::OpenOptions::call_timeout).
    /// As after a trap, the instance is dropped and the next call on the
    /// same [`Memory`](crate::Memory) starts a fresh one. A write stopped
    /// this way leaves each file as before or as after (files are replaced
    /// atomically), but may leave the store's lock file behind, which other
    /// writers break once its 10 s lease runs out.
    #[error("the memory component hit its {limit}: {operation}")]
    Limit {
        /// The WIT function that was running, e.g. `search`, or
        /// `instantiate` when even starting an instance was too much.
        operation: &'static str,
        /// Which limit, with its value.
        limit: Limit,
    },

    /// The engine, the component or the memory root could not be set up.
    /// The message names the step and the path involved.
    #[error("{message}")]
    Setup {
        /// What failed, naming the path involved, e.g.
        /// ``cannot create the memory root `/x` ``.
        message: String,
        /// The underlying failure.
        #[source]
        source: Option<BoxError>,
    },
}

impl Error {
    /// The kind of a [`Error::Memory`] error; `None` for traps, limits and
    /// setup failures.
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            Error::Memory(error) => Some(error.kind()),
            _ => None,
        }
    }

    /// The limit that stopped the call, for [`Error::Limit`]; `None`
    /// otherwise.
    pub fn limit(&self) -> Option<Limit> {
        match self {
            Error::Limit { limit, .. } => Some(*limit),
            _ => None,
        }
    }

    pub(crate) fn setup(message: impl Into<String>, source: impl Into<BoxError>) -> Self {
        Error::Setup {
            message: message.into(),
            source: Some(source.into()),
        }
    }

    pub(crate) fn setup_wasmtime(message: impl Into<String>, source: wasmtime::Error) -> Self {
        // `wasmtime::Error` is not `std::error::Error`; its boxed form is.
        let source: BoxError = source.into();
        Error::Setup {
            message: message.into(),
            source: Some(source),
        }
    }

    pub(crate) fn trap(operation: &'static str, error: wasmtime::Error) -> Self {
        // The cause (`wasm trap: …`) first, then wasmtime's context, which
        // holds the wasm backtrace.
        let cause = error.root_cause().to_string();
        let context = error.to_string();
        let message = if context == cause {
            cause
        } else {
            format!("{cause}\n{}", context.trim_end())
        };
        Error::Trap { operation, message }
    }
}

/// A resource limit the host puts on each instance of the component; see
/// [`Error::Limit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// The component's linear memory may not grow past this many bytes
    /// ([`OpenOptions::max_memory_bytes`](crate::OpenOptions::max_memory_bytes)).
    Memory {
        /// The cap in force.
        max_bytes: usize,
    },
    /// One call may run at most this long
    /// ([`OpenOptions::call_timeout`](crate::OpenOptions::call_timeout)).
    Time {
        /// The timeout in force.
        timeout: Duration,
    },
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Memory { max_bytes } => write!(f, "memory limit of {max_bytes} bytes"),
            Limit::Time { timeout } => write!(f, "time limit of {timeout:?} per call"),
        }
    }
}

/// An error the memory component returned: a matchable [`ErrorKind`] and a
/// message for people (it names the offending value or store-relative path;
/// do not parse it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryError {
    kind: ErrorKind,
    message: String,
}

impl MemoryError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The human-readable message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MemoryError {}

impl From<wit::Error> for MemoryError {
    fn from(error: wit::Error) -> Self {
        MemoryError {
            kind: error.kind.into(),
            message: error.message,
        }
    }
}

/// The kind of a [`MemoryError`], mirroring the WIT `error-kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The instance was not opened (cannot happen through [`Memory`](crate::Memory),
    /// which always opens first).
    NotOpen,
    /// Unusable open options: empty project path, UTC offset out of
    /// range, a cap of zero.
    InvalidOptions,
    /// A write target or read source that is not one of the exact words.
    InvalidTarget,
    /// A write mode that is not exactly `append` or `overwrite`.
    InvalidMode,
    /// A note was asked for without a name.
    MissingName,
    /// A note name that breaks the naming rule.
    InvalidName,
    /// A daily-log name that is not a real `YYYY-MM-DD` date.
    InvalidDate,
    /// Tool-call arguments that are not a JSON object of the right shape, or
    /// an `append-daily` heading that is empty or spans lines.
    InvalidArguments,
    /// A tool name other than the three memory tools.
    UnknownTool,
    /// The named note does not exist.
    NotFound,
    /// A memory file exists but is not a regular file.
    NotAFile,
    /// Another process held the store's write lock too long.
    Busy,
    /// The filesystem refused an operation.
    Io,
}

impl ErrorKind {
    /// The WIT spelling of the kind, e.g. `invalid-name`: what the Python and
    /// Node hosts and the MCP server report.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NotOpen => "not-open",
            ErrorKind::InvalidOptions => "invalid-options",
            ErrorKind::InvalidTarget => "invalid-target",
            ErrorKind::InvalidMode => "invalid-mode",
            ErrorKind::MissingName => "missing-name",
            ErrorKind::InvalidName => "invalid-name",
            ErrorKind::InvalidDate => "invalid-date",
            ErrorKind::InvalidArguments => "invalid-arguments",
            ErrorKind::UnknownTool => "unknown-tool",
            ErrorKind::NotFound => "not-found",
            ErrorKind::NotAFile => "not-a-file",
            ErrorKind::Busy => "busy",
            ErrorKind::Io => "io",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<wit::ErrorKind> for ErrorKind {
    fn from(kind: wit::ErrorKind) -> Self {
        match kind {
            wit::ErrorKind::NotOpen => ErrorKind::NotOpen,
            wit::ErrorKind::InvalidOptions => ErrorKind::InvalidOptions,
            wit::ErrorKind::InvalidTarget => ErrorKind::InvalidTarget,
            wit::ErrorKind::InvalidMode => ErrorKind::InvalidMode,
            wit::ErrorKind::MissingName => ErrorKind::MissingName,
            wit::ErrorKind::InvalidName => ErrorKind::InvalidName,
            wit::ErrorKind::InvalidDate => ErrorKind::InvalidDate,
            wit::ErrorKind::InvalidArguments => ErrorKind::InvalidArguments,
            wit::ErrorKind::UnknownTool => ErrorKind::UnknownTool,
            wit::ErrorKind::NotFound => ErrorKind::NotFound,
            wit::ErrorKind::NotAFile => ErrorKind::NotAFile,
            wit::ErrorKind::Busy => ErrorKind::Busy,
            wit::ErrorKind::Io => ErrorKind::Io,
        }
    }
}
