//! What a change does besides its files happens inside it: the `memory`
//! tool's folder removal is a step of its change (recorded with the notes,
//! undone with them), the markers are written in the change that sets
//! them, and a dry run writes nothing anywhere.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use agent_memory_core::secrets::SecretPolicy;
use agent_memory_core::{
    BatchChange, Clock, Memory, Options, ReadSource, ReviewGate, WriteMode, WriteTarget, tools,
};

const NOW: i64 = 1_780_125_300;

struct Fixture {
    _dirs: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
    team: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dirs = tempfile::tempdir().unwrap();
        let base = dirs.path().to_path_buf();
        let root = base.join("root");
        let team = base.join("repo/.agent-memory");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&team).unwrap();
        Fixture {
            _dirs: dirs,
            base,
            root,
            team,
        }
    }

    fn open_with(&self, review: ReviewGate) -> Memory {
        let options = Options {
            clock: Clock {
                utc_offset_minutes: 0,
                fixed_unix_seconds: Some(NOW),
            },
            secrets: SecretPolicy::Block,
            source: "test".into(),
            review,
            ..Options::new("/src/app")
        };
        Memory::open(&self.root, options)
            .unwrap()
            .with_team(&self.team)
    }

    fn open(&self) -> Memory {
        self.open_with(ReviewGate::default())
    }
}

/// Every entry under `dir`, hidden ones and the store's own included:
/// files by content, folders and links by kind.
fn everything(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap().flatten() {
            let path = e.path();
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let kind = fs::symlink_metadata(&path).unwrap().file_type();
            if kind.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                walk(base, &path, out);
            } else if kind.is_file() {
                out.insert(rel, fs::read(&path).unwrap());
            } else {
                out.insert(rel, b"(not a file)".to_vec());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn note(m: &Memory, name: &str, text: &str) {
    m.write(WriteTarget::Note, text, WriteMode::Overwrite, Some(name))
        .unwrap();
}

fn read(m: &Memory, name: &str) -> Option<String> {
    m.read(ReadSource::Note, Some(name)).unwrap()
}

fn memory(m: &Memory, call: serde_json::Value) -> String {
    tools::call(m, "memory", &call.to_string()).unwrap()
}

#[test]
fn a_folder_delete_is_one_change_that_undo_puts_back_with_its_folders() {
    let f = Fixture::new();
    let m = f.open();
    note(&m, "ops/deploy", "deploy\n");
    note(&m, "ops/db/backup", "backup\n");
    let notes = f.root.join(m.project_dir()).join("notes");
    fs::create_dir_all(notes.join("ops/empty/deeper")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc/hostname", notes.join("ops/link.md")).unwrap();
        let fifo = notes.join("ops/db/pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo failed");
    }
    let out = memory(
        &m,
        serde_json::json!({"command": "delete", "path": "/memories/ops"}),
    );
    assert!(
        out.starts_with("Successfully deleted /memories/ops"),
        "{out}"
    );
    assert!(!notes.join("ops").exists(), "the folder is still there");
    assert!(fs::symlink_metadata(notes.join("ops")).is_err());

    // One change: one undo brings both notes, and their folders, back.
    let last = m.last_change().unwrap().unwrap();
    assert_eq!(last.operation.tool_word(), "delete");
    let receipt = m.undo(None).unwrap().unwrap();
    assert!(
        receipt.message.contains("the 2 files of change"),
        "{}",
        receipt.message
    );
    assert_eq!(read(&m, "ops/deploy").as_deref(), Some("deploy\n"));
    assert_eq!(read(&m, "ops/db/backup").as_deref(), Some("backup\n"));
    // What was not memory (empty folders, the link, the FIFO) stays gone.
    assert!(!notes.join("ops/empty").exists());
    assert!(fs::symlink_metadata(notes.join("ops/link.md")).is_err());
}

#[test]
fn review_dry_runs_write_nothing_anywhere() {
    let f = Fixture::new();
    let plain = f.open();
    note(&plain, "ops/deploy", "deploy\n");
    note(&plain, "old", "old\n");
    let gated = f.open_with(ReviewGate {
        personal: true,
        team: true,
    });
    // Queue one of each kind of change; each queueing runs a dry run first.
    for call in [
        serde_json::json!({"command": "delete", "path": "/memories/ops"}),
        serde_json::json!({"command": "create", "path": "/memories/new/deep.md", "file_text": "x\n"}),
    ] {
        let out = tools::call(&gated, "memory", &call.to_string()).unwrap();
        assert!(out.starts_with("Queued for review as p"), "{out}");
    }
    let queued = [
        (
            "memory_write",
            r#"{"target":"long_term","content":"- team line","scope":"team"}"#,
        ),
        ("memory_rename", r#"{"name":"old","new_name":"sub/new"}"#),
        ("memory_delete", r#"{"name":"ops/deploy"}"#),
        (
            "memory_batch",
            r#"{"changes":[{"tool":"memory_write","arguments":{"target":"note","name":"made","content":"m\n"}}],"reason":"consolidation"}"#,
        ),
    ];
    for (tool, args) in queued {
        let out = tools::call(&gated, tool, args).unwrap();
        assert!(out.starts_with("Queued for review as p"), "{tool}: {out}");
    }
    let before = everything(&f.base);
    // Listing the queue runs every queued call again as a dry run.
    let pending = gated.pending().unwrap();
    assert_eq!(pending.len(), 6);
    assert!(
        pending.iter().all(|p| !p.diff.starts_with("would fail")),
        "{pending:?}"
    );
    assert_eq!(everything(&f.base), before, "a dry run wrote something");
    // The team directory got no git files from them either.
    assert!(!f.team.join(".gitignore").exists());
    assert!(!f.team.join(".gitattributes").exists());
}

#[test]
fn the_team_git_files_come_with_the_first_change_there_not_with_a_lock() {
    let f = Fixture::new();
    let m = f.open();
    let team = m.team().unwrap();
    // A read locks nothing and writes nothing; a refused change neither.
    assert_eq!(team.read(ReadSource::LongTerm, None).unwrap(), None);
    assert!(
        team.write(WriteTarget::Scratchpad, "x", WriteMode::Append, None)
            .is_err()
    );
    assert!(!f.team.join(".gitignore").exists());
    team.write(WriteTarget::LongTerm, "- shared\n", WriteMode::Append, None)
        .unwrap();
    let ignore = fs::read_to_string(f.team.join(".gitignore")).unwrap();
    assert!(ignore.starts_with("# Written by agent-memory"), "{ignore}");
    assert!(f.team.join(".gitattributes").is_file());
}

#[test]
fn a_consolidation_marks_itself_in_its_own_change() {
    let f = Fixture::new();
    let m = f.open();
    let marker = f.root.join(m.project_dir()).join(".consolidated");
    // A consolidation that changes nothing marks nothing.
    note(&m, "kept", "same\n");
    let same = [BatchChange::Write {
        target: WriteTarget::Note,
        content: "same\n".into(),
        mode: WriteMode::Overwrite,
        name: Some("kept".into()),
    }];
    m.apply(&same, Some("consolidation")).unwrap();
    assert!(!marker.exists());
    assert_eq!(m.last_consolidation(), None);
    let changes = [BatchChange::Write {
        target: WriteTarget::LongTerm,
        content: "- distilled\n".into(),
        mode: WriteMode::Append,
        name: None,
    }];
    m.apply(&changes, Some("consolidation")).unwrap();
    assert_eq!(m.last_consolidation(), Some(NOW));
    assert_eq!(fs::read_to_string(&marker).unwrap(), NOW.to_string());
    // History records the memory file, not the marker.
    let last = m.last_change().unwrap().unwrap();
    assert_eq!(last.path, "MEMORY.md");
    assert!(
        m.history(ReadSource::LongTerm, None, None).unwrap().len() == 1,
        "one version of MEMORY.md"
    );
}
