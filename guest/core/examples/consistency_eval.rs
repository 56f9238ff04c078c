//! Precision and recall of the consistency notice's decision on the labelled pairs of
//! `bench/consistency/pairs.tsv`: is the new line told that it restates (or updates) the
//! existing one? Restatements and updates should be; related and unrelated lines not.
//!
//! ```sh
//! cargo run -p agent-memory-core --release --example consistency_eval -- \
//!     embed/weights/all-minilm-l6-v2.int8.safetensors bench/consistency/pairs.tsv \
//!     [--holdout] [--distractors DIR]
//! ```
//!
//! Without `--holdout` it prints the tune half at thresholds around the shipped one; with
//! it, the holdout half at [`SIMILAR_COSINE`] only.
//!
//! Then the same half in a store, as a write meets it: MEMORY.md holds the half's existing
//! lines, each new line is appended to a note and the receipt read (the write undone after),
//! so the notice is told only when the older line is a candidate (MEMORY.md's line that
//! shares the most words with it, or one of the closest chunk: [`CHUNK_FLOOR`],
//! [`MAX_CANDIDATE_LINES`]). A pair counts as told when the notice names its own older
//! line: a new line may also restate another pair's older line, rightly. Without
//! `--holdout` it also prints, for chunk floors around the shipped one, what the first rule
//! (the closest chunk's lines only) would give and how many lines it embeds.
//!
//! `--distractors DIR` also puts every Markdown file under DIR into the store as a note
//! (e.g. `bench/eval/store`, a project's 250 KB of notes and logs), so that the chunk
//! closest to a new line is often another note's, as in a store in use.

use std::sync::Arc;

use agent_memory_core::semantic::similar::{
    CHUNK_FLOOR, MAX_CANDIDATE_CHUNKS, MAX_CANDIDATE_LINES, SIMILAR_COSINE, comparable, cosine,
    shared_words,
};
use agent_memory_core::semantic::{CHUNK_PIECES, Embed, MiniLm};
use agent_memory_core::{Memory, Options, WriteMode, WriteTarget};

struct Pair {
    label: String,
    old: String,
    new: String,
    cosine: Option<f32>,
}

fn wanted(p: &Pair) -> bool {
    p.label == "restatement" || p.label == "update"
}

/// `precision recall (restatement, update told; related, unrelated told)` of the pairs
/// `told` says were told.
fn row(half: &[Pair], told: &dyn Fn(usize) -> bool) -> String {
    let tp = (0..half.len())
        .filter(|&i| told(i) && wanted(&half[i]))
        .count();
    let fp = (0..half.len())
        .filter(|&i| told(i) && !wanted(&half[i]))
        .count();
    let pos = half.iter().filter(|p| wanted(p)).count();
    let by = |label: &str| {
        let of: Vec<usize> = (0..half.len())
            .filter(|&i| half[i].label == label)
            .collect();
        let n = of.iter().filter(|&&i| told(i)).count();
        format!("{n}/{}", of.len())
    };
    format!(
        "{:.3}      {:.3}   ({}, {}; {}, {})",
        if tp + fp == 0 {
            1.0
        } else {
            tp as f64 / (tp + fp) as f64
        },
        tp as f64 / pos.max(1) as f64,
        by("restatement"),
        by("update"),
        by("related"),
        by("unrelated"),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(weights), Some(pairs)) = (args.first(), args.get(1)) else {
        eprintln!("usage: consistency_eval WEIGHTS PAIRS.tsv [--holdout] [--distractors DIR]");
        std::process::exit(2);
    };
    let holdout = args.iter().any(|a| a == "--holdout");
    let distractors = args
        .iter()
        .position(|a| a == "--distractors")
        .map(|i| std::path::PathBuf::from(args.get(i + 1).expect("--distractors DIR")));
    let model =
        Arc::new(MiniLm::from_vec(std::fs::read(weights).expect("weights")).expect("model"));
    let text = std::fs::read_to_string(pairs).expect("pairs");
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let mut half = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let mut fields = line.split('\t');
        let (label, old, new) = (
            fields.next().unwrap().to_owned(),
            fields.next().unwrap(),
            fields.next().unwrap(),
        );
        let n = seen.entry(label.clone()).or_default();
        *n += 1;
        // Pairs 1, 3, 5, … of each label tune; 2, 4, 6, … are the holdout.
        if n.is_multiple_of(2) != holdout {
            continue;
        }
        let cosine = match (comparable(old), comparable(new)) {
            (Some(a), Some(b)) => Some(cosine(
                &model.embed(a).expect("vector"),
                &model.embed(b).expect("vector"),
            )),
            _ => None,
        };
        half.push(Pair {
            label,
            old: old.to_owned(),
            new: new.to_owned(),
            cosine,
        });
    }
    let thresholds: Vec<f32> = if holdout {
        vec![SIMILAR_COSINE]
    } else {
        (0..=16).map(|i| 0.55 + 0.025 * i as f32).collect()
    };
    println!(
        "{} half, {} pairs; notice wanted for restatement and update",
        if holdout { "holdout" } else { "tune" },
        half.len()
    );
    println!(
        "threshold  precision  recall  (restatement, update recall; related, unrelated flagged)"
    );
    for t in thresholds {
        let told = |i: usize| half[i].cosine.is_some_and(|c| c >= t);
        println!("{t:.3}      {}", row(&half, &told));
    }
    in_store(&model, &half, holdout, distractors.as_deref());
}

/// Every Markdown file under `dir` (SCRATCHPAD.md left out), recursively, sorted.
fn markdown(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            markdown(&p, out);
        } else if p.extension().is_some_and(|e| e == "md")
            && p.file_name().is_some_and(|n| n != "SCRATCHPAD.md")
        {
            out.push(p);
        }
    }
}

/// The half as writes meet it in a store (see the file's doc).
fn in_store(
    model: &Arc<MiniLm>,
    half: &[Pair],
    holdout: bool,
    distractors: Option<&std::path::Path>,
) {
    let mut old: Vec<&str> = Vec::new();
    for p in half {
        if !old.contains(&p.old.as_str()) {
            old.push(&p.old);
        }
    }
    let memory_md: String =
        "# Facts\n\n".to_owned() + &old.iter().map(|l| format!("- {l}\n")).collect::<String>();
    let temp = std::env::temp_dir().join(format!("consistency-eval-{}", std::process::id()));
    std::fs::create_dir_all(&temp).expect("temp root");
    let mut m = Memory::open(&temp, Options::new("/work/consistency-eval")).expect("open");
    m.write(
        WriteTarget::LongTerm,
        &memory_md,
        WriteMode::Overwrite,
        None,
    )
    .expect("MEMORY.md");
    let mut others = Vec::new();
    if let Some(dir) = distractors {
        markdown(dir, &mut others);
        for (i, path) in others.iter().enumerate() {
            let text = std::fs::read_to_string(path).expect("distractor");
            m.write(
                WriteTarget::Note,
                &text,
                WriteMode::Overwrite,
                Some(&format!("other-{i}")),
            )
            .expect("distractor note");
        }
    }
    m.set_embedder(model.clone());
    let status = m.index_vectors(None, &mut |_, _| {}).expect("index");
    assert_eq!(status.percent(), 100, "every chunk has a vector");
    // The product's own decision: the receipt names the pair's older line.
    let named: Vec<bool> = half
        .iter()
        .map(|p| {
            let receipt = m
                .write(
                    WriteTarget::Note,
                    &format!("- {}\n", p.new),
                    WriteMode::Append,
                    Some("w"),
                )
                .expect("write");
            m.undo(None).expect("undo");
            let line = memory_md
                .lines()
                .position(|l| l == format!("- {}", p.old))
                .expect("old line")
                + 1;
            if std::env::var_os("CONSISTENCY_EVAL_SHOW").is_some() {
                eprintln!("{} {:?} {:?}", p.label, p.new, receipt.warnings);
            }
            receipt
                .warnings
                .iter()
                .any(|w| w.starts_with(&format!("similar to MEMORY.md:{line} ")))
        })
        .collect();
    println!();
    println!(
        "in a store ({} lines of MEMORY.md and {} other notes, {} chunks): candidates MEMORY.md's line and those of the {MAX_CANDIDATE_CHUNKS} closest chunk(s) at a chunk floor of {CHUNK_FLOOR}, at most {MAX_CANDIDATE_LINES} lines embedded, threshold {SIMILAR_COSINE}",
        old.len(),
        others.len(),
        status.chunks
    );
    println!("           precision  recall");
    println!("written    {}", row(half, &|i| named[i]));
    let _ = std::fs::remove_dir_all(&temp);
    if holdout || distractors.is_some() {
        return;
    }
    // The first rule, for other floors and numbers of lines: the closest chunk of MEMORY.md
    // at or above the floor, its lines that share the most words compared.
    let chunks = agent_memory_embed::chunk::chunk_note("MEMORY", &memory_md, CHUNK_PIECES, &|t| {
        model.pieces(t)
    });
    let chunk_vectors: Vec<Vec<f32>> = chunks
        .iter()
        .map(|c| model.embed(&c.text).unwrap())
        .collect();
    let lines: Vec<&str> = memory_md.lines().collect();
    let line_vectors: Vec<Option<Vec<f32>>> = lines
        .iter()
        .map(|l| comparable(l).map(|c| model.embed(c).unwrap()))
        .collect();
    let news: Vec<Vec<f32>> = half
        .iter()
        .map(|p| model.embed(comparable(&p.new).unwrap_or(&p.new)).unwrap())
        .collect();
    println!("floor  lines  precision  recall  (…)  lines embedded per write (mean)");
    for floor in [0.2f32, 0.25, 0.3, 0.35, 0.4] {
        for cap in [1, 2, 3, 12] {
            let mut embedded = 0usize;
            let told: Vec<bool> = half
                .iter()
                .zip(&news)
                .map(|(p, v)| {
                    let mut best: Vec<(f32, usize)> = chunk_vectors
                        .iter()
                        .enumerate()
                        .map(|(i, w)| (cosine(v, w), i))
                        .filter(|(c, _)| *c >= floor)
                        .collect();
                    best.sort_by(|a, b| b.0.total_cmp(&a.0));
                    let mut best_line: Option<(f32, usize)> = None;
                    for &(_, i) in best.iter().take(1) {
                        let start = chunks[i].line;
                        let end = chunks.get(i + 1).map_or(usize::MAX, |c| c.line);
                        let mut cands: Vec<usize> = (start..end.min(lines.len() + 1))
                            .filter(|n| line_vectors[n - 1].is_some())
                            .collect();
                        cands
                            .sort_by_key(|n| std::cmp::Reverse(shared_words(&p.new, lines[n - 1])));
                        for n in cands.into_iter().take(cap) {
                            embedded += 1;
                            let c = cosine(v, line_vectors[n - 1].as_ref().unwrap());
                            if c >= SIMILAR_COSINE && best_line.is_none_or(|b| c > b.0) {
                                best_line = Some((c, n));
                            }
                        }
                    }
                    best_line.is_some_and(|(_, n)| lines[n - 1] == format!("- {}", p.old))
                })
                .collect();
            println!(
                "{floor:.2}   {cap:>2}     {}  {:.1}",
                row(half, &|i| told[i]),
                embedded as f64 / half.len() as f64
            );
        }
    }
}
