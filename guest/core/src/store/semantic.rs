//! Semantic recall on the store: the vectors cache kept current with the
//! searched files, the change pipeline's hook, and fusion in ranked search.
//! The pure parts (the trait, the file format, the gate) are in
//! [`crate::semantic`].
//!
//! Nothing here fails a search or a write: a cache that cannot be read is
//! rebuilt, one that cannot be written is kept in memory for this call,
//! and a store without a model searches as it always did.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{self, OpenOptions};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::sync::Arc;
use std::time::Duration;

use super::Memory;
use super::indexed::HitReader;
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::{self, LockGuard, LockPolicy};
use crate::index::RACY_NS;
use crate::limits::MAX_SEARCH_FILE_BYTES;
use crate::listing::{Listings, now_ns};
use crate::rank::{Evidence, Ranker};
use crate::search::{FileMeta, SearchHit, SearchResults, render_windows};
use crate::semantic::cache::{self, Cache, FileChunks, Key};
use crate::semantic::fuse::{self, BY_MEANING, Fusion, Params, Scored};
use crate::semantic::{self, DEFAULT_SEARCH_BUDGET, Embed, PendingChunks, SemanticStatus};

/// Where vectors live, store-relative: hidden, never listed or searched.
pub(crate) const VECTORS_DIR: &str = ".store/vectors";

/// Chunks a change embeds at once (more are left to the next search or
/// [`Memory::index_vectors`]): a note or an appended entry is a few.
const CHANGE_BUDGET: usize = 16;

/// Chunks embedded between two saves of a long build, so that an
/// interrupted build keeps most of its work.
const SAVE_EVERY: usize = 256;

/// Bytes of files a search reads and chunks again before it answers (a
/// larger file is read only as the first): `status` takes 4 s to chunk
/// the 20 MB bench corpus in the component, and a store of megabytes never
/// chunked must not make every weak-word search that slow. Files past it
/// wait for the next search or `index`; until then meaning does not order
/// them.
const SEARCH_CHUNK_BYTES: u64 = 256 * 1024;

/// The log beside the vectors file at `path`.
fn log_path(path: &std::path::Path) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".log");
    name.into()
}

/// Which files a survey may read and chunk again.
#[derive(Debug, Clone, Copy)]
struct Reach<'a> {
    /// Bytes of files it may chunk in all.
    bytes: u64,
    /// Store-relative paths chunked whatever `bytes` says (a change's).
    always: &'a [String],
}

impl Reach<'_> {
    /// Every file that needs it.
    const ALL: Reach<'static> = Reach {
        bytes: u64::MAX,
        always: &[],
    };
}

/// The searched files and their chunks, as they are now.
#[derive(Default)]
struct Survey {
    /// Each searched file and its chunks' keys and lines.
    files: Vec<(FileMeta, Vec<(Key, u32)>)>,
    /// Chunks without a vector, once each: the key and the file (in
    /// `files`) that holds it. Its text is read when it is embedded
    /// ([`Memory::texts`]), not by the survey.
    pending: Vec<(Key, usize)>,
    /// Texts of the first pending chunks, from files the survey chunked.
    texts: HashMap<Key, String>,
    /// Chunks in all.
    total: usize,
    /// Bytes of the files in `files`.
    bytes: u64,
    /// Bytes of files left unchunked by the survey's [`Reach`].
    unread: u64,
    /// A file was chunked again and is now recorded under its settled
    /// signature: saving spares the next search reading it.
    settled: bool,
}

impl Memory {
    /// Turn semantic recall on with `embedder`. Vectors are built by
    /// [`Memory::index_vectors`], by searches (a few chunks each) and by
    /// changes (the chunks they touch).
    pub fn set_embedder(&mut self, embedder: Arc<dyn Embed>) {
        let same = self
            .semantic
            .embedder
            .as_ref()
            .is_some_and(|e| e.model_id() == embedder.model_id());
        if !same {
            self.semantic.queries.clear();
        }
        self.semantic.embedder = Some(embedder);
        self.semantic.off = None;
        if self.semantic.search_budget == 0 {
            self.semantic.search_budget = DEFAULT_SEARCH_BUDGET;
        }
    }

    /// Turn semantic recall off, saying why (`turned off by the host`,
    /// `weights not found at …`). Ranked search is then exactly lexical.
    pub fn set_semantic_off(&mut self, why: impl Into<String>) {
        self.semantic.embedder = None;
        self.semantic.queries.clear();
        self.semantic.off = Some(why.into());
    }

    /// Missing chunks a search whose words do not decide embeds before
    /// it answers (default [`DEFAULT_SEARCH_BUDGET`]); with more missing, it
    /// embeds none, answers lexically and says how far indexing is.
    pub fn set_search_embed_budget(&mut self, chunks: usize) {
        self.semantic.search_budget = chunks;
    }

    /// Put the newest matching daily log first for `latest X`, `most
    /// recent X`, `current X` (on by default; the bench compares).
    pub fn set_recency(&mut self, on: bool) {
        self.semantic.recency = on;
    }

    /// Set the gate and fusion knobs (the bench tunes them; hosts keep the
    /// defaults).
    pub fn set_fusion(&mut self, params: Params) {
        self.semantic.params = params;
    }

    /// Whether semantic recall is on, with which model, how many chunks
    /// have vectors, or why it is off. Reads the files' signatures, and the
    /// files that changed; embeds nothing. The chunk keys of the files it
    /// cut are saved (when the store's lock is free), so the next call
    /// does not cut them again.
    pub fn semantic_status(&self) -> SemanticStatus {
        let Some(e) = self.semantic.embedder.clone() else {
            return self.status_off();
        };
        let mut cache = self.load_vectors(e.as_ref());
        let survey = self.survey(e.as_ref(), &mut cache, Reach::ALL, 0);
        if survey.settled {
            self.save_vectors_now(&mut cache);
        }
        self.status_of(e.as_ref(), &survey)
    }

    /// Embed the chunks that have no vector yet, at most `limit` of them,
    /// calling `progress(done, pending)` after each, and save the vectors
    /// (every few hundred chunks, so an interrupted build keeps its work).
    ///
    /// # Errors
    /// None today: a cache that cannot be saved is reported by the status
    /// staying below 100% on the next call.
    pub fn index_vectors(
        &self,
        limit: Option<usize>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<SemanticStatus> {
        let Some(e) = self.semantic.embedder.clone() else {
            return Ok(self.status_off());
        };
        let mut cache = self.load_vectors(e.as_ref());
        let mut survey = self.survey(e.as_ref(), &mut cache, Reach::ALL, SAVE_EVERY);
        let total = survey.pending.len();
        let want = limit.unwrap_or(usize::MAX).min(total);
        let mut done = 0;
        // In rounds of SAVE_EVERY, each saved: the texts of one round are
        // read at a time.
        'rounds: for start in (0..want).step_by(SAVE_EVERY) {
            let end = want.min(start + SAVE_EVERY);
            for (key, text) in self.texts(e.as_ref(), &mut survey, start..end) {
                // A hosted model embeds nothing here: the host builds with
                // `pending_chunks` and `add_vectors`.
                let Some(vector) = e.embed(&text) else {
                    break 'rounds;
                };
                cache.add(key, vector);
                done += 1;
                progress(done, total);
            }
            if end < want {
                self.save_vectors_now(&mut cache);
            }
        }
        survey.pending.retain(|(k, _)| !cache.has(k));
        self.save_vectors_now(&mut cache);
        Ok(self.status_of(e.as_ref(), &survey))
    }

    /// The chunks that have no vector yet (at most `limit`), with the
    /// model's id, for a host that embeds them itself (natively, on all its
    /// cores) and hands the vectors back with [`Memory::add_vectors`].
    /// `None` when semantic recall is off. Reads what changed and embeds
    /// nothing; as [`Memory::semantic_status`], it saves the chunk keys of
    /// the files it cut.
    pub fn pending_chunks(&self, limit: Option<usize>) -> Option<PendingChunks> {
        let e = self.semantic.embedder.clone()?;
        let mut cache = self.load_vectors(e.as_ref());
        let want = limit.unwrap_or(usize::MAX);
        let mut survey = self.survey(e.as_ref(), &mut cache, Reach::ALL, want);
        if survey.settled {
            self.save_vectors_now(&mut cache);
        }
        let status = self.status_of(e.as_ref(), &survey);
        let chunks = self.texts(e.as_ref(), &mut survey, 0..want);
        Some(PendingChunks {
            model_id: e.model_id().to_owned(),
            chunks,
            status,
        })
    }

    /// Give the vector of a text that a host embedded itself: searches of
    /// this memory whose text ([`query_text`]) is `text` use it instead of
    /// embedding the query (which a [`crate::semantic::Hosted`] model
    /// cannot), and so does a write's consistency notice for a line
    /// [`Memory::similar_texts`] listed. Kept while the model stays the
    /// memory's.
    ///
    /// # Errors
    /// As [`Memory::add_vectors`]: [`ErrorKind::InvalidOptions`] when
    /// semantic recall is off, [`ErrorKind::Conflict`] for another model's
    /// id, [`ErrorKind::InvalidArguments`] for a vector of another width or
    /// with a number that is not finite.
    pub fn add_query_vector(&mut self, model_id: &str, text: &str, vector: Vec<f32>) -> Result<()> {
        let e = self.embedder_for(model_id)?;
        let want = e.dim().unwrap_or(vector.len());
        check_vector(0, &vector, want)?;
        self.semantic.queries.insert(text.to_owned(), vector);
        Ok(())
    }

    /// Store vectors that a host computed for chunks [`Memory::pending_chunks`]
    /// listed, under the store's lock, and return the status after. A vector
    /// for a key no searched file has now (its file changed meanwhile) is
    /// dropped; one already stored is kept as it was.
    ///
    /// # Errors
    /// - [`ErrorKind::InvalidOptions`] when semantic recall is off;
    /// - [`ErrorKind::Conflict`] when `model_id` is not the memory's model
    ///   (vectors of two models never mix: take the chunks again);
    /// - [`ErrorKind::InvalidArguments`] when a vector has another width
    ///   than the model's, or a number that is not finite (nothing is
    ///   stored);
    /// - [`ErrorKind::Busy`] or [`ErrorKind::Io`] when the lock or the
    ///   vectors file could not be had or written.
    pub fn add_vectors(
        &self,
        model_id: &str,
        vectors: Vec<([u8; 16], Vec<f32>)>,
    ) -> Result<SemanticStatus> {
        let e = self.embedder_for(model_id)?;
        let guard = self.lock()?;
        self.ensure_git_files();
        let mut cache = self.load_vectors(e.as_ref());
        let width = e.dim().or((cache.dim > 0).then_some(cache.dim));
        for (i, (_, v)) in vectors.iter().enumerate() {
            check_vector(i, v, width.unwrap_or(vectors[0].1.len()))?;
        }
        let mut survey = self.survey(e.as_ref(), &mut cache, Reach::ALL, 0);
        let pending: HashSet<Key> = survey.pending.iter().map(|(k, _)| *k).collect();
        for (key, v) in vectors {
            if pending.contains(&key) {
                cache.add(key, v);
            }
        }
        self.write_vectors(&mut cache, &guard)
            .map_err(|err| Error::io("write the vectors", &self.vectors_rel(e.model_id()), &err))?;
        survey.pending.retain(|(k, _)| !cache.has(k));
        Ok(self.status_of(e.as_ref(), &survey))
    }

    /// The memory's model, when its id is `model_id`: vectors handed in
    /// from outside are of it or refused.
    fn embedder_for(&self, model_id: &str) -> Result<Arc<dyn Embed>> {
        let Some(e) = self.semantic.embedder.clone() else {
            let why = self.status_off().why_off.unwrap_or_default();
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!(
                    "semantic recall is off on this memory ({why}); enable it before adding vectors"
                ),
            ));
        };
        if model_id != e.model_id() {
            return Err(Error::new(
                ErrorKind::Conflict,
                format!(
                    "the vectors are of model `{model_id}` and this memory's model is `{}`; take the pending chunks again and embed them with its weights",
                    e.model_id()
                ),
            ));
        }
        Ok(e)
    }

    fn status_off(&self) -> SemanticStatus {
        SemanticStatus {
            on: false,
            model: None,
            chunks: 0,
            ready: 0,
            why_off: Some(
                self.semantic
                    .off
                    .clone()
                    .unwrap_or_else(|| "the host gave no embedding model".into()),
            ),
        }
    }

    fn status_of(&self, e: &dyn Embed, survey: &Survey) -> SemanticStatus {
        let pending: usize = {
            let keys: HashSet<&Key> = survey.pending.iter().map(|(k, _)| k).collect();
            survey
                .files
                .iter()
                .flat_map(|(_, c)| c)
                .filter(|(k, _)| keys.contains(k))
                .count()
        };
        SemanticStatus {
            on: true,
            model: Some(e.model_name().to_owned()),
            chunks: survey.total,
            ready: survey.total - pending,
            why_off: None,
        }
    }

    /// How far indexing is, in whole percent, for a search's note: as
    /// [`SemanticStatus::percent`], with the chunks of the files the survey
    /// left unread estimated at the rate of those it read (never 100%
    /// while any is unread).
    fn search_percent(status: &SemanticStatus, survey: &Survey) -> usize {
        if survey.unread == 0 {
            return status.percent();
        }
        let unread = match survey.bytes {
            0 => 1,
            bytes => ((survey.unread as f64 * status.chunks as f64 / bytes as f64).ceil() as usize)
                .max(1),
        };
        status.ready * 100 / (status.chunks + unread)
    }

    /// The vectors file of model `id`, store-relative.
    pub(crate) fn vectors_rel(&self, id: &str) -> String {
        let id: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{VECTORS_DIR}/{}.{id}.vec", self.slug)
    }

    /// The cache of `e`'s model, or an empty one when the file is missing,
    /// damaged or of another model. A file of an older layout is written
    /// again in the current one (if the store's lock is free).
    pub(super) fn load_vectors(&self, e: &dyn Embed) -> Cache {
        let path = self.abs(&self.vectors_rel(e.model_id()));
        let Some(mut cache) = fs::read(&path)
            .ok()
            .and_then(|b| Cache::decode(b, e.model_id()))
        else {
            return Cache::new(e.model_id());
        };
        if let Ok(log) = fs::read(log_path(&path)) {
            cache.replay(&log);
        }
        if cache.outdated {
            self.save_vectors_now(&mut cache);
        }
        cache
    }

    /// Save `cache` if the store's lock is free right now.
    fn save_vectors_now(&self, cache: &mut Cache) {
        let policy = LockPolicy {
            lease: self.limits.lock_lease,
            wait: Duration::ZERO,
        };
        if let Ok(guard) = fsio::lock(&self.root, policy) {
            self.save_vectors(cache, &guard);
        }
    }

    /// Save `cache` under the held lock. Best effort: it is a cache.
    fn save_vectors(&self, cache: &mut Cache, guard: &LockGuard) {
        let _ = self.write_vectors(cache, guard);
    }

    /// Save what changed in `cache` under the held lock: appended to the
    /// log when the vectors file is the one the cache was read from and
    /// the log stays small beside it ([`cache::log_fits`]); else the file
    /// is written again whole and the log removed.
    fn write_vectors(&self, cache: &mut Cache, guard: &LockGuard) -> std::io::Result<()> {
        if !cache.is_dirty() && !cache.outdated && cache.base != 0 {
            return Ok(());
        }
        let path = self.abs(&self.vectors_rel(&cache.model));
        match self.append_vectors(cache, &path, guard) {
            Ok(true) => Ok(()),
            _ => self.rewrite_vectors(cache, guard),
        }
    }

    /// Append what changed in `cache` to the log of the vectors file at
    /// `path`; `false` (nothing written) when the file must be written
    /// again whole instead.
    fn append_vectors(
        &self,
        cache: &mut Cache,
        path: &std::path::Path,
        guard: &LockGuard,
    ) -> std::io::Result<bool> {
        if cache.outdated || cache.base == 0 {
            return Ok(false);
        }
        // The file is the one read (its checksum is its last 8 bytes):
        // another process may have written it again since.
        let mut file = fs::File::open(path)?;
        let file_len = file.metadata()?.len();
        let mut sum = [0u8; 8];
        file.seek(SeekFrom::Start(file_len.saturating_sub(8)))?;
        file.read_exact(&mut sum)?;
        if u64::from_le_bytes(sum) != cache.base {
            return Ok(false);
        }
        let log_path = log_path(path);
        let mut log = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&log_path)?;
        let log_len = log.metadata()?.len();
        // Where the sound records end: as read, unless another process
        // appended since (or left a record cut short).
        let end = if log_len == cache.log_len && log_len > 0 {
            log_len
        } else {
            let mut bytes = Vec::new();
            log.read_to_end(&mut bytes)?;
            if bytes.get(..cache::LOG_HEADER) == Some(&Cache::log_header(cache.base)[..]) {
                cache::records(&bytes, cache::LOG_HEADER)
                    .last()
                    .map_or(cache::LOG_HEADER, |(_, end)| end) as u64
            } else {
                0
            }
        };
        let records = cache.log_records();
        if !cache::log_fits(end, records.len() as u64, file_len) {
            return Ok(false);
        }
        let mut out = Vec::with_capacity(records.len() + cache::LOG_HEADER);
        if end == 0 {
            out.extend_from_slice(&Cache::log_header(cache.base));
        }
        out.extend_from_slice(&records);
        guard.check()?;
        // A record cut short by a killed write is dropped before appending.
        log.set_len(end)?;
        log.seek(SeekFrom::Start(end))?;
        log.write_all(&out)?;
        log.sync_all()?;
        cache.log_len = end + out.len() as u64;
        cache.mark_saved();
        Ok(true)
    }

    /// Replace the vectors file with `cache`, under the held lock, and
    /// remove its log.
    fn rewrite_vectors(&self, cache: &mut Cache, guard: &LockGuard) -> std::io::Result<()> {
        if !matches!(self.ensure_dir(VECTORS_DIR, true), Ok(true)) {
            return Err(std::io::Error::other(format!(
                "cannot create `{VECTORS_DIR}`"
            )));
        }
        let rel = self.vectors_rel(&cache.model);
        let path = self.abs(&rel);
        let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            return Err(std::io::Error::other("the vectors file has no name"));
        };
        let dir = self.abs(VECTORS_DIR);
        let tmp = dir.join(fsio::temp_name(&name));
        let bytes = cache.encode();
        let written = (|| {
            let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            guard.check()?;
            fs::rename(&tmp, &path)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
            return written;
        }
        fsio::sync_dir(&dir);
        // A log left by a kill before this removal names the old file's
        // checksum and is ignored.
        let _ = fs::remove_file(log_path(&path));
        cache.base = crate::index::checksum(&bytes[..bytes.len() - 8]);
        cache.log_len = 0;
        cache.outdated = false;
        cache.mark_saved();
        Ok(())
    }

    /// Walk the searched files: a file whose signature the cache recorded
    /// keeps its chunks, embedded or not; any other is read and chunked
    /// again, as far as `reach` allows. Updates `cache.files` (files gone
    /// are dropped; one left unread keeps its record, so its vectors stay)
    /// and lists the chunks with no vector, keeping the texts of the first
    /// `keep` of them.
    fn survey(&self, e: &dyn Embed, cache: &mut Cache, reach: Reach<'_>, keep: usize) -> Survey {
        let started = now_ns();
        let mut listings = Listings::load(&self.abs(&self.listings_rel()), started);
        let mut s = Survey::default();
        let mut queued = HashSet::new();
        let mut next_files = HashMap::new();
        let mut budget = reach.bytes;
        let old = std::mem::take(&mut cache.files);
        let _ = self.each_ranked_dir(&mut listings, &mut |dir, handle, names| {
            let at = self.search_dir(dir);
            for name in names {
                let Ok(Some(sig)) = handle.file_sig(&name) else {
                    continue;
                };
                let name_len = name.len();
                let meta = at.file(name);
                let recorded = old.get(&meta.path);
                let file = s.files.len();
                let known = recorded.filter(|f| f.sig == sig);
                let chunks = match known {
                    Some(f) => {
                        for (k, _) in &f.chunks {
                            if !cache.has(k) && queued.insert(*k) {
                                s.pending.push((*k, file));
                            }
                        }
                        f.chunks.clone()
                    }
                    None => {
                        let always = reach.always.contains(&meta.path);
                        // The first file is read whatever its size, so
                        // that every search's survey moves on.
                        let first = budget == reach.bytes && budget > 0;
                        if !always && sig.len > budget && !first {
                            s.unread += sig.len;
                            if let Some(f) = recorded {
                                next_files.insert(meta.path.clone(), f.clone());
                            }
                            continue;
                        }
                        if !always {
                            budget = budget.saturating_sub(sig.len);
                        }
                        let name = &meta.path[meta.path.len() - name_len..];
                        let Ok(text) = handle.read_known(name, sig.len, MAX_SEARCH_FILE_BYTES)
                        else {
                            continue;
                        };
                        let pieces = semantic::chunks(e, &meta.stem, &text);
                        let mut chunks = Vec::with_capacity(pieces.len());
                        for p in pieces {
                            if !cache.has(&p.key) && queued.insert(p.key) {
                                s.pending.push((p.key, file));
                                if s.texts.len() < keep {
                                    s.texts.insert(p.key, p.text);
                                }
                            }
                            chunks.push((p.key, p.line));
                        }
                        chunks
                    }
                };
                s.bytes += sig.len.min(MAX_SEARCH_FILE_BYTES);
                // A file changed within the clock's resolution of now may
                // change again unseen at the same signature: it is recorded
                // under a size no file has, so it is read again next time
                // while its chunks' vectors are kept.
                let sig = match sig.mtime_ns < started.saturating_sub(RACY_NS) {
                    true => {
                        s.settled |= known.is_none();
                        sig
                    }
                    false => fsio::Sig {
                        len: u64::MAX,
                        mtime_ns: sig.mtime_ns,
                    },
                };
                next_files.insert(
                    meta.path.clone(),
                    FileChunks {
                        sig,
                        chunks: chunks.clone(),
                    },
                );
                s.total += chunks.len();
                s.files.push((meta, chunks));
            }
        });
        cache.files = old;
        cache.set_files(next_files);
        s
    }

    /// The texts of the pending chunks `range` of `survey`: kept by the
    /// survey, or read and chunked again from their files (each once). A
    /// chunk whose file no longer holds it (changed meanwhile) is left out.
    fn texts(
        &self,
        e: &dyn Embed,
        survey: &mut Survey,
        range: std::ops::Range<usize>,
    ) -> Vec<(Key, String)> {
        let range = range.start.min(survey.pending.len())..range.end.min(survey.pending.len());
        let wanted = &survey.pending[range];
        let mut by_file: BTreeMap<usize, HashSet<Key>> = BTreeMap::new();
        for (k, file) in wanted {
            if !survey.texts.contains_key(k) {
                by_file.entry(*file).or_default().insert(*k);
            }
        }
        let mut reader = HitReader::default();
        for (file, keys) in by_file {
            let meta = &survey.files[file].0;
            let Some(text) = reader.read(self, meta) else {
                continue;
            };
            for p in semantic::chunks(e, &meta.stem, &text) {
                if keys.contains(&p.key) {
                    survey.texts.insert(p.key, p.text);
                }
            }
        }
        wanted
            .iter()
            .filter_map(|(k, _)| Some((*k, survey.texts.remove(k)?)))
            .collect()
    }

    /// Ranked results (`lexical`, with each hit's `evidence`) fused with
    /// meaning where it can change the order ([`fuse::lexical_weight`]),
    /// and the note the summary carries (`semantic: indexing 40%`, `2 files
    /// matched by meaning`, that no file is close in meaning, or why
    /// semantic recall is off, where meaning would have counted). Without
    /// a model, `lexical` comes back exactly.
    pub(super) fn semantic_fuse(
        &self,
        query: &str,
        mut lexical: SearchResults,
        evidence: &[Evidence],
    ) -> (SearchResults, Option<String>) {
        let params = self.semantic.params;
        let has_dates = Ranker::new(query, self.today())
            .date_ranges()
            .next()
            .is_some();
        // A request for the newest entry keeps the order it asks for.
        let recency = self.semantic.recency && !has_dates && fuse::asks_recency(query);
        let mut newest = false;
        if recency {
            (lexical, newest) = fuse::recency_first(query, lexical);
        }
        let stands = if params.recency_stands {
            recency
        } else {
            newest
        };
        let weight = fuse::lexical_weight(query, &lexical, evidence, stands, has_dates, &params);
        let Some(e) = self.semantic.embedder.clone() else {
            // Where meaning would have counted, say that it is off (not
            // why: the reason is the person's, in the status).
            let note = match &self.semantic.off {
                Some(_) if weight < params.stand_at => Some(semantic::OFF_NOTE.to_owned()),
                _ => None,
            };
            return (lexical, note);
        };
        // Decisive words stand as they are: nothing is read for meaning.
        if weight >= params.stand_at {
            return (lexical, None);
        }
        let mut cache = self.load_vectors(e.as_ref());
        let budget = self.semantic.search_budget;
        let reach = Reach {
            bytes: SEARCH_CHUNK_BYTES,
            always: &[],
        };
        let mut survey = self.survey(e.as_ref(), &mut cache, reach, budget);
        if !survey.pending.is_empty() || survey.unread > 0 {
            // A few chunks (notes changed since) are caught up now; a build
            // is left to `index`: embedding costs a search a fraction of a
            // second per chunk in the component.
            let mut embedded = 0;
            if survey.unread == 0 && survey.pending.len() <= budget {
                for (key, text) in self.texts(e.as_ref(), &mut survey, 0..budget) {
                    let Some(vector) = e.embed(&text) else { break };
                    cache.add(key, vector);
                    embedded += 1;
                }
            }
            survey.pending.retain(|(k, _)| !cache.has(k));
            if embedded > 0 || survey.settled {
                self.save_vectors_now(&mut cache);
            }
            if !survey.pending.is_empty() || survey.unread > 0 {
                let status = self.status_of(e.as_ref(), &survey);
                let percent = Self::search_percent(&status, &survey);
                // The count is exact (the status's) once every file is
                // chunked: a host holding the model can embed that few
                // and search again.
                let left = (survey.unread == 0).then(|| status.chunks - status.ready);
                return (lexical, Some(semantic::indexing_note(percent, left)));
            }
        } else if survey.settled {
            // A file chunked again (changed, or recorded while it could
            // still change unseen) has every vector: record it as it is now.
            self.save_vectors_now(&mut cache);
        }
        let given = self.semantic.queries.get(query).cloned();
        let Some(q) = given.or_else(|| e.embed(query)) else {
            // No vector was given for this query, and the model embeds in
            // the host only: the host's to fix, not the model's.
            return (lexical, Some(semantic::OFF_NOTE.to_owned()));
        };
        let mut scored: Vec<Scored> = Vec::with_capacity(survey.files.len());
        let mut metas = std::collections::HashMap::new();
        for (meta, chunks) in &survey.files {
            let best = chunks
                .iter()
                .filter_map(|(k, line)| cache.cosine(&q, k).map(|score| (score, *line)))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((score, line)) = best {
                scored.push(Scored {
                    path: meta.path.clone(),
                    score,
                    line,
                });
            }
            metas.insert(meta.path.clone(), meta);
        }
        let mut reader = HitReader::default();
        let mut make_hit = |path: &str, line: u32| -> Option<SearchHit> {
            let meta = metas.get(path)?;
            let text = reader.read(self, meta)?;
            Some(SearchHit {
                path: path.to_owned(),
                matched_terms: vec![BY_MEANING.to_owned()],
                total_hits: 0,
                body: render_windows(&text, &[line.saturating_sub(1) as usize]),
                filename_only: false,
                date: meta.date.clone(),
                is_memory_md: meta.is_memory_md,
            })
        };
        let (fused, fusion) =
            fuse::fuse(lexical, evidence, &scored, weight, &params, &mut make_hit);
        let note = match fusion {
            Fusion { close: false, .. } => {
                Some("semantic: no file is close in meaning to the query".to_owned())
            }
            Fusion { by_meaning: 0, .. } => None,
            Fusion { by_meaning: 1, .. } => Some(format!(
                "semantic: 1 file matched by meaning, not by its words (marked {BY_MEANING})"
            )),
            Fusion { by_meaning, .. } => Some(format!(
                "semantic: {by_meaning} files matched by meaning, not by their words (marked {BY_MEANING})"
            )),
        };
        (fused, note)
    }

    /// Step 6 of a change, for vectors: when semantic recall is on and the
    /// store has vectors already, embed the chunks the change made (at most
    /// [`CHANGE_BUDGET`]; the rest wait for a search or
    /// [`Memory::index_vectors`]) and save, under the change's lock. Never
    /// fails the change.
    pub(super) fn vectors_after_change(&self, lock: &LockGuard, paths: &[String]) {
        let Some(e) = self.semantic.embedder.clone() else {
            return;
        };
        let path = self.abs(&self.vectors_rel(e.model_id()));
        if !path.exists() {
            // No first build yet: it will see this change.
            return;
        }
        let mut cache = self.load_vectors(e.as_ref());
        // Only the changed files are read: the others wait for a search
        // or `index`, as they would have.
        let reach = Reach {
            bytes: 0,
            always: paths,
        };
        let mut survey = self.survey(e.as_ref(), &mut cache, reach, CHANGE_BUDGET);
        // The change's own chunks, not whatever waits first.
        let own: HashSet<&str> = paths.iter().map(String::as_str).collect();
        let files = &survey.files;
        survey
            .pending
            .retain(|(_, f)| own.contains(files[*f].0.path.as_str()));
        for (key, text) in self.texts(e.as_ref(), &mut survey, 0..CHANGE_BUDGET) {
            let Some(vector) = e.embed(&text) else { break };
            cache.add(key, vector);
        }
        self.save_vectors(&mut cache, lock);
    }
}

/// Put `note` under the summary line of a rendered search.
pub(super) fn with_note(rendered: String, note: Option<String>) -> String {
    let Some(note) = note else {
        return rendered;
    };
    match rendered.split_once('\n') {
        Some((head, rest)) => format!("{head}\n{note}\n{rest}"),
        None => format!("{rendered}\n{note}"),
    }
}

/// Refuse vector `i` of a hand-in when it is not `want` wide or holds a
/// number that is not finite.
fn check_vector(i: usize, v: &[f32], want: usize) -> Result<()> {
    if v.len() != want || want == 0 {
        return Err(Error::new(
            ErrorKind::InvalidArguments,
            format!(
                "vector {i} has {} numbers and the model's have {want}; nothing was stored",
                v.len()
            ),
        ));
    }
    if let Some(x) = v.iter().find(|x| !x.is_finite()) {
        return Err(Error::new(
            ErrorKind::InvalidArguments,
            format!("vector {i} holds {x}, not a finite number; nothing was stored"),
        ));
    }
    Ok(())
}
