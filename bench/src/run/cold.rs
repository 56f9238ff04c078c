//! Cold start: the first call of a fresh process on a fresh install, where
//! the compiled-component cache is empty. Every contender runs interleaved,
//! each round with a new empty cache directory and a new empty memory root.

use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::Result;

use super::Plan;
use crate::corpus;
use crate::measure::{Budget, Contender, fmt_duration, interleaved, run_quiet};

/// The goal of the first `agent-memory` call of a fresh install.
pub const CLI_GOAL: Duration = Duration::from_millis(200);
/// The goal of a Python or Node process's open and first write, the first
/// one on the machine (an empty cache).
pub const HOST_FIRST_GOAL: Duration = Duration::from_millis(500);
/// The goal of a Python or Node process's open and first write once one
/// process has run before it (a warm cache).
pub const HOST_LATER_GOAL: Duration = Duration::from_millis(300);

/// The measured figures, for the targets table.
#[derive(Debug, Default)]
pub struct ColdStart {
    pub rows: Vec<String>,
    pub cli: Option<Duration>,
    pub python_first: Option<Duration>,
    pub python_later: Option<Duration>,
    pub node: Option<Duration>,
}

/// Which figure of [`ColdStart`] a row fills.
#[derive(Clone, Copy)]
enum Slot {
    Cli,
    PythonFirst,
    PythonLater,
    Node,
    Reference,
}

impl Slot {
    fn goal(self) -> Option<Duration> {
        match self {
            Slot::Cli => Some(CLI_GOAL),
            Slot::PythonFirst => Some(HOST_FIRST_GOAL),
            // Node keeps no compiled code between processes: every process
            // is a first one, and is held to the later one's goal.
            Slot::PythonLater | Slot::Node => Some(HOST_LATER_GOAL),
            Slot::Reference => None,
        }
    }
}

/// What the Python contender runs: open a memory, make one write.
const PYTHON_FIRST_WRITE: &str = "import sys, agent_memory\n\
m = agent_memory.Memory(sys.argv[1], '/src/app', now='2026-05-30T09:15:00+02:00')\n\
m.write('long-term', '- the first fact')\n";

/// The same for Node: `node SCRIPT PACKAGE/agent-memory.js ROOT`.
const NODE_FIRST_WRITE: &str = "import { pathToFileURL } from 'node:url';\n\
const { Memory } = await import(pathToFileURL(process.argv[2]).href);\n\
const m = Memory.open(process.argv[3], '/src/app', { now: '2026-05-30T09:15:00+02:00' });\n\
m.write('long-term', '- the first fact');\n";

/// Times every contender that can run here. `compile` adds the process that
/// compiles the component itself (what a build without the precompiled
/// artifact, or a machine that cannot run it, pays once).
pub fn measure(
    plan: &Plan,
    cli: Option<&Path>,
    python: Option<&Path>,
    node: Option<&Path>,
    compile: bool,
    budget: Budget,
) -> Result<ColdStart> {
    let scratch = plan.dir.join("cold");
    fs::create_dir_all(&scratch)?;
    let wasm = scratch.join("agent_memory_component.wasm");
    fs::write(&wasm, agent_memory::COMPONENT_WASM)?;
    let warm_python_cache = scratch.join("python-warm-cache");
    let node_script = scratch.join("node-first-write.mjs");
    fs::write(&node_script, NODE_FIRST_WRITE)?;
    let exe = std::env::current_exe()?;
    let round = std::cell::Cell::new(0u32);
    // A fresh cache dir and a fresh root for each run.
    let fresh_dirs = |what: &str| -> Result<(tempfile::TempDir, PathBuf, PathBuf)> {
        round.set(round.get() + 1);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{what}-"))
            .tempdir_in(&scratch)?;
        let cache = dir.path().join(format!("cache{}", round.get()));
        let root = dir.path().join("root");
        Ok((dir, cache, root))
    };
    let fresh = &fresh_dirs;
    let (exe, wasm, warm_python_cache, node_script) =
        (&exe, &wasm, &warm_python_cache, &node_script);

    let mut labels: Vec<(&str, Slot)> = Vec::new();
    let mut contenders: Vec<Contender<'_>> = Vec::new();
    if let Some(cli) = cli {
        labels.push((
            "`agent-memory context`, empty compiled cache (a fresh install's first call)",
            Slot::Cli,
        ));
        contenders.push((
            "agent-memory context (fresh install)",
            Box::new(move || {
                let (_dir, cache, root) = fresh("cli")?;
                let mut cmd = Command::new(cli);
                cmd.env("AGENT_MEMORY_CACHE_DIR", &cache)
                    .arg("--root")
                    .arg(&root)
                    .arg("--project")
                    .arg(corpus::PROJECT)
                    .arg("--now")
                    .arg(corpus::NOW)
                    .arg("context");
                run_quiet(&mut cmd).map(drop)
            }),
        ));
    }
    labels.push((
        "bench process, open a memory: the embedded component, empty cache",
        Slot::Reference,
    ));
    contenders.push((
        "open, embedded component (fresh cache)",
        Box::new(move || {
            let (_dir, cache, root) = fresh("embedded")?;
            run_quiet(&mut open_child(exe, &cache, &root, None)).map(drop)
        }),
    ));
    if compile {
        labels.push((
            "bench process, open a memory: the same component compiled in the process (no build-time artifact), empty cache",
            Slot::Reference,
        ));
        contenders.push((
            "open, compiled in the process (fresh cache)",
            Box::new(move || {
                let (_dir, cache, root) = fresh("compile")?;
                run_quiet(&mut open_child(exe, &cache, &root, Some(wasm))).map(drop)
            }),
        ));
    }
    if let Some(python) = python {
        labels.push((
            "Python: open a memory and write once, empty cache (the first process after install)",
            Slot::PythonFirst,
        ));
        contenders.push((
            "python first write (fresh cache)",
            Box::new(move || {
                let (_dir, cache, root) = fresh("python")?;
                run_quiet(&mut python_child(python, &cache, &root)).map(drop)
            }),
        ));
        labels.push((
            "Python: the same, the cache left by the processes before",
            Slot::PythonLater,
        ));
        contenders.push((
            "python first write (warm cache)",
            Box::new(move || {
                let (_dir, _cache, root) = fresh("python-warm")?;
                run_quiet(&mut python_child(python, warm_python_cache, &root)).map(drop)
            }),
        ));
    }
    if let Some(package) = node {
        let module = package.join("agent-memory.js");
        if !package.join("gen").join("agent_memory.js").is_file() {
            anyhow::bail!(
                "the Node package `{}` has no transpiled component in gen/: run `npm run build` there",
                package.display()
            );
        }
        labels.push((
            "Node: open a memory and write once (every process: V8 keeps no compiled code between processes)",
            Slot::Node,
        ));
        contenders.push((
            "node first write",
            Box::new(move || {
                let (_dir, _cache, root) = fresh("node")?;
                let mut cmd = Command::new("node");
                cmd.arg(node_script).arg(&module).arg(&root);
                run_quiet(&mut cmd).map(drop)
            }),
        ));
    }
    // Each run's CPU (user + system of the process it waited for): on a
    // shared machine the wall time grows with the load, the CPU much less.
    let cpu: Vec<RefCell<Vec<Duration>>> = contenders.iter().map(|_| RefCell::default()).collect();
    let mut contenders: Vec<Contender<'_>> = contenders
        .into_iter()
        .zip(&cpu)
        .map(|((name, mut run), spent)| -> Contender<'_> {
            (
                name,
                Box::new(move || {
                    let before = children_cpu();
                    let result = run();
                    if let (Some(before), Some(after)) = (before, children_cpu()) {
                        spent.borrow_mut().push(after.saturating_sub(before));
                    }
                    result
                }),
            )
        })
        .collect();
    let samples = interleaved(budget, &mut contenders)?;
    drop(contenders);

    let mut out = ColdStart::default();
    for ((&(label, slot), s), spent) in labels.iter().zip(&samples).zip(&cpu) {
        let median = s.median();
        let cpu_median = {
            let mut spent = spent.borrow_mut();
            spent.sort();
            spent.get(spent.len() / 2).copied()
        };
        let verdict = slot.goal().map_or("-".to_string(), |g| {
            let met = if median <= g { "met" } else { "not met" };
            format!("≤ {} ({met})", fmt_duration(g))
        });
        let cpu_median = cpu_median.map_or("-".to_string(), fmt_duration);
        out.rows.push(format!(
            "| {label} | {} | {cpu_median} | {verdict} |",
            fmt_duration(median)
        ));
        eprintln!("   {label}: {} (CPU {cpu_median})", fmt_duration(median));
        match slot {
            Slot::Cli => out.cli = Some(median),
            Slot::PythonFirst => out.python_first = Some(median),
            Slot::PythonLater => out.python_later = Some(median),
            Slot::Node => out.node = Some(median),
            Slot::Reference => {}
        }
    }
    Ok(out)
}

/// The CPU time (user + system) of every child this process has waited for.
#[cfg(unix)]
fn children_cpu() -> Option<Duration> {
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer is valid for the call; RUSAGE_CHILDREN is a valid
    // `who`, so the call cannot fail.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    Some(time(usage.ru_utime) + time(usage.ru_stime))
}

/// Not measured here: the rows say `-`.
#[cfg(not(unix))]
fn children_cpu() -> Option<Duration> {
    None
}

/// `agent-memory-bench search-once` opening a memory and searching nothing:
/// the embedded component, or `component` from a file (compiled in the
/// process: only the embedded one has a build-time artifact).
fn open_child(exe: &Path, cache: &Path, root: &Path, component: Option<&Path>) -> Command {
    let mut cmd = Command::new(exe);
    cmd.env("AGENT_MEMORY_CACHE_DIR", cache)
        .arg("search-once")
        .arg("--backend")
        .arg("component")
        .arg("--root")
        .arg(root)
        .arg("--query")
        .arg("");
    if let Some(component) = component {
        cmd.arg("--component").arg(component);
    }
    cmd
}

fn python_child(python: &Path, cache: &Path, root: &Path) -> Command {
    let mut cmd = Command::new(python);
    cmd.env("AGENT_MEMORY_CACHE_DIR", cache)
        .env_remove("AGENT_MEMORY_WASM")
        .arg("-c")
        .arg(PYTHON_FIRST_WRITE)
        .arg(root);
    cmd
}
