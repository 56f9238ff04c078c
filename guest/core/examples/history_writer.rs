//! A writer for the kill -9 test of history (`tests/history_crash.rs`):
//! loops forever over one store, overwriting the note `state` with numbered
//! versions, appending to today's log, now and then restoring an older
//! version of the note, and taking a second note `side` through every
//! curation step (write, edit, rename to `moved/side`, delete, restore,
//! delete), with a retention small enough that nearly every
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
        if n % 2 == 0 {
            curate_side(&memory, n);
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

/// One round of curation on the note `side`: each step changes a file that
/// history must record before the change.
fn curate_side(memory: &Memory, n: u64) {
    // A kill can land between the restore and the second delete below, so a
    // restarted writer may find `moved/side` still there: clear it first.
    if memory
        .read(ReadSource::Note, Some("moved/side"))
        .expect("read moved/side")
        .is_some()
    {
        memory
            .delete_note("moved/side")
            .expect("delete the moved/side a killed round left");
    }
    memory
        .write(
            WriteTarget::Note,
            &version(n),
            WriteMode::Overwrite,
            Some("side"),
        )
        .expect("write side");
    memory
        .edit(
            WriteTarget::Note,
            Some("side"),
            &format!("END {n:06}"),
            &format!("FIN {n:06}"),
        )
        .expect("edit side");
    memory
        .rename_note("side", "moved/side")
        .expect("rename side");
    memory.delete_note("moved/side").expect("delete moved/side");
    let versions = memory
        .history(ReadSource::Note, Some("moved/side"), Some(1))
        .expect("list moved/side");
    if let Some(deleted) = versions.first() {
        memory.restore(&deleted.id).expect("restore moved/side");
    }
    memory
        .delete_note("moved/side")
        .expect("delete moved/side again");
}
