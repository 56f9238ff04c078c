//! A plain BM25 baseline: the yardstick ranked search must beat. Deliberately
//! simple: lowercase, split on anything not alphanumeric, no stemming, no stop
//! words, one field (the whole file), k1 = 1.2, b = 0.75, the non-negative
//! IDF `ln(1 + (N - df + 0.5) / (df + 0.5))`.

use std::collections::HashMap;

/// Term-frequency saturation.
pub const K1: f64 = 1.2;
/// Length normalisation.
pub const B: f64 = 0.75;

/// Lowercased runs of alphanumeric characters (Unicode), in order.
pub fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

struct Doc {
    path: String,
    /// Tokens in the file.
    len: u32,
    tf: HashMap<String, u32>,
}

/// An in-memory BM25 index over whole files.
pub struct Bm25 {
    docs: Vec<Doc>,
    df: HashMap<String, u32>,
    avg_len: f64,
}

impl Bm25 {
    /// Index `(path, text)` pairs.
    pub fn new<'a>(files: impl IntoIterator<Item = (String, &'a str)>) -> Bm25 {
        let mut docs = Vec::new();
        let mut df: HashMap<String, u32> = HashMap::new();
        for (path, text) in files {
            let mut tf: HashMap<String, u32> = HashMap::new();
            let tokens = tokenize(text);
            for t in &tokens {
                *tf.entry(t.clone()).or_default() += 1;
            }
            for t in tf.keys() {
                *df.entry(t.clone()).or_default() += 1;
            }
            docs.push(Doc {
                path,
                len: tokens.len() as u32,
                tf,
            });
        }
        let total: u64 = docs.iter().map(|d| u64::from(d.len)).sum();
        let avg_len = if docs.is_empty() {
            0.0
        } else {
            total as f64 / docs.len() as f64
        };
        Bm25 { docs, df, avg_len }
    }

    fn idf(&self, term: &str) -> f64 {
        let n = self.docs.len() as f64;
        let df = f64::from(self.df.get(term).copied().unwrap_or(0));
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// Files with a positive score for `query` (its distinct tokens), best
    /// first; equal scores in path order so runs are reproducible.
    pub fn search(&self, query: &str) -> Vec<(String, f64)> {
        let mut terms = tokenize(query);
        terms.sort();
        terms.dedup();
        let weights: Vec<(String, f64)> = terms
            .into_iter()
            .map(|t| {
                let idf = self.idf(&t);
                (t, idf)
            })
            .collect();
        let mut scored: Vec<(String, f64)> = self
            .docs
            .iter()
            .filter_map(|d| {
                let norm = K1 * (1.0 - B + B * f64::from(d.len) / self.avg_len);
                let score: f64 = weights
                    .iter()
                    .filter_map(|(t, idf)| {
                        let tf = f64::from(*d.tf.get(t)?);
                        Some(idf * tf * (K1 + 1.0) / (tf + norm))
                    })
                    .sum();
                (score > 0.0).then(|| (d.path.clone(), score))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        scored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_lowercased_alphanumeric_runs() {
        assert_eq!(
            tokenize("Fixed `src/db/pool.rs`: max_retry_count=5, Ünïcode—ok"),
            [
                "fixed",
                "src",
                "db",
                "pool",
                "rs",
                "max",
                "retry",
                "count",
                "5",
                "ünïcode",
                "ok"
            ]
        );
        assert!(tokenize(" -- ").is_empty());
    }

    #[test]
    fn no_substrings_and_no_stemming() {
        let index = Bm25::new([
            ("a".to_string(), "flag flags flagged"),
            ("b".to_string(), "replica lag"),
        ]);
        let hits: Vec<String> = index.search("lag").into_iter().map(|h| h.0).collect();
        assert_eq!(hits, ["b"]);
        let hits: Vec<String> = index.search("flag").into_iter().map(|h| h.0).collect();
        assert_eq!(hits, ["a"]);
        assert!(index.search("lags").is_empty());
    }

    #[test]
    fn pinned_scores() {
        // N = 3, lengths 4, 2, 3 (avg 3).
        // "pool": df 2, idf = ln(1 + 1.5/2.5) = ln 1.6 = 0.4700036292.
        // "exhaustion": df 1, idf = ln(1 + 2.5/1.5) = ln(8/3) = 0.9808292530.
        // doc a (len 4, pool x2, exhaustion x1): norm = 1.2 * (0.25 + 0.75 * 4/3) = 1.5
        //   pool: 0.4700036292 * 2 * 2.2 / 3.5 = 0.5908617053
        //   exhaustion: 0.9808292530 * 2.2 / 2.5 = 0.8631297426  -> 1.4539914480
        // doc b (len 2, pool x1): norm = 1.2 * (0.25 + 0.5) = 0.9
        //   pool: 0.4700036292 * 2.2 / 1.9 = 0.5442147286
        let index = Bm25::new([
            ("a".to_string(), "pool pool exhaustion incident"),
            ("b".to_string(), "Pool size"),
            ("c".to_string(), "nothing here now"),
        ]);
        let hits = index.search("pool exhaustion pool");
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].0, "a");
        assert!((hits[0].1 - 1.453_991_448_0).abs() < 1e-9, "{}", hits[0].1);
        assert_eq!(hits[1].0, "b");
        assert!((hits[1].1 - 0.544_214_728_6).abs() < 1e-9, "{}", hits[1].1);
    }

    #[test]
    fn ties_are_broken_by_path() {
        let index = Bm25::new([("z".to_string(), "deploy"), ("m".to_string(), "deploy")]);
        let hits: Vec<String> = index.search("deploy").into_iter().map(|h| h.0).collect();
        assert_eq!(hits, ["m", "z"]);
    }
}
