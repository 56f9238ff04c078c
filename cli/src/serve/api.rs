//! The dashboard's pages and JSON API. Each handler turns a request into
//! calls of the host library, and its answer into JSON; names, dates and
//! versions go to the library as given, so its validation decides.

use std::sync::Arc;

use agent_memory::{
    Error, ErrorKind, FileInfo, Memory, ReadSource, Scope, SearchMode, WriteMode, WriteTarget,
};
use axum::Json;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{App, Stores};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const APP_CSS: &str = include_str!("assets/app.css");

/// The page. Its address without a query is the overview: the overview's
/// data is then asked for with the page, not after its script has run.
pub async fn index(uri: axum::http::Uri) -> Response {
    let html = if uri.query().is_none_or(str::is_empty) {
        INDEX_HTML.replace(
            "<!-- preload -->",
            r#"<link rel="preload" href="/api/overview" as="fetch" crossorigin>"#,
        )
    } else {
        INDEX_HTML.to_string()
    };
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

pub async fn script() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        APP_JS,
    )
        .into_response()
}

pub async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], APP_CSS).into_response()
}

/// Why a request failed, as the page shows it.
#[derive(Debug)]
pub enum ApiError {
    /// The library refused (bad name, missing note, secret, …) or failed.
    Memory(Error),
    /// A request field is missing or not one of the accepted words.
    BadRequest(String),
    /// The file changed since the page loaded it: nothing was written.
    Changed { current: String, yours: String },
    /// Team scope was asked for, and the project has no team memory.
    NoTeamDir,
}

impl From<Error> for ApiError {
    fn from(error: Error) -> Self {
        ApiError::Memory(error)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, body) = match self {
            ApiError::Memory(Error::Memory(e)) => {
                let status = match e.kind() {
                    ErrorKind::NotFound => StatusCode::NOT_FOUND,
                    ErrorKind::AlreadyExists | ErrorKind::Conflict => StatusCode::CONFLICT,
                    ErrorKind::SecretDetected => StatusCode::UNPROCESSABLE_ENTITY,
                    ErrorKind::Busy => StatusCode::SERVICE_UNAVAILABLE,
                    ErrorKind::Io | ErrorKind::NotAFile => StatusCode::INTERNAL_SERVER_ERROR,
                    _ => StatusCode::BAD_REQUEST,
                };
                // The guard's message names rule ids and lines, never the value.
                (
                    status,
                    json!({ "error": e.kind_name(), "message": e.message() }),
                )
            }
            ApiError::Memory(other) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                json!({ "error": "internal", "message": other.to_string() }),
            ),
            ApiError::BadRequest(message) => (
                StatusCode::BAD_REQUEST,
                json!({ "error": "bad-request", "message": message }),
            ),
            ApiError::NoTeamDir => (
                StatusCode::BAD_REQUEST,
                json!({
                    "error": ErrorKind::NoTeamDir.as_str(),
                    "message": "this project has no team memory: create its `.agent-memory` folder (or run `agent-memory snapshot`), or pass --team-dir, and restart `agent-memory serve`",
                }),
            ),
            ApiError::Changed { current, yours } => (
                StatusCode::CONFLICT,
                json!({
                    "error": "changed",
                    "message": "the file changed since the page loaded it; nothing was written. Both texts are below: merge them and save again",
                    "current": current,
                    "yours": yours,
                }),
            ),
        };
        (status, Json(body)).into_response()
    }
}

type ApiResult = Result<Json<Value>, ApiError>;

fn scope_of(word: Option<&str>) -> Result<Scope, ApiError> {
    match word {
        None | Some("") => Ok(Scope::Personal),
        Some(word) => Scope::from_tool_word(word).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "unknown scope `{word}`: expected {}",
                Scope::tool_words()
            ))
        }),
    }
}

/// A file named the way the tools name it: scope, kind, name.
#[derive(Debug, Deserialize)]
pub struct FileRef {
    scope: Option<String>,
    kind: String,
    name: Option<String>,
}

impl FileRef {
    fn parse(&self) -> Result<(Scope, ReadSource, Option<&str>), ApiError> {
        let scope = scope_of(self.scope.as_deref())?;
        let source = ReadSource::from_tool_word(&self.kind).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "unknown kind `{}`: expected {}",
                self.kind,
                ReadSource::tool_words()
            ))
        })?;
        let name = self.name.as_deref().filter(|n| !n.is_empty());
        Ok((scope, source, name))
    }
}

fn target_of(source: ReadSource) -> WriteTarget {
    match source {
        ReadSource::LongTerm => WriteTarget::LongTerm,
        ReadSource::Scratchpad => WriteTarget::Scratchpad,
        ReadSource::Daily => WriteTarget::Daily,
        ReadSource::Note => WriteTarget::Note,
    }
}

/// Where a listed path leads: the scope, kind and name the API takes.
/// Paths are the library's own (`MEMORY.md`, `projects/<slug>/notes/a.md`,
/// `team:notes/a.md`); anything else is shown but not linked.
fn locate(path: &str, project_dir: &str) -> Option<(Scope, ReadSource, Option<String>)> {
    let (scope, rest) = match path.strip_prefix("team:") {
        Some(rest) => (Scope::Team, rest),
        None => match path {
            "MEMORY.md" => return Some((Scope::Personal, ReadSource::LongTerm, None)),
            _ => (
                Scope::Personal,
                path.strip_prefix(project_dir)?.strip_prefix('/')?,
            ),
        },
    };
    let found = match rest {
        "MEMORY.md" if scope == Scope::Team => (ReadSource::LongTerm, None),
        "SCRATCHPAD.md" if scope == Scope::Personal => (ReadSource::Scratchpad, None),
        _ => {
            let stem = rest.strip_suffix(".md")?;
            if let Some(note) = stem.strip_prefix("notes/") {
                (ReadSource::Note, Some(note.to_string()))
            } else if let Some(day) = stem.strip_prefix("daily/")
                && scope == Scope::Personal
            {
                (ReadSource::Daily, Some(day.to_string()))
            } else {
                return None;
            }
        }
    };
    Some((scope, found.0, found.1))
}

fn file_json(info: &FileInfo, project_dir: &str) -> Value {
    let link = locate(&info.path, project_dir);
    json!({
        "path": info.path,
        "bytes": info.bytes,
        "stale": info.stale,
        "scope": link.as_ref().map(|l| l.0.tool_word()),
        "kind": link.as_ref().map(|l| l.1.tool_word()),
        "name": link.and_then(|l| l.2),
    })
}

/// A recorded version as JSON, its time local to when it was made. (A
/// macro: the library's `Version` type is not exported by name.)
macro_rules! version_json {
    ($v:expr) => {{
        let v = $v;
        json!({
            "id": v.id,
            "path": v.path,
            "time": local_time(v.time_unix, v.utc_offset_minutes),
            "operation": v.operation.tool_word(),
            "bytes": v.bytes,
            "source": v.source,
            "other_path": v.other_path,
        })
    }};
}

fn local_time(unix: i64, offset_minutes: i32) -> String {
    let offset = chrono::FixedOffset::east_opt(offset_minutes * 60)
        .unwrap_or_else(|| chrono::FixedOffset::east_opt(0).expect("zero offset"));
    chrono::DateTime::from_timestamp(unix, 0)
        .map(|t| {
            t.with_timezone(&offset)
                .format("%Y-%m-%d %H:%M %:z")
                .to_string()
        })
        .unwrap_or_else(|| unix.to_string())
}

/// The lines of `text` (1-based numbers) that do not occur in `block`:
/// what the agent does not see of a file the block draws on.
fn missing_lines(text: &str, block: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !block.contains(line.trim_end()))
        .map(|(i, line)| (i + 1, line.to_string()))
        .collect()
}

/// The lines of the block's `## Notices` section.
fn notices(block: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in block.lines() {
        if line.starts_with("## ") {
            inside = line.starts_with("## Notices");
            continue;
        }
        if inside && !line.trim().is_empty() && !line.starts_with("</memory") {
            out.push(line.to_string());
        }
    }
    out
}

fn meter(text: &str, limits: &agent_memory::Limits) -> Value {
    json!({
        "lines": text.lines().count(),
        "bytes": text.len(),
        "max_lines": limits.index_max_lines,
        "max_bytes": limits.index_max_bytes,
    })
}

fn overview_of(stores: &mut Stores, status: &super::Status) -> Result<Value, Error> {
    let block = stores.personal.anchored.context_block()?;
    let limits = stores.personal.anchored.limits()?;
    let text = block.clone().unwrap_or_default();
    let memory_md = stores
        .personal
        .plain
        .read(ReadSource::LongTerm, None)?
        .unwrap_or_default();
    let today = stores.personal.plain.today().to_string();
    let today_log = stores
        .personal
        .plain
        .read(ReadSource::Daily, None)?
        .unwrap_or_default();
    let mut cut = Vec::new();
    let mut push_cut = |what: &str, lines: Vec<(usize, String)>| {
        if !lines.is_empty() {
            cut.push(json!({
                "what": what,
                "count": lines.len(),
                "lines": lines.iter().take(40).map(|(n, l)| json!({"line": n, "text": l})).collect::<Vec<_>>(),
            }));
        }
    };
    push_cut("MEMORY.md", missing_lines(&memory_md, &text));
    push_cut(
        &format!("today's log ({today})"),
        missing_lines(&today_log, &text),
    );
    let mut team_meter = Value::Null;
    if let Some(team) = &mut stores.team {
        let team_md = team
            .plain
            .read(ReadSource::LongTerm, None)?
            .unwrap_or_default();
        push_cut("team MEMORY.md", missing_lines(&team_md, &text));
        team_meter = meter(&team_md, &limits);
    }
    let markers: Vec<String> = text
        .lines()
        .filter(|l| l.contains("[memory truncated]"))
        .map(str::to_string)
        .collect();
    let personal = &mut stores.personal.anchored;
    let last = personal.last_change()?;
    let team_last = match &mut stores.team {
        Some(team) => team.anchored.last_change()?,
        None => None,
    };
    let team_dir = personal
        .options()
        .team_directory()
        .map(|d| d.display().to_string());
    Ok(json!({
        "block": block,
        "block_bytes": text.len(),
        "block_max": limits.max_inject_bytes,
        "meter": meter(&memory_md, &limits),
        "team_meter": team_meter,
        "cut": cut,
        "markers": markers,
        "notices": notices(&text),
        "last_change": last.as_ref().map(|v| version_json!(v)),
        "team_last_change": team_last.as_ref().map(|v| version_json!(v)),
        "status": {
            "root": status.root,
            "rule": status.rule,
            "config": status.config,
            "memory": "on",
            "secrets": status.secrets,
            "project": personal.project().display().to_string(),
            "slug": personal.project_slug(),
            "project_dir": personal.project_dir(),
            "anchors": personal.options().project_dir_path().map(|d| d.display().to_string()),
            "team_dir": team_dir,
            "today": personal.today(),
        },
    }))
}

pub async fn overview(State(app): State<Arc<App>>) -> ApiResult {
    let status = app.status.clone();
    let overview = app
        .with_stores(move |stores| overview_of(stores, &status))
        .await?;
    Ok(Json(overview))
}

fn list(memory: &mut Memory) -> Result<Vec<Value>, Error> {
    let project_dir = memory.project_dir().to_string();
    Ok(memory
        .list_files()?
        .iter()
        .map(|f| file_json(f, &project_dir))
        .collect())
}

pub async fn files(State(app): State<Arc<App>>) -> ApiResult {
    let files = app
        .with_stores(|stores| -> Result<Value, Error> {
            let personal = list(&mut stores.personal.anchored)?;
            let team = match &mut stores.team {
                Some(team) => Some(list(&mut team.anchored)?),
                None => None,
            };
            Ok(json!({ "personal": personal, "team": team }))
        })
        .await?;
    Ok(Json(files))
}

pub async fn file(State(app): State<Arc<App>>, Query(file): Query<FileRef>) -> ApiResult {
    let answer = app
        .with_stores(move |stores| -> Result<Value, ApiError> {
            let (scope, source, name) = file.parse()?;
            let pair = stores.pair(scope)?;
            // Scope checks (a team scratchpad, no team directory) are the
            // library's: the anchored memory answers for the scope asked.
            let text = pair.plain.read(source, name)?;
            let history = pair.anchored.history(source, name, Some(50))?;
            let project_dir = pair.anchored.project_dir().to_string();
            let listed = pair.anchored.list_files()?;
            let today = pair.anchored.today().to_string();
            let info = listed.iter().find(|f| {
                locate(&f.path, &project_dir).is_some_and(|(s, k, n)| {
                    s == scope
                        && k == source
                        && n.as_deref()
                            == name.or(match source {
                                ReadSource::Daily => Some(today.as_str()),
                                _ => None,
                            })
                })
            });
            Ok(json!({
                "scope": scope.tool_word(),
                "kind": source.tool_word(),
                "name": name,
                "today": today,
                "text": text,
                "path": info.map(|f| f.path.clone()),
                "stale": info.map(|f| f.stale.clone()).unwrap_or_default(),
                "history": history.iter().map(|v| version_json!(v)).collect::<Vec<_>>(),
            }))
        })
        .await?;
    Ok(Json(answer))
}

#[derive(Debug, Deserialize)]
pub struct SearchQuery {
    q: Option<String>,
    mode: Option<String>,
    /// How many hits to answer with (default [`SHOWN_HITS`]); the library
    /// refuses 0 and answers at most 100.
    limit: Option<u32>,
}

#[derive(Serialize)]
struct HitJson {
    path: String,
    scope: Option<&'static str>,
    kind: Option<&'static str>,
    name: Option<String>,
    matched_terms: Vec<String>,
    total_hits: u32,
    body: String,
    filename_only: bool,
    /// The body was cut to [`SHOWN_BODY_BYTES`].
    cut: bool,
}

/// Hits a search answers with unless asked for more: a page's worth; the
/// summary says how many files matched in all.
const SHOWN_HITS: u32 = 10;

/// Of each hit's windows, about this many bytes are shown (whole lines);
/// the rest is one click away, in the file.
const SHOWN_BODY_BYTES: usize = 1500;

/// `body` up to the last whole line within [`SHOWN_BODY_BYTES`] (at least
/// its first line, cut at a character boundary), and whether it was cut.
fn shown_body(body: String) -> (String, bool) {
    if body.len() <= SHOWN_BODY_BYTES {
        return (body, false);
    }
    let mut end = SHOWN_BODY_BYTES;
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    let end = body[..end].rfind('\n').filter(|&i| i > 0).unwrap_or(end);
    (body[..end].to_string(), true)
}

pub async fn search(State(app): State<Arc<App>>, Query(query): Query<SearchQuery>) -> ApiResult {
    let mode = match query.mode.as_deref() {
        None | Some("") => SearchMode::Ranked,
        Some(word) => SearchMode::from_tool_word(word).ok_or_else(|| {
            ApiError::BadRequest(format!(
                "unknown mode `{word}`: expected {}",
                SearchMode::tool_words()
            ))
        })?,
    };
    let q = query.q.unwrap_or_default();
    let answer = app
        .with_stores(move |stores| -> Result<Value, Error> {
            let memory = &mut stores.personal.anchored;
            let started = std::time::Instant::now();
            // Only the hits shown: the library then re-reads only their
            // files, where the whole search re-reads the best 100.
            let limit = query.limit.unwrap_or(SHOWN_HITS);
            let (results, total) = memory.search_top(&q, mode, limit)?;
            let took = started.elapsed();
            let project_dir = memory.project_dir().to_string();
            let hits: Vec<HitJson> = results
                .hits
                .into_iter()
                .map(|hit| {
                    let link = locate(&hit.path, &project_dir);
                    let (body, cut) = shown_body(hit.body);
                    HitJson {
                        scope: link.as_ref().map(|l| l.0.tool_word()),
                        kind: link.as_ref().map(|l| l.1.tool_word()),
                        name: link.and_then(|l| l.2),
                        path: hit.path,
                        matched_terms: hit.matched_terms,
                        total_hits: hit.total_hits,
                        body,
                        cut,
                        filename_only: hit.filename_only,
                    }
                })
                .collect();
            Ok(json!({
                "query": q,
                "mode": mode.tool_word(),
                "terms": results.terms.iter().map(|t| json!({"term": t.term, "count": t.count})).collect::<Vec<_>>(),
                "hits": hits,
                "total": total,
                "search_ms": took.as_secs_f64() * 1000.0,
            }))
        })
        .await?;
    Ok(Json(answer))
}

pub async fn secrets(State(app): State<Arc<App>>) -> ApiResult {
    let found = app
        .with_stores(|stores| -> Result<Value, Error> {
            let memory = &mut stores.personal.anchored;
            let project_dir = memory.project_dir().to_string();
            let found = memory.scan_secrets()?;
            Ok(json!({
                "secrets": found.iter().map(|s| {
                    let link = locate(&s.path, &project_dir);
                    json!({
                        "path": s.path,
                        "line": s.line,
                        "rule": s.rule_id,
                        "masked": s.masked,
                        "version": s.version,
                        "scope": link.as_ref().map(|l| l.0.tool_word()),
                        "kind": link.as_ref().map(|l| l.1.tool_word()),
                        "name": link.and_then(|l| l.2),
                    })
                }).collect::<Vec<_>>(),
            }))
        })
        .await?;
    Ok(Json(found))
}

#[derive(Debug, Deserialize)]
pub struct VersionQuery {
    scope: Option<String>,
    version: String,
}

/// The text a file held at a recorded version, and the file's text now,
/// for the page's diff. The version id goes to the library as given.
pub async fn version(State(app): State<Arc<App>>, Query(query): Query<VersionQuery>) -> ApiResult {
    let answer = app
        .with_stores(move |stores| -> Result<Value, ApiError> {
            let scope = scope_of(query.scope.as_deref())?;
            let text = stores.pair(scope)?.plain.read_version(&query.version)?;
            Ok(json!({ "scope": scope.tool_word(), "version": query.version, "text": text }))
        })
        .await?;
    Ok(Json(answer))
}

#[derive(Debug, Deserialize)]
pub struct Save {
    #[serde(flatten)]
    file: FileRef,
    /// The text the page loaded (empty for a file that did not exist).
    base: String,
    text: String,
}

pub async fn save(State(app): State<Arc<App>>, Json(save): Json<Save>) -> ApiResult {
    let answer = app
        .with_stores(move |stores| -> Result<Value, ApiError> {
            let (scope, source, name) = save.file.parse()?;
            let pair = stores.pair(scope)?;
            if source == ReadSource::Daily
                && let Some(day) = name
                && day != pair.anchored.today()
            {
                return Err(ApiError::BadRequest(format!(
                    "only today's log ({}) can be saved, not `{day}`",
                    pair.anchored.today()
                )));
            }
            if save.base == save.text {
                return Ok(json!({ "message": "No changes; nothing was written." }));
            }
            // The CLI `edit` check, made by the library under the lock:
            // someone (an agent, another tab) may have changed the file
            // since the page loaded it.
            let base = agent_memory::base_sha256(&save.base);
            match pair
                .anchored
                .write_if_unchanged(target_of(source), &save.text, name, &base)
            {
                Ok(receipt) => Ok(json!({ "message": receipt.message, "path": receipt.path })),
                Err(Error::Memory(e)) if e.kind() == ErrorKind::Conflict => {
                    Err(ApiError::Changed {
                        current: pair.plain.read(source, name)?.unwrap_or_default(),
                        yours: save.text,
                    })
                }
                Err(e) => Err(e.into()),
            }
        })
        .await?;
    Ok(Json(answer))
}

#[derive(Debug, Deserialize)]
pub struct NewNote {
    scope: Option<String>,
    name: String,
    text: String,
}

pub async fn create(State(app): State<Arc<App>>, Json(new): Json<NewNote>) -> ApiResult {
    let answer = app
        .with_stores(move |stores| -> Result<Value, ApiError> {
            let scope = scope_of(new.scope.as_deref())?;
            let pair = stores.pair(scope)?;
            // Reading first validates the name and finds a note of that name.
            if pair
                .plain
                .read(ReadSource::Note, Some(&new.name))?
                .is_some()
            {
                return Err(ApiError::BadRequest(format!(
                    "a note `{}` exists already; open it to edit it",
                    new.name
                )));
            }
            let receipt = pair.anchored.write(
                WriteTarget::Note,
                &new.text,
                WriteMode::Overwrite,
                Some(&new.name),
            )?;
            Ok(json!({ "message": receipt.message, "path": receipt.path }))
        })
        .await?;
    Ok(Json(answer))
}

#[derive(Debug, Deserialize)]
pub struct NoteRef {
    scope: Option<String>,
    name: String,
    new_name: Option<String>,
}

pub async fn delete(State(app): State<Arc<App>>, Json(note): Json<NoteRef>) -> ApiResult {
    let answer = app
        .with_stores(move |stores| -> Result<Value, ApiError> {
            let scope = scope_of(note.scope.as_deref())?;
            let receipt = stores.pair(scope)?.anchored.delete_note(&note.name)?;
            Ok(json!({ "message": receipt.message, "existed": receipt.existed }))
        })
        .await?;
    Ok(Json(answer))
}

pub async fn rename(State(app): State<Arc<App>>, Json(note): Json<NoteRef>) -> ApiResult {
    let answer = app
        .with_stores(move |stores| -> Result<Value, ApiError> {
            let scope = scope_of(note.scope.as_deref())?;
            let new_name = note
                .new_name
                .ok_or_else(|| ApiError::BadRequest("a rename needs `new_name`".into()))?;
            let receipt = stores
                .pair(scope)?
                .anchored
                .rename_note(&note.name, &new_name)?;
            Ok(json!({ "message": receipt.message, "to": receipt.to }))
        })
        .await?;
    Ok(Json(answer))
}

#[derive(Debug, Deserialize)]
pub struct RestoreRequest {
    scope: Option<String>,
    version: String,
}

pub async fn restore(
    State(app): State<Arc<App>>,
    Json(request): Json<RestoreRequest>,
) -> ApiResult {
    let answer = app
        .with_stores(move |stores| -> Result<Value, ApiError> {
            let scope = scope_of(request.scope.as_deref())?;
            let receipt = stores.pair(scope)?.anchored.restore(&request.version)?;
            Ok(json!({ "message": receipt.message, "path": receipt.path }))
        })
        .await?;
    Ok(Json(answer))
}

/// The model's changes waiting for review (the review gate), oldest first,
/// each with what it would change now.
pub async fn pending(State(app): State<Arc<App>>) -> ApiResult {
    let answer = app
        .with_stores(|stores| -> Result<Value, Error> {
            let pending = stores.personal.anchored.pending_changes()?;
            Ok(json!({
                "pending": pending.iter().map(|p| json!({
                    "id": p.id,
                    "time": local_time(p.time_unix, p.utc_offset_minutes),
                    "source": p.source,
                    "scope": p.scope.tool_word(),
                    "tool": p.tool,
                    "arguments": p.arguments,
                    "diff": p.diff,
                })).collect::<Vec<_>>(),
            }))
        })
        .await?;
    Ok(Json(answer))
}

#[derive(Debug, Deserialize)]
pub struct Decision {
    id: String,
}

/// Applies a queued change (checked again by the library, which may refuse
/// it now: it then stays queued).
pub async fn approve(State(app): State<Arc<App>>, Json(decision): Json<Decision>) -> ApiResult {
    let answer = app
        .with_stores(move |stores| -> Result<Value, ApiError> {
            let message = stores.personal.anchored.approve(&decision.id)?;
            Ok(json!({ "message": message }))
        })
        .await?;
    Ok(Json(answer))
}

/// Drops a queued change and its text.
pub async fn reject(State(app): State<Arc<App>>, Json(decision): Json<Decision>) -> ApiResult {
    let answer = app
        .with_stores(move |stores| -> Result<Value, ApiError> {
            let message = stores.personal.anchored.reject(&decision.id)?;
            Ok(json!({ "message": message }))
        })
        .await?;
    Ok(Json(answer))
}

#[derive(Debug, Deserialize)]
pub struct UndoRequest {
    scope: Option<String>,
    /// The version id of the change the page showed as the last one: the
    /// undo is refused (409) when another change came after it.
    expected: Option<String>,
}

/// Undoes the last change; the library finds and restores it under one
/// lock.
pub async fn undo(State(app): State<Arc<App>>, Json(request): Json<UndoRequest>) -> ApiResult {
    let answer = app
        .with_stores(move |stores| -> Result<Value, ApiError> {
            let scope = scope_of(request.scope.as_deref())?;
            let memory = &mut stores.pair(scope)?.anchored;
            Ok(match memory.undo(request.expected.as_deref())? {
                None => {
                    json!({ "message": "Nothing to undo: no change is recorded for this project." })
                }
                Some(receipt) => json!({ "message": receipt.message, "path": receipt.path }),
            })
        })
        .await?;
    Ok(Json(answer))
}

pub async fn refresh(State(app): State<Arc<App>>, Json(file): Json<FileRef>) -> ApiResult {
    let answer = app
        .with_stores(move |stores| -> Result<Value, ApiError> {
            let (scope, source, name) = file.parse()?;
            // The model's tool: there is no typed method, and the tool
            // takes the scope per call.
            let arguments = json!({
                "target": target_of(source).tool_word(),
                "name": name,
                "scope": scope.tool_word(),
            });
            let message = stores
                .personal
                .anchored
                .call_tool("memory_refresh", &arguments.to_string())?;
            Ok(json!({ "message": message }))
        })
        .await?;
    Ok(Json(answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_paths_lead_to_their_files() {
        let dir = "projects/app-1a2b3c4d";
        let at = |p| locate(p, dir);
        assert_eq!(
            at("MEMORY.md"),
            Some((Scope::Personal, ReadSource::LongTerm, None))
        );
        assert_eq!(
            at("projects/app-1a2b3c4d/SCRATCHPAD.md"),
            Some((Scope::Personal, ReadSource::Scratchpad, None))
        );
        assert_eq!(
            at("projects/app-1a2b3c4d/notes/a/b c.md"),
            Some((Scope::Personal, ReadSource::Note, Some("a/b c".into())))
        );
        assert_eq!(
            at("projects/app-1a2b3c4d/daily/2026-05-30.md"),
            Some((
                Scope::Personal,
                ReadSource::Daily,
                Some("2026-05-30".into())
            ))
        );
        assert_eq!(
            at("team:notes/deploy.md"),
            Some((Scope::Team, ReadSource::Note, Some("deploy".into())))
        );
        assert_eq!(
            at("team:MEMORY.md"),
            Some((Scope::Team, ReadSource::LongTerm, None))
        );
        assert_eq!(at("projects/other-00000000/notes/a.md"), None);
        assert_eq!(at("team:snapshot/notes/a.md"), None);
        assert_eq!(at("team:daily/2026-05-30.md"), None);
    }

    #[test]
    fn a_long_hit_body_is_cut_at_a_line_end_and_a_short_one_kept() {
        assert_eq!(shown_body("a\nb".into()), ("a\nb".to_string(), false));
        let lines = "0123456789\n".repeat(200);
        let (shown, cut) = shown_body(lines.clone());
        assert!(cut);
        assert!(shown.len() <= SHOWN_BODY_BYTES && shown.len() > SHOWN_BODY_BYTES - 11);
        assert!(
            lines.starts_with(&shown) && shown.ends_with('9'),
            "{shown:?}"
        );
        // One long line of multi-byte characters: cut at a boundary.
        let (shown, cut) = shown_body("é".repeat(SHOWN_BODY_BYTES));
        assert!(cut && shown.len() == SHOWN_BODY_BYTES && shown.chars().all(|c| c == 'é'));
    }

    #[test]
    fn missing_lines_are_what_the_block_lacks() {
        let block = "<memory>\n## Long-term memory (MEMORY.md)\n- a\n- b\n</memory>";
        assert_eq!(
            missing_lines("- a\n\n- b\n- c\n", block),
            vec![(4, "- c".to_string())]
        );
    }

    #[test]
    fn notices_are_the_lines_of_their_section() {
        let block = "<memory note=\"x\">\n\n## Notices\n- conflict in team:notes/a.md\n\n## Long-term memory (MEMORY.md)\n- a\n</memory>";
        assert_eq!(notices(block), vec!["- conflict in team:notes/a.md"]);
        assert!(notices("<memory>\n## Long-term memory\n- a\n</memory>").is_empty());
    }
}
