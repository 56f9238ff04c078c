//! What the command line adds to the typed methods for a person: one
//! spelling of each word (both `long_term` and `long-term` accepted), and
//! the refusal of a write over the cap unless `--truncate` asks for a cut,
//! and a root that does not exist left uncreated by what only reads.

use std::path::Path;

use agent_memory::{Memory, RootChoice};
use anyhow::{Result, bail};
use clap::ValueEnum;

use crate::Command;

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

/// What a command does on a root that does not exist, before anything
/// opens it (opening makes the root): `None` for a command that writes,
/// which goes on and creates it. A read-only command creates nothing and
/// says so: on standard error, so that `context` still prints no block,
/// and silently for a hook, where a new user's first session is no error.
/// A command that would change what is not there (`undo`, `restore`,
/// `rename`) fails. `context` and the session-start hook of a project with
/// a team snapshot go on: they start from it. So do `status` and an
/// import's dry run, which the caller runs on an empty stand-in root.
pub(crate) fn missing_root(
    command: &Command,
    choice: &RootChoice,
    snapshot: bool,
) -> Option<Result<()>> {
    let root = &choice.root;
    match command {
        Command::Context | Command::Hook { .. } if snapshot => None,
        Command::Hook { event, .. } => {
            (*event == crate::hook::Event::SessionStart).then_some(Ok(()))
        }
        // Status, and a dry run of an import, see an empty stand-in.
        Command::Status | Command::Import { .. } => None,
        Command::Context
        | Command::Search { .. }
        | Command::Read { .. }
        | Command::List
        | Command::History { .. }
        | Command::Export { .. }
        | Command::Scan { .. }
        | Command::Review { .. }
        | Command::Dream
        | Command::Index { .. }
        | Command::Delete { .. }
        | Command::Clear { .. } => {
            eprintln!("{}", no_root_text(root));
            Some(Ok(()))
        }
        Command::Undo | Command::Restore { .. } | Command::Rename { .. } => {
            Some(Err(anyhow::anyhow!("{}", no_root_text(root))))
        }
        _ => None,
    }
}

/// The sentence for a root that does not exist: nothing is there, nothing
/// was made, and the command that makes it.
pub(crate) fn no_root_text(root: &Path) -> String {
    format!(
        "no memory at {}: the root does not exist, and nothing was created. Check --root (or AGENT_MEMORY_DIR) for a typo; the first write creates the root, e.g. `agent-memory write long_term \"- a first fact\"`",
        root.display()
    )
}

/// Say that a command created the memory root (it did not exist before).
pub(crate) fn created_root(root: &Path) {
    if root.exists() {
        eprintln!("created a new memory root at {}", root.display());
    }
}
