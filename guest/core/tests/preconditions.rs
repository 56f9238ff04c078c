//! Undo, edit-if-unchanged and approve: each reads its precondition and
//! commits under one lock, as one change. One test per precondition, each
//! pinning what the store holds after it held and after it did not.

use std::fs;
use std::path::PathBuf;

use agent_memory_core::secrets::SecretPolicy;
use agent_memory_core::{
    Clock, ErrorKind, Memory, Options, ReadSource, ReviewGate, WriteMode, WriteTarget, tools,
};
use sha2::{Digest, Sha256};

const NOW: i64 = 1_780_125_300;

struct Fixture {
    _dirs: tempfile::TempDir,
    root: PathBuf,
    team: PathBuf,
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

fn overwrite(m: &Memory, text: &str) {
    m.write(WriteTarget::LongTerm, text, WriteMode::Overwrite, None)
        .unwrap();
}

fn long_term(m: &Memory) -> Option<String> {
    m.read(ReadSource::LongTerm, None).unwrap()
}

fn versions(m: &Memory) -> usize {
    m.history(ReadSource::LongTerm, None, None).unwrap().len()
}

fn sha256(text: &str) -> String {
    format!("{:x}", Sha256::digest(text.as_bytes()))
}

#[test]
fn undo_undoes_the_last_change_and_a_second_undo_redoes_it() {
    let f = Fixture::new();
    let m = f.open();
    for v in ["v1\n", "v2\n", "v3\n"] {
        overwrite(&m, v);
    }
    let last = m.last_change().unwrap().unwrap();
    let receipt = m.undo(None).unwrap().unwrap();
    assert_eq!(
        receipt.message.lines().next().unwrap(),
        format!(
            "Undid the last change (write of MEMORY.md): Restored MEMORY.md to version {} (3 bytes)",
            last.id
        )
    );
    assert_eq!(long_term(&m).as_deref(), Some("v2\n"));
    let receipt = m.undo(None).unwrap().unwrap();
    assert!(
        receipt
            .message
            .starts_with("Undid the last change (restore of MEMORY.md): "),
        "{}",
        receipt.message
    );
    assert_eq!(long_term(&m).as_deref(), Some("v3\n"));
}

#[test]
fn undo_with_the_id_it_expects_refuses_once_another_change_came_after() {
    let f = Fixture::new();
    let m = f.open();
    overwrite(&m, "v1\n");
    overwrite(&m, "v2\n");
    let shown = m.last_change().unwrap().unwrap();
    overwrite(&m, "v3\n");
    let now_last = m.last_change().unwrap().unwrap();
    let before = versions(&m);

    let err = m.undo(Some(&shown.id)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert_eq!(
        err.message(),
        format!(
            "{} is no longer the last change: {} (write of MEMORY.md) came after it; nothing was undone. Look at the last change again before undoing it",
            shown.id, now_last.id
        )
    );
    assert_eq!(long_term(&m).as_deref(), Some("v3\n"));
    assert_eq!(versions(&m), before, "a refused undo recorded a version");

    m.undo(Some(&now_last.id)).unwrap().unwrap();
    assert_eq!(long_term(&m).as_deref(), Some("v2\n"));
}

#[test]
fn undo_of_an_empty_history_is_none_or_with_an_expected_id_a_conflict() {
    let f = Fixture::new();
    let m = f.open();
    assert!(m.undo(None).unwrap().is_none());
    let err = m.undo(Some("v1")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert_eq!(
        err.message(),
        "v1 is no longer the last change: history records none now; nothing was undone"
    );
    let err = m.undo(Some("latest")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    assert!(!f.root.join("MEMORY.md").exists());
}

#[test]
fn write_if_unchanged_writes_only_while_the_file_hashes_to_its_base() {
    let f = Fixture::new();
    let m = f.open();
    overwrite(&m, "base\n");
    let base = sha256("base\n");

    let receipt = m
        .write_if_unchanged(WriteTarget::LongTerm, "mine\n", None, &base)
        .unwrap();
    assert!(
        receipt
            .message
            .starts_with("Overwrote MEMORY.md with 5 bytes"),
        "{}",
        receipt.message
    );
    assert_eq!(long_term(&m).as_deref(), Some("mine\n"));
    let before = versions(&m);

    // A second save from the same base: the file moved on, nothing written.
    let err = m
        .write_if_unchanged(WriteTarget::LongTerm, "theirs\n", None, &base)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert_eq!(
        err.message(),
        "`MEMORY.md` changed since the text this edit started from was read; nothing was written. Read it again and make the edit on what it holds now"
    );
    assert_eq!(long_term(&m).as_deref(), Some("mine\n"));
    assert_eq!(versions(&m), before, "a refused save recorded a version");
}

#[test]
fn write_if_unchanged_takes_a_missing_file_as_the_empty_text() {
    let f = Fixture::new();
    let m = f.open();
    let err = m
        .write_if_unchanged(WriteTarget::Note, "x\n", Some("todo"), &sha256("x\n"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert_eq!(m.read(ReadSource::Note, Some("todo")).unwrap(), None);
    m.write_if_unchanged(WriteTarget::Note, "x\n", Some("todo"), &sha256(""))
        .unwrap();
    assert_eq!(
        m.read(ReadSource::Note, Some("todo")).unwrap().as_deref(),
        Some("x\n")
    );
}

#[test]
fn write_if_unchanged_refuses_a_base_that_is_not_a_digest() {
    let f = Fixture::new();
    let m = f.open();
    for bad in [
        "",
        "abc",
        &sha256("").to_uppercase(),
        &format!("{}0", sha256("")),
    ] {
        let err = m
            .write_if_unchanged(WriteTarget::LongTerm, "x\n", None, bad)
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArguments, "{bad:?}: {err}");
    }
    assert!(!f.root.join("MEMORY.md").exists());
}

#[test]
fn approve_applies_a_pending_call_once() {
    let f = Fixture::new();
    let gate = ReviewGate {
        personal: true,
        team: true,
    };
    let m = f.open_with(gate);
    tools::call(
        &m,
        "memory_write",
        r#"{"target":"long_term","content":"- approved once"}"#,
    )
    .unwrap();
    tools::call(
        &m,
        "memory_write",
        r#"{"target":"long_term","content":"- team line","scope":"team"}"#,
    )
    .unwrap();
    assert_eq!(long_term(&m), None);

    let out = m.approve("p1").unwrap();
    assert!(out.starts_with("Appended 16 bytes to MEMORY.md"), "{out}");
    let err = m.approve("p1").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArguments, "{err}");
    assert_eq!(
        err.message(),
        "p1 was already approved; nothing was changed"
    );
    assert_eq!(long_term(&m).as_deref(), Some("- approved once\n"));

    // A team call runs under the personal lock the approval holds and the
    // team store's own.
    let out = m.approve("p2").unwrap();
    assert!(
        out.starts_with("Appended 12 bytes to team:MEMORY.md"),
        "{out}"
    );
    assert_eq!(
        fs::read_to_string(f.team.join("MEMORY.md")).unwrap(),
        "- team line\n"
    );
    assert!(m.pending().unwrap().is_empty());
    // The team change's mark that it was applied is gone with the decision.
    let marks = fs::read_dir(f.team.join(".store/review-applied")).unwrap();
    assert_eq!(marks.count(), 0);
}

/// A team call's change and its decision are in two stores: the change
/// leaves a mark in the team store, so a process stopped after the change
/// and before the decision leaves the call decided, never applied twice.
#[test]
fn a_team_call_applied_before_a_stop_is_not_applied_again() {
    let f = Fixture::new();
    let m = f.open_with(ReviewGate {
        personal: false,
        team: true,
    });
    tools::call(
        &m,
        "memory_write",
        r#"{"target":"long_term","content":"- team line","scope":"team"}"#,
    )
    .unwrap();
    // What a process stopped between the two leaves: the team change made,
    // with its mark, and the entry still pending.
    let queue = f.root.join(format!(".store/review/{}/p1.json", m.slug()));
    let entry: serde_json::Value = serde_json::from_slice(&fs::read(&queue).unwrap()).unwrap();
    let token = entry["token"].as_str().expect("a team call has a token");
    fs::write(f.team.join("MEMORY.md"), "- team line").unwrap();
    fs::create_dir_all(f.team.join(".store/review-applied")).unwrap();
    fs::write(f.team.join(".store/review-applied").join(token), "p1\n").unwrap();

    assert!(m.pending().unwrap().is_empty());
    let err = m.approve("p1").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArguments, "{err}");
    assert_eq!(
        err.message(),
        "p1 was already approved; nothing was changed"
    );
    assert_eq!(
        fs::read_to_string(f.team.join("MEMORY.md")).unwrap(),
        "- team line"
    );
    let entry: serde_json::Value = serde_json::from_slice(&fs::read(&queue).unwrap()).unwrap();
    assert_eq!(entry["decision"], "approved");
    assert!(!f.team.join(".store/review-applied").join(token).exists());
}

#[test]
fn a_call_that_fails_when_approved_stays_pending_and_changes_nothing() {
    let f = Fixture::new();
    let m = f.open_with(ReviewGate {
        personal: true,
        team: false,
    });
    let plain = f.open();
    overwrite(&plain, "old line\n");
    tools::call(
        &m,
        "memory_edit",
        r#"{"target":"long_term","old_text":"old line","new_text":"new line"}"#,
    )
    .unwrap();
    overwrite(&plain, "moved on\n");
    let before = versions(&m);
    let err = m.approve("p1").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    assert!(
        err.message()
            .starts_with("p1 was not applied and stays queued: "),
        "{err}"
    );
    assert_eq!(long_term(&m).as_deref(), Some("moved on\n"));
    assert_eq!(versions(&m), before);
    assert_eq!(m.pending().unwrap().len(), 1);
}
