//! Keeping memory tidy: the consolidation plan (what needs distilling, for
//! the agent's own model to act on with one change set), the notice that
//! says one is due, and clearing memory as one change that undo brings
//! back.

use std::fmt::Write as _;

use super::{Memory, Rel, Step};
use crate::error::{Error, ErrorKind, Result};
use crate::fsio;
use crate::history::Operation;
use crate::limits::{INDEX_MAX_BYTES, INDEX_MAX_LINES};
use crate::names::daily_date;
use crate::time::{Date, LocalTime};

/// The file (in the project's directory) holding when the last
/// consolidation was applied, in Unix seconds.
const CONSOLIDATED_FILE: &str = ".consolidated";
/// Largest plan, in bytes: the sections first, then daily logs oldest
/// first until this is reached.
pub const MAX_PLAN_BYTES: usize = 48 * 1024;
/// Entries each list of the plan (duplicates, stale notes, unlinked
/// notes) shows before counting the rest.
const MAX_LISTED: usize = 40;
/// A consolidation is due when the logs not yet consolidated cover at least
/// this many days...
pub const DUE_AFTER_LOG_DAYS: usize = 7;
/// ...or when `MEMORY.md` holds at least this percentage of its line or
/// byte budget.
pub const DUE_AT_INDEX_PERCENT: u64 = 80;

/// What `clear` removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClearTarget {
    /// The project's files: scratchpad, daily logs and notes (in team
    /// scope: the team's notes).
    Project,
    /// `MEMORY.md`.
    LongTerm,
    /// Both.
    All,
}

/// The outcome of [`Memory::clear`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClearReceipt {
    /// Store-relative paths removed, sorted.
    pub removed: Vec<String>,
    /// Their bytes in all.
    pub bytes: u64,
    /// For a person or a model: what went, and how to bring it back.
    pub message: String,
}

impl Memory {
    /// When the last consolidation was applied (Unix seconds), if ever.
    pub fn last_consolidation(&self) -> Option<i64> {
        let path = self.abs(&format!("{}/{CONSOLIDATED_FILE}", self.project_dir()));
        let (text, _) = fsio::read_head(&path, 64).ok().flatten()?;
        text.trim().parse().ok()
    }

    /// The step that records a consolidation applied now, staged last in
    /// the change that applies it (when that change changes a file): the
    /// next plan starts after it.
    pub(crate) fn consolidation_mark(&self) -> Step {
        Step::Mark {
            rel: Rel {
                dir: self.project_dir(),
                file: CONSOLIDATED_FILE.to_string(),
            },
            bytes: Some(self.clock().unix_seconds().to_string().into_bytes()),
            if_changed: true,
        }
    }

    /// The local date of the last consolidation.
    fn consolidated_on(&self) -> Option<Date> {
        let unix = self.last_consolidation()?;
        Some(LocalTime::from_unix(unix, self.clock().utc_offset_minutes).date)
    }

    /// The daily logs written after the last consolidation (logs of its day
    /// included), oldest first, as (date, store-relative path, bytes).
    fn logs_to_consolidate(&self) -> Vec<(Date, String, u64)> {
        let since = self.consolidated_on();
        let dir = self.daily_dir();
        let Ok(files) = self.md_files(&dir) else {
            return Vec::new();
        };
        files
            .into_iter()
            .filter_map(|(name, bytes)| {
                let date = log_date_since(&name, since)?;
                (bytes > 0).then(|| (date, format!("{dir}/{name}"), bytes))
            })
            .collect()
    }

    /// How many daily logs were written after the last consolidation (logs
    /// of its day included), counted by their names alone: the context
    /// block asks on every turn, and a stat of each log made it grow with
    /// the store (an empty log counts here, not in the plan).
    fn count_logs_to_consolidate(&self) -> usize {
        let since = self.consolidated_on();
        let Ok(Some((_, names))) = self.md_names(&self.daily_dir()) else {
            return 0;
        };
        names
            .iter()
            .filter(|name| log_date_since(name, since).is_some())
            .count()
    }

    /// The context block's notice that a consolidation is due, if one is:
    /// logs of [`DUE_AFTER_LOG_DAYS`] days not yet consolidated, or
    /// `MEMORY.md` at [`DUE_AT_INDEX_PERCENT`]% of its budget.
    /// Add the notice to the block's sources (after the others).
    pub(crate) fn add_due_notice(&self, sources: &mut crate::context::Sources) {
        let notice = self.consolidation_notice(sources.long_term.as_ref());
        sources.notices.extend(notice);
    }

    /// `index` is `MEMORY.md`'s head as the block read it, and its size.
    fn consolidation_notice(&self, index: Option<&(String, u64)>) -> Option<String> {
        if self.is_team() {
            return None;
        }
        let logs = self.count_logs_to_consolidate();
        let (lines, bytes) = index.map_or((0, 0), |(t, n)| (t.lines().count() as u64, *n));
        let full = lines * 100 >= INDEX_MAX_LINES as u64 * DUE_AT_INDEX_PERCENT
            || bytes * 100 >= INDEX_MAX_BYTES as u64 * DUE_AT_INDEX_PERCENT;
        let why = match (logs >= DUE_AFTER_LOG_DAYS, full) {
            (false, false) => return None,
            (true, false) => format!("{logs} daily logs are not consolidated yet"),
            (false, true) => format!(
                "MEMORY.md is at {lines}/{INDEX_MAX_LINES} lines, {bytes}/{INDEX_MAX_BYTES} bytes"
            ),
            (true, true) => format!(
                "{logs} daily logs are not consolidated yet and MEMORY.md is at {lines}/{INDEX_MAX_LINES} lines"
            ),
        };
        Some(format!(
            "Consolidation due: {why}. Call memory_consolidate for the plan."
        ))
    }

    /// MEMORY.md and the notes among `files`, as (store path, text): the files whose lines
    /// the consolidation plan compares.
    pub(super) fn fact_texts(&self, files: &[crate::FileInfo]) -> Vec<(String, String)> {
        let long_term = self.long_term_rel();
        let mut texts = vec![(
            long_term.path(),
            self.read_text_locked(&long_term)
                .ok()
                .flatten()
                .unwrap_or_default(),
        )];
        let notes = format!("{}/", self.notes_dir());
        for f in files.iter().filter(|f| f.path.starts_with(&notes)) {
            if let Ok(Some(text)) = self.read_text_locked(&super::rel_of(&f.path)) {
                texts.push((f.path.clone(), text));
            }
        }
        texts
    }

    /// The consolidation plan: what needs tidying and how to answer, at
    /// most [`MAX_PLAN_BYTES`]. See the WIT `memory.consolidation-plan`.
    ///
    /// # Errors
    /// `not-found` when the memory holds no file at all; `io` when the
    /// store cannot be listed.
    pub fn consolidation_plan(&self) -> Result<String> {
        let files = self.list_files()?;
        if files.iter().all(|f| f.bytes == 0) {
            return Err(Error::new(
                ErrorKind::NotFound,
                "the memory is empty: there is nothing to consolidate. Write memory first; ask for a plan once daily logs or notes have piled up",
            ));
        }
        let long_term = self.long_term_rel().path();
        let mut out = String::new();
        out.push_str(&plan_instructions(&long_term));

        // MEMORY.md's budget and what it cuts.
        let index = self
            .read_text_locked(&self.long_term_rel())?
            .unwrap_or_default();
        let _ = write!(out, "\n\n## {long_term}\n{}", self.budget().text());
        let over: Vec<(usize, &str)> = over_budget(&index);
        if !over.is_empty() {
            let _ = write!(
                out,
                "\nThese {} lines no longer reach the prompt (past line {INDEX_MAX_LINES} or byte {INDEX_MAX_BYTES}); move them into notes:",
                over.len()
            );
            for (n, line) in over.iter().take(MAX_LISTED) {
                let _ = write!(out, "\n{n}: {line}");
            }
            more(&mut out, over.len());
        }

        // Near-duplicate lines across MEMORY.md and the notes.
        let texts = self.fact_texts(&files);
        let clusters = duplicate_clusters(&texts);
        if !clusters.is_empty() {
            out.push_str("\n\n## Lines said more than once\nKeep each fact in one place:");
            for cluster in clusters.iter().take(MAX_LISTED) {
                let _ = write!(out, "\n- {}", cluster.join("; "));
            }
            more(&mut out, clusters.len());
        }
        // The same fact in other words, with semantic recall on.
        let restated = self.restatements(&texts, &clusters);
        if !restated.is_empty() {
            out.push_str(
                "\n\n## Probably the same fact in other words (by meaning)\nKeep one, or keep the newer if one updates the other:",
            );
            for (_, a, b) in restated.iter().take(MAX_LISTED) {
                let _ = write!(out, "\n- {a}; {b}");
            }
            more(&mut out, restated.len());
        }

        // Stale notes.
        let stale: Vec<&crate::FileInfo> = files.iter().filter(|f| !f.stale.is_empty()).collect();
        if !stale.is_empty() {
            out.push_str(
                "\n\n## Stale\nThe project files these name changed since they were written: check them, then fix or delete the lines:",
            );
            for f in stale.iter().take(MAX_LISTED) {
                let marks = crate::anchors::render_marks(&f.stale, 1024);
                let _ = write!(out, "\n- {}: {}", f.path, marks.replace('\n', "; "));
            }
            more(&mut out, stale.len());
        }

        // Notes nothing links to.
        let unlinked = unlinked_notes(&texts, &self.notes_dir());
        if !unlinked.is_empty() {
            out.push_str(
                "\n\n## Notes nothing links to\nLink each from MEMORY.md (by its path) or merge it into another note:",
            );
            for path in unlinked.iter().take(MAX_LISTED) {
                let _ = write!(out, "\n- {path}");
            }
            more(&mut out, unlinked.len());
        }

        // The logs, oldest first, in the room left.
        let logs = self.logs_to_consolidate();
        let since = match self.consolidated_on() {
            Some(d) => format!("since the last consolidation ({d})"),
            None => "(no consolidation yet)".to_string(),
        };
        let _ = write!(
            out,
            "\n\n## Daily logs {since}: {}, oldest first",
            logs.len()
        );
        if logs.is_empty() {
            out.push_str("\n(none)");
        }
        let mut shown = 0;
        for (_, path, _) in &logs {
            let Ok(Some(text)) = self.read_text_locked(&super::rel_of(path)) else {
                continue;
            };
            let entry = format!("\n\n### {path}\n{}", text.trim_end());
            let room = MAX_PLAN_BYTES.saturating_sub(out.len() + 200);
            if entry.len() > room {
                if shown == 0 && room > 1024 {
                    let cut = crate::text::prefix_at_char_boundary(&entry, room);
                    out.push_str(cut);
                    out.push_str("\n[… the rest of this log is left for the next plan]");
                    shown += 1;
                }
                break;
            }
            out.push_str(&entry);
            shown += 1;
        }
        if shown < logs.len() {
            let _ = write!(
                out,
                "\n\n{} more logs (up to {}) did not fit in this plan: apply this one, then ask for the next plan.",
                logs.len() - shown,
                logs.last()
                    .map(|(d, _, _)| d.to_string())
                    .unwrap_or_default()
            );
        }
        Ok(out)
    }

    /// Remove the memory files `what` names as one change (history keeps
    /// them: undo or restore brings them all back). The team store is
    /// touched only by a memory opened in team scope.
    ///
    /// # Errors
    /// `busy`, `io`; on any error nothing was removed.
    pub fn clear(&self, what: ClearTarget) -> Result<ClearReceipt> {
        let files = self.list_files()?;
        let long_term = self.long_term_rel().path();
        let chosen: Vec<&crate::FileInfo> = files
            .iter()
            .filter(|f| match what {
                ClearTarget::All => true,
                ClearTarget::LongTerm => f.path == long_term,
                ClearTarget::Project => f.path != long_term,
            })
            .collect();
        let removed: Vec<String> = chosen.iter().map(|f| f.path.clone()).collect();
        let bytes = chosen.iter().map(|f| f.bytes).sum();
        let (_, done) = self.change(Operation::Delete, |tx| {
            tx.focus(&self.long_term_rel());
            for path in &removed {
                let rel: Rel = super::rel_of(path);
                if tx.kind(&rel)? != fsio::Kind::Missing {
                    let prune = path.starts_with(&format!("{}/", self.notes_dir()));
                    tx.push(Step::Remove { rel, prune });
                }
            }
            Ok(())
        })?;
        let mut message = match removed.len() {
            0 => "Nothing to clear: there are no such memory files".to_string(),
            n => format!(
                "Cleared {n} file{} ({bytes} bytes) as one change; undo (or restoring any of its versions) brings them all back",
                if n == 1 { "" } else { "s" }
            ),
        };
        done.finish(&mut message);
        Ok(ClearReceipt {
            removed,
            bytes,
            message,
        })
    }
}

/// What the model is asked to do with the plan.
fn plan_instructions(long_term: &str) -> String {
    format!(
        "# Consolidation plan\n\
         Tidy this memory with ONE memory_batch call whose reason is \"consolidation\". Its changes are \
         memory_write, memory_edit, memory_delete and memory_rename calls, with those tools' own arguments:\n\
         - distill the daily logs below into notes by topic (memory_write target=note); leave the logs as they are;\n\
         - keep {long_term} a short index under its budget: one line per note or lasting fact, pointing to notes for detail;\n\
         - keep each fact in one place: merge the lines said more than once;\n\
         - fix or delete what is stale; link or merge the notes nothing links to.\n\
         Nothing has been changed yet. The batch is applied all or nothing and one undo reverts it."
    )
}

/// Append "… and N more" when a list was cut at [`MAX_LISTED`].
fn more(out: &mut String, total: usize) {
    if total > MAX_LISTED {
        let _ = write!(out, "\n… and {} more", total - MAX_LISTED);
    }
}

/// The lines of `MEMORY.md` past its line or byte budget, 1-based, blank
/// lines skipped.
fn over_budget(index: &str) -> Vec<(usize, &str)> {
    let mut at = 0;
    let mut over = Vec::new();
    for (n, line) in index.split('\n').enumerate() {
        let end = at + line.len();
        if (n >= INDEX_MAX_LINES || end > INDEX_MAX_BYTES) && !line.trim().is_empty() {
            over.push((n + 1, line));
        }
        at = end + 1;
    }
    over
}

/// Lines that repeat across or within the given files (same words, or
/// nearly: see [`crate::dupes`]), clustered: each cluster as
/// `path:line` places, first place first.
fn duplicate_clusters(texts: &[(String, String)]) -> Vec<Vec<String>> {
    // One text, with where each file's lines start.
    let mut all = String::new();
    let mut starts = Vec::with_capacity(texts.len());
    let mut line = 1u32;
    for (path, text) in texts {
        starts.push((line, path.as_str()));
        all.push_str(text);
        if !text.ends_with('\n') {
            all.push('\n');
        }
        line += u32::try_from(text.trim_end_matches('\n').split('\n').count()).unwrap_or(0);
        if text.is_empty() {
            line -= 1;
        }
    }
    let place = |n: u32| {
        let (first, path) = starts
            .iter()
            .rev()
            .find(|(l, _)| *l <= n)
            .copied()
            .unwrap_or((1, ""));
        format!("{path}:{}", n - first + 1)
    };
    let dups = crate::dupes::in_text(&all, 0..all.len());
    // Union the pairs into clusters, keyed by their first line.
    let mut clusters: Vec<Vec<u32>> = Vec::new();
    for d in dups {
        let (a, b) = (
            d.earlier_line.min(d.added_line),
            d.earlier_line.max(d.added_line),
        );
        match clusters
            .iter_mut()
            .find(|c| c.contains(&a) || c.contains(&b))
        {
            Some(c) => {
                for l in [a, b] {
                    if !c.contains(&l) {
                        c.push(l);
                    }
                }
            }
            None => clusters.push(vec![a, b]),
        }
    }
    clusters
        .into_iter()
        .map(|mut c| {
            c.sort_unstable();
            c.into_iter().map(place).collect()
        })
        .collect()
}

/// Notes that no other file names: not by their path (`notes/a/b.md`,
/// `a/b.md`) nor as `[[a/b]]`.
fn unlinked_notes(texts: &[(String, String)], notes_dir: &str) -> Vec<String> {
    let prefix = format!("{notes_dir}/");
    texts
        .iter()
        .filter_map(|(path, _)| {
            let name = path.strip_prefix(&prefix)?.strip_suffix(".md")?;
            let forms = [
                format!("{name}.md"),
                format!("[[{name}]]"),
                format!("notes/{name}"),
            ];
            let linked = texts
                .iter()
                .any(|(p, t)| p != path && forms.iter().any(|f| t.contains(f.as_str())));
            (!linked).then(|| path.clone())
        })
        .collect()
}

/// The date of the daily log named `name` when it is on or after `since`
/// (any date without one): a log a consolidation has yet to see.
fn log_date_since(name: &str, since: Option<Date>) -> Option<Date> {
    let date = daily_date(name.strip_suffix(".md")?).ok()?;
    since.is_none_or(|s| date >= s).then_some(date)
}
