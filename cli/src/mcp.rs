//! `agent-memory mcp`: the memory as a Model Context Protocol server on
//! stdin/stdout, for agents that speak MCP (Claude Code, Codex, ...).
//!
//! - Tools: the set chosen with `--tools` (`full` by default: the seed's
//!   three, the curation tools, `memory_batch` and `memory_consolidate`;
//!   `seed`; or `anthropic`, just `memory`), with the names,
//!   descriptions and JSON Schemas the component itself defines
//!   (`tools.tool-definitions`); calls go to `memory.call-tool` unchanged. A
//!   refusal of the memory comes back as a tool result with `isError` and
//!   `<kind>: <message>`, so the model can correct its call; only a tool name
//!   the server does not have is a protocol error.
//! - Resource `memory://context`: the `<memory>` block for the system prompt
//!   (empty text when there is nothing to show).
//! - Prompt `memory`: the usage prompt followed by the context block.
//! - Prompt `consolidate`: the consolidation plan (`memory_consolidate`),
//!   to answer with one `memory_batch`; an empty memory is an
//!   invalid-params error saying so.
//! - The usage prompt is also the server's `instructions`.
//! - While memory is turned off (`AGENT_MEMORY_DISABLE`, the config file) the
//!   server still offers the same tools, but no component is loaded: every
//!   call answers, as a plain result, that memory is off; the context is
//!   empty and the instructions say so.
//! - The component sees the exact text of a call's `arguments`, as the
//!   command line does: the JSON-RPC layer would keep only the last of two
//!   equal keys, so a filter between stdin and the protocol library hands the
//!   raw text through (see [`RAW_ARGUMENTS`]), and a repeated field is
//!   refused the same way everywhere.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_memory::{Disabled, Error, Memory, OpenOptions, Runtime, ToolSet};
use anyhow::{Context as _, Result};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, JsonObject, ListPromptsResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};

/// The name of the consolidation prompt.
const CONSOLIDATE_PROMPT: &str = "consolidate";

/// The URI of the context block resource.
const CONTEXT_URI: &str = "memory://context";
/// The name of the prompt that carries the usage prompt and the block.
const PROMPT_NAME: &str = "memory";

/// The one key of the `arguments` object the stdin filter puts in a
/// `tools/call` message: its value is the JSON text the client sent as
/// `arguments`, byte for byte. A client cannot forge it to any effect: its
/// own `arguments` always travel as text under this key.
const RAW_ARGUMENTS: &str = "agent-memory/raw-arguments";

/// One JSON-RPC message from the client, with `tools/call` arguments
/// replaced by their raw text; any other line unchanged.
fn pass_raw_arguments(line: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        method: Option<String>,
        #[serde(borrow)]
        params: Option<Params<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        arguments: Option<&'a serde_json::value::RawValue>,
    }
    let Ok(message) = serde_json::from_str::<Message>(line) else {
        return line.to_string();
    };
    let raw = match message {
        Message {
            method: Some(method),
            params: Some(Params {
                arguments: Some(raw),
            }),
        } if method == "tools/call" => raw.get().to_string(),
        _ => return line.to_string(),
    };
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(line) else {
        return line.to_string();
    };
    value["params"]["arguments"] = serde_json::json!({ RAW_ARGUMENTS: raw });
    value.to_string()
}

/// The arguments text for the component: the raw text the filter passed,
/// else the object as the protocol library parsed it.
fn arguments_text(arguments: Option<JsonObject>) -> String {
    match arguments {
        Some(map) if map.len() == 1 => match map.get(RAW_ARGUMENTS) {
            Some(serde_json::Value::String(raw)) => raw.clone(),
            _ => serde_json::Value::Object(map).to_string(),
        },
        other => serde_json::Value::Object(other.unwrap_or_default()).to_string(),
    }
}

/// The largest message the server reads: a line past it is discarded unread
/// and answered with an invalid-request error.
const MAX_MESSAGE_BYTES: usize = 4 << 20;

/// The requests this server answers; any other is `-32601` (method not
/// found) with this list, before it reaches the protocol library.
const OFFERED: [&str; 10] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "server/discover",
];

/// The `_meta` key by which a request of the session-less protocol
/// (2026-07-28, no `initialize`) names its version.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// What the stdio gate does with one line from the client.
#[derive(Debug, PartialEq)]
enum Gate {
    /// Hand it to the protocol library (tool-call arguments as raw text).
    Forward(String),
    /// Answer it here with this JSON-RPC message.
    Answer(serde_json::Value),
    /// Nothing: an empty line, or a notification this server has no use for.
    Drop,
}

/// The JSON-RPC error answer to `id` (null when the message had none).
fn error_answer(id: serde_json::Value, code: i32, message: String) -> Gate {
    Gate::Answer(serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    }))
}

/// Checks each line from the client before the protocol library sees it,
/// and answers what the library would drop or choke on, as JSON-RPC 2.0
/// and MCP say: invalid JSON (`-32700`), a batch or a message that is not a
/// request (`-32600`; MCP has no batches since 2025-06-18), a request before
/// `initialize` (`-32600`), a method this server does not offer (`-32601`),
/// `initialize` without its parameters (`-32602`). The connection stays
/// open through each of them.
#[derive(Debug, Default)]
struct Gatekeeper {
    /// `initialize` was forwarded.
    initialized: bool,
}

impl Gatekeeper {
    fn gate(&mut self, line: &[u8]) -> Gate {
        use serde_json::Value;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Gate::Drop;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            return error_answer(
                Value::Null,
                -32700,
                "Parse error: the message is not UTF-8; send one JSON-RPC message per line".into(),
            );
        };
        let message: Value = match serde_json::from_str(text) {
            Ok(message) => message,
            Err(e) => {
                return error_answer(
                    Value::Null,
                    -32700,
                    format!(
                        "Parse error: the message is not valid JSON ({e}); send one JSON-RPC message per line"
                    ),
                );
            }
        };
        let object = match message {
            Value::Object(object) => object,
            Value::Array(_) => {
                return error_answer(
                    Value::Null,
                    -32600,
                    "Invalid Request: a batch (JSON array); MCP has no batches since 2025-06-18: send each message on its own line".into(),
                );
            }
            _ => {
                return error_answer(
                    Value::Null,
                    -32600,
                    "Invalid Request: a JSON-RPC message is a JSON object".into(),
                );
            }
        };
        let id = match object.get("id") {
            Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
            None => None,
            Some(_) => {
                return error_answer(
                    Value::Null,
                    -32600,
                    "Invalid Request: `id` must be a string or a number".into(),
                );
            }
        };
        let answer_id = id.clone().unwrap_or(Value::Null);
        if object.get("jsonrpc") != Some(&Value::from("2.0")) {
            return error_answer(
                answer_id,
                -32600,
                "Invalid Request: `jsonrpc` must be \"2.0\"".into(),
            );
        }
        let method = match object.get("method") {
            Some(Value::String(method)) => method.as_str(),
            Some(_) => {
                return error_answer(
                    answer_id,
                    -32600,
                    "Invalid Request: `method` must be a string".into(),
                );
            }
            // A response to a request of the server's.
            None if id.is_some()
                && (object.contains_key("result") || object.contains_key("error")) =>
            {
                return Gate::Forward(text.to_string());
            }
            None => {
                return error_answer(
                    answer_id,
                    -32600,
                    "Invalid Request: a request needs a `method`".into(),
                );
            }
        };
        let Some(id) = id else {
            // A notification: never answered. Before `initialize` the
            // library has no session to give it to.
            return if self.initialized && method.starts_with("notifications/") {
                Gate::Forward(text.to_string())
            } else {
                Gate::Drop
            };
        };
        if !OFFERED.contains(&method) {
            return error_answer(
                id,
                -32601,
                format!(
                    "Method not found: `{method}` is not offered by this server; it offers {}",
                    OFFERED.join(", ")
                ),
            );
        }
        let session_less = object
            .get("params")
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .is_some();
        match method {
            "initialize" => {
                let params = object.get("params");
                let valid = params
                    .and_then(|p| p.get("protocolVersion"))
                    .is_some_and(Value::is_string)
                    && params
                        .and_then(|p| p.get("capabilities"))
                        .is_some_and(Value::is_object)
                    && params
                        .and_then(|p| p.get("clientInfo"))
                        .is_some_and(|c| c.get("name").is_some_and(Value::is_string));
                if !valid {
                    return error_answer(
                        id,
                        -32602,
                        "Invalid params: `initialize` needs `protocolVersion` (a string), `capabilities` (an object) and `clientInfo` with a `name`".into(),
                    );
                }
                self.initialized = true;
            }
            "ping" if !self.initialized => {
                return Gate::Answer(serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}}));
            }
            "server/discover" => {}
            _ if !self.initialized && !session_less => {
                return error_answer(
                    id,
                    -32600,
                    format!(
                        "Invalid Request: `{method}` before `initialize`: start the session with `initialize` and `notifications/initialized` (MCP lifecycle), or name the protocol version in `params._meta[\"{META_PROTOCOL_VERSION}\"]` (MCP 2026-07-28); nothing was run"
                    ),
                );
            }
            _ => {}
        }
        Gate::Forward(pass_raw_arguments(text))
    }
}

/// Reads stdin line by line through the [`Gatekeeper`]: forwards to `sink`,
/// answers through `answers`. A line over [`MAX_MESSAGE_BYTES`] is
/// discarded as it arrives, never held whole.
async fn filter_stdin(
    sink: tokio::io::DuplexStream,
    answers: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
) -> std::io::Result<()> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut input = BufReader::new(tokio::io::stdin());
    let mut sink = sink;
    let mut gate = Gatekeeper::default();
    let mut line = Vec::new();
    let mut oversized = false;
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            break;
        }
        let (chunk, ends) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (&buffer[..at], at + 1),
            None => (buffer, buffer.len()),
        };
        let complete = ends > chunk.len();
        if !oversized {
            if line.len() + chunk.len() > MAX_MESSAGE_BYTES {
                oversized = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        input.consume(ends);
        if !complete {
            continue;
        }
        let verdict = if oversized {
            error_answer(
                serde_json::Value::Null,
                -32600,
                format!(
                    "Invalid Request: the message is over {} MiB, this server's limit; it was not read",
                    MAX_MESSAGE_BYTES >> 20
                ),
            )
        } else {
            gate.gate(&line)
        };
        oversized = false;
        line.clear();
        match verdict {
            Gate::Forward(text) => {
                sink.write_all(text.as_bytes()).await?;
                sink.write_all(b"\n").await?;
            }
            Gate::Answer(answer) => {
                let mut bytes = answer.to_string().into_bytes();
                bytes.push(b'\n');
                if answers.send(bytes).is_err() {
                    break;
                }
            }
            Gate::Drop => {}
        }
    }
    sink.shutdown().await
}

/// Writes every line to stdout, from the protocol library (`library`) and
/// from the gate (`answers`), one whole line at a time.
async fn write_stdout(
    library: tokio::io::DuplexStream,
    mut answers: tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>,
) -> std::io::Result<()> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut stdout = tokio::io::stdout();
    let mut library = BufReader::new(library);
    let mut line = Vec::new();
    let mut library_open = true;
    loop {
        tokio::select! {
            read = library.read_until(b'\n', &mut line), if library_open => {
                if read? == 0 {
                    library_open = false;
                } else {
                    stdout.write_all(&line).await?;
                    stdout.flush().await?;
                    line.clear();
                }
            }
            answer = answers.recv() => match answer {
                Some(answer) => {
                    stdout.write_all(&answer).await?;
                    stdout.flush().await?;
                }
                None if library_open => {
                    // The gate is done; drain the library.
                    while library.read_until(b'\n', &mut line).await? > 0 {
                        stdout.write_all(&line).await?;
                        line.clear();
                    }
                    stdout.flush().await?;
                    return Ok(());
                }
                None => return Ok(()),
            },
        }
    }
}

/// What the server serves: an open memory, or the answer that memory is off.
pub enum Backend {
    /// Memory is on.
    Memory(Box<Memory>),
    /// Memory is turned off: nothing is opened.
    Disabled(&'static Runtime, Disabled),
}

/// Serves `backend` on stdin/stdout until the client disconnects.
pub fn serve(backend: Backend, tools: ToolSet) -> Result<()> {
    let server = MemoryServer::new(backend, tools)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime for the MCP server")?;
    runtime.block_on(async move {
        let (filtered, sink) = tokio::io::duplex(1 << 16);
        let (library_out, library_lines) = tokio::io::duplex(1 << 16);
        let (answers, answered) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(filter_stdin(sink, answers));
        let writer = tokio::spawn(write_stdout(library_lines, answered));
        let outcome = match server.serve((filtered, library_out)).await {
            Ok(service) => service
                .waiting()
                .await
                .map(drop)
                .context("the MCP server stopped abnormally"),
            Err(e) => Err(e).context("the MCP handshake on stdin/stdout failed"),
        };
        // What the gate answered reaches the client even when the session
        // never started.
        writer
            .await
            .context("the MCP server's output task failed")?
            .context("cannot write to stdout")?;
        outcome
    })
}

/// Where `agent-memory mcp --http` listens, and with which token.
pub struct HttpOptions {
    /// The port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Another address (`--listen`), which needs `token_file`.
    pub listen: Option<std::net::SocketAddr>,
    /// A file holding the token (`--token-file`).
    pub token_file: Option<std::path::PathBuf>,
    /// Semantic recall for the memories of the sessions' projects, as for
    /// the default project's (`--semantic`).
    pub semantic: bool,
}

/// The shortest token a token file may hold.
const MIN_TOKEN_CHARS: usize = 32;

/// The token from `path`: its text, trimmed; at least
/// [`MIN_TOKEN_CHARS`] visible ASCII characters.
fn token_from_file(path: &std::path::Path) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the token file `{}`", path.display()))?;
    let token = text.trim();
    if token.len() < MIN_TOKEN_CHARS || !token.bytes().all(|b| b.is_ascii_graphic()) {
        anyhow::bail!(
            "the token file `{}` must hold one token of at least {MIN_TOKEN_CHARS} visible ASCII characters (e.g. `openssl rand -hex 24`)",
            path.display()
        );
    }
    Ok(token.to_string())
}

/// Serves `backend` over MCP's Streamable HTTP transport at `/mcp` until
/// Ctrl-C (or SIGTERM): on 127.0.0.1 with a fresh random token unless
/// `--listen` and `--token-file` say otherwise. Every request passes the
/// dashboard's guard first (`Host`, then `Authorization: Bearer`, and no
/// `Origin`). Each session works on its own project (see
/// [`MemoryServer::session_memory`]); every change, whichever the project,
/// goes through the one change pipeline of the one store.
pub fn serve_http(backend: Backend, tools: ToolSet, http: HttpOptions) -> Result<()> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let mut server = MemoryServer::new(backend, tools)?;
    if let Some(memory) = &server.memory {
        server.projects = Some(Arc::new(Projects::new(Arc::clone(memory), http.semantic)));
    }
    let token = match &http.token_file {
        Some(path) => token_from_file(path)?,
        None => crate::serve::random_token()?,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime for the MCP server")?;
    runtime.block_on(async move {
        let address = http.listen.unwrap_or(std::net::SocketAddr::from((
            std::net::Ipv4Addr::LOCALHOST,
            http.port,
        )));
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .with_context(|| format!("cannot listen on {address}"))?;
        let local = listener.local_addr()?;
        let hosts = match http.listen {
            Some(_) => vec![local.to_string()],
            None => Vec::new(),
        };
        let guard = std::sync::Arc::new(crate::serve::Guard::with_token(
            local.port(),
            hosts,
            token.clone(),
        ));
        let stop = crate::serve::stop_signal().context("cannot catch Ctrl-C")?;
        let cancel = tokio_util::sync::CancellationToken::new();
        // The guard checks Host (and refuses any Origin) before rmcp sees
        // a request.
        let config = StreamableHttpServerConfig::default()
            .disable_allowed_hosts()
            // One JSON answer per request: the server sends nothing else
            // while a request runs.
            .with_json_response(true)
            .with_cancellation_token(cancel.clone());
        let service = StreamableHttpService::new(
            move || Ok(server.for_session()),
            LocalSessionManager::default().into(),
            config,
        );
        // The guard runs first (the outer layer), then the project header.
        let router = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(check_project_header))
            .layer(axum::middleware::from_fn_with_state(
                guard,
                crate::serve::check_bearer,
            ));
        // The first line is the contract: scripts and tests read it.
        crate::print_text(&format!("http://{local}/mcp Authorization: Bearer {token}"))?;
        if http.listen.is_some() {
            eprintln!(
                "agent-memory: WARNING: serving MCP on {local}, not only this machine's loopback: \
                 anyone who can reach it and has the token reads and changes your memory"
            );
        }
        eprintln!("agent-memory: serving MCP over HTTP on {local}; Ctrl-C stops it");
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                stop.await;
                cancel.cancel();
            })
            .await
            .context("the MCP HTTP server failed")?;
        eprintln!("agent-memory: MCP server stopped");
        Ok(())
    })
}

/// The header by which an HTTP client names its session's project: the
/// absolute path of a directory on the server's machine, as UTF-8.
pub const PROJECT_HEADER: &str = "agent-memory-project";

/// How long the server waits for a client's answer to `roots/list`.
const ROOTS_WAIT: Duration = Duration::from_secs(10);

/// The most projects other than the default one whose memories the HTTP
/// server keeps open at once; one not in use is closed to make room.
const MAX_OPEN_PROJECTS: usize = 16;

/// The project directory a request's [`PROJECT_HEADER`] names, checked by
/// [`check_project_header`]: canonical, an existing directory.
#[derive(Debug, Clone)]
struct HeaderProject(PathBuf);

/// The layer that reads [`PROJECT_HEADER`]: a request whose header does not
/// name a directory on this machine is refused (`400 bad-project`) before
/// the MCP server sees it, so it changes nothing; a good one travels to the
/// handlers as a [`HeaderProject`].
async fn check_project_header(
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let mut values = request.headers().get_all(PROJECT_HEADER).iter();
    let Some(value) = values.next() else {
        return next.run(request).await;
    };
    let checked = if values.next().is_some() {
        Err(format!(
            "the request names its project twice ({PROJECT_HEADER}); send the header once"
        ))
    } else {
        project_from_header(value.as_bytes())
    };
    match checked {
        Ok(dir) => {
            request.extensions_mut().insert(HeaderProject(dir));
            next.run(request).await
        }
        Err(why) => crate::serve::refuse(axum::http::StatusCode::BAD_REQUEST, "bad-project", &why),
    }
}

/// The project directory a [`PROJECT_HEADER`] value names, or why it names
/// none (for the person who configured the client).
fn project_from_header(value: &[u8]) -> Result<PathBuf, String> {
    let text = std::str::from_utf8(value).map_err(|_| {
        format!("the {PROJECT_HEADER} header is not UTF-8; send the project's absolute path")
    })?;
    project_directory(Path::new(text)).map_err(|why| {
        format!("the {PROJECT_HEADER} header `{text}` {why}; send the absolute path of the project's directory on the machine the server runs on")
    })
}

/// The project directory a client's root names (MCP roots: a `file://`
/// URI), or why it names none.
fn project_from_root(uri: &str) -> Result<PathBuf, String> {
    let url = url::Url::parse(uri).map_err(|e| format!("the root `{uri}` is not a URI ({e})"))?;
    if url.scheme() != "file" {
        return Err(format!("the root `{uri}` is not a file:// URI"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "the root `{uri}` has a query or a fragment, which no directory has"
        ));
    }
    let path = url
        .to_file_path()
        .map_err(|()| format!("the root `{uri}` names a file on another machine"))?;
    project_directory(&path).map_err(|why| format!("the root `{uri}` {why}"))
}

/// `path`, canonical, when it is the absolute path of an existing
/// directory; else what it is instead. Only the memory's own store is ever
/// written: the project directory names the project (its slug under the
/// root) and is read for staleness anchors.
fn project_directory(path: &Path) -> Result<PathBuf, String> {
    if !path.is_absolute() {
        return Err("is not an absolute path".into());
    }
    let dir = std::fs::canonicalize(path)
        .map_err(|e| format!("names no directory here ({})", agent_memory::os_cause(&e)))?;
    if !dir.is_dir() {
        return Err("is not a directory".into());
    }
    Ok(dir)
}

/// The memories of the HTTP server's projects: the default one it was
/// started with, and each other project a session names, opened at its
/// first use with the default's options (root, clock, policies, caps) and
/// that project's own directories, as the command line opens a project.
struct Projects {
    default: Arc<Mutex<Memory>>,
    /// The default memory's project and options.
    default_project: PathBuf,
    options: OpenOptions,
    semantic: bool,
    open: Mutex<HashMap<PathBuf, Arc<Mutex<Memory>>>>,
}

impl Projects {
    fn new(default: Arc<Mutex<Memory>>, semantic: bool) -> Self {
        let (default_project, options) = {
            let memory = default
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            (memory.project().to_path_buf(), memory.options().clone())
        };
        Projects {
            default,
            default_project,
            options,
            semantic,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// The memory of the project `dir` is in (its git root, as the command
    /// line finds it from the current directory), opened on first use.
    /// Blocking: opening reads the store.
    fn memory(&self, dir: &Path) -> Result<Arc<Mutex<Memory>>> {
        let project = agent_memory::detect_project(dir);
        if project == self.default_project {
            return Ok(Arc::clone(&self.default));
        }
        let lock = || {
            self.open
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        if let Some(memory) = lock().get(&project) {
            return Ok(Arc::clone(memory));
        }
        let mut options = self
            .options
            .clone()
            .for_project(&project)
            .project_dir(agent_memory::detect_checkout(dir));
        let team = OpenOptions::team_dir_of(&project);
        if crate::team_dir_present(&team) {
            options = options.team_dir(team);
        }
        let mut memory = Runtime::shared()?.open(options)?;
        crate::recall::setup(&mut memory, self.semantic)?;
        let mut open = lock();
        if let Some(memory) = open.get(&project) {
            // Another session opened it meanwhile.
            return Ok(Arc::clone(memory));
        }
        if open.len() >= MAX_OPEN_PROJECTS {
            open.retain(|_, memory| Arc::strong_count(memory) > 1);
        }
        if open.len() >= MAX_OPEN_PROJECTS {
            anyhow::bail!(
                "{MAX_OPEN_PROJECTS} projects besides the default one are in use at once; \
                 no other project can be opened until a session ends"
            );
        }
        let memory = Arc::new(Mutex::new(memory));
        open.insert(project, Arc::clone(&memory));
        Ok(memory)
    }
}

#[derive(Clone)]
struct MemoryServer {
    /// `None` while memory is turned off. Over HTTP, the default project's.
    memory: Option<Arc<Mutex<Memory>>>,
    /// Over HTTP: every project's memory, for sessions that name theirs.
    projects: Option<Arc<Projects>>,
    /// The project this session's client roots name, once asked:
    /// `Some(None)` when they name none usable (the default project then).
    /// One per session ([`MemoryServer::for_session`]).
    roots: Arc<tokio::sync::Mutex<Option<Option<PathBuf>>>>,
    /// The answer to every tool call while memory is off.
    disabled: Option<Arc<str>>,
    tools: Arc<Vec<Tool>>,
    usage_prompt: Arc<str>,
}

impl MemoryServer {
    fn new(backend: Backend, set: ToolSet) -> Result<Self> {
        let (definitions, usage_prompt, memory, disabled) = match backend {
            Backend::Memory(mut memory) => (
                memory.tool_definitions(set)?,
                memory.usage_prompt(set)?,
                Some(Arc::new(Mutex::new(*memory))),
                None,
            ),
            Backend::Disabled(runtime, disabled) => (
                runtime.tool_definitions(set)?,
                disabled.tool_reply(),
                None,
                Some(Arc::from(disabled.tool_reply())),
            ),
        };
        let tools = definitions
            .into_iter()
            .map(|definition| {
                let schema: JsonObject = serde_json::from_str(&definition.parameters_schema)
                    .with_context(|| {
                        format!("the schema of `{}` is not a JSON object", definition.name)
                    })?;
                Ok(Tool::new(definition.name, definition.description, schema))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(MemoryServer {
            memory,
            projects: None,
            roots: Arc::default(),
            disabled,
            tools: Arc::new(tools),
            usage_prompt: usage_prompt.into(),
        })
    }

    /// The server for a new session: the same memories, its own roots.
    fn for_session(&self) -> Self {
        MemoryServer {
            roots: Arc::default(),
            ..self.clone()
        }
    }

    /// The memory of the request's session. Over HTTP, its project is, in
    /// this order:
    /// 1. the directory the request's [`PROJECT_HEADER`] names: the person
    ///    configured it, which is the only way to map a client in a
    ///    container or on another machine to a directory here;
    /// 2. the first of the client's roots (MCP `roots/list`), when the
    ///    client declared the `roots` capability: asked once per session,
    ///    again after `notifications/roots/list_changed`. A root that is not
    ///    a `file://` URI of a directory here, or a client that does not
    ///    answer, leaves the session on the default project, and the server
    ///    says why on stderr;
    /// 3. the server's own project (`--project`, else its current
    ///    directory's).
    async fn session_memory(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<Arc<Mutex<Memory>>, McpError> {
        let Some(memory) = &self.memory else {
            return Err(McpError::internal_error(
                "memory is turned off; no memory is open",
                None,
            ));
        };
        let Some(projects) = &self.projects else {
            return Ok(Arc::clone(memory));
        };
        let header = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<HeaderProject>())
            .map(|HeaderProject(dir)| dir.clone());
        let dir = match header {
            Some(dir) => dir,
            None => match self.root_project(context).await {
                Some(dir) => dir,
                None => return Ok(Arc::clone(memory)),
            },
        };
        let projects = Arc::clone(projects);
        tokio::task::spawn_blocking(move || {
            projects.memory(&dir).map_err(|e| {
                eprintln!(
                    "agent-memory: cannot open the memory of the project at {}: {}",
                    dir.display(),
                    crate::errors::describe(&e)
                );
                McpError::internal_error(
                    "the memory of this session's project cannot be opened",
                    None,
                )
            })
        })
        .await
        .map_err(|e| McpError::internal_error(format!("the memory task failed: {e}"), None))?
    }

    /// The project directory this session's client roots name, asked once
    /// per session; `None` when the client has no roots or names none usable.
    // Roots: deprecated by MCP 2026-07-28 (SEP-2577), in use before it.
    #[allow(deprecated)]
    async fn root_project(&self, context: &RequestContext<RoleServer>) -> Option<PathBuf> {
        let declared = context
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !declared {
            return None;
        }
        let mut known = self.roots.lock().await;
        if let Some(project) = &*known {
            return project.clone();
        }
        let listed = tokio::time::timeout(ROOTS_WAIT, context.peer.list_roots()).await;
        let project = match listed {
            Ok(Ok(list)) => match list.roots.first() {
                Some(root) => project_from_root(&root.uri),
                None => Err("the client lists no roots".into()),
            },
            Ok(Err(e)) => Err(format!("the client did not answer roots/list ({e})")),
            Err(_) => Err(format!(
                "the client did not answer roots/list within {} s",
                ROOTS_WAIT.as_secs()
            )),
        };
        let project = project
            .inspect_err(|why| {
                eprintln!("agent-memory: a session uses the default project: {why}");
            })
            .ok();
        *known = Some(project.clone());
        project
    }

    /// Runs `f` on the memory of the request's session on a blocking
    /// thread: memory calls do file I/O and may wait up to 15 s for another
    /// writer's lock.
    async fn with_memory<T, F>(
        &self,
        context: &RequestContext<RoleServer>,
        f: F,
    ) -> Result<T, McpError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Memory) -> T + Send + 'static,
    {
        let memory = self.session_memory(context).await?;
        tokio::task::spawn_blocking(move || {
            // A panic while holding the lock cannot leave the memory
            // half-updated (the component is the state), so go on.
            let mut memory = memory
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            f(&mut memory)
        })
        .await
        .map_err(|e| McpError::internal_error(format!("the memory task failed: {e}"), None))
    }

    async fn context_block(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<String>, McpError> {
        if self.disabled.is_some() {
            return Ok(None);
        }
        self.with_memory(context, |m| m.context_block())
            .await?
            .map_err(|e| McpError::internal_error(describe(&e), None))
    }
}

impl ServerHandler for MemoryServer {
    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        // Asked again at the session's next call.
        *self.roots.lock().await = None;
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new(
            "agent-memory",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(self.usage_prompt.to_string())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if self.get_tool(&name).is_none() {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{name}`; this server has {}",
                    self.tools
                        .iter()
                        .map(|t| t.name.as_ref())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None,
            ));
        }
        if let Some(reply) = &self.disabled {
            return Ok(CallToolResult::success(vec![ContentBlock::text(reply.to_string())]).into());
        }
        let arguments = arguments_text(request.arguments);
        let outcome = self
            .with_memory(&context, move |m| m.call_tool(&name, &arguments))
            .await?;
        Ok(match outcome {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(error) => CallToolResult::error(vec![ContentBlock::text(describe(&error))]),
        }
        .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let context = Resource::new(CONTEXT_URI, "context")
            .with_title("Memory context block")
            .with_description(
                "The <memory> block for the system prompt: MEMORY.md, open scratchpad items, \
                 the latest daily logs. Empty when there is nothing to show.",
            )
            .with_mime_type("text/markdown");
        Ok(ListResourcesResult::with_all_items(vec![context]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if request.uri != CONTEXT_URI {
            return Err(McpError::resource_not_found(
                format!(
                    "no resource `{}`; this server has {CONTEXT_URI}",
                    request.uri
                ),
                None,
            ));
        }
        let block = self.context_block(&context).await?.unwrap_or_default();
        let contents = ResourceContents::text(block, CONTEXT_URI).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let prompt = Prompt::new(
            PROMPT_NAME,
            Some("How to use the memory tools, then the current memory context block"),
            None,
        );
        let consolidate = Prompt::new(
            CONSOLIDATE_PROMPT,
            Some(
                "Tidy the memory: the consolidation plan (logs to distill, repeated lines, stale notes, what MEMORY.md's budget cuts), to answer with one memory_batch",
            ),
            None,
        );
        Ok(ListPromptsResult::with_all_items(vec![prompt, consolidate]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name == CONSOLIDATE_PROMPT {
            if let Some(reply) = &self.disabled {
                let message = PromptMessage::new_text(Role::User, reply.to_string());
                return Ok(GetPromptResult::new(vec![message])
                    .with_description("Memory is turned off")
                    .into());
            }
            let plan = self
                .with_memory(&context, |m| m.consolidation_plan())
                .await?
                .map_err(|e| McpError::invalid_params(describe(&e), None))?;
            let message = PromptMessage::new_text(Role::User, plan);
            return Ok(GetPromptResult::new(vec![message])
                .with_description("The consolidation plan: answer with one memory_batch")
                .into());
        }
        if request.name != PROMPT_NAME {
            return Err(McpError::invalid_params(
                format!(
                    "no prompt `{}`; this server has `{PROMPT_NAME}` and `{CONSOLIDATE_PROMPT}`",
                    request.name
                ),
                None,
            ));
        }
        let preamble = self.usage_prompt.to_string();
        if self.disabled.is_some() {
            let message = PromptMessage::new_text(Role::User, preamble);
            return Ok(GetPromptResult::new(vec![message])
                .with_description("Memory is turned off")
                .into());
        }
        let text = self
            .with_memory(&context, move |m| {
                let block = m.context_block()?;
                m.append_memory_block(&preamble, block.as_deref())
            })
            .await?
            .map_err(|e| McpError::internal_error(describe(&e), None))?;
        let message = PromptMessage::new_text(Role::User, text);
        Ok(GetPromptResult::new(vec![message])
            .with_description("The memory's usage instructions and context block")
            .into())
    }
}

/// `<kind>: <message>` with the WIT spelling of the kind, for the model.
fn describe(error: &Error) -> String {
    match error {
        Error::Memory(e) => format!("{}: {}", e.kind().as_str(), e.message()),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(gate: Gate) -> (serde_json::Value, i64, String) {
        let Gate::Answer(answer) = gate else {
            panic!("expected an answer, got {gate:?}");
        };
        (
            answer["id"].clone(),
            answer["error"]["code"].as_i64().unwrap(),
            answer["error"]["message"].as_str().unwrap().to_string(),
        )
    }

    #[test]
    fn the_gate_answers_what_json_rpc_and_mcp_say() {
        let mut gate = Gatekeeper::default();
        let (id, c, _) = code(gate.gate(b"{not json"));
        assert_eq!((id, c), (serde_json::Value::Null, -32700));
        assert_eq!(code(gate.gate(b"[]")).1, -32600);
        assert_eq!(code(gate.gate(b"42")).1, -32600);
        assert_eq!(
            code(gate.gate(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#)).1,
            -32600
        );
        let (id, c, message) =
            code(gate.gate(br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"memory_read","arguments":{}}}"#));
        assert_eq!((id, c), (serde_json::json!("a"), -32600));
        assert!(
            message.contains("`tools/call` before `initialize`"),
            "{message}"
        );
        assert_eq!(
            gate.gate(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#),
            Gate::Answer(serde_json::json!({"jsonrpc":"2.0","id":2,"result":{}}))
        );
        assert_eq!(
            gate.gate(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Gate::Drop
        );
        assert_eq!(
            code(gate.gate(br#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}"#)).1,
            -32602
        );
        let initialize = r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        assert_eq!(
            gate.gate(initialize.as_bytes()),
            Gate::Forward(initialize.to_string())
        );
        let (_, c, message) = code(gate.gate(
            br#"{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"x"}}"#,
        ));
        assert_eq!(c, -32601);
        assert!(
            message.contains("`resources/subscribe` is not offered")
                && message.contains("tools/call"),
            "{message}"
        );
        let list = r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#;
        assert_eq!(gate.gate(list.as_bytes()), Gate::Forward(list.to_string()));
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}"#;
        assert_eq!(
            gate.gate(cancel.as_bytes()),
            Gate::Forward(cancel.to_string())
        );
        assert_eq!(
            gate.gate(br#"{"jsonrpc":"2.0","method":"x/unknown"}"#),
            Gate::Drop
        );
        assert_eq!(gate.gate(b"  \r"), Gate::Drop);
    }

    #[test]
    fn a_root_names_a_project_only_as_a_file_uri_of_a_directory_here() {
        let temp = tempfile::tempdir().unwrap();
        let app = temp.path().join("my app");
        std::fs::create_dir(&app).unwrap();
        std::fs::write(temp.path().join("file.txt"), "x").unwrap();
        let canonical = std::fs::canonicalize(&app).unwrap();
        let uri = url::Url::from_directory_path(&app).unwrap().to_string();
        assert!(uri.ends_with("/my%20app/"), "{uri}");
        assert_eq!(project_from_root(&uri), Ok(canonical.clone()));
        let local = uri.replacen("file://", "file://localhost", 1);
        assert_eq!(project_from_root(&local), Ok(canonical));
        let file = url::Url::from_file_path(temp.path().join("file.txt")).unwrap();
        let missing = url::Url::from_file_path(temp.path().join("gone")).unwrap();
        for (root, why) in [
            (
                "https://example.com/repo".to_string(),
                "is not a file:// URI",
            ),
            ("/home/me/app".to_string(), "is not a URI"),
            (
                "file://build.example/srv/app".to_string(),
                "names a file on another machine",
            ),
            (format!("{uri}?x=1"), "has a query or a fragment"),
            (
                missing.to_string(),
                "names no directory here (no such file or directory)",
            ),
            (file.to_string(), "is not a directory"),
        ] {
            let error = project_from_root(&root).unwrap_err();
            assert!(error.starts_with(&format!("the root `{root}` ")), "{error}");
            assert!(error.contains(why), "{root}: {error}");
        }
        assert_eq!(
            project_from_header(b"relative/path"),
            Err(format!(
                "the {PROJECT_HEADER} header `relative/path` is not an absolute path; send the absolute path of the project's directory on the machine the server runs on"
            ))
        );
        assert!(
            project_from_header(b"/\xff")
                .unwrap_err()
                .contains("is not UTF-8")
        );
    }

    #[test]
    fn tool_call_arguments_travel_as_raw_text() {
        let line = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_write","arguments":{"target":"note","target":"long_term","content":"x"}}}"#;
        let passed: serde_json::Value = serde_json::from_str(&pass_raw_arguments(line)).unwrap();
        assert_eq!(passed["id"], 7);
        assert_eq!(passed["params"]["name"], "memory_write");
        let arguments = passed["params"]["arguments"].as_object().cloned();
        assert_eq!(
            arguments_text(arguments),
            r#"{"target":"note","target":"long_term","content":"x"}"#
        );
        // Other messages and unparsable lines pass unchanged.
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "not json",
        ] {
            assert_eq!(pass_raw_arguments(line), line);
        }
        // A client's own use of the key is just more text for the component.
        let forged = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_read","arguments":{"agent-memory/raw-arguments":"{}"}}}"#;
        let passed: serde_json::Value = serde_json::from_str(&pass_raw_arguments(forged)).unwrap();
        assert_eq!(
            arguments_text(passed["params"]["arguments"].as_object().cloned()),
            r#"{"agent-memory/raw-arguments":"{}"}"#
        );
    }
}
