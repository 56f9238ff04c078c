//! The search-quality harness (issue 11, item 3): a memory store with graded
//! questions (`bench/eval/`), search systems behind one trait, and recall@5,
//! MRR and nDCG@5 per category for every system in one run.
//!
//! To add a system, implement [`System`] and push it in [`systems`]; the
//! table and the JSON pick it up.

pub mod bm25;
pub mod metrics;
pub mod semantic;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use agent_memory_core as core;
use anyhow::{Context as _, Result, bail};
use chrono::DateTime;
use serde::Deserialize;

use self::bm25::Bm25;
use self::metrics::{Judgements, ndcg_at, recall_at, reciprocal_rank};

/// The project whose memory an eval store holds (only hashed into the slug),
/// unless the set's `eval.json` names another.
pub const PROJECT: &str = "/home/maya/src/tidewater";
/// An eval store's "now", unless the set's `eval.json` names another:
/// Friday 2026-11-20, late afternoon, UTC.
pub const NOW: &str = "2026-11-20T17:30:00+00:00";
/// The categories, in table order; a question of any other is refused.
/// The first six are those of `tune`, `tune2` and `holdout`; `paraphrase`
/// and `recency` (issue 23) are those of the `paraphrase-*` and `recency-*`
/// files; `multi-hop` (issue 40) is the conversational set's (`bench/eval-conv`),
/// whose answers span two sessions.
pub const CATEGORIES: [&str; 9] = [
    "identifiers",
    "note-names",
    "dates-and-time",
    "partial-words",
    "common-word-floods",
    "general",
    "paraphrase",
    "recency",
    "multi-hop",
];
/// The cut-off of recall and nDCG.
pub const K: usize = 5;

/// The eval directory of this source tree (`bench/eval`).
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("eval")
}

/// A search system under evaluation.
pub trait System {
    /// The name in the table.
    fn name(&self) -> &str;
    /// Store-relative paths for `query`, best first.
    ///
    /// # Errors
    /// When the system cannot search at all (a broken store); a query that
    /// finds nothing is an empty list, not an error.
    fn search(&mut self, query: &str) -> Result<Vec<String>>;
}

/// Which question file(s) to score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Set {
    /// `questions-tune.json`: tune on these.
    Tune,
    /// `questions-tune2.json`: more to tune on, written later than the
    /// first two sets but, like them, before any system ran on them.
    Tune2,
    /// `questions-holdout.json`: never tuned on.
    Holdout,
    /// `questions-paraphrase-tune.json`: questions that name their answer
    /// in other words than it uses (issue 23); tune on these.
    ParaphraseTune,
    /// `questions-paraphrase-holdout.json`: the other half, never tuned on.
    ParaphraseHoldout,
    /// `questions-recency-tune.json`: questions for the latest, most recent
    /// or current state of something, answered by the newest log that
    /// mentions it (issue 23); tune on these.
    RecencyTune,
    /// `questions-recency-holdout.json`: the other half, never tuned on.
    RecencyHoldout,
    /// Every one of these files the directory holds, each reported on its
    /// own.
    All,
}

impl Set {
    fn files(self) -> &'static [&'static str] {
        match self {
            Set::Tune => &["tune"],
            Set::Tune2 => &["tune2"],
            Set::Holdout => &["holdout"],
            Set::ParaphraseTune => &["paraphrase-tune"],
            Set::ParaphraseHoldout => &["paraphrase-holdout"],
            Set::RecencyTune => &["recency-tune"],
            Set::RecencyHoldout => &["recency-holdout"],
            Set::All => &[
                "tune",
                "tune2",
                "holdout",
                "paraphrase-tune",
                "paraphrase-holdout",
                "recency-tune",
                "recency-holdout",
            ],
        }
    }
}

/// One question with its graded answers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// Unique across both sets.
    pub id: String,
    /// What an agent would type into `memory_search`.
    pub query: String,
    /// One of [`CATEGORIES`].
    pub category: String,
    /// Store-relative path -> grade (2 answers, 1 useful too).
    pub relevant: Judgements,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct QuestionFile {
    set: String,
    questions: Vec<Question>,
}

/// Read `questions-<set>.json` under `dir` and check every question's shape.
///
/// # Errors
/// When the file cannot be read or parsed, names another set, or a question
/// has an unknown category, no grade-2 answer, a grade other than 1 or 2, or
/// an id seen before.
pub fn load_questions(dir: &Path, set: &str) -> Result<Vec<Question>> {
    let path = dir.join(format!("questions-{set}.json"));
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read `{}`", path.display()))?;
    let file: QuestionFile = serde_json::from_str(&text)
        .with_context(|| format!("cannot parse `{}`", path.display()))?;
    if file.set != set {
        bail!(
            "`{}` says it is the {:?} set; expected {set:?}",
            path.display(),
            file.set
        );
    }
    let mut ids = BTreeSet::new();
    for q in &file.questions {
        if !CATEGORIES.contains(&q.category.as_str()) {
            bail!(
                "question {} in `{}` has category {:?}; expected one of {}",
                q.id,
                path.display(),
                q.category,
                CATEGORIES.join(", ")
            );
        }
        if let Some((p, g)) = q.relevant.iter().find(|(_, g)| !(1..=2).contains(*g)) {
            bail!(
                "question {} in `{}` grades `{p}` {g}; grades are 1 or 2",
                q.id,
                path.display()
            );
        }
        if !q.relevant.values().any(|&g| g == 2) {
            bail!(
                "question {} in `{}` has no grade-2 answer",
                q.id,
                path.display()
            );
        }
        if !ids.insert(q.id.clone()) {
            bail!("question id {} appears twice in `{}`", q.id, path.display());
        }
    }
    Ok(file.questions)
}

/// The store root of the eval set under `dir`.
pub fn store_root(dir: &Path) -> PathBuf {
    dir.join("store")
}

/// Where an eval set's store lives and when its questions are asked: the
/// set's `eval.json` (`{"project": ..., "now": ...}`), or [`PROJECT`] and
/// [`NOW`] when it has none.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setting {
    /// The project path, hashed into the slug.
    pub project: String,
    /// RFC 3339 with an offset: the host's local now for every question.
    pub now: String,
}

impl Setting {
    /// The setting of the eval set under `dir`.
    ///
    /// # Errors
    /// When `eval.json` exists but cannot be read or parsed, or its `now`
    /// is not RFC 3339.
    pub fn of(dir: &Path) -> Result<Setting> {
        let path = dir.join("eval.json");
        let setting = if path.is_file() {
            let text = fs::read_to_string(&path)
                .with_context(|| format!("cannot read `{}`", path.display()))?;
            serde_json::from_str(&text)
                .with_context(|| format!("cannot parse `{}`", path.display()))?
        } else {
            Setting {
                project: PROJECT.to_string(),
                now: NOW.to_string(),
            }
        };
        DateTime::parse_from_rfc3339(&setting.now).with_context(|| {
            format!(
                "`now` {:?} of the eval set `{}` is not RFC 3339 with an offset",
                setting.now,
                dir.display()
            )
        })?;
        Ok(setting)
    }
}

/// The store opened natively with the set's project and the clock pinned at
/// its now.
///
/// # Errors
/// When the setting's now does not parse or the options are refused.
pub fn open_store(root: &Path, setting: &Setting) -> Result<core::Memory> {
    let now = DateTime::parse_from_rfc3339(&setting.now)?;
    let mut options = core::Options::new(&setting.project);
    options.clock = core::Clock {
        utc_offset_minutes: now.offset().local_minus_utc() / 60,
        fixed_unix_seconds: Some(now.timestamp()),
    };
    Ok(core::Memory::open(root, options)?)
}

/// The files literal search looks at, with their text: every file the
/// store lists except the scratchpad (ranked search reads that too; the
/// baselines keep the seeds' coverage).
///
/// # Errors
/// When the store cannot be listed or a file read.
pub fn searchable_files(root: &Path, setting: &Setting) -> Result<Vec<(String, String)>> {
    let memory = open_store(root, setting)?;
    let scratchpad = format!("{}/SCRATCHPAD.md", memory.project_dir());
    let mut out = Vec::new();
    for file in memory.list_files()? {
        if file.path == scratchpad {
            continue;
        }
        let text = fs::read_to_string(root.join(&file.path))
            .with_context(|| format!("cannot read `{}`", file.path))?;
        out.push((file.path, text));
    }
    Ok(out)
}

/// Today's search (`Memory::search`, the seeds' literal algorithm): the
/// ranking is the order of its hits.
pub struct Literal {
    memory: core::Memory,
}

impl Literal {
    /// Open the store at `root` with the set's project and clock.
    ///
    /// # Errors
    /// As [`open_store`].
    pub fn open(root: &Path, setting: &Setting) -> Result<Literal> {
        Ok(Literal {
            memory: open_store(root, setting)?,
        })
    }
}

impl System for Literal {
    fn name(&self) -> &str {
        "literal"
    }

    fn search(&mut self, query: &str) -> Result<Vec<String>> {
        let results = self.memory.search(query)?;
        Ok(results.hits.into_iter().map(|h| h.path).collect())
    }
}

/// Ranked search (`Memory::search_with(_, SearchMode::Ranked)`), the
/// default of `memory_search`.
pub struct Ranked {
    memory: core::Memory,
}

impl Ranked {
    /// Open the store at `root` with the set's project and clock.
    ///
    /// # Errors
    /// As [`open_store`].
    pub fn open(root: &Path, setting: &Setting) -> Result<Ranked> {
        let mut memory = open_store(root, setting)?;
        // `AGENT_MEMORY_RECENCY=off` gives the ranking before recency words
        // (issue 23), to compare in one run.
        if std::env::var("AGENT_MEMORY_RECENCY").is_ok_and(|v| v == "off") {
            memory.set_recency(false);
        }
        Ok(Ranked { memory })
    }
}

impl System for Ranked {
    fn name(&self) -> &str {
        "ranked"
    }

    fn search(&mut self, query: &str) -> Result<Vec<String>> {
        let results = self.memory.search_with(query, core::SearchMode::Ranked)?;
        Ok(results.hits.into_iter().map(|h| h.path).collect())
    }
}

/// The plain BM25 baseline over the same files as search.
pub struct Bm25System {
    index: Bm25,
}

impl Bm25System {
    /// Index the searchable files of the store at `root`.
    ///
    /// # Errors
    /// As [`searchable_files`].
    pub fn open(root: &Path, setting: &Setting) -> Result<Bm25System> {
        let files = searchable_files(root, setting)?;
        Ok(Bm25System {
            index: Bm25::new(files.iter().map(|(p, t)| (p.clone(), t.as_str()))),
        })
    }
}

impl System for Bm25System {
    fn name(&self) -> &str {
        "bm25"
    }

    fn search(&mut self, query: &str) -> Result<Vec<String>> {
        Ok(self.index.search(query).into_iter().map(|h| h.0).collect())
    }
}

/// Every system the harness compares, in table order.
///
/// # Errors
/// When a system cannot open the store.
pub fn systems(root: &Path, setting: &Setting) -> Result<Vec<Box<dyn System>>> {
    let mut out: Vec<Box<dyn System>> = vec![
        Box::new(Ranked::open(root, setting)?),
        Box::new(Literal::open(root, setting)?),
        Box::new(Bm25System::open(root, setting)?),
    ];
    for (i, semantic) in semantic::Semantic::open_all(root, setting)?
        .into_iter()
        .enumerate()
    {
        out.insert(1 + i, Box::new(semantic));
    }
    Ok(out)
}

/// Mean metrics over a group of questions.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Scores {
    /// Questions in the group.
    pub n: usize,
    /// Mean recall@5.
    pub recall: f64,
    /// Mean reciprocal rank of the first answer.
    pub mrr: f64,
    /// Mean nDCG@5.
    pub ndcg: f64,
}

/// One question's outcome for one system.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The question id.
    pub id: String,
    /// Its category.
    pub category: String,
    /// 1-based rank of the first answer, if returned at all.
    pub first_answer: Option<usize>,
    /// recall@5, reciprocal rank, nDCG@5.
    pub recall: f64,
    /// See [`reciprocal_rank`].
    pub rr: f64,
    /// See [`ndcg_at`].
    pub ndcg: f64,
}

/// A system's results on one set.
#[derive(Debug, Clone)]
pub struct SystemReport {
    /// The system's name.
    pub name: String,
    /// Per question, in set order.
    pub outcomes: Vec<Outcome>,
}

impl SystemReport {
    /// Means for `category`, or over everything for `None`.
    pub fn scores(&self, category: Option<&str>) -> Scores {
        let group: Vec<&Outcome> = self
            .outcomes
            .iter()
            .filter(|o| category.is_none_or(|c| o.category == c))
            .collect();
        let n = group.len();
        if n == 0 {
            return Scores::default();
        }
        let mean = |f: fn(&Outcome) -> f64| group.iter().map(|o| f(o)).sum::<f64>() / n as f64;
        Scores {
            n,
            recall: mean(|o| o.recall),
            mrr: mean(|o| o.rr),
            ndcg: mean(|o| o.ndcg),
        }
    }
}

/// Run every question through `system`.
///
/// # Errors
/// The first error of the system.
pub fn evaluate(system: &mut dyn System, questions: &[Question]) -> Result<SystemReport> {
    let mut outcomes = Vec::with_capacity(questions.len());
    for q in questions {
        let ranking = system
            .search(&q.query)
            .with_context(|| format!("{} failed on {} ({:?})", system.name(), q.id, q.query))?;
        let rr = reciprocal_rank(&ranking, &q.relevant);
        outcomes.push(Outcome {
            id: q.id.clone(),
            category: q.category.clone(),
            first_answer: (rr > 0.0).then(|| (1.0 / rr).round() as usize),
            recall: recall_at(&ranking, &q.relevant, K),
            rr,
            ndcg: ndcg_at(&ranking, &q.relevant, K),
        });
    }
    Ok(SystemReport {
        name: system.name().to_string(),
        outcomes,
    })
}

/// One set's reports, every system.
#[derive(Debug, Clone)]
pub struct SetReport {
    /// The file's set name: `tune`, `holdout`, `paraphrase-tune`, ...
    pub set: String,
    /// The project and now the questions were asked with.
    pub setting: Setting,
    /// The questions, as scored.
    pub questions: Vec<Question>,
    /// In [`systems`] order.
    pub systems: Vec<SystemReport>,
}

/// Score every system on the chosen sets.
///
/// # Errors
/// When the questions or the store cannot be loaded, or a system fails.
pub fn run(dir: &Path, set: Set) -> Result<Vec<SetReport>> {
    let loaded = set
        .files()
        .iter()
        // `all` is every set the directory has (set B has no tune2).
        .filter(|name| set != Set::All || dir.join(format!("questions-{name}.json")).is_file())
        .map(|name| Ok((*name, load_questions(dir, name)?)))
        .collect::<Result<Vec<_>>>()?;
    let root = store_root(dir);
    if !root.join("MEMORY.md").is_file() {
        bail!(
            "`{}` holds no eval store (no MEMORY.md): pass the eval directory with --dir",
            root.display()
        );
    }
    let setting = Setting::of(dir)?;
    let mut systems = systems(&root, &setting)?;
    let mut out = Vec::new();
    for (name, questions) in loaded {
        let reports = systems
            .iter_mut()
            .map(|s| evaluate(s.as_mut(), &questions))
            .collect::<Result<Vec<_>>>()?;
        out.push(SetReport {
            set: name.to_string(),
            setting: setting.clone(),
            questions,
            systems: reports,
        });
    }
    Ok(out)
}

/// The table: one row per category the set has and system, then the
/// overall rows.
pub fn render_table(report: &SetReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} set: {} questions; R@5 = recall@5, MRR = 1/rank of the first grade-2 file, nDCG@5 with gains 2^grade-1",
        report.set,
        report.questions.len()
    );
    let _ = writeln!(
        out,
        "{:<20} {:>3}  {:<8} {:>6} {:>6} {:>7}",
        "category", "n", "system", "R@5", "MRR", "nDCG@5"
    );
    let rows = CATEGORIES
        .iter()
        .filter(|c| report.questions.iter().any(|q| q.category == **c))
        .map(|c| (*c, Some(*c)))
        .chain([("overall", None)]);
    for (label, category) in rows {
        for (i, system) in report.systems.iter().enumerate() {
            let s = system.scores(category);
            let (label, n) = if i == 0 {
                (label.to_string(), s.n.to_string())
            } else {
                (String::new(), String::new())
            };
            let _ = writeln!(
                out,
                "{label:<20} {n:>3}  {:<8} {:>6.3} {:>6.3} {:>7.3}",
                system.name, s.recall, s.mrr, s.ndcg
            );
        }
    }
    out
}

/// Per question: the query and the rank of the first answer for each
/// system (`-` when not returned).
pub fn render_questions(report: &SetReport) -> String {
    let mut out = String::new();
    let names: Vec<&str> = report.systems.iter().map(|s| s.name.as_str()).collect();
    let _ = writeln!(out, "{:<6} {:<60} {}", "id", "query", names.join("  "));
    for (i, q) in report.questions.iter().enumerate() {
        let ranks: Vec<String> = report
            .systems
            .iter()
            .zip(&names)
            .map(|(s, n)| {
                let r = s.outcomes[i]
                    .first_answer
                    .map_or("-".into(), |r| r.to_string());
                format!("{r:>w$}", w = n.len())
            })
            .collect();
        let _ = writeln!(out, "{:<6} {:<60} {}", q.id, q.query, ranks.join("  "));
    }
    out
}

/// The reports as JSON: per set, per system, per category and overall.
pub fn to_json(reports: &[SetReport]) -> serde_json::Value {
    let scores = |s: Scores| serde_json::json!({"n": s.n, "recall_at_5": s.recall, "mrr": s.mrr, "ndcg_at_5": s.ndcg});
    let sets: Vec<serde_json::Value> = reports
        .iter()
        .map(|r| {
            let systems: Vec<serde_json::Value> = r
                .systems
                .iter()
                .map(|s| {
                    let categories: BTreeMap<&str, serde_json::Value> = CATEGORIES
                        .iter()
                        .map(|c| (*c, scores(s.scores(Some(c)))))
                        .collect();
                    let ranks: BTreeMap<&str, Option<usize>> = s
                        .outcomes
                        .iter()
                        .map(|o| (o.id.as_str(), o.first_answer))
                        .collect();
                    serde_json::json!({
                        "name": s.name,
                        "overall": scores(s.scores(None)),
                        "categories": categories,
                        "first_answer_rank": ranks,
                    })
                })
                .collect();
            serde_json::json!({"set": r.set, "now": r.setting.now, "questions": r.questions.len(), "systems": systems})
        })
        .collect();
    serde_json::json!({ "k": K, "sets": sets })
}

#[cfg(test)]
mod tests;
