//! The agent:memory component: a thin adapter from the WIT exports to
//! `agent-memory-core`. Each `memory` resource owns one core store on the
//! preopened directory its options name.

use std::cell::RefCell;
use std::time::Duration;

use agent_memory_core as core;
use core::{
    ErrorKind, ReadSource, Scope, SearchMode, WriteMode, WriteTarget, limits,
    secrets::SecretPolicy, tools::ToolSet,
};

mod bindings {
    wit_bindgen::generate!({
        path: "../../wit",
        world: "agent-memory",
    });
}

use bindings::exports::agent::memory::{prompt, semantic, store, tools, types};

struct Component;

/// One open memory and the scope its typed methods act on. `set-clock` and
/// `speak-to` are the only methods that change it, so the store sits in a `RefCell` rather
/// than behind `&mut`.
struct Memory(RefCell<core::Memory>, Scope);

impl From<core::Error> for types::Error {
    fn from(e: core::Error) -> Self {
        use types::ErrorKind as W;
        let kind = match e.kind() {
            ErrorKind::InvalidOptions => W::InvalidOptions,
            ErrorKind::InvalidTarget => W::InvalidTarget,
            ErrorKind::InvalidMode => W::InvalidMode,
            ErrorKind::MissingName => W::MissingName,
            ErrorKind::InvalidName => W::InvalidName,
            ErrorKind::InvalidDate => W::InvalidDate,
            ErrorKind::InvalidArguments => W::InvalidArguments,
            ErrorKind::UnknownTool => W::UnknownTool,
            ErrorKind::NotFound => W::NotFound,
            ErrorKind::NotAFile => W::NotAFile,
            ErrorKind::Busy => W::Busy,
            ErrorKind::Io => W::Io,
            ErrorKind::Ambiguous => W::Ambiguous,
            ErrorKind::AlreadyExists => W::AlreadyExists,
            ErrorKind::SecretDetected => W::SecretDetected,
            ErrorKind::Conflict => W::Conflict,
            ErrorKind::NoTeamDir => W::NoTeamDir,
            other => W::Other(other.as_str().to_string()),
        };
        types::Error {
            kind,
            message: e.message().to_string(),
        }
    }
}

impl From<types::Clock> for core::Clock {
    fn from(c: types::Clock) -> Self {
        core::Clock {
            utc_offset_minutes: c.utc_offset_minutes,
            fixed_unix_seconds: c.fixed_unix_seconds,
        }
    }
}

impl From<types::WriteTarget> for WriteTarget {
    fn from(t: types::WriteTarget) -> Self {
        match t {
            types::WriteTarget::LongTerm => WriteTarget::LongTerm,
            types::WriteTarget::Scratchpad => WriteTarget::Scratchpad,
            types::WriteTarget::Daily => WriteTarget::Daily,
            types::WriteTarget::Note => WriteTarget::Note,
        }
    }
}

impl From<types::ReadSource> for ReadSource {
    fn from(s: types::ReadSource) -> Self {
        match s {
            types::ReadSource::LongTerm => ReadSource::LongTerm,
            types::ReadSource::Scratchpad => ReadSource::Scratchpad,
            types::ReadSource::Daily => ReadSource::Daily,
            types::ReadSource::Note => ReadSource::Note,
        }
    }
}

impl From<types::WriteMode> for WriteMode {
    fn from(m: types::WriteMode) -> Self {
        match m {
            types::WriteMode::Append => WriteMode::Append,
            types::WriteMode::Overwrite => WriteMode::Overwrite,
        }
    }
}

impl From<types::SearchMode> for SearchMode {
    fn from(m: types::SearchMode) -> Self {
        match m {
            types::SearchMode::Ranked => SearchMode::Ranked,
            types::SearchMode::Literal => SearchMode::Literal,
        }
    }
}

impl From<types::SecretPolicy> for SecretPolicy {
    fn from(p: types::SecretPolicy) -> Self {
        match p {
            types::SecretPolicy::Block => SecretPolicy::Block,
            types::SecretPolicy::Redact => SecretPolicy::Redact,
            types::SecretPolicy::Off => SecretPolicy::Off,
        }
    }
}

impl From<types::ToolSet> for ToolSet {
    fn from(t: types::ToolSet) -> Self {
        match t {
            types::ToolSet::Seed => ToolSet::Seed,
            types::ToolSet::Full => ToolSet::Full,
            types::ToolSet::Anthropic => ToolSet::Anthropic,
        }
    }
}

impl From<core::Version> for types::Version {
    fn from(v: core::Version) -> Self {
        use types::Operation as W;
        types::Version {
            id: v.id,
            path: v.path,
            time_unix: v.time_unix,
            utc_offset_minutes: v.utc_offset_minutes,
            operation: match v.operation {
                core::Operation::Write => W::Write,
                core::Operation::Append => W::Append,
                core::Operation::Edit => W::Edit,
                core::Operation::Delete => W::Delete,
                core::Operation::Rename => W::Rename,
                core::Operation::Restore => W::Restore,
                core::Operation::Import => W::Import,
            },
            bytes: v.bytes,
            source: v.source,
            other_path: v.other_path,
        }
    }
}

impl From<core::Budget> for types::Budget {
    fn from(b: core::Budget) -> Self {
        types::Budget {
            index_lines: b.index_lines,
            index_max_lines: b.index_max_lines,
            index_bytes: b.index_bytes,
            index_max_bytes: b.index_max_bytes,
            block_bytes: b.block_bytes,
            block_max_bytes: b.block_max_bytes,
            reach: match b.reach {
                core::Reach::Whole => types::Reach::Whole,
                core::Reach::Partly => types::Reach::Partly,
                core::Reach::Cut => types::Reach::Cut,
                core::Reach::NotInjected => types::Reach::NotInjected,
            },
            warning: b.warning,
        }
    }
}

impl From<core::WriteReceipt> for types::WriteReceipt {
    fn from(r: core::WriteReceipt) -> Self {
        types::WriteReceipt {
            path: r.path,
            bytes_written: r.bytes_written,
            truncated_from: r.truncated_from,
            warnings: r.warnings,
            budget: r.budget.into(),
            message: r.message,
        }
    }
}

impl From<core::ImportSetReceipt> for types::ImportSetReceipt {
    fn from(r: core::ImportSetReceipt) -> Self {
        types::ImportSetReceipt {
            files: r.files.into_iter().map(Into::into).collect(),
            warnings: r.warnings,
            message: r.message,
        }
    }
}

impl From<types::ImportItem> for core::ImportItem {
    fn from(i: types::ImportItem) -> Self {
        core::ImportItem {
            target: i.target.into(),
            name: i.name,
            content: i.content,
            source: i.source,
            by_line: i.by_line,
        }
    }
}

impl From<core::ImportReceipt> for types::ImportReceipt {
    fn from(r: core::ImportReceipt) -> Self {
        types::ImportReceipt {
            path: r.path,
            outcome: match r.outcome {
                core::ImportOutcome::Created => types::ImportOutcome::Created,
                core::ImportOutcome::Appended => types::ImportOutcome::Appended,
                core::ImportOutcome::Unchanged => types::ImportOutcome::Unchanged,
            },
            bytes_written: r.bytes_written,
            warnings: r.warnings,
            message: r.message,
        }
    }
}

impl From<core::EditReceipt> for types::EditReceipt {
    fn from(r: core::EditReceipt) -> Self {
        types::EditReceipt {
            path: r.path,
            line: r.line,
            bytes: r.bytes,
            warnings: r.warnings,
            budget: r.budget.into(),
            message: r.message,
        }
    }
}

impl From<core::DeleteReceipt> for types::DeleteReceipt {
    fn from(r: core::DeleteReceipt) -> Self {
        types::DeleteReceipt {
            path: r.path,
            existed: r.existed,
            bytes: r.bytes,
            budget: r.budget.into(),
            message: r.message,
        }
    }
}

impl From<core::RenameReceipt> for types::RenameReceipt {
    fn from(r: core::RenameReceipt) -> Self {
        types::RenameReceipt {
            from: r.from,
            to: r.to,
            budget: r.budget.into(),
            message: r.message,
        }
    }
}

fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn millis(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX)
}

impl From<core::SearchResults> for types::SearchResults {
    fn from(r: core::SearchResults) -> Self {
        types::SearchResults {
            terms: r
                .terms
                .into_iter()
                .map(|(term, count)| types::TermCount {
                    term,
                    count: clamp(count),
                })
                .collect(),
            hits: r
                .hits
                .into_iter()
                .map(|h| types::SearchHit {
                    path: h.path,
                    matched_terms: h.matched_terms,
                    total_hits: clamp(h.total_hits),
                    body: h.body,
                    filename_only: h.filename_only,
                    date: h.date,
                    is_memory_md: h.is_memory_md,
                })
                .collect(),
        }
    }
}

impl From<types::SearchResults> for core::SearchResults {
    fn from(r: types::SearchResults) -> Self {
        core::SearchResults {
            terms: r
                .terms
                .into_iter()
                .map(|t| (t.term, t.count as usize))
                .collect(),
            hits: r
                .hits
                .into_iter()
                .map(|h| core::SearchHit {
                    path: h.path,
                    matched_terms: h.matched_terms,
                    total_hits: h.total_hits as usize,
                    body: h.body,
                    filename_only: h.filename_only,
                    date: h.date,
                    is_memory_md: h.is_memory_md,
                })
                .collect(),
        }
    }
}

fn retention(o: &types::LimitOverrides) -> core::Retention {
    let d = core::Retention::default();
    core::Retention {
        max_versions_per_file: o.history_max_versions.unwrap_or(d.max_versions_per_file),
        max_total_bytes: o.history_max_bytes.unwrap_or(d.max_total_bytes),
    }
}

fn limits(o: types::LimitOverrides) -> core::Limits {
    let d = core::Limits::default();
    let bytes = |v: Option<u32>, default: usize| v.map_or(default, |v| v as usize);
    let ms =
        |v: Option<u32>, default: Duration| v.map_or(default, |v| Duration::from_millis(v.into()));
    core::Limits {
        max_inject_bytes: bytes(o.max_inject_bytes, d.max_inject_bytes),
        max_write_bytes: bytes(o.max_write_bytes, d.max_write_bytes),
        max_read_bytes: bytes(o.max_read_bytes, d.max_read_bytes),
        lock_lease: ms(o.lock_lease_ms, d.lock_lease),
        lock_wait: ms(o.lock_wait_ms, d.lock_wait),
    }
}

impl store::Guest for Component {
    type Memory = Memory;
}

impl Memory {
    /// Call `f` on the whole memory (both stores).
    fn with<T>(&self, f: impl FnOnce(&core::Memory) -> core::Result<T>) -> Result<T, types::Error> {
        f(&self.0.borrow()).map_err(Into::into)
    }

    /// Call `f` on the store of this memory's scope.
    fn scoped<T>(
        &self,
        f: impl FnOnce(&core::Memory) -> core::Result<T>,
    ) -> Result<T, types::Error> {
        let m = self.0.borrow();
        f(m.scoped(self.1)?).map_err(Into::into)
    }
}

impl From<types::Scope> for Scope {
    fn from(s: types::Scope) -> Self {
        match s {
            types::Scope::Personal => Scope::Personal,
            types::Scope::Team => Scope::Team,
        }
    }
}

impl From<core::SnapshotInfo> for types::SnapshotInfo {
    fn from(s: core::SnapshotInfo) -> Self {
        types::SnapshotInfo {
            taken_unix: s.taken_unix,
            utc_offset_minutes: s.utc_offset_minutes,
            notes: s.notes,
            message: s.message,
        }
    }
}

impl From<types::BatchChange> for core::BatchChange {
    fn from(c: types::BatchChange) -> Self {
        match c {
            types::BatchChange::Write(w) => core::BatchChange::Write {
                target: w.target.into(),
                content: w.content,
                mode: w.mode.into(),
                name: w.name,
            },
            types::BatchChange::Edit(e) => core::BatchChange::Edit {
                target: e.target.into(),
                name: e.name,
                old_text: e.old_text,
                new_text: e.new_text,
            },
            types::BatchChange::Delete(name) => core::BatchChange::Delete { name },
            types::BatchChange::Rename(r) => core::BatchChange::Rename {
                name: r.name,
                new_name: r.new_name,
            },
        }
    }
}

impl store::GuestMemory for Memory {
    fn open(options: types::Options) -> Result<store::Memory, types::Error> {
        let root = core::names::guest_root(&options.root)?;
        let project_root = match &options.project_dir {
            Some(dir) => Some(core::names::guest_project_dir(dir)?.into()),
            None => None,
        };
        let opts = core::Options {
            project: options.project,
            clock: options.clock.into(),
            limits: limits(options.limits),
            secrets: options.secret_policy.into(),
            source: options.source,
            retention: retention(&options.limits),
            project_root,
            review: core::ReviewGate {
                personal: options.review.contains(&types::Scope::Personal),
                team: options.review.contains(&types::Scope::Team),
            },
        };
        let mut memory = core::Memory::open(root, opts)?;
        if let Some(dir) = options.team_dir {
            let team = core::names::guest_root(&dir)?;
            if team == core::names::guest_root(&options.root)? {
                return Err(types::Error {
                    kind: types::ErrorKind::InvalidOptions,
                    message: format!(
                        "team-dir {dir:?} is the memory root; preopen the project's `.agent-memory/` at a guest path of its own"
                    ),
                });
            }
            memory = memory.with_team(team);
        }
        let scope = Scope::from(options.scope);
        // A team scope without a team store fails now, not at every call.
        memory.scoped(scope)?;
        Ok(store::Memory::new(Memory(RefCell::new(memory), scope)))
    }

    fn info(&self) -> types::MemoryInfo {
        let m = self.0.borrow();
        types::MemoryInfo {
            project_slug: m.slug().to_string(),
            project_dir: m.project_dir(),
            today: m.today().to_string(),
        }
    }

    fn limits(&self) -> types::Limits {
        let m = self.0.borrow();
        let l = m.limits();
        types::Limits {
            max_inject_bytes: clamp(l.max_inject_bytes),
            max_write_bytes: clamp(l.max_write_bytes),
            max_read_bytes: clamp(l.max_read_bytes),
            index_max_lines: clamp(limits::INDEX_MAX_LINES),
            index_max_bytes: clamp(limits::INDEX_MAX_BYTES),
            max_search_file_bytes: limits::MAX_SEARCH_FILE_BYTES,
            max_query_terms: clamp(limits::MAX_QUERY_TERMS),
            whole_file_append_max_bytes: limits::WHOLE_FILE_APPEND_MAX_BYTES,
            lock_lease_ms: millis(l.lock_lease),
            lock_wait_ms: millis(l.lock_wait),
            history_max_versions: m.retention().max_versions_per_file,
            history_max_bytes: m.retention().max_total_bytes,
        }
    }

    fn speak_to(&self, audience: types::Audience) {
        self.0.borrow_mut().set_audience(match audience {
            types::Audience::Model => core::words::Audience::Model,
            types::Audience::Person => core::words::Audience::Person,
        });
    }

    fn set_clock(&self, clock: types::Clock) -> Result<(), types::Error> {
        self.0
            .borrow_mut()
            .set_clock(clock.into())
            .map_err(Into::into)
    }

    fn write(
        &self,
        target: types::WriteTarget,
        content: String,
        mode: types::WriteMode,
        name: Option<String>,
    ) -> Result<types::WriteReceipt, types::Error> {
        self.scoped(|m| m.write(target.into(), &content, mode.into(), name.as_deref()))
            .map(Into::into)
    }

    fn import_file(
        &self,
        target: types::WriteTarget,
        name: Option<String>,
        content: String,
        dry_run: bool,
    ) -> Result<types::ImportReceipt, types::Error> {
        self.scoped(|m| m.import_file(target.into(), name.as_deref(), &content, dry_run))
            .map(Into::into)
    }

    fn import_files(
        &self,
        files: Vec<types::ImportItem>,
        dry_run: bool,
    ) -> Result<types::ImportSetReceipt, types::Error> {
        let items: Vec<core::ImportItem> = files.into_iter().map(Into::into).collect();
        self.scoped(|m| m.import_files(&items, dry_run))
            .map(Into::into)
    }

    fn read(
        &self,
        source: types::ReadSource,
        name: Option<String>,
    ) -> Result<Option<String>, types::Error> {
        self.scoped(|m| m.read(source.into(), name.as_deref()))
    }

    fn list_files(&self) -> Result<Vec<types::FileInfo>, types::Error> {
        self.scoped(|m| m.list_files()).map(|files| {
            files
                .into_iter()
                .map(|f| types::FileInfo {
                    path: f.path,
                    bytes: f.bytes,
                    stale: core::anchors::mark_lines(&f.stale),
                })
                .collect()
        })
    }

    fn append_daily(
        &self,
        heading: String,
        body: String,
    ) -> Result<types::WriteReceipt, types::Error> {
        self.scoped(|m| m.append_daily(&heading, &body))
            .map(Into::into)
    }

    fn search(
        &self,
        query: String,
        mode: types::SearchMode,
    ) -> Result<types::SearchResults, types::Error> {
        self.scoped(|m| m.search_with(&query, mode.into()))
            .map(Into::into)
    }

    fn search_top(
        &self,
        query: String,
        mode: types::SearchMode,
        limit: u32,
    ) -> Result<types::SearchPage, types::Error> {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let (results, total) = self.scoped(|m| m.search_top(&query, mode.into(), limit))?;
        let types::SearchResults { terms, hits } = results.into();
        Ok(types::SearchPage {
            terms,
            hits,
            total: clamp(total),
        })
    }

    fn edit(
        &self,
        target: types::WriteTarget,
        name: Option<String>,
        old_text: String,
        new_text: String,
    ) -> Result<types::EditReceipt, types::Error> {
        self.scoped(|m| m.edit(target.into(), name.as_deref(), &old_text, &new_text))
            .map(Into::into)
    }

    fn delete_note(&self, name: String) -> Result<types::DeleteReceipt, types::Error> {
        self.scoped(|m| m.delete_note(&name)).map(Into::into)
    }

    fn rename_note(
        &self,
        name: String,
        new_name: String,
    ) -> Result<types::RenameReceipt, types::Error> {
        self.scoped(|m| m.rename_note(&name, &new_name))
            .map(Into::into)
    }

    fn render_search(&self, results: types::SearchResults, max_bytes: Option<u32>) -> String {
        let max = max_bytes.map_or(self.0.borrow().limits().max_read_bytes, |n| n as usize);
        core::SearchResults::from(results).render(max)
    }

    fn context_block(&self) -> Result<Option<String>, types::Error> {
        self.with(|m| m.context_block())
    }

    fn flush_compaction(
        &self,
        summary: String,
        message_count: Option<u32>,
    ) -> Result<types::WriteReceipt, types::Error> {
        self.scoped(|m| m.flush_compaction(&summary, message_count))
            .map(Into::into)
    }

    fn history(
        &self,
        source: types::ReadSource,
        name: Option<String>,
        limit: Option<u32>,
    ) -> Result<Vec<types::Version>, types::Error> {
        self.scoped(|m| m.history(source.into(), name.as_deref(), limit))
            .map(|versions| versions.into_iter().map(Into::into).collect())
    }

    fn restore(&self, version: String) -> Result<types::WriteReceipt, types::Error> {
        self.scoped(|m| m.restore(&version)).map(Into::into)
    }

    fn undo(&self, expected: Option<String>) -> Result<Option<types::WriteReceipt>, types::Error> {
        self.scoped(|m| m.undo(expected.as_deref()))
            .map(|r| r.map(Into::into))
    }

    fn write_if_unchanged(
        &self,
        target: types::WriteTarget,
        content: String,
        name: Option<String>,
        base_sha256: String,
    ) -> Result<types::WriteReceipt, types::Error> {
        self.scoped(|m| {
            m.write_if_unchanged(target.into(), &content, name.as_deref(), &base_sha256)
        })
        .map(Into::into)
    }

    fn last_change(&self) -> Result<Option<types::Version>, types::Error> {
        self.scoped(|m| m.last_change()).map(|v| v.map(Into::into))
    }

    fn read_version(&self, version: String) -> Result<Option<String>, types::Error> {
        self.scoped(|m| m.version_text(&version))
    }

    fn scan_secrets(&self) -> Result<Vec<types::StoredSecret>, types::Error> {
        self.with(|m| m.scan_secrets()).map(|found| {
            found
                .into_iter()
                .map(|s| types::StoredSecret {
                    path: s.path,
                    line: s.line,
                    rule_id: s.rule_id,
                    masked: s.masked,
                    version: s.version,
                })
                .collect()
        })
    }

    fn purge_secrets(&self) -> Result<types::PurgeReceipt, types::Error> {
        self.with(|m| m.purge_secrets())
            .map(|p| types::PurgeReceipt {
                versions: p.versions,
                secrets: p.secrets,
                appends_saved: p.appends_saved,
            })
    }

    fn take_snapshot(&self) -> Result<types::SnapshotInfo, types::Error> {
        self.with(|m| m.take_snapshot()).map(Into::into)
    }

    fn apply_snapshot(&self) -> Result<types::SnapshotInfo, types::Error> {
        self.with(|m| m.apply_snapshot()).map(Into::into)
    }

    fn apply(
        &self,
        changes: Vec<types::BatchChange>,
        reason: Option<String>,
    ) -> Result<types::BatchReceipt, types::Error> {
        let changes: Vec<core::BatchChange> = changes.into_iter().map(Into::into).collect();
        self.scoped(|m| m.apply(&changes, reason.as_deref()))
            .map(|r| types::BatchReceipt {
                done: r.done,
                warnings: r.warnings,
                budget: r.budget.into(),
                message: r.message,
            })
    }

    fn consolidation_plan(&self) -> Result<String, types::Error> {
        self.with(|m| m.consolidation_plan())
    }

    fn pending_changes(&self) -> Result<Vec<types::PendingChange>, types::Error> {
        self.with(|m| m.pending()).map(|all| {
            all.into_iter()
                .map(|p| types::PendingChange {
                    id: p.id,
                    time_unix: p.time_unix,
                    utc_offset_minutes: p.utc_offset_minutes,
                    source: p.source,
                    scope: match p.scope {
                        Scope::Personal => types::Scope::Personal,
                        Scope::Team => types::Scope::Team,
                    },
                    tool: p.tool,
                    arguments: p.arguments,
                    diff: p.diff,
                })
                .collect()
        })
    }

    fn approve(&self, id: String) -> Result<String, types::Error> {
        self.with(|m| m.approve(&id))
    }

    fn reject(&self, id: String) -> Result<String, types::Error> {
        self.with(|m| m.reject(&id))
    }

    fn clear(&self, what: types::ClearTarget) -> Result<types::ClearReceipt, types::Error> {
        let what = match what {
            types::ClearTarget::Project => core::ClearTarget::Project,
            types::ClearTarget::LongTerm => core::ClearTarget::LongTerm,
            types::ClearTarget::All => core::ClearTarget::All,
        };
        self.scoped(|m| m.clear(what)).map(|r| types::ClearReceipt {
            removed: r.removed,
            bytes: r.bytes,
            message: r.message,
        })
    }

    fn call_tool(&self, name: String, arguments: String) -> Result<String, types::Error> {
        self.with(|m| core::tools::call(m, &name, &arguments))
    }
}

impl prompt::Guest for Component {
    fn estimate_tokens(text: String) -> u64 {
        core::prompt::estimate_tokens(&text)
    }

    fn effective_reserve(base: u64, block: Option<String>) -> u64 {
        core::prompt::effective_reserve(base, block.as_deref())
    }

    fn append_memory_block(preamble: String, block: Option<String>) -> String {
        core::prompt::append_memory_block(&preamble, block.as_deref())
    }

    fn compaction_heading(message_count: Option<u32>) -> String {
        core::prompt::compaction_heading(message_count)
    }
}

impl tools::Guest for Component {
    fn tool_definitions(set: types::ToolSet) -> Vec<types::ToolDefinition> {
        core::tools::definitions(set.into())
            .into_iter()
            .map(|d| types::ToolDefinition {
                name: d.name.into(),
                description: d.description.into(),
                parameters_schema: d.parameters.to_string(),
            })
            .collect()
    }

    fn usage_prompt(set: types::ToolSet) -> String {
        core::tools::usage_prompt(set.into())
    }
}

/// A loaded embedding model (or a hosted one), shared by the memories it
/// is enabled on.
struct Model(std::sync::Arc<dyn core::Embed>);

impl From<core::SemanticStatus> for semantic::SemanticStatus {
    fn from(s: core::SemanticStatus) -> Self {
        semantic::SemanticStatus {
            on: s.on,
            model: s.model,
            chunks: u32::try_from(s.chunks).unwrap_or(u32::MAX),
            ready: u32::try_from(s.ready).unwrap_or(u32::MAX),
            why_off: s.why_off,
        }
    }
}

impl semantic::GuestModel for Model {
    fn load(weights: Vec<u8>) -> Result<semantic::Model, types::Error> {
        let model = core::MiniLm::from_vec(weights)?;
        Ok(semantic::Model::new(Model(std::sync::Arc::new(model))))
    }

    fn load_stdin() -> Result<semantic::Model, types::Error> {
        use std::io::Read as _;
        let mut weights = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut weights)
            .map_err(|e| core::Error::io("read the weights from", "stdin", &e))?;
        Self::load(weights)
    }

    fn hosted(
        id: String,
        name: String,
        dim: u32,
        vocabulary: String,
    ) -> Result<semantic::Model, types::Error> {
        let model = core::Hosted::new(&id, &name, dim as usize, &vocabulary)?;
        Ok(semantic::Model::new(Model(std::sync::Arc::new(model))))
    }

    fn name(&self) -> String {
        core::Embed::model_name(self.0.as_ref()).to_string()
    }
}

impl semantic::Guest for Component {
    type Model = Model;

    fn enable(memory: store::MemoryBorrow<'_>, model: semantic::ModelBorrow<'_>) {
        let model = model.get::<Model>().0.clone();
        memory.get::<Memory>().0.borrow_mut().set_embedder(model);
    }

    fn disable(memory: store::MemoryBorrow<'_>, why: String) {
        memory.get::<Memory>().0.borrow_mut().set_semantic_off(why);
    }

    fn get_status(memory: store::MemoryBorrow<'_>) -> semantic::SemanticStatus {
        memory.get::<Memory>().0.borrow().semantic_status().into()
    }

    fn index(memory: store::MemoryBorrow<'_>, limit: Option<u32>) -> semantic::SemanticStatus {
        let m = memory.get::<Memory>().0.borrow();
        let limit = limit.map(|l| l as usize);
        match m.index_vectors(limit, &mut |_, _| {}) {
            Ok(status) => status.into(),
            Err(_) => m.semantic_status().into(),
        }
    }

    fn pending(
        memory: store::MemoryBorrow<'_>,
        limit: Option<u32>,
    ) -> Result<semantic::PendingChunks, types::Error> {
        let m = memory.get::<Memory>().0.borrow();
        let Some(p) = m.pending_chunks(limit.map(|l| l as usize)) else {
            let why = m.semantic_status().why_off.unwrap_or_default();
            return Err(types::Error {
                kind: types::ErrorKind::InvalidOptions,
                message: format!("semantic recall is off on this memory ({why})"),
            });
        };
        Ok(semantic::PendingChunks {
            model_id: p.model_id,
            chunks: p
                .chunks
                .into_iter()
                .map(|(key, text)| semantic::PendingChunk {
                    key: key.to_vec(),
                    text,
                })
                .collect(),
            status: p.status.into(),
        })
    }

    fn add_vectors(
        memory: store::MemoryBorrow<'_>,
        model_id: String,
        vectors: Vec<semantic::ChunkVector>,
    ) -> Result<semantic::SemanticStatus, types::Error> {
        let mut keyed = Vec::with_capacity(vectors.len());
        for (i, v) in vectors.into_iter().enumerate() {
            let key: [u8; 16] = v.key.as_slice().try_into().map_err(|_| types::Error {
                kind: types::ErrorKind::InvalidArguments,
                message: format!(
                    "key {i} has {} bytes, not 16; nothing was stored",
                    v.key.len()
                ),
            })?;
            keyed.push((key, v.vector));
        }
        let m = memory.get::<Memory>().0.borrow();
        Ok(m.add_vectors(&model_id, keyed)?.into())
    }

    fn query_text(query: String) -> Result<String, types::Error> {
        Ok(core::query_text(&query)?)
    }

    fn add_query_vector(
        memory: store::MemoryBorrow<'_>,
        model_id: String,
        text: String,
        vector: Vec<f32>,
    ) -> Result<(), types::Error> {
        let mut m = memory.get::<Memory>().0.borrow_mut();
        Ok(m.add_query_vector(&model_id, &text, vector)?)
    }

    fn similar_texts(
        memory: store::MemoryBorrow<'_>,
        target: types::WriteTarget,
        content: String,
        name: Option<String>,
    ) -> Result<Vec<String>, types::Error> {
        memory
            .get::<Memory>()
            .scoped(|m| m.similar_texts(target.into(), &content, name.as_deref()))
    }

    fn plan_texts(memory: store::MemoryBorrow<'_>) -> Result<Vec<String>, types::Error> {
        memory.get::<Memory>().scoped(|m| m.plan_texts())
    }
}

bindings::export!(Component with_types_in bindings);
