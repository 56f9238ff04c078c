//! The defects that separate write paths let through, one test each: every
//! change now goes through one pipeline, and each of these failed while
//! some path skipped a step.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use agent_memory_core::secrets::SecretPolicy;
use agent_memory_core::{
    Clock, ErrorKind, Memory, Options, ReadSource, Retention, Scope, WriteMode, WriteTarget, tools,
};

/// A fake GitHub token of the documented shape.
const TOKEN: &str = "ghp_Q3vN8xT2mL5pR9wK4yH7jD1sF6gB0cZ8aE3u";
const NOW: i64 = 1_780_125_300;

struct Fixture {
    _dirs: tempfile::TempDir,
    root: std::path::PathBuf,
    team: std::path::PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dirs = tempfile::tempdir().unwrap();
        let root = dirs.path().join("root");
        let team = dirs.path().join("repo/.agent-memory");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&team).unwrap();
        Fixture {
            _dirs: dirs,
            root,
            team,
        }
    }

    fn open(&self, policy: SecretPolicy) -> Memory {
        let options = Options {
            clock: Clock {
                utc_offset_minutes: 0,
                fixed_unix_seconds: Some(NOW),
            },
            secrets: policy,
            source: "test".into(),
            retention: Retention::default(),
            ..Options::new("/src/app")
        };
        Memory::open(&self.root, options)
            .unwrap()
            .with_team(&self.team)
    }

    fn notes(&self, m: &Memory) -> std::path::PathBuf {
        self.root.join(m.project_dir()).join("notes")
    }
}

/// Every file under `dir`, by relative path.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
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

fn note(m: &Memory, name: &str, text: &str) {
    m.write(WriteTarget::Note, text, WriteMode::Overwrite, Some(name))
        .unwrap();
}

fn read(m: &Memory, name: &str) -> Option<String> {
    m.read(ReadSource::Note, Some(name)).unwrap()
}

/// Defect 2: a token in a note name is a secret like one in the text.
#[test]
fn a_secret_in_a_name_is_refused_on_every_path() {
    let f = Fixture::new();
    let m = f.open(SecretPolicy::Block);
    note(&m, "plain", "hello\n");
    let before = tree(&f.root);
    let tries: Vec<(&str, agent_memory_core::Result<String>)> = vec![
        (
            "write",
            m.write(WriteTarget::Note, "hi", WriteMode::Append, Some(TOKEN))
                .map(|r| r.message),
        ),
        ("rename", m.rename_note("plain", TOKEN).map(|r| r.message)),
        (
            "memory create",
            tools::call(
                &m,
                "memory",
                &format!(
                    r#"{{"command":"create","path":"/memories/{TOKEN}.md","file_text":"hi"}}"#
                ),
            ),
        ),
        (
            "memory folder",
            tools::call(
                &m,
                "memory",
                &format!(
                    r#"{{"command":"create","path":"/memories/{TOKEN}/a.md","file_text":"hi"}}"#
                ),
            ),
        ),
        (
            "import",
            m.import_file(WriteTarget::Note, Some(TOKEN), "hi", false)
                .map(|r| r.message),
        ),
    ];
    for (what, result) in tries {
        let err = result.expect_err(what);
        assert_eq!(err.kind(), ErrorKind::SecretDetected, "{what}: {err}");
        assert!(err.message().contains("github-pat"), "{what}: {err}");
        assert!(!err.message().contains(&TOKEN[4..]), "{what} echoed it");
    }
    assert_eq!(tree(&f.root), before, "a refused name changed the store");
    // With the guard off, names are the host's business.
    let off = f.open(SecretPolicy::Off);
    off.write(WriteTarget::Note, "hi", WriteMode::Append, Some(TOKEN))
        .unwrap();
}

/// Defect 3: restore and undo go through the guard.
#[test]
fn restoring_a_version_that_holds_a_secret_is_guarded() {
    let f = Fixture::new();
    let off = f.open(SecretPolicy::Off);
    note(&off, "keys", &format!("token {TOKEN}\n"));
    note(&off, "keys", "token in the vault\n");
    let version = off.last_change().unwrap().unwrap();
    let blocked = f.open(SecretPolicy::Block);
    let err = blocked.restore(&version.id).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::SecretDetected, "{err}");
    assert!(err.message().contains(&version.id), "{err}");
    assert!(!err.message().contains(&TOKEN[4..]));
    assert_eq!(read(&blocked, "keys").unwrap(), "token in the vault\n");
    let redact = f.open(SecretPolicy::Redact);
    let receipt = redact.restore(&version.id).unwrap();
    assert!(receipt.message.contains("redacted"), "{}", receipt.message);
    assert_eq!(
        read(&redact, "keys").unwrap(),
        "token [REDACTED:github-pat]\n"
    );
}

/// Defect 4: undoing a rename puts the note back where it was.
#[test]
fn undo_of_a_rename_restores_the_note_under_its_old_name() {
    let f = Fixture::new();
    let m = f.open(SecretPolicy::Block);
    note(&m, "a", "alpha\n");
    m.rename_note("a", "b").unwrap();
    let last = m.last_change().unwrap().unwrap();
    m.restore(&last.id).unwrap();
    assert_eq!(read(&m, "a").as_deref(), Some("alpha\n"));
    assert_eq!(read(&m, "b"), None);
    // The undo is itself one change: undoing it renames again.
    let undo = m.last_change().unwrap().unwrap();
    m.restore(&undo.id).unwrap();
    assert_eq!(read(&m, "a"), None);
    assert_eq!(read(&m, "b").as_deref(), Some("alpha\n"));
}

#[test]
fn undo_of_a_folder_rename_through_the_memory_tool_restores_every_note() {
    let f = Fixture::new();
    let m = f.open(SecretPolicy::Block);
    note(&m, "ops/deploy", "deploy\n");
    note(&m, "ops/db/backup", "backup\n");
    tools::call(
        &m,
        "memory",
        r#"{"command":"rename","old_path":"/memories/ops","new_path":"/memories/run"}"#,
    )
    .unwrap();
    assert_eq!(read(&m, "run/db/backup").as_deref(), Some("backup\n"));
    let last = m.last_change().unwrap().unwrap();
    let receipt = m.restore(&last.id).unwrap();
    assert!(receipt.message.contains("4 files"), "{}", receipt.message);
    assert_eq!(read(&m, "ops/deploy").as_deref(), Some("deploy\n"));
    assert_eq!(read(&m, "ops/db/backup").as_deref(), Some("backup\n"));
    assert_eq!(read(&m, "run/deploy"), None);
    assert_eq!(read(&m, "run/db/backup"), None);
}

/// Defect 6: a refused `memory` rename makes no folders.
#[test]
fn a_refused_memory_rename_changes_nothing() {
    let f = Fixture::new();
    let m = f.open(SecretPolicy::Block);
    note(&m, "kept", "x\n");
    let before = tree(&f.root);
    let err = tools::call(
        &m,
        "memory",
        r#"{"command":"rename","old_path":"/memories/nope.md","new_path":"/memories/new/deep/x.md"}"#,
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert_eq!(tree(&f.root), before);
    assert!(!f.notes(&m).join("new").exists());
}

/// Defect 7: import refuses a team note with conflict markers, as a
/// write does.
#[test]
fn import_into_a_conflicted_team_note_is_refused() {
    let f = Fixture::new();
    let m = f.open(SecretPolicy::Block);
    let conflicted = "a\n<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n";
    fs::create_dir_all(f.team.join("notes")).unwrap();
    fs::write(f.team.join("notes/deploy.md"), conflicted).unwrap();
    let team = m.scoped(Scope::Team).unwrap();
    let err = team
        .import_file(WriteTarget::Note, Some("deploy"), "new fact\n", false)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert_eq!(
        fs::read_to_string(f.team.join("notes/deploy.md")).unwrap(),
        conflicted
    );
}

/// Defect 8: a snapshot is checked whole before it touches the previous
/// one, and a first snapshot with no notes works.
#[test]
fn a_refused_snapshot_leaves_the_previous_one_and_an_empty_one_works() {
    let f = Fixture::new();
    let m = f.open(SecretPolicy::Block);
    let empty = m.take_snapshot().unwrap();
    assert_eq!(empty.notes, 0);
    assert!(f.team.join("snapshot/TAKEN").is_file());
    note(&m, "a", "alpha\n");
    note(&m, "b", "beta\n");
    m.take_snapshot().unwrap();
    let before = tree(&f.team.join("snapshot"));
    m.delete_note("a").unwrap();
    // A personal note whose text would put conflict markers into git.
    note(&m, "b", "x\n<<<<<<< ours\ny\n=======\nz\n>>>>>>> theirs\n");
    let err = m.take_snapshot().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert_eq!(tree(&f.team.join("snapshot")), before);
}

/// Defect 9: the memory tool reports what history could not record.
#[test]
fn the_memory_tool_reports_history_warnings() {
    let f = Fixture::new();
    let m = f.open(SecretPolicy::Block);
    note(&m, "gone", "text\n");
    // A journal that is a folder cannot be appended to.
    let journal = f.root.join(".store/history/journal");
    fs::remove_file(&journal).unwrap();
    fs::create_dir(&journal).unwrap();
    let reply = tools::call(
        &m,
        "memory",
        r#"{"command":"delete","path":"/memories/gone.md"}"#,
    )
    .unwrap();
    assert!(
        reply.starts_with("Successfully deleted /memories/gone.md\n\n"),
        "{reply}"
    );
    assert!(reply.contains("history did not save"), "{reply}");
}

/// Defect 10: the team store has no daily logs; nothing of the personal
/// layout is written into it.
#[test]
fn team_scope_refuses_daily_targets_on_every_path() {
    let f = Fixture::new();
    let m = f.open(SecretPolicy::Block);
    let team = m.scoped(Scope::Team).unwrap();
    let before = tree(&f.team);
    for (what, err) in [
        ("append-daily", team.append_daily("h", "b").unwrap_err()),
        ("flush", team.flush_compaction("s", Some(3)).unwrap_err()),
        (
            "import",
            team.import_file(WriteTarget::Daily, Some("2026-05-01"), "x", false)
                .unwrap_err(),
        ),
    ] {
        assert_eq!(err.kind(), ErrorKind::InvalidTarget, "{what}: {err}");
    }
    assert_eq!(tree(&f.team), before);
}

/// Defect 11: import never rewrites bytes it cannot read as UTF-8.
#[test]
fn import_refuses_a_file_that_is_not_utf8() {
    let f = Fixture::new();
    let m = f.open(SecretPolicy::Block);
    note(&m, "bin", "x\n");
    let path = f.notes(&m).join("bin.md");
    fs::write(&path, b"caf\xe9\n").unwrap();
    let err = m
        .import_file(WriteTarget::Note, Some("bin"), "more\n", false)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err}");
    assert!(err.message().contains("UTF-8"), "{err}");
    assert_eq!(fs::read(&path).unwrap(), b"caf\xe9\n");
}

/// A change that touches several files is one history entry: the
/// snapshot apply is undone as one.
#[test]
fn a_snapshot_apply_is_undone_as_one() {
    let f = Fixture::new();
    let m = f.open(SecretPolicy::Block);
    note(&m, "a", "alpha\n");
    note(&m, "b", "beta\n");
    m.take_snapshot().unwrap();
    note(&m, "a", "alpha 2\n");
    m.delete_note("b").unwrap();
    m.apply_snapshot().unwrap();
    assert_eq!(read(&m, "b").as_deref(), Some("beta\n"));
    let last = m.last_change().unwrap().unwrap();
    m.restore(&last.id).unwrap();
    assert_eq!(read(&m, "a").as_deref(), Some("alpha 2\n"));
    assert_eq!(read(&m, "b"), None);
}

/// Each file keeps its own number of versions: when one file of a
/// several-file change has had its version pruned, restoring the change
/// puts back the files whose versions remain instead of failing.
#[test]
fn a_change_whose_other_file_was_pruned_still_restores_what_remains() {
    let f = Fixture::new();
    let options = Options {
        clock: Clock {
            utc_offset_minutes: 0,
            fixed_unix_seconds: Some(NOW),
        },
        retention: Retention {
            max_versions_per_file: 2,
            ..Retention::default()
        },
        ..Options::new("/src/app")
    };
    let m = Memory::open(&f.root, options).unwrap();
    note(&m, "a", "alpha\n");
    m.rename_note("a", "b").unwrap();
    let renamed = m.history(ReadSource::Note, Some("b"), None).unwrap()[0].clone();
    // Two more versions of `a` push its side of the rename out of view.
    note(&m, "a", "again\n");
    note(&m, "a", "and again\n");
    let receipt = m.restore(&renamed.id).unwrap();
    assert!(
        receipt.message.contains("did not exist"),
        "{}",
        receipt.message
    );
    assert_eq!(read(&m, "b"), None);
    assert_eq!(read(&m, "a").as_deref(), Some("and again\n"));
}
