//! Writes notes and searches in a loop, so the search index is rewritten
//! again and again: what `tests/index_kill.rs` kills with SIGKILL at random
//! moments, and runs two at once.
//!
//!     index_churn <root> <worker> <rounds>   (rounds 0: until killed)
//!
//! Each note gets the word `proc<worker>word` and `churnword` on one line;
//! after every write the worker checks that ranked search counts exactly
//! its own notes (another worker's writes can only add to `churnword`).
//! Notes are aged by hand into the past, so the index trusts them and the
//! search merges them into a new index every few rounds. Exits 1 on a
//! wrong count.

use std::fs::File;
use std::time::{Duration, SystemTime};

use agent_memory_core::{Memory, Options, SearchMode, WriteMode, WriteTarget};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (root, worker, rounds) = match &args[..] {
        [_, root, worker, rounds] => (
            root.clone(),
            worker.parse::<u64>().expect("worker number"),
            rounds.parse::<u64>().expect("rounds"),
        ),
        _ => {
            eprintln!("usage: index_churn <root> <worker> <rounds>");
            std::process::exit(2);
        }
    };
    let mut options = Options::new("/work/src/churn-app");
    options.limits.lock_wait = Duration::from_secs(60);
    let mem = Memory::open(&root, options).expect("open");
    let own = format!("proc{worker}word");
    let mut n = 0u64;
    while rounds == 0 || n < rounds {
        let name = format!("w{worker}/n{}", n % 40);
        let text = format!("{own} churnword round {n}\nfiller line {n} deploy staging\n");
        mem.write(WriteTarget::Note, &text, WriteMode::Overwrite, Some(&name))
            .expect("write");
        // Back in time, a different second each round: a settled file.
        let path = std::path::Path::new(&root).join(format!(
            "projects/{}/notes/w{worker}/n{}.md",
            mem.slug(),
            n % 40
        ));
        let when = SystemTime::now() - Duration::from_secs(3600 + n % 600);
        if let Ok(f) = File::options().write(true).open(&path) {
            let _ = f.set_modified(when);
        }
        n += 1;
        let results = mem.search_with(&own, SearchMode::Ranked).expect("search");
        // Its notes on disk (an earlier, killed run may have left some).
        let expected = std::fs::read_dir(path.parent().expect("a folder")).map_or(0, |d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".md"))
                .count()
        });
        let counted = results.terms.first().map_or(0, |t| t.1);
        if counted != expected {
            eprintln!("worker {worker} round {n}: {own} counted {counted}, expected {expected}");
            std::process::exit(1);
        }
        let all = mem
            .search_with("churnword", SearchMode::Ranked)
            .expect("search");
        if all.terms.first().map_or(0, |t| t.1) < expected {
            eprintln!("worker {worker} round {n}: churnword lost some of {expected} notes");
            std::process::exit(1);
        }
    }
}
