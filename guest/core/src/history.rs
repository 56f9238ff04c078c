//! History: before the store changes a file it records what the file held,
//! so every change can be listed and undone.
//!
//! # Layout
//!
//! ```text
//! <root>/
//! ├── MEMORY.md
//! ├── projects/<slug>/…            the memory itself
//! └── .store/history/              hidden: never listed, searched or injected
//!     ├── journal                  one line per recorded version, oldest first
//!     └── objects/
//!         └── <64 hex>             a previous content, named by its SHA-256
//! ```
//!
//! The store itself only ever looks at `MEMORY.md` and `projects/<slug>/…`,
//! so nothing under `.store/` reaches a listing, a search or the context
//! block.
//!
//! # Journal
//!
//! Each line is `<checksum> <json>\n`, where the checksum is the first 8 hex
//! digits of the SHA-256 of the JSON text. A line whose checksum or JSON does
//! not hold (a torn last line after a crash, a corrupted byte) is skipped; a
//! writer that finds the journal not ending in `\n` starts with one, so a
//! torn line never swallows the next entry. The first line is a header
//! `{"format":"agent-memory-history","v":1,"gen":…,"next":…,"kept":…}`:
//! `gen` is random per rewrite (a reader that cached the journal sees that it
//! was replaced), `next` keeps version ids from being reused after pruning.
//! An entry:
//!
//! ```json
//! {"id":12,"t":1780125300,"off":120,"op":"write","path":"MEMORY.md",
//!  "size":1834,"sha":"<64 hex>","src":"claude-code/session-41"}
//! ```
//!
//! `size` and `sha` describe the content *before* the change; `size: null`
//! means the file did not exist. `to` (rename) names the other path.
//! `prefix: true` marks an append's entry, whose content has no object of
//! its own (see below). `purged: true` records a purge: the entry's content
//! had its secrets redacted in place (see below), so `sha` and `size` now
//! describe the redacted content.
//!
//! # Version ids
//!
//! `v<n>`, `n` a decimal sequence number over the whole root (`v1`, `v2`,
//! …), never reused while the journal exists. Deleting the journal by hand
//! starts the sequence again.
//!
//! # Crash safety
//!
//! An object is written to a temp file, synced, renamed into place and its
//! directory synced before the journal line naming it is appended (and that
//! line is synced before the file itself changes). Pruning first replaces the
//! journal atomically and only then deletes the objects no remaining entry
//! names. So at every instant each entry's object exists; what a crash can
//! leave is an unreferenced object or temp file, removed at the next prune.
//!
//! # Retention
//!
//! [`Retention`]: at most `max_versions_per_file` versions a file are
//! listed and restorable, and journal plus objects stay within
//! `max_total_bytes`, oldest pruned first. The byte bound is enforced on
//! every change: once over, the oldest entries are dropped until the total is
//! at most 15/16 of the budget (the slack keeps a full history from being
//! rewritten on every change). Entries beyond the per-file count are already
//! hidden and are removed from disk when the journal is next rewritten, which
//! happens when it has grown by a quarter (at least 64 entries) since the
//! last rewrite. A previous content larger than a quarter of the budget (or
//! 16 MiB) is not recorded: the change goes ahead with a warning.
//!
//! # Appends
//!
//! Saving a growing log whole before every append would cost the square of
//! its size. An append only ever adds bytes at the end, so the content before
//! it is a prefix of the content after it. An append's entry stores just the
//! length and SHA-256 of that prefix (of its last [`TAIL_HASH_BYTES`] when
//! the store did not read it whole: `tail` names how many, so an append to a
//! large file costs what it adds), and its content is read back from the
//! next full version of the same file (the next entry with an object) or,
//! when there is none, from the file as it is now, checked against the hash.
//! Every other change (overwrite, edit, delete, rename, restore) saves the
//! whole previous content, so the content an append's entry points into is
//! kept as long as the entry is. Undoing an append gives back the file
//! exactly as it was before it: the appended text is cut off. A hand edit of
//! the file outside the store that changes those first bytes leaves such
//! entries unreadable; they drop out of listings.
//!
//! # Purge
//!
//! A secret edited out of a file stays in the versions history saved.
//! [`History::purge`] (the CLI's `scan --purge`) redacts every secret in
//! every saved object as the write guard's `redact` does
//! (`[REDACTED:<rule-id>]`), under the store's write lock: the redacted
//! content is written as a new object (objects are named by their SHA-256),
//! the journal is replaced atomically with the entries pointing at it and
//! marked `purged` (ids, times, operations and paths unchanged), and then,
//! as after pruning, every object no entry names is deleted, so no byte of
//! the secret stays under `.store/`. An append's entry whose prefix no longer
//! reads back from the redacted version becomes a whole version with its
//! own redacted object (no longer `prefix`), so it stays restorable.
//! Neither live files nor names (paths) are changed.
//!
//! # Failures
//!
//! History never fails the change it records and never loses the change's
//! text: when recording fails (disk full, a journal that is not a file) the
//! change is made anyway and its receipt carries a warning. A corrupt journal
//! line or a missing object is skipped, and the entry is left out of
//! listings.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind, Result, os_cause};
use crate::fsio::{self, Kind, LockGuard};
use crate::time::{Clock, MAX_OFFSET_MINUTES};
use crate::words::{self, Act, Audience};

/// Where history lives, relative to the root.
pub const HISTORY_DIR: &str = ".store/history";
/// The hidden directory of the store's own data, relative to the root.
const STORE_DIR: &str = ".store";
const OBJECTS_DIR: &str = "objects";
const JOURNAL_FILE: &str = "journal";
const JOURNAL_FORMAT: &str = "agent-memory-history";
const JOURNAL_VERSION: u32 = 1;
/// Longest source label, in bytes.
pub const MAX_SOURCE_BYTES: usize = 128;
/// Largest previous content history saves, whatever the budget.
pub const MAX_VERSION_BYTES: u64 = 16 * 1024 * 1024;
/// Smallest accepted `max_total_bytes`.
pub const MIN_TOTAL_BYTES: u64 = 4096;
/// Largest accepted `max_versions_per_file`.
pub const MAX_VERSIONS_PER_FILE: u32 = 10_000;
/// The journal is rewritten when it has this many more entries than at its
/// last rewrite (or a quarter more, whichever is larger).
const COMPACT_MIN_GROWTH: usize = 64;
/// A journal larger than this was not written by the store; it is not read.
const MAX_JOURNAL_BYTES: u64 = 1 << 30;
/// Characters of a bad version id echoed in an error.
const MAX_ID_ECHO_CHARS: usize = 40;
/// Files whose newest version `last_change` tries before giving up.
const MAX_UNDO_FILES_TRIED: usize = 64;
/// Bytes at the end of an append's prefix that are hashed when the store
/// did not read the file whole (see the module docs).
pub const TAIL_HASH_BYTES: u64 = 64 * 1024;
/// Longest store-relative path an entry may name.
const MAX_PATH_BYTES: usize = 1024;

/// How much history is kept. The host's setting, never the model's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Versions listed and kept per file, newest first; 0 turns history off.
    pub max_versions_per_file: u32,
    /// Bytes of journal and saved content in all (at least 4096).
    pub max_total_bytes: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            max_versions_per_file: 50,
            max_total_bytes: 64 * 1024 * 1024,
        }
    }
}

impl Retention {
    /// No history: nothing is recorded (what was recorded before stays
    /// readable).
    pub const OFF: Retention = Retention {
        max_versions_per_file: 0,
        max_total_bytes: 0,
    };

    /// Is history turned off?
    pub fn is_off(&self) -> bool {
        self.max_versions_per_file == 0
    }

    /// Largest previous content that is saved; a larger one is not recorded.
    pub fn largest_version(&self) -> u64 {
        MAX_VERSION_BYTES.min(self.max_total_bytes / 4)
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if self.is_off() {
            return Ok(());
        }
        if self.max_versions_per_file > MAX_VERSIONS_PER_FILE {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!(
                    "history max-versions-per-file is {}; it must be at most {MAX_VERSIONS_PER_FILE} (0 turns history off)",
                    self.max_versions_per_file
                ),
            ));
        }
        if self.max_total_bytes < MIN_TOTAL_BYTES {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!(
                    "history max-total-bytes is {}; it must be at least {MIN_TOTAL_BYTES}",
                    self.max_total_bytes
                ),
            ));
        }
        Ok(())
    }
}

/// Check the host's source label: at most [`MAX_SOURCE_BYTES`] bytes, no
/// line break or control character. A bad label is refused, not rewritten.
pub(crate) fn validate_source(source: &str) -> Result<()> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(Error::new(
            ErrorKind::InvalidOptions,
            format!(
                "source label is {} bytes; the limit is {MAX_SOURCE_BYTES}",
                source.len()
            ),
        ));
    }
    if let Some(c) = source
        .chars()
        .find(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
    {
        return Err(Error::new(
            ErrorKind::InvalidOptions,
            format!(
                "source label {source:?} contains line break or control character U+{:04X}",
                c as u32
            ),
        ));
    }
    Ok(())
}

pub use agent_memory_vocab::Operation;

/// One recorded version: what a file held just before a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// The id to restore it by, `v<n>`.
    pub id: String,
    /// Store-relative path of the file.
    pub path: String,
    /// When the change was made, Unix seconds.
    pub time_unix: i64,
    /// The clock's UTC offset then, minutes east.
    pub utc_offset_minutes: i32,
    /// The change that followed this version.
    pub operation: Operation,
    /// Size of the content; `None` when the file did not exist.
    pub bytes: Option<u64>,
    /// The host's source label at the time (may be empty).
    pub source: String,
    /// For a rename: the path on the other side.
    pub other_path: Option<String>,
}

/// What a file held before a change, as the store hands it to history.
pub(crate) enum Prior<'a> {
    /// The file did not exist.
    Missing,
    /// Its whole content, saved as an object.
    Content(&'a [u8]),
    /// Its whole content, which the change only extends: recorded as a
    /// prefix of what comes next.
    Prefix(&'a [u8]),
    /// A file of this length, not read, which the change only extends.
    PrefixUnread(u64),
    /// A file of this length, too large to save.
    TooLarge(u64),
}

/// One file of a change, as the store hands it to history.
pub(crate) struct Item<'a> {
    /// The store-relative path.
    pub(crate) path: &'a str,
    /// The change.
    pub(crate) op: Operation,
    /// For a rename: the path on the other side.
    pub(crate) other: Option<&'a str>,
    /// What the file held before.
    pub(crate) prior: Prior<'a>,
}

/// What [`History::record_change`] did.
#[derive(Debug, Default)]
pub(crate) struct Recorded {
    /// The id of the change's first entry, when anything was recorded.
    pub(crate) first_id: Option<u64>,
    /// The journal's length before (`Some(None)`: it did not exist), when
    /// anything was recorded.
    journal_before: Option<Option<u64>>,
    /// What could not be saved, for the receipt.
    pub(crate) warnings: Vec<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    format: String,
    v: u32,
    #[serde(rename = "gen")]
    generation: String,
    next: u64,
    kept: u64,
}

#[derive(Serialize, Deserialize)]
struct Record {
    id: u64,
    t: i64,
    off: i32,
    op: String,
    path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    to: Option<String>,
    size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sha: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    prefix: bool,
    src: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    chg: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tail: Option<u64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    purged: bool,
}

/// A parsed, checked journal entry.
#[derive(Debug, Clone)]
struct Entry {
    id: u64,
    time: i64,
    offset: i32,
    op: Operation,
    path: String,
    other: Option<String>,
    size: Option<u64>,
    sha: Option<[u8; 32]>,
    prefix: bool,
    source: String,
    /// The id of the first entry of the change this entry is part of, when
    /// that change touched several files (they are undone together).
    change: Option<u64>,
    /// For an append's entry: `sha` covers only this many bytes at the end
    /// of the prefix.
    tail: Option<u64>,
    /// Its content had secrets redacted by [`History::purge`].
    purged: bool,
    line_bytes: u64,
}

impl Entry {
    /// The object this entry saved, if any.
    fn object(&self) -> Option<([u8; 32], u64)> {
        match (self.prefix, self.sha, self.size) {
            (false, Some(sha), Some(size)) => Some((sha, size)),
            _ => None,
        }
    }

    fn version(&self) -> Version {
        Version {
            id: format!("v{}", self.id),
            path: self.path.clone(),
            time_unix: self.time,
            utc_offset_minutes: self.offset,
            operation: self.op,
            bytes: self.size,
            source: self.source.clone(),
            other_path: self.other.clone(),
        }
    }

    fn line(&self) -> String {
        let record = Record {
            id: self.id,
            t: self.time,
            off: self.offset,
            op: self.op.tool_word().to_string(),
            path: self.path.clone(),
            to: self.other.clone(),
            size: self.size,
            sha: self.sha.map(|s| hex(&s)),
            prefix: self.prefix,
            src: self.source.clone(),
            chg: self.change,
            tail: self.tail,
            purged: self.purged,
        };
        // Plain strings and numbers: serializing cannot fail.
        let json = serde_json::to_string(&record).unwrap_or_default();
        encode_line(&json)
    }

    fn parse(json: &str, line_bytes: u64) -> Option<Entry> {
        let r: Record = serde_json::from_str(json).ok()?;
        let sha = match &r.sha {
            Some(s) => Some(unhex(s)?),
            None => None,
        };
        let consistent = r.id > 0
            && r.off.abs() <= MAX_OFFSET_MINUTES
            && sha.is_some() == r.size.is_some()
            && (!r.prefix || r.size.is_some())
            && valid_store_path(&r.path)
            && r.to.as_deref().is_none_or(valid_store_path)
            && r.chg.is_none_or(|c| c > 0 && c <= r.id)
            && r.tail
                .is_none_or(|t| r.prefix && r.size.is_some_and(|s| t < s))
            && (!r.purged || (!r.prefix && r.size.is_some()))
            && validate_source(&r.src).is_ok();
        if !consistent {
            return None;
        }
        Some(Entry {
            id: r.id,
            time: r.t,
            offset: r.off,
            op: Operation::from_tool_word(&r.op)?,
            path: r.path,
            other: r.to,
            size: r.size,
            sha,
            prefix: r.prefix,
            source: r.src,
            change: r.chg,
            tail: r.tail,
            purged: r.purged,
            line_bytes,
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn unhex(s: &str) -> Option<[u8; 32]> {
    let b = s.as_bytes();
    if b.len() != 64 {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; 32];
    for (i, pair) in b.chunks_exact(2).enumerate() {
        out[i] = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn checksum(json: &str) -> String {
    hex(&Sha256::digest(json.as_bytes())[..4])
}

fn encode_line(json: &str) -> String {
    format!("{} {json}\n", checksum(json))
}

/// The JSON of a journal line (without its `\n`) whose checksum holds.
fn decode_line(line: &[u8]) -> Option<&str> {
    let line = std::str::from_utf8(line).ok()?;
    let (sum, json) = line.split_once(' ')?;
    (sum.len() == 8 && checksum(json) == sum).then_some(json)
}

/// A path a journal entry may name: `MEMORY.md`, or a `.md` file under
/// `projects/`, with no empty, dot-led or odd component. The journal is a
/// file on disk anyone can edit; restore writes only where this allows.
fn valid_store_path(path: &str) -> bool {
    // A team store's journal names its files `team:MEMORY.md`,
    // `team:notes/…` and `team:snapshot/…`.
    let (path, first, min) = match path.strip_prefix(crate::layout::TEAM_PREFIX) {
        Some(rest) => (rest, &["notes", "snapshot"][..], 2),
        None => (path, &["projects"][..], 3),
    };
    if path == "MEMORY.md" {
        return true;
    }
    if path.len() > MAX_PATH_BYTES || !path.ends_with(".md") {
        return false;
    }
    let parts: Vec<&str> = path.split('/').collect();
    parts.len() >= min
        && parts.len() <= 12
        && first.contains(&parts[0])
        && parts.iter().all(|part| {
            !part.is_empty()
                && !part.starts_with('.')
                && part.len() <= 255
                && !part
                    .chars()
                    .any(|c| c.is_control() || matches!(c, '\\' | ':' | '\0'))
        })
}

/// A random 16-hex token (std's hasher seed comes from the OS or WASI
/// random source).
fn random_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0x6869_7374);
    format!("{:016x}", hasher.finish())
}

/// The journal as last read: its entries and what they cost.
#[derive(Debug, Default)]
struct Index {
    /// The header's `gen`, when it had a valid header.
    generation: Option<String>,
    /// Bytes read, up to and including the last `\n`.
    parsed: u64,
    /// The id the next entry gets.
    next: u64,
    /// The largest id seen, so ids only grow.
    last_id: u64,
    /// Entries at the last rewrite.
    kept: u64,
    entries: Vec<Entry>,
    /// Objects named by entries: how many name each, and its size.
    objects: HashMap<[u8; 32], (u32, u64)>,
    object_bytes: u64,
    line_bytes: u64,
    /// Whether a change recorded through this index checked history's
    /// directories and removed crashed writers' temp files.
    dirs_checked: bool,
}

impl Index {
    fn push(&mut self, entry: Entry) {
        self.last_id = entry.id;
        self.next = self.next.max(entry.id + 1);
        self.line_bytes += entry.line_bytes;
        if let Some((sha, size)) = entry.object() {
            let slot = self.objects.entry(sha).or_insert((0, size));
            if slot.0 == 0 {
                self.object_bytes += size;
            }
            slot.0 += 1;
        }
        self.entries.push(entry);
    }

    fn total_bytes(&self) -> u64 {
        self.line_bytes + self.object_bytes
    }

    /// Read the complete lines of `bytes`, which start at journal offset
    /// `base`.
    fn parse(&mut self, bytes: &[u8], base: u64) {
        let mut pos = 0;
        while let Some(nl) = bytes[pos..].iter().position(|&b| b == b'\n') {
            let line = &bytes[pos..pos + nl];
            let at = base + pos as u64;
            pos += nl + 1;
            self.parsed = base + pos as u64;
            let Some(json) = decode_line(line) else {
                continue;
            };
            let line_bytes = nl as u64 + 1;
            if at == 0
                && let Ok(h) = serde_json::from_str::<Header>(json)
            {
                if h.format == JOURNAL_FORMAT && h.v == JOURNAL_VERSION {
                    self.generation = Some(h.generation);
                    self.next = self.next.max(h.next);
                    self.kept = h.kept;
                    self.line_bytes += line_bytes;
                }
                continue;
            }
            match Entry::parse(json, line_bytes) {
                // Ids only grow: an entry out of order was not appended by
                // the store.
                Some(e) if e.id > self.last_id => self.push(e),
                _ => {}
            }
        }
        self.next = self.next.max(1);
    }

    /// Positions of the entries of `path`, oldest first.
    fn positions(&self, path: &str) -> Vec<usize> {
        (0..self.entries.len())
            .filter(|&i| self.entries[i].path == path)
            .collect()
    }
}

/// What [`History::refresh`] found.
#[derive(Debug, Clone, Copy)]
enum Journal {
    /// No journal yet.
    Missing,
    /// A journal of this length, read on from where the index was.
    Known(u64),
    /// A journal of this length, read whole (first use, or it was replaced).
    Reloaded(u64),
}

/// Where an append's entry finds its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Anchor {
    /// The file as it is now.
    File,
    /// The object of the entry at this position.
    Object(usize),
    /// Nothing: the file was deleted after the append, outside the store.
    Gone,
}

/// For entries of one path (`positions`, oldest first), the anchor each
/// would read from if it were an append's entry: the next newer entry with
/// an object, or the file itself.
fn anchors(index: &Index, positions: &[usize]) -> Vec<Anchor> {
    let mut out = vec![Anchor::File; positions.len()];
    let mut current = Anchor::File;
    for (i, &p) in positions.iter().enumerate().rev() {
        out[i] = current;
        let e = &index.entries[p];
        if e.size.is_none() {
            current = Anchor::Gone;
        } else if !e.prefix {
            current = Anchor::Object(p);
        }
    }
    out
}

/// The history of one root: its directory, the host's settings, and the
/// journal as last read (shared by clones of a [`Memory`], checked against
/// the disk before each use).
#[derive(Debug, Clone)]
pub(crate) struct History {
    root: PathBuf,
    retention: Retention,
    source: String,
    index: Arc<Mutex<Index>>,
    /// Who reads its errors (what they call the history tool or command).
    audience: Audience,
}

impl History {
    pub(crate) fn new(root: &Path, retention: Retention, source: String) -> History {
        History {
            root: root.to_path_buf(),
            retention,
            source,
            index: Arc::default(),
            audience: Audience::Model,
        }
    }

    /// Name actions in errors for `audience`.
    pub(crate) fn set_audience(&mut self, audience: Audience) {
        self.audience = audience;
    }

    pub(crate) fn retention(&self) -> Retention {
        self.retention
    }

    /// How many versions a file lists: the retention's count, or the
    /// default's when history is off (what was recorded stays readable).
    fn shown(&self) -> usize {
        let max = if self.retention.is_off() {
            Retention::default().max_versions_per_file
        } else {
            self.retention.max_versions_per_file
        };
        max as usize
    }

    fn dir(&self) -> PathBuf {
        self.root.join(HISTORY_DIR)
    }

    /// The host path of the store file `path`; a team store's `team:`
    /// paths lie under its root.
    fn file(&self, path: &str) -> PathBuf {
        self.root.join(
            path.strip_prefix(crate::layout::TEAM_PREFIX)
                .unwrap_or(path),
        )
    }

    /// The source label changes are recorded with.
    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    fn objects(&self) -> PathBuf {
        self.dir().join(OBJECTS_DIR)
    }

    fn object_path(&self, sha: &[u8; 32]) -> PathBuf {
        self.objects().join(hex(sha))
    }

    fn index(&self) -> std::sync::MutexGuard<'_, Index> {
        self.index.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bring `index` up to date with the journal on disk: read only what was
    /// appended since, unless the journal was replaced (its header's `gen`
    /// changed) or shrank. Says what it found.
    fn refresh(&self, index: &mut Index) -> io::Result<Journal> {
        let path = self.dir().join(JOURNAL_FILE);
        let len = match fsio::kind(&path)? {
            Kind::Missing => {
                *index = Index::default();
                index.next = 1;
                return Ok(Journal::Missing);
            }
            Kind::Other(what) => {
                *index = Index::default();
                return Err(io::Error::other(format!("the journal is {what}")));
            }
            Kind::File(len) => len,
        };
        if len > MAX_JOURNAL_BYTES {
            *index = Index::default();
            return Err(io::Error::other(format!(
                "the journal is {len} bytes, more than the store ever writes"
            )));
        }
        let mut file = File::open(&path)?;
        let mut head = Vec::with_capacity(512);
        (&mut file).take(512).read_to_end(&mut head)?;
        let generation = head
            .iter()
            .position(|&b| b == b'\n')
            .and_then(|nl| decode_line(&head[..nl]))
            .and_then(|json| serde_json::from_str::<Header>(json).ok())
            .map(|h| h.generation);
        let incremental = index.parsed > 0 && generation == index.generation && len >= index.parsed;
        if !incremental {
            *index = Index::default();
        }
        let found = if incremental {
            Journal::Known(len)
        } else {
            Journal::Reloaded(len)
        };
        let start = index.parsed;
        if len > start {
            file.seek(SeekFrom::Start(start))?;
            let mut tail = Vec::with_capacity((len - start) as usize);
            file.take(len - start).read_to_end(&mut tail)?;
            index.parse(&tail, start);
        }
        index.next = index.next.max(1);
        Ok(found)
    }

    /// The directories of history, checked to be real directories (never a
    /// symlink that could lead out of the store) and created when missing.
    fn ensure_dirs(&self) -> io::Result<()> {
        self.ensure_dir(STORE_DIR)?;
        self.ensure_dir(HISTORY_DIR)?;
        self.ensure_dir(&format!("{HISTORY_DIR}/{OBJECTS_DIR}"))
    }

    /// A directory of history that must be a real directory, never a
    /// symlink that could lead out of the store.
    fn ensure_dir(&self, rel: &str) -> io::Result<()> {
        let path = self.root.join(rel);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => Ok(()),
            Ok(_) => Err(io::Error::other(format!("`{rel}` is not a directory"))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir(&path),
            Err(e) => Err(e),
        }
    }

    /// Record what each file of one change held before it, under the
    /// store's write lock, as one change: when it touches several files,
    /// every entry names the first one's id, and they are restored together.
    /// Nothing is pruned here (see [`History::settle`]), so a change that
    /// then fails can take its entries back with [`History::rollback`].
    /// A file whose version cannot be saved gets a warning for the receipt;
    /// the change goes ahead either way.
    pub(crate) fn record_change(
        &self,
        lock: &LockGuard,
        clock: &Clock,
        items: &[Item<'_>],
        source: Option<&str>,
    ) -> Recorded {
        let mut recorded = Recorded::default();
        if self.retention.is_off() || items.is_empty() {
            return recorded;
        }
        let largest = self.retention.largest_version();
        let mut prepared = Vec::with_capacity(items.len());
        for item in items {
            let path = item.path;
            let warn = |why: String| {
                format!(
                    "history did not save the previous version of {path} ({why}); the change was made anyway"
                )
            };
            let too_large = |len: u64| {
                format!("it is {len} bytes, more than the {largest} bytes a saved version may have")
            };
            let mut tail = None;
            let fields = match item.prior {
                Prior::Missing => Ok((None, None, false, None)),
                Prior::Content(bytes) if bytes.len() as u64 > largest => {
                    Err(too_large(bytes.len() as u64))
                }
                Prior::Content(bytes) => Ok((
                    Some(bytes.len() as u64),
                    Some(sha256(bytes)),
                    false,
                    Some(bytes),
                )),
                Prior::Prefix(bytes) => {
                    Ok((Some(bytes.len() as u64), Some(sha256(bytes)), true, None))
                }
                Prior::PrefixUnread(len) if len <= largest => {
                    let from = len.saturating_sub(TAIL_HASH_BYTES);
                    tail = (from > 0).then_some(len - from);
                    match self.hash_file(path, from, len) {
                        Ok(sha) => Ok((Some(len), Some(sha), true, None)),
                        Err(e) => Err(format!("reading it failed: {}", os_cause(&e))),
                    }
                }
                Prior::PrefixUnread(len) | Prior::TooLarge(len) => Err(too_large(len)),
            };
            match fields {
                Ok(fields) => prepared.push((item, fields, tail)),
                Err(why) => recorded.warnings.push(warn(why)),
            }
        }
        if prepared.is_empty() {
            return recorded;
        }
        let mut index = self.index();
        let result = (|| {
            let journal = self.refresh(&mut index)?;
            // The directories are checked by the first change this index
            // records (again when the journal was replaced), not by every
            // change.
            if !matches!(journal, Journal::Known(_)) || !index.dirs_checked {
                self.ensure_dirs()?;
                index.dirs_checked = true;
                // Temp files of a writer that crashed while saving: we hold
                // the lock, so none is in flight.
                fsio::remove_leftovers(&self.dir());
                fsio::remove_leftovers(&self.objects());
            }
            for (_, (_, sha, _, object), _) in &prepared {
                if let (Some(bytes), Some(sha)) = (object, sha) {
                    match self.write_object(sha, bytes) {
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {
                            self.ensure_dirs()?;
                            self.write_object(sha, bytes)?;
                        }
                        other => other?,
                    }
                }
            }
            let first = index.next;
            let change = (prepared.len() > 1).then_some(first);
            let entries: Vec<Entry> = prepared
                .iter()
                .enumerate()
                .map(|(n, (item, (size, sha, prefix, _), tail))| Entry {
                    id: first + n as u64,
                    time: clock.unix_seconds(),
                    offset: clock.utc_offset_minutes,
                    op: item.op,
                    path: item.path.to_string(),
                    other: item.other.map(str::to_string),
                    size: *size,
                    sha: *sha,
                    prefix: *prefix,
                    source: source.unwrap_or(&self.source).to_string(),
                    change,
                    tail: *tail,
                    purged: false,
                    line_bytes: 0,
                })
                .collect();
            let before = match journal {
                Journal::Missing => None,
                Journal::Known(len) | Journal::Reloaded(len) => Some(len),
            };
            self.append(lock, &mut index, entries, journal)?;
            Ok::<_, io::Error>((first, before))
        })();
        match result {
            Ok((first, before)) => {
                recorded.first_id = Some(first);
                recorded.journal_before = Some(before);
            }
            Err(e) => {
                // Reread everything next time rather than trust a half-done
                // update.
                *index = Index::default();
                let paths: Vec<&str> = prepared.iter().map(|(item, _, _)| item.path).collect();
                recorded.warnings.push(format!(
                    "history did not save the previous version of {} ({}); the change was made anyway",
                    paths.join(", "),
                    os_cause(&e)
                ));
            }
        }
        recorded
    }

    /// Take back the entries `recorded` appended, for a change that then
    /// failed: history never lists a change that did not happen. The
    /// objects it saved stay until the next prune removes them.
    pub(crate) fn rollback(&self, lock: &LockGuard, recorded: &Recorded) {
        let Some(before) = recorded.journal_before else {
            return;
        };
        let mut index = self.index();
        *index = Index::default();
        if lock.check().is_err() {
            return;
        }
        let path = self.dir().join(JOURNAL_FILE);
        let _ = match before {
            None => fs::remove_file(&path),
            Some(len) => OpenOptions::new()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_len(len).and_then(|()| f.sync_data())),
        };
    }

    /// After a change was applied: prune when retention is due. Returns a
    /// warning for the receipt when pruning failed (the versions are saved).
    pub(crate) fn settle(&self, lock: &LockGuard, recorded: &Recorded) -> Option<String> {
        recorded.first_id?;
        let mut index = self.index();
        if self.refresh(&mut index).is_err() {
            return None;
        }
        self.prune_if_due(lock, &mut index).err().map(|e| {
            *index = Index::default();
            format!(
                "history saved the previous versions but could not prune older versions ({})",
                os_cause(&e)
            )
        })
    }

    /// SHA-256 of the bytes `from..len` of the store file `path`, streamed.
    fn hash_file(&self, path: &str, from: u64, len: u64) -> io::Result<[u8; 32]> {
        let mut file = File::open(self.file(path))?;
        file.seek(SeekFrom::Start(from))?;
        let len = len - from;
        let mut file = file.take(len);
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut seen = 0u64;
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            seen += n as u64;
        }
        if seen != len {
            return Err(io::Error::other("the file changed while it was read"));
        }
        Ok(hasher.finalize().into())
    }

    /// Save `bytes` as the object `sha`, durably, unless it is there.
    fn write_object(&self, sha: &[u8; 32], bytes: &[u8]) -> io::Result<()> {
        let name = hex(sha);
        if fsio::kind(&self.objects().join(&name))? == Kind::File(bytes.len() as u64) {
            return Ok(());
        }
        // `replace` syncs the data, renames it into place and syncs the
        // directory: the object is on disk before the entry naming it.
        fsio::replace_content_addressed(&self.objects(), &name, bytes)
    }

    /// Append `entries` to the journal (creating it with a header) in one
    /// write, and sync.
    fn append(
        &self,
        lock: &LockGuard,
        index: &mut Index,
        mut entries: Vec<Entry>,
        journal: Journal,
    ) -> io::Result<()> {
        let dir = self.dir();
        let path = dir.join(JOURNAL_FILE);
        let mut lines = String::new();
        for entry in &mut entries {
            let line = entry.line();
            entry.line_bytes = line.len() as u64;
            lines.push_str(&line);
        }
        match journal {
            Journal::Missing => {
                let header = header_line(&random_token(), entries[0].id, 0);
                let bytes = format!("{header}{lines}");
                fsio::replace(&dir, JOURNAL_FILE, bytes.as_bytes(), lock)?;
                // Read back what was written, so the index holds the header.
                *index = Index::default();
                self.refresh(index).map(|_| ())
            }
            Journal::Known(len) | Journal::Reloaded(len) => {
                // A torn last line (a writer killed mid-append) gets its
                // `\n` first, so it stays one bad line of its own.
                let lead = if len > index.parsed { "\n" } else { "" };
                lock.check()?;
                let mut file = OpenOptions::new().append(true).open(&path)?;
                file.write_all(format!("{lead}{lines}").as_bytes())?;
                file.sync_data()?;
                index.parsed = len + (lead.len() + lines.len()) as u64;
                for entry in entries {
                    index.push(entry);
                }
                Ok(())
            }
        }
    }

    /// Prune when over the byte budget, or rewrite when the journal has grown
    /// enough since its last rewrite to drop entries past the per-file count.
    fn prune_if_due(&self, lock: &LockGuard, index: &mut Index) -> io::Result<()> {
        let kept = index.kept as usize;
        let grown = index.entries.len() > kept + COMPACT_MIN_GROWTH.max(kept / 4);
        if grown || index.total_bytes() > self.retention.max_total_bytes {
            self.prune(lock, index)?;
        }
        Ok(())
    }

    /// Which entries survive retention: the newest `max_versions_per_file`
    /// of each file, then, if the total is over budget, all but the oldest
    /// down to 15/16 of it.
    fn survivors(&self, index: &Index) -> Vec<bool> {
        let max = self.retention.max_versions_per_file;
        let mut keep = vec![true; index.entries.len()];
        let mut counts: HashMap<&str, u32> = HashMap::new();
        for (i, e) in index.entries.iter().enumerate().rev() {
            let n = counts.entry(e.path.as_str()).or_insert(0);
            *n += 1;
            keep[i] = *n <= max;
        }
        let mut refs: HashMap<[u8; 32], (u32, u64)> = HashMap::new();
        let mut total = 0u64;
        for (i, e) in index.entries.iter().enumerate() {
            if !keep[i] {
                continue;
            }
            total += e.line_bytes;
            if let Some((sha, size)) = e.object() {
                let slot = refs.entry(sha).or_insert((0, size));
                if slot.0 == 0 {
                    total += size;
                }
                slot.0 += 1;
            }
        }
        let budget = self.retention.max_total_bytes;
        if total > budget {
            let low = budget - budget / 16;
            let last = index.entries.len().saturating_sub(1);
            for (i, e) in index.entries.iter().enumerate() {
                if total <= low || i == last {
                    break;
                }
                if !keep[i] {
                    continue;
                }
                keep[i] = false;
                total -= e.line_bytes;
                if let Some((sha, _)) = e.object()
                    && let Some(slot) = refs.get_mut(&sha)
                {
                    slot.0 -= 1;
                    if slot.0 == 0 {
                        total -= slot.1;
                    }
                }
            }
        }
        keep
    }

    /// Apply retention: rewrite the journal atomically with the survivors,
    /// then delete the objects none of them names (and leftovers of crashed
    /// writers). A crash between the two leaves only unnamed objects.
    fn prune(&self, lock: &LockGuard, index: &mut Index) -> io::Result<()> {
        let keep = self.survivors(index);
        let survivors: Vec<Entry> = index
            .entries
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(e, _)| e.clone())
            .collect();
        self.rewrite(lock, index, &survivors)
    }

    /// Replace the journal atomically with `entries`, then delete the
    /// objects none of them names (and leftovers of crashed writers). A
    /// crash between the two leaves only unnamed objects. Pruning and
    /// purging both end here.
    fn rewrite(&self, lock: &LockGuard, index: &mut Index, survivors: &[Entry]) -> io::Result<()> {
        let generation = random_token();
        let mut text = header_line(&generation, index.next, survivors.len() as u64);
        for e in survivors {
            text.push_str(&e.line());
        }
        let dir = self.dir();
        fsio::replace(&dir, JOURNAL_FILE, text.as_bytes(), lock)?;
        let next = index.next;
        *index = Index::default();
        index.parse(text.as_bytes(), 0);
        index.next = index.next.max(next);
        // From here on failures only leave unnamed files behind.
        fsio::remove_leftovers(&dir);
        if let Ok(entries) = fs::read_dir(self.objects()) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let named = unhex(&name).is_some_and(|sha| index.objects.contains_key(&sha));
                if !named {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        Ok(())
    }

    /// The content of the object `sha`, checked against its hash.
    fn read_object(&self, sha: &[u8; 32], size: u64) -> Option<Vec<u8>> {
        self.read_object_checked(sha, size).ok().flatten()
    }

    /// The content of the object `sha`; `None` when it is missing, of
    /// another size or does not hash to `sha` (damaged).
    ///
    /// # Errors
    /// When it cannot be looked at or read.
    fn read_object_checked(&self, sha: &[u8; 32], size: u64) -> io::Result<Option<Vec<u8>>> {
        let path = self.object_path(sha);
        if fsio::kind(&path)? != Kind::File(size) {
            return Ok(None);
        }
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        Ok((sha256(&bytes) == *sha).then_some(bytes))
    }

    /// Is the object there with the right size? (Listings check no more.)
    fn object_present(&self, sha: &[u8; 32], size: u64) -> bool {
        fsio::kind(&self.object_path(sha)).is_ok_and(|k| k == Kind::File(size))
    }

    /// The first `len` bytes an anchor holds, `None` when it has fewer or
    /// cannot be read.
    fn anchor_bytes(&self, index: &Index, anchor: Anchor, path: &str, len: u64) -> Option<Vec<u8>> {
        let mut bytes = match anchor {
            Anchor::Gone => return None,
            Anchor::Object(p) => {
                let (sha, size) = index.entries[p].object()?;
                self.read_object(&sha, size)?
            }
            Anchor::File => {
                let file = self.file(path);
                let Kind::File(have) = fsio::kind(&file).ok()? else {
                    return None;
                };
                if have < len {
                    return None;
                }
                let mut bytes = Vec::with_capacity(len as usize);
                File::open(&file)
                    .ok()?
                    .take(len)
                    .read_to_end(&mut bytes)
                    .ok()?;
                bytes
            }
        };
        if (bytes.len() as u64) < len {
            return None;
        }
        bytes.truncate(len as usize);
        Some(bytes)
    }

    /// What the entry at `positions[i]` saved: `Some(None)` when the file did
    /// not exist, `None` when its content cannot be read back.
    fn content(&self, index: &Index, positions: &[usize], i: usize) -> Option<Option<Vec<u8>>> {
        let e = &index.entries[positions[i]];
        let (Some(size), Some(sha)) = (e.size, e.sha) else {
            return Some(None);
        };
        if !e.prefix {
            return self.read_object(&sha, size).map(Some);
        }
        let anchor = anchors(index, positions)[i];
        let bytes = self.anchor_bytes(index, anchor, &e.path, size)?;
        let hashed = &bytes[(size - e.tail.unwrap_or(size)) as usize..];
        (sha256(hashed) == sha).then_some(Some(bytes))
    }

    /// [`History::content`] in a purge's staged index, whose new objects
    /// are not on disk yet but in `written`.
    fn staged_content(
        &self,
        staged: &Index,
        positions: &[usize],
        i: usize,
        written: &[([u8; 32], Vec<u8>)],
    ) -> Option<Option<Vec<u8>>> {
        let planned = |sha: &[u8; 32]| {
            written
                .iter()
                .find(|(s, _)| s == sha)
                .map(|(_, b)| b.clone())
        };
        let e = &staged.entries[positions[i]];
        let (Some(size), Some(sha)) = (e.size, e.sha) else {
            return Some(None);
        };
        if !e.prefix {
            return planned(&sha)
                .or_else(|| self.read_object(&sha, size))
                .map(Some);
        }
        let Anchor::Object(a) = anchors(staged, positions)[i] else {
            return self.content(staged, positions, i);
        };
        let Some(mut bytes) = staged.entries[a].object().and_then(|(s, _)| planned(&s)) else {
            return self.content(staged, positions, i);
        };
        if (bytes.len() as u64) < size {
            return None;
        }
        bytes.truncate(size as usize);
        let hashed = &bytes[(size - e.tail.unwrap_or(size)) as usize..];
        (sha256(hashed) == sha).then_some(Some(bytes))
    }

    /// Which of the entries at `positions` (one path, oldest first) can be
    /// read back: objects present with the right size, appends' prefixes
    /// hashing right (each anchor read and hashed once, the hash state
    /// copied at each prefix length).
    fn readable(&self, index: &Index, positions: &[usize], wanted: &[usize]) -> Vec<bool> {
        let anchors = anchors(index, positions);
        let mut ok = vec![false; positions.len()];
        let mut groups: HashMap<Anchor, Vec<usize>> = HashMap::new();
        for &i in wanted {
            let e = &index.entries[positions[i]];
            match (e.size, e.sha) {
                (None, _) => ok[i] = true,
                (Some(size), Some(sha)) if !e.prefix => ok[i] = self.object_present(&sha, size),
                // Hashed over its tail only: checked on its own.
                _ if e.tail.is_some() => ok[i] = self.content(index, positions, i).is_some(),
                _ => groups.entry(anchors[i]).or_default().push(i),
            }
        }
        for (anchor, mut members) in groups {
            members.sort_by_key(|&i| index.entries[positions[i]].size);
            let longest = members
                .iter()
                .filter_map(|&i| index.entries[positions[i]].size)
                .max()
                .unwrap_or(0);
            let path = &index.entries[positions[members[0]]].path;
            let Some(bytes) = self.anchor_bytes_up_to(index, anchor, path, longest) else {
                continue;
            };
            let mut hasher = Sha256::new();
            let mut fed = 0usize;
            for i in members {
                let e = &index.entries[positions[i]];
                let (Some(size), Some(sha)) = (e.size, e.sha) else {
                    continue;
                };
                let size = size as usize;
                if size > bytes.len() {
                    continue;
                }
                hasher.update(&bytes[fed..size]);
                fed = size;
                let digest: [u8; 32] = hasher.clone().finalize().into();
                ok[i] = digest == sha;
            }
        }
        ok
    }

    /// Like [`History::anchor_bytes`] but returns what there is, up to
    /// `len` bytes.
    fn anchor_bytes_up_to(
        &self,
        index: &Index,
        anchor: Anchor,
        path: &str,
        len: u64,
    ) -> Option<Vec<u8>> {
        match anchor {
            Anchor::Gone => None,
            Anchor::Object(p) => {
                let (sha, size) = index.entries[p].object()?;
                let mut bytes = self.read_object(&sha, size)?;
                bytes.truncate(len.min(size) as usize);
                Some(bytes)
            }
            Anchor::File => {
                let file = self.file(path);
                let Kind::File(_) = fsio::kind(&file).ok()? else {
                    return None;
                };
                let mut bytes = Vec::new();
                File::open(&file)
                    .ok()?
                    .take(len)
                    .read_to_end(&mut bytes)
                    .ok()?;
                Some(bytes)
            }
        }
    }
}

/// A saved version as a scan reads it.
pub(crate) struct Saved {
    /// The entry's id, `n` of `v<n>`.
    pub(crate) id: u64,
    /// The store-relative path it is a version of.
    pub(crate) path: String,
    /// For a rename: the path on the other side.
    pub(crate) other: Option<String>,
    /// Its own content (`None` for an append's entry or a file that did not
    /// exist: see [`History::saved`]), invalid UTF-8 shown as U+FFFD.
    pub(crate) text: Option<String>,
}

/// What [`History::purge`] did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Purged {
    /// Versions whose saved content was redacted (ids kept, marked
    /// `"purged":true` in the journal).
    pub versions: u32,
    /// Secrets redacted, counted once per distinct saved content.
    pub secrets: u32,
    /// Appends' entries that read their content from a redacted version and
    /// now hold their own redacted copy (counted in `versions` too).
    pub appends_saved: u32,
}

impl Purged {
    /// Add what another store's purge did.
    pub fn add(&mut self, other: Purged) {
        self.versions += other.versions;
        self.secrets += other.secrets;
        self.appends_saved += other.appends_saved;
    }
}

/// `text` with every secret in it and every range of `extra` (clipped to
/// it) replaced by `[REDACTED:<rule-id>]`, as the write guard does.
fn redacted(text: &str, extra: &[crate::secrets::Finding]) -> (String, usize) {
    let mut findings = crate::secrets::scan(text);
    let own = findings.len();
    for f in extra {
        let end = f.range.end.min(text.len());
        if f.range.start < end && text.is_char_boundary(f.range.start) {
            let mut end = end;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let mut f = f.clone();
            f.range = f.range.start..end;
            findings.push(f);
        }
    }
    findings.sort_by_key(|f| (f.range.start, std::cmp::Reverse(f.range.end)));
    (crate::secrets::redact(text, &findings), own)
}

impl History {
    /// Every entry of the journal, oldest first, with the content of those
    /// that saved one (an object). An append's entry (`prefix`) has no
    /// object: its content is a prefix of the next saved version of the same
    /// file or of the file as it is now, so a scan of those finds whatever
    /// it holds. A missing or corrupt object reads as no content.
    pub(crate) fn saved(&self) -> Vec<Saved> {
        let entries = {
            let mut index = self.index();
            if self.refresh(&mut index).is_err() {
                *index = Index::default();
                return Vec::new();
            }
            index.entries.clone()
        };
        entries
            .into_iter()
            .map(|e| Saved {
                text: e
                    .object()
                    .and_then(|(sha, size)| self.read_object(&sha, size))
                    .map(|b| String::from_utf8_lossy(&b).into_owned()),
                id: e.id,
                path: e.path,
                other: e.other,
            })
            .collect()
    }

    /// Plan the redaction of every secret in every saved version, in
    /// place, writing nothing: each object holding one is to be written
    /// again redacted (a new object, named by its new SHA-256), the entries
    /// naming it point at the new one and are marked `purged`, the journal
    /// is replaced whole and the old objects deleted. Version ids, times,
    /// operations and paths stay. An append's entry whose prefix no longer
    /// reads back from the redacted version gets its own redacted object
    /// and becomes a whole version, so it stays restorable; a secret its
    /// prefix cuts in two is redacted up to the cut. Live files are not
    /// touched. Entries already unreadable (a missing or damaged object, an
    /// append broken by a hand edit) are left as they are. `None`: nothing
    /// to purge. The caller holds the store's write lock and commits the
    /// plan as one change (`Memory::purge_secrets`).
    ///
    /// # Errors
    /// When the journal or an object cannot be read: a version that could
    /// not be looked at is never left unpurged silently.
    pub(crate) fn purge_plan(&self) -> io::Result<Option<PurgePlan>> {
        let mut index = self.index();
        let result = self.purge_plan_of(&mut index);
        if result.is_err() {
            *index = Index::default();
        }
        result
    }

    fn purge_plan_of(&self, index: &mut Index) -> io::Result<Option<PurgePlan>> {
        let mut out = Purged::default();
        if let Journal::Missing = self.refresh(index)? {
            return Ok(None);
        }
        // Each distinct object once: its new name and size, and the secrets
        // found in the old content (for appends' prefixes cut inside one).
        type Redacted = ([u8; 32], u64, Vec<crate::secrets::Finding>);
        let mut objects: HashMap<[u8; 32], Redacted> = HashMap::new();
        let mut clean: HashSet<[u8; 32]> = HashSet::new();
        let mut written: Vec<([u8; 32], Vec<u8>)> = Vec::new();
        for e in &index.entries {
            let Some((sha, size)) = e.object() else {
                continue;
            };
            if objects.contains_key(&sha) || clean.contains(&sha) {
                continue;
            }
            let Some(bytes) = self.read_object_checked(&sha, size)? else {
                clean.insert(sha);
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            let findings = crate::secrets::scan(&text);
            if findings.is_empty() {
                clean.insert(sha);
                continue;
            }
            let (new, n) = redacted(&text, &[]);
            let new_sha = sha256(new.as_bytes());
            out.secrets += n as u32;
            objects.insert(sha, (new_sha, new.len() as u64, findings));
            written.push((new_sha, new.into_bytes()));
        }
        if objects.is_empty() {
            return Ok(None);
        }
        // Appends' entries reading from a redacted object: their content as
        // it was, before anything changes.
        let mut paths: Vec<&str> = index.entries.iter().map(|e| e.path.as_str()).collect();
        paths.sort_unstable();
        paths.dedup();
        // Per path: its positions, and its appends' entries to check (index
        // into the positions, content, the old object they read from).
        type Prefixes = Vec<(usize, Vec<u8>, [u8; 32])>;
        let mut pending: Vec<(Vec<usize>, Prefixes)> = Vec::new();
        for path in paths {
            let positions = index.positions(path);
            let anchors = anchors(index, &positions);
            let mut prefixes = Vec::new();
            for (i, &p) in positions.iter().enumerate() {
                let Anchor::Object(a) = anchors[i] else {
                    continue;
                };
                let Some((anchor_sha, _)) = index.entries[a].object() else {
                    continue;
                };
                if !index.entries[p].prefix || !objects.contains_key(&anchor_sha) {
                    continue;
                }
                if let Some(Some(bytes)) = self.content(index, &positions, i) {
                    prefixes.push((i, bytes, anchor_sha));
                }
            }
            if !prefixes.is_empty() {
                pending.push((positions, prefixes));
            }
        }
        let mut staged = Index {
            entries: index.entries.clone(),
            ..Index::default()
        };
        for e in &mut staged.entries {
            if let Some((sha, _)) = e.object()
                && let Some((new_sha, new_size, _)) = objects.get(&sha)
            {
                e.sha = Some(*new_sha);
                e.size = Some(*new_size);
                e.purged = true;
                out.versions += 1;
            }
        }
        // Newest first: an older append's entry may read from a newer one
        // made whole here (its new object is read from `written`).
        for (positions, prefixes) in pending {
            for (i, bytes, anchor_sha) in prefixes.into_iter().rev() {
                if self
                    .staged_content(&staged, &positions, i, &written)
                    .is_some()
                {
                    continue;
                }
                let text = String::from_utf8_lossy(&bytes);
                let cut = objects.get(&anchor_sha).map_or(&[][..], |o| &o.2[..]);
                let (new, _) = redacted(&text, cut);
                let new_sha = sha256(new.as_bytes());
                let e = &mut staged.entries[positions[i]];
                e.prefix = false;
                e.tail = None;
                e.sha = Some(new_sha);
                e.size = Some(new.len() as u64);
                e.purged = true;
                out.versions += 1;
                out.appends_saved += 1;
                written.push((new_sha, new.into_bytes()));
            }
        }
        let named: HashSet<[u8; 32]> = staged
            .entries
            .iter()
            .filter_map(|e| e.object().map(|(sha, _)| sha))
            .collect();
        let objects_dir = format!("{HISTORY_DIR}/{OBJECTS_DIR}");
        let mut stale: Vec<String> = objects
            .keys()
            .filter(|sha| !named.contains(*sha))
            .map(|sha| hex(sha))
            .collect();
        stale.sort();
        written.sort_by_key(|(sha, _)| *sha);
        written.dedup_by_key(|(sha, _)| *sha);
        let mut journal = header_line(&random_token(), index.next, staged.entries.len() as u64);
        for e in &staged.entries {
            journal.push_str(&e.line());
        }
        Ok(Some(PurgePlan {
            objects_dir,
            objects: written.into_iter().map(|(sha, b)| (hex(&sha), b)).collect(),
            journal_dir: HISTORY_DIR.to_string(),
            journal_file: JOURNAL_FILE.to_string(),
            journal: journal.into_bytes(),
            stale,
            purged: out,
        }))
    }
}

/// What a purge writes ([`History::purge_plan`]), for the store to commit
/// as one change: paths relative to the store's root.
pub(crate) struct PurgePlan {
    /// The folder of the objects.
    pub(crate) objects_dir: String,
    /// The redacted objects: file name (the SHA-256 of the bytes, hex) and
    /// bytes.
    pub(crate) objects: Vec<(String, Vec<u8>)>,
    /// The folder and file name of the journal.
    pub(crate) journal_dir: String,
    pub(crate) journal_file: String,
    /// The journal as it will be: its entries pointing at the redacted
    /// objects.
    pub(crate) journal: Vec<u8>,
    /// The objects the journal no longer names (they hold the secrets).
    pub(crate) stale: Vec<String>,
    /// What the purge does, for the receipt.
    pub(crate) purged: Purged,
}

fn header_line(generation: &str, next: u64, kept: u64) -> String {
    let header = Header {
        format: JOURNAL_FORMAT.to_string(),
        v: JOURNAL_VERSION,
        generation: generation.to_string(),
        next,
        kept,
    };
    encode_line(&serde_json::to_string(&header).unwrap_or_default())
}

/// The number in a version id `v<n>`, or a `not-found` error saying where
/// ids come from.
pub(crate) fn parse_version_id(raw: &str, audience: Audience) -> Result<u64> {
    let id = raw.trim();
    let n = id
        .strip_prefix('v')
        .filter(|d| !d.is_empty() && d.len() <= 19 && d.bytes().all(|b| b.is_ascii_digit()))
        .filter(|d| !d.starts_with('0'))
        .and_then(|d| d.parse::<u64>().ok());
    n.ok_or_else(|| {
        let shown: String = raw.chars().take(MAX_ID_ECHO_CHARS).collect();
        let cut = if shown.len() < raw.len() { "…" } else { "" };
        Error::new(
            ErrorKind::NotFound,
            format!(
                "{shown:?}{cut} is not a version id (ids look like v12); {} to list the versions of a file",
                words::invoke(audience, Act::History)
            ),
        )
    })
}

fn unknown_version(id: u64, audience: Audience) -> Error {
    Error::new(
        ErrorKind::NotFound,
        format!(
            "version v{id} is not in this project's history (it may have been pruned); {} to list the versions of a file",
            words::invoke(audience, Act::History)
        ),
    )
}

impl History {
    /// The recorded versions of `path`, newest first: at most `limit`
    /// (default and ceiling: the retention's versions per file). Versions
    /// whose content can no longer be read are left out. A missing or
    /// corrupt journal is an empty history.
    pub(crate) fn versions(&self, path: &str, limit: Option<u32>) -> Vec<Version> {
        let mut index = self.index();
        if self.refresh(&mut index).is_err() {
            return Vec::new();
        }
        let positions = index.positions(path);
        let shown = self.shown();
        let limit = limit.map_or(shown, |l| (l as usize).min(shown));
        let visible: Vec<usize> = (0..positions.len()).rev().take(shown).collect();
        let readable = self.readable(&index, &positions, &visible);
        visible
            .into_iter()
            .filter(|&i| readable[i])
            .take(limit)
            .map(|i| index.entries[positions[i]].version())
            .collect()
    }

    /// The most recent change to a file `in_view`: the version to restore
    /// to undo it. `None` when there is none.
    pub(crate) fn last_change(&self, in_view: impl Fn(&str) -> bool) -> Option<Version> {
        let mut index = self.index();
        if self.refresh(&mut index).is_err() {
            return None;
        }
        let mut tried = HashSet::new();
        for p in (0..index.entries.len()).rev() {
            let path = &index.entries[p].path;
            if !in_view(path) || !tried.insert(path.clone()) {
                continue;
            }
            // Each file tried costs a pass over the journal: past this many
            // unreadable files there is nothing sensible to undo.
            if tried.len() > MAX_UNDO_FILES_TRIED {
                break;
            }
            let positions = index.positions(path);
            let i = positions.len() - 1;
            if self.readable(&index, &positions, &[i])[i] {
                return Some(index.entries[p].version());
            }
        }
        None
    }

    /// What the file of version `id` held then: its path, and `None` for
    /// content when the file did not exist.
    ///
    /// # Errors
    /// `not-found` for an id that is malformed, unknown, pruned, not
    /// `in_view`, or whose content can no longer be read.
    pub(crate) fn version_content(
        &self,
        id: &str,
        in_view: impl Fn(&str) -> bool,
    ) -> Result<(String, Option<Vec<u8>>)> {
        let n = parse_version_id(id, self.audience)?;
        let mut index = self.index();
        self.refresh_or_error(&mut index)?;
        let (positions, i) = self.find_version(&index, n, &in_view)?;
        let path = index.entries[positions[i]].path.clone();
        let content = self
            .content(&index, &positions, i)
            .ok_or_else(|| unreadable_version(n, &path, self.audience))?;
        Ok((path, content))
    }

    /// Every file of the change version `id` belongs to (one file, or all
    /// the files of a change that touched several, in the order recorded),
    /// each with what it held before that change.
    ///
    /// # Errors
    /// As [`History::version_content`], for any of the files.
    pub(crate) fn change_content(
        &self,
        id: &str,
        in_view: impl Fn(&str) -> bool,
    ) -> Result<Vec<ChangedFile>> {
        let n = parse_version_id(id, self.audience)?;
        let mut index = self.index();
        self.refresh_or_error(&mut index)?;
        let (positions, i) = self.find_version(&index, n, &in_view)?;
        let entry = &index.entries[positions[i]];
        let Some(change) = entry.change else {
            let content = self
                .content(&index, &positions, i)
                .ok_or_else(|| unreadable_version(n, &entry.path, self.audience))?;
            return Ok(vec![ChangedFile {
                version: n,
                path: entry.path.clone(),
                content,
            }]);
        };
        let members: Vec<u64> = index
            .entries
            .iter()
            .filter(|e| e.change == Some(change))
            .map(|e| e.id)
            .collect();
        let mut out = Vec::with_capacity(members.len());
        for m in members {
            // Each file keeps its own number of versions: another file of
            // the change may have had its version pruned. The files whose
            // versions remain are put back; the one asked for must be.
            let found = self
                .find_version(&index, m, &in_view)
                .and_then(|(positions, i)| {
                    let path = index.entries[positions[i]].path.clone();
                    let content = self
                        .content(&index, &positions, i)
                        .ok_or_else(|| unreadable_version(m, &path, self.audience))?;
                    Ok(ChangedFile {
                        version: m,
                        path,
                        content,
                    })
                });
            match found {
                Ok(file) => out.push(file),
                Err(_) if m != n => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// [`History::refresh`] for a lookup of one version: a journal that
    /// cannot be read is that error (an I/O error is not an unknown
    /// version), and forgets what was read of it.
    fn refresh_or_error(&self, index: &mut Index) -> Result<()> {
        self.refresh(index).map(drop).map_err(|e| {
            *index = Index::default();
            Error::io("read", &format!("{HISTORY_DIR}/{JOURNAL_FILE}"), &e)
        })
    }

    /// The entry with id `n` if it is `in_view` and retention still lists
    /// it: the positions of its file's entries and its place among them.
    fn find_version(
        &self,
        index: &Index,
        n: u64,
        in_view: &impl Fn(&str) -> bool,
    ) -> Result<(Vec<usize>, usize)> {
        let p = index
            .entries
            .binary_search_by_key(&n, |e| e.id)
            .map_err(|_| unknown_version(n, self.audience))?;
        let path = &index.entries[p].path;
        if !in_view(path) {
            return Err(unknown_version(n, self.audience));
        }
        let positions = index.positions(path);
        let i = positions.iter().position(|&q| q == p).unwrap_or(0);
        let newer = positions.len() - 1 - i;
        if newer >= self.shown() {
            return Err(unknown_version(n, self.audience));
        }
        Ok((positions, i))
    }
}

/// One file of a recorded change and what it held before it.
#[derive(Debug)]
pub(crate) struct ChangedFile {
    /// The version id's number.
    pub(crate) version: u64,
    /// The store-relative path.
    pub(crate) path: String,
    /// The content, `None` when the file did not exist.
    pub(crate) content: Option<Vec<u8>>,
}

fn unreadable_version(n: u64, path: &str, audience: Audience) -> Error {
    Error::new(
        ErrorKind::NotFound,
        format!(
            "version v{n} of {path} can no longer be read (its saved content is missing or damaged); {} to list the versions that remain",
            words::invoke(audience, Act::History)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Memory, Options, ReadSource, WriteMode, WriteReceipt, WriteTarget};

    const NOW: i64 = 1_780_125_300;
    /// The budget line after a change to a note in a store with nothing
    /// injected.
    const NOTE_BUDGET: &str = "Budget: MEMORY.md 0/200 lines, 0/25000 bytes; context block 0/32768 bytes (notes are not in it; memory_search finds them)";

    fn open_with(root: &Path, project: &str, retention: Retention, source: &str) -> Memory {
        let mut options = Options::new(project);
        options.clock = Clock {
            utc_offset_minutes: 120,
            fixed_unix_seconds: Some(NOW),
        };
        options.retention = retention;
        options.source = source.to_string();
        Memory::open(root, options).unwrap()
    }

    fn open(root: &Path) -> Memory {
        open_with(root, "/src/app", Retention::default(), "test")
    }

    fn overwrite(m: &Memory, name: &str, text: &str) -> WriteReceipt {
        m.write(WriteTarget::Note, text, WriteMode::Overwrite, Some(name))
            .unwrap()
    }

    fn ids(versions: &[Version]) -> Vec<&str> {
        versions.iter().map(|v| v.id.as_str()).collect()
    }

    fn note_history(m: &Memory, name: &str) -> Vec<Version> {
        m.history(ReadSource::Note, Some(name), None).unwrap()
    }

    fn note_text(m: &Memory, name: &str) -> Option<String> {
        fs::read_to_string(
            m.root()
                .join(format!("{}/notes/{name}.md", m.project_dir())),
        )
        .ok()
    }

    fn objects(root: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(root.join(HISTORY_DIR).join(OBJECTS_DIR))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    fn journal(root: &Path) -> String {
        fs::read_to_string(root.join(HISTORY_DIR).join(JOURNAL_FILE)).unwrap()
    }

    fn history_bytes(root: &Path) -> u64 {
        let dir = root.join(HISTORY_DIR);
        let objects: u64 = fs::read_dir(dir.join(OBJECTS_DIR))
            .unwrap()
            .flatten()
            .map(|e| e.metadata().unwrap().len())
            .sum();
        objects + fs::metadata(dir.join(JOURNAL_FILE)).unwrap().len()
    }

    #[test]
    fn overwrites_are_recorded_listed_restored_and_the_restore_undone() {
        let dir = tempfile::tempdir().unwrap();
        let m = open(dir.path());
        overwrite(&m, "n", "one\n");
        overwrite(&m, "n", "two\n");
        let listed = note_history(&m, "n");
        let path = format!("{}/notes/n.md", m.project_dir());
        assert_eq!(
            listed,
            [
                Version {
                    id: "v2".into(),
                    path: path.clone(),
                    time_unix: NOW,
                    utc_offset_minutes: 120,
                    operation: Operation::Write,
                    bytes: Some(4),
                    source: "test".into(),
                    other_path: None,
                },
                Version {
                    id: "v1".into(),
                    path: path.clone(),
                    time_unix: NOW,
                    utc_offset_minutes: 120,
                    operation: Operation::Write,
                    bytes: None,
                    source: "test".into(),
                    other_path: None,
                },
            ]
        );
        assert_eq!(m.version_text("v2").unwrap().as_deref(), Some("one\n"));
        assert_eq!(m.version_text("v1").unwrap(), None);
        let r = m.restore("v2").unwrap();
        assert_eq!(
            r.message,
            format!("Restored {path} to version v2 (4 bytes)\n{NOTE_BUDGET}")
        );
        assert_eq!(note_text(&m, "n").as_deref(), Some("one\n"));
        // The restore is a change like any other: recorded, and undoable.
        let listed = note_history(&m, "n");
        assert_eq!(ids(&listed), ["v3", "v2", "v1"]);
        assert_eq!(listed[0].operation, Operation::Restore);
        assert_eq!(listed[0].bytes, Some(4));
        assert_eq!(m.last_change().unwrap().unwrap().id, "v3");
        m.restore("v3").unwrap();
        assert_eq!(note_text(&m, "n").as_deref(), Some("two\n"));
        assert_eq!(ids(&note_history(&m, "n")), ["v4", "v3", "v2", "v1"]);
        // Two versions held "one\n": one object serves both.
        assert_eq!(objects(dir.path()).len(), 2);
    }

    #[test]
    fn restoring_did_not_exist_deletes_and_restoring_again_recreates() {
        let dir = tempfile::tempdir().unwrap();
        let m = open(dir.path());
        overwrite(&m, "gone", "keep me\n");
        let r = m.restore("v1").unwrap();
        let path = format!("{}/notes/gone.md", m.project_dir());
        assert_eq!(
            r.message,
            format!(
                "Restored {path} to version v1: it did not exist then, so it was deleted\n{NOTE_BUDGET}"
            )
        );
        assert_eq!(note_text(&m, "gone"), None);
        let again = m.restore("v1").unwrap();
        assert_eq!(
            again.message,
            format!(
                "{path} did not exist at version v1 and does not exist now; nothing changed\n{NOTE_BUDGET}"
            )
        );
        let listed = note_history(&m, "gone");
        assert_eq!(ids(&listed), ["v2", "v1"]);
        assert_eq!(
            (listed[0].operation, listed[0].bytes),
            (Operation::Restore, Some(8))
        );
        m.restore("v2").unwrap();
        assert_eq!(note_text(&m, "gone").as_deref(), Some("keep me\n"));
    }

    #[test]
    fn appends_record_a_prefix_and_undo_cuts_the_append_off() {
        let dir = tempfile::tempdir().unwrap();
        let m = open(dir.path());
        m.append_daily("first", "a").unwrap();
        m.append_daily("second", "b").unwrap();
        m.append_daily("third", "c").unwrap();
        let one = "### 09:15 — first\na\n";
        let two = format!("{one}\n### 09:15 — second\nb\n");
        let listed = m.history(ReadSource::Daily, None, None).unwrap();
        assert_eq!(ids(&listed), ["v3", "v2", "v1"]);
        assert!(listed.iter().all(|v| v.operation == Operation::Append));
        assert_eq!(
            listed.iter().map(|v| v.bytes).collect::<Vec<_>>(),
            [Some(two.len() as u64), Some(one.len() as u64), None]
        );
        // No object: an append's previous content is read from the file.
        assert!(objects(dir.path()).is_empty());
        assert_eq!(m.version_text("v3").unwrap(), Some(two.clone()));
        assert_eq!(m.version_text("v2").unwrap().as_deref(), Some(one));
        // Undo of the last append cuts it off exactly.
        let undo = m.last_change().unwrap().unwrap();
        assert_eq!(undo.id, "v3");
        m.restore(&undo.id).unwrap();
        let log = m.read(ReadSource::Daily, None).unwrap().unwrap();
        assert_eq!(log, two);
        // The restore saved the whole log, which now anchors the appends.
        assert_eq!(objects(dir.path()).len(), 1);
        m.write(WriteTarget::Daily, "replaced\n", WriteMode::Overwrite, None)
            .unwrap();
        assert_eq!(m.version_text("v2").unwrap().as_deref(), Some(one));
        assert_eq!(m.version_text("v3").unwrap(), Some(two.clone()));
        assert_eq!(
            ids(&m
                .history(ReadSource::Daily, Some("2026-05-30"), None)
                .unwrap()),
            ["v5", "v4", "v3", "v2", "v1"]
        );
    }

    #[test]
    fn a_hand_edit_of_an_appended_file_drops_the_appends_it_broke() {
        let dir = tempfile::tempdir().unwrap();
        let m = open(dir.path());
        let append = |text: &str| {
            m.write(WriteTarget::LongTerm, text, WriteMode::Append, None)
                .unwrap()
        };
        append("- one\n");
        append("- two\n");
        assert_eq!(
            ids(&m.history(ReadSource::LongTerm, None, None).unwrap()),
            ["v2", "v1"]
        );
        fs::write(dir.path().join("MEMORY.md"), "- ONE\n- two\n").unwrap();
        let listed = m.history(ReadSource::LongTerm, None, None).unwrap();
        assert_eq!(ids(&listed), ["v1"]);
        let err = m.restore("v2").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotFound);
        assert!(err.message().contains("call memory_history"), "{err}");
        assert_eq!(
            fs::read_to_string(dir.path().join("MEMORY.md")).unwrap(),
            "- ONE\n- two\n"
        );
    }

    #[test]
    fn retention_by_count_lists_the_newest_and_prunes_the_rest_from_disk() {
        let dir = tempfile::tempdir().unwrap();
        let retention = Retention {
            max_versions_per_file: 3,
            ..Retention::default()
        };
        let m = open_with(dir.path(), "/src/app", retention, "");
        for n in 1..=10 {
            overwrite(&m, "n", &format!("version {n}\n"));
        }
        assert_eq!(ids(&note_history(&m, "n")), ["v10", "v9", "v8"]);
        let limited = m.history(ReadSource::Note, Some("n"), Some(2)).unwrap();
        assert_eq!(ids(&limited), ["v10", "v9"]);
        for hidden in ["v7", "v1"] {
            let err = m.restore(hidden).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound, "{hidden}");
            assert!(err.message().contains("memory_history"), "{err}");
        }
        // The 65th entry is over 64 past the last rewrite: the journal is
        // rewritten with the newest three and the other objects deleted.
        for n in 11..=65 {
            overwrite(&m, "n", &format!("version {n}\n"));
        }
        assert_eq!(ids(&note_history(&m, "n")), ["v65", "v64", "v63"]);
        let kept: Vec<String> = [62, 63, 64]
            .iter()
            .map(|n| hex(&sha256(format!("version {n}\n").as_bytes())))
            .collect();
        let mut kept_sorted = kept.clone();
        kept_sorted.sort();
        assert_eq!(objects(dir.path()), kept_sorted);
        assert_eq!(journal(dir.path()).lines().count(), 4);
        assert_eq!(
            m.version_text("v63").unwrap().as_deref(),
            Some("version 62\n")
        );
        // Ids are not reused after the rewrite.
        overwrite(&m, "n", "version 66\n");
        assert_eq!(note_history(&m, "n")[0].id, "v66");
    }

    #[test]
    fn retention_by_bytes_keeps_the_total_in_budget_oldest_pruned_first() {
        let dir = tempfile::tempdir().unwrap();
        let retention = Retention {
            max_versions_per_file: 50,
            max_total_bytes: 16 * 1024,
        };
        let m = open_with(dir.path(), "/src/app", retention, "");
        for n in 1..=40 {
            let name = ["a", "b"][n % 2];
            overwrite(&m, name, &format!("{n:04}{}\n", "x".repeat(1000)));
            assert!(history_bytes(dir.path()) <= 16 * 1024, "after write {n}");
        }
        // The newest versions of each note survive, contiguous.
        let a = note_history(&m, "a");
        let b = note_history(&m, "b");
        assert!(a.len() >= 3 && b.len() >= 3, "{} {}", a.len(), b.len());
        assert_eq!(a[0].id, "v40");
        assert_eq!(b[0].id, "v39");
        let mut all: Vec<u64> = a
            .iter()
            .chain(&b)
            .map(|v| v.id[1..].parse().unwrap())
            .collect();
        all.sort();
        let oldest = all[0];
        assert_eq!(all, (oldest..=40).collect::<Vec<_>>());
        for v in a.iter().chain(&b) {
            assert!(m.version_text(&v.id).unwrap().is_some(), "{}", v.id);
        }
    }

    #[test]
    fn a_previous_content_too_large_is_not_saved_but_the_write_happens() {
        let dir = tempfile::tempdir().unwrap();
        let retention = Retention {
            max_versions_per_file: 50,
            max_total_bytes: 16 * 1024,
        };
        let m = open_with(dir.path(), "/src/app", retention, "");
        overwrite(&m, "big", &"y".repeat(5000));
        let r = overwrite(&m, "big", "small\n");
        let path = format!("{}/notes/big.md", m.project_dir());
        assert_eq!(
            r.message,
            format!(
                "Overwrote {path} with 6 bytes (warning: history did not save the previous version of {path} (it is 5001 bytes, more than the 4096 bytes a saved version may have); the change was made anyway)\n{NOTE_BUDGET}"
            )
        );
        assert_eq!(note_text(&m, "big").as_deref(), Some("small\n"));
        assert_eq!(ids(&note_history(&m, "big")), ["v1"]);
    }

    #[test]
    fn a_torn_last_line_is_ignored_and_the_next_entry_survives() {
        let dir = tempfile::tempdir().unwrap();
        let m = open(dir.path());
        overwrite(&m, "n", "one\n");
        overwrite(&m, "n", "two\n");
        let text = journal(dir.path());
        let last = text.lines().last().unwrap();
        let torn = &last[..last.len() / 2];
        let mut file = OpenOptions::new()
            .append(true)
            .open(dir.path().join(HISTORY_DIR).join(JOURNAL_FILE))
            .unwrap();
        file.write_all(torn.as_bytes()).unwrap();
        drop(file);
        // A fresh instance and this one (which cached the journal) agree.
        for m in [open(dir.path()), m] {
            assert_eq!(ids(&note_history(&m, "n")), ["v2", "v1"]);
        }
        let m = open(dir.path());
        overwrite(&m, "n", "three\n");
        assert_eq!(ids(&note_history(&m, "n")), ["v3", "v2", "v1"]);
        assert_eq!(m.version_text("v3").unwrap().as_deref(), Some("two\n"));
        assert!(journal(dir.path()).contains(&format!("{torn}\n")));
    }

    #[test]
    fn a_crashed_writers_temp_files_are_removed_by_the_next_writer() {
        let dir = tempfile::tempdir().unwrap();
        overwrite(&open(dir.path()), "n", "one\n");
        let temp = dir
            .path()
            .join(HISTORY_DIR)
            .join(OBJECTS_DIR)
            .join(format!(".{}.0123456789abcdef.tmp", "a".repeat(64)));
        fs::write(&temp, "half a version").unwrap();
        let journal_temp = dir.path().join(HISTORY_DIR).join(".journal.0123.tmp");
        fs::write(&journal_temp, "half a journal").unwrap();
        let m = open(dir.path());
        assert_eq!(ids(&note_history(&m, "n")), ["v1"]);
        overwrite(&m, "n", "two\n");
        assert!(!temp.exists() && !journal_temp.exists());
        assert_eq!(objects(dir.path()), [hex(&sha256(b"one\n"))]);
    }

    #[test]
    fn a_missing_object_is_left_out_and_cannot_be_restored() {
        let dir = tempfile::tempdir().unwrap();
        let m = open(dir.path());
        overwrite(&m, "n", "one\n");
        overwrite(&m, "n", "two\n");
        overwrite(&m, "n", "three\n");
        let sha = hex(&sha256(b"one\n"));
        fs::remove_file(dir.path().join(HISTORY_DIR).join(OBJECTS_DIR).join(sha)).unwrap();
        assert_eq!(ids(&note_history(&m, "n")), ["v3", "v1"]);
        let err = m.restore("v2").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotFound);
        assert_eq!(
            err.message(),
            format!(
                "version v2 of {}/notes/n.md can no longer be read (its saved content is missing or damaged); call memory_history to list the versions that remain",
                m.project_dir()
            )
        );
        assert_eq!(note_text(&m, "n").as_deref(), Some("three\n"));
        // A damaged object is as good as missing.
        let sha = hex(&sha256(b"two\n"));
        fs::write(
            dir.path().join(HISTORY_DIR).join(OBJECTS_DIR).join(sha),
            "tw0\n",
        )
        .unwrap();
        assert_eq!(
            m.version_text("v3").unwrap_err().kind(),
            ErrorKind::NotFound
        );
    }

    #[test]
    fn a_corrupt_or_unusable_journal_never_fails_a_write() {
        // Garbage: skipped, and new entries are appended after it.
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(HISTORY_DIR)).unwrap();
        fs::write(
            dir.path().join(HISTORY_DIR).join(JOURNAL_FILE),
            b"\xff\xfe garbage\nnot a line\n{\"id\":1}\n",
        )
        .unwrap();
        let m = open(dir.path());
        let r = overwrite(&m, "n", "one\n");
        assert!(!r.message.contains("warning"), "{}", r.message);
        overwrite(&m, "n", "two\n");
        assert_eq!(ids(&note_history(&m, "n")), ["v2", "v1"]);
        assert_eq!(m.version_text("v2").unwrap().as_deref(), Some("one\n"));

        // A journal that is a directory, a `.store` that is a file: the
        // write goes ahead with a warning.
        for (what, setup) in [
            ("journal", HISTORY_DIR.to_string() + "/" + JOURNAL_FILE),
            ("store", STORE_DIR.to_string()),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let at = dir.path().join(&setup);
            if what == "journal" {
                fs::create_dir_all(&at).unwrap();
            } else {
                fs::write(&at, "a file").unwrap();
            }
            let m = open(dir.path());
            let r = m
                .write(WriteTarget::LongTerm, "- fact\n", WriteMode::Append, None)
                .unwrap();
            assert!(
                r.message.starts_with(
                    "Appended 7 bytes to MEMORY.md (warning: history did not save the previous version of MEMORY.md ("
                ) && r.message.ends_with(
                    "); the change was made anyway)\nBudget: MEMORY.md 1/200 lines, 7/25000 bytes; context block 122/32768 bytes"
                ),
                "{what}: {}",
                r.message
            );
            assert_eq!(
                fs::read_to_string(dir.path().join("MEMORY.md")).unwrap(),
                "- fact\n"
            );
            assert_eq!(m.history(ReadSource::LongTerm, None, None).unwrap(), []);
            assert_eq!(m.last_change().unwrap(), None);
        }
    }

    #[test]
    fn a_forged_entry_naming_a_path_outside_the_store_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let m = open(dir.path());
        overwrite(&m, "n", "one\n");
        let mut file = OpenOptions::new()
            .append(true)
            .open(dir.path().join(HISTORY_DIR).join(JOURNAL_FILE))
            .unwrap();
        let sha = hex(&sha256(b"x"));
        for path in [
            "../escape.md",
            "/etc/escape.md",
            "projects/../../escape.md",
            "projects/.hidden/x.md",
            "projects/a/notes/x.txt",
            "notes/x.md",
        ] {
            let json = format!(
                r#"{{"id":9,"t":0,"off":0,"op":"write","path":"{path}","size":1,"sha":"{sha}","src":""}}"#
            );
            file.write_all(encode_line(&json).as_bytes()).unwrap();
        }
        drop(file);
        assert_eq!(
            m.restore("v9").unwrap_err().message(),
            "version v9 is not in this project's history (it may have been pruned); call memory_history to list the versions of a file"
        );
        assert_eq!(m.last_change().unwrap().unwrap().id, "v1");
        assert!(!dir.path().parent().unwrap().join("escape.md").exists());
    }

    #[test]
    fn other_projects_files_are_invisible_and_memory_md_is_shared() {
        let dir = tempfile::tempdir().unwrap();
        let a = open_with(dir.path(), "/src/a", Retention::default(), "agent-a");
        let b = open_with(dir.path(), "/src/b", Retention::default(), "agent-b");
        a.write(
            WriteTarget::LongTerm,
            "- shared\n",
            WriteMode::Overwrite,
            None,
        )
        .unwrap();
        overwrite(&a, "secret", "a's note\n");
        overwrite(&a, "secret", "a's note, edited\n");
        // b sees MEMORY.md's change, with a's label, and nothing of a's notes.
        let shared = b.history(ReadSource::LongTerm, None, None).unwrap();
        assert_eq!(ids(&shared), ["v1"]);
        assert_eq!(shared[0].source, "agent-a");
        assert_eq!(b.last_change().unwrap().unwrap().id, "v1");
        assert_eq!(note_history(&b, "secret"), []);
        for id in ["v2", "v3"] {
            assert_eq!(b.restore(id).unwrap_err().kind(), ErrorKind::NotFound);
            assert_eq!(b.version_text(id).unwrap_err().kind(), ErrorKind::NotFound);
        }
        assert_eq!(a.last_change().unwrap().unwrap().id, "v3");
        assert_eq!(
            note_text(&a, "secret").as_deref(),
            Some("a's note, edited\n")
        );
    }

    #[test]
    fn history_is_never_listed_searched_or_injected() {
        let dir = tempfile::tempdir().unwrap();
        let m = open(dir.path());
        for target in [
            WriteTarget::LongTerm,
            WriteTarget::Scratchpad,
            WriteTarget::Daily,
        ] {
            m.write(
                target,
                "- [ ] zebramarker old\n",
                WriteMode::Overwrite,
                None,
            )
            .unwrap();
            m.write(target, "- [ ] current\n", WriteMode::Overwrite, None)
                .unwrap();
        }
        overwrite(&m, "n", "zebramarker old\n");
        overwrite(&m, "n", "current\n");
        assert_eq!(objects(dir.path()).len(), 2);
        let listed = m.list_files().unwrap();
        assert!(
            listed.iter().all(|f| !f.path.contains(".store")),
            "{listed:?}"
        );
        assert_eq!(listed.len(), 4);
        assert!(m.search("zebramarker").unwrap().hits.is_empty());
        let block = m.context_block().unwrap().unwrap();
        assert!(!block.contains("zebramarker"), "{block}");
        assert!(block.contains("current"), "{block}");
    }

    #[test]
    fn an_identical_overwrite_records_nothing_and_off_records_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let m = open(dir.path());
        overwrite(&m, "n", "same\n");
        overwrite(&m, "n", "same\n");
        m.write(WriteTarget::Note, "", WriteMode::Append, Some("n"))
            .unwrap();
        assert_eq!(ids(&note_history(&m, "n")), ["v1"]);

        let dir = tempfile::tempdir().unwrap();
        let m = open_with(dir.path(), "/src/app", Retention::OFF, "");
        overwrite(&m, "n", "one\n");
        overwrite(&m, "n", "two\n");
        m.append_daily("entry", "body").unwrap();
        assert!(!dir.path().join(STORE_DIR).exists());
        assert_eq!(note_history(&m, "n"), []);
    }

    #[test]
    fn bad_ids_labels_and_retention_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let m = open(dir.path());
        overwrite(&m, "n", "one\n");
        for bad in [
            "",
            "1",
            "v",
            "v0",
            "v01",
            "V1",
            "x1",
            "v1a",
            "v-1",
            "v99999999999999999999",
        ] {
            let err = m.restore(bad).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotFound, "{bad:?}");
            assert_eq!(
                err.message(),
                format!(
                    "{bad:?} is not a version id (ids look like v12); call memory_history to list the versions of a file"
                )
            );
        }
        let long = "v".repeat(10_000);
        let err = m.version_text(&long).unwrap_err();
        assert!(err.message().len() < 200, "{}", err.message());
        assert_eq!(
            m.restore(" v2 ").unwrap_err().message(),
            "version v2 is not in this project's history (it may have been pruned); call memory_history to list the versions of a file"
        );
        assert_eq!(m.version_text(" v1 ").unwrap(), None);
        assert_eq!(
            m.history(ReadSource::Note, Some("n"), Some(0))
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidArguments
        );

        let try_open = |retention: Retention, source: &str| {
            let mut options = Options::new("/src/app");
            options.retention = retention;
            options.source = source.to_string();
            Memory::open(dir.path(), options).map(|_| ())
        };
        assert!(try_open(Retention::default(), &"s".repeat(128)).is_ok());
        for (source, message) in [
            (
                "s".repeat(129),
                "source label is 129 bytes; the limit is 128".to_string(),
            ),
            (
                "a\nb".to_string(),
                r#"source label "a\nb" contains line break or control character U+000A"#
                    .to_string(),
            ),
        ] {
            let err = try_open(Retention::default(), &source).unwrap_err();
            assert_eq!(
                (err.kind(), err.message()),
                (ErrorKind::InvalidOptions, message.as_str())
            );
        }
        for retention in [
            Retention {
                max_versions_per_file: 10_001,
                max_total_bytes: 1 << 20,
            },
            Retention {
                max_versions_per_file: 5,
                max_total_bytes: 4095,
            },
        ] {
            let err = try_open(retention, "").unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidOptions, "{retention:?}");
        }
        assert!(try_open(Retention::OFF, "").is_ok());
    }

    #[test]
    fn journal_lines_are_a_header_and_checksummed_entries() {
        let dir = tempfile::tempdir().unwrap();
        let m = open(dir.path());
        overwrite(&m, "n", "one\n");
        overwrite(&m, "n", "two\n");
        let text = journal(dir.path());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        let header: serde_json::Value =
            serde_json::from_str(decode_line(lines[0].as_bytes()).unwrap()).unwrap();
        assert_eq!(header["format"], "agent-memory-history");
        assert_eq!(header["v"], 1);
        let path = format!("{}/notes/n.md", m.project_dir());
        let json = format!(
            r#"{{"id":2,"t":{NOW},"off":120,"op":"write","path":"{path}","size":4,"sha":"{}","src":"test"}}"#,
            hex(&sha256(b"one\n"))
        );
        assert_eq!(lines[2], format!("{} {json}", checksum(&json)));
        // One flipped byte and the entry is gone.
        let flipped = text.replace("\"size\":4", "\"size\":5");
        fs::write(dir.path().join(HISTORY_DIR).join(JOURNAL_FILE), flipped).unwrap();
        assert_eq!(ids(&note_history(&open(dir.path()), "n")), ["v1"]);
    }
}
