//! Every path that stores text runs the secret guard: with `block` the call
//! fails with `secret-detected` and the store is byte for byte unchanged;
//! with `redact` the value never reaches the disk; with `off` it is stored.
//! A path that skipped the guard fails here.

use std::collections::BTreeMap;
use std::path::Path;

use agent_memory_core::secrets::SecretPolicy;
use agent_memory_core::{
    Clock, ErrorKind, Memory, Options, Result, WriteMode, WriteTarget, anthropic,
};

/// A fake GitHub token of the documented shape.
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

fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

type Path_ = fn(&Memory, &str) -> Result<String>;

/// Each write path, given text that holds the token.
fn paths() -> Vec<(&'static str, Path_)> {
    vec![
        ("write long_term", |m, t| {
            m.write(WriteTarget::LongTerm, t, WriteMode::Append, None)
                .map(|r| r.message)
        }),
        ("write scratchpad", |m, t| {
            m.write(WriteTarget::Scratchpad, t, WriteMode::Overwrite, None)
                .map(|r| r.message)
        }),
        ("write daily", |m, t| {
            m.write(WriteTarget::Daily, t, WriteMode::Append, None)
                .map(|r| r.message)
        }),
        ("write note", |m, t| {
            m.write(WriteTarget::Note, t, WriteMode::Append, Some("deploy"))
                .map(|r| r.message)
        }),
        ("append-daily", |m, t| {
            m.append_daily("deploy", t).map(|r| r.message)
        }),
        ("flush-compaction", |m, t| {
            m.flush_compaction(t, Some(3)).map(|r| r.message)
        }),
        ("edit", |m, t| {
            m.edit(WriteTarget::Note, Some("seeded"), "PLACEHOLDER", t)
                .map(|r| r.message)
        }),
        ("memory_write tool", |m, t| {
            let args = serde_json::json!({"target": "note", "name": "n", "content": t});
            agent_memory_core::tools::call(m, "memory_write", &args.to_string())
        }),
        ("memory create", |m, t| {
            let args = serde_json::json!({"command": "create", "path": "/memories/new.md", "file_text": t});
            anthropic::call(m, &args.to_string())
        }),
        ("memory str_replace", |m, t| {
            let args = serde_json::json!({"command": "str_replace", "path": "/memories/seeded.md", "old_str": "PLACEHOLDER", "new_str": t});
            anthropic::call(m, &args.to_string())
        }),
        ("memory insert", |m, t| {
            let args = serde_json::json!({"command": "insert", "path": "/memories/seeded.md", "insert_line": 1, "insert_text": t});
            anthropic::call(m, &args.to_string())
        }),
    ]
}

fn seeded(policy: SecretPolicy) -> (tempfile::TempDir, Memory) {
    let dir = tempfile::tempdir().unwrap();
    let memory = open(dir.path(), policy);
    open(dir.path(), SecretPolicy::Off)
        .write(
            WriteTarget::Note,
            "token: PLACEHOLDER\n",
            WriteMode::Overwrite,
            Some("seeded"),
        )
        .unwrap();
    (dir, memory)
}

#[test]
fn block_refuses_every_path_and_changes_nothing() {
    let text = format!("deployed with GITHUB_TOKEN={TOKEN}");
    for (what, path) in paths() {
        let (dir, memory) = seeded(SecretPolicy::Block);
        let before = snapshot(dir.path());
        let err = path(&memory, &text).expect_err(what);
        assert_eq!(err.kind(), ErrorKind::SecretDetected, "{what}: {err}");
        assert!(
            err.message().contains("github-pat"),
            "{what}: {}",
            err.message()
        );
        assert!(
            !err.message().contains(&TOKEN[4..12]),
            "{what} echoed the value"
        );
        assert_eq!(snapshot(dir.path()), before, "{what} changed the store");
    }
}

#[test]
fn redact_stores_no_value_on_any_path() {
    let text = format!("deployed with GITHUB_TOKEN={TOKEN}");
    for (what, path) in paths() {
        let (dir, memory) = seeded(SecretPolicy::Redact);
        let reply = path(&memory, &text).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            reply.contains("redacted 1 secret value(s)"),
            "{what}: {reply}"
        );
        let stored: Vec<u8> = snapshot(dir.path()).into_values().flatten().collect();
        let stored = String::from_utf8_lossy(&stored);
        assert!(!stored.contains(TOKEN), "{what} stored the value");
        assert!(stored.contains("[REDACTED:github-pat]"), "{what}: {stored}");
    }
}

#[test]
fn off_stores_the_text_as_given() {
    let text = format!("deployed with GITHUB_TOKEN={TOKEN}");
    for (what, path) in paths() {
        let (dir, memory) = seeded(SecretPolicy::Off);
        path(&memory, &text).unwrap_or_else(|e| panic!("{what}: {e}"));
        let stored: Vec<u8> = snapshot(dir.path()).into_values().flatten().collect();
        assert!(String::from_utf8_lossy(&stored).contains(TOKEN), "{what}");
    }
}

#[test]
fn a_redaction_is_its_own_line_not_a_duplicate() {
    let (_dir, memory) = seeded(SecretPolicy::Redact);
    let receipt = memory
        .write(
            WriteTarget::LongTerm,
            &format!("token {TOKEN}"),
            WriteMode::Append,
            None,
        )
        .unwrap();
    assert_eq!(
        receipt.message,
        "Appended 28 bytes to MEMORY.md\nredacted 1 secret value(s) before storing (github-pat on line 1): store where a secret lives, never the value\nBudget: MEMORY.md 1/200 lines, 28/25000 bytes; context block 143/32768 bytes"
    );
}
