//! The typed error every operation returns.

use std::fmt;

/// What kind of failure an operation hit. Mirrors the WIT `error-kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No project was opened yet (only reachable through the component).
    NotOpen,
    /// Unusable options: empty project path, offset out of range, zero cap.
    InvalidOptions,
    /// A target or source word that is not one of the exact seed words.
    InvalidTarget,
    /// A write mode that is not exactly `append` or `overwrite`, or a search
    /// mode that is not exactly `ranked` or `literal`.
    InvalidMode,
    /// A note was asked for without a name.
    MissingName,
    /// A note name that breaks the naming rule.
    InvalidName,
    /// A daily name that is not a real `YYYY-MM-DD` date.
    InvalidDate,
    /// Malformed tool-call arguments or an unusable heading.
    InvalidArguments,
    /// A tool name other than the three memory tools.
    UnknownTool,
    /// The named note does not exist.
    NotFound,
    /// A memory path exists but is not a regular file.
    NotAFile,
    /// The store's write lock stayed taken for too long.
    Busy,
    /// The filesystem refused an operation.
    Io,
}

impl ErrorKind {
    /// The WIT spelling of the kind, e.g. `invalid-name`.
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

    /// An I/O failure while doing `op` on the store-relative `path`.
    pub fn io(op: &str, path: &str, err: &std::io::Error) -> Self {
        let kind = match err.kind() {
            std::io::ErrorKind::IsADirectory | std::io::ErrorKind::NotADirectory => {
                ErrorKind::NotAFile
            }
            _ => ErrorKind::Io,
        };
        Error::new(kind, format!("failed to {op} `{path}`: {err}"))
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
