//! Team memory: the project's shared store, `<project root>/.agent-memory/`,
//! kept in git and preopened by the host as a second directory.
//!
//! # Layout
//!
//! ```text
//! .agent-memory/
//! ├── MEMORY.md             the team's index, shown in the context block
//! ├── notes/<name>.md       the team's notes (nested topics too)
//! ├── snapshot/TAKEN        `<unix> <offset minutes> <local time>`
//! ├── snapshot/notes/…      a copy of one person's notes (take-snapshot)
//! ├── .gitattributes        `MEMORY.md merge=union` (written once)
//! ├── .gitignore            ignores the dot files below (written once)
//! ├── .agent-memory.lock    the team directory's own write lock
//! └── .store/               this clone's history and search index
//! ```
//!
//! A team [`Memory`] is the same store code with another layout: its paths
//! start with [`TEAM_PREFIX`] (`team:notes/deploy.md`), which
//! [`Memory::abs`] maps onto the team directory, so every message, receipt
//! and search hit names a team file distinctly.
//!
//! # History
//!
//! Team changes are recorded in `.store/history/` of the team directory:
//! git-ignored, so each clone keeps the history of the changes made through
//! it, and nothing of one person's undo trail is pushed. Changes that arrive
//! through git (a pull, a merge) are git's history, not the store's.
//!
//! # Merging
//!
//! `MEMORY.md` gets git's built-in union merge: it is an index of one-line
//! entries that agents append to, and a union keeps every line of both
//! sides instead of stopping at a conflict. The price: when one side edits
//! or deletes a line that the other side's change touches too, both
//! versions of that line survive the merge (an edit keeps the old line
//! next to the new one, a deleted line can come back). Near-duplicate
//! warnings and the index cap make that visible; fix it with an edit.
//! Notes are edited in place, so they merge normally: changes to different
//! parts merge, changes to the same lines conflict, and the markers git
//! leaves are found ([`conflict_line`]), flagged in the context block and
//! refused for writes until someone resolves them.

use crate::words::{self, Act};
use std::fs;
use std::io::Write;

use super::{Layout, Memory, Rel, Step, WriteMode};
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::{self, Kind};
use crate::history::{History, Operation};
use crate::limits::INDEX_MAX_BYTES;
use crate::names::note_name;
use crate::secrets::SecretPolicy;
use crate::store::curate::MAX_EDIT_FILE_BYTES;
use crate::time::LocalTime;
use agent_memory_vocab::Scope;

pub use crate::layout::TEAM_PREFIX;

/// `.gitattributes` as first written into the team directory.
pub const GITATTRIBUTES: &str = "\
# Written by agent-memory when the team memory was first used; it is never
# overwritten, so edit it freely.
# MEMORY.md is an index that agents append one-line entries to: a union merge
# keeps the lines of both sides instead of a conflict. Notes are edited in
# place and merge normally; agent-memory flags the conflicts git leaves.
MEMORY.md merge=union
";

/// `.gitignore` as first written into the team directory.
pub const GITIGNORE: &str = "\
# Written by agent-memory; never overwritten. The store's own files (its
# lock, temp files of writes in flight, this clone's history and search
# index) all start with a dot and are not shared.
.*
!.gitignore
!.gitattributes
";

/// Bytes of a team file the context block looks at for conflict markers.
const MAX_CONFLICT_SCAN_BYTES: u64 = 1 << 20;
/// Team files the context block looks at for conflict markers.
const MAX_CONFLICT_FILES: usize = 500;
/// Conflicted files the context block names before it only counts.
const MAX_CONFLICTS_LISTED: usize = 20;
/// The snapshot's folder in the team directory.
const SNAPSHOT_DIR: &str = "snapshot";
/// The snapshot's timestamp file.
const TAKEN_FILE: &str = "TAKEN";
/// Which snapshot this project last applied: a hidden file in its
/// personal directory, so never listed, searched or injected.
const APPLIED_FILE: &str = ".snapshot-applied";
/// Notes a snapshot holds at most.
const MAX_SNAPSHOT_NOTES: usize = 10_000;

/// The store paths of the notes a snapshot leaves out.
type Skipped = Vec<String>;

/// The 1-based line of the first unresolved git conflict in `text`: a line
/// `<<<<<<<` (alone or followed by a space and a label), later a line
/// `=======`, later a line `>>>>>>>`. One marker alone (a Markdown
/// underline of `=`, a quoted `>>>>>>>`) is not a conflict.
pub fn conflict_line(text: &str) -> Option<u32> {
    let mut open = None;
    let mut separated = false;
    for (i, line) in text.lines().enumerate() {
        if is_marker(line, '<') {
            open = Some(i as u32 + 1);
            separated = false;
        } else if open.is_some() && is_marker(line, '=') {
            separated = true;
        } else if separated && is_marker(line, '>') {
            return open;
        }
    }
    None
}

/// Seven `c` at the start of `line`, then the end of the line (trailing
/// whitespace aside) or, for `<` and `>`, a space and a label.
fn is_marker(line: &str, c: char) -> bool {
    let Some(rest) = line.strip_prefix(&c.to_string().repeat(7)) else {
        return false;
    };
    let rest = rest.trim_end();
    rest.is_empty() || (c != '=' && rest.starts_with(' '))
}

/// A snapshot of one person's notes in the team directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    /// When it was taken, Unix seconds.
    pub taken_unix: i64,
    /// The taker's UTC offset then, minutes east.
    pub utc_offset_minutes: i32,
    /// Notes it holds, or notes applied.
    pub notes: u32,
    /// One line for people.
    pub message: String,
}

impl SnapshotInfo {
    /// `2026-05-30 09:15 +02:00`.
    fn when(&self) -> String {
        local_text(self.taken_unix, self.utc_offset_minutes)
    }
}

fn local_text(unix: i64, offset: i32) -> String {
    let local = LocalTime::from_unix(unix, offset);
    let sign = if offset < 0 { '-' } else { '+' };
    let off = offset.unsigned_abs();
    format!(
        "{} {} {sign}{:02}:{:02}",
        local.date,
        local.hh_mm(),
        off / 60,
        off % 60
    )
}

impl Memory {
    /// This memory with the team store in the directory `dir` (the
    /// project's `.agent-memory/`, which should exist). Creates nothing on
    /// disk; the first write creates `.gitattributes` and `.gitignore`.
    pub fn with_team(mut self, dir: impl Into<std::path::PathBuf>) -> Memory {
        let root = dir.into();
        let mut history = History::new(
            &root,
            self.history.retention(),
            self.history.source().to_string(),
        );
        history.set_audience(self.audience);
        let team = Memory {
            history,
            audience: self.audience,
            root,
            slug: self.slug.clone(),
            clock: self.clock,
            limits: self.limits,
            secrets: SecretPolicy::Block,
            // The team directory lives in the project: its notes name the
            // same project files, anchored in its own git-ignored
            // `.store/anchors/` (each clone anchors what it wrote).
            project_root: self.project_root.clone(),
            side_cache: Default::default(),
            layout: Layout::Team,
            team: None,
            review: self.review,
            dry: None,
            // The personal store's searches embed team files too; team
            // writes are caught up by the next search.
            semantic: Default::default(),
            held: None,
            rider: None,
        };
        self.team = Some(Box::new(team));
        self
    }

    /// Whether this is a team store.
    pub fn is_team(&self) -> bool {
        self.layout == Layout::Team
    }

    /// Whether a team directory was given.
    pub fn has_team(&self) -> bool {
        self.team.is_some()
    }

    /// The project's team store.
    ///
    /// # Errors
    /// `no-team-dir` when the memory was opened without a team directory.
    pub fn team(&self) -> Result<&Memory> {
        if self.is_team() {
            return Ok(self);
        }
        self.team.as_deref().ok_or_else(|| {
            Error::new(
                ErrorKind::NoTeamDir,
                "team memory is off: this memory was opened without a team directory; create the project's `.agent-memory/` folder (the command line then uses it) or pass one (`--team-dir`, `OpenOptions::team_dir`, options `team-dir`)",
            )
        })
    }

    /// The store `scope` names: this one for personal, [`Memory::team`]
    /// for team.
    ///
    /// # Errors
    /// As [`Memory::team`].
    pub fn scoped(&self, scope: Scope) -> Result<&Memory> {
        match scope {
            Scope::Personal if self.is_team() => Err(Error::new(
                ErrorKind::InvalidArguments,
                "this memory is the team store; personal scope is the memory it came from",
            )),
            Scope::Personal => Ok(self),
            Scope::Team => self.team(),
        }
    }

    /// This memory without its team store: a search of the personal
    /// store alone.
    pub fn personal_only(&self) -> Memory {
        let mut m = self.clone();
        m.team = None;
        m
    }

    /// Refuse a target the team store does not have.
    pub(crate) fn team_target(&self, source: crate::ReadSource) -> Result<()> {
        use crate::ReadSource as S;
        if self.is_team() && matches!(source, S::Scratchpad | S::Daily) {
            return Err(Error::new(
                ErrorKind::InvalidTarget,
                format!(
                    "team memory has no {source}: it holds MEMORY.md (long_term) and notes; the scratchpad and daily logs are personal, so leave out scope=team"
                ),
            ));
        }
        Ok(())
    }

    /// Write `.gitattributes` and `.gitignore` into the team directory
    /// unless they exist: never clobbered, and a failure here never fails
    /// the write that triggered it. Called under the team lock by what
    /// writes into the team directory (a change that changes a file, a
    /// refresh, vectors), never by a dry run; nothing for the personal
    /// store.
    pub(crate) fn ensure_git_files(&self) {
        if self.layout != Layout::Team {
            return;
        }
        for (name, text) in [(".gitattributes", GITATTRIBUTES), (".gitignore", GITIGNORE)] {
            let created = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(self.root.join(name));
            if let Ok(mut file) = created {
                let _ = file
                    .write_all(text.as_bytes())
                    .and_then(|()| file.sync_all());
            }
        }
    }

    /// Refuse a write to the team file `path` (of `kind`) whose result would
    /// hold conflict markers.
    pub(crate) fn refuse_conflict_write(
        &self,
        path: &str,
        kind: Kind,
        mode: WriteMode,
        kept: &str,
    ) -> Result<()> {
        match mode {
            WriteMode::Overwrite => self.refuse_conflict_text(path, kept.as_bytes()),
            WriteMode::Append => {
                let mut text = match kind {
                    Kind::File(_) => fsio::read_head(&self.abs(path), MAX_EDIT_FILE_BYTES)
                        .map_err(|e| Error::io("read", path, &e))?
                        .map(|(t, _)| t)
                        .unwrap_or_default(),
                    _ => String::new(),
                };
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(kept);
                self.refuse_conflict_text(path, text.as_bytes())
            }
        }
    }

    /// Refuse `bytes`, about to become the team file `path`, when they hold
    /// conflict markers. A no-op for the personal store.
    pub(crate) fn refuse_conflict_text(&self, path: &str, bytes: &[u8]) -> Result<()> {
        if !self.is_team() {
            return Ok(());
        }
        match conflict_line(&String::from_utf8_lossy(bytes)) {
            None => Ok(()),
            Some(line) => Err(Error::new(
                ErrorKind::Conflict,
                format!(
                    "cannot change `{path}`: the result would hold unresolved git conflict markers (a `<<<<<<<` line at line {line}, then `=======` and `>>>>>>>`); resolve the conflict first: read the file, keep what is right from both sides and overwrite it without the marker lines (or resolve it in git and commit)"
                ),
            )),
        }
    }

    /// Every file of this team store that git shares: `MEMORY.md`, the
    /// notes and the snapshot's notes, in path order. For notices and
    /// scans: a folder that cannot be listed is left out.
    pub(crate) fn shared_files(&self) -> Vec<Rel> {
        let mut files = vec![self.long_term_rel()];
        for dir in [
            self.notes_dir(),
            format!("{TEAM_PREFIX}{SNAPSHOT_DIR}/notes"),
        ] {
            files.extend(self.notes_under(&dir).unwrap_or_default());
        }
        files.sort_by_key(Rel::path);
        files
    }

    /// One notice per team file with conflict markers (the first
    /// [`MAX_CONFLICT_SCAN_BYTES`] of at most [`MAX_CONFLICT_FILES`]).
    fn conflict_notices(&self) -> Vec<String> {
        let files = self.shared_files();
        let mut found = Vec::new();
        for rel in files.iter().take(MAX_CONFLICT_FILES) {
            let path = rel.path();
            let Ok(Some((text, _))) = fsio::read_head(&self.abs(&path), MAX_CONFLICT_SCAN_BYTES)
            else {
                continue;
            };
            if let Some(line) = conflict_line(&text) {
                found.push((path, line));
            }
        }
        let mut notices: Vec<String> = found
            .iter()
            .take(MAX_CONFLICTS_LISTED)
            .map(|(path, line)| {
                format!(
                    "- CONFLICT: {path} has unresolved git conflict markers (from line {line}); writes to it are refused until they are resolved: keep what is right from both sides, remove the `<<<<<<<`, `=======` and `>>>>>>>` lines, and commit."
                )
            })
            .collect();
        if found.len() > MAX_CONFLICTS_LISTED {
            notices.push(format!(
                "- CONFLICT: {} more team files have conflict markers.",
                found.len() - MAX_CONFLICTS_LISTED
            ));
        }
        notices
    }

    /// The context block from the personal `sources`, the team's index and
    /// the notices.
    pub(crate) fn build_context(
        &self,
        mut sources: crate::context::Sources,
        notices: Vec<String>,
    ) -> Option<String> {
        sources.notices = notices;
        self.add_team_sources(&mut sources);
        self.add_due_notice(&mut sources);
        self.add_marks(&mut sources);
        crate::context::build(&sources, self.limits.max_inject_bytes)
    }

    /// Adds what the team directory puts in the block: its conflict
    /// notices and its MEMORY.md.
    pub(crate) fn add_team_sources(&self, sources: &mut crate::context::Sources) {
        if let Some(team) = &self.team {
            sources.notices.extend(team.conflict_notices());
            sources.team = fsio::read_head(
                &team.abs(&team.long_term_rel().path()),
                INDEX_MAX_BYTES as u64 + 8,
            )
            .ok()
            .flatten();
        }
    }

    /// The snapshot in the team directory, if any: `None` when there is no
    /// team directory, no `TAKEN` file, or one that cannot be read or is
    /// not a stamp (for the notices of a session's start).
    fn snapshot_taken(&self) -> Option<(i64, i32)> {
        self.snapshot_stamp().ok().flatten()
    }

    /// The time and offset in the team snapshot's `TAKEN` file: `None`
    /// when there is no team directory, no `TAKEN` file or not a stamp.
    ///
    /// # Errors
    /// `io` when it is there but cannot be read.
    fn snapshot_stamp(&self) -> Result<Option<(i64, i32)>> {
        let Some(team) = self.team.as_deref() else {
            return Ok(None);
        };
        let rel = format!("{TEAM_PREFIX}{SNAPSHOT_DIR}/{TAKEN_FILE}");
        let Some((text, _)) =
            fsio::read_head(&team.abs(&rel), 256).map_err(|e| Error::io("read", &rel, &e))?
        else {
            return Ok(None);
        };
        let mut words = text.split_whitespace();
        let stamp = (|| {
            let unix = words.next()?.parse::<i64>().ok()?;
            let offset = words.next()?.parse::<i32>().ok()?;
            let clock = crate::Clock {
                utc_offset_minutes: offset,
                fixed_unix_seconds: Some(unix),
            };
            clock.validate().ok()?;
            Some((unix, offset))
        })();
        Ok(stamp)
    }

    /// The `TAKEN` time of the snapshot this project last applied.
    fn snapshot_applied(&self) -> Option<i64> {
        let path = self.abs(&format!("{}/{APPLIED_FILE}", self.project_dir()));
        let (text, _) = fsio::read_head(&path, 64).ok().flatten()?;
        text.trim().parse().ok()
    }

    /// At the start of a session: apply the team snapshot to a project
    /// with no personal files, or report one newer than the last applied.
    /// Never fails: what went wrong becomes a notice.
    pub(crate) fn snapshot_on_open(&self) -> Vec<String> {
        let Some((taken, offset)) = self.snapshot_taken() else {
            return Vec::new();
        };
        let applied = self.snapshot_applied();
        if applied.is_some_and(|a| a >= taken) {
            return Vec::new();
        }
        let when = local_text(taken, offset);
        let empty = applied.is_none()
            && self
                .list_files()
                .is_ok_and(|files| files.iter().all(|f| f.path == "MEMORY.md"));
        if !empty {
            return vec![format!(
                "- SNAPSHOT: a newer team snapshot ({when}) is in .agent-memory/snapshot/ and was not applied; `agent-memory snapshot apply` applies it (recorded in history)."
            )];
        }
        match self.apply_snapshot() {
            Ok(info) => vec![format!(
                "- SNAPSHOT: this project's memory started from the team snapshot of {when} ({} notes, recorded in history as imports).",
                info.notes
            )],
            Err(e) => vec![format!(
                "- SNAPSHOT: the team snapshot of {when} could not be applied: {}",
                e.message()
            )],
        }
    }

    /// Copy the project's personal notes into the team directory's
    /// `snapshot/`. See the WIT `memory.take-snapshot`.
    ///
    /// # Errors
    /// `no-team-dir`, `secret-detected`, `conflict`, `busy`, `io`.
    pub fn take_snapshot(&self) -> Result<SnapshotInfo> {
        let team = self.team()?;
        if self.is_team() {
            return Err(Error::new(
                ErrorKind::InvalidArguments,
                "take the snapshot from the personal memory: it copies the personal notes",
            ));
        }
        let unix = self.clock.unix_seconds();
        let offset = self.clock.utc_offset_minutes;
        let base = format!("{TEAM_PREFIX}{SNAPSHOT_DIR}");
        let snap_notes = format!("{base}/notes");
        // The personal notes are read under their store's lock (taken
        // before the team's, as an approval takes them), inside the team
        // change: one change, checked whole before anything is touched,
        // journaled, undone as one. A note that cannot be read fails it.
        let personal = self.lock()?;
        let ((notes, skipped, removed), _) = team.change(Operation::Write, |tx| {
            let (notes, skipped) = self.texts_under(&self.notes_dir())?;
            let mut removed = Vec::new();
            let keep: std::collections::HashSet<String> = notes
                .iter()
                .map(|(rel, _)| format!("{snap_notes}/{rel}"))
                .collect();
            let mut old = team.notes_under(&snap_notes)?;
            old.sort_by_key(Rel::path);
            for rel in old {
                if !keep.contains(&rel.path()) {
                    removed.push(rel.dir.clone());
                    tx.push(Step::Remove { rel, prune: false });
                }
            }
            for (rel, text) in &notes {
                let full = format!("{snap_notes}/{rel}");
                let (dir, file) = full.rsplit_once('/').unwrap_or((&snap_notes, rel));
                let target = Rel {
                    dir: dir.to_string(),
                    file: file.to_string(),
                };
                tx.put(target, text.as_bytes());
            }
            let stamp = format!("{unix} {offset} {}\n", local_text(unix, offset));
            tx.put(
                Rel {
                    dir: base.clone(),
                    file: TAKEN_FILE.to_string(),
                },
                stamp,
            );
            Ok((notes.len(), skipped, removed))
        })?;
        drop(personal);
        for dir in removed {
            team.prune_snapshot_dirs(&dir, &snap_notes);
        }
        let mut info = SnapshotInfo {
            taken_unix: unix,
            utc_offset_minutes: offset,
            notes: notes as u32,
            message: String::new(),
        };
        info.message = format!(
            "Snapshot of {} notes written to .agent-memory/snapshot/ ({}); commit it to share it",
            info.notes,
            info.when()
        );
        if !skipped.is_empty() {
            info.message.push_str(&format!(
                "; skipped (not UTF-8 text of at most {} MiB): {}",
                MAX_EDIT_FILE_BYTES >> 20,
                skipped.join(", ")
            ));
        }
        Ok(info)
    }

    /// The notes under the folder `dir` a snapshot copies, by their path
    /// under it, in path order, and the store paths of those it leaves out
    /// (not UTF-8 text, or too large to copy whole). Caller holds the lock.
    ///
    /// # Errors
    /// `io` when the notes cannot be listed or one cannot be read: a
    /// snapshot never leaves out a note it could not look at.
    fn texts_under(&self, dir: &str) -> Result<(Vec<(String, String)>, Skipped)> {
        let mut rels = self.notes_under(dir)?;
        rels.sort_by_key(Rel::path);
        let mut texts = Vec::new();
        let mut skipped = Vec::new();
        for rel in rels.into_iter().take(MAX_SNAPSHOT_NOTES) {
            let path = rel.path();
            let len = match self.file_kind(&path)? {
                Kind::File(len) => len,
                _ => continue,
            };
            if len > MAX_EDIT_FILE_BYTES {
                skipped.push(path);
                continue;
            }
            let bytes = fs::read(self.abs(&path)).map_err(|e| Error::io("read", &path, &e))?;
            match String::from_utf8(bytes) {
                Ok(text) => texts.push((path[dir.len() + 1..].to_string(), text)),
                Err(_) => skipped.push(path),
            }
        }
        Ok((texts, skipped))
    }

    /// Remove the snapshot folder `dir` and its parents while empty, up to
    /// `stop`. Best effort.
    fn prune_snapshot_dirs(&self, dir: &str, stop: &str) {
        let mut dir = dir.to_string();
        while dir.len() > stop.len() && dir.starts_with(stop) {
            if fs::remove_dir(self.abs(&dir)).is_err() {
                return;
            }
            match dir.rfind('/') {
                Some(slash) => dir.truncate(slash),
                None => return,
            }
        }
    }

    /// Apply the team snapshot to the personal notes. See the WIT
    /// `memory.apply-snapshot`.
    ///
    /// # Errors
    /// `no-team-dir`, `not-found`, `conflict`, `secret-detected` (under the
    /// personal policy `block`), `busy`, `io`.
    pub fn apply_snapshot(&self) -> Result<SnapshotInfo> {
        let team = self.team()?;
        let snap_notes = format!("{TEAM_PREFIX}{SNAPSHOT_DIR}/notes");
        let pd = self.project_dir();
        // One change: the snapshot is read and checked in its plan, under
        // the personal lock and then the team's (the order an approval
        // takes them in), before history records anything. Files that came
        // through git are as hostile as a model's input.
        let (((taken, offset), applied, skipped), done) = self.change(Operation::Import, |tx| {
            let team_lock = team.lock()?;
            let Some((taken, offset)) = self.snapshot_stamp()? else {
                return Err(Error::new(
                    ErrorKind::NotFound,
                    "there is no team snapshot: .agent-memory/snapshot/TAKEN is missing or not a snapshot stamp; `agent-memory snapshot` takes one",
                ));
            };
            let (texts, mut skipped) = team.texts_under(&snap_notes)?;
            let mut applied = 0u32;
            for (name, text) in texts {
                let path = format!("{snap_notes}/{name}");
                let Ok(name) = note_name(name.trim_end_matches(".md")) else {
                    skipped.push(path);
                    continue;
                };
                if let Some(line) = conflict_line(&text) {
                    return Err(Error::new(
                        ErrorKind::Conflict,
                        format!(
                            "cannot apply the team snapshot: `{path}` has unresolved git conflict markers (from line {line}); resolve them in git first; nothing was applied"
                        ),
                    ));
                }
                tx.put(self.note_rel(Some(name))?, text);
                applied += 1;
            }
            drop(team_lock);
            // Which snapshot was applied: a marker, not memory, so history
            // does not record it (undoing the apply does not make the
            // snapshot new again), written in the same change.
            tx.push(Step::Mark {
                rel: Rel {
                    dir: pd.clone(),
                    file: APPLIED_FILE.to_string(),
                },
                bytes: Some(format!("{taken}\n").into_bytes()),
                if_changed: false,
            });
            skipped.sort();
            Ok(((taken, offset), applied, skipped))
        })?;
        let warnings = done.warnings();
        let mut info = SnapshotInfo {
            taken_unix: taken,
            utc_offset_minutes: offset,
            notes: applied,
            message: String::new(),
        };
        info.message = if done.changed {
            format!(
                "Applied the team snapshot of {} to {}/notes: {} notes (recorded in history as one import; {} take it back)",
                info.when(),
                pd,
                info.notes,
                words::name(self.audience, Act::Undo)
            )
        } else {
            info.notes = 0;
            format!(
                "Nothing to apply; already in step: {}/notes already holds the team snapshot of {}, so nothing was changed or recorded",
                pd,
                info.when()
            )
        };
        if !skipped.is_empty() {
            info.message.push_str(&format!(
                "; skipped (not a valid note name, or not UTF-8 text of at most {} MiB): {}",
                MAX_EDIT_FILE_BYTES >> 20,
                skipped.join(", ")
            ));
        }
        for w in warnings {
            info.message.push_str(&format!(" (warning: {w})"));
        }
        Ok(info)
    }
}

#[cfg(test)]
mod tests;
