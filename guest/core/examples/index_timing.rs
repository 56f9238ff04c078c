//! Times ranked search with the index against a full read on a store:
//!
//!     index_timing <root> <project> <query> [rounds]
//!
//! Prints the first search (which may build the index), then the median
//! of the warm ones, then a full read's.

use std::time::{Duration, Instant};

use agent_memory_core::{Memory, Options, SearchMode};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, root, project, query, rest @ ..] = &args[..] else {
        eprintln!("usage: index_timing <root> <project> <query> [rounds]");
        std::process::exit(2);
    };
    let rounds: usize = rest.first().and_then(|r| r.parse().ok()).unwrap_or(10);
    let mem = Memory::open(root, Options::new(project.as_str())).expect("open");
    let time = |f: &dyn Fn()| {
        let t = Instant::now();
        f();
        t.elapsed()
    };
    let median = |f: &dyn Fn()| {
        let mut v: Vec<Duration> = (0..rounds.max(1)).map(|_| time(f)).collect();
        v.sort();
        v[v.len() / 2]
    };
    let ranked = || {
        mem.search_with(query, SearchMode::Ranked).expect("search");
    };
    let full = || {
        mem.search_unindexed(query).expect("search");
    };
    println!("first ranked: {:?}", time(&ranked));
    println!("warm ranked:  {:?}", median(&ranked));
    println!("full read:    {:?}", median(&full));
}
