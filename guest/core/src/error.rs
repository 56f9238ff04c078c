//! The typed error every operation returns.

use std::fmt;

pub use agent_memory_vocab::ErrorKind;
pub(crate) use agent_memory_vocab::{os_advice, os_cause};

/// A failed operation: a matchable kind and a message naming the offending
/// value or store-relative path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error of `kind` with a human-readable `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// An I/O failure while doing `op` on the store-relative `path`, its
    /// cause in words ([`os_cause`]: `the disk is full`, `I/O error`,
    /// `read-only file system`, `permission denied`), never an OS error
    /// number, and what to do when there is something. A writer that lost
    /// the store's lock gets [`ErrorKind::Busy`].
    pub fn io(op: &str, path: &str, err: &std::io::Error) -> Self {
        if is_lock_lost(err) {
            return Error::new(
                ErrorKind::Busy,
                format!("failed to {op} `{path}`: {err}; nothing was changed, try again"),
            );
        }
        let kind = match err.kind() {
            std::io::ErrorKind::IsADirectory | std::io::ErrorKind::NotADirectory => {
                ErrorKind::NotAFile
            }
            _ => ErrorKind::Io,
        };
        let cause = os_cause(err);
        let message = match os_advice(err) {
            Some(advice) => format!("failed to {op} `{path}`: {cause}; {advice}"),
            None => format!("failed to {op} `{path}`: {cause}"),
        };
        Error::new(kind, message)
    }

    /// The same error with `what` (the part of a request that failed, e.g.
    /// `change 2 (memory_edit)`) before its message.
    pub(crate) fn within(self, what: &str) -> Self {
        Error {
            kind: self.kind,
            message: format!("{what}: {}", self.message),
        }
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The human-readable message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Result alias for memory operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The store's lock was broken by another writer while this one held it (its
/// lease ran out, e.g. while the process was suspended): nothing may be
/// changed any more. Travels inside an [`std::io::Error`] of kind `Other`.
#[derive(Debug)]
pub struct LockLost;

impl std::fmt::Display for LockLost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the write lock was lost: another writer broke it after its lease ran out")
    }
}

impl std::error::Error for LockLost {}

/// Is `error` a [`LockLost`]?
pub(crate) fn is_lock_lost(error: &std::io::Error) -> bool {
    error.get_ref().is_some_and(|inner| inner.is::<LockLost>())
}
