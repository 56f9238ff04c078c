//! Ranked search with semantic recall (issue 23): the `ranked+semantic`
//! system, present when the derived MiniLM weights are found
//! (`AGENT_MEMORY_WEIGHTS`, else `embed/weights/` of this tree).
//!
//! `AGENT_MEMORY_FUSION` overrides the fusion's knobs for tuning, e.g.
//! `base=0.2,share=0.5,margin=0.3,floor=0.3`: tune on `*-tune` sets only.

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

/// The fusion knobs, each with the system's name: the defaults as
/// `ranked+semantic`, or each of `AGENT_MEMORY_FUSION`'s settings (several
/// separated by `;`, each its own system named by its setting, to compare
/// them in one run over vectors built once).
pub fn params() -> Result<Vec<(String, Params)>> {
    let Ok(specs) = std::env::var("AGENT_MEMORY_FUSION") else {
        return Ok(vec![("ranked+semantic".to_owned(), Params::default())]);
    };
    let specs: Vec<&str> = specs.split(';').filter(|s| !s.is_empty()).collect();
    specs
        .iter()
        .map(|spec| {
            let name = match specs.len() {
                1 => "ranked+semantic".to_owned(),
                _ => format!("sem[{spec}]"),
            };
            Ok((name, parse(spec)?))
        })
        .collect()
}

/// One `key=value,…` setting over the defaults.
fn parse(spec: &str) -> Result<Params> {
    let mut p = Params::default();
    for kv in spec.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .with_context(|| format!("AGENT_MEMORY_FUSION item `{kv}` is not key=value"))?;
        match k {
            "base" => p.base = v.parse()?,
            "share" => p.share = v.parse()?,
            "margin" => p.margin = v.parse()?,
            "full" => p.full_stands = v == "1",
            "dates" => p.dates_stand = v == "1",
            "stand" => p.stand_at = v.parse()?,
            "keepshare" => p.keep_share = v.parse()?,
            "keep" => p.keep_top = v.parse()?,
            "floor" => p.floor = v.parse()?,
            "extra" => p.max_meaning_only = v.parse()?,
            "memory" => p.memory_md = v.parse()?,
            "logs" => p.daily_log = v.parse()?,
            "recency" => p.recency_stands = v == "1",
            "relative" => p.relative_stands = v == "1",
            _ => {
                bail!(
                    "AGENT_MEMORY_FUSION: unknown key `{k}` (base, share, margin, full, dates, stand, keepshare, keep, floor, extra, memory, logs, recency, relative)"
                )
            }
        }
    }
    Ok(p)
}

/// Ranked search with the model, vectors built before the first question.
pub struct Semantic {
    memory: core::Memory,
    name: String,
}

impl Semantic {
    /// One system per fusion setting ([`params`]); none when no weights
    /// are found.
    ///
    /// # Errors
    /// As [`open_store`], or when the weights cannot be loaded.
    pub fn open_all(root: &Path, setting: &Setting) -> Result<Vec<Semantic>> {
        let Some(model) = model()? else {
            return Ok(Vec::new());
        };
        params()?
            .into_iter()
            .map(|(name, params)| Semantic::open(root, setting, model.clone(), name, params))
            .collect()
    }

    fn open(
        root: &Path,
        setting: &Setting,
        model: Arc<core::MiniLm>,
        name: String,
        params: Params,
    ) -> Result<Semantic> {
        let mut memory = open_store(root, setting)?;
        memory.set_embedder(model);
        memory.set_fusion(params);
        let status = memory.index_vectors(None, &mut |done, total| {
            if done % 200 == 0 || done == total {
                eprintln!("semantic: embedded {done}/{total} chunks");
            }
        })?;
        if status.percent() < 100 {
            bail!("vectors incomplete after indexing: {}", status.line());
        }
        Ok(Semantic { memory, name })
    }
}

impl System for Semantic {
    fn name(&self) -> &str {
        &self.name
    }

    fn search(&mut self, query: &str) -> Result<Vec<String>> {
        let results = self.memory.search_with(query, core::SearchMode::Ranked)?;
        Ok(results.hits.into_iter().map(|h| h.path).collect())
    }
}
