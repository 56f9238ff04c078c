//! The ranked search's index is a cache: whatever happens to it or to the
//! files behind its back, indexed results equal a search that reads every
//! file ([`Memory::search_unindexed`]).
//!
//! Files are given modification times an hour back, as a store's files
//! mostly are: an entry for a file changed within the last seconds is never
//! trusted (see `guest/core/src/index.rs`), and the tests must exercise the
//! trusted path.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use agent_memory_core::names::project_slug;
use agent_memory_core::time::Date;
use agent_memory_core::{Clock, Memory, Options, SearchMode, SearchResults};

const PROJECT: &str = "/home/dev/src/index-app";

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

const WORDS: &[&str] = &[
    "deploy",
    "deployed",
    "staging",
    "timeout",
    "migration",
    "cache",
    "token",
    "flaky",
    "rollback",
    "getUserName",
    "user_name",
    "kube-proxy",
    "src/rank/mod.rs",
    "the",
    "we",
    "database",
    "latency",
    "retries",
    "Postgres",
    "redis",
    "café",
    "naïve",
    "ÉCOLE",
];

const QUERIES: &[&str] = &[
    "deploy",
    "staging timeout",
    "getUserName",
    "user name",
    "kube proxy",
    "rank/mod.rs",
    "what did we deploy last week",
    "yesterday",
    "in May",
    "2026-05-28 cache",
    "the we",
    "café ecole",
    "Postgres latency retries redis",
    "xylophone",
    "",
];

fn today() -> Date {
    agent_memory_core::names::daily_date("2026-05-30").unwrap()
}

fn open(root: &Path) -> Memory {
    let mut options = Options::new(PROJECT);
    options.clock = Clock {
        utc_offset_minutes: 0,
        fixed_unix_seconds: Some(today().to_days() * 86_400 + 12 * 3600),
    };
    Memory::open(root, options).unwrap()
}

fn project(root: &Path) -> PathBuf {
    root.join("projects").join(project_slug(PROJECT))
}

fn index_file(root: &Path) -> PathBuf {
    root.join(".store/index")
        .join(format!("{}.idx", project_slug(PROJECT)))
}

/// Set `path`'s modification time `secs` seconds back.
fn age(path: &Path, secs: u64) {
    let t = SystemTime::now() - Duration::from_secs(secs);
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn text(rng: &mut Rng, lines: usize) -> String {
    let mut out = String::new();
    for _ in 0..lines {
        if rng.below(6) == 0 {
            out.push_str("## ");
        }
        for _ in 0..1 + rng.below(8) {
            out.push_str(rng.pick(WORDS));
            out.push(' ');
        }
        out.push('\n');
    }
    out
}

/// Every file search covers, relative.
fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("MEMORY.md")];
    let p = project(root);
    for dir in [p.join("notes"), p.join("notes/ops"), p.join("daily")] {
        if let Ok(entries) = fs::read_dir(&dir) {
            for e in entries.flatten() {
                if e.path().extension().is_some_and(|x| x == "md") {
                    out.push(e.path());
                }
            }
        }
    }
    out.retain(|f| f.exists());
    out.sort();
    out
}

/// A store of a few notes (one nested) and logs, aged an hour.
fn store(seed: u64) -> (tempfile::TempDir, Rng) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut rng = Rng(seed | 1);
    let p = project(root);
    fs::create_dir_all(p.join("notes/ops")).unwrap();
    fs::create_dir_all(p.join("daily")).unwrap();
    fs::write(root.join("MEMORY.md"), text(&mut rng, 5)).unwrap();
    for i in 0..12 {
        let lines = 3 + rng.below(20);
        let n = text(&mut rng, lines);
        fs::write(p.join(format!("notes/note-{i}.md")), n).unwrap();
    }
    fs::write(p.join("notes/ops/deploy-runbook.md"), text(&mut rng, 10)).unwrap();
    for d in 20..31 {
        let lines = 2 + rng.below(12);
        let n = text(&mut rng, lines);
        fs::write(p.join(format!("daily/2026-05-{d}.md")), n).unwrap();
    }
    for f in files(root) {
        age(&f, 3600);
    }
    (dir, rng)
}

fn ranked(mem: &Memory, q: &str) -> SearchResults {
    mem.search_with(q, SearchMode::Ranked).unwrap()
}

/// Every query, indexed against unindexed.
#[track_caller]
fn agree(mem: &Memory, when: &str) {
    for q in QUERIES {
        let fresh = mem.search_unindexed(q).unwrap();
        assert_eq!(ranked(mem, q), fresh, "{when}: query {q:?}");
    }
}

#[test]
fn indexed_search_equals_a_full_read_and_writes_a_hidden_index() {
    let (dir, _) = store(7);
    let mem = open(dir.path());
    assert!(!index_file(dir.path()).exists());
    agree(&mem, "first search, no index");
    assert!(index_file(dir.path()).exists(), "the index was written");
    let before = fs::read(index_file(dir.path())).unwrap();
    agree(&mem, "from the index");
    assert_eq!(
        fs::read(index_file(dir.path())).unwrap(),
        before,
        "an unchanged store does not rewrite it"
    );
    // Hidden: not listed, not searched, not in the context block.
    let listed = mem.list_files().unwrap();
    assert!(
        listed.iter().all(|f| !f.path.contains(".store")),
        "{listed:?}"
    );
    let r = ranked(&mem, "AMIDX idx");
    assert!(r.hits.iter().all(|h| !h.path.contains(".store")));
    let l = mem.search("AMIDX").unwrap();
    assert!(l.hits.is_empty());
    let block = mem.context_block().unwrap().unwrap();
    assert!(!block.contains("AMIDX"));
}

#[test]
fn hand_edits_between_searches_are_seen() {
    let (dir, mut rng) = store(11);
    let root = dir.path();
    let mem = open(root);
    agree(&mem, "build");
    let p = project(root);
    for round in 0..40 {
        let all = files(root);
        let f = &all[rng.below(all.len())];
        match rng.below(6) {
            // Appended to in place (same inode).
            0 => {
                let mut t = fs::read_to_string(f).unwrap();
                t.push_str(&text(&mut rng, 2));
                fs::write(f, t).unwrap();
            }
            // Replaced with text of the same size: only the time differs.
            1 => {
                let len = fs::metadata(f).unwrap().len() as usize;
                let mut t = text(&mut rng, 40);
                while t.len() < len {
                    t.push_str("deploy ");
                }
                t.truncate(len);
                fs::write(f, t).unwrap();
            }
            2 => {
                if f.file_name().unwrap() != "MEMORY.md" {
                    fs::remove_file(f).unwrap();
                }
            }
            3 => {
                let n = p.join(format!("notes/new-{round}.md"));
                fs::write(&n, text(&mut rng, 6)).unwrap();
            }
            4 => {
                if f.file_name().unwrap() != "MEMORY.md" {
                    let to = f.with_file_name(format!("moved-{round}.md"));
                    fs::rename(f, to).unwrap();
                }
            }
            _ => {
                let d = p.join(format!("daily/2026-04-{:02}.md", 1 + rng.below(28)));
                fs::write(&d, text(&mut rng, 4)).unwrap();
            }
        }
        // Aged again, each round to a different second: settled files.
        for f in files(root) {
            if fs::metadata(&f).unwrap().modified().unwrap()
                > SystemTime::now() - Duration::from_secs(60)
            {
                age(&f, 1800 - round);
            }
        }
        agree(&mem, &format!("round {round}"));
    }
}

#[test]
fn writes_through_the_store_are_seen_at_once() {
    let (dir, _) = store(13);
    let mem = open(dir.path());
    agree(&mem, "build");
    use agent_memory_core::{WriteMode, WriteTarget};
    mem.write(
        WriteTarget::Note,
        "xylophone tuning",
        WriteMode::Overwrite,
        Some("music"),
    )
    .unwrap();
    assert_eq!(ranked(&mem, "xylophone").hits.len(), 1);
    mem.append_daily("deploy", "xylophone on staging").unwrap();
    assert_eq!(ranked(&mem, "xylophone").hits.len(), 2);
    mem.edit(WriteTarget::Note, Some("music"), "xylophone", "marimba")
        .unwrap();
    assert_eq!(ranked(&mem, "xylophone").hits.len(), 1);
    mem.rename_note("music", "ops/instruments").unwrap();
    let r = ranked(&mem, "marimba");
    assert_eq!(r.hits.len(), 1);
    assert!(r.hits[0].path.ends_with("notes/ops/instruments.md"));
    mem.delete_note("ops/instruments").unwrap();
    assert!(ranked(&mem, "marimba").hits.is_empty());
    agree(&mem, "after writes");
}

#[test]
fn a_deleted_truncated_or_flipped_index_is_rebuilt() {
    let (dir, mut rng) = store(17);
    let root = dir.path();
    let mem = open(root);
    agree(&mem, "build");
    let good = fs::read(index_file(root)).unwrap();
    fs::remove_file(index_file(root)).unwrap();
    agree(&mem, "deleted");
    assert_eq!(fs::read(index_file(root)).unwrap().len(), good.len());
    for trial in 0..60 {
        let mut bad = good.clone();
        if trial % 2 == 0 {
            bad.truncate(rng.below(good.len()));
        } else {
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bad.len());
                bad[at] ^= 1 << rng.below(8);
            }
        }
        fs::write(index_file(root), &bad).unwrap();
        agree(&mem, &format!("trial {trial}"));
    }
}

#[test]
fn planted_and_foreign_indexes_give_no_wrong_results() {
    let (dir, _) = store(19);
    let root = dir.path();
    let mem = open(root);
    agree(&mem, "build");
    let good = fs::read(index_file(root)).unwrap();
    let plants: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"AMIDX\0\r\n".to_vec(),
        // An older format version.
        {
            let mut v = good.clone();
            v[8] = 0;
            v
        },
        vec![0xff; good.len()],
        good[..72]
            .iter()
            .chain(&vec![0; good.len() - 72])
            .copied()
            .collect(),
    ];
    for (i, plant) in plants.iter().enumerate() {
        fs::write(index_file(root), plant).unwrap();
        agree(&mem, &format!("plant {i}"));
    }
    // Another store's sound index at this one's place: its entries name
    // files this store lacks or holds with other signatures.
    let (other, _) = store(23);
    let other_mem = open(other.path());
    agree(&other_mem, "other build");
    fs::copy(index_file(other.path()), index_file(root)).unwrap();
    agree(&mem, "foreign index");
    // A directory where the index goes: searched without it.
    fs::remove_file(index_file(root)).unwrap();
    fs::create_dir(index_file(root)).unwrap();
    agree(&mem, "index is a directory");
}

/// The one change size and modification time cannot see: same size, the
/// time put back, the inode kept. The index serves the old counts until
/// the file's entry is replaced. Documented in `store/indexed.rs`.
#[test]
fn same_size_and_restored_time_is_the_known_limit() {
    let (dir, _) = store(29);
    let root = dir.path();
    let mem = open(root);
    let f = project(root).join("notes/note-0.md");
    fs::write(&f, "alpha beta gamma\n").unwrap();
    age(&f, 3600);
    let t = fs::metadata(&f).unwrap().modified().unwrap();
    agree(&mem, "build");
    assert_eq!(ranked(&mem, "alpha").hits.len(), 1);
    fs::write(&f, "delta beta gamma\n").unwrap();
    File::options()
        .write(true)
        .open(&f)
        .unwrap()
        .set_modified(t)
        .unwrap();
    assert_eq!(mem.search_unindexed("alpha").unwrap().hits.len(), 0);
    assert_eq!(ranked(&mem, "alpha").hits.len(), 1, "served from the index");
    // Any other change to it (here its time) brings it back in line.
    age(&f, 3000);
    agree(&mem, "after touching it");
}

#[test]
fn a_file_changed_within_the_racy_window_is_read_again() {
    let (dir, _) = store(31);
    let root = dir.path();
    let mem = open(root);
    let f = project(root).join("notes/note-1.md");
    // Written just now: its entry is not trusted, so even a same-size
    // change with the time put back is seen.
    fs::write(&f, "alpha beta gamma\n").unwrap();
    let t = fs::metadata(&f).unwrap().modified().unwrap();
    agree(&mem, "build");
    fs::write(&f, "delta beta gamma\n").unwrap();
    File::options()
        .write(true)
        .open(&f)
        .unwrap()
        .set_modified(t)
        .unwrap();
    assert_eq!(ranked(&mem, "alpha").hits.len(), 0);
    agree(&mem, "racy");
}

fn listings_file(root: &Path) -> PathBuf {
    root.join(".store/index")
        .join(format!("{}.dirs", project_slug(PROJECT)))
}

/// Set every searched folder's modification time `secs` seconds back, as
/// time passing would leave them.
fn age_dirs(root: &Path, secs: u64) {
    let p = project(root);
    let mut dirs = vec![root.to_path_buf(), p.join("daily"), p.join("notes")];
    for e in fs::read_dir(p.join("notes")).unwrap().flatten() {
        if e.path().is_dir() {
            dirs.push(e.path());
        }
    }
    let t = SystemTime::now() - Duration::from_secs(secs);
    for d in dirs {
        File::open(&d).unwrap().set_modified(t).unwrap();
    }
}

#[test]
fn remembered_listings_follow_files_added_removed_and_renamed_by_hand() {
    let (dir, mut rng) = store(23);
    let root = dir.path();
    age_dirs(root, 3600);
    let mem = open(root);
    agree(&mem, "build");
    assert!(
        listings_file(root).exists(),
        "settled folders are remembered"
    );
    let before = fs::read(listings_file(root)).unwrap();
    agree(&mem, "from remembered listings");
    assert_eq!(
        fs::read(listings_file(root)).unwrap(),
        before,
        "unchanged folders do not rewrite it"
    );
    let p = project(root);
    for round in 0..30u64 {
        let all = files(root);
        let f = &all[rng.below(all.len())];
        match rng.below(5) {
            0 => {
                let n = p.join(format!("notes/hand-{round}.md"));
                fs::write(&n, text(&mut rng, 5)).unwrap();
            }
            1 => {
                if f.file_name().unwrap() != "MEMORY.md" {
                    fs::remove_file(f).unwrap();
                }
            }
            2 => {
                if f.file_name().unwrap() != "MEMORY.md" {
                    let to = f.with_file_name(format!("renamed-{round}.md"));
                    fs::rename(f, to).unwrap();
                }
            }
            3 => {
                // A new topic folder, one level down.
                let d = p.join(format!("notes/topic-{round}"));
                fs::create_dir(&d).unwrap();
                fs::write(d.join("inside.md"), text(&mut rng, 4)).unwrap();
                age(&d.join("inside.md"), 1800 - round);
            }
            _ => {
                let d = p.join(format!("daily/2026-03-{:02}.md", 1 + rng.below(28)));
                fs::write(&d, text(&mut rng, 3)).unwrap();
            }
        }
        for f in files(root) {
            if fs::metadata(&f).unwrap().modified().unwrap()
                > SystemTime::now() - Duration::from_secs(60)
            {
                age(&f, 1800 - round);
            }
        }
        // Folders settle too, each round at a new second: a changed folder
        // shows a time its remembered listing does not have.
        age_dirs(root, 1800 - round);
        agree(&mem, &format!("round {round}"));
    }
}

#[test]
fn a_cut_flipped_or_planted_listings_file_gives_no_wrong_results() {
    let (dir, mut rng) = store(29);
    let root = dir.path();
    age_dirs(root, 3600);
    let mem = open(root);
    agree(&mem, "build");
    let good = fs::read(listings_file(root)).unwrap();
    for trial in 0..40 {
        let mut bad = good.clone();
        match trial % 3 {
            0 => bad.truncate(rng.below(good.len())),
            1 => {
                let at = rng.below(bad.len());
                bad[at] ^= 1 << rng.below(8);
            }
            // A listings file of another store, planted.
            _ => bad = b"AMDIRS\0\n\x01\0\0\0\x01\0\0\0".to_vec(),
        }
        fs::write(listings_file(root), &bad).unwrap();
        agree(&mem, &format!("trial {trial}"));
        // Written again whole: the same folders and names (only the times
        // in it differ from the first).
        let again = fs::read(listings_file(root)).unwrap();
        assert_eq!(again.len(), good.len(), "trial {trial}");
        assert_ne!(again, bad, "trial {trial}");
    }
}

/// The tool call's rendering, which re-reads only the files its shown hits
/// need, is byte for byte the full results rendered, at every size, also
/// when more files match than are returned.
#[test]
fn rendered_search_equals_the_full_results_rendered() {
    let (dir, mut rng) = store(31);
    let root = dir.path();
    let p = project(root);
    for i in 0..130 {
        fs::write(p.join(format!("notes/bulk-{i}.md")), text(&mut rng, 4)).unwrap();
    }
    let mem = open(root);
    for q in QUERIES {
        for mode in [SearchMode::Ranked, SearchMode::Literal] {
            let full = mem.search_with(q, mode).unwrap();
            for cap in [0, 60, 200, 700, 2_000, 6_000, 20_000, 1 << 20] {
                assert_eq!(
                    mem.search_rendered(q, mode, cap).unwrap(),
                    full.render(cap),
                    "query {q:?}, {mode:?}, cap {cap}"
                );
            }
        }
    }
}
