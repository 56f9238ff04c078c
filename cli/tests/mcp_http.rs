//! `agent-memory mcp --http`: a request without the token, for another
//! Host or from a web page changes nothing; one with the token is served,
//! on the project its `Agent-Memory-Project` header names.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

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

/// `agent-memory` on the root `root` for `project`, with a config dir of
/// its own under `temp`.
fn base(temp: &Path, root: &Path, project: &Path) -> Command {
    let mut command = common::clean_command(temp);
    command
        .arg("--root")
        .arg(root)
        .arg("--project")
        .arg(project)
        .args(["--now", NOW, "--semantic", "off"]);
    command
}

/// A running `mcp --http` on `root` whose default project is [`PROJECT`]:
/// the process, its port and its token.
fn start(temp: &Path, root: &Path) -> (Child, u16, String) {
    let mut server = base(temp, root, Path::new(PROJECT))
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
    (server, port, token.to_string())
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;

/// A session opened with `headers` (the token among them): its id.
fn open_session(port: u16, headers: Headers) -> String {
    let (code, fields, body) = post(port, headers, INITIALIZE);
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
    let mut in_session = headers.to_vec();
    in_session.push(("Mcp-Session-Id", &session));
    let (code, _, _) = post(
        port,
        &in_session,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(code, 202);
    session
}

#[test]
fn refused_requests_change_nothing_and_the_token_holder_is_served() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("memory");
    let (mut server, port, token) = start(temp.path(), &root);
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
    let session = open_session(port, &auth);
    let in_session = [
        ("Authorization", bearer.as_str()),
        ("Mcp-Session-Id", session.as_str()),
    ];
    let accepted = WRITE.replace("REFUSED", "ACCEPTED");
    let (code, _, body) = post(port, &in_session, &accepted);
    assert_eq!(code, 200, "{body}");
    assert_eq!(message(&body)["result"]["isError"], false, "{body}");

    server.kill().unwrap();
    server.wait().unwrap();
    let output = base(temp.path(), &root, Path::new(PROJECT))
        .args(["read", "long_term"])
        .output()
        .unwrap();
    assert_success(&output, &["read", "long_term"]);
    let text = stdout(&output);
    assert!(text.contains("- ACCEPTED"), "{text}");
    assert!(!text.contains("REFUSED"), "{text}");
}

#[test]
fn each_session_works_on_the_project_its_header_names() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("memory");
    let alpha = temp.path().join("src/alpha");
    let beta = temp.path().join("src/beta");
    for project in [&alpha, &beta] {
        std::fs::create_dir_all(project.join(".git")).unwrap();
    }
    let (mut server, port, token) = start(temp.path(), &root);
    let bearer = format!("Bearer {token}");

    // A header that names no directory here is refused before anything
    // runs, for the person who configured the client.
    let missing = temp.path().join("src/gamma");
    let missing = missing.to_str().unwrap();
    for (value, why) in [
        ("src/alpha", "is not an absolute path"),
        (
            missing,
            "names no directory here (no such file or directory)",
        ),
    ] {
        let headers = [
            ("Authorization", bearer.as_str()),
            ("Agent-Memory-Project", value),
        ];
        let (code, fields, body) = post(port, &headers, INITIALIZE);
        assert_eq!(code, 400, "{value}: {body}");
        let refusal: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(refusal["error"], "bad-project", "{body}");
        assert!(
            refusal["message"].as_str().unwrap().contains(why),
            "{value}: {body}"
        );
        assert!(
            !fields.iter().any(|(n, _)| n == "mcp-session-id"),
            "{fields:?}"
        );
    }

    let projects = [("alpha", &alpha), ("beta", &beta)];
    for (name, project) in projects {
        let dir = project.to_str().unwrap();
        let headers = [
            ("Authorization", bearer.as_str()),
            ("Agent-Memory-Project", dir),
        ];
        let session = open_session(port, &headers);
        let mut in_session = headers.to_vec();
        in_session.push(("Mcp-Session-Id", &session));
        let write = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"memory_write","arguments":{{"target":"scratchpad","content":"- [ ] {name} task"}}}}}}"#
        );
        let (code, _, body) = post(port, &in_session, &write);
        assert_eq!(code, 200, "{body}");
        assert_eq!(message(&body)["result"]["isError"], false, "{body}");
    }
    server.kill().unwrap();
    server.wait().unwrap();

    // Each project's scratchpad holds its own session's item only, and the
    // server's default project got none.
    for (name, project) in projects
        .iter()
        .map(|(n, p)| (*n, p.as_path()))
        .chain([("", Path::new(PROJECT))])
    {
        let output = base(temp.path(), &root, project)
            .args(["read", "scratchpad"])
            .output()
            .unwrap();
        assert_success(&output, &["read", "scratchpad"]);
        let text = stdout(&output);
        match name {
            "" => assert!(!text.contains("task"), "{text}"),
            name => assert_eq!(text.trim(), format!("- [ ] {name} task"), "{name}: {text}"),
        }
    }
}
