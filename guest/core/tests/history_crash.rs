//! `kill -9` at random moments while `examples/history_writer` overwrites,
//! appends, edits, renames, deletes, restores and prunes: after every kill the note is one whole
//! version, every journal entry's saved content exists and hashes right,
//! and every version id that history lists reads back as a whole version.
//!
//! The writer is a cargo example, built by the test through the cargo that
//! runs it.
//! `AGENT_MEMORY_CRASH_SEED` replays the kill moments of an earlier run.

#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use agent_memory_core::{Memory, Options, ReadSource};
use sha2::{Digest, Sha256};

const KILLS: usize = 100;

/// The example binary next to this test's profile directory, (re)built
/// first through the cargo that runs the test, so it is never stale
/// (`cargo test --test history_crash` does not build examples).
fn writer() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/history_crash-<hash>
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let path = profile_dir
        .join("examples")
        .join(format!("history_writer{}", std::env::consts::EXE_SUFFIX));
    if let Some(cargo) = std::env::var_os("CARGO") {
        let mut build = Command::new(cargo);
        build.args([
            "build",
            "-p",
            "agent-memory-core",
            "--example",
            "history_writer",
        ]);
        if profile_dir.file_name().is_some_and(|n| n == "release") {
            build.arg("--release");
        }
        let status = build.status().expect("run cargo to build the writer");
        assert!(status.success(), "building examples/history_writer failed");
    }
    assert!(path.exists(), "{} missing", path.display());
    path
}

/// xorshift64*, seeded per run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn version(n: u64) -> String {
    let body = format!("line of version {n:06} ").repeat(300);
    format!("BEGIN {n:06}\n{body}\nEND {n:06}\n")
}

fn whole_version(text: &str) -> Option<u64> {
    let n: u64 = text.strip_prefix("BEGIN ")?.get(..6)?.parse().ok()?;
    (text == version(n)).then_some(n)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Check the journal as the format documents it: for every line whose
/// checksum holds, an entry with its own object (`sha` and no `prefix`)
/// names a file in `objects/` whose SHA-256 is its name. Returns the number
/// of such entries and of lines that failed their checksum.
fn check_journal(root: &Path) -> (usize, usize) {
    let dir = root.join(".store/history");
    let Ok(text) = fs::read(dir.join("journal")) else {
        return (0, 0);
    };
    let (mut objects, mut bad) = (0, 0);
    // The last piece has no `\n` when a kill tore it: it is not a line yet.
    let complete = &text[..text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)];
    for line in complete.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let line = String::from_utf8_lossy(line);
        let Some((sum, json)) = line.split_once(' ') else {
            bad += 1;
            continue;
        };
        if hex(&Sha256::digest(json.as_bytes())[..4]) != sum {
            bad += 1;
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        let (Some(sha), false) = (value["sha"].as_str(), value["prefix"] == true) else {
            continue;
        };
        let content = fs::read(dir.join("objects").join(sha))
            .unwrap_or_else(|e| panic!("entry {} names missing object {sha}: {e}", value["id"]));
        assert_eq!(hex(&Sha256::digest(&content)), sha, "object {sha} damaged");
        assert_eq!(Some(content.len() as u64), value["size"].as_u64());
        objects += 1;
    }
    (objects, bad)
}

#[test]
fn kill_9_never_leaves_a_version_id_without_content() {
    let writer = writer();
    let seed = std::env::var("AGENT_MEMORY_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("AGENT_MEMORY_CRASH_SEED={seed}");
    let mut rng = Rng(seed);
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("memory");
    let (mut listed_total, mut torn_lines, mut last_n) = (0, 0, 0);
    for kill in 0..KILLS {
        let mut child = Command::new(&writer)
            .arg(&root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(5_000 + rng.next() % 115_000));
        // Still running: a writer that exits failed, and says why.
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            panic!(
                "kill {kill}: the writer exited {status}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // The holder is dead: break its lock as the lease would, at once.
        let _ = fs::remove_file(root.join(".agent-memory.lock"));

        let memory = Memory::open(&root, Options::new("/work/src/crash-app")).unwrap();
        let note = memory.read(ReadSource::Note, Some("state")).unwrap();
        if let Some(text) = &note {
            let n = whole_version(text)
                .unwrap_or_else(|| panic!("kill {kill}: the note is not a whole version"));
            last_n = last_n.max(n);
        }
        let (_, bad) = check_journal(&root);
        torn_lines = bad;
        // The curated notes: absent, or one whole version, edited or not.
        for name in ["side", "moved/side"] {
            if let Some(text) = memory.read(ReadSource::Note, Some(name)).unwrap() {
                assert!(
                    whole_version(&text.replace("\nFIN ", "\nEND ")).is_some(),
                    "kill {kill}: note {name} is not a whole version"
                );
            }
        }
        for (source, name, whole) in [
            (ReadSource::Note, Some("state"), true),
            (ReadSource::Note, Some("side"), false),
            (ReadSource::Note, Some("moved/side"), false),
            (ReadSource::Daily, None, false),
        ] {
            for v in memory.history(source, name, None).unwrap() {
                let text = memory
                    .version_text(&v.id)
                    .unwrap_or_else(|e| panic!("kill {kill}: {} listed but {e}", v.id));
                assert_eq!(text.as_ref().map(|t| t.len() as u64), v.bytes, "{}", v.id);
                if whole && let Some(text) = text {
                    assert!(whole_version(&text).is_some(), "kill {kill}: {} torn", v.id);
                }
                listed_total += 1;
            }
        }
    }
    // The history kept up: versions listed, the note moved on, and the
    // journal was rewritten often enough that few torn lines remain.
    assert!(last_n > 20, "the writer only reached version {last_n}");
    assert!(listed_total > KILLS, "{listed_total} versions listed");
    assert!(torn_lines <= KILLS, "{torn_lines}");
    let (objects, _) = check_journal(&root);
    eprintln!(
        "{KILLS} kills: note at version {last_n}, {listed_total} versions listed and read back, \
         {objects} objects named, {torn_lines} torn lines"
    );
}
