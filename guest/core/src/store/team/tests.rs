use std::fs;
use std::path::Path;

use super::*;
use crate::store::{Options, ReadSource, WriteTarget};
use crate::{Clock, Retention, tools};

const NOW: i64 = 1_780_125_300; // 2026-05-30 07:15 UTC

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

    fn open_with(&self, project: &str, policy: SecretPolicy, now: i64) -> Memory {
        let options = Options {
            clock: Clock {
                utc_offset_minutes: 120,
                fixed_unix_seconds: Some(now),
            },
            secrets: policy,
            source: "test".into(),
            retention: Retention::default(),
            ..Options::new(project)
        };
        Memory::open(&self.root, options)
            .unwrap()
            .with_team(&self.team)
    }

    fn open(&self) -> Memory {
        self.open_with("/src/app", SecretPolicy::Block, NOW)
    }

    fn put(&self, rel: &str, text: &str) {
        let path = self.team.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn get(&self, rel: &str) -> Option<String> {
        fs::read_to_string(self.team.join(rel)).ok()
    }
}

fn call(m: &Memory, tool: &str, args: &str) -> crate::Result<String> {
    tools::call(m, tool, args)
}

const CONFLICTED: &str =
    "# Deploy\n<<<<<<< HEAD\nuse make ship\n=======\nuse make release\n>>>>>>> origin/main\n";

#[test]
fn conflict_markers_need_all_three_lines_in_order() {
    assert_eq!(conflict_line(CONFLICTED), Some(2));
    let diff3 = "a\n<<<<<<< ours\nx\n||||||| base\nw\n=======\ny\n>>>>>>> theirs\n";
    assert_eq!(conflict_line(diff3), Some(2));
    assert_eq!(
        conflict_line("<<<<<<<\r\nx\r\n=======\r\ny\r\n>>>>>>>\r\n"),
        Some(1)
    );
    // A setext underline, a lone marker, markers out of order, or a marker
    // that is not exactly seven characters are no conflict.
    assert_eq!(conflict_line("Title\n=======\ntext\n"), None);
    assert_eq!(conflict_line(">>>>>>> quoted\n"), None);
    assert_eq!(conflict_line(">>>>>>> a\n=======\n<<<<<<< b\n"), None);
    assert_eq!(conflict_line("<<<<<<<< x\n=======\n>>>>>>> y\n"), None);
    assert_eq!(conflict_line("<<<<<<<x\n=======\n>>>>>>> y\n"), None);
    assert_eq!(conflict_line("<<<<<<< a\n======= b\n>>>>>>> y\n"), None);
    assert_eq!(conflict_line(" <<<<<<< a\n=======\n>>>>>>> y\n"), None);
}

#[test]
fn team_scope_without_a_team_dir_says_how_to_enable_it() {
    let f = Fixture::new();
    let m = Memory::open(&f.root, Options::new("/src/app")).unwrap();
    let err = call(
        &m,
        "memory_write",
        r#"{"target":"note","name":"a","content":"x","scope":"team"}"#,
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoTeamDir);
    assert!(
        err.message().contains("`.agent-memory/`"),
        "{}",
        err.message()
    );
    assert!(err.message().contains("--team-dir"), "{}", err.message());
    assert_eq!(m.take_snapshot().unwrap_err().kind(), ErrorKind::NoTeamDir);
    // Nothing was created anywhere.
    assert_eq!(fs::read_dir(&f.root).unwrap().count(), 0);
    let err = call(&m, "memory_read", r#"{"source":"list","scope":"Team"}"#).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArguments);
    assert_eq!(
        err.message(),
        "memory_read: unknown scope \"Team\": expected personal or team"
    );
}

#[test]
fn team_writes_reads_lists_and_curates_with_team_paths() {
    let f = Fixture::new();
    let m = f.open();
    assert_eq!(
        call(
            &m,
            "memory_write",
            r#"{"target":"long_term","content":"- deploys go through CI","scope":"team"}"#
        )
        .unwrap(),
        "Appended 24 bytes to team:MEMORY.md\nBudget: team MEMORY.md 1/200 lines, 24/25000 bytes; team section of the context block 148/32768 bytes"
    );
    call(
        &m,
        "memory_write",
        r#"{"target":"note","name":"ops/deploy","content":"Run make ship.\n","scope":"team"}"#,
    )
    .unwrap();
    assert_eq!(f.get("MEMORY.md").unwrap(), "- deploys go through CI\n");
    assert_eq!(f.get("notes/ops/deploy.md").unwrap(), "Run make ship.\n");
    // The personal store is untouched.
    assert!(!f.root.join("MEMORY.md").exists());
    assert_eq!(
        call(&m, "memory_read", r#"{"source":"list","scope":"team"}"#).unwrap(),
        "team:MEMORY.md\nteam:notes/ops/deploy.md"
    );
    assert_eq!(
        call(&m, "memory_read", r#"{"source":"list"}"#).unwrap(),
        "(no memory files)"
    );
    assert_eq!(
        call(
            &m,
            "memory_read",
            r#"{"source":"note","name":"ops/deploy","scope":"team"}"#
        )
        .unwrap(),
        "Run make ship.\n"
    );
    assert_eq!(
        call(
            &m,
            "memory_edit",
            r#"{"target":"note","name":"ops/deploy","old_text":"ship","new_text":"release","scope":"team"}"#
        )
        .unwrap(),
        "Edited team:notes/ops/deploy.md: replaced 4 bytes at line 1 with 7 bytes\nBudget: team MEMORY.md 1/200 lines, 24/25000 bytes; team section of the context block 148/32768 bytes (notes are not in it; memory_search finds them)"
    );
    assert_eq!(
        call(
            &m,
            "memory_rename",
            r#"{"name":"ops/deploy","new_name":"deploy","scope":"team"}"#
        )
        .unwrap(),
        "Renamed note `ops/deploy` to `deploy` (team:notes/ops/deploy.md -> team:notes/deploy.md)\nBudget: team MEMORY.md 1/200 lines, 24/25000 bytes; team section of the context block 148/32768 bytes (notes are not in it; memory_search finds them)"
    );
    assert!(!f.team.join("notes/ops").exists(), "emptied folder removed");
    let deleted = call(&m, "memory_delete", r#"{"name":"deploy","scope":"team"}"#).unwrap();
    assert!(deleted.starts_with("Deleted note `deploy` (team:notes/deploy.md, 18 bytes)"));
    // History: recorded under the team directory's hidden store, listed
    // and restorable in team scope.
    let history = call(
        &m,
        "memory_history",
        r#"{"target":"note","name":"deploy","scope":"team"}"#,
    )
    .unwrap();
    assert!(
        history.starts_with("Versions of team:notes/deploy.md"),
        "{history}"
    );
    let id = history
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    let restored = call(
        &m,
        "memory_restore",
        &format!(r#"{{"version":"{id}","scope":"team"}}"#),
    )
    .unwrap();
    assert!(restored.starts_with(&format!("Restored team:notes/deploy.md to version {id}")));
    assert_eq!(f.get("notes/deploy.md").unwrap(), "Run make release.\n");
    assert!(f.team.join(".store/history/journal").exists());
    assert!(!f.root.join(".store/history").exists());
    // Personal version ids do not reach team files.
    assert_eq!(
        call(&m, "memory_restore", &format!(r#"{{"version":"{id}"}}"#))
            .unwrap_err()
            .kind(),
        ErrorKind::NotFound
    );
    // The scratchpad and daily logs are personal.
    for target in ["scratchpad", "daily"] {
        let err = call(
            &m,
            "memory_write",
            &format!(r#"{{"target":"{target}","content":"x","scope":"team"}}"#),
        )
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidTarget, "{target}");
        assert!(
            err.message()
                .starts_with(&format!("team memory has no {target}"))
        );
    }
    let err = m
        .team()
        .unwrap()
        .edit(WriteTarget::Daily, Some("2026-05-30"), "a", "b")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidTarget);
}

#[test]
fn git_files_are_written_on_first_write_and_never_clobbered() {
    let f = Fixture::new();
    let m = f.open();
    // Reading creates nothing.
    call(&m, "memory_read", r#"{"source":"list","scope":"team"}"#).unwrap();
    m.context_block().unwrap();
    assert!(f.get(".gitattributes").is_none());
    m.team()
        .unwrap()
        .write(WriteTarget::LongTerm, "- a", WriteMode::Append, None)
        .unwrap();
    assert_eq!(f.get(".gitattributes").unwrap(), GITATTRIBUTES);
    assert_eq!(f.get(".gitignore").unwrap(), GITIGNORE);
    assert!(GITATTRIBUTES.contains("\nMEMORY.md merge=union\n"));
    f.put(".gitattributes", "MEMORY.md -merge\n");
    fs::remove_file(f.team.join(".gitignore")).unwrap();
    m.team()
        .unwrap()
        .write(WriteTarget::LongTerm, "- b", WriteMode::Append, None)
        .unwrap();
    assert_eq!(f.get(".gitattributes").unwrap(), "MEMORY.md -merge\n");
    assert_eq!(f.get(".gitignore").unwrap(), GITIGNORE);
}

#[test]
fn the_secret_guard_always_blocks_in_team_scope() {
    let f = Fixture::new();
    let m = f.open_with("/src/app", SecretPolicy::Off, NOW);
    let key = "AKIAZ7VQ2M4XK3R8PLWD";
    let args = format!(r#"{{"target":"note","name":"aws","content":"key {key}","scope":"team"}}"#);
    let err = call(&m, "memory_write", &args).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::SecretDetected);
    assert!(!err.message().contains(key));
    assert!(f.get("notes/aws.md").is_none());
    // The personal store keeps the host's policy.
    call(
        &m,
        "memory_write",
        &format!(r#"{{"target":"note","name":"aws","content":"key {key}"}}"#),
    )
    .unwrap();
    let err = call(
        &m,
        "memory_edit",
        &format!(r#"{{"target":"long_term","old_text":"x","new_text":"{key}","scope":"team"}}"#),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::SecretDetected);
    // A snapshot of that personal note would push it: refused whole.
    assert_eq!(
        m.take_snapshot().unwrap_err().kind(),
        ErrorKind::SecretDetected
    );
    assert!(f.get("snapshot/TAKEN").is_none());
}

#[test]
fn scan_reports_secrets_a_teammate_committed_by_hand() {
    let f = Fixture::new();
    let key = "AKIAZ7VQ2M4XK3R8PLWD";
    // Written around the guard, as a commit pulled from a teammate would be.
    f.put("MEMORY.md", &format!("- aws {key}\n"));
    f.put("notes/ops/aws.md", &format!("intro\nkey {key}\n"));
    f.put("snapshot/notes/aws.md", &format!("\n\nkey {key}\n"));
    f.put("notes/clean.md", "nothing here\n");
    let m = f.open_with("/src/app", SecretPolicy::Off, NOW);
    call(
        &m,
        "memory_write",
        &format!(r#"{{"target":"note","name":"mine","content":"key {key}"}}"#),
    )
    .unwrap();
    let found: Vec<(String, u32, String)> = m
        .scan_secrets()
        .unwrap()
        .into_iter()
        .map(|s| (s.path, s.line, s.rule_id))
        .collect();
    let rule = "aws-access-key-id".to_string();
    assert_eq!(
        found,
        [
            (
                "projects/app-c0167fc9/notes/mine.md".to_string(),
                1,
                rule.clone()
            ),
            ("team:MEMORY.md".to_string(), 1, rule.clone()),
            ("team:notes/ops/aws.md".to_string(), 2, rule.clone()),
            ("team:snapshot/notes/aws.md".to_string(), 3, rule),
        ]
    );
}

#[test]
fn a_conflicted_file_is_flagged_and_refused_until_resolved() {
    let f = Fixture::new();
    f.put("notes/deploy.md", CONFLICTED);
    f.put("notes/fine.md", "fine\n");
    let m = f.open();
    let block = m.context_block().unwrap().unwrap();
    assert!(
        block.contains("## Notices\n- CONFLICT: team:notes/deploy.md has unresolved git conflict markers (from line 2)"),
        "{block}"
    );
    assert!(!block.contains("fine.md"));
    let team = m.team().unwrap();
    for result in [
        team.write(WriteTarget::Note, "more", WriteMode::Append, Some("deploy"))
            .map(|_| ()),
        team.edit(WriteTarget::Note, Some("deploy"), "# Deploy", "# Ship")
            .map(|_| ()),
        team.rename_note("deploy", "ship").map(|_| ()),
        // New content with markers is refused too.
        team.write(
            WriteTarget::Note,
            CONFLICTED,
            WriteMode::Overwrite,
            Some("fine"),
        )
        .map(|_| ()),
    ] {
        let err = result.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Conflict);
        assert!(err.message().contains("`team:notes/"), "{}", err.message());
    }
    assert_eq!(f.get("notes/deploy.md").unwrap(), CONFLICTED);
    assert_eq!(f.get("notes/fine.md").unwrap(), "fine\n");
    // An edit that removes the markers resolves the conflict.
    team.edit(
        WriteTarget::Note,
        Some("deploy"),
        "<<<<<<< HEAD\nuse make ship\n=======\nuse make release\n>>>>>>> origin/main\n",
        "use make release\n",
    )
    .unwrap();
    assert_eq!(
        f.get("notes/deploy.md").unwrap(),
        "# Deploy\nuse make release\n"
    );
    team.write(
        WriteTarget::Note,
        "more\n",
        WriteMode::Append,
        Some("deploy"),
    )
    .unwrap();
    assert_eq!(m.context_block().unwrap(), None, "no conflict left to flag");
    // Deleting a conflicted file is allowed; it resolves too.
    f.put("notes/other.md", CONFLICTED);
    team.delete_note("other").unwrap();
    // The personal store has no such rule: it is not in git.
    m.write(
        WriteTarget::Note,
        CONFLICTED,
        WriteMode::Overwrite,
        Some("x"),
    )
    .unwrap();
}

#[test]
fn search_covers_both_stores_unless_scoped() {
    let f = Fixture::new();
    let m = f.open();
    m.write(
        WriteTarget::Note,
        "the staging cluster is eu-1\n",
        WriteMode::Append,
        Some("infra"),
    )
    .unwrap();
    f.put("notes/staging.md", "staging deploys need a review\n");
    f.put("MEMORY.md", "- staging is shared\n");
    let paths = |scope: &str| {
        let args = if scope.is_empty() {
            r#"{"query":"staging","mode":"literal"}"#.to_string()
        } else {
            format!(r#"{{"query":"staging","mode":"literal","scope":"{scope}"}}"#)
        };
        let out = call(&m, "memory_search", &args).unwrap();
        let mut p: Vec<String> = out
            .lines()
            .filter(|l| l.contains("  [matched:"))
            .map(|l| l.split("  [").next().unwrap().to_string())
            .collect();
        p.sort();
        p
    };
    let slug = m.slug().to_string();
    let personal = format!("projects/{slug}/notes/infra.md");
    assert_eq!(
        paths(""),
        vec![
            personal.clone(),
            "team:MEMORY.md".into(),
            "team:notes/staging.md".into()
        ]
    );
    assert_eq!(paths("personal"), vec![personal]);
    assert_eq!(
        paths("team"),
        vec!["team:MEMORY.md".to_string(), "team:notes/staging.md".into()]
    );
    // Ranked search (through the index) finds the team note by its name and
    // reads its window from the team directory.
    let ranked = m
        .search_with("staging review", crate::SearchMode::Ranked)
        .unwrap();
    let hit = ranked
        .hits
        .iter()
        .find(|h| h.path == "team:notes/staging.md")
        .unwrap();
    assert!(
        hit.body.contains("staging deploys need a review"),
        "{}",
        hit.body
    );
    assert_eq!(ranked, m.search_unindexed("staging review").unwrap());
    // A second ranked search answers from the index the first one wrote.
    assert_eq!(
        ranked,
        m.search_with("staging review", crate::SearchMode::Ranked)
            .unwrap()
    );
}

#[test]
fn the_team_section_sits_in_the_cap_after_the_personal_index() {
    let f = Fixture::new();
    let m = f.open();
    m.write(WriteTarget::LongTerm, "- mine", WriteMode::Append, None)
        .unwrap();
    m.write(
        WriteTarget::Scratchpad,
        "- [ ] open",
        WriteMode::Append,
        None,
    )
    .unwrap();
    f.put("MEMORY.md", "- ours\n");
    let block = m.context_block().unwrap().unwrap();
    assert!(
        block.contains("## Long-term memory (MEMORY.md)\n- mine\n\n## Team memory (.agent-memory/MEMORY.md)\n- ours\n\n## Scratchpad (open items)\n- [ ] open"),
        "{block}"
    );
    // When the cap bites, the team index gives way before the personal
    // index, the open items and today's log.
    let big: String = (0..199)
        .map(|i| format!("- team line {i} {}\n", "t".repeat(100)))
        .collect();
    f.put("MEMORY.md", &big);
    let small = Memory::open(
        &f.root,
        Options {
            limits: crate::Limits {
                max_inject_bytes: 2048,
                ..crate::Limits::default()
            },
            clock: Clock {
                utc_offset_minutes: 120,
                fixed_unix_seconds: Some(NOW),
            },
            ..Options::new("/src/app")
        },
    )
    .unwrap()
    .with_team(&f.team);
    let block = small.context_block().unwrap().unwrap();
    assert!(block.len() <= 2048);
    assert!(block.contains("- mine\n"));
    assert!(block.contains("- [ ] open"));
    assert!(block.contains("## Team memory (.agent-memory/MEMORY.md)\n- team line 0"));
    assert!(block.contains("…[memory truncated]"));
}

#[test]
fn snapshots_start_an_empty_project_report_newer_ones_and_apply_on_request() {
    let f = Fixture::new();
    let alice = f.open_with("/home/alice/app", SecretPolicy::Block, NOW);
    alice
        .write(
            WriteTarget::Note,
            "Run make ship.\n",
            WriteMode::Append,
            Some("ops/deploy"),
        )
        .unwrap();
    alice
        .write(
            WriteTarget::Note,
            "Auth uses OIDC.\n",
            WriteMode::Append,
            Some("auth"),
        )
        .unwrap();
    alice
        .write(
            WriteTarget::Scratchpad,
            "- [ ] mine only",
            WriteMode::Append,
            None,
        )
        .unwrap();
    let info = alice.take_snapshot().unwrap();
    assert_eq!(info.notes, 2);
    assert_eq!(info.taken_unix, NOW);
    assert_eq!(
        info.message,
        "Snapshot of 2 notes written to .agent-memory/snapshot/ (2026-05-30 09:15 +02:00); commit it to share it"
    );
    assert_eq!(
        f.get("snapshot/TAKEN").unwrap(),
        "1780125300 120 2026-05-30 09:15 +02:00\n"
    );
    assert_eq!(
        f.get("snapshot/notes/ops/deploy.md").unwrap(),
        "Run make ship.\n"
    );
    assert!(f.get("snapshot/notes/SCRATCHPAD.md").is_none());

    // Bob's project store is empty: his first context block starts it from
    // the snapshot, recorded in history as imports.
    let bob = f.open_with("/home/bob/app", SecretPolicy::Block, NOW + 60);
    let block = bob.context_block().unwrap().unwrap();
    assert!(
        block.contains("- SNAPSHOT: this project's memory started from the team snapshot of 2026-05-30 09:15 +02:00 (2 notes"),
        "{block}"
    );
    assert_eq!(
        bob.read(ReadSource::Note, Some("ops/deploy"))
            .unwrap()
            .unwrap(),
        "Run make ship.\n"
    );
    let versions = bob.history(ReadSource::Note, Some("auth"), None).unwrap();
    assert_eq!(versions.len(), 1);
    assert_eq!(versions[0].operation, Operation::Import);
    assert_eq!(versions[0].bytes, None);
    // Applied once: the next block says nothing about it.
    assert!(bob.context_block().unwrap().is_none());
    bob.write(
        WriteTarget::Note,
        "bob's own\n",
        WriteMode::Append,
        Some("auth"),
    )
    .unwrap();

    // A newer snapshot is reported, never applied silently.
    let later = f.open_with("/home/alice/app", SecretPolicy::Block, NOW + 3600);
    later
        .write(
            WriteTarget::Note,
            "Auth uses OIDC and PKCE.\n",
            WriteMode::Overwrite,
            Some("auth"),
        )
        .unwrap();
    later.delete_note("ops/deploy").unwrap();
    later.take_snapshot().unwrap();
    assert!(
        f.get("snapshot/notes/ops/deploy.md").is_none(),
        "old snapshot notes go"
    );
    assert!(!f.team.join("snapshot/notes/ops").exists());
    let block = bob.context_block().unwrap().unwrap();
    assert!(
        block.contains("- SNAPSHOT: a newer team snapshot (2026-05-30 10:15 +02:00) is in .agent-memory/snapshot/ and was not applied; `agent-memory snapshot apply` applies it"),
        "{block}"
    );
    assert_eq!(
        bob.read(ReadSource::Note, Some("auth")).unwrap().unwrap(),
        "Auth uses OIDC.\nbob's own\n"
    );
    let info = bob.apply_snapshot().unwrap();
    assert_eq!(info.notes, 1);
    assert_eq!(
        bob.read(ReadSource::Note, Some("auth")).unwrap().unwrap(),
        "Auth uses OIDC and PKCE.\n"
    );
    // Kept: a note the snapshot no longer has.
    assert!(
        bob.read(ReadSource::Note, Some("ops/deploy"))
            .unwrap()
            .is_some()
    );
    let versions = bob.history(ReadSource::Note, Some("auth"), None).unwrap();
    assert_eq!(versions[0].operation, Operation::Import);
    assert_eq!(
        bob.version_text(&versions[0].id).unwrap().unwrap(),
        "Auth uses OIDC.\nbob's own\n"
    );
    assert!(
        bob.context_block()
            .unwrap()
            .is_none_or(|b| !b.contains("SNAPSHOT"))
    );
}

#[test]
fn a_hostile_snapshot_is_checked_before_anything_is_applied() {
    let f = Fixture::new();
    let m = f.open();
    assert_eq!(m.apply_snapshot().unwrap_err().kind(), ErrorKind::NotFound);
    f.put("snapshot/TAKEN", "1780125300 120 x\n");
    f.put("snapshot/notes/good.md", "good\n");
    f.put("snapshot/notes/CON.md", "device name\n");
    f.put("snapshot/notes/bad.txt", "not a note\n");
    f.put("snapshot/notes/zz.md", CONFLICTED);
    let err = m.apply_snapshot().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    assert!(
        err.message().contains("`team:snapshot/notes/zz.md`"),
        "{}",
        err.message()
    );
    assert!(m.read(ReadSource::Note, Some("good")).unwrap().is_none());
    fs::remove_file(f.team.join("snapshot/notes/zz.md")).unwrap();
    let info = m.apply_snapshot().unwrap();
    assert_eq!(info.notes, 1);
    assert!(
        info.message.contains(
            "skipped (not a valid note name, or not UTF-8 text of at most 16 MiB): team:snapshot/notes/CON.md"
        ),
        "{}",
        info.message
    );
    // A TAKEN file that is not a time is no snapshot.
    f.put("snapshot/TAKEN", "yesterday\n");
    assert_eq!(m.apply_snapshot().unwrap_err().kind(), ErrorKind::NotFound);
    assert!(
        Path::new(&f.root)
            .join(format!("projects/{}/.snapshot-applied", m.slug()))
            .exists()
    );
}
