//! The public data types of the memory API and their conversions to and from
//! the generated WIT types.

use crate::bindings::wit;

pub use agent_memory_vocab::{
    Audience, Operation, ReadSource, Scope, SearchMode, SecretPolicy, ToolSet, WriteMode,
    WriteTarget,
};

impl From<Audience> for wit::Audience {
    fn from(audience: Audience) -> Self {
        match audience {
            Audience::Model => wit::Audience::Model,
            Audience::Person => wit::Audience::Person,
        }
    }
}

impl From<Scope> for wit::Scope {
    fn from(scope: Scope) -> Self {
        match scope {
            Scope::Personal => wit::Scope::Personal,
            Scope::Team => wit::Scope::Team,
        }
    }
}

/// A snapshot of the project's personal notes in the team directory: what
/// [`Memory::take_snapshot`](crate::Memory::take_snapshot) wrote or
/// [`Memory::apply_snapshot`](crate::Memory::apply_snapshot) applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    /// When it was taken, Unix seconds.
    pub taken_unix: i64,
    /// The taker's UTC offset then, minutes east.
    pub utc_offset_minutes: i32,
    /// Notes it holds (or notes applied).
    pub notes: u32,
    /// One line for people.
    pub message: String,
}

impl From<wit::SnapshotInfo> for SnapshotInfo {
    fn from(s: wit::SnapshotInfo) -> Self {
        SnapshotInfo {
            taken_unix: s.taken_unix,
            utc_offset_minutes: s.utc_offset_minutes,
            notes: s.notes,
            message: s.message,
        }
    }
}

impl From<WriteTarget> for wit::WriteTarget {
    fn from(target: WriteTarget) -> Self {
        match target {
            WriteTarget::LongTerm => wit::WriteTarget::LongTerm,
            WriteTarget::Scratchpad => wit::WriteTarget::Scratchpad,
            WriteTarget::Daily => wit::WriteTarget::Daily,
            WriteTarget::Note => wit::WriteTarget::Note,
        }
    }
}

impl From<WriteMode> for wit::WriteMode {
    fn from(mode: WriteMode) -> Self {
        match mode {
            WriteMode::Append => wit::WriteMode::Append,
            WriteMode::Overwrite => wit::WriteMode::Overwrite,
        }
    }
}

impl From<SearchMode> for wit::SearchMode {
    fn from(mode: SearchMode) -> Self {
        match mode {
            SearchMode::Ranked => wit::SearchMode::Ranked,
            SearchMode::Literal => wit::SearchMode::Literal,
        }
    }
}

impl From<SecretPolicy> for wit::SecretPolicy {
    fn from(policy: SecretPolicy) -> Self {
        match policy {
            SecretPolicy::Block => wit::SecretPolicy::Block,
            SecretPolicy::Redact => wit::SecretPolicy::Redact,
            SecretPolicy::Off => wit::SecretPolicy::Off,
        }
    }
}

impl From<ToolSet> for wit::ToolSet {
    fn from(set: ToolSet) -> Self {
        match set {
            ToolSet::Seed => wit::ToolSet::Seed,
            ToolSet::Full => wit::ToolSet::Full,
            ToolSet::Anthropic => wit::ToolSet::Anthropic,
        }
    }
}

impl From<ReadSource> for wit::ReadSource {
    fn from(source: ReadSource) -> Self {
        match source {
            ReadSource::LongTerm => wit::ReadSource::LongTerm,
            ReadSource::Scratchpad => wit::ReadSource::Scratchpad,
            ReadSource::Daily => wit::ReadSource::Daily,
            ReadSource::Note => wit::ReadSource::Note,
        }
    }
}

/// The limits a memory works within: the WIT `limits` record. Read them with
/// [`Memory::limits`](crate::Memory::limits); set the first five through
/// [`OpenOptions`](crate::OpenOptions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Hard cap on the context block, wrapper included (default 32768).
    pub max_inject_bytes: u32,
    /// Per-write content cap; longer content is cut (default 65536).
    pub max_write_bytes: u32,
    /// Cap on read output and the default search render (default 32768).
    pub max_read_bytes: u32,
    /// Lines of `MEMORY.md` the context block shows (200).
    pub index_max_lines: u32,
    /// Bytes of `MEMORY.md` the context block shows (25000).
    pub index_max_bytes: u32,
    /// Bytes of one file that search looks at (16 MiB).
    pub max_search_file_bytes: u64,
    /// Most distinct terms a query may have (64).
    pub max_query_terms: u32,
    /// Appends to files up to this size replace them whole (1 MiB).
    pub whole_file_append_max_bytes: u64,
    /// A write lock older than this is broken (default 10 s).
    pub lock_lease: std::time::Duration,
    /// How long a writer waits for a live lock (default 15 s).
    pub lock_wait: std::time::Duration,
    /// Versions history keeps of each file (default 50; 0: history off).
    pub history_max_versions: u32,
    /// Bytes history keeps in all (default 64 MiB).
    pub history_max_bytes: u64,
}

impl From<wit::Limits> for Limits {
    fn from(l: wit::Limits) -> Self {
        let ms = |v: u32| std::time::Duration::from_millis(v.into());
        Limits {
            max_inject_bytes: l.max_inject_bytes,
            max_write_bytes: l.max_write_bytes,
            max_read_bytes: l.max_read_bytes,
            index_max_lines: l.index_max_lines,
            index_max_bytes: l.index_max_bytes,
            max_search_file_bytes: l.max_search_file_bytes,
            max_query_terms: l.max_query_terms,
            whole_file_append_max_bytes: l.whole_file_append_max_bytes,
            lock_lease: ms(l.lock_lease_ms),
            lock_wait: ms(l.lock_wait_ms),
            history_max_versions: l.history_max_versions,
            history_max_bytes: l.history_max_bytes,
        }
    }
}

/// Whether the text a call just wrote reaches the next context block; see
/// [`Budget`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reach {
    /// All of it is in the block (also when nothing visible was written).
    Whole,
    /// Some of it is cut, by `MEMORY.md`'s index limits or the block's cap.
    Partly,
    /// None of it is in the block.
    Cut,
    /// The file is never in the block: a note, a scratchpad line that is not
    /// an open item, a daily log other than today's and the latest earlier
    /// one.
    NotInjected,
}

/// How full the injected memory is after a change, as every receipt
/// reports it (the WIT `budget` record documents the rules).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Budget {
    /// Lines of `MEMORY.md`.
    pub index_lines: u64,
    /// The index's line limit (200).
    pub index_max_lines: u32,
    /// Bytes of `MEMORY.md`.
    pub index_bytes: u64,
    /// The index's byte limit (25,000).
    pub index_max_bytes: u32,
    /// Bytes of the context block as [`Memory::context_block`](crate::Memory::context_block)
    /// returns it now; 0 when there is none.
    pub block_bytes: u32,
    /// The block's cap.
    pub block_max_bytes: u32,
    /// Whether what the call wrote reaches the next block.
    pub reach: Reach,
    /// For [`Reach::Partly`] and [`Reach::Cut`]: what was cut, why, and what
    /// to do instead.
    pub warning: Option<String>,
}

impl From<wit::Budget> for Budget {
    fn from(b: wit::Budget) -> Self {
        Budget {
            index_lines: b.index_lines,
            index_max_lines: b.index_max_lines,
            index_bytes: b.index_bytes,
            index_max_bytes: b.index_max_bytes,
            block_bytes: b.block_bytes,
            block_max_bytes: b.block_max_bytes,
            reach: match b.reach {
                wit::Reach::Whole => Reach::Whole,
                wit::Reach::Partly => Reach::Partly,
                wit::Reach::Cut => Reach::Cut,
                wit::Reach::NotInjected => Reach::NotInjected,
            },
            warning: b.warning,
        }
    }
}

/// The outcome of a write.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteReceipt {
    /// Store-relative path written, e.g. `projects/x-1a2b3c4d/notes/auth.md`.
    pub path: String,
    /// Bytes of content stored by this call (after any cut).
    pub bytes_written: u64,
    /// The content's original length when it was cut to the write cap.
    pub truncated_from: Option<u64>,
    /// Values redacted, lines that repeat an earlier one: what the model
    /// should know. The write happened all the same.
    pub warnings: Vec<String>,
    /// How full the injected memory is now, and whether this write reaches
    /// the next context block.
    pub budget: Budget,
    /// For the model: one line, then the warnings, then the budget line and
    /// its warning.
    pub message: String,
}

impl From<wit::WriteReceipt> for WriteReceipt {
    fn from(receipt: wit::WriteReceipt) -> Self {
        WriteReceipt {
            path: receipt.path,
            bytes_written: receipt.bytes_written,
            truncated_from: receipt.truncated_from,
            warnings: receipt.warnings,
            budget: receipt.budget.into(),
            message: receipt.message,
        }
    }
}

/// What [`Memory::import_file`](crate::Memory::import_file) did, or would do
/// in a dry run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportOutcome {
    /// The file was missing or blank and now holds the text.
    Created,
    /// The part of the text the file lacked was appended.
    Appended,
    /// The file already held it all; nothing was written.
    Unchanged,
}

impl ImportOutcome {
    /// `created`, `appended` or `unchanged`.
    pub fn as_str(self) -> &'static str {
        match self {
            ImportOutcome::Created => "created",
            ImportOutcome::Appended => "appended",
            ImportOutcome::Unchanged => "unchanged",
        }
    }
}

/// The outcome of [`Memory::import_file`](crate::Memory::import_file).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportReceipt {
    /// Store-relative path of the file.
    pub path: String,
    /// What happened (or would happen).
    pub outcome: ImportOutcome,
    /// Bytes added to the file; 0 when unchanged.
    pub bytes_written: u64,
    /// Values redacted, a history warning.
    pub warnings: Vec<String>,
    /// For people: one line, then the warnings.
    pub message: String,
}

impl From<wit::ImportReceipt> for ImportReceipt {
    fn from(receipt: wit::ImportReceipt) -> Self {
        ImportReceipt {
            path: receipt.path,
            outcome: match receipt.outcome {
                wit::ImportOutcome::Created => ImportOutcome::Created,
                wit::ImportOutcome::Appended => ImportOutcome::Appended,
                wit::ImportOutcome::Unchanged => ImportOutcome::Unchanged,
            },
            bytes_written: receipt.bytes_written,
            warnings: receipt.warnings,
            message: receipt.message,
        }
    }
}

/// One file of [`Memory::import_files`](crate::Memory::import_files): where
/// its text goes, and what it was read from (named in errors only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportItem {
    /// The file the text goes to.
    pub target: WriteTarget,
    /// The note's name for `Note`, the date (`YYYY-MM-DD`) for `Daily`.
    pub name: Option<String>,
    /// The text.
    pub content: String,
    /// What the host read it from (e.g. `topic.md`).
    pub source: String,
    /// Merge line by line, as `LongTerm` and `Scratchpad` always are: for a
    /// note that is a list of one-line entries (an index).
    pub by_line: bool,
}

impl From<&ImportItem> for wit::ImportItem {
    fn from(item: &ImportItem) -> Self {
        wit::ImportItem {
            target: item.target.into(),
            name: item.name.clone(),
            content: item.content.clone(),
            source: item.source.clone(),
            by_line: item.by_line,
        }
    }
}

/// The outcome of [`Memory::import_files`](crate::Memory::import_files).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportSetReceipt {
    /// One receipt per item, in order; each one's warnings are its
    /// redactions.
    pub files: Vec<ImportReceipt>,
    /// What history could not record about the change.
    pub warnings: Vec<String>,
    /// For people: each file's line, the warnings, a summary line.
    pub message: String,
}

impl From<wit::ImportSetReceipt> for ImportSetReceipt {
    fn from(receipt: wit::ImportSetReceipt) -> Self {
        ImportSetReceipt {
            files: receipt.files.into_iter().map(Into::into).collect(),
            warnings: receipt.warnings,
            message: receipt.message,
        }
    }
}

/// The outcome of [`Memory::edit`](crate::Memory::edit).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EditReceipt {
    /// Store-relative path edited.
    pub path: String,
    /// 1-based line where the replacement starts.
    pub line: u32,
    /// The file's size after the edit.
    pub bytes: u64,
    /// As in [`WriteReceipt::warnings`].
    pub warnings: Vec<String>,
    /// As in [`WriteReceipt::budget`]: whether the new text reaches the block.
    pub budget: Budget,
    /// For the model, ending with the budget line.
    pub message: String,
}

impl From<wit::EditReceipt> for EditReceipt {
    fn from(r: wit::EditReceipt) -> Self {
        EditReceipt {
            path: r.path,
            line: r.line,
            bytes: r.bytes,
            warnings: r.warnings,
            budget: r.budget.into(),
            message: r.message,
        }
    }
}

/// The outcome of [`Memory::delete_note`](crate::Memory::delete_note).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeleteReceipt {
    /// Store-relative path of the note.
    pub path: String,
    /// Whether there was a note to delete.
    pub existed: bool,
    /// Its size (0 when there was none).
    pub bytes: u64,
    /// How full the injected memory is (notes are never in it).
    pub budget: Budget,
    /// For the model, ending with the budget line.
    pub message: String,
}

impl From<wit::DeleteReceipt> for DeleteReceipt {
    fn from(r: wit::DeleteReceipt) -> Self {
        DeleteReceipt {
            path: r.path,
            existed: r.existed,
            bytes: r.bytes,
            budget: r.budget.into(),
            message: r.message,
        }
    }
}

/// The outcome of [`Memory::rename_note`](crate::Memory::rename_note).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenameReceipt {
    /// Store-relative path before.
    pub from: String,
    /// Store-relative path after.
    pub to: String,
    /// How full the injected memory is (notes are never in it).
    pub budget: Budget,
    /// For the model, ending with the budget line.
    pub message: String,
}

impl From<wit::RenameReceipt> for RenameReceipt {
    fn from(r: wit::RenameReceipt) -> Self {
        RenameReceipt {
            from: r.from,
            to: r.to,
            budget: r.budget.into(),
            message: r.message,
        }
    }
}

/// A memory file as [`Memory::list_files`](crate::Memory::list_files) reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileInfo {
    /// Store-relative path, `/`-separated.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Staleness marks, one line each (`stale: src/auth.rs changed since
    /// 2026-05-01`); empty unless the memory was opened with
    /// [`OpenOptions::project_dir`](crate::OpenOptions::project_dir) and an
    /// anchored project file of this `MEMORY.md` or note changed.
    pub stale: Vec<String>,
}

impl From<wit::FileInfo> for FileInfo {
    fn from(info: wit::FileInfo) -> Self {
        FileInfo {
            path: info.path,
            bytes: info.bytes,
            stale: info.stale,
        }
    }
}

/// How many matching lines one query term had across all files.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TermCount {
    /// The term as it appeared in the query.
    pub term: String,
    /// Matching lines over all searched files.
    pub count: u32,
}

/// One file's worth of search results.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchHit {
    /// Store-relative path.
    pub path: String,
    /// Distinct query terms found in this file, in query order.
    pub matched_terms: Vec<String>,
    /// Matching lines in the file (0 for a filename-only hit).
    pub total_hits: u32,
    /// The merged context windows separated by `…` lines, or for a
    /// filename-only hit `(filename match)` and a short preview.
    pub body: String,
    /// True when only the file name matched.
    pub filename_only: bool,
    /// The log's date (`YYYY-MM-DD`) for daily logs.
    pub date: Option<String>,
    /// True for the global `MEMORY.md`.
    pub is_memory_md: bool,
}

/// Ranked search results, as [`Memory::search`](crate::Memory::search) returns
/// them; [`Memory::render_search`](crate::Memory::render_search) formats them
/// for a model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchResults {
    /// Each distinct term, in query order, with its matching-line count.
    pub terms: Vec<TermCount>,
    /// Files, most relevant first.
    pub hits: Vec<SearchHit>,
}

impl SearchResults {
    /// True when no file matched.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }
}

impl From<wit::TermCount> for TermCount {
    fn from(count: wit::TermCount) -> Self {
        TermCount {
            term: count.term,
            count: count.count,
        }
    }
}

impl From<&TermCount> for wit::TermCount {
    fn from(count: &TermCount) -> Self {
        wit::TermCount {
            term: count.term.clone(),
            count: count.count,
        }
    }
}

impl From<wit::SearchHit> for SearchHit {
    fn from(hit: wit::SearchHit) -> Self {
        SearchHit {
            path: hit.path,
            matched_terms: hit.matched_terms,
            total_hits: hit.total_hits,
            body: hit.body,
            filename_only: hit.filename_only,
            date: hit.date,
            is_memory_md: hit.is_memory_md,
        }
    }
}

impl From<&SearchHit> for wit::SearchHit {
    fn from(hit: &SearchHit) -> Self {
        wit::SearchHit {
            path: hit.path.clone(),
            matched_terms: hit.matched_terms.clone(),
            total_hits: hit.total_hits,
            body: hit.body.clone(),
            filename_only: hit.filename_only,
            date: hit.date.clone(),
            is_memory_md: hit.is_memory_md,
        }
    }
}

impl From<wit::SearchResults> for SearchResults {
    fn from(results: wit::SearchResults) -> Self {
        SearchResults {
            terms: results.terms.into_iter().map(Into::into).collect(),
            hits: results.hits.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<&SearchResults> for wit::SearchResults {
    fn from(results: &SearchResults) -> Self {
        wit::SearchResults {
            terms: results.terms.iter().map(Into::into).collect(),
            hits: results.hits.iter().map(Into::into).collect(),
        }
    }
}

/// A tool the model can call, in the shape chat APIs expect.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// `memory_write`, `memory_read` or `memory_search`.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object, as JSON text.
    pub parameters_schema: String,
}

impl From<wit::ToolDefinition> for ToolDefinition {
    fn from(tool: wit::ToolDefinition) -> Self {
        ToolDefinition {
            name: tool.name,
            description: tool.description,
            parameters_schema: tool.parameters_schema,
        }
    }
}

/// A recorded version of a file: what it held just before a change.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Version {
    /// The id to restore it by, e.g. `v12`.
    pub id: String,
    /// Store-relative path of the file.
    pub path: String,
    /// When the change was made, Unix seconds.
    pub time_unix: i64,
    /// The local offset then, minutes east of UTC.
    pub utc_offset_minutes: i32,
    /// The change that replaced this version.
    pub operation: Operation,
    /// Its size; `None` when the file did not exist.
    pub bytes: Option<u64>,
    /// The source label of the change (may be empty).
    pub source: String,
    /// For a rename, the path on the other side.
    pub other_path: Option<String>,
}

impl From<wit::Version> for Version {
    fn from(v: wit::Version) -> Self {
        Version {
            id: v.id,
            path: v.path,
            time_unix: v.time_unix,
            utc_offset_minutes: v.utc_offset_minutes,
            operation: match v.operation {
                wit::Operation::Write => Operation::Write,
                wit::Operation::Append => Operation::Append,
                wit::Operation::Edit => Operation::Edit,
                wit::Operation::Delete => Operation::Delete,
                wit::Operation::Rename => Operation::Rename,
                wit::Operation::Restore => Operation::Restore,
                wit::Operation::Import => Operation::Import,
            },
            bytes: v.bytes,
            source: v.source,
            other_path: v.other_path,
        }
    }
}

/// A secret found in a stored file by
/// [`Memory::scan_secrets`](crate::Memory::scan_secrets); never the value.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredSecret {
    /// Store-relative path: of the file, or, for a secret in a name
    /// (`line` 0), of the file or folder whose own name holds it.
    pub path: String,
    /// 1-based line; 0 means the secret is in the name.
    pub line: u32,
    /// The rule that matched, e.g. `github-pat`.
    pub rule_id: String,
    /// At most the first 4 characters of the value, then `…`.
    pub masked: String,
    /// `None` for the file as it is now; `Some("v12")` for a version saved
    /// in history.
    pub version: Option<String>,
}

impl From<wit::StoredSecret> for StoredSecret {
    fn from(s: wit::StoredSecret) -> Self {
        StoredSecret {
            path: s.path,
            line: s.line,
            rule_id: s.rule_id,
            masked: s.masked,
            version: s.version,
        }
    }
}

/// What [`Memory::purge_secrets`](crate::Memory::purge_secrets) did; all
/// zero when no saved version held a secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PurgeReceipt {
    /// Saved versions whose content was redacted in place, ids kept.
    pub versions: u32,
    /// Secrets redacted, each distinct saved content counted once.
    pub secrets: u32,
    /// Of `versions`: appends' versions that now hold their own redacted
    /// copy, so they stay restorable.
    pub appends_saved: u32,
}

impl From<wit::PurgeReceipt> for PurgeReceipt {
    fn from(p: wit::PurgeReceipt) -> Self {
        PurgeReceipt {
            versions: p.versions,
            secrets: p.secrets,
            appends_saved: p.appends_saved,
        }
    }
}

/// One change of a change set ([`Memory::apply`](crate::Memory::apply)):
/// the arguments of the method of the same name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchChange {
    /// As [`Memory::write`](crate::Memory::write); content over the write
    /// cap is refused, never cut.
    Write {
        /// Which file.
        target: WriteTarget,
        /// What to store.
        content: String,
        /// Append or overwrite.
        mode: WriteMode,
        /// The note's name, for [`WriteTarget::Note`].
        name: Option<String>,
    },
    /// As [`Memory::edit`](crate::Memory::edit).
    Edit {
        /// Which file.
        target: WriteTarget,
        /// The note's name, or a daily log's `YYYY-MM-DD`.
        name: Option<String>,
        /// The exact text to replace, once.
        old_text: String,
        /// Its replacement.
        new_text: String,
    },
    /// As [`Memory::delete_note`](crate::Memory::delete_note).
    Delete {
        /// The note.
        name: String,
    },
    /// As [`Memory::rename_note`](crate::Memory::rename_note).
    Rename {
        /// The note.
        name: String,
        /// Its new name.
        new_name: String,
    },
}

impl From<&BatchChange> for wit::BatchChange {
    fn from(c: &BatchChange) -> Self {
        match c.clone() {
            BatchChange::Write {
                target,
                content,
                mode,
                name,
            } => wit::BatchChange::Write(wit::BatchWrite {
                target: target.into(),
                content,
                mode: mode.into(),
                name,
            }),
            BatchChange::Edit {
                target,
                name,
                old_text,
                new_text,
            } => wit::BatchChange::Edit(wit::BatchEdit {
                target: target.into(),
                name,
                old_text,
                new_text,
            }),
            BatchChange::Delete { name } => wit::BatchChange::Delete(name),
            BatchChange::Rename { name, new_name } => {
                wit::BatchChange::Rename(wit::BatchRename { name, new_name })
            }
        }
    }
}

/// The outcome of [`Memory::apply`](crate::Memory::apply).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BatchReceipt {
    /// One line per change, in order: what it did.
    pub done: Vec<String>,
    /// Redactions, near-duplicates, history's warnings.
    pub warnings: Vec<String>,
    /// How full the injected memory is now.
    pub budget: Budget,
    /// The lines, the warnings, then the budget line.
    pub message: String,
}

impl From<wit::BatchReceipt> for BatchReceipt {
    fn from(r: wit::BatchReceipt) -> Self {
        BatchReceipt {
            done: r.done,
            warnings: r.warnings,
            budget: r.budget.into(),
            message: r.message,
        }
    }
}

/// A model's tool call waiting for review
/// ([`Memory::pending_changes`](crate::Memory::pending_changes)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PendingChange {
    /// `p1`, `p2`, ...: what `approve` and `reject` take.
    pub id: String,
    /// When it was queued (Unix seconds)...
    pub time_unix: i64,
    /// ... and the local offset then, in minutes.
    pub utc_offset_minutes: i32,
    /// The memory's source label when it was queued.
    pub source: String,
    /// The store it changes.
    pub scope: Scope,
    /// The tool.
    pub tool: String,
    /// Its JSON arguments, text guarded.
    pub arguments: String,
    /// What it would change now, as a line diff per file, or why it would
    /// fail now.
    pub diff: String,
}

impl From<wit::PendingChange> for PendingChange {
    fn from(p: wit::PendingChange) -> Self {
        PendingChange {
            id: p.id,
            time_unix: p.time_unix,
            utc_offset_minutes: p.utc_offset_minutes,
            source: p.source,
            scope: match p.scope {
                wit::Scope::Personal => Scope::Personal,
                wit::Scope::Team => Scope::Team,
            },
            tool: p.tool,
            arguments: p.arguments,
            diff: p.diff,
        }
    }
}

/// What [`Memory::clear`](crate::Memory::clear) removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClearTarget {
    /// The project's scratchpad, daily logs and notes (team scope: the
    /// team's notes).
    Project,
    /// `MEMORY.md`.
    LongTerm,
    /// Both.
    All,
}

impl From<ClearTarget> for wit::ClearTarget {
    fn from(t: ClearTarget) -> Self {
        match t {
            ClearTarget::Project => wit::ClearTarget::Project,
            ClearTarget::LongTerm => wit::ClearTarget::LongTerm,
            ClearTarget::All => wit::ClearTarget::All,
        }
    }
}

/// The outcome of [`Memory::clear`](crate::Memory::clear).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClearReceipt {
    /// Paths removed, sorted.
    pub removed: Vec<String>,
    /// Their bytes in all.
    pub bytes: u64,
    /// What went, and how to bring it back.
    pub message: String,
}

impl From<wit::ClearReceipt> for ClearReceipt {
    fn from(r: wit::ClearReceipt) -> Self {
        ClearReceipt {
            removed: r.removed,
            bytes: r.bytes,
            message: r.message,
        }
    }
}
