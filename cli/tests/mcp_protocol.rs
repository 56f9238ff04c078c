//! The MCP server's protocol edges over stdio, one live connection: each
//! malformed or early message gets the error JSON-RPC and MCP name, and the
//! server keeps serving after every one of them.

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running `agent-memory mcp` and its replies, line by line.
struct Server {
    child: std::process::Child,
    stdin: Option<ChildStdin>,
    replies: mpsc::Receiver<String>,
    _temp: tempfile::TempDir,
}

impl Server {
    fn start() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
        for var in [
            "AGENT_MEMORY_DIR",
            "AGENT_MEMORY_DISABLE",
            "AGENT_MEMORY_CONFIG",
        ] {
            command.env_remove(var);
        }
        let mut child = command
            .env("XDG_CONFIG_HOME", temp.path().join("config"))
            .arg("--root")
            .arg(temp.path().join("memory"))
            .args([
                "--project",
                "/work/src/my-app",
                "--now",
                "2026-05-30T09:15:00+02:00",
            ])
            .args(["--semantic", "off", "mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            replies,
            _temp: temp,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next reply. The wait only keeps a broken server from hanging
    /// the test run; no outcome depends on how long a reply takes.
    fn reply(&self) -> serde_json::Value {
        let line = self
            .replies
            .recv_timeout(Duration::from_secs(120))
            .expect("the server answered nothing and is still silent");
        serde_json::from_str(&line).unwrap()
    }

    /// The reply to request `id`, skipping replies to other requests.
    fn reply_to(&self, id: i64) -> serde_json::Value {
        loop {
            let reply = self.reply();
            if reply["id"] == id {
                return reply;
            }
        }
    }

    fn initialize(&mut self, id: i64) -> serde_json::Value {
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"conformance","version":"1"}}}}}}"#
        ));
        let reply = self.reply_to(id);
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        reply
    }
}

/// The error of a reply: its id, code and message.
fn error(reply: &serde_json::Value) -> (serde_json::Value, i64, String) {
    (
        reply["id"].clone(),
        reply["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("not an error: {reply}")),
        reply["error"]["message"].as_str().unwrap().to_string(),
    )
}

#[test]
fn every_protocol_edge_gets_its_error_and_the_server_keeps_serving() {
    let mut server = Server::start();

    // Invalid JSON: a parse error with a null id.
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"#);
    let (id, code, message) = error(&server.reply());
    assert_eq!((id, code), (serde_json::Value::Null, -32700));
    assert!(message.contains("not valid JSON"), "{message}");

    // A call before initialize: refused by name, not run.
    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_write","arguments":{"target":"long_term","content":"- early"}}}"#);
    let (id, code, message) = error(&server.reply());
    assert_eq!((id, code), (serde_json::json!(2), -32600));
    assert!(
        message.contains("`tools/call` before `initialize`"),
        "{message}"
    );

    // A ping is fine at any time.
    server.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    assert_eq!(
        server.reply(),
        serde_json::json!({"jsonrpc":"2.0","id":3,"result":{}})
    );

    let init = server.initialize(4);
    assert_eq!(
        init["result"]["serverInfo"]["name"], "agent-memory",
        "{init}"
    );

    // A batch: MCP has none.
    server.send(
        r#"[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]"#,
    );
    let (id, code, message) = error(&server.reply());
    assert_eq!((id, code), (serde_json::Value::Null, -32600));
    assert!(message.contains("batch"), "{message}");

    // An unknown method: -32601, naming it and what the server offers.
    server.send(r#"{"jsonrpc":"2.0","id":7,"method":"resources/subscribe","params":{"uri":"memory://context"}}"#);
    let (id, code, message) = error(&server.reply());
    assert_eq!((id, code), (serde_json::json!(7), -32601));
    assert!(
        message.contains("`resources/subscribe` is not offered") && message.contains("tools/call"),
        "{message}"
    );

    // Oversized input: refused unread, nothing written.
    let huge = "x".repeat(5 << 20);
    server.send(&format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"memory_write","arguments":{{"target":"long_term","content":"{huge}"}}}}}}"#
    ));
    let (id, code, message) = error(&server.reply());
    assert_eq!((id, code), (serde_json::Value::Null, -32600));
    assert!(message.contains("over 4 MiB"), "{message}");

    // A cancellation of a request that is not running is ignored; one of a
    // request in flight ends that request (or comes too late to): either
    // way the next request is answered.
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999,"reason":"gone"}}"#);
    server.send(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"deploy"}}}"#);
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"user"}}"#);
    server.send(r#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#);
    assert_eq!(server.reply_to(10)["result"], serde_json::json!({}));

    // Still serving: a write and a read through the tools.
    server.send(r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"memory_write","arguments":{"target":"long_term","content":"- Still serving."}}}"#);
    let wrote = server.reply_to(11);
    assert_eq!(wrote["result"]["isError"], false, "{wrote}");
    server.send(r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"memory_read","arguments":{"source":"long_term"}}}"#);
    let read = server.reply_to(12);
    let text = read["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("- Still serving."), "{text}");
    assert!(!text.contains("early") && !text.contains("xxxx"), "{text}");

    drop(server.stdin.take());
    assert!(server.child.wait().unwrap().success());
}
