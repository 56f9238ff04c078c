//! The command line as a person meets it: every verb a tool has, one
//! vocabulary (commands at the command line, tools in tool results), one
//! spelling per word, honest receipts, and no root made by a read.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

mod common;
use common::{assert_success, stderr, stdout};

const NOW: &str = "2026-05-30T09:15:00+02:00";
const PROJECT: &str = "/work/src/my-app";

struct Cli {
    temp: tempfile::TempDir,
    project: String,
}

impl Cli {
    fn new() -> Self {
        Cli {
            temp: tempfile::tempdir().unwrap(),
            project: PROJECT.to_string(),
        }
    }

    fn root(&self) -> PathBuf {
        self.temp.path().join("memory")
    }

    fn command(&self) -> Command {
        let mut command = common::clean_command(self.temp.path());
        command
            .arg("--root")
            .arg(self.root())
            .args(["--project", &self.project, "--now", NOW]);
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with_stdin(args, "")
    }

    fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Output {
        use std::io::Write;
        let mut child = self
            .command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert_success(&output, args);
        stdout(&output)
    }

    /// Runs and insists on exit 1, returning stderr.
    fn fails(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{args:?}: stdout {} stderr {}",
            stdout(&output),
            stderr(&output)
        );
        stderr(&output)
    }

    /// The store path of note `name`, as receipts print it.
    fn note_path(&self, name: &str) -> String {
        let path = self.note(name);
        path.strip_prefix(self.root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string()
    }

    fn note(&self, name: &str) -> PathBuf {
        let notes = fs::read_dir(self.root().join("projects"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path()
            .join("notes");
        notes.join(format!("{name}.md"))
    }
}

/// Everything a command printed, both streams.
fn said(output: &Output) -> String {
    format!("{}{}", stdout(output), stderr(output))
}

/// A message for a person: names commands, never a tool.
fn assert_speaks_cli(args: &[&str], text: &str) {
    assert!(
        !text.contains("memory_"),
        "`{}` printed a tool name:\n{text}",
        args.join(" ")
    );
}

/// A tool result: names tools, never a command or a path of the machine.
fn assert_speaks_tools(call: &str, text: &str) {
    assert!(
        !text.contains("agent-memory ") && !text.contains("/tmp/"),
        "tool call {call} named a command or a path:\n{text}"
    );
}

#[test]
fn every_cli_message_names_commands_and_every_tool_result_names_tools() {
    let mut cli = Cli::new();
    // `snapshot` writes into the project: a real folder of this test's own.
    let project = cli.temp.path().join("project");
    fs::create_dir_all(&project).unwrap();
    cli.project = project.to_str().unwrap().to_string();
    // Receipts and errors of every verb, in an order that reaches each
    // path: creating, appending, the budget warning's advice, deleting,
    // restoring, renaming, missing files and bad ids.
    let big_index: String = (0..205).map(|i| format!("- fact {i}\n")).collect();
    let runs: Vec<(Vec<&str>, &str)> = vec![
        (vec!["write", "long_term", "- first fact"], ""),
        (vec!["write", "long_term", "--overwrite", "-"], &big_index),
        (vec!["write", "note", "--name", "deploy", "make ship"], ""),
        (vec!["write", "scratchpad", "- [ ] fix login"], ""),
        (vec!["write", "daily", "went well"], ""),
        (vec!["read", "note", "deploy"], ""),
        (vec!["read", "note", "nothing-here"], ""),
        (vec!["read", "long-term"], ""),
        (vec!["list"], ""),
        (vec!["history", "note", "deploy"], ""),
        (vec!["history", "note", "never"], ""),
        (vec!["rename", "deploy", "ops/deploy"], ""),
        (vec!["rename", "missing", "other"], ""),
        (vec!["delete", "ops/deploy"], ""),
        (vec!["delete", "ops/deploy"], ""),
        (vec!["restore", "v3"], ""),
        (vec!["restore", "v999"], ""),
        (vec!["restore", "nonsense"], ""),
        (vec!["search", "login"], ""),
        (vec!["search", "nothing-matches-this"], ""),
        (vec!["flush-compaction", "summary of the session"], ""),
        (vec!["undo"], ""),
        (vec!["clear", "project", "--yes"], ""),
        (vec!["snapshot"], ""),
        (vec!["snapshot", "apply"], ""),
        (vec!["write", "note", "--name", "release-1.2", "x"], ""),
        (vec!["status"], ""),
    ];
    for (args, stdin) in &runs {
        let output = cli.run_with_stdin(args, stdin);
        assert_speaks_cli(args, &said(&output));
    }
    // The same store through tool calls: every result keeps the tools'
    // words.
    let calls = [
        (
            "memory_write",
            r#"{"target":"note","name":"n","content":"x"}"#,
        ),
        ("memory_read", r#"{"source":"note","name":"absent"}"#),
        ("memory_read", r#"{"source":"list"}"#),
        ("memory_history", r#"{"target":"note","name":"n"}"#),
        ("memory_delete", r#"{"name":"n"}"#),
        ("memory_restore", r#"{"version":"v999"}"#),
        ("memory_restore", r#"{"version":"bad"}"#),
        ("memory_rename", r#"{"name":"absent","new_name":"b"}"#),
        ("memory_search", r#"{"query":"login"}"#),
    ];
    for (tool, json) in calls {
        let output = cli.run(&["call", tool, json]);
        assert_speaks_tools(tool, &said(&output));
    }
    // And they point where each reader can go.
    let deleted = cli.ok(&[
        "call",
        "memory_write",
        r#"{"target":"note","name":"m","content":"x"}"#,
    ]);
    assert!(deleted.contains("memory_search finds them"), "{deleted}");
    let deleted = cli.ok(&["call", "memory_delete", r#"{"name":"m"}"#]);
    assert!(
        deleted.contains("memory_history and memory_restore"),
        "{deleted}"
    );
    cli.ok(&["write", "note", "--name", "m", "x"]);
    let deleted = cli.ok(&["delete", "m"]);
    assert!(
        deleted.contains(
            "`agent-memory history` and `agent-memory restore VERSION` can bring it back"
        ),
        "{deleted}"
    );
    let history = cli.ok(&["history", "note", "m"]);
    assert!(
        history.contains("restore one with `agent-memory restore v"),
        "{history}"
    );
    let missing = cli.fails(&["read", "note", "absent"]);
    assert!(
        missing.contains("`agent-memory list` shows the notes"),
        "{missing}"
    );
}

#[test]
fn restore_delete_rename_and_list_do_what_the_tools_do() {
    let cli = Cli::new();
    cli.ok(&["write", "note", "--name", "deploy", "make ship"]);
    let renamed = cli.ok(&["rename", "deploy", "ops/deploy"]);
    assert!(renamed.contains("ops/deploy"), "{renamed}");
    assert!(cli.note("ops/deploy").is_file());
    let list = cli.ok(&["list"]);
    assert!(list.contains("notes/ops/deploy.md"), "{list}");
    assert_eq!(list, cli.ok(&["read", "list"]));
    cli.ok(&["delete", "ops/deploy"]);
    assert!(!cli.note("ops/deploy").exists());
    // The delete's version holds the note as it was: restoring it brings
    // the note back.
    let history = cli.ok(&["history", "note", "ops/deploy"]);
    let newest = history
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let restored = cli.ok(&["restore", &newest]);
    assert!(restored.starts_with("Restored"), "{restored}");
    assert_eq!(
        fs::read_to_string(cli.note("ops/deploy")).unwrap(),
        "make ship\n"
    );
    // Renaming onto a taken name is refused, as memory_rename refuses it.
    cli.ok(&["write", "note", "--name", "other", "y"]);
    let taken = cli.fails(&["rename", "other", "ops/deploy"]);
    assert!(taken.contains("exists"), "{taken}");
}

#[test]
fn long_term_is_spelled_both_ways_everywhere_and_one_way_in_help() {
    let cli = Cli::new();
    cli.ok(&["write", "long-term", "- a"]);
    cli.ok(&["write", "long_term", "- b"]);
    assert_eq!(
        cli.ok(&["read", "long-term"]),
        cli.ok(&["read", "long_term"])
    );
    assert_eq!(
        cli.ok(&["history", "long-term"]),
        cli.ok(&["history", "long_term"])
    );
    cli.ok(&["clear", "long-term", "--yes"]);
    cli.ok(&["write", "long_term", "- c"]);
    cli.ok(&["clear", "long_term", "--yes"]);
    for verb in ["read", "write", "history", "edit", "clear"] {
        let help = cli.ok(&[verb, "--help"]);
        assert!(help.contains("long_term"), "{verb} --help:\n{help}");
        assert!(
            !help.contains("long-term"),
            "{verb} --help shows both:\n{help}"
        );
    }
}

#[test]
fn a_write_over_the_cap_is_refused_unless_truncate_is_given() {
    let cli = Cli::new();
    let big = "x".repeat(70_000);
    let output = cli.run_with_stdin(&["write", "note", "--name", "big"], &big);
    assert_eq!(output.status.code(), Some(1), "{}", said(&output));
    let error = stderr(&output);
    assert!(
        error.contains("70000 bytes") && error.contains("65536-byte write cap"),
        "{error}"
    );
    assert!(
        error.contains("nothing was written") && error.contains("--truncate"),
        "{error}"
    );
    assert!(
        !cli.root().join("projects").exists(),
        "a refused write made files"
    );
    let cut = cli.run_with_stdin(&["write", "note", "--name", "big", "--truncate"], &big);
    assert_success(&cut, &["write --truncate"]);
    assert!(
        stdout(&cut).contains("truncated from 70000 bytes"),
        "{}",
        stdout(&cut)
    );
    // A model's call keeps the cut and its receipt.
    let json = serde_json::json!({"target": "note", "name": "m", "content": big}).to_string();
    let receipt = cli.ok(&["call", "memory_write", &json]);
    assert!(
        receipt.contains("content truncated from 70000 bytes"),
        "{receipt}"
    );
}

#[test]
fn the_write_cap_never_counts_the_final_newline() {
    let cli = Cli::new();
    // Exactly the cap, piped with and without its newline: stored whole,
    // the store's newline after it.
    let exact = "x".repeat(65_536);
    for (name, input) in [("bare", exact.clone()), ("ended", format!("{exact}\n\n"))] {
        let output = cli.run_with_stdin(&["write", "note", "--name", name], &input);
        assert_success(&output, &["write", name]);
        assert_eq!(
            stdout(&output).lines().next().unwrap(),
            format!("Appended 65537 bytes to {}", cli.note_path(name)),
        );
        assert_eq!(
            fs::read_to_string(cli.note(name)).unwrap(),
            format!("{exact}\n")
        );
    }
    // One character more is over the cap, newline or not.
    let over = format!("{exact}y\n");
    let error = stderr(&cli.run_with_stdin(&["write", "note", "--name", "over"], &over));
    assert!(
        error.contains("the content is 65537 bytes (not counting its final newline), over the 65536-byte write cap"),
        "{error}"
    );
    assert!(!cli.note("over").exists(), "a refused write made a note");
}

#[test]
fn a_name_says_what_it_may_hold_and_md_is_dropped_everywhere() {
    let cli = Cli::new();
    // A version number is a name; `.md` at the end names the same note.
    cli.ok(&["write", "note", "--name", "release-1.2.md", "- shipped"]);
    assert_eq!(
        fs::read_to_string(cli.note("release-1.2")).unwrap(),
        "- shipped\n"
    );
    cli.ok(&["write", "note", "--name", "README.md", "read me"]);
    assert_eq!(cli.ok(&["read", "note", "README.md"]), "read me\n");
    assert_eq!(cli.ok(&["read", "note", "README"]), "read me\n");
    let history = cli.ok(&["history", "note", "README.md"]);
    assert!(
        history
            .lines()
            .nth(1)
            .unwrap()
            .ends_with("  append  did not exist"),
        "{history}"
    );
    cli.ok(&["rename", "README.md", "docs/readme.md"]);
    assert!(cli.note("docs/readme").exists() && !cli.note("README").exists());
    cli.ok(&["delete", "docs/readme.md"]);
    assert!(!cli.note("docs/readme").exists());
    // A refused name: what broke, then the rule, in a person's words.
    let rule = "a note name is 1-64 letters or digits, `-`, `_`, single inner spaces and dots between two digits (`release-1.2`), in up to 4 topics joined by `/` (`ops/deploy`); one trailing `.md` is dropped";
    for (args, raw) in [
        (
            &["write", "note", "--name", "release.notes", "x"][..],
            "release.notes",
        ),
        (&["read", "note", "a.md.md"], "a.md.md"),
        (&["rename", "release-1.2", ".hidden"], ".hidden"),
        (&["delete", "../escape"], "../escape"),
    ] {
        let error = cli.fails(args);
        assert!(
            error.contains(&format!("invalid note name {raw:?}: ")) && error.contains(rule),
            "{args:?}: {error}"
        );
        assert_speaks_cli(args, &error);
    }
    // The same rule in a tool result, in a model's words.
    let call = cli.run(&[
        "call",
        "memory_write",
        r#"{"target":"note","name":"v1..2","content":"x"}"#,
    ]);
    let result = said(&call);
    assert!(
        result.contains("invalid note name \"v1..2\": a dot is allowed only between two digits; ")
            && result.contains(rule),
        "{result}"
    );
    assert_speaks_tools("memory_write", &result);
}

#[test]
fn read_only_commands_on_a_missing_root_create_nothing_and_say_so() {
    let cli = Cli::new();
    let exports = cli.temp.path().join("exported");
    let source = cli.temp.path().join("claude-memory");
    fs::create_dir(&source).unwrap();
    fs::write(source.join("MEMORY.md"), "- imported\n").unwrap();
    let session_start = serde_json::json!({
        "session_id": "abc123",
        "cwd": cli.temp.path(),
        "hook_event_name": "SessionStart",
        "source": "startup",
    })
    .to_string();
    // Every command that only reads, and those that would change what a
    // missing root cannot hold.
    let reads: &[&[&str]] = &[
        &["status"],
        &["context"],
        &["search", "login"],
        &["search", "--mode", "literal", "login"],
        &["read", "long_term"],
        &["read", "list"],
        &["list"],
        &["history"],
        &["export", "claude-code", exports.to_str().unwrap()],
        &["scan"],
        &["scan", "--purge"],
        &["review"],
        &["dream"],
        &["index"],
        &[
            "import",
            "--dry-run",
            "claude-code",
            source.to_str().unwrap(),
        ],
        &["delete", "deploy"],
        &["clear", "all", "--yes"],
    ];
    for args in reads {
        let output = cli.run(args);
        assert_success(&output, args);
        assert!(!cli.root().exists(), "{args:?} created the root");
        assert!(
            said(&output).contains("the root does not exist, and nothing was created"),
            "{args:?} did not say so: {}",
            said(&output)
        );
        assert!(
            said(&output).contains("agent-memory write long_term"),
            "{args:?} named no command that creates it: {}",
            said(&output)
        );
    }
    assert!(!exports.exists(), "export made its folder");
    for args in [&["undo"][..], &["restore", "v1"], &["rename", "a", "b"]] {
        let refused = cli.fails(args);
        assert!(!cli.root().exists(), "{args:?} created the root");
        assert!(
            refused.contains("the root does not exist, and nothing was created"),
            "{args:?}: {refused}"
        );
    }
    // An agent's session starts quietly: no block, no message, no root.
    let hook = cli.run_with_stdin(&["hook", "claude-code", "session-start"], &session_start);
    assert_success(&hook, &["hook"]);
    assert_eq!(said(&hook), "");
    assert!(!cli.root().exists(), "the hook created the root");
    assert_eq!(
        stdout(&cli.run(&["context"])),
        "",
        "context printed a block"
    );
    let first = cli.run(&["write", "long_term", "- first"]);
    assert_success(&first, &["write"]);
    assert!(
        stderr(&first).contains("created a new memory root at"),
        "{}",
        stderr(&first)
    );
    let second = cli.run(&["write", "long_term", "- second"]);
    assert!(!stderr(&second).contains("created"), "{}", stderr(&second));
}

#[test]
fn every_file_written_from_the_command_line_ends_with_one_newline() {
    let cli = Cli::new();
    cli.ok(&["write", "scratchpad", "- [ ] Fix flaky login test"]);
    cli.ok(&["write", "scratchpad", "- [ ] second\n\n\n"]);
    let pad = fs::read_dir(cli.root().join("projects"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("SCRATCHPAD.md");
    assert_eq!(
        fs::read_to_string(pad).unwrap(),
        "- [ ] Fix flaky login test\n- [ ] second\n"
    );
}

#[test]
fn snapshot_apply_right_after_snapshot_applies_and_records_nothing() {
    let mut cli = Cli::new();
    let project = cli.temp.path().join("project");
    fs::create_dir_all(&project).unwrap();
    cli.project = project.to_str().unwrap().to_string();
    cli.ok(&["write", "note", "--name", "deploy", "make ship"]);
    cli.ok(&["snapshot"]);
    let before = cli.ok(&["history", "note", "deploy"]);
    let applied = cli.ok(&["snapshot", "apply"]);
    assert!(
        applied.starts_with("Nothing to apply; already in step"),
        "{applied}"
    );
    assert_eq!(
        cli.ok(&["history", "note", "deploy"]),
        before,
        "apply recorded a change"
    );
}

#[test]
fn call_help_lists_every_tool() {
    let cli = Cli::new();
    let help = cli.ok(&["call", "--help"]);
    for set in ["full", "anthropic"] {
        let tools: serde_json::Value =
            serde_json::from_str(&cli.ok(&["tools", "--set", set])).unwrap();
        for tool in tools.as_array().unwrap() {
            let name = tool["name"].as_str().unwrap();
            assert!(
                help.contains(name),
                "call --help leaves out {name}:\n{help}"
            );
        }
    }
}

#[test]
fn export_onto_an_existing_file_says_what_is_wrong() {
    let cli = Cli::new();
    cli.ok(&["write", "long_term", "- a"]);
    let file = cli.temp.path().join("out.md");
    fs::write(&file, "mine").unwrap();
    let error = cli.fails(&["export", "claude-code", file.to_str().unwrap()]);
    assert!(error.contains("exists and is not a directory"), "{error}");
    assert!(!error.contains("os error"), "{error}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "mine");
}

#[test]
fn docs_cli_md_lists_every_subcommand_of_help_and_no_other() {
    let cli = Cli::new();
    let help = cli.ok(&["--help"]);
    let in_help: Vec<String> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.split_whitespace().next())
        .filter(|w| *w != "help")
        .map(str::to_string)
        .collect();
    assert!(in_help.len() > 20, "{in_help:?}");
    let docs = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/cli.md")).unwrap();
    let in_docs: Vec<String> = docs
        .lines()
        .filter_map(|l| l.strip_prefix("### `agent-memory ")?.strip_suffix('`'))
        .map(str::to_string)
        .collect();
    for name in &in_help {
        assert!(
            in_docs.contains(name),
            "docs/cli.md has no section for `{name}`"
        );
        let section = docs
            .split(&format!("### `agent-memory {name}`"))
            .nth(1)
            .unwrap();
        let section = section.split("\n### ").next().unwrap();
        assert!(
            section.contains(&format!("    agent-memory {name}")),
            "docs/cli.md has no example of `{name}`"
        );
    }
    for name in &in_docs {
        assert!(
            in_help.contains(name),
            "docs/cli.md documents `{name}`, which --help does not list"
        );
    }
}

#[test]
fn search_finds_what_the_scratchpad_holds() {
    let cli = Cli::new();
    cli.ok(&["write", "scratchpad", "- [ ] Fix flaky login test"]);
    cli.ok(&["write", "note", "--name", "deploy", "staging first"]);
    let found = cli.ok(&["search", "login"]);
    assert!(
        found.contains("/SCRATCHPAD.md  [matched: login]\n- [ ] Fix flaky login test"),
        "{found}"
    );
    assert!(
        found.starts_with("Searched 1 term: login(1) across 1 file."),
        "{found}"
    );
    let tool = cli.ok(&["call", "memory_search", r#"{"query":"login"}"#]);
    assert!(
        tool.contains("/SCRATCHPAD.md  [matched: login]\n- [ ] Fix flaky login test"),
        "{tool}"
    );
}
