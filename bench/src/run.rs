//! The harness: every measurement of the issue in one run, printed as
//! Markdown tables. Numbers only; nothing here asserts a timing.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agent_memory::{OpenOptions, Runtime, WriteMode, WriteTarget};
use agent_memory_core as core;
use anyhow::{Result, anyhow};
use chrono::DateTime;

use crate::corpus::{self, Manifest, Size};
use crate::measure::{
    Budget, Contender, fmt_duration, fmt_mb, fmt_ratio, interleaved, per_call, run_quiet,
};

mod cold;
mod ranked;

/// The benchmark queries: a topic word (in about a fifth of the files);
/// three words of three topics, in mixed case; eight words of five topics;
/// a word in no file.
pub const QUERIES: [(&str, &str); 4] = [
    ("1 term", "deploy"),
    ("3 terms", "Staging timeout migration"),
    (
        "8 terms",
        "deploy staging TIMEOUT migration cache token flaky rollback",
    ),
    // Matches nothing: what is left is reading every file, the part where
    // the sandbox costs most.
    ("0 hits", "xylophone"),
];

/// The query of the peak-memory runs: the one with the most hits.
const MEMORY_QUERY: usize = 2;

/// Which query the per-MB (linearity) table uses.
const LINEARITY_QUERY: usize = 1;

/// What `run` was asked to do.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Corpus sizes to measure.
    pub sizes: Vec<Size>,
    /// Where the corpora live (`<dir>/S`, `<dir>/M`, `<dir>/L`).
    pub dir: PathBuf,
    /// The corpus seed.
    pub seed: u64,
    /// Regenerate corpora even when current ones exist.
    pub regenerate: bool,
    /// Fewer rounds: a smoke run.
    pub quick: bool,
    /// The `agent-memory` command to time as a process.
    pub cli: Option<PathBuf>,
    /// The ripgrep executable.
    pub rg: String,
    /// A Python with the `agent_memory` package installed, for the cold
    /// start rows.
    pub python: Option<PathBuf>,
    /// The Node package directory (`hosts/node`, transpiled), for the cold
    /// start rows.
    pub node: Option<PathBuf>,
}

/// A corpus ready to measure.
struct Corpus {
    size: Size,
    root: PathBuf,
    manifest: Manifest,
    /// Bytes in the files literal search reads (all but the scratchpad,
    /// which ranked search reads too).
    searched_bytes: u64,
    /// How it was obtained, for the corpus table.
    origin: String,
}

impl Corpus {
    fn project_dir(&self) -> String {
        format!("projects/{}", self.manifest.slug())
    }
}

/// The host-side contenders for one corpus.
struct Opened {
    component: agent_memory::Memory,
    native: core::Memory,
}

fn open_options(root: &Path) -> Result<OpenOptions> {
    let now = DateTime::parse_from_rfc3339(corpus::NOW)?;
    Ok(OpenOptions::new(root, corpus::PROJECT).now(now))
}

fn native_options() -> Result<core::Options> {
    let now = DateTime::parse_from_rfc3339(corpus::NOW)?;
    let mut options = core::Options::new(corpus::PROJECT);
    options.clock = core::Clock {
        utc_offset_minutes: now.offset().local_minus_utc() / 60,
        fixed_unix_seconds: Some(now.timestamp()),
    };
    Ok(options)
}

fn open(runtime: &Runtime, root: &Path) -> Result<Opened> {
    Ok(Opened {
        component: runtime.open(open_options(root)?)?,
        native: core::Memory::open(root, native_options()?)
            .map_err(|e| anyhow!("native open: {e}"))?,
    })
}

/// Everything printed at the end.
#[derive(Default)]
struct Report {
    /// Where this process's runtime got its machine code.
    code_origin: &'static str,
    corpora: Vec<String>,
    search: Vec<String>,
    linearity: Vec<String>,
    context: Vec<String>,
    processes: Vec<String>,
    cold: Vec<String>,
    operations: Vec<String>,
    memory: Vec<String>,
    notes: Vec<String>,
    targets: Targets,
    ranked: Vec<String>,
    first: Vec<String>,
    /// Where a warm ranked process's time goes, per size: (size, rows).
    breakdown: Vec<(Size, Vec<(String, Duration)>)>,
    /// Ranked processes against `rg -j1 -c` on M and its dense variant.
    many_words: Vec<String>,
    /// The load average when the run began.
    load_start: String,
}

/// The 1, 5 and 15-minute load averages, as `/proc/loadavg` gives them.
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}

/// Peak RSS of the component processes, in bytes.
#[derive(Default, Clone, Copy)]
struct Peaks {
    /// The `memory_search` tool call.
    tool: Option<u64>,
    /// The `search` call, every hit lifted into the host.
    search: Option<u64>,
    /// `agent-memory call memory_search`, ranked, warm index.
    ranked: Option<u64>,
    /// The same, the index deleted first.
    ranked_first: Option<u64>,
}

#[derive(Default)]
struct Targets {
    /// Worst component/native and component/rg -j1 ratios of search on M.
    search_vs_native: Option<f64>,
    search_vs_rg: Option<f64>,
    /// Context block through the component, warm, on M.
    context_component: Option<Duration>,
    /// `agent-memory context`, warm, on M.
    context_process: Option<Duration>,
    /// Peak RSS of the component searches over L.
    peak_rss: Peaks,
    /// Component search time per MB, the largest size over the one before
    /// (1.0 is linear, above it superlinear).
    linearity: Option<(Size, Size, f64)>,
    /// Worst warm ranked `call memory_search` process over `rg -j1` on M.
    ranked_vs_rg: Option<f64>,
    /// Worst literal `call memory_search` process over `rg -j1` on M.
    literal_vs_rg: Option<f64>,
    /// Ranked process time of the scaling query per size.
    ranked_process: Vec<(Size, Duration)>,
    /// Worst warm ranked process over `rg -j1 -c`, 1, 3 and 8 words: on M
    /// and on its dense variant.
    many_words_m: Option<f64>,
    many_words_dense: Option<f64>,
    /// Cold start: the CLI's first call on a fresh install, Python's first
    /// process and a later one.
    cold_cli: Option<Duration>,
    cold_python_first: Option<Duration>,
    cold_python_later: Option<Duration>,
    cold_node: Option<Duration>,
}

/// The budget of the cold-start rows: every round compiles or starts a
/// process, so fewer rounds than elsewhere.
fn cold_budget(quick: bool) -> Budget {
    Budget {
        min_rounds: if quick { 1 } else { 5 },
        max_rounds: if quick { 1 } else { 30 },
        time: Duration::from_millis(if quick { 0 } else { 8000 }),
    }
}

/// Only the cold-start rows, with the machine and its load.
///
/// # Errors
/// When a contender's process fails.
pub fn cold_only(plan: &Plan) -> Result<()> {
    let load_start = load_average();
    let cold = cold::measure(
        plan,
        plan.cli.as_deref(),
        plan.python.as_deref(),
        plan.node.as_deref(),
        !plan.quick,
        cold_budget(plan.quick),
    )?;
    println!("\n{}", machine_line());
    println!(
        "Load (1, 5, 15-minute averages from /proc/loadavg): {load_start} at the start, {} at the end.\n",
        load_average()
    );
    println!("| process | median | CPU (user + system) | goal |\n|---|---|---|---|");
    for row in &cold.rows {
        println!("{row}");
    }
    Ok(())
}

/// The CPU model and how many cores there are.
fn machine_line() -> String {
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("model name")?.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("Machine: {cpu}, {cores} cores.")
}

/// Run the whole harness and print the tables.
///
/// # Errors
/// When a corpus cannot be generated or an operation fails.
pub fn run(plan: &Plan) -> Result<()> {
    let total = Instant::now();
    let mut report = Report {
        load_start: load_average(),
        ..Report::default()
    };
    let budget = |time_ms: u64, min: usize| Budget {
        min_rounds: if plan.quick { 2 } else { min },
        max_rounds: if plan.quick { 3 } else { 200 },
        time: Duration::from_millis(if plan.quick { 0 } else { time_ms }),
    };

    let rg = rg_version(&plan.rg);
    match &rg {
        Some(v) => eprintln!("using {v}"),
        None => report.notes.push(format!(
            "`{}` not found: the ripgrep columns are skipped. Install ripgrep (`apt-get install ripgrep`, `brew install ripgrep` or `cargo install ripgrep`) to fill them.",
            plan.rg
        )),
    }
    let cli = plan.cli.clone().filter(|p| p.is_file());
    if cli.is_none() {
        report.notes.push(format!(
            "the `agent-memory` command was not found{}: the process rows are skipped. Build it with `cargo build --release -p agent-memory`.",
            plan.cli
                .as_ref()
                .map(|p| format!(" at `{}`", p.display()))
                .unwrap_or_default()
        ));
    }

    let mut corpora = Vec::new();
    for &size in &plan.sizes {
        corpora.push(prepare(plan, size, false)?);
    }
    for c in &corpora {
        report.corpora.push(corpus_row(c, c.size.name()));
    }

    let t = Instant::now();
    let runtime = Runtime::shared()?;
    report.code_origin = match runtime.code_origin() {
        agent_memory::CodeOrigin::Embedded => "the artifact compiled when it was built (embedded)",
        agent_memory::CodeOrigin::Cache => "the compiled-component cache",
        _ => "a compile in the process (no usable build-time artifact, an empty cache)",
    };
    eprintln!(
        "runtime ready in {}; its machine code came from {}",
        fmt_duration(t.elapsed()),
        report.code_origin
    );

    let mut scaling: Vec<Scale> = Vec::new();
    for c in &corpora {
        eprintln!("== {} ({} files)", c.size.name(), c.manifest.files);
        let mut opened = open(runtime, &c.root)?;
        let search_budget = match c.size {
            Size::S => budget(1500, 10),
            Size::M => budget(4000, 7),
            Size::L => budget(6000, 3),
        };
        for (qi, (label, query)) in QUERIES.iter().enumerate() {
            let row = measure_search(c, &mut opened, query, rg.is_some(), &plan.rg, search_budget)?;
            eprintln!("   search {label}: {}", row.describe());
            if qi == LINEARITY_QUERY {
                scaling.push(Scale {
                    size: c.size,
                    files: c.manifest.files - 1,
                    bytes: c.searched_bytes,
                    times: [row.component, row.native, row.rg_j1],
                });
            }
            if c.size == Size::M {
                let t = &mut report.targets;
                let vs_native = row.ratio(row.component, row.native);
                t.search_vs_native = max_opt(t.search_vs_native, vs_native);
                let vs_rg = row.ratio(row.component, row.rg_j1);
                t.search_vs_rg = max_opt(t.search_vs_rg, vs_rg);
            }
            report.search.push(row.table_row(c.size, label));
        }

        let (component, native, bytes) = measure_context(&mut opened, budget(1500, 20))?;
        eprintln!(
            "   context block: component {} native {}",
            fmt_duration(component),
            fmt_duration(native)
        );
        report.context.push(format!(
            "| {} | {} | {} | {} | {} |",
            c.size.name(),
            fmt_duration(component),
            fmt_duration(native),
            fmt_ratio(component, native),
            bytes
        ));
        if c.size == Size::M {
            report.targets.context_component = Some(component);
        }

        let warm_cache = plan.dir.join("cache").join("warm");
        let (first_component, first_process) = ranked::first_after_delete(
            c,
            &mut opened,
            cli.as_deref(),
            &warm_cache,
            if plan.quick { 1 } else { 5 },
        )?;
        eprintln!(
            "   first ranked search after deleting the index: component {} process {}",
            fmt_duration(first_component),
            opt_duration(first_process)
        );
        for (qi, (label, query)) in QUERIES.iter().enumerate() {
            let row = ranked::measure(
                c,
                &mut opened,
                query,
                cli.as_deref(),
                rg.as_ref().map(|_| plan.rg.as_str()),
                &warm_cache,
                search_budget,
            )?;
            let line = row.table_row(c.size.name(), label);
            eprintln!("   ranked {label}: {line}");
            if c.size == Size::M {
                let t = &mut report.targets;
                let r = |a: Option<Duration>, b: Option<Duration>| {
                    Some(a?.as_secs_f64() / b?.as_secs_f64())
                };
                t.ranked_vs_rg = max_opt(t.ranked_vs_rg, r(row.ranked_process, row.rg_j1));
                t.literal_vs_rg = max_opt(t.literal_vs_rg, r(row.literal_process, row.rg_j1));
            }
            if qi == LINEARITY_QUERY
                && let Some(d) = row.ranked_process
            {
                report.targets.ranked_process.push((c.size, d));
            }
            report.ranked.push(line);
        }
        report.first.push(format!(
            "| {} | {} | {} |",
            c.size.name(),
            fmt_duration(first_component),
            opt_duration(first_process)
        ));
        if let Some(cli) = &cli
            && c.size >= Size::M
        {
            let rows = ranked::process_breakdown(c, cli, &warm_cache, budget(2000, 10))?;
            report.breakdown.push((c.size, rows));
        }
        if let Some(cli) = &cli
            && rg.is_some()
            && c.size == Size::M
        {
            let dense = prepare(plan, Size::M, true)?;
            report.corpora.push(corpus_row(&dense, "M dense"));
            for (corpus, name, slot) in [(c, "M", 0), (&dense, "M dense", 1)] {
                eprintln!("   many words against rg -j1 -c on {name}");
                let rows = ranked::against_rg_count(
                    corpus,
                    cli,
                    &plan.rg,
                    &warm_cache,
                    &QUERIES[..3],
                    search_budget,
                )?;
                for (label, row) in rows {
                    let line = row.table_row(name, &label);
                    eprintln!("   {line}");
                    let t = &mut report.targets;
                    let worst = if slot == 0 {
                        &mut t.many_words_m
                    } else {
                        &mut t.many_words_dense
                    };
                    *worst = max_opt(*worst, Some(row.ratio()));
                    report.many_words.push(line);
                }
            }
        }

        if let Some(cli) = &cli {
            let rows = measure_processes(plan, c, cli, budget(2000, 10), budget(1, 5))?;
            if c.size == Size::M {
                report.targets.context_process = Some(rows.context_warm);
            }
            report.processes.push(rows.table_row(c.size));
        }
    }

    report.linearity = linearity_rows(&scaling, &mut report.targets);

    eprintln!("== cold start");
    // Compiling in a debug build takes half a minute a round: not in --quick.
    let cold = cold::measure(
        plan,
        cli.as_deref(),
        plan.python.as_deref(),
        plan.node.as_deref(),
        !plan.quick,
        cold_budget(plan.quick),
    )?;
    report.cold = cold.rows;
    report.targets.cold_cli = cold.cli;
    report.targets.cold_python_first = cold.python_first;
    report.targets.cold_python_later = cold.python_later;
    report.targets.cold_node = cold.node;

    eprintln!("== operations");
    report.operations = measure_operations(runtime, &plan.dir, budget(1500, 20))?;

    if let Some(largest) = corpora.iter().max_by_key(|c| c.size) {
        eprintln!("== peak memory on {}", largest.size.name());
        let (rows, peaks) = measure_peak_memory(plan, largest, rg.is_some(), cli.as_deref())?;
        report.memory = rows;
        if largest.size == Size::L {
            report.targets.peak_rss = peaks;
        }
    }

    print_report(&report, plan, rg.as_deref(), total.elapsed());
    Ok(())
}

fn corpus_row(c: &Corpus, name: &str) -> String {
    format!(
        "| {name} | {} | {} | {} | {} | {} | {} |",
        c.manifest.files,
        fmt_mb(c.manifest.bytes),
        c.manifest.daily,
        c.manifest.notes,
        fmt_mb(c.searched_bytes),
        c.origin
    )
}

fn max_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// The corpus for `size`: reused when the manifest says it is current,
/// generated otherwise.
fn prepare(plan: &Plan, size: Size, dense: bool) -> Result<Corpus> {
    let dir = if dense {
        format!("{}-dense", size.name())
    } else {
        size.name().to_string()
    };
    let root = plan.dir.join(dir);
    let current = Manifest::read(&root).filter(|m| m.is_current(size, plan.seed, dense));
    let (manifest, origin) = match current {
        Some(m) if !plan.regenerate => (m, "reused".to_string()),
        _ => {
            eprintln!("generating corpus {} in {}", size.name(), root.display());
            let t = Instant::now();
            let m = corpus::generate_variant(size, plan.seed, dense, &root)?;
            (m, format!("generated in {}", fmt_duration(t.elapsed())))
        }
    };
    let project = root.join("projects").join(manifest.slug());
    let mut searched_bytes = fs::metadata(root.join("MEMORY.md"))?.len();
    for dir in ["daily", "notes"] {
        for entry in fs::read_dir(project.join(dir))? {
            searched_bytes += entry?.metadata()?.len();
        }
    }
    Ok(Corpus {
        size,
        root,
        manifest,
        searched_bytes,
        origin,
    })
}

fn rg_version(rg: &str) -> Option<String> {
    let out = Command::new(rg).arg("--version").output().ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("ripgrep")
            .to_string()
    })
}

/// `rg -i -F` over exactly the files search reads, with the query's terms.
fn rg_command(rg: &str, c: &Corpus, query: &str, threads: Option<u32>) -> Command {
    rg_command_with(rg, c, query, threads, &[])
}

fn rg_command_with(
    rg: &str,
    c: &Corpus,
    query: &str,
    threads: Option<u32>,
    extra: &[&str],
) -> Command {
    let mut cmd = Command::new(rg);
    cmd.current_dir(&c.root)
        .args(["--no-config", "-i", "-F"])
        .args(extra);
    if let Some(j) = threads {
        cmd.arg(format!("-j{j}"));
    }
    for term in query.split_whitespace() {
        cmd.arg("-e").arg(term);
    }
    let pd = c.project_dir();
    cmd.arg("--")
        .arg("MEMORY.md")
        .arg(format!("{pd}/notes"))
        .arg(format!("{pd}/daily"));
    cmd
}

struct SearchRow {
    component: Option<Duration>,
    native: Option<Duration>,
    rg_j1: Option<Duration>,
    rg: Option<Duration>,
    rounds: usize,
    files_hit: usize,
    lines_ours: u64,
    lines_rg: Option<u64>,
    identical: bool,
}

impl SearchRow {
    fn ratio(&self, a: Option<Duration>, b: Option<Duration>) -> Option<f64> {
        Some(a?.as_secs_f64() / b?.as_secs_f64())
    }

    fn describe(&self) -> String {
        format!(
            "component {} native {} rg -j1 {} rg {} ({} rounds)",
            opt_duration(self.component),
            opt_duration(self.native),
            opt_duration(self.rg_j1),
            opt_duration(self.rg),
            self.rounds
        )
    }

    fn table_row(&self, size: Size, label: &str) -> String {
        let ratio = |a, b| {
            self.ratio(a, b)
                .map_or("-".to_string(), |r| format!("{r:.2}x"))
        };
        let lines = match self.lines_rg {
            Some(rg) if rg == self.lines_ours => format!("{} = rg", self.lines_ours),
            Some(rg) => format!("{} (rg {rg})", self.lines_ours),
            None => self.lines_ours.to_string(),
        };
        format!(
            "| {} | {label} | {} | {} | {} | {} | {} | {} | {} | {} |{}",
            size.name(),
            opt_duration(self.component),
            opt_duration(self.native),
            opt_duration(self.rg_j1),
            opt_duration(self.rg),
            ratio(self.component, self.native),
            ratio(self.component, self.rg_j1),
            self.files_hit,
            lines,
            if self.identical {
                ""
            } else {
                " component and native results DIFFER"
            }
        )
    }
}

fn opt_duration(d: Option<Duration>) -> String {
    d.map_or("-".into(), fmt_duration)
}

fn measure_search(
    c: &Corpus,
    opened: &mut Opened,
    query: &str,
    with_rg: bool,
    rg: &str,
    budget: Budget,
) -> Result<SearchRow> {
    let Opened { component, native } = opened;
    let mut contenders: Vec<Contender<'_>> = vec![
        (
            "component search",
            Box::new(|| {
                component.search_with(query, agent_memory::SearchMode::Literal)?;
                Ok(())
            }),
        ),
        (
            "native search",
            Box::new(|| {
                native.search(query).map_err(|e| anyhow!("{e}"))?;
                Ok(())
            }),
        ),
    ];
    if with_rg {
        contenders.push((
            "rg -j1",
            Box::new(|| run_quiet(&mut rg_command(rg, c, query, Some(1))).map(drop)),
        ));
        contenders.push((
            "rg",
            Box::new(|| run_quiet(&mut rg_command(rg, c, query, None)).map(drop)),
        ));
    }
    let samples = interleaved(budget, &mut contenders)?;
    drop(contenders);

    // Check the two implementations agree and count matched lines.
    let ours = component.search_with(query, agent_memory::SearchMode::Literal)?;
    let theirs = native.search(query).map_err(|e| anyhow!("{e}"))?;
    let identical = ours.hits.len() == theirs.hits.len()
        && ours.hits.iter().zip(&theirs.hits).all(|(a, b)| {
            a.path == b.path
                && a.body == b.body
                && a.total_hits as usize == b.total_hits
                && a.matched_terms == b.matched_terms
                && a.filename_only == b.filename_only
        })
        && ours
            .terms
            .iter()
            .zip(&theirs.terms)
            .all(|(a, (term, count))| a.term == *term && a.count as usize == *count);
    let lines_ours = ours.hits.iter().map(|h| u64::from(h.total_hits)).sum();
    let lines_rg = if with_rg {
        let out = rg_command_with(rg, c, query, None, &["--count"]).output()?;
        Some(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| l.rsplit(':').next()?.parse::<u64>().ok())
                .sum(),
        )
    } else {
        None
    };
    let get = |i: usize| samples.get(i).map(|s| s.median());
    Ok(SearchRow {
        component: get(0),
        native: get(1),
        rg_j1: get(2),
        rg: get(3),
        rounds: samples[0].len(),
        files_hit: ours.hits.iter().filter(|h| !h.filename_only).count(),
        lines_ours,
        lines_rg,
        identical,
    })
}

fn measure_context(opened: &mut Opened, budget: Budget) -> Result<(Duration, Duration, usize)> {
    let Opened { component, native } = opened;
    let block = component.context_block()?.unwrap_or_default();
    let samples = interleaved(
        budget,
        &mut [
            (
                "component context block",
                Box::new(|| {
                    component.context_block()?;
                    Ok(())
                }),
            ),
            (
                "native context block",
                Box::new(|| {
                    native.context_block().map_err(|e| anyhow!("{e}"))?;
                    Ok(())
                }),
            ),
        ],
    )?;
    Ok((samples[0].median(), samples[1].median(), block.len()))
}

struct ProcessRow {
    context_cold: Duration,
    context_warm: Duration,
    search_warm: Duration,
}

impl ProcessRow {
    fn table_row(&self, size: Size) -> String {
        format!(
            "| {} | {} | {} | {} |",
            size.name(),
            fmt_duration(self.context_cold),
            fmt_duration(self.context_warm),
            fmt_duration(self.search_warm),
        )
    }
}

fn cli_command(cli: &Path, c: &Corpus, cache: &Path) -> Command {
    let mut cmd = Command::new(cli);
    cmd.env("AGENT_MEMORY_CACHE_DIR", cache)
        .arg("--root")
        .arg(&c.root)
        .arg("--project")
        .arg(corpus::PROJECT)
        .arg("--now")
        .arg(corpus::NOW);
    cmd
}

/// `agent-memory context` cold (an empty compiled-component cache each time)
/// and warm, and `agent-memory search` warm.
fn measure_processes(
    plan: &Plan,
    c: &Corpus,
    cli: &Path,
    warm: Budget,
    cold: Budget,
) -> Result<ProcessRow> {
    let caches = plan.dir.join("cache");
    fs::create_dir_all(&caches)?;
    let warm_cache = caches.join("warm");
    let query = QUERIES[LINEARITY_QUERY].1;
    let mut n = 0u32;
    let cold_samples = interleaved(
        cold,
        &mut [(
            "agent-memory context (cold)",
            Box::new(|| {
                n += 1;
                let fresh = tempfile::Builder::new()
                    .prefix("cold-")
                    .tempdir_in(&caches)?;
                let dir = fresh.path().join(format!("c{n}"));
                run_quiet(cli_command(cli, c, &dir).arg("context")).map(drop)
            }),
        )],
    )?;
    let warm_samples = interleaved(
        warm,
        &mut [
            (
                "agent-memory context (warm)",
                Box::new(|| run_quiet(cli_command(cli, c, &warm_cache).arg("context")).map(drop)),
            ),
            (
                "agent-memory search (warm)",
                Box::new(|| {
                    let mut cmd = cli_command(cli, c, &warm_cache);
                    cmd.arg("search").args(query.split_whitespace());
                    run_quiet(&mut cmd).map(drop)
                }),
            ),
        ],
    )?;
    let row = ProcessRow {
        context_cold: cold_samples[0].median(),
        context_warm: warm_samples[0].median(),
        search_warm: warm_samples[1].median(),
    };
    eprintln!(
        "   agent-memory context: cold {} warm {}; search warm {}",
        fmt_duration(row.context_cold),
        fmt_duration(row.context_warm),
        fmt_duration(row.search_warm)
    );
    Ok(row)
}

/// Writes, opening an instance and a trivial call, on a fresh store (never
/// on a corpus, which must stay as generated).
fn measure_operations(runtime: &Runtime, dir: &Path, budget: Budget) -> Result<Vec<String>> {
    fs::create_dir_all(dir)?;
    let scratch = tempfile::Builder::new().prefix("ops-").tempdir_in(dir)?;
    let croot = scratch.path().join("component");
    let nroot = scratch.path().join("native");
    fs::create_dir_all(&nroot)?;
    let mut component = runtime.open(open_options(&croot)?)?;
    let native = core::Memory::open(&nroot, native_options()?).map_err(|e| anyhow!("{e}"))?;
    let line = "- a fact worth keeping, appended by the benchmark\n";
    let page = "A note of about two kilobytes, overwritten whole each time.\n".repeat(34);
    let mut rows = Vec::new();
    let nerr = |e: core::Error| anyhow!("{e}");

    let s = interleaved(
        budget,
        &mut [
            (
                "component append",
                Box::new(|| {
                    component.write(WriteTarget::Note, line, WriteMode::Append, Some("log"))?;
                    Ok(())
                }),
            ),
            (
                "native append",
                Box::new(|| {
                    native
                        .write(
                            core::WriteTarget::Note,
                            line,
                            core::WriteMode::Append,
                            Some("log"),
                        )
                        .map_err(nerr)?;
                    Ok(())
                }),
            ),
        ],
    )?;
    rows.push(op_row(
        "append a line to a note (lock, fsync)",
        s[0].median(),
        Some(s[1].median()),
    ));

    let s = interleaved(
        budget,
        &mut [
            (
                "component overwrite",
                Box::new(|| {
                    component.write(
                        WriteTarget::Note,
                        &page,
                        WriteMode::Overwrite,
                        Some("page"),
                    )?;
                    Ok(())
                }),
            ),
            (
                "native overwrite",
                Box::new(|| {
                    native
                        .write(
                            core::WriteTarget::Note,
                            &page,
                            core::WriteMode::Overwrite,
                            Some("page"),
                        )
                        .map_err(nerr)?;
                    Ok(())
                }),
            ),
        ],
    )?;
    rows.push(op_row(
        "overwrite a 2 KB note (temp, fsync, rename)",
        s[0].median(),
        Some(s[1].median()),
    ));

    let options = open_options(&croot)?;
    let s = interleaved(
        budget,
        &mut [
            (
                "component open",
                Box::new(|| {
                    drop(runtime.open(options.clone())?);
                    Ok(())
                }),
            ),
            (
                "native open",
                Box::new(|| {
                    drop(core::Memory::open(&nroot, native_options()?).map_err(nerr)?);
                    Ok(())
                }),
            ),
        ],
    )?;
    rows.push(op_row(
        "open: fresh instance + `open` call",
        s[0].median(),
        Some(s[1].median()),
    ));

    let trivial = per_call(budget, 1000, || {
        component.estimate_tokens("x")?;
        Ok(())
    })?;
    // Natively this is a division: nothing to compare with.
    rows.push(op_row("trivial call (`estimate-tokens`)", trivial, None));
    for row in &rows {
        eprintln!("   {row}");
    }
    Ok(rows)
}

fn op_row(what: &str, component: Duration, native: Option<Duration>) -> String {
    format!(
        "| {what} | {} | {} | {} |",
        fmt_duration(component),
        opt_duration(native),
        native.map_or("-".into(), |n| fmt_ratio(component, n))
    )
}

/// Peak RSS of one search of the 8-term query in a fresh process, for the
/// component, the native core and ripgrep; plus the component process doing
/// no search, as the baseline of the runtime itself.
fn measure_peak_memory(
    plan: &Plan,
    c: &Corpus,
    with_rg: bool,
    cli: Option<&Path>,
) -> Result<(Vec<String>, Peaks)> {
    let exe = std::env::current_exe()?;
    let cache = plan.dir.join("cache").join("warm");
    let out = plan.dir.join("peak-rss.out");
    let query = QUERIES[MEMORY_QUERY].1;
    let child = |backend: &str, query: &str| {
        let mut cmd = Command::new(&exe);
        cmd.env("AGENT_MEMORY_CACHE_DIR", &cache)
            .arg("search-once")
            .arg("--backend")
            .arg(backend)
            .arg("--root")
            .arg(&c.root)
            .arg("--query")
            .arg(query);
        cmd
    };
    // Prime the compiled-component cache so no run pays for compilation.
    run_quiet(&mut child("component", ""))?;
    let mut rows = Vec::new();
    let mut peaks = Peaks::default();
    let mut cases: Vec<(String, Command)> = vec![
        (
            "floor: `true` started the same way".into(),
            Command::new("true"),
        ),
        (
            "component: open only, no search".into(),
            child("component", ""),
        ),
        (
            "component: `memory_search` tool call (search and render in the guest)".into(),
            child("component-tool", query),
        ),
        (
            "component: `search` (every hit's body lifted into the host)".into(),
            child("component", query),
        ),
        (
            "native: `memory_search` tool call".into(),
            child("native-tool", query),
        ),
        ("native: `search`".into(), child("native", query)),
    ];
    if let Some(cli) = cli {
        let call = |first: bool| {
            let json = serde_json::json!({ "query": query }).to_string();
            let mut cmd = Command::new("sh");
            // The index deleted first (`rm` is a process of its own, far
            // smaller) or kept from the run before.
            let rm = if first {
                "rm -rf \"$0/.store/index\"; "
            } else {
                ""
            };
            cmd.arg("-c")
                .arg(format!("{rm}exec \"$1\" --root \"$0\" --project \"$2\" --now \"$3\" call memory_search \"$4\""))
                .arg(&c.root)
                .arg(cli)
                .arg(corpus::PROJECT)
                .arg(corpus::NOW)
                .arg(json)
                .env("AGENT_MEMORY_CACHE_DIR", &cache);
            cmd
        };
        cases.push((
            "process: `agent-memory call memory_search` ranked, warm index".into(),
            call(false),
        ));
        cases.push((
            "process: the same, index deleted first (rebuilt)".into(),
            call(true),
        ));
    }
    if with_rg {
        cases.push((
            "rg -i -F -j1, same terms".into(),
            rg_command(&plan.rg, c, query, Some(1)),
        ));
        cases.push((
            "rg -i -F, same terms".into(),
            rg_command(&plan.rg, c, query, None),
        ));
    }
    for (i, (label, cmd)) in cases.into_iter().enumerate() {
        // Best of three: the peak is stable, the wall time is noisy.
        let mut best: Option<(Duration, u64)> = None;
        for _ in 0..3 {
            let (wall, rss) = crate::measure::peak_rss(&cmd, &out)?;
            best = Some(match best {
                Some((w, r)) => (w.min(wall), r.max(rss)),
                None => (wall, rss),
            });
        }
        let (wall, rss) = best.expect("three runs");
        match i {
            2 => peaks.tool = Some(rss),
            3 => peaks.search = Some(rss),
            6 if cli.is_some() => peaks.ranked = Some(rss),
            7 if cli.is_some() => peaks.ranked_first = Some(rss),
            _ => {}
        }
        eprintln!("   {label}: {} MB, {}", rss / 1_000_000, fmt_duration(wall));
        rows.push(format!(
            "| {label} | {:.1} MB | {} |",
            rss as f64 / 1e6,
            fmt_duration(wall)
        ));
    }
    let _ = fs::remove_file(&out);
    Ok((rows, peaks))
}

/// One size's search times, for the scaling table.
struct Scale {
    size: Size,
    /// Files literal search reads (all but the scratchpad).
    files: usize,
    /// Bytes searched.
    bytes: u64,
    /// Component, native, `rg -j1`.
    times: [Option<Duration>; 3],
}

/// Per-MB times for each size, and a cost model `a` per file + `b` per MB
/// fitted to the two largest sizes: search reads every file once, so its
/// time should be linear in files and bytes, with no term that grows
/// faster.
fn linearity_rows(scales: &[Scale], targets: &mut Targets) -> Vec<String> {
    let ms = |d: Option<Duration>| d.map(|d| d.as_secs_f64() * 1e3);
    let per_mb = |d: Option<Duration>, bytes: u64| ms(d).map(|t| t / (bytes as f64 / 1e6));
    let fmt = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2} ms/MB"));
    let mut rows = Vec::new();
    for s in scales {
        rows.push(format!(
            "| {} | {} | {} | {} | {} | {} |",
            s.size.name(),
            s.files,
            fmt_mb(s.bytes),
            fmt(per_mb(s.times[0], s.bytes)),
            fmt(per_mb(s.times[1], s.bytes)),
            fmt(per_mb(s.times[2], s.bytes)),
        ));
    }
    if let [.., small, large] = scales {
        // Solve files·a + MB·b = ms for the two sizes.
        let fit = |i: usize| -> Option<(f64, f64)> {
            let (t1, t2) = (ms(small.times[i])?, ms(large.times[i])?);
            let (f1, f2) = (small.files as f64, large.files as f64);
            let (m1, m2) = (small.bytes as f64 / 1e6, large.bytes as f64 / 1e6);
            let det = f1 * m2 - f2 * m1;
            if det.abs() < f64::EPSILON {
                return None;
            }
            let a = (t1 * m2 - t2 * m1) / det;
            let b = (f1 * t2 - f2 * t1) / det;
            Some((a * 1e3, b))
        };
        let model = |name: &str, i: usize| {
            fit(i).map(|(a, b)| format!("{name} ≈ {a:.1} µs per file + {b:.2} ms per MB"))
        };
        let models: Vec<String> = [("component", 0), ("native", 1), ("rg -j1", 2)]
            .iter()
            .filter_map(|&(name, i)| model(name, i))
            .collect();
        if !models.is_empty() {
            rows.push(String::new());
            rows.push(format!(
                "Fitted to {} and {}: {}.",
                small.size.name(),
                large.size.name(),
                models.join("; ")
            ));
        }
        if let (Some(a), Some(b)) = (
            per_mb(small.times[0], small.bytes),
            per_mb(large.times[0], large.bytes),
        ) {
            targets.linearity = Some((small.size, large.size, b / a));
        }
    }
    rows
}

fn print_report(r: &Report, plan: &Plan, rg: Option<&str>, elapsed: Duration) {
    let mut out = String::new();
    let _ = writeln!(out, "\n# agent-memory benchmark\n");
    let _ = writeln!(
        out,
        "{} {}. Seed {}. Medians of interleaved rounds, warm page cache; \
         ripgrep and `agent-memory` times are whole processes.\n",
        machine_line(),
        rg.unwrap_or("ripgrep not installed"),
        plan.seed
    );
    let _ = writeln!(
        out,
        "Load (1, 5, 15-minute averages from /proc/loadavg): {} at the start, {} at the end.\n",
        r.load_start,
        load_average()
    );
    let _ = writeln!(out, "## Corpora\n");
    let _ = writeln!(
        out,
        "| size | files | bytes | daily logs | notes | searched bytes | corpus |\n|---|---|---|---|---|---|---|"
    );
    for row in &r.corpora {
        let _ = writeln!(out, "{row}");
    }
    let _ = writeln!(
        out,
        "\n## Search (`search`; rg = `rg -i -F -e T...` over the same files)\n"
    );
    let _ = writeln!(
        out,
        "| size | query | component | native | rg -j1 | rg | comp/native | comp/rg -j1 | files hit | lines matched |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    for row in &r.search {
        let _ = writeln!(out, "{row}");
    }
    let _ = writeln!(
        out,
        "\nQueries: {}.\n",
        QUERIES
            .iter()
            .map(|(l, q)| format!("{l} `{q}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        out,
        "## Ranked search through the index (warm: the index built by an earlier search)\n\n\
         component and native are in-process; the process columns are whole \
         `agent-memory call memory_search '{{\"query\": …, \"mode\": …}}'` runs, rg is `rg -j1 -i -F`.\n"
    );
    let _ = writeln!(
        out,
        "| size | query | component | native | process ranked | process literal | rg -j1 | ranked/rg -j1 | literal/rg -j1 |\n|---|---|---|---|---|---|---|---|---|"
    );
    for row in &r.ranked {
        let _ = writeln!(out, "{row}");
    }
    let _ = writeln!(
        out,
        "\n## First ranked search after the index is deleted (query `{}`; it reads every file and writes the index)\n",
        QUERIES[LINEARITY_QUERY].1
    );
    let _ = writeln!(
        out,
        "| size | component, in-process | process |\n|---|---|---|"
    );
    for row in &r.first {
        let _ = writeln!(out, "{row}");
    }
    if !r.breakdown.is_empty() {
        let _ = writeln!(out, "\n## Where a warm ranked process spends its time\n");
        let sizes: Vec<&str> = r.breakdown.iter().map(|b| b.0.name()).collect();
        let _ = writeln!(
            out,
            "| process | {} |\n|---|{}",
            sizes.join(" | "),
            "---|".repeat(sizes.len())
        );
        for (i, (label, _)) in r.breakdown[0].1.iter().enumerate() {
            let cells: Vec<String> = r
                .breakdown
                .iter()
                .map(|b| b.1.get(i).map_or("-".into(), |d| fmt_duration(d.1)))
                .collect();
            let _ = writeln!(out, "| {label} | {} |", cells.join(" | "));
        }
        if let [.., m, l] = &r.breakdown[..]
            && let ([.., zm, qm], [.., zl, ql]) = (&m.1[..], &l.1[..])
        {
            // The zero-hit process is everything a search pays before its
            // matches (start, listing, a stat per file, the lookups); the
            // rest of the query's time is its matches.
            let growth = |a: Duration, b: Duration| b.as_secs_f64() / a.as_secs_f64();
            let rest = |q: Duration, z: Duration| q.saturating_sub(z);
            let _ = writeln!(
                out,
                "\nFrom {} to {}: the whole 3-term process grows {:.2}x; its zero-hit floor \
                 {:.2}x ({} to {}); the rest, the matches, {:.2}x ({} to {}).",
                m.0.name(),
                l.0.name(),
                growth(qm.1, ql.1),
                growth(zm.1, zl.1),
                fmt_duration(zm.1),
                fmt_duration(zl.1),
                growth(rest(qm.1, zm.1), rest(ql.1, zl.1)),
                fmt_duration(rest(qm.1, zm.1)),
                fmt_duration(rest(ql.1, zl.1)),
            );
        }
    }
    if !r.many_words.is_empty() {
        let _ = writeln!(
            out,
            "\n## Many-word queries: warm ranked `call memory_search` against `rg -j1 -i -F -c`\n\n\
             M dense is M's generator with the queries' words sprinkled through the text \
             (`agent-memory-bench corpus --size M --dense`): most query words occur in most files.\n"
        );
        let _ = writeln!(
            out,
            "| corpus | query | process ranked | rg -j1 -c | ratio | goal |\n|---|---|---|---|---|---|"
        );
        for row in &r.many_words {
            let _ = writeln!(out, "{row}");
        }
    }
    let _ = writeln!(
        out,
        "\n## Scaling: search time per MB searched (query `{}`)\n",
        QUERIES[LINEARITY_QUERY].1
    );
    let _ = writeln!(
        out,
        "| size | files | searched | component | native | rg -j1 |\n|---|---|---|---|---|---|"
    );
    for row in &r.linearity {
        let _ = writeln!(out, "{row}");
    }
    let _ = writeln!(out, "\n## Context block (`context-block`, warm)\n");
    let _ = writeln!(
        out,
        "| size | component | native | comp/native | block bytes |\n|---|---|---|---|---|"
    );
    for row in &r.context {
        let _ = writeln!(out, "{row}");
    }
    if !r.processes.is_empty() {
        let _ = writeln!(out, "\n## The `agent-memory` command, whole process\n");
        let _ = writeln!(
            out,
            "| size | `context`, cold (empty compiled cache) | `context`, warm | `search {}`, warm |\n|---|---|---|---|",
            QUERIES[LINEARITY_QUERY].1
        );
        for row in &r.processes {
            let _ = writeln!(out, "{row}");
        }
    }
    let _ = writeln!(
        out,
        "\n## Cold start (a fresh process, an empty memory, a new empty compiled-component cache each run)\n"
    );
    let _ = writeln!(
        out,
        "| process | median | CPU (user + system) | goal |\n|---|---|---|---|"
    );
    for row in &r.cold {
        let _ = writeln!(out, "{row}");
    }
    let _ = writeln!(
        out,
        "\nThis benchmark's own runtime got its machine code from {}.",
        r.code_origin
    );
    let _ = writeln!(out, "\n## Operations (a fresh store)\n");
    let _ = writeln!(
        out,
        "| operation | component | native | comp/native |\n|---|---|---|---|"
    );
    for row in &r.operations {
        let _ = writeln!(out, "{row}");
    }
    if !r.memory.is_empty() {
        let _ = writeln!(
            out,
            "\n## Peak memory of one search over the largest corpus (fresh process, maxrss)\n"
        );
        let _ = writeln!(out, "| process | peak RSS | wall |\n|---|---|---|");
        for row in &r.memory {
            let _ = writeln!(out, "{row}");
        }
    }
    let _ = writeln!(out, "\n## Targets\n");
    let _ = writeln!(out, "| target | measured | met |\n|---|---|---|");
    let t = &r.targets;
    let verdict = |ok: bool| if ok { "yes" } else { "no" };
    let mut target = |name: &str, value: Option<String>, ok: Option<bool>| {
        let _ = writeln!(
            out,
            "| {name} | {} | {} |",
            value.unwrap_or_else(|| "not measured".into()),
            ok.map_or("-", verdict)
        );
    };
    target(
        "component search ≤ 1.3x native on M (worst query)",
        t.search_vs_native.map(|r| format!("{r:.2}x")),
        t.search_vs_native.map(|r| r <= 1.3),
    );
    target(
        "component search ≤ 2x `rg -j1` on M (worst query)",
        t.search_vs_rg.map(|r| format!("{r:.2}x")),
        t.search_vs_rg.map(|r| r <= 2.0),
    );
    // The rows whose figure is a time against a time goal.
    let timed = [
        (
            "context block ≤ 1 ms warm through the component (M)",
            t.context_component,
            Duration::from_millis(1),
        ),
        (
            "`agent-memory context` ≤ 20 ms warm (M)",
            t.context_process,
            Duration::from_millis(20),
        ),
        (
            "`agent-memory context` on a fresh install (empty compiled cache) ≤ 200 ms",
            t.cold_cli,
            cold::CLI_GOAL,
        ),
        (
            "Python: open and first write, first process after install ≤ 500 ms",
            t.cold_python_first,
            cold::HOST_FIRST_GOAL,
        ),
        (
            "Python: open and first write, a later process ≤ 300 ms",
            t.cold_python_later,
            cold::HOST_LATER_GOAL,
        ),
        (
            "Node: open and first write, first process after install ≤ 500 ms",
            t.cold_node,
            cold::HOST_FIRST_GOAL,
        ),
        (
            "Node: open and first write, a later process ≤ 300 ms (V8 compiles in every process)",
            t.cold_node,
            cold::HOST_LATER_GOAL,
        ),
    ];
    for (name, value, goal) in timed {
        target(name, value.map(fmt_duration), value.map(|d| d <= goal));
    }
    let mb = |b: u64| format!("{:.1} MB", b as f64 / 1e6);
    target(
        "peak RSS of a search over L ≤ 100 MB (`memory_search` tool call)",
        t.peak_rss.tool.map(mb),
        t.peak_rss.tool.map(|b| b <= 100_000_000),
    );
    target(
        "peak RSS of a search over L ≤ 100 MB (`search`, all hits to the host)",
        t.peak_rss.search.map(mb),
        t.peak_rss.search.map(|b| b <= 100_000_000),
    );
    target(
        "search time linear in corpus bytes (component ms/MB, largest size ÷ the one before)",
        t.linearity
            .map(|(a, b, r)| format!("{r:.2} ({} over {})", b.name(), a.name())),
        t.linearity.map(|(_, _, r)| r <= 1.2),
    );
    target(
        "warm ranked `call memory_search` ≤ 0.5x `rg -j1` on M (worst query; aim 0.3x)",
        t.ranked_vs_rg.map(|r| format!("{r:.2}x")),
        t.ranked_vs_rg.map(|r| r <= 0.5),
    );
    target(
        "warm ranked `call memory_search` ≤ 0.5x `rg -j1 -i -F -c` on M, 1, 3 and 8 words (worst)",
        t.many_words_m.map(|r| format!("{r:.2}x")),
        t.many_words_m.map(|r| r <= ranked::RANKED_GOAL),
    );
    target(
        "the same on M dense (most query words in most files)",
        t.many_words_dense.map(|r| format!("{r:.2}x")),
        t.many_words_dense.map(|r| r <= ranked::RANKED_GOAL),
    );
    target(
        "literal `call memory_search` ≤ 2x `rg -j1` on M (worst query)",
        t.literal_vs_rg.map(|r| format!("{r:.2}x")),
        t.literal_vs_rg.map(|r| r <= 2.0),
    );
    let growth = {
        let at = |s: Size| t.ranked_process.iter().find(|p| p.0 == s).map(|p| p.1);
        match (at(Size::M), at(Size::L)) {
            (Some(m), Some(l)) => Some(l.as_secs_f64() / m.as_secs_f64()),
            _ => None,
        }
    };
    target(
        "ranked process time M to L (10x bytes) grows ≤ 3x",
        growth.map(|g| format!("{g:.2}x")),
        growth.map(|g| g <= 3.0),
    );
    target(
        "peak RSS of a ranked `call memory_search` over L < 100 MB (warm index)",
        t.peak_rss.ranked.map(mb),
        t.peak_rss.ranked.map(|b| b < 100_000_000),
    );
    target(
        "peak RSS of a ranked `call memory_search` over L < 100 MB (index deleted first)",
        t.peak_rss.ranked_first.map(mb),
        t.peak_rss.ranked_first.map(|b| b < 100_000_000),
    );
    for note in &r.notes {
        let _ = writeln!(out, "\nNote: {note}");
    }
    let _ = writeln!(out, "\nWhole run: {}.", fmt_duration(elapsed));
    print!("{out}");
}

/// The `search-once` child: open, search `repeat` times, print the hit
/// count. Measures the peak memory of a search in a process of its own, and
/// gives `perf record` a process that does nothing else.
///
/// # Errors
/// When the store cannot be opened or searched.
pub fn search_once(
    backend: &str,
    root: &Path,
    query: &str,
    repeat: u32,
    component: Option<&Path>,
    mode: agent_memory::SearchMode,
) -> Result<()> {
    let mut hits = 0;
    let custom = match (backend, component) {
        ("component" | "component-tool", Some(path)) => Some(Runtime::from_file(path)?),
        _ => None,
    };
    let runtime = || -> Result<&Runtime> {
        Ok(match &custom {
            Some(runtime) => runtime,
            None => Runtime::shared()?,
        })
    };
    match backend {
        "component" => {
            let mut memory = runtime()?.open(open_options(root)?)?;
            if !query.is_empty() {
                for _ in 0..repeat {
                    hits = memory.search_with(query, mode)?.hits.len();
                }
            }
        }
        "component-tool" => {
            let mut memory = runtime()?.open(open_options(root)?)?;
            for _ in 0..repeat {
                hits = memory
                    .call_tool("memory_search", &tool_arguments(query))?
                    .len();
            }
        }
        "native" => {
            let memory = core::Memory::open(root, native_options()?)?;
            for _ in 0..repeat {
                hits = memory.search_with(query, mode)?.hits.len();
            }
        }
        "native-tool" => {
            let memory = core::Memory::open(root, native_options()?)?;
            for _ in 0..repeat {
                hits = core::tools::call(&memory, "memory_search", &tool_arguments(query))?.len();
            }
        }
        other => {
            return Err(anyhow!(
                "unknown backend {other:?}: expected component, component-tool, native or native-tool"
            ));
        }
    }
    println!("{hits}");
    Ok(())
}

/// `{"query": ...}` for the `memory_search` tool.
fn tool_arguments(query: &str) -> String {
    serde_json::json!({ "query": query }).to_string()
}

/// The default corpus directory: `target/bench-corpus` of this workspace.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("target"), |w| w.join("target"))
        .join("bench-corpus")
}

/// The `agent-memory` command next to this executable, if built.
pub fn default_cli() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let cli = exe
        .parent()?
        .join(format!("agent-memory{}", std::env::consts::EXE_SUFFIX));
    Some(cli)
}
