//! `agent-memory hook`: the documented events in, the documented answer out.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{assert_success, stderr, stdout};

const NOW: &str = "2026-05-30T09:15:00+02:00";

/// A temp memory root and a git project with a subdirectory the agent runs in.
struct Setup {
    temp: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        let setup = Setup {
            temp: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(setup.project().join(".git")).unwrap();
        fs::create_dir_all(setup.cwd()).unwrap();
        setup
    }

    fn root(&self) -> PathBuf {
        self.temp.path().join("memory")
    }

    fn project(&self) -> PathBuf {
        fs::create_dir_all(self.temp.path().join("my-app")).unwrap();
        fs::canonicalize(self.temp.path().join("my-app")).unwrap()
    }

    /// Where the agent runs: below the project's git root.
    fn cwd(&self) -> PathBuf {
        self.project().join("src").join("login")
    }

    /// The command on this root at `NOW`, no project given, in the temp dir.
    fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
        for var in [
            "AGENT_MEMORY_DIR",
            "AGENT_MEMORY_DISABLE",
            "AGENT_MEMORY_CONFIG",
            "AGENT_MEMORY_TEAM_DIR",
            "AGENT_MEMORY_SOURCE",
        ] {
            command.env_remove(var);
        }
        command.env("XDG_CONFIG_HOME", self.temp.path().join("config"));
        command.current_dir(self.temp.path());
        command.arg("--root").arg(self.root()).args(["--now", NOW]);
        command
    }

    /// The command for the project itself, as a person runs it there.
    fn in_project(&self, args: &[&str]) -> String {
        let output = self
            .command()
            .arg("--project")
            .arg(self.project())
            .args(args)
            .output()
            .unwrap();
        assert_success(&output, args);
        stdout(&output)
    }

    /// Runs `hook claude-code <event>` with `stdin`.
    fn hook(&self, event: &str, stdin: &str) -> Output {
        hook(self.command(), event, stdin)
    }
}

fn hook(mut command: Command, event: &str, stdin: &str) -> Output {
    use std::io::Write as _;
    let mut child = command
        .args(["hook", "claude-code", event])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
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

/// A fixture of `tests/fixtures/claude-code-hooks/` with its `cwd` set.
fn fixture(name: &str, cwd: &Path) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude-code-hooks")
        .join(name);
    let mut event: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    event["cwd"] = cwd.to_str().unwrap().into();
    event.to_string()
}

/// Checks `out` against the documented SessionStart output and returns the
/// context it adds: one object, `hookSpecificOutput` only, holding exactly
/// `hookEventName: "SessionStart"` and a string `additionalContext`.
fn additional_context(out: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(out).unwrap();
    let top = value.as_object().unwrap();
    assert_eq!(top.keys().collect::<Vec<_>>(), ["hookSpecificOutput"]);
    let specific = top["hookSpecificOutput"].as_object().unwrap();
    let mut keys: Vec<_> = specific.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["additionalContext", "hookEventName"]);
    assert_eq!(specific["hookEventName"], "SessionStart");
    specific["additionalContext"].as_str().unwrap().to_string()
}

#[test]
fn session_start_puts_the_projects_context_block_in_every_kind_of_start() {
    let setup = Setup::new();
    setup.in_project(&["write", "long_term", "- Deploys go through `make deploy`."]);
    setup.in_project(&["write", "scratchpad", "- [ ] Fix the flaky login test"]);
    let block = setup.in_project(&["context"]);
    assert!(block.contains("Fix the flaky login test"), "{block}");
    for source in ["startup", "resume", "clear", "compact"] {
        let event = fixture(&format!("session-start-{source}.json"), &setup.cwd());
        let output = setup.hook("session-start", &event);
        assert_success(&output, &["hook", "claude-code", "session-start", source]);
        assert_eq!(
            additional_context(&stdout(&output)),
            block.trim_end_matches('\n'),
            "{source}"
        );
        assert_eq!(stderr(&output), "", "{source}");
    }
}

#[test]
fn session_start_on_an_empty_memory_or_with_memory_off_prints_nothing_and_succeeds() {
    let setup = Setup::new();
    let event = fixture("session-start-startup.json", &setup.cwd());
    let output = setup.hook("session-start", &event);
    assert_success(&output, &["hook", "session-start", "(empty)"]);
    assert_eq!(stdout(&output), "");

    setup.in_project(&["write", "long_term", "- A fact."]);
    // Off means off: even an event that is not JSON gets a quiet exit 0.
    for stdin in [event.as_str(), "not json"] {
        let mut off = setup.command();
        off.env("AGENT_MEMORY_DISABLE", "1");
        let output = hook(off, "session-start", stdin);
        assert_success(&output, &["hook", "session-start", "(off)"]);
        assert_eq!(stdout(&output), "");
    }
}

#[test]
fn post_compact_saves_the_summary_to_todays_log_as_a_recorded_change() {
    let setup = Setup::new();
    let event = fixture("post-compact.json", &setup.cwd());
    let output = setup.hook("post-compact", &event);
    assert_success(&output, &["hook", "claude-code", "post-compact"]);
    assert_eq!(stdout(&output), "");
    let log = setup.in_project(&["read", "daily"]);
    assert!(log.contains("compaction summary"), "{log}");
    assert!(
        log.contains("the login test flakes on a cold staging database"),
        "{log}"
    );
    // Recorded like any change, under the session's source label.
    let history = setup.in_project(&["history", "daily"]);
    assert!(history.contains("claude-code/abc123"), "{history}");
    // The next session starts with it.
    let start = setup.hook(
        "session-start",
        &fixture("session-start-compact.json", &setup.cwd()),
    );
    assert!(
        additional_context(&stdout(&start)).contains("cold staging database"),
        "{}",
        stdout(&start)
    );
}

#[test]
fn post_compact_with_a_secret_is_refused_and_writes_nothing() {
    let setup = Setup::new();
    let mut event: serde_json::Value =
        serde_json::from_str(&fixture("post-compact.json", &setup.cwd())).unwrap();
    event["compact_summary"] =
        "Deployed with token ghp_Q3vN8xT2mL5pR9wK4yH7jD1sF6gB0cZ8aE3u".into();
    let output = setup.hook("post-compact", &event.to_string());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("secret"), "{}", stderr(&output));
    let log = setup.in_project(&["read", "daily"]);
    assert!(!log.contains("ghp_"), "{log}");
    assert!(!log.contains("Deployed with token"), "{log}");
}

#[test]
fn a_malformed_event_gets_a_clear_error_exit_1_and_changes_nothing() {
    let setup = Setup::new();
    let cases = [
        (
            "session-start",
            "not json".to_string(),
            "expects claude-code's SessionStart event as JSON",
        ),
        (
            "post-compact",
            fixture("session-start-startup.json", &setup.cwd()),
            r#"got a "SessionStart" event, not PostCompact"#,
        ),
        (
            "session-start",
            r#"{"session_id":"abc","cwd":"my-app","hook_event_name":"SessionStart"}"#.to_string(),
            "is not an absolute path",
        ),
        (
            "post-compact",
            r#"{"session_id":"abc","cwd":"/tmp","hook_event_name":"PostCompact","trigger":"auto"}"#
                .to_string(),
            "has no compact_summary",
        ),
        (
            "session-start",
            r#"{"session_id":"a","session_id":"b","cwd":"/tmp","hook_event_name":"SessionStart"}"#
                .to_string(),
            "duplicate field `session_id`",
        ),
    ];
    for (event, stdin, message) in cases {
        let output = setup.hook(event, &stdin);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{stdin}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output), "", "{stdin}");
        assert!(
            stderr(&output).contains(message) && stderr(&output).contains("nothing was done"),
            "{stdin}: {}",
            stderr(&output)
        );
    }
    assert!(!setup.root().exists(), "a refused event created the root");
}
