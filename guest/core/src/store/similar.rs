//! Step 6 of a change, for meaning: the lines it added that mean what a line already in
//! memory means, found with the stored vectors (the rule and its measured precision:
//! `semantic/similar.rs`). Only with semantic recall on and vectors built; never fails the
//! change, and a store without a model pays nothing.

use std::collections::HashMap;
use std::fs;

use super::Memory;
use crate::limits::MAX_SEARCH_FILE_BYTES;
use crate::semantic::cache::Key;
use crate::semantic::similar::{
    CANDIDATE_CHUNKS, CHUNK_FLOOR, MAX_ADDED_LINES, MAX_CANDIDATE_LINES, MAX_PLAN_LINES,
    SIMILAR_COSINE, Similar, comparable, cosine, is_daily,
};

impl Memory {
    /// For each line of `added` (store path, text the change added) that restates a line of
    /// MEMORY.md, a scratchpad or a note, the older line. Empty when recall is off, the
    /// vectors are not built, or the model does not embed here.
    pub(super) fn similar_after_change(&self, added: &[(String, String)]) -> Vec<Similar> {
        let Some(e) = self.semantic.embedder.clone() else {
            return Vec::new();
        };
        let lines: Vec<(&str, &str)> = added
            .iter()
            .filter(|(path, _)| !is_daily(path))
            .flat_map(|(path, text)| {
                text.lines()
                    .filter_map(|l| Some((path.as_str(), comparable(l)?)))
            })
            .take(MAX_ADDED_LINES)
            .collect();
        if lines.is_empty() || !self.abs(&self.vectors_rel(e.model_id())).exists() {
            return Vec::new();
        }
        let cache = self.load_vectors(e.as_ref());
        let mut texts: HashMap<&str, Option<String>> = HashMap::new();
        let mut found = Vec::new();
        for (own_path, line) in lines {
            let Some(v) = e.embed(line) else {
                return found;
            };
            // The closest chunks of the files that hold facts.
            let mut chunks: Vec<(f32, &str, u32, Option<u32>)> = Vec::new();
            for (path, file) in &cache.files {
                if is_daily(path) {
                    continue;
                }
                for (i, (key, start)) in file.chunks.iter().enumerate() {
                    let Some(c) = cache.cosine(&v, key) else {
                        continue;
                    };
                    if c >= CHUNK_FLOOR {
                        let end = file.chunks.get(i + 1).map(|(_, l): &(Key, u32)| *l);
                        chunks.push((c, path.as_str(), *start, end));
                    }
                }
            }
            chunks.sort_by(|a, b| b.0.total_cmp(&a.0));
            chunks.truncate(CANDIDATE_CHUNKS);
            let mut best: Option<Similar> = None;
            let mut embedded = 0;
            'chunks: for (_, path, start, end) in chunks {
                let text = texts.entry(path).or_insert_with(|| self.read_bounded(path));
                let Some(text) = text.as_deref() else {
                    continue;
                };
                for (n, old) in text.lines().enumerate() {
                    let n = u32::try_from(n + 1).unwrap_or(u32::MAX);
                    if n < start || end.is_some_and(|end| n >= end) {
                        continue;
                    }
                    let Some(old) = comparable(old) else {
                        continue;
                    };
                    if path == own_path && old == line {
                        continue; // the added line itself
                    }
                    if embedded == MAX_CANDIDATE_LINES {
                        break 'chunks;
                    }
                    embedded += 1;
                    let Some(w) = e.embed(old) else {
                        return found;
                    };
                    let c = cosine(&v, &w);
                    if c >= SIMILAR_COSINE && best.as_ref().is_none_or(|b| c > b.cosine) {
                        best = Some(Similar {
                            path: path.to_owned(),
                            line: n,
                            text: old.to_owned(),
                            cosine: c,
                        });
                    }
                }
            }
            found.extend(best);
        }
        found
    }

    /// Pairs of lines of `texts` (store path, text: MEMORY.md and the notes) that state
    /// the same fact by meaning, as `path:line` places, for the consolidation plan: the
    /// first [`MAX_PLAN_LINES`] comparable lines, each pair at a cosine of at least
    /// [`SIMILAR_COSINE`], closest first. Pairs in `known` (places already listed as
    /// lexical repeats) are left out. Empty when the model does not embed here.
    pub(super) fn restatements(
        &self,
        texts: &[(String, String)],
        known: &[Vec<String>],
    ) -> Vec<(f32, String, String)> {
        let Some(e) = self.semantic.embedder.clone() else {
            return Vec::new();
        };
        let mut lines: Vec<(String, Vec<f32>)> = Vec::new();
        'files: for (path, text) in texts {
            for (n, line) in text.lines().enumerate() {
                let Some(fact) = comparable(line) else {
                    continue;
                };
                if lines.len() == MAX_PLAN_LINES {
                    break 'files;
                }
                let Some(v) = e.embed(fact) else {
                    return Vec::new();
                };
                lines.push((format!("{path}:{}", n + 1), v));
            }
        }
        let listed = |a: &str, b: &str| {
            known
                .iter()
                .any(|c| c.iter().any(|p| p == a) && c.iter().any(|p| p == b))
        };
        let mut pairs = Vec::new();
        for (i, (a, va)) in lines.iter().enumerate() {
            for (b, vb) in &lines[i + 1..] {
                let c = cosine(va, vb);
                if c >= SIMILAR_COSINE && !listed(a, b) {
                    pairs.push((c, a.clone(), b.clone()));
                }
            }
        }
        pairs.sort_by(|x, y| y.0.total_cmp(&x.0));
        pairs
    }

    /// The text of the store file `path`, unless it is missing, not text or larger than a
    /// search reads.
    fn read_bounded(&self, path: &str) -> Option<String> {
        let abs = self.abs(path);
        let len = fs::metadata(&abs).ok()?.len();
        if len > MAX_SEARCH_FILE_BYTES {
            return None;
        }
        fs::read_to_string(abs).ok()
    }
}
