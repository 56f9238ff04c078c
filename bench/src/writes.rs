//! Write latency through the component (warm, in-process, via the host
//! library) with history on and off, and the cost of the budget feedback
//! every write now computes.
//!
//! History "off" is the host's own switch: `OpenOptions::history_retention(0,
//! 0)`. The budget cannot be turned off, so its cost is measured on its
//! own: through the component as `context-block` (the same reads and the
//! same render the budget does after every write, plus copying the block
//! out), and natively as `Memory::budget`.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result};

use crate::measure::{self, Budget, fmt_duration, fmt_ratio};

/// A store the size of a working one: a 120-line index, 25 open items,
/// yesterday's and today's log (~8 KB each), a few notes.
fn seed(root: &Path, project: &str) -> Result<()> {
    let options = agent_memory_core::Options::new(project);
    let memory = agent_memory_core::Memory::open(root, options)?;
    use agent_memory_core::{WriteMode::Overwrite, WriteTarget::*};
    let index: String = (0..120)
        .map(|i| format!("- fact {i}: the build uses cargo-nextest; see note build-{i}\n"))
        .collect();
    memory.write(LongTerm, &index, Overwrite, None)?;
    let pad: String = (0..25)
        .map(|i| format!("- [ ] task {i}: wire the thing\n- [x] done {i}\n"))
        .collect();
    memory.write(Scratchpad, &pad, Overwrite, None)?;
    let log: String = (0..120)
        .map(|i| format!("### 09:{:02} — entry {i}\nsomething happened\n\n", i % 60))
        .collect();
    memory.write(Daily, &log, Overwrite, None)?;
    for i in 0..10 {
        let name = format!("build-{i}");
        memory.write(Note, &log[..2000], Overwrite, Some(&name))?;
    }
    Ok(())
}

/// The writes timed, one a round each.
const OPS: [&str; 3] = ["append MEMORY.md", "append_daily", "overwrite note (1 KB)"];

/// Run one write of kind `op` (its `n`th).
fn write(memory: &mut agent_memory::Memory, op: usize, n: usize) -> Result<()> {
    use agent_memory::{WriteMode, WriteTarget};
    match op {
        0 => memory
            .write(
                WriteTarget::LongTerm,
                &format!("- measured fact {n}\n"),
                WriteMode::Append,
                None,
            )
            .map(drop),
        1 => memory
            .append_daily("bench", &format!("entry {n}: a line of log"))
            .map(drop),
        _ => memory
            .write(
                WriteTarget::Note,
                &format!("{n}\n{}", "note text ".repeat(100)),
                WriteMode::Overwrite,
                Some("bench"),
            )
            .map(drop),
    }
    .map_err(|e| anyhow::anyhow!("{e}"))
}

/// Measure in `dir` (a fresh store per setting) and print the table.
pub fn run(dir: &Path, quick: bool, cli: Option<&Path>) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    let scratch = tempfile::tempdir_in(dir)?;
    let budget = Budget {
        min_rounds: if quick { 3 } else { 200 },
        max_rounds: if quick { 3 } else { 2000 },
        time: Duration::from_secs(if quick { 0 } else { 4 }),
    };
    let project = "/home/dev/src/bench-app";
    let runtime = agent_memory::Runtime::shared().map_err(|e| anyhow::anyhow!("{e}"))?;
    let open = |name: &str, history: bool| -> Result<agent_memory::Memory> {
        let root = scratch.path().join(name);
        std::fs::create_dir_all(&root)?;
        seed(&root, project)?;
        let mut options = agent_memory::OpenOptions::new(&root, project);
        if !history {
            options = options.history_retention(0, 0);
        }
        runtime.open(options).map_err(|e| anyhow::anyhow!("{e}"))
    };
    let mut on = open("on", true)?;
    let mut off = open("off", false)?;
    println!(
        "Write latency through the component (warm, in-process), {} — median of {}+ rounds, interleaved",
        dir.display(),
        budget.min_rounds
    );
    println!(
        "{:<24} {:>12} {:>12} {:>10} {:>12}",
        "write", "history off", "history on", "on/off", "on - off"
    );
    let mut totals = (Duration::ZERO, Duration::ZERO);
    for (op, name) in OPS.iter().enumerate() {
        let (mut n_on, mut n_off) = (0, 0);
        let samples = measure::interleaved(
            budget,
            &mut [
                (
                    "history off",
                    Box::new(|| {
                        n_off += 1;
                        write(&mut off, op, n_off)
                    }),
                ),
                (
                    "history on",
                    Box::new(|| {
                        n_on += 1;
                        write(&mut on, op, n_on)
                    }),
                ),
            ],
        )?;
        let (t_off, t_on) = (samples[0].median(), samples[1].median());
        totals.0 += t_off;
        totals.1 += t_on;
        println!(
            "{:<24} {:>12} {:>12} {:>10} {:>12}",
            name,
            fmt_duration(t_off),
            fmt_duration(t_on),
            fmt_ratio(t_on, t_off),
            fmt_duration(t_on.saturating_sub(t_off))
        );
    }
    let mean_off = totals.0 / OPS.len() as u32;
    let mean_on = totals.1 / OPS.len() as u32;
    println!(
        "{:<24} {:>12} {:>12} {:>10}",
        "mean of the three",
        fmt_duration(mean_off),
        fmt_duration(mean_on),
        fmt_ratio(mean_on, mean_off)
    );

    // The budget: what every write above already paid for.
    let block = measure::per_call(budget, 1, || {
        on.context_block()
            .map(drop)
            .map_err(|e| anyhow::anyhow!("{e}"))
    })?;
    let native_root = scratch.path().join("native");
    std::fs::create_dir_all(&native_root)?;
    seed(&native_root, project)?;
    let native =
        agent_memory_core::Memory::open(&native_root, agent_memory_core::Options::new(project))?;
    let native_budget = measure::per_call(budget, 10, || {
        std::hint::black_box(native.budget());
        Ok(())
    })?;
    let mut n = 0;
    let native_write = measure::per_call(budget, 1, || {
        n += 1;
        native
            .append_daily("bench", &format!("entry {n}"))
            .map(drop)
            .map_err(Into::into)
    })?;
    println!();
    println!("Budget feedback (computed inside every write above)");
    println!(
        "  component: context-block (the budget's reads + render) {}  = {} of a warm write (history on, mean)",
        fmt_duration(block),
        percent(block, mean_on)
    );
    println!(
        "  native:    Memory::budget {}  = {} of a native append_daily with history ({})",
        fmt_duration(native_budget),
        percent(native_budget, native_write),
        fmt_duration(native_write)
    );
    append_growth(scratch.path(), runtime, budget, cli)
}

/// Size of the large files of [`append_growth`].
const LARGE_BYTES: usize = 2 << 20;
/// Goal: an append to a large file costs at most this many times an append
/// to a fresh one.
const APPEND_GOAL: f64 = 1.5;

/// An append costs what it adds, not what the file holds: the same append
/// to a 2 MiB note and a 2 MiB log against a fresh note and a fresh log,
/// interleaved, in-process through the component and as whole `agent-memory
/// write` processes.
fn append_growth(
    scratch: &Path,
    runtime: &agent_memory::Runtime,
    budget: Budget,
    cli: Option<&Path>,
) -> Result<()> {
    use agent_memory::{WriteMode, WriteTarget};
    let project = "/home/dev/src/bench-app";
    let now = "2026-05-30T09:15:00+00:00";
    let large_root = scratch.join("large");
    let fresh_root = scratch.join("fresh");
    let line = "- 09:15 a line of log about the deploy of the service and its checks\n";
    let large: String = line.repeat(LARGE_BYTES / line.len());
    let at = chrono::DateTime::parse_from_rfc3339(now)?;
    let open = |root: &Path| -> Result<agent_memory::Memory> {
        std::fs::create_dir_all(root)?;
        runtime
            .open(agent_memory::OpenOptions::new(root, project).now(at))
            .map_err(|e| anyhow::anyhow!("{e}"))
    };
    let mut big = open(&large_root)?;
    let mut fresh = open(&fresh_root)?;
    for target in [WriteTarget::Note, WriteTarget::Daily] {
        big.write(target, &large, WriteMode::Overwrite, Some("big"))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    println!();
    println!(
        "Append cost against file size (goal: an append to a {} MiB file at most {APPEND_GOAL}x one to a fresh file)",
        LARGE_BYTES >> 20
    );
    println!(
        "{:<34} {:>12} {:>12} {:>8} {:>6}",
        "append", "fresh file", "2 MiB file", "ratio", "goal"
    );
    let row = |name: &str, fresh: Duration, large: Duration| {
        let ratio = large.as_secs_f64() / fresh.as_secs_f64().max(1e-9);
        println!(
            "{:<34} {:>12} {:>12} {:>7.2}x {:>6}",
            name,
            fmt_duration(fresh),
            fmt_duration(large),
            ratio,
            if ratio <= APPEND_GOAL {
                "met"
            } else {
                "MISSED"
            }
        );
    };
    for (target, name) in [
        (WriteTarget::Note, "note, in-process"),
        (WriteTarget::Daily, "today's log, in-process"),
    ] {
        let (mut a, mut b) = (0, 0);
        let samples = measure::interleaved(
            budget,
            &mut [
                (
                    "fresh",
                    Box::new(|| {
                        a += 1;
                        let text = format!("entry {a}: a line of log");
                        fresh
                            .write(target, &text, WriteMode::Append, Some("fresh"))
                            .map(drop)
                            .map_err(|e| anyhow::anyhow!("{e}"))
                    }),
                ),
                (
                    "large",
                    Box::new(|| {
                        b += 1;
                        let text = format!("entry {b}: a line of log");
                        big.write(target, &text, WriteMode::Append, Some("big"))
                            .map(drop)
                            .map_err(|e| anyhow::anyhow!("{e}"))
                    }),
                ),
            ],
        )?;
        row(name, samples[0].median(), samples[1].median());
    }
    let Some(cli) = cli.filter(|c| c.is_file()) else {
        println!(
            "(whole processes skipped: no agent-memory command next to this executable; pass --cli)"
        );
        return Ok(());
    };
    let cache = scratch.join("cache");
    let process_budget = Budget {
        min_rounds: budget.min_rounds.min(30),
        max_rounds: budget.max_rounds.min(60),
        time: budget.time,
    };
    for (target, name, file) in [
        ("note", "note, whole process", Some("--name")),
        ("daily", "today's log, whole process", None),
    ] {
        let command = |root: &Path, note: &str| {
            let mut cmd = std::process::Command::new(cli);
            cmd.env("AGENT_MEMORY_CACHE_DIR", &cache)
                .arg("--root")
                .arg(root)
                .arg("--project")
                .arg(project)
                .arg("--now")
                .arg(now)
                .arg("write")
                .arg(target);
            if let Some(flag) = file {
                cmd.arg(flag).arg(note);
            }
            cmd.arg("a line of log from a whole process")
                .stdout(std::process::Stdio::null());
            cmd
        };
        // The first run compiles the component into the cache.
        command(&fresh_root, "fresh").status()?;
        let samples = measure::interleaved(
            process_budget,
            &mut [
                (
                    "fresh",
                    Box::new(|| {
                        let status = command(&fresh_root, "fresh").status()?;
                        anyhow::ensure!(status.success(), "agent-memory write failed");
                        Ok(())
                    }),
                ),
                (
                    "large",
                    Box::new(|| {
                        let status = command(&large_root, "big").status()?;
                        anyhow::ensure!(status.success(), "agent-memory write failed");
                        Ok(())
                    }),
                ),
            ],
        )?;
        row(name, samples[0].median(), samples[1].median());
    }
    Ok(())
}

fn percent(part: Duration, whole: Duration) -> String {
    if whole.is_zero() {
        return "-".into();
    }
    format!("{:.1}%", 100.0 * part.as_secs_f64() / whole.as_secs_f64())
}
