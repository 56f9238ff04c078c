//! What the command-line test files share: reading a finished process, and
//! talking to the MCP server.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};

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
