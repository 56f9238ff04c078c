//! Precision and recall of the consistency notice's decision on the labelled pairs of
//! `bench/consistency/pairs.tsv`: is the new line told that it restates (or updates) the
//! existing one? Restatements and updates should be; related and unrelated lines not.
//!
//! ```sh
//! cargo run -p agent-memory-core --release --example consistency_eval -- \
//!     embed/weights/all-minilm-l6-v2.int8.safetensors bench/consistency/pairs.tsv [--holdout]
//! ```
//!
//! Without `--holdout` it prints the tune half at thresholds around the shipped one; with
//! it, the holdout half at [`SIMILAR_COSINE`] only.

use agent_memory_core::semantic::similar::{SIMILAR_COSINE, comparable, cosine};
use agent_memory_core::semantic::{Embed, MiniLm};

struct Pair {
    label: String,
    cosine: Option<f32>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(weights), Some(pairs)) = (args.first(), args.get(1)) else {
        eprintln!("usage: consistency_eval WEIGHTS PAIRS.tsv [--holdout]");
        std::process::exit(2);
    };
    let holdout = args.iter().any(|a| a == "--holdout");
    let model = MiniLm::from_vec(std::fs::read(weights).expect("weights")).expect("model");
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
        half.push(Pair { label, cosine });
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
        let told = |p: &Pair| p.cosine.is_some_and(|c| c >= t);
        let wanted = |p: &Pair| p.label == "restatement" || p.label == "update";
        let tp = half.iter().filter(|p| told(p) && wanted(p)).count();
        let fp = half.iter().filter(|p| told(p) && !wanted(p)).count();
        let pos = half.iter().filter(|p| wanted(p)).count();
        let by = |label: &str| {
            let of: Vec<&Pair> = half.iter().filter(|p| p.label == label).collect();
            (of.iter().filter(|p| told(p)).count(), of.len())
        };
        let (r, rn) = by("restatement");
        let (u, un) = by("update");
        let (rel, reln) = by("related");
        let (unr, unrn) = by("unrelated");
        println!(
            "{t:.3}      {:.3}      {:.3}   ({r}/{rn}, {u}/{un}; {rel}/{reln}, {unr}/{unrn})",
            if tp + fp == 0 {
                1.0
            } else {
                tp as f64 / (tp + fp) as f64
            },
            tp as f64 / pos.max(1) as f64,
        );
    }
}
