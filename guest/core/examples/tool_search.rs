//! Repeat one `memory_search` tool call natively (search and render, as the
//! component does), for `perf record` and quick timings.
//!
//! `cargo run --release -p agent-memory-core --example tool_search -- DIR RUNS MODE QUERY...`
//!
//! DIR is a corpus root the bench's `corpus` command writes (its project
//! and pinned now); MODE is `ranked` or `literal`. Prints the best and the
//! median time of a call and the rendered length.

use std::time::Instant;

use agent_memory_core::{Clock, Memory, Options, SearchMode};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        eprintln!("usage: tool_search DIR RUNS MODE QUERY...");
        std::process::exit(2);
    }
    let runs: usize = args[2].parse().expect("RUNS");
    let mode = SearchMode::from_tool_word(&args[3]).expect("ranked or literal");
    let query = args[4..].join(" ");
    let mut options = Options::new("/bench/src/kestrel-api");
    options.clock = Clock {
        utc_offset_minutes: 0,
        // 2026-05-30T18:00:00Z, the bench corpus's now.
        fixed_unix_seconds: Some(20_603 * 86_400 + 18 * 3600),
    };
    let memory = Memory::open(&args[1], options).expect("open the store");
    let mut times = Vec::with_capacity(runs);
    let mut len = 0;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        len = memory
            .search_rendered(&query, mode, 32 * 1024)
            .expect("search")
            .len();
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{query:?} {mode:?}: best {:.2} ms, median {:.2} ms, {len} bytes",
        times[0],
        times[times.len() / 2]
    );
}
