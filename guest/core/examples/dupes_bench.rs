//! Prints how long near-duplicate detection takes for a 64 KiB append to a
//! 4 MiB file (the largest file appended to through a rewrite), alone and
//! as part of a whole `write`. Run with
//! `cargo run --release -p agent-memory-core --example dupes_bench`.

use std::time::Instant;

use agent_memory_core::{Memory, Options, WriteMode, WriteTarget, dupes};

const WORDS: &[&str] = &[
    "deploy", "staging", "database", "port", "user", "prefers", "pnpm", "npm", "the", "with",
    "make", "ship", "test", "flaky", "login", "cache", "redis", "build", "release", "branch",
    "main", "review", "lint", "format", "docs", "api", "token", "rotate", "weekly", "monday",
];

/// Deterministic lines of 4-12 words from a small vocabulary, so many lines
/// share words (the costly case for near matching).
fn text(bytes: usize, seed: &mut u64) -> String {
    let mut out = String::with_capacity(bytes + 100);
    while out.len() < bytes {
        let mut next = || {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (*seed >> 33) as usize
        };
        let n = 4 + next() % 9;
        out.push_str("- ");
        for i in 0..n {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(WORDS[next() % WORDS.len()]);
        }
        out.push('\n');
    }
    out
}

fn main() {
    let mut seed = 7;
    // Just under the 4 MiB up to which appends rewrite (and so check) a file.
    let existing = text(4 * 1024 * 1024 - 2048, &mut seed);
    let added = text(64 * 1024, &mut seed);
    let runs = 5;
    let mut best = f64::MAX;
    let mut found = 0;
    for _ in 0..runs {
        let t = Instant::now();
        found = dupes::near_duplicates(&existing, &added).len();
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "near_duplicates: 64 KiB ({} lines) against 4 MiB ({} lines): best of {runs} {:.1} ms, {found} duplicates",
        added.lines().count(),
        existing.lines().count(),
        best * 1e3
    );

    let line = "- a unique line that repeats nothing at all here\n";
    let mut best_line = f64::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        let n = dupes::near_duplicates(&existing, line).len();
        best_line = best_line.min(t.elapsed().as_secs_f64());
        assert_eq!(n, 0);
    }
    println!(
        "near_duplicates: one line against the same 4 MiB: best of {runs} {:.1} ms",
        best_line * 1e3
    );

    let dir = std::env::temp_dir().join(format!("dupes-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let memory = Memory::open(&dir, Options::new("/bench")).expect("open");
    let mut best_on = f64::MAX;
    for _ in 0..runs {
        std::fs::write(dir.join("MEMORY.md"), &existing).expect("seed file");
        let t = Instant::now();
        let r = memory
            .write(WriteTarget::LongTerm, &added, WriteMode::Append, None)
            .expect("write");
        best_on = best_on.min(t.elapsed().as_secs_f64());
        assert!(!r.warnings.is_empty());
    }
    let base = line;
    let mut best_small = f64::MAX;
    std::fs::write(dir.join("MEMORY.md"), &existing).expect("seed file");
    for _ in 0..runs {
        let t = Instant::now();
        memory
            .write(WriteTarget::LongTerm, base, WriteMode::Append, None)
            .expect("write");
        best_small = best_small.min(t.elapsed().as_secs_f64());
    }
    println!(
        "write append to a 4 MiB MEMORY.md, duplicate check included: 64 KiB {:.1} ms, one line {:.1} ms (best of {runs})",
        best_on * 1e3,
        best_small * 1e3
    );
    let _ = std::fs::remove_dir_all(&dir);
}
