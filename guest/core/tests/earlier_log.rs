//! Which earlier log the context block shows. The last week is looked up by
//! name; anything older needs the directory listing. Both must pick the most
//! recent non-blank regular log before today.

use std::fs;
use std::path::Path;

use agent_memory_core::names::project_slug;
use agent_memory_core::time::Date;
use agent_memory_core::{Clock, Memory, Options};

const PROJECT: &str = "/home/dev/src/my-app";

/// Noon UTC on `date`.
fn open_at(root: &Path, date: Date) -> Memory {
    let mut options = Options::new(PROJECT);
    options.clock = Clock {
        utc_offset_minutes: 0,
        fixed_unix_seconds: Some(date.to_days() * 86_400 + 12 * 3600),
    };
    Memory::open(root, options).unwrap()
}

fn daily(root: &Path) -> std::path::PathBuf {
    let dir = root
        .join("projects")
        .join(project_slug(PROJECT))
        .join("daily");
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn day(s: &str) -> Date {
    agent_memory_core::names::daily_date(s).unwrap()
}

fn earlier(block: &str) -> Option<&str> {
    block
        .lines()
        .find(|l| l.starts_with("## Daily log ") && !l.ends_with("(today)"))
}

#[test]
fn a_gap_longer_than_a_week_falls_back_to_the_listing() {
    let dir = tempfile::tempdir().unwrap();
    let logs = daily(dir.path());
    fs::write(logs.join("2026-04-01.md"), "older\n").unwrap();
    fs::write(logs.join("2026-05-10.md"), "before the holiday\n").unwrap();
    // Blank logs inside the week looked up by name are skipped.
    fs::write(logs.join("2026-05-29.md"), " \n").unwrap();
    fs::write(logs.join("2026-05-25.md"), "\n\n").unwrap();
    let block = open_at(dir.path(), day("2026-05-30"))
        .context_block()
        .unwrap()
        .unwrap();
    assert_eq!(earlier(&block), Some("## Daily log 2026-05-10"), "{block}");
    assert!(block.contains("before the holiday") && !block.contains("older"));
}

#[test]
fn the_latest_log_within_the_week_wins() {
    let dir = tempfile::tempdir().unwrap();
    let logs = daily(dir.path());
    fs::write(logs.join("2026-05-20.md"), "last week\n").unwrap();
    fs::write(logs.join("2026-05-26.md"), "tuesday\n").unwrap();
    fs::write(logs.join("2026-05-28.md"), "thursday\n").unwrap();
    fs::write(logs.join("2026-05-31.md"), "tomorrow\n").unwrap();
    let block = open_at(dir.path(), day("2026-05-30"))
        .context_block()
        .unwrap()
        .unwrap();
    assert_eq!(earlier(&block), Some("## Daily log 2026-05-28"), "{block}");
    assert!(!block.contains("tomorrow") && !block.contains("tuesday"));
}

#[cfg(unix)]
#[test]
fn logs_that_are_not_plain_files_are_passed_over_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let logs = daily(dir.path());
    fs::write(logs.join("2026-05-01.md"), "plain\n").unwrap();
    // Within the week: a symlink and a hard-linked file are not logs.
    fs::write(dir.path().join("outside.md"), "outside\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside.md"), logs.join("2026-05-29.md")).unwrap();
    fs::hard_link(dir.path().join("outside.md"), logs.join("2026-05-28.md")).unwrap();
    // Beyond it, found only by listing: a directory named like a log.
    fs::create_dir(logs.join("2026-05-15.md")).unwrap();
    let block = open_at(dir.path(), day("2026-05-30"))
        .context_block()
        .unwrap()
        .unwrap();
    assert_eq!(earlier(&block), Some("## Daily log 2026-05-01"), "{block}");
    assert!(!block.contains("outside"));
}
