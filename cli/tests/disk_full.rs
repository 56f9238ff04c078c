//! A full disk, through the real `agent-memory` command: every kind of
//! change fails with an error that says the disk is full, and leaves the
//! store byte for byte as it was, history included (no version for a
//! change that never happened).
//!
//! The memory root lies on a 1 MiB tmpfs this test mounts, so it runs as
//! root (as CI does); elsewhere it says it was skipped.

#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const PROJECT: &str = "/work/src/full-app";
const NOW: &str = "2026-05-30T09:15:00+02:00";

/// A tmpfs mounted for the test, unmounted when dropped.
struct Tmpfs {
    _temp: tempfile::TempDir,
    at: PathBuf,
}

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let temp = tempfile::tempdir().unwrap();
        let at = temp.path().join("mnt");
        fs::create_dir(&at).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&at)
            .status()
            .unwrap();
        assert!(
            status.success(),
            "mount -t tmpfs failed (this test runs as root)"
        );
        Tmpfs { _temp: temp, at }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.at).status();
    }
}

fn command(root: &Path, cache: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
    command
        .env("AGENT_MEMORY_CACHE_DIR", cache)
        .env_remove("AGENT_MEMORY_DIR")
        .env_remove("AGENT_MEMORY_NOW")
        .arg("--root")
        .arg(root)
        .args(["--project", PROJECT, "--now", NOW])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Every file under `dir` with its bytes, but the lock file (made and
/// removed by each command).
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel.ends_with(".agent-memory.lock") {
                continue;
            }
            if path.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                walk(base, &path, out);
            } else {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Write zeros into `path` until the file system refuses.
fn fill(path: &Path) {
    let mut file = fs::File::create(path).unwrap();
    let block = vec![0u8; 4096];
    while file.write_all(&block).is_ok() {}
    let _ = file.sync_all();
}

#[test]
fn every_kind_of_change_on_a_full_disk_fails_and_leaves_no_trace() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: mounting a tmpfs needs root");
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let disk = Tmpfs::mount("1m");
    let root = disk.at.join("memory");
    let run =
        |args: &[&str]| -> Output { command(&root, cache.path()).args(args).output().unwrap() };
    let ok = |args: &[&str]| {
        let out = run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    ok(&["write", "note", "--name", "keep", "hello\n"]);
    ok(&["write", "note", "--name", "keep", "second line\n"]);
    ok(&["write", "long_term", "- the index line\n"]);
    // Larger than a whole-file append: appended to in place.
    // Two writes: one is capped at 64 KiB.
    let half = "a line of the big note\n".repeat(2000);
    ok(&["write", "note", "--name", "big", "--overwrite", &half]);
    ok(&["write", "note", "--name", "big", &half]);
    fill(&disk.at.join("filler"));
    let before = tree(&root);
    let large = "x".repeat(60_000);
    let edit =
        format!(r#"{{"target":"note","name":"keep","old_text":"hello","new_text":"{large}"}}"#);
    let create =
        format!(r#"{{"command":"create","path":"/memories/fresh.md","file_text":"{large}"}}"#);
    let changes: Vec<(&str, Vec<&str>)> = vec![
        (
            "overwrite",
            vec!["write", "note", "--name", "keep", "--overwrite", &large],
        ),
        (
            "append (whole file)",
            vec!["write", "note", "--name", "keep", &large],
        ),
        (
            "append (in place)",
            vec!["write", "note", "--name", "big", &large],
        ),
        ("append to MEMORY.md", vec!["write", "long_term", &large]),
        ("edit", vec!["call", "memory_edit", &edit]),
        ("memory create", vec!["call", "memory", &create]),
        ("undo (a restore)", vec!["undo"]),
    ];
    for (what, args) in changes {
        let out = run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            !out.status.success(),
            "{what} succeeded on a full disk: {stdout}"
        );
        assert!(
            stderr.contains("the disk is full") || stdout.contains("the disk is full"),
            "{what}: {stderr}{stdout}"
        );
        assert_eq!(tree(&root), before, "{what} left a trace");
    }
    // Room again: the store works, and history has no version of a failed
    // change.
    fs::remove_file(disk.at.join("filler")).unwrap();
    let history = command(&root, cache.path())
        .args(["history", "note", "keep"])
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&history.stdout);
    assert_eq!(
        listing.lines().filter(|l| l.starts_with('v')).count(),
        2,
        "{listing}"
    );
    ok(&["write", "note", "--name", "keep", "third line\n"]);
}
