//! The store's side of staleness anchors (see [`crate::anchors`]): anchor
//! what a change wrote, move or drop anchors with the files, check them for
//! the marks, and keep this project's anchors file.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use super::{Memory, WriteTarget};
use crate::anchors::project::{Look, Project, hex};
use crate::anchors::side::{ANCHORS_DIR, Anchor, Entry, MAX_SIDE_BYTES, Side, VERSION};
use crate::anchors::*;
use crate::context::Marks;
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::{self, LockGuard, LockPolicy};
use crate::text::prefix_at_char_boundary;

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
        self.ensure_git_files();
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

impl Memory {
    /// The file name of this project's anchors, in [`ANCHORS_DIR`].
    fn side_file(&self) -> String {
        format!("{}.json", self.slug())
    }

    /// This project's anchors; empty when the file is missing, unreadable,
    /// oversized, not valid JSON of this version, or reached through a
    /// symbolic link.
    pub(crate) fn load_side(&self) -> Side {
        Side::clone(&self.load_side_shared())
    }

    /// As [`Memory::load_side`], shared: parsed once per content. The
    /// file is read every time and compared byte for byte with the text
    /// last parsed, so a change is never missed, whatever the timestamps.
    pub(crate) fn load_side_shared(&self) -> Arc<Side> {
        if !matches!(self.ensure_dir(ANCHORS_DIR, false), Ok(true)) {
            return Arc::default();
        }
        let path = self.abs(&format!("{ANCHORS_DIR}/{}", self.side_file()));
        let Ok(Some((text, len))) = fsio::read_head(&path, MAX_SIDE_BYTES + 1) else {
            return Arc::default();
        };
        if len > MAX_SIDE_BYTES {
            return Arc::default();
        }
        let cache = self.side_cache();
        let mut cached = cache
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((seen, side)) = cached.as_ref()
            && *seen == text
        {
            return Arc::clone(side);
        }
        let side = match serde_json::from_str::<Side>(&text) {
            Ok(side) if side.version == VERSION => {
                Arc::new(side.sanitized(|key| self.is_anchored(key)))
            }
            _ => Arc::default(),
        };
        *cached = Some((text, Arc::clone(&side)));
        side
    }

    /// Replace this project's anchors file atomically. Caller holds `lock`.
    pub(crate) fn save_side(&self, lock: &LockGuard, side: &mut Side) -> std::io::Result<()> {
        self.ensure_dir(ANCHORS_DIR, true)
            .map_err(|e| std::io::Error::other(e.message().to_string()))?;
        let dir = self.abs(ANCHORS_DIR);
        fsio::remove_leftovers(&dir);
        side.version = VERSION;
        let bytes = serde_json::to_vec(side).map_err(std::io::Error::other)?;
        // A cache: atomic for readers, not synced (a crash may leave it
        // cut, which reads as no anchors).
        fsio::replace_cache(&dir, &self.side_file(), &bytes, lock)
    }
}
