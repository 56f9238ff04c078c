//! Step 6 of a change, for meaning: the lines it added that mean what a line already in
//! memory means, found with the stored vectors (the rule and its measured precision:
//! `semantic/similar.rs`). Only with semantic recall on and vectors built; never fails the
//! change, and a store without a model pays nothing.
//!
//! A model that embeds here (the component's, or the core's natively) embeds the lines it
//! compares. A [`crate::semantic::Hosted`] model cannot: its host asks
//! [`Memory::similar_texts`] which lines a write would compare, embeds them and hands their
//! vectors in ([`Memory::add_query_vector`]) before the write.

use std::collections::HashMap;
use std::fs;

use super::Memory;
use crate::WriteTarget;
use crate::error::Result;
use crate::limits::MAX_SEARCH_FILE_BYTES;
use crate::semantic::Embed;
use crate::semantic::cache::Key;
use crate::semantic::similar::{
    CHUNK_FLOOR, MAX_ADDED_LINES, MAX_CANDIDATE_CHUNKS, MAX_CANDIDATE_LINES, MAX_PLAN_LINES,
    SIMILAR_COSINE, Similar, comparable, cosine, is_daily, shared_words,
};
use crate::text::prefix_at_char_boundary;

impl Memory {
    /// For each line of `added` (store path, text the change added) that restates a line of
    /// MEMORY.md, a scratchpad or a note, the older line. Empty when recall is off, the
    /// vectors are not built, or a line's vector is neither embedded here nor handed in.
    pub(super) fn similar_after_change(&self, added: &[(String, String)]) -> Vec<Similar> {
        self.similar_lines(added, &mut Vec::new())
    }

    /// The texts whose vectors a write of `content` to `target` (`name` for a note), appended
    /// or overwriting, would compare and that this memory's model cannot embed here and was not handed: for a host
    /// that embeds natively, which hands each one's vector in
    /// ([`Memory::add_query_vector`]) and asks again, until none is left (at most three
    /// rounds: the added lines, then the candidate lines each is compared with). Empty when
    /// recall is off, the vectors are not built, or the model embeds here. Reads the vectors
    /// file; writes nothing.
    ///
    /// # Errors
    /// As [`Memory::write`] for a `target` and `name` it would refuse.
    pub fn similar_texts(
        &self,
        target: WriteTarget,
        content: &str,
        name: Option<&str>,
    ) -> Result<Vec<String>> {
        let path = self.target_rel(target, name)?.path();
        if self.semantic.embedder.as_ref().is_none_or(|e| e.embeds()) {
            return Ok(Vec::new());
        }
        let kept = prefix_at_char_boundary(content, self.limits.max_write_bytes);
        let mut missing = Vec::new();
        self.similar_lines(&[(path, kept.to_owned())], &mut missing);
        Ok(missing)
    }

    /// The rule of `semantic/similar.rs` over `added`; each text whose vector is missing is
    /// pushed once to `missing` and left out.
    fn similar_lines(&self, added: &[(String, String)], missing: &mut Vec<String>) -> Vec<Similar> {
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
        let mut vector = |text: &str| {
            let v = self.text_vector(e.as_ref(), text);
            if v.is_none() && !missing.iter().any(|m| m == text) {
                missing.push(text.to_owned());
            }
            v
        };
        let vectors: Vec<Option<Vec<f32>>> = lines.iter().map(|(_, l)| vector(l)).collect();
        if vectors.iter().all(Option::is_none) {
            return Vec::new();
        }
        let cache = self.load_vectors(e.as_ref());
        let long_term = self.long_term_rel().path();
        let mut texts: HashMap<&str, Option<String>> = HashMap::new();
        let mut found = Vec::new();
        for ((own_path, line), v) in lines.into_iter().zip(vectors) {
            let Some(v) = v else {
                continue;
            };
            // The chunks of the files that hold facts close enough to the line, closest
            // first.
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
            // The comparable lines of the closest chunks, closest chunk first.
            let mut pooled: Vec<Vec<(&str, u32, String)>> = Vec::new();
            let mut memory_chunks: Vec<(u32, Option<u32>)> = Vec::new();
            for &(_, path, start, end) in &chunks {
                if path == long_term {
                    memory_chunks.push((start, end));
                }
                if pooled.len() >= MAX_CANDIDATE_CHUNKS {
                    continue;
                }
                let text = texts.entry(path).or_insert_with(|| self.read_bounded(path));
                let Some(text) = text.as_deref() else {
                    continue;
                };
                let lines: Vec<(&str, u32, String)> = text
                    .lines()
                    .enumerate()
                    .map(|(n, l)| (u32::try_from(n + 1).unwrap_or(u32::MAX), l))
                    .filter(|(n, _)| *n >= start && end.is_none_or(|end| *n < end))
                    .filter_map(|(n, l)| Some((path, n, comparable(l)?.to_owned())))
                    .collect();
                if path == own_path && lines.iter().any(|(_, _, old)| old == line) {
                    continue; // the chunk the line itself is in
                }
                pooled.push(lines);
            }
            // Those that share the most words with the line, the closer chunk's first
            // among equals (a stable sort).
            let mut pooled: Vec<(&str, u32, String)> = pooled.into_iter().flatten().collect();
            pooled.sort_by_key(|(_, _, old)| std::cmp::Reverse(shared_words(line, old)));
            // And MEMORY.md's line that shares the most words with it, wherever it is, the
            // line of a closer chunk first among equals: MEMORY.md is a list of unrelated
            // facts, so each of its chunks' vectors blends several, and a note on the line's
            // topic is often closer than the chunk that holds the older line.
            let memory_line =
                self.memory_md_candidate(line, own_path, &long_term, &memory_chunks, &mut texts);
            let mut candidates: Vec<(&str, u32, String)> = memory_line.into_iter().collect();
            for c in pooled {
                if candidates.len() >= MAX_CANDIDATE_LINES {
                    break;
                }
                if !candidates.iter().any(|(p, n, _)| *p == c.0 && *n == c.1) {
                    candidates.push(c);
                }
            }
            let mut best: Option<Similar> = None;
            for (path, n, old) in candidates {
                let Some(w) = vector(&old) else {
                    continue;
                };
                let c = cosine(&v, &w);
                if c >= SIMILAR_COSINE && best.as_ref().is_none_or(|b| c > b.cosine) {
                    best = Some(Similar {
                        path: path.to_owned(),
                        line: n,
                        text: old,
                        cosine: c,
                    });
                }
            }
            found.extend(best);
        }
        found
    }

    /// The comparable line of MEMORY.md (`long_term`, its store path) that shares the most
    /// words with `line`, among equals the one in the closest of `chunks` (MEMORY.md's
    /// chunks close enough to the line, closest first), then the first; `line` itself left
    /// out when it was written there. None when MEMORY.md holds no comparable line or
    /// cannot be read.
    fn memory_md_candidate<'t>(
        &self,
        line: &str,
        own_path: &str,
        long_term: &'t str,
        chunks: &[(u32, Option<u32>)],
        texts: &mut HashMap<&'t str, Option<String>>,
    ) -> Option<(&'t str, u32, String)> {
        let text = texts
            .entry(long_term)
            .or_insert_with(|| self.read_bounded(long_term))
            .as_deref()?;
        let rank = |n: u32| {
            chunks
                .iter()
                .position(|(start, end)| n >= *start && end.is_none_or(|end| n < end))
                .unwrap_or(usize::MAX)
        };
        text.lines()
            .enumerate()
            .map(|(n, l)| (u32::try_from(n + 1).unwrap_or(u32::MAX), l))
            .filter_map(|(n, l)| Some((n, comparable(l)?)))
            .filter(|(_, old)| !(own_path == long_term && *old == line))
            .min_by_key(|(n, old)| (std::cmp::Reverse(shared_words(line, old)), rank(*n), *n))
            .map(|(n, old)| (long_term, n, old.to_owned()))
    }

    /// The vector of `text`: the model's, or the one the host handed in for it.
    fn text_vector(&self, e: &dyn Embed, text: &str) -> Option<Vec<f32>> {
        e.embed(text)
            .or_else(|| self.semantic.queries.get(text).cloned())
    }

    /// Pairs of lines of `texts` (store path, text: MEMORY.md and the notes) that state
    /// the same fact by meaning, as `path:line` places, for the consolidation plan: the
    /// first [`MAX_PLAN_LINES`] comparable lines, each pair at a cosine of at least
    /// [`SIMILAR_COSINE`], closest first. Pairs in `known` (places already listed as
    /// lexical repeats) are left out. A line whose vector the model cannot embed here and
    /// the host did not hand in ([`Memory::plan_texts`]) is left out.
    pub(super) fn restatements(
        &self,
        texts: &[(String, String)],
        known: &[Vec<String>],
    ) -> Vec<(f32, String, String)> {
        let Some(e) = self.semantic.embedder.clone() else {
            return Vec::new();
        };
        let lines: Vec<(String, Vec<f32>)> = plan_lines(texts)
            .filter_map(|(path, n, fact)| {
                Some((format!("{path}:{n}"), self.text_vector(e.as_ref(), fact)?))
            })
            .collect();
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

    /// For a hosted model: the lines the consolidation plan compares by meaning
    /// ([`MAX_PLAN_LINES`] of MEMORY.md and the notes) whose vectors were not handed in yet,
    /// for the host to embed and hand in ([`Memory::add_query_vector`]) before it asks for
    /// the plan. Empty when recall is off or the model embeds here.
    ///
    /// # Errors
    /// `io` when the store cannot be listed.
    pub fn plan_texts(&self) -> Result<Vec<String>> {
        let Some(e) = self.semantic.embedder.clone().filter(|e| !e.embeds()) else {
            return Ok(Vec::new());
        };
        let texts = self.fact_texts(&self.list_files()?);
        let mut missing: Vec<String> = Vec::new();
        for (_, _, fact) in plan_lines(&texts) {
            if self.text_vector(e.as_ref(), fact).is_none() && !missing.iter().any(|m| m == fact) {
                missing.push(fact.to_owned());
            }
        }
        Ok(missing)
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

/// The lines the plan compares by meaning: the first [`MAX_PLAN_LINES`] comparable lines of
/// `texts` (store path, text), with their file's path and 1-based line number.
fn plan_lines(texts: &[(String, String)]) -> impl Iterator<Item = (&str, usize, &str)> {
    texts
        .iter()
        .flat_map(|(path, text)| {
            text.lines()
                .enumerate()
                .filter_map(move |(n, l)| Some((path.as_str(), n + 1, comparable(l)?)))
        })
        .take(MAX_PLAN_LINES)
}
