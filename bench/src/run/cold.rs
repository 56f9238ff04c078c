//! Cold start: the first call of a fresh process on a fresh install, where
//! the compiled-component cache is empty. Every contender runs interleaved,
//! each round with a new empty cache directory and a new empty memory root.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};

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

/// What the Python contender runs: open a memory, make one write; with a
/// third argument, then a ranked search for it. It prints when each step
/// ended (`part <name> <unix ms>`), for the rows that split its time; the
/// steps are the ones a user's process makes (`Runtime.shared()` is what
/// `Memory()` calls first).
const PYTHON_FIRST_WRITE: &str = "import time\n\
print('part start', time.time() * 1e3)\n\
import sys, wasmtime, wasmtime.component\n\
print('part wasmtime', time.time() * 1e3)\n\
import agent_memory\n\
print('part package', time.time() * 1e3)\n\
agent_memory.Runtime.shared()\n\
print('part runtime', time.time() * 1e3)\n\
m = agent_memory.Memory(sys.argv[1], '/src/app', now='2026-05-30T09:15:00+02:00')\n\
print('part open', time.time() * 1e3)\n\
m.write('long-term', '- the first fact')\n\
print('part write', time.time() * 1e3)\n\
if len(sys.argv) > 2:\n    m.search(sys.argv[2])\n\
print('part end', time.time() * 1e3, flush=True)\n";

/// The same for Node: `node SCRIPT PACKAGE/agent-memory.js ROOT [QUERY]`.
const NODE_FIRST_WRITE: &str = "import { pathToFileURL } from 'node:url';\n\
console.log('part start', Date.now());\n\
const { Memory } = await import(pathToFileURL(process.argv[2]).href);\n\
console.log('part package', Date.now());\n\
const m = Memory.open(process.argv[3], '/src/app', { now: '2026-05-30T09:15:00+02:00' });\n\
console.log('part open', Date.now());\n\
m.write('long-term', '- the first fact');\n\
console.log('part write', Date.now());\n\
if (process.argv[4]) m.search(process.argv[4]);\n\
console.log('part end', Date.now());\n";

/// What a Node worker does to open a memory, step by step in the main
/// thread (`node SCRIPT PACKAGE ROOT`), as `agent-memory.js` and
/// `worker.js` do it (the package's own filesystem, `wasi-fs.js`, without
/// worker.js's stderr capture): the split of the package row's open and
/// first write.
const NODE_PARTS: &str = "import { pathToFileURL } from 'node:url';\n\
import { createRequire } from 'node:module';\n\
import { readFileSync, readdirSync, mkdirSync } from 'node:fs';\n\
import { join, resolve } from 'node:path';\n\
console.log('part start', Date.now());\n\
const pkg = resolve(process.argv[2]), root = process.argv[3], gen = join(pkg, 'gen');\n\
const url = (p) => pathToFileURL(p).href;\n\
const { capMemories } = await import(url(join(pkg, 'memory-cap.js')));\n\
const modules = {};\n\
for (const n of readdirSync(gen).filter((n) => n.endsWith('.wasm'))) modules[n] = new WebAssembly.Module(capMemories(readFileSync(join(gen, n)), 256 * 1024 * 1024));\n\
console.log('part compile', Date.now());\n\
const require = createRequire(join(pkg, 'package.json'));\n\
const [{ io }, { WASIShim }, { createFilesystem }] = await Promise.all([import(url(require.resolve('@bytecodealliance/preview2-shim'))), import(url(require.resolve('@bytecodealliance/preview2-shim/instantiation'))), import(url(join(pkg, 'wasi-fs.js')))]);\n\
console.log('part shim', Date.now());\n\
const transpiled = await import(url(join(gen, 'agent_memory.js')));\n\
console.log('part glue', Date.now());\n\
mkdirSync(root, { recursive: true });\n\
const filesystem = createFilesystem({ preopens: { '/': root }, io });\n\
const shim = new WASIShim({ filesystem, sandbox: { env: {}, args: [], enableNetwork: false } });\n\
const exports = transpiled.instantiate((n) => modules[n], shim.getImportObject());\n\
console.log('part instantiate', Date.now());\n\
const m = exports.store.Memory.open({ root: '/', project: '/src/app', clock: { utcOffsetMinutes: 120, fixedUnixSeconds: 1780125300n }, limits: {}, secretPolicy: 'block', source: '', scope: 'personal', review: [] });\n\
console.log('part open', Date.now());\n\
m.write('long-term', '- the first fact', 'append', undefined);\n\
console.log('part write', Date.now());\n\
m.write('long-term', '- the second fact', 'append', undefined);\n\
console.log('part write2', Date.now());\n\
console.log('part end', Date.now());\n\
process.exit(0);\n";

/// The query of the rows that open, write and search: its words are in
/// the file written, so the search needs no embedding model.
const STRONG_QUERY: &str = "first fact";

/// The steps of the parts rows: the `part` name that ends each, what the
/// row says, in order. `spawn` (the process started) and `exit` (its end,
/// seen by the bench) frame them.
const PYTHON_STEPS: &[(&str, &str)] = &[
    (
        "start",
        "the interpreter starting (spawn to the script's first line)",
    ),
    (
        "wasmtime",
        "`import wasmtime, wasmtime.component` (ctypes bindings of the 30 MB library)",
    ),
    (
        "package",
        "`import agent_memory` (after wasmtime: its dataclasses, json, hashlib)",
    ),
    (
        "runtime",
        "`Runtime.shared()`: the engine, the packaged artifact checked and mapped, the linker",
    ),
    ("open", "`Memory(...)`: instantiate, open the memory"),
    ("write", "the first write"),
    ("end", "-"),
    (
        "exit",
        "the interpreter exiting (the script's last line to the process's end)",
    ),
];
const NODE_STEPS: &[(&str, &str)] = &[
    ("start", "node starting (spawn to the script's first line)"),
    ("package", "importing the package (`agent-memory.js`)"),
    (
        "open",
        "`Memory.open`: compile the core modules, start the worker (preview2-shim and jco glue imported, instantiated), open",
    ),
    (
        "write",
        "the first write (the worker's first calls: wasm compiled lazily)",
    ),
    ("end", "-"),
    ("exit", "node exiting"),
];
const NODE_PARTS_STEPS: &[(&str, &str)] = &[
    ("start", "node starting"),
    (
        "compile",
        "the core modules compiled (`new WebAssembly.Module`, lazy: Liftoff per function at its first call)",
    ),
    (
        "shim",
        "importing preview2-shim (it starts its I/O worker thread) and wasi-fs.js",
    ),
    (
        "glue",
        "importing jco's glue (`gen/agent_memory.js`, 0.6 MB of JS)",
    ),
    ("instantiate", "instantiating (`transpiled.instantiate`)"),
    ("open", "`memory.open`"),
    ("write", "the first write"),
    ("write2", "a second write"),
    ("end", "-"),
    ("exit", "node exiting"),
];

/// The `part <name> <unix ms>` lines of a contender's output.
type Parts = RefCell<Vec<BTreeMap<String, f64>>>;

/// Runs `command`, its stdout kept; records its `part` lines with `spawn`
/// and `exit` added, in unix ms.
fn run_parts(command: &mut Command, parts: &Parts) -> Result<()> {
    let unix_ms = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    let spawn = unix_ms();
    let output = command
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot start {command:?}"))?;
    let exit = unix_ms();
    if !output.status.success() {
        bail!(
            "{command:?} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let mut map = BTreeMap::new();
    map.insert("spawn".to_string(), spawn);
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let mut words = line.split_whitespace();
        if let (Some("part"), Some(name), Some(at)) = (words.next(), words.next(), words.next()) {
            map.insert(name.to_string(), at.parse().context("a part's time")?);
        }
    }
    map.insert("exit".to_string(), exit);
    parts.borrow_mut().push(map);
    Ok(())
}

/// One row per step: the median of its duration (from the step before it).
fn parts_rows(what: &str, steps: &[(&str, &str)], parts: &Parts, out: &mut Vec<String>) {
    let runs = parts.borrow();
    let mut before = "spawn";
    for &(name, label) in steps {
        let mut spent: Vec<f64> = runs
            .iter()
            .filter_map(|r| Some(r.get(name)? - r.get(before)?))
            .collect();
        before = name;
        if label == "-" || spent.is_empty() {
            continue;
        }
        spent.sort_by(f64::total_cmp);
        let median = Duration::from_secs_f64(spent[spent.len() / 2].max(0.0) / 1e3);
        out.push(format!(
            "| {what}, part: {label} | {} | - | - |",
            fmt_duration(median)
        ));
        eprintln!("   {what}, part: {label}: {}", fmt_duration(median));
    }
}

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
    let node_parts_script = scratch.join("node-parts.mjs");
    fs::write(&node_parts_script, NODE_PARTS)?;
    let (exe, wasm, warm_python_cache, node_script, node_parts_script) = (
        &exe,
        &wasm,
        &warm_python_cache,
        &node_script,
        &node_parts_script,
    );
    let python_parts = Parts::default();
    let node_parts = Parts::default();
    let node_step_parts = Parts::default();
    let python_parts = &python_parts;
    let node_parts = &node_parts;
    let node_step_parts = &node_step_parts;

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
                run_parts(
                    &mut python_child(python, warm_python_cache, &root),
                    python_parts,
                )
            }),
        ));
        labels.push((
            "Python: open a memory, write once and make a ranked search whose words are in a file (no model loaded)",
            Slot::Reference,
        ));
        contenders.push((
            "python first write and search (warm cache)",
            Box::new(move || {
                let (_dir, _cache, root) = fresh("python-search")?;
                let mut cmd = python_child(python, warm_python_cache, &root);
                cmd.arg(STRONG_QUERY);
                run_quiet(&mut cmd).map(drop)
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
        let module_ref = module.clone();
        contenders.push((
            "node first write",
            Box::new(move || {
                let (_dir, _cache, root) = fresh("node")?;
                let mut cmd = Command::new("node");
                cmd.arg(node_script).arg(&module_ref).arg(&root);
                run_parts(&mut cmd, node_parts)
            }),
        ));
        labels.push((
            "Node: open a memory, write once and make a ranked search whose words are in a file (no model loaded)",
            Slot::Reference,
        ));
        contenders.push((
            "node first write and search",
            Box::new(move || {
                let (_dir, _cache, root) = fresh("node-search")?;
                let mut cmd = Command::new("node");
                cmd.arg(node_script)
                    .arg(&module)
                    .arg(&root)
                    .arg(STRONG_QUERY);
                run_quiet(&mut cmd).map(drop)
            }),
        ));
        labels.push((
            "Node: the worker's steps one by one in the main thread, and a second write",
            Slot::Reference,
        ));
        contenders.push((
            "node steps",
            Box::new(move || {
                let (_dir, _cache, root) = fresh("node-steps")?;
                let mut cmd = Command::new("node");
                cmd.arg(node_parts_script).arg(package).arg(&root);
                run_parts(&mut cmd, node_step_parts)
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
        // A contender's split follows its row.
        let split = match label {
            l if l.starts_with("Python: the same, the cache left") => {
                Some(("Python", PYTHON_STEPS, python_parts))
            }
            l if l.starts_with("Node: open a memory and write once") => {
                Some(("Node", NODE_STEPS, node_parts))
            }
            l if l.starts_with("Node: the worker's steps") => {
                Some(("Node steps", NODE_PARTS_STEPS, node_step_parts))
            }
            _ => None,
        };
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
        if let Some((what, steps, parts)) = split {
            parts_rows(what, steps, parts, &mut out.rows);
        }
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
