//! `agent-memory hook <agent> <event>`: the memory in an agent's own hook
//! protocol. The agent runs the command with the event's JSON on stdin and
//! reads the agent's JSON from stdout; errors go to stderr.
//!
//! - The project is the event's `cwd`, resolved as the CLI resolves the
//!   current directory (its git root); the history source label is
//!   `<agent>/<session id>`. `--project` and `--source` still win.
//! - Memory turned off, an empty memory, an empty summary: exit 0 with
//!   nothing on stdout, so a session never breaks because of memory.
//! - A malformed event or a memory error: a message on stderr and exit 1,
//!   which Claude Code treats as a non-blocking error (the session goes on;
//!   the message shows in its verbose mode). Exit 2 would be its blocking
//!   code, never used here.
//!
//! Claude Code (hooks reference, code.claude.com/docs/en/hooks; see
//! docs/agents.md for the version followed):
//! - `session-start` answers `SessionStart` (sources `startup`, `resume`,
//!   `clear`, `compact`, all alike: each starts a context that lacks the
//!   memory) with the context block as `hookSpecificOutput.additionalContext`.
//! - `post-compact` saves `PostCompact`'s `compact_summary` to today's log
//!   through `flush-compaction`, a change like any other (guarded by the
//!   secret policy, recorded in history).

use std::io::{self, Read as _};
use std::path::PathBuf;

use agent_memory::Memory;
use anyhow::{Context as _, Result, bail};
use clap::ValueEnum;

/// The largest event read from stdin: a compaction summary is some tens of
/// kilobytes; anything past this is not an event.
const MAX_EVENT_BYTES: u64 = 4 << 20;

/// An agent whose hook protocol this command speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Agent {
    /// Claude Code: SessionStart and PostCompact hooks
    ClaudeCode,
}

impl Agent {
    /// The agent's name in source labels and messages.
    pub fn word(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
        }
    }
}

/// A hook event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Event {
    /// A session starts, resumes, is cleared or compacted: answer with the
    /// context block
    SessionStart,
    /// A compaction finished: save its summary to today's log
    PostCompact,
}

impl Event {
    /// The event's name in the agent's JSON (`hook_event_name`).
    fn agent_name(self, agent: Agent) -> &'static str {
        match (agent, self) {
            (Agent::ClaudeCode, Event::SessionStart) => "SessionStart",
            (Agent::ClaudeCode, Event::PostCompact) => "PostCompact",
        }
    }

    fn word(self) -> &'static str {
        match self {
            Event::SessionStart => "session-start",
            Event::PostCompact => "post-compact",
        }
    }
}

/// What this command takes from an event.
#[derive(Debug)]
pub struct Input {
    agent: Agent,
    event: Event,
    /// The agent's working directory: the project comes from it.
    pub cwd: PathBuf,
    session_id: String,
    /// `PostCompact`'s summary.
    summary: Option<String>,
}

impl Input {
    /// The history source label: `claude-code/<session id>`.
    pub fn source_label(&self) -> String {
        format!("{}/{}", self.agent.word(), self.session_id)
    }
}

/// Claude Code's fields common to every event, and those of the two events
/// answered here. Fields this command does not use are ignored: the agent
/// adds new ones over time.
#[derive(serde::Deserialize)]
struct ClaudeCodeEvent {
    hook_event_name: String,
    session_id: String,
    cwd: String,
    /// `PostCompact`.
    compact_summary: Option<String>,
}

/// Reads and drops the event on stdin (memory is off): the agent's write
/// of it then never meets a closed pipe.
pub fn discard() {
    let _ = io::copy(&mut io::stdin().take(MAX_EVENT_BYTES), &mut io::sink());
}

/// Reads the event from stdin.
///
/// # Errors
///
/// When stdin cannot be read, is not one JSON object of the agent's, or is
/// another event than `event`.
pub fn read(agent: Agent, event: Event) -> Result<Input> {
    let mut text = String::new();
    io::stdin()
        .take(MAX_EVENT_BYTES + 1)
        .read_to_string(&mut text)
        .context("cannot read the hook event from stdin (it must be UTF-8 JSON)")?;
    if text.len() as u64 > MAX_EVENT_BYTES {
        bail!(
            "the hook event on stdin is over {} MiB; nothing was done",
            MAX_EVENT_BYTES >> 20
        );
    }
    parse(agent, event, &text)
}

/// Parses an event's JSON.
fn parse(agent: Agent, event: Event, text: &str) -> Result<Input> {
    let what = format!("hook {} {}", agent.word(), event.word());
    let parsed: ClaudeCodeEvent = serde_json::from_str(text).with_context(|| {
        format!(
            "`{what}` expects {}'s {} event as JSON on stdin; nothing was done",
            agent.word(),
            event.agent_name(agent)
        )
    })?;
    let expected = event.agent_name(agent);
    if parsed.hook_event_name != expected {
        bail!(
            "`{what}` got a {:?} event, not {expected}: the hook is wired to the wrong event; \
             run `agent-memory setup {}` again; nothing was done",
            parsed.hook_event_name,
            agent.word()
        );
    }
    let cwd = PathBuf::from(&parsed.cwd);
    if !cwd.is_absolute() {
        bail!(
            "`{what}`: the event's cwd {:?} is not an absolute path; nothing was done",
            parsed.cwd
        );
    }
    if parsed.session_id.is_empty() {
        bail!("`{what}`: the event's session_id is empty; nothing was done");
    }
    let summary = match event {
        Event::SessionStart => None,
        Event::PostCompact => Some(parsed.compact_summary.with_context(|| {
            format!("`{what}`: the event has no compact_summary; nothing was done")
        })?),
    };
    Ok(Input {
        agent,
        event,
        cwd,
        session_id: parsed.session_id,
        summary,
    })
}

/// The agent's JSON for a context block.
fn session_start_output(agent: Agent, block: &str) -> String {
    match agent {
        Agent::ClaudeCode => serde_json::json!({
            "hookSpecificOutput": {
                "hookEventName": Event::SessionStart.agent_name(agent),
                "additionalContext": block,
            }
        })
        .to_string(),
    }
}

/// Answers the event on `memory`.
///
/// # Errors
///
/// The memory's: a refused summary (a secret under the block policy), a
/// store that cannot be read or written.
pub fn respond(memory: &mut Memory, input: &Input) -> Result<()> {
    match input.event {
        Event::SessionStart => match memory.context_block()? {
            Some(block) => crate::print_text(&session_start_output(input.agent, &block)),
            None => Ok(()),
        },
        Event::PostCompact => {
            let summary = input.summary.as_deref().unwrap_or_default();
            if summary.trim().is_empty() {
                return Ok(());
            }
            memory.flush_compaction(summary, None)?;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_of_another_kind_is_refused_by_name() {
        let start =
            r#"{"session_id":"s1","cwd":"/p","hook_event_name":"SessionStart","source":"startup"}"#;
        let error = parse(Agent::ClaudeCode, Event::PostCompact, start)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(r#"got a "SessionStart" event, not PostCompact"#),
            "{error}"
        );
        let input = parse(Agent::ClaudeCode, Event::SessionStart, start).unwrap();
        assert_eq!(input.source_label(), "claude-code/s1");
        assert_eq!(input.cwd, PathBuf::from("/p"));
    }

    #[test]
    fn a_relative_cwd_and_a_missing_summary_are_refused() {
        let relative = r#"{"session_id":"s1","cwd":"p","hook_event_name":"SessionStart"}"#;
        let error = parse(Agent::ClaudeCode, Event::SessionStart, relative).unwrap_err();
        assert!(
            error.to_string().contains("not an absolute path"),
            "{error}"
        );
        let bare =
            r#"{"session_id":"s1","cwd":"/p","hook_event_name":"PostCompact","trigger":"auto"}"#;
        let error = parse(Agent::ClaudeCode, Event::PostCompact, bare).unwrap_err();
        assert!(error.to_string().contains("no compact_summary"), "{error}");
    }

    #[test]
    fn the_context_block_travels_as_additional_context() {
        let out: serde_json::Value = serde_json::from_str(&session_start_output(
            Agent::ClaudeCode,
            "<memory>\nx\n</memory>",
        ))
        .unwrap();
        assert_eq!(
            out,
            serde_json::json!({"hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": "<memory>\nx\n</memory>"
            }})
        );
    }
}
