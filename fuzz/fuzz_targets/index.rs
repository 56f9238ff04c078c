//! The search index and the remembered folder listings under damage: a
//! sound file of a small store (folders aged, so the listings are used),
//! cut at any offset and with any bytes flipped, or replaced by arbitrary
//! bytes, never makes ranked search fail, panic or differ from a full read.
#![no_main]

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use agent_memory_core::names::project_slug;
use agent_memory_core::{Memory, Options, SearchMode};
use libfuzzer_sys::fuzz_target;

const PROJECT: &str = "/fuzz/index-app";

/// The store and its sound index and listings bytes, made once.
fn store() -> &'static (tempfile::TempDir, Vec<u8>, Vec<u8>) {
    static STORE: OnceLock<(tempfile::TempDir, Vec<u8>, Vec<u8>)> = OnceLock::new();
    STORE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let p = root.join("projects").join(project_slug(PROJECT));
        fs::create_dir_all(p.join("notes/ops")).unwrap();
        fs::create_dir_all(p.join("daily")).unwrap();
        let files = [
            (root.join("MEMORY.md"), "# Index\n- deploy with care\n"),
            (
                p.join("notes/deploy.md"),
                "## Staging\ndeploy to staging, then prod\n",
            ),
            (
                p.join("notes/ops/cache.md"),
                "getUserName misses the cache café\n",
            ),
            (
                p.join("daily/2026-05-29.md"),
                "### 10:00 — timeout\nmigration timed out\n",
            ),
        ];
        for (path, text) in &files {
            fs::write(path, text).unwrap();
            let old = SystemTime::now() - Duration::from_secs(3600);
            File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        // Folders settled too, so their listings are remembered and used.
        let old = SystemTime::now() - Duration::from_secs(3600);
        for d in [
            root.to_path_buf(),
            p.join("notes"),
            p.join("notes/ops"),
            p.join("daily"),
        ] {
            File::open(&d).unwrap().set_modified(old).unwrap();
        }
        let mem = Memory::open(root, Options::new(PROJECT)).unwrap();
        mem.search_with("deploy", SearchMode::Ranked).unwrap();
        let index = fs::read(cache_path(root, "idx")).unwrap();
        let listings = fs::read(cache_path(root, "dirs")).unwrap();
        (dir, index, listings)
    })
}

fn cache_path(root: &Path, ext: &str) -> PathBuf {
    root.join(".store/index")
        .join(format!("{}.{ext}", project_slug(PROJECT)))
}

fuzz_target!(|input: (bool, bool, Vec<u8>, Option<u16>, &str)| {
    let (listings, raw, bytes, cut, query) = input;
    let (dir, index, sound_listings) = store();
    let root = dir.path();
    let (good, ext) = if listings {
        (sound_listings, "dirs")
    } else {
        (index, "idx")
    };
    let planted = if raw {
        bytes
    } else {
        let mut b = good.clone();
        for pair in bytes.chunks_exact(3) {
            let at = usize::from(u16::from_le_bytes([pair[0], pair[1]])) % b.len();
            b[at] ^= pair[2];
        }
        if let Some(cut) = cut {
            b.truncate(usize::from(cut) % (b.len() + 1));
        }
        b
    };
    fs::write(cache_path(root, ext), &planted).unwrap();
    let mem = Memory::open(root, Options::new(PROJECT)).unwrap();
    let fresh = mem.search_unindexed(query);
    let indexed = mem.search_with(query, SearchMode::Ranked);
    assert_eq!(indexed, fresh, "query {query:?}");
});
