//! The memory logic of agent-memory: plain Markdown files under one root,
//! a capped `<memory>` block for the prompt, ranked keyword search, and the
//! model tools. Everything goes through `std::fs` on paths under the root, so
//! the same code runs natively and inside the WebAssembly component, where
//! the root is the one directory the host preopened.
#![deny(missing_docs)]

pub mod context;
mod error;
mod fsio;
pub mod history;
pub mod names;
pub mod prompt;
pub mod search;
mod store;
pub mod text;
pub mod time;
pub mod tools;

pub use error::{Error, ErrorKind, Result};
pub use history::{Operation, Retention, Version};
pub use search::{SearchHit, SearchResults};
pub use store::{
    Caps, FileInfo, MAX_INJECT_BYTES, MAX_READ_BYTES, MAX_SEARCH_FILE_BYTES, MAX_WRITE_BYTES,
    MIN_OUTPUT_CAP, Memory, Options, ReadSource, WriteMode, WriteReceipt, WriteTarget,
};
pub use time::{Clock, Date, LocalTime};
