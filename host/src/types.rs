//! The public data types of the memory API and their conversions to and from
//! the generated WIT types.

use crate::bindings::wit;

pub use agent_memory_vocab::{
    Operation, ReadSource, SearchMode, SecretPolicy, ToolSet, WriteMode, WriteTarget,
};

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
    /// Appends to files up to this size replace them whole (4 MiB).
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
    /// For the model: one line, then the warnings.
    pub message: String,
}

impl From<wit::WriteReceipt> for WriteReceipt {
    fn from(receipt: wit::WriteReceipt) -> Self {
        WriteReceipt {
            path: receipt.path,
            bytes_written: receipt.bytes_written,
            truncated_from: receipt.truncated_from,
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
    /// For the model.
    pub message: String,
}

impl From<wit::EditReceipt> for EditReceipt {
    fn from(r: wit::EditReceipt) -> Self {
        EditReceipt {
            path: r.path,
            line: r.line,
            bytes: r.bytes,
            warnings: r.warnings,
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
    /// For the model.
    pub message: String,
}

impl From<wit::DeleteReceipt> for DeleteReceipt {
    fn from(r: wit::DeleteReceipt) -> Self {
        DeleteReceipt {
            path: r.path,
            existed: r.existed,
            bytes: r.bytes,
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
    /// For the model.
    pub message: String,
}

impl From<wit::RenameReceipt> for RenameReceipt {
    fn from(r: wit::RenameReceipt) -> Self {
        RenameReceipt {
            from: r.from,
            to: r.to,
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
    /// Store-relative path.
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// The rule that matched, e.g. `github-pat`.
    pub rule_id: String,
    /// At most the first 4 characters of the value, then `…`.
    pub masked: String,
}

impl From<wit::StoredSecret> for StoredSecret {
    fn from(s: wit::StoredSecret) -> Self {
        StoredSecret {
            path: s.path,
            line: s.line,
            rule_id: s.rule_id,
            masked: s.masked,
        }
    }
}
