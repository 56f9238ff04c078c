//! The anchors side file, `.store/anchors/<project-slug>.json`: a cache that
//! may be lost. Reading it never fails (missing, oversized, corrupt or from
//! another version: no anchors); it is replaced atomically under the store's
//! lock, without a sync: losing it to a power cut only loses marks.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::fsio::Stamp;

/// The folder of side data under the root: never listed, searched or
/// injected (its name starts with a dot, and only `MEMORY.md` is taken
/// from the root).
pub const SIDE_DIR: &str = ".store";
/// The folder of anchors files, store-relative.
pub const ANCHORS_DIR: &str = ".store/anchors";
/// The format written; a file of any other version is ignored.
pub(crate) const VERSION: u32 = 1;
/// Largest anchors file read; a larger one counts as corrupt.
pub const MAX_SIDE_BYTES: u64 = 4 * 1024 * 1024;

/// The last anchors file parsed and its text, shared by clones of a
/// memory.
#[derive(Debug, Clone, Default)]
pub struct SideCache(pub(crate) Arc<Mutex<Option<Parsed>>>);

/// A file's text and what it parsed to.
type Parsed = (String, Arc<Side>);

/// All anchors of one project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Side {
    pub(crate) version: u32,
    /// By store-relative path of the memory file that mentions them.
    pub(crate) files: BTreeMap<String, Entry>,
}

/// The anchors of one memory file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Entry {
    /// The memory file's own size and mtime when it was anchored: when they
    /// differ (it was changed outside the store, or another project wrote
    /// the shared MEMORY.md), only anchors it still mentions count.
    pub(crate) size: u64,
    pub(crate) mtime_ns: i64,
    pub(crate) anchors: Vec<Anchor>,
}

/// One anchored project file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Anchor {
    /// Project-relative path.
    pub(crate) path: String,
    /// Lowercase hex SHA-256; `None` for a file anchored by size and mtime
    /// only (over the size cap, or past the write's hashing budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sha256: Option<String>,
    /// Size and mtime of the content hashed, or last seen with that hash.
    pub(crate) size: u64,
    pub(crate) mtime_ns: i64,
    /// The local date it was anchored, `YYYY-MM-DD`.
    pub(crate) date: String,
    /// Size and mtime at which the content was found to differ: the same
    /// stamp again is reported changed without hashing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) changed: Option<(u64, i64)>,
}

impl Anchor {
    pub(crate) fn stamp(&self) -> Stamp {
        Stamp {
            len: self.size,
            mtime_ns: self.mtime_ns,
        }
    }
}

impl Side {
    /// Drop what a tampered or foreign file could hold: paths that leave
    /// the project, anchors of files outside the anchored set, bad dates.
    pub(crate) fn sanitized(mut self, anchored: impl Fn(&str) -> bool) -> Side {
        // Paths are checked where they are used (`Project` refuses one that
        // leaves the project, and a check never marks it); what is only
        // shown is checked here.
        self.files.retain(|key, entry| {
            entry.anchors.retain(|a| is_date(&a.date));
            anchored(key) && !entry.anchors.is_empty()
        });
        self
    }
}

/// Is `s` shaped `YYYY-MM-DD`? Enough to keep a tampered date from
/// carrying text into a mark.
fn is_date(s: &str) -> bool {
    s.len() == 10
        && s.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        })
}
