//! `agent-memory-bench anchors`: what staleness anchors add to the context
//! block, warm, through the component (wasmtime, the project a read-only
//! preopen) and natively: `MEMORY.md` naming 200 project files, every one
//! unchanged, against the same store opened without a project directory.

use std::fs;
use std::path::Path;
use std::time::Duration;

use agent_memory::{OpenOptions, Runtime, WriteMode, WriteTarget};
use agent_memory_core as core;
use anyhow::{Context as _, Result};

use crate::measure::{Budget, Contender, interleaved};

/// Project files anchored.
pub const ANCHORS: usize = 200;

/// 200 source files of about 4 KB in 10 folders, and an index naming each.
fn fixture(dir: &Path) -> Result<String> {
    let mut index = String::from("# Index\n");
    for i in 0..ANCHORS {
        let folder = format!("src/mod{:02}", i % 10);
        fs::create_dir_all(dir.join(&folder)).context("project folder")?;
        let path = format!("{folder}/file{i:03}.rs");
        let body = format!("pub fn f{i}() {{ /* {} */ }}\n", "x".repeat(64)).repeat(50);
        fs::write(dir.join(&path), body).context("project file")?;
        index.push_str(&format!("- f{i} lives in `{path}`\n"));
    }
    Ok(index)
}

/// Print the medians, in microseconds.
pub fn run(quick: bool) -> Result<()> {
    let temp = tempfile::tempdir()?;
    let project = temp.path().join("project");
    let store = temp.path().join("store");
    fs::create_dir_all(&store)?;
    let index = fixture(&project)?;
    let runtime = Runtime::shared()?;
    let options = || OpenOptions::new(&store, "/bench/app").fixed_clock(1_780_125_300, 0);
    let mut anchored = runtime.open(options().project_dir(&project))?;
    anchored.write(WriteTarget::LongTerm, &index, WriteMode::Overwrite, None)?;
    anchored.write(
        WriteTarget::Scratchpad,
        "- [ ] ship the release\n",
        WriteMode::Overwrite,
        None,
    )?;
    let mut plain = runtime.open(options())?;
    let native_options = |root: Option<&Path>| {
        let mut o = core::Options::new("/bench/app");
        o.clock = core::Clock {
            utc_offset_minutes: 0,
            fixed_unix_seconds: Some(1_780_125_300),
        };
        o.project_root = root.map(Path::to_path_buf);
        o
    };
    let native_anchored = core::Memory::open(&store, native_options(Some(&project)))?;
    let native_plain = core::Memory::open(&store, native_options(None))?;
    // Both see every anchor fresh, and the block marks nothing.
    let block = anchored.context_block()?.unwrap_or_default();
    anyhow::ensure!(!block.contains("stale:"), "a fresh anchor was marked");
    let budget = Budget {
        min_rounds: if quick { 20 } else { 500 },
        max_rounds: if quick { 50 } else { 5000 },
        time: Duration::from_secs(if quick { 1 } else { 10 }),
    };
    let mut contenders: Vec<Contender<'_>> = vec![
        (
            "component, 200 anchors",
            Box::new(|| anchored.context_block().map(drop).map_err(Into::into)),
        ),
        (
            "component, no project",
            Box::new(|| plain.context_block().map(drop).map_err(Into::into)),
        ),
        (
            "native, 200 anchors",
            Box::new(|| {
                native_anchored
                    .context_block()
                    .map(drop)
                    .map_err(Into::into)
            }),
        ),
        (
            "native, no project",
            Box::new(|| native_plain.context_block().map(drop).map_err(Into::into)),
        ),
    ];
    let samples = interleaved(budget, &mut contenders)?;
    println!("context block, warm, {ANCHORS} anchors in MEMORY.md (median of interleaved rounds)");
    for ((name, _), s) in contenders.iter().zip(&samples) {
        println!(
            "  {name:<24} {:>9.1} µs  ({} rounds)",
            s.median().as_secs_f64() * 1e6,
            s.len()
        );
    }
    Ok(())
}
