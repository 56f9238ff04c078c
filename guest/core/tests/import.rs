//! `import-file`: the name rules, the secret guard, dry runs, history as
//! `import`, and content comparison that adds nothing twice.

use std::path::Path;

use agent_memory_core::secrets::SecretPolicy;
use agent_memory_core::{
    Clock, ErrorKind, ImportItem, ImportOutcome, Memory, Operation, Options, ReadSource, WriteMode,
    WriteTarget,
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

/// Every memory file under `root` (the store's hidden `.store/` and lock
/// left out), by path, with its bytes.
fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn item(target: WriteTarget, name: Option<&str>, content: &str, source: &str) -> ImportItem {
    ImportItem {
        target,
        name: name.map(str::to_string),
        content: content.to_string(),
        source: source.to_string(),
        by_line: false,
    }
}

fn project_import() -> Vec<ImportItem> {
    vec![
        item(
            WriteTarget::Note,
            Some("memory-index"),
            "- [Deploys](deploys.md): staging first\n",
            "MEMORY.md",
        ),
        item(
            WriteTarget::Note,
            Some("deploys"),
            "# Deploys\nstaging first\n",
            "deploys.md",
        ),
        item(WriteTarget::Note, Some("user"), "writes Go\n", "user.md"),
        item(
            WriteTarget::Daily,
            Some("2026-05-28"),
            "### 10:00 — ci\ngreen\n",
            "logs/2026/05/2026-05-28.md",
        ),
    ]
}

#[test]
fn an_import_of_several_files_is_one_change_that_one_undo_takes_back() {
    let temp = tempfile::tempdir().unwrap();
    let memory = open(temp.path(), SecretPolicy::Block);
    memory
        .write(
            WriteTarget::Note,
            "who: Dana\n",
            WriteMode::Append,
            Some("user"),
        )
        .unwrap();
    let before = snapshot(temp.path());

    let receipt = memory.import_files(&project_import(), false).unwrap();
    let outcomes: Vec<ImportOutcome> = receipt.files.iter().map(|f| f.outcome).collect();
    assert_eq!(
        outcomes,
        [
            ImportOutcome::Created,
            ImportOutcome::Created,
            ImportOutcome::Appended,
            ImportOutcome::Created
        ]
    );
    assert!(
        receipt
            .message
            .ends_with("Imported as one change: 3 created, 1 appended, 0 unchanged."),
        "{}",
        receipt.message
    );
    assert_eq!(
        memory
            .read(ReadSource::Note, Some("user"))
            .unwrap()
            .unwrap(),
        "who: Dana\n\nwrites Go\n"
    );
    // One change in history: every file's version has the same time and
    // operation, and undo takes all four back at once.
    let undone = memory.undo(None).unwrap().expect("an import to undo");
    assert!(undone.message.contains("4 files"), "{}", undone.message);
    assert_eq!(snapshot(temp.path()), before, "byte for byte");
    // Undo again redoes the whole import.
    memory.undo(None).unwrap().unwrap();
    assert_eq!(
        memory
            .read(ReadSource::Note, Some("deploys"))
            .unwrap()
            .unwrap(),
        "# Deploys\nstaging first\n"
    );
}

#[test]
fn a_reimport_changes_and_records_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let memory = open(temp.path(), SecretPolicy::Block);
    let before = snapshot(temp.path());
    memory.import_files(&project_import(), false).unwrap();
    let after = snapshot(temp.path());
    let again = memory.import_files(&project_import(), false).unwrap();
    assert!(
        again
            .files
            .iter()
            .all(|f| f.outcome == ImportOutcome::Unchanged && f.bytes_written == 0)
    );
    assert!(
        again
            .message
            .ends_with("Nothing imported: all 4 files were already in memory."),
        "{}",
        again.message
    );
    assert_eq!(snapshot(temp.path()), after);
    // Nothing was recorded: the one undo still takes back the import.
    memory.undo(None).unwrap().unwrap();
    assert_eq!(snapshot(temp.path()), before);
}

#[test]
fn a_refused_file_refuses_the_whole_import_naming_each() {
    let temp = tempfile::tempdir().unwrap();
    let memory = open(temp.path(), SecretPolicy::Block);
    memory
        .write(WriteTarget::LongTerm, "- kept\n", WriteMode::Append, None)
        .unwrap();
    let before = snapshot(temp.path());
    let mut items = project_import();
    items.push(item(
        WriteTarget::Note,
        Some("token"),
        &format!("deploy with {TOKEN}\n"),
        "token.md",
    ));
    items.push(item(WriteTarget::Note, Some("CON"), "x\n", "CON.md"));
    items.push(item(
        WriteTarget::Note,
        Some("deploys"),
        "again\n",
        "deploys-copy.md",
    ));
    let error = memory.import_files(&items, false).unwrap_err();
    assert_eq!(
        error.kind(),
        ErrorKind::SecretDetected,
        "the first refusal's kind"
    );
    let message = error.message();
    assert!(
        message.starts_with("3 of 7 files refused; nothing was imported:\n"),
        "{message}"
    );
    assert!(
        message.contains("\n  secret-detected: `token.md`: "),
        "{message}"
    );
    assert!(
        message.contains("\n  invalid-name: `CON.md`: "),
        "{message}"
    );
    assert!(
        message.contains("`deploys-copy.md`: goes to `projects/"),
        "{message}"
    );
    assert!(message.contains("as `deploys.md` does"), "{message}");
    assert!(!message.contains(TOKEN), "never echoed: {message}");
    assert_eq!(snapshot(temp.path()), before, "nothing written");
    // The same in a dry run.
    assert_eq!(
        memory.import_files(&items, true).unwrap_err().message(),
        message
    );
    // Nothing was recorded: undo takes back the write before.
    memory.undo(None).unwrap().unwrap();
    assert_eq!(memory.read(ReadSource::LongTerm, None).unwrap(), None);
}

#[test]
fn an_import_dry_run_says_what_each_file_would_get() {
    let temp = tempfile::tempdir().unwrap();
    let memory = open(temp.path(), SecretPolicy::Block);
    let receipt = memory.import_files(&project_import(), true).unwrap();
    assert_eq!(receipt.files.len(), 4);
    assert!(
        receipt
            .files
            .iter()
            .all(|f| f.outcome == ImportOutcome::Created)
    );
    assert_eq!(files(temp.path()), 0, "nothing on disk, not even a lock");
    let nothing = memory.import_files(&[], false).unwrap();
    assert_eq!(nothing.message, "Nothing to import.");
    assert_eq!(files(temp.path()), 0);
}
