//! `agent-memory`: the memory of coding agents, from the command line.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{self, ExitCode};

use agent_memory::{
    Audience, ClearTarget, Memory, OpenOptions, ReadSource, RootChoice, RootRule, Runtime, Scope,
    SearchMode, SecretPolicy, ToolSet, WriteMode, WriteTarget,
};
use anyhow::{Context as _, Result, bail};
use chrono::{DateTime, FixedOffset, TimeDelta};
use clap::{Parser, Subcommand, ValueEnum};

mod errors;
mod hook;
mod mcp;
mod model;
mod recall;
mod serve;
mod setup;
mod travel;
mod verbs;

const DEMO_MARKER: &str = ".agent-memory-demo";
const DEMO_PROJECT: &str = "/demo/my-app";
const DEMO_NOW: &str = "2026-05-30T09:15:00+02:00";

/// Persistent Markdown memory for coding agents, run in a sandboxed
/// WebAssembly component that sees only the memory directory.
#[derive(Debug, Parser)]
#[command(name = "agent-memory", version, max_term_width = 100)]
struct Cli {
    /// Memory root directory [default: $AGENT_MEMORY_DIR, else "root" in the
    /// config file ($AGENT_MEMORY_CONFIG, else <config dir>/agent-memory/config.json),
    /// else the platform data directory + `agent-memory`; for `demo`: <temp
    /// dir>/agent-memory-demo]
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,

    /// The project whose scratchpad, logs and notes to use [default: the
    /// current directory's git root (shared by all its worktrees), else the
    /// current directory]. Its files (or, by default, those of the current
    /// checkout) are preopened read-only for staleness anchors. Given without
    /// DIR it names the default project (`setup --project`: the project's files)
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        num_args = 0..=1,
        default_missing_value = "",
        value_parser = clap::builder::TypedValueParser::map(clap::builder::OsStringValueParser::new(), PathBuf::from)
    )]
    project: Option<PathBuf>,

    /// The project's team memory, shared through git (tools take
    /// "scope":"team"); a real folder, never a symbolic link [default:
    /// <project>/.agent-memory when that folder exists; `snapshot` creates
    /// it]
    #[arg(long, global = true, value_name = "DIR", env = "AGENT_MEMORY_TEAM_DIR")]
    team_dir: Option<PathBuf>,

    /// Pin "now" to this instant, RFC 3339 with an offset (e.g.
    /// 2026-05-30T09:15:00+02:00); its offset is the local time zone. Empty
    /// means unset. [default: the system clock, in the local time zone]
    #[arg(
        long,
        global = true,
        value_name = "TIMESTAMP",
        env = "AGENT_MEMORY_NOW",
        value_parser = parse_now
    )]
    now: Option<Now>,

    /// What to do with text that holds a secret (an API key, a token, a
    /// private key, a password in a connection string): block refuses the
    /// write, redact stores [REDACTED:<rule>] instead of the value, off
    /// stores it
    #[arg(
        long,
        global = true,
        value_name = "POLICY",
        env = "AGENT_MEMORY_SECRETS",
        default_value = "block",
        value_parser = parse_secrets
    )]
    secrets: SecretPolicy,

    /// Label recorded with every change in history (which agent or session
    /// made it), e.g. claude-code/4f2a
    #[arg(long, global = true, value_name = "LABEL", env = "AGENT_MEMORY_SOURCE")]
    source: Option<String>,

    /// Which store read, write, search, history, undo, clear and edit act on:
    /// personal (this user's) or team (the project's team memory, see
    /// --team-dir). Tool calls take "scope" in their arguments instead
    #[arg(long, global = true, value_name = "SCOPE", default_value = "personal", value_parser = parse_scope)]
    scope: Scope,

    /// The review gate: the model's changes (call, mcp) wait in a queue
    /// until `agent-memory review` approves them. Bare --review (or
    /// AGENT_MEMORY_REVIEW=1) gates both stores; --review=personal or
    /// --review=team gates one
    #[arg(
        long,
        global = true,
        value_name = "SCOPE",
        env = "AGENT_MEMORY_REVIEW",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "1",
        value_parser = parse_review
    )]
    review: Option<Gate>,

    /// Semantic recall: on (when the weights file is found, see
    /// AGENT_MEMORY_WEIGHTS) or off (ranked search exactly lexical)
    #[arg(long, global = true, value_name = "ON|OFF", env = "AGENT_MEMORY_SEMANTIC", default_value = "on", value_parser = parse_on_off, action = clap::ArgAction::Set)]
    semantic: bool,

    #[command(subcommand)]
    command: Command,
}

/// The scopes `--review` gates.
#[derive(Debug, Clone)]
struct Gate(Vec<Scope>);

fn parse_review(text: &str) -> Result<Gate, String> {
    match text {
        "" | "0" => Ok(Gate(Vec::new())),
        "1" | "all" => Ok(Gate(vec![Scope::Personal, Scope::Team])),
        word => Scope::from_tool_word(word)
            .map(|s| Gate(vec![s]))
            .ok_or_else(|| format!("expected 1, 0, all, {}", Scope::tool_words())),
    }
}

fn parse_on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" | "1" | "true" => Ok(true),
        "off" | "0" | "false" => Ok(false),
        _ => Err("expected on or off".into()),
    }
}

fn parse_secrets(text: &str) -> Result<SecretPolicy, String> {
    SecretPolicy::from_tool_word(text)
        .ok_or_else(|| format!("expected {}", SecretPolicy::tool_words()))
}

fn parse_scope(text: &str) -> Result<Scope, String> {
    Scope::from_tool_word(text).ok_or_else(|| format!("expected {}", Scope::tool_words()))
}

fn parse_tool_set(text: &str) -> Result<ToolSet, String> {
    ToolSet::from_tool_word(text).ok_or_else(|| format!("expected {}", ToolSet::tool_words()))
}

fn parse_search_mode(text: &str) -> Result<SearchMode, String> {
    SearchMode::from_tool_word(text).ok_or_else(|| format!("expected {}", SearchMode::tool_words()))
}

#[derive(Debug, Subcommand)]
enum ReviewDecision {
    /// Apply a queued change (checked again)
    Approve {
        /// Its id (p12)
        #[arg(required_unless_present = "all")]
        id: Option<String>,
        /// Every queued change, oldest first
        #[arg(long, conflicts_with = "id")]
        all: bool,
    },
    /// Drop a queued change and its text
    Reject {
        /// Its id (p12)
        #[arg(required_unless_present = "all")]
        id: Option<String>,
        /// Every queued change
        #[arg(long, conflicts_with = "id")]
        all: bool,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ClearWhat {
    /// The project's scratchpad, daily logs and notes (team: its notes)
    Project,
    /// MEMORY.md
    #[value(name = "long_term", alias = "long-term")]
    LongTerm,
    /// Both
    All,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a tool call (memory_write, memory_read, memory_search, memory_edit,
    /// memory_delete, memory_rename, memory_history, memory_restore,
    /// memory_refresh, memory_batch, memory_consolidate, memory) and print
    /// the text the model would get
    Call {
        /// The tool's name
        tool: String,
        /// The JSON arguments object [default: read from stdin; `-` too]
        #[arg(allow_hyphen_values = true)]
        json: Option<String>,
    },
    /// Print the <memory> block for the system prompt; nothing when memory is empty
    Context,
    /// Print the tool definitions of a set as JSON
    Tools {
        /// Print the usage prompt for the system prompt instead
        #[arg(long)]
        prompt: bool,
        /// seed (memory_write, memory_read, memory_search), full (and
        /// memory_edit, memory_delete, memory_rename, memory_history,
        /// memory_restore, memory_refresh, memory_batch, memory_consolidate)
        /// or anthropic (memory)
        #[arg(long, value_name = "NAME", default_value = "full", value_parser = parse_tool_set)]
        set: ToolSet,
    },
    /// Show the root and which rule chose it, whether memory is on, the
    /// project, and its memory files
    Status,
    /// Embed the chunks of memory that have no vector yet (semantic
    /// recall; see docs/recall.md), with a progress line
    Index {
        /// Embed inside the sandboxed component, on one thread, as the
        /// Python and Node hosts do, instead of natively on every core
        #[arg(long)]
        in_component: bool,
    },
    /// The embedding model of semantic recall: install, status, remove
    Model {
        #[command(subcommand)]
        action: model::Action,
    },
    /// Search MEMORY.md, the project's notes, scratchpad and daily logs
    Search {
        /// Keywords, matched case-insensitively
        #[arg(required = true, value_name = "QUERY")]
        words: Vec<String>,
        /// Cap on the printed results in bytes [default: 32768]
        #[arg(long, value_name = "N")]
        max_bytes: Option<u32>,
        /// ranked (words, relevance, dates) or literal (the seeds' substring search)
        #[arg(long, value_name = "MODE", default_value = "ranked", value_parser = parse_search_mode)]
        mode: SearchMode,
    },
    /// Read a memory file, or list them
    Read {
        /// Which file, or `list` for all of them
        #[arg(value_name = "SOURCE")]
        what: verbs::Source,
        /// The note's name, or YYYY-MM-DD for a daily log (default today)
        name: Option<String>,
    },
    /// Store content in a memory file
    Write {
        /// Which file
        target: Target,
        /// The content [default: read from stdin; `-` too]
        #[arg(allow_hyphen_values = true)]
        content: Option<String>,
        /// The note's name (for `note`)
        #[arg(long)]
        name: Option<String>,
        /// Replace the file instead of appending
        #[arg(long)]
        overwrite: bool,
        /// Keep the first 64 KiB (the write cap) of longer content instead
        /// of refusing it
        #[arg(long)]
        truncate: bool,
    },
    /// Edit a memory file in $VISUAL / $EDITOR (default vi); saved only if changed
    Edit {
        /// Which file (`daily` is today's log)
        target: Target,
        /// The note's name (for `note`)
        name: Option<String>,
    },
    /// List the recorded versions of a memory file, newest first
    History {
        /// Which file [default: long_term]
        target: Option<Target>,
        /// The note's name, or YYYY-MM-DD for a daily log (default today)
        name: Option<String>,
        /// How many versions to list
        #[arg(long, value_name = "N", default_value_t = 20)]
        limit: u32,
    },
    /// Put back the version before the most recent change of this project
    /// (itself recorded: a second undo redoes)
    Undo,
    /// Put a memory file back to a recorded version (an id from `history`,
    /// like v13); a deleted note comes back. Recorded too, so `undo` takes
    /// it back
    Restore {
        /// The version id, e.g. v13
        version: String,
    },
    /// Delete a note (nested names too, e.g. ops/deploy); recorded, so
    /// `undo` or `restore` brings it back
    Delete {
        /// The note's name
        name: String,
    },
    /// Rename or move a note, e.g. to file it under a topic (deploy
    /// ops/deploy); the new name must be free
    Rename {
        /// The note's name
        name: String,
        /// Its new name
        new_name: String,
    },
    /// List the memory files this project sees, with their sizes
    List,
    /// List the model's changes waiting for review (with --review on), with
    /// their diffs and source; or decide them
    Review {
        #[command(subcommand)]
        decide: Option<ReviewDecision>,
    },
    /// Print the consolidation plan: what needs tidying, with instructions
    /// for the agent's model (the tool memory_consolidate, the MCP prompt
    /// consolidate)
    Dream,
    /// Remove memory files as one change that `undo` brings back; the team
    /// store only with --scope team
    Clear {
        /// What to remove
        #[arg(value_enum, default_value = "project")]
        what: ClearWhat,
        /// Do not ask
        #[arg(long)]
        yes: bool,
    },
    /// Report secrets already stored anywhere in the memory root, its names
    /// and its history (rule, file, version, line, a masked prefix); exit 1
    /// when any is found
    Scan {
        /// Redact every secret in every version saved in history, in place
        /// (version ids kept, the purge recorded); live files are not
        /// changed: edit them
        #[arg(long)]
        purge: bool,
    },
    /// Save a compaction summary to today's log
    FlushCompaction {
        /// The summary [default: read from stdin; `-` too]
        #[arg(allow_hyphen_values = true)]
        summary: Option<String>,
        /// How many messages were compacted
        #[arg(long, value_name = "N")]
        count: Option<u32>,
    },
    /// Copy this project's notes into <project>/.agent-memory/snapshot/ for
    /// teammates; `snapshot apply` applies the team's snapshot here
    ///
    /// A project whose personal memory is empty starts from the snapshot by itself (at its
    /// first context block); a newer snapshot is only reported there, never applied without
    /// `snapshot apply`. Both are recorded in history.
    Snapshot {
        #[command(subcommand)]
        action: Option<SnapshotAction>,
    },
    /// Serve the memory tools to an MCP client over stdio, or over HTTP with --http
    ///
    /// Also offers the context block as the resource memory://context and as the prompt
    /// `memory`. Configure it as a stdio server, e.g. `claude mcp add agent-memory --
    /// agent-memory mcp`, or run `agent-memory setup claude-code`.
    Mcp {
        /// Which tools to offer: seed, full or anthropic
        #[arg(long, value_name = "NAME", default_value = "full", value_parser = parse_tool_set)]
        tools: ToolSet,
        /// Serve over MCP's Streamable HTTP transport at /mcp instead of stdio; the
        /// first line printed is the URL and the `Authorization: Bearer` header to send
        #[arg(long)]
        http: bool,
        /// The port on 127.0.0.1; 0 picks a free one
        #[arg(long, value_name = "N", default_value_t = 0, requires = "http")]
        port: u16,
        /// Listen on this address instead of 127.0.0.1 (anyone who reaches it and has
        /// the token reads and changes your memory); needs --token-file
        #[arg(long, value_name = "ADDR", requires_all = ["http", "token_file"], conflicts_with = "port")]
        listen: Option<std::net::SocketAddr>,
        /// A file holding the token clients must send (at least 32 characters)
        #[arg(long, value_name = "PATH", requires = "http")]
        token_file: Option<PathBuf>,
    },
    /// Answer an agent's hook: the event's JSON on stdin, the agent's JSON on
    /// stdout (see docs/agents.md)
    ///
    /// The project is the event's cwd (its git root), the history source
    /// `<agent>/<session id>`. Memory off or empty: exit 0, nothing printed. A
    /// malformed event or a memory error: a message on stderr, exit 1 (a
    /// non-blocking error for the agent).
    Hook {
        /// The agent whose hook protocol to speak
        #[arg(value_enum)]
        agent: hook::Agent,
        /// The event it runs the hook for
        #[arg(value_enum)]
        event: hook::Event,
    },
    /// Wire the memory into an agent's own configuration: hooks and the MCP
    /// server for Claude Code, the MCP server for Codex, Cursor, VS Code and
    /// Gemini CLI (see docs/agents.md)
    ///
    /// Merged with what the files hold (other hooks and servers stay); a second run
    /// changes nothing; each changed file is backed up beside it
    /// (`<file>.agent-memory-backup`); `--remove` takes out exactly what setup adds.
    Setup {
        /// The agent
        #[arg(value_enum)]
        agent: setup::Agent,
        /// Your user's files, for every project (the default); `--project [DIR]`
        /// writes the project's files instead (shared with the team:
        /// .claude/settings.json and .mcp.json, .codex/config.toml,
        /// .cursor/mcp.json, .vscode/mcp.json, .gemini/settings.json), for DIR
        /// or the current directory's git root
        #[arg(long)]
        user: bool,
        /// Show the changes as a diff; write nothing
        #[arg(long)]
        dry_run: bool,
        /// Take out what setup added
        #[arg(long)]
        remove: bool,
    },
    /// Open the memory in a browser: the context block as injected, the notes of
    /// both scopes, search, editing, history and undo, the secret scan
    ///
    /// Serves on 127.0.0.1 only. The first line printed is the URL to open, with a
    /// random token; nothing is answered without it. Ctrl-C stops the server.
    Serve {
        /// The port to listen on; 0 picks a free one
        #[arg(long, value_name = "N", default_value_t = 0)]
        port: u16,
        /// Open the URL in the default browser too
        #[arg(long)]
        open: bool,
    },
    /// Bring memory in from another system, adding nothing twice
    ///
    /// Every file goes through the same name rules, secret guard and history as a write
    /// (history operation `import`), and the whole import is one change: `agent-memory
    /// undo` takes it all back. Hidden files, links, FIFOs, devices and files that are not
    /// Markdown are reported and skipped; a memory file that is refused (not UTF-8, over
    /// the write cap, a bad name or date, a secret) refuses the whole import, naming each,
    /// and nothing is written. Without --project, codescout and agents-md import into the
    /// project that holds the source, claude-code into the current directory's.
    Import {
        /// Print what would be imported, and what refused; write nothing
        /// (before or after the source kind)
        #[arg(long, global = true)]
        dry_run: bool,
        #[command(subcommand)]
        from: ImportFrom,
    },
    /// Write this project's memory in another system's layout
    Export {
        #[command(subcommand)]
        to: ExportTo,
    },
    /// A tour in a throwaway memory root: writes, the context block, a search, a tool call
    ///
    /// The root is <temp dir>/agent-memory-demo unless --root is given; a root from an
    /// earlier demo run (it holds a `.agent-memory-demo` file) is emptied first, any other
    /// non-empty directory is refused. The project is always /demo/my-app and --now
    /// defaults to 2026-05-30T09:15:00+02:00, so the output is the same on every run.
    Demo,
}

#[derive(Debug, Subcommand)]
enum ImportFrom {
    /// One project's Claude Code memory (~/.claude/projects/<project>/memory) into
    /// this project: MEMORY.md to the note memory-index (beside the topic notes it
    /// links to), each topic file to a note of its name, logs/YYYY/MM/YYYY-MM-DD.md
    /// to that day's log
    ClaudeCode {
        /// The memory directory
        dir: PathBuf,
        /// Merge MEMORY.md into the global MEMORY.md instead (new lines only),
        /// which every project's context shows
        #[arg(long)]
        global: bool,
    },
    /// codescout's memories: .codescout/memories (shared) to team scope,
    /// .codescout/private-memories to personal notes; topic paths kept
    Codescout {
        /// The project directory that holds .codescout/
        project_dir: PathBuf,
    },
    /// An AGENTS.md or CLAUDE.md file, to a note named after it (AGENTS, CLAUDE,
    /// CLAUDE-local)
    AgentsMd {
        /// The file
        file: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
enum ExportTo {
    /// Claude Code's layout: MEMORY.md, a topic file per note, logs/YYYY/MM/YYYY-MM-DD.md,
    /// SCRATCHPAD.md; existing files are never overwritten
    ClaudeCode {
        /// The directory to write (created if missing)
        out: PathBuf,
    },
}

/// What `snapshot` does besides taking one.
#[derive(Debug, Subcommand)]
enum SnapshotAction {
    /// Apply the team snapshot to this project's notes (each snapshot note
    /// overwrites the note of its name; recorded in history, so undoable)
    Apply,
}

/// A memory file people can write or edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Target {
    /// MEMORY.md, shared by every project
    #[value(name = "long_term", alias = "long-term")]
    LongTerm,
    /// The project's SCRATCHPAD.md
    Scratchpad,
    /// Today's log
    Daily,
    /// A note (needs a name)
    Note,
}

impl Target {
    fn write_target(self) -> WriteTarget {
        match self {
            Target::LongTerm => WriteTarget::LongTerm,
            Target::Scratchpad => WriteTarget::Scratchpad,
            Target::Daily => WriteTarget::Daily,
            Target::Note => WriteTarget::Note,
        }
    }

    fn read_source(self) -> ReadSource {
        match self {
            Target::LongTerm => ReadSource::LongTerm,
            Target::Scratchpad => ReadSource::Scratchpad,
            Target::Daily => ReadSource::Daily,
            Target::Note => ReadSource::Note,
        }
    }
}

/// A `--now` value; empty (e.g. `AGENT_MEMORY_NOW=`) means the system clock.
#[derive(Debug, Clone, Copy)]
struct Now(Option<DateTime<FixedOffset>>);

fn parse_now(text: &str) -> Result<Now, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Now(None));
    }
    DateTime::parse_from_rfc3339(text)
        .map(|now| Now(Some(now)))
        .map_err(|e| {
            format!("{e}; expected RFC 3339 with an offset, e.g. 2026-05-30T09:15:00+02:00")
        })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", errors::describe(&error));
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

fn run(mut cli: Cli) -> Result<()> {
    // `--project` with no DIR names the default project: for `setup`, the
    // project's files rather than the user's.
    let project_given = cli.project.is_some();
    cli.project = cli.project.filter(|dir| !dir.as_os_str().is_empty());
    // Setup edits the agents' files only: no component to load.
    if let Command::Setup {
        agent,
        user,
        dry_run,
        remove,
    } = cli.command
    {
        if user && project_given {
            bail!(
                "`setup` takes --user (your files, the default) or --project (the project's files), not both"
            );
        }
        let scope = if project_given {
            setup::Scope::Project
        } else {
            setup::Scope::User
        };
        let (project, _) = project_path(cli.project, None)?;
        let request = setup::Request {
            agent,
            scope,
            dry_run,
            remove,
            program: setup::program(scope),
        };
        return setup::run(&request, &setup::Places::from_env(project)?);
    }
    if let Command::Model { action } = cli.command {
        return model::run(action);
    }
    let runtime = Runtime::shared()?;
    let now = cli.now.and_then(|now| now.0);
    match cli.command {
        Command::Demo => demo(runtime, cli.root, now),
        Command::Tools { prompt: true, set } => print_text(&runtime.usage_prompt(set)?),
        Command::Tools { prompt: false, set } => print_tools(runtime, set),
        command => {
            // A relative --root is the shell user's, taken from the current
            // directory; AGENT_MEMORY_DIR and the config must be absolute.
            let explicit = match cli.root {
                Some(root)
                    if root.is_relative()
                        && !root.starts_with("~")
                        && !root.as_os_str().is_empty() =>
                {
                    Some(
                        std::env::current_dir()
                            .context("cannot read the current directory")?
                            .join(root),
                    )
                }
                other => other,
            };
            let choice = agent_memory::resolve_root(explicit)?;
            // A hook does nothing while memory is off, whatever its event.
            if choice.disabled.is_some() && matches!(command, Command::Hook { .. }) {
                hook::discard();
                return Ok(());
            }
            // A hook's event names the project (its cwd) and the session.
            let hook = match &command {
                Command::Hook { agent, event } => Some(hook::read(*agent, *event)?),
                _ => None,
            };
            // A source's own project, unless --project says otherwise.
            let source_dir = match &command {
                Command::Import {
                    from: ImportFrom::Codescout { project_dir },
                    ..
                } => Some(project_dir.clone()),
                Command::Import {
                    from: ImportFrom::AgentsMd { file },
                    ..
                } => Some(match file.parent() {
                    Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
                    _ => PathBuf::from("."),
                }),
                _ => hook.as_ref().map(|input| input.cwd.clone()),
            };
            let (project, files) = project_path(cli.project, source_dir)?;
            if let Some(disabled) = &choice.disabled {
                return match command {
                    // What an agent sees: no block, and a plain answer.
                    Command::Context => Ok(()),
                    Command::Call { .. } => print_text(&disabled.tool_reply()),
                    Command::Mcp {
                        tools,
                        http,
                        port,
                        listen,
                        token_file,
                    } => {
                        let backend = mcp::Backend::Disabled(runtime, disabled.clone());
                        if http {
                            let options = mcp::HttpOptions {
                                port,
                                listen,
                                token_file,
                                semantic: cli.semantic,
                            };
                            mcp::serve_http(backend, tools, options)
                        } else {
                            mcp::serve(backend, tools)
                        }
                    }
                    Command::Status => status_disabled(&choice, &project),
                    _ => bail!(
                        "memory is turned off ({}); nothing was done. Unset it (or set {}=0) to use memory",
                        disabled.reason(),
                        agent_memory::ENV_DISABLE
                    ),
                };
            }
            // A read-only command never creates a root: a mistyped --root
            // is said, not made.
            let new_root = !choice.root.exists();
            // A project with a team snapshot starts from it at its first
            // context block, which makes the root.
            let snapshot = cli
                .team_dir
                .clone()
                .unwrap_or_else(|| OpenOptions::team_dir_of(&project))
                .join("snapshot")
                .is_dir();
            if new_root && let Some(done) = verbs::missing_root(&command, &choice, snapshot) {
                return done;
            }
            // Status and an import's dry run on a missing root see an empty
            // stand-in, which is what the root would start as.
            let stand_in = match command {
                Command::Status | Command::Import { dry_run: true, .. } if new_root => {
                    eprintln!("{}", verbs::no_root_text(&choice.root));
                    Some(
                        tempfile::tempdir()
                            .context("cannot make a stand-in root for the dry run")?,
                    )
                }
                _ => None,
            };
            let store_root = stand_in
                .as_ref()
                .map_or(choice.root.as_path(), |d| d.path());
            let mut options = OpenOptions::new(store_root, &project)
                .inherit_stderr(true)
                .secret_policy(cli.secrets);
            if let Some(now) = now {
                options = options.now(now);
            }
            if let Some(source) = cli
                .source
                .or_else(|| hook.as_ref().map(hook::Input::source_label))
            {
                options = options.source(source);
            }
            if let Some(Gate(review)) = &cli.review {
                options = options.review(review);
            }
            let team = cli.team_dir.or_else(|| {
                let dir = OpenOptions::team_dir_of(options.project());
                // Taking a snapshot or importing codescout's shared
                // memories creates the team directory.
                let creates = matches!(
                    command,
                    Command::Snapshot { .. }
                        | Command::Import {
                            from: ImportFrom::Codescout { .. },
                            ..
                        }
                );
                (team_dir_present(&dir) || creates).then_some(dir)
            });
            if let Some(team) = team {
                options = options.team_dir(team);
            }
            if cli.scope == Scope::Team {
                // The other commands see both stores already (context,
                // scan, snapshot) or choose per call (call, mcp): a team
                // scope there would silently change what they mean.
                if !matches!(
                    command,
                    Command::Read { .. }
                        | Command::Write { .. }
                        | Command::Search { .. }
                        | Command::History { .. }
                        | Command::Undo
                        | Command::Clear { .. }
                        | Command::Edit { .. }
                        | Command::Restore { .. }
                        | Command::Delete { .. }
                        | Command::Rename { .. }
                        | Command::List
                ) {
                    // Bad usage, exit 2, as clap's own refusals.
                    <Cli as clap::CommandFactory>::command()
                        .error(
                            clap::error::ErrorKind::ArgumentConflict,
                            "--scope team applies to read, write, search, history, undo, clear, edit, restore, delete, rename and list; drop it here (tool calls take \"scope\":\"team\" in their arguments)",
                        )
                        .exit();
                }
                if options.team_directory().is_none() {
                    bail!(
                        "--scope team needs the project's team memory: create {} (or run `agent-memory snapshot`), or pass --team-dir DIR",
                        OpenOptions::team_dir_of(options.project()).display()
                    );
                }
                options = options.scope(Scope::Team);
            }
            let options = match command {
                // A person edits whole files: no caps meant for a model's
                // context. An export copies files whole.
                Command::Edit { .. } | Command::Export { .. } | Command::Serve { .. } => {
                    options.max_read_bytes(u32::MAX).max_write_bytes(u32::MAX)
                }
                _ => options,
            };
            // Staleness marks are rendered into what `read` returns, never
            // stored: `edit` opens, `export` copies and the dashboard reads a
            // file's own text through a memory that does not see the
            // project's files. `edit` and the dashboard save through one
            // that does, which re-anchors the note (a write means it is
            // current).
            // A person reads what these commands print: actions named as
            // commands. Tool calls, the MCP server, the dashboard and the
            // text meant for the agent's model (the context block, a hook's
            // answer) keep the model's words.
            let options = match command {
                Command::Call { .. }
                | Command::Mcp { .. }
                | Command::Hook { .. }
                | Command::Serve { .. }
                | Command::Context
                | Command::Dream => options,
                _ => options.audience(Audience::Person),
            };
            let unmarked = options.clone();
            let options = match files {
                Some(files) if !matches!(command, Command::Export { .. }) => {
                    options.project_dir(files)
                }
                _ => options,
            };
            if let Command::Serve { port, open } = command {
                let status = serve::Status::new(&choice, cli.secrets);
                return serve::run(runtime, options, unmarked, status, port, open);
            }
            errors::name_root(&choice.root);
            let mut memory = runtime.open(options)?;
            if let Some(input) = &hook {
                return hook::respond(&mut memory, input);
            }
            // Loading the model is most of a search process's time: only
            // the commands that search (and status, which reports it, and
            // write, whose notice embeds a few lines natively) pay for it,
            // and a one-shot search only when its words are weak evidence
            // (recall::search_call).
            let mut deferred = false;
            match &command {
                Command::Search {
                    max_bytes: None, ..
                } => deferred = recall::setup_deferred(&mut memory, cli.semantic)?,
                Command::Call { tool, .. } if tool == "memory_search" => {
                    deferred = recall::setup_deferred(&mut memory, cli.semantic)?;
                }
                Command::Status => recall::setup_for_status(&mut memory, cli.semantic)?,
                Command::Write { .. } | Command::Dream => {
                    recall::setup_for_write(&mut memory, cli.semantic)?
                }
                Command::Search { .. } | Command::Index { .. } | Command::Mcp { .. } => {
                    recall::setup(&mut memory, cli.semantic)?
                }
                _ => {}
            }
            let done = match command {
                Command::Index { in_component } => recall::index(&mut memory, in_component),
                Command::Mcp {
                    tools,
                    http,
                    port,
                    listen,
                    token_file,
                } => {
                    let backend = mcp::Backend::Memory(Box::new(memory));
                    if http {
                        let options = mcp::HttpOptions {
                            port,
                            listen,
                            token_file,
                            semantic: cli.semantic,
                        };
                        mcp::serve_http(backend, tools, options)
                    } else {
                        mcp::serve(backend, tools)
                    }
                }
                Command::Status => status(&mut memory, &choice),
                Command::Import { dry_run, from } => {
                    // The team store, when there is one, takes codescout's
                    // shared memories.
                    let mut team = match memory.options().team_directory() {
                        Some(_) => Some(runtime.open(memory.options().clone().scope(Scope::Team))?),
                        None => None,
                    };
                    import(&mut memory, team.as_mut(), from, dry_run)
                }
                Command::Export {
                    to: ExportTo::ClaudeCode { out },
                } => travel::export(&mut memory, &out),
                Command::Edit { target, name } => {
                    let mut unmarked = runtime.open(unmarked)?;
                    edit(&mut memory, &mut unmarked, target, name)
                }
                command => run_on(&mut memory, command, cli.scope, deferred),
            };
            if new_root && done.is_ok() {
                verbs::created_root(&choice.root);
            }
            done
        }
    }
}

/// Whether a project's team directory is there to hand to the memory: a
/// folder, or a link there, which is handed on too, not followed: opening
/// refuses it, naming it, rather than the memory silently going without the
/// team's notes or writing where it points.
fn team_dir_present(dir: &Path) -> bool {
    fs::symlink_metadata(dir).is_ok_and(|meta| meta.is_dir() || meta.file_type().is_symlink())
}

/// The project path: `--project` as given (canonical when it exists), else
/// the git root of the directory an import reads from, else of the current
/// directory; and the directory whose files staleness anchors hash
/// (read-only): `--project` when it is a directory, else the checkout at
/// hand, which for a linked worktree is the worktree itself.
fn project_path(
    project: Option<PathBuf>,
    source_dir: Option<PathBuf>,
) -> Result<(PathBuf, Option<PathBuf>)> {
    Ok(match (project, source_dir) {
        (Some(project), _) => {
            let project = fs::canonicalize(&project).unwrap_or(project);
            let files = project.is_dir().then(|| project.clone());
            (project, files)
        }
        (None, Some(dir)) => {
            let files = Some(agent_memory::detect_checkout(&dir));
            (agent_memory::detect_project(dir), files)
        }
        (None, None) => {
            let cwd = std::env::current_dir().context("cannot read the current directory")?;
            let files = Some(agent_memory::detect_checkout(&cwd));
            (agent_memory::detect_project(cwd), files)
        }
    })
}

fn import(
    memory: &mut Memory,
    team: Option<&mut Memory>,
    from: ImportFrom,
    dry_run: bool,
) -> Result<()> {
    let max = u64::from(memory.limits()?.max_write_bytes);
    let (format, path) = match from {
        ImportFrom::ClaudeCode { dir, global } => (travel::Format::ClaudeCode { global }, dir),
        ImportFrom::Codescout { project_dir } => (travel::Format::Codescout, project_dir),
        ImportFrom::AgentsMd { file } => (travel::Format::AgentsMd, file),
    };
    let entries = travel::plan(format, &path, max)?;
    travel::run(memory, team, entries, dry_run)
}

/// `agent-memory review`: list the queue, or decide one or all of it.
fn review(memory: &mut Memory, decide: Option<ReviewDecision>) -> Result<()> {
    let pending = memory.pending_changes()?;
    let (approve, id, all) = match decide {
        None => {
            if pending.is_empty() {
                return print_text("Nothing waits for review.");
            }
            let mut out = String::new();
            for p in &pending {
                let when = local_time_text(p.time_unix, p.utc_offset_minutes);
                out.push_str(&format!(
                    "{}  {when}  {}  {} scope  by {}\n{}  arguments: {}\n",
                    p.id,
                    p.tool,
                    p.scope.tool_word(),
                    if p.source.is_empty() {
                        "(no source)"
                    } else {
                        &p.source
                    },
                    p.diff,
                    p.arguments
                ));
                out.push('\n');
            }
            out.push_str("Decide with `agent-memory review approve ID` or `review reject ID` (--all for every one).");
            return print_text(&out);
        }
        Some(ReviewDecision::Approve { id, all }) => (true, id, all),
        Some(ReviewDecision::Reject { id, all }) => (false, id, all),
    };
    let ids: Vec<String> = match (id, all) {
        (Some(id), _) => vec![id],
        (None, _) => pending.into_iter().map(|p| p.id).collect(),
    };
    if ids.is_empty() {
        return print_text("Nothing waits for review.");
    }
    for id in ids {
        let text = if approve {
            memory.approve(&id)?
        } else {
            memory.reject(&id)?
        };
        print_text(&format!("{id}: {text}"))?;
    }
    Ok(())
}

/// `2026-05-30 09:15 +02:00` for a Unix time and offset.
fn local_time_text(unix: i64, offset_minutes: i32) -> String {
    match chrono::FixedOffset::east_opt(offset_minutes * 60)
        .and_then(|o| chrono::DateTime::from_timestamp(unix, 0).map(|t| t.with_timezone(&o)))
    {
        Some(t) => t.format("%Y-%m-%d %H:%M %:z").to_string(),
        None => unix.to_string(),
    }
}

/// Ask on stderr, read a line from stdin: `true` for y or yes.
fn confirm(question: &str) -> Result<bool> {
    use std::io::Write as _;
    eprint!("{question}");
    std::io::stderr().flush().ok();
    let mut answer = String::new();
    std::io::stdin()
        .read_line(&mut answer)
        .context("cannot read the answer from stdin")?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// Run `command`; `scope` is `--scope`, which the typed methods already
/// follow (the memory was opened with it) and tool calls take as an
/// argument.
/// `deferred`: the embedding model is not loaded yet, and a search loads
/// it only when its words are weak evidence.
fn run_on(memory: &mut Memory, command: Command, scope: Scope, deferred: bool) -> Result<()> {
    let scoped = |mut arguments: serde_json::Value| {
        if scope == Scope::Team {
            arguments["scope"] = scope.tool_word().into();
        }
        arguments.to_string()
    };
    match command {
        Command::Call { tool, json } => {
            let json = arg_or_stdin(json, "the JSON arguments")?;
            if tool == "memory_search" {
                return print_text(&recall::search_call(memory, deferred, &json)?);
            }
            print_text(&memory.call_tool(&tool, &json)?)
        }
        Command::Context => match memory.context_block()? {
            Some(block) => print_text(&block),
            None => Ok(()),
        },
        Command::Search {
            words,
            max_bytes,
            mode,
        } => {
            let query = words.join(" ");
            let text = match max_bytes {
                // The tool renders inside the component: no hit bodies cross
                // into the host and back.
                None => {
                    let arguments =
                        scoped(serde_json::json!({ "query": query, "mode": mode.tool_word() }));
                    recall::search_call(memory, deferred, &arguments)?
                }
                Some(max) => {
                    let results = memory.search_with(&query, mode)?;
                    memory.render_search(&results, Some(max))?
                }
            };
            print_text(&text)?;
            recall::tell_why_off(memory, &text)
        }
        Command::Read { what, name } => {
            let mut arguments = serde_json::Map::new();
            arguments.insert("source".into(), what.tool_word().into());
            if let Some(name) = name {
                arguments.insert("name".into(), name.into());
            }
            let arguments = scoped(serde_json::Value::Object(arguments));
            print_text(&memory.call_tool("memory_read", &arguments)?)
        }
        Command::Write {
            target,
            content,
            name,
            overwrite,
            truncate,
        } => {
            let content = arg_or_stdin(content, "the content")?;
            if !truncate {
                verbs::refuse_over_cap(memory, &content)?;
            }
            let mode = if overwrite {
                WriteMode::Overwrite
            } else {
                WriteMode::Append
            };
            let receipt = memory.write(target.write_target(), &content, mode, name.as_deref())?;
            print_text(&receipt.message)
        }
        Command::History {
            target,
            name,
            limit,
        } => {
            let arguments = serde_json::json!({
                "target": target.unwrap_or(Target::LongTerm).write_target().tool_word(),
                "name": name,
                "limit": limit,
            });
            print_text(&memory.call_tool("memory_history", &scoped(arguments))?)
        }
        Command::Undo => match memory.undo(None)? {
            None => print_text("Nothing to undo: no change is recorded for this project."),
            Some(receipt) => print_text(&receipt.message),
        },
        Command::Review { decide } => review(memory, decide),
        Command::Restore { version } => print_text(&memory.restore(&version)?.message),
        Command::Delete { name } => print_text(&memory.delete_note(&name)?.message),
        Command::Rename { name, new_name } => {
            print_text(&memory.rename_note(&name, &new_name)?.message)
        }
        Command::List => print_text(&memory.call_tool(
            "memory_read",
            &scoped(serde_json::json!({ "source": "list" })),
        )?),
        Command::Dream => print_text(&memory.consolidation_plan()?),
        Command::Clear { what, yes } => {
            let target = match what {
                ClearWhat::Project => ClearTarget::Project,
                ClearWhat::LongTerm => ClearTarget::LongTerm,
                ClearWhat::All => ClearTarget::All,
            };
            if !yes
                && !confirm(&format!(
                    "Clear {} of {} ({})? `agent-memory undo` brings it back. [y/N] ",
                    match what {
                        ClearWhat::Project => "this project's scratchpad, logs and notes",
                        ClearWhat::LongTerm => "MEMORY.md",
                        ClearWhat::All => "MEMORY.md and this project's files",
                    },
                    if scope == Scope::Team {
                        "the team memory"
                    } else {
                        "your memory"
                    },
                    memory.project_dir()
                ))?
            {
                bail!("nothing was cleared: not confirmed (pass --yes to skip the question)");
            }
            print_text(&memory.clear(target)?.message)
        }
        Command::Scan { purge } => {
            if purge {
                let done = memory.purge_secrets()?;
                let left = memory.scan_secrets()?;
                let mut out = if done.versions == 0 {
                    "No saved version held a secret: history is unchanged.".to_string()
                } else {
                    format!(
                        "Purged {} secret(s) from {} saved version(s) in place (ids kept); no byte of them is left in history.",
                        done.secrets, done.versions
                    )
                };
                if left.is_empty() {
                    return print_text(&out);
                }
                out.push('\n');
                out.push_str(&scan_lines(&left));
                out.push_str(&format!(
                    "{} secret(s) remain in live files or names, which a purge does not change: remove them with `agent-memory edit` (or rename the note), then run `agent-memory scan --purge` again",
                    left.len()
                ));
                print_text(&out)?;
                process::exit(1);
            }
            let found = memory.scan_secrets()?;
            if found.is_empty() {
                return print_text("No secrets found.");
            }
            let mut out = scan_lines(&found);
            out.push_str(&format!(
                "{} secret(s) found; remove them from the live files with `agent-memory edit` (from names: rename the note), then run `agent-memory scan --purge` to redact them in saved versions",
                found.len()
            ));
            print_text(&out)?;
            process::exit(1);
        }
        Command::FlushCompaction { summary, count } => {
            let summary = arg_or_stdin(summary, "the summary")?;
            print_text(&memory.flush_compaction(&summary, count)?.message)
        }
        Command::Snapshot { action: None } => print_text(&memory.take_snapshot()?.message),
        Command::Snapshot {
            action: Some(SnapshotAction::Apply),
        } => print_text(&memory.apply_snapshot()?.message),
        Command::Demo
        | Command::Model { .. }
        | Command::Tools { .. }
        | Command::Mcp { .. }
        | Command::Status
        | Command::Index { .. }
        | Command::Import { .. }
        | Command::Export { .. }
        | Command::Edit { .. }
        | Command::Hook { .. }
        | Command::Setup { .. }
        | Command::Serve { .. } => {
            unreachable!("handled before or right after opening a memory")
        }
    }
}

/// One line per secret found by a scan: `path:line: rule (masked)`, the
/// path as `path@v12` for a saved version, and `path (name): rule (masked)`
/// for a secret in a name.
fn scan_lines(found: &[agent_memory::StoredSecret]) -> String {
    let mut out = String::new();
    for f in found {
        let at = match &f.version {
            Some(v) => format!("{}@{v}", f.path),
            None => f.path.clone(),
        };
        if f.line == 0 {
            out.push_str(&format!("{at} (name): {} ({})\n", f.rule_id, f.masked));
        } else {
            out.push_str(&format!("{at}:{}: {} ({})\n", f.line, f.rule_id, f.masked));
        }
    }
    out
}

/// The argument, or standard input when it is absent or `-`.
fn arg_or_stdin(arg: Option<String>, what: &str) -> Result<String> {
    match arg {
        Some(arg) if arg != "-" => Ok(arg),
        _ => {
            let mut text = String::new();
            io::stdin()
                .read_to_string(&mut text)
                .with_context(|| format!("cannot read {what} from stdin"))?;
            Ok(text)
        }
    }
}

/// Prints `text`, adding a final newline when it lacks one.
fn print_text(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

fn print_tools(runtime: &Runtime, set: ToolSet) -> Result<()> {
    #[derive(serde::Serialize)]
    struct Tool {
        name: String,
        description: String,
        parameters: serde_json::Value,
    }
    let tools = runtime
        .tool_definitions(set)?
        .into_iter()
        .map(|tool| {
            let parameters = serde_json::from_str(&tool.parameters_schema)
                .with_context(|| format!("the schema of `{}` is not valid JSON", tool.name))?;
            Ok(Tool {
                name: tool.name,
                description: tool.description,
                parameters,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    print_text(&serde_json::to_string_pretty(&tools)?)
}

/// Where the root came from, for `status`.
fn rule_text(choice: &RootChoice) -> String {
    match choice.rule {
        RootRule::Explicit => "--root".into(),
        RootRule::Env => agent_memory::ENV_DIR.into(),
        RootRule::Config => match &choice.config_file {
            Some(file) => format!("\"root\" in {}", file.display()),
            None => "the config file".into(),
        },
        RootRule::Default => "the platform data directory".into(),
    }
}

/// The head of `status`: root, rule, config, on/off, project, store size.
fn status_head(choice: &RootChoice, project: &Path) -> String {
    let mut out = String::new();
    out.push_str(&format!("root:     {}\n", choice.root.display()));
    out.push_str(&format!("  chosen by {}\n", rule_text(choice)));
    match &choice.config_file {
        Some(file) => out.push_str(&format!("config:   {}\n", file.display())),
        None => out.push_str("config:   none\n"),
    }
    match &choice.disabled {
        Some(disabled) => out.push_str(&format!("memory:   off ({})\n", disabled.reason())),
        None => out.push_str("memory:   on\n"),
    }
    out.push_str(&format!("project:  {}\n", project.display()));
    let (files, bytes) = store_size(&choice.root);
    out.push_str(&format!(
        "store:    {files} memory files, {bytes} bytes (every project)\n"
    ));
    if let Ok(places) = setup::Places::from_env(project.to_path_buf()) {
        out.push_str("agents:\n");
        out.push_str(&setup::status_lines(&places));
    }
    out
}

/// `.md` files and their bytes under `root`, not counting the store's own
/// hidden files; links are not followed.
fn store_size(root: &Path) -> (u64, u64) {
    let (mut files, mut bytes) = (0, 0);
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(listing) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in listing.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            // `DirEntry::metadata` does not follow links.
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() && depth < 16 {
                stack.push((entry.path(), depth + 1));
            } else if meta.is_file() && name.ends_with(".md") {
                files += 1;
                bytes += meta.len();
            }
        }
    }
    (files, bytes)
}

fn status_disabled(choice: &RootChoice, project: &Path) -> Result<()> {
    let mut out = status_head(choice, project);
    out.push_str("context:  none (memory is off)\n");
    print_text(&out)
}

fn status(memory: &mut Memory, choice: &RootChoice) -> Result<()> {
    let files = memory.list_files()?;
    let block = memory.context_block()?;
    let mut out = status_head(choice, memory.project());
    out.push_str(&format!("slug:     {}\n", memory.project_slug()));
    out.push_str(&format!("today:    {}\n", memory.today()));
    match memory.options().team_directory() {
        Some(team) => out.push_str(&format!("team:     {}\n", team.display())),
        None => out.push_str("team:     none (no .agent-memory folder in the project)\n"),
    }
    if files.is_empty() {
        out.push_str("files:    (none)\n");
    } else {
        let bytes: u64 = files.iter().map(|f| f.bytes).sum();
        out.push_str(&format!(
            "files:    {} of this project, {bytes} bytes\n",
            files.len()
        ));
        let width = files.iter().map(|f| f.path.len()).max().unwrap_or(0);
        for file in &files {
            out.push_str(&format!(
                "  {:<width$}  {:>8} bytes\n",
                file.path, file.bytes
            ));
            for mark in &file.stale {
                out.push_str(&format!("    {mark}\n"));
            }
        }
    }
    match block {
        Some(block) => out.push_str(&format!("context:  {} bytes\n", block.len())),
        None => out.push_str("context:  none (nothing to inject)\n"),
    }
    out.push_str(&format!("{}\n", memory.semantic_status()?.line()));
    print_text(&out)
}

/// Edits a copy in a temp file; the memory file changes only through one
/// atomic overwrite, after the editor exited and only if the text changed.
/// `unmarked` reads the file's own text, without staleness marks (it does
/// not see the project's files); `memory` saves it.
fn edit(
    memory: &mut Memory,
    unmarked: &mut Memory,
    target: Target,
    name: Option<String>,
) -> Result<()> {
    if let (Target::Daily, Some(day)) = (target, &name)
        && day != memory.today()
    {
        bail!(
            "`edit daily` edits today's log ({}), not `{day}`",
            memory.today()
        );
    }
    let name = name.as_deref();
    let original = unmarked
        .read(target.read_source(), name)?
        .unwrap_or_default();

    let mut copy = tempfile::Builder::new()
        .prefix("agent-memory-")
        .suffix(".md")
        .tempfile()
        .context("cannot create a temporary file to edit")?;
    copy.write_all(original.as_bytes())
        .and_then(|()| copy.flush())
        .with_context(|| format!("cannot write `{}`", copy.path().display()))?;
    // Close our handle (editors may replace the file), keep the path until we are done.
    let copy = copy.into_temp_path();

    run_editor(&copy)?;

    let edited = fs::read(&copy).with_context(|| format!("cannot read `{}`", copy.display()))?;
    let edited = String::from_utf8(edited)
        .map_err(|_| anyhow::anyhow!("the edited text is not valid UTF-8; nothing was written"))?;
    if edited == original {
        return print_text("No changes; nothing was written.");
    }
    // Someone (an agent, another editor) may have changed the file while the
    // editor was open: the library writes only if it still holds `original`.
    let base = agent_memory::base_sha256(&original);
    match memory.write_if_unchanged(target.write_target(), &edited, name, &base) {
        Ok(receipt) => print_text(&receipt.message),
        Err(agent_memory::Error::Memory(e)) if e.kind() == agent_memory::ErrorKind::Conflict => {
            let recovery = keep_edit(target, &edited)?;
            bail!(
                "the file changed while the editor was open; nothing was written. Your edited text is kept in `{}` (readable only by you): run `agent-memory edit` again and merge it in",
                recovery.display()
            );
        }
        Err(e) => Err(e.into()),
    }
}

/// Keeps an edit that could not be saved in a new file of the temp
/// directory, created exclusively under a random name and readable only by
/// the user (mode 0600 on Unix): it holds memory text, and a name anyone
/// can guess in a shared directory could be planted (a link to another
/// file) or read. Returns its path.
fn keep_edit(target: Target, edited: &str) -> Result<PathBuf> {
    let mut file = tempfile::Builder::new()
        .prefix(&format!(
            "agent-memory-edit-{}-{}-",
            target.write_target().tool_word(),
            chrono::Local::now().format("%Y%m%dT%H%M%S")
        ))
        .suffix(".md")
        .tempfile()
        .context("cannot create a file to keep your edit in")?;
    file.write_all(edited.as_bytes())
        .and_then(|()| file.as_file().sync_all())
        .with_context(|| format!("cannot keep your edit in `{}`", file.path().display()))?;
    let (_, path) = file
        .keep()
        .map_err(|e| e.error)
        .context("cannot keep your edit")?;
    Ok(path)
}

fn run_editor(path: &Path) -> Result<()> {
    let editor = ["VISUAL", "EDITOR"]
        .into_iter()
        .filter_map(std::env::var_os)
        .find(|value| !value.is_empty())
        .unwrap_or_else(|| OsString::from("vi"));
    // Through the shell, so EDITOR may carry arguments (`code --wait`).
    let mut script = editor.clone();
    script.push(r#" "$@""#);
    let status = process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .arg("sh")
        .arg(path)
        .status()
        .with_context(|| format!("cannot run the editor `{}`", editor.to_string_lossy()))?;
    if !status.success() {
        bail!(
            "the editor `{}` failed ({status}); nothing was written",
            editor.to_string_lossy()
        );
    }
    Ok(())
}

fn demo(
    runtime: &Runtime,
    root: Option<PathBuf>,
    now: Option<DateTime<FixedOffset>>,
) -> Result<()> {
    let root = root.unwrap_or_else(|| std::env::temp_dir().join("agent-memory-demo"));
    prepare_demo_root(&root)?;
    let now = match now {
        Some(now) => now,
        None => DateTime::parse_from_rfc3339(DEMO_NOW)?,
    };
    let options = |now| OpenOptions::new(&root, DEMO_PROJECT).now(now);
    let mut memory = runtime.open(options(now))?;
    let mut yesterday = runtime.open(options(now - TimeDelta::days(1)))?;

    let mut out = io::stdout().lock();
    writeln!(out, "agent-memory demo")?;
    writeln!(out, "  root:    {}", memory.root().display())?;
    writeln!(
        out,
        "  project: {DEMO_PROJECT} (slug {})",
        memory.project_slug()
    )?;
    writeln!(out, "  now:     {}", now.to_rfc3339())?;

    let step = |out: &mut io::StdoutLock, title: &str| writeln!(out, "\n== {title} ==");

    step(
        &mut out,
        "1. A long-term fact, shared by every project (write long_term)",
    )?;
    let receipt = memory.write(
        WriteTarget::LongTerm,
        "- Deploys: `make deploy-staging`, then tag a release for production.\n\
         - The user prefers small, reviewed pull requests.",
        WriteMode::Append,
        None,
    )?;
    writeln!(out, "{}", receipt.message)?;

    step(
        &mut out,
        "2. The project's scratchpad: one open item, one done (write scratchpad)",
    )?;
    let receipt = memory.write(
        WriteTarget::Scratchpad,
        "- [ ] Fix the flaky login test on staging\n- [x] Upgrade to Rust 1.95",
        WriteMode::Append,
        None,
    )?;
    writeln!(out, "{}", receipt.message)?;

    step(
        &mut out,
        "3. Yesterday's log (append-daily, clock one day back)",
    )?;
    let receipt =
        yesterday.append_daily("deploy", "Deployed v1.4.2 to staging; smoke tests green.")?;
    writeln!(out, "{}", receipt.message)?;

    step(&mut out, "4. Today's log (append-daily)")?;
    let receipt = memory.append_daily(
        "login test",
        "The login test flakes when the staging database is cold; added a retry.",
    )?;
    writeln!(out, "{}", receipt.message)?;

    step(
        &mut out,
        "5. A reference note, never injected (write note --name deployment)",
    )?;
    let receipt = memory.write(
        WriteTarget::Note,
        "# Deployment\n\nStaging: `make deploy-staging` from main.\n\
         Production: push a `v*` tag; CI deploys after approval.",
        WriteMode::Append,
        Some("deployment"),
    )?;
    writeln!(out, "{}", receipt.message)?;

    step(
        &mut out,
        "6. The context block for the system prompt (context)",
    )?;
    let block = memory.context_block()?.unwrap_or_default();
    writeln!(out, "{block}")?;

    step(&mut out, "7. A search (search deploy staging)")?;
    let results = memory.search("deploy staging")?;
    let rendered = memory.render_search(&results, None)?;
    writeln!(out, "{}", rendered.trim_end())?;

    step(
        &mut out,
        r#"8. The tool-call path (call memory_read '{"source":"list"}')"#,
    )?;
    let listing = memory.call_tool("memory_read", r#"{"source":"list"}"#)?;
    writeln!(out, "{}", listing.trim_end())?;

    step(
        &mut out,
        "9. A correction, its history, and an undo (memory_edit, memory_history, undo)",
    )?;
    let edited = memory.call_tool(
        "memory_edit",
        r#"{"target":"note","name":"deployment","old_text":"CI deploys after approval","new_text":"CI deploys at once"}"#,
    )?;
    writeln!(out, "{}", edited.trim_end())?;
    let history = memory.call_tool("memory_history", r#"{"target":"note","name":"deployment"}"#)?;
    writeln!(out, "{}", history.trim_end())?;
    if let Some(undone) = memory.undo(None)? {
        writeln!(out, "{}", undone.message)?;
    }

    step(&mut out, "10. A secret is refused, never stored")?;
    let refused = memory.write(
        WriteTarget::Note,
        "deploy token: ghp_Q3vN8xT2mL5pR9wK4yH7jD1sF6gB0cZ8aE3u",
        WriteMode::Append,
        Some("deployment"),
    );
    match refused {
        Err(agent_memory::Error::Memory(e)) => writeln!(out, "{}: {}", e.kind(), e.message())?,
        other => writeln!(out, "unexpected: {other:?}")?,
    }

    writeln!(
        out,
        "\nThe files are plain Markdown in {}; the next `demo` run starts over.",
        memory.root().display()
    )?;
    out.flush()?;
    Ok(())
}

/// Makes `root` an empty demo directory: creates it, or empties it when it is
/// one from an earlier run (it holds the marker file). Anything else is left
/// alone.
fn prepare_demo_root(root: &Path) -> Result<()> {
    let marker = root.join(DEMO_MARKER);
    if marker.is_file() {
        for entry in
            fs::read_dir(root).with_context(|| format!("cannot list `{}`", root.display()))?
        {
            let path = entry?.path();
            let is_dir = fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_dir());
            let removed = if is_dir {
                fs::remove_dir_all(&path)
            } else {
                fs::remove_file(&path)
            };
            removed.with_context(|| format!("cannot remove `{}`", path.display()))?;
        }
    } else if root.exists() {
        let empty = root.is_dir()
            && fs::read_dir(root)
                .with_context(|| format!("cannot list `{}`", root.display()))?
                .next()
                .is_none();
        if !empty {
            bail!(
                "`{}` exists and is not a demo directory (it has no `{DEMO_MARKER}` file); \
                 not touching it: pick another --root",
                root.display()
            );
        }
    } else {
        fs::create_dir_all(root).with_context(|| format!("cannot create `{}`", root.display()))?;
    }
    fs::write(
        &marker,
        "Made by `agent-memory demo`: the next demo run deletes everything in this directory.\n",
    )
    .with_context(|| format!("cannot write `{}`", marker.display()))?;
    Ok(())
}
