//! A [wasmtime] host for the `agent:memory` WebAssembly component: persistent,
//! plain-Markdown memory for coding agents, sandboxed to one directory.
//!
//! The component (built from `guest/` and embedded in this crate) holds all the
//! memory logic. This crate compiles it once ([`Runtime`]), then gives each
//! memory root its own instance ([`Memory`]) whose only view of the host
//! filesystem is that root, preopened as the guest path `/`. The component has
//! no environment variables, no arguments, no network and no other
//! directories.
//!
//! # Examples
//!
//! ```no_run
//! use agent_memory::{OpenOptions, Runtime, WriteMode, WriteTarget};
//!
//! # fn main() -> Result<(), agent_memory::Error> {
//! let runtime = Runtime::shared()?;
//! let project = agent_memory::detect_project(std::env::current_dir().unwrap());
//! let mut memory = runtime.open(OpenOptions::new(agent_memory::default_root(), project))?;
//!
//! memory.write(WriteTarget::LongTerm, "- deploys go through `make ship`", WriteMode::Append, None)?;
//! if let Some(block) = memory.context_block()? {
//!     let system_prompt = memory.append_memory_block("You are a coding agent.", Some(&block))?;
//!     println!("{system_prompt}");
//! }
//! // Hand the tools to the model, then execute its calls:
//! let tools = memory.tool_definitions(agent_memory::ToolSet::Full)?;
//! let reply = memory.call_tool("memory_search", r#"{"query":"deploy"}"#)?;
//! # let _ = (tools, reply);
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod bindings;
mod cache;
mod engine_config;
mod error;
#[cfg(all(feature = "faults", unix))]
pub mod faults;
mod memory;
mod options;
mod project;
#[cfg(unix)]
mod readdir;
mod root;
mod runtime;
mod types;

pub use agent_memory_vocab::{os_advice, os_cause};
pub use error::{Error, ErrorKind, Limit, MemoryError};
pub use memory::{Memory, base_sha256};
pub use memory::{NativeModel, SemanticStatus};
pub use options::{DEFAULT_CALL_TIMEOUT, DEFAULT_MAX_MEMORY_BYTES, OpenOptions, TEAM_DIR_NAME};
pub use project::{default_root, detect_checkout, detect_project};
pub use root::{
    Disabled, ENV_CONFIG, ENV_DIR, ENV_DISABLE, RootChoice, RootError, RootErrorKind, RootResolver,
    RootRule, resolve_root,
};
pub use runtime::{CodeOrigin, Runtime};
pub use types::{
    Audience, Budget, DeleteReceipt, EditReceipt, FileInfo, ImportItem, ImportOutcome,
    ImportReceipt, ImportSetReceipt, Limits, PurgeReceipt, Reach, ReadSource, RenameReceipt, Scope,
    SearchHit, SearchMode, SearchResults, SecretPolicy, SnapshotInfo, StoredSecret, TermCount,
    ToolDefinition, ToolSet, WriteMode, WriteReceipt, WriteTarget,
};
pub use types::{BatchChange, BatchReceipt, ClearReceipt, ClearTarget, PendingChange};

/// The memory component embedded in this crate, as built from `guest/component`
/// for `wasm32-wasip2`. Other hosts (Python, JavaScript) can load these bytes
/// too; [`Runtime::new`] compiles them.
pub static COMPONENT_WASM: &[u8] = include_bytes!(env!("AGENT_MEMORY_COMPONENT_WASM"));

/// The SHA-256 of [`COMPONENT_WASM`] in lowercase hex, computed by
/// host/build.rs: names the component in the compiled-component cache without
/// hashing a megabyte on every start.
pub(crate) const COMPONENT_SHA256: &str = env!("AGENT_MEMORY_COMPONENT_SHA256");

/// [`COMPONENT_WASM`] compiled by host/build.rs for the machine that built
/// this crate, with the runtime's engine settings; empty unless the crate
/// was built with the `precompile` feature (and not for another machine, nor
/// with `AGENT_MEMORY_PRECOMPILE=0`). wasmtime checks that this machine and
/// engine can run it before using it.
pub(crate) static COMPONENT_CWASM: &[u8] = include_bytes!(env!("AGENT_MEMORY_COMPONENT_CWASM"));
