//! `agent-memory serve`, from outside: a real server process on a temp
//! root, spoken to over plain HTTP/1.1 the way a browser or an attacker's
//! page would.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::assert_success;

const NOW: &str = "2026-05-30T09:15:00+02:00";
const SECRET: &str = "ghp_Q3vN8xT2mL5pR9wK4yH7jD1sF6gB0cZ8aE3u";

/// A temp root, a real project directory (for staleness anchors) and a
/// running `serve`.
struct Server {
    temp: tempfile::TempDir,
    child: Child,
    _stdout: BufReader<ChildStdout>,
    port: u16,
    token: String,
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    fn assert_no_cors(&self) {
        for (name, _) in &self.headers {
            assert!(
                !name.to_ascii_lowercase().starts_with("access-control-"),
                "CORS header {name} in {:?}",
                self.headers
            );
        }
    }
}

impl Server {
    fn start() -> Self {
        Self::start_with(|_| {})
    }

    /// Starts the server after `prepare` has set up the temp directory.
    fn start_with(prepare: impl FnOnce(&Path)) -> Self {
        let temp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(temp.path().join("project/src")).unwrap();
        prepare(temp.path());
        std::fs::write(temp.path().join("project/src/auth.rs"), "fn login() {}\n").unwrap();
        let mut child = Self::command_in(temp.path())
            .args(["serve", "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        let first = first.trim_end();
        let rest = first
            .strip_prefix("http://127.0.0.1:")
            .unwrap_or_else(|| panic!("first line is not the loopback URL: {first:?}"));
        let (port, token) = rest.split_once("/?token=").unwrap();
        assert!(
            token.len() == 48 && token.bytes().all(|b| b.is_ascii_hexdigit()),
            "{token}"
        );
        Server {
            port: port.parse().unwrap(),
            token: token.to_string(),
            temp,
            child,
            _stdout: stdout,
        }
    }

    fn command_in(dir: &Path) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
        for var in [
            "AGENT_MEMORY_DIR",
            "AGENT_MEMORY_NOW",
            "AGENT_MEMORY_DISABLE",
            "AGENT_MEMORY_CONFIG",
            "AGENT_MEMORY_TEAM_DIR",
            "AGENT_MEMORY_REVIEW",
        ] {
            command.env_remove(var);
        }
        command.env("XDG_CONFIG_HOME", dir.join("config"));
        command.current_dir(dir);
        command
            .arg("--root")
            .arg(dir.join("memory"))
            .arg("--project")
            .arg(dir.join("project"))
            .args(["--now", NOW]);
        command
    }

    /// The CLI on the same memory: another agent at work.
    fn cli(&self, args: &[&str]) -> String {
        let output = Self::command_in(self.temp.path())
            .args(args)
            .output()
            .unwrap();
        assert_success(&output, args);
        String::from_utf8(output.stdout).unwrap()
    }

    fn project(&self) -> PathBuf {
        self.temp.path().join("project")
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn cookie(&self) -> String {
        format!("agent_memory_{}={}", self.port, self.token)
    }

    /// One request with exactly these headers (plus `Host` unless given,
    /// `Connection` and `Content-Length`).
    fn raw(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Response {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut request = format!("{method} {path} HTTP/1.1\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            request.push_str(&format!("Host: {}\r\n", self.host()));
        }
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str(&format!(
            "Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ));
        stream.write_all(request.as_bytes()).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let raw = String::from_utf8(raw).unwrap();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap().split(' ').nth(1).unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect();
        let chunked = headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
        let body = if chunked {
            dechunk(body)
        } else {
            body.to_string()
        };
        let response = Response {
            status: status.parse().unwrap(),
            headers,
            body,
        };
        response.assert_no_cors();
        response
    }

    /// A GET as the dashboard's page makes it (the cookie).
    fn get(&self, path: &str) -> Response {
        self.raw("GET", path, &[("Cookie", &self.cookie())], "")
    }

    /// A change as the dashboard's page makes it.
    fn post(&self, path: &str, body: serde_json::Value) -> Response {
        self.raw(
            "POST",
            path,
            &[
                ("Cookie", &self.cookie()),
                ("Origin", &self.origin()),
                ("X-Agent-Memory", "1"),
                ("Sec-Fetch-Site", "same-origin"),
                ("Content-Type", "application/json"),
            ],
            &body.to_string(),
        )
    }

    fn note_file(&self, name: &str) -> Option<String> {
        let out = self.cli(&["read", "list"]);
        out.lines()
            .find(|l| l.ends_with(&format!("/notes/{name}.md")))
            .map(|path| self.temp.path().join("memory").join(path.trim()))
            .and_then(|p| std::fs::read_to_string(p).ok())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
}

#[test]
fn it_prints_its_url_first_and_listens_on_loopback_only() {
    let server = Server::start();
    // The port answers on 127.0.0.1 ...
    assert!(TcpStream::connect(("127.0.0.1", server.port)).is_ok());
    // ... and nowhere else: on Linux all of 127/8 reaches the machine, so a
    // socket bound to every address would answer 127.0.0.2 too.
    #[cfg(target_os = "linux")]
    assert!(
        TcpStream::connect_timeout(
            &std::net::SocketAddr::from(([127, 0, 0, 2], server.port)),
            Duration::from_secs(2)
        )
        .is_err(),
        "the server answers on 127.0.0.2: it is not bound to 127.0.0.1 alone"
    );
}

#[test]
fn nothing_is_answered_without_the_token() {
    let server = Server::start();
    let wrong = format!("agent_memory_{}={}", server.port, "0".repeat(48));
    for path in [
        "/",
        "/?q=deploy",
        "/app.js",
        "/app.css",
        "/api/overview",
        "/api/files",
        "/api/file?kind=long_term",
        "/api/search?q=deploy",
        "/api/secrets",
        "/no-such-page",
    ] {
        let none = server.raw("GET", path, &[], "");
        assert_eq!(none.status, 401, "{path} without a token: {}", none.body);
        assert!(!none.body.contains("agent-memory</a>"), "{path}");
        let bad = server.raw("GET", path, &[("Cookie", &wrong)], "");
        assert_eq!(bad.status, 401, "{path} with a wrong token");
        let query = server.raw(
            "GET",
            &format!(
                "{path}{}token={}",
                if path.contains('?') { "&" } else { "?" },
                &server.token[..47]
            ),
            &[],
            "",
        );
        assert_eq!(query.status, 401, "{path} with a cut token");
        let good = server.get(path);
        assert_ne!(good.status, 401, "{path} with the token");
    }
    let page = server.get("/");
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("<script src=\"/app.js\""),
        "{}",
        page.body
    );
}

#[test]
fn the_first_load_keeps_the_token_in_a_cookie_and_out_of_the_address() {
    let server = Server::start();
    let first = server.raw(
        "GET",
        &format!("/?token={}&q=deploy&mode=literal", server.token),
        &[],
        "",
    );
    assert_eq!(first.status, 303);
    assert_eq!(first.header("location"), Some("/?q=deploy&mode=literal"));
    let cookie = first.header("set-cookie").unwrap();
    assert!(cookie.starts_with(&server.cookie()), "{cookie}");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let next = server.raw(
        "GET",
        "/?q=deploy&mode=literal",
        &[("Cookie", &server.cookie())],
        "",
    );
    assert_eq!(next.status, 200);
    assert_eq!(next.header("referrer-policy"), Some("no-referrer"));
}

#[test]
fn the_overview_asks_for_its_data_with_the_page_and_no_other_view_does() {
    let server = Server::start();
    let preload = r#"<link rel="preload" href="/api/overview" as="fetch" crossorigin>"#;
    let page = server.get("/");
    assert_eq!(page.status, 200);
    assert!(page.body.contains(preload), "{}", page.body);
    assert!(!page.body.contains("<!-- preload -->"), "{}", page.body);
    for other in ["/?view=notes", "/?q=deploy", "/?note=a"] {
        let page = server.get(other);
        assert_eq!(page.status, 200, "{other}");
        assert!(
            !page.body.contains("rel=\"preload\""),
            "{other}: {}",
            page.body
        );
    }
}

#[test]
fn a_host_header_other_than_its_own_address_gets_403() {
    let server = Server::start();
    let cookie = server.cookie();
    let with_token = format!("/api/overview?token={}", server.token);
    for host in [
        "evil.example".to_string(),
        format!("evil.example:{}", server.port),
        format!("127.0.0.1:{}", server.port + 1),
        format!("0.0.0.0:{}", server.port),
    ] {
        for path in ["/", "/api/overview", with_token.as_str()] {
            let r = server.raw("GET", path, &[("Host", &host), ("Cookie", &cookie)], "");
            assert_eq!(r.status, 403, "Host {host} {path}: {}", r.body);
            assert_eq!(r.json()["error"], "wrong-host");
        }
    }
    let own = server.raw(
        "GET",
        "/api/overview",
        &[
            ("Host", &format!("localhost:{}", server.port)),
            ("Cookie", &cookie),
        ],
        "",
    );
    assert_eq!(own.status, 200, "{}", own.body);
}

#[test]
fn every_change_needs_the_same_origin_and_a_cross_origin_form_post_is_refused() {
    let server = Server::start();
    let cookie = server.cookie();
    let origin = server.origin();
    let json = serde_json::json!({"name": "forged", "text": "written by another site"}).to_string();
    // What the request is, its headers, its body.
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, String);
    let cases: Vec<Case> = vec![
        (
            "no Origin",
            vec![
                ("Cookie", &cookie),
                ("X-Agent-Memory", "1"),
                ("Content-Type", "application/json"),
            ],
            json.clone(),
        ),
        (
            "another Origin",
            vec![
                ("Cookie", &cookie),
                ("Origin", "http://evil.example"),
                ("X-Agent-Memory", "1"),
                ("Content-Type", "application/json"),
            ],
            json.clone(),
        ),
        (
            "a cross-origin form post",
            vec![
                ("Cookie", &cookie),
                ("Origin", "http://evil.example"),
                ("Sec-Fetch-Site", "cross-site"),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            "name=forged&text=written+by+another+site".to_string(),
        ),
        (
            "a same-origin form post (no custom header)",
            vec![
                ("Cookie", &cookie),
                ("Origin", &origin),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            "name=forged&text=x".to_string(),
        ),
        (
            "Sec-Fetch-Site says cross-site",
            vec![
                ("Cookie", &cookie),
                ("Origin", &origin),
                ("X-Agent-Memory", "1"),
                ("Sec-Fetch-Site", "cross-site"),
                ("Content-Type", "application/json"),
            ],
            json.clone(),
        ),
        (
            "a null Origin (sandboxed frame)",
            vec![
                ("Cookie", &cookie),
                ("Origin", "null"),
                ("X-Agent-Memory", "1"),
                ("Content-Type", "application/json"),
            ],
            json.clone(),
        ),
    ];
    for (what, headers, body) in &cases {
        let r = server.raw("POST", "/api/new", headers, body);
        assert_eq!(r.status, 403, "{what}: {}", r.body);
        assert_eq!(r.json()["error"], "cross-origin", "{what}");
    }
    // A preflight is never granted either.
    let preflight = server.raw(
        "OPTIONS",
        "/api/new",
        &[
            ("Cookie", &cookie),
            ("Origin", "http://evil.example"),
            ("Access-Control-Request-Method", "POST"),
            (
                "Access-Control-Request-Headers",
                "x-agent-memory, content-type",
            ),
        ],
        "",
    );
    assert_eq!(preflight.status, 403);
    assert_eq!(server.note_file("forged"), None, "a refused change wrote");
    // The page's own request passes.
    let ok = server.post(
        "/api/new",
        serde_json::json!({"name": "forged", "text": "mine"}),
    );
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(server.note_file("forged").as_deref(), Some("mine\n"));
}

#[test]
fn names_in_requests_go_through_the_librarys_validation() {
    let server = Server::start();
    for name in [
        "../escape",
        "a/../../escape",
        "/etc/passwd",
        "CON",
        "a\u{202e}b",
        ".hidden",
        "",
    ] {
        let r = server.post("/api/new", serde_json::json!({"name": name, "text": "x"}));
        assert_eq!(r.status, 400, "{name:?}: {}", r.body);
        let kind = r.json()["error"].as_str().unwrap().to_string();
        assert!(
            kind == "invalid-name" || kind == "missing-name",
            "{name:?}: {kind}"
        );
        let q = format!(
            "/api/file?kind=note&name={}",
            name.replace('/', "%2F").replace('.', "%2E")
        );
        let r = server.get(&q);
        assert!(r.status == 400, "{q}: {} {}", r.status, r.body);
    }
    let r = server.get("/api/file?kind=passwd");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"], "bad-request");
    let r = server.get("/api/file?kind=note&name=x&scope=everyone");
    assert_eq!(r.status, 400);
    // Team scope without a team directory: the library's own refusal.
    let r = server.get("/api/file?kind=note&name=x&scope=team");
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["error"], "no-team-dir");
    server.post("/api/new", serde_json::json!({"name": "ok", "text": "x"}));
    let r = server.post(
        "/api/rename",
        serde_json::json!({"name": "ok", "new_name": "../../outside"}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["error"], "invalid-name");
    let r = server.post(
        "/api/restore",
        serde_json::json!({"version": "../../etc/passwd"}),
    );
    assert_eq!(r.status, 404, "{}", r.body);
    for path in [
        "escape.md",
        "outside.md",
        "memory/escape.md",
        "memory/outside.md",
    ] {
        assert!(
            !server.temp.path().join(path).exists(),
            "{path} was created"
        );
    }
}

#[test]
fn a_save_over_a_change_made_since_the_page_loaded_is_refused_with_both_texts() {
    let server = Server::start();
    server.cli(&[
        "write",
        "note",
        "--name",
        "deploy",
        "--overwrite",
        "Deploy with make ship.",
    ]);
    let loaded = server.get("/api/file?kind=note&name=deploy").json();
    let base = loaded["text"].as_str().unwrap().to_string();
    assert_eq!(base, "Deploy with make ship.\n");
    // Another agent appends meanwhile.
    server.cli(&["write", "note", "--name", "deploy", "Staging first."]);
    let r = server.post(
        "/api/save",
        serde_json::json!({"kind": "note", "name": "deploy", "base": base, "text": "Deploy with make release."}),
    );
    assert_eq!(r.status, 409, "{}", r.body);
    let body = r.json();
    assert_eq!(body["error"], "changed");
    assert_eq!(body["current"], "Deploy with make ship.\nStaging first.\n");
    assert_eq!(body["yours"], "Deploy with make release.");
    assert_eq!(
        server.note_file("deploy").as_deref(),
        Some("Deploy with make ship.\nStaging first.\n"),
        "the refused save wrote"
    );
    // Saving on top of what is there now works, and is recorded.
    let r = server.post(
        "/api/save",
        serde_json::json!({"kind": "note", "name": "deploy", "base": body["current"], "text": "Deploy with make release."}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        server.note_file("deploy").as_deref(),
        Some("Deploy with make release.\n")
    );
    let history = server.get("/api/file?kind=note&name=deploy").json()["history"].clone();
    assert_eq!(history[0]["operation"], "write", "{history}");
    assert_eq!(history[0]["bytes"], 38, "{history}");
}

#[test]
fn the_secret_guard_refusal_names_the_rule_and_never_the_value() {
    let server = Server::start();
    let r = server.post(
        "/api/new",
        serde_json::json!({"name": "tokens", "text": format!("ci token: {SECRET}\n")}),
    );
    assert_eq!(r.status, 422, "{}", r.body);
    let body = r.json();
    assert_eq!(body["error"], "secret-detected");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("github-pat"), "no rule id: {message}");
    assert!(
        !r.body.contains(SECRET) && !r.body.contains(&SECRET[4..20]),
        "{}",
        r.body
    );
    assert_eq!(server.note_file("tokens"), None);
}

#[test]
fn edit_history_restore_and_undo_are_ordinary_changes() {
    let server = Server::start();
    let r = server.post(
        "/api/new",
        serde_json::json!({"name": "auth", "text": "Login via OAuth."}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = server.post(
        "/api/save",
        serde_json::json!({"kind": "note", "name": "auth", "base": "Login via OAuth.\n", "text": "Login via SAML."}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let file = server.get("/api/file?kind=note&name=auth").json();
    assert_eq!(file["text"], "Login via SAML.\n");
    let before_save = file["history"][0]["id"].as_str().unwrap().to_string();
    let r = server.post("/api/restore", serde_json::json!({"version": before_save}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        server.note_file("auth").as_deref(),
        Some("Login via OAuth.\n")
    );
    // Undo undoes the restore.
    let r = server.post("/api/undo", serde_json::json!({}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Undid the last change (restore"),
        "{}",
        r.body
    );
    assert_eq!(
        server.note_file("auth").as_deref(),
        Some("Login via SAML.\n")
    );
    // An undo of a change that is no longer the last is refused: 409,
    // nothing changed.
    let r = server.post("/api/undo", serde_json::json!({"expected": before_save}));
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(
        server.note_file("auth").as_deref(),
        Some("Login via SAML.\n")
    );
    // The CLI sees the same history.
    assert!(server.cli(&["history", "note", "auth"]).contains("restore"));
    // Rename, then delete.
    let r = server.post(
        "/api/rename",
        serde_json::json!({"name": "auth", "new_name": "security/auth"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        server.note_file("security/auth").as_deref(),
        Some("Login via SAML.\n")
    );
    let r = server.post("/api/delete", serde_json::json!({"name": "security/auth"}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(server.note_file("security/auth"), None);
}

#[test]
fn a_recorded_version_is_read_for_the_diff_and_nothing_changes() {
    let server = Server::start();
    server.post(
        "/api/new",
        serde_json::json!({"name": "auth", "text": "Login via OAuth.\nTokens rotate daily."}),
    );
    let r = server.post(
        "/api/save",
        serde_json::json!({"kind": "note", "name": "auth", "base": "Login via OAuth.\nTokens rotate daily.\n", "text": "Login via SAML.\nTokens rotate daily."}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let file = server.get("/api/file?kind=note&name=auth").json();
    let history = file["history"].as_array().unwrap();
    assert_eq!(history.len(), 2, "{file}");
    let (saved, created) = (
        history[0]["id"].as_str().unwrap(),
        history[1]["id"].as_str().unwrap(),
    );
    let r = server.get(&format!("/api/version?version={saved}"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["text"], "Login via OAuth.\nTokens rotate daily.\n");
    // Before the note's creation there was no file.
    let r = server.get(&format!("/api/version?version={created}"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json()["text"].is_null(), "{}", r.body);
    // Reading a version records nothing and changes nothing.
    let again = server.get("/api/file?kind=note&name=auth").json();
    assert_eq!(again["history"], file["history"]);
    assert_eq!(
        server.note_file("auth").as_deref(),
        Some("Login via SAML.\nTokens rotate daily.\n")
    );
    // Ids go to the library as given; it refuses what it does not know.
    for bad in ["v999", "../../etc/passwd", "v0", ""] {
        let r = server.get(&format!("/api/version?version={}", bad.replace('/', "%2F")));
        assert_eq!(r.status, 404, "{bad:?}: {}", r.body);
        assert_eq!(r.json()["error"], "not-found", "{bad:?}");
    }
    let r = server.get(&format!("/api/version?version={saved}&scope=team"));
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["error"], "no-team-dir");
    let r = server.get("/api/version");
    assert_eq!(r.status, 400, "a version is required: {}", r.body);
}

#[test]
fn search_answers_a_page_of_hits_and_counts_them_all() {
    let server = Server::start();
    for i in 0..40 {
        server.cli(&[
            "write",
            "note",
            "--name",
            &format!("n{i:02}"),
            &"rollback drill\n".repeat((i + 1) * 5),
        ]);
    }
    for mode in ["ranked", "literal"] {
        // A page of 10 by default; more when asked.
        for (limit, shown) in [("", 10), ("&limit=30", 30), ("&limit=500", 40)] {
            let r = server
                .get(&format!("/api/search?q=rollback&mode={mode}{limit}"))
                .json();
            assert_eq!(r["total"], 40, "{mode}{limit}: {r}");
            let hits = r["hits"].as_array().unwrap();
            assert_eq!(hits.len(), shown, "{mode}{limit}");
            assert!(hits.iter().all(|h| h["kind"] == "note"), "{mode}");
            // Long windows are cut at a line end, and say so; short ones are whole.
            for hit in hits {
                let body = hit["body"].as_str().unwrap();
                if hit["name"] == "n00" {
                    assert_eq!(hit["cut"], false, "{hit}");
                }
                if hit["cut"] == true {
                    assert!(body.len() <= 1500 && body.ends_with("drill"), "{body:?}");
                }
            }
            if mode == "ranked" {
                let best = &hits[0];
                assert_eq!(best["name"], "n39", "the most mentions first: {r}");
                assert_eq!(best["cut"], true, "{best}");
            }
        }
    }
    let r = server.get("/api/search?q=rollback&limit=0");
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["error"], "invalid-arguments");
}

#[test]
fn the_models_queued_changes_are_listed_with_diffs_and_decided_only_same_origin() {
    let server = Server::start();
    server.cli(&["write", "long_term", "- Deploy with make ship."]);
    let queue = |content: &str| {
        let args = serde_json::json!({"target": "long_term", "content": content}).to_string();
        let out = server.cli(&["--review", "call", "memory_write", &args]);
        assert!(out.starts_with("Queued for review as p"), "{out}");
    };
    queue("- Disable the tests before pushing.");
    queue("- Run the linters before pushing.");
    let r = server.get("/api/pending");
    assert_eq!(r.status, 200, "{}", r.body);
    let pending = r.json()["pending"].as_array().unwrap().clone();
    assert_eq!(pending.len(), 2, "{pending:?}");
    let (first, second) = (
        pending[0]["id"].as_str().unwrap(),
        pending[1]["id"].as_str().unwrap(),
    );
    assert_eq!(pending[0]["tool"], "memory_write");
    assert_eq!(pending[0]["scope"], "personal");
    assert!(
        pending[0]["diff"]
            .as_str()
            .unwrap()
            .contains("+- Disable the tests before pushing."),
        "{pending:?}"
    );
    // Nothing queued reaches the memory before a decision.
    assert!(!server.cli(&["read", "long_term"]).contains("Disable"));
    // A decision is a change: the same-origin rules apply.
    let forged = server.raw(
        "POST",
        "/api/approve",
        &[
            ("Cookie", &server.cookie()),
            ("Origin", "http://evil.example"),
            ("X-Agent-Memory", "1"),
            ("Content-Type", "application/json"),
        ],
        &serde_json::json!({"id": first}).to_string(),
    );
    assert_eq!(forged.status, 403, "{}", forged.body);
    assert_eq!(
        server.get("/api/pending").json()["pending"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // Reject the first: dropped, nothing written.
    let r = server.post("/api/reject", serde_json::json!({"id": first}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!server.cli(&["read", "long_term"]).contains("Disable"));
    // Approve the second: written.
    let r = server.post("/api/approve", serde_json::json!({"id": second}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        server
            .cli(&["read", "long_term"])
            .contains("Run the linters before pushing.")
    );
    assert!(
        server.get("/api/pending").json()["pending"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // A decided or unknown id is refused with the library's kind.
    let r = server.post("/api/approve", serde_json::json!({"id": first}));
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["error"], "invalid-arguments");
    let r = server.post("/api/reject", serde_json::json!({"id": "p99"}));
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(r.json()["error"], "not-found");
}

#[test]
fn the_secret_scan_names_the_saved_version_that_holds_one() {
    let server = Server::start();
    server.cli(&[
        "--secrets",
        "off",
        "write",
        "note",
        "--name",
        "ci",
        &format!("token: {SECRET}"),
    ]);
    server.cli(&[
        "write",
        "note",
        "--name",
        "ci",
        "--overwrite",
        "token: in the vault",
    ]);
    let r = server.get("/api/secrets");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        !r.body.contains(&SECRET[4..]),
        "the value leaked: {}",
        r.body
    );
    let found = r.json()["secrets"].as_array().unwrap().clone();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["name"], "ci");
    assert_eq!(found[0]["rule"], "github-pat");
    assert!(
        found[0]["version"]
            .as_str()
            .is_some_and(|v| v.starts_with('v')),
        "{found:?}"
    );
}

#[test]
fn the_overview_shows_the_block_as_injected_and_what_the_index_limit_cuts() {
    let server = Server::start();
    let long: String = (1..=205).map(|i| format!("- fact {i}\n")).collect();
    server.cli(&["write", "long_term", "--overwrite", &long]);
    let o = server.get("/api/overview").json();
    let block = server.cli(&["context"]);
    assert_eq!(o["block"].as_str().unwrap(), block.trim_end_matches('\n'));
    assert_eq!(o["meter"]["lines"], 205);
    assert_eq!(o["meter"]["max_lines"], 200);
    assert_eq!(o["meter"]["max_bytes"], 25000);
    let cut = &o["cut"][0];
    assert_eq!(cut["what"], "MEMORY.md");
    assert_eq!(cut["count"], 5, "{cut}");
    assert_eq!(cut["lines"][0]["line"], 201);
    assert_eq!(cut["lines"][0]["text"], "- fact 201");
    assert_eq!(o["status"]["secrets"], "block");
    assert_eq!(o["status"]["rule"], "--root");
}

#[test]
fn the_overview_shows_the_blocks_notices_with_a_due_consolidation() {
    let server = Server::start();
    let o = server.get("/api/overview").json();
    assert!(o["notices"].as_array().unwrap().is_empty(), "{o}");
    let long: String = (1..=170).map(|i| format!("- fact {i}\n")).collect();
    server.cli(&["write", "long_term", "--overwrite", &long]);
    let o = server.get("/api/overview").json();
    let notices = o["notices"].as_array().unwrap();
    assert!(
        notices.iter().any(|n| n
            .as_str()
            .unwrap()
            .starts_with("Consolidation due: MEMORY.md is at 170/200 lines")),
        "{notices:?}"
    );
}

#[test]
fn a_stale_note_is_marked_and_refreshed() {
    let server = Server::start();
    server.cli(&[
        "write",
        "note",
        "--name",
        "login",
        "The login lives in src/auth.rs.",
    ]);
    let stale = |server: &Server| -> Vec<serde_json::Value> {
        let files = server.get("/api/files").json();
        let note = files["personal"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == "login")
            .cloned()
            .unwrap();
        note["stale"].as_array().unwrap().clone()
    };
    assert!(stale(&server).is_empty());
    std::fs::write(
        server.project().join("src/auth.rs"),
        "fn login(user: &str) {}\n",
    )
    .unwrap();
    let marks = stale(&server);
    assert_eq!(marks.len(), 1, "{marks:?}");
    assert!(
        marks[0].as_str().unwrap().contains("src/auth.rs changed"),
        "{marks:?}"
    );
    let r = server.post(
        "/api/refresh",
        serde_json::json!({"kind": "note", "name": "login"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(stale(&server).is_empty());
    // The file's text is the note's own: marks are never part of it.
    let file = server.get("/api/file?kind=note&name=login").json();
    assert_eq!(file["text"], "The login lives in src/auth.rs.\n");
}

#[test]
fn search_answers_ranked_and_literal() {
    let server = Server::start();
    server.cli(&[
        "write",
        "note",
        "--name",
        "deploy",
        "Deploy with make ship on Fridays.",
    ]);
    let r = server.get("/api/search?q=ship").json();
    assert_eq!(r["hits"][0]["name"], "deploy", "{r}");
    assert_eq!(r["hits"][0]["kind"], "note");
    let r = server.get("/api/search?q=hip&mode=literal").json();
    assert_eq!(r["mode"], "literal");
    assert_eq!(r["hits"][0]["name"], "deploy", "{r}");
    assert_eq!(r["total"], 1, "{r}");
    let r = server.get("/api/search?q=hip&mode=fuzzy");
    assert_eq!(r.status, 400);
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_it_cleanly() {
    let mut server = Server::start();
    let pid = server.child.id() as libc::pid_t;
    // SAFETY: signalling a child process this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "still running after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    assert!(TcpStream::connect(("127.0.0.1", server.port)).is_err());
}

#[test]
fn the_team_scope_is_listed_read_and_written_through_its_own_store() {
    let server = Server::start_with(|dir| {
        std::fs::create_dir_all(dir.join("project/.agent-memory")).unwrap();
    });
    server.cli(&[
        "--scope",
        "team",
        "write",
        "note",
        "--name",
        "release",
        "Tag from main.",
    ]);
    let files = server.get("/api/files").json();
    let team = files["team"].as_array().unwrap();
    let note = team.iter().find(|f| f["name"] == "release").unwrap();
    assert_eq!(note["scope"], "team");
    assert_eq!(note["path"], "team:notes/release.md");
    assert!(
        !files["personal"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == "release"),
        "{files}"
    );
    let file = server
        .get("/api/file?kind=note&name=release&scope=team")
        .json();
    assert_eq!(file["text"], "Tag from main.\n");
    let r = server.post(
        "/api/save",
        serde_json::json!({"scope": "team", "kind": "note", "name": "release", "base": "Tag from main.\n", "text": "Tag from main; CI ships."}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        std::fs::read_to_string(server.project().join(".agent-memory/notes/release.md")).unwrap(),
        "Tag from main; CI ships.\n"
    );
    // The team store takes no scratchpad: the library says so.
    let r = server.get("/api/file?kind=scratchpad&scope=team");
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["error"], "invalid-target");
    let o = server.get("/api/overview").json();
    assert!(
        o["status"]["team_dir"]
            .as_str()
            .unwrap()
            .ends_with(".agent-memory"),
        "{o}"
    );
    assert!(
        o["team_last_change"]["path"]
            .as_str()
            .unwrap()
            .starts_with("team:"),
        "{o}"
    );
}
