//! `agent-memory-bench hook`: `agent-memory hook claude-code session-start`
//! timed as Claude Code runs it before every session, a whole process with
//! the event's JSON on stdin, beside `agent-memory context` on the same store
//! (issue 39's goal: at most 30 ms warm on corpus M). Both print the same
//! context block; the difference is what the hook adds.

use std::fs::File;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context as _, Result, bail};

use crate::corpus::{self, Manifest, Size};
use crate::measure::{Budget, fmt_duration, interleaved};

/// The goal of the issue, for the printed line.
const GOAL: Duration = Duration::from_millis(30);

/// Times both commands in `rounds` interleaved rounds on corpus M under
/// `dir` (generated when missing or stale) and prints the medians.
///
/// # Errors
/// When the corpus cannot be written or a command fails or prints nothing.
pub fn run(dir: &Path, cli: &Path, rounds: usize) -> Result<()> {
    let root = dir.join(Size::M.name());
    if !Manifest::read(&root).is_some_and(|m| m.is_current(Size::M, corpus::DEFAULT_SEED, false)) {
        eprintln!("generating corpus M in {}", root.display());
        corpus::generate_variant(Size::M, corpus::DEFAULT_SEED, false, &root)?;
    }
    let cache = dir.join("cache").join("warm");
    std::fs::create_dir_all(&cache)?;
    let event = dir.join("session-start.json");
    // The event as Claude Code sends it (hooks reference, SessionStart).
    let json = serde_json::json!({
        "session_id": "bench",
        "transcript_path": "/tmp/bench.jsonl",
        "cwd": corpus::PROJECT,
        "hook_event_name": "SessionStart",
        "source": "startup",
    });
    File::create(&event)?.write_all(json.to_string().as_bytes())?;

    let command = |args: &[&str]| {
        let mut command = Command::new(cli);
        command
            .env("AGENT_MEMORY_CACHE_DIR", &cache)
            .env_remove("AGENT_MEMORY_DISABLE")
            .arg("--root")
            .arg(&root)
            .arg("--project")
            .arg(corpus::PROJECT)
            .arg("--now")
            .arg(corpus::NOW)
            .args(args);
        command
    };
    let context = || {
        let mut context = command(&["context"]);
        context.stdin(Stdio::null());
        context
    };
    let hook = || -> Result<Command> {
        let mut hook = command(&["hook", "claude-code", "session-start"]);
        hook.stdin(File::open(&event)?);
        Ok(hook)
    };
    let budget = Budget {
        min_rounds: rounds,
        max_rounds: rounds,
        time: Duration::ZERO,
    };
    let samples = interleaved(
        budget,
        &mut [
            ("agent-memory context", Box::new(|| printed(context()))),
            (
                "agent-memory hook claude-code session-start",
                Box::new(|| printed(hook()?)),
            ),
        ],
    )?;
    let (context, hook) = (samples[0].median(), samples[1].median());
    println!(
        "corpus M ({}), warm, median of {rounds} interleaved runs each",
        root.display()
    );
    println!("| command | median |");
    println!("| --- | --- |");
    println!("| `agent-memory context` | {} |", fmt_duration(context));
    println!(
        "| `agent-memory hook claude-code session-start` < event | {} |",
        fmt_duration(hook)
    );
    println!(
        "hook / context: {:.2}x; goal: hook <= {} ({})",
        hook.as_secs_f64() / context.as_secs_f64(),
        fmt_duration(GOAL),
        if hook <= GOAL { "met" } else { "NOT met" }
    );
    Ok(())
}

/// Runs `command`, which must succeed and print something (the block).
fn printed(mut command: Command) -> Result<()> {
    let output = command
        .output()
        .with_context(|| format!("cannot start {command:?}"))?;
    if !output.status.success() || output.stdout.is_empty() {
        bail!(
            "{command:?} failed ({}) or printed nothing: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}
