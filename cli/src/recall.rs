//! Semantic recall in the CLI: where the weights file is, when to hand it
//! to the memory, and `agent-memory index` with its progress line.
//!
//! Nothing is downloaded at run time: the weights come from
//! `AGENT_MEMORY_WEIGHTS`, else
//! `<data dir>/agent-memory-models/all-minilm-l6-v2.int8.safetensors`,
//! which `agent-memory model install` writes (docs/recall.md).

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::Arc;

use agent_memory::{Memory, NativeModel};
use anyhow::Result;

/// The environment variable naming the weights file.
pub const ENV_WEIGHTS: &str = "AGENT_MEMORY_WEIGHTS";
/// The weights file's name.
pub const WEIGHTS_FILE: &str = "all-minilm-l6-v2.int8.safetensors";
/// Chunks embedded per call of `index`: about 2 s in the component, so
/// the progress line moves and no call nears the timeout.
const ROUND: u32 = 16;
/// Most chunks a one-shot search embeds natively before it answers, as a
/// search with the model in the component does (the core's default
/// search budget); with more missing it answers with the indexing note.
const CATCH_UP: u32 = 16;

/// Where the weights are looked for: [`ENV_WEIGHTS`], else [`installed_path`].
pub fn weights_path() -> PathBuf {
    match std::env::var_os(ENV_WEIGHTS) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => installed_path(),
    }
}

/// Whether [`ENV_WEIGHTS`] names the weights file.
pub fn weights_from_env() -> bool {
    std::env::var_os(ENV_WEIGHTS).is_some_and(|p| !p.is_empty())
}

/// Where `agent-memory model install` puts the weights: the data directory.
pub fn installed_path() -> PathBuf {
    dirs::data_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("agent-memory-models")
        .join(WEIGHTS_FILE)
}

/// For the person (the dashboard): which weights file search uses, or how
/// to install one.
pub fn model_line() -> String {
    let path = weights_path();
    match (path.is_file(), weights_from_env()) {
        (true, _) => format!("model at {}", path.display()),
        (false, true) => format!(
            "off: no weights at {} (named by {ENV_WEIGHTS})",
            path.display()
        ),
        (false, false) => "off: no model installed; run `agent-memory model install`".to_owned(),
    }
}

/// Turn semantic recall on for `memory` when `on` and the weights are
/// found; otherwise off, saying why. Never fails the command: a refused
/// weights file leaves recall off with the reason.
pub fn setup(memory: &mut Memory, on: bool) -> Result<()> {
    if !on {
        memory.disable_semantic("turned off (--semantic off or AGENT_MEMORY_SEMANTIC=off)")?;
        return Ok(());
    }
    let path = weights_path();
    match std::fs::read(&path) {
        Ok(bytes) => {
            if let Err(e) = memory.enable_semantic(Arc::new(bytes)) {
                memory.disable_semantic(&format!(
                    "the weights file `{}` was refused: {e}",
                    path.display()
                ))?;
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !weights_from_env() => {
            memory.disable_semantic("no model installed; run `agent-memory model install`")?;
        }
        Err(e) if weights_from_env() => memory.disable_semantic(&format!(
            "cannot read the weights at `{}`, named by {ENV_WEIGHTS} ({})",
            path.display(),
            agent_memory::os_cause(&e)
        ))?,
        Err(e) => memory.disable_semantic(&format!(
            "cannot read the weights at `{}` ({}); run `agent-memory model install`",
            path.display(),
            agent_memory::os_cause(&e)
        ))?,
    }
    Ok(())
}

/// As [`setup`], for `status`, which embeds nothing: the model is mapped
/// natively (its id, name and vocabulary are all the component needs to
/// count chunks), where loading it into the component takes a quarter of
/// a second. When the weights do not load natively, [`setup`] says why.
pub fn setup_for_status(memory: &mut Memory, on: bool) -> Result<()> {
    if on && let Ok(model) = NativeModel::open(&weights_path()) {
        memory.enable_semantic_native(Arc::new(model))?;
        return Ok(());
    }
    setup(memory, on)
}

/// As [`setup`], for `write` and `dream`: the model mapped natively when
/// the weights load, so a write that restates a line is told which one and
/// the plan lists facts said twice in other words (`Memory::write` and
/// `Memory::consolidation_plan` embed the lines they compare, natively);
/// otherwise recall stays off, and they pay nothing for it.
pub fn setup_for_write(memory: &mut Memory, on: bool) -> Result<()> {
    if on && let Ok(model) = NativeModel::open(&weights_path()) {
        memory.enable_semantic_native(Arc::new(model))?;
    }
    Ok(())
}

/// Why recall is off in a CLI search until its words turn out to be weak
/// evidence: loading the model is most of a search process's time.
const DEFERRED: &str = "the model is loaded when a query needs it";

/// As [`setup`], but for a one-shot search: when the weights file is there,
/// the model is not loaded yet, and `true` says so; [`search_call`] loads it
/// if the query needs it.
pub fn setup_deferred(memory: &mut Memory, on: bool) -> Result<bool> {
    if on && weights_path().is_file() {
        memory.disable_semantic(DEFERRED)?;
        return Ok(true);
    }
    setup(memory, on)?;
    Ok(false)
}

/// The `memory_search` tool's reply for `arguments`. With the model
/// deferred, a reply whose note says meaning would have decided (a query
/// word that no file holds) is thrown away and the search run again with
/// the model, so the answer is the one a loaded model gives: the query is
/// embedded natively ([`native_search`]), or, when the weights do not load
/// natively, the model is loaded into the component.
pub fn search_call(memory: &mut Memory, deferred: bool, arguments: &str) -> Result<String> {
    let reply = memory.call_tool("memory_search", arguments)?;
    // Deferred, recall is off for that reason only: the off note says
    // meaning would have decided.
    if !deferred || !says_off(&reply) {
        return Ok(reply);
    }
    if let Some(reply) = native_search(memory, arguments)? {
        return Ok(reply);
    }
    setup(memory, true)?;
    Ok(memory.call_tool("memory_search", arguments)?)
}

/// The search of `arguments` with the model run natively in this process
/// (mapped, a few milliseconds) and only its vocabulary and the query's
/// vector in the component, where handing the component the weights costs
/// a tenth of a second. As the component's model would, it embeds the
/// chunks without vectors when the reply counts at most [`CATCH_UP`] of
/// them (natively, then searches again). With more missing (the first
/// search after `model install`) it builds them all with a progress line
/// when stderr is a terminal, and otherwise answers with the indexing note.
/// `None` when it cannot answer: no `query` in the
/// arguments, or weights that do not load (the component's load then says
/// why).
///
/// Embedding the query on a second thread while the lexical search ran was
/// tried: no faster for weak words (84 against 81 ms, load 3.9) and 12 ms
/// slower for strong ones.
fn native_search(memory: &mut Memory, arguments: &str) -> Result<Option<String>> {
    let query = serde_json::from_str::<serde_json::Value>(arguments)
        .ok()
        .and_then(|v| v.get("query")?.as_str().map(str::to_owned));
    let Some(query) = query else {
        return Ok(None);
    };
    let Ok(model) = NativeModel::open(&weights_path()) else {
        return Ok(None);
    };
    memory.enable_semantic_native(Arc::new(model))?;
    memory.embed_query_natively(&query)?;
    let reply = memory.call_tool("memory_search", arguments)?;
    let Some(note) = reply.lines().nth(1).filter(|l| l.starts_with(INDEXING)) else {
        return Ok(Some(reply));
    };
    match chunks_to_go(note) {
        Some(left) if left <= CATCH_UP => {
            memory.index_vectors_natively(Some(left), None, &mut |_, _| {})?;
        }
        // The first search after `model install`: a person at a terminal
        // watches the build; anything else gets the indexing note.
        _ if std::io::stderr().is_terminal() => {
            let status = memory.semantic_status()?;
            build_natively(memory, &status)?;
        }
        _ => return Ok(Some(reply)),
    }
    Ok(Some(memory.call_tool("memory_search", arguments)?))
}

/// How a search's note starts while vectors are missing.
const INDEXING: &str = "semantic: indexing ";

/// Embed every chunk without a vector natively, on every core, with a
/// progress line on stderr; `status` is the status before.
fn build_natively(
    memory: &mut Memory,
    status: &agent_memory::SemanticStatus,
) -> Result<agent_memory::SemanticStatus> {
    let mut err = std::io::stderr();
    let (ready, chunks) = (status.ready, status.chunks);
    let mut shown = None;
    let mut embedded = 0;
    let start = std::time::Instant::now();
    let status = memory.index_vectors_natively(None, None, &mut |done, total| {
        embedded = done;
        // `total` is what was missing; the line counts every chunk.
        let now = ready + done;
        let percent = (u64::from(now) * 100 / u64::from(chunks.max(1))) as u32;
        if shown != Some(percent) || done == total {
            shown = Some(percent);
            let _ = write!(
                err,
                "\rsemantic: indexing {percent}% ({now}/{chunks} chunks)"
            );
        }
    })?;
    let _ = writeln!(err);
    let _ = writeln!(
        err,
        "semantic: embedded {embedded} chunk{} natively in {:.1} s",
        if embedded == 1 { "" } else { "s" },
        start.elapsed().as_secs_f64()
    );
    Ok(status)
}

/// Whether a search reply says that meaning would have decided but semantic
/// recall is off (its second line, under the summary).
pub fn says_off(reply: &str) -> bool {
    reply.lines().nth(1) == Some(agent_memory_vocab::SEMANTIC_OFF_NOTE)
}

/// For a person at `search`: when the reply says recall is off, why, and how
/// to turn it on, on stderr (the reply itself is what a model would read).
pub fn tell_why_off(memory: &mut Memory, reply: &str) -> Result<()> {
    if says_off(reply) {
        eprintln!("{}", memory.semantic_status()?.line());
    }
    Ok(())
}

/// The chunks left to embed when `note` is a search's indexing note that
/// counts them (`semantic: indexing 97%, 3 chunks to go (…)`; it does once
/// every file has been cut into chunks).
fn chunks_to_go(note: &str) -> Option<u32> {
    let rest = note.strip_prefix(INDEXING)?;
    let (_, count) = rest.split_once("%, ")?;
    let (n, _) = count.split_once(" chunk")?;
    n.parse().ok()
}

/// `agent-memory index`: embed every chunk without a vector, natively on
/// every core (or inside the component, as the Python and Node hosts do,
/// with `in_component`), printing a progress line to stderr, then the
/// status.
pub fn index(memory: &mut Memory, in_component: bool) -> Result<()> {
    let mut status = memory.semantic_status()?;
    if !status.on {
        println!("{}", status.line());
        return Ok(());
    }
    let mut err = std::io::stderr();
    if !in_component {
        let status = build_natively(memory, &status)?;
        println!("{}", status.line());
        return Ok(());
    }
    while status.ready < status.chunks {
        let before = status.ready;
        status = memory.index_vectors(Some(ROUND))?;
        let _ = write!(
            err,
            "\rsemantic: indexing {}% ({}/{} chunks)",
            status.percent(),
            status.ready,
            status.chunks
        );
        if status.ready == before {
            // Nothing saved (the store's lock was busy): try again later.
            break;
        }
    }
    let _ = writeln!(err);
    println!("{}", status.line());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::chunks_to_go;

    #[test]
    fn the_indexing_note_gives_its_count_only_when_it_has_one() {
        let note = |s: &str| format!("semantic: indexing {s}");
        assert_eq!(chunks_to_go(&note("97%, 3 chunks to go")), Some(3));
        assert_eq!(chunks_to_go(&note("99%, 1 chunk to go")), Some(1));
        assert_eq!(chunks_to_go(&note("0%, 1200 chunks to go")), Some(1200));
        assert_eq!(chunks_to_go(&note("40%")), None);
        assert_eq!(chunks_to_go("semantic recall is off"), None);
    }
}
