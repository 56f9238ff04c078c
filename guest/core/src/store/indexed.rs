//! Ranked search through the index ([`crate::index`]).
//!
//! One pass goes through every directory search covers (listed afresh, or
//! taken from [`crate::listing`] while the folder is unchanged) and stats
//! each file once through the open directory. A file whose signature is the one its index
//! entry recorded (and not too fresh to trust, see [`index::RACY_NS`]) is
//! not opened: its statistics come from the index, and only the query's
//! tokens are looked up. Any other file (new, changed by hand or by
//! another process, racy) is read and tokenized, as a search without an
//! index would. Files gone from the listing are gone from the results.
//! So results never depend on the index being current, only on each entry
//! pairing a signature with what the file held then: a file is always
//! stat'ed before it is read.
//!
//! Writes do not touch the index: their new size or modification time is
//! the mark that a file must be read again, and costs nothing.
//! When the files read again pass [`REWRITE_FILES`] or [`REWRITE_BYTES`]
//! (or there is no sound index), the search rewrites the index if it can
//! take the store's lock at once; otherwise it answers from memory.
//!
//! Known limit: a file changed by hand to content of the same size with
//! its modification time put back is not seen until its entry is
//! replaced; no cheaper check than reading it can tell.

use std::collections::HashMap;
use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use super::Memory;
use crate::error::Result;
use crate::fsio::{self, LockPolicy, Sig};
use crate::index::{self, Corrupt, Entry, Fresh, Index, RACY_NS};
use crate::limits::MAX_SEARCH_FILE_BYTES;
use crate::listing::{Listings, now_ns};
use crate::rank::{
    CorpusStats, Evidence, FIELDS, FileStats, Ordered, Ranker, TermStats, file_date,
};
use crate::search::{FileMeta, SearchResults};

/// Where indexes live, store-relative: hidden, so never listed, searched
/// or injected.
pub(crate) const INDEX_DIR: &str = ".store/index";
/// Settled files read again (changed or new) past which a search rewrites
/// the index.
pub(crate) const REWRITE_FILES: usize = 16;
/// Bytes of settled files read again past which a search rewrites the
/// index.
pub(crate) const REWRITE_BYTES: u64 = 256 * 1024;

/// Where a searched file's statistics come from.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// The old index's entry.
    Old,
    /// Read by this search.
    Fresh,
}

/// A file searched, in listing order.
#[derive(Debug)]
struct Live {
    meta: FileMeta,
    sig: Sig,
    lengths: [u32; FIELDS],
    source: Source,
}

impl Memory {
    /// The project's index file, store-relative.
    pub(crate) fn index_rel(&self) -> String {
        format!("{INDEX_DIR}/{}.idx", self.slug)
    }

    /// The project's remembered folder listings ([`crate::listing`]),
    /// store-relative.
    pub(crate) fn listings_rel(&self) -> String {
        format!("{INDEX_DIR}/{}.dirs", self.slug)
    }

    /// Ranked search through the index up to phase one: the hits then come
    /// one at a time, in order, from [`Ordered::next_hit`] with a
    /// [`HitReader`].
    pub(super) fn search_ranked_order(&self, query: &str) -> Result<Ordered> {
        let old = Index::load(&self.abs(&self.index_rel()));
        match self.ranked_pass(query, old) {
            Ok(ordered) => ordered,
            // The index broke under the query's own lookups: go without.
            Err(Corrupt) => match self.ranked_pass(query, None) {
                Ok(ordered) => ordered,
                Err(Corrupt) => self.ranked_unindexed_order(query),
            },
        }
    }

    /// Ranked search through the index (see the module documentation),
    /// with each hit's [`Evidence`] in the same order: what fusion with
    /// meaning weighs.
    pub(super) fn search_ranked_evidence(
        &self,
        query: &str,
    ) -> Result<(SearchResults, Vec<Evidence>)> {
        let ordered = self.search_ranked_order(query)?;
        let mut reader = HitReader::default();
        Ok(ordered.results_with_evidence(&mut |m| reader.read(self, m)))
    }

    /// Every hit of `ordered`, as results.
    pub(super) fn drain(&self, ordered: Ordered) -> SearchResults {
        let mut reader = HitReader::default();
        ordered.results(&mut |m| reader.read(self, m))
    }

    fn ranked_pass(
        &self,
        query: &str,
        old: Option<Index>,
    ) -> std::result::Result<Result<Ordered>, Corrupt> {
        let mut ranker = Ranker::new(query, self.today());
        let tokens = ranker.tokens().to_vec();
        let ranges: Vec<_> = ranker.date_ranges().collect();
        if tokens.is_empty() && ranges.is_empty() {
            return Ok(Ok(ranker.order()));
        }
        // Before any stat: an entry is trusted only for files last changed
        // well before this.
        let started = now_ns();
        let mut listings = Listings::load(&self.abs(&self.listings_rel()), started);
        let mut live: Vec<Live> = Vec::new();
        let mut fresh = Fresh::default();
        let mut remap: Vec<Option<u32>> = vec![None; old.as_ref().map_or(0, |o| o.entries.len())];
        let (mut settled_files, mut settled_bytes) = (0usize, 0u64);
        // The old index's entry after the last one found: see `entry_of`.
        let mut guess = 0;
        let walked = self.each_ranked_dir(&mut listings, &mut |dir, handle, names| {
            let at = self.search_dir(dir);
            for name in names {
                let Ok(Some(sig)) = handle.file_sig(&name) else {
                    continue;
                };
                // The path ends with the name: kept once, in the path.
                let name_len = name.len();
                let meta = at.file(name);
                let id = live.len() as u32;
                if let Some(o) = &old
                    && let Some(e) = o.entry_of(&meta.path, guess)
                {
                    guess = e as usize + 1;
                    let entry = &o.entries[e as usize];
                    if entry.sig == sig && sig.mtime_ns < o.built_at.saturating_sub(RACY_NS) {
                        remap[e as usize] = Some(id);
                        live.push(Live {
                            meta,
                            sig,
                            lengths: entry.lengths,
                            source: Source::Old,
                        });
                        continue;
                    }
                }
                let name = &meta.path[meta.path.len() - name_len..];
                let Ok(text) = handle.read_known(name, sig.len, MAX_SEARCH_FILE_BYTES) else {
                    continue;
                };
                let stats = FileStats::from_text(&meta.stem, &text);
                fresh.add(id, &stats);
                if sig.mtime_ns < started.saturating_sub(RACY_NS) {
                    settled_files += 1;
                    settled_bytes += sig.len;
                }
                live.push(Live {
                    meta,
                    sig,
                    lengths: stats.lengths,
                    source: Source::Fresh,
                });
            }
        });
        if let Err(e) = walked {
            return Ok(Err(e));
        }
        if listings.behind() {
            self.with_index_dir(|dir, guard| {
                listings.save(dir, &format!("{}.dirs", self.slug), guard);
            });
        }

        // Phase one's input: the query tokens' counts per file (by token
        // id, ascending: tokens are looked up in id order), and the daily
        // logs in a time word's range.
        let mut found: Vec<Option<Vec<(u16, TermStats)>>> = Vec::new();
        found.resize_with(live.len(), || None);
        for (t, token) in tokens.iter().enumerate() {
            let t = t as u16;
            if let Some(o) = &old {
                for (id, s) in o.postings(token)? {
                    if let Some(n) = remap[id as usize] {
                        found[n as usize].get_or_insert_with(Vec::new).push((t, s));
                    }
                }
            }
            if let Some(p) = fresh.terms.get(token) {
                for (id, s) in p.decode() {
                    found[id as usize].get_or_insert_with(Vec::new).push((t, s));
                }
            }
        }
        if !ranges.is_empty() {
            for (i, l) in live.iter().enumerate() {
                let date = file_date(&l.meta);
                if date.is_some_and(|d| ranges.iter().any(|&(a, b)| a <= d && d <= b)) {
                    found[i].get_or_insert_with(Vec::new);
                }
            }
        }
        let mut corpus = CorpusStats {
            files: live.len() as u64,
            lengths: [0; FIELDS],
        };
        for l in &live {
            for (total, len) in corpus.lengths.iter_mut().zip(l.lengths) {
                *total += u64::from(len);
            }
        }
        ranker.set_corpus(corpus);
        for (l, stats) in live.iter().zip(found) {
            if let Some(stats) = stats {
                ranker.add_token_stats(l.meta.clone(), l.lengths, stats);
            }
        }

        let carried = live
            .iter()
            .filter(|l| matches!(l.source, Source::Old))
            .count();
        let removed = old.as_ref().map_or(0, |o| o.entries.len() - carried);
        let stale = old.is_none()
            || settled_files + removed > REWRITE_FILES
            || settled_bytes > REWRITE_BYTES;
        if stale && !live.is_empty() {
            self.try_rewrite(
                started,
                &live,
                old.as_ref().map(|o| (o, &remap[..])),
                &fresh,
            );
        }
        Ok(Ok(ranker.order()))
    }

    /// Call `write` with the index folder (created if missing) and the
    /// store's lock, if the lock is free right now; otherwise skip it: the
    /// files there are caches a later search writes.
    fn with_index_dir(&self, write: impl FnOnce(&std::path::Path, &fsio::LockGuard)) {
        let policy = LockPolicy {
            lease: self.limits.lock_lease,
            wait: Duration::ZERO,
        };
        let Ok(guard) = fsio::lock(&self.root, policy) else {
            return;
        };
        if !matches!(self.ensure_dir(INDEX_DIR, true), Ok(true)) {
            return;
        }
        let dir = self.abs(INDEX_DIR);
        fsio::remove_leftovers(&dir);
        write(&dir, &guard);
    }

    /// Write the index of `live` if the store's lock is free right now;
    /// otherwise leave it for a later search. Never fails: it is a cache.
    fn try_rewrite(
        &self,
        started: i64,
        live: &[Live],
        old: Option<(&Index, &[Option<u32>])>,
        fresh: &Fresh,
    ) {
        self.with_index_dir(|dir, guard| {
            let entries: Vec<Entry> = live
                .iter()
                .map(|l| Entry {
                    path: l.meta.path.clone(),
                    sig: l.sig,
                    lengths: l.lengths,
                })
                .collect();
            let name = format!("{}.idx", self.slug);
            if index::write(dir, &name, guard, started, &entries, old, fresh).is_err()
                && guard.check().is_ok()
            {
                // Likely the old index failed a check while being merged:
                // the next search builds afresh.
                let _ = fs::remove_file(dir.join(&name));
            }
        });
    }
}

/// Reads the text phase two needs of a hit through its folder, each folder
/// opened once per search: then a hit costs a stat and an open of one
/// name, where a whole path costs the sandbox three opens (a stat, the
/// inode number wasi-libc makes up, the open).
#[derive(Debug, Default)]
pub(crate) struct HitReader {
    dirs: HashMap<PathBuf, Option<fsio::Dir>>,
}

impl HitReader {
    /// The text of the hit `meta` (its first [`MAX_SEARCH_FILE_BYTES`]),
    /// or `None` when it is no longer a regular file that can be read.
    pub(crate) fn read(&mut self, memory: &Memory, meta: &FileMeta) -> Option<String> {
        let path = memory.abs(&meta.path);
        let (parent, name) = (path.parent()?, path.file_name()?.to_str()?);
        let dir = self
            .dirs
            .entry(parent.to_path_buf())
            .or_insert_with(|| fsio::Dir::open(parent).ok().flatten());
        let (text, _) = dir
            .as_ref()?
            .read_head(name, MAX_SEARCH_FILE_BYTES)
            .ok()??;
        Some(text)
    }
}
