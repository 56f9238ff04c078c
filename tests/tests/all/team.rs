//! Team memory through real git: a bare origin and two clones, each with an
//! agent whose memory (the real component in wasmtime) has the clone's
//! `.agent-memory/` as its team directory. Git runs with no global or
//! system configuration; each clone sets its own user.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agent_memory::{ErrorKind, Memory, OpenOptions, Runtime, WriteMode, WriteTarget};

/// A bare origin, clones of it, and a personal memory root per agent.
struct Repos {
    dir: tempfile::TempDir,
}

fn run_git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        // Nothing from the machine's or the user's configuration.
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("git runs")
}

/// Run git in `dir`; panics with its output when it fails.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = run_git(dir, args);
    assert!(
        out.status.success(),
        "git {args:?} in {} failed:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl Repos {
    fn new() -> Repos {
        let repos = Repos {
            dir: tempfile::tempdir().unwrap(),
        };
        let origin = repos.path("origin.git");
        std::fs::create_dir_all(&origin).unwrap();
        git(&origin, &["init", "--bare", "--initial-branch=main"]);
        // A first commit, so clones have a branch to pull.
        let seed = repos.path("seed");
        git(repos.dir.path(), &["clone", "-q", "origin.git", "seed"]);
        repos.configure(&seed, "seed");
        std::fs::write(seed.join("README.md"), "# app\n").unwrap();
        git(&seed, &["add", "-A"]);
        git(&seed, &["commit", "-q", "-m", "start"]);
        git(&seed, &["push", "-q", "origin", "HEAD:main"]);
        repos
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn configure(&self, clone: &Path, who: &str) {
        git(clone, &["config", "user.name", who]);
        git(
            clone,
            &["config", "user.email", &format!("{who}@example.com")],
        );
        git(clone, &["config", "commit.gpgsign", "false"]);
        git(clone, &["config", "pull.rebase", "false"]);
    }

    /// A fresh clone named `who`.
    fn clone(&self, who: &str) -> PathBuf {
        git(self.dir.path(), &["clone", "-q", "origin.git", who]);
        let clone = self.path(who);
        self.configure(&clone, who);
        clone
    }

    /// An agent's memory: its own personal root, the clone's team directory.
    fn agent(&self, clone: &Path, who: &str) -> Memory {
        let options = OpenOptions::new(self.path(&format!("home-{who}")), clone)
            .fixed_clock(1_780_125_300, 120)
            .team_dir(OpenOptions::team_dir_of(clone));
        Runtime::shared().unwrap().open(options).unwrap()
    }
}

fn commit_all(clone: &Path, message: &str) {
    git(clone, &["add", "-A"]);
    git(clone, &["commit", "-q", "-m", message]);
}

fn team_text(clone: &Path, rel: &str) -> String {
    std::fs::read_to_string(clone.join(".agent-memory").join(rel)).unwrap()
}

fn call(m: &mut Memory, tool: &str, args: &str) -> Result<String, agent_memory::Error> {
    m.call_tool(tool, args)
}

#[test]
fn appends_from_both_clones_merge_without_conflict() {
    let repos = Repos::new();
    let a = repos.clone("a");
    let mut alice = repos.agent(&a, "a");
    call(
        &mut alice,
        "memory_write",
        r#"{"target":"long_term","content":"- builds use make","scope":"team"}"#,
    )
    .unwrap();
    commit_all(&a, "team memory");
    // Only the memory and its git files are committed: the lock, the
    // history and the index are ignored.
    let mut tracked: Vec<String> = git(&a, &["ls-files", ".agent-memory"])
        .lines()
        .map(str::to_string)
        .collect();
    tracked.sort();
    assert_eq!(
        tracked,
        [
            ".agent-memory/.gitattributes",
            ".agent-memory/.gitignore",
            ".agent-memory/MEMORY.md"
        ]
    );
    assert!(a.join(".agent-memory/.store/history/journal").exists());
    git(&a, &["push", "-q", "origin", "HEAD:main"]);

    let b = repos.clone("b");
    let mut bob = repos.agent(&b, "b");
    // Both append after the same base.
    call(
        &mut alice,
        "memory_write",
        r#"{"target":"long_term","content":"- from alice: staging is eu-1","scope":"team"}"#,
    )
    .unwrap();
    call(
        &mut bob,
        "memory_write",
        r#"{"target":"long_term","content":"- from bob: CI runs on push","scope":"team"}"#,
    )
    .unwrap();
    commit_all(&a, "alice's line");
    git(&a, &["push", "-q", "origin", "HEAD:main"]);
    commit_all(&b, "bob's line");
    // A real merge of both sides: the union rule keeps every line.
    git(&b, &["pull", "-q", "--no-edit", "origin", "main"]);
    let merged = team_text(&b, "MEMORY.md");
    assert!(!merged.contains("<<<<<<<"), "{merged}");
    let mut lines: Vec<&str> = merged.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "- builds use make",
            "- from alice: staging is eu-1",
            "- from bob: CI runs on push"
        ]
    );
    let block = bob.context_block().unwrap().unwrap();
    assert!(
        block.contains("## Team memory (.agent-memory/MEMORY.md)\n"),
        "{block}"
    );
    assert!(block.contains("- from alice: staging is eu-1"));
    assert!(!block.contains("CONFLICT"));
    // The merge result is pushed and reaches alice the same way.
    git(&b, &["push", "-q", "origin", "HEAD:main"]);
    git(&a, &["pull", "-q", "--no-edit", "origin", "main"]);
    assert_eq!(team_text(&a, "MEMORY.md"), merged);
}

#[test]
fn a_deletion_reaches_the_other_clone() {
    let repos = Repos::new();
    let a = repos.clone("a");
    let b = repos.clone("b");
    let mut alice = repos.agent(&a, "a");
    let mut bob = repos.agent(&b, "b");
    call(
        &mut alice,
        "memory_write",
        r#"{"target":"note","name":"ops/old-deploy","content":"Deploy by ssh.\n","scope":"team"}"#,
    )
    .unwrap();
    commit_all(&a, "note");
    git(&a, &["push", "-q", "origin", "HEAD:main"]);
    git(&b, &["pull", "-q", "--no-edit", "origin", "main"]);
    assert_eq!(
        call(
            &mut bob,
            "memory_read",
            r#"{"source":"list","scope":"team"}"#
        )
        .unwrap(),
        "team:notes/ops/old-deploy.md"
    );
    let deleted = call(
        &mut alice,
        "memory_delete",
        r#"{"name":"ops/old-deploy","scope":"team"}"#,
    )
    .unwrap();
    assert!(deleted.starts_with("Deleted note `ops/old-deploy` (team:notes/ops/old-deploy.md"));
    commit_all(&a, "delete the note");
    git(&a, &["push", "-q", "origin", "HEAD:main"]);
    git(&b, &["pull", "-q", "--no-edit", "origin", "main"]);
    assert!(!b.join(".agent-memory/notes/ops/old-deploy.md").exists());
    assert_eq!(
        call(
            &mut bob,
            "memory_read",
            r#"{"source":"list","scope":"team"}"#
        )
        .unwrap(),
        "(no memory files)"
    );
    let found = call(
        &mut bob,
        "memory_search",
        r#"{"query":"ssh","scope":"team"}"#,
    )
    .unwrap();
    assert!(found.starts_with("No matches"), "{found}");
}

#[test]
fn a_conflict_is_flagged_and_refused_until_resolved() {
    let repos = Repos::new();
    let a = repos.clone("a");
    let mut alice = repos.agent(&a, "a");
    call(
        &mut alice,
        "memory_write",
        r##"{"target":"note","name":"deploy","content":"# Deploy\nRun make ship.\n","scope":"team"}"##,
    )
    .unwrap();
    commit_all(&a, "note");
    git(&a, &["push", "-q", "origin", "HEAD:main"]);
    let b = repos.clone("b");
    let mut bob = repos.agent(&b, "b");
    // Both change the same line: a note is not union-merged.
    call(
        &mut alice,
        "memory_edit",
        r#"{"target":"note","name":"deploy","old_text":"make ship","new_text":"make release","scope":"team"}"#,
    )
    .unwrap();
    call(
        &mut bob,
        "memory_edit",
        r#"{"target":"note","name":"deploy","old_text":"make ship","new_text":"make deploy","scope":"team"}"#,
    )
    .unwrap();
    commit_all(&a, "alice");
    git(&a, &["push", "-q", "origin", "HEAD:main"]);
    commit_all(&b, "bob");
    let pull = run_git(&b, &["pull", "-q", "--no-edit", "origin", "main"]);
    assert!(
        !pull.status.success(),
        "the same line changed on both sides conflicts"
    );
    let text = team_text(&b, "notes/deploy.md");
    assert!(
        text.contains("<<<<<<< HEAD\nRun make deploy.\n=======\nRun make release.\n>>>>>>> "),
        "{text}"
    );

    let block = bob.context_block().unwrap().unwrap();
    assert!(
        block.contains(
            "- CONFLICT: team:notes/deploy.md has unresolved git conflict markers (from line 2)"
        ),
        "{block}"
    );
    let err = call(
        &mut bob,
        "memory_write",
        r#"{"target":"note","name":"deploy","content":"Also: tag first.\n","scope":"team"}"#,
    )
    .unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::Conflict), "{err}");
    assert_eq!(team_text(&b, "notes/deploy.md"), text, "nothing changed");

    // Resolving: an overwrite without the markers.
    let team = OpenOptions::new(repos.path("home-b"), &b)
        .fixed_clock(1_780_125_300, 120)
        .team_dir(OpenOptions::team_dir_of(&b))
        .scope(agent_memory::Scope::Team);
    let mut bob_team = Runtime::shared().unwrap().open(team).unwrap();
    let receipt = bob_team
        .write(
            WriteTarget::Note,
            "# Deploy\nRun make release.\n",
            WriteMode::Overwrite,
            Some("deploy"),
        )
        .unwrap();
    assert_eq!(receipt.path, "team:notes/deploy.md");
    assert!(
        bob.context_block()
            .unwrap()
            .is_none_or(|b| !b.contains("CONFLICT"))
    );
    commit_all(&b, "resolve");
    git(&b, &["push", "-q", "origin", "HEAD:main"]);
    git(&a, &["pull", "-q", "--no-edit", "origin", "main"]);
    assert_eq!(
        team_text(&a, "notes/deploy.md"),
        "# Deploy\nRun make release.\n"
    );
}

#[test]
fn two_agents_on_one_clone_at_once_lose_nothing() {
    let repos = Repos::new();
    let a = repos.clone("a");
    const EACH: usize = 25;
    let workers: Vec<_> = ["one", "two"]
        .into_iter()
        .map(|who| {
            // Each agent has its own instance of the component, as two
            // processes would: only the team directory's lock serializes them.
            let mut memory = repos.agent(&a, who);
            std::thread::spawn(move || {
                for i in 0..EACH {
                    call(
                        &mut memory,
                        "memory_write",
                        &format!(
                            r#"{{"target":"long_term","content":"- {who} {i}","scope":"team"}}"#
                        ),
                    )
                    .unwrap();
                    call(
                        &mut memory,
                        "memory_write",
                        &format!(
                            r#"{{"target":"note","name":"log","content":"{who} {i}\n","scope":"team"}}"#
                        ),
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    for file in ["MEMORY.md", "notes/log.md"] {
        let text = team_text(&a, file);
        for who in ["one", "two"] {
            for i in 0..EACH {
                let line = if file == "MEMORY.md" {
                    format!("- {who} {i}")
                } else {
                    format!("{who} {i}")
                };
                assert_eq!(
                    text.lines().filter(|l| *l == line).count(),
                    1,
                    "{file}: {line}\n{text}"
                );
            }
        }
        assert_eq!(text.lines().count(), 2 * EACH, "{file}");
    }
    // What they wrote commits cleanly; their lock is not in it.
    commit_all(&a, "both agents");
    assert_eq!(git(&a, &["status", "--porcelain"]), "");
    assert!(!git(&a, &["ls-files"]).contains(".lock"));
}
