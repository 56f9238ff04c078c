//! The memory logic of agent-memory: plain Markdown files under one root,
//! a capped `<memory>` block for the prompt, ranked keyword search, and the
//! model tools. Everything goes through `std::fs` on paths under the root, so
//! the same code runs natively and inside the WebAssembly component, where
//! the root is the one directory the host preopened.
#![deny(missing_docs)]

pub mod anchors;
pub mod anthropic;
mod args;
pub mod budget;
pub mod context;
pub mod dupes;
mod error;
mod fsio;
pub mod history;
mod index;
mod layout;
pub mod limits;
mod listing;
pub mod names;
pub mod prompt;
pub mod rank;
pub mod review;
pub mod search;
pub mod secrets;
pub mod semantic;
mod store;
pub mod text;
pub mod time;
pub mod tools;
pub mod words;

pub use agent_memory_vocab::Scope;
pub use anchors::{Change, RefreshReceipt, Stale};
pub use budget::{Budget, Reach};
pub use error::{Error, ErrorKind, Result};
pub use history::{Operation, Purged, Retention, Version};
pub use limits::{
    Limits, MAX_INJECT_BYTES, MAX_READ_BYTES, MAX_SEARCH_FILE_BYTES, MAX_WRITE_BYTES,
    MIN_OUTPUT_CAP,
};
pub use rank::SearchMode;
pub use review::{Decision, Pending, ReviewGate};
pub use search::{SearchHit, SearchResults};
pub use semantic::{Embed, Hosted, MiniLm, PendingChunks, SemanticStatus};
pub use store::conflict_line;
pub use store::{
    BatchChange, BatchReceipt, CONSOLIDATION_REASON, ClearReceipt, ClearTarget, DREAM_SOURCE,
    DUE_AFTER_LOG_DAYS, DUE_AT_INDEX_PERCENT, MAX_BATCH_BYTES, MAX_BATCH_CHANGES, MAX_PLAN_BYTES,
    MAX_REASON_BYTES,
};
pub use store::{
    DeleteReceipt, EditReceipt, FileInfo, ImportItem, ImportOutcome, ImportReceipt,
    ImportSetReceipt, MAX_IMPORT_BYTES, MAX_IMPORT_FILES, Memory, Options, ReadSource,
    RenameReceipt, SnapshotInfo, StoredSecret, TEAM_PREFIX, WriteMode, WriteReceipt, WriteTarget,
    query_text, search_mode, secret_policy, write_mode, write_target,
};
pub use time::{Clock, Date, LocalTime};
