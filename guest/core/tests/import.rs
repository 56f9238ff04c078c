//! `import-file`: the name rules, the secret guard, dry runs, history as
//! `import`, and content comparison that adds nothing twice.

use std::path::Path;

use agent_memory_core::secrets::SecretPolicy;
use agent_memory_core::{
    Clock, ErrorKind, ImportOutcome, Memory, Operation, Options, ReadSource, WriteTarget,
};

const TOKEN: &str = "ghp_Q3vN8xT2mL5pR9wK4yH7jD1sF6gB0cZ8aE3u";

fn open(root: &Path, secrets: SecretPolicy) -> Memory {
    let mut options = Options::new("/src/app");
    options.clock = Clock {
        utc_offset_minutes: 0,
        fixed_unix_seconds: Some(1_780_125_300),
    };
    options.secrets = secrets;
    Memory::open(root, options).unwrap()
}

fn files(root: &Path) -> usize {
    walk(root)
}

fn walk(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .map(|e| {
                if e.path().is_dir() {
                    walk(&e.path())
                } else {
                    1
                }
            })
            .sum()
    })
}

#[test]
fn a_dry_run_checks_everything_and_writes_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let memory = open(temp.path(), SecretPolicy::Block);
    let receipt = memory
        .import_file(WriteTarget::Note, Some("a/b"), "# B\n", true)
        .unwrap();
    assert_eq!(receipt.outcome, ImportOutcome::Created);
    assert_eq!(receipt.bytes_written, 4);
    assert_eq!(files(temp.path()), 0, "nothing on disk, not even a lock");
    let refused = memory
        .import_file(WriteTarget::Note, Some("CON"), "x", true)
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::InvalidName);
    let secret = memory
        .import_file(
            WriteTarget::LongTerm,
            None,
            &format!("- token {TOKEN}"),
            true,
        )
        .unwrap_err();
    assert_eq!(secret.kind(), ErrorKind::SecretDetected);
    assert!(!secret.message().contains(TOKEN));
}

#[test]
fn daily_logs_need_a_real_date() {
    let temp = tempfile::tempdir().unwrap();
    let memory = open(temp.path(), SecretPolicy::Block);
    let kind = |name| {
        memory
            .import_file(WriteTarget::Daily, name, "x", false)
            .unwrap_err()
            .kind()
    };
    assert_eq!(kind(None), ErrorKind::MissingName);
    assert_eq!(kind(Some("2026-02-30")), ErrorKind::InvalidDate);
    let receipt = memory
        .import_file(
            WriteTarget::Daily,
            Some("2026-02-28"),
            "- old entry\n",
            false,
        )
        .unwrap();
    assert_eq!(
        receipt.path,
        format!("{}/daily/2026-02-28.md", memory.project_dir())
    );
}

#[test]
fn text_over_the_write_cap_is_refused_not_cut() {
    let temp = tempfile::tempdir().unwrap();
    let memory = open(temp.path(), SecretPolicy::Block);
    let big = "x".repeat(memory.limits().max_write_bytes + 1);
    let error = memory
        .import_file(WriteTarget::Note, Some("big"), &big, false)
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidArguments);
    assert_eq!(files(temp.path()), 0);
}

#[test]
fn imports_are_recorded_and_never_repeat() {
    let temp = tempfile::tempdir().unwrap();
    let memory = open(temp.path(), SecretPolicy::Block);
    memory
        .import_file(WriteTarget::LongTerm, None, "- a\n- b\n", false)
        .unwrap();
    let again = memory
        .import_file(WriteTarget::LongTerm, None, "- b\n- c\n- a\n", false)
        .unwrap();
    assert_eq!(again.outcome, ImportOutcome::Appended);
    assert_eq!(
        memory.read(ReadSource::LongTerm, None).unwrap().unwrap(),
        "- a\n- b\n- c\n"
    );
    let versions = memory.history(ReadSource::LongTerm, None, None).unwrap();
    assert_eq!(versions.len(), 2);
    assert!(versions.iter().all(|v| v.operation == Operation::Import));
    assert_eq!(
        versions[0].bytes,
        Some(8),
        "the version before the second import"
    );

    let unchanged = memory
        .import_file(WriteTarget::LongTerm, None, "- c\n", false)
        .unwrap();
    assert_eq!(unchanged.outcome, ImportOutcome::Unchanged);
    assert_eq!(
        memory
            .history(ReadSource::LongTerm, None, None)
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_redacted_import_compares_as_stored() {
    let temp = tempfile::tempdir().unwrap();
    let memory = open(temp.path(), SecretPolicy::Redact);
    let text = format!("deploy with {TOKEN}\n");
    let first = memory
        .import_file(WriteTarget::Note, Some("deploy"), &text, false)
        .unwrap();
    assert_eq!(first.outcome, ImportOutcome::Created);
    assert!(!first.warnings.is_empty());
    let stored = memory
        .read(ReadSource::Note, Some("deploy"))
        .unwrap()
        .unwrap();
    assert!(stored.contains("[REDACTED:github-pat]") && !stored.contains(TOKEN));
    let second = memory
        .import_file(WriteTarget::Note, Some("deploy"), &text, false)
        .unwrap();
    assert_eq!(second.outcome, ImportOutcome::Unchanged);
}
