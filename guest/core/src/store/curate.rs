//! Curation: replace text in a file, delete and rename notes.
//!
//! Each operation checks its arguments, then stages its steps on a change
//! ([`Memory::change`]), which validates, records and applies them. The
//! staging functions (`stage_edit`, `stage_delete`, [`RenamePlan::stage`])
//! are shared with change sets, which stage several operations on one
//! change.

use crate::words::{self, Act};
use std::fs;

use super::{Memory, Rel, Step, Tx, WriteTarget};
use crate::budget::Budget;
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::{self, Kind};
use crate::history::Operation;
use crate::limits::MAX_SEARCH_FILE_BYTES;
use crate::names::{daily_date, note_name};

/// Largest file an edit reads whole.
pub const MAX_EDIT_FILE_BYTES: u64 = MAX_SEARCH_FILE_BYTES;
/// Line numbers listed in an `ambiguous` error before the rest are elided.
const MAX_LINES_LISTED: usize = 20;

/// The outcome of [`Memory::edit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditReceipt {
    /// Store-relative path edited.
    pub path: String,
    /// 1-based line where the replacement starts.
    pub line: u32,
    /// Size of the file after the edit.
    pub bytes: u64,
    /// Lines of the new text that repeat other lines of the file.
    pub warnings: Vec<String>,
    /// How full the injected memory is now, and whether the new text
    /// reaches the next context block.
    pub budget: Budget,
    /// For the model: one line, then the warnings if any, then the budget.
    pub message: String,
}

/// The outcome of [`Memory::delete_note`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeleteReceipt {
    /// Store-relative path of the note.
    pub path: String,
    /// Whether there was a note to delete.
    pub existed: bool,
    /// Size of the deleted note (0 when there was none).
    pub bytes: u64,
    /// How full the injected memory is (notes are never in it).
    pub budget: Budget,
    /// For the model: one line, then the budget.
    pub message: String,
}

/// The outcome of [`Memory::rename_note`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenameReceipt {
    /// Store-relative path before.
    pub from: String,
    /// Store-relative path after.
    pub to: String,
    /// How full the injected memory is (notes are never in it).
    pub budget: Budget,
    /// For the model: one line, then the budget.
    pub message: String,
}

/// `(line, count)`: the 1-based line numbers where the non-overlapping
/// occurrences of `needle` start (each line once, the first
/// [`MAX_LINES_LISTED`]), and how many occurrences there are.
fn occurrence_lines(text: &str, needle: &str) -> (Vec<u32>, usize) {
    let mut lines: Vec<u32> = Vec::new();
    let mut count = 0;
    let mut line = 1u32;
    let mut scanned = 0;
    for (pos, _) in text.match_indices(needle) {
        count += 1;
        line += text[scanned..pos].bytes().filter(|&b| b == b'\n').count() as u32;
        scanned = pos;
        if lines.len() < MAX_LINES_LISTED && lines.last() != Some(&line) {
            lines.push(line);
        }
    }
    (lines, count)
}

impl Memory {
    /// Replace the one occurrence of `old_text` in a file with `new_text`
    /// (which may be empty). `target` as for [`Memory::write`]; for
    /// `Daily`, `name` may be a `YYYY-MM-DD` date (today when absent).
    ///
    /// Occurrences are counted without overlap. The file is rewritten
    /// atomically; lines of `new_text` that repeat other lines of the file
    /// come back as warnings.
    ///
    /// # Errors
    /// `invalid-arguments` for an empty `old_text` or a `new_text` over
    /// the write cap; `not-found` for a missing file or an `old_text` that
    /// does not occur; `ambiguous` when it occurs more than once (the
    /// message lists the lines); `missing-name`, `invalid-name`,
    /// `invalid-date`, `not-a-file`, `io` (also for a file over
    /// [`MAX_EDIT_FILE_BYTES`] or one that is not UTF-8).
    pub fn edit(
        &self,
        target: WriteTarget,
        name: Option<&str>,
        old_text: &str,
        new_text: &str,
    ) -> Result<EditReceipt> {
        let rel = self.edit_rel(target, name)?;
        let path = rel.path();
        self.check_edit(&path, old_text, new_text)?;
        // The new text is checked before anything is read: a secret is
        // refused whatever the file holds (the change then checks the
        // whole result again).
        let guarded = self.guard(new_text, &path)?;
        let new_text = guarded.text.as_ref();
        let (line, mut done) = self.change(Operation::Edit, |tx| {
            stage_edit(tx, rel, old_text, new_text)
        })?;
        done.redacted_before(&guarded);
        let range = &done.written[0];
        let mut message = format!(
            "Edited {path}: replaced {} bytes at line {line} with {} bytes",
            old_text.len(),
            range.end - range.start
        );
        done.finish(&mut message);
        let bytes = match self.file_kind(&path) {
            Ok(Kind::File(len)) => len,
            _ => 0,
        };
        Ok(EditReceipt {
            path,
            line,
            bytes,
            warnings: done.warnings(),
            budget: done.budget,
            message,
        })
    }

    /// Delete the note `name` (nested names allowed). A missing note is
    /// not an error: the receipt says nothing was there. Note folders left
    /// empty are removed, up to (not including) `notes/`.
    ///
    /// # Errors
    /// `invalid-name`,
    /// `not-a-file` (something other than a regular file is there), `io`.
    pub fn delete_note(&self, name: &str) -> Result<DeleteReceipt> {
        let shown = note_name(name)?;
        let rel = self.note_rel(Some(name))?;
        let path = rel.path();
        let (existed, done) = self.change(Operation::Delete, |tx| stage_delete(tx, &rel))?;
        let Kind::File(bytes) = existed else {
            let mut message = format!("Nothing to delete: note `{shown}` does not exist ({path})");
            done.finish(&mut message);
            return Ok(DeleteReceipt {
                message,
                path,
                existed: false,
                bytes: 0,
                budget: done.budget,
            });
        };
        let mut message = format!(
            "Deleted note `{shown}` ({path}, {bytes} bytes); {} and {} can bring it back",
            words::name(self.audience, Act::History),
            words::name(self.audience, Act::Restore(None))
        );
        done.finish(&mut message);
        Ok(DeleteReceipt {
            message,
            path,
            existed: true,
            bytes,
            budget: done.budget,
        })
    }

    /// Move the note `name` to `new_name` (nested names allowed), creating
    /// the new folders and removing folders left empty.
    ///
    /// # Errors
    /// `invalid-name`; `invalid-arguments` when both name the same note;
    /// `not-found` when `name` does not exist; `already-exists` when
    /// `new_name` does; `not-a-file`, `io`.
    pub fn rename_note(&self, name: &str, new_name: &str) -> Result<RenameReceipt> {
        let rename = self.rename_plan(name, new_name)?;
        let (from_path, to_path) = (rename.from.path(), rename.to.path());
        let (old_shown, new_shown) = (rename.old_shown.clone(), rename.new_shown.clone());
        let ((), done) = self.change(Operation::Rename, |tx| rename.stage(tx))?;
        let mut message =
            format!("Renamed note `{old_shown}` to `{new_shown}` ({from_path} -> {to_path})");
        done.finish(&mut message);
        Ok(RenameReceipt {
            message,
            from: from_path,
            to: to_path,
            budget: done.budget,
        })
    }

    /// The file an edit of `target` changes: `name` is the note, or for
    /// `daily` the date of the log (today's when `None`).
    pub(crate) fn edit_rel(&self, target: WriteTarget, name: Option<&str>) -> Result<Rel> {
        self.team_target(target.into())?;
        match (target, name) {
            (WriteTarget::Daily, Some(date)) => Ok(self.daily_rel(daily_date(date)?)),
            _ => self.target_rel(target, name),
        }
    }

    /// Refuse edit arguments that can never apply to `path`.
    pub(crate) fn check_edit(&self, path: &str, old_text: &str, new_text: &str) -> Result<()> {
        if old_text.is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidArguments,
                format!(
                    "cannot edit `{path}`: old_text is empty; copy the exact text to replace from the file (read it first)"
                ),
            ));
        }
        let cap = self.limits.max_write_bytes;
        if new_text.len() > cap {
            return Err(Error::new(
                ErrorKind::InvalidArguments,
                format!(
                    "cannot edit `{path}`: new_text is {} bytes, the limit is {cap}; replace a smaller part at a time",
                    new_text.len()
                ),
            ));
        }
        Ok(())
    }

    /// Check a rename's names and resolve both files.
    pub(crate) fn rename_plan(&self, name: &str, new_name: &str) -> Result<RenamePlan> {
        let old_shown = note_name(name)?;
        let new_shown = note_name(new_name)?;
        let from = self.note_rel(Some(name))?;
        let to = self.note_rel(Some(new_name))?;
        if from == to {
            return Err(Error::new(
                ErrorKind::InvalidArguments,
                format!("cannot rename note `{old_shown}` to itself"),
            ));
        }
        Ok(RenamePlan {
            from,
            to,
            old_shown: old_shown.to_string(),
            new_shown: new_shown.to_string(),
        })
    }

    /// The whole text of the file `rel`, strictly UTF-8; `None` when it (or
    /// a folder on the way) is missing. Caller holds the lock.
    pub(crate) fn read_text_locked(&self, rel: &Rel) -> Result<Option<String>> {
        let path = rel.path();
        if !self.ensure_dir(&rel.dir, false)? {
            return Ok(None);
        }
        let len = match self.file_kind(&path)? {
            Kind::Missing => return Ok(None),
            Kind::File(len) => len,
            Kind::Other(_) => unreachable_other(&path)?,
        };
        if len > MAX_EDIT_FILE_BYTES {
            return Err(Error::new(
                ErrorKind::Io,
                format!(
                    "`{path}` is {len} bytes, over the {MAX_EDIT_FILE_BYTES}-byte limit for changing it in place; overwrite it whole instead"
                ),
            ));
        }
        let bytes = fs::read(self.abs(&path)).map_err(|e| Error::io("read", &path, &e))?;
        String::from_utf8(bytes).map(Some).map_err(|e| {
            Error::new(
                ErrorKind::Io,
                format!(
                    "`{path}` is not valid UTF-8 (at byte {}); it is not changed in place, so nothing is lost: overwrite it whole instead",
                    e.utf8_error().valid_up_to()
                ),
            )
        })
    }

    /// The notes in the folder `dir` and its topic folders (as deep as a
    /// note name reaches), never through a link; at most 10,000. A missing
    /// folder has none.
    ///
    /// # Errors
    /// `io` when a folder or an entry in it cannot be looked at: a change
    /// that acts on every note of a folder must not miss one.
    pub(crate) fn notes_under(&self, dir: &str) -> Result<Vec<Rel>> {
        let mut out = Vec::new();
        let mut pending = vec![(dir.to_string(), 0usize)];
        while let Some((dir, depth)) = pending.pop() {
            let entries = match fs::read_dir(self.abs(&dir)) {
                Ok(entries) => entries,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io("list", &dir, &e)),
            };
            for entry in entries {
                let entry = entry.map_err(|e| Error::io("list", &dir, &e))?;
                let Ok(name) = entry.file_name().into_string() else {
                    continue;
                };
                let kind = fsio::kind(&entry.path())
                    .map_err(|e| Error::io("inspect", &format!("{dir}/{name}"), &e))?;
                match kind {
                    Kind::File(_) if name.ends_with(".md") && !name.starts_with('.') => {
                        out.push(Rel {
                            dir: dir.clone(),
                            file: name,
                        });
                    }
                    Kind::Other("a directory")
                        if depth < crate::names::MAX_NOTE_SEGMENTS && !name.starts_with('.') =>
                    {
                        pending.push((format!("{dir}/{name}"), depth + 1));
                    }
                    _ => {}
                }
                if out.len() >= 10_000 {
                    return Ok(out);
                }
            }
        }
        Ok(out)
    }

    /// Remove the note folder `dir` and its parents while they are empty
    /// (crash leftovers aside), stopping at `notes/`, which stays. Best
    /// effort: a folder that cannot be removed stays.
    pub(crate) fn prune_note_dirs(&self, dir: &str) {
        let notes = self.notes_dir();
        let mut dir = dir.to_string();
        while dir.len() > notes.len() && dir.starts_with(&notes) {
            let abs = self.abs(&dir);
            fsio::remove_leftovers(&abs);
            if fs::remove_dir(&abs).is_err() {
                return;
            }
            match dir.rfind('/') {
                Some(slash) => dir.truncate(slash),
                None => return,
            }
        }
    }
}

/// Stage an edit of `rel`: `old_text` (checked by
/// [`Memory::check_edit`]) must occur exactly once. Returns its line.
pub(crate) fn stage_edit(tx: &mut Tx<'_>, rel: Rel, old_text: &str, new_text: &str) -> Result<u32> {
    let path = rel.path();
    let Some(text) = tx.read_text(&rel)? else {
        return Err(Error::new(
            ErrorKind::NotFound,
            format!(
                "cannot edit `{path}`: the file does not exist; list the files to find the right one"
            ),
        ));
    };
    let (lines, count) = occurrence_lines(&text, old_text);
    if count == 0 {
        return Err(Error::new(
            ErrorKind::NotFound,
            format!(
                "cannot edit `{path}`: old_text was not found; read the file first and copy the text exactly, including whitespace and line breaks"
            ),
        ));
    }
    if count > 1 {
        let mut listed: Vec<String> = lines.iter().map(u32::to_string).collect();
        if lines.len() == MAX_LINES_LISTED {
            listed.push("…".into());
        }
        return Err(Error::new(
            ErrorKind::Ambiguous,
            format!(
                "cannot edit `{path}`: old_text occurs {count} times (lines {}); include more of the surrounding text so that it matches exactly once",
                listed.join(", ")
            ),
        ));
    }
    // `count == 1`, so the search finds it.
    let start = text.find(old_text).unwrap_or(0);
    let mut new = String::with_capacity(text.len() - old_text.len() + new_text.len());
    new.push_str(&text[..start]);
    new.push_str(new_text);
    new.push_str(&text[start + old_text.len()..]);
    let added = start..start + new_text.len();
    tx.push(Step::Put {
        rel,
        bytes: new.into_bytes(),
        added,
    });
    Ok(lines[0])
}

/// Stage the deletion of the note `rel` when it exists. Returns what was
/// there.
pub(crate) fn stage_delete(tx: &mut Tx<'_>, rel: &Rel) -> Result<Kind> {
    tx.focus(rel);
    let kind = tx.kind(rel)?;
    if kind != Kind::Missing {
        tx.push(Step::Remove {
            rel: rel.clone(),
            prune: true,
        });
    }
    Ok(kind)
}

/// A rename whose names are checked: both files and how the user wrote
/// them.
pub(crate) struct RenamePlan {
    pub(crate) from: Rel,
    pub(crate) to: Rel,
    pub(crate) old_shown: String,
    pub(crate) new_shown: String,
}

impl RenamePlan {
    /// Stage the move: the note must exist and its new name be free.
    pub(crate) fn stage(&self, tx: &mut Tx<'_>) -> Result<()> {
        let (old_shown, new_shown) = (&self.old_shown, &self.new_shown);
        if tx.kind(&self.from)? == Kind::Missing {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!(
                    "cannot rename note `{old_shown}`: it does not exist ({}); list the files to find the right name",
                    self.from.path()
                ),
            ));
        }
        if tx.kind(&self.to)? != Kind::Missing {
            return Err(Error::new(
                ErrorKind::AlreadyExists,
                format!(
                    "cannot rename note `{old_shown}` to `{new_shown}`: {} exists already; pick another name, or merge the two notes by editing one and deleting the other",
                    self.to.path()
                ),
            ));
        }
        tx.push(Step::Move {
            from: self.from.clone(),
            to: self.to.clone(),
            prune: true,
        });
        Ok(())
    }
}

/// `file_kind` already turned `Kind::Other` into an error; kept total.
fn unreachable_other(path: &str) -> Result<u64> {
    Err(Error::new(
        ErrorKind::NotAFile,
        format!("`{path}` is not a regular file"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::NOTE_NAME_RULE;
    use crate::store::{Options, ReadSource, WriteMode};

    /// The budget line of a change to notes in a store with no MEMORY.md,
    /// scratchpad or log.
    const NOTE_BUDGET: &str = "Budget: MEMORY.md 0/200 lines, 0/25000 bytes; context block 0/32768 bytes (notes are not in it; memory_search finds them)";

    /// A store in a temp dir; `notes` is the store-relative notes folder.
    fn store() -> (tempfile::TempDir, Memory, String) {
        let dir = tempfile::tempdir().unwrap();
        let mem = Memory::open(dir.path(), Options::new("/src/app")).unwrap();
        let notes = mem.notes_dir();
        (dir, mem, notes)
    }

    fn note(mem: &Memory, name: &str, text: &str) {
        mem.write(WriteTarget::Note, text, WriteMode::Overwrite, Some(name))
            .unwrap();
    }

    fn read(mem: &Memory, name: &str) -> Option<String> {
        mem.read(ReadSource::Note, Some(name)).unwrap()
    }

    /// Every file under the root, store-relative, with its content: the
    /// whole store, to show an error changed nothing.
    fn snapshot(root: &std::path::Path) -> Vec<(String, Vec<u8>)> {
        fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) {
            for e in fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                if fs::symlink_metadata(&p).unwrap().is_dir() {
                    out.push((format!("{rel}/"), Vec::new()));
                    walk(root, &p, out);
                } else {
                    out.push((rel, fs::read(&p).unwrap_or_default()));
                }
            }
        }
        let mut out = Vec::new();
        walk(root, root, &mut out);
        out.sort();
        out
    }

    #[test]
    fn nested_notes_are_written_read_listed_and_searched() {
        let (dir, mem, notes) = store();
        note(&mem, "infra/db/staging", "staging db on port 5433\n");
        note(&mem, "infra", "top level\n");
        note(&mem, "a/b/c/d.md", "deepest\n");
        assert!(
            dir.path()
                .join(&notes)
                .join("infra/db/staging.md")
                .is_file()
        );
        assert_eq!(
            read(&mem, " infra/db/staging.md ").unwrap(),
            "staging db on port 5433\n"
        );
        assert_eq!(read(&mem, "infra/none"), None);
        assert_eq!(read(&mem, "nothing/here"), None);
        let paths: Vec<String> = mem
            .list_files()
            .unwrap()
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert_eq!(
            paths,
            [
                format!("{notes}/a/b/c/d.md"),
                format!("{notes}/infra.md"),
                format!("{notes}/infra/db/staging.md"),
            ]
        );
        let hits = mem.search("5433").unwrap();
        assert_eq!(hits.hits[0].path, format!("{notes}/infra/db/staging.md"));
        // The topic path is matched as a name too.
        let hits = mem.search("db/staging").unwrap();
        assert_eq!(hits.hits[0].path, format!("{notes}/infra/db/staging.md"));
        assert!(hits.hits[0].filename_only);
        assert_eq!(mem.search("deepest").unwrap().hits.len(), 1);
    }

    #[test]
    fn listing_skips_hidden_invalid_too_deep_and_linked_folders() {
        let (dir, mem, notes) = store();
        note(&mem, "ok", "x\n");
        let root = dir.path().join(&notes);
        for sub in [".hidden", "a.b", "a/b/c/d"] {
            fs::create_dir_all(root.join(sub)).unwrap();
            fs::write(root.join(sub).join("n.md"), "secret word\n").unwrap();
        }
        // Four segments deep is the limit: `a/b/c/n` is a note, `a/b/c/d/n`
        // could never be named.
        fs::write(root.join("a/b/c/n.md"), "deep word\n").unwrap();
        let paths: Vec<String> = mem
            .list_files()
            .unwrap()
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert_eq!(
            paths,
            [format!("{notes}/a/b/c/n.md"), format!("{notes}/ok.md")]
        );
        assert_eq!(mem.search("deep").unwrap().hits.len(), 1);
        assert!(mem.search("secret").unwrap().hits.is_empty());
        #[cfg(unix)]
        {
            let outside = tempfile::tempdir().unwrap();
            fs::write(outside.path().join("leak.md"), "secret word\n").unwrap();
            std::os::unix::fs::symlink(outside.path(), root.join("linked")).unwrap();
            assert_eq!(mem.list_files().unwrap().len(), 2);
            assert!(mem.search("secret").unwrap().hits.is_empty());
            for err in [
                mem.read(ReadSource::Note, Some("linked/leak")).unwrap_err(),
                mem.write(
                    WriteTarget::Note,
                    "x",
                    WriteMode::Append,
                    Some("linked/new"),
                )
                .unwrap_err(),
                mem.edit(WriteTarget::Note, Some("linked/leak"), "secret", "x")
                    .unwrap_err(),
                mem.delete_note("linked/leak").unwrap_err(),
                mem.rename_note("ok", "linked/ok").unwrap_err(),
            ] {
                assert_eq!(err.kind(), ErrorKind::NotAFile, "{err}");
                assert_eq!(
                    err.message(),
                    format!(
                        "`{notes}/linked` exists but is a symbolic link (the store never follows links); a note cannot be stored beneath it"
                    )
                );
            }
            assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
            assert_eq!(
                fs::read_to_string(outside.path().join("leak.md")).unwrap(),
                "secret word\n"
            );
        }
    }

    #[test]
    fn edit_replaces_the_one_occurrence() {
        let (_dir, mem, notes) = store();
        note(
            &mem,
            "deploy",
            "# Deploy\n- use npm\n- ship with make ship\n",
        );
        let r = mem
            .edit(
                WriteTarget::Note,
                Some("deploy"),
                "use npm",
                "use pnpm, never npm",
            )
            .unwrap();
        assert_eq!(
            read(&mem, "deploy").unwrap(),
            "# Deploy\n- use pnpm, never npm\n- ship with make ship\n"
        );
        assert_eq!(r.path, format!("{notes}/deploy.md"));
        assert_eq!(r.line, 2);
        assert_eq!(r.bytes, 53);
        assert_eq!(
            r.message,
            format!(
                "Edited {notes}/deploy.md: replaced 7 bytes at line 2 with 19 bytes\n{NOTE_BUDGET}"
            )
        );
        assert!(r.warnings.is_empty());
        // new_text may be empty: the text is removed.
        mem.edit(
            WriteTarget::Note,
            Some("deploy"),
            "- ship with make ship\n",
            "",
        )
        .unwrap();
        assert_eq!(
            read(&mem, "deploy").unwrap(),
            "# Deploy\n- use pnpm, never npm\n"
        );
        // Other targets too; a daily log by date.
        mem.write(
            WriteTarget::LongTerm,
            "- likes tea\n",
            WriteMode::Append,
            None,
        )
        .unwrap();
        mem.edit(WriteTarget::LongTerm, None, "tea", "coffee")
            .unwrap();
        assert_eq!(
            mem.read(ReadSource::LongTerm, None).unwrap().unwrap(),
            "- likes coffee\n"
        );
        let today = mem.today().to_string();
        mem.write(WriteTarget::Daily, "did a thing\n", WriteMode::Append, None)
            .unwrap();
        mem.edit(WriteTarget::Daily, Some(&today), "a thing", "two things")
            .unwrap();
        assert_eq!(
            mem.read(ReadSource::Daily, None).unwrap().unwrap(),
            "did two things\n"
        );
    }

    #[test]
    fn edit_errors_are_typed_pinned_and_change_nothing() {
        let (dir, mem, notes) = store();
        note(&mem, "n", "alpha\nbeta alpha\ngamma\n\nalpha\n");
        let before = snapshot(dir.path());
        let path = format!("{notes}/n.md");
        let cases: Vec<(Error, ErrorKind, String)> = vec![
            (
                mem.edit(WriteTarget::Note, Some("n"), "alpha", "x")
                    .unwrap_err(),
                ErrorKind::Ambiguous,
                format!(
                    "cannot edit `{path}`: old_text occurs 3 times (lines 1, 2, 5); include more of the surrounding text so that it matches exactly once"
                ),
            ),
            (
                mem.edit(WriteTarget::Note, Some("n"), "delta", "x")
                    .unwrap_err(),
                ErrorKind::NotFound,
                format!(
                    "cannot edit `{path}`: old_text was not found; read the file first and copy the text exactly, including whitespace and line breaks"
                ),
            ),
            (
                mem.edit(WriteTarget::Note, Some("n"), "gamma ", "x")
                    .unwrap_err(),
                ErrorKind::NotFound,
                format!(
                    "cannot edit `{path}`: old_text was not found; read the file first and copy the text exactly, including whitespace and line breaks"
                ),
            ),
            (
                mem.edit(WriteTarget::Note, Some("n"), "", "x").unwrap_err(),
                ErrorKind::InvalidArguments,
                format!(
                    "cannot edit `{path}`: old_text is empty; copy the exact text to replace from the file (read it first)"
                ),
            ),
            (
                mem.edit(WriteTarget::Note, Some("missing"), "a", "b")
                    .unwrap_err(),
                ErrorKind::NotFound,
                format!(
                    "cannot edit `{notes}/missing.md`: the file does not exist; list the files to find the right one"
                ),
            ),
            (
                mem.edit(WriteTarget::Note, Some("no/such/dir"), "a", "b")
                    .unwrap_err(),
                ErrorKind::NotFound,
                format!(
                    "cannot edit `{notes}/no/such/dir.md`: the file does not exist; list the files to find the right one"
                ),
            ),
            (
                mem.edit(
                    WriteTarget::Note,
                    Some("n"),
                    "beta",
                    &"x".repeat(64 * 1024 + 1),
                )
                .unwrap_err(),
                ErrorKind::InvalidArguments,
                format!(
                    "cannot edit `{path}`: new_text is 65537 bytes, the limit is 65536; replace a smaller part at a time"
                ),
            ),
            (
                mem.edit(WriteTarget::Note, Some("a/../n"), "a", "b")
                    .unwrap_err(),
                ErrorKind::InvalidName,
                format!(
                    "invalid note name \"a/../n\": segment 2 \"..\": a dot is allowed only between two digits; {NOTE_NAME_RULE}"
                ),
            ),
            (
                mem.edit(WriteTarget::Note, None, "a", "b").unwrap_err(),
                ErrorKind::MissingName,
                "target note needs a name (the note's file stem)".into(),
            ),
            (
                mem.edit(WriteTarget::Daily, Some("2026-02-30"), "a", "b")
                    .unwrap_err(),
                ErrorKind::InvalidDate,
                "invalid daily log name \"2026-02-30\": no such calendar date".into(),
            ),
        ];
        for (err, kind, message) in cases {
            assert_eq!((err.kind(), err.message()), (kind, message.as_str()));
        }
        assert_eq!(snapshot(dir.path()), before);
    }

    #[test]
    fn edit_lists_at_most_twenty_lines_and_refuses_non_utf8() {
        let (dir, mem, notes) = store();
        note(&mem, "many", &"x\n".repeat(30));
        let err = mem
            .edit(WriteTarget::Note, Some("many"), "x", "y")
            .unwrap_err();
        let lines: Vec<String> = (1..=20).map(|n| n.to_string()).collect();
        assert_eq!(
            err.message(),
            format!(
                "cannot edit `{notes}/many.md`: old_text occurs 30 times (lines {}, …); include more of the surrounding text so that it matches exactly once",
                lines.join(", ")
            )
        );
        let file = dir.path().join(&notes).join("bin.md");
        fs::write(&file, b"ok \xff text\n").unwrap();
        let err = mem
            .edit(WriteTarget::Note, Some("bin"), "ok", "fine")
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Io);
        assert_eq!(
            err.message(),
            format!(
                "`{notes}/bin.md` is not valid UTF-8 (at byte 3); it is not changed in place, so nothing is lost: overwrite it whole instead"
            )
        );
        assert_eq!(fs::read(&file).unwrap(), b"ok \xff text\n");
    }

    #[test]
    fn edit_warns_about_a_line_it_duplicates() {
        let (_dir, mem, notes) = store();
        note(&mem, "n", "- deploy with make ship\n- old fact here\n");
        let r = mem
            .edit(
                WriteTarget::Note,
                Some("n"),
                "old fact here",
                "Deploy with: make ship!",
            )
            .unwrap();
        assert_eq!(
            r.warnings,
            [format!(
                "line 2 of {notes}/n.md repeats line 1 (same words)"
            )]
        );
        assert!(r.message.ends_with(&format!(
            "\nPossible duplicates (written anyway; if one of the two is stale or wrong, edit or delete it):\n- line 2 of {notes}/n.md repeats line 1 (same words)\n{NOTE_BUDGET}"
        )));
    }

    #[test]
    fn append_warns_about_duplicates_and_still_writes() {
        let (_dir, mem, _notes) = store();
        mem.write(
            WriteTarget::LongTerm,
            "- User prefers pnpm over npm\n",
            WriteMode::Append,
            None,
        )
        .unwrap();
        let r = mem
            .write(
                WriteTarget::LongTerm,
                "- user prefers PNPM over npm.\n",
                WriteMode::Append,
                None,
            )
            .unwrap();
        assert_eq!(
            r.warnings,
            ["line 2 of MEMORY.md repeats line 1 (same words)"]
        );
        assert_eq!(
            r.message,
            "Appended 30 bytes to MEMORY.md\nPossible duplicates (written anyway; if one of the two is stale or wrong, edit or delete it):\n- line 2 of MEMORY.md repeats line 1 (same words)\nBudget: MEMORY.md 2/200 lines, 59/25000 bytes; context block 174/32768 bytes"
        );
        assert_eq!(
            mem.read(ReadSource::LongTerm, None).unwrap().unwrap(),
            "- User prefers pnpm over npm\n- user prefers PNPM over npm.\n"
        );
        let r = mem
            .write(
                WriteTarget::LongTerm,
                "- something else entirely new\n",
                WriteMode::Append,
                None,
            )
            .unwrap();
        assert!(r.warnings.is_empty());
        assert_eq!(
            r.message,
            "Appended 30 bytes to MEMORY.md\nBudget: MEMORY.md 3/200 lines, 89/25000 bytes; context block 204/32768 bytes"
        );
    }

    #[test]
    fn delete_removes_the_note_and_emptied_folders() {
        let (dir, mem, notes) = store();
        note(&mem, "a/b/c", "x\n");
        note(&mem, "a/keep", "y\n");
        let r = mem.delete_note("a/b/c.md").unwrap();
        assert_eq!(
            (r.path, r.existed, r.bytes, r.budget.reach, r.message),
            (
                format!("{notes}/a/b/c.md"),
                true,
                2,
                crate::Reach::NotInjected,
                format!(
                    "Deleted note `a/b/c` ({notes}/a/b/c.md, 2 bytes); memory_history and memory_restore can bring it back\n{NOTE_BUDGET}"
                )
            )
        );
        let root = dir.path().join(&notes);
        assert!(!root.join("a/b").exists());
        assert!(root.join("a/keep.md").is_file());
        mem.delete_note("a/keep").unwrap();
        assert!(!root.join("a").exists());
        assert!(root.is_dir(), "notes/ itself stays");
        // Missing: success that says so, nothing created.
        let before = snapshot(dir.path());
        let r = mem.delete_note("x/y").unwrap();
        assert!(!r.existed);
        assert_eq!(
            r.message,
            format!("Nothing to delete: note `x/y` does not exist ({notes}/x/y.md)\n{NOTE_BUDGET}")
        );
        assert_eq!(snapshot(dir.path()), before);
        // A folder is not a note.
        fs::create_dir(root.join("d.md")).unwrap();
        assert_eq!(
            mem.delete_note("d").unwrap_err().kind(),
            ErrorKind::NotAFile
        );
        for bad in ["a/b/c/d/e", "/a", "a//b", r"a\b", "a/CON"] {
            assert_eq!(
                mem.delete_note(bad).unwrap_err().kind(),
                ErrorKind::InvalidName,
                "{bad}"
            );
        }
    }

    #[test]
    fn rename_moves_creates_folders_and_never_overwrites() {
        let (dir, mem, notes) = store();
        note(&mem, "draft", "one\n");
        note(&mem, "taken/name", "two\n");
        let r = mem.rename_note("draft", "infra/db/staging").unwrap();
        assert_eq!(
            r.message,
            format!(
                "Renamed note `draft` to `infra/db/staging` ({notes}/draft.md -> {notes}/infra/db/staging.md)\n{NOTE_BUDGET}"
            )
        );
        assert_eq!(read(&mem, "infra/db/staging").unwrap(), "one\n");
        assert_eq!(read(&mem, "draft"), None);
        let before = snapshot(dir.path());
        let cases: Vec<(Error, ErrorKind, String)> = vec![
            (
                mem.rename_note("infra/db/staging", "taken/name")
                    .unwrap_err(),
                ErrorKind::AlreadyExists,
                format!(
                    "cannot rename note `infra/db/staging` to `taken/name`: {notes}/taken/name.md exists already; pick another name, or merge the two notes by editing one and deleting the other"
                ),
            ),
            (
                mem.rename_note("nope", "fresh").unwrap_err(),
                ErrorKind::NotFound,
                format!(
                    "cannot rename note `nope`: it does not exist ({notes}/nope.md); list the files to find the right name"
                ),
            ),
            (
                mem.rename_note("taken/name", "taken/name.md").unwrap_err(),
                ErrorKind::InvalidArguments,
                "cannot rename note `taken/name` to itself".into(),
            ),
            (
                mem.rename_note("taken/name", "a/b/c/d/e").unwrap_err(),
                ErrorKind::InvalidName,
                format!(
                    "invalid note name \"a/b/c/d/e\": it has 5 segments, the limit is 4 (`a/b/c/d`); {NOTE_NAME_RULE}"
                ),
            ),
            (
                mem.rename_note("taken/name", "../escape").unwrap_err(),
                ErrorKind::InvalidName,
                format!(
                    "invalid note name \"../escape\": segment 1 \"..\": a dot is allowed only between two digits; {NOTE_NAME_RULE}"
                ),
            ),
        ];
        for (err, kind, message) in cases {
            assert_eq!((err.kind(), err.message()), (kind, message.as_str()));
        }
        assert_eq!(snapshot(dir.path()), before);
        // Moving the last note out of a folder removes it.
        mem.rename_note("taken/name", "name").unwrap();
        assert!(!dir.path().join(&notes).join("taken").exists());
    }
}
