//! A writer for the kill -9 test of history (`tests/history_crash.rs`):
//! loops forever over one store, overwriting the note `state` with numbered
//! versions, appending to today's log, and now and then restoring an older
//! version of the note, with a retention small enough that nearly every
//! change also prunes. The test kills it at random moments.
//!
//! Usage: `history_writer <root>`. It continues from the version the note
//! holds, so runs can follow each other on one root.

use std::path::PathBuf;

use agent_memory_core::{
    Memory, Options, ReadSource, Retention, WriteMode, WriteTarget, history::MIN_TOTAL_BYTES,
};

/// Version `n` of the note: a header, a body derived from `n`, a footer, so
/// any mix of two versions or a cut is detectable.
pub fn version(n: u64) -> String {
    let body = format!("line of version {n:06} ").repeat(300);
    format!("BEGIN {n:06}\n{body}\nEND {n:06}\n")
}

fn main() {
    let root: PathBuf = std::env::args_os()
        .nth(1)
        .expect("usage: history_writer <root>")
        .into();
    std::fs::create_dir_all(&root).expect("create the root");
    let mut options = Options::new("/work/src/crash-app");
    options.source = "history_writer".into();
    // Four versions a note and 16x the smallest budget: with ~7 KiB versions
    // the byte bound prunes every few changes, so kills land mid-prune too.
    options.retention = Retention {
        max_versions_per_file: 4,
        max_total_bytes: 16 * MIN_TOTAL_BYTES,
    };
    let memory = Memory::open(&root, options).expect("open the store");
    let current = memory
        .read(ReadSource::Note, Some("state"))
        .expect("read the note")
        .and_then(|text| text.get(6..12).and_then(|n| n.parse::<u64>().ok()))
        .unwrap_or(0);
    for n in current + 1.. {
        memory
            .write(
                WriteTarget::Note,
                &version(n),
                WriteMode::Overwrite,
                Some("state"),
            )
            .expect("overwrite the note");
        if n % 3 == 0 {
            memory
                .append_daily(&format!("entry {n}"), &format!("after version {n}"))
                .expect("append to the log");
        }
        if n % 5 == 0 {
            let versions = memory
                .history(ReadSource::Note, Some("state"), Some(2))
                .expect("list the note's versions");
            if let Some(older) = versions.get(1) {
                memory.restore(&older.id).expect("restore a version");
            }
        }
    }
}
