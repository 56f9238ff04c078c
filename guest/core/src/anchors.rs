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
//! memory is current). [`Memory::refresh`] does the same without writing.
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
mod project;
mod side;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::Path;

pub use mentions::{MAX_MENTION_BYTES, MAX_MENTION_SEGMENTS, MAX_MENTIONS, mention, mentions};
pub(crate) use side::SideCache;
pub use side::{ANCHORS_DIR, MAX_SIDE_BYTES, SIDE_DIR};

use crate::context::Marks;
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::{self, LockGuard, LockPolicy, Stamp};
use crate::store::{Memory, WriteTarget};
use crate::text::prefix_at_char_boundary;
use project::{Look, Project, hex};
use side::{Anchor, Entry};

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

/// The outcome of [`Memory::refresh`].
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
enum Verdict {
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
struct Checker<'a> {
    project: Project,
    looks: HashMap<&'a str, Look>,
    hashes: HashMap<&'a str, Option<(Stamp, String)>>,
    bytes_left: u64,
    files_left: usize,
}

impl<'a> Checker<'a> {
    fn new(project: Project) -> Checker<'a> {
        Checker {
            project,
            looks: HashMap::new(),
            hashes: HashMap::new(),
            bytes_left: CHECK_HASH_BUDGET_BYTES,
            files_left: CHECK_HASH_BUDGET_FILES,
        }
    }

    fn look(&mut self, path: &'a str) -> Look {
        *self
            .looks
            .entry(path)
            .or_insert_with(|| self.project.look(path))
    }

    /// The hash of `path`, now `stamp`, when the budget allows.
    fn hash(&mut self, path: &'a str, stamp: Stamp) -> Option<(Stamp, String)> {
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

    fn check(&mut self, anchor: &'a Anchor) -> Verdict {
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
struct Update {
    key: String,
    path: String,
    /// The anchor as it was read, to find it again.
    was: Stamp,
    sha256: Option<String>,
    /// Fresh at this stamp (`true`) or changed at it.
    fresh: bool,
    stamp: Stamp,
}

impl Memory {
    /// Is the store-relative `path` a file whose mentions are anchored:
    /// `MEMORY.md` or a note (of the team store: `team:MEMORY.md`, a team
    /// note)?
    pub(crate) fn is_anchored(&self, path: &str) -> bool {
        path == self.long_term_rel().path()
            || path
                .strip_prefix(self.notes_dir().as_str())
                .is_some_and(|rest| rest.starts_with('/') && rest.ends_with(".md"))
    }

    /// The text of the memory file `path` scanned for mentions: its first
    /// [`MAX_SCAN_BYTES`], never read through a symbolic link folder.
    fn scan_text(&self, path: &str) -> Option<String> {
        if let Some((dir, _)) = path.rsplit_once('/')
            && !matches!(self.ensure_dir(dir, false), Ok(true))
        {
            return None;
        }
        fsio::read_head(&self.abs(path), MAX_SCAN_BYTES as u64)
            .ok()
            .flatten()
            .map(|(text, _)| text)
    }

    /// After a write of the store-relative `path` (holding `lock`): anchor
    /// what its new text mentions. `text` is the whole new file when the
    /// caller has it; otherwise it is read. Best effort: a failure leaves
    /// the old anchors or none, and never fails the write.
    pub(crate) fn anchor_written(&self, lock: &LockGuard, path: &str, text: Option<&str>) {
        if !self.is_anchored(path) {
            return;
        }
        match self.project_root() {
            Some(root) => {
                let _ = self.reanchor(lock, root, path, text);
            }
            // No project: nothing to anchor against, and old anchors would
            // describe text that is gone.
            None => self.forget_anchors(lock, path),
        }
    }

    /// After an append to `path` of text starting at byte `start`: when
    /// that is within the [`MAX_SCAN_BYTES`] scanned for mentions, anchor
    /// afresh as after a write; past it, only the file's stamp moves (its
    /// mentions are where they were), so a large file's append costs what
    /// it adds.
    pub(crate) fn anchor_appended(&self, lock: &LockGuard, path: &str, start: u64) {
        if !self.is_anchored(path) {
            return;
        }
        if start < MAX_SCAN_BYTES as u64 {
            self.anchor_written(lock, path, None);
            return;
        }
        let mut side = self.load_side();
        let Some(entry) = side.files.get_mut(path) else {
            return;
        };
        if let Ok(Some(stamp)) = fsio::file_stamp(&self.abs(path)) {
            entry.size = stamp.len;
            entry.mtime_ns = stamp.mtime_ns;
            let _ = self.save_side(lock, &mut side);
        }
    }

    /// Anchor the mentions of `path` afresh. `Ok(None)` when the project
    /// directory cannot be opened (the old anchors are dropped).
    fn reanchor(
        &self,
        lock: &LockGuard,
        root: &Path,
        path: &str,
        text: Option<&str>,
    ) -> std::io::Result<Option<Vec<String>>> {
        let mut side = self.load_side();
        let previous = side.files.remove(path);
        let stamp = fsio::file_stamp(&self.abs(path))?;
        let read;
        let text = match text {
            Some(text) => Some(prefix_at_char_boundary(text, MAX_SCAN_BYTES)),
            None => {
                read = self.scan_text(path);
                read.as_deref()
            }
        };
        let project = Project::open(root);
        let opened = project.is_some();
        let mut anchors = Vec::new();
        if let (Some(stamp), Some(text), Some(mut project)) = (stamp, text, project) {
            let others: usize = side.files.values().map(|e| e.anchors.len()).sum();
            let room = MAX_ANCHORS_PER_FILE.min(MAX_ANCHORS_PER_PROJECT.saturating_sub(others));
            let today = self.today().to_string();
            let mut budget = WRITE_HASH_BUDGET_BYTES;
            for path in mentions(text) {
                if anchors.len() == room {
                    break;
                }
                let Look::File(mut now) = project.look(&path) else {
                    continue;
                };
                let reused = previous.as_ref().and_then(|p| {
                    p.anchors
                        .iter()
                        .find(|a| a.path == path && a.stamp() == now && a.sha256.is_some())
                        .and_then(|a| a.sha256.clone())
                });
                let sha256 = match reused {
                    Some(sha) => Some(sha),
                    None if now.len <= MAX_HASH_FILE_BYTES && now.len <= budget => {
                        budget -= now.len;
                        project
                            .hash(&path, MAX_HASH_FILE_BYTES)
                            .map(|(seen, digest)| {
                                now = seen;
                                hex(&digest)
                            })
                    }
                    None => None,
                };
                anchors.push(Anchor {
                    path,
                    sha256,
                    size: now.len,
                    mtime_ns: now.mtime_ns,
                    date: today.clone(),
                    changed: None,
                });
            }
            let names = anchors.iter().map(|a| a.path.clone()).collect();
            if !anchors.is_empty() {
                side.files.insert(
                    path.to_string(),
                    Entry {
                        size: stamp.len,
                        mtime_ns: stamp.mtime_ns,
                        anchors,
                    },
                );
            }
            if previous.is_some() || side.files.contains_key(path) {
                self.save_side(lock, &mut side)?;
            }
            return Ok(Some(names));
        }
        if previous.is_some() {
            self.save_side(lock, &mut side)?;
        }
        Ok(if !opened && stamp.is_some() {
            None
        } else {
            Some(Vec::new())
        })
    }

    /// Drop the anchors of the memory file `path` (deleted). Best effort.
    pub(crate) fn forget_anchors(&self, lock: &LockGuard, path: &str) {
        let mut side = self.load_side();
        if side.files.remove(path).is_some() {
            let _ = self.save_side(lock, &mut side);
        }
    }

    /// Move the anchors of the memory file `from` to `to` (renamed); with
    /// `folder`, of every file under the folder `from` to the same place
    /// under `to`. Best effort.
    pub(crate) fn move_anchors(&self, lock: &LockGuard, from: &str, to: &str, folder: bool) {
        let mut side = self.load_side();
        let moved: Vec<String> = if folder {
            let prefix = format!("{from}/");
            side.files
                .keys()
                .filter(|k| k.starts_with(&prefix))
                .cloned()
                .collect()
        } else {
            side.files.keys().filter(|k| *k == from).cloned().collect()
        };
        if moved.is_empty() {
            return;
        }
        for key in moved {
            if let Some(entry) = side.files.remove(&key) {
                let new_key = format!("{to}{}", &key[from.len()..]);
                side.files.insert(new_key, entry);
            }
        }
        let _ = self.save_side(lock, &mut side);
    }

    /// Re-anchor the project files that `MEMORY.md` (`target` long_term) or
    /// the note `name` (`target` note) mentions, without rewriting it: the
    /// answer to a stale mark once the memory has been checked and still
    /// holds. Mentions are found and anchored as on a write (see the module
    /// docs); the anchors are dated today.
    ///
    /// # Errors
    /// `invalid-target` for a target other than long_term or note;
    /// `missing-name`, `invalid-name`; `not-found` when the file does not
    /// exist; `not-a-file`; `busy`; `io` when the anchors cannot be saved.
    pub fn refresh(&self, target: WriteTarget, name: Option<&str>) -> Result<RefreshReceipt> {
        let rel = match target {
            WriteTarget::LongTerm => self.long_term_rel(),
            WriteTarget::Note => self.note_rel(name)?,
            other => {
                return Err(Error::new(
                    ErrorKind::InvalidTarget,
                    format!(
                        "cannot refresh target {:?}: only long_term (MEMORY.md) and note files are anchored",
                        other.tool_word()
                    ),
                ));
            }
        };
        let path = rel.path();
        let lock = self.lock()?;
        let exists = (rel.dir.is_empty() || self.ensure_dir(&rel.dir, false)?)
            && matches!(self.file_kind(&path)?, fsio::Kind::File(_));
        if !exists {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!(
                    "cannot refresh `{path}`: the file does not exist; list the files to find the right one"
                ),
            ));
        }
        let outcome = match self.project_root() {
            None => None,
            Some(root) => self
                .reanchor(&lock, root, &path, None)
                .map_err(|e| Error::io("save the anchors of", &path, &e))?,
        };
        let mut message = match &outcome {
            None if self.project_root().is_none() => format!(
                "Nothing anchored for {path}: the host gave no project directory, so anchors are off"
            ),
            None => {
                format!("Nothing anchored for {path}: the project directory cannot be opened")
            }
            Some(anchored) if anchored.is_empty() => format!(
                "Refreshed {path}: it names no project file that exists, so nothing is anchored"
            ),
            Some(anchored) => {
                let shown: Vec<&str> = anchored.iter().take(10).map(String::as_str).collect();
                let more = anchored.len() - shown.len();
                let more = if more > 0 {
                    format!(", and {more} more")
                } else {
                    String::new()
                };
                let s = if anchored.len() == 1 { "" } else { "s" };
                format!(
                    "Refreshed {path}: anchored {} project file{s} as of {} ({}{more})",
                    anchored.len(),
                    self.today(),
                    shown.join(", ")
                )
            }
        };
        // The marks it cleared leave the block: how full it is now, with
        // the lock still held.
        let budget = self.budget_after(&path, 0..0);
        crate::store::push_budget(&mut message, &budget);
        Ok(RefreshReceipt {
            path,
            anchored: outcome.unwrap_or_default(),
            budget,
            message,
        })
    }

    /// Check the anchors of the memory files `wanted` accepts (by
    /// store-relative path) in one pass: the stale marks of each file that
    /// has any. Empty without a project directory. Never fails.
    pub(crate) fn check_anchors(
        &self,
        wanted: &dyn Fn(&str) -> bool,
    ) -> BTreeMap<String, Vec<Stale>> {
        let mut out = BTreeMap::new();
        let Some(root) = self.project_root() else {
            return out;
        };
        let side = self.load_side_shared();
        if !side.files.keys().any(|k| wanted(k)) {
            return out;
        }
        let Some(project) = Project::open(root) else {
            return out;
        };
        let mut checker = Checker::new(project);
        let mut updates = Vec::new();
        for (key, entry) in side.files.iter().filter(|(k, _)| wanted(k)) {
            // A memory file that is gone has nothing to mark.
            let Ok(Some(stamp)) = fsio::file_stamp(&self.abs(key)) else {
                continue;
            };
            // Changed outside the store since it was anchored: only what
            // it still mentions counts.
            let current: Option<HashSet<String>> =
                (stamp.len != entry.size || stamp.mtime_ns != entry.mtime_ns).then(|| {
                    self.scan_text(key)
                        .map(|t| mentions(&t).into_iter().collect())
                        .unwrap_or_default()
                });
            let mut marks = Vec::new();
            for anchor in &entry.anchors {
                if current.as_ref().is_some_and(|c| !c.contains(&anchor.path)) {
                    continue;
                }
                let update = |fresh, stamp| Update {
                    key: key.clone(),
                    path: anchor.path.clone(),
                    was: anchor.stamp(),
                    sha256: anchor.sha256.clone(),
                    fresh,
                    stamp,
                };
                match checker.check(anchor) {
                    Verdict::Fresh | Verdict::Unknown => {}
                    Verdict::Restamped(stamp) => updates.push(update(true, stamp)),
                    Verdict::Stale(change, seen) => {
                        if let Some(stamp) = seen {
                            updates.push(update(false, stamp));
                        }
                        marks.push(Stale {
                            path: anchor.path.clone(),
                            change,
                            since: anchor.date.clone(),
                        });
                    }
                }
            }
            if !marks.is_empty() {
                out.insert(key.clone(), marks);
            }
        }
        if !updates.is_empty() {
            self.store_updates(&updates);
        }
        out
    }

    /// Keep what a check learned (new mtimes of unchanged files, stamps of
    /// changed ones), when the lock is free at once: a cache, so a busy
    /// store just rehashes next time.
    fn store_updates(&self, updates: &[Update]) {
        let policy = LockPolicy {
            lease: self.limits().lock_lease,
            wait: std::time::Duration::ZERO,
        };
        let Ok(lock) = fsio::lock(self.root(), policy) else {
            return;
        };
        // Read again under the lock: a writer may have re-anchored since.
        let mut side = self.load_side();
        let mut changed = false;
        for u in updates {
            let Some(entry) = side.files.get_mut(&u.key) else {
                continue;
            };
            for a in entry
                .anchors
                .iter_mut()
                .filter(|a| a.path == u.path && a.stamp() == u.was && a.sha256 == u.sha256)
            {
                if u.fresh {
                    a.size = u.stamp.len;
                    a.mtime_ns = u.stamp.mtime_ns;
                    a.changed = None;
                } else {
                    a.changed = Some((u.stamp.len, u.stamp.mtime_ns));
                }
                changed = true;
            }
        }
        if changed {
            let _ = self.save_side(&lock, &mut side);
        }
    }

    /// The marks of the one memory file `path`, rendered for `room` bytes;
    /// empty when it has none.
    pub(crate) fn marks_text(&self, path: &str, room: usize) -> String {
        if self.project_root().is_none() || !self.is_anchored(path) {
            return String::new();
        }
        let marks = self.check_anchors(&|k| k == path);
        marks
            .get(path)
            .map(|m| render_marks(m, room))
            .unwrap_or_default()
    }

    /// Put the context block's marks into `sources`: lines for `MEMORY.md`,
    /// for the team's `MEMORY.md`, and for the stale-notes section (`…
    /// (note auth)`, `… (team note deploy)`), each bounded. A team store
    /// marks its own files only; a personal one marks its team's too.
    pub(crate) fn add_marks(&self, sources: &mut crate::context::Sources) {
        let mut marks = Marks::default();
        let mut notes = Vec::new();
        for store in [Some(self), self.team_store()].into_iter().flatten() {
            if store.project_root().is_none() {
                continue;
            }
            let mut all = store.check_anchors(&|_| true);
            let index = all
                .remove(&store.long_term_rel().path())
                .map(|m| render_marks(&m, 2048).lines().map(str::to_string).collect())
                .unwrap_or_default();
            let (kind, lines) = if store.is_team() {
                ("team note", &mut marks.team)
            } else {
                ("note", &mut marks.long_term)
            };
            *lines = index;
            let notes_dir = store.notes_dir();
            for (key, found) in all {
                let name = key
                    .strip_prefix(notes_dir.as_str())
                    .map_or(key.as_str(), |r| r.trim_start_matches('/'));
                let name = name.strip_suffix(".md").unwrap_or(name).to_string();
                notes.extend(found.into_iter().map(|mark| (kind, name.clone(), mark)));
            }
        }
        let total = notes.len();
        marks.notes = notes
            .into_iter()
            .take(MAX_STALE_NOTE_LINES)
            .map(|(kind, name, mark)| format!("{mark} ({kind} {name})"))
            .collect();
        if marks.notes.len() < total {
            let more = total - marks.notes.len();
            let s = if more == 1 { "" } else { "s" };
            marks.notes.push(format!(
                "stale: {more} more anchored file{s} of notes changed or gone"
            ));
        }
        sources.marks = marks;
    }
}
