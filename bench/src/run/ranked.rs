//! Ranked search and its index (issue 11, item 5): warm through the
//! component in-process and natively, as whole `agent-memory call
//! memory_search` processes beside the literal mode and `rg -j1`, the
//! first search after the index is deleted, and where a process's time
//! goes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agent_memory::SearchMode;
use anyhow::{Result, anyhow};

use super::{Corpus, Opened, QUERIES, cli_command, rg_command};
use crate::measure::{Budget, Contender, fmt_duration, interleaved, run_quiet};

/// The index directory of a corpus (every project's index lives in it).
fn index_dir(c: &Corpus) -> PathBuf {
    c.root.join(".store").join("index")
}

fn delete_index(c: &Corpus) -> Result<()> {
    match fs::remove_dir_all(index_dir(c)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
        _ => Ok(()),
    }
}

fn tool_call(cli: &Path, c: &Corpus, cache: &Path, query: &str, mode: &str) -> Command {
    let mut cmd = cli_command(cli, c, cache);
    cmd.arg("call")
        .arg("memory_search")
        .arg(serde_json::json!({ "query": query, "mode": mode }).to_string());
    cmd
}

/// One query's ranked row.
pub(super) struct RankedRow {
    pub component: Duration,
    pub native: Duration,
    pub ranked_process: Option<Duration>,
    pub literal_process: Option<Duration>,
    pub rg_j1: Option<Duration>,
}

impl RankedRow {
    pub fn table_row(&self, size: &str, label: &str) -> String {
        let opt = |d: Option<Duration>| d.map_or("-".into(), fmt_duration);
        let ratio = |a: Option<Duration>, b: Option<Duration>| match (a, b) {
            (Some(a), Some(b)) => format!("{:.2}x", a.as_secs_f64() / b.as_secs_f64()),
            _ => "-".into(),
        };
        format!(
            "| {size} | {label} | {} | {} | {} | {} | {} | {} | {} |",
            fmt_duration(self.component),
            fmt_duration(self.native),
            opt(self.ranked_process),
            opt(self.literal_process),
            opt(self.rg_j1),
            ratio(self.ranked_process, self.rg_j1),
            ratio(self.literal_process, self.rg_j1),
        )
    }
}

/// Warm ranked search (the index built by a first search) against the
/// literal mode and `rg -j1`, all interleaved.
pub(super) fn measure(
    c: &Corpus,
    opened: &mut Opened,
    query: &str,
    cli: Option<&Path>,
    rg: Option<&str>,
    cache: &Path,
    budget: Budget,
) -> Result<RankedRow> {
    let Opened { component, native } = opened;
    // Build the index, and check the paths agree.
    let ours = component.search_with(query, SearchMode::Ranked)?;
    let theirs = native
        .search_with(query, agent_memory_core::SearchMode::Ranked)
        .map_err(|e| anyhow!("{e}"))?;
    let full = native.search_unindexed(query).map_err(|e| anyhow!("{e}"))?;
    if theirs != full || ours.hits.len() != full.hits.len() {
        return Err(anyhow!(
            "ranked {query:?}: indexed results differ from a full read"
        ));
    }
    let mut contenders: Vec<Contender<'_>> = vec![
        (
            "component ranked",
            Box::new(|| {
                component.search_with(query, SearchMode::Ranked)?;
                Ok(())
            }),
        ),
        (
            "native ranked",
            Box::new(|| {
                native
                    .search_with(query, agent_memory_core::SearchMode::Ranked)
                    .map_err(|e| anyhow!("{e}"))?;
                Ok(())
            }),
        ),
    ];
    if let Some(cli) = cli {
        contenders.push((
            "process ranked",
            Box::new(move || run_quiet(&mut tool_call(cli, c, cache, query, "ranked")).map(drop)),
        ));
        contenders.push((
            "process literal",
            Box::new(move || run_quiet(&mut tool_call(cli, c, cache, query, "literal")).map(drop)),
        ));
    }
    if let Some(rg) = rg {
        contenders.push((
            "rg -j1",
            Box::new(move || run_quiet(&mut rg_command(rg, c, query, Some(1))).map(drop)),
        ));
    }
    let samples = interleaved(budget, &mut contenders)?;
    let med = |i: usize| samples.get(i).map(|s| s.median());
    let (p, r) = if cli.is_some() {
        (Some(2), 4)
    } else {
        (None, 2)
    };
    Ok(RankedRow {
        component: samples[0].median(),
        native: samples[1].median(),
        ranked_process: p.and_then(med),
        literal_process: p.and_then(|p| med(p + 1)),
        rg_j1: rg.and_then(|_| med(r)),
    })
}

/// The first search after the index is deleted: in-process through the
/// component and as a process, each round deleting it first. Returns
/// (component, process) medians.
pub(super) fn first_after_delete(
    c: &Corpus,
    opened: &mut Opened,
    cli: Option<&Path>,
    cache: &Path,
    rounds: usize,
) -> Result<(Duration, Option<Duration>)> {
    let query = QUERIES[super::LINEARITY_QUERY].1;
    let mut component = Vec::new();
    let mut process = Vec::new();
    for _ in 0..rounds.max(1) {
        delete_index(c)?;
        let t = Instant::now();
        opened.component.search_with(query, SearchMode::Ranked)?;
        component.push(t.elapsed());
        if let Some(cli) = cli {
            delete_index(c)?;
            let mut cmd = tool_call(cli, c, cache, query, "ranked");
            let t = Instant::now();
            run_quiet(&mut cmd)?;
            process.push(t.elapsed());
        }
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v.get(v.len() / 2).copied()
    };
    // Leave a built index for the warm rows that follow.
    opened.component.search_with(query, SearchMode::Ranked)?;
    Ok((
        median(&mut component).unwrap_or_default(),
        median(&mut process),
    ))
}

/// Where a warm whole-process ranked search spends its time: the same
/// command with no search (`tools`), `context`, a zero-hit search, and
/// the query, each a process.
pub(super) fn process_breakdown(
    c: &Corpus,
    cli: &Path,
    cache: &Path,
    budget: Budget,
) -> Result<Vec<(String, Duration)>> {
    let query = QUERIES[super::LINEARITY_QUERY].1;
    let zero = QUERIES[3].1;
    let folders = searched_by_folder(c)?;
    let mut contenders: Vec<Contender<'_>> = vec![
        (
            "`agent-memory tools` (start, load the compiled component, instantiate)",
            Box::new(|| run_quiet(cli_command(cli, c, cache).arg("tools")).map(drop)),
        ),
        (
            "`agent-memory context`",
            Box::new(|| run_quiet(cli_command(cli, c, cache).arg("context")).map(drop)),
        ),
        (
            "the kernel's part of the floor, in this process: open each folder, `fstatat` each file in it (the system calls of the freshness check, nothing between them)",
            Box::new(|| stat_all(&folders)),
        ),
        (
            "`call memory_search` with a zero-hit query (list, stat, index lookup)",
            Box::new(|| run_quiet(&mut tool_call(cli, c, cache, zero, "ranked")).map(drop)),
        ),
        (
            "`call memory_search`, 3 terms (plus phase two: re-read the files it shows)",
            Box::new(|| run_quiet(&mut tool_call(cli, c, cache, query, "ranked")).map(drop)),
        ),
    ];
    let labels: Vec<String> = contenders.iter().map(|c| c.0.to_string()).collect();
    let samples = interleaved(budget, &mut contenders)?;
    Ok(labels
        .into_iter()
        .zip(samples.iter().map(|s| s.median()))
        .collect())
}

/// The files a search of the corpus checks, by folder: `MEMORY.md` and the
/// project's daily logs and notes (what `rg` is given too).
fn searched_by_folder(c: &Corpus) -> Result<Vec<(PathBuf, Vec<std::ffi::CString>)>> {
    let mut out = vec![(c.root.clone(), vec![std::ffi::CString::new("MEMORY.md")?])];
    for dir in ["daily", "notes"] {
        let dir = c.root.join(c.project_dir()).join(dir);
        let mut names = Vec::new();
        for entry in fs::read_dir(&dir)? {
            let name = entry?.file_name();
            if let Some(name) = name.to_str().filter(|n| n.ends_with(".md")) {
                names.push(std::ffi::CString::new(name)?);
            }
        }
        out.push((dir, names));
    }
    Ok(out)
}

/// Open each folder and `fstatat` each file in it without following a
/// symlink, as the guest's freshness check does through the sandbox: the
/// system calls alone, with nothing between them.
#[cfg(unix)]
fn stat_all(folders: &[(PathBuf, Vec<std::ffi::CString>)]) -> Result<()> {
    for (dir, names) in folders {
        let dir = fs::File::open(dir)?;
        let fd = std::os::fd::AsRawFd::as_raw_fd(&dir);
        for name in names {
            let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
            // SAFETY: `fd` is an open directory for the whole loop, `name` a
            // NUL-terminated string, `st` written by the call before it is
            // read (it is not read: only success matters).
            let rc = unsafe {
                libc::fstatat(
                    fd,
                    name.as_ptr(),
                    st.as_mut_ptr(),
                    libc::AT_SYMLINK_NOFOLLOW,
                )
            };
            if rc != 0 {
                return Err(anyhow!(
                    "fstatat {:?} in the corpus: {}",
                    name,
                    std::io::Error::last_os_error()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn stat_all(folders: &[(PathBuf, Vec<std::ffi::CString>)]) -> Result<()> {
    for (dir, names) in folders {
        for name in names {
            fs::symlink_metadata(dir.join(name.to_str()?))?;
        }
    }
    Ok(())
}

/// The goal of a warm ranked `call memory_search` process against
/// `rg -j1 -i -F -c` (issue 26: every query, on M and its dense variant).
pub(super) const RANKED_GOAL: f64 = 0.5;

/// One query's goal row: a warm ranked process against `rg -j1 -i -F -c`.
pub(super) struct GoalRow {
    pub ranked: Duration,
    pub rg_count: Duration,
}

impl GoalRow {
    pub fn ratio(&self) -> f64 {
        self.ranked.as_secs_f64() / self.rg_count.as_secs_f64()
    }

    pub fn table_row(&self, corpus: &str, label: &str) -> String {
        let r = self.ratio();
        format!(
            "| {corpus} | {label} | {} | {} | {r:.2}x | ≤ {RANKED_GOAL}x ({}) |",
            fmt_duration(self.ranked),
            fmt_duration(self.rg_count),
            if r <= RANKED_GOAL { "met" } else { "not met" }
        )
    }
}

/// Warm ranked `call memory_search` processes against `rg -j1 -i -F -c`
/// (counting, as the issue measures it), each query's two interleaved.
pub(super) fn against_rg_count(
    c: &Corpus,
    cli: &Path,
    rg: &str,
    cache: &Path,
    queries: &[(&str, &str)],
    budget: Budget,
) -> Result<Vec<(String, GoalRow)>> {
    let mut rows = Vec::new();
    for &(label, query) in queries {
        // Build the index first (a corpus may be new).
        run_quiet(&mut tool_call(cli, c, cache, query, "ranked"))?;
        let mut contenders: Vec<Contender<'_>> = vec![
            (
                "process ranked",
                Box::new(move || {
                    run_quiet(&mut tool_call(cli, c, cache, query, "ranked")).map(drop)
                }),
            ),
            (
                "rg -j1 -c",
                Box::new(move || {
                    run_quiet(&mut super::rg_command_with(
                        rg,
                        c,
                        query,
                        Some(1),
                        &["--count"],
                    ))
                    .map(drop)
                }),
            ),
        ];
        let samples = interleaved(budget, &mut contenders)?;
        rows.push((
            label.to_string(),
            GoalRow {
                ranked: samples[0].median(),
                rg_count: samples[1].median(),
            },
        ));
    }
    Ok(rows)
}
