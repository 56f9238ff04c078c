//! Timing: interleaved rounds so that every contender sees the same noise,
//! medians, and the peak RSS of a child process.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};

/// How long and how often to measure one group of contenders.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// At least this many timed rounds.
    pub min_rounds: usize,
    /// At most this many timed rounds.
    pub max_rounds: usize,
    /// Stop after this much time once `min_rounds` are done.
    pub time: Duration,
}

/// Samples of one contender.
#[derive(Debug, Clone, Default)]
pub struct Samples(Vec<Duration>);

impl Samples {
    /// The median sample (the upper one of an even count).
    pub fn median(&self) -> Duration {
        let mut v = self.0.clone();
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or_default()
    }

    /// How many samples there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

/// A contender: a name and one run of it.
pub type Contender<'a> = (&'a str, Box<dyn FnMut() -> Result<()> + 'a>);

/// Run every contender once untimed, then in rounds, each round in a rotated
/// order, until the budget is spent. Returns the samples in contender order.
///
/// # Errors
/// The first error a contender returns.
pub fn interleaved(budget: Budget, contenders: &mut [Contender<'_>]) -> Result<Vec<Samples>> {
    for (name, run) in contenders.iter_mut() {
        run().with_context(|| format!("warm-up of {name}"))?;
    }
    let n = contenders.len();
    let mut samples = vec![Samples::default(); n];
    let start = Instant::now();
    let mut round = 0;
    while round < budget.max_rounds && (round < budget.min_rounds || start.elapsed() < budget.time)
    {
        for k in 0..n {
            let i = (round + k) % n;
            let (name, run) = &mut contenders[i];
            let t = Instant::now();
            run().with_context(|| name.to_string())?;
            samples[i].0.push(t.elapsed());
        }
        round += 1;
    }
    Ok(samples)
}

/// Time `batch` back-to-back runs of `f` per sample and report the median
/// time of one run: for operations far below a microsecond.
///
/// # Errors
/// The first error `f` returns.
pub fn per_call(budget: Budget, batch: u32, mut f: impl FnMut() -> Result<()>) -> Result<Duration> {
    let mut one = || -> Result<()> {
        for _ in 0..batch {
            f()?;
        }
        Ok(())
    };
    let samples = interleaved(budget, &mut [("batch", Box::new(&mut one))])?;
    Ok(samples[0].median() / batch)
}

/// Wall time and peak resident set size (bytes) of `command`, its standard
/// output written to `out` (a file, not `/dev/null`: ripgrep stops at the
/// first match when it sees `/dev/null`).
///
/// Linux carries a process's peak RSS across `exec`, so a child forked from
/// this (large) process would report at least our own peak. The command is
/// therefore started by a fresh, small `peak-rss` process of this executable
/// (see [`peak_rss_child`]), whose own footprint is the floor of the number.
///
/// # Errors
/// When the command cannot start or fails.
pub fn peak_rss(command: &Command, out: &Path) -> Result<(Duration, u64)> {
    let report = out.with_extension("rss");
    let mut wrapper = Command::new(std::env::current_exe()?);
    wrapper.arg("peak-rss").arg("--report").arg(&report);
    if let Some(dir) = command.get_current_dir() {
        wrapper.arg("--dir").arg(dir);
    }
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => wrapper.env(key, value),
            None => wrapper.env_remove(key),
        };
    }
    wrapper
        .arg("--")
        .arg(command.get_program())
        .args(command.get_args());
    let file =
        std::fs::File::create(out).with_context(|| format!("cannot create `{}`", out.display()))?;
    let status = wrapper
        .stdout(file)
        .stdin(Stdio::null())
        .status()
        .with_context(|| format!("cannot start {wrapper:?}"))?;
    if !status.success() {
        bail!("{wrapper:?} failed ({status})");
    }
    let text = std::fs::read_to_string(&report)?;
    let _ = std::fs::remove_file(&report);
    let mut fields = text.split_whitespace().map(str::parse::<u64>);
    match (fields.next(), fields.next()) {
        (Some(Ok(rss)), Some(Ok(nanos))) => Ok((Duration::from_nanos(nanos), rss)),
        _ => bail!("unreadable peak-rss report {text:?}"),
    }
}

/// The `peak-rss` child: run `program` with `args` (in `dir`), wait for it
/// with `wait4`, and write its peak RSS in bytes and its wall time in
/// nanoseconds to `report`. Exit statuses 0 and 1 (ripgrep's "no match")
/// count as success.
///
/// # Errors
/// When the program cannot start or fails.
#[cfg(unix)]
pub fn peak_rss_child(
    report: &Path,
    dir: Option<&Path>,
    program: &std::ffi::OsStr,
    args: &[std::ffi::OsString],
) -> Result<()> {
    let mut command = Command::new(program);
    command.args(args).stdin(Stdio::null());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let start = Instant::now();
    let child = command
        .spawn()
        .with_context(|| format!("cannot start {command:?}"))?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; the pointers are
    // valid for the call. wait4 reaps it, so `child` is never waited again.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    drop(child);
    if reaped != pid {
        bail!(
            "wait4 failed for {command:?}: {}",
            std::io::Error::last_os_error()
        );
    }
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    if !matches!(code, Some(0 | 1)) {
        bail!("{command:?} failed (wait status {status})");
    }
    // Linux reports ru_maxrss in KiB.
    let rss = usage.ru_maxrss as u64 * 1024;
    std::fs::write(report, format!("{rss} {}\n", elapsed.as_nanos()))?;
    Ok(())
}

/// Peak RSS needs `wait4`: Unix only.
///
/// # Errors
/// Always.
#[cfg(not(unix))]
pub fn peak_rss_child(
    _report: &Path,
    _dir: Option<&Path>,
    _program: &std::ffi::OsStr,
    _args: &[std::ffi::OsString],
) -> Result<()> {
    bail!("measuring peak RSS needs wait4, which this platform lacks")
}

/// Run a command to completion, its output read and discarded; fails on an
/// unsuccessful exit (1 is allowed: ripgrep's "no match").
///
/// # Errors
/// When the command cannot start or fails.
pub fn run_quiet(command: &mut Command) -> Result<usize> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot start {command:?}"))?;
    if !matches!(output.status.code(), Some(0 | 1)) {
        bail!(
            "{command:?} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(output.stdout.len())
}

/// A duration for the table: ns, µs, ms or s with three significant digits.
pub fn fmt_duration(d: Duration) -> String {
    let ns = d.as_nanos() as f64;
    let (value, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    if value >= 100.0 {
        format!("{value:.0} {unit}")
    } else if value >= 10.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.2} {unit}")
    }
}

/// `a / b` as `1.23x`.
pub fn fmt_ratio(a: Duration, b: Duration) -> String {
    if b.is_zero() {
        return "-".into();
    }
    format!("{:.2}x", a.as_secs_f64() / b.as_secs_f64())
}

/// Bytes as MB (10^6), the unit of the sizes.
pub fn fmt_mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}
