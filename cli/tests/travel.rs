//! Root resolution, the off switch, `status`, `import` and `export`, run as
//! a user would: temp roots, a temp config dir, pinned time.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{assert_success, mcp_session, stderr, stdout};

const NOW: &str = "2026-05-30T09:15:00+02:00";
const PROJECT: &str = "/work/src/my-app";

struct Env {
    temp: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Env {
            temp: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.temp.path().join(rel)
    }

    fn root(&self) -> PathBuf {
        self.path("memory")
    }

    /// The command with a clean environment: no memory variables, home and
    /// the config and data dirs inside the temp dir.
    fn bare(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
        for var in [
            "AGENT_MEMORY_DIR",
            "AGENT_MEMORY_NOW",
            "AGENT_MEMORY_DISABLE",
            "AGENT_MEMORY_CONFIG",
            "AGENT_MEMORY_SECRETS",
        ] {
            command.env_remove(var);
        }
        // The compiled-component cache stays the user's: a fresh one per
        // process would compile the component in every test.
        if let Some(cache) = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        {
            command.env("XDG_CACHE_HOME", cache);
        }
        command
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("XDG_DATA_HOME", self.path("data"))
            .current_dir(self.temp.path())
            .args(["--now", NOW]);
        command
    }

    /// The command on `root()`.
    fn command(&self) -> Command {
        let mut command = self.bare();
        command
            .arg("--root")
            .arg(self.root())
            .args(["--project", PROJECT]);
        command
    }

    fn ok(&self, args: &[&str]) -> String {
        let output = run(self.command().args(args));
        assert_success(&output, args);
        stdout(&output)
    }

    fn config(&self, text: &str) -> PathBuf {
        let dir = self.path("config/agent-memory");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("config.json"), text).unwrap();
        dir.join("config.json")
    }

    /// A copy of the fixture `name` in the temp dir.
    fn fixture(&self, name: &str) -> PathBuf {
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        let to = self.path("src").join(name);
        if from.is_dir() {
            copy_tree(&from, &to);
        } else {
            fs::create_dir_all(self.path("src")).unwrap();
            fs::copy(&from, &to).unwrap();
        }
        to
    }

    /// The store's files under the project dir and MEMORY.md, as
    /// (path after the slug, content).
    fn store_files(&self, root: &Path) -> Vec<(String, String)> {
        let mut files = Vec::new();
        collect(root, root, &mut files);
        files
            .into_iter()
            .map(|(path, text)| {
                let short = match path.strip_prefix("projects/") {
                    Some(rest) => rest.split_once('/').unwrap().1.to_string(),
                    None => path,
                };
                (short, text)
            })
            .collect()
    }
}

fn collect(base: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(listing) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = listing.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect(base, &path, out);
        } else {
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((rel, fs::read_to_string(&path).unwrap()));
        }
    }
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn run(command: &mut Command) -> Output {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("the agent-memory binary runs")
}

/// The line of `out` about `source`.
fn line_of<'a>(out: &'a str, source: &str) -> &'a str {
    out.lines()
        .find(|l| l.split_whitespace().nth(1).map(|w| w.trim_end_matches(':')) == Some(source))
        .unwrap_or_else(|| panic!("no line for {source} in:\n{out}"))
}

// --- the root chain and the off switch ---

#[test]
fn status_names_the_rule_that_chose_the_root() {
    let env = Env::new();
    let home = env.path("home");

    let out = stdout(&run(env.bare().arg("status")));
    let default = env.path("data/agent-memory");
    assert!(
        out.starts_with(&format!(
            "root:     {}\n  chosen by the platform data directory\nconfig:   none\nmemory:   on\n",
            default.display()
        )),
        "{out}"
    );

    let config = env.config(r#"{"root": "~/notes/memory"}"#);
    let out = stdout(&run(env.bare().arg("status")));
    assert!(
        out.starts_with(&format!(
            "root:     {}\n  chosen by \"root\" in {}\nconfig:   {}\n",
            home.join("notes/memory").display(),
            config.display(),
            config.display()
        )),
        "{out}"
    );

    let out = stdout(&run(env
        .bare()
        .env("AGENT_MEMORY_DIR", env.path("env-root"))
        .arg("status")));
    assert!(
        out.starts_with(&format!(
            "root:     {}\n  chosen by AGENT_MEMORY_DIR\n",
            env.path("env-root").display()
        )),
        "{out}"
    );

    let out = stdout(&run(env
        .bare()
        .env("AGENT_MEMORY_DIR", env.path("env-root"))
        .args(["--root", "flag-root", "status"])));
    assert!(
        out.starts_with(&format!(
            "root:     {}\n  chosen by --root\n",
            env.path("flag-root").display()
        )),
        "{out}"
    );
    assert!(
        !env.path("flag-root").exists(),
        "status reads: it creates no root"
    );
}

#[test]
fn status_counts_files_and_bytes() {
    let env = Env::new();
    env.ok(&["write", "long_term", "- one"]);
    env.ok(&["write", "note", "--name", "a", "hello"]);
    let out = env.ok(&["status"]);
    assert!(
        out.contains("store:    2 memory files, 12 bytes (every project)\n"),
        "{out}"
    );
    assert!(
        out.contains("files:    2 of this project, 12 bytes\n"),
        "{out}"
    );
}

#[test]
fn bad_roots_are_refused_with_the_rule_named() {
    let env = Env::new();
    fs::write(env.path("a-file"), "x").unwrap();
    let cases: [(&str, Option<&str>, &str); 5] = [
        (
            "--root",
            Some("/"),
            "the memory root `/` (from --root) is a filesystem root",
        ),
        (
            "--root",
            Some("a-file"),
            "(from --root) exists and is not a directory",
        ),
        (
            "AGENT_MEMORY_DIR",
            Some("relative/dir"),
            "the memory root `relative/dir` (from AGENT_MEMORY_DIR) is not an absolute path",
        ),
        (
            "config",
            Some(r#"{"root": "/"}"#),
            "the memory root `/` (from the config file) is a filesystem root",
        ),
        (
            "config",
            Some(r#"{"root": "/srv/m", "disable": true}"#),
            "unknown key \"disable\"",
        ),
    ];
    for (rule, value, message) in cases {
        let mut command = env.bare();
        match rule {
            "--root" => {
                command.args(["--root", value.unwrap()]);
            }
            "AGENT_MEMORY_DIR" => {
                command.env("AGENT_MEMORY_DIR", value.unwrap());
            }
            _ => {
                env.config(value.unwrap());
            }
        }
        let output = run(command.arg("context"));
        assert_eq!(output.status.code(), Some(1), "{rule} {value:?}");
        assert!(
            stderr(&output).contains(message),
            "{rule}: {}",
            stderr(&output)
        );
        let _ = fs::remove_dir_all(env.path("config"));
    }
}

#[test]
fn the_off_switch_gives_no_block_and_a_plain_tool_answer() {
    let env = Env::new();
    env.ok(&["write", "long_term", "- a fact"]);
    assert!(env.ok(&["context"]).contains("- a fact"));

    let off = |command: &mut Command| {
        command.env("AGENT_MEMORY_DISABLE", "1");
    };
    let mut context = env.command();
    off(&mut context);
    let output = run(context.arg("context"));
    assert_success(&output, &["context"]);
    assert_eq!(stdout(&output), "");

    let mut call = env.command();
    off(&mut call);
    let output = run(call.args([
        "call",
        "memory_write",
        r#"{"target":"long_term","content":"- new"}"#,
    ]));
    assert_success(&output, &["call"]);
    assert_eq!(
        stdout(&output),
        "Memory is turned off (AGENT_MEMORY_DISABLE=1): nothing was read or written. Carry on without memory; do not retry memory tools in this session.\n"
    );
    assert_eq!(
        fs::read_to_string(env.root().join("MEMORY.md")).unwrap(),
        "- a fact\n"
    );

    let mut write = env.command();
    off(&mut write);
    let output = run(write.args(["write", "long_term", "- new"]));
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("memory is turned off (AGENT_MEMORY_DISABLE=1); nothing was done"),
        "{}",
        stderr(&output)
    );

    let mut status = env.command();
    off(&mut status);
    let out = stdout(&run(status.arg("status")));
    assert!(
        out.contains("memory:   off (AGENT_MEMORY_DISABLE=1)\n"),
        "{out}"
    );
    assert!(out.contains("store:    1 memory files, 9 bytes"), "{out}");

    // The config's switch, and the variable winning over it.
    let config = env.config(r#"{"disabled": true}"#);
    let out = env.ok(&["status"]);
    assert!(
        out.contains(&format!(
            "memory:   off (\"disabled\": true in {})\n",
            config.display()
        )),
        "{out}"
    );
    assert_eq!(env.ok(&["context"]), "");
    let out = stdout(&run(env
        .command()
        .env("AGENT_MEMORY_DISABLE", "0")
        .arg("status")));
    assert!(out.contains("memory:   on\n"), "{out}");

    let output = run(env
        .command()
        .env("AGENT_MEMORY_DISABLE", "perhaps")
        .arg("context"));
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("AGENT_MEMORY_DISABLE=`perhaps` is not understood"));
}

#[test]
fn mcp_answers_that_memory_is_off() {
    let env = Env::new();
    let mut command = env.command();
    command.env("AGENT_MEMORY_DISABLE", "true");
    let replies = mcp_session(
        command,
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_read","arguments":{"source":"list"}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"memory://context"}}"#,
        ],
    );
    let tools = replies[0]["result"]["tools"].as_array().unwrap();
    assert!(
        tools.iter().any(|t| t["name"] == "memory_write"),
        "{tools:?}"
    );
    let call = &replies[1]["result"];
    assert_ne!(
        call.get("isError"),
        Some(&serde_json::Value::Bool(true)),
        "{call}"
    );
    assert_eq!(
        call["content"][0]["text"],
        "Memory is turned off (AGENT_MEMORY_DISABLE=true): nothing was read or written. Carry on without memory; do not retry memory tools in this session."
    );
    assert_eq!(replies[2]["result"]["contents"][0]["text"], "");
    assert!(!env.root().exists(), "memory off opens nothing");
}

// --- import ---

#[test]
fn claude_code_import_plans_imports_and_adds_nothing_twice() {
    let env = Env::new();
    let src = env.fixture("claude-code");
    let src_arg = src.to_str().unwrap();

    let plan = env.ok(&["import", "--dry-run", "claude-code", src_arg]);
    assert!(
        plan.ends_with(
            "Dry run: would create 8, append to 0; 0 unchanged, 0 skipped. Nothing was written.\n"
        ),
        "{plan}"
    );
    let index = line_of(&plan, "MEMORY.md");
    assert!(
        index.starts_with("create") && index.contains("-> note memory-index"),
        "{plan}"
    );
    assert!(
        line_of(&plan, "logs/2026/05/2026-05-28.md").contains("-> daily 2026-05-28"),
        "{plan}"
    );
    assert!(
        line_of(&plan, "feedback_testing.md").contains("-> note feedback_testing"),
        "{plan}"
    );
    assert_eq!(
        env.store_files(&env.root()),
        vec![],
        "a dry run writes nothing"
    );
    // `--dry-run` after the source, where people type it, plans the same.
    let after = env.ok(&["import", "claude-code", src_arg, "--dry-run"]);
    assert_eq!(after, plan);
    assert_eq!(
        env.store_files(&env.root()),
        vec![],
        "a dry run writes nothing"
    );

    let out = env.ok(&["import", "claude-code", src_arg]);
    assert!(
        out.ends_with(
            "Imported: 8 created, 0 appended; 0 unchanged, 0 skipped. One change: `agent-memory undo` takes it all back.\n"
        ),
        "{out}"
    );
    let files = env.store_files(&env.root());
    let expect = |store: &str, fixture: &str| {
        let text = fs::read_to_string(src.join(fixture)).unwrap();
        assert!(
            files.contains(&(store.to_string(), text)),
            "{store}: {files:?}"
        );
    };
    // One project's index lands in that project, beside the notes its
    // links name, so they resolve; the global MEMORY.md is untouched.
    expect("notes/memory-index.md", "MEMORY.md");
    expect("notes/feedback_testing.md", "feedback_testing.md");
    expect("notes/user_role.md", "user_role.md");
    expect("daily/2026-05-28.md", "logs/2026/05/2026-05-28.md");
    expect("daily/2026-04-30.md", "logs/2026/04/2026-04-30.md");
    assert_eq!(files.len(), 8);
    assert!(!env.root().join("MEMORY.md").exists());
    let notes = env
        .root()
        .join("projects")
        .read_dir()
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("notes");
    let index = fs::read_to_string(notes.join("memory-index.md")).unwrap();
    let links: Vec<&str> = index
        .split("](")
        .skip(1)
        .map(|rest| rest.split(')').next().unwrap())
        .collect();
    assert_eq!(links.len(), 4, "{index}");
    for link in links {
        assert!(notes.join(link).is_file(), "{link} resolves nowhere");
    }
    assert!(
        !env.ok(&["context"]).contains("[Merge freeze]"),
        "a project's index is not in every project's context"
    );

    // History records each file as imported.
    let history = env.ok(&["history", "note", "feedback_testing"]);
    assert!(history.contains("  import  did not exist"), "{history}");

    // Again: nothing added, and it says so.
    let again = env.ok(&["import", "claude-code", src_arg]);
    assert!(
        again.ends_with(
            "Imported: 0 created, 0 appended; 8 unchanged, 0 skipped. Nothing new: memory already holds all of it.\n"
        ),
        "{again}"
    );
    assert_eq!(env.store_files(&env.root()), files);

    // A new index line and a changed topic file: only what is new comes in.
    let mut index = fs::read_to_string(src.join("MEMORY.md")).unwrap();
    index.push_str("- [Deploys](deploys.md) — staging first\n");
    fs::write(src.join("MEMORY.md"), &index).unwrap();
    fs::write(src.join("user_role.md"), "Now also writes Go.\n").unwrap();
    let out = env.ok(&["import", "claude-code", src_arg]);
    assert!(line_of(&out, "MEMORY.md").starts_with("append"), "{out}");
    assert!(line_of(&out, "user_role.md").starts_with("append"), "{out}");
    // The index merges line by line, as MEMORY.md does.
    assert_eq!(
        fs::read_to_string(notes.join("memory-index.md")).unwrap(),
        index
    );
    let again = env.ok(&["import", "claude-code", src_arg]);
    assert!(
        again.contains("0 created, 0 appended; 8 unchanged, 0 skipped."),
        "{again}"
    );
}

#[test]
fn claude_code_import_with_global_merges_the_index_into_memory_md() {
    let env = Env::new();
    let src = env.fixture("claude-code");
    env.ok(&["write", "long_term", "- prefers tabs"]);
    let out = env.ok(&["import", "claude-code", "--global", src.to_str().unwrap()]);
    let index = line_of(&out, "MEMORY.md");
    assert!(
        index.starts_with("append") && index.contains("-> MEMORY.md (MEMORY.md)"),
        "{out}"
    );
    let fixture = fs::read_to_string(src.join("MEMORY.md")).unwrap();
    assert_eq!(
        fs::read_to_string(env.root().join("MEMORY.md")).unwrap(),
        format!("- prefers tabs\n{fixture}")
    );
    assert!(
        env.store_files(&env.root())
            .iter()
            .all(|(path, _)| path != "notes/memory-index.md")
    );
    assert!(
        env.ok(&["context"])
            .contains("[Merge freeze](project_merge_freeze.md)")
    );
}

#[test]
fn one_undo_takes_a_whole_import_back_byte_for_byte() {
    let env = Env::new();
    let src = env.fixture("claude-code");
    env.ok(&["write", "long_term", "- prefers tabs"]);
    env.ok(&[
        "write",
        "note",
        "--name",
        "user_role",
        "Dana, on the data team",
    ]);
    let root = env.root();
    let before = snapshot_tree(&root);
    for global in [false, true] {
        let mut args = vec!["import", "claude-code", src.to_str().unwrap()];
        if global {
            args.push("--global");
        }
        let out = env.ok(&args);
        let counts = if global {
            "6 created, 2 appended"
        } else {
            "7 created, 1 appended"
        };
        assert!(out.contains(counts), "{out}");
        assert_ne!(snapshot_tree(&root), before);
        let undone = env.ok(&["undo"]);
        assert!(undone.contains("8 files"), "{undone}");
        assert_eq!(
            snapshot_tree(&root),
            before,
            "byte for byte (global: {global})"
        );
    }
}

/// Every file under `root` but the store's hidden ones, with its bytes.
fn snapshot_tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    collect(root, root, &mut files);
    files
        .into_iter()
        .map(|(path, text)| (path, text.into_bytes()))
        .collect()
}

#[test]
fn a_malformed_source_is_refused_whole_and_changes_nothing() {
    let env = Env::new();
    env.ok(&["write", "long_term", "- prefers tabs"]);
    let root = env.root();
    let before = snapshot_tree(&root);
    let history = env.ok(&["history"]);

    // Not a memory directory at all.
    let empty = env.path("not-memory");
    fs::create_dir_all(&empty).unwrap();
    fs::write(empty.join("transcript.jsonl"), "{}").unwrap();
    let output = run(env
        .command()
        .args(["import", "claude-code", empty.to_str().unwrap()]));
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains(
            "holds no Claude Code memory (no MEMORY.md, no topic .md file); nothing was imported"
        ),
        "{}",
        stderr(&output)
    );

    // Memory files that cannot be imported: every one named, none written.
    let src = env.fixture("claude-code");
    fs::write(src.join("bad-utf8.md"), b"ok \xff\xfe broken").unwrap();
    fs::write(src.join("huge.md"), "x".repeat(70_000)).unwrap();
    fs::write(src.join("CON.md"), "device name").unwrap();
    fs::write(
        src.join("token.md"),
        "deploy with ghp_Q3vN8xT2mL5pR9wK4yH7jD1sF6gB0cZ8aE3u",
    )
    .unwrap();
    fs::create_dir_all(src.join("logs/2026/13")).unwrap();
    fs::write(src.join("logs/2026/13/2026-13-01.md"), "bad month").unwrap();
    for dry_run in [true, false] {
        let mut args = vec!["import", "claude-code", src.to_str().unwrap()];
        if dry_run {
            args.push("--dry-run");
        }
        let output = run(env.command().args(&args));
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let said = stderr(&output);
        assert!(
            said.starts_with("error: the import is refused and nothing was imported; fix these files in the source (or leave them out) and import again:\n"),
            "{said}"
        );
        for (file, why) in [
            (
                "`bad-utf8.md` (-> note bad-utf8)",
                "not valid UTF-8 (at byte 3); convert it first",
            ),
            (
                "`huge.md` (-> note huge)",
                "too large: 70000 bytes, over the 65536-byte write cap",
            ),
            (
                "invalid-name: `CON.md`",
                "it is a reserved Windows device name",
            ),
            ("secret-detected: `token.md`", "github"),
            ("invalid-date: `logs/2026/13/2026-13-01.md`", "2026-13-01"),
        ] {
            let line = said
                .lines()
                .find(|l| l.contains(file))
                .unwrap_or_else(|| panic!("{file} not named: {said}"));
            assert!(line.contains(why), "{line}");
        }
        assert!(!said.contains("ghp_"), "the secret is never echoed: {said}");
        assert_eq!(snapshot_tree(&root), before, "nothing written");
        assert_eq!(env.ok(&["history"]), history, "nothing recorded");
    }
}

#[cfg(unix)]
#[test]
fn what_is_not_memory_is_reported_and_skipped() {
    let env = Env::new();
    let src = env.fixture("claude-code");
    let outside = env.path("outside-secret.md");
    fs::write(&outside, "canary: must never be imported").unwrap();
    std::os::unix::fs::symlink(&outside, src.join("link-out.md")).unwrap();
    std::os::unix::fs::symlink(env.path("."), src.join("dir-link")).unwrap();
    let fifo = src.join("pipe.md");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    fs::write(src.join(".hidden.md"), "hidden").unwrap();
    fs::write(src.join("notes.txt"), "not markdown").unwrap();
    fs::write(src.join("logs/stray.md"), "stray").unwrap();

    let out = env.ok(&["import", "claude-code", src.to_str().unwrap()]);
    let skip = |source: &str, why: &str| {
        let line = line_of(&out, source);
        assert!(
            line.starts_with("skip") && line.contains(why),
            "{source}: {line}"
        );
    };
    skip("link-out.md", "a symbolic link; links are never followed");
    skip("dir-link", "a symbolic link; links are never followed");
    skip(
        "pipe.md",
        "not a regular file (a FIFO, socket or device); not read",
    );
    skip(".hidden.md", "a hidden (dot) file or folder; not imported");
    skip("notes.txt", "not a Markdown (.md) file; not imported");
    skip(
        "logs/stray.md",
        "under logs/ but not logs/YYYY/MM/YYYY-MM-DD.md",
    );
    assert!(
        out.ends_with("Imported: 8 created, 0 appended; 0 unchanged, 6 skipped. One change: `agent-memory undo` takes it all back.\n"),
        "{out}"
    );
    for (_, text) in env.store_files(&env.root()) {
        assert!(
            !text.contains("canary") && !text.contains("not markdown") && !text.contains("stray")
        );
    }
}

#[test]
fn a_long_import_says_how_many_files_it_read() {
    let env = Env::new();
    let src = env.path("many");
    fs::create_dir_all(&src).unwrap();
    for i in 0..25 {
        fs::write(src.join(format!("topic-{i:02}.md")), format!("fact {i}\n")).unwrap();
    }
    let output = run(env
        .command()
        .args(["import", "claude-code", src.to_str().unwrap()]));
    assert_success(&output, &["import"]);
    assert_eq!(
        stderr(&output),
        format!(
            "import: 25 files read; importing them as one change\ncreated a new memory root at {}\n",
            env.root().display()
        )
    );
}

#[test]
fn codescout_private_topics_go_to_personal_notes_and_shared_ones_to_the_team() {
    let env = Env::new();
    let src = env.fixture("codescout");
    let out = stdout(&run(env.bare().arg("--root").arg(env.root()).args([
        "import",
        "codescout",
        src.to_str().unwrap(),
    ])));
    let private = line_of(&out, ".codescout/private-memories/personal/review-style.md");
    assert!(
        private.starts_with("create") && private.contains("-> note personal/review-style"),
        "{out}"
    );
    assert!(
        line_of(&out, ".codescout/private-memories/wip-notes.md").starts_with("create"),
        "{out}"
    );
    let shared = line_of(&out, ".codescout/memories/conventions/error-handling.md");
    assert!(
        shared.starts_with("create") && shared.contains("-> team note conventions/error-handling"),
        "{out}"
    );
    // Shared memories land in the project's team store, verbatim.
    let shared_text =
        fs::read_to_string(src.join(".codescout/memories/conventions/error-handling.md")).unwrap();
    assert_eq!(
        fs::read_to_string(src.join(".agent-memory/notes/conventions/error-handling.md")).unwrap(),
        shared_text
    );
    let sidecar = line_of(&out, ".codescout/memories/architecture.anchors.toml");
    assert!(
        sidecar.contains("a codescout anchor sidecar; not imported"),
        "{out}"
    );

    // The project is the source's own (no --project given): its slug.
    let files = env.store_files(&env.root());
    let wip = fs::read_to_string(src.join(".codescout/private-memories/wip-notes.md")).unwrap();
    assert!(
        files.contains(&("notes/wip-notes.md".into(), wip)),
        "{files:?}"
    );
    let status = env.ok(&["status"]);
    assert!(
        !status.contains("wip-notes"),
        "another project's notes: {status}"
    );
}

#[test]
fn agents_md_becomes_a_note_named_after_the_file() {
    let env = Env::new();
    let src = env.fixture("AGENTS.md");
    let text = fs::read_to_string(&src).unwrap();
    let local = env.path("CLAUDE.local.md");
    fs::write(&local, "- my sandbox is at http://localhost:8080\n").unwrap();
    let out = env.ok(&["import", "agents-md", src.to_str().unwrap()]);
    assert!(
        line_of(&out, "AGENTS.md").contains("-> note AGENTS"),
        "{out}"
    );
    let out = env.ok(&["import", "agents-md", local.to_str().unwrap()]);
    assert!(
        line_of(&out, "CLAUDE.local.md").contains("-> note CLAUDE-local"),
        "{out}"
    );
    let read = env.ok(&["read", "note", "AGENTS"]);
    assert_eq!(read, text);
    let again = env.ok(&["import", "agents-md", src.to_str().unwrap()]);
    assert!(
        again.ends_with(
            "0 created, 0 appended; 1 unchanged, 0 skipped. Nothing new: memory already holds all of it.\n"
        ),
        "{again}"
    );
}

// --- export ---

/// Staleness marks are for rendering: an export copies the note's own text,
/// even when a file it names has changed since.
#[test]
fn export_writes_notes_without_their_staleness_marks() {
    let env = Env::new();
    let project = env.path("app");
    fs::create_dir_all(project.join("src")).unwrap();
    fs::write(project.join("src/auth.rs"), "pub fn login() {}\n").unwrap();
    let in_project = |args: &[&str]| {
        let output = run(env
            .bare()
            .arg("--root")
            .arg(env.root())
            .arg("--project")
            .arg(&project)
            .args(args));
        assert_success(&output, args);
        stdout(&output)
    };
    in_project(&[
        "write",
        "note",
        "--name",
        "auth",
        "Login lives in src/auth.rs",
    ]);
    fs::write(project.join("src/auth.rs"), "pub fn login(user: &str) {}\n").unwrap();
    assert!(
        in_project(&["read", "note", "auth"]).contains("stale: src/auth.rs changed since"),
        "the note reads as stale"
    );

    let out_dir = env.path("exported");
    in_project(&["export", "claude-code", out_dir.to_str().unwrap()]);
    assert_eq!(
        fs::read_to_string(out_dir.join("auth.md")).unwrap(),
        "Login lives in src/auth.rs\n"
    );
}

#[test]
fn export_then_import_keeps_every_file() {
    let env = Env::new();
    env.ok(&[
        "write",
        "long_term",
        "- prefers tabs\n- deploys via make ship",
    ]);
    env.ok(&["write", "scratchpad", "- [ ] fix login\n- [x] bump deps"]);
    env.ok(&["write", "daily", "### 09:15 — deploy\nshipped 1.4"]);
    env.ok(&[
        "write",
        "note",
        "--name",
        "auth",
        "# Auth\n\nJWT, RS256; keys rotate monthly.\n",
    ]);
    env.ok(&[
        "write",
        "note",
        "--name",
        "deploy/staging",
        "make deploy-staging\n\n\nthen smoke tests",
    ]);
    env.ok(&[
        "write",
        "note",
        "--name",
        "Über uns",
        "Unicode names travel too ✓",
    ]);
    let before = env.store_files(&env.root());

    let out_dir = env.path("exported");
    let out = env.ok(&["export", "claude-code", out_dir.to_str().unwrap()]);
    assert!(
        out.ends_with(&format!(
            "Exported to {}: 6 written, 0 unchanged, 0 skipped.\n",
            out_dir.display()
        )),
        "{out}"
    );
    assert_eq!(
        fs::read_to_string(out_dir.join("logs/2026/05/2026-05-30.md")).unwrap(),
        "### 09:15 — deploy\nshipped 1.4\n"
    );
    assert!(out_dir.join("deploy/staging.md").is_file());
    assert!(out_dir.join("SCRATCHPAD.md").is_file());

    // Exporting again changes nothing; a file changed meanwhile is kept.
    fs::write(out_dir.join("auth.md"), "edited by hand").unwrap();
    let again = env.ok(&["export", "claude-code", out_dir.to_str().unwrap()]);
    assert!(
        line_of(&again, "auth.md").contains("exists with other content; not overwritten"),
        "{again}"
    );
    fs::remove_file(out_dir.join("auth.md")).unwrap();
    env.ok(&["export", "claude-code", out_dir.to_str().unwrap()]);

    let fresh = env.path("fresh-root");
    let output = run(env.bare().arg("--root").arg(&fresh).args([
        "--project",
        PROJECT,
        "import",
        "claude-code",
        "--global",
        out_dir.to_str().unwrap(),
    ]));
    assert_success(&output, &["import"]);
    // With --global the exported MEMORY.md goes back to the global one.
    assert_eq!(env.store_files(&fresh), before, "byte for byte");
}

#[test]
fn scope_team_points_read_write_search_and_history_at_the_team_store() {
    let env = Env::new();
    let team = env.path("repo/.agent-memory");
    fs::create_dir_all(&team).unwrap();
    let dir = team.to_str().unwrap();
    let team_args = |rest: &[&str]| -> Vec<String> {
        ["--team-dir", dir, "--scope", "team"]
            .iter()
            .chain(rest)
            .map(|s| s.to_string())
            .collect()
    };
    let ok = |rest: &[&str]| {
        let args = team_args(rest);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        env.ok(&args)
    };
    let written = ok(&["write", "long_term", "- deploys need two approvals"]);
    assert!(
        written.starts_with("Appended 29 bytes to team:MEMORY.md\n"),
        "{written}"
    );
    assert_eq!(
        fs::read_to_string(team.join("MEMORY.md")).unwrap(),
        "- deploys need two approvals\n"
    );
    assert_eq!(ok(&["read", "long_term"]), "- deploys need two approvals\n");
    assert!(
        ok(&["search", "approvals"]).contains("team:MEMORY.md  [matched: approvals]"),
        "team search"
    );
    assert!(ok(&["history", "long_term"]).contains("team:MEMORY.md"));
    // The personal store saw none of it.
    assert!(!env.root().join("MEMORY.md").exists());
    assert_eq!(env.ok(&["read", "long_term"]), "(empty)\n");

    // Commands that see both stores or choose per call refuse it: bad usage.
    let refused = run(env.command().args(team_args(&["context"])));
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains(
            "--scope team applies to read, write, search, history, undo, clear, edit, restore, delete, rename and list; drop it here"
        ),
        "{}",
        stderr(&refused)
    );
    // Without a team directory there is nothing to point at.
    let missing = run(env.command().args(["--scope", "team", "read", "long_term"]));
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("--scope team needs the project's team memory: create "),
        "{}",
        stderr(&missing)
    );
}
