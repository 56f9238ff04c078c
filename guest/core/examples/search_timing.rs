//! Time literal against ranked search natively over a store on disk (warm:
//! the OS cache holds the files after the first run of each query).
//!
//! `cargo run --release -p agent-memory-core --example search_timing -- DIR [PROJECT] [RUNS] [QUERY]`
//!
//! DIR is a memory root such as one the bench's `corpus` command writes;
//! PROJECT is the project path its slug is made from (the bench's default).
//! Today is pinned to the bench corpus's 2026-05-30.

use std::time::Instant;

use agent_memory_core::{Clock, Memory, Options, SearchMode};

const QUERIES: &[&str] = &[
    "deploy",
    "Staging timeout migration",
    "deploy staging TIMEOUT migration cache token flaky rollback",
    "xylophone",
    "what did we deploy last week",
    "yesterday",
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(root) = args.get(1) else {
        eprintln!("usage: search_timing DIR [PROJECT] [RUNS]");
        std::process::exit(2);
    };
    let project = args.get(2).map_or("/bench/src/kestrel-api", String::as_str);
    let runs: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(10);
    // A fifth argument, a query, prints its ranked top five instead.
    if let Some(query) = args.get(4) {
        let mut options = Options::new(project);
        options.clock.fixed_unix_seconds = Some(20_603 * 86_400 + 18 * 3600);
        let memory = Memory::open(root, options).expect("open the store");
        let r = memory
            .search_with(query, SearchMode::Ranked)
            .expect("search");
        println!("{:?}", r.terms);
        for h in r.hits.iter().take(5) {
            println!("{}  [matched: {}]", h.path, h.matched_terms.join(", "));
        }
        return;
    }
    let mut options = Options::new(project);
    options.clock = Clock {
        utc_offset_minutes: 0,
        // 2026-05-30T18:00:00Z
        fixed_unix_seconds: Some(20_603 * 86_400 + 18 * 3600),
    };
    let memory = Memory::open(root, options).expect("open the store");
    println!("| query | literal ms | ranked ms | ratio | literal hits | ranked hits |");
    println!("|---|---:|---:|---:|---:|---:|");
    for query in QUERIES {
        let mut best = [f64::MAX; 2];
        let mut hits = [0; 2];
        for (i, mode) in [SearchMode::Literal, SearchMode::Ranked]
            .into_iter()
            .enumerate()
        {
            for _ in 0..runs {
                let start = Instant::now();
                let r = memory.search_with(query, mode).expect("search");
                best[i] = best[i].min(start.elapsed().as_secs_f64() * 1e3);
                hits[i] = r.hits.len();
            }
        }
        println!(
            "| {query} | {:.1} | {:.1} | {:.2} | {} | {} |",
            best[0],
            best[1],
            best[1] / best[0],
            hits[0],
            hits[1]
        );
    }
}
