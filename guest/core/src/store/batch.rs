//! Change sets: several writes, edits, deletes and renames applied as one
//! change, all or nothing, recorded as one history entry and undone as one.
//!
//! Each change is staged by the same code its single tool uses
//! ([`super::curate`]'s staging functions, [`Memory::stage_write`]); the
//! change set only checks that no two changes touch the same file, so each
//! can be planned against the store as it is, and names the change that
//! failed.

use super::{Memory, Rel, WriteMode, WriteTarget, curate};
use crate::args::{MEMORY_DELETE, MEMORY_EDIT, MEMORY_RENAME, MEMORY_WRITE};
use crate::budget::Budget;
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::Kind;
use crate::history::Operation;
use crate::words::{self, Act};
use agent_memory_vocab::without_line_ends;

/// Most changes one change set may hold.
pub const MAX_BATCH_CHANGES: usize = 64;
/// Most bytes of content (`content` and `new_text`) one change set may
/// carry.
pub const MAX_BATCH_BYTES: usize = 1024 * 1024;
/// Longest `reason`, in bytes.
pub const MAX_REASON_BYTES: usize = 200;
/// The reason that marks a change set as a consolidation: it is recorded
/// with the source [`DREAM_SOURCE`] and sets the consolidation time.
pub const CONSOLIDATION_REASON: &str = "consolidation";
/// The history source of an applied consolidation.
pub const DREAM_SOURCE: &str = "dream";

/// One change of a change set: the arguments of the tool of that name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchChange {
    /// `memory_write`.
    Write {
        /// Which file.
        target: WriteTarget,
        /// What to store (cut at the write cap, as a write is).
        content: String,
        /// Append or overwrite.
        mode: WriteMode,
        /// The note's name, for `note`.
        name: Option<String>,
    },
    /// `memory_edit`.
    Edit {
        /// Which file.
        target: WriteTarget,
        /// The note's name, or the daily log's date.
        name: Option<String>,
        /// The exact text to replace, once.
        old_text: String,
        /// Its replacement.
        new_text: String,
    },
    /// `memory_delete`.
    Delete {
        /// The note.
        name: String,
    },
    /// `memory_rename`.
    Rename {
        /// The note.
        name: String,
        /// Its new name.
        new_name: String,
    },
}

impl BatchChange {
    /// The tool whose arguments this change takes.
    pub fn tool(&self) -> &'static str {
        match self {
            BatchChange::Write { .. } => MEMORY_WRITE,
            BatchChange::Edit { .. } => MEMORY_EDIT,
            BatchChange::Delete { .. } => MEMORY_DELETE,
            BatchChange::Rename { .. } => MEMORY_RENAME,
        }
    }

    /// Bytes of content it carries.
    fn content_bytes(&self) -> usize {
        match self {
            BatchChange::Write { content, .. } => content.len(),
            BatchChange::Edit { new_text, .. } => new_text.len(),
            BatchChange::Delete { .. } | BatchChange::Rename { .. } => 0,
        }
    }
}

/// The outcome of [`Memory::apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchReceipt {
    /// One line per change, in order: what it did.
    pub done: Vec<String>,
    /// Redactions, near-duplicates and history's warnings.
    pub warnings: Vec<String>,
    /// How full the injected memory is now.
    pub budget: Budget,
    /// For the model: a line per change, the warnings, the budget.
    pub message: String,
}

/// A change whose names are resolved, ready to stage.
enum Planned<'a> {
    Write {
        rel: Rel,
        content: &'a str,
        mode: WriteMode,
    },
    Edit {
        rel: Rel,
        old_text: &'a str,
        new_text: &'a str,
    },
    Delete {
        rel: Rel,
        shown: String,
    },
    Rename(curate::RenamePlan),
}

impl Planned<'_> {
    /// The files it touches.
    fn paths(&self) -> Vec<String> {
        match self {
            Planned::Write { rel, .. }
            | Planned::Edit { rel, .. }
            | Planned::Delete { rel, .. } => {
                vec![rel.path()]
            }
            Planned::Rename(r) => vec![r.from.path(), r.to.path()],
        }
    }
}

/// What one staged change did, for its line of the receipt.
enum Staged {
    Write {
        path: String,
        mode: WriteMode,
    },
    Edit {
        path: String,
        line: u32,
    },
    Delete {
        path: String,
        shown: String,
        existed: bool,
    },
    Rename {
        from: String,
        to: String,
    },
}

impl Memory {
    /// Apply `changes` as one change: all or nothing, one history entry
    /// (restoring any of its versions restores them all), one receipt.
    /// See the WIT `memory.apply` for the rules.
    ///
    /// # Errors
    /// `invalid-arguments` for an empty or oversized set, two changes on
    /// one file, or a bad `reason`; otherwise the error of the first
    /// change that fails, its message starting `change N (tool)`. On any
    /// error nothing was changed.
    pub fn apply(&self, changes: &[BatchChange], reason: Option<&str>) -> Result<BatchReceipt> {
        check_batch(changes, reason)?;
        let mut planned = Vec::with_capacity(changes.len());
        for (n, change) in changes.iter().enumerate() {
            let plan = self
                .plan_change(change)
                .map_err(|e| e.within(&part_label(n, change)))?;
            planned.push(plan);
        }
        refuse_shared_files(&planned)?;
        let consolidation = reason == Some(CONSOLIDATION_REASON);
        let (staged, done) = self.change(Operation::Write, |tx| {
            if consolidation {
                tx.source(DREAM_SOURCE);
            }
            let mut staged = Vec::with_capacity(planned.len());
            for (n, (plan, change)) in planned.iter().zip(changes).enumerate() {
                let label = part_label(n, change);
                let op = match plan {
                    Planned::Write { .. } => Operation::Write,
                    Planned::Edit { .. } => Operation::Edit,
                    Planned::Delete { .. } => Operation::Delete,
                    Planned::Rename(_) => Operation::Rename,
                };
                tx.part(op, label.clone());
                let one = match plan {
                    Planned::Write { rel, content, mode } => {
                        Memory::stage_write(tx, rel.clone(), content.to_string(), *mode);
                        Staged::Write {
                            path: rel.path(),
                            mode: *mode,
                        }
                    }
                    Planned::Edit {
                        rel,
                        old_text,
                        new_text,
                    } => {
                        let line = curate::stage_edit(tx, rel.clone(), old_text, new_text)
                            .map_err(|e| e.within(&label))?;
                        Staged::Edit {
                            path: rel.path(),
                            line,
                        }
                    }
                    Planned::Delete { rel, shown } => {
                        let kind = curate::stage_delete(tx, rel).map_err(|e| e.within(&label))?;
                        Staged::Delete {
                            path: rel.path(),
                            shown: shown.clone(),
                            existed: kind != Kind::Missing,
                        }
                    }
                    Planned::Rename(r) => {
                        r.stage(tx).map_err(|e| e.within(&label))?;
                        Staged::Rename {
                            from: r.from.path(),
                            to: r.to.path(),
                        }
                    }
                };
                staged.push(one);
            }
            if consolidation {
                tx.push(self.consolidation_mark());
            }
            // The receipt's budget is the injected memory's.
            tx.focus(&self.long_term_rel());
            Ok(staged)
        })?;
        let mut lines = Vec::with_capacity(staged.len());
        let mut written = done.written.iter();
        for (n, s) in staged.iter().enumerate() {
            let line = match s {
                Staged::Write { path, mode } => {
                    let bytes = written.next().map_or(0, |r| r.end - r.start);
                    match mode {
                        WriteMode::Append => format!("appended {bytes} bytes to {path}"),
                        WriteMode::Overwrite => format!("overwrote {path} with {bytes} bytes"),
                    }
                }
                Staged::Edit { path, line } => {
                    written.next();
                    format!("edited {path} at line {line}")
                }
                Staged::Delete {
                    path,
                    shown,
                    existed,
                } => match existed {
                    true => {
                        written.next();
                        format!("deleted note `{shown}` ({path})")
                    }
                    false => format!("nothing to delete: note `{shown}` does not exist ({path})"),
                },
                Staged::Rename { from, to } => {
                    written.next();
                    format!("renamed {from} -> {to}")
                }
            };
            lines.push(format!("{}. {line}", n + 1));
        }
        let mut message = format!(
            "Applied {} change{} as one{}; restoring any of its versions ({}, {}) undoes them all:\n{}",
            staged.len(),
            if staged.len() == 1 { "" } else { "s" },
            match reason {
                Some(r) => format!(" ({r})"),
                None => String::new(),
            },
            words::name(self.audience, Act::History),
            words::name(self.audience, Act::Restore(None)),
            lines.join("\n")
        );
        done.finish(&mut message);
        Ok(BatchReceipt {
            done: lines,
            warnings: done.warnings(),
            budget: done.budget,
            message,
        })
    }

    /// Resolve one change's names and check its arguments, touching
    /// nothing.
    fn plan_change<'a>(&self, change: &'a BatchChange) -> Result<Planned<'a>> {
        Ok(match change {
            BatchChange::Write {
                target,
                content,
                mode,
                name,
            } => {
                let rel = self.target_rel(*target, name.as_deref())?;
                let cap = self.limits.max_write_bytes;
                if without_line_ends(content).len() > cap {
                    return Err(Error::new(
                        ErrorKind::InvalidArguments,
                        format!(
                            "content for `{}` is {} bytes, the limit is {cap}; a change set never cuts content: split it over several notes",
                            rel.path(),
                            content.len()
                        ),
                    ));
                }
                Planned::Write {
                    rel,
                    content,
                    mode: *mode,
                }
            }
            BatchChange::Edit {
                target,
                name,
                old_text,
                new_text,
            } => {
                let rel = self.edit_rel(*target, name.as_deref())?;
                self.check_edit(&rel.path(), old_text, new_text)?;
                Planned::Edit {
                    rel,
                    old_text,
                    new_text,
                }
            }
            BatchChange::Delete { name } => Planned::Delete {
                shown: crate::names::note_name(name)?.to_string(),
                rel: self.note_rel(Some(name))?,
            },
            BatchChange::Rename { name, new_name } => {
                Planned::Rename(self.rename_plan(name, new_name)?)
            }
        })
    }
}

/// `change N (tool)`, 1-based, as errors name a change.
fn part_label(n: usize, change: &BatchChange) -> String {
    format!("change {} ({})", n + 1, change.tool())
}

/// Refuse an empty or oversized change set and a bad reason.
fn check_batch(changes: &[BatchChange], reason: Option<&str>) -> Result<()> {
    let invalid = |m: String| Err(Error::new(ErrorKind::InvalidArguments, m));
    if changes.is_empty() {
        return invalid(
            "the change set is empty: give at least one change, e.g. {\"tool\": \"memory_write\", \"arguments\": {...}}".into(),
        );
    }
    if changes.len() > MAX_BATCH_CHANGES {
        return invalid(format!(
            "the change set has {} changes; the limit is {MAX_BATCH_CHANGES}: split it into several sets",
            changes.len()
        ));
    }
    let bytes: usize = changes.iter().map(BatchChange::content_bytes).sum();
    if bytes > MAX_BATCH_BYTES {
        return invalid(format!(
            "the change set carries {bytes} bytes of content; the limit is {MAX_BATCH_BYTES}: split it into several sets"
        ));
    }
    if let Some(reason) = reason {
        if reason.len() > MAX_REASON_BYTES {
            return invalid(format!(
                "reason is {} bytes; the limit is {MAX_REASON_BYTES}",
                reason.len()
            ));
        }
        if let Some(c) = reason.chars().find(|c| c.is_control()) {
            return invalid(format!(
                "reason holds the control character U+{:04X}; give one line of plain text",
                c as u32
            ));
        }
    }
    Ok(())
}

/// Refuse two changes on one file (a rename chain included): each change
/// of a set is planned against the store as it was before the set.
fn refuse_shared_files(planned: &[Planned<'_>]) -> Result<()> {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for (n, plan) in planned.iter().enumerate() {
        for path in plan.paths() {
            if let Some((_, first)) = seen.iter().find(|(p, _)| *p == path) {
                return Err(Error::new(
                    ErrorKind::InvalidArguments,
                    format!(
                        "changes {} and {} both touch `{path}`; a change set changes each file once: merge them into one change, or apply them in two sets",
                        first + 1,
                        n + 1
                    ),
                ));
            }
            seen.push((path, n));
        }
    }
    Ok(())
}
