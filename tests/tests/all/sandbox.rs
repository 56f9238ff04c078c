//! The sandbox, through wasmtime: hostile things planted in the memory root
//! (symlinks out and in, loops, dangling links, symlinked directories, hard
//! links to outside files, FIFOs, sockets, directories where files belong,
//! non-UTF-8 and 1 GB sparse files), then every operation run against them.
//! Each scenario must fail closed (a typed memory error) or degrade
//! gracefully (skip, read lossily), never trap, never hang, never show a
//! byte of the outside canary, and leave everything outside the root
//! exactly as it was. A watchdog fails a scenario that does not finish.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agent_memory::WriteTarget::{self, Daily, LongTerm, Note, Scratchpad};
use agent_memory::{Error, ErrorKind, Memory, OpenOptions, ReadSource, Runtime, WriteMode};
use agent_memory_tests::{PROJECT, project_dir};

const NOW: &str = "2026-05-30T09:15:00+02:00";
const TODAY: &str = "2026-05-30";
const SECRET: &str = "CANARY-7f3a9c SECRET OUTSIDE THE ROOT";
/// How long one scenario (about 40 calls) may take before it counts as hung.
const WATCHDOG: Duration = Duration::from_secs(60);

/// A temp dir holding the memory root and, beside it, the outside world: a
/// canary file and a directory of canaries the component must never touch.
struct Sandbox {
    temp: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let temp = tempfile::tempdir().unwrap();
        let outside = temp.path().join("outside");
        fs::create_dir_all(outside.join("dir")).unwrap();
        fs::write(outside.join("canary.md"), format!("{SECRET}\n")).unwrap();
        fs::write(outside.join("dir/canary.md"), format!("{SECRET} in dir\n")).unwrap();
        fs::write(
            outside.join("dir").join(format!("{TODAY}.md")),
            format!("{SECRET} as a log\n"),
        )
        .unwrap();
        fs::create_dir_all(temp.path().join("root")).unwrap();
        Sandbox { temp }
    }

    fn root(&self) -> PathBuf {
        self.temp.path().join("root")
    }

    fn outside(&self) -> PathBuf {
        self.temp.path().join("outside")
    }

    fn canary(&self) -> PathBuf {
        self.outside().join("canary.md")
    }

    /// `rel` under the root, with its parent directories created.
    fn at(&self, rel: &str) -> PathBuf {
        let path = self.root().join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        path
    }

    fn project(&self, rel: &str) -> PathBuf {
        self.at(&format!("{}/{rel}", project_dir()))
    }

    /// Every path outside the root with its bytes (or `dir`), to compare
    /// before and after.
    fn outside_snapshot(&self) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.outside()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                let meta = fs::symlink_metadata(&path).unwrap();
                if meta.is_dir() {
                    stack.push(path.clone());
                    out.insert(path, None);
                } else {
                    out.insert(path.clone(), Some(fs::read(&path).unwrap()));
                }
            }
        }
        out
    }
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// What one call gave.
#[derive(Debug)]
enum Outcome {
    Ok(String),
    Refused(ErrorKind, String),
}

/// Every operation of the memory, each with the inputs that touch the
/// planted things: the reads first (so they see what was planted), then the
/// writes, then the reads again with ` (after writes)` appended to their
/// labels. Returns (what, outcome) for each; panics on a trap, a limit or a
/// setup failure.
fn run_everything(memory: &mut Memory) -> Vec<(String, Outcome)> {
    let mut log = Vec::new();
    reads(memory, &mut log, "");
    writes(memory, &mut log);
    reads(memory, &mut log, " (after writes)");
    log
}

const NAMES: [&str; 8] = ["canary", "rel", "loop", "hard", "fifo", "dir", "x", "big"];

fn record(log: &mut Vec<(String, Outcome)>, what: String, result: Result<String, Error>) {
    let outcome = match result {
        Ok(text) => Outcome::Ok(text),
        Err(Error::Memory(e)) => Outcome::Refused(e.kind(), e.message().to_string()),
        Err(other) => panic!("{what}: not a memory error: {other:?}"),
    };
    log.push((what, outcome));
}

fn reads(memory: &mut Memory, log: &mut Vec<(String, Outcome)>, suffix: &str) {
    for (source, name) in [
        (ReadSource::LongTerm, None),
        (ReadSource::Scratchpad, None),
        (ReadSource::Daily, None),
        (ReadSource::Daily, Some("2026-05-29")),
    ]
    .into_iter()
    .chain(NAMES.iter().map(|n| (ReadSource::Note, Some(*n))))
    {
        let result = memory.read(source, name);
        record(
            log,
            format!("read {source:?} {name:?}{suffix}"),
            result.map(|t| t.unwrap_or_default()),
        );
    }
    let result = memory.list_files();
    record(
        log,
        format!("list-files{suffix}"),
        result.map(|files| format!("{files:?}")),
    );
    for query in ["CANARY", "secret outside", "written"] {
        let result = memory.search(query);
        let rendered = match result {
            Ok(results) => memory.render_search(&results, None),
            Err(e) => Err(e),
        };
        record(log, format!("search {query}{suffix}"), rendered);
    }
    let result = memory.context_block();
    record(
        log,
        format!("context-block{suffix}"),
        result.map(|b| b.unwrap_or_default()),
    );
    for (tool, args) in [
        ("memory_read", r#"{"source":"list"}"#),
        ("memory_read", r#"{"source":"long_term"}"#),
        ("memory_read", r#"{"source":"daily"}"#),
        ("memory_read", r#"{"source":"note","name":"rel"}"#),
        ("memory_search", r#"{"query":"CANARY"}"#),
    ] {
        let result = memory.call_tool(tool, args);
        record(log, format!("call {tool} {args}{suffix}"), result);
    }
}

fn writes(memory: &mut Memory, log: &mut Vec<(String, Outcome)>) {
    let targets: [(WriteTarget, Option<&str>); 3] =
        [(LongTerm, None), (Scratchpad, None), (Daily, None)];
    for (target, name) in targets
        .into_iter()
        .chain(NAMES.iter().map(|n| (Note, Some(*n))))
    {
        for mode in [WriteMode::Append, WriteMode::Overwrite] {
            let what = format!("write {target:?} {name:?} {mode:?}");
            let result = memory.write(target, "- written by the test\n", mode, name);
            record(log, what, result.map(|r| r.message));
        }
    }
    let result = memory.append_daily("sandbox", "an entry");
    record(log, "append-daily".into(), result.map(|r| r.message));
    let result = memory.flush_compaction("a summary", Some(3));
    record(log, "flush-compaction".into(), result.map(|r| r.message));
    for (tool, args) in [
        (
            "memory_write",
            r#"{"target":"note","content":"via tool","name":"canary"}"#,
        ),
        (
            "memory_write",
            r#"{"target":"long_term","content":"via tool","mode":"overwrite"}"#,
        ),
    ] {
        let result = memory.call_tool(tool, args);
        record(log, format!("call {tool} {args}"), result);
    }
}

/// Plants with `plant`, opens a memory on the root and runs everything on
/// it in a watched thread, then checks the invariants. Returns the log.
fn scenario(name: &str, plant: impl FnOnce(&Sandbox)) -> (Sandbox, Vec<(String, Outcome)>) {
    let sandbox = Sandbox::new();
    plant(&sandbox);
    let before = sandbox.outside_snapshot();
    let root = sandbox.root();
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    std::thread::spawn(move || {
        let now = chrono::DateTime::parse_from_rfc3339(NOW).unwrap();
        let result = std::panic::catch_unwind(move || {
            let mut memory = Runtime::shared()
                .unwrap()
                .open(OpenOptions::new(&root, PROJECT).now(now))
                .expect("the memory opens");
            run_everything(&mut memory)
        });
        let _ = tx.send(result);
    });
    let log = match rx.recv_timeout(WATCHDOG) {
        Ok(Ok(log)) => log,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("{name}: hung for {WATCHDOG:?}"),
    };
    let took = started.elapsed();
    for (what, outcome) in &log {
        match outcome {
            Outcome::Ok(text) => assert!(
                !text.contains("CANARY-7f3a9c"),
                "{name}: {what} leaked the canary: {text}"
            ),
            Outcome::Refused(kind, message) => {
                assert!(
                    matches!(
                        kind,
                        ErrorKind::NotAFile | ErrorKind::Io | ErrorKind::NotFound
                    ),
                    "{name}: {what}: unexpected {kind:?}: {message}"
                );
                assert!(
                    !message.contains("CANARY-7f3a9c"),
                    "{name}: {what}: {message}"
                );
            }
        }
    }
    assert_eq!(
        sandbox.outside_snapshot(),
        before,
        "{name}: something outside the root changed"
    );
    assert_eq!(
        fs::read_to_string(sandbox.canary()).unwrap(),
        format!("{SECRET}\n")
    );
    eprintln!(
        "sandbox {name}: {} calls in {took:?}, {} refused",
        log.len(),
        log.iter()
            .filter(|(_, o)| matches!(o, Outcome::Refused(..)))
            .count()
    );
    (sandbox, log)
}

fn outcome<'a>(log: &'a [(String, Outcome)], what: &str) -> &'a Outcome {
    &log.iter()
        .find(|(w, _)| w == what)
        .unwrap_or_else(|| panic!("no call {what}"))
        .1
}

fn refused(log: &[(String, Outcome)], what: &str) -> ErrorKind {
    match outcome(log, what) {
        Outcome::Refused(kind, _) => *kind,
        other => panic!("{what}: expected a refusal, got {other:?}"),
    }
}

#[test]
fn symlinks_out_of_the_root_are_never_followed() {
    let (sandbox, log) = scenario("absolute and relative symlinks out", |s| {
        symlink(s.canary(), s.at("MEMORY.md")).unwrap();
        symlink(s.canary(), s.project("SCRATCHPAD.md")).unwrap();
        symlink("../../../../outside/canary.md", s.project("notes/rel.md")).unwrap();
        symlink(s.canary(), s.project(&format!("daily/{TODAY}.md"))).unwrap();
        symlink("/dev/zero", s.project("notes/x.md")).unwrap();
        symlink("/dev/urandom", s.project("daily/2026-05-29.md")).unwrap();
    });
    assert_eq!(
        refused(&log, "write LongTerm None Append"),
        ErrorKind::NotAFile
    );
    assert_eq!(
        refused(&log, "write LongTerm None Overwrite"),
        ErrorKind::NotAFile
    );
    assert_eq!(refused(&log, "read LongTerm None"), ErrorKind::NotAFile);
    assert_eq!(
        refused(&log, r#"read Note Some("rel")"#),
        ErrorKind::NotAFile
    );
    assert_eq!(refused(&log, r#"read Note Some("x")"#), ErrorKind::NotAFile);
    assert_eq!(refused(&log, "append-daily"), ErrorKind::NotAFile);
    // The links themselves are still links.
    assert!(
        fs::symlink_metadata(sandbox.root().join("MEMORY.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn symlinks_inside_the_root_looping_and_dangling_fail_closed() {
    let (_sandbox, log) = scenario("inside, looping and dangling symlinks", |s| {
        fs::write(s.at("real.md"), "inside the root\n").unwrap();
        symlink("real.md", s.at("MEMORY.md")).unwrap();
        symlink("loop.md", s.project("notes/loop.md")).unwrap();
        symlink("b.md", s.project("notes/a.md")).unwrap();
        symlink("a.md", s.project("notes/b.md")).unwrap();
        symlink(s.outside().join("missing.md"), s.project("SCRATCHPAD.md")).unwrap();
        symlink("nowhere.md", s.project("notes/x.md")).unwrap();
        symlink("../../../real.md", s.project("notes/canary.md")).unwrap();
    });
    assert_eq!(refused(&log, "read LongTerm None"), ErrorKind::NotAFile);
    assert_eq!(
        refused(&log, r#"read Note Some("loop")"#),
        ErrorKind::NotAFile
    );
    assert_eq!(
        refused(&log, "write Scratchpad None Append"),
        ErrorKind::NotAFile
    );
    assert_eq!(
        refused(&log, r#"write Note Some("x") Overwrite"#),
        ErrorKind::NotAFile
    );
    // Untouched notes still work next to the bad ones.
    assert!(matches!(
        outcome(&log, r#"write Note Some("dir") Append"#),
        Outcome::Ok(_)
    ));
}

#[test]
fn symlinked_directories_out_of_the_root_are_refused() {
    let (_sandbox, log) = scenario("symlinked directories out", |s| {
        let project = s.root().join(project_dir());
        fs::create_dir_all(&project).unwrap();
        symlink(s.outside().join("dir"), project.join("notes")).unwrap();
        symlink("../../../outside/dir", project.join("daily")).unwrap();
    });
    assert!(matches!(
        outcome(&log, r#"write Note Some("canary") Append"#),
        Outcome::Refused(..)
    ));
    assert!(matches!(
        outcome(&log, "write Daily None Append"),
        Outcome::Refused(..)
    ));
    // Global memory is unaffected.
    assert!(matches!(
        outcome(&log, "write LongTerm None Append"),
        Outcome::Ok(_)
    ));
}

#[test]
fn the_whole_projects_directory_linked_out_is_refused() {
    scenario("projects/ symlinked out", |s| {
        symlink(s.outside(), s.at("projects")).unwrap();
    });
}

#[test]
fn hard_links_to_outside_files_are_not_used() {
    let (_sandbox, log) = scenario("hard links to the canary", |s| {
        fs::hard_link(s.canary(), s.project("notes/hard.md")).unwrap();
        fs::hard_link(s.canary(), s.at("MEMORY.md")).unwrap();
        fs::hard_link(
            s.outside().join("dir").join(format!("{TODAY}.md")),
            s.project(&format!("daily/{TODAY}.md")),
        )
        .unwrap();
    });
    assert_eq!(
        refused(&log, r#"write Note Some("hard") Append"#),
        ErrorKind::NotAFile
    );
    assert_eq!(
        refused(&log, r#"read Note Some("hard")"#),
        ErrorKind::NotAFile
    );
    assert_eq!(
        refused(&log, "write LongTerm None Append"),
        ErrorKind::NotAFile
    );
    assert_eq!(refused(&log, "append-daily"), ErrorKind::NotAFile);
    match outcome(&log, "list-files") {
        Outcome::Ok(files) => assert!(!files.contains("hard.md"), "{files}"),
        other => panic!("list-files: {other:?}"),
    }
}

#[test]
fn fifos_and_sockets_named_like_memory_files_never_block() {
    let (sandbox, log) = scenario("FIFOs and a socket", |s| {
        mkfifo(&s.at("MEMORY.md"));
        mkfifo(&s.project("SCRATCHPAD.md"));
        mkfifo(&s.project(&format!("daily/{TODAY}.md")));
        mkfifo(&s.project("daily/2026-05-29.md"));
        mkfifo(&s.project("notes/fifo.md"));
        let socket = std::os::unix::net::UnixListener::bind(s.project("notes/x.md")).unwrap();
        std::mem::forget(socket);
    });
    for what in [
        "write LongTerm None Append",
        "write LongTerm None Overwrite",
        "read LongTerm None",
        "read Scratchpad None",
        "append-daily",
        r#"read Note Some("fifo")"#,
        r#"write Note Some("fifo") Overwrite"#,
        r#"read Note Some("x")"#,
    ] {
        assert_eq!(refused(&log, what), ErrorKind::NotAFile, "{what}");
    }
    // Search and the block skip them instead of failing.
    assert!(matches!(outcome(&log, "search written"), Outcome::Ok(_)));
    assert!(matches!(outcome(&log, "context-block"), Outcome::Ok(_)));
    let fifo = sandbox.root().join("MEMORY.md");
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(
        &fs::symlink_metadata(fifo).unwrap().file_type()
    ));
}

#[test]
fn directories_where_files_belong_and_files_where_directories_belong() {
    let (_sandbox, log) = scenario("directories and files swapped", |s| {
        fs::create_dir_all(s.at("MEMORY.md/inner")).unwrap();
        fs::create_dir_all(s.project("SCRATCHPAD.md")).unwrap();
        fs::create_dir_all(s.project(&format!("daily/{TODAY}.md"))).unwrap();
        fs::create_dir_all(s.project("notes/dir.md")).unwrap();
        // The notes directory is a file.
        fs::remove_dir_all(s.root().join(project_dir()).join("notes")).unwrap();
        fs::write(s.root().join(project_dir()).join("notes"), "not a dir").unwrap();
    });
    assert_eq!(
        refused(&log, "write LongTerm None Append"),
        ErrorKind::NotAFile
    );
    assert_eq!(refused(&log, "read Scratchpad None"), ErrorKind::NotAFile);
    assert_eq!(refused(&log, "append-daily"), ErrorKind::NotAFile);
    assert!(matches!(
        outcome(&log, r#"write Note Some("x") Append"#),
        Outcome::Refused(..)
    ));
    assert!(matches!(outcome(&log, "context-block"), Outcome::Ok(_)));
}

#[test]
fn non_utf8_files_are_read_lossily() {
    let (_sandbox, log) = scenario("non-UTF-8 content", |s| {
        fs::write(s.at("MEMORY.md"), b"- fact \xff\xfe one\n- written \xc3\n").unwrap();
        fs::write(s.project(&format!("daily/{TODAY}.md")), b"\x80\x81 log\n").unwrap();
        fs::write(s.project("notes/x.md"), b"\xed\xa0\x80 surrogate half\n").unwrap();
    });
    match outcome(&log, "read LongTerm None") {
        Outcome::Ok(text) => assert!(text.starts_with("- fact \u{fffd}\u{fffd} one"), "{text}"),
        other => panic!("{other:?}"),
    }
    match outcome(&log, r#"read Note Some("x")"#) {
        Outcome::Ok(text) => assert!(text.contains("surrogate half"), "{text}"),
        other => panic!("{other:?}"),
    }
    match outcome(&log, "context-block") {
        Outcome::Ok(block) => {
            assert!(block.contains("\u{fffd} log"), "{block}");
            assert_eq!(block.matches("</memory>").count(), 1);
        }
        other => panic!("{other:?}"),
    }
    // Appends to such files still work and keep the old bytes.
    assert!(matches!(
        outcome(&log, "write LongTerm None Append"),
        Outcome::Ok(_)
    ));
}

#[test]
fn a_one_gigabyte_sparse_file_is_read_capped() {
    const GIB: u64 = 1 << 30;
    let (sandbox, log) = scenario("1 GiB sparse files", |s| {
        for rel in [
            s.at("MEMORY.md"),
            s.project(&format!("daily/{TODAY}.md")),
            s.project("notes/big.md"),
        ] {
            let file = fs::File::create(rel).unwrap();
            file.set_len(GIB).unwrap();
        }
    });
    match outcome(&log, "read LongTerm None") {
        Outcome::Ok(text) => {
            assert!(text.len() <= 32 * 1024, "{}", text.len());
            assert!(text.contains("…[truncated: showing the first part of 1073741824 bytes"));
        }
        other => panic!("{other:?}"),
    }
    match outcome(&log, "context-block") {
        Outcome::Ok(block) => assert!(block.len() <= 32 * 1024, "{}", block.len()),
        other => panic!("{other:?}"),
    }
    assert!(matches!(outcome(&log, "search written"), Outcome::Ok(_)));
    // The big note took an in-place append, then an overwrite replaced it
    // whole (too large to keep a backup of).
    assert!(matches!(
        outcome(&log, r#"write Note Some("big") Append"#),
        Outcome::Ok(_)
    ));
    let big = sandbox.root().join(project_dir()).join("notes/big.md");
    assert_eq!(fs::read_to_string(big).unwrap(), "- written by the test\n");
    // The 1 GiB MEMORY.md was never copied into history: every saved
    // version is small.
    let objects = sandbox.root().join(".store/history/objects");
    for entry in fs::read_dir(objects).into_iter().flatten() {
        let len = entry.unwrap().metadata().unwrap().len();
        assert!(len < 1024, "{len}");
    }
}

#[test]
fn the_component_imports_only_the_wasi_it_needs() {
    let imports = Runtime::shared().unwrap().imports();
    let interfaces: Vec<&str> = imports
        .iter()
        .map(|name| name.split('@').next().unwrap())
        .collect();
    for name in &interfaces {
        assert!(
            !name.starts_with("wasi:sockets") && !name.starts_with("wasi:http"),
            "imports {name}"
        );
    }
    let allowed = [
        "wasi:cli/environment",
        "wasi:cli/exit",
        "wasi:cli/stderr",
        "wasi:cli/stdin",
        "wasi:cli/stdout",
        "wasi:cli/terminal-input",
        "wasi:cli/terminal-output",
        "wasi:cli/terminal-stderr",
        "wasi:cli/terminal-stdin",
        "wasi:cli/terminal-stdout",
        "wasi:clocks/monotonic-clock",
        "wasi:clocks/wall-clock",
        "wasi:filesystem/preopens",
        "wasi:filesystem/types",
        "wasi:io/error",
        "wasi:io/poll",
        "wasi:io/streams",
        "wasi:random/insecure-seed",
        "wasi:random/random",
        "wasi:random/insecure",
    ];
    for name in &interfaces {
        assert!(allowed.contains(name), "unexpected import {name}");
    }
    for needed in ["wasi:filesystem/types", "wasi:filesystem/preopens"] {
        assert!(
            interfaces.contains(&needed),
            "{needed} missing: {imports:?}"
        );
    }
    eprintln!("component imports: {imports:?}");
}
