//! Staleness anchors: when `MEMORY.md` or a note is written, the project
//! files it names are anchored (their SHA-256 recorded); `read`, `list`,
//! search hits and the context block then mark an entry whose anchored
//! file changed or vanished:
//!
//! ```text
//! stale: src/auth.rs changed since 2026-05-01
//! stale: src/old.rs deleted or moved since 2026-05-01
//! stale: assets/big.bin may have changed since 2026-05-01 (modified, not rehashed)
//! ```
//!
//! The host hands the project directory in as [`crate::Options::project_root`]
//! (in the component, a second preopen, read-only). It is only looked at and
//! hashed: files are opened read-only, one path component at a time, never
//! through a symbolic link. Without it nothing is anchored or marked.
//!
//! # What counts as a mention
//! The text is split into words at whitespace and at `` ` " ' ( ) [ ] < > {
//! } | , ; * = ``. A word loses trailing `. : ! ?`, a leading `./` and a line
//! reference (`:42`, `:42:7`, `:10-20`, `#L42`, `#L10-L20`). What is left
//! is a mention when it
//! - uses only letters and digits (any script) and `- _ . + @ /`, so no
//!   URL (`:`), drive letter, `~`, `$VAR`, `%VAR%`, `\` or glob;
//! - is relative and stays inside: no leading `/`, no empty, `.`, `..` or
//!   `.git` segment, not `www.`…;
//! - is at most 256 bytes and 16 segments;
//! - and has a `/` (`src/auth.rs`, `docs/a.md`), or a known source or
//!   config extension (`README.md`, `Cargo.toml`), or is a known bare name
//!   (`Makefile`, `Dockerfile`, `.gitignore`, …).
//!
//! A mention is anchored only when it is a regular file in the project when
//! the memory file is written (another hard link to it is fine: it reveals
//! nothing outside the project). The first 1 MiB of a memory file is
//! scanned, its first 512 distinct mentions looked up, and at most 256
//! anchored; a project holds at most 4096 anchors (a write past that
//! anchors fewer). One write hashes at most 32 MiB; files past that, and
//! files over 4 MiB, are anchored by size and mtime only.
//!
//! # What is anchored, and when
//! Only `MEMORY.md` and notes: daily logs and the scratchpad record moments,
//! not facts about the code. Every write through the store re-anchors the
//! file written from its whole new text (an append or an edit too, so it
//! clears the marks of mentions it did not touch: a write means the
//! memory is current). `Memory::refresh` does the same without writing.
//! Deleting a note drops its anchors; renaming it (or its folder) moves
//! them. A memory file changed outside the store keeps its anchors, but
//! only those it still mentions count. `MEMORY.md` is shared by every
//! project: each project anchors its own copy when it writes it.
//!
//! # Checking, and its bounds
//! An anchor whose file has the same size and mtime is fresh without
//! reading it. Otherwise: a different size is a change; the same size is
//! rehashed (a file of at most 4 MiB, within the call's budget of 8 MiB
//! and 64 files): the same hash is fresh (and the new mtime is stored, so
//! the next check costs a stat again), a different one is a change (its
//! stamp is stored too, so it is not rehashed again). A file over 4 MiB is
//! anchored by size and mtime only, and one that cannot be rehashed now is
//! marked `may have changed`. A file that is missing, no longer a regular
//! file, or reached through a symbolic link is `deleted or moved`; one the
//! filesystem refuses to show is not marked. The stored updates are a
//! cache: written only when the store's lock is free at once.
//!
//! # Side data
//! `<root>/.store/anchors/<project-slug>.json`, replaced atomically under
//! the store's lock. A missing, corrupt or oversized file loses the marks
//! and fails nothing; paths read back from it are validated again.

mod mentions;
pub(crate) mod project;
pub(crate) mod side;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;

pub use mentions::{MAX_MENTION_BYTES, MAX_MENTION_SEGMENTS, MAX_MENTIONS, mention, mentions};
pub(crate) use side::SideCache;
pub use side::{ANCHORS_DIR, MAX_SIDE_BYTES, SIDE_DIR};

use crate::fsio::Stamp;
use project::{Look, Project, hex};
use side::Anchor;

/// Largest project file hashed; a larger one is anchored by size and mtime.
pub const MAX_HASH_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Bytes one check (a read, list, search or context block) may hash.
pub const CHECK_HASH_BUDGET_BYTES: u64 = 8 * 1024 * 1024;
/// Files one check may hash.
pub const CHECK_HASH_BUDGET_FILES: usize = 64;
/// Bytes one anchoring (a write or refresh) may hash; later files are
/// anchored by size and mtime.
pub const WRITE_HASH_BUDGET_BYTES: u64 = 32 * 1024 * 1024;
/// Bytes of a memory file scanned for mentions.
pub const MAX_SCAN_BYTES: usize = 1024 * 1024;
/// Most anchors of one memory file.
pub const MAX_ANCHORS_PER_FILE: usize = 256;
/// Most anchors of one project, over all its memory files.
pub const MAX_ANCHORS_PER_PROJECT: usize = 4096;
/// Mark lines shown for one entry before the rest are counted.
pub const MAX_MARK_LINES: usize = 5;
/// Lines of the context block's stale-notes section.
pub const MAX_STALE_NOTE_LINES: usize = 10;

/// What happened to an anchored file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Its content differs (another size or another SHA-256).
    Changed,
    /// It is missing, no longer a regular file, or behind a symbolic link.
    Deleted,
    /// It was modified (another mtime) but could not be compared now: too
    /// large to hash, or the call's hashing budget was spent.
    Unverified,
}

/// A staleness mark: an anchored project file of a memory file changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// Project-relative path of the anchored file.
    pub path: String,
    /// What happened to it.
    pub change: Change,
    /// The local date it was anchored, `YYYY-MM-DD`.
    pub since: String,
}

impl fmt::Display for Stale {
    /// One line: `stale: src/auth.rs changed since 2026-05-01`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.change {
            Change::Changed => "changed",
            Change::Deleted => "deleted or moved",
            Change::Unverified => "may have changed",
        };
        write!(f, "stale: {} {what} since {}", self.path, self.since)?;
        if self.change == Change::Unverified {
            f.write_str(" (modified, not rehashed)")?;
        }
        Ok(())
    }
}

/// The outcome of `Memory::refresh`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshReceipt {
    /// Store-relative path of the memory file.
    pub path: String,
    /// Project-relative paths anchored now, in order of mention.
    pub anchored: Vec<String>,
    /// How full the injected memory is after it (see [`crate::Budget`]).
    pub budget: crate::Budget,
    /// For the model: one line, then the budget line (see
    /// [`crate::Budget::text`]).
    pub message: String,
}

/// `marks` as lines for one entry, at most [`MAX_MARK_LINES`] and about
/// `room` bytes (a last line counts the rest); empty when there are none.
pub fn render_marks(marks: &[Stale], room: usize) -> String {
    let mut out = String::new();
    for (i, mark) in marks.iter().enumerate() {
        let line = mark.to_string();
        let rest = marks.len() - i;
        let summary = more_line(rest);
        let needed = line.len() + 1 + if rest > 1 { summary.len() + 1 } else { 0 };
        if i == MAX_MARK_LINES || out.len() + needed > room {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&summary);
            return out;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&line);
    }
    out
}

/// `marks` as the lines `list-files` reports: [`render_marks`] within
/// 2 KiB, one string a line.
pub fn mark_lines(marks: &[Stale]) -> Vec<String> {
    render_marks(marks, 2048)
        .lines()
        .map(str::to_string)
        .collect()
}

fn more_line(n: usize) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("stale: {n} more anchored file{s} changed or gone")
}

/// What one check says about one anchor.
pub(crate) enum Verdict {
    Fresh,
    /// Fresh after a rehash: store this stamp.
    Restamped(Stamp),
    /// Stale; for a content change found by hashing, the stamp to remember.
    Stale(Change, Option<Stamp>),
    /// The filesystem would not say.
    Unknown,
}

/// One check pass over a project: lookups and hashes made once per path,
/// hashing within the budget.
pub(crate) struct Checker<'a> {
    pub(crate) project: Project,
    pub(crate) looks: HashMap<&'a str, Look>,
    pub(crate) hashes: HashMap<&'a str, Option<(Stamp, String)>>,
    pub(crate) bytes_left: u64,
    pub(crate) files_left: usize,
}

impl<'a> Checker<'a> {
    pub(crate) fn new(project: Project) -> Checker<'a> {
        Checker {
            project,
            looks: HashMap::new(),
            hashes: HashMap::new(),
            bytes_left: CHECK_HASH_BUDGET_BYTES,
            files_left: CHECK_HASH_BUDGET_FILES,
        }
    }

    pub(crate) fn look(&mut self, path: &'a str) -> Look {
        *self
            .looks
            .entry(path)
            .or_insert_with(|| self.project.look(path))
    }

    /// The hash of `path`, now `stamp`, when the budget allows.
    pub(crate) fn hash(&mut self, path: &'a str, stamp: Stamp) -> Option<(Stamp, String)> {
        if let Some(known) = self.hashes.get(path) {
            return known.clone();
        }
        if stamp.len > MAX_HASH_FILE_BYTES || self.files_left == 0 || stamp.len > self.bytes_left {
            // Not cached: a later anchor of the same path gets the same
            // answer from the same budget check.
            return None;
        }
        self.files_left -= 1;
        self.bytes_left -= stamp.len;
        let hashed = self
            .project
            .hash(path, MAX_HASH_FILE_BYTES)
            .map(|(s, digest)| (s, hex(&digest)));
        self.hashes.insert(path, hashed.clone());
        hashed
    }

    pub(crate) fn check(&mut self, anchor: &'a Anchor) -> Verdict {
        let now = match self.look(&anchor.path) {
            Look::Unknown => return Verdict::Unknown,
            Look::Gone => return Verdict::Stale(Change::Deleted, None),
            Look::File(now) => now,
        };
        if now == anchor.stamp() {
            return Verdict::Fresh;
        }
        if now.len != anchor.size || anchor.changed == Some((now.len, now.mtime_ns)) {
            return Verdict::Stale(Change::Changed, None);
        }
        let Some(expected) = &anchor.sha256 else {
            return Verdict::Stale(Change::Unverified, None);
        };
        match self.hash(&anchor.path, now) {
            Some((seen, digest)) if &digest == expected => Verdict::Restamped(seen),
            Some((seen, _)) => Verdict::Stale(Change::Changed, Some(seen)),
            None => Verdict::Stale(Change::Unverified, None),
        }
    }
}

/// A check's finding worth keeping in the side file.
pub(crate) struct Update {
    pub(crate) key: String,
    pub(crate) path: String,
    /// The anchor as it was read, to find it again.
    pub(crate) was: Stamp,
    pub(crate) sha256: Option<String>,
    /// Fresh at this stamp (`true`) or changed at it.
    pub(crate) fresh: bool,
    pub(crate) stamp: Stamp,
}
