//! Faults injected at the WASI boundary: every kind of change, with each
//! filesystem call it makes failed in turn (`EIO`, `ENOSPC`, `EDQUOT`,
//! `EROFS`) and each of its writes cut short. After every injected fault:
//!
//! - a failed change names its cause in words (`I/O error`, `the disk is
//!   full`, `the disk quota is exceeded`, `read-only file system`), never an
//!   OS error number;
//! - every memory file is whole: as before the change or as after it;
//! - the next change, with faults off, succeeds, and leaves no journal, no
//!   temp file and no lock behind; the change's files are then all as
//!   before or all as after;
//! - history lists no version of a change that did not happen, and every
//!   version it lists can be read back whole and restored.
//!
//! The calls are those of `src/faults.rs` (the descriptor methods and the
//! file streams). `AGENT_MEMORY_FAULT_SWEEP=full` fails every call of every
//! change; by default (CI) up to `SAMPLE` calls per change and fault, spread
//! evenly over the change, first and last included. The test prints the
//! table of `docs/reliability.md`; `AGENT_MEMORY_FAULT_TABLE=FILE` also
//! writes it to FILE.
//!
//! Run: `cargo test -p agent-memory --features faults --test faults -- --nocapture`.

#![cfg(unix)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_memory::faults::{Fault, Faults};
use agent_memory::{
    BatchChange, ClearTarget, Error, Memory, OpenOptions, ReadSource, Runtime, Scope, SecretPolicy,
    WriteMode, WriteTarget,
};
use chrono::DateTime;

const NOW: &str = "2026-05-30T09:15:00+02:00";
const PROJECT: &str = "/work/src/fault-app";
/// Calls failed per change and fault unless the sweep is full
/// (`AGENT_MEMORY_FAULT_SAMPLE=N` for another number).
const SAMPLE: usize = 6;

fn sample() -> usize {
    std::env::var("AGENT_MEMORY_FAULT_SAMPLE")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n >= 2)
        .unwrap_or(SAMPLE)
}

/// A store to start from: the memory root and the project's team folder,
/// both under `dir`, copied afresh for every run.
struct World {
    dir: PathBuf,
}

impl World {
    fn root(&self) -> PathBuf {
        self.dir.join("root")
    }

    fn team(&self) -> PathBuf {
        self.dir.join("app/.agent-memory")
    }

    fn copy_to(&self, dir: PathBuf) -> World {
        copy_tree(&self.dir, &dir);
        World { dir }
    }
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// One kind of change: how its options differ, the store it starts from,
/// what to look up before the change (outside the sweep), and the change.
struct Case {
    kind: &'static str,
    /// The change rewrites history's saved versions (they count as its
    /// files).
    objects: bool,
    /// What else must hold after a fault, given whether the change is
    /// applied (`None`: all well).
    holds: fn(&mut Memory, bool) -> Option<String>,
    options: fn(OpenOptions) -> OpenOptions,
    setup: fn(&mut Memory, &World),
    prepare: fn(&mut Memory) -> String,
    change: fn(&mut Memory, &str) -> Result<(), Error>,
}

impl Case {
    /// A change of the [`base`] store, with the default options, that
    /// looks nothing up first and has nothing else to check.
    fn new(kind: &'static str, change: fn(&mut Memory, &str) -> Result<(), Error>) -> Case {
        Case {
            kind,
            objects: false,
            holds: |_, _| None,
            options: same,
            setup: base,
            prepare: nothing,
            change,
        }
    }
}

fn nothing(_: &mut Memory) -> String {
    String::new()
}

fn same(options: OpenOptions) -> OpenOptions {
    options
}

fn write(m: &mut Memory, name: &str, text: &str, mode: WriteMode) {
    m.write(WriteTarget::Note, text, mode, Some(name)).unwrap();
}

/// The store most changes start from: notes with history, an index line,
/// a note too large to append to whole, a folder of notes.
fn base(m: &mut Memory, _: &World) {
    write(m, "keep", "hello\n", WriteMode::Overwrite);
    write(m, "keep", "second line\n", WriteMode::Append);
    write(m, "gone", "to be deleted\n", WriteMode::Overwrite);
    write(m, "topic/a", "first of a folder\n", WriteMode::Overwrite);
    write(m, "topic/b", "second of a folder\n", WriteMode::Overwrite);
    m.write(
        WriteTarget::LongTerm,
        "- the index line\n",
        WriteMode::Append,
        None,
    )
    .unwrap();
    // Larger than a whole-file append: appended to in place.
    let big = "a line of the big note\n".repeat(50_000);
    let notes = m.root().join(m.project_dir()).join("notes");
    fs::write(notes.join("big.md"), big).unwrap();
}

/// The [`base`] store with a `memory_write` call of `arguments` queued
/// for review as p1.
fn queued(m: &mut Memory, w: &World, arguments: &str) {
    base(m, w);
    let reply = m.call_tool("memory_write", arguments).unwrap();
    assert!(reply.starts_with("Queued for review as p1"), "{reply}");
}

fn approve_p1(m: &mut Memory, _: &str) -> Result<(), Error> {
    m.approve("p1").map(drop)
}

/// An approval's call is applied and decided, or neither (the decision is
/// a step of the call's change; a team call's change leaves a mark that
/// says it was applied).
fn decided_with_the_change(m: &mut Memory, applied: bool) -> Option<String> {
    let pending = m.pending_changes().map(|p| p.len());
    match (applied, pending) {
        (true, Ok(0)) | (false, Ok(1)) => None,
        (_, pending) => Some(format!(
            "applied: {applied}, yet calls pending: {pending:?}"
        )),
    }
}

fn cases() -> Vec<Case> {
    vec![
        Case::new("write (overwrite)", |m, _| {
            m.write(
                WriteTarget::Note,
                "replaced\n",
                WriteMode::Overwrite,
                Some("keep"),
            )
            .map(drop)
        }),
        Case::new("write (new note)", |m, _| {
            m.write(
                WriteTarget::Note,
                "fresh\n",
                WriteMode::Overwrite,
                Some("fresh"),
            )
            .map(drop)
        }),
        Case::new("append (whole file)", |m, _| {
            m.write(
                WriteTarget::Note,
                "third line\n",
                WriteMode::Append,
                Some("keep"),
            )
            .map(drop)
        }),
        Case::new("append (in place)", |m, _| {
            m.write(
                WriteTarget::Note,
                "one more line\n",
                WriteMode::Append,
                Some("big"),
            )
            .map(drop)
        }),
        Case::new("edit", |m, _| {
            m.edit(WriteTarget::Note, Some("keep"), "hello", "hi there")
                .map(drop)
        }),
        Case::new("rename", |m, _| m.rename_note("keep", "kept").map(drop)),
        Case::new("folder rename", |m, _| {
            m.call_tool(
                    "memory",
                    r#"{"command":"rename","old_path":"/memories/topic","new_path":"/memories/subject"}"#,
                )
                .map(drop)
        }),
        Case::new("delete", |m, _| m.delete_note("gone").map(drop)),
        Case::new("batch", |m, _| {
            m.apply(
                &[
                    BatchChange::Edit {
                        target: WriteTarget::Note,
                        name: Some("keep".into()),
                        old_text: "hello".into(),
                        new_text: "hi".into(),
                    },
                    BatchChange::Write {
                        target: WriteTarget::LongTerm,
                        content: "- keep: notes/keep.md\n".into(),
                        mode: WriteMode::Append,
                        name: None,
                    },
                    BatchChange::Delete {
                        name: "gone".into(),
                    },
                ],
                Some("tidy"),
            )
            .map(drop)
        }),
        Case {
            prepare: |m| {
                let versions = m.history(ReadSource::Note, Some("keep"), None).unwrap();
                let saved = versions.iter().find(|v| v.bytes.is_some());
                saved.expect("keep has a saved version").id.clone()
            },
            ..Case::new("restore", |m, id| m.restore(id).map(drop))
        },
        Case::new("undo", |m, _| m.undo(None).map(drop)),
        Case::new("import", |m, _| {
            m.import_file(WriteTarget::Note, Some("keep"), "an imported fact\n", false)
                .map(drop)
        }),
        Case::new("snapshot take", |m, _| m.take_snapshot().map(drop)),
        Case {
            setup: |m, w| {
                base(m, w);
                m.take_snapshot().unwrap();
                write(
                    m,
                    "keep",
                    "changed since the snapshot\n",
                    WriteMode::Overwrite,
                );
                m.delete_note("gone").unwrap();
            },
            ..Case::new("snapshot apply", |m, _| m.apply_snapshot().map(drop))
        },
        Case::new("clear", |m, _| m.clear(ClearTarget::Project).map(drop)),
        Case {
            objects: true,
            options: |o| o.secret_policy(SecretPolicy::Off),
            setup: |m, w| {
                base(m, w);
                let key = format!("aws key AKIA{}\n", "QWERTYUIOPASDFGH");
                write(m, "keep", &key, WriteMode::Overwrite);
                write(m, "keep", "no secret now\n", WriteMode::Overwrite);
            },
            ..Case::new("scan --purge", |m, _| m.purge_secrets().map(drop))
        },
        Case {
            holds: decided_with_the_change,
            options: |o| o.review(&[Scope::Personal]),
            setup: |m, w| {
                queued(
                    m,
                    w,
                    r#"{"target":"note","name":"keep","content":"approved line","mode":"append"}"#,
                )
            },
            ..Case::new("review approve", approve_p1)
        },
        Case {
            holds: decided_with_the_change,
            options: |o| o.review(&[Scope::Team]),
            setup: |m, w| {
                queued(
                    m,
                    w,
                    r#"{"target":"note","name":"keep","content":"approved line","mode":"append","scope":"team"}"#,
                )
            },
            ..Case::new("review approve (team)", approve_p1)
        },
    ]
}

fn options(world: &World, case: &Case) -> OpenOptions {
    let now = DateTime::parse_from_rfc3339(NOW).unwrap();
    let options = OpenOptions::new(world.root(), PROJECT)
        .now(now)
        .team_dir(world.team())
        .max_write_bytes(u32::MAX)
        // A lock left behind by a failed release is broken at once.
        .lock_lease(Duration::from_secs(1))
        .lock_wait(Duration::from_secs(5));
    (case.options)(options)
}

fn open(world: &World, case: &Case, faults: &Arc<Faults>) -> Memory {
    Runtime::shared()
        .unwrap()
        .open(options(world, case).faults(Arc::clone(faults)))
        .unwrap()
}

/// The memory files (`.md`, outside `.store`) of the root and the team
/// folder, with their bytes.
fn files(world: &World, objects: bool) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, objects: bool, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let saved = rel.contains(".store/history/objects/");
            if entry.file_type().unwrap().is_dir() {
                if !rel.ends_with(".store") || objects {
                    walk(base, &path, objects, out);
                }
            } else if rel.ends_with(".md") || (objects && saved && !rel.ends_with(".tmp")) {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&world.dir, &world.dir, objects, &mut out);
    out
}

/// What a writer leaves behind only while it runs, or when it failed
/// and nobody finished its work: temp files, a journal, the lock.
fn leftovers(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else if name.ends_with(".tmp")
                || name.starts_with(".agent-memory.lock")
                || name == "applying"
            {
                out.push(path.display().to_string());
            }
        }
    }
    out
}

/// The history of every personal memory file of `paths`: (path, id,
/// bytes) for each listed version.
fn history(m: &mut Memory, paths: &BTreeSet<String>) -> Vec<(String, String, Option<u64>)> {
    let notes = format!("root/{}/notes/", m.project_dir());
    let mut out = Vec::new();
    for path in paths {
        let (source, name) = if path == "root/MEMORY.md" {
            (ReadSource::LongTerm, None)
        } else if let Some(note) = path.strip_prefix(&notes) {
            (
                ReadSource::Note,
                Some(note.trim_end_matches(".md").to_string()),
            )
        } else {
            continue;
        };
        for v in m.history(source, name.as_deref(), None).unwrap() {
            out.push((path.clone(), v.id, v.bytes));
        }
    }
    out.sort();
    out
}

/// What a sweep found for one change and one fault.
#[derive(Default, Clone)]
struct Tally {
    runs: usize,
    failed: usize,
    absorbed: usize,
    not_reached: usize,
    violations: Vec<(&'static str, String)>,
}

/// What the error of a change that `fault` failed at the call `fired`
/// must say. wasi-libc reports every failed read of a file stream as
/// `EIO`, whatever the host said (it never asks `filesystem-error-code`
/// for reads), so a fault there is an I/O error.
fn cause(fault: Fault, fired: &str) -> &'static str {
    if fired.starts_with("input-stream.") {
        return "I/O error";
    }
    match fault {
        Fault::Io => "I/O error",
        Fault::NoSpace => "the disk is full",
        Fault::Quota => "the disk quota is exceeded",
        Fault::ReadOnly => "read-only file system",
        Fault::ShortWrite => "",
    }
}

/// The calls of a sweep: all of `1..=total`, or `SAMPLE` of them spread
/// evenly, first and last included.
fn picks(total: u64, full: bool) -> Vec<u64> {
    let sample = sample();
    if full || total as usize <= sample {
        return (1..=total).collect();
    }
    let mut picks: Vec<u64> = (0..sample)
        .map(|i| 1 + (i as u64 * (total - 1)) / (sample as u64 - 1))
        .collect();
    picks.dedup();
    picks
}

struct Baseline {
    world: World,
    before: BTreeMap<String, Vec<u8>>,
    after: BTreeMap<String, Vec<u8>>,
    history_before: Vec<(String, String, Option<u64>)>,
    history_after: Vec<(String, String, Option<u64>)>,
    tracked: BTreeSet<String>,
    arg: String,
    calls: u64,
    writes: u64,
    names: BTreeSet<&'static str>,
}

/// Sets the store up, then runs the change once with faults off to learn
/// what it does and how many calls it makes.
fn baseline(case: &Case, temp: &Path) -> Baseline {
    let world = World {
        dir: temp.join(format!("base-{}", case.kind.replace(' ', "-"))),
    };
    fs::create_dir_all(world.team().join("notes")).unwrap();
    let faults = Faults::new();
    let mut m = open(&world, case, &faults);
    (case.setup)(&mut m, &world);
    let arg = (case.prepare)(&mut m);
    drop(m);
    let before = files(&world, case.objects);
    let probe = world.copy_to(temp.join(format!("count-{}", case.kind.replace(' ', "-"))));
    let mut m = open(&probe, case, &faults);
    faults.count();
    (case.change)(&mut m, &arg).unwrap_or_else(|e| panic!("{}: {e}", case.kind));
    let calls = faults.calls();
    let writes = faults.writes();
    faults.count();
    let after = files(&probe, case.objects);
    let tracked: BTreeSet<String> = before.keys().chain(after.keys()).cloned().collect();
    let history_after = history(&mut m, &tracked);
    // The history of every file the change touches, a file it makes
    // again included, as a copy of the store untouched has it.
    let pristine = world.copy_to(temp.join(format!("before-{}", case.kind.replace(' ', "-"))));
    let history_before = history(&mut open(&pristine, case, &faults), &tracked);
    let _ = fs::remove_dir_all(&pristine.dir);
    assert_ne!(before, after, "{}: the change changed nothing", case.kind);
    Baseline {
        world,
        before,
        after,
        history_before,
        history_after,
        tracked,
        arg,
        calls: calls.len() as u64,
        writes,
        names: calls.into_iter().collect(),
    }
}

/// Runs `case` with call `n` failed by `fault` and checks what it left.
fn run_one(case: &Case, base: &Baseline, fault: Fault, n: u64, dir: PathBuf, tally: &mut Tally) {
    let world = base.world.copy_to(dir);
    let faults = Faults::new();
    let mut m = open(&world, case, &faults);
    faults.arm(n, fault);
    let result = (case.change)(&mut m, &base.arg);
    let fired = faults.fired();
    faults.count();
    tally.runs += 1;
    let what = format!(
        "{} / {} at call {n} ({})",
        case.kind,
        fault.name(),
        fired.unwrap_or("-")
    );
    let mut fail =
        |check: &'static str, why: String| tally.violations.push((check, format!("{what}: {why}")));
    match (&result, fired) {
        (_, None) => tally.not_reached += 1,
        (Ok(()), Some(_)) => tally.absorbed += 1,
        (Err(e), Some(fired)) => {
            tally.failed += 1;
            let message = e.to_string();
            if message.contains("os error") {
                fail(
                    "cause",
                    format!("the error carries an OS number: {message}"),
                );
            }
            if fault == Fault::ShortWrite {
                fail(
                    "short write",
                    format!("a short write failed the change: {message}"),
                );
            } else if !message.contains(cause(fault, fired)) {
                fail(
                    "cause",
                    format!(
                        "the error does not say `{}`: {message}",
                        cause(fault, fired)
                    ),
                );
            }
        }
    }
    // Each file whole: old or new.
    let now = files(&world, case.objects);
    for path in base.tracked.iter().chain(now.keys()) {
        let (old, new, is) = (base.before.get(path), base.after.get(path), now.get(path));
        if is != old && is != new {
            fail(
                "torn",
                format!("`{path}` is neither as before nor as after"),
            );
        }
    }
    // The next change, faults off, succeeds and finishes any journal.
    if let Err(e) = m.write(
        WriteTarget::Scratchpad,
        "- [ ] probe\n",
        WriteMode::Append,
        None,
    ) {
        fail("next change", format!("the next change failed: {e}"));
    }
    // A journal a team change could not remove (its cleanup failed) is
    // finished by the next operation on the team store, a read included.
    if let Err(e) = m.list_files() {
        fail(
            "next change",
            format!("listing after the change failed: {e}"),
        );
    }
    // The root's lock was taken and released again by the next change; a
    // team lock left by a release the fault stopped stays until the next
    // team change breaks it (its lease is over).
    let left: Vec<String> = leftovers(&world.dir)
        .into_iter()
        .filter(|p| !p.ends_with("app/.agent-memory/.agent-memory.lock"))
        .collect();
    if !left.is_empty() {
        fail(
            "leftover",
            format!("left behind after the next change: {left:?}"),
        );
    }
    let now: BTreeMap<String, Vec<u8>> = files(&world, case.objects)
        .into_iter()
        .filter(|(p, _)| !p.ends_with("SCRATCHPAD.md"))
        .collect();
    let old = now == base.before;
    let new = now == base.after;
    if !old && !new {
        let differ: Vec<&String> = base
            .tracked
            .iter()
            .filter(|p| now.get(*p) != base.after.get(*p))
            .collect();
        fail(
            "half applied",
            format!("the change is half applied: {differ:?} differ from after"),
        );
    }
    if let Some(why) = (case.holds)(&mut m, new) {
        fail("decision", why);
    }
    if result.is_ok() && !new {
        fail(
            "absorbed",
            "the change succeeded but its files are not as after".into(),
        );
    }
    // History: nothing of a change that did not happen; everything listed
    // is on disk.
    let listed = history(&mut m, &base.tracked);
    if old && listed != base.history_before {
        fail(
            "phantom",
            format!(
                "history changed for a change that did not happen: {listed:?} vs {:?}",
                base.history_before
            ),
        );
    }
    if new && !listed.iter().all(|v| base.history_after.contains(v)) {
        fail(
            "phantom",
            format!(
                "history lists versions the change did not make: {listed:?} vs {:?}",
                base.history_after
            ),
        );
    }
    for (path, id, bytes) in &listed {
        match (m.read_version(id), bytes) {
            (Ok(Some(text)), Some(len)) if text.len() as u64 == *len => {}
            (Ok(None), None) => {}
            (got, _) => fail(
                "unreadable",
                format!(
                    "{path} {id} ({bytes:?} bytes) does not read back: {:?}",
                    got.map(|t| t.map(|t| t.len()))
                ),
            ),
        }
    }
    if let Some((_, id, _)) = listed.iter().rev().find(|(_, _, b)| b.is_some())
        && let Err(e) = m.restore(id)
    {
        fail("restore", format!("{id} does not restore: {e}"));
    }
}

/// Defects the sweep found that are not fixed yet, by change and check
/// (`docs/reliability.md` says what each is). Anything else fails the test;
/// a known defect that no longer shows is printed, to be taken off.
const KNOWN: &[(&str, &str)] = &[];

#[test]
fn every_change_survives_every_fault_at_every_call() {
    let full = std::env::var("AGENT_MEMORY_FAULT_SWEEP").is_ok_and(|v| v == "full");
    let only = std::env::var("AGENT_MEMORY_FAULT_KINDS").ok();
    // Memory, not disk: each change syncs its files, and on a busy disk
    // the syncs, not the component, would set the pace.
    let shm = Path::new("/dev/shm");
    let temp = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let started = Instant::now();
    let mut table = String::new();
    writeln!(
        table,
        "| change | calls | writes | EIO | ENOSPC | EDQUOT | EROFS | short write |"
    )
    .unwrap();
    writeln!(table, "|---|---:|---:|---|---|---|---|---|").unwrap();
    let mut violations = Vec::new();
    let mut runs = 0;
    let mut names = BTreeSet::new();
    for case in cases() {
        if only
            .as_deref()
            .is_some_and(|k| !k.split(',').any(|k| k == case.kind))
        {
            continue;
        }
        let base = baseline(&case, temp.path());
        names.extend(base.names.iter().copied());
        let mut row = format!("| {} | {} | {} |", case.kind, base.calls, base.writes);
        for fault in Fault::ALL {
            let total = if fault == Fault::ShortWrite {
                base.writes
            } else {
                base.calls
            };
            let mut tally = Tally::default();
            for n in picks(total, full) {
                let dir = temp.path().join(format!("run-{runs}"));
                run_one(&case, &base, fault, n, dir.clone(), &mut tally);
                let _ = fs::remove_dir_all(&dir);
                runs += 1;
            }
            let shown = if fault == Fault::ShortWrite {
                format!(" {} swept: {} ok |", tally.runs, tally.absorbed)
            } else {
                format!(
                    " {} swept: {} failed, {} ok |",
                    tally.runs, tally.failed, tally.absorbed
                )
            };
            row.push_str(&shown);
            violations.extend(tally.violations);
        }
        writeln!(table, "{row}").unwrap();
        let _ = fs::remove_dir_all(&base.world.dir);
    }
    let seconds = started.elapsed().as_secs_f64();
    let (known, violations): (Vec<_>, Vec<_>) =
        violations.into_iter().partition(|(check, what)| {
            KNOWN
                .iter()
                .any(|(k, c)| what.starts_with(&format!("{k} / ")) && c == check)
        });
    let known_seen: BTreeSet<(String, &str)> = known
        .iter()
        .map(|(check, what)| (what.split(" / ").next().unwrap().to_string(), *check))
        .collect();
    let violations: Vec<String> = violations
        .into_iter()
        .map(|(c, w)| format!("[{c}] {w}"))
        .collect();
    let mut report = format!(
        "{table}\n{runs} runs ({}), {} violations, {seconds:.0} s. Calls seen: {}.\n",
        if full { "every call" } else { "sampled" },
        violations.len(),
        names.into_iter().collect::<Vec<_>>().join(", ")
    );
    for v in &violations {
        let _ = writeln!(report, "- {v}");
    }
    let _ = writeln!(report, "Known defects seen ({} runs):", known.len());
    for (kind, check) in &known_seen {
        let _ = writeln!(report, "- {kind}: {check}");
    }
    for (kind, check) in KNOWN {
        if !known_seen.contains(&(kind.to_string(), *check)) && only.is_none() {
            let _ = writeln!(
                report,
                "- not seen this run: {kind}: {check} (fixed? take it off KNOWN)"
            );
        }
    }
    println!("{report}");
    if let Ok(path) = std::env::var("AGENT_MEMORY_FAULT_TABLE") {
        fs::write(path, &report).unwrap();
    }
    assert!(violations.is_empty(), "{report}");
}
