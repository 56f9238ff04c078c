//! [`Memory`]: an open memory, a handle on a `memory` resource of the
//! component, confined to one memory root.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use wasmtime::Store;
use wasmtime::component::ResourceAny;
use wasmtime_wasi::FsPerms;

use crate::bindings::{AgentMemory, AgentMemoryPre, HostState, StoreExports, wit};
use crate::error::{Error, MemoryError};
use crate::options::{OpenOptions, local_offset_minutes};
use crate::runtime::{Instance, Limits as InstanceLimits, sandbox};
use crate::types::{BatchChange, BatchReceipt, ClearReceipt, ClearTarget, PendingChange};
mod semantic;
pub use semantic::{NativeModel, SemanticStatus};

use crate::types::{
    DeleteReceipt, EditReceipt, FileInfo, ImportItem, ImportReceipt, ImportSetReceipt, Limits,
    PurgeReceipt, ReadSource, RenameReceipt, SearchMode, SearchResults, SnapshotInfo, StoredSecret,
    ToolDefinition, ToolSet, Version, WriteMode, WriteReceipt, WriteTarget,
};

/// An open memory: a handle on one memory root and project, in an instance of
/// the component that sees only the roots of its own memories. Made by
/// [`Runtime::open`](crate::Runtime::open) (an instance of its own) or
/// [`Runtime::open_group`](crate::Runtime::open_group) (several memories in
/// one instance, each seeing only its own root).
///
/// Every operation takes `&mut self`; a `Memory` is `Send`, so move it to the
/// thread that uses it or put it behind a mutex. Several `Memory` values, in
/// one process or many, may share a root: the component serializes writes.
/// Dropping a `Memory` releases its handle in the component.
///
/// # Errors and traps
///
/// Operations fail with [`Error::Memory`] when the memory refuses (bad input,
/// a missing note, the filesystem said no); the instance stays usable. If the
/// component traps the operation fails with [`Error::Trap`], and if it runs
/// into the memory cap or the call timeout of its [`OpenOptions`] with
/// [`Error::Limit`]; either way the instance is dropped, and the next
/// operation on any of its memories first starts a fresh instance and opens
/// that memory again with the same options.
///
/// # Clock
///
/// Unless the clock was pinned with [`OpenOptions::now`],
/// [`OpenOptions::fixed_clock`] or [`OpenOptions::utc_offset_minutes`], the
/// system's local UTC offset is re-read before each operation and passed to
/// the component when it changed (daylight saving time), so dates stay local.
pub struct Memory {
    group: Arc<Mutex<Group>>,
    index: usize,
    options: OpenOptions,
    info: wit::MemoryInfo,
}

/// The memories that share one instance, and the instance while it lives.
pub(crate) struct Group {
    pre: AgentMemoryPre<HostState>,
    members: Vec<Member>,
    live: Option<Instance>,
}

/// One memory of a group: where its root is preopened, and its handle while
/// the instance lives.
struct Member {
    options: OpenOptions,
    guest_root: String,
    /// Where the project directory is preopened read-only, if it is.
    guest_project: Option<String>,
    /// Where the team directory is preopened, if there is one.
    guest_team: Option<String>,
    handle: Option<ResourceAny>,
    utc_offset_minutes: i32,
    /// Semantic recall as the host set it, applied again to a fresh
    /// instance (see `semantic.rs`).
    pub(crate) semantic: Option<semantic::Setting>,
}

impl Memory {
    /// Prepares every root, starts one instance that preopens them all, and
    /// opens a memory on each.
    pub(crate) fn open_group(
        pre: AgentMemoryPre<HostState>,
        options: Vec<OpenOptions>,
    ) -> Result<Vec<Memory>, Error> {
        let single = options.len() == 1;
        let mut members = Vec::with_capacity(options.len());
        for (i, mut o) in options.into_iter().enumerate() {
            o.root = prepare_root(&o.root, o.create_root)?;
            if let Some(dir) = &o.project_dir {
                o.project_dir = Some(prepare_project_dir(dir)?);
            }
            if let Some(team) = &o.team_dir {
                let team = prepare_team_dir(team)?;
                if team == o.root {
                    return Err(Error::Setup {
                        message: format!(
                            "the team directory `{}` is the memory root; give the project's `.agent-memory` folder",
                            team.display()
                        ),
                        source: None,
                    });
                }
                o.team_dir = Some(team);
            }
            let guest_team = o.team_dir.as_ref().map(|_| {
                if single {
                    "/agent-memory-team".to_string()
                } else {
                    format!("/memory-{i}-team")
                }
            });
            members.push(Member {
                guest_project: o.project_dir.as_ref().map(|_| {
                    if single {
                        GUEST_PROJECT.to_string()
                    } else {
                        format!("{GUEST_PROJECT}-{i}")
                    }
                }),
                guest_team,
                // One memory keeps the root at `/`, as every host did before
                // handles existed; several get one directory each.
                guest_root: if single {
                    "/".into()
                } else {
                    format!("/memory-{i}")
                },
                utc_offset_minutes: o.clock().utc_offset_minutes,
                options: o,
                handle: None,
                semantic: None,
            });
        }
        let group = Arc::new(Mutex::new(Group {
            pre,
            members,
            live: None,
        }));
        let count = group
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .members
            .len();
        let mut memories = Vec::with_capacity(count);
        for index in 0..count {
            let mut g = group.lock().unwrap_or_else(PoisonError::into_inner);
            let info = g.ensure_open(index)?;
            let options = g.members[index].options.clone();
            drop(g);
            memories.push(Memory {
                group: Arc::clone(&group),
                index,
                options,
                info,
            });
        }
        Ok(memories)
    }

    /// The memory root: canonical, and the only directory of the host this
    /// memory can see.
    pub fn root(&self) -> &Path {
        &self.options.root
    }

    /// The project path the memory was opened for, as given.
    pub fn project(&self) -> &Path {
        &self.options.project
    }

    /// The project's storage slug, `<sanitized-basename>-<8 hex>`, e.g.
    /// `my-app-1a2b3c4d`.
    pub fn project_slug(&self) -> &str {
        &self.info.project_slug
    }

    /// The project's directory relative to the root: `projects/<slug>`.
    pub fn project_dir(&self) -> &str {
        &self.info.project_dir
    }

    /// Today's local date, `YYYY-MM-DD`, as of the last operation.
    pub fn today(&self) -> &str {
        &self.info.today
    }

    /// The options this memory was opened with (the root canonicalized).
    pub fn options(&self) -> &OpenOptions {
        &self.options
    }

    /// The limits this memory works within: the write, read and inject caps
    /// and lock timing in force, and the fixed ones of the contract.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`] only.
    pub fn limits(&mut self) -> Result<Limits, Error> {
        self.call("limits", |store, b, h| b.memory().call_limits(store, h))
            .map(Into::into)
    }

    /// Stores content in a memory file.
    ///
    /// [`WriteMode::Append`] adds a `\n` first when the file does not end with
    /// one; [`WriteMode::Overwrite`] replaces the file atomically. Content over
    /// the write cap (64 KiB) is cut at a UTF-8 boundary and the receipt says
    /// so. `name` is the note name for [`WriteTarget::Note`] and ignored
    /// otherwise. With semantic recall on and the vectors built, a line that
    /// means what a line of MEMORY.md, a scratchpad or a note means gets a
    /// `similar to …` notice in the receipt; with the model run natively
    /// ([`Memory::enable_semantic_native`]) this process embeds the few
    /// lines the notice compares first.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `MissingName` (a note without a name),
    /// `InvalidName`, `NotAFile`, `Busy` or `Io`; [`Error::Trap`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use agent_memory::{OpenOptions, Runtime, WriteMode, WriteTarget};
    /// # let mut memory = Runtime::shared()?.open(OpenOptions::new("/tmp/m", "/src/app"))?;
    /// memory.write(WriteTarget::Scratchpad, "- [ ] fix the flaky test", WriteMode::Append, None)?;
    /// let receipt = memory.write(WriteTarget::Note, "# Auth\n", WriteMode::Overwrite, Some("auth"))?;
    /// assert!(receipt.path.ends_with("/notes/auth.md"));
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn write(
        &mut self,
        target: WriteTarget,
        content: &str,
        mode: WriteMode,
        name: Option<&str>,
    ) -> Result<WriteReceipt, Error> {
        self.embed_similar_natively(target, content, name)?;
        self.call("write", |store, b, h| {
            b.memory()
                .call_write(store, h, target.into(), content, mode.into(), name)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// Reads a memory file whole, capped at the read cap (32 KiB) with a
    /// visible truncation line. `name` is the note name, or `YYYY-MM-DD` for a
    /// daily log (default today). `Ok(None)` when the file does not exist.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `MissingName`, `InvalidName`,
    /// `InvalidDate`, `NotAFile` or `Io`; [`Error::Trap`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use agent_memory::{OpenOptions, ReadSource, Runtime};
    /// # let mut memory = Runtime::shared()?.open(OpenOptions::new("/tmp/m", "/src/app"))?;
    /// let yesterday = memory.read(ReadSource::Daily, Some("2026-05-29"))?;
    /// println!("{}", yesterday.as_deref().unwrap_or("(no log)"));
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn read(
        &mut self,
        source: ReadSource,
        name: Option<&str>,
    ) -> Result<Option<String>, Error> {
        self.call("read", |store, b, h| {
            b.memory().call_read(store, h, source.into(), name)
        })?
        .map_err(domain)
    }

    /// Every `.md` file this project can see (`MEMORY.md`, its scratchpad,
    /// notes and daily logs), sorted by path; empty for an empty store.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `Io`; [`Error::Trap`].
    pub fn list_files(&mut self) -> Result<Vec<FileInfo>, Error> {
        self.call("list-files", |store, b, h| {
            b.memory().call_list_files(store, h)
        })?
        .map(|files| files.into_iter().map(Into::into).collect())
        .map_err(domain)
    }

    /// Appends `### HH:MM — <heading>` (local time) and the trimmed body to
    /// today's log.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `InvalidArguments` when the heading is
    /// empty or spans lines, then as [`write`](Self::write).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use agent_memory::{OpenOptions, Runtime};
    /// # let mut memory = Runtime::shared()?.open(OpenOptions::new("/tmp/m", "/src/app"))?;
    /// memory.append_daily("deploy", "Shipped v1.4.2 to staging.")?;
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn append_daily(&mut self, heading: &str, body: &str) -> Result<WriteReceipt, Error> {
        self.call("append-daily", |store, b, h| {
            b.memory().call_append_daily(store, h, heading, body)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// Keyword search over `MEMORY.md`, the project's notes and daily logs:
    /// whitespace-separated terms, matched literally and case-insensitively,
    /// with ±3 lines of context, ranked. A query without terms gives empty
    /// results.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `Io` when the store cannot be read;
    /// [`Error::Trap`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use agent_memory::{OpenOptions, Runtime};
    /// # let mut memory = Runtime::shared()?.open(OpenOptions::new("/tmp/m", "/src/app"))?;
    /// let results = memory.search("deploy staging")?;
    /// for hit in &results.hits {
    ///     println!("{} matched {:?}", hit.path, hit.matched_terms);
    /// }
    /// println!("{}", memory.render_search(&results, Some(4096))?);
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn search(&mut self, query: &str) -> Result<SearchResults, Error> {
        self.search_with(query, SearchMode::Ranked)
    }

    /// Search in `mode`: [`SearchMode::Ranked`] (what [`search`](Self::search)
    /// does) or [`SearchMode::Literal`], the seeds' substring search.
    ///
    /// # Errors
    ///
    /// As [`search`](Self::search).
    pub fn search_with(&mut self, query: &str, mode: SearchMode) -> Result<SearchResults, Error> {
        self.call("search", |store, b, h| {
            b.memory().call_search(store, h, query, mode.into())
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// [`search_with`](Self::search_with), its best `limit` hits only, and
    /// how many files the whole search returns (at most 100): a page of
    /// results. A ranked search then re-reads only the files of the hits it
    /// returns, so a page costs what it shows. The hits and terms are the
    /// first `limit` of [`search_with`](Self::search_with)'s.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `InvalidArguments` for a `limit` of 0;
    /// otherwise as [`search`](Self::search).
    pub fn search_top(
        &mut self,
        query: &str,
        mode: SearchMode,
        limit: u32,
    ) -> Result<(SearchResults, u32), Error> {
        self.call("search-top", |store, b, h| {
            b.memory()
                .call_search_top(store, h, query, mode.into(), limit)
        })?
        .map(|page| {
            let results = wit::SearchResults {
                terms: page.terms,
                hits: page.hits,
            };
            (results.into(), page.total)
        })
        .map_err(domain)
    }

    /// Replaces the one occurrence of `old_text` in a file with `new_text`
    /// (which may be empty), atomically. `name` is the note name for
    /// [`WriteTarget::Note`] and the date (`YYYY-MM-DD`, default today) for
    /// [`WriteTarget::Daily`].
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `NotFound` (no such file, or `old_text` is
    /// not in it), `Ambiguous` (it occurs more than once; the message lists
    /// the lines), `InvalidArguments`, `SecretDetected`, the name and date
    /// errors, `NotAFile`, `Busy`, `Io`; the file is unchanged on any error.
    pub fn edit(
        &mut self,
        target: WriteTarget,
        name: Option<&str>,
        old_text: &str,
        new_text: &str,
    ) -> Result<EditReceipt, Error> {
        self.call("edit", |store, b, h| {
            b.memory()
                .call_edit(store, h, target.into(), name, old_text, new_text)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// Deletes a note (`a/b/c` for a nested one); a missing note is a
    /// success whose receipt says so. An emptied topic folder is removed.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `MissingName`, `InvalidName`, `NotAFile`,
    /// `Busy` or `Io`.
    pub fn delete_note(&mut self, name: &str) -> Result<DeleteReceipt, Error> {
        self.call("delete-note", |store, b, h| {
            b.memory().call_delete_note(store, h, name)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// The recorded versions of one file, newest first (all, or the first
    /// `limit`). `name` is the note name, or the date of a daily log.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `InvalidArguments` (limit 0) or the name
    /// and date errors of [`read`](Self::read).
    pub fn history(
        &mut self,
        source: ReadSource,
        name: Option<&str>,
        limit: Option<u32>,
    ) -> Result<Vec<Version>, Error> {
        self.call("history", |store, b, h| {
            b.memory()
                .call_history(store, h, source.into(), name, limit)
        })?
        .map(|versions| versions.into_iter().map(Into::into).collect())
        .map_err(domain)
    }

    /// Puts a file back to a recorded version (an id from
    /// [`history`](Self::history)); the restore is recorded too.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `NotFound` for an unknown, pruned or
    /// another project's id; `Busy`, `Io`.
    pub fn restore(&mut self, version: &str) -> Result<WriteReceipt, Error> {
        self.call("restore", |store, b, h| {
            b.memory().call_restore(store, h, version)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// Undoes the most recent change this project can see: finds it and
    /// restores its version under the store's lock, as one change, so two
    /// undos at once end as one after the other would (the second undoes
    /// the first's restore). With `expected` (an id from
    /// [`last_change`](Self::last_change)) it undoes only while that is
    /// still the last change. `None` when nothing was recorded and nothing
    /// was expected.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `Conflict` when `expected` is no longer
    /// the last change (nothing was changed); `NotFound` for an `expected`
    /// that is not a version id; then as [`restore`](Self::restore).
    pub fn undo(&mut self, expected: Option<&str>) -> Result<Option<WriteReceipt>, Error> {
        self.call("undo", |store, b, h| {
            b.memory().call_undo(store, h, expected)
        })?
        .map(|r| r.map(Into::into))
        .map_err(domain)
    }

    /// Overwrites a file with `content` only while its bytes still hash
    /// (SHA-256, lowercase hex: [`base_sha256`]) to `base_sha256`, the text
    /// an editor started from; a missing file hashes as the empty text. The check
    /// and the write are one change under the store's lock.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `Conflict` when the file changed since
    /// (nothing was written), `InvalidArguments` for a `base_sha256` that is
    /// not 64 lowercase hex digits; then as [`write`](Self::write).
    pub fn write_if_unchanged(
        &mut self,
        target: WriteTarget,
        content: &str,
        name: Option<&str>,
        base_sha256: &str,
    ) -> Result<WriteReceipt, Error> {
        self.call("write-if-unchanged", |store, b, h| {
            b.memory()
                .call_write_if_unchanged(store, h, target.into(), content, name, base_sha256)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// The most recent change this project can see: what
    /// [`undo`](Self::undo) would undo. `None` when nothing was recorded.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `Io`; [`Error::Trap`].
    pub fn last_change(&mut self) -> Result<Option<Version>, Error> {
        self.call("last-change", |store, b, h| {
            b.memory().call_last_change(store, h)
        })?
        .map(|v| v.map(Into::into))
        .map_err(domain)
    }

    /// The text a file held at a recorded version (an id from
    /// [`history`](Self::history) or [`last_change`](Self::last_change)):
    /// what it held just before that change, to compare with the file now.
    /// `None` when the file did not exist then. Reads only.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `NotFound` for an id that is malformed,
    /// unknown, pruned, another project's or another scope's, or whose saved
    /// content can no longer be read.
    pub fn read_version(&mut self, version: &str) -> Result<Option<String>, Error> {
        self.call("read-version", |store, b, h| {
            b.memory().call_read_version(store, h, version)
        })?
        .map_err(domain)
    }

    /// Secrets already stored anywhere under the root, by the rules of the
    /// write guard: path, line, rule and a masked prefix, never the value.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `Io`; [`Error::Trap`].
    pub fn scan_secrets(&mut self) -> Result<Vec<StoredSecret>, Error> {
        self.call("scan-secrets", |store, b, h| {
            b.memory().call_scan_secrets(store, h)
        })?
        .map(|found| found.into_iter().map(Into::into).collect())
        .map_err(domain)
    }

    /// Redacts every secret in every version saved in history, in place:
    /// ids kept, each redacted version marked purged, and no byte of a
    /// redacted secret left under the store's `.store/`. The personal
    /// store, then the team store when there is one. Live files and names
    /// are not changed.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `Busy` or `Io`; [`Error::Trap`].
    pub fn purge_secrets(&mut self) -> Result<PurgeReceipt, Error> {
        self.call("purge-secrets", |store, b, h| {
            b.memory().call_purge_secrets(store, h)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// Imports text from another memory system into the file `target`
    /// names, adding nothing twice: `MEMORY.md` and the scratchpad get the
    /// lines they lack, a note or daily log gets the text unless it already
    /// contains it, a missing file is created. `name` is the note name, or
    /// the date (`YYYY-MM-DD`, required) of a daily log. Passes the secret
    /// guard and is recorded in history as `import`. With `dry_run` nothing
    /// is written; the receipt says what would happen.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `MissingName`, `InvalidName`,
    /// `InvalidDate`, `InvalidArguments` (text over the write cap: never
    /// cut), `SecretDetected`, `NotAFile`, `Busy` or `Io`; nothing is written
    /// on error.
    pub fn import_file(
        &mut self,
        target: WriteTarget,
        name: Option<&str>,
        content: &str,
        dry_run: bool,
    ) -> Result<ImportReceipt, Error> {
        self.call("import-file", |store, b, h| {
            b.memory()
                .call_import_file(store, h, target.into(), name, content, dry_run)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// Imports several files as one change, each merged as
    /// [`Memory::import_file`] merges it: all or nothing, recorded in
    /// history as one change, so one [`Memory::undo`] takes the whole
    /// import back. Every item is checked first; a refusal refuses the
    /// whole import and names every refused item by its `source`. See the
    /// WIT `import-files`.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `InvalidArguments` (over 10,000 items or
    /// 64 MiB, two items into one file, an item over the write cap), or the
    /// first refused item's kind (`MissingName`, `InvalidName`,
    /// `InvalidDate`, `SecretDetected`), `NotAFile`, `Busy` or `Io`; nothing
    /// is written on error.
    pub fn import_files(
        &mut self,
        items: &[ImportItem],
        dry_run: bool,
    ) -> Result<ImportSetReceipt, Error> {
        let items: Vec<wit::ImportItem> = items.iter().map(Into::into).collect();
        self.call("import-files", |store, b, h| {
            b.memory().call_import_files(store, h, &items, dry_run)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// Copies the project's personal notes into the team directory's
    /// `snapshot/` (replacing the previous snapshot) with a `TAKEN`
    /// timestamp, for teammates to start from. Notes only; every note passes
    /// the secret guard with `block`.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `NoTeamDir`, `SecretDetected` (nothing
    /// written), `Busy` or `Io`; [`Error::Trap`].
    pub fn take_snapshot(&mut self) -> Result<SnapshotInfo, Error> {
        self.call("take-snapshot", |store, b, h| {
            b.memory().call_take_snapshot(store, h)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// Applies the team snapshot to the project's personal notes, recorded
    /// in history as imports. The context block reports a snapshot newer
    /// than the last applied; this applies it.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `NoTeamDir`, `NotFound` (no snapshot),
    /// `Conflict` (a snapshot file has conflict markers; nothing applied),
    /// `Busy` or `Io`; [`Error::Trap`].
    pub fn apply_snapshot(&mut self) -> Result<SnapshotInfo, Error> {
        self.call("apply-snapshot", |store, b, h| {
            b.memory().call_apply_snapshot(store, h)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// Renames a note; the new name must be free.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `NotFound`, `AlreadyExists`,
    /// `InvalidName`, `NotAFile`, `Busy` or `Io`; nothing changes on error.
    pub fn rename_note(&mut self, name: &str, new_name: &str) -> Result<RenameReceipt, Error> {
        self.call("rename-note", |store, b, h| {
            b.memory().call_rename_note(store, h, name, new_name)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// Applies several changes as one, all or nothing: one history change
    /// (restoring any of its versions restores them all). `reason`
    /// `consolidation` records it with the source `dream`. See the WIT
    /// `memory.apply`.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `InvalidArguments` (empty or oversized
    /// set, two changes on one file), or the first failing change's own
    /// error, its message starting `change N (tool)`; nothing changes on
    /// error.
    pub fn apply(
        &mut self,
        changes: &[BatchChange],
        reason: Option<&str>,
    ) -> Result<BatchReceipt, Error> {
        let changes: Vec<wit::BatchChange> = changes.iter().map(Into::into).collect();
        self.call("apply", |store, b, h| {
            b.memory().call_apply(store, h, &changes, reason)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// The consolidation plan for the agent's own model (see the WIT
    /// `memory.consolidation-plan`). Changes nothing. With the model run
    /// natively ([`Memory::enable_semantic_native`]), this process embeds
    /// the lines the plan compares by meaning first (at most 200, on every
    /// core).
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `NotFound` for an empty memory, `Io`.
    pub fn consolidation_plan(&mut self) -> Result<String, Error> {
        self.embed_plan_natively()?;
        self.call("consolidation-plan", |store, b, h| {
            b.memory().call_consolidation_plan(store, h)
        })?
        .map_err(domain)
    }

    /// The model's tool calls waiting for review, oldest first, each with
    /// what it would change now (see [`OpenOptions::review`]).
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `Io`.
    pub fn pending_changes(&mut self) -> Result<Vec<PendingChange>, Error> {
        self.call("pending-changes", |store, b, h| {
            b.memory().call_pending_changes(store, h)
        })?
        .map(|all| all.into_iter().map(Into::into).collect())
        .map_err(domain)
    }

    /// Applies the queued call `id` (checked again); returns the tool's
    /// answer.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `NotFound` (never queued),
    /// `InvalidArguments` (already decided, or not like `p12`), or the
    /// call's own error (it then stays queued).
    pub fn approve(&mut self, id: &str) -> Result<String, Error> {
        self.call("approve", |store, b, h| {
            b.memory().call_approve(store, h, id)
        })?
        .map_err(domain)
    }

    /// Drops the queued call `id` and its text.
    ///
    /// # Errors
    ///
    /// As [`Memory::approve`], less the call's own.
    pub fn reject(&mut self, id: &str) -> Result<String, Error> {
        self.call("reject", |store, b, h| b.memory().call_reject(store, h, id))?
            .map_err(domain)
    }

    /// Removes memory files as one change that undo brings back; the team
    /// store only for a memory opened in team scope.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `Busy` or `Io`; nothing changes on error.
    pub fn clear(&mut self, what: ClearTarget) -> Result<ClearReceipt, Error> {
        self.call("clear", |store, b, h| {
            b.memory().call_clear(store, h, what.into())
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// Renders search results for a model: a summary line with per-term
    /// counts, then whole hits, best first, while they fit in `max_bytes`
    /// (default: the read cap).
    ///
    /// # Errors
    ///
    /// [`Error::Trap`] only.
    pub fn render_search(
        &mut self,
        results: &SearchResults,
        max_bytes: Option<u32>,
    ) -> Result<String, Error> {
        let results = wit::SearchResults::from(results);
        self.call("render-search", |store, b, h| {
            b.memory().call_render_search(store, h, &results, max_bytes)
        })
    }

    /// The `<memory note="…">` block for the system prompt: long-term memory,
    /// open scratchpad items, the previous and today's logs, capped at 32 KiB.
    /// `Ok(None)` when there is nothing to show.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`]; unreadable files are skipped, not errors.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use agent_memory::{OpenOptions, Runtime};
    /// # let mut memory = Runtime::shared()?.open(OpenOptions::new("/tmp/m", "/src/app"))?;
    /// let block = memory.context_block()?;
    /// let system = memory.append_memory_block("You are a coding agent.", block.as_deref())?;
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn context_block(&mut self) -> Result<Option<String>, Error> {
        self.call("context-block", |store, b, h| {
            b.memory().call_context_block(store, h)
        })?
        .map_err(domain)
    }

    /// Saves a compaction summary to today's log under the heading
    /// `compaction summary (N msgs)` (or `compaction summary`).
    ///
    /// # Errors
    ///
    /// As [`append_daily`](Self::append_daily).
    pub fn flush_compaction(
        &mut self,
        summary: &str,
        message_count: Option<u32>,
    ) -> Result<WriteReceipt, Error> {
        self.call("flush-compaction", |store, b, h| {
            b.memory()
                .call_flush_compaction(store, h, summary, message_count)
        })?
        .map(Into::into)
        .map_err(domain)
    }

    /// The tool definitions to give a model: `memory_write`, `memory_read`,
    /// `memory_search`, with JSON Schema parameters.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`] only.
    pub fn tool_definitions(&mut self, set: ToolSet) -> Result<Vec<ToolDefinition>, Error> {
        self.call_free("tool-definitions", |store, b| {
            b.agent_memory_tools()
                .call_tool_definitions(store, set.into())
        })
        .map(|tools| tools.into_iter().map(Into::into).collect())
    }

    /// The system-prompt text that tells a model how to use the tools.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`] only.
    pub fn usage_prompt(&mut self, set: ToolSet) -> Result<String, Error> {
        self.call_free("usage-prompt", |store, b| {
            b.agent_memory_tools().call_usage_prompt(store, set.into())
        })
    }

    /// Executes a model's tool call and returns the text for the model.
    /// `arguments` is the call's JSON arguments object.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] with kind `UnknownTool`, `InvalidArguments`,
    /// `InvalidTarget`, `InvalidMode`, `NotFound` (a missing note) or any
    /// error of the operation; [`Error::Trap`]. Report the error's message to
    /// the model as the tool result.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use agent_memory::{OpenOptions, Runtime};
    /// # let mut memory = Runtime::shared()?.open(OpenOptions::new("/tmp/m", "/src/app"))?;
    /// let reply = match memory.call_tool("memory_read", r#"{"source":"list"}"#) {
    ///     Ok(text) => text,
    ///     Err(agent_memory::Error::Memory(error)) => format!("error: {error}"),
    ///     Err(other) => return Err(other),
    /// };
    /// # Ok::<(), agent_memory::Error>(())
    /// ```
    pub fn call_tool(&mut self, name: &str, arguments: &str) -> Result<String, Error> {
        self.call("call-tool", |store, b, h| {
            b.memory().call_call_tool(store, h, name, arguments)
        })?
        .map_err(domain)
    }

    /// As [`Runtime::estimate_tokens`](crate::Runtime::estimate_tokens), in this
    /// memory's instance.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`] only.
    pub fn estimate_tokens(&mut self, text: &str) -> Result<u64, Error> {
        self.call_free("estimate-tokens", |store, b| {
            b.agent_memory_prompt().call_estimate_tokens(store, text)
        })
    }

    /// As [`Runtime::effective_reserve`](crate::Runtime::effective_reserve), in
    /// this memory's instance.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`] only.
    pub fn effective_reserve(&mut self, base: u64, block: Option<&str>) -> Result<u64, Error> {
        self.call_free("effective-reserve", |store, b| {
            b.agent_memory_prompt()
                .call_effective_reserve(store, base, block)
        })
    }

    /// As [`Runtime::append_memory_block`](crate::Runtime::append_memory_block),
    /// in this memory's instance.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`] only.
    pub fn append_memory_block(
        &mut self,
        preamble: &str,
        block: Option<&str>,
    ) -> Result<String, Error> {
        self.call_free("append-memory-block", |store, b| {
            b.agent_memory_prompt()
                .call_append_memory_block(store, preamble, block)
        })
    }

    /// As [`Runtime::compaction_heading`](crate::Runtime::compaction_heading),
    /// in this memory's instance.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`] only.
    pub fn compaction_heading(&mut self, message_count: Option<u32>) -> Result<String, Error> {
        self.call_free("compaction-heading", |store, b| {
            b.agent_memory_prompt()
                .call_compaction_heading(store, message_count)
        })
    }

    /// Runs one method of this memory's handle: restarts the instance if a
    /// trap killed it, (re)opens the handle, follows the local offset, and
    /// drops the instance if `call` traps.
    fn call<R>(
        &mut self,
        operation: &'static str,
        call: impl FnOnce(&mut Store<HostState>, &StoreExports, ResourceAny) -> wasmtime::Result<R>,
    ) -> Result<R, Error> {
        self.call_handle(operation, |store, bindings, handle| {
            call(store, bindings.agent_memory_store(), handle)
        })
    }

    /// As [`Memory::call`], with the whole world's bindings, for the
    /// interfaces other than `store` that take this memory's handle.
    pub(crate) fn call_handle<R>(
        &mut self,
        operation: &'static str,
        call: impl FnOnce(&mut Store<HostState>, &AgentMemory, ResourceAny) -> wasmtime::Result<R>,
    ) -> Result<R, Error> {
        let mut group = self.group.lock().unwrap_or_else(PoisonError::into_inner);
        self.info = group.ensure_open(self.index)?;
        let handle = group.members[self.index]
            .handle
            .expect("ensure_open leaves the handle open");
        let instance = group
            .live
            .as_mut()
            .expect("ensure_open starts the instance");
        instance.arm();
        let result = call(&mut instance.store, &instance.bindings, handle);
        group.settle(operation, result)
    }

    /// Runs one free function (the `prompt` and `tools` interfaces) in this
    /// memory's instance.
    fn call_free<R>(
        &mut self,
        operation: &'static str,
        call: impl FnOnce(&mut Store<HostState>, &AgentMemory) -> wasmtime::Result<R>,
    ) -> Result<R, Error> {
        let mut group = self.group.lock().unwrap_or_else(PoisonError::into_inner);
        group.ensure_live()?;
        let instance = group
            .live
            .as_mut()
            .expect("ensure_live starts the instance");
        instance.arm();
        let result = call(&mut instance.store, &instance.bindings);
        group.settle(operation, result)
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        let mut group = self.group.lock().unwrap_or_else(PoisonError::into_inner);
        if let (Some(handle), Some(instance)) =
            (group.members[self.index].handle.take(), group.live.as_mut())
        {
            instance.arm();
            if handle.resource_drop(&mut instance.store).is_err() {
                // A trap while dropping poisons the instance like any other.
                group.live = None;
            }
        }
    }
}

impl Group {
    /// Starts the instance if there is none: one store whose WASI context
    /// preopens each member's root at its guest path, and nothing else.
    fn ensure_live(&mut self) -> Result<(), Error> {
        if self.live.is_some() {
            return Ok(());
        }
        for member in &mut self.members {
            member.handle = None;
        }
        let mut wasi = sandbox();
        for member in &self.members {
            let root = &member.options.root;
            wasi.preopened_dir(root, &member.guest_root, FsPerms::ReadWrite)
                .map_err(|e| {
                    Error::setup_wasmtime(
                        format!("cannot open the memory root `{}`", root.display()),
                        e,
                    )
                })?;
            // The project is only ever hashed: read-only, so no call can
            // write there, whatever the guest does.
            if let (Some(dir), Some(guest)) = (&member.options.project_dir, &member.guest_project) {
                wasi.preopened_dir(dir, guest, FsPerms::ReadOnly)
                    .map_err(|e| {
                        Error::setup_wasmtime(
                            format!("cannot open the project directory `{}`", dir.display()),
                            e,
                        )
                    })?;
            }
            if let (Some(team), Some(guest)) = (&member.options.team_dir, &member.guest_team) {
                wasi.preopened_dir(team, guest, FsPerms::ReadWrite)
                    .map_err(|e| {
                        Error::setup_wasmtime(
                            format!("cannot open the team directory `{}`", team.display()),
                            e,
                        )
                    })?;
            }
        }
        if self.members.iter().any(|m| m.options.inherit_stderr) {
            wasi.inherit_stderr();
        }
        // The instance is shared: it gets the most generous of its members'
        // bounds.
        let max_memory = self
            .members
            .iter()
            .map(|m| m.options.max_memory_bytes)
            .max();
        let timeout = self.members.iter().map(|m| m.options.call_timeout).max();
        let limits = InstanceLimits::new(
            max_memory.unwrap_or(crate::DEFAULT_MAX_MEMORY_BYTES),
            timeout.unwrap_or(crate::DEFAULT_CALL_TIMEOUT),
        );
        #[allow(unused_mut)]
        let mut instance = Instance::new(&self.pre, wasi.build(), limits)?;
        #[cfg(all(feature = "faults", unix))]
        {
            instance.store.data_mut().faults =
                self.members.iter().find_map(|m| m.options.faults.clone());
        }
        self.live = Some(instance);
        Ok(())
    }

    /// Makes sure member `index` has a live handle with the right clock, and
    /// returns what the component says it is open on.
    fn ensure_open(&mut self, index: usize) -> Result<wit::MemoryInfo, Error> {
        self.ensure_live()?;
        let member = &self.members[index];
        let follows = member.options.follows_local_offset();
        let handle = match member.handle {
            Some(handle) => handle,
            None => {
                let clock = member.options.clock();
                let options = member.options.wit_options(
                    &member.guest_root,
                    member.guest_project.as_deref(),
                    member.guest_team.as_deref(),
                    clock,
                );
                let instance = self.live.as_mut().expect("started above");
                instance.arm();
                let result = instance
                    .bindings
                    .agent_memory_store()
                    .memory()
                    .call_open(&mut instance.store, &options);
                let handle = self.settle("open", result)?.map_err(domain)?;
                let member = &mut self.members[index];
                member.handle = Some(handle);
                member.utc_offset_minutes = clock.utc_offset_minutes;
                let audience = member.options.audience;
                if audience != crate::Audience::Model {
                    let instance = self.live.as_mut().expect("started above");
                    instance.arm();
                    let result = instance
                        .bindings
                        .agent_memory_store()
                        .memory()
                        .call_speak_to(&mut instance.store, handle, audience.into());
                    self.settle("speak-to", result)?;
                }
                self.apply_semantic(index, handle)?;
                handle
            }
        };
        if follows {
            let offset = local_offset_minutes();
            if offset != self.members[index].utc_offset_minutes {
                let clock = wit::Clock {
                    utc_offset_minutes: offset,
                    fixed_unix_seconds: None,
                };
                let instance = self.live.as_mut().expect("started above");
                instance.arm();
                let result = instance
                    .bindings
                    .agent_memory_store()
                    .memory()
                    .call_set_clock(&mut instance.store, handle, clock);
                self.settle("set-clock", result)?.map_err(domain)?;
                self.members[index].utc_offset_minutes = offset;
            }
        }
        let instance = self.live.as_mut().expect("started above");
        instance.arm();
        let result = instance
            .bindings
            .agent_memory_store()
            .memory()
            .call_info(&mut instance.store, handle);
        self.settle("info", result)
    }

    /// The outcome of a call into the instance: a trap or a limit drops the
    /// instance (wasmtime refuses to enter it again) and becomes our error.
    fn settle<R>(
        &mut self,
        operation: &'static str,
        result: wasmtime::Result<R>,
    ) -> Result<R, Error> {
        result.map_err(|e| {
            let error = match &self.live {
                Some(instance) => instance.failure(operation, e),
                None => Error::trap(operation, e),
            };
            self.live = None;
            for member in &mut self.members {
                member.handle = None;
            }
            error
        })
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory")
            .field("root", &self.options.root)
            .field("project", &self.options.project)
            .field("project_slug", &self.info.project_slug)
            .field("today", &self.info.today)
            .finish_non_exhaustive()
    }
}

/// Creates the root if asked and allowed, and returns its canonical path.
fn prepare_root(root: &Path, create: bool) -> Result<PathBuf, Error> {
    let not_a_directory = || Error::Setup {
        message: format!("the memory root `{}` is not a directory", root.display()),
        source: None,
    };
    match fs::metadata(root) {
        Ok(meta) if !meta.is_dir() => return Err(not_a_directory()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
            fs::create_dir_all(root).map_err(|e| {
                Error::setup(
                    format!("cannot create the memory root `{}`", root.display()),
                    e,
                )
            })?;
        }
        Err(e) => {
            return Err(Error::setup(
                format!("cannot open the memory root `{}`", root.display()),
                e,
            ));
        }
    }
    let canonical = fs::canonicalize(root).map_err(|e| {
        Error::setup(
            format!("cannot resolve the memory root `{}`", root.display()),
            e,
        )
    })?;
    if !canonical.is_dir() {
        return Err(not_a_directory());
    }
    Ok(canonical)
}

/// The team directory canonical, created (with its parents) when missing,
/// or a setup error naming it. It is preopened read-write, so it must be a
/// real folder where it is named: never a symbolic link (to another folder,
/// to `/`, or dangling), whose target would get the team's files. Links
/// among its parents are followed, as for any path.
fn prepare_team_dir(dir: &Path) -> Result<PathBuf, Error> {
    // By its last component, so `link/.` is looked at as `link`.
    let Some(name) = dir.file_name() else {
        return Err(Error::Setup {
            message: format!(
                "the team directory `{}` does not end in a folder name; give the project's `.agent-memory` folder",
                dir.display()
            ),
            source: None,
        });
    };
    let parent = dir.parent().unwrap_or(Path::new(""));
    let path = parent.join(name);
    let is_link =
        |path: &Path| fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink());
    let linked = |path: &Path| {
        let target = fs::read_link(path)
            .map(|target| format!(" (to `{}`)", target.display()))
            .unwrap_or_default();
        Error::Setup {
            message: format!(
                "the team directory `{}` is a symbolic link{target}; the team directory must be a real folder inside the project: replace the link with a real folder",
                path.display()
            ),
            source: None,
        }
    };
    if is_link(&path) {
        return Err(linked(&path));
    }
    let not_a_directory = || Error::Setup {
        message: format!("the team directory `{}` is not a directory", path.display()),
        source: None,
    };
    match fs::metadata(&path) {
        Ok(meta) if !meta.is_dir() => return Err(not_a_directory()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            fs::create_dir_all(&path).map_err(|e| {
                Error::setup(
                    format!("cannot create the team directory `{}`", path.display()),
                    e,
                )
            })?;
        }
        Err(e) => {
            return Err(Error::setup(
                format!("cannot open the team directory `{}`", path.display()),
                e,
            ));
        }
    }
    let resolve = |path: &Path| {
        fs::canonicalize(path).map_err(|e| {
            Error::setup(
                format!("cannot resolve the team directory `{}`", path.display()),
                e,
            )
        })
    };
    let canonical = resolve(&path)?;
    // Made a link meanwhile, or something else that leads elsewhere (a
    // junction): its canonical path must be its folder's, joined with its name.
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    if canonical != resolve(parent)?.join(name) {
        if is_link(&path) {
            return Err(linked(&path));
        }
        return Err(Error::Setup {
            message: format!(
                "the team directory `{}` leads to `{}`, outside the folder that holds it; replace it with a real folder",
                path.display(),
                canonical.display()
            ),
            source: None,
        });
    }
    if !canonical.is_dir() {
        return Err(not_a_directory());
    }
    Ok(canonical)
}

/// The guest path of the project directory's read-only preopen (with
/// `-<i>` for the i-th memory of a group). Not a name the store uses at its
/// root (`projects/` is), so it shadows nothing.
pub(crate) const GUEST_PROJECT: &str = "/project";

/// The project directory canonical, or a setup error naming it.
fn prepare_project_dir(dir: &Path) -> Result<PathBuf, Error> {
    let canonical = fs::canonicalize(dir).map_err(|e| {
        Error::setup(
            format!(
                "cannot open the project directory `{}` for staleness anchors",
                dir.display()
            ),
            e,
        )
    })?;
    if !canonical.is_dir() {
        return Err(Error::Setup {
            message: format!(
                "the project directory `{}` is not a directory; pass the project's root folder",
                dir.display()
            ),
            source: None,
        });
    }
    Ok(canonical)
}

fn domain(error: wit::Error) -> Error {
    Error::Memory(MemoryError::from(error))
}

/// The digest [`Memory::write_if_unchanged`] compares a file with: SHA-256
/// of the text's UTF-8 bytes, 64 lowercase hex digits.
pub fn base_sha256(text: &str) -> String {
    use sha2::{Digest, Sha256};
    format!("{:x}", Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepare_root_creates_and_canonicalizes() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("a/b/../c");
        let prepared = prepare_root(&root, true).unwrap();
        assert_eq!(prepared, temp.path().canonicalize().unwrap().join("a/c"));
        assert!(prepared.is_dir());
    }

    #[test]
    fn prepare_root_without_create_names_the_missing_path() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("missing");
        let error = prepare_root(&root, false).unwrap_err();
        assert!(matches!(error, Error::Setup { .. }));
        assert!(error.to_string().contains("missing"), "{error}");
        assert!(!root.exists());
    }

    #[test]
    fn prepare_root_rejects_a_file() {
        let temp = tempfile::tempdir().unwrap();
        let file = temp.path().join("file");
        fs::write(&file, "x").unwrap();
        let error = prepare_root(&file, true).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("the memory root `{}` is not a directory", file.display())
        );
    }
}

/// The project preopen, as the library sets it up, refuses writes from
/// inside the guest. No store code writes there, so the call is crafted:
/// a second `memory.open` in the product's own instance whose *root* is
/// the project's guest path, then every kind of write through it.
#[cfg(all(test, unix))]
mod project_preopen {
    use super::*;

    /// Every path under `dir` with its bytes (`None` for a directory).
    fn tree(dir: &Path) -> Vec<(PathBuf, Option<Vec<u8>>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for entry in fs::read_dir(&d).unwrap().flatten() {
                let path = entry.path();
                if entry.file_type().unwrap().is_dir() {
                    stack.push(path.clone());
                    out.push((path, None));
                } else {
                    out.push((path.clone(), Some(fs::read(&path).unwrap())));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_write_through_the_project_preopen_fails_and_changes_nothing() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("root");
        let project = temp.path().join("project");
        fs::create_dir_all(project.join("src")).unwrap();
        fs::write(project.join("src/auth.rs"), "pub fn login() {}\n").unwrap();
        fs::write(project.join("MEMORY.md"), "- the project's own file\n").unwrap();
        let before = tree(&project);
        let runtime = crate::Runtime::shared().unwrap();
        let options = OpenOptions::new(&root, "/src/app")
            .fixed_clock(1_780_125_300, 0)
            .project_dir(&project);
        let memory = Memory::open_group(runtime.pre.clone(), vec![options])
            .unwrap()
            .pop()
            .unwrap();
        let mut group = memory.group.lock().unwrap();
        let member = &group.members[0];
        let guest = member.guest_project.clone().unwrap();
        assert_eq!(guest, GUEST_PROJECT);
        let crafted = member
            .options
            .wit_options(&guest, None, None, member.options.clock());
        let instance = group.live.as_mut().unwrap();
        // One deadline for the few calls below.
        instance.arm();
        let store = instance.bindings.agent_memory_store();
        // Opening creates nothing, so it succeeds: the guest can see there.
        let handle = store
            .memory()
            .call_open(&mut instance.store, &crafted)
            .unwrap()
            .unwrap();
        let read = store
            .memory()
            .call_read(&mut instance.store, handle, wit::ReadSource::LongTerm, None)
            .unwrap()
            .unwrap();
        assert_eq!(read.as_deref(), Some("- the project's own file\n"));
        let mut failures = Vec::new();
        for (target, name) in [
            (wit::WriteTarget::LongTerm, None),
            (wit::WriteTarget::Note, Some("n")),
            (wit::WriteTarget::Daily, None),
        ] {
            for mode in [wit::WriteMode::Overwrite, wit::WriteMode::Append] {
                let result = store
                    .memory()
                    .call_write(&mut instance.store, handle, target, "x", mode, name)
                    .unwrap();
                failures.push(result.expect_err("a write through the read-only preopen"));
            }
        }
        let result = store
            .memory()
            .call_append_daily(&mut instance.store, handle, "h", "b")
            .unwrap();
        failures.push(result.expect_err("an append through the read-only preopen"));
        for failure in &failures {
            // The lock file is the first thing a write creates: refused by
            // the filesystem, which the store reports as an I/O failure.
            assert!(
                matches!(failure.kind, wit::ErrorKind::Io),
                "{:?}: {}",
                failure.kind,
                failure.message
            );
            assert!(
                failure.message.contains("lock"),
                "{:?}: {}",
                failure.kind,
                failure.message
            );
        }
        assert_eq!(tree(&project), before);
        // The memory opened as the library means it still works.
        drop(group);
        let mut memory = memory;
        memory
            .write(
                WriteTarget::Note,
                "see src/auth.rs",
                WriteMode::Overwrite,
                Some("auth"),
            )
            .unwrap();
        fs::write(project.join("src/auth.rs"), "pub fn login(u: &str) {}\n").unwrap();
        assert_eq!(
            memory
                .read(ReadSource::Note, Some("auth"))
                .unwrap()
                .unwrap(),
            "see src/auth.rs\n\nstale: src/auth.rs changed since 2026-05-30"
        );
    }
}
