//! Every size, time and count the store works within, in one place: the
//! WIT `limits` record. The first five can be set by the host when it opens
//! a memory ([`Limits`]); the rest are part of the contract.

use std::time::Duration;

use crate::error::{Error, ErrorKind, Result};

/// Default hard cap on the context block, wrapper included.
pub const MAX_INJECT_BYTES: usize = 32 * 1024;
/// Default per-write content cap.
pub const MAX_WRITE_BYTES: usize = 64 * 1024;
/// Default cap on text returned by `read` and on rendered search.
pub const MAX_READ_BYTES: usize = 32 * 1024;
/// Smallest accepted inject or read cap: room for every heading and marker.
pub const MIN_OUTPUT_CAP: usize = 512;
/// Lines of `MEMORY.md` the context block shows: it is an index.
pub const INDEX_MAX_LINES: usize = 200;
/// Bytes of `MEMORY.md` the context block shows.
pub const INDEX_MAX_BYTES: usize = 25_000;
/// Bytes of one file that search looks at; the rest of a larger file is not
/// searched.
pub const MAX_SEARCH_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Largest `MEMORY.md` or scratchpad kept as `.bak` before an overwrite;
/// copying an unbounded file on every overwrite would make writes as slow
/// as the file is large.
pub const MAX_BACKUP_BYTES: u64 = 16 * 1024 * 1024;
/// Most distinct terms a search query may have. Each term costs a pass over
/// every file, so an unbounded query could make one search run for minutes.
pub const MAX_QUERY_TERMS: usize = 64;
/// Files up to this size are appended to by replacing them whole (old + new
/// content), so a crash mid-append leaves the file as before or as after and
/// a concurrent reader never sees half an entry. Larger files are appended
/// to in place (and cut back to their old length when the write fails), so
/// an append to them costs what it adds, not what the file holds; a reader
/// may see their last entry while it is being written.
pub const WHOLE_FILE_APPEND_MAX_BYTES: u64 = 1024 * 1024;
/// Default lease of the write lock: an older lock counts as abandoned.
pub const LOCK_LEASE: Duration = Duration::from_secs(10);
/// Shortest lease a host may set: below it a slow but live writer would lose
/// its lock to the next one.
pub const MIN_LOCK_LEASE: Duration = Duration::from_secs(1);
/// Default time a writer waits for a live lock before `busy`.
pub const LOCK_WAIT: Duration = Duration::from_secs(15);

/// The limits a host may set; see the `Default` impl for the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Hard cap on the context block, wrapper included.
    pub max_inject_bytes: usize,
    /// Per-write content cap.
    pub max_write_bytes: usize,
    /// Cap on read output and the default search render.
    pub max_read_bytes: usize,
    /// A lock older than this is broken.
    pub lock_lease: Duration,
    /// How long a writer waits for a live lock.
    pub lock_wait: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_inject_bytes: MAX_INJECT_BYTES,
            max_write_bytes: MAX_WRITE_BYTES,
            max_read_bytes: MAX_READ_BYTES,
            lock_lease: LOCK_LEASE,
            lock_wait: LOCK_WAIT,
        }
    }
}

impl Limits {
    /// Check every settable limit is in range.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidOptions`] naming the limit and its minimum.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: &str, v: String, min: String| {
            Err(Error::new(
                ErrorKind::InvalidOptions,
                format!("{what} is {v}; it must be at least {min}"),
            ))
        };
        if self.max_inject_bytes < MIN_OUTPUT_CAP {
            let v = self.max_inject_bytes.to_string();
            return bad("max-inject-bytes", v, MIN_OUTPUT_CAP.to_string());
        }
        if self.max_read_bytes < MIN_OUTPUT_CAP {
            let v = self.max_read_bytes.to_string();
            return bad("max-read-bytes", v, MIN_OUTPUT_CAP.to_string());
        }
        if self.max_write_bytes == 0 {
            return bad("max-write-bytes", "0".into(), "1".into());
        }
        if self.lock_lease < MIN_LOCK_LEASE {
            let ms = |d: Duration| format!("{} ms", d.as_millis());
            return bad("lock-lease-ms", ms(self.lock_lease), ms(MIN_LOCK_LEASE));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_limits_name_the_limit() {
        let cases = [
            (
                Limits {
                    max_inject_bytes: 511,
                    ..Limits::default()
                },
                "max-inject-bytes is 511; it must be at least 512",
            ),
            (
                Limits {
                    max_write_bytes: 0,
                    ..Limits::default()
                },
                "max-write-bytes is 0; it must be at least 1",
            ),
            (
                Limits {
                    lock_lease: Duration::from_millis(999),
                    ..Limits::default()
                },
                "lock-lease-ms is 999 ms; it must be at least 1000 ms",
            ),
        ];
        for (limits, message) in cases {
            let err = limits.validate().unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidOptions);
            assert_eq!(err.message(), message);
        }
        Limits::default().validate().unwrap();
    }
}
