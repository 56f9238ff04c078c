//! What the consistency notice adds to a write in a process that keeps the model loaded:
//! appends of one fact line to a new note, timed natively in this process.
//!
//! ```sh
//! cargo run -p agent-memory-core --release --example similar_cost -- \
//!     embed/weights/all-minilm-l6-v2.int8.safetensors bench/consistency/pairs.tsv
//! ```
//!
//! The store: MEMORY.md with the pairs' distinct existing lines, and 40 notes of five lines
//! each made of the pairs' new lines, vectors built. Three ways to write:
//! - `off`: no model;
//! - `hosted`: the model runs beside the memory (as the CLI runs it natively): before each
//!   write the texts the notice compares are asked for (`similar_texts`), embedded and handed
//!   in, then the write; what this adds to `off` is the notice's cost alone;
//! - `in-core`: the model in the memory, which also embeds the chunk each write makes.

use std::sync::Arc;
use std::time::Instant;

use agent_memory_core::{Embed, Hosted, Memory, MiniLm, Options, WriteMode, WriteTarget};
use agent_memory_embed::{Embedder, Layout};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(weights), Some(pairs)) = (args.first(), args.get(1)) else {
        eprintln!("usage: similar_cost WEIGHTS PAIRS.tsv");
        std::process::exit(2);
    };
    let bytes = std::fs::read(weights).expect("weights");
    let model = Arc::new(MiniLm::from_vec(bytes.clone()).expect("model"));
    let native = Embedder::from_vec(bytes, Layout::Int8).expect("native model");
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
        native.embed(line);
    }
    println!(
        "one short line embedded natively: {:.1} ms (mean of 20)",
        start.elapsed().as_secs_f64() * 1000.0 / 20.0
    );
    let mut in_core = Memory::open(&temp, options()).expect("open");
    in_core.set_embedder(model.clone());
    let status = in_core.index_vectors(None, &mut |_, _| {}).expect("index");
    println!(
        "store: {} chunks, {}% indexed",
        status.chunks,
        status.percent()
    );
    let mut hosted = Memory::open(&temp, options()).expect("open");
    hosted.set_embedder(Arc::new(
        Hosted::new(
            model.model_id(),
            model.model_name(),
            native.dim(),
            native.tokenizer().lines(),
        )
        .expect("hosted model"),
    ));

    let times = |m: &mut Memory, label: &str, host: bool| {
        let mut ms = Vec::new();
        let (mut notices, mut embedded) = (0, 0);
        for (i, line) in new.iter().step_by(4).take(40).enumerate() {
            let content = format!("- {line}\n");
            let name = format!("w{label}{i}");
            let start = Instant::now();
            // The host's rounds: the added lines, then the lines they are compared with.
            for _ in 0..usize::from(host) * 3 {
                let texts = m
                    .similar_texts(WriteTarget::Note, &content, Some(&name))
                    .expect("texts");
                if texts.is_empty() {
                    break;
                }
                for t in texts {
                    embedded += 1;
                    m.add_query_vector(model.model_id(), &t, native.embed(&t))
                        .expect("vector");
                }
            }
            let receipt = m
                .write(WriteTarget::Note, &content, WriteMode::Append, Some(&name))
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
            "{label}: {} writes, median {:.1} ms, p90 {:.1} ms, {notices} notices, {:.1} texts embedded by the host a write",
            ms.len(),
            ms[ms.len() / 2],
            ms[ms.len() * 9 / 10],
            embedded as f64 / ms.len() as f64
        );
    };
    let mut plain = plain;
    times(&mut plain, "off", false);
    times(&mut hosted, "hosted", true);
    times(&mut in_core, "in-core", false);
    let _ = std::fs::remove_dir_all(&temp);
}
