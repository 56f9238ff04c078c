//! `agent-memory setup`: merged into the agents' files, idempotent,
//! reversible byte for byte, and refusing what it must not touch.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{assert_success, stderr, stdout};

/// Claude Code's user settings as it writes them, with another tool's hooks.
const SETTINGS: &str = r#"{
  "permissions": {
    "allow": [
      "Bash(npm run lint)"
    ]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/.claude/hooks/check-bash.sh"
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo 'Good morning'"
          }
        ]
      }
    ]
  },
  "model": "opus"
}
"#;

/// `~/.claude.json` with another MCP server and state of Claude Code's own.
const CLAUDE_JSON: &str = r#"{
  "numStartups": 12,
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ],
      "env": {}
    }
  },
  "projects": {
    "/home/me/app": {
      "allowedTools": []
    }
  }
}"#;

/// Codex's config with comments, a key, and another server.
const CODEX_TOML: &str = r#"# Codex settings
model = "gpt-5-codex"   # the default model

[mcp_servers.docs]
# the docs server
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.fast]
model = "gpt-5-mini"
"#;

struct Setup {
    temp: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        let setup = Setup {
            temp: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(setup.home()).unwrap();
        fs::create_dir_all(setup.project().join(".git")).unwrap();
        setup
    }

    fn home(&self) -> PathBuf {
        self.temp.path().join("home")
    }

    fn project(&self) -> PathBuf {
        self.temp.path().join("app")
    }

    fn settings(&self) -> PathBuf {
        self.home().join(".claude/settings.json")
    }

    fn claude_json(&self) -> PathBuf {
        self.home().join(".claude.json")
    }

    fn codex_toml(&self) -> PathBuf {
        self.home().join(".codex/config.toml")
    }

    fn put(&self, path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn run(&self, args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
        for var in [
            "CODEX_HOME",
            "AGENT_MEMORY_DIR",
            "AGENT_MEMORY_CONFIG",
            "AGENT_MEMORY_DISABLE",
        ] {
            command.env_remove(var);
        }
        command
            .env("XDG_CACHE_HOME", cache_dir())
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.temp.path().join("config"))
            .env("PATH", "/usr/bin:/bin")
            .current_dir(self.project())
            .args(args)
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert_success(&output, args);
        stdout(&output)
    }
}

/// The cache of compiled components of the user running the tests: `status`
/// would compile the component again under the temporary HOME.
fn cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map_or_else(
            || PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"),
            PathBuf::from,
        )
}

/// The program setup writes for the user: this test's binary, by path (it
/// is not on PATH here).
fn program() -> String {
    fs::canonicalize(env!("CARGO_BIN_EXE_agent-memory"))
        .unwrap()
        .to_str()
        .unwrap()
        .to_string()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap()
}

fn backup(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".agent-memory-backup");
    PathBuf::from(name)
}

#[test]
fn claude_code_is_merged_idempotent_and_removed_byte_for_byte() {
    let setup = Setup::new();
    setup.put(&setup.settings(), SETTINGS);
    setup.put(&setup.claude_json(), CLAUDE_JSON);

    let out = setup.ok(&["setup", "claude-code"]);
    assert!(
        out.contains("added hooks (SessionStart, PostCompact)"),
        "{out}"
    );
    let settings = json(&setup.settings());
    let start = settings["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(start.len(), 2, "{settings:#}");
    assert_eq!(start[0]["hooks"][0]["command"], "echo 'Good morning'");
    assert_eq!(start[1]["matcher"], "startup|resume|clear|compact");
    assert_eq!(start[1]["hooks"][0]["type"], "command");
    assert_eq!(
        start[1]["hooks"][0]["command"],
        format!("{} hook claude-code session-start", program())
    );
    assert_eq!(
        settings["hooks"]["PostCompact"][0]["hooks"][0]["command"],
        format!("{} hook claude-code post-compact", program())
    );
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "~/.claude/hooks/check-bash.sh"
    );
    assert_eq!(settings["model"], "opus");
    let claude = json(&setup.claude_json());
    assert_eq!(
        claude["mcpServers"]["agent-memory"],
        serde_json::json!({"type": "stdio", "command": program(), "args": ["mcp"]})
    );
    assert_eq!(claude["mcpServers"]["github"]["command"], "npx");
    assert_eq!(claude["numStartups"], 12);
    // The backups hold the files as they were.
    assert_eq!(read(&backup(&setup.settings())), SETTINGS);
    assert_eq!(read(&backup(&setup.claude_json())), CLAUDE_JSON);

    let (settings_once, claude_once) = (read(&setup.settings()), read(&setup.claude_json()));
    let again = setup.ok(&["setup", "claude-code", "--user"]);
    assert!(again.contains("already wired; nothing changed"), "{again}");
    assert_eq!(read(&setup.settings()), settings_once);
    assert_eq!(read(&setup.claude_json()), claude_once);

    let removed = setup.ok(&["setup", "claude-code", "--remove"]);
    assert!(removed.contains("removed hooks"), "{removed}");
    assert_eq!(read(&setup.settings()), SETTINGS);
    assert_eq!(read(&setup.claude_json()), CLAUDE_JSON);
    let twice = setup.ok(&["setup", "claude-code", "--remove"]);
    assert!(
        twice.contains("not wired there; nothing changed"),
        "{twice}"
    );
    assert_eq!(read(&setup.settings()), SETTINGS);
}

#[test]
fn claude_code_on_a_fresh_home_creates_the_files_and_remove_deletes_them() {
    let setup = Setup::new();
    setup.ok(&["setup", "claude-code"]);
    assert!(setup.settings().is_file());
    assert_eq!(
        json(&setup.claude_json())["mcpServers"]["agent-memory"]["args"],
        serde_json::json!(["mcp"])
    );
    assert!(!backup(&setup.settings()).exists());
    setup.ok(&["setup", "claude-code", "--remove"]);
    assert!(!setup.settings().exists());
    assert!(!setup.claude_json().exists());
}

#[test]
fn claude_code_in_the_project_uses_the_shared_files_and_the_program_by_name() {
    let setup = Setup::new();
    setup.ok(&["setup", "claude-code", "--project"]);
    let settings = json(&setup.project().join(".claude/settings.json"));
    assert_eq!(
        settings["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "agent-memory hook claude-code session-start"
    );
    assert_eq!(
        json(&setup.project().join(".mcp.json"))["mcpServers"]["agent-memory"]["command"],
        "agent-memory"
    );
    assert!(!setup.settings().exists(), "the user's files were touched");
}

#[test]
fn dry_run_shows_a_diff_and_writes_nothing() {
    let setup = Setup::new();
    setup.put(&setup.settings(), SETTINGS);
    let out = setup.ok(&["setup", "claude-code", "--dry-run"]);
    assert!(
        out.contains(&format!("--- {}", setup.settings().display())),
        "{out}"
    );
    assert!(out.contains("+++ /"), "{out}");
    assert!(
        out.contains(&format!(
            "+            \"command\": \"{} hook claude-code post-compact\"",
            program()
        )),
        "{out}"
    );
    assert!(out.contains("Dry run: nothing was written."), "{out}");
    assert_eq!(read(&setup.settings()), SETTINGS);
    assert!(!setup.claude_json().exists());
    assert!(!backup(&setup.settings()).exists());
}

#[test]
fn codex_keeps_comments_and_other_servers_and_removes_byte_for_byte() {
    let setup = Setup::new();
    setup.put(&setup.codex_toml(), CODEX_TOML);
    let out = setup.ok(&["setup", "codex"]);
    assert!(out.contains("added MCP server agent-memory"), "{out}");
    let text = read(&setup.codex_toml());
    assert!(
        text.contains("# the docs server\ncommand = \"npx\""),
        "{text}"
    );
    assert!(
        text.contains("model = \"gpt-5-codex\"   # the default model"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "[mcp_servers.agent-memory]\ncommand = \"{}\"\nargs = [\"mcp\"]\n",
            program()
        )),
        "{text}"
    );
    assert_eq!(read(&backup(&setup.codex_toml())), CODEX_TOML);
    setup.ok(&["setup", "codex"]);
    assert_eq!(read(&setup.codex_toml()), text);
    setup.ok(&["setup", "codex", "--remove"]);
    assert_eq!(read(&setup.codex_toml()), CODEX_TOML);

    // CODEX_HOME moves the file; a fresh one is removed whole.
    let elsewhere = setup.temp.path().join("codex-home");
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
    command
        .env("HOME", setup.home())
        .env("PATH", "/usr/bin:/bin")
        .env("CODEX_HOME", &elsewhere)
        .current_dir(setup.project());
    let output = command.args(["setup", "codex"]).output().unwrap();
    assert_success(&output, &["setup", "codex"]);
    assert!(read(&elsewhere.join("config.toml")).starts_with("[mcp_servers.agent-memory]\n"));
}

#[test]
fn a_file_setup_must_not_touch_stops_it_with_every_file_untouched() {
    let setup = Setup::new();
    let cases: [(&str, PathBuf, &str, &str); 4] = [
        (
            "claude-code",
            setup.settings(),
            "{\"hooks\": [",
            "is not valid JSON",
        ),
        (
            "claude-code",
            setup.settings(),
            "{\"hooks\": \"none\"}\n",
            "\"hooks\" is not a JSON object",
        ),
        (
            "codex",
            setup.codex_toml(),
            "model = \n",
            "is not valid TOML",
        ),
        (
            "claude-code",
            setup.claude_json(),
            "{\"mcpServers\": {\"agent-memory\": {\"command\": \"node\", \"args\": [\"mine.js\"]}}}\n",
            "already has an MCP server named agent-memory that runs another command",
        ),
    ];
    for (agent, path, text, message) in cases {
        setup.put(&path, text);
        let output = setup.run(&["setup", agent]);
        assert_eq!(output.status.code(), Some(1), "{text}");
        assert!(
            stderr(&output).contains(message) && stderr(&output).contains("nothing was changed"),
            "{text}: {}",
            stderr(&output)
        );
        assert_eq!(read(&path), text);
        fs::remove_file(&path).unwrap();
        // The other file of the agent was not written either.
        assert!(!setup.settings().exists() && !setup.claude_json().exists());
        assert!(!backup(&path).exists());
    }
}

#[cfg(unix)]
#[test]
fn a_file_of_another_user_is_refused_and_untouched() {
    use std::os::unix::fs::MetadataExt as _;
    let setup = Setup::new();
    setup.put(&setup.settings(), SETTINGS);
    let mine = fs::metadata(setup.settings()).unwrap().uid();
    let other = if mine == 65534 { 65533 } else { 65534 };
    // Giving a file away needs root; CI runs the tests as root.
    std::os::unix::fs::chown(setup.settings(), Some(other), None)
        .expect("chown needs root: run this test as root (CI does)");
    let output = setup.run(&["setup", "claude-code"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains(&format!("belongs to another user (uid {other}")),
        "{}",
        stderr(&output)
    );
    assert_eq!(read(&setup.settings()), SETTINGS);
    assert!(!setup.claude_json().exists());
}

#[cfg(unix)]
#[test]
fn a_linked_settings_file_stays_a_link_and_its_target_is_edited() {
    let setup = Setup::new();
    let dotfiles = setup.temp.path().join("dotfiles/claude-settings.json");
    setup.put(&dotfiles, SETTINGS);
    fs::create_dir_all(setup.settings().parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&dotfiles, setup.settings()).unwrap();
    setup.ok(&["setup", "claude-code"]);
    assert!(
        fs::symlink_metadata(setup.settings())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(read(&dotfiles).contains("hook claude-code session-start"));
    setup.ok(&["setup", "claude-code", "--remove"]);
    assert_eq!(read(&dotfiles), SETTINGS);
}

#[test]
fn status_says_which_agents_are_wired_and_where() {
    let setup = Setup::new();
    setup.ok(&["setup", "claude-code"]);
    let root = setup.temp.path().join("memory");
    let out = setup.ok(&["--root", root.to_str().unwrap(), "status"]);
    assert!(
        out.contains(&format!(
            "  claude-code  hooks (SessionStart, PostCompact) in {}; MCP server agent-memory in {}\n",
            setup.settings().display(),
            setup.claude_json().display()
        )),
        "{out}"
    );
    assert!(
        out.contains("  codex        not wired (`agent-memory setup codex`)\n"),
        "{out}"
    );
}

/// Cursor's, VS Code's and Gemini CLI's files as each writes them, with
/// another server (and, for Gemini CLI, settings of its own).
const CURSOR_JSON: &str = r#"{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ]
    }
  }
}
"#;

const VSCODE_JSON: &str = r#"{
  "servers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ]
    }
  },
  "inputs": []
}
"#;

const GEMINI_JSON: &str = r#"{
  "theme": "Dracula",
  "mcpServers": {
    "git": {
      "command": "uvx",
      "args": [
        "mcp-server-git"
      ]
    }
  }
}
"#;

#[test]
fn cursor_vscode_and_gemini_are_merged_idempotent_and_removed_byte_for_byte() {
    let setup = Setup::new();
    let config = setup.temp.path().join("config");
    // (agent, the user's file, the project's file, its text, the servers'
    // key, whether an entry names its transport)
    let targets = [
        (
            "cursor",
            setup.home().join(".cursor/mcp.json"),
            setup.project().join(".cursor/mcp.json"),
            CURSOR_JSON,
            "mcpServers",
            false,
        ),
        (
            "vscode",
            config.join("Code/User/mcp.json"),
            setup.project().join(".vscode/mcp.json"),
            VSCODE_JSON,
            "servers",
            true,
        ),
        (
            "gemini",
            setup.home().join(".gemini/settings.json"),
            setup.project().join(".gemini/settings.json"),
            GEMINI_JSON,
            "mcpServers",
            false,
        ),
    ];
    for (agent, user_file, project_file, text, key, typed) in targets {
        setup.put(&user_file, text);
        let out = setup.ok(&["setup", agent]);
        assert!(
            out.contains(&format!(
                "{agent}: added MCP server agent-memory in {}",
                user_file.display()
            )),
            "{out}"
        );
        let written = json(&user_file);
        let mut ours = serde_json::json!({"command": program(), "args": ["mcp"]});
        if typed {
            ours["type"] = "stdio".into();
        }
        assert_eq!(written[key]["agent-memory"], ours, "{agent}");
        // The other server and the other settings stay, in their order.
        let before: serde_json::Value = serde_json::from_str(text).unwrap();
        let other = before[key].as_object().unwrap().keys().next().unwrap();
        assert_eq!(written[key][other], before[key][other], "{agent}");
        let keys =
            |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&written), keys(&before), "{agent}");
        assert_eq!(read(&backup(&user_file)), text, "{agent}");

        let once = read(&user_file);
        let again = setup.ok(&["setup", agent]);
        assert!(again.contains("already wired; nothing changed"), "{again}");
        assert_eq!(read(&user_file), once, "{agent}");
        setup.ok(&["setup", agent, "--remove"]);
        assert_eq!(read(&user_file), text, "{agent}");

        // The project's file: the program by name; created, then removed whole.
        setup.ok(&["setup", agent, "--project"]);
        assert_eq!(
            json(&project_file)[key]["agent-memory"]["command"],
            "agent-memory"
        );
        let status = setup.ok(&[
            "--root",
            setup.temp.path().join("memory").to_str().unwrap(),
            "status",
        ]);
        assert!(
            status.contains(&format!(
                "  {agent:<12} MCP server agent-memory in {}\n",
                project_file.display()
            )),
            "{status}"
        );
        setup.ok(&["setup", agent, "--project", "--remove"]);
        assert!(!project_file.exists(), "{agent}");

        // A file that is not JSON (here: JSON with a comment) is refused,
        // untouched.
        let commented = "{\n  // mine\n  \"mcpServers\": {}\n}\n";
        setup.put(&user_file, commented);
        let output = setup.run(&["setup", agent]);
        assert_eq!(output.status.code(), Some(1), "{agent}");
        assert!(
            stderr(&output).contains("is not valid JSON; nothing was changed"),
            "{agent}: {}",
            stderr(&output)
        );
        assert_eq!(read(&user_file), commented, "{agent}");
    }
}
