//! [`Memory`]: one instance of the component, confined to one memory root.

use std::fs;
use std::path::{Path, PathBuf};

use wasmtime::Store;
use wasmtime_wasi::FsPerms;

use crate::bindings::{AgentMemory, AgentMemoryPre, HostState, wit};
use crate::error::{Error, MemoryError};
use crate::options::{OpenOptions, local_offset_minutes};
use crate::runtime::{Instance, Limits, sandbox};
use crate::types::{
    FileInfo, ReadSource, SearchResults, ToolDefinition, WriteMode, WriteReceipt, WriteTarget,
};

/// An open memory: one store and instance of the component, which sees only
/// the memory root (as its `/`). Made by [`Runtime::open`](crate::Runtime::open).
///
/// Every operation takes `&mut self`; a `Memory` is `Send`, so move it to the
/// thread that uses it or put it behind a mutex. Several `Memory` values, in
/// one process or many, may share a root: the component serializes writes.
///
/// # Errors and traps
///
/// Operations fail with [`Error::Memory`] when the memory refuses (bad input,
/// a missing note, the filesystem said no); the instance stays usable. If the
/// component traps the operation fails with [`Error::Trap`], and if it runs
/// into the memory cap or the call timeout of its [`OpenOptions`] with
/// [`Error::Limit`]; either way the instance is dropped, and the next
/// operation first starts a fresh instance with the same options.
///
/// # Clock
///
/// Unless the clock was pinned with [`OpenOptions::now`] or
/// [`OpenOptions::utc_offset_minutes`], the system's local UTC offset is
/// re-read before each operation and passed to the component when it changed
/// (daylight saving time), so dates stay local.
pub struct Memory {
    pre: AgentMemoryPre<HostState>,
    options: OpenOptions,
    opened: wit::Opened,
    live: Option<Live>,
}

struct Live {
    instance: Instance,
    utc_offset_minutes: i32,
}

impl Memory {
    pub(crate) fn open(
        pre: AgentMemoryPre<HostState>,
        mut options: OpenOptions,
    ) -> Result<Self, Error> {
        options.root = prepare_root(&options.root, options.create_root)?;
        let (live, opened) = start(&pre, &options)?;
        Ok(Memory {
            pre,
            options,
            opened,
            live: Some(live),
        })
    }

    /// The memory root: canonical, and the only directory the component sees.
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
        &self.opened.project_slug
    }

    /// The project's directory relative to the root: `projects/<slug>`.
    pub fn project_dir(&self) -> &str {
        &self.opened.project_dir
    }

    /// Today's local date, `YYYY-MM-DD`, as of when the instance was (last)
    /// opened.
    pub fn today(&self) -> &str {
        &self.opened.today
    }

    /// The options this memory was opened with (the root canonicalized).
    pub fn options(&self) -> &OpenOptions {
        &self.options
    }

    /// Stores content in a memory file.
    ///
    /// [`WriteMode::Append`] adds a `\n` first when the file does not end with
    /// one; [`WriteMode::Overwrite`] replaces the file atomically. Content over
    /// the write cap (64 KiB) is cut at a UTF-8 boundary and the receipt says
    /// so. `name` is the note name for [`WriteTarget::Note`] and ignored
    /// otherwise.
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
        self.call("write", |store, b| {
            b.agent_memory_memory()
                .call_write(store, target.into(), content, mode.into(), name)
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
        self.call("read", |store, b| {
            b.agent_memory_memory()
                .call_read(store, source.into(), name)
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
        self.call("list-files", |store, b| {
            b.agent_memory_memory().call_list_files(store)
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
        self.call("append-daily", |store, b| {
            b.agent_memory_memory()
                .call_append_daily(store, heading, body)
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
        self.call("search", |store, b| {
            b.agent_memory_memory().call_search(store, query)
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
        self.call("render-search", |store, b| {
            b.agent_memory_memory()
                .call_render_search(store, &results, max_bytes)
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
        self.call("context-block", |store, b| {
            b.agent_memory_memory().call_context_block(store)
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
        self.call("flush-compaction", |store, b| {
            b.agent_memory_memory()
                .call_flush_compaction(store, summary, message_count)
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
    pub fn tool_definitions(&mut self) -> Result<Vec<ToolDefinition>, Error> {
        self.call("tool-definitions", |store, b| {
            b.agent_memory_tools().call_tool_definitions(store)
        })
        .map(|tools| tools.into_iter().map(Into::into).collect())
    }

    /// The system-prompt text that tells a model how to use the tools.
    ///
    /// # Errors
    ///
    /// [`Error::Trap`] only.
    pub fn usage_prompt(&mut self) -> Result<String, Error> {
        self.call("usage-prompt", |store, b| {
            b.agent_memory_tools().call_usage_prompt(store)
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
        self.call("call-tool", |store, b| {
            b.agent_memory_tools()
                .call_call_tool(store, name, arguments)
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
        self.call("estimate-tokens", |store, b| {
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
        self.call("effective-reserve", |store, b| {
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
        self.call("append-memory-block", |store, b| {
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
        self.call("compaction-heading", |store, b| {
            b.agent_memory_prompt()
                .call_compaction_heading(store, message_count)
        })
    }

    /// Runs one exported function: restarts the instance if a trap killed
    /// it, follows the local offset, and drops the instance if `call` traps.
    fn call<R>(
        &mut self,
        operation: &'static str,
        call: impl FnOnce(&mut Store<HostState>, &AgentMemory) -> wasmtime::Result<R>,
    ) -> Result<R, Error> {
        let live = self.live()?;
        live.instance.arm();
        match call(&mut live.instance.store, &live.instance.bindings) {
            Ok(value) => Ok(value),
            Err(e) => {
                let error = live.instance.failure(operation, e);
                // After a trap wasmtime refuses to enter the instance again.
                self.live = None;
                Err(error)
            }
        }
    }

    fn live(&mut self) -> Result<&mut Live, Error> {
        if self.live.is_none() {
            let (live, opened) = start(&self.pre, &self.options)?;
            self.opened = opened;
            self.live = Some(live);
        }
        if self.options.follows_local_offset() {
            self.follow_local_offset()?;
        }
        Ok(self
            .live
            .as_mut()
            .expect("the instance is started above and kept unless an error is returned"))
    }

    /// Hands the component the system's local offset when it changed (DST).
    fn follow_local_offset(&mut self) -> Result<(), Error> {
        let Some(live) = self.live.as_mut() else {
            return Ok(());
        };
        let offset = local_offset_minutes();
        if offset == live.utc_offset_minutes {
            return Ok(());
        }
        let clock = wit::Clock {
            utc_offset_minutes: offset,
            fixed_unix_seconds: None,
        };
        live.instance.arm();
        let Instance { store, bindings } = &mut live.instance;
        match bindings.agent_memory_memory().call_set_clock(store, clock) {
            Ok(result) => {
                result.map_err(domain)?;
                live.utc_offset_minutes = offset;
                Ok(())
            }
            Err(e) => {
                let error = live.instance.failure("set-clock", e);
                self.live = None;
                Err(error)
            }
        }
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory")
            .field("root", &self.options.root)
            .field("project", &self.options.project)
            .field("project_slug", &self.opened.project_slug)
            .field("today", &self.opened.today)
            .field("live", &self.live.is_some())
            .finish_non_exhaustive()
    }
}

/// Starts an instance confined to the (canonical) root and opens it.
fn start(
    pre: &AgentMemoryPre<HostState>,
    options: &OpenOptions,
) -> Result<(Live, wit::Opened), Error> {
    let mut wasi = sandbox();
    wasi.preopened_dir(&options.root, "/", FsPerms::ReadWrite)
        .map_err(|e| {
            Error::setup_wasmtime(
                format!("cannot open the memory root `{}`", options.root.display()),
                e,
            )
        })?;
    if options.inherit_stderr {
        wasi.inherit_stderr();
    }
    let limits = Limits::new(options.max_memory_bytes, options.call_timeout);
    let mut instance = Instance::new(pre, wasi.build(), limits)?;

    let clock = options.clock();
    let utc_offset_minutes = clock.utc_offset_minutes;
    instance.arm();
    let opened = match instance
        .bindings
        .agent_memory_memory()
        .call_open(&mut instance.store, &options.wit_options(clock))
    {
        Ok(result) => result.map_err(domain)?,
        Err(e) => return Err(instance.failure("open", e)),
    };
    Ok((
        Live {
            instance,
            utc_offset_minutes,
        },
        opened,
    ))
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

fn domain(error: wit::Error) -> Error {
    Error::Memory(MemoryError::from(error))
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
