//! What the command line adds to the typed methods for a person: one
//! spelling of each word (both `long_term` and `long-term` accepted), and
//! the refusal of a write over the cap unless `--truncate` asks for a cut.

use std::path::Path;

use agent_memory::Memory;
use anyhow::{Result, bail};
use clap::ValueEnum;

/// What `read` reads: a file, or `list` for all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Source {
    /// MEMORY.md, shared by every project
    #[value(name = "long_term", alias = "long-term")]
    LongTerm,
    /// The project's SCRATCHPAD.md
    Scratchpad,
    /// A daily log (today, or the date given as the name)
    Daily,
    /// A note (needs a name)
    Note,
    /// Every memory file this project sees, with sizes
    List,
}

impl Source {
    /// The word the `memory_read` tool takes for it.
    pub(crate) fn tool_word(self) -> &'static str {
        match self {
            Source::LongTerm => agent_memory::ReadSource::LongTerm.tool_word(),
            Source::Scratchpad => agent_memory::ReadSource::Scratchpad.tool_word(),
            Source::Daily => agent_memory::ReadSource::Daily.tool_word(),
            Source::Note => agent_memory::ReadSource::Note.tool_word(),
            Source::List => "list",
        }
    }
}

/// Refuse `content` when it is over the memory's write cap: a person piping
/// a file expects all of it stored or none (a model's tool call gets the
/// cut and its receipt instead; `write --truncate` asks for that here). The
/// cap counts the content as the store does, without its trailing line
/// breaks (`wit/store.wit`): a file piped in is never refused for its
/// final newline.
pub(crate) fn refuse_over_cap(memory: &mut Memory, content: &str) -> Result<()> {
    let cap = memory.limits()?.max_write_bytes;
    let counted = agent_memory_vocab::without_line_ends(content).len();
    if counted > cap as usize {
        bail!(
            "refused: the content is {counted} bytes (not counting its final newline), over the {cap}-byte write cap; nothing was written. Split it into several writes (notes hold reference material), or pass --truncate to store the first {cap} bytes",
        );
    }
    Ok(())
}

/// What a read-only command says on a root that does not exist: nothing is
/// created, and the first write will create it. On standard error, so that
/// `context` still prints no block.
pub(crate) fn no_root(root: &Path) -> Result<()> {
    eprintln!(
        "no memory at {}: the root does not exist, so there is nothing to show and nothing was created; check --root (or AGENT_MEMORY_DIR), or write something to create it",
        root.display()
    );
    Ok(())
}

/// Say that a command created the memory root (it did not exist before).
pub(crate) fn created_root(root: &Path) {
    if root.exists() {
        eprintln!("created a new memory root at {}", root.display());
    }
}
