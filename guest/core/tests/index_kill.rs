//! The search index under processes: two writing and searching at once,
//! and one killed with SIGKILL at random moments while it rewrites the
//! index. Afterwards ranked search always equals a full read. The worker
//! is the `index_churn` example (built here if `cargo test` did not).

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use agent_memory_core::{Memory, Options, SearchMode};

const PROJECT: &str = "/work/src/churn-app";
const QUERIES: &[&str] = &[
    "churnword",
    "proc0word",
    "proc1word deploy",
    "staging",
    "xylophone",
];

/// The example binary, next to this test's own directory.
fn churn() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let path = dir.join("examples").join("index_churn");
    if !path.exists() {
        let release = dir.ends_with("release");
        let mut build = Command::new(env!("CARGO"));
        build.args([
            "build",
            "--example",
            "index_churn",
            "-p",
            "agent-memory-core",
        ]);
        if release {
            build.arg("--release");
        }
        assert!(build.status().unwrap().success(), "building index_churn");
    }
    path
}

fn agree(root: &Path, when: &str) {
    let mem = Memory::open(root, Options::new(PROJECT)).unwrap();
    for q in QUERIES {
        let fresh = mem.search_unindexed(q).unwrap();
        let indexed = mem.search_with(q, SearchMode::Ranked).unwrap();
        assert_eq!(indexed, fresh, "{when}: query {q:?}");
    }
}

#[test]
fn two_processes_write_and_search_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let workers: Vec<_> = (0..2)
        .map(|w| {
            Command::new(churn())
                .args([root.to_str().unwrap(), &w.to_string(), "120"])
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for w in workers {
        let out = w.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    agree(root, "after both");
    let index = root.join(".store/index");
    assert!(
        std::fs::read_dir(&index).unwrap().count() >= 1,
        "an index was written"
    );
}

#[test]
fn kill_9_during_index_updates_leaves_nothing_wrong() {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    println!("kill seed {seed}");
    let mut rng = seed;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let exe = churn();
    for kill in 0..12 {
        let mut child = Command::new(&exe)
            .args([root.to_str().unwrap(), "0", "0"])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        std::thread::sleep(Duration::from_millis(20 + next() % 400));
        if let Ok(Some(status)) = child.try_wait() {
            panic!(
                "the worker stopped by itself after {:?}: {status}",
                started.elapsed()
            );
        }
        child.kill().unwrap();
        child.wait().unwrap();
        // Its write lock, if it held one, would block writers for a whole
        // lease: a dead holder's lock is removed as the lease would.
        let _ = std::fs::remove_file(root.join(".agent-memory.lock"));
        agree(root, &format!("after kill {kill} (seed {seed})"));
    }
}
