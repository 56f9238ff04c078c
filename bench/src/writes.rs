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
pub fn run(dir: &Path, quick: bool) -> Result<()> {
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
    Ok(())
}

fn percent(part: Duration, whole: Duration) -> String {
    if whole.is_zero() {
        return "-".into();
    }
    format!("{:.1}%", 100.0 * part.as_secs_f64() / whole.as_secs_f64())
}
