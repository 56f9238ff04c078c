//! Ranked search with semantic recall (issue 23): the `ranked+semantic`
//! system, present when the derived MiniLM weights are found
//! (`AGENT_MEMORY_WEIGHTS`, else `embed/weights/` of this tree).
//!
//! `AGENT_MEMORY_FUSION` overrides the gate for tuning, e.g.
//! `missing=1,coverage=0.34,lexical=0.1`: tune on `*-tune` sets only.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use agent_memory_core as core;
use anyhow::{Context as _, Result, bail};
use core::semantic::fuse::Params;

use super::{Setting, System, open_store};

/// The weights file: `AGENT_MEMORY_WEIGHTS`, else the derived file in this
/// tree, if it exists.
pub fn weights_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("AGENT_MEMORY_WEIGHTS") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../embed/weights/all-minilm-l6-v2.int8.safetensors");
    p.is_file().then_some(p)
}

/// The model, loaded once per process.
pub fn model() -> Result<Option<Arc<core::MiniLm>>> {
    static MODEL: OnceLock<Option<Arc<core::MiniLm>>> = OnceLock::new();
    if let Some(m) = MODEL.get() {
        return Ok(m.clone());
    }
    let Some(path) = weights_path() else {
        return Ok(None);
    };
    let bytes =
        std::fs::read(&path).with_context(|| format!("cannot read `{}`", path.display()))?;
    let m = Arc::new(core::MiniLm::from_bytes(&bytes)?);
    Ok(MODEL.get_or_init(|| Some(m)).clone())
}

/// The fusion knobs: the defaults, or `AGENT_MEMORY_FUSION`'s.
pub fn params() -> Result<Params> {
    let mut p = Params::default();
    let Ok(spec) = std::env::var("AGENT_MEMORY_FUSION") else {
        return Ok(p);
    };
    for kv in spec.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .with_context(|| format!("AGENT_MEMORY_FUSION item `{kv}` is not key=value"))?;
        match k {
            "missing" => p.gate_missing = v == "1",
            "share" => p.min_missing_share = v.parse()?,
            "coverage" => p.gate_coverage = v.parse()?,
            "strong" => p.strong_coverage = v.parse()?,
            "keep" => p.keep_top = v.parse()?,
            "lexical" => p.lexical_weight = v.parse()?,
            "extra" => p.max_meaning_only = v.parse()?,
            _ => {
                bail!(
                    "AGENT_MEMORY_FUSION: unknown key `{k}` (missing, share, coverage, strong, keep, lexical, extra)"
                )
            }
        }
    }
    Ok(p)
}

/// Ranked search with the model, vectors built before the first question.
pub struct Semantic {
    memory: core::Memory,
}

impl Semantic {
    /// `None` when no weights are found.
    ///
    /// # Errors
    /// As [`open_store`], or when the weights cannot be loaded.
    pub fn open(root: &Path, setting: &Setting) -> Result<Option<Semantic>> {
        let Some(model) = model()? else {
            return Ok(None);
        };
        let mut memory = open_store(root, setting)?;
        memory.set_embedder(model);
        memory.set_fusion(params()?);
        let status = memory.index_vectors(None, &mut |done, total| {
            if done % 200 == 0 || done == total {
                eprintln!("semantic: embedded {done}/{total} chunks");
            }
        })?;
        if status.percent() < 100 {
            bail!("vectors incomplete after indexing: {}", status.line());
        }
        Ok(Some(Semantic { memory }))
    }
}

impl System for Semantic {
    fn name(&self) -> &str {
        "ranked+semantic"
    }

    fn search(&mut self, query: &str) -> Result<Vec<String>> {
        let results = self.memory.search_with(query, core::SearchMode::Ranked)?;
        Ok(results.hits.into_iter().map(|h| h.path).collect())
    }
}
