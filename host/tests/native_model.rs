//! Semantic recall with the encoder run natively by the host
//! (`NativeModel`): the component gets only the vocabulary, shares the
//! vectors the component's own model makes, ranks exactly as that model
//! does once the query's vector is handed in, and says so when it is not.
//! The model is the conformance vectors' tiny BERT.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_memory::{ErrorKind, Memory, NativeModel, OpenOptions, Runtime, WriteMode, WriteTarget};
use chrono::DateTime;

const NOW: &str = "2026-05-30T09:15:00+02:00";
const QUERY: &str = "which city do our servers run in";
const ID: &str = "minilm-46bef549230383a5";

fn weights() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/semantic-model.safetensors")
}

fn open(root: &Path) -> Memory {
    let now = DateTime::parse_from_rfc3339(NOW).unwrap();
    Runtime::shared()
        .unwrap()
        .open(OpenOptions::new(root, "/home/dev/src/my-app").now(now))
        .unwrap()
}

fn search(memory: &mut Memory) -> String {
    let arguments = serde_json::json!({ "query": QUERY }).to_string();
    memory.call_tool("memory_search", &arguments).unwrap()
}

/// A memory of the conformance case's four notes.
fn root() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let mut m = open(temp.path());
    for (name, text) in [
        (
            "region",
            "# Hosting\n\nProduction is hosted in eu-central-1 (Frankfurt).\n",
        ),
        (
            "ops",
            "# Restarts\n\nThe servers restart every night; the smoke tests and the flaky checks follow each restart.\n",
        ),
        (
            "ci",
            "CI runs the suite on every push; flaky tests are retried twice.\n",
        ),
        (
            "backups",
            "The postgres database backup is copied nightly to the cluster.\n",
        ),
    ] {
        m.write(WriteTarget::Note, text, WriteMode::Overwrite, Some(name))
            .unwrap();
    }
    temp
}

#[test]
fn a_native_model_ranks_as_the_components_own_with_the_same_vectors() {
    let temp = root();
    // The component's model builds the vectors and answers.
    let mut inside = open(temp.path());
    inside
        .enable_semantic(Arc::new(std::fs::read(weights()).unwrap()))
        .unwrap();
    let built = inside.index_vectors(None).unwrap();
    assert_eq!((built.ready, built.chunks), (4, 4));
    let want = search(&mut inside);
    assert!(
        want.contains("region.md  [matched: (meaning)]"),
        "the region note by meaning:\n{want}"
    );

    // The native model shares them: same id, same chunks, all ready.
    let model = NativeModel::open(&weights()).unwrap();
    assert_eq!(model.id(), ID);
    let mut native = open(temp.path());
    native.enable_semantic_native(Arc::new(model)).unwrap();
    assert_eq!(native.semantic_status().unwrap(), built);

    // Without the query's vector the search stays lexical and says that
    // recall is off (the model's text names no host duty).
    let lexical = search(&mut native);
    assert_eq!(
        lexical.lines().nth(1),
        Some("semantic recall is off"),
        "{lexical}"
    );
    // With it, the answer is the component's model's, word for word.
    native.embed_query_natively(QUERY).unwrap();
    assert_eq!(search(&mut native), want);
}

#[test]
fn a_native_model_embeds_nothing_in_the_component_and_builds_natively() {
    let temp = root();
    let mut m = open(temp.path());
    m.enable_semantic_native(Arc::new(NativeModel::open(&weights()).unwrap()))
        .unwrap();
    // The component cannot embed with it: `index` and searches leave the
    // chunks pending, and a search says how far indexing is.
    let status = m.index_vectors(None).unwrap();
    assert_eq!((status.ready, status.chunks), (0, 4));
    m.embed_query_natively(QUERY).unwrap();
    let text = search(&mut m);
    assert_eq!(
        text.lines().nth(1),
        Some("semantic: indexing 0%, 4 chunks to go"),
        "{text}"
    );
    // The host builds them with the model it holds.
    let status = m
        .index_vectors_natively(None, Some(1), &mut |_, _| {})
        .unwrap();
    assert_eq!((status.ready, status.chunks), (4, 4));
    assert!(search(&mut m).contains("region.md  [matched: (meaning)]"));
}

#[test]
fn a_bad_weights_file_or_query_is_a_clear_error() {
    let temp = tempfile::tempdir().unwrap();
    let missing = temp.path().join("absent.safetensors");
    let err = NativeModel::open(&missing).unwrap_err().to_string();
    assert!(err.contains("absent.safetensors"), "{err}");
    let damaged = temp.path().join("damaged.safetensors");
    std::fs::write(&damaged, b"\x08\0\0\0\0\0\0\0{\"a\":1}").unwrap();
    let err = NativeModel::open(&damaged).unwrap_err().to_string();
    assert!(
        err.contains("damaged.safetensors") && err.contains("agent-memory model install"),
        "{err}"
    );

    let root = root();
    let mut m = open(root.path());
    m.enable_semantic_native(Arc::new(NativeModel::open(&weights()).unwrap()))
        .unwrap();
    let words: Vec<String> = (0..100).map(|i| format!("word{i}")).collect();
    let err = m.embed_query_natively(&words.join(" ")).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::InvalidArguments), "{err}");
}
