//! History as the store's front ends see it: the versions of a file, the
//! last change, and restore, which is a change like any other (guarded,
//! conflict-checked and recorded, so it can be undone in turn).

use super::change::Committed;
use super::{Memory, ReadSource, Rel, Step, TEAM_PREFIX, WriteReceipt};
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::Kind;
use crate::history::{ChangedFile, Operation, Version};

impl Memory {
    /// Is `path` a file this project sees: the global `MEMORY.md` (shared by
    /// every project, so its history is too) or one of its own?
    pub(crate) fn in_view(&self, path: &str) -> bool {
        if self.is_team() {
            return path.starts_with(TEAM_PREFIX);
        }
        path == "MEMORY.md"
            || path
                .strip_prefix(&self.project_dir())
                .is_some_and(|rest| rest.starts_with('/'))
    }

    /// The recorded versions of one file, newest first: at most `limit`
    /// (default and ceiling: the retention's versions per file). Versions
    /// whose content can no longer be read are left out.
    ///
    /// # Errors
    /// `missing-name`, `invalid-name`, `invalid-date` as [`Memory::read`];
    /// `invalid-arguments` for a limit of 0. A missing or corrupt journal is
    /// an empty history, not an error.
    pub fn history(
        &self,
        source: ReadSource,
        name: Option<&str>,
        limit: Option<u32>,
    ) -> Result<Vec<Version>> {
        if limit == Some(0) {
            return Err(Error::new(
                ErrorKind::InvalidArguments,
                "history limit is 0; it must be at least 1",
            ));
        }
        let path = self.source_rel(source, name)?.path();
        Ok(self.history_store().versions(&path, limit))
    }

    /// The most recent change this project can see (its own files and
    /// `MEMORY.md`): the version to restore to undo it. `None` when there is
    /// none.
    ///
    /// # Errors
    /// None in practice: an unreadable journal is an empty history.
    pub fn last_change(&self) -> Result<Option<Version>> {
        Ok(self.history_store().last_change(|p| self.in_view(p)))
    }

    /// What a file held at version `id`: `Some(text)` (invalid UTF-8 shown
    /// as U+FFFD) or `None` when the file did not exist then.
    ///
    /// # Errors
    /// `not-found` for an id that is malformed, unknown, pruned, another
    /// project's, or whose content can no longer be read.
    pub fn version_text(&self, id: &str) -> Result<Option<String>> {
        let (_, content) = self
            .history_store()
            .version_content(id, |p| self.in_view(p))?;
        Ok(content.map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    /// Put back what the change of version `id` changed: the file to what
    /// it held then (a version of a file that did not exist deletes it),
    /// and when that change touched several files (a rename, a snapshot),
    /// every one of them, as one change. The restore is recorded like any
    /// change, so it can be undone in turn; the restored text goes through
    /// the secret guard like any written text.
    ///
    /// # Errors
    /// `not-found` as [`Memory::version_text`]; `secret-detected` when a
    /// version holds a secret and the policy is `block` (the message names
    /// the version); `conflict`, `not-a-file`, `busy`, `io`.
    pub fn restore(&self, id: &str) -> Result<WriteReceipt> {
        let ((), files, done) = self
            .put_back_change(|| Ok(Some(((), id.to_string()))))?
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::NotFound,
                    format!("version {id} is not in this project's history"),
                )
            })?;
        Ok(restored(&files, done, String::new()))
    }

    /// Undo the most recent change this project can see: find it and
    /// restore its version under one lock, as one change, so two undos at
    /// once end as one after the other would (the second undoes the
    /// first's restore). With `expected` (a version id from
    /// [`Memory::last_change`]) it undoes only while that is still the
    /// last change. `None` when nothing is recorded and nothing was
    /// expected.
    ///
    /// # Errors
    /// `conflict` when `expected` is no longer the last change, or nothing
    /// is recorded (nothing was changed); `not-found` for an `expected`
    /// that is not a version id; then as [`Memory::restore`].
    pub fn undo(&self, expected: Option<&str>) -> Result<Option<WriteReceipt>> {
        if let Some(id) = expected {
            crate::history::parse_version_id(id, self.audience)?;
        }
        let found = self.put_back_change(|| {
            let last = self.last_change()?;
            match (last, expected) {
                (None, None) => Ok(None),
                (None, Some(id)) => Err(Error::new(
                    ErrorKind::Conflict,
                    format!(
                        "{} is no longer the last change: history records none now; nothing was undone",
                        id.trim()
                    ),
                )),
                (Some(last), Some(id)) if last.id != id.trim() => Err(Error::new(
                    ErrorKind::Conflict,
                    format!(
                        "{} is no longer the last change: {} ({} of {}) came after it; nothing was undone. Look at the last change again before undoing it",
                        id.trim(),
                        last.id,
                        last.operation.tool_word(),
                        last.path
                    ),
                )),
                (Some(last), _) => {
                    let id = last.id.clone();
                    Ok(Some((last, id)))
                }
            }
        })?;
        Ok(found.map(|(last, files, done)| {
            let lead = format!(
                "Undid the last change ({} of {}): ",
                last.operation.tool_word(),
                last.path
            );
            restored(&files, done, lead)
        }))
    }

    /// One change that puts back every file of the change of the version
    /// `pick` names; `pick` runs under the lock (`None`: nothing to put
    /// back, nothing changed). Returns what `pick` gave, the files put
    /// back and the committed change.
    fn put_back_change<T>(
        &self,
        pick: impl FnOnce() -> Result<Option<(T, String)>>,
    ) -> Result<Option<(T, Vec<ChangedFile>, Committed)>> {
        let mut version = None;
        let (found, done) = self
            .change(Operation::Restore, |tx| {
                // A version comes back as it was recorded, its ending
                // settled as every write's is.
                let Some((value, id)) = pick()? else {
                    return Ok(None);
                };
                let files = self
                    .history_store()
                    .change_content(&id, |p| self.in_view(p))?;
                version = Some(files[0].version);
                tx.focus(&rel_of(&files[0].path));
                for f in &files {
                    let rel = rel_of(&f.path);
                    let now = tx.kind(&rel)?;
                    if let Kind::Other(what) = now {
                        return Err(Error::new(
                            ErrorKind::NotAFile,
                            format!(
                                "`{}` exists but is {what}, not a regular file the store can use",
                                f.path
                            ),
                        ));
                    }
                    match (&f.content, now) {
                        (None, Kind::Missing) => {}
                        (None, _) => tx.push(Step::Remove { rel, prune: true }),
                        (Some(bytes), _) => tx.put(rel, bytes.clone()),
                    }
                }
                Ok(Some((value, files)))
            })
            .map_err(|e| match version {
                Some(n) if e.kind() == ErrorKind::SecretDetected => Error::new(
                    e.kind(),
                    format!("cannot restore version v{n}: {}", e.message()),
                ),
                _ => e,
            })?;
        Ok(found.map(|(value, files)| (value, files, done)))
    }
}

/// The receipt of a restore of `files`, its message after `lead`.
fn restored(files: &[ChangedFile], done: Committed, lead: String) -> WriteReceipt {
    let first = &files[0];
    let n = first.version;
    let path = first.path.clone();
    let mut message = lead;
    if files.len() > 1 {
        let listed: Vec<String> = files
            .iter()
            .map(|f| match &f.content {
                Some(b) => format!("{} ({} bytes)", f.path, b.len()),
                None => format!("{} (removed: it did not exist then)", f.path),
            })
            .collect();
        message.push_str(&format!(
            "Restored the {} files of change v{n} to before it: {}",
            files.len(),
            listed.join(", ")
        ));
    } else {
        message.push_str(&match (&first.content, done.changed) {
            (Some(b), _) => format!("Restored {path} to version v{n} ({} bytes)", b.len()),
            (None, true) => {
                format!("Restored {path} to version v{n}: it did not exist then, so it was deleted")
            }
            (None, false) => format!(
                "{path} did not exist at version v{n} and does not exist now; nothing changed"
            ),
        });
    }
    done.finish(&mut message);
    let bytes_written = first.content.as_ref().map_or(0, |b| b.len() as u64);
    WriteReceipt {
        path,
        bytes_written,
        truncated_from: None,
        warnings: done.warnings(),
        budget: done.budget,
        message,
    }
}

/// The store-relative file `path` as a folder and a name.
pub(crate) fn rel_of(path: &str) -> Rel {
    match path.rsplit_once('/') {
        Some((dir, file)) => Rel {
            dir: dir.to_string(),
            file: file.to_string(),
        },
        None => match path.strip_prefix(TEAM_PREFIX) {
            Some(file) => Rel {
                dir: TEAM_PREFIX.to_string(),
                file: file.to_string(),
            },
            None => Rel {
                dir: String::new(),
                file: path.to_string(),
            },
        },
    }
}
