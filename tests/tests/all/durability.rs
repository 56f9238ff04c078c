//! Durable writes, in one process, against both backends: readers racing an
//! overwrite or an append see the old or the new file and never a mix,
//! history keeps every previous version and stays invisible, and what a
//! crashed writer leaves behind (temp files, a lock moved aside, a lock with
//! no stamp, a lock from the future) is hidden and then cleaned up. The
//! same under `kill -9` across processes is in `host/tests/faults.rs`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use agent_memory_tests::{
    Backend, CapsOverride, Fixture, PROJECT, ReadSource, SearchResults, WriteMode, WriteTarget,
    default_now, project_dir,
};

/// Version `n` of a file: a header, about 60 KiB of body derived from `n`,
/// and a footer, so any mix of two versions or a cut is detectable.
fn version(n: usize) -> String {
    let body = format!("line of version {n:05} ").repeat(2800);
    format!("BEGIN {n:05}\n{body}\nEND {n:05}\n")
}

/// The version number when `text` is exactly one complete version.
fn whole_version(text: &str) -> Option<usize> {
    let n: usize = text.strip_prefix("BEGIN ")?.get(..5)?.parse().ok()?;
    (text == version(n)).then_some(n)
}

const BIG_READS: CapsOverride = CapsOverride {
    max_inject_bytes: None,
    max_write_bytes: None,
    max_read_bytes: Some(1 << 20),
};

fn readers_never_see_a_torn_overwrite<B: Backend>() {
    let fx = Fixture::new();
    let root = fx.root().to_path_buf();
    let note = format!("{}/notes/state.md", project_dir());
    let mut writer = B::open(&root, PROJECT, default_now(), BIG_READS).unwrap();
    writer
        .write(
            WriteTarget::Note,
            &version(0),
            WriteMode::Overwrite,
            Some("state"),
        )
        .unwrap();
    const VERSIONS: usize = 60;
    let done = AtomicBool::new(false);
    let reads = std::thread::scope(|s| {
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (root, note, done) = (&root, &note, &done);
                s.spawn(move || {
                    let mut m = B::open(root, PROJECT, default_now(), BIG_READS).unwrap();
                    let (mut seen, mut last) = (0, 0);
                    while !done.load(Ordering::Acquire) {
                        // Through the memory, and straight from the disk.
                        let text = m.read(ReadSource::Note, Some("state")).unwrap().unwrap();
                        let n = whole_version(&text).expect("a torn read through the memory");
                        let raw = std::fs::read_to_string(root.join(note)).unwrap();
                        let m2 = whole_version(&raw).expect("a torn file on disk");
                        assert!(n >= last && m2 >= n, "versions went back: {last} {n} {m2}");
                        last = m2;
                        seen += 1;
                    }
                    seen
                })
            })
            .collect();
        for n in 1..=VERSIONS {
            writer
                .write(
                    WriteTarget::Note,
                    &version(n),
                    WriteMode::Overwrite,
                    Some("state"),
                )
                .unwrap();
        }
        done.store(true, Ordering::Release);
        readers
            .into_iter()
            .map(|r| r.join().unwrap())
            .sum::<usize>()
    });
    assert_eq!(whole_version(&fx.text(&note)), Some(VERSIONS));
    assert!(reads > 0);
    assert!(
        fx.tree().iter().all(|p| !p.ends_with(".tmp")),
        "{:?}",
        fx.tree()
    );
}

fn readers_never_see_half_an_append<B: Backend>() {
    let fx = Fixture::new();
    let root = fx.root().to_path_buf();
    const ENTRIES: usize = 60;
    let entry = |i: usize| format!("<entry {i:03}>{}</entry {i:03}>\n", "x".repeat(8000));
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut m = B::open(&root, PROJECT, default_now(), BIG_READS).unwrap();
            let mut reads = 0;
            while !done.load(Ordering::Acquire) {
                let text = m
                    .read(ReadSource::LongTerm, None)
                    .unwrap()
                    .unwrap_or_default();
                let count = text.lines().count();
                let whole: String = (0..count).map(entry).collect();
                assert_eq!(text, whole, "a read saw part of an append");
                reads += 1;
            }
            reads
        });
        let mut m = B::open(&root, PROJECT, default_now(), BIG_READS).unwrap();
        for i in 0..ENTRIES {
            m.write(WriteTarget::LongTerm, &entry(i), WriteMode::Append, None)
                .unwrap();
        }
        done.store(true, Ordering::Release);
        assert!(reader.join().unwrap() > 0);
    });
    let all: String = (0..ENTRIES).map(entry).collect();
    assert_eq!(fx.text("MEMORY.md"), all);
}

/// The previous versions history saved whole (appends save none), sorted.
fn saved_versions(fx: &Fixture) -> Vec<String> {
    let mut saved: Vec<String> = fx
        .tree()
        .iter()
        .filter(|p| p.starts_with(".store/history/objects/"))
        .map(|p| fx.text(p))
        .collect();
    saved.sort();
    saved
}

// History replaced the single `.bak`: every previous version is kept (for
// every target), and none of it shows.
fn backups_keep_exactly_the_previous_version_and_stay_hidden<B: Backend>() {
    let fx = Fixture::new();
    let mut m = fx.open::<B>();
    // Nothing saved for a file that did not exist.
    m.write(
        WriteTarget::LongTerm,
        "- v1 bakmarker\n",
        WriteMode::Overwrite,
        None,
    )
    .unwrap();
    assert_eq!(saved_versions(&fx), Vec::<String>::new());
    for n in 2..=5 {
        m.write(
            WriteTarget::LongTerm,
            &format!("- v{n} bakmarker\n"),
            WriteMode::Overwrite,
            None,
        )
        .unwrap();
        assert_eq!(fx.text("MEMORY.md"), format!("- v{n} bakmarker\n"));
        let all: Vec<String> = (1..n).map(|k| format!("- v{k} bakmarker\n")).collect();
        assert_eq!(saved_versions(&fx), all);
    }
    // Appends save no copy (the content before is a prefix of the file).
    m.write(
        WriteTarget::LongTerm,
        "- appended\n",
        WriteMode::Append,
        None,
    )
    .unwrap();
    assert_eq!(saved_versions(&fx).len(), 4);
    for n in 1..=3 {
        m.write(
            WriteTarget::Scratchpad,
            &format!("- [ ] item v{n} bakmarker\n"),
            WriteMode::Overwrite,
            None,
        )
        .unwrap();
    }
    // Notes and logs are kept too; one object serves the same content.
    m.write(WriteTarget::Note, "a", WriteMode::Overwrite, Some("n"))
        .unwrap();
    m.write(WriteTarget::Note, "b", WriteMode::Overwrite, Some("n"))
        .unwrap();
    m.write(WriteTarget::Daily, "a", WriteMode::Overwrite, None)
        .unwrap();
    m.write(WriteTarget::Daily, "b", WriteMode::Overwrite, None)
        .unwrap();
    assert_eq!(
        saved_versions(&fx),
        [
            "- [ ] item v1 bakmarker\n",
            "- [ ] item v2 bakmarker\n",
            "- v1 bakmarker\n",
            "- v2 bakmarker\n",
            "- v3 bakmarker\n",
            "- v4 bakmarker\n",
            "a\n",
        ]
    );
    assert!(
        fx.tree().iter().all(|p| !p.ends_with(".bak")),
        "{:?}",
        fx.tree()
    );
    // History never shows: not listed, not searched, not injected.
    let listed = m.list().unwrap();
    assert!(listed.iter().all(|(p, _)| p.ends_with(".md")), "{listed:?}");
    let found = m.search("bakmarker").unwrap();
    let paths: Vec<&str> = found.hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["MEMORY.md"]);
    assert!(!found.hits[0].body.contains("v4"));
    let block = m.context().unwrap().unwrap();
    assert!(
        block.contains("item v3") && !block.contains("item v2"),
        "{block}"
    );
    assert!(!block.contains("- v4 bakmarker"), "{block}");
}

fn leftovers_in_every_directory_are_hidden_then_cleaned<B: Backend>() {
    let fx = Fixture::new();
    let pd = project_dir();
    let leftovers = [
        ".MEMORY.md.0123456789abcdef.tmp".to_string(),
        ".agent-memory.lock.stale.0123456789abcdef".to_string(),
        format!("{pd}/.SCRATCHPAD.md.0123456789abcdef.tmp"),
        format!("{pd}/notes/.n.md.0123456789abcdef.tmp"),
        format!("{pd}/daily/.2026-05-30.md.0123456789abcdef.tmp"),
    ];
    for rel in &leftovers {
        fx.put(rel, "half-written leftover - [ ] open item\n");
    }
    let mut m = fx.open::<B>();
    assert!(m.list().unwrap().is_empty(), "{:?}", m.list());
    assert!(m.search("leftover").unwrap().hits.is_empty());
    assert_eq!(m.context().unwrap(), None);
    assert_eq!(m.read(ReadSource::Scratchpad, None).unwrap(), None);
    // Appends clean their directory too (and any write cleans the root).
    m.write(WriteTarget::LongTerm, "- fact\n", WriteMode::Append, None)
        .unwrap();
    assert_eq!(fx.get(&leftovers[0]), None, "{:?}", fx.tree());
    assert_eq!(fx.get(&leftovers[1]), None, "{:?}", fx.tree());
    m.write(
        WriteTarget::Scratchpad,
        "- [ ] real\n",
        WriteMode::Append,
        None,
    )
    .unwrap();
    m.write(WriteTarget::Note, "x", WriteMode::Append, Some("n"))
        .unwrap();
    m.append_daily("entry", "body").unwrap();
    for rel in &leftovers {
        assert_eq!(fx.get(rel), None, "{rel} left: {:?}", fx.tree());
    }
    assert_eq!(
        fx.tree(),
        [
            // History's journal: appends record only its lines.
            ".store/history/journal".to_string(),
            "MEMORY.md".to_string(),
            format!("{pd}/SCRATCHPAD.md"),
            format!("{pd}/daily/2026-05-30.md"),
            format!("{pd}/notes/n.md"),
        ]
    );
}

fn abandoned_locks_without_a_stamp_or_from_the_future_are_broken<B: Backend>() {
    let fx = Fixture::new();
    let mut m = fx.open::<B>();
    let lock = fx.root().join(".agent-memory.lock");
    // A holder killed between creating the lock and writing its stamp: an
    // empty file, older than the lease by its modification time.
    std::fs::write(&lock, "").unwrap();
    let old = SystemTime::now() - Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let started = std::time::Instant::now();
    m.write(WriteTarget::LongTerm, "- one\n", WriteMode::Append, None)
        .unwrap();
    // A lock stamped far in the future (a clock that jumped, or forged).
    std::fs::write(&lock, "feedface 99999999999\n").unwrap();
    m.write(WriteTarget::LongTerm, "- two\n", WriteMode::Append, None)
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(fx.text("MEMORY.md"), "- one\n- two\n");
    assert!(!lock.exists());
}

/// Ranked search through a backend, so searches can race writes.
trait Ranked: Backend {
    fn ranked(&mut self, root: &std::path::Path, query: &str) -> SearchResults;
}

impl Ranked for agent_memory_tests::Native {
    fn ranked(&mut self, root: &std::path::Path, query: &str) -> SearchResults {
        // A core handle on the same root searches exactly as the backend's.
        agent_memory_core::Memory::open(root, agent_memory_core::Options::new(PROJECT))
            .unwrap()
            .search_with(query, agent_memory_core::SearchMode::Ranked)
            .unwrap()
    }
}

impl Ranked for agent_memory_tests::Component {
    fn ranked(&mut self, _: &std::path::Path, query: &str) -> SearchResults {
        agent_memory_tests::core_results(
            self.handle()
                .search_with(query, agent_memory::SearchMode::Ranked)
                .unwrap(),
        )
    }
}

/// Ranked searches racing writes (through the index, which they rewrite)
/// count every note written before they began and none that was never
/// written; once the writes stop, results equal a full read, with the
/// index and after deleting it.
fn ranked_searches_mixed_with_writes_see_every_finished_write<B: Ranked>() {
    let fx = Fixture::new();
    let root = fx.root().to_path_buf();
    let notes = format!("{}/notes", project_dir());
    // Thirty settled notes the first search indexes and trusts.
    for i in 0..30 {
        let rel = format!("{notes}/old-{i}.md");
        fx.put(&rel, format!("mixword settled note {i}\nstaging deploy\n"));
        let old = SystemTime::now() - Duration::from_secs(3600 + i);
        std::fs::File::options()
            .write(true)
            .open(root.join(&rel))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    const WRITES: usize = 40;
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let searchers: Vec<_> = (0..2)
            .map(|_| {
                let (root, finished, done) = (&root, &finished, &done);
                s.spawn(move || {
                    let mut m = B::open(root, PROJECT, default_now(), BIG_READS).unwrap();
                    let mut searches = 0;
                    while !done.load(Ordering::Acquire) {
                        let before = finished.load(Ordering::Acquire);
                        let r = m.ranked(root, "mixword");
                        // One write may have landed but not yet been counted.
                        let after = finished.load(Ordering::Acquire);
                        let count = r.terms[0].1;
                        assert!(
                            (30 + before..=30 + after + 1).contains(&count),
                            "{count} lines, {before}..{after} notes written"
                        );
                        searches += 1;
                    }
                    searches
                })
            })
            .collect();
        let mut w = B::open(&root, PROJECT, default_now(), BIG_READS).unwrap();
        for i in 0..WRITES {
            // New notes, and settled ones rewritten without the word.
            w.write(
                WriteTarget::Note,
                &format!("mixword fresh note {i}"),
                WriteMode::Overwrite,
                Some(&format!("new-{i}")),
            )
            .unwrap();
            finished.fetch_add(1, Ordering::AcqRel);
            w.write(
                WriteTarget::Note,
                &format!("mixword settled note {i} rewritten"),
                WriteMode::Overwrite,
                Some(&format!("old-{}", i % 30)),
            )
            .unwrap();
        }
        done.store(true, Ordering::Release);
        for s in searchers {
            assert!(s.join().unwrap() > 0);
        }
    });
    let native =
        agent_memory_core::Memory::open(&root, agent_memory_core::Options::new(PROJECT)).unwrap();
    let mut m = B::open(&root, PROJECT, default_now(), BIG_READS).unwrap();
    for q in [
        "mixword",
        "settled rewritten",
        "fresh note 7",
        "staging deploy",
    ] {
        let full = native.search_unindexed(q).unwrap();
        assert_eq!(m.ranked(&root, q), full, "{q}");
        let _ = std::fs::remove_dir_all(root.join(".store/index"));
        assert_eq!(m.ranked(&root, q), full, "{q}, index deleted");
    }
}

both! {
    readers_never_see_a_torn_overwrite,
    readers_never_see_half_an_append,
    backups_keep_exactly_the_previous_version_and_stay_hidden,
    leftovers_in_every_directory_are_hidden_then_cleaned,
    abandoned_locks_without_a_stamp_or_from_the_future_are_broken,
    ranked_searches_mixed_with_writes_see_every_finished_write,
}
