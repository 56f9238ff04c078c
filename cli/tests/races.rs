//! Two `agent-memory` processes racing on one precondition: two undos, two
//! approvals of one queued call, two edits saved from the same text. Each
//! reads its precondition and commits under the store's lock, so every try
//! ends as one of the two serial orders would, and the test pins that end
//! state on every one of 100 tries.
//!
//! One small store per test; every process shares one compiled-component
//! cache, warmed once.

#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

const PROJECT: &str = "/work/src/race-app";
const NOW: &str = "2026-05-30T09:15:00+02:00";
const TRIES: usize = 100;

fn cache_dir() -> &'static Path {
    static CACHE: OnceLock<PathBuf> = OnceLock::new();
    CACHE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("agent-memory-race-cache");
        fs::create_dir_all(&dir).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_agent-memory"))
            .env("AGENT_MEMORY_CACHE_DIR", &dir)
            .arg("tools")
            .output()
            .unwrap();
        assert!(output.status.success(), "warming the cache failed");
        dir
    })
}

struct Store {
    temp: tempfile::TempDir,
}

impl Store {
    fn new() -> Store {
        Store {
            temp: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> PathBuf {
        self.temp.path().join("memory")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
        command
            .env("AGENT_MEMORY_CACHE_DIR", cache_dir())
            .env_remove("AGENT_MEMORY_DIR")
            .env_remove("AGENT_MEMORY_NOW")
            .env_remove("AGENT_MEMORY_REVIEW")
            .env_remove("VISUAL")
            .arg("--root")
            .arg(self.root())
            .args(["--project", PROJECT, "--now", NOW])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn ok(&self, args: &[&str]) -> String {
        let output = self.command(args).output().unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    fn memory_md(&self) -> String {
        fs::read_to_string(self.root().join("MEMORY.md")).unwrap()
    }
}

/// Start both commands, then wait for both.
fn race(a: Command, b: Command) -> [Output; 2] {
    let spawn = |mut c: Command| -> Child { c.spawn().unwrap() };
    let (a, b) = (spawn(a), spawn(b));
    [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()]
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// On three overwrites (v1, v2, v3), any serial order of two undos ends at
/// v3: the second undoes the first's restore. After each try the last
/// change is the second undo's restore, so the next try starts from v3
/// with the same choice: the first undo would put back v2, the second v3.
#[test]
fn two_undos_at_once_end_as_one_after_the_other() {
    let store = Store::new();
    for v in ["v1", "v2", "v3"] {
        store.ok(&["write", "long_term", "--overwrite", v]);
    }
    let v3 = store.memory_md();
    assert!(v3.starts_with("v3"), "{v3}");
    for attempt in 0..TRIES {
        let outputs = race(store.command(&["undo"]), store.command(&["undo"]));
        for out in &outputs {
            assert!(out.status.success(), "try {attempt}: {}", text(&out.stderr));
            assert!(
                text(&out.stdout).starts_with("Undid the last change ("),
                "try {attempt}: {}",
                text(&out.stdout)
            );
        }
        assert_eq!(store.memory_md(), v3, "try {attempt}");
    }
}

/// Two approvals of one queued append: one applies it, the other is told
/// it was already approved, and the line is in `MEMORY.md` once.
#[test]
fn two_approvals_at_once_apply_the_call_once() {
    let store = Store::new();
    for attempt in 1..=TRIES {
        let line = format!("- line {attempt}");
        let args = serde_json::json!({"target": "long_term", "content": line}).to_string();
        let queued = store.ok(&["--review", "call", "memory_write", &args]);
        let id = format!("p{attempt}");
        assert!(
            queued.starts_with(&format!("Queued for review as {id}")),
            "{queued}"
        );
        let outputs = race(
            store.command(&["review", "approve", &id]),
            store.command(&["review", "approve", &id]),
        );
        let applied = outputs.iter().filter(|o| o.status.success()).count();
        assert_eq!(applied, 1, "try {attempt}: {outputs:?}");
        let refused = outputs.iter().find(|o| !o.status.success()).unwrap();
        assert!(
            text(&refused.stderr).contains(&format!("{id} was already approved")),
            "try {attempt}: {}",
            text(&refused.stderr)
        );
        let md = store.memory_md();
        let lines: Vec<&str> = md.lines().filter(|l| !l.is_empty()).collect();
        let expected: Vec<String> = (1..=attempt).map(|n| format!("- line {n}")).collect();
        assert_eq!(lines, expected, "try {attempt}");
    }
}

/// Two `agent-memory edit`s of one file, both editors opened on the same
/// text (each waits until the other has its copy) and saved at once: one
/// is written, the other refused with its text kept, as when one saves
/// after the other.
#[test]
fn two_edits_from_the_same_text_write_one_and_refuse_the_other() {
    let store = Store::new();
    let dir = store.temp.path();
    let editor = |name: &str, other: &str| -> PathBuf {
        let path = dir.join(format!("editor-{name}"));
        let ready = dir.join(format!("ready-{name}"));
        let other = dir.join(format!("ready-{other}"));
        fs::write(
            &path,
            format!(
                "#!/bin/sh\nprintf '{name}' > \"$1\"\n: > '{}'\nwhile [ ! -e '{}' ]; do sleep 0.01; done\n",
                ready.display(),
                other.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        path
    };
    let (a, b) = (editor("a", "b"), editor("b", "a"));
    for attempt in 0..TRIES {
        store.ok(&[
            "write",
            "long_term",
            "--overwrite",
            &format!("base {attempt}"),
        ]);
        for name in ["ready-a", "ready-b"] {
            let _ = fs::remove_file(dir.join(name));
        }
        let edit = |editor: &Path| {
            let mut c = store.command(&["edit", "long_term"]);
            c.env("EDITOR", editor).env("TMPDIR", dir);
            c
        };
        let outputs = race(edit(&a), edit(&b));
        let written: Vec<usize> = (0..2).filter(|&i| outputs[i].status.success()).collect();
        assert_eq!(written.len(), 1, "try {attempt}: {outputs:?}");
        let (won, lost) = (written[0], 1 - written[0]);
        // The saved text ends with the store's newline; the recovery file
        // keeps the editor's bytes.
        assert_eq!(store.memory_md(), ["a\n", "b\n"][won], "try {attempt}");
        let refusal = text(&outputs[lost].stderr);
        assert!(
            refusal.contains("the file changed while the editor was open; nothing was written"),
            "try {attempt}: {refusal}"
        );
        let kept = refusal
            .split('`')
            .nth(1)
            .unwrap_or_else(|| panic!("no recovery file named: {refusal}"));
        assert_eq!(fs::read_to_string(kept).unwrap(), ["a", "b"][lost]);
        fs::remove_file(kept).unwrap();
    }
}
