//! Semantic recall through the component's `semantic` interface: the host
//! hands the weights file's bytes to the instance, which loads the model
//! and enables it on this memory. The setting is kept per memory and
//! applied again whenever a fresh instance opens it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError, mpsc};
use std::time::{Duration, Instant};

use wasmtime::component::ResourceAny;

use super::{Group, Memory, domain};
use crate::bindings::exports::agent::memory::semantic::ChunkVector;
use crate::error::Error;

/// How often a native build hands its vectors to the component, which
/// saves them: each call re-reads the files still without vectors, so not
/// per chunk; a build cut short loses at most this much work.
const NATIVE_SAVE_EVERY: Duration = Duration::from_secs(2);
/// Rounds of `similar-texts` before a write, at most: the added lines,
/// then the candidate lines each is compared with, then none left.
const SIMILAR_ROUNDS: usize = 3;

/// What the host set for one memory.
#[derive(Clone)]
pub(crate) enum Setting {
    /// On, with the bytes of this weights file.
    On(Arc<Vec<u8>>),
    /// On, with the encoder run natively by the host, and the query vectors
    /// handed in so far (given again to a fresh instance).
    Native(Arc<NativeModel>, Vec<(String, Vec<f32>)>),
    /// Off, for this reason.
    Off(String),
}

/// Whether semantic recall is on, with which model, how far indexing is,
/// or why it is off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SemanticStatus {
    /// A model is set on this memory.
    pub on: bool,
    /// The model's name and the start of its weights' sha256.
    pub model: Option<String>,
    /// Chunks search covers.
    pub chunks: u32,
    /// Of those, chunks with a vector.
    pub ready: u32,
    /// Why recall is off, when it is.
    pub why_off: Option<String>,
}

impl SemanticStatus {
    /// Whole percent of chunks with a vector (100 when there are none).
    pub fn percent(&self) -> u32 {
        match self.chunks {
            0 => 100,
            n => (u64::from(self.ready) * 100 / u64::from(n)) as u32,
        }
    }

    /// `semantic: on, all-MiniLM-L6-v2 (int8, …), 1200 chunks, 100% indexed`
    /// or `semantic: off (why)`.
    pub fn line(&self) -> String {
        match (&self.model, self.on) {
            (Some(model), true) => format!(
                "semantic: on, {model}, {} chunk{}, {}% indexed",
                self.chunks,
                if self.chunks == 1 { "" } else { "s" },
                self.percent()
            ),
            _ => format!(
                "semantic: off ({})",
                self.why_off
                    .as_deref()
                    .unwrap_or("no embedding model was given")
            ),
        }
    }
}

impl From<crate::bindings::exports::agent::memory::semantic::SemanticStatus> for SemanticStatus {
    fn from(s: crate::bindings::exports::agent::memory::semantic::SemanticStatus) -> Self {
        SemanticStatus {
            on: s.on,
            model: s.model,
            chunks: s.chunks,
            ready: s.ready,
            why_off: s.why_off,
        }
    }
}

/// The embedding model run natively in this process, for a process that
/// searches a few times and exits (a one-shot CLI search): loading it takes
/// a few milliseconds, where handing the 25 MB of weights to the component
/// costs a search process a tenth of a second or more. The component only
/// cuts files into chunks with its vocabulary; this process embeds the
/// queries ([`Memory::embed_query_natively`]) and the chunks
/// ([`Memory::index_vectors_natively`]). Vectors are the component's own:
/// same model id, same vectors file.
pub struct NativeModel {
    embedder: agent_memory_embed::Embedder,
    identity: agent_memory_embed::Identity,
}

impl std::fmt::Debug for NativeModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeModel")
            .field("id", &self.identity.id)
            .finish()
    }
}

impl NativeModel {
    /// Map the weights file at `path` (`embed/scripts/derive.py` writes it)
    /// and load the model, reading its int8 weights in place. The file must
    /// not be rewritten in place while the model lives; derive.py replaces
    /// it by a rename, which leaves the mapped file whole.
    ///
    /// # Errors
    /// [`Error::Setup`] when the file cannot be read or is not a weights
    /// file this build reads (install it again).
    pub fn open(path: &std::path::Path) -> Result<NativeModel, Error> {
        let file = std::fs::File::open(path).map_err(|e| {
            Error::setup(
                format!("cannot open the weights file `{}`", path.display()),
                e,
            )
        })?;
        // SAFETY: the map is read-only and private, and the weights file is
        // replaced by rename, never truncated in place (see above).
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| {
            Error::setup(
                format!("cannot map the weights file `{}`", path.display()),
                e,
            )
        })?;
        let checksum = crate::cache::weights_checksum(&file, &map);
        let embedder = agent_memory_embed::Embedder::in_place(Box::new(map)).map_err(|e| {
            Error::setup(
                format!(
                    "cannot load the weights file `{}` natively; install it again with `agent-memory model install`",
                    path.display()
                ),
                e,
            )
        })?;
        let identity = agent_memory_embed::Identity::from_checksum(checksum, embedder.model_name());
        Ok(NativeModel { embedder, identity })
    }

    /// The id vectors are stored under, as the component gives it for the
    /// same file (`minilm-` and the file's checksum).
    pub fn id(&self) -> &str {
        &self.identity.id
    }

    /// The unit vector of `text`, natively (8-12 ms wall for a query of 12
    /// word-pieces on one core, `cargo run -p agent-memory-embed --release
    /// --example bench -- WEIGHTS bench/eval-d/store 40 int8`).
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.embedder.embed(text)
    }
}

impl Memory {
    /// Turn semantic recall on with the weights file's bytes (see
    /// `embed/scripts/derive.py`). The component loads the model now (about
    /// half a second) and again whenever a fresh instance opens this memory.
    ///
    /// # Errors
    /// [`Error::Memory`] with kind `InvalidOptions` when the bytes are not a
    /// weights file; recall is then off and says why.
    pub fn enable_semantic(&mut self, weights: Arc<Vec<u8>>) -> Result<(), Error> {
        self.set_semantic(Setting::On(weights))
    }

    /// Turn semantic recall on with `model` run natively in this process:
    /// the component gets no weights, only the vocabulary, and a search
    /// whose words are weak evidence ranks by meaning only after
    /// [`Memory::embed_query_natively`] gave its query's vector (without it,
    /// its note says so). Chunks without vectors are built by
    /// [`Memory::index_vectors_natively`]; until then searches say
    /// `semantic: indexing N%`.
    ///
    /// # Errors
    /// As any call: a trap or a limit of the instance.
    pub fn enable_semantic_native(&mut self, model: Arc<NativeModel>) -> Result<(), Error> {
        self.set_semantic(Setting::Native(model, Vec::new()))
    }

    /// Embed the text a ranked search of `query` embeds
    /// ([`Memory::query_text`]) with the native model and hand its vector
    /// to the memory ([`Memory::add_query_vector`]), so that searches of
    /// `query` rank by meaning when their words are weak. Does nothing
    /// unless recall is on with [`Memory::enable_semantic_native`].
    ///
    /// # Errors
    /// As [`Memory::query_text`] and [`Memory::add_query_vector`].
    pub fn embed_query_natively(&mut self, query: &str) -> Result<(), Error> {
        let Some(model) = self.native_model() else {
            return Ok(());
        };
        let text = self.query_text(query)?;
        let vector = model.embed(&text);
        self.add_query_vector(&text, vector)
    }

    /// The text a ranked search of `query` ranks and embeds: its distinct
    /// words in query order (WIT `query-text`).
    ///
    /// # Errors
    /// [`Error::Memory`] with kind `InvalidArguments` when a search would
    /// refuse `query` (too many distinct words); otherwise as any call.
    pub fn query_text(&mut self, query: &str) -> Result<String, Error> {
        self.call_handle("semantic-query-text", |store, b, _| {
            b.agent_memory_semantic().call_query_text(store, query)
        })?
        .map_err(domain)
    }

    /// Hand the memory the vector of a query's `text` (as
    /// [`Memory::query_text`] gives it) that the native model embedded
    /// ([`NativeModel::embed`]); kept for a fresh instance too. Does
    /// nothing unless recall is on with [`Memory::enable_semantic_native`].
    ///
    /// # Errors
    /// [`Error::Memory`] with kind `InvalidArguments` for a vector of
    /// another width or with a number that is not finite; otherwise as any
    /// call.
    pub fn add_query_vector(&mut self, text: &str, vector: Vec<f32>) -> Result<(), Error> {
        let Some(model) = self.native_model() else {
            return Ok(());
        };
        self.call_handle("semantic-add-query-vector", |store, b, h| {
            b.agent_memory_semantic()
                .call_add_query_vector(store, h, model.id(), text, &vector)
        })?
        .map_err(domain)?;
        let mut group = self.group.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(Setting::Native(_, queries)) = &mut group.members[self.index].semantic {
            queries.push((text.to_owned(), vector));
        }
        Ok(())
    }

    /// With the model run natively ([`Memory::enable_semantic_native`]):
    /// embed the lines a write of `content` to `target` compares for its
    /// consistency notice (WIT `similar-texts`: the added lines, then the
    /// candidate lines each is compared with) and hand their vectors in, so the
    /// write's receipt names a line it restates, as with the model in the
    /// component. Does nothing otherwise, or when the vectors are not built.
    /// At most [`SIMILAR_ROUNDS`] rounds.
    ///
    /// # Errors
    /// As [`Memory::write`] for a `target` and `name` it would refuse.
    pub(crate) fn embed_similar_natively(
        &mut self,
        target: crate::WriteTarget,
        content: &str,
        name: Option<&str>,
    ) -> Result<(), Error> {
        let Some(model) = self.native_model() else {
            return Ok(());
        };
        for _ in 0..SIMILAR_ROUNDS {
            let texts = self
                .call_handle("semantic-similar-texts", |store, b, h| {
                    b.agent_memory_semantic().call_similar_texts(
                        store,
                        h,
                        target.into(),
                        content,
                        name,
                    )
                })?
                .map_err(domain)?;
            if texts.is_empty() {
                break;
            }
            for (text, vector) in texts.iter().zip(embed_on_every_core(&model, &texts)) {
                self.add_query_vector(text, vector)?;
            }
        }
        Ok(())
    }

    /// With the model run natively: embed the lines the consolidation plan
    /// compares by meaning (WIT `plan-texts`, at most 200) on every core
    /// and hand their vectors in, so the plan lists restatements as with
    /// the model in the component. Does nothing otherwise.
    ///
    /// # Errors
    /// As [`Memory::consolidation_plan`].
    pub(crate) fn embed_plan_natively(&mut self) -> Result<(), Error> {
        let Some(model) = self.native_model() else {
            return Ok(());
        };
        let texts = self
            .call_handle("semantic-plan-texts", |store, b, h| {
                b.agent_memory_semantic().call_plan_texts(store, h)
            })?
            .map_err(domain)?;
        for (text, vector) in texts.iter().zip(embed_on_every_core(&model, &texts)) {
            self.add_query_vector(text, vector)?;
        }
        Ok(())
    }

    fn native_model(&self) -> Option<Arc<NativeModel>> {
        let group = self.group.lock().unwrap_or_else(PoisonError::into_inner);
        match &group.members[self.index].semantic {
            Some(Setting::Native(model, _)) => Some(Arc::clone(model)),
            _ => None,
        }
    }

    /// Turn semantic recall off, saying why; ranked search is then exactly
    /// lexical.
    ///
    /// # Errors
    /// As any call: a trap or a limit of the instance.
    pub fn disable_semantic(&mut self, why: &str) -> Result<(), Error> {
        self.set_semantic(Setting::Off(why.to_owned()))
    }

    fn set_semantic(&mut self, setting: Setting) -> Result<(), Error> {
        let mut group = self.group.lock().unwrap_or_else(PoisonError::into_inner);
        group.members[self.index].semantic = Some(setting);
        // Applied by `ensure_open` to a handle it opens; an open handle is
        // given it here.
        let opened = group.members[self.index].handle.is_some();
        self.info = group.ensure_open(self.index)?;
        if opened {
            let handle = group.members[self.index]
                .handle
                .expect("ensure_open leaves the handle open");
            group.apply_semantic(self.index, handle)?;
        }
        Ok(())
    }

    /// Whether semantic recall is on, the model and how far indexing is.
    ///
    /// # Errors
    /// As any call: a trap or a limit of the instance.
    pub fn semantic_status(&mut self) -> Result<SemanticStatus, Error> {
        self.call_handle("semantic-status", |store, b, h| {
            b.agent_memory_semantic().call_get_status(store, h)
        })
        .map(Into::into)
    }

    /// Embed up to `limit` chunks without a vector (all when `None`) and
    /// save them. Call it in rounds of a few dozen to show progress and stay
    /// inside the call timeout.
    ///
    /// # Errors
    /// As any call: a trap or a limit of the instance.
    pub fn index_vectors(&mut self, limit: Option<u32>) -> Result<SemanticStatus, Error> {
        self.call_handle("semantic-index", |store, b, h| {
            b.agent_memory_semantic().call_index(store, h, limit)
        })
        .map(Into::into)
    }

    /// Embed the chunks that have no vector (at most `limit` of them, all
    /// when `None`) natively, on `threads` threads (every core when
    /// `None`), with the weights given to [`Memory::enable_semantic`] or
    /// the [`NativeModel`] in use, and hand the vectors to the component,
    /// which stores them as its own (same model id, same file). It saves
    /// every couple of seconds, so a build cut short keeps what it had
    /// handed in. `progress(done, total)` is called after each chunk. When
    /// recall is off, nothing is embedded and the status says why.
    ///
    /// Far faster than [`Memory::index_vectors`], which embeds inside the
    /// component on one thread: see docs/recall.md, "Cost".
    ///
    /// # Errors
    /// [`Error::Setup`] when the weights do not load natively; otherwise as
    /// any call, e.g. [`Error::Memory`] with kind `Busy` when the store's
    /// lock stayed taken.
    pub fn index_vectors_natively(
        &mut self,
        limit: Option<u32>,
        threads: Option<usize>,
        progress: &mut dyn FnMut(u32, u32),
    ) -> Result<SemanticStatus, Error> {
        let setting = {
            let group = self.group.lock().unwrap_or_else(PoisonError::into_inner);
            group.members[self.index].semantic.clone()
        };
        if !matches!(setting, Some(Setting::On(_) | Setting::Native(..))) {
            return self.semantic_status();
        }
        let pending = self
            .call_handle("semantic-pending", |store, b, h| {
                b.agent_memory_semantic().call_pending(store, h, limit)
            })?
            .map_err(domain)?;
        let mut status: SemanticStatus = pending.status.into();
        let chunks = pending.chunks;
        if chunks.is_empty() {
            return Ok(status);
        }
        // Unpacked to f32 panels for a bulk build (three times the int8
        // product's speed), unless the native model is loaded already.
        let unpacked;
        let embedder = match &setting {
            Some(Setting::Native(model, _)) => &model.embedder,
            Some(Setting::On(weights)) => {
                unpacked = agent_memory_embed::Embedder::from_bytes(weights).map_err(|e| {
                    Error::setup(
                        "cannot load the embedding weights natively for the bulk build",
                        e,
                    )
                })?;
                &unpacked
            }
            _ => unreachable!("checked above"),
        };
        let threads = threads
            .or_else(|| std::thread::available_parallelism().ok().map(Into::into))
            .unwrap_or(1)
            .clamp(1, chunks.len());
        let total = u32::try_from(chunks.len()).unwrap_or(u32::MAX);
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel::<(usize, Vec<f32>)>();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let tx = tx.clone();
                let (next, chunks) = (&next, &chunks);
                scope.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(chunk) = chunks.get(i) else { break };
                        // The receiver is gone when a save failed: stop.
                        if tx.send((i, embedder.embed(&chunk.text))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut batch = Vec::new();
            let mut done = 0u32;
            let mut saved = Instant::now();
            // Consumed here: an early return drops the receiver, which stops the
            // workers at their next chunk.
            for (i, vector) in rx {
                batch.push(ChunkVector {
                    key: chunks[i].key.clone(),
                    vector,
                });
                done += 1;
                progress(done, total);
                if saved.elapsed() >= NATIVE_SAVE_EVERY {
                    status = self.add_vectors(&pending.model_id, &batch)?;
                    batch.clear();
                    saved = Instant::now();
                }
            }
            if !batch.is_empty() {
                status = self.add_vectors(&pending.model_id, &batch)?;
            }
            Ok(status)
        })
    }

    /// One `add-vectors` call: the component stores `vectors` and saves.
    fn add_vectors(
        &mut self,
        model_id: &str,
        vectors: &[ChunkVector],
    ) -> Result<SemanticStatus, Error> {
        self.call_handle("semantic-add-vectors", |store, b, h| {
            b.agent_memory_semantic()
                .call_add_vectors(store, h, model_id, vectors)
        })?
        .map(Into::into)
        .map_err(domain)
    }
}

impl Group {
    /// Give the memory at `index`, open as `handle`, its semantic setting.
    pub(super) fn apply_semantic(
        &mut self,
        index: usize,
        handle: ResourceAny,
    ) -> Result<(), Error> {
        let Some(setting) = self.members[index].semantic.clone() else {
            return Ok(());
        };
        let instance = self.live.as_mut().expect("the memory is open");
        instance.arm();
        let exports = instance.bindings.agent_memory_semantic();
        let result = match &setting {
            Setting::Off(why) => exports
                .call_disable(&mut instance.store, handle, why)
                .map(Ok),
            Setting::On(weights) => (|| {
                let model = exports.model().call_load(&mut instance.store, weights)?;
                let model = match model {
                    Ok(m) => m,
                    Err(e) => return Ok(Err(e)),
                };
                let r = exports.call_enable(&mut instance.store, handle, model);
                model.resource_drop(&mut instance.store)?;
                r.map(Ok)
            })(),
            Setting::Native(native, queries) => (|| {
                let dim = u32::try_from(native.embedder.dim()).unwrap_or(u32::MAX);
                let model = exports.model().call_hosted(
                    &mut instance.store,
                    &native.identity.id,
                    &native.identity.name,
                    dim,
                    native.embedder.tokenizer().lines(),
                )?;
                let model = match model {
                    Ok(m) => m,
                    Err(e) => return Ok(Err(e)),
                };
                exports.call_enable(&mut instance.store, handle, model)?;
                model.resource_drop(&mut instance.store)?;
                for (text, vector) in queries {
                    if let Err(e) = exports.call_add_query_vector(
                        &mut instance.store,
                        handle,
                        native.id(),
                        text,
                        vector,
                    )? {
                        return Ok(Err(e));
                    }
                }
                Ok(Ok(()))
            })(),
        };
        let refused = self.settle("semantic-enable", result)?;
        if let Err(e) = refused {
            let why = format!("the weights were refused: {}", e.message);
            self.members[index].semantic = Some(Setting::Off(why.clone()));
            let instance = self.live.as_mut().expect("the memory is open");
            instance.arm();
            let result = instance.bindings.agent_memory_semantic().call_disable(
                &mut instance.store,
                handle,
                &why,
            );
            self.settle("semantic-disable", result)?;
            return Err(domain(e));
        }
        Ok(())
    }
}

/// The vectors of `texts` in their order, embedded natively on every core
/// (one text a thread at a time).
fn embed_on_every_core(model: &NativeModel, texts: &[String]) -> Vec<Vec<f32>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, texts.len().max(1));
    let next = AtomicUsize::new(0);
    let mut vectors: Vec<(usize, Vec<f32>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let next = &next;
                scope.spawn(move || {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(text) = texts.get(i) else { break };
                        out.push((i, model.embed(text)));
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    vectors.sort_by_key(|(i, _)| *i);
    vectors.into_iter().map(|(_, v)| v).collect()
}
