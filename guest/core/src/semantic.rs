//! Semantic recall: find the file that says it in other words.
//!
//! Three parts, each usable alone:
//! - [`Embed`], the trait the store depends on: text in, unit vector out.
//!   [`MiniLm`] is the real one (all-MiniLM-L6-v2, int8, from
//!   `agent-memory-embed`); tests plug in a fake.
//! - [`cache`]: vectors as a rebuildable cache under `.store/vectors/`,
//!   per chunk of about 64 word-pieces, content-hashed and tagged by the
//!   model's id, so a change embeds only the chunks whose text changed and
//!   vectors of two models never mix.
//! - [`fuse`]: the lexical and semantic scores fused per query, the
//!   lexical weight set by how decisive the words are; where they decide
//!   (every word in the best hit, quotes, known identifiers, time words),
//!   the lexical order stands untouched and nothing is read for meaning.
//!
//! The store side (walking the files, the change pipeline's hook, search)
//! is in `store/semantic.rs`.

pub(crate) mod cache;
pub mod fuse;
pub mod similar;

use std::fmt;
use std::sync::Arc;

use agent_memory_embed::{Identity, Layout};

use crate::error::{Error, ErrorKind, Result};

/// Word-pieces a chunk aims at (the issue measured 64 best).
pub const CHUNK_PIECES: usize = 64;

/// An embedding model: what semantic recall needs of one.
///
/// Implementations must be deterministic: the same text gives the same
/// vector, or the cache would mix vectors of what is in effect two models.
pub trait Embed: Send + Sync {
    /// A stable id of the model and its weights (e.g. a hash of the weights
    /// file). Vectors are stored under it; another id starts a new cache.
    fn model_id(&self) -> &str;
    /// A human name for status lines, e.g. `all-MiniLM-L6-v2 (int8)`.
    fn model_name(&self) -> &str {
        self.model_id()
    }
    /// How many word-pieces `text` is, for sizing chunks.
    fn pieces(&self, text: &str) -> usize;
    /// Width of the vectors, when known without embedding anything; vectors
    /// handed in from outside ([`crate::Memory::add_vectors`]) must have it.
    fn dim(&self) -> Option<usize> {
        None
    }
    /// The unit-length vector of `text`; every call returns the same width.
    /// `None` when this model does not embed here: a [`Hosted`] model's
    /// encoder runs in the host, which hands the vectors in.
    fn embed(&self, text: &str) -> Option<Vec<f32>>;
    /// Whether [`Embed::embed`] gives vectors here; `false` for a [`Hosted`]
    /// model, whose host is asked which texts to embed instead.
    fn embeds(&self) -> bool {
        true
    }
}

/// What a search result says where meaning would have decided and semantic
/// recall is off. A model reads it, so it gives no reason, path or command:
/// why recall is off, and how to turn it on, are for the person
/// ([`SemanticStatus::line`], `agent-memory status`).
pub const OFF_NOTE: &str = agent_memory_vocab::SEMANTIC_OFF_NOTE;

/// What a search result says while vectors are missing: `semantic: indexing
/// 40%`, and how many chunks are left once every file is chunked. No
/// command: building them is the host's or the person's (`agent-memory index`).
pub(crate) fn indexing_note(percent: usize, left: Option<usize>) -> String {
    match left {
        Some(1) => format!("semantic: indexing {percent}%, 1 chunk to go"),
        Some(n) => format!("semantic: indexing {percent}%, {n} chunks to go"),
        None => format!("semantic: indexing {percent}%"),
    }
}

/// all-MiniLM-L6-v2 from the derived int8 weights file
/// (`embed/scripts/derive.py`), run in plain Rust.
pub struct MiniLm {
    inner: agent_memory_embed::Embedder,
    id: String,
    name: String,
}

impl MiniLm {
    /// Load the model from the bytes of a weights file, unpacked to f32 for
    /// bulk embedding ([`Layout::Panels`]). Its id is `minilm-` and the 16
    /// hex digits of the file's 64-bit checksum ([`crate::index::checksum`],
    /// which changes with any word of the file).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidOptions`] when the bytes are not a weights file
    /// this build reads, saying to install the file again.
    pub fn from_bytes(bytes: &[u8]) -> Result<MiniLm> {
        MiniLm::load(bytes.to_vec(), Layout::Panels)
    }

    /// Load the model from a weights file it takes, reading the int8
    /// weights in place ([`Layout::Int8`]): milliseconds instead of the
    /// third of a second unpacking takes in wasm, and no copy. The id is
    /// the same as [`MiniLm::from_bytes`] gives.
    ///
    /// # Errors
    /// As [`MiniLm::from_bytes`].
    pub fn from_vec(bytes: Vec<u8>) -> Result<MiniLm> {
        MiniLm::load(bytes, Layout::Int8)
    }

    fn load(bytes: Vec<u8>, layout: Layout) -> Result<MiniLm> {
        let checksum = crate::index::checksum(&bytes);
        let inner = agent_memory_embed::Embedder::from_vec(bytes, layout).map_err(|e| {
            Error::new(
                ErrorKind::InvalidOptions,
                format!(
                    "failed to load the embedding weights: {e}; install them again (`agent-memory model install`)"
                ),
            )
        })?;
        let Identity { id, name } = Identity::from_checksum(checksum, inner.model_name());
        Ok(MiniLm { inner, id, name })
    }
}

impl fmt::Debug for MiniLm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MiniLm").field("id", &self.id).finish()
    }
}

impl Embed for MiniLm {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn model_name(&self) -> &str {
        &self.name
    }
    fn pieces(&self, text: &str) -> usize {
        self.inner.tokenizer().pieces(text).len()
    }
    fn embed(&self, text: &str) -> Option<Vec<f32>> {
        Some(self.inner.embed(text))
    }
    fn dim(&self) -> Option<usize> {
        Some(self.inner.dim())
    }
}

/// A model whose encoder runs in the host: for a host that embeds natively
/// (a one-shot CLI search) and hands in the chunks' vectors
/// ([`crate::Memory::add_vectors`]) and the query's
/// ([`crate::Memory::add_query_vector`]). The store cuts files into chunks
/// with its vocabulary, as the full model would, so the two share vectors.
pub struct Hosted {
    /// The word-pieces, one a line, as the host gave them.
    vocabulary: String,
    /// Built from `vocabulary` when a file is first cut into chunks: a
    /// search whose files all have vectors never needs it, and building it
    /// took a weak-word CLI search 3-4 ms in the component.
    tokenizer: std::sync::OnceLock<Option<agent_memory_embed::Tokenizer>>,
    id: String,
    name: String,
    dim: usize,
}

impl Hosted {
    /// A hosted model with the weights file's `id` and `name`
    /// ([`Identity`]), vectors `dim` wide, and `vocabulary` (the file's
    /// word-pieces, one a line).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArguments`] when `id` is empty, `dim` is 0 or
    /// the vocabulary lacks `[CLS]`, `[SEP]` or `[UNK]`.
    pub fn new(id: &str, name: &str, dim: usize, vocabulary: &str) -> Result<Hosted> {
        let invalid = |what: &str| Error::new(ErrorKind::InvalidArguments, what.to_owned());
        if id.trim().is_empty() {
            return Err(invalid(
                "a hosted model needs an id (its weights' identity)",
            ));
        }
        if dim == 0 {
            return Err(invalid("a hosted model's vectors must be at least 1 wide"));
        }
        agent_memory_embed::Tokenizer::check_lines(vocabulary).map_err(|e| {
            invalid(&format!(
                "the hosted model's vocabulary is not the weights file's word-pieces, one a line: {e}"
            ))
        })?;
        Ok(Hosted {
            vocabulary: vocabulary.to_owned(),
            tokenizer: std::sync::OnceLock::new(),
            id: id.to_owned(),
            name: name.to_owned(),
            dim,
        })
    }
}

impl fmt::Debug for Hosted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hosted").field("id", &self.id).finish()
    }
}

impl Embed for Hosted {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn model_name(&self) -> &str {
        &self.name
    }
    fn pieces(&self, text: &str) -> usize {
        // `check_lines` accepted the vocabulary in `new`, so it builds.
        self.tokenizer
            .get_or_init(|| agent_memory_embed::Tokenizer::from_lines(&self.vocabulary).ok())
            .as_ref()
            .map_or(0, |t| t.pieces(text).len())
    }
    fn dim(&self) -> Option<usize> {
        Some(self.dim)
    }
    fn embed(&self, _: &str) -> Option<Vec<f32>> {
        None
    }
    fn embeds(&self) -> bool {
        false
    }
}

/// Whether and how a store uses semantic recall; held by the store.
#[derive(Clone)]
pub(crate) struct Semantic {
    /// The model, when semantic recall is on.
    pub(crate) embedder: Option<Arc<dyn Embed>>,
    /// Why it is off, when the host said (weights missing, turned off).
    pub(crate) off: Option<String>,
    /// Chunks a search may embed before it answers (see
    /// [`crate::Memory::set_search_embed_budget`]).
    pub(crate) search_budget: usize,
    /// The gate and fusion knobs.
    pub(crate) params: fuse::Params,
    /// `latest X` puts the newest matching log first.
    pub(crate) recency: bool,
    /// Query vectors the host computed, by the text a search embeds
    /// ([`query_text`]), for the model on now.
    pub(crate) queries: std::collections::HashMap<String, Vec<f32>>,
}

impl Default for Semantic {
    fn default() -> Semantic {
        Semantic {
            embedder: None,
            off: None,
            search_budget: 0,
            params: fuse::Params::default(),
            recency: true,
            queries: std::collections::HashMap::new(),
        }
    }
}

impl fmt::Debug for Semantic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Semantic")
            .field("model", &self.embedder.as_ref().map(|e| e.model_id()))
            .field("off", &self.off)
            .field("search_budget", &self.search_budget)
            .field("params", &self.params)
            .finish()
    }
}

/// Missing chunks a search embeds by default before it answers, when no
/// more are missing: a few changed chunks are caught up at once; a first
/// build is left to [`crate::Memory::index_vectors`].
pub const DEFAULT_SEARCH_BUDGET: usize = 16;

/// What `status` says about semantic recall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SemanticStatus {
    /// A model is loaded.
    pub on: bool,
    /// The model's name.
    pub model: Option<String>,
    /// Chunks of the searched files.
    pub chunks: usize,
    /// Of those, chunks with a vector.
    pub ready: usize,
    /// Why semantic recall is off, when it is.
    pub why_off: Option<String>,
}

impl SemanticStatus {
    /// Whole percent of chunks with a vector (100 for an empty store).
    pub fn percent(&self) -> usize {
        match self.chunks {
            0 => 100,
            n => self.ready * 100 / n,
        }
    }

    /// One line: `semantic: on, all-MiniLM-L6-v2 (int8, …), 1200 chunks,
    /// 100% indexed`, or `semantic: off (why)`.
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

/// The chunks that have no vector yet, for a host that embeds them itself
/// ([`crate::Memory::pending_chunks`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingChunks {
    /// The id of the memory's model: [`crate::Memory::add_vectors`] takes
    /// only vectors of it.
    pub model_id: String,
    /// Each chunk's key (the first 16 bytes of the sha256 of its text) and
    /// the text to embed, once per key.
    pub chunks: Vec<([u8; 16], String)>,
    /// The status before any of them is embedded.
    pub status: SemanticStatus,
}

/// A chunk of a file: the cache key of its text, the 1-based line its body
/// starts on, and the text that is embedded.
pub(crate) struct Piece {
    pub(crate) key: cache::Key,
    pub(crate) line: u32,
    pub(crate) text: String,
}

/// The chunks of the file named `name` (its note name or date), with
/// `embed`'s word-piece count.
pub(crate) fn chunks(embed: &dyn Embed, name: &str, text: &str) -> Vec<Piece> {
    let count = |s: &str| embed.pieces(s);
    agent_memory_embed::chunk::chunk_note(name, text, CHUNK_PIECES, &count)
        .into_iter()
        .map(|c| Piece {
            key: cache::key_from(&c.sha256),
            line: u32::try_from(c.line).unwrap_or(u32::MAX),
            text: c.text,
        })
        .collect()
}
