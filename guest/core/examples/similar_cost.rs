//! What the consistency notice adds to a write: appends of one fact line to a note, timed
//! with the model set (vectors built) and without, natively in this process.
//!
//! ```sh
//! cargo run -p agent-memory-core --release --example similar_cost -- \
//!     embed/weights/all-minilm-l6-v2.int8.safetensors bench/consistency/pairs.tsv
//! ```
//!
//! The store: MEMORY.md with the pairs' 40 distinct existing lines, and 40 notes of five
//! lines each made of the pairs' new lines.

use std::sync::Arc;
use std::time::Instant;

use agent_memory_core::{Memory, MiniLm, Options, WriteMode, WriteTarget};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(weights), Some(pairs)) = (args.first(), args.get(1)) else {
        eprintln!("usage: similar_cost WEIGHTS PAIRS.tsv");
        std::process::exit(2);
    };
    let model =
        Arc::new(MiniLm::from_vec(std::fs::read(weights).expect("weights")).expect("model"));
    let text = std::fs::read_to_string(pairs).expect("pairs");
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').collect())
        .collect();
    let mut old: Vec<&str> = rows.iter().map(|r| r[1]).collect();
    old.sort_unstable();
    old.dedup();
    let new: Vec<&str> = rows.iter().map(|r| r[2]).collect();

    let temp = std::env::temp_dir().join(format!("similar-cost-{}", std::process::id()));
    std::fs::create_dir_all(&temp).expect("temp root");
    let options = || Options::new("/work/similar-cost");
    let plain = Memory::open(&temp, options()).expect("open");
    let memory_md: String = old.iter().map(|l| format!("- {l}\n")).collect();
    plain
        .write(
            WriteTarget::LongTerm,
            &memory_md,
            WriteMode::Overwrite,
            None,
        )
        .expect("MEMORY.md");
    for (i, lines) in new.chunks(5).take(40).enumerate() {
        let body: String = lines.iter().map(|l| format!("- {l}\n")).collect();
        plain
            .write(
                WriteTarget::Note,
                &body,
                WriteMode::Overwrite,
                Some(&format!("n{i}")),
            )
            .expect("note");
    }
    let start = Instant::now();
    for line in &new[..20] {
        agent_memory_core::Embed::embed(model.as_ref(), line);
    }
    println!(
        "one short line embedded: {:.1} ms (mean of 20)",
        start.elapsed().as_secs_f64() * 1000.0 / 20.0
    );
    let mut on = Memory::open(&temp, options()).expect("open");
    on.set_embedder(model);
    let status = on.index_vectors(None, &mut |_, _| {}).expect("index");
    println!(
        "store: {} chunks, {}% indexed",
        status.chunks,
        status.percent()
    );

    let times = |m: &Memory, label: &str| {
        let mut ms = Vec::new();
        let mut notices = 0;
        for (i, line) in new.iter().step_by(4).take(40).enumerate() {
            let start = Instant::now();
            let receipt = m
                .write(
                    WriteTarget::Note,
                    &format!("- {line}\n"),
                    WriteMode::Append,
                    Some(&format!("w{label}{i}")),
                )
                .expect("write");
            ms.push(start.elapsed().as_secs_f64() * 1000.0);
            notices += receipt
                .warnings
                .iter()
                .filter(|w| w.starts_with("similar to"))
                .count();
        }
        ms.sort_by(f64::total_cmp);
        println!(
            "{label}: {} writes, median {:.1} ms, p90 {:.1} ms, {notices} notices",
            ms.len(),
            ms[ms.len() / 2],
            ms[ms.len() * 9 / 10]
        );
    };
    times(&plain, "off");
    times(&on, "on");
    let _ = std::fs::remove_dir_all(&temp);
}
