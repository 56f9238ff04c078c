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
//! - `MEMORY.md` and the scratchpad (and any file the host asks to merge
//!   line by line, such as a project's index note) are lists of one-line
//!   entries: only the
//!   non-blank lines not already in the file (compared with trailing
//!   whitespace dropped) are appended, in order, each once.
//! - Notes and daily logs are documents: the text (surrounding blank lines
//!   dropped) is appended after a blank line unless the file already
//!   contains it.
//! - A missing or blank file is created with the text, byte for byte.
//!
//! An import of several files is one change (as a change set is): every
//! file is checked first and any refusal refuses the whole import, naming
//! each refused file by its source; the files are recorded in history as
//! one change, so one undo takes the whole import back.

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

/// Most files one import may hold.
pub const MAX_IMPORT_FILES: usize = 10_000;
/// Most bytes of text one import may carry, all its files together.
pub const MAX_IMPORT_BYTES: usize = 64 * 1024 * 1024;

/// One file of an import: where its text goes, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportItem {
    /// The file the text goes to.
    pub target: WriteTarget,
    /// The note's name for `note`, the date (`YYYY-MM-DD`) for `daily`;
    /// ignored otherwise.
    pub name: Option<String>,
    /// The text.
    pub content: String,
    /// What the host read it from (e.g. `topic.md`), named in errors.
    pub source: String,
    /// Merge line by line, as `MEMORY.md` and the scratchpad always are: for
    /// a note or log that is a list of one-line entries (an index).
    pub by_line: bool,
}

/// The outcome of [`Memory::import_files`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportSetReceipt {
    /// One receipt per file, in the order given; each file's warnings are
    /// its redactions.
    pub files: Vec<ImportReceipt>,
    /// What history could not record about the change.
    pub warnings: Vec<String>,
    /// For people: one line per file, then the warnings, then a summary.
    pub message: String,
}

/// An item whose file is resolved and whose text passed the guard.
struct Checked<'a> {
    rel: Rel,
    text: std::borrow::Cow<'a, str>,
    by_line: bool,
    notes: Vec<String>,
}

impl Memory {
    /// Import `content` into the file `target` names: `name` is the note
    /// name for `note` and the date (`YYYY-MM-DD`, required) for `daily`;
    /// ignored otherwise. With `dry_run` everything is checked (names, the
    /// secret guard, the comparison) and the receipt says what would happen,
    /// but nothing is locked, written or recorded. One file of
    /// [`Memory::import_files`].
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
        let item = ImportItem {
            target,
            name: name.map(str::to_string),
            content: content.to_string(),
            source: String::new(),
            by_line: false,
        };
        let mut set = self.import_files(std::slice::from_ref(&item), dry_run)?;
        let mut one = set.files.remove(0);
        for w in &set.warnings {
            one.message.push_str(&format!(" (warning: {w})"));
        }
        one.warnings.append(&mut set.warnings);
        Ok(one)
    }

    /// Import several files as one change: all or nothing, one history
    /// change (so one undo takes the whole import back), one receipt. Each
    /// file is merged as [`Memory::import_file`] merges it, against the
    /// store as it is before the import. See the WIT `import-files` for
    /// the rules.
    ///
    /// # Errors
    /// `invalid-arguments` for more than [`MAX_IMPORT_FILES`] files or
    /// [`MAX_IMPORT_BYTES`] bytes, or two files into one; otherwise the
    /// kind of the first file refused, the message naming every refused
    /// file by its source. On any error nothing was written.
    pub fn import_files(&self, items: &[ImportItem], dry_run: bool) -> Result<ImportSetReceipt> {
        let invalid = |m: String| Error::new(ErrorKind::InvalidArguments, m);
        if items.len() > MAX_IMPORT_FILES {
            return Err(invalid(format!(
                "an import holds at most {MAX_IMPORT_FILES} files, not {}; import the source in parts",
                items.len()
            )));
        }
        let bytes: usize = items.iter().map(|i| i.content.len()).sum();
        if bytes > MAX_IMPORT_BYTES {
            return Err(invalid(format!(
                "an import carries at most {MAX_IMPORT_BYTES} bytes, not {bytes}; import the source in parts"
            )));
        }
        // Every file is checked before any is written, and every refusal
        // is named: one round of fixes, not one a run.
        let mut checked = Vec::with_capacity(items.len());
        let mut refused: Vec<Error> = Vec::new();
        let mut seen: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
        for item in items {
            match self.check_import(item) {
                Ok(c) => {
                    let path = c.rel.path();
                    if let Some(first) = seen.insert(path.clone(), &item.source) {
                        refused.push(invalid(format!(
                            "{}: goes to `{path}`, as {} does; an import puts one file into each",
                            shown(&item.source),
                            shown(first)
                        )));
                    }
                    checked.push(c);
                }
                Err(e) if item.source.is_empty() => refused.push(e),
                Err(e) => refused.push(e.within(&shown(&item.source))),
            }
        }
        if refused.len() == 1 && items.len() == 1 {
            return Err(refused.remove(0));
        }
        if let Some(first) = refused.first() {
            let mut message = format!(
                "{} of {} files refused; nothing was imported:",
                refused.len(),
                items.len()
            );
            for e in &refused {
                message.push_str(&format!("\n  {}: {}", e.kind().as_str(), e.message()));
            }
            return Err(Error::new(first.kind(), message));
        }

        if dry_run {
            let mut files = Vec::with_capacity(checked.len());
            for c in checked {
                let old = self.existing(&c.rel, false)?;
                let (outcome, added) = plan(old.as_deref(), &c.text, c.by_line);
                files.push(receipt(c.rel.path(), outcome, added.len(), c.notes));
            }
            return Ok(set_receipt(files, Vec::new()));
        }

        let (planned, done) = self.change(Operation::Import, |tx| {
            let mut planned = Vec::with_capacity(checked.len());
            for (c, item) in checked.iter().zip(items) {
                tx.part(Operation::Import, shown(&item.source));
                let old = self.existing(&c.rel, false)?;
                let (outcome, added) = plan(old.as_deref(), &c.text, c.by_line);
                if outcome != ImportOutcome::Unchanged {
                    let mut bytes = match outcome {
                        ImportOutcome::Created => Vec::new(),
                        _ => old.unwrap_or_default().into_bytes(),
                    };
                    let start = bytes.len();
                    bytes.extend_from_slice(added.as_bytes());
                    let end = bytes.len();
                    tx.push(Step::Put {
                        rel: c.rel.clone(),
                        bytes,
                        added: start..end,
                    });
                }
                planned.push((outcome, added.len()));
            }
            tx.focus(&self.long_term_rel());
            Ok(planned)
        })?;
        let files = checked
            .into_iter()
            .zip(planned)
            .map(|(c, (outcome, added))| receipt(c.rel.path(), outcome, added, c.notes))
            .collect();
        Ok(set_receipt(files, done.history))
    }

    /// One file of an import, resolved and guarded: its name, date and
    /// size checked, its text through the secret guard.
    fn check_import<'a>(&self, item: &'a ImportItem) -> Result<Checked<'a>> {
        self.team_target(item.target.into())?;
        let name = item.name.as_deref();
        let rel = match item.target {
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
        let content = item.content.as_str();
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
        let notes = guarded.note().into_iter().collect();
        Ok(Checked {
            rel,
            text: guarded.text,
            by_line: item.by_line
                || matches!(item.target, WriteTarget::LongTerm | WriteTarget::Scratchpad),
            notes,
        })
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

/// `source` in backquotes, or `the file` for a host that named none.
fn shown(source: &str) -> String {
    if source.is_empty() {
        "the file".to_string()
    } else {
        format!("`{source}`")
    }
}

fn receipt(
    path: String,
    outcome: ImportOutcome,
    added: usize,
    redactions: Vec<String>,
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
    ImportReceipt {
        path,
        outcome,
        bytes_written: added as u64,
        warnings: redactions,
        message,
    }
}

/// The whole import's receipt: the files' lines, history's warnings, and
/// a summary that says when nothing changed (a re-import).
fn set_receipt(files: Vec<ImportReceipt>, history: Vec<String>) -> ImportSetReceipt {
    let count = |o: ImportOutcome| files.iter().filter(|f| f.outcome == o).count();
    let (created, appended) = (
        count(ImportOutcome::Created),
        count(ImportOutcome::Appended),
    );
    let unchanged = count(ImportOutcome::Unchanged);
    let mut message = String::new();
    for f in &files {
        message.push_str(&f.message);
        message.push('\n');
    }
    for w in &history {
        message.push_str(&format!("warning: {w}\n"));
    }
    if files.is_empty() {
        message.push_str("Nothing to import.");
    } else if created + appended == 0 {
        message.push_str(&format!(
            "Nothing imported: all {unchanged} files were already in memory."
        ));
    } else {
        message.push_str(&format!(
            "Imported as one change: {created} created, {appended} appended, {unchanged} unchanged."
        ));
    }
    ImportSetReceipt {
        files,
        warnings: history,
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
