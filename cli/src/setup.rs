//! `agent-memory setup <agent>`: wires the memory into an agent's own
//! configuration, and `--remove` takes it out again.
//!
//! - Claude Code: the `SessionStart` and `PostCompact` hooks (`agent-memory
//!   hook claude-code …`) in its settings file, and the MCP server
//!   `agent-memory` in its MCP file (`~/.claude.json` for the user,
//!   `.mcp.json` for a project).
//! - Codex: the MCP server `[mcp_servers.agent-memory]` in its
//!   `config.toml`, edited with `toml_edit` so that the user's comments and
//!   layout stay.
//! - Cursor (`mcp.json`, `mcpServers`), VS Code (`mcp.json`, `servers`) and
//!   Gemini CLI (`settings.json`, `mcpServers`): the MCP server.
//!
//! Every edit is merged into what the file holds (other hooks and servers
//! stay), changes nothing when already made, keeps a backup of the file it
//! changes, and is computed for every file before any is written: a file
//! that is not valid JSON or TOML, not a regular file, or owned by another
//! user stops the whole setup with every file untouched. `--remove` takes
//! out exactly the entries setup writes, and removes what held only them.
//! JSON files are written back as Claude Code writes them (two-space
//! indentation, keys in their order).

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use clap::ValueEnum;

use crate::hook;

/// The name of the MCP server setup adds.
const SERVER: &str = "agent-memory";
/// The program's file name: how setup knows its own entries.
const PROGRAM: &str = "agent-memory";
/// What a backup's name adds to the file's.
const BACKUP_SUFFIX: &str = ".agent-memory-backup";

/// An agent `setup` can wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Agent {
    /// Claude Code: hooks (context at session start, compaction summaries
    /// saved) and the MCP server
    ClaudeCode,
    /// Codex: the MCP server in config.toml
    Codex,
    /// Cursor: the MCP server in mcp.json
    Cursor,
    /// VS Code: the MCP server in mcp.json
    Vscode,
    /// Gemini CLI: the MCP server in settings.json
    Gemini,
}

impl Agent {
    const ALL: [Agent; 5] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Cursor,
        Agent::Vscode,
        Agent::Gemini,
    ];

    fn word(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Cursor => "cursor",
            Agent::Vscode => "vscode",
            Agent::Gemini => "gemini",
        }
    }
}

/// Whose configuration: the user's (every project) or the project's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    User,
    Project,
}

/// Where the agents' files are.
pub struct Places {
    /// The user's home directory.
    pub home: PathBuf,
    /// Codex's home (`$CODEX_HOME`, else `~/.codex`).
    pub codex_home: PathBuf,
    /// The user's configuration directory, where VS Code keeps its user
    /// profile (`~/.config` on Linux, `~/Library/Application Support` on
    /// macOS, `%APPDATA%` on Windows).
    pub config: PathBuf,
    /// The project (its git root).
    pub project: PathBuf,
}

impl Places {
    /// From the environment: `$HOME`, `$CODEX_HOME`, the configuration
    /// directory (`$XDG_CONFIG_HOME` on Linux).
    pub fn from_env(project: PathBuf) -> Result<Self> {
        let home = dirs::home_dir()
            .context("cannot find your home directory (set HOME) for the agents' configuration")?;
        let codex_home = std::env::var_os("CODEX_HOME")
            .filter(|v| !v.is_empty())
            .map_or_else(|| home.join(".codex"), PathBuf::from);
        let config = dirs::config_dir().unwrap_or_else(|| home.join(".config"));
        Ok(Places {
            home,
            codex_home,
            config,
            project,
        })
    }
}

/// The kind of a configuration file, and what setup puts in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// Claude Code settings: the hooks.
    ClaudeHooks,
    /// Claude Code's MCP file: `mcpServers.agent-memory`.
    ClaudeServer,
    /// Codex `config.toml`: `mcp_servers.agent-memory`.
    CodexServer,
    /// Cursor's `mcp.json`: `mcpServers.agent-memory`.
    CursorServer,
    /// VS Code's `mcp.json`: `servers.agent-memory`.
    VscodeServer,
    /// Gemini CLI's `settings.json`: `mcpServers.agent-memory`.
    GeminiServer,
}

impl Part {
    fn what(self) -> &'static str {
        match self {
            Part::ClaudeHooks => "hooks (SessionStart, PostCompact)",
            _ => "MCP server agent-memory",
        }
    }

    /// For a JSON file of MCP servers: the key of the servers' object, and
    /// whether an entry names its transport (`"type": "stdio"`).
    fn json_servers(self) -> Option<(&'static str, bool)> {
        match self {
            Part::ClaudeServer => Some(("mcpServers", true)),
            Part::VscodeServer => Some(("servers", true)),
            Part::CursorServer | Part::GeminiServer => Some(("mcpServers", false)),
            Part::ClaudeHooks | Part::CodexServer => None,
        }
    }
}

/// The files of `agent` in `scope`, with what setup puts in each.
fn files(agent: Agent, scope: Scope, places: &Places) -> Vec<(Part, PathBuf)> {
    match (agent, scope) {
        (Agent::ClaudeCode, Scope::User) => vec![
            (Part::ClaudeHooks, places.home.join(".claude/settings.json")),
            (Part::ClaudeServer, places.home.join(".claude.json")),
        ],
        (Agent::ClaudeCode, Scope::Project) => vec![
            (
                Part::ClaudeHooks,
                places.project.join(".claude/settings.json"),
            ),
            (Part::ClaudeServer, places.project.join(".mcp.json")),
        ],
        (Agent::Codex, Scope::User) => {
            vec![(Part::CodexServer, places.codex_home.join("config.toml"))]
        }
        (Agent::Codex, Scope::Project) => {
            vec![(Part::CodexServer, places.project.join(".codex/config.toml"))]
        }
        (Agent::Cursor, Scope::User) => {
            vec![(Part::CursorServer, places.home.join(".cursor/mcp.json"))]
        }
        (Agent::Cursor, Scope::Project) => {
            vec![(Part::CursorServer, places.project.join(".cursor/mcp.json"))]
        }
        (Agent::Vscode, Scope::User) => {
            vec![(Part::VscodeServer, places.config.join("Code/User/mcp.json"))]
        }
        (Agent::Vscode, Scope::Project) => {
            vec![(Part::VscodeServer, places.project.join(".vscode/mcp.json"))]
        }
        (Agent::Gemini, Scope::User) => {
            vec![(
                Part::GeminiServer,
                places.home.join(".gemini/settings.json"),
            )]
        }
        (Agent::Gemini, Scope::Project) => {
            vec![(
                Part::GeminiServer,
                places.project.join(".gemini/settings.json"),
            )]
        }
    }
}

/// One file's change.
struct Change {
    part: Part,
    /// The path given (a link stays a link: `target` is written).
    path: PathBuf,
    /// The file written: `path`, or where its link points.
    target: PathBuf,
    before: Option<String>,
    /// `None`: remove the file (it held only what setup added).
    after: Option<String>,
}

/// What `setup` runs.
pub struct Request {
    pub agent: Agent,
    pub scope: Scope,
    pub dry_run: bool,
    pub remove: bool,
    /// The program the agent runs: a path, or `agent-memory` from PATH.
    pub program: String,
}

/// The program to write into the user's configuration: the running
/// executable's path, or `agent-memory` when PATH finds that same file. A
/// project's configuration is shared: there it is always `agent-memory`.
pub fn program(scope: Scope) -> String {
    if scope == Scope::Project {
        return PROGRAM.to_string();
    }
    let Ok(exe) = std::env::current_exe().and_then(fs::canonicalize) else {
        return PROGRAM.to_string();
    };
    let on_path = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path)
            .filter_map(|dir| fs::canonicalize(dir.join(PROGRAM)).ok())
            .next()
            .is_some_and(|found| found == exe)
    });
    if on_path {
        PROGRAM.to_string()
    } else {
        exe.to_string_lossy().into_owned()
    }
}

/// Runs `setup`, printing what it did (or would do).
pub fn run(request: &Request, places: &Places) -> Result<()> {
    let mut changes = Vec::new();
    for (part, path) in files(request.agent, request.scope, places) {
        changes.push(plan(part, &path, request)?);
    }
    let mut out = String::new();
    let changed: Vec<&Change> = changes.iter().filter(|c| c.before != c.after).collect();
    if changed.is_empty() {
        let state = if request.remove {
            "not wired there"
        } else {
            "already wired"
        };
        writeln!(
            out,
            "{}: {state}; nothing changed ({}).",
            request.agent.word(),
            changes
                .iter()
                .map(|c| c.path.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )?;
        return crate::print_text(&out);
    }
    if request.dry_run {
        for change in &changed {
            out.push_str(&diff(change));
        }
        writeln!(out, "Dry run: nothing was written.")?;
        return crate::print_text(&out);
    }
    for change in &changed {
        let backup = write(change)?;
        let verb = match (&change.after, request.remove) {
            (None, _) => "removed the file (it held only the memory's entries)",
            (Some(_), true) => "removed",
            (Some(_), false) => "added",
        };
        write!(
            out,
            "{}: {verb} {} in {}",
            request.agent.word(),
            change.part.what(),
            change.path.display()
        )?;
        match backup {
            Some(backup) => writeln!(out, " (backup: {})", backup.display())?,
            None => writeln!(out)?,
        }
    }
    if !request.remove {
        let check = match request.agent {
            Agent::ClaudeCode => {
                "Start a new Claude Code session: `/hooks` lists the two hooks, `/mcp` the server."
            }
            Agent::Codex => "Start Codex: `/mcp` lists the server.",
            Agent::Cursor => {
                "Open Cursor's settings, MCP: agent-memory is listed; switch it on if it is off."
            }
            Agent::Vscode => {
                "In VS Code, run `MCP: List Servers`: agent-memory is listed; start it there."
            }
            Agent::Gemini => "Start Gemini CLI: `/mcp` lists the server.",
        };
        writeln!(
            out,
            "{check} Undo with `agent-memory setup {} --remove`.",
            request.agent.word()
        )?;
    }
    crate::print_text(&out)
}

/// A unified diff of one change, for `--dry-run`.
fn diff(change: &Change) -> String {
    let before = change.before.as_deref().unwrap_or("");
    let after = change.after.as_deref().unwrap_or("");
    let name = change.path.display().to_string();
    let old = if change.before.is_some() {
        name.clone()
    } else {
        "/dev/null".to_string()
    };
    let new = if change.after.is_some() {
        name
    } else {
        "/dev/null".to_string()
    };
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .header(&old, &new)
        .to_string()
}

/// Reads `path` and computes its new text; refuses a file it must not
/// touch.
fn plan(part: Part, path: &Path, request: &Request) -> Result<Change> {
    let target = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path).with_context(|| {
            format!(
                "`{}` is a link to a file that cannot be resolved; nothing was changed",
                path.display()
            )
        })?,
        _ => path.to_path_buf(),
    };
    let before = match fs::metadata(&target) {
        Ok(meta) => {
            if !meta.is_file() {
                bail!(
                    "`{}` is not a regular file; nothing was changed",
                    path.display()
                );
            }
            check_owner(&target, &meta)?;
            let bytes = fs::read(&target).with_context(|| {
                format!("cannot read `{}`; nothing was changed", path.display())
            })?;
            Some(String::from_utf8(bytes).map_err(|_| {
                anyhow::anyhow!(
                    "`{}` is not UTF-8 text; nothing was changed: fix or move it, then run setup again",
                    path.display()
                )
            })?)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(e)
                .with_context(|| format!("cannot read `{}`; nothing was changed", path.display()));
        }
    };
    let after = match part {
        Part::CodexServer => toml_edit_server(path, before.as_deref(), request)?,
        _ => json_edit(part, path, before.as_deref(), request)?,
    };
    Ok(Change {
        part,
        path: path.to_path_buf(),
        target,
        before,
        after,
    })
}

/// Refuses a file another user owns: setup runs as you and edits only your
/// files.
#[cfg(unix)]
fn check_owner(path: &Path, meta: &fs::Metadata) -> Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        bail!(
            "`{}` belongs to another user (uid {}, you are uid {me}); nothing was changed: \
             run setup as its owner, or edit it by hand (docs/agents.md shows the entries)",
            path.display(),
            meta.uid()
        );
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_owner(_path: &Path, _meta: &fs::Metadata) -> Result<()> {
    Ok(())
}

/// Writes a change: a backup of the old file, then the new text through a
/// temporary file and a rename (or the file's removal). Returns the backup.
fn write(change: &Change) -> Result<Option<PathBuf>> {
    let target = &change.target;
    let backup = match &change.before {
        Some(before) => {
            let mut name = target.as_os_str().to_owned();
            name.push(BACKUP_SUFFIX);
            let backup = PathBuf::from(name);
            fs::write(&backup, before).with_context(|| {
                format!(
                    "cannot write the backup `{}`; nothing was changed",
                    backup.display()
                )
            })?;
            Some(backup)
        }
        None => None,
    };
    let Some(after) = &change.after else {
        fs::remove_file(target).with_context(|| format!("cannot remove `{}`", target.display()))?;
        return Ok(backup);
    };
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("cannot create `{}`", dir.display()))?;
    let mut file = tempfile::Builder::new()
        .prefix(".agent-memory-setup-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in `{}`", dir.display()))?;
    file.write_all(after.as_bytes())
        .and_then(|()| file.as_file().sync_all())
        .with_context(|| format!("cannot write `{}`", target.display()))?;
    let permissions = match fs::metadata(target) {
        Ok(meta) => meta.permissions(),
        Err(_) => new_file_permissions(),
    };
    fs::set_permissions(file.path(), permissions)
        .with_context(|| format!("cannot set the permissions of `{}`", target.display()))?;
    file.persist(target)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot replace `{}`", target.display()))?;
    Ok(backup)
}

#[cfg(unix)]
fn new_file_permissions() -> fs::Permissions {
    use std::os::unix::fs::PermissionsExt as _;
    fs::Permissions::from_mode(0o644)
}

#[cfg(not(unix))]
fn new_file_permissions() -> fs::Permissions {
    tempfile::tempfile()
        .and_then(|f| f.metadata())
        .map(|m| m.permissions())
        .expect("a temporary file's permissions")
}

// ---------------------------------------------------------------- JSON

/// A JSON value that keeps its object keys in their order, so a file is
/// written back with its own order.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn object(pairs: &[(&str, Json)]) -> Json {
        Json::Object(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_string(), v.clone()))
                .collect(),
        )
    }

    fn string(text: &str) -> Json {
        Json::String(text.to_string())
    }

    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
}

impl<'de> serde::Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Json;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::Number(v.into()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Json, E> {
                serde_json::Number::from_f64(v)
                    .map(Json::Number)
                    .ok_or_else(|| E::custom("a number that is not finite"))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::String(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<Json, E> {
                Ok(Json::String(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut pairs: Vec<(String, Json)> = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Json>()? {
                    if pairs.iter().any(|(k, _)| *k == key) {
                        return Err(serde::de::Error::custom(format!("duplicate key {key:?}")));
                    }
                    pairs.push((key, value));
                }
                Ok(Json::Object(pairs))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap as _, SerializeSeq as _};
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => n.serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(pairs) => {
                let mut map = serializer.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// `value` as Claude Code writes its files: two-space indentation; a final
/// newline when `newline`.
fn render_json(value: &Json, newline: bool) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("a JSON value serializes");
    if newline {
        text.push('\n');
    }
    text
}

/// The object at `key` of `object`, created empty when absent.
fn object_at<'a>(
    object: &'a mut Vec<(String, Json)>,
    key: &str,
    path: &Path,
) -> Result<&'a mut Vec<(String, Json)>> {
    if !object.iter().any(|(k, _)| k == key) {
        object.push((key.to_string(), Json::Object(Vec::new())));
    }
    match object.iter_mut().find(|(k, _)| k == key) {
        Some((_, Json::Object(inner))) => Ok(inner),
        _ => bail!(
            "`{}`: \"{key}\" is not a JSON object; nothing was changed: fix it, then run setup again",
            path.display()
        ),
    }
}

/// The array at `key` of `object`, created empty when absent.
fn array_at<'a>(
    object: &'a mut Vec<(String, Json)>,
    key: &str,
    path: &Path,
) -> Result<&'a mut Vec<Json>> {
    if !object.iter().any(|(k, _)| k == key) {
        object.push((key.to_string(), Json::Array(Vec::new())));
    }
    match object.iter_mut().find(|(k, _)| k == key) {
        Some((_, Json::Array(inner))) => Ok(inner),
        _ => bail!(
            "`{}`: \"{key}\" is not a JSON array; nothing was changed: fix it, then run setup again",
            path.display()
        ),
    }
}

/// The program and the rest of a shell command line; the program may be
/// single-quoted.
fn split_command(command: &str) -> Option<(&str, &str)> {
    let command = command.trim_start();
    if let Some(quoted) = command.strip_prefix('\'') {
        let end = quoted.find('\'')?;
        return Some((&quoted[..end], quoted[end + 1..].trim_start()));
    }
    match command.split_once(char::is_whitespace) {
        Some((program, rest)) => Some((program, rest.trim_start())),
        None => Some((command, "")),
    }
}

/// Whether `program` is this program (any path to a file of its name).
fn is_program(program: &str) -> bool {
    Path::new(program)
        .file_name()
        .is_some_and(|name| name == PROGRAM)
}

/// `program` as a word of a shell command line: quoted unless plain.
fn shell_word(program: &str) -> String {
    if program
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:,@".contains(c))
    {
        program.to_string()
    } else {
        format!("'{}'", program.replace('\'', r"'\''"))
    }
}

/// Claude Code's hook events setup adds: the event, its matcher, ours.
fn claude_hooks() -> [(&'static str, Option<&'static str>, hook::Event); 2] {
    [
        (
            "SessionStart",
            Some("startup|resume|clear|compact"),
            hook::Event::SessionStart,
        ),
        ("PostCompact", None, hook::Event::PostCompact),
    ]
}

/// The arguments after the program of our hook for `event`.
fn hook_arguments(event: hook::Event) -> String {
    format!(
        "hook {} {}",
        hook::Agent::ClaudeCode.word(),
        event.to_possible_value().expect("a named event").get_name()
    )
}

/// Whether `entry` (one hook of a matcher group) is setup's for `event`.
fn is_our_hook(entry: &Json, event: hook::Event) -> bool {
    entry
        .get("command")
        .and_then(Json::as_str)
        .and_then(split_command)
        .is_some_and(|(program, rest)| is_program(program) && rest == hook_arguments(event))
}

/// Whether `server` is setup's MCP server entry.
fn is_our_server(server: &Json) -> bool {
    let program = server.get("command").and_then(Json::as_str);
    let args = server.get("args");
    program.is_some_and(is_program) && args == Some(&Json::Array(vec![Json::string("mcp")]))
}

/// The new text of a JSON file (Claude Code's, Cursor's, VS Code's, Gemini
/// CLI's); `None` to remove the file.
fn json_edit(
    part: Part,
    path: &Path,
    before: Option<&str>,
    request: &Request,
) -> Result<Option<String>> {
    let mut value = match before {
        None => Json::Object(Vec::new()),
        Some(text) if text.trim().is_empty() => Json::Object(Vec::new()),
        Some(text) => serde_json::from_str::<Json>(text).with_context(|| {
            format!(
                "`{}` is not valid JSON; nothing was changed: fix it, then run setup again",
                path.display()
            )
        })?,
    };
    let Json::Object(top) = &mut value else {
        bail!(
            "`{}` does not hold a JSON object; nothing was changed: fix it, then run setup again",
            path.display()
        );
    };
    let newline = before.is_none_or(|text| text.ends_with('\n'));
    let original = top.clone();
    match (part.json_servers(), request.remove) {
        (None, false) => add_hooks(top, path, &request.program)?,
        (None, true) => remove_hooks(top),
        (Some((key, typed)), false) => add_json_server(top, path, &request.program, key, typed)?,
        (Some((key, _)), true) => remove_json_server(top, key),
    }
    if *top == original {
        return Ok(before.map(str::to_string));
    }
    if top.is_empty() && request.remove {
        return Ok(None);
    }
    Ok(Some(render_json(&value, newline)))
}

fn add_hooks(top: &mut Vec<(String, Json)>, path: &Path, program: &str) -> Result<()> {
    let hooks = object_at(top, "hooks", path)?;
    for (name, matcher, event) in claude_hooks() {
        let command = format!("{} {}", shell_word(program), hook_arguments(event));
        let groups = array_at(hooks, name, path)?;
        let mut found = false;
        for group in groups.iter_mut() {
            if let Json::Object(pairs) = group
                && let Some((_, Json::Array(entries))) =
                    pairs.iter_mut().find(|(k, _)| k == "hooks")
            {
                for entry in entries.iter_mut() {
                    if is_our_hook(entry, event) {
                        found = true;
                        // The program moved: point the entry at this one.
                        if let Json::Object(fields) = entry
                            && let Some((_, value)) =
                                fields.iter_mut().find(|(k, _)| k == "command")
                        {
                            *value = Json::String(command.clone());
                        }
                    }
                }
            }
        }
        if found {
            continue;
        }
        let entry = Json::object(&[
            ("type", Json::string("command")),
            ("command", Json::String(command)),
        ]);
        let mut group = Vec::new();
        if let Some(matcher) = matcher {
            group.push(("matcher".to_string(), Json::string(matcher)));
        }
        group.push(("hooks".to_string(), Json::Array(vec![entry])));
        groups.push(Json::Object(group));
    }
    Ok(())
}

fn remove_hooks(top: &mut Vec<(String, Json)>) {
    let Some((_, Json::Object(hooks))) = top.iter_mut().find(|(k, _)| k == "hooks") else {
        return;
    };
    let mut changed = false;
    for (name, _, event) in claude_hooks() {
        let Some((_, Json::Array(groups))) = hooks.iter_mut().find(|(k, _)| k == name) else {
            continue;
        };
        let mut emptied_groups = false;
        for group in groups.iter_mut() {
            if let Json::Object(pairs) = group
                && let Some((_, Json::Array(entries))) =
                    pairs.iter_mut().find(|(k, _)| k == "hooks")
            {
                let before = entries.len();
                entries.retain(|entry| !is_our_hook(entry, event));
                if entries.len() != before {
                    changed = true;
                    emptied_groups |= entries.is_empty();
                }
            }
        }
        if emptied_groups {
            groups.retain(|group| {
                !matches!(group.get("hooks"), Some(Json::Array(entries)) if entries.is_empty())
            });
        }
    }
    if !changed {
        return;
    }
    hooks.retain(|(name, value)| {
        !(claude_hooks().iter().any(|(n, _, _)| n == name)
            && matches!(value, Json::Array(groups) if groups.is_empty()))
    });
    if hooks.is_empty() {
        top.retain(|(k, _)| k != "hooks");
    }
}

/// Adds setup's server to the servers' object at `key`; with its
/// transport named (`"type": "stdio"`) when `typed`.
fn add_json_server(
    top: &mut Vec<(String, Json)>,
    path: &Path,
    program: &str,
    key: &str,
    typed: bool,
) -> Result<()> {
    let servers = object_at(top, key, path)?;
    let mut fields = Vec::new();
    if typed {
        fields.push(("type", Json::string("stdio")));
    }
    fields.push(("command", Json::string(program)));
    fields.push(("args", Json::Array(vec![Json::string("mcp")])));
    let ours = Json::object(&fields);
    match servers.iter_mut().find(|(k, _)| k == SERVER) {
        Some((_, existing)) if is_our_server(existing) => {
            if existing.get("command") != ours.get("command")
                && let Json::Object(fields) = existing
                && let Some((_, value)) = fields.iter_mut().find(|(k, _)| k == "command")
            {
                *value = Json::string(program);
            }
        }
        Some(_) => bail!(
            "`{}` already has an MCP server named {SERVER} that runs another command; nothing was changed: \
             remove or rename it, then run setup again",
            path.display()
        ),
        None => servers.push((SERVER.to_string(), ours)),
    }
    Ok(())
}

fn remove_json_server(top: &mut Vec<(String, Json)>, key: &str) {
    let Some((_, Json::Object(servers))) = top.iter_mut().find(|(k, _)| k == key) else {
        return;
    };
    let before = servers.len();
    servers.retain(|(name, server)| !(name == SERVER && is_our_server(server)));
    if servers.len() != before && servers.is_empty() {
        top.retain(|(k, _)| k != key);
    }
}

// ---------------------------------------------------------------- TOML

/// The new text of a Codex `config.toml`; `None` to remove the file.
fn toml_edit_server(
    path: &Path,
    before: Option<&str>,
    request: &Request,
) -> Result<Option<String>> {
    let text = before.unwrap_or("");
    let mut doc: toml_edit::DocumentMut = text.parse().with_context(|| {
        format!(
            "`{}` is not valid TOML; nothing was changed: fix it, then run setup again",
            path.display()
        )
    })?;
    let is_ours = |item: &toml_edit::Item| {
        let program = item.get("command").and_then(toml_edit::Item::as_str);
        let args = item
            .get("args")
            .and_then(toml_edit::Item::as_array)
            .map(|a| a.iter().map(|v| v.as_str()).collect::<Vec<_>>());
        program.is_some_and(is_program) && args == Some(vec![Some("mcp")])
    };
    let servers = doc.get("mcp_servers");
    if servers.is_some_and(|s| !s.is_table_like()) {
        bail!(
            "`{}`: mcp_servers is not a table; nothing was changed: fix it, then run setup again",
            path.display()
        );
    }
    let existing = servers.and_then(|s| s.get(SERVER));
    if request.remove {
        if !existing.is_some_and(is_ours) {
            return Ok(before.map(str::to_string));
        }
        let servers = doc["mcp_servers"]
            .as_table_like_mut()
            .expect("checked to be a table");
        servers.remove(SERVER);
        if servers.is_empty()
            && doc["mcp_servers"]
                .as_table()
                .is_some_and(|t| t.is_implicit())
        {
            doc.remove("mcp_servers");
        }
        let after = doc.to_string();
        if after.trim().is_empty() {
            return Ok(None);
        }
        return Ok(Some(after));
    }
    match existing {
        Some(item) if is_ours(item) => {
            if item.get("command").and_then(toml_edit::Item::as_str)
                == Some(request.program.as_str())
            {
                return Ok(before.map(str::to_string));
            }
            doc["mcp_servers"][SERVER]["command"] = toml_edit::value(request.program.as_str());
        }
        Some(_) => bail!(
            "`{}` already has an MCP server named {SERVER} that runs another command; nothing was changed: \
             remove or rename it, then run setup again",
            path.display()
        ),
        None => {
            if doc.get("mcp_servers").is_none() {
                let mut servers = toml_edit::Table::new();
                servers.set_implicit(true);
                doc.insert("mcp_servers", toml_edit::Item::Table(servers));
            }
            let mut server = toml_edit::Table::new();
            server.insert("command", toml_edit::value(request.program.as_str()));
            let mut args = toml_edit::Array::new();
            args.push("mcp");
            server.insert("args", toml_edit::value(args));
            let servers = doc["mcp_servers"]
                .as_table_like_mut()
                .expect("checked to be a table");
            servers.insert(SERVER, toml_edit::Item::Table(server));
        }
    }
    Ok(Some(doc.to_string()))
}

// ---------------------------------------------------------------- status

/// The `agents:` lines of `status`: which agents are wired, and where.
pub fn status_lines(places: &Places) -> String {
    let mut out = String::new();
    for agent in Agent::ALL {
        let mut wired = Vec::new();
        for scope in [Scope::User, Scope::Project] {
            for (part, path) in files(agent, scope, places) {
                if holds_ours(part, &path) {
                    wired.push(format!("{} in {}", part.what(), path.display()));
                }
            }
        }
        let line = if wired.is_empty() {
            format!("not wired (`agent-memory setup {}`)", agent.word())
        } else {
            wired.join("; ")
        };
        let _ = writeln!(out, "  {:<12} {line}", agent.word());
    }
    out
}

/// Whether the file at `path` holds setup's entries.
fn holds_ours(part: Part, path: &Path) -> bool {
    let Ok(text) = fs::read_to_string(path) else {
        return false;
    };
    match (part, part.json_servers()) {
        (Part::ClaudeHooks, _) => serde_json::from_str::<Json>(&text).is_ok_and(|value| {
            claude_hooks().iter().any(|(name, _, event)| {
                matches!(value.get("hooks").and_then(|h| h.get(name)), Some(Json::Array(groups))
                    if groups.iter().any(|g| matches!(g.get("hooks"), Some(Json::Array(entries))
                        if entries.iter().any(|e| is_our_hook(e, *event)))))
            })
        }),
        (_, Some((key, _))) => serde_json::from_str::<Json>(&text).is_ok_and(|value| {
            value
                .get(key)
                .and_then(|s| s.get(SERVER))
                .is_some_and(is_our_server)
        }),
        (_, None) => text.parse::<toml_edit::DocumentMut>().is_ok_and(|doc| {
            doc.get("mcp_servers")
                .and_then(|s| s.get(SERVER))
                .and_then(|s| s.get("command"))
                .and_then(toml_edit::Item::as_str)
                .is_some_and(is_program)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_recognised_by_program_name_and_arguments() {
        assert_eq!(
            split_command("'/opt/my tools/agent-memory' hook claude-code session-start"),
            Some((
                "/opt/my tools/agent-memory",
                "hook claude-code session-start"
            ))
        );
        let entry = |command: &str| Json::object(&[("command", Json::string(command))]);
        assert!(is_our_hook(
            &entry("/usr/local/bin/agent-memory hook claude-code session-start"),
            hook::Event::SessionStart
        ));
        assert!(!is_our_hook(
            &entry("agent-memory hook claude-code session-start"),
            hook::Event::PostCompact
        ));
        assert!(!is_our_hook(
            &entry("other-memory hook claude-code session-start"),
            hook::Event::SessionStart
        ));
        assert_eq!(shell_word("/usr/bin/agent-memory"), "/usr/bin/agent-memory");
        assert_eq!(
            shell_word("/opt/it's/agent-memory"),
            r"'/opt/it'\''s/agent-memory'"
        );
    }

    #[test]
    fn json_keeps_key_order_and_refuses_duplicate_keys() {
        let text = "{\n  \"z\": 1,\n  \"a\": [\n    true,\n    null\n  ]\n}\n";
        let value: Json = serde_json::from_str(text).unwrap();
        assert_eq!(render_json(&value, true), text);
        let error = serde_json::from_str::<Json>(r#"{"a":1,"a":2}"#).unwrap_err();
        assert!(error.to_string().contains("duplicate key \"a\""), "{error}");
    }
}
