//! Ranking metrics over graded judgements: recall@k, reciprocal rank and
//! nDCG@k. A ranking is a list of store-relative paths, best first; a path
//! that appears twice counts once, where it first appears.

use std::collections::{BTreeMap, HashSet};

/// Graded judgements: path -> grade (2 = the file that answers, 1 = useful
/// too). Paths not listed are grade 0.
pub type Judgements = BTreeMap<String, u8>;

/// The ranking with later repeats of a path removed, cut to `k` entries.
fn first_k(ranking: &[String], k: usize) -> Vec<&str> {
    let mut seen = HashSet::new();
    ranking
        .iter()
        .map(String::as_str)
        .filter(|p| seen.insert(*p))
        .take(k)
        .collect()
}

fn grade(judgements: &Judgements, path: &str) -> u8 {
    judgements.get(path).copied().unwrap_or(0)
}

/// The share of the judged files (any grade above 0) found in the first `k`
/// results; 0 when nothing is judged relevant.
pub fn recall_at(ranking: &[String], judgements: &Judgements, k: usize) -> f64 {
    let relevant = judgements.values().filter(|&&g| g > 0).count();
    if relevant == 0 {
        return 0.0;
    }
    let found = first_k(ranking, k)
        .into_iter()
        .filter(|p| grade(judgements, p) > 0)
        .count();
    found as f64 / relevant as f64
}

/// 1 / the rank of the first answer (a grade-2 file) anywhere in the
/// ranking; 0 when no answer is returned. Grade-1 files do not count: the
/// point is to put the file that answers first.
pub fn reciprocal_rank(ranking: &[String], judgements: &Judgements) -> f64 {
    first_k(ranking, usize::MAX)
        .into_iter()
        .position(|p| grade(judgements, p) >= 2)
        .map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

/// Discounted gain of a grade at 0-based position `i`: (2^grade - 1) /
/// log2(i + 2), so an answer is worth three useful files at the same rank.
fn discounted_gain(grade: u8, i: usize) -> f64 {
    let gain = (1u32 << grade.min(8)) as f64 - 1.0;
    gain / ((i + 2) as f64).log2()
}

/// nDCG@k with exponential gains: DCG of the first `k` results over the DCG
/// of the ideal ordering of the judgements; 0 when nothing is judged
/// relevant.
pub fn ndcg_at(ranking: &[String], judgements: &Judgements, k: usize) -> f64 {
    let dcg: f64 = first_k(ranking, k)
        .into_iter()
        .enumerate()
        .map(|(i, p)| discounted_gain(grade(judgements, p), i))
        .sum();
    let mut ideal: Vec<u8> = judgements.values().copied().filter(|&g| g > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .into_iter()
        .take(k)
        .enumerate()
        .map(|(i, g)| discounted_gain(g, i))
        .sum();
    if idcg == 0.0 { 0.0 } else { dcg / idcg }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranking(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|p| p.to_string()).collect()
    }

    fn judged(pairs: &[(&str, u8)]) -> Judgements {
        pairs.iter().map(|(p, g)| (p.to_string(), *g)).collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn recall_counts_every_judged_file_in_the_first_k() {
        let j = judged(&[("a", 2), ("b", 1), ("c", 1)]);
        // a and c in the first 5, b at 6: 2 of 3.
        let r = ranking(&["x", "a", "y", "c", "z", "b"]);
        assert!(close(recall_at(&r, &j, 5), 2.0 / 3.0));
        assert!(close(recall_at(&r, &j, 6), 1.0));
        assert!(close(recall_at(&r, &j, 1), 0.0));
        assert!(close(recall_at(&[], &j, 5), 0.0));
        // A repeated path takes one slot, the first.
        let r = ranking(&["a", "a", "a", "a", "a", "b"]);
        assert!(close(recall_at(&r, &j, 5), 2.0 / 3.0));
    }

    #[test]
    fn reciprocal_rank_is_that_of_the_first_answer() {
        let j = judged(&[("a", 2), ("b", 1)]);
        assert!(close(reciprocal_rank(&ranking(&["a", "b"]), &j), 1.0));
        // A useful file first does not count; the answer at 3 does.
        assert!(close(
            reciprocal_rank(&ranking(&["b", "x", "a"]), &j),
            1.0 / 3.0
        ));
        // No cut-off: rank 12 still counts.
        let mut long: Vec<String> = (0..11).map(|i| format!("x{i}")).collect();
        long.push("a".into());
        assert!(close(reciprocal_rank(&long, &j), 1.0 / 12.0));
        assert!(close(reciprocal_rank(&ranking(&["b", "x"]), &j), 0.0));
        // Duplicates are dropped before ranks are counted.
        assert!(close(reciprocal_rank(&ranking(&["x", "x", "a"]), &j), 0.5));
    }

    #[test]
    fn ndcg_uses_exponential_gains_and_the_ideal_order() {
        let j = judged(&[("a", 2), ("b", 1)]);
        // Ideal: 3/log2(2) + 1/log2(3) = 3 + 0.6309297535714575.
        let idcg = 3.0 + 1.0 / 3f64.log2();
        assert!(close(ndcg_at(&ranking(&["a", "b"]), &j, 5), 1.0));
        // Swapped: 1 + 3/log2(3) = 2.8927892607143724.
        let swapped = 1.0 + 3.0 / 3f64.log2();
        assert!(close(ndcg_at(&ranking(&["b", "a"]), &j, 5), swapped / idcg));
        assert!((swapped / idcg - 0.796_707_581_0).abs() < 1e-9);
        // The answer at rank 3, nothing else: 3/log2(4) = 1.5.
        assert!(close(
            ndcg_at(&ranking(&["x", "y", "a"]), &j, 5),
            1.5 / idcg
        ));
        // Beyond k it does not count.
        assert!(close(
            ndcg_at(&ranking(&["x", "y", "z", "w", "v", "a"]), &j, 5),
            0.0
        ));
        assert!(close(ndcg_at(&ranking(&["a"]), &judged(&[]), 5), 0.0));
    }

    #[test]
    fn ndcg_pinned_value() {
        // Three judged files, the ranking finds the answer second and one
        // useful file fourth:
        // DCG  = 3/log2(3) + 1/log2(5) = 1.8927892607 + 0.4306765581 = 2.3234658188
        // IDCG = 3/log2(2) + 1/log2(3) + 1/log2(4) = 3 + 0.6309297536 + 0.5 = 4.1309297536
        // nDCG = 2.3234658188 / 4.1309297536 = 0.5624559016
        let j = judged(&[("a", 2), ("b", 1), ("c", 1)]);
        let v = ndcg_at(&ranking(&["x", "a", "y", "b", "z"]), &j, 5);
        assert!((v - 0.562_455_901_6).abs() < 1e-9, "{v}");
    }
}
