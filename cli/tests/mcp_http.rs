//! `agent-memory mcp --http`: a request without the token, for another
//! Host or from a web page changes nothing; one with the token is served.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

mod common;
use common::{assert_success, stdout};

const NOW: &str = "2026-05-30T09:15:00+02:00";
const PROJECT: &str = "/work/src/my-app";

/// One HTTP/1.1 exchange: the status, the headers (lowercase names) and
/// the body.
fn post(port: u16, headers: &[(&str, &str)], body: &str) -> (u16, Vec<(String, String)>, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        request.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    let code = status.split(' ').nth(1).unwrap().parse().unwrap();
    let mut fields = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        fields.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    let chunked = fields
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let mut raw = Vec::new();
    reader.read_to_end(&mut raw).unwrap();
    let body = if chunked { dechunk(&raw) } else { raw };
    (code, fields, String::from_utf8(body).unwrap())
}

/// The body of a chunked transfer.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let end = raw.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&raw[..end]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return body;
        }
        body.extend_from_slice(&raw[end + 2..end + 2 + size]);
        raw = &raw[end + 2 + size + 2..];
    }
}

/// The JSON-RPC message of a reply body: plain JSON, or the `data:` of an
/// event stream.
fn message(body: &str) -> serde_json::Value {
    let json = body
        .lines()
        .find_map(|line| {
            line.strip_prefix("data:")
                .map(str::trim)
                .filter(|d| !d.is_empty())
        })
        .unwrap_or(body);
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// A request's extra headers.
type Headers<'a> = &'a [(&'a str, &'a str)];

const WRITE: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_write","arguments":{"target":"long_term","content":"- REFUSED"}}}"#;

#[test]
fn refused_requests_change_nothing_and_the_token_holder_is_served() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("memory");
    let base = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
        for var in [
            "AGENT_MEMORY_DIR",
            "AGENT_MEMORY_DISABLE",
            "AGENT_MEMORY_CONFIG",
        ] {
            command.env_remove(var);
        }
        command
            .env("XDG_CONFIG_HOME", temp.path().join("config"))
            .arg("--root")
            .arg(&root)
            .args(["--project", PROJECT, "--now", NOW, "--semantic", "off"]);
        command
    };
    let mut server = base()
        .args(["mcp", "--http"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let (url, header) = first.trim().split_once(' ').unwrap();
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap()
        .parse()
        .unwrap();
    let token = header.strip_prefix("Authorization: Bearer ").unwrap();
    let bearer = format!("Bearer {token}");
    let evil_host = format!("evil.example:{port}");
    let own_origin = format!("http://127.0.0.1:{port}");

    let refusals: [(Headers, u16, &str); 4] = [
        (&[], 401, "no-token"),
        (&[("Authorization", "Bearer wrong")], 401, "no-token"),
        (
            &[("Authorization", &bearer), ("Host", &evil_host)],
            403,
            "wrong-host",
        ),
        (
            &[("Authorization", &bearer), ("Origin", &own_origin)],
            403,
            "cross-origin",
        ),
    ];
    for (headers, status, error) in refusals {
        let (code, fields, body) = post(port, headers, WRITE);
        assert_eq!(code, status, "{headers:?}: {body}");
        assert!(body.contains(error), "{headers:?}: {body}");
        assert!(
            !fields.iter().any(|(n, _)| n.starts_with("access-control-")),
            "{fields:?}"
        );
    }

    let auth = [("Authorization", bearer.as_str())];
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;
    let (code, fields, body) = post(port, &auth, initialize);
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        message(&body)["result"]["serverInfo"]["name"],
        "agent-memory",
        "{body}"
    );
    let session = fields
        .iter()
        .find(|(n, _)| n == "mcp-session-id")
        .map(|(_, v)| v.clone())
        .expect("a session id");
    let in_session = [
        ("Authorization", bearer.as_str()),
        ("Mcp-Session-Id", session.as_str()),
    ];
    let (code, _, _) = post(
        port,
        &in_session,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(code, 202);
    let accepted = WRITE.replace("REFUSED", "ACCEPTED");
    let (code, _, body) = post(port, &in_session, &accepted);
    assert_eq!(code, 200, "{body}");
    assert_eq!(message(&body)["result"]["isError"], false, "{body}");

    server.kill().unwrap();
    server.wait().unwrap();
    let output = base().args(["read", "long_term"]).output().unwrap();
    assert_success(&output, &["read", "long_term"]);
    let text = stdout(&output);
    assert!(text.contains("- ACCEPTED"), "{text}");
    assert!(!text.contains("REFUSED"), "{text}");
}
