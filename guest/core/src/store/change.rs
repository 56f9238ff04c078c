//! The write path. Every change to the store, whichever front end asked for
//! it (a typed method, a seed or curation tool, the `memory` tool, import,
//! a snapshot, restore and undo), is a [`Change`] committed here, by one
//! function that runs the same steps in the same order:
//!
//! 1. **validate**: every name and every byte through the secret guard
//!    (names are text too: a token in a note name is refused);
//! 2. **lock**: the store's write lock is held from planning to the
//!    receipt ([`Memory::change`] takes it before the plan reads anything);
//! 3. **layout, kind and scope**: each file is a regular file or missing,
//!    no folder on the way is a link, a rename's target is free, and in
//!    team scope no result holds git conflict markers;
//! 4. **history**: what every file held before, recorded as one change
//!    (both sides of a rename, every note of a folder rename or snapshot),
//!    so one restore undoes it all;
//! 5. **apply**: each file replaced atomically (appends to a large file
//!    added in place), folders created only now; when a step fails, the
//!    steps before it are put back and history forgets the change, so a
//!    failed change leaves no trace; a change of several files is written
//!    to a journal first, which the next writer or reader finishes should
//!    the process die half way ([`super::journal`]);
//! 6. **caches**: anchors re-made for what was written, moved or dropped;
//!    emptied note folders removed; history pruned; with semantic recall
//!    on, the chunks the change made embedded (`store/semantic.rs`);
//! 7. **receipt**: redactions, near-duplicates, history warnings and the
//!    budget, for the front end to put in its answer ([`Committed::finish`]).
//!
//! A front end builds its change in a plan: a closure that may read the
//! files it is about to change (under the lock) and stages [`Step`]s on a
//! [`Tx`]. An error from the plan, or from any step above, leaves the store
//! as it was.

use std::fs;
use std::ops::Range;

use agent_memory_vocab::without_line_ends;

use super::{Memory, Rel};
use crate::budget::Budget;
use crate::dupes;
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::{self, Kind, LockGuard};
use crate::history::{Item, Operation, Prior};
use crate::limits::WHOLE_FILE_APPEND_MAX_BYTES;
use crate::secrets::{self, SecretPolicy};

use super::journal::Replay;

/// Bytes at the end of a file an append is compared with for near
/// duplicates: an append costs what it adds, not what the file holds.
pub(crate) const DUPLICATE_TAIL_BYTES: u64 = 64 * 1024;

/// One file operation of a change.
#[derive(Debug)]
pub(crate) enum Step {
    /// Make `rel` hold `bytes` (created when missing). `added` is the part
    /// that is new (near-duplicates and the budget look at it).
    Put {
        rel: Rel,
        bytes: Vec<u8>,
        added: Range<usize>,
    },
    /// Add `text` at the end of `rel` (created when missing), after a `\n`
    /// when the file does not end with one.
    Append { rel: Rel, text: String },
    /// Delete the regular file `rel`; with `prune`, note folders it leaves
    /// empty go too.
    Remove { rel: Rel, prune: bool },
    /// Move the regular file `from` to the free name `to`; with `prune`,
    /// note folders it leaves empty go.
    Move { from: Rel, to: Rel, prune: bool },
    /// Move the note folder `from` (store-relative) to the free name `to`.
    MoveDir { from: String, to: String },
    /// Remove the note folders `dirs` (deepest first), after the steps
    /// before it removed the notes in them: the entries `unlink` (links,
    /// FIFOs: never memory, never followed) are unlinked first. History
    /// records the notes; restoring them makes their folders again.
    RemoveDir {
        dirs: Vec<String>,
        unlink: Vec<String>,
    },
    /// Make one of the store's own files `rel` (a marker, a review
    /// decision, history's journal and objects rewritten by a purge: not
    /// memory, never recorded in history, see docs/architecture.md) hold
    /// `bytes`, or be gone when `bytes` is `None`, in the change's journal
    /// like its files. With `if_changed`, only when another step changes a
    /// file.
    Mark {
        rel: Rel,
        bytes: Option<Vec<u8>>,
        if_changed: bool,
    },
}

impl Step {
    /// The file whose budget the receipt reports.
    fn focus(&self) -> String {
        match self {
            Step::Put { rel, .. }
            | Step::Append { rel, .. }
            | Step::Remove { rel, .. }
            | Step::Mark { rel, .. } => rel.path(),
            Step::Move { to, .. } => to.path(),
            Step::MoveDir { to, .. } => to.clone(),
            Step::RemoveDir { dirs, .. } => dirs.last().cloned().unwrap_or_default(),
        }
    }

    /// Whether history records the files of this step (folders and
    /// markers are not memory files).
    fn recorded(&self) -> bool {
        !matches!(self, Step::RemoveDir { .. } | Step::Mark { .. })
    }
}

/// The plan's handle: reads under the lock, stages steps.
pub(crate) struct Tx<'m> {
    memory: &'m Memory,
    steps: Vec<Staged>,
    /// The file the receipt's budget is about when no step names one.
    focus: Option<String>,
    /// What history records the steps staged from now on as.
    op: Operation,
    /// The part of a change set the steps staged from now on belong to,
    /// put before the error of a step that fails.
    label: Option<String>,
    /// The source label history records this change with, instead of the
    /// memory's own.
    source: Option<String>,
}

/// A staged step with what history records it as and the part of the
/// request it came from.
struct Staged {
    step: Step,
    op: Operation,
    label: Option<String>,
}

impl Tx<'_> {
    /// The whole text of `rel`, strictly UTF-8; `None` when missing.
    pub(crate) fn read_text(&self, rel: &Rel) -> Result<Option<String>> {
        self.memory.read_text_locked(rel)
    }

    /// The SHA-256 of `rel`'s bytes, lowercase hex; of the empty text when
    /// it is missing.
    pub(crate) fn sha256(&self, rel: &Rel) -> Result<String> {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        if let Kind::File(_) = self.kind(rel)? {
            let path = rel.path();
            let mut file =
                fs::File::open(self.memory.abs(&path)).map_err(|e| Error::io("read", &path, &e))?;
            std::io::copy(&mut file, &mut hasher).map_err(|e| Error::io("read", &path, &e))?;
        }
        Ok(crate::anchors::project::hex(&hasher.finalize().into()))
    }

    /// What is at `rel`: `Missing` also when a folder on the way is.
    pub(crate) fn kind(&self, rel: &Rel) -> Result<Kind> {
        if !self.memory.ensure_dir(&rel.dir, false)? {
            return Ok(Kind::Missing);
        }
        self.memory.file_kind(&rel.path())
    }

    /// Name the file the receipt's budget is about, for a change that may
    /// stage nothing (deleting a missing note).
    pub(crate) fn focus(&mut self, rel: &Rel) {
        self.focus = Some(rel.path());
    }

    /// Stage a step.
    pub(crate) fn push(&mut self, step: Step) {
        self.steps.push(Staged {
            step,
            op: self.op,
            label: self.label.clone(),
        });
    }

    /// Record the steps staged from now on as `op`, and name them `label`
    /// in errors (one change of a change set).
    pub(crate) fn part(&mut self, op: Operation, label: String) {
        self.op = op;
        self.label = Some(label);
    }

    /// Record this change in history with `source` instead of the
    /// memory's own label (a consolidation is recorded as `dream`).
    pub(crate) fn source(&mut self, source: &str) {
        self.source = Some(source.to_string());
    }

    /// Stage `rel` holding `text` whole (all of it new).
    pub(crate) fn put(&mut self, rel: Rel, text: impl Into<Vec<u8>>) {
        let bytes = text.into();
        let added = 0..bytes.len();
        self.push(Step::Put { rel, bytes, added });
    }
}

/// What a committed change did, for the front end's answer.
#[derive(Debug)]
pub(crate) struct Committed {
    /// For each step: the byte range of the file it wrote (appends: where
    /// the text went).
    pub(crate) written: Vec<Range<u64>>,
    /// Redaction notes.
    pub(crate) redactions: Vec<String>,
    /// Near-duplicates of what was added, with the store-relative path of
    /// their file.
    pub(crate) duplicates: Vec<(String, dupes::Duplicate)>,
    /// Added lines that mean what an older line means, by the stored
    /// vectors (`store/similar.rs`): the receipt's `similar to …` notices,
    /// in the words of the memory's reader.
    pub(crate) similar: Vec<String>,
    /// History's warnings.
    pub(crate) history: Vec<String>,
    /// How full the injected memory is now.
    pub(crate) budget: Budget,
    /// Whether anything changed (a put of identical content does not).
    pub(crate) changed: bool,
}

impl Committed {
    /// Every warning, in the order the message shows them.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let mut all = self.redactions.clone();
        all.extend(self.duplicate_lines());
        all.extend(self.similar.iter().cloned());
        all.extend(self.history.iter().cloned());
        all
    }

    /// Add the note of a guard a front end ran itself on part of the text
    /// (before the change read the file), unless the change made its own.
    pub(crate) fn redacted_before(&mut self, guarded: &secrets::Guarded<'_>) {
        if self.redactions.is_empty() {
            self.redactions.extend(guarded.note());
        }
    }

    /// One warning line per near-duplicate, naming its file's store path.
    pub(crate) fn duplicate_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let mut at = 0;
        while at < self.duplicates.len() {
            let path = &self.duplicates[at].0;
            let same: Vec<dupes::Duplicate> = self.duplicates[at..]
                .iter()
                .take_while(|(p, _)| p == path)
                .map(|(_, d)| *d)
                .collect();
            at += same.len();
            lines.extend(dupes::warnings(&same, path));
        }
        lines
    }

    /// Finish a front end's one-line `message`: redactions and
    /// near-duplicates on lines of their own, history's warnings in
    /// parentheses, then the budget line. Nothing is ever left out.
    pub(crate) fn finish(&self, message: &mut String) {
        for note in &self.redactions {
            message.push('\n');
            message.push_str(note);
        }
        if !self.duplicates.is_empty() {
            message.push('\n');
            message.push_str(&dupes::lines_text(&self.duplicate_lines()));
        }
        for s in &self.similar {
            message.push('\n');
            message.push_str(s);
        }
        for w in &self.history {
            message.push_str(" (warning: ");
            message.push_str(w);
            message.push(')');
        }
        super::push_budget(message, &self.budget);
    }
}

/// Every Markdown file the store writes ends with exactly one `\n`: the
/// trailing line breaks (`\n`, `\r\n`) of what a step writes become one
/// `\n`; text that is empty or only line breaks writes nothing (a file so
/// put is empty). An append's text ends the same way, so the file it adds
/// to does too. Run on every staged step of every change (step 1), restores
/// and the `memory` tool included; files that are not Markdown, or not
/// UTF-8, are written as given.
fn settle_ending(step: &mut Step) {
    match step {
        Step::Put { rel, bytes, added } if rel.file.ends_with(".md") => {
            let Ok(text) = std::str::from_utf8(bytes) else {
                return;
            };
            let body = without_line_ends(text).len();
            if body + 1 == bytes.len() && bytes.ends_with(b"\n") {
                return;
            }
            // What was added to the end of the text ends with the newline:
            // receipts count the bytes as stored.
            let reaches_end = added.end == bytes.len();
            bytes.truncate(body);
            if body > 0 {
                bytes.push(b'\n');
            }
            let end = bytes.len();
            added.start = added.start.min(end);
            added.end = if reaches_end { end } else { added.end.min(end) };
        }
        Step::Append { rel, text } if rel.file.ends_with(".md") && !text.is_empty() => {
            let body = without_line_ends(text).len();
            text.truncate(body);
            if body > 0 {
                text.push('\n');
            }
        }
        _ => {}
    }
}

/// What a previewed change would do to one file: its text before and
/// after (`None`: missing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Preview {
    pub(crate) path: String,
    pub(crate) before: Option<String>,
    pub(crate) after: Option<String>,
}

/// Where a dry run's previews go (see [`Memory::with_dry_run`]).
pub(crate) type DrySink = std::sync::Arc<std::sync::Mutex<Vec<Preview>>>;

/// The error that stops a dry run's change before it records or applies
/// anything; never seen outside [`Memory::dry_run`].
fn dry_stop() -> Error {
    Error::new(ErrorKind::Other, DRY_RUN_STOP)
}

const DRY_RUN_STOP: &str = "\u{0}dry run: nothing was changed";

impl Memory {
    /// This memory (and its team store) with every change previewed into
    /// `sink` instead of committed.
    fn with_dry_run(&self, sink: &DrySink) -> Memory {
        let mut dry = self.clone();
        dry.dry = Some(sink.clone());
        if let Some(team) = &mut dry.team {
            team.dry = Some(sink.clone());
        }
        dry
    }

    /// Run `call` on a dry-run copy of this memory: every change it makes
    /// is validated and checked like a real one (the guard, names, kinds,
    /// conflicts, its own preconditions) and previewed, never recorded or
    /// applied. Returns what the files would hold.
    ///
    /// # Errors
    /// The error the change would fail with.
    pub(crate) fn dry_run<T>(
        &self,
        call: impl FnOnce(&Memory) -> Result<T>,
    ) -> Result<Vec<Preview>> {
        let sink = DrySink::default();
        let dry = self.with_dry_run(&sink);
        match call(&dry) {
            Err(e) if e.kind() != ErrorKind::Other || e.message() != DRY_RUN_STOP => Err(e),
            _ => Ok(sink
                .lock()
                .map(|mut v| std::mem::take(&mut *v))
                .unwrap_or_default()),
        }
    }
}

/// A step after validation: what it will write, and what was there.
struct Checked {
    step: Step,
    /// What history records it as.
    op: Operation,
    /// What its first file was.
    before: Kind,
    /// The first file's previous content, when history or a rollback
    /// needs it (`None`: missing, or too large to keep).
    old: Option<Vec<u8>>,
    /// Skipped: the file already holds exactly this.
    same: bool,
    /// Every file it touches, as history records them.
    files: Vec<Before>,
}

/// A file a step touches, as it was.
struct Before {
    path: String,
    /// For a rename: the path on the other side.
    other: Option<String>,
    kind: Kind,
    bytes: Option<Vec<u8>>,
}

impl Memory {
    /// Commit one change: take the lock, run `plan` (which reads what it
    /// needs and stages the steps), then validate, record, apply and
    /// answer. See the module docs for the steps. `op` is what history
    /// records (an edit of a missing file is recorded as a write).
    pub(crate) fn change<T>(
        &self,
        op: Operation,
        plan: impl FnOnce(&mut Tx<'_>) -> Result<T>,
    ) -> Result<(T, Committed)> {
        let lock = self.lock()?;
        self.change_locked(&lock, op, plan)
    }

    /// [`Memory::change`] for a caller that already holds the lock.
    pub(crate) fn change_locked<T>(
        &self,
        lock: &LockGuard,
        op: Operation,
        plan: impl FnOnce(&mut Tx<'_>) -> Result<T>,
    ) -> Result<(T, Committed)> {
        let mut tx = Tx {
            memory: self,
            steps: Vec::new(),
            focus: None,
            op,
            label: None,
            source: None,
        };
        let value = plan(&mut tx)?;
        if let Some(sink) = &self.dry {
            let previews = self.preview(tx.steps)?;
            sink.lock().map_err(|_| dry_stop())?.extend(previews);
            return Err(dry_stop());
        }
        if !tx.steps.is_empty()
            && let Some(step) = self.rider()
        {
            tx.push(step);
        }
        let committed = self.commit(lock, tx.steps, tx.focus, tx.source.as_deref())?;
        Ok((value, committed))
    }

    /// Steps 1 and 3 of a change that is only previewed (see
    /// [`Memory::with_dry_run`]): what each file would hold.
    fn preview(&self, steps: Vec<Staged>) -> Result<Vec<Preview>> {
        let mut out = Vec::new();
        let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        for mut s in steps {
            let mut redactions = Vec::new();
            settle_ending(&mut s.step);
            self.validate(&mut s.step, &mut redactions)
                .map_err(|e| within(e, &s.label))?;
            let c = self.check(s.step, s.op).map_err(|e| within(e, &s.label))?;
            let before = c.old.as_deref().map(lossy);
            match &c.step {
                Step::Put { rel, bytes, .. } => out.push(Preview {
                    path: rel.path(),
                    before,
                    after: Some(lossy(bytes)),
                }),
                Step::Append { rel, text } => {
                    let path = rel.path();
                    let before = match (before, c.before) {
                        (None, Kind::File(_)) => fs::read(self.abs(&path)).ok().map(|b| lossy(&b)),
                        (b, _) => b,
                    };
                    let mut after = before.clone().unwrap_or_default();
                    if !after.is_empty() && !after.ends_with('\n') {
                        after.push('\n');
                    }
                    after.push_str(text);
                    out.push(Preview {
                        path,
                        before,
                        after: Some(after),
                    });
                }
                Step::Remove { rel, .. } => out.push(Preview {
                    path: rel.path(),
                    before,
                    after: None,
                }),
                Step::Move { from, to, .. } => {
                    out.push(Preview {
                        path: from.path(),
                        before: before.clone(),
                        after: None,
                    });
                    out.push(Preview {
                        path: to.path(),
                        before: None,
                        after: before,
                    });
                }
                Step::MoveDir { .. } => {
                    for f in &c.files {
                        out.push(Preview {
                            path: f.path.clone(),
                            before: f.bytes.as_deref().map(lossy),
                            after: None,
                        });
                    }
                }
                // Folders and markers are not memory: nothing to show.
                Step::RemoveDir { .. } | Step::Mark { .. } => {}
            }
        }
        Ok(out)
    }

    fn commit(
        &self,
        lock: &LockGuard,
        steps: Vec<Staged>,
        focus: Option<String>,
        source: Option<&str>,
    ) -> Result<Committed> {
        let mut redactions = Vec::new();
        let Some(first) = steps.first().map(|s| s.step.focus()) else {
            let focus = focus.unwrap_or_else(|| self.long_term_rel().path());
            return Ok(Committed {
                written: Vec::new(),
                redactions,
                duplicates: Vec::new(),
                similar: Vec::new(),
                history: Vec::new(),
                budget: self.budget_after(&focus, 0..0),
                changed: false,
            });
        };
        let focus = focus.unwrap_or(first);
        // 1. Validate names and text.
        let mut steps = steps;
        let mut labels = Vec::with_capacity(steps.len());
        for s in &mut steps {
            settle_ending(&mut s.step);
            self.validate(&mut s.step, &mut redactions)
                .map_err(|e| within(e, &s.label))?;
            labels.push(s.label.take());
        }
        // 3. Layout, kind, scope, conflicts; and what each file holds now.
        let mut checked = Vec::with_capacity(steps.len());
        for (s, label) in steps.into_iter().zip(&labels) {
            checked.push(self.check(s.step, s.op).map_err(|e| within(e, label))?);
        }
        let changes_files = checked
            .iter()
            .any(|c| !c.same && !matches!(c.step, Step::Mark { .. }));
        for c in &mut checked {
            if let Step::Mark {
                if_changed: true, ..
            } = c.step
            {
                c.same |= !changes_files;
            }
        }
        // 4. History, as one change.
        let history = self.history_store();
        let items = history_items(&checked);
        let recorded = history.record_change(lock, &self.clock(), &items, source);
        let mut history_warnings = recorded.warnings.clone();
        // 5. Apply, all or nothing: a change of several files is journaled
        // first, so a crash half way is finished by the next writer.
        let journaled = checked
            .iter()
            .filter(|c| !c.same)
            .map(|c| match &c.step {
                Step::RemoveDir { dirs, unlink } => dirs.len() + unlink.len(),
                _ => 1,
            })
            .sum::<usize>()
            > 1;
        if journaled && let Err(e) = self.write_journal(lock, &self.replay_steps(&checked)) {
            history.rollback(lock, &recorded);
            return Err(e);
        }
        if changes_files {
            // The team directory's own git files, made once, with the
            // first change that writes there.
            self.ensure_git_files();
        }
        let mut written = Vec::with_capacity(checked.len());
        for (n, c) in checked.iter().enumerate() {
            match self.apply_step(lock, c) {
                Ok(range) => written.push(range),
                Err(e) => {
                    for done in checked[..n].iter().rev() {
                        self.put_back(lock, done);
                    }
                    history.rollback(lock, &recorded);
                    if journaled {
                        self.clear_journal();
                    }
                    return Err(within(e, &labels[n]));
                }
            }
        }
        if journaled {
            self.clear_journal();
        }
        // 6. Caches.
        let mut duplicates = Vec::new();
        for (c, range) in checked.iter().zip(&written) {
            self.after(lock, c, range.clone(), &mut duplicates);
        }
        history_warnings.extend(history.settle(lock, &recorded));
        let touched: Vec<String> = checked
            .iter()
            .filter(|c| !c.same && c.step.recorded())
            .flat_map(|c| &c.files)
            .flat_map(|f| std::iter::once(&f.path).chain(&f.other))
            .cloned()
            .collect();
        if !touched.is_empty() {
            self.vectors_after_change(lock, &touched);
        }
        let added: Vec<(String, String)> = checked
            .iter()
            .filter(|c| !c.same)
            .filter_map(|c| match &c.step {
                Step::Put { rel, bytes, added } => Some((
                    rel.path(),
                    String::from_utf8_lossy(bytes.get(added.clone())?).into_owned(),
                )),
                Step::Append { rel, text } => Some((rel.path(), text.clone())),
                _ => None,
            })
            .collect();
        let similar = self
            .similar_after_change(&added)
            .iter()
            .map(|s| s.notice(self.audience))
            .collect();
        // 7. The receipt.
        let range = match checked.first().map(|c| &c.step) {
            Some(Step::Put { .. } | Step::Append { .. }) => written[0].clone(),
            _ => 0..0,
        };
        Ok(Committed {
            changed: changes_files,
            written,
            redactions,
            duplicates,
            similar,
            history: history_warnings,
            budget: self.budget_after(&focus, range),
        })
    }

    /// Step 1: the secret guard over the names a step makes and the text
    /// it adds.
    fn validate(&self, step: &mut Step, redactions: &mut Vec<String>) -> Result<()> {
        match step {
            Step::Put { rel, bytes, added } => {
                self.guard_name(&rel.path())?;
                let path = rel.path();
                let redacted = match std::str::from_utf8(bytes) {
                    Ok(text) => {
                        let guarded = self.guard(text, &path)?;
                        redactions.extend(guarded.note());
                        match guarded.text {
                            std::borrow::Cow::Owned(t) => Some(t),
                            std::borrow::Cow::Borrowed(_) => None,
                        }
                    }
                    // Not text: checked as text, never rewritten.
                    Err(_) => {
                        let lossy = String::from_utf8_lossy(bytes);
                        secrets::guard(&lossy, self.block_policy(), &path)?;
                        None
                    }
                };
                if let Some(text) = redacted {
                    *added = 0..text.len();
                    *bytes = text.into_bytes();
                }
            }
            Step::Append { rel, text } => {
                let path = rel.path();
                self.guard_name(&path)?;
                let guarded = self.guard(text, &path)?;
                redactions.extend(guarded.note());
                if let std::borrow::Cow::Owned(t) = guarded.text {
                    *text = t;
                }
            }
            Step::Remove { .. } | Step::RemoveDir { .. } | Step::Mark { .. } => {}
            Step::Move { to, .. } => self.guard_name(&to.path())?,
            Step::MoveDir { to, .. } => self.guard_name(to)?,
        }
        Ok(())
    }

    /// The policy for what cannot be redacted (names, bytes that are not
    /// text): anything but `off` refuses.
    fn block_policy(&self) -> SecretPolicy {
        match self.guard_policy() {
            SecretPolicy::Off => SecretPolicy::Off,
            _ => SecretPolicy::Block,
        }
    }

    /// Refuse a store-relative path whose names hold a secret. The message
    /// names the rules, never the name (it holds the value).
    pub(crate) fn guard_name(&self, path: &str) -> Result<()> {
        if self.block_policy() == SecretPolicy::Off {
            return Ok(());
        }
        let findings = secrets::scan(path);
        if findings.is_empty() {
            return Ok(());
        }
        let mut rules: Vec<&str> = findings.iter().map(|f| f.rule_id).collect();
        rules.dedup();
        Err(Error::new(
            ErrorKind::SecretDetected,
            format!(
                "refused a file or folder name that holds a secret ({}); nothing was written. Name the note after what it is about, never after a credential's value",
                rules.join(", ")
            ),
        ))
    }

    /// Step 3 for one step: its files are regular or missing, reached
    /// through no link, free where it creates them; team results hold no
    /// conflict markers. Reads what history and a rollback need.
    fn check(&self, step: Step, op: Operation) -> Result<Checked> {
        let (before, old, same, files) = match &step {
            Step::Put { rel, bytes, .. } => {
                let path = rel.path();
                let kind = self.reachable_kind(rel)?;
                self.refuse_conflict_text(&path, bytes)?;
                let old = self.read_prior(&path, kind)?;
                let same = old.as_deref() == Some(bytes.as_slice());
                (kind, old, same, Vec::new())
            }
            Step::Append { rel, text } => {
                let path = rel.path();
                let kind = self.reachable_kind(rel)?;
                if self.is_team() {
                    self.refuse_conflict_write(&path, kind, super::WriteMode::Append, text)?;
                }
                let old = match kind {
                    Kind::File(len) if len <= WHOLE_FILE_APPEND_MAX_BYTES && len > 0 => {
                        Some(fs::read(self.abs(&path)).map_err(|e| Error::io("read", &path, &e))?)
                    }
                    _ => None,
                };
                (kind, old, text.is_empty(), Vec::new())
            }
            Step::Remove { rel, .. } => {
                let path = rel.path();
                let kind = self.reachable_kind(rel)?;
                if kind == Kind::Missing {
                    return Err(Error::new(
                        ErrorKind::NotFound,
                        format!("cannot delete `{path}`: it does not exist"),
                    ));
                }
                (kind, self.read_prior(&path, kind)?, false, Vec::new())
            }
            Step::Move { from, to, .. } => {
                let (from_path, to_path) = (from.path(), to.path());
                let kind = self.reachable_kind(from)?;
                if kind == Kind::Missing {
                    return Err(Error::new(
                        ErrorKind::NotFound,
                        format!("cannot rename `{from_path}`: it does not exist"),
                    ));
                }
                if self.reachable_kind(to)? != Kind::Missing {
                    return Err(Error::new(
                        ErrorKind::AlreadyExists,
                        format!("cannot rename `{from_path}` to `{to_path}`: the target exists"),
                    ));
                }
                let old = self.read_prior(&from_path, kind)?;
                if let Some(bytes) = &old {
                    self.refuse_conflict_text(&from_path, bytes)?;
                }
                let files = vec![
                    Before {
                        path: from_path.clone(),
                        other: Some(to_path.clone()),
                        kind,
                        bytes: old.clone(),
                    },
                    Before {
                        path: to_path,
                        other: Some(from_path),
                        kind: Kind::Missing,
                        bytes: None,
                    },
                ];
                (kind, old, false, files)
            }
            Step::MoveDir { from, to } => {
                if !self.ensure_dir(from, false)? {
                    return Err(Error::new(
                        ErrorKind::NotFound,
                        format!("cannot rename the folder `{from}`: it does not exist"),
                    ));
                }
                let free = fsio::kind(&self.abs(to)).map_err(|e| Error::io("inspect", to, &e))?;
                if free != Kind::Missing {
                    return Err(Error::new(
                        ErrorKind::AlreadyExists,
                        format!("cannot rename the folder `{from}` to `{to}`: the target exists"),
                    ));
                }
                let mut notes = self.notes_under(from)?;
                notes.sort_by_key(Rel::path);
                let mut files = Vec::with_capacity(notes.len() * 2);
                for rel in notes {
                    let path = rel.path();
                    let kind = self.file_kind(&path)?;
                    let bytes = self.read_prior(&path, kind)?;
                    if let Some(bytes) = &bytes {
                        self.refuse_conflict_text(&path, bytes)?;
                    }
                    let new = format!("{to}{}", &path[from.len()..]);
                    self.guard_name(&new)?;
                    files.push(Before {
                        path: path.clone(),
                        other: Some(new.clone()),
                        kind,
                        bytes,
                    });
                    files.push(Before {
                        path: new,
                        other: Some(path),
                        kind: Kind::Missing,
                        bytes: None,
                    });
                }
                (Kind::Missing, None, false, files)
            }
            Step::RemoveDir { dirs, unlink } => {
                for dir in dirs {
                    if !self.ensure_dir(dir, false)? {
                        return Err(Error::new(
                            ErrorKind::NotFound,
                            format!("cannot remove the folder `{dir}`: it does not exist"),
                        ));
                    }
                }
                for path in unlink {
                    let kind =
                        fsio::kind(&self.abs(path)).map_err(|e| Error::io("inspect", path, &e))?;
                    if matches!(kind, Kind::File(_) | Kind::Missing) {
                        return Err(Error::new(
                            ErrorKind::Conflict,
                            format!(
                                "`{path}` changed while its folder was being removed; nothing was changed, try again"
                            ),
                        ));
                    }
                }
                (Kind::Missing, None, false, Vec::new())
            }
            Step::Mark { rel, bytes, .. } => {
                let path = rel.path();
                let kind =
                    fsio::kind(&self.abs(&path)).map_err(|e| Error::io("inspect", &path, &e))?;
                let old = match kind {
                    Kind::File(_) => {
                        Some(fs::read(self.abs(&path)).map_err(|e| Error::io("read", &path, &e))?)
                    }
                    Kind::Missing => None,
                    Kind::Other(what) => {
                        return Err(Error::new(
                            ErrorKind::NotAFile,
                            format!(
                                "`{path}` exists but is {what}, not the regular file the store keeps there"
                            ),
                        ));
                    }
                };
                let same = old == *bytes;
                (kind, old, same, Vec::new())
            }
        };
        let mut c = Checked {
            step,
            op,
            before,
            old,
            same,
            files,
        };
        if c.files.is_empty() && c.step.recorded() {
            c.files.push(Before {
                path: c.step.focus(),
                other: None,
                kind: c.before,
                bytes: c.old.clone(),
            });
        }
        Ok(c)
    }

    /// The kind of `rel`, whose folders must be real folders where they
    /// exist (never links); `Missing` when a folder on the way is missing.
    fn reachable_kind(&self, rel: &Rel) -> Result<Kind> {
        if !self.ensure_dir(&rel.dir, false)? {
            return Ok(Kind::Missing);
        }
        self.file_kind(&rel.path())
    }

    /// The whole previous content of a file of `kind`, for history and a
    /// rollback; `None` when missing or too large to keep.
    fn read_prior(&self, path: &str, kind: Kind) -> Result<Option<Vec<u8>>> {
        match kind {
            Kind::File(len) if len <= self.history_store().retention().largest_version() => {
                fs::read(self.abs(path))
                    .map(Some)
                    .map_err(|e| Error::io("read", path, &e))
            }
            _ => Ok(None),
        }
    }

    /// What the journal replays for each changed step: every file whole
    /// (an append as the file it makes), removals and moves.
    fn replay_steps(&self, checked: &[Checked]) -> Vec<Replay> {
        let mut out = Vec::with_capacity(checked.len());
        for c in checked.iter().filter(|c| !c.same) {
            out.push(match &c.step {
                Step::Put { rel, bytes, .. } => Replay::Put(rel.path(), bytes.clone()),
                Step::Append { rel, text } => {
                    let path = rel.path();
                    let mut bytes = match (&c.old, c.before) {
                        (Some(old), _) => old.clone(),
                        (None, Kind::File(_)) => fs::read(self.abs(&path)).unwrap_or_default(),
                        _ => Vec::new(),
                    };
                    if bytes.last().is_some_and(|&b| b != b'\n') {
                        bytes.push(b'\n');
                    }
                    bytes.extend_from_slice(text.as_bytes());
                    Replay::Put(path, bytes)
                }
                Step::Remove { rel, .. } => Replay::Remove(rel.path()),
                Step::Move { from, to, .. } => Replay::Move(from.path(), to.path()),
                Step::MoveDir { from, to } => Replay::MoveDir(from.clone(), to.clone()),
                Step::RemoveDir { dirs, unlink } => {
                    out.extend(unlink.iter().cloned().map(Replay::Unlink));
                    out.extend(dirs.iter().cloned().map(Replay::RemoveDir));
                    continue;
                }
                Step::Mark { rel, bytes, .. } => match bytes {
                    Some(bytes) => Replay::Put(rel.path(), bytes.clone()),
                    None => Replay::Remove(rel.path()),
                },
            });
        }
        out
    }

    /// Step 5 for one step: make the folders it needs, then change its
    /// file atomically. Returns the byte range written.
    fn apply_step(&self, lock: &LockGuard, c: &Checked) -> Result<Range<u64>> {
        if c.same {
            return Ok(match &c.step {
                Step::Put { added, .. } => added.start as u64..added.end as u64,
                _ => 0..0,
            });
        }
        match &c.step {
            Step::Put { rel, bytes, added } => {
                let path = rel.path();
                self.make_dir(&rel.dir)?;
                fsio::replace(&self.abs(&rel.dir), &rel.file, bytes, lock)
                    .map_err(|e| Error::io("write", &path, &e))?;
                Ok(added.start as u64..added.end as u64)
            }
            Step::Append { rel, text } => {
                let path = rel.path();
                self.make_dir(&rel.dir)?;
                match (&c.old, c.before) {
                    (Some(old), _) => {
                        let mut bytes = Vec::with_capacity(old.len() + text.len() + 1);
                        bytes.extend_from_slice(old);
                        if bytes.last().is_some_and(|&b| b != b'\n') {
                            bytes.push(b'\n');
                        }
                        let start = bytes.len() as u64;
                        bytes.extend_from_slice(text.as_bytes());
                        fsio::replace(&self.abs(&rel.dir), &rel.file, &bytes, lock)
                            .map_err(|e| Error::io("append to", &path, &e))?;
                        Ok(start..start + text.len() as u64)
                    }
                    (None, Kind::File(len)) if len > 0 => {
                        let file = self.abs(&path);
                        let newline = !fsio::ends_with_newline(&file, len)
                            .map_err(|e| Error::io("read", &path, &e))?;
                        let mut bytes = Vec::with_capacity(text.len() + 1);
                        if newline {
                            bytes.push(b'\n');
                        }
                        bytes.extend_from_slice(text.as_bytes());
                        if let Err(e) = fsio::append(&file, len, &bytes, lock) {
                            // Never leave half an entry: cut back to before.
                            let _ = fs::OpenOptions::new()
                                .write(true)
                                .open(&file)
                                .and_then(|f| f.set_len(len));
                            return Err(Error::io("append to", &path, &e));
                        }
                        let start = len + u64::from(newline);
                        Ok(start..start + text.len() as u64)
                    }
                    _ => {
                        fsio::replace(&self.abs(&rel.dir), &rel.file, text.as_bytes(), lock)
                            .map_err(|e| Error::io("append to", &path, &e))?;
                        Ok(0..text.len() as u64)
                    }
                }
            }
            Step::Remove { rel, .. } => {
                let path = rel.path();
                lock.check().map_err(|e| Error::io("delete", &path, &e))?;
                fs::remove_file(self.abs(&path)).map_err(|e| Error::io("delete", &path, &e))?;
                fsio::sync_dir(&self.abs(&rel.dir));
                Ok(0..0)
            }
            Step::Move { from, to, .. } => {
                let shown = format!("{}` to `{}", from.path(), to.path());
                self.make_dir(&to.dir)?;
                lock.check().map_err(|e| Error::io("rename", &shown, &e))?;
                fs::rename(self.abs(&from.path()), self.abs(&to.path()))
                    .map_err(|e| Error::io("rename", &shown, &e))?;
                fsio::sync_dir(&self.abs(&to.dir));
                if to.dir != from.dir {
                    fsio::sync_dir(&self.abs(&from.dir));
                }
                Ok(0..0)
            }
            Step::MoveDir { from, to } => {
                let shown = format!("{from}` to `{to}");
                if let Some((parent, _)) = to.rsplit_once('/') {
                    self.make_dir(parent)?;
                }
                lock.check().map_err(|e| Error::io("rename", &shown, &e))?;
                fs::rename(self.abs(from), self.abs(to))
                    .map_err(|e| Error::io("rename", &shown, &e))?;
                for dir in [to, from] {
                    if let Some((parent, _)) = dir.rsplit_once('/') {
                        fsio::sync_dir(&self.abs(parent));
                    }
                }
                Ok(0..0)
            }
            Step::RemoveDir { dirs, unlink } => {
                for path in unlink {
                    lock.check().map_err(|e| Error::io("delete", path, &e))?;
                    fs::remove_file(self.abs(path)).map_err(|e| Error::io("delete", path, &e))?;
                }
                for dir in dirs {
                    lock.check()
                        .map_err(|e| Error::io("remove the folder", dir, &e))?;
                    fsio::remove_leftovers(&self.abs(dir));
                    fs::remove_dir(self.abs(dir))
                        .map_err(|e| Error::io("remove the folder", dir, &e))?;
                }
                if let Some((parent, _)) = dirs.last().and_then(|d| d.rsplit_once('/')) {
                    fsio::sync_dir(&self.abs(parent));
                }
                Ok(0..0)
            }
            Step::Mark { rel, bytes, .. } => {
                let path = rel.path();
                match bytes {
                    Some(bytes) => {
                        self.make_dir(&rel.dir)?;
                        fsio::replace(&self.abs(&rel.dir), &rel.file, bytes, lock)
                            .map_err(|e| Error::io("write", &path, &e))?;
                    }
                    None => {
                        lock.check().map_err(|e| Error::io("delete", &path, &e))?;
                        fs::remove_file(self.abs(&path))
                            .map_err(|e| Error::io("delete", &path, &e))?;
                        fsio::sync_dir(&self.abs(&rel.dir));
                    }
                }
                Ok(0..0)
            }
        }
    }

    /// Create the folders of `dir`: note folders one by one and never
    /// through a link, the store's own layout as a whole.
    pub(super) fn make_dir(&self, dir: &str) -> Result<()> {
        if self.is_team() || dir.starts_with(&self.notes_dir()) {
            self.ensure_dir(dir, true)?;
        } else if !dir.is_empty() && !dir.ends_with(':') {
            fsio::create_dir_all(&self.abs(dir))
                .map_err(|e| Error::io("create directory", dir, &e))?;
        }
        fsio::remove_leftovers(&self.abs(dir));
        Ok(())
    }

    /// Undo an applied step after a later one failed. Best effort: each
    /// file is whole either way.
    fn put_back(&self, lock: &LockGuard, c: &Checked) {
        if c.same {
            return;
        }
        let restore = |rel: &Rel, old: &Option<Vec<u8>>, before: Kind| match (old, before) {
            (Some(bytes), _) => {
                // Its folder may have gone with a folder removal after it.
                let _ = self.make_dir(&rel.dir);
                let _ = fsio::replace(&self.abs(&rel.dir), &rel.file, bytes, lock);
            }
            (None, Kind::Missing) => {
                let _ = fs::remove_file(self.abs(&rel.path()));
                self.prune_note_dirs(&rel.dir);
            }
            // Too large to have been kept: an append is cut back.
            (None, Kind::File(len)) => {
                let _ = fs::OpenOptions::new()
                    .write(true)
                    .open(self.abs(&rel.path()))
                    .and_then(|f| f.set_len(len));
            }
            (None, Kind::Other(_)) => {}
        };
        match &c.step {
            Step::Put { rel, .. }
            | Step::Append { rel, .. }
            | Step::Remove { rel, .. }
            | Step::Mark { rel, .. } => {
                restore(rel, &c.old, c.before);
            }
            Step::Move { from, to, .. } => {
                let _ = fs::rename(self.abs(&to.path()), self.abs(&from.path()));
                self.prune_note_dirs(&to.dir);
            }
            Step::MoveDir { from, to } => {
                let _ = fs::rename(self.abs(to), self.abs(from));
            }
            // The folders it removed, shallowest first; the notes in them
            // are put back by the steps before it.
            Step::RemoveDir { dirs, .. } => {
                for dir in dirs.iter().rev() {
                    let _ = fs::create_dir(self.abs(dir));
                }
            }
        }
    }

    /// Step 6 for one applied step: anchors, emptied folders, and the
    /// near-duplicates of what it added.
    fn after(
        &self,
        lock: &LockGuard,
        c: &Checked,
        range: Range<u64>,
        dups: &mut Vec<(String, dupes::Duplicate)>,
    ) {
        if c.same {
            return;
        }
        match &c.step {
            Step::Put { rel, bytes, added } => {
                let path = rel.path();
                let text = std::str::from_utf8(bytes).ok();
                self.anchor_written(lock, &path, text);
                if let Some(text) = text {
                    let found = dupes::in_text(text, added.clone());
                    dups.extend(found.into_iter().map(|d| (path.clone(), d)));
                }
            }
            Step::Append { rel, text } => {
                let path = rel.path();
                self.anchor_appended(lock, &path, range.start);
                let tail = self.tail_for_duplicates(c, &path, range.start);
                if let Some((tail, skipped)) = tail {
                    let start = tail.len() - text.len();
                    let found = dupes::in_text(&tail, start..tail.len());
                    // Lines before the tail are counted only when there is
                    // something to number.
                    let base_line = match found.is_empty() {
                        true => 0,
                        false => self.lines_before(c, &path, skipped),
                    };
                    dups.extend(found.into_iter().map(|mut d| {
                        d.earlier_line += base_line;
                        d.added_line += base_line;
                        (path.clone(), d)
                    }));
                }
            }
            Step::Remove { rel, prune } => {
                self.forget_anchors(lock, &rel.path());
                if *prune {
                    self.prune_note_dirs(&rel.dir);
                }
            }
            Step::Move { from, to, prune } => {
                self.move_anchors(lock, &from.path(), &to.path(), false);
                if *prune {
                    self.prune_note_dirs(&from.dir);
                }
            }
            Step::MoveDir { from, to } => self.move_anchors(lock, from, to, true),
            Step::RemoveDir { .. } | Step::Mark { .. } => {}
        }
    }

    /// How many lines the file of an append held in its first `bytes`.
    fn lines_before(&self, c: &Checked, path: &str, bytes: u64) -> u32 {
        let count = match &c.old {
            Some(old) => {
                memchr::memchr_iter(b'\n', &old[..(bytes as usize).min(old.len())]).count()
            }
            None if bytes == 0 => 0,
            None => fsio::count_newlines(&self.abs(path), bytes).unwrap_or(0),
        };
        u32::try_from(count).unwrap_or(u32::MAX)
    }

    /// The end of the file after an append, from the first line that
    /// starts at most [`DUPLICATE_TAIL_BYTES`] before the appended text,
    /// with the offset where it starts; `None` when it is not text.
    fn tail_for_duplicates(&self, c: &Checked, path: &str, start: u64) -> Option<(String, u64)> {
        let Step::Append { text, .. } = &c.step else {
            return None;
        };
        let from = start.saturating_sub(DUPLICATE_TAIL_BYTES);
        let mut head = match &c.old {
            Some(old) => old[(from as usize).min(old.len())..].to_vec(),
            None if start == 0 => Vec::new(),
            None => {
                let file = fs::File::open(self.abs(path)).ok()?;
                fsio::read_range(&file, from, (start - from) as usize).ok()?
            }
        };
        let mut skipped = 0;
        if from > 0 {
            let nl = memchr::memchr(b'\n', &head)?;
            head.drain(..=nl);
            skipped = nl as u64 + 1;
        }
        let mut all = String::from_utf8(head).ok()?;
        if !all.is_empty() && !all.ends_with('\n') {
            all.push('\n');
        }
        all.push_str(text);
        Some((all, from + skipped))
    }
}

/// `e` with the part of a change set it came from, if any.
fn within(e: Error, label: &Option<String>) -> Error {
    match label {
        Some(label) => e.within(label),
        None => e,
    }
}

/// Step 4's items: what each file held before its step.
fn history_items(checked: &[Checked]) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    for c in checked.iter().filter(|c| !c.same && c.step.recorded()) {
        let append = matches!(c.step, Step::Append { .. });
        let op = c.op;
        for f in &c.files {
            let op = match &c.step {
                Step::Move { .. } | Step::MoveDir { .. } => Operation::Rename,
                Step::Append { .. } => Operation::Append,
                Step::Put { .. } if op == Operation::Edit && f.kind == Kind::Missing => {
                    Operation::Write
                }
                _ => op,
            };
            let prior = match (&f.bytes, f.kind, append) {
                (Some(bytes), _, true) => Prior::Prefix(bytes),
                (Some(bytes), _, false) => Prior::Content(bytes),
                (None, Kind::File(len), true) => Prior::PrefixUnread(len),
                (None, Kind::File(len), false) => Prior::TooLarge(len),
                _ => Prior::Missing,
            };
            items.push(Item {
                path: &f.path,
                op,
                other: f.other.as_deref(),
                prior,
            });
        }
    }
    items
}
