//! The agent:memory component: a thin adapter from the WIT exports to
//! `agent-memory-core`. The host preopens the memory root as `/`.

use std::cell::RefCell;

use agent_memory_core as core;

mod bindings {
    wit_bindgen::generate!({
        path: "../../wit",
        world: "agent-memory",
    });
}

use bindings::exports::agent::memory::{memory, prompt, tools, types};

struct Component;

thread_local! {
    static STORE: RefCell<Option<core::Memory>> = const { RefCell::new(None) };
}

fn with_store<T>(f: impl FnOnce(&core::Memory) -> core::Result<T>) -> Result<T, types::Error> {
    STORE.with_borrow(|store| match store {
        Some(m) => f(m).map_err(Into::into),
        None => Err(types::Error {
            kind: types::ErrorKind::NotOpen,
            message: "the memory is not open: call open first".into(),
        }),
    })
}

impl From<core::Error> for types::Error {
    fn from(e: core::Error) -> Self {
        use core::ErrorKind as K;
        use types::ErrorKind as W;
        let kind = match e.kind() {
            K::NotOpen => W::NotOpen,
            K::InvalidOptions => W::InvalidOptions,
            K::InvalidTarget => W::InvalidTarget,
            K::InvalidMode => W::InvalidMode,
            K::MissingName => W::MissingName,
            K::InvalidName => W::InvalidName,
            K::InvalidDate => W::InvalidDate,
            K::InvalidArguments => W::InvalidArguments,
            K::UnknownTool => W::UnknownTool,
            K::NotFound => W::NotFound,
            K::NotAFile => W::NotAFile,
            K::Busy => W::Busy,
            _ => W::Io,
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

impl From<types::WriteTarget> for core::WriteTarget {
    fn from(t: types::WriteTarget) -> Self {
        match t {
            types::WriteTarget::LongTerm => core::WriteTarget::LongTerm,
            types::WriteTarget::Scratchpad => core::WriteTarget::Scratchpad,
            types::WriteTarget::Daily => core::WriteTarget::Daily,
            types::WriteTarget::Note => core::WriteTarget::Note,
        }
    }
}

impl From<types::ReadSource> for core::ReadSource {
    fn from(s: types::ReadSource) -> Self {
        match s {
            types::ReadSource::LongTerm => core::ReadSource::LongTerm,
            types::ReadSource::Scratchpad => core::ReadSource::Scratchpad,
            types::ReadSource::Daily => core::ReadSource::Daily,
            types::ReadSource::Note => core::ReadSource::Note,
        }
    }
}

impl From<core::WriteReceipt> for types::WriteReceipt {
    fn from(r: core::WriteReceipt) -> Self {
        types::WriteReceipt {
            path: r.path,
            bytes_written: r.bytes_written,
            truncated_from: r.truncated_from,
            message: r.message,
        }
    }
}

fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
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

fn caps(c: types::Caps) -> core::Caps {
    let d = core::Caps::default();
    let pick = |v: Option<u32>, default: usize| v.map_or(default, |v| v as usize);
    core::Caps {
        max_inject_bytes: pick(c.max_inject_bytes, d.max_inject_bytes),
        max_write_bytes: pick(c.max_write_bytes, d.max_write_bytes),
        max_read_bytes: pick(c.max_read_bytes, d.max_read_bytes),
    }
}

impl memory::Guest for Component {
    fn open(options: types::Options) -> Result<types::Opened, types::Error> {
        let opts = core::Options {
            project: options.project,
            clock: options.clock.into(),
            caps: caps(options.caps),
            source: String::new(),
            retention: core::Retention::default(),
        };
        let m = core::Memory::open("/", opts)?;
        let opened = types::Opened {
            project_slug: m.slug().to_string(),
            project_dir: m.project_dir(),
            today: m.today().to_string(),
        };
        STORE.with_borrow_mut(|s| *s = Some(m));
        Ok(opened)
    }

    fn set_clock(clock: types::Clock) -> Result<(), types::Error> {
        STORE.with_borrow_mut(|s| match s {
            Some(m) => m.set_clock(clock.into()).map_err(Into::into),
            None => with_store(|_| Ok(())),
        })
    }

    fn write(
        target: types::WriteTarget,
        content: String,
        mode: types::WriteMode,
        name: Option<String>,
    ) -> Result<types::WriteReceipt, types::Error> {
        let mode = match mode {
            types::WriteMode::Append => core::WriteMode::Append,
            types::WriteMode::Overwrite => core::WriteMode::Overwrite,
        };
        with_store(|m| m.write(target.into(), &content, mode, name.as_deref())).map(Into::into)
    }

    fn read(
        source: types::ReadSource,
        name: Option<String>,
    ) -> Result<Option<String>, types::Error> {
        with_store(|m| m.read(source.into(), name.as_deref()))
    }

    fn list_files() -> Result<Vec<types::FileInfo>, types::Error> {
        with_store(|m| m.list_files()).map(|files| {
            files
                .into_iter()
                .map(|f| types::FileInfo {
                    path: f.path,
                    bytes: f.bytes,
                })
                .collect()
        })
    }

    fn append_daily(heading: String, body: String) -> Result<types::WriteReceipt, types::Error> {
        with_store(|m| m.append_daily(&heading, &body)).map(Into::into)
    }

    fn search(query: String) -> Result<types::SearchResults, types::Error> {
        with_store(|m| m.search(&query)).map(Into::into)
    }

    fn render_search(results: types::SearchResults, max_bytes: Option<u32>) -> String {
        let default = STORE.with_borrow(|s| {
            s.as_ref()
                .map_or(core::MAX_READ_BYTES, |m| m.caps().max_read_bytes)
        });
        let max = max_bytes.map_or(default, |n| n as usize);
        core::SearchResults::from(results).render(max)
    }

    fn context_block() -> Result<Option<String>, types::Error> {
        with_store(|m| m.context_block())
    }

    fn flush_compaction(
        summary: String,
        message_count: Option<u32>,
    ) -> Result<types::WriteReceipt, types::Error> {
        with_store(|m| m.flush_compaction(&summary, message_count)).map(Into::into)
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
    fn tool_definitions() -> Vec<types::ToolDefinition> {
        core::tools::definitions()
            .into_iter()
            .map(|d| types::ToolDefinition {
                name: d.name.into(),
                description: d.description.into(),
                parameters_schema: d.parameters.to_string(),
            })
            .collect()
    }

    fn usage_prompt() -> String {
        core::tools::USAGE_PROMPT.to_string()
    }

    fn call_tool(name: String, arguments: String) -> Result<String, types::Error> {
        with_store(|m| core::tools::call(m, &name, &arguments))
    }
}

bindings::export!(Component with_types_in bindings);
