//! Import: bring a file from another memory system into the store, once.
//!
//! The host reads the other system's files and maps each to a target; this
//! is where the bytes enter the store, through the same name rules, secret
//! guard, lock and history as a write (history operation `import`).
//!
//! Re-importing adds nothing twice, by comparing content with what the store
//! already holds (after the secret guard, so a redacted value compares as
//! stored):
//!
//! - `MEMORY.md` and the scratchpad are lists of one-line entries: only the
//!   non-blank lines not already in the file (compared with trailing
//!   whitespace dropped) are appended, in order, each once.
//! - Notes and daily logs are documents: the text (surrounding blank lines
//!   dropped) is appended after a blank line unless the file already
//!   contains it.
//! - A missing or blank file is created with the text, byte for byte.

use std::collections::HashSet;

use super::{Memory, Rel, Step, WriteTarget};
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::Kind;
use crate::history::Operation;
use crate::limits::MAX_SEARCH_FILE_BYTES;
use crate::names::daily_date;
use agent_memory_vocab::without_line_ends;

/// What an import did, or would do in a dry run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportOutcome {
    /// The file did not exist (or was empty) and now holds the text.
    Created,
    /// The new part of the text was appended.
    Appended,
    /// Everything was already there; nothing was written.
    Unchanged,
}

impl ImportOutcome {
    /// The outcome's word: `created`, `appended` or `unchanged`.
    pub fn as_str(self) -> &'static str {
        match self {
            ImportOutcome::Created => "created",
            ImportOutcome::Appended => "appended",
            ImportOutcome::Unchanged => "unchanged",
        }
    }
}

/// The outcome of [`Memory::import_file`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReceipt {
    /// Store-relative path of the file.
    pub path: String,
    /// What happened (or would happen, in a dry run).
    pub outcome: ImportOutcome,
    /// Bytes added to the file (0 when unchanged).
    pub bytes_written: u64,
    /// Redactions and history warnings.
    pub warnings: Vec<String>,
    /// For people: one line, then the warnings if any.
    pub message: String,
}

impl Memory {
    /// Import `content` into the file `target` names: `name` is the note
    /// name for `note` and the date (`YYYY-MM-DD`, required) for `daily`;
    /// ignored otherwise. With `dry_run` everything is checked (names, the
    /// secret guard, the comparison) and the receipt says what would happen,
    /// but nothing is locked, written or recorded.
    ///
    /// # Errors
    /// `missing-name`, `invalid-name`, `invalid-date`, `invalid-arguments`
    /// (content over `max-write-bytes`: never cut, so it is refused),
    /// `secret-detected`, `not-a-file`, `busy`, `io` (a file over 16 MiB to
    /// merge into). On any error nothing was written.
    pub fn import_file(
        &self,
        target: WriteTarget,
        name: Option<&str>,
        content: &str,
        dry_run: bool,
    ) -> Result<ImportReceipt> {
        self.team_target(target.into())?;
        let rel = match target {
            WriteTarget::Daily => {
                let date = name.ok_or_else(|| {
                    Error::new(
                        ErrorKind::MissingName,
                        "an imported daily log needs its date as the name (YYYY-MM-DD)",
                    )
                })?;
                self.daily_rel(daily_date(date)?)
            }
            WriteTarget::Note => self.note_rel(name)?,
            WriteTarget::LongTerm => self.long_term_rel(),
            WriteTarget::Scratchpad => self.scratchpad_rel(),
        };
        let path = rel.path();
        let cap = self.limits.max_write_bytes;
        if without_line_ends(content).len() > cap {
            return Err(Error::new(
                ErrorKind::InvalidArguments,
                format!(
                    "cannot import {} bytes into `{path}`: over the {cap}-byte write cap; split the file, or raise the cap for the import",
                    content.len()
                ),
            ));
        }
        let guarded = self.guard(content, &path)?;
        let text = guarded.text.as_ref();
        let by_line = matches!(target, WriteTarget::LongTerm | WriteTarget::Scratchpad);

        if dry_run {
            let old = self.existing(&rel, false)?;
            let (outcome, added) = plan(old.as_deref(), text, by_line);
            return Ok(receipt(
                path,
                outcome,
                added.len(),
                guarded.note().into_iter().collect(),
                Vec::new(),
            ));
        }

        let ((outcome, added), done) = self.change(Operation::Import, |tx| {
            tx.focus(&rel);
            let old = self.existing(&rel, false)?;
            let (outcome, added) = plan(old.as_deref(), text, by_line);
            if outcome == ImportOutcome::Unchanged {
                return Ok((outcome, 0));
            }
            let mut bytes = match outcome {
                ImportOutcome::Created => Vec::new(),
                _ => old.unwrap_or_default().into_bytes(),
            };
            let start = bytes.len();
            bytes.extend_from_slice(added.as_bytes());
            let end = bytes.len();
            tx.push(Step::Put {
                rel: rel.clone(),
                bytes,
                added: start..end,
            });
            Ok((outcome, added.len()))
        })?;
        let redactions = if done.redactions.is_empty() {
            guarded.note().into_iter().collect()
        } else {
            done.redactions
        };
        Ok(receipt(path, outcome, added, redactions, done.history))
    }

    /// The file's text, `None` when it is missing. When `create`, the
    /// file's folders are made (never through a link).
    fn existing(&self, rel: &Rel, create: bool) -> Result<Option<String>> {
        let path = rel.path();
        if !self.ensure_dir(&rel.dir, create)? {
            return Ok(None);
        }
        match self.file_kind(&path)? {
            Kind::Missing => Ok(None),
            Kind::File(len) if len > MAX_SEARCH_FILE_BYTES => Err(Error::new(
                ErrorKind::Io,
                format!(
                    "cannot import into `{path}`: it is {len} bytes, over the {MAX_SEARCH_FILE_BYTES}-byte cap of a file an import reads"
                ),
            )),
            // Strict UTF-8, as an edit reads: an import never rewrites a
            // byte it cannot read faithfully.
            Kind::File(_) => self.read_text_locked(rel).map_err(|e| {
                Error::new(
                    e.kind(),
                    format!("cannot import into `{path}`: {}", e.message()),
                )
            }),
            Kind::Other(what) => Err(Error::new(
                ErrorKind::NotAFile,
                format!("`{path}` exists but is {what}, not a regular file the store can use"),
            )),
        }
    }
}

/// What to add to `old` so that it holds `text`, and the outcome.
fn plan(old: Option<&str>, text: &str, by_line: bool) -> (ImportOutcome, String) {
    let body = text.trim_matches(|c| c == '\n' || c == '\r');
    let old = old.unwrap_or("");
    if body.trim().is_empty() {
        return (ImportOutcome::Unchanged, String::new());
    }
    if old.trim().is_empty() {
        // Verbatim, so an export and an import give back the same bytes; a
        // file of only whitespace is replaced whole.
        return (ImportOutcome::Created, text.to_string());
    }
    let mut added = String::new();
    if by_line {
        let mut seen: HashSet<&str> = old.lines().map(str::trim_end).collect();
        for line in body.lines().map(str::trim_end) {
            if !line.trim().is_empty() && seen.insert(line) {
                added.push_str(line);
                added.push('\n');
            }
        }
        if added.is_empty() {
            return (ImportOutcome::Unchanged, added);
        }
    } else {
        if old.contains(body) {
            return (ImportOutcome::Unchanged, added);
        }
        added.push('\n');
        added.push_str(body);
        added.push('\n');
    }
    if !old.ends_with('\n') {
        added.insert(0, '\n');
    }
    (ImportOutcome::Appended, added)
}

fn receipt(
    path: String,
    outcome: ImportOutcome,
    added: usize,
    redactions: Vec<String>,
    history: Vec<String>,
) -> ImportReceipt {
    let added = if outcome == ImportOutcome::Unchanged {
        0
    } else {
        added
    };
    let mut message = match outcome {
        ImportOutcome::Created => format!("Imported {added} bytes into {path} (new file)"),
        ImportOutcome::Appended => format!("Imported {added} new bytes into {path}"),
        ImportOutcome::Unchanged => format!("Already in {path}; nothing imported"),
    };
    for note in &redactions {
        message.push('\n');
        message.push_str(note);
    }
    for w in &history {
        message.push_str(&format!(" (warning: {w})"));
    }
    let mut warnings = redactions;
    warnings.extend(history);
    ImportReceipt {
        path,
        outcome,
        bytes_written: added as u64,
        warnings,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_creates_appends_and_skips() {
        assert_eq!(
            plan(None, "a\nb\n", true),
            (ImportOutcome::Created, "a\nb\n".into())
        );
        assert_eq!(
            plan(Some(" \n"), "\n\na", false),
            (ImportOutcome::Created, "\n\na".into())
        );
        assert_eq!(
            plan(Some("a\nb\n"), "b\nc\nc\n\n", true),
            (ImportOutcome::Appended, "c\n".into())
        );
        assert_eq!(
            plan(Some("a\nb"), "a  \nb\n", true),
            (ImportOutcome::Unchanged, String::new())
        );
        assert_eq!(
            plan(Some("x\n"), "", false),
            (ImportOutcome::Unchanged, String::new())
        );
        assert_eq!(
            plan(Some("# T\nbody\n"), "body", false),
            (ImportOutcome::Unchanged, String::new())
        );
        assert_eq!(
            plan(Some("# T"), "more", false),
            (ImportOutcome::Appended, "\n\nmore\n".into())
        );
        assert_eq!(
            plan(Some("# T\n"), "a\n", true),
            (ImportOutcome::Appended, "a\n".into())
        );
    }
}
