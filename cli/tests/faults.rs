//! Fault tests through the real `agent-memory` command: many processes on
//! one memory root at once, `kill -9` at random moments mid-write, a lock
//! left behind by a killed holder, and a lock held by another process.
//!
//! Sized for CI (a minute or so on 2 cores). `AGENT_MEMORY_FAULT_SCALE=N`
//! multiplies the operation and kill counts by N; `AGENT_MEMORY_FAULT_SEED`
//! replays the random kill moments of an earlier run (each run prints its
//! seed). Every process shares one compiled-component cache, warmed once.

#![cfg(unix)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const PROJECT: &str = "/work/src/fault-app";
const NOW: &str = "2026-05-30T09:15:00+02:00";
const LOCK: &str = ".agent-memory.lock";
/// The store's lease on its write lock (see `guest/core/src/fsio.rs`).
const LEASE: Duration = Duration::from_secs(10);

/// `AGENT_MEMORY_FAULT_SCALE`, default 1.
fn scale() -> usize {
    std::env::var("AGENT_MEMORY_FAULT_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1)
}

/// The two CPU-heavy tests take turns, so each one's timing is its own.
fn heavy() -> MutexGuard<'static, ()> {
    static HEAVY: Mutex<()> = Mutex::new(());
    HEAVY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A compiled-component cache shared by every process of this test binary,
/// warmed once so each command starts in milliseconds.
fn cache_dir() -> &'static Path {
    static CACHE: OnceLock<PathBuf> = OnceLock::new();
    CACHE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("agent-memory-fault-cache");
        let mut builder = fs::DirBuilder::new();
        builder.recursive(true);
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&dir).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_agent-memory"))
            .env("AGENT_MEMORY_CACHE_DIR", &dir)
            .arg("tools")
            .output()
            .unwrap();
        assert!(output.status.success(), "warming the cache failed");
        dir
    })
}

/// A memory root in a temp dir and the command bound to it.
struct Store {
    temp: tempfile::TempDir,
}

impl Store {
    fn new() -> Store {
        Store {
            temp: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> PathBuf {
        self.temp.path().join("memory")
    }

    fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agent-memory"));
        command
            .env("AGENT_MEMORY_CACHE_DIR", cache_dir())
            .env_remove("AGENT_MEMORY_DIR")
            .env_remove("AGENT_MEMORY_NOW")
            .arg("--root")
            .arg(self.root())
            .args(["--project", PROJECT, "--now", NOW])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    fn project_dir(&self) -> PathBuf {
        let status = self.ok(&["status"]);
        let slug = status
            .lines()
            .find_map(|l| l.strip_prefix("slug:"))
            .unwrap()
            .trim();
        self.root().join("projects").join(slug)
    }

    fn read(&self, rel: impl AsRef<Path>) -> Option<String> {
        fs::read_to_string(self.root().join(rel)).ok()
    }

    /// The previous versions history saved whole (`.store/history/objects`,
    /// not the temp files of a writer killed while saving one).
    fn saved_versions(&self) -> Vec<String> {
        let objects = self.root().join(".store/history/objects");
        fs::read_dir(objects)
            .into_iter()
            .flatten()
            .map(|e| e.unwrap().path())
            .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
            .map(|p| fs::read_to_string(p).unwrap())
            .collect()
    }

    /// Every file under the root, relative.
    fn tree(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![self.root()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    out.push(
                        path.strip_prefix(self.root())
                            .unwrap()
                            .display()
                            .to_string(),
                    );
                }
            }
        }
        out.sort();
        out
    }
}

/// A small deterministic generator (xorshift64*), seeded per run.
struct Rng(u64);

impl Rng {
    fn seeded(what: &str) -> Rng {
        let seed = std::env::var("AGENT_MEMORY_FAULT_SEED")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| {
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
            });
        eprintln!("{what}: AGENT_MEMORY_FAULT_SEED={seed}");
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One append: a single line that names its writer and op, with a body
/// derived from both and an end marker, so a torn or doubled one shows.
fn entry(tag: &str, worker: usize, op: usize) -> String {
    let body: String = (0..40)
        .map(|k| char::from(b'a' + ((worker * 31 + op * 7 + k) % 26) as u8))
        .collect::<String>()
        .repeat(10);
    format!("[{tag} w{worker:02} op{op:04}] {body} [end {tag} w{worker:02} op{op:04}]")
}

/// Version `n` of an overwritten file: about `size` bytes with a header and
/// footer that name `n`.
fn version(label: &str, n: usize, size: usize) -> String {
    let line = format!("{label} version {n:06} filler text\n");
    let body = line.repeat(size / line.len());
    format!("BEGIN {label} {n:06}\n{body}END {label} {n:06}\n")
}

/// `Some(n)` when `text` is exactly version `n` of `label` at `size`.
fn whole_version(label: &str, text: &str, size: usize) -> Option<usize> {
    let rest = text.strip_prefix(&format!("BEGIN {label} "))?;
    let n: usize = rest.get(..6)?.parse().ok()?;
    (text == version(label, n, size)).then_some(n)
}

#[test]
fn eight_processes_of_mixed_writes_lose_and_tear_nothing() {
    let _turn = heavy();
    const WORKERS: usize = 8;
    let ops = 200 * scale();
    let store = Store::new();
    store.ok(&[
        "write",
        "note",
        "--name",
        "state",
        "--overwrite",
        &version("state", 0, 8000),
    ]);
    let project = store.project_dir();
    let started = Instant::now();

    // Each worker runs `ops` commands one after another; the workers run at
    // once, so eight processes contend for the store the whole time.
    let results: Vec<Vec<(usize, &'static str, bool)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..WORKERS)
            .map(|w| {
                let store = &store;
                s.spawn(move || {
                    let mut done = Vec::with_capacity(ops);
                    for op in 0..ops {
                        let kind = match (w + op * 3) % 10 {
                            0..=2 => "daily",
                            3..=4 => "note",
                            5..=6 => "long",
                            7 => "overwrite",
                            8 => "scratch",
                            _ => "read",
                        };
                        let output = match kind {
                            "daily" => store.run(&["write", "daily", &entry("daily", w, op)]),
                            "note" => store.run(&[
                                "write",
                                "note",
                                "--name",
                                "shared",
                                &entry("note", w, op),
                            ]),
                            "long" => {
                                let args = serde_json::json!({
                                    "target": "long_term",
                                    "content": entry("long", w, op),
                                })
                                .to_string();
                                store.run(&["call", "memory_write", &args])
                            }
                            "overwrite" => store.run(&[
                                "write",
                                "note",
                                "--name",
                                "state",
                                "--overwrite",
                                &version("state", w * 10_000 + op, 8000),
                            ]),
                            "scratch" => store.run(&[
                                "write",
                                "scratchpad",
                                "--overwrite",
                                &version("pad", w * 10_000 + op, 2000),
                            ]),
                            _ => {
                                let output = store.run(&["read", "note", "state"]);
                                let text = String::from_utf8_lossy(&output.stdout);
                                // `read` prints the note plus a final newline
                                // only when it lacks one; versions end in one.
                                assert!(
                                    whole_version("state", &text, 8000).is_some(),
                                    "worker {w} op {op} read a torn note: {} bytes",
                                    text.len()
                                );
                                output
                            }
                        };
                        assert!(
                            output.status.success(),
                            "worker {w} op {op} ({kind}) failed: {}",
                            String::from_utf8_lossy(&output.stderr)
                        );
                        done.push((op, kind, output.status.success()));
                    }
                    done
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let took = started.elapsed();

    let daily = fs::read_to_string(project.join("daily/2026-05-30.md")).unwrap();
    let note = fs::read_to_string(project.join("notes/shared.md")).unwrap();
    let long = store.read("MEMORY.md").unwrap();
    let mut appends = 0;
    for (w, done) in results.iter().enumerate() {
        for &(op, kind, acknowledged) in done {
            let (file, tag) = match kind {
                "daily" => (&daily, "daily"),
                "note" => (&note, "note"),
                "long" => (&long, "long"),
                _ => continue,
            };
            assert!(acknowledged);
            appends += 1;
            let line = entry(tag, w, op);
            let count = file.lines().filter(|l| *l == line).count();
            assert_eq!(count, 1, "{tag} w{w} op{op} appears {count} times");
        }
    }
    // Nothing but whole entries: no torn fragment, no stray line.
    for (file, tag) in [(&daily, "daily"), (&note, "note"), (&long, "long")] {
        for line in file.lines() {
            assert!(
                line.starts_with(&format!("[{tag} w")) && line.ends_with(']'),
                "a stray or torn line in the {tag} file: {line:.80}"
            );
        }
    }
    assert_eq!(
        daily.lines().count() + note.lines().count() + long.lines().count(),
        appends
    );
    let state = fs::read_to_string(project.join("notes/state.md")).unwrap();
    assert!(
        whole_version("state", &state, 8000).is_some(),
        "state note torn"
    );
    let pad = fs::read_to_string(project.join("SCRATCHPAD.md")).unwrap();
    assert!(
        whole_version("pad", &pad, 2000).is_some(),
        "scratchpad torn"
    );
    // History saved the overwritten versions (appends save no copy): each
    // one whole.
    let saved = store.saved_versions();
    assert!(!saved.is_empty());
    for text in saved {
        assert!(
            whole_version("pad", &text, 2000).is_some()
                || whole_version("state", &text, 8000).is_some(),
            "a saved version is torn: {text:.80}"
        );
    }
    let tree = store.tree();
    assert!(
        tree.iter()
            .all(|p| !p.ends_with(".tmp") && !p.contains(LOCK)),
        "{tree:?}"
    );
    eprintln!(
        "{WORKERS} processes x {ops} ops = {} commands in {took:?}: {appends} acknowledged appends, \
         each present exactly once and whole",
        WORKERS * ops
    );
}

/// What the kill loop found after one kill.
#[derive(Debug, Default)]
struct KillStats {
    iterations: usize,
    old: usize,
    new: usize,
    finished_before_kill: usize,
    locks_left: usize,
    temps_left: usize,
}

/// Spawns `args` with `content` as the last argument, kills it with SIGKILL
/// after a random delay in `0..window`, and returns whether it had already
/// exited.
fn spawn_and_kill(store: &Store, args: &[&str], rng: &mut Rng, window: Duration) -> bool {
    let mut child: Child = store
        .command()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let delay = Duration::from_micros(rng.below(window.as_micros() as u64));
    std::thread::sleep(delay);
    let finished = child.try_wait().unwrap().is_some();
    let _ = child.kill(); // SIGKILL on Unix
    child.wait().unwrap();
    finished
}

/// After a kill: counts and clears a lock the dead process held (nothing
/// else runs on this store, so it is certainly abandoned; the lease path is
/// tested on its own below) and counts leftover temp files.
fn after_kill(store: &Store, stats: &mut KillStats) {
    let lock = store.root().join(LOCK);
    if lock.exists() {
        stats.locks_left += 1;
        fs::remove_file(lock).unwrap();
    }
    stats.temps_left += store.tree().iter().filter(|p| p.ends_with(".tmp")).count();
}

#[test]
fn kill_9_mid_overwrite_leaves_old_or_new() {
    let _turn = heavy();
    let iterations = 200 * scale();
    let store = Store::new();
    let mut rng = Rng::seeded("kill_9_mid_overwrite_leaves_old_or_new");
    // Content near the 64 KiB write cap, so the write itself takes a while.
    const SIZE: usize = 60_000;
    store.ok(&[
        "write",
        "long_term",
        "--overwrite",
        &version("long", 0, SIZE),
    ]);
    store.ok(&[
        "write",
        "note",
        "--name",
        "state",
        "--overwrite",
        &version("state", 0, SIZE),
    ]);
    let project = store.project_dir();
    // How long an overwrite runs when left alone: the window to kill in.
    let timer = Instant::now();
    for n in 1..=3 {
        store.ok(&[
            "write",
            "long_term",
            "--overwrite",
            &version("long", n, SIZE),
        ]);
    }
    let window = timer.elapsed() / 3 * 5 / 4;
    let mut current = [3, 0];
    let mut stats = KillStats::default();
    for i in 0..iterations {
        // Alternate MEMORY.md (backed up) and a note (not backed up).
        let (slot, label, rel, args): (usize, &str, PathBuf, Vec<&str>) = if i % 2 == 0 {
            (
                0,
                "long",
                "MEMORY.md".into(),
                vec!["write", "long_term", "--overwrite"],
            )
        } else {
            (
                1,
                "state",
                project.join("notes/state.md"),
                vec!["write", "note", "--name", "state", "--overwrite"],
            )
        };
        let next = current[slot] + 1;
        let content = version(label, next, SIZE);
        let mut full = args.clone();
        full.push(&content);
        let finished = spawn_and_kill(&store, &full, &mut rng, window);
        stats.iterations += 1;
        stats.finished_before_kill += usize::from(finished);
        let text = fs::read_to_string(store.root().join(&rel)).unwrap();
        match whole_version(label, &text, SIZE) {
            Some(n) if n == current[slot] => stats.old += 1,
            Some(n) if n == next => {
                stats.new += 1;
                current[slot] = next;
            }
            other => panic!(
                "iteration {i}: {label} is neither version {} nor {next} but {other:?} ({} bytes)",
                current[slot],
                text.len()
            ),
        }
        // Every version history saved is whole and was written before: at
        // most the current one (a kill between saving and renaming).
        for saved in store.saved_versions() {
            let n = whole_version("long", &saved, SIZE)
                .map(|n| (0, n))
                .or_else(|| whole_version("state", &saved, SIZE).map(|n| (1, n)));
            assert!(
                n.is_some_and(|(slot, n)| n <= current[slot]),
                "iteration {i}: a saved version is {n:?}, current {current:?}"
            );
        }
        after_kill(&store, &mut stats);
        if i % 25 == 24 {
            // Leftovers never show to a reader.
            let listed = store.ok(&["read", "list"]);
            assert!(listed.lines().all(|l| l.ends_with(".md")), "{listed}");
        }
    }
    // The next writes clean every leftover up.
    store.ok(&[
        "write",
        "long_term",
        "--overwrite",
        &version("long", 999_999, SIZE),
    ]);
    store.ok(&[
        "write",
        "note",
        "--name",
        "state",
        "--overwrite",
        &version("state", 1, SIZE),
    ]);
    let left: Vec<String> = store
        .tree()
        .into_iter()
        .filter(|p| p.ends_with(".tmp") || p.contains(LOCK))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(
        stats.old > 0 && stats.new > 0,
        "{stats:?}: the kills never landed mid-write"
    );
    eprintln!("kill -9 mid-overwrite (window {window:?}): {stats:?}");
}

#[test]
fn kill_9_mid_append_leaves_whole_entries() {
    let _turn = heavy();
    let iterations = 100 * scale();
    let store = Store::new();
    let mut rng = Rng::seeded("kill_9_mid_append_leaves_whole_entries");
    // Entries near the 64 KiB cap on one line each, into notes of at most
    // 50 entries (3 MB: appended to by atomic replacement).
    let big_entry = |n: usize| format!("[entry {n:05}] {} [end {n:05}]", "z".repeat(60_000));
    const PER_NOTE: usize = 50;
    let notes = store.project_dir().join("notes");
    // How long an append runs when left alone: the window to kill in.
    let timer = Instant::now();
    for n in 0..3 {
        store.ok(&["write", "note", "--name", "log0", &big_entry(n)]);
    }
    let window = timer.elapsed() / 3 * 5 / 4;
    let mut count = 3; // entries in the current note
    let mut stats = KillStats::default();
    for i in 0..iterations {
        let name = format!("log{}", i / PER_NOTE);
        if i % PER_NOTE == 0 && i > 0 {
            count = 0;
        }
        let content = big_entry(count);
        let finished = spawn_and_kill(
            &store,
            &["write", "note", "--name", &name, &content],
            &mut rng,
            window,
        );
        stats.iterations += 1;
        stats.finished_before_kill += usize::from(finished);
        let text = fs::read_to_string(notes.join(format!("{name}.md"))).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let whole: Vec<String> = (0..lines.len()).map(big_entry).collect();
        assert_eq!(
            lines, whole,
            "iteration {i}: a torn or missing entry in {name}"
        );
        if lines.len() == count + 1 {
            stats.new += 1;
            count += 1;
        } else {
            assert_eq!(lines.len(), count, "iteration {i}");
            stats.old += 1;
        }
        after_kill(&store, &mut stats);
    }
    assert!(stats.old > 0 && stats.new > 0, "{stats:?}");
    eprintln!("kill -9 mid-append (window {window:?}): {stats:?}");
}

#[test]
fn a_lock_left_by_a_killed_holder_is_broken_within_the_lease() {
    let store = Store::new();
    const SIZE: usize = 60_000;
    store.ok(&[
        "write",
        "long_term",
        "--overwrite",
        &version("long", 0, SIZE),
    ]);
    let lock = store.root().join(LOCK);
    // Leftovers of crashed writers: the next writer removes them while it
    // holds the lock, which keeps it holding the lock for about a second.
    const LEFTOVERS: usize = 20_000;
    for n in 0..LEFTOVERS {
        fs::File::create(
            store
                .root()
                .join(format!(".crashed{n:05}.md.0123456789abcdef.tmp")),
        )
        .unwrap();
    }
    // Kill a writer while it holds the lock: start it, wait until the lock
    // file carries its stamp, SIGKILL. Retry if it let go first.
    let mut attempts = 0;
    let stamp = loop {
        attempts += 1;
        assert!(attempts <= 20, "never caught a writer holding the lock");
        let mut child = store
            .command()
            .args([
                "write",
                "long_term",
                "--overwrite",
                &version("long", attempts, SIZE),
            ])
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let stamp = loop {
            let stamp = fs::read_to_string(&lock).ok().and_then(|content| {
                content
                    .split_whitespace()
                    .nth(1)
                    .and_then(|t| t.parse::<u64>().ok())
            });
            if stamp.is_some() || Instant::now() > deadline || child.try_wait().unwrap().is_some() {
                break stamp;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let _ = child.kill();
        child.wait().unwrap();
        if let Some(stamp) = stamp
            && lock.exists()
        {
            break stamp;
        }
        let _ = fs::remove_file(&lock);
    };
    let text = store.read("MEMORY.md").unwrap();
    let before = whole_version("long", &text, SIZE).expect("old or new after the kill");
    let left_at_kill = store.tree().iter().filter(|p| p.ends_with(".tmp")).count();

    // Another process writes now: it must wait for the lease, then break
    // the lock and succeed.
    let started = Instant::now();
    let output = store.run(&["write", "long_term", "- after the crash"]);
    let waited = started.elapsed();
    let finished_at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let since_stamp = finished_at - stamp as f64;
    // What the write costs with no lock in the way, on this machine now: the
    // same command removing as many leftovers. On a loaded machine the
    // removal alone takes seconds; the lease is what is under test.
    let control = Store::new();
    control.ok(&[
        "write",
        "long_term",
        "--overwrite",
        &version("long", 0, SIZE),
    ]);
    for n in 0..left_at_kill {
        fs::File::create(
            control
                .root()
                .join(format!(".crashed{n:05}.md.0123456789abcdef.tmp")),
        )
        .unwrap();
    }
    let started = Instant::now();
    control.ok(&["write", "long_term", "- after the crash"]);
    let work = started.elapsed().as_secs_f64();
    // The stamp is in whole seconds and the lock is broken once it is more
    // than the lease old: between lease and lease + 2 s after the stamp,
    // plus the write itself, plus 3 s of scheduling on a shared machine.
    assert!(
        since_stamp >= LEASE.as_secs_f64() && since_stamp <= LEASE.as_secs_f64() + 5.0 + work,
        "recovered {since_stamp:.2} s after the lock was taken (waited {waited:?}; the write \
         alone takes {work:.2} s)"
    );
    assert!(!lock.exists());
    let text = store.read("MEMORY.md").unwrap();
    assert_eq!(
        text,
        format!("{}- after the crash\n", version("long", before, SIZE))
    );
    assert!(
        store.tree().iter().all(|p| !p.ends_with(".tmp")),
        "{:?}",
        store.tree()
    );
    eprintln!(
        "stale lock from a killed holder (caught on attempt {attempts}, {left_at_kill} leftovers \
         still there): broken {since_stamp:.2} s after it was taken, the writer waited {waited:?} \
         (the write alone takes {work:.2} s)"
    );
}

/// Holds the store's lock from this process, as another writer would.
fn hold_lock(root: &Path) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(root.join(LOCK))
        .unwrap();
    writeln!(file, "otherprocess {now}").unwrap();
}

#[test]
fn a_writer_in_another_process_waits_for_the_lock() {
    let store = Store::new();
    store.ok(&["write", "long_term", "- first"]);
    hold_lock(&store.root());
    let mut child = store
        .command()
        .args(["write", "long_term", "- second"])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "it did not wait");
    assert_eq!(store.read("MEMORY.md").unwrap(), "- first\n");
    fs::remove_file(store.root().join(LOCK)).unwrap();
    let released = Instant::now();
    let status = child.wait().unwrap();
    assert!(status.success());
    assert!(
        released.elapsed() < Duration::from_secs(2),
        "{:?}",
        released.elapsed()
    );
    assert_eq!(store.read("MEMORY.md").unwrap(), "- first\n- second\n");
}

#[test]
fn a_lock_kept_fresh_by_others_gives_busy_after_the_wait() {
    let store = Store::new();
    store.ok(&["write", "long_term", "- first"]);
    let root = store.root();
    hold_lock(&root);
    let started = Instant::now();
    let child = store
        .command()
        .args(["write", "long_term", "- never"])
        .spawn()
        .unwrap();
    // Other writers keep taking the lock, each well within its lease.
    let output = std::thread::scope(|s| {
        let waiter = s.spawn(|| child.wait_with_output().unwrap());
        while !waiter.is_finished() && started.elapsed() < Duration::from_secs(40) {
            std::thread::sleep(Duration::from_secs(1));
            hold_lock(&root);
        }
        waiter.join().unwrap()
    });
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("busy"), "{stderr}");
    assert!(
        took >= Duration::from_secs(15) && took < Duration::from_secs(25),
        "{took:?}"
    );
    assert_eq!(store.read("MEMORY.md").unwrap(), "- first\n");
    eprintln!("busy after {took:?}: {}", stderr.trim());
}

/// Every note file under `notes` (store-relative, by name) and its text.
fn notes(store: &Store) -> Vec<(String, String)> {
    let prefix = store.project_dir().join("notes");
    let rel = prefix
        .strip_prefix(store.root())
        .unwrap()
        .display()
        .to_string();
    store
        .tree()
        .into_iter()
        .filter(|p| p.starts_with(&rel) && p.ends_with(".md"))
        .map(|p| {
            let text = store.read(&p).unwrap();
            (p[rel.len() + 1..].to_string(), text)
        })
        .collect()
}

/// The version ids `history` lists for the note `name`.
fn listed_versions(store: &Store, name: &str) -> Vec<String> {
    store
        .ok(&["history", "note", name])
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with('v') && w[1..].bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

/// Restore every version history lists for the notes `names`, each
/// through the tool; returns how many (at least one).
fn restore_every_version(store: &Store, names: &[&str]) -> usize {
    let mut restored = 0;
    for name in names {
        for id in listed_versions(store, name) {
            let out = store.run(&[
                "call",
                "memory_restore",
                &format!(r#"{{"version":"{id}"}}"#),
            ]);
            assert!(
                out.status.success(),
                "{name} {id}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            restored += 1;
        }
    }
    assert!(restored > 0);
    restored
}

#[test]
fn kill_9_mid_multi_file_changes_leaves_whole_files_and_restorable_versions() {
    let _turn = heavy();
    let iterations = 60 * scale();
    let store = Store::new();
    let mut rng = Rng::seeded("kill_9_mid_multi_file_changes");
    // A note renamed back and forth, a folder of three renamed back and
    // forth through the memory tool, edits, and undos of all of them.
    const SIZE: usize = 20_000;
    store.ok(&[
        "write",
        "note",
        "--name",
        "alpha",
        "--overwrite",
        &version("alpha", 0, SIZE),
    ]);
    for f in ["x", "y", "z"] {
        let name = format!("ops/{f}");
        store.ok(&[
            "write",
            "note",
            "--name",
            &name,
            "--overwrite",
            &version(f, 0, SIZE),
        ]);
    }
    let timer = Instant::now();
    store.ok(&[
        "call",
        "memory_rename",
        r#"{"name":"alpha","new_name":"beta"}"#,
    ]);
    store.ok(&["undo"]);
    let window = timer.elapsed() / 2 * 5 / 4;
    let mut stats = KillStats::default();
    let mut next = 1;
    for i in 0..iterations {
        let names: Vec<String> = notes(&store).into_iter().map(|(n, _)| n).collect();
        let has = |n: &str| names.iter().any(|m| m == n);
        let args: Vec<String> = match rng.below(4) {
            0 => {
                let (from, to) = if has("alpha.md") {
                    ("alpha", "beta")
                } else {
                    ("beta", "alpha")
                };
                let json = format!(r#"{{"name":"{from}","new_name":"{to}"}}"#);
                vec!["call".into(), "memory_rename".into(), json]
            }
            1 => {
                let (from, to) = if names.iter().any(|n| n.starts_with("ops/")) {
                    ("ops", "run")
                } else {
                    ("run", "ops")
                };
                let json = format!(
                    r#"{{"command":"rename","old_path":"/memories/{from}","new_path":"/memories/{to}"}}"#
                );
                vec!["call".into(), "memory".into(), json]
            }
            2 => {
                let name = if has("alpha.md") { "alpha" } else { "beta" };
                next += 1;
                let text = version("alpha", next, SIZE);
                vec![
                    "write".into(),
                    "note".into(),
                    "--name".into(),
                    name.into(),
                    "--overwrite".into(),
                    text,
                ]
            }
            _ => vec!["undo".into()],
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let finished = spawn_and_kill(&store, &args, &mut rng, window);
        stats.iterations += 1;
        stats.finished_before_kill += usize::from(finished);
        after_kill(&store, &mut stats);
        // Every file is whole: some version of what it holds, never a part.
        for (name, text) in notes(&store) {
            let label = text
                .strip_prefix("BEGIN ")
                .and_then(|r| r.split(' ').next())
                .unwrap_or("?")
                .to_string();
            assert!(
                whole_version(&label, &text, SIZE).is_some(),
                "iteration {i}: {name} is not a whole version ({} bytes)",
                text.len()
            );
        }
    }
    // Every version history lists for any of these files can be restored.
    let restored = restore_every_version(
        &store,
        &[
            "alpha", "beta", "ops/x", "ops/y", "ops/z", "run/x", "run/y", "run/z",
        ],
    );
    eprintln!(
        "kill -9 mid multi-file changes (window {window:?}): {stats:?}, {restored} versions restored"
    );
}

#[test]
fn kill_9_mid_change_sets_leaves_all_or_nothing() {
    let _turn = heavy();
    let iterations = 60 * scale();
    let store = Store::new();
    let mut rng = Rng::seeded("kill_9_mid_change_sets");
    // Three notes always written together: after any kill, once the next
    // command has run, all three hold the same version.
    const SIZE: usize = 20_000;
    const NAMES: [&str; 3] = ["a", "b", "c"];
    let batch = |n: usize| {
        let changes: Vec<serde_json::Value> = NAMES
            .iter()
            .map(|name| {
                serde_json::json!({"tool": "memory_write", "arguments": {
                    "target": "note", "name": name, "mode": "overwrite",
                    "content": version("set", n, SIZE)}})
            })
            .collect();
        serde_json::json!({ "changes": changes }).to_string()
    };
    store.ok(&["call", "memory_batch", &batch(0)]);
    let timer = Instant::now();
    store.ok(&["call", "memory_batch", &batch(1)]);
    let window = timer.elapsed() * 5 / 4;
    let mut stats = KillStats::default();
    let mut next = 1;
    for i in 0..iterations {
        next += 1;
        let args = if rng.below(4) == 0 {
            vec!["undo".to_string()]
        } else {
            vec!["call".into(), "memory_batch".into(), batch(next)]
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let finished = spawn_and_kill(&store, &args, &mut rng, window);
        stats.iterations += 1;
        stats.finished_before_kill += usize::from(finished);
        after_kill(&store, &mut stats);
        // The next command finishes a change the kill interrupted.
        store.ok(&["read", "note", "a"]);
        let held: Vec<Option<usize>> = notes(&store)
            .iter()
            .map(|(_, text)| whole_version("set", text, SIZE))
            .collect();
        assert_eq!(held.len(), 3, "iteration {i}: {held:?}");
        assert!(
            held.iter().all(|v| v.is_some() && *v == held[0]),
            "iteration {i}: the set is torn: {held:?}"
        );
    }
    // Every version history lists can be restored.
    let restored = restore_every_version(&store, &NAMES);
    eprintln!(
        "kill -9 mid change sets (window {window:?}): {stats:?}, {restored} versions restored"
    );
}
