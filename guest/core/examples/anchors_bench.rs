//! Prints what staleness anchors cost: the context block with 200 anchors,
//! warm (every anchored file unchanged, so each costs a stat), against the
//! same store without a project directory; the same with the anchors spread
//! over notes; a check right after every anchored file was touched (rehash
//! within the budget); and an anchoring write. Run with
//! `cargo run --release -p agent-memory-core --example anchors_bench`.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use agent_memory_core::{Memory, Options, WriteMode, WriteTarget};

const ANCHORS: usize = 200;
const ROUNDS: usize = 2000;

/// Median and best of `rounds` timed calls of `f`, in microseconds.
fn time(rounds: usize, mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..rounds / 10 {
        f();
    }
    let mut samples: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    (samples[samples.len() / 2], samples[0])
}

fn open(store: &Path, project: Option<PathBuf>) -> Memory {
    let mut options = Options::new("/bench/app");
    options.project_root = project;
    Memory::open(store, options).expect("open")
}

/// 200 source files of about 4 KB in 10 folders, two levels deep.
fn project(dir: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    for i in 0..ANCHORS {
        let folder = format!("src/mod{:02}", i % 10);
        fs::create_dir_all(dir.join(&folder)).expect("folder");
        let path = format!("{folder}/file{i:03}.rs");
        let body = format!("pub fn f{i}() {{ /* {} */ }}\n", "x".repeat(64)).repeat(50);
        fs::write(dir.join(&path), body).expect("file");
        paths.push(path);
    }
    paths
}

/// A store with an index, a scratchpad and today's log, like a day's use.
fn seed(memory: &Memory, index: &str) {
    memory
        .write(WriteTarget::LongTerm, index, WriteMode::Overwrite, None)
        .expect("index");
    memory
        .write(
            WriteTarget::Scratchpad,
            "- [ ] finish the login flow\n- [x] set up CI\n- [ ] write the migration\n",
            WriteMode::Overwrite,
            None,
        )
        .expect("scratchpad");
    for i in 0..5 {
        memory
            .append_daily(
                &format!("step {i}"),
                "worked on the auth module and its tests",
            )
            .expect("daily");
    }
}

fn main() {
    let base = std::env::temp_dir().join(format!("anchors-bench-{}", std::process::id()));
    let project_dir = base.join("project");
    let paths = project(&project_dir);

    // 1. All 200 anchors in MEMORY.md, one index line each.
    let index: String = paths
        .iter()
        .map(|p| format!("- `{p}`: what this file does, in one line\n"))
        .collect();
    let store = base.join("store-index");
    fs::create_dir_all(&store).expect("store");
    let anchored = open(&store, Some(project_dir.clone()));
    seed(&anchored, &index);
    let plain = open(&store, None);
    let block = anchored.context_block().expect("block").expect("some");
    assert!(!block.contains("stale:"), "warm means nothing changed");
    let (off_med, off_best) = time(ROUNDS, || {
        plain.context_block().expect("block");
    });
    let (on_med, on_best) = time(ROUNDS, || {
        anchored.context_block().expect("block");
    });
    let goal = 2.0 * (110.0 + ANCHORS as f64);
    println!(
        "context block, no project root: median {off_med:.1} µs (best {off_best:.1}); {} bytes",
        block.len()
    );
    println!(
        "context block, {ANCHORS} anchors in MEMORY.md, warm: median {on_med:.1} µs (best {on_best:.1}); \
         anchors add {:.1} µs ({:.2} µs each); goal ≤ {goal:.0} µs",
        on_med - off_med,
        (on_med - off_med) / ANCHORS as f64
    );

    // 2. The same 200 anchors over 20 notes (checked for the stale-notes
    // section), MEMORY.md without mentions.
    let store2 = base.join("store-notes");
    fs::create_dir_all(&store2).expect("store");
    let spread = open(&store2, Some(project_dir.clone()));
    seed(&spread, "- auth: see the auth note\n");
    for (n, chunk) in paths.chunks(10).enumerate() {
        let text: String = chunk.iter().map(|p| format!("- {p}\n")).collect();
        spread
            .write(
                WriteTarget::Note,
                &text,
                WriteMode::Overwrite,
                Some(&format!("topic{n:02}")),
            )
            .expect("note");
    }
    let plain2 = open(&store2, None);
    let (off2, _) = time(ROUNDS, || {
        plain2.context_block().expect("block");
    });
    let (on2, best2) = time(ROUNDS, || {
        spread.context_block().expect("block");
    });
    println!(
        "context block, {ANCHORS} anchors over 20 notes, warm: median {on2:.1} µs (best {best2:.1}); \
         without a project root {off2:.1} µs"
    );

    // 3. Every anchored file touched, content unchanged: the first check
    // rehashes up to its budget (64 files) and stores the new mtimes.
    let touch = |when: SystemTime| {
        for p in &paths {
            fs::File::options()
                .write(true)
                .open(project_dir.join(p))
                .and_then(|f| f.set_modified(when))
                .expect("touch");
        }
    };
    let mut passes = Vec::new();
    touch(SystemTime::now() - Duration::from_secs(3600));
    for _ in 0..4 {
        let t = Instant::now();
        let block = anchored.context_block().expect("block").expect("some");
        passes.push((t.elapsed().as_secs_f64() * 1e6, block.contains("stale:")));
    }
    let shown: Vec<String> = passes
        .iter()
        .map(|(us, stale)| {
            format!(
                "{us:.0} µs{}",
                if *stale { " (some unverified)" } else { "" }
            )
        })
        .collect();
    println!(
        "context block after touching all {ANCHORS} files (4 KB each), successive calls: {}",
        shown.join(", ")
    );

    // 4. An anchoring write: a note naming 10 files, against no project.
    let text: String = paths[..10].iter().map(|p| format!("- {p}\n")).collect();
    let (w_on, _) = time(200, || {
        anchored
            .write(WriteTarget::Note, &text, WriteMode::Overwrite, Some("w"))
            .expect("write");
    });
    let (w_off, _) = time(200, || {
        plain
            .write(WriteTarget::Note, &text, WriteMode::Overwrite, Some("w2"))
            .expect("write");
    });
    println!(
        "overwrite a note naming 10 files: median {w_on:.0} µs anchored, {w_off:.0} µs without a project root"
    );
    let _ = fs::remove_dir_all(&base);
}
