//! `agent-memory-bench`: generate realistic memory stores and measure
//! agent-memory on them against the native core and ripgrep.

mod anchors;
mod corpus;
mod eval;
mod hook;
mod measure;
mod rng;
mod run;
mod semantic;
mod words;
mod writes;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand};

use crate::corpus::{DEFAULT_SEED, Size};

/// Benchmarks for agent-memory: a deterministic corpus generator and a
/// harness that prints the sandbox's cost next to native code and ripgrep.
#[derive(Debug, Parser)]
#[command(name = "agent-memory-bench", version, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write a corpus: MEMORY.md, a scratchpad, daily logs and notes
    Corpus {
        /// S (~100 files, ~1 MB), M (~2,000 files, ~20 MB) or L (~10,000
        /// files, ~200 MB)
        #[arg(long)]
        size: Size,
        /// The directory to write (replaced if it holds an older corpus;
        /// refused if it holds anything else)
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// The seed; the same seed and size give the same bytes
        #[arg(long, default_value_t = DEFAULT_SEED)]
        seed: u64,
        /// The dense variant: the benchmark's query words sprinkled through
        /// the text, so that most of them occur in most files
        #[arg(long)]
        dense: bool,
    },
    /// Generate the corpora when missing or stale, measure, print the tables
    Run {
        /// Sizes to measure, comma-separated
        #[arg(long, value_delimiter = ',', default_value = "S,M,L")]
        sizes: Vec<Size>,
        /// Where the corpora and scratch files go [default: target/bench-corpus
        /// of this workspace]
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// The corpus seed
        #[arg(long, default_value_t = DEFAULT_SEED)]
        seed: u64,
        /// Regenerate the corpora even when current ones exist
        #[arg(long)]
        regenerate: bool,
        /// A smoke run: two or three rounds of everything
        #[arg(long)]
        quick: bool,
        /// The `agent-memory` command to time [default: next to this
        /// executable]
        #[arg(long, value_name = "PATH")]
        cli: Option<PathBuf>,
        /// The ripgrep executable
        #[arg(long, default_value = "rg", value_name = "PATH")]
        rg: String,
        /// A Python that has the `agent_memory` package installed (`pip
        /// install ./hosts/python`), for the cold-start rows [default: none,
        /// those rows are skipped]
        #[arg(long, value_name = "PATH")]
        python: Option<PathBuf>,
        /// The Node package directory with the component transpiled into
        /// `gen/` (`hosts/node` after `npm run build`), for the cold-start
        /// rows [default: none, those rows are skipped]
        #[arg(long, value_name = "DIR")]
        node: Option<PathBuf>,
    },
    /// Score search systems on the eval set (bench/eval): recall@5, MRR and
    /// nDCG@5 per category
    Eval {
        /// Which questions
        #[arg(long, value_enum, default_value_t = eval::Set::All)]
        set: eval::Set,
        /// The eval directory [default: bench/eval of this source tree]
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Print JSON instead of tables
        #[arg(long)]
        json: bool,
        /// Also list each question with the rank of its first answer per
        /// system
        #[arg(long)]
        per_question: bool,
    },
    /// Write latency through the component (warm, in-process) with history
    /// on and off, and the cost of the budget feedback of every write
    Writes {
        /// Where the scratch stores go (a tmpfs such as /dev/shm measures
        /// the code, a disk the fsyncs) [default: target/bench-writes of
        /// this workspace]
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// A smoke run: three rounds
        #[arg(long)]
        quick: bool,
        /// The `agent-memory` command to time whole appends with [default:
        /// next to this executable; skipped when missing]
        #[arg(long, value_name = "PATH")]
        cli: Option<PathBuf>,
    },
    /// Semantic recall's cost goals, each beside its goal: the first build
    /// of a 250 KB store, the query latency added to a warm search process,
    /// peak RSS, and the in-component build rate
    Semantic {
        /// Scratch directory, replaced [default: target/bench-semantic of
        /// this workspace]
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// The `agent-memory` command [default: next to this executable]
        #[arg(long, value_name = "PATH")]
        cli: Option<PathBuf>,
        /// The weights file [default: $AGENT_MEMORY_WEIGHTS, else
        /// embed/weights/all-minilm-l6-v2.int8.safetensors]
        #[arg(long, value_name = "PATH")]
        weights: Option<PathBuf>,
        /// Fewer rounds and a smaller in-component build
        #[arg(long)]
        quick: bool,
    },
    /// Run a command and report its peak RSS (the peak-memory wrapper)
    #[command(hide = true)]
    PeakRss {
        /// Where to write `<peak RSS bytes> <wall ns>`
        #[arg(long)]
        report: PathBuf,
        /// The command's working directory
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The command and its arguments
        #[arg(last = true, required = true)]
        command: Vec<std::ffi::OsString>,
    },
    /// Time the context block with 200 warm staleness anchors, through the
    /// component and natively, against no project directory
    Anchors {
        /// A few rounds only (a smoke run)
        #[arg(long)]
        quick: bool,
    },
    /// `agent-memory hook claude-code session-start` as a whole warm process
    /// on corpus M, beside `agent-memory context` (the goal: at most 30 ms)
    Hook {
        /// Where corpus M is (generated when missing) [default:
        /// target/bench-corpus of this workspace]
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// The `agent-memory` command to time [default: next to this
        /// executable]
        #[arg(long, value_name = "PATH")]
        cli: Option<PathBuf>,
        /// Timed runs of each command (interleaved)
        #[arg(long, default_value_t = 31)]
        runs: usize,
    },
    /// Only the cold-start rows of `run`, each with its goal: the CLI's first
    /// call on a fresh install, Python's and Node's first open and write
    Cold {
        /// Scratch directory [default: target/bench-corpus]
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// One round of each, no in-process compile row (a smoke run)
        #[arg(long)]
        quick: bool,
        /// The `agent-memory` command to time [default: next to this
        /// executable]
        #[arg(long, value_name = "PATH")]
        cli: Option<PathBuf>,
        /// A Python that has the `agent_memory` package installed
        #[arg(long, value_name = "PATH")]
        python: Option<PathBuf>,
        /// The Node package directory, transpiled (`hosts/node`)
        #[arg(long, value_name = "DIR")]
        node: Option<PathBuf>,
    },
    /// Open a store, search it once and exit (the peak-memory child)
    #[command(hide = true)]
    SearchOnce {
        /// `component` or `native`
        #[arg(long)]
        backend: String,
        /// The corpus root
        #[arg(long)]
        root: PathBuf,
        /// The query; empty opens without searching
        #[arg(long, default_value = "")]
        query: String,
        /// Search this many times (for profiling with `perf record`)
        #[arg(long, default_value_t = 1)]
        repeat: u32,
        /// Load this component instead of the embedded one (e.g. an
        /// unstripped build, for profiling)
        #[arg(long, value_name = "WASM")]
        component: Option<PathBuf>,
        /// `ranked` or `literal` (component and native backends)
        #[arg(long, default_value = "ranked")]
        mode: String,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Corpus {
            size,
            out,
            seed,
            dense,
        } => {
            let start = std::time::Instant::now();
            let m = corpus::generate_variant(size, seed, dense, &out)?;
            println!(
                "{}{}: {} files ({} daily logs, {} notes), {} bytes in {} ({:.1} s)",
                size.name(),
                if dense { " (dense)" } else { "" },
                m.files,
                m.daily,
                m.notes,
                m.bytes,
                out.display(),
                start.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Command::Run {
            mut sizes,
            dir,
            seed,
            regenerate,
            quick,
            cli,
            rg,
            python,
            node,
        } => {
            sizes.sort();
            sizes.dedup();
            run::run(&run::Plan {
                sizes,
                dir: dir.unwrap_or_else(run::default_dir),
                seed,
                regenerate,
                quick,
                cli: cli.or_else(run::default_cli),
                rg,
                python,
                node,
            })
        }
        Command::Eval {
            set,
            dir,
            json,
            per_question,
        } => {
            let reports = eval::run(&dir.unwrap_or_else(eval::default_dir), set)?;
            if json {
                println!("{:#}", eval::to_json(&reports));
            } else {
                for (i, report) in reports.iter().enumerate() {
                    if i > 0 {
                        println!();
                    }
                    print!("{}", eval::render_table(report));
                    if per_question {
                        println!();
                        print!("{}", eval::render_questions(report));
                    }
                }
            }
            Ok(())
        }
        Command::Writes { dir, quick, cli } => writes::run(
            &dir.unwrap_or_else(|| run::default_dir().with_file_name("bench-writes")),
            quick,
            cli.or_else(run::default_cli).as_deref(),
        ),
        Command::Semantic {
            dir,
            cli,
            weights,
            quick,
        } => {
            let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .map(std::path::Path::to_path_buf)
                .unwrap_or_default();
            let weights = weights
                .or_else(|| std::env::var_os("AGENT_MEMORY_WEIGHTS").map(PathBuf::from))
                .unwrap_or_else(|| {
                    workspace.join("embed/weights/all-minilm-l6-v2.int8.safetensors")
                });
            semantic::run(&semantic::Plan {
                dir: dir.unwrap_or_else(|| run::default_dir().with_file_name("bench-semantic")),
                cli: cli
                    .or_else(run::default_cli)
                    .ok_or_else(|| anyhow::anyhow!("no agent-memory command: pass --cli"))?,
                weights,
                sets: workspace.join("bench"),
                quick,
            })
        }
        Command::PeakRss {
            report,
            dir,
            command,
        } => measure::peak_rss_child(&report, dir.as_deref(), &command[0], &command[1..]),
        Command::Anchors { quick } => anchors::run(quick),
        Command::Hook { dir, cli, runs } => {
            let cli = cli
                .or_else(run::default_cli)
                .context("cannot find the agent-memory command; pass --cli PATH")?;
            hook::run(&dir.unwrap_or_else(run::default_dir), &cli, runs)
        }
        Command::Cold {
            dir,
            quick,
            cli,
            python,
            node,
        } => run::cold_only(&run::Plan {
            sizes: Vec::new(),
            dir: dir.unwrap_or_else(run::default_dir),
            seed: DEFAULT_SEED,
            regenerate: false,
            quick,
            cli: cli.or_else(run::default_cli),
            rg: "rg".into(),
            python,
            node,
        }),
        Command::SearchOnce {
            backend,
            root,
            query,
            repeat,
            component,
            mode,
        } => {
            let mode = agent_memory::SearchMode::from_tool_word(&mode).ok_or_else(|| {
                anyhow::anyhow!("unknown search mode `{mode}`: use ranked or literal")
            })?;
            run::search_once(&backend, &root, &query, repeat, component.as_deref(), mode)
        }
    }
}
