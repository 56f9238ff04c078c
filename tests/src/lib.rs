//! Harness of the behavioural suite: one [`Backend`] trait, implemented by the
//! native core ([`Native`]) and by the real component in wasmtime
//! ([`Component`]), so every case runs against both and must agree.

use std::path::Path;
use std::sync::Arc;

use agent_memory_core as core;
pub use core::{
    MAX_READ_BYTES, ReadSource, SearchHit, SearchMode, SearchResults, WriteMode, WriteTarget,
};

/// A pinned local time: Unix seconds and the UTC offset in minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    /// Seconds since the Unix epoch, UTC.
    pub unix: i64,
    /// Local offset, minutes east of UTC.
    pub offset_minutes: i32,
}

impl Now {
    /// `YYYY-MM-DDTHH:MM` local time at `offset_minutes`.
    pub fn local(date: &str, hh_mm: &str, offset_minutes: i32) -> Now {
        let d = core::names::daily_date(date).expect("test date");
        let days = d.to_days();
        let (h, m) = hh_mm.split_once(':').expect("HH:MM");
        let local =
            days * 86_400 + h.parse::<i64>().unwrap() * 3600 + m.parse::<i64>().unwrap() * 60;
        Now {
            unix: local - i64::from(offset_minutes) * 60,
            offset_minutes,
        }
    }

    /// The same wall-clock time `days` later (negative: earlier).
    pub fn plus_days(self, days: i64) -> Now {
        Now {
            unix: self.unix + days * 86_400,
            ..self
        }
    }
}

/// The default pinned time of the suite: Saturday 2026-05-30 09:15 at UTC+2.
pub fn default_now() -> Now {
    Now::local("2026-05-30", "09:15", 120)
}

/// An error as both backends report it: the kind's variant name and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The variant name, e.g. `InvalidName`.
    pub kind: String,
    /// The message.
    pub message: String,
}

/// A write's receipt as both backends report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteReceipt {
    /// Store-relative path written.
    pub path: String,
    /// Content bytes stored.
    pub bytes_written: u64,
    /// The original length when the content was cut.
    pub truncated_from: Option<u64>,
    /// Redactions, near-duplicates, history warnings.
    pub warnings: Vec<String>,
    /// The receipt's budget.
    pub budget: Budget,
    /// For the model.
    pub message: String,
}

/// A receipt's budget as both backends report it; `reach` is the WIT
/// spelling (`whole`, `partly`, `cut`, `not-injected`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// Lines of MEMORY.md.
    pub index_lines: u64,
    /// Its line limit.
    pub index_max_lines: u32,
    /// Bytes of MEMORY.md.
    pub index_bytes: u64,
    /// Its byte limit.
    pub index_max_bytes: u32,
    /// Bytes of the context block.
    pub block_bytes: u32,
    /// The block's cap.
    pub block_max_bytes: u32,
    /// Whether the write reaches the block.
    pub reach: &'static str,
    /// What to do when it does not.
    pub warning: Option<String>,
}

impl From<core::WriteReceipt> for WriteReceipt {
    fn from(r: core::WriteReceipt) -> Self {
        let b = r.budget;
        WriteReceipt {
            path: r.path,
            bytes_written: r.bytes_written,
            truncated_from: r.truncated_from,
            warnings: r.warnings,
            budget: Budget {
                index_lines: b.index_lines,
                index_max_lines: b.index_max_lines,
                index_bytes: b.index_bytes,
                index_max_bytes: b.index_max_bytes,
                block_bytes: b.block_bytes,
                block_max_bytes: b.block_max_bytes,
                reach: match b.reach {
                    core::Reach::Whole => "whole",
                    core::Reach::Partly => "partly",
                    core::Reach::Cut => "cut",
                    core::Reach::NotInjected => "not-injected",
                },
                warning: b.warning,
            },
            message: r.message,
        }
    }
}

/// Result of a backend call.
pub type Outcome<T> = Result<T, Failure>;

pub mod semantic_model;

/// Semantic recall's status as both backends report it, with the line
/// `agent-memory status` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SemanticStatus {
    /// A model is set.
    pub on: bool,
    /// Its name and the start of its weights' sha256.
    pub model: Option<String>,
    /// Chunks search covers.
    pub chunks: u64,
    /// Of those, chunks with a vector.
    pub ready: u64,
    /// Why recall is off, when it is.
    pub why_off: Option<String>,
    /// `semantic: on, …` or `semantic: off (…)`.
    pub line: String,
}

impl From<core::SemanticStatus> for SemanticStatus {
    fn from(s: core::SemanticStatus) -> Self {
        SemanticStatus {
            line: s.line(),
            on: s.on,
            model: s.model,
            chunks: s.chunks as u64,
            ready: s.ready as u64,
            why_off: s.why_off,
        }
    }
}

impl From<agent_memory::SemanticStatus> for SemanticStatus {
    fn from(s: agent_memory::SemanticStatus) -> Self {
        SemanticStatus {
            line: s.line(),
            on: s.on,
            model: s.model,
            chunks: u64::from(s.chunks),
            ready: u64::from(s.ready),
            why_off: s.why_off,
        }
    }
}

/// Size limits a case may override.
#[derive(Debug, Clone, Copy, Default)]
pub struct CapsOverride {
    /// Context block cap.
    pub max_inject_bytes: Option<u32>,
    /// Write cap.
    pub max_write_bytes: Option<u32>,
    /// Read cap.
    pub max_read_bytes: Option<u32>,
}

/// One implementation of the memory under test.
pub trait Backend: Sized {
    /// A label for failure messages.
    const NAME: &'static str;
    /// Open `root` for `project` at the pinned time.
    fn open(root: &Path, project: &str, now: Now, caps: CapsOverride) -> Outcome<Self> {
        Self::open_with(root, None, None, project, now, caps)
    }
    /// Open `root` with the team directory `team`, if any.
    fn open_team(
        root: &Path,
        team: Option<&Path>,
        project: &str,
        now: Now,
        caps: CapsOverride,
    ) -> Outcome<Self> {
        Self::open_with(root, team, None, project, now, caps)
    }
    /// [`Backend::open`] with staleness anchors against the project files
    /// in `files` (through the component: a read-only preopen).
    fn open_anchored(
        root: &Path,
        project: &str,
        now: Now,
        caps: CapsOverride,
        files: &Path,
    ) -> Outcome<Self> {
        Self::open_with(root, None, Some(files), project, now, caps)
    }
    /// Open `root` with the team directory `team` and the project files
    /// `files` for anchors, each if given.
    fn open_with(
        root: &Path,
        team: Option<&Path>,
        files: Option<&Path>,
        project: &str,
        now: Now,
        caps: CapsOverride,
    ) -> Outcome<Self>;
    /// `memory.list-files` as (path, staleness marks).
    fn list_stale(&mut self) -> Outcome<Vec<(String, Vec<String>)>>;
    /// The project slug.
    fn slug(&self) -> String;
    /// `memory.write`.
    fn write(
        &mut self,
        target: WriteTarget,
        content: &str,
        mode: WriteMode,
        name: Option<&str>,
    ) -> Outcome<WriteReceipt>;
    /// `memory.read`.
    fn read(&mut self, source: ReadSource, name: Option<&str>) -> Outcome<Option<String>>;
    /// `memory.list-files` as (path, bytes).
    fn list(&mut self) -> Outcome<Vec<(String, u64)>>;
    /// `memory.append-daily`.
    fn append_daily(&mut self, heading: &str, body: &str) -> Outcome<WriteReceipt>;
    /// `memory.search` in the seeds' `literal` mode.
    fn search(&mut self, query: &str) -> Outcome<SearchResults> {
        self.search_in(query, SearchMode::Literal)
    }
    /// `memory.search` in `mode`.
    fn search_in(&mut self, query: &str, mode: SearchMode) -> Outcome<SearchResults>;
    /// `memory.search` (literal) then `memory.render-search` on its results.
    fn search_render(&mut self, query: &str, max_bytes: Option<u32>) -> Outcome<String> {
        self.search_render_in(query, max_bytes, SearchMode::Literal)
    }
    /// `memory.search` in `mode` then `memory.render-search`.
    fn search_render_in(
        &mut self,
        query: &str,
        max_bytes: Option<u32>,
        mode: SearchMode,
    ) -> Outcome<String>;
    /// `memory.context-block`.
    fn context(&mut self) -> Outcome<Option<String>>;
    /// `memory.flush-compaction`.
    fn flush(&mut self, summary: &str, count: Option<u32>) -> Outcome<WriteReceipt>;
    /// `tools.call-tool`.
    fn call(&mut self, tool: &str, args: &str) -> Outcome<String>;
    /// `tools.tool-definitions` as (name, description, schema JSON).
    fn tools(&mut self) -> Vec<(String, String, String)>;
    /// `tools.usage-prompt`.
    fn usage_prompt(&mut self) -> String;
    /// `prompt.effective-reserve`.
    fn effective_reserve(&mut self, base: u64, block: Option<&str>) -> u64;
    /// `prompt.append-memory-block`.
    fn append_memory_block(&mut self, preamble: &str, block: Option<&str>) -> String;
    /// `prompt.estimate-tokens`.
    fn estimate_tokens(&mut self, text: &str) -> u64;
    /// `semantic.model.load` of a weights file's bytes, then
    /// `semantic.enable`.
    fn enable_semantic(&mut self, weights: &[u8]) -> Outcome<()>;
    /// `semantic.disable`.
    fn disable_semantic(&mut self, why: &str) -> Outcome<()>;
    /// `semantic.get-status`.
    fn semantic_status(&mut self) -> Outcome<SemanticStatus>;
    /// `semantic.index`.
    fn index_vectors(&mut self, limit: Option<u32>) -> Outcome<SemanticStatus>;
}

/// The core called directly.
pub struct Native(core::Memory);

thread_local! {
    static EMBEDDING_NOISE: std::cell::Cell<f32> = const { std::cell::Cell::new(0.0) };
}

/// Runs `f` with every vector the native backend's models embed on this
/// thread moved by up to `eps` in each component (then made unit length
/// again), the same for the same text: outcomes that survive it do not hang
/// on the last bits where native and wasm floating point differ.
pub fn with_embedding_noise<R>(eps: f32, f: impl FnOnce() -> R) -> R {
    EMBEDDING_NOISE.with(|n| n.set(eps));
    let result = f();
    EMBEDDING_NOISE.with(|n| n.set(0.0));
    result
}

/// A model whose vectors [`with_embedding_noise`] moves.
struct Noisy {
    inner: core::MiniLm,
    eps: f32,
}

impl core::Embed for Noisy {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn model_name(&self) -> &str {
        self.inner.model_name()
    }
    fn pieces(&self, text: &str) -> usize {
        self.inner.pieces(text)
    }
    fn embed(&self, text: &str) -> Option<Vec<f32>> {
        // FNV-1a of the text, then a step of a linear congruential
        // generator per component: fixed noise, in [-eps, eps).
        let mut state = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let mut v = self.inner.embed(text)?;
        for x in &mut v {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            *x += self.eps * (((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0);
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= norm);
        Some(v)
    }
}

fn native<T>(r: core::Result<T>) -> Outcome<T> {
    r.map_err(|e| Failure {
        kind: format!("{:?}", e.kind()),
        message: e.message().to_string(),
    })
}

impl Backend for Native {
    const NAME: &'static str = "native";

    fn open_with(
        root: &Path,
        team: Option<&Path>,
        files: Option<&Path>,
        project: &str,
        now: Now,
        caps: CapsOverride,
    ) -> Outcome<Self> {
        let d = core::Limits::default();
        let opts = core::Options {
            project: project.to_string(),
            clock: core::Clock {
                utc_offset_minutes: now.offset_minutes,
                fixed_unix_seconds: Some(now.unix),
            },
            limits: core::Limits {
                max_inject_bytes: caps
                    .max_inject_bytes
                    .map_or(d.max_inject_bytes, |v| v as usize),
                max_write_bytes: caps
                    .max_write_bytes
                    .map_or(d.max_write_bytes, |v| v as usize),
                max_read_bytes: caps.max_read_bytes.map_or(d.max_read_bytes, |v| v as usize),
                ..d
            },
            secrets: core::secrets::SecretPolicy::Block,
            source: String::new(),
            retention: core::Retention::default(),
            project_root: files.map(Path::to_path_buf),
            review: core::ReviewGate::default(),
        };
        let memory = native(core::Memory::open(root, opts))?;
        Ok(Native(match team {
            Some(team) => memory.with_team(team),
            None => memory,
        }))
    }
    fn list_stale(&mut self) -> Outcome<Vec<(String, Vec<String>)>> {
        native(self.0.list_files()).map(|v| {
            v.into_iter()
                .map(|f| (f.path, core::anchors::mark_lines(&f.stale)))
                .collect()
        })
    }
    fn slug(&self) -> String {
        self.0.slug().to_string()
    }
    fn write(
        &mut self,
        target: WriteTarget,
        content: &str,
        mode: WriteMode,
        name: Option<&str>,
    ) -> Outcome<WriteReceipt> {
        native(self.0.write(target, content, mode, name)).map(Into::into)
    }
    fn read(&mut self, source: ReadSource, name: Option<&str>) -> Outcome<Option<String>> {
        native(self.0.read(source, name))
    }
    fn list(&mut self) -> Outcome<Vec<(String, u64)>> {
        native(self.0.list_files()).map(|v| v.into_iter().map(|f| (f.path, f.bytes)).collect())
    }
    fn append_daily(&mut self, heading: &str, body: &str) -> Outcome<WriteReceipt> {
        native(self.0.append_daily(heading, body)).map(Into::into)
    }
    fn search_in(&mut self, query: &str, mode: SearchMode) -> Outcome<SearchResults> {
        native(self.0.search_with(query, mode))
    }
    fn search_render_in(
        &mut self,
        query: &str,
        max_bytes: Option<u32>,
        mode: SearchMode,
    ) -> Outcome<String> {
        let results = native(self.0.search_with(query, mode))?;
        Ok(results.render(max_bytes.map_or(self.0.limits().max_read_bytes, |m| m as usize)))
    }
    fn context(&mut self) -> Outcome<Option<String>> {
        native(self.0.context_block())
    }
    fn flush(&mut self, summary: &str, count: Option<u32>) -> Outcome<WriteReceipt> {
        native(self.0.flush_compaction(summary, count)).map(Into::into)
    }
    fn call(&mut self, tool: &str, args: &str) -> Outcome<String> {
        native(core::tools::call(&self.0, tool, args))
    }
    fn tools(&mut self) -> Vec<(String, String, String)> {
        core::tools::definitions(core::tools::ToolSet::Seed)
            .into_iter()
            .map(|d| {
                (
                    d.name.to_string(),
                    d.description.to_string(),
                    d.parameters.to_string(),
                )
            })
            .collect()
    }
    fn usage_prompt(&mut self) -> String {
        core::tools::USAGE_PROMPT.to_string()
    }
    fn effective_reserve(&mut self, base: u64, block: Option<&str>) -> u64 {
        core::prompt::effective_reserve(base, block)
    }
    fn append_memory_block(&mut self, preamble: &str, block: Option<&str>) -> String {
        core::prompt::append_memory_block(preamble, block)
    }
    fn estimate_tokens(&mut self, text: &str) -> u64 {
        core::prompt::estimate_tokens(text)
    }
    fn enable_semantic(&mut self, weights: &[u8]) -> Outcome<()> {
        let model = native(core::MiniLm::from_bytes(weights))?;
        let eps = EMBEDDING_NOISE.with(std::cell::Cell::get);
        if eps > 0.0 {
            self.0.set_embedder(Arc::new(Noisy { inner: model, eps }));
        } else {
            self.0.set_embedder(Arc::new(model));
        }
        Ok(())
    }
    fn disable_semantic(&mut self, why: &str) -> Outcome<()> {
        self.0.set_semantic_off(why);
        Ok(())
    }
    fn semantic_status(&mut self) -> Outcome<SemanticStatus> {
        Ok(self.0.semantic_status().into())
    }
    fn index_vectors(&mut self, limit: Option<u32>) -> Outcome<SemanticStatus> {
        native(
            self.0
                .index_vectors(limit.map(|l| l as usize), &mut |_, _| {}),
        )
        .map(Into::into)
    }
}

/// The real component, embedded in the host crate, run by wasmtime.
pub struct Component(agent_memory::Memory);

fn component<T>(r: Result<T, agent_memory::Error>) -> Outcome<T> {
    r.map_err(|e| match e.kind() {
        Some(kind) => Failure {
            kind: format!("{kind:?}"),
            message: memory_message(&e),
        },
        None => panic!("the component failed outside the memory's own errors: {e}"),
    })
}

fn memory_message(e: &agent_memory::Error) -> String {
    match e {
        agent_memory::Error::Memory(m) => m.message().to_string(),
        other => other.to_string(),
    }
}

fn host_receipt(r: agent_memory::WriteReceipt) -> WriteReceipt {
    let b = r.budget;
    WriteReceipt {
        path: r.path,
        bytes_written: r.bytes_written,
        truncated_from: r.truncated_from,
        warnings: r.warnings,
        budget: Budget {
            index_lines: b.index_lines,
            index_max_lines: b.index_max_lines,
            index_bytes: b.index_bytes,
            index_max_bytes: b.index_max_bytes,
            block_bytes: b.block_bytes,
            block_max_bytes: b.block_max_bytes,
            reach: match b.reach {
                agent_memory::Reach::Whole => "whole",
                agent_memory::Reach::Partly => "partly",
                agent_memory::Reach::Cut => "cut",
                agent_memory::Reach::NotInjected => "not-injected",
                _ => "unknown",
            },
            warning: b.warning,
        },
        message: r.message,
    }
}

/// Host search results as the core's type, for comparing backends.
pub fn core_results(r: agent_memory::SearchResults) -> SearchResults {
    SearchResults {
        terms: r
            .terms
            .into_iter()
            .map(|t| (t.term, t.count as usize))
            .collect(),
        hits: r
            .hits
            .into_iter()
            .map(|h| SearchHit {
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

impl Component {
    fn runtime() -> &'static agent_memory::Runtime {
        agent_memory::Runtime::shared().expect("the embedded component loads")
    }

    /// The host handle, for host-only checks.
    pub fn handle(&mut self) -> &mut agent_memory::Memory {
        &mut self.0
    }
}

impl Backend for Component {
    const NAME: &'static str = "component";

    fn open_with(
        root: &Path,
        team: Option<&Path>,
        files: Option<&Path>,
        project: &str,
        now: Now,
        caps: CapsOverride,
    ) -> Outcome<Self> {
        let mut opts =
            agent_memory::OpenOptions::new(root, project).fixed_clock(now.unix, now.offset_minutes);
        if let Some(v) = caps.max_inject_bytes {
            opts = opts.max_inject_bytes(v);
        }
        if let Some(v) = caps.max_write_bytes {
            opts = opts.max_write_bytes(v);
        }
        if let Some(v) = caps.max_read_bytes {
            opts = opts.max_read_bytes(v);
        }
        if let Some(team) = team {
            opts = opts.team_dir(team);
        }
        if let Some(files) = files {
            opts = opts.project_dir(files);
        }
        component(Self::runtime().open(opts)).map(Component)
    }
    fn list_stale(&mut self) -> Outcome<Vec<(String, Vec<String>)>> {
        component(self.0.list_files()).map(|v| v.into_iter().map(|f| (f.path, f.stale)).collect())
    }
    fn slug(&self) -> String {
        self.0.project_slug().to_string()
    }
    fn write(
        &mut self,
        target: WriteTarget,
        content: &str,
        mode: WriteMode,
        name: Option<&str>,
    ) -> Outcome<WriteReceipt> {
        // One vocabulary: the core's words are the host's.
        component(self.0.write(target, content, mode, name)).map(host_receipt)
    }
    fn read(&mut self, source: ReadSource, name: Option<&str>) -> Outcome<Option<String>> {
        component(self.0.read(source, name))
    }
    fn list(&mut self) -> Outcome<Vec<(String, u64)>> {
        component(self.0.list_files()).map(|v| v.into_iter().map(|f| (f.path, f.bytes)).collect())
    }
    fn append_daily(&mut self, heading: &str, body: &str) -> Outcome<WriteReceipt> {
        component(self.0.append_daily(heading, body)).map(host_receipt)
    }
    fn search_in(&mut self, query: &str, mode: SearchMode) -> Outcome<SearchResults> {
        component(self.0.search_with(query, mode)).map(core_results)
    }
    fn search_render_in(
        &mut self,
        query: &str,
        max_bytes: Option<u32>,
        mode: SearchMode,
    ) -> Outcome<String> {
        let results = component(self.0.search_with(query, mode))?;
        component(self.0.render_search(&results, max_bytes))
    }
    fn context(&mut self) -> Outcome<Option<String>> {
        component(self.0.context_block())
    }
    fn flush(&mut self, summary: &str, count: Option<u32>) -> Outcome<WriteReceipt> {
        component(self.0.flush_compaction(summary, count)).map(host_receipt)
    }
    fn call(&mut self, tool: &str, args: &str) -> Outcome<String> {
        component(self.0.call_tool(tool, args))
    }
    fn tools(&mut self) -> Vec<(String, String, String)> {
        self.0
            .tool_definitions(agent_memory::ToolSet::Seed)
            .expect("tool definitions")
            .into_iter()
            .map(|d| (d.name, d.description, d.parameters_schema))
            .collect()
    }
    fn usage_prompt(&mut self) -> String {
        self.0
            .usage_prompt(agent_memory::ToolSet::Seed)
            .expect("usage prompt")
    }
    fn effective_reserve(&mut self, base: u64, block: Option<&str>) -> u64 {
        self.0
            .effective_reserve(base, block)
            .expect("effective reserve")
    }
    fn append_memory_block(&mut self, preamble: &str, block: Option<&str>) -> String {
        self.0
            .append_memory_block(preamble, block)
            .expect("append memory block")
    }
    fn estimate_tokens(&mut self, text: &str) -> u64 {
        self.0.estimate_tokens(text).expect("estimate tokens")
    }
    fn enable_semantic(&mut self, weights: &[u8]) -> Outcome<()> {
        component(self.0.enable_semantic(Arc::new(weights.to_vec())))
    }
    fn disable_semantic(&mut self, why: &str) -> Outcome<()> {
        component(self.0.disable_semantic(why))
    }
    fn semantic_status(&mut self) -> Outcome<SemanticStatus> {
        component(self.0.semantic_status()).map(Into::into)
    }
    fn index_vectors(&mut self, limit: Option<u32>) -> Outcome<SemanticStatus> {
        component(self.0.index_vectors(limit)).map(Into::into)
    }
}

/// A temporary memory root and the project path cases use by default.
pub struct Fixture {
    /// The temporary root; removed on drop.
    pub dir: tempfile::TempDir,
}

/// The default project path of the suite.
pub const PROJECT: &str = "/home/dev/src/my-app";

impl Fixture {
    /// A fresh empty root.
    pub fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// The root path.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Open `B` on this root for [`PROJECT`] at [`default_now`].
    pub fn open<B: Backend>(&self) -> B {
        self.open_at::<B>(PROJECT, default_now())
    }

    /// Open `B` for `project` at `now`.
    pub fn open_at<B: Backend>(&self, project: &str, now: Now) -> B {
        B::open(self.root(), project, now, CapsOverride::default()).expect("open")
    }

    /// Open `B` with overridden caps.
    pub fn open_capped<B: Backend>(&self, caps: CapsOverride) -> B {
        B::open(self.root(), PROJECT, default_now(), caps).expect("open")
    }

    /// Write a file under the root directly, as a user or another tool would.
    pub fn put(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    /// A file's bytes, `None` when missing.
    pub fn get(&self, rel: &str) -> Option<Vec<u8>> {
        std::fs::read(self.root().join(rel)).ok()
    }

    /// A file's text; panics when missing.
    pub fn text(&self, rel: &str) -> String {
        String::from_utf8(self.get(rel).unwrap_or_else(|| panic!("{rel} missing"))).unwrap()
    }

    /// Every file under the root, relative, sorted.
    pub fn tree(&self) -> Vec<String> {
        fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(base, &p, out);
                } else {
                    out.push(
                        p.strip_prefix(base)
                            .unwrap()
                            .to_string_lossy()
                            .replace('\\', "/"),
                    );
                }
            }
        }
        let mut out = Vec::new();
        walk(self.root(), self.root(), &mut out);
        out.sort();
        out
    }
}

impl Default for Fixture {
    fn default() -> Self {
        Fixture::new()
    }
}

/// The slug of [`PROJECT`].
pub fn project_dir() -> String {
    format!("projects/{}", core::names::project_slug(PROJECT))
}
