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
    other: Option<String>,
    message: String,
}

impl MemoryError {
    /// What kind of failure this is; [`ErrorKind::Other`] for a kind this
    /// crate does not know (see [`kind_name`](Self::kind_name)).
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The kind's kebab-case name, e.g. `invalid-name`; for
    /// [`ErrorKind::Other`] the name the component gave it.
    pub fn kind_name(&self) -> &str {
        self.other.as_deref().unwrap_or(self.kind.as_str())
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
        let (kind, other) = kind_of(error.kind);
        MemoryError {
            kind,
            other,
            message: error.message,
        }
    }
}

pub use agent_memory_vocab::ErrorKind;

/// The kind a WIT error carries, and its name when it is `other`.
pub(crate) fn kind_of(kind: wit::ErrorKind) -> (ErrorKind, Option<String>) {
    let known = match kind {
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
        wit::ErrorKind::Ambiguous => ErrorKind::Ambiguous,
        wit::ErrorKind::AlreadyExists => ErrorKind::AlreadyExists,
        wit::ErrorKind::SecretDetected => ErrorKind::SecretDetected,
        wit::ErrorKind::Conflict => ErrorKind::Conflict,
        wit::ErrorKind::NoTeamDir => ErrorKind::NoTeamDir,
        // A kind this contract version has no case for: known to a newer
        // vocabulary crate, or only by name.
        wit::ErrorKind::Other(name) => {
            let kind = ErrorKind::from_name(&name);
            return (kind, (kind == ErrorKind::Other).then_some(name));
        }
    };
    (known, None)
}
