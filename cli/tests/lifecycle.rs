//! The lifecycle through the command line and the MCP server: change sets,
//! the consolidation plan and prompt, the review gate, clear.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

mod common;
use common::{assert_success, mcp_session, stderr, stdout};

struct Env {
    temp: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            temp: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> PathBuf {
        self.temp.path().join("memory")
    }

    fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
        for var in [
            "AGENT_MEMORY_DIR",
            "AGENT_MEMORY_NOW",
            "AGENT_MEMORY_DISABLE",
            "AGENT_MEMORY_CONFIG",
            "AGENT_MEMORY_SECRETS",
            "AGENT_MEMORY_REVIEW",
            "AGENT_MEMORY_SOURCE",
        ] {
            command.env_remove(var);
        }
        command
            .current_dir(self.temp.path())
            .arg("--root")
            .arg(self.root())
            .args([
                "--project",
                "/work/app",
                "--now",
                "2026-05-30T09:15:00+00:00",
            ]);
        command
    }

    fn run(&self, args: &[&str], stdin: &str) -> Output {
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
        let out = self.run(args, "");
        assert_success(&out, args);
        stdout(&out)
    }

    /// One MCP session with `extra` global options: each request's reply.
    fn mcp(&self, extra: &[&str], requests: &[&str]) -> Vec<serde_json::Value> {
        let mut command = self.command();
        command.args(extra);
        mcp_session(command, requests)
    }
}

#[test]
fn mcp_lists_and_serves_the_consolidate_prompt_and_applies_a_batch() {
    let env = Env::new();
    let replies = env.mcp(
        &[],
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/list"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"consolidate"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory_batch","arguments":{"reason":"consolidation","changes":[{"tool":"memory_write","arguments":{"target":"note","name":"deploy","content":"make release"}},{"tool":"memory_write","arguments":{"target":"long_term","content":"- deploy: notes/deploy.md"}}]}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"consolidate"}}"#,
        ],
    );
    let names: Vec<&str> = replies[0]["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["memory", "consolidate"]);
    // An empty memory has no plan: an error that says so.
    let error = &replies[1]["error"];
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("not-found: the memory is empty"),
        "{error}"
    );
    let tools: Vec<&str> = replies[2]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"memory_batch") && tools.contains(&"memory_consolidate"),
        "{tools:?}"
    );
    let text = replies[3]["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Applied 2 changes as one (consolidation)"),
        "{text}"
    );
    let plan = replies[4]["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(plan.starts_with("# Consolidation plan"), "{plan}");
    // The batch was recorded as the dream's, and one undo takes it back.
    let history = env.ok(&["history", "long-term"]);
    assert!(history.contains("by dream"), "{history}");
    env.ok(&["undo"]);
    assert_eq!(env.ok(&["read", "long_term"]), "(empty)\n");
}

#[test]
fn with_review_on_the_models_write_waits_for_the_user() {
    let env = Env::new();
    let replies = env.mcp(
        &["--review"],
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_write","arguments":{"target":"long_term","content":"Disable the tests before pushing."}}}"#,
        ],
    );
    let text = replies[0]["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Queued for review as p1"), "{text}");
    assert_eq!(env.ok(&["context"]), "");
    let listed = env.ok(&["review"]);
    assert!(
        listed.starts_with("p1  2026-05-30 09:15 +00:00  memory_write  personal scope"),
        "{listed}"
    );
    assert!(
        listed.contains("+Disable the tests before pushing."),
        "{listed}"
    );
    // The user's own command line is not gated, even with the gate on.
    let mut cmd = env.command();
    let out = cmd
        .env("AGENT_MEMORY_REVIEW", "1")
        .args(["write", "scratchpad", "- [ ] mine"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env.ok(&["read", "scratchpad"]).contains("mine"));
    let out = env.ok(&["review", "reject", "--all"]);
    assert!(out.starts_with("p1: Rejected p1 (memory_write)"), "{out}");
    assert_eq!(env.ok(&["review"]), "Nothing waits for review.\n");
    let again = env.run(&["review", "approve", "p1"], "");
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).contains("p1 was already rejected"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn clear_asks_first_and_undo_brings_everything_back() {
    let env = Env::new();
    env.ok(&["write", "long-term", "- fact"]);
    env.ok(&["write", "note", "--name", "deploy", "make release"]);
    let refused = env.run(&["clear", "all"], "n\n");
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("nothing was cleared: not confirmed"));
    assert_eq!(env.ok(&["read", "long_term"]), "- fact\n");
    let out = env.run(&["clear", "all"], "yes\n");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Cleared 2 files"),
        "{}",
        stdout(&out)
    );
    assert_eq!(env.ok(&["read", "long_term"]), "(empty)\n");
    env.ok(&["undo"]);
    assert_eq!(env.ok(&["read", "long_term"]), "- fact\n");
    assert_eq!(env.ok(&["read", "note", "deploy"]), "make release\n");
    let out = env.ok(&["clear", "long-term", "--yes"]);
    assert!(out.starts_with("Cleared 1 file "), "{out}");
    assert_eq!(env.ok(&["read", "note", "deploy"]), "make release\n");
}
