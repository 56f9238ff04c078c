//! The store: paths under the memory root, and the operations on them.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::budget::Budget;
use crate::context::Sources;
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::{self, Kind, LockGuard, LockPolicy};
use crate::history::{self, History, Operation, Retention};
use crate::limits::{INDEX_MAX_BYTES, Limits, MAX_QUERY_TERMS, MAX_SEARCH_FILE_BYTES};
use crate::listing::{Listed, Listings, now_ns};
use crate::names::{MAX_NOTE_SEGMENTS, check_segment, daily_date, note_name, project_slug};
use crate::rank::{Ranker, SearchMode};
use crate::search::{FileMeta, Query, SearchResults, Searcher};
use crate::secrets::{self, SecretPolicy};
use crate::text::{cut_with_marker, prefix_at_char_boundary};
use crate::time::{Clock, Date};

mod anchored;
mod batch;
mod budget;
mod change;
mod curate;
mod import;
mod indexed;
mod journal;
mod lifecycle;
mod semantic;
mod similar;
mod team;
mod top;
mod versions;

pub(crate) use crate::layout::{Rel, path_prefix};

pub use batch::{
    BatchChange, BatchReceipt, CONSOLIDATION_REASON, DREAM_SOURCE, MAX_BATCH_BYTES,
    MAX_BATCH_CHANGES, MAX_REASON_BYTES,
};
pub(crate) use change::Preview;
pub(crate) use change::{Committed, Step, Tx};
pub use curate::{DeleteReceipt, EditReceipt, RenameReceipt};
pub use import::{
    ImportItem, ImportOutcome, ImportReceipt, ImportSetReceipt, MAX_IMPORT_BYTES, MAX_IMPORT_FILES,
};
pub use lifecycle::{
    ClearReceipt, ClearTarget, DUE_AFTER_LOG_DAYS, DUE_AT_INDEX_PERCENT, MAX_PLAN_BYTES,
};
pub use team::{SnapshotInfo, TEAM_PREFIX, conflict_line};
pub(crate) use versions::rel_of;

/// Bytes of a scratchpad scanned for open items.
const MAX_SCRATCHPAD_SCAN_BYTES: u64 = 1024 * 1024;
/// How many blank earlier logs the context block skips looking for one with
/// content.
const MAX_EARLIER_LOGS_TRIED: usize = 31;
/// Days before today whose logs the context block looks up by name before
/// listing the daily directory. Less than [`MAX_EARLIER_LOGS_TRIED`], so the
/// shortcut finds exactly the log the listing would.
const EARLIER_LOGS_LOOKED_UP: i64 = 7;

/// What the store needs from the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The project's path on the host; only hashed into the slug.
    pub project: String,
    /// Local time.
    pub clock: Clock,
    /// Sizes and lock timing.
    pub limits: Limits,
    /// What to do with text that holds a secret: the host's setting, never
    /// the model's.
    pub secrets: SecretPolicy,
    /// Where the project directory is visible, read-only (in the component
    /// a guest path such as `/project`), for staleness anchors (see
    /// [`crate::anchors`]); `None` turns anchoring and marks off. Only ever
    /// read: nothing is written there. Must be absolute.
    pub project_root: Option<PathBuf>,
    /// Who is writing (an agent, a session), recorded with every change in
    /// history: at most 128 bytes, no line break or control character.
    /// Empty means no label.
    pub source: String,
    /// How much history is kept.
    pub retention: Retention,
    /// Which scopes' model tool calls wait for the user's review.
    pub review: ReviewGate,
}

impl Options {
    /// Options for `project` with the UTC system clock and default limits.
    pub fn new(project: impl Into<String>) -> Options {
        Options {
            project: project.into(),
            clock: Clock::UTC,
            limits: Limits::default(),
            secrets: SecretPolicy::default(),
            project_root: None,
            source: String::new(),
            retention: Retention::default(),
            review: Default::default(),
        }
    }
}

use crate::words::{self, Act, Audience};
pub use agent_memory_vocab::{ReadSource, WriteMode, WriteTarget};
use agent_memory_vocab::{Scope, without_line_ends};

/// Which scopes' tool calls wait for review.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReviewGate {
    /// The personal store's.
    pub personal: bool,
    /// The team store's.
    pub team: bool,
}

impl ReviewGate {
    /// Whether calls on `scope` are gated.
    pub fn gates(self, scope: Scope) -> bool {
        match scope {
            Scope::Personal => self.personal,
            Scope::Team => self.team,
        }
    }
}

/// The write target a tool word names (`long_term`, `scratchpad`, `daily`,
/// `note`), exactly.
///
/// # Errors
/// [`ErrorKind::InvalidTarget`] for any other word.
pub fn write_target(word: &str) -> Result<WriteTarget> {
    WriteTarget::from_tool_word(word).ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidTarget,
            format!(
                "unknown target {word:?}: expected {}",
                WriteTarget::tool_words()
            ),
        )
    })
}

/// The write mode a tool word names (`append`, `overwrite`), exactly.
///
/// # Errors
/// [`ErrorKind::InvalidMode`] for any other word.
pub fn write_mode(word: &str) -> Result<WriteMode> {
    WriteMode::from_tool_word(word).ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidMode,
            format!(
                "unknown mode {word:?}: expected {}",
                WriteMode::tool_words()
            ),
        )
    })
}

/// The outcome of a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteReceipt {
    /// Store-relative path written.
    pub path: String,
    /// Content bytes stored by this call.
    pub bytes_written: u64,
    /// The original length when the content was cut.
    pub truncated_from: Option<u64>,
    /// Added lines that repeat a line already in the file (see
    /// [`crate::dupes`]); written anyway.
    pub warnings: Vec<String>,
    /// How full the injected memory is now, and whether this write
    /// reaches the next context block.
    pub budget: Budget,
    /// For the model: one line, then the warnings if any, then the budget
    /// line and its warning if any.
    pub message: String,
}

/// A secret found in a stored file by [`Memory::scan_secrets`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSecret {
    /// Store-relative path, a secret in its names masked as `masked` is.
    pub path: String,
    /// 1-based line; 0 when the secret is in the name: `path` is then the
    /// file or folder whose own name holds it.
    pub line: u32,
    /// The rule that matched, e.g. `github-pat`.
    pub rule_id: String,
    /// At most the first 4 characters of the value, then `…`.
    pub masked: String,
    /// `None` for the file as it is now; `Some("v12")` for a version saved
    /// in history.
    pub version: Option<String>,
}

/// A memory file in a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    /// Store-relative path.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Staleness marks of its anchored project files (see
    /// [`crate::anchors`]); empty when none changed.
    pub stale: Vec<crate::anchors::Stale>,
}

/// Ends a receipt's message with the budget line (and its warning).
pub(crate) fn push_budget(message: &mut String, budget: &Budget) {
    message.push('\n');
    message.push_str(&budget.text());
}

/// The query's distinct terms, refusing more than [`MAX_QUERY_TERMS`].
fn parse_query(query: &str) -> Result<Query> {
    Query::parse_bounded(query, MAX_QUERY_TERMS).ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidArguments,
            format!(
                "the query has more than {MAX_QUERY_TERMS} distinct terms; search for the few words that matter"
            ),
        )
    })
}

/// The text a ranked search of `query` ranks and embeds: its distinct
/// words in query order, joined by single spaces. A host that embeds
/// queries itself ([`Memory::add_query_vector`]) embeds this.
///
/// # Errors
/// As a search: [`ErrorKind::InvalidArguments`] for more than
/// [`MAX_QUERY_TERMS`] distinct terms.
pub fn query_text(query: &str) -> Result<String> {
    Ok(parse_query(query)?.terms().join(" "))
}

/// The search mode a tool word names (`ranked`, `literal`), exactly.
///
/// # Errors
/// [`ErrorKind::InvalidMode`] for any other word.
pub fn search_mode(word: &str) -> Result<SearchMode> {
    SearchMode::from_tool_word(word).ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidMode,
            format!(
                "unknown search mode {word:?}: expected {}",
                SearchMode::tool_words()
            ),
        )
    })
}

/// The secret policy a word names (`block`, `redact`, `off`), exactly.
///
/// # Errors
/// [`ErrorKind::InvalidOptions`] for any other word.
pub fn secret_policy(word: &str) -> Result<SecretPolicy> {
    SecretPolicy::from_tool_word(word).ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidOptions,
            format!(
                "unknown secret policy {word:?}: expected {}",
                SecretPolicy::tool_words()
            ),
        )
    })
}

/// Put `hit`'s staleness marks, if `marks` has any, at the head of its
/// body, right under its path line.
fn mark_hit(
    marks: &mut std::collections::BTreeMap<String, Vec<crate::anchors::Stale>>,
    hit: &mut crate::search::SearchHit,
) {
    if let Some(m) = marks.remove(&hit.path) {
        let lines = crate::anchors::render_marks(&m, 2048);
        hit.body = format!("{lines}\n{}", hit.body);
    }
}

/// Which files a search reads. Both modes read `MEMORY.md`, the project's
/// notes and daily logs (and the team store's); ranked search, which finds
/// what memory holds wherever it is, reads the scratchpad too, while
/// literal search keeps the seeds' coverage, unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coverage {
    /// The seeds' files: `MEMORY.md`, notes, daily logs.
    Literal,
    /// Those and the project's `SCRATCHPAD.md`.
    Ranked,
}

/// What search knows of one folder's files (see [`Memory::search_dir`]).
#[derive(Debug)]
pub(crate) struct SearchDir {
    /// What a file's name is appended to for its store-relative path.
    prefix: String,
    /// A nested topic folder's topic and `/` (`ops/`), else empty.
    topic: String,
    /// The project's daily logs: names are dates.
    daily: bool,
}

impl SearchDir {
    /// What search knows of the file `name` here: its path, a daily log's
    /// date, a nested note's whole topic as its stem.
    pub(crate) fn file(&self, name: String) -> FileMeta {
        let file_stem = name.strip_suffix(".md").unwrap_or(&name);
        let date = if self.daily {
            daily_date(file_stem).ok().map(|d| d.to_string())
        } else {
            None
        };
        let mut stem = String::with_capacity(self.topic.len() + file_stem.len());
        stem.push_str(&self.topic);
        stem.push_str(file_stem);
        let mut path = String::with_capacity(self.prefix.len() + name.len());
        path.push_str(&self.prefix);
        path.push_str(&name);
        FileMeta {
            is_memory_md: path == "MEMORY.md",
            path,
            stem,
            date,
        }
    }
}

/// What the context block is made of: its sources, and the file offsets
/// where the logs' tails start.
pub(crate) struct Gathered {
    pub(crate) sources: Sources,
    pub(crate) earlier_at: u64,
    pub(crate) today_at: u64,
}

/// The memory store for one project under one root.
#[derive(Debug, Clone)]
pub struct Memory {
    root: PathBuf,
    slug: String,
    clock: Clock,
    limits: Limits,
    secrets: SecretPolicy,
    project_root: Option<PathBuf>,
    /// The anchors file last parsed (see [`crate::anchors`]).
    side_cache: crate::anchors::SideCache,
    history: History,
    /// Whether this is the personal store or the team store of a project.
    layout: Layout,
    /// The project's team store, when the host gave a team directory.
    team: Option<Box<Memory>>,
    /// Which scopes' tool calls wait for review instead of being applied.
    review: ReviewGate,
    /// Set on a dry-run copy: changes are previewed here, never made.
    dry: Option<change::DrySink>,
    /// Semantic recall: the model, or why there is none (see `semantic.rs`).
    semantic: crate::semantic::Semantic,
    /// Who reads its messages: what they call the actions they point to
    /// (see [`crate::words`]).
    audience: Audience,
    /// Set on a copy whose changes run inside a lock its caller holds
    /// (see [`Memory::under`]).
    held: Option<Held>,
    /// Set on a copy whose first change that stages steps takes a step of
    /// its caller's along (see [`Memory::under`]).
    rider: Option<Rider>,
}

/// The write lock a caller holds, shared with the changes it runs.
#[derive(Debug)]
struct Held(LockGuard);

impl Clone for Held {
    fn clone(&self) -> Held {
        Held(self.0.shared())
    }
}

/// A step a caller hands to the next change of a [`Memory::under`]
/// copy (an approval's decision): committed with that change, all or
/// nothing, or still here for the caller when no change took it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rider(std::sync::Arc<std::sync::Mutex<Option<Step>>>);

impl Rider {
    fn new(step: Option<Step>) -> Rider {
        Rider(std::sync::Arc::new(std::sync::Mutex::new(step)))
    }

    /// The step, unless a change took it.
    pub(crate) fn take(&self) -> Option<Step> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

/// Which store a [`Memory`] is: the personal layout under the root, or the
/// team layout (`MEMORY.md`, `notes/`) whose paths start with `team:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    Personal,
    Team,
}

impl Memory {
    /// Open the store at `root` (which should exist) for `options.project`.
    /// Creates nothing on disk.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidOptions`] for an empty project path or one with
    /// NUL, a project root that is not absolute or holds NUL, an offset out
    /// of range, or a cap below its minimum.
    pub fn open(root: impl Into<PathBuf>, options: Options) -> Result<Memory> {
        if options.project.trim().is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                "project path is empty",
            ));
        }
        if options.project.contains('\0') {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!("project path {:?} contains NUL", options.project),
            ));
        }
        if let Some(root) = &options.project_root {
            let shown = root.display();
            if root.as_os_str().as_encoded_bytes().contains(&0) {
                return Err(Error::new(
                    ErrorKind::InvalidOptions,
                    format!("project root {shown:?} contains NUL"),
                ));
            }
            if !root.is_absolute() {
                return Err(Error::new(
                    ErrorKind::InvalidOptions,
                    format!(
                        "project root {shown:?} is not an absolute path; pass the directory where the project is visible, e.g. `/project`"
                    ),
                ));
            }
        }
        options.clock.validate()?;
        options.limits.validate()?;
        options.retention.validate()?;
        history::validate_source(&options.source)?;
        let root = root.into();
        Ok(Memory {
            history: History::new(&root, options.retention, options.source),
            root,
            slug: project_slug(&options.project),
            clock: options.clock,
            limits: options.limits,
            secrets: options.secrets,
            project_root: options.project_root,
            side_cache: Default::default(),
            layout: Layout::Personal,
            team: None,
            review: options.review,
            dry: None,
            semantic: Default::default(),
            audience: Audience::Model,
            held: None,
            rider: None,
        })
    }

    /// Who reads this memory's messages (receipts, errors and the texts of
    /// tool calls): a model (the default) gets tool names, a person at the
    /// command line gets commands (see [`crate::words`]).
    pub fn set_audience(&mut self, audience: Audience) {
        self.audience = audience;
        self.history.set_audience(audience);
        if let Some(team) = &mut self.team {
            team.set_audience(audience);
        }
    }

    /// Who reads this memory's messages.
    pub fn audience(&self) -> Audience {
        self.audience
    }

    pub(crate) fn side_cache(&self) -> &crate::anchors::SideCache {
        &self.side_cache
    }

    /// The project directory anchors are checked against, if the host gave
    /// one.
    pub fn project_root(&self) -> Option<&Path> {
        self.project_root.as_deref()
    }

    /// Take the store's write lock; every mutation holds it, so writers in
    /// other processes never interleave.
    pub(crate) fn lock(&self) -> Result<LockGuard> {
        if let Some(Held(guard)) = &self.held {
            return Ok(guard.shared());
        }
        let policy = LockPolicy {
            lease: self.limits.lock_lease,
            wait: self.limits.lock_wait,
        };
        let guard = fsio::lock(&self.root, policy).map_err(|e| match e {
            fsio::LockError::Busy => Error::new(
                ErrorKind::Busy,
                format!(
                    "the memory store is busy: another writer held its lock for over {} ms; try again",
                    policy.wait.as_millis()
                ),
            ),
            fsio::LockError::Io(e) => lock_error(&e),
        })?;
        // Broken locks moved aside by a writer that then crashed, and a
        // change of several files it left half applied.
        fsio::remove_leftovers(&self.root);
        self.finish_interrupted(&guard);
        Ok(guard)
    }

    /// This memory with its changes run inside `lock`, which the caller
    /// holds: a precondition read under it and the change that depends on
    /// it are one critical section (an approval checks that its entry is
    /// still pending, runs the call and records the decision so). The team
    /// store keeps its own lock.
    ///
    /// `personal` and `team`, when given, are taken along by the first
    /// change of this store, and of its team store, that stages steps of
    /// its own, and committed with it: the step (an approval's decision)
    /// and that change are both made or neither. A [`Rider`] still holds
    /// its step when no change took it.
    pub(crate) fn under(
        &self,
        lock: &LockGuard,
        personal: Option<Step>,
        team: Option<Step>,
    ) -> (Memory, Rider, Rider) {
        let riders = (Rider::new(personal), Rider::new(team));
        let mut held = self.clone();
        held.held = Some(Held(lock.shared()));
        held.rider = Some(riders.0.clone());
        if let Some(store) = &mut held.team {
            store.rider = Some(riders.1.clone());
        }
        (held, riders.0, riders.1)
    }

    /// The step a caller of [`Memory::under`] handed over, for a
    /// change that stages steps of its own.
    pub(crate) fn rider(&self) -> Option<Step> {
        self.rider.as_ref().and_then(Rider::take)
    }

    /// Replace the clock.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidOptions`] for an offset out of range.
    pub fn set_clock(&mut self, clock: Clock) -> Result<()> {
        clock.validate()?;
        self.clock = clock;
        if let Some(team) = &mut self.team {
            team.clock = clock;
        }
        Ok(())
    }

    /// The project slug.
    pub fn slug(&self) -> &str {
        &self.slug
    }

    /// The project's store-relative directory, `projects/<slug>`.
    pub fn project_dir(&self) -> String {
        format!("projects/{}", self.slug)
    }

    /// Today's local date.
    pub fn today(&self) -> Date {
        self.clock.now().date
    }

    /// Applies the secret policy to `text`, about to be stored at the
    /// store-relative `path`: every path that stores text calls this first.
    ///
    /// # Errors
    /// [`ErrorKind::SecretDetected`] under [`SecretPolicy::Block`].
    pub(crate) fn guard<'a>(&self, text: &'a str, path: &str) -> Result<secrets::Guarded<'a>> {
        secrets::guard(text, self.guard_policy(), path)
    }

    /// The secret policy this store's writes get: the host's, except in
    /// team scope, whose files are committed and pushed, where a secret is
    /// a leak whatever the host's policy.
    pub(crate) fn guard_policy(&self) -> SecretPolicy {
        match self.layout {
            Layout::Personal => self.secrets,
            Layout::Team => SecretPolicy::Block,
        }
    }

    /// The secret policy in force.
    pub fn secret_policy(&self) -> SecretPolicy {
        self.secrets
    }

    /// Which scopes this memory's tool calls wait for review in.
    pub fn review_gate(&self) -> ReviewGate {
        self.review
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The host path of the store-relative `rel`; a `team:` path is under
    /// the team directory.
    pub(crate) fn abs(&self, rel: &str) -> PathBuf {
        match rel.strip_prefix(team::TEAM_PREFIX) {
            Some(rest) if self.layout == Layout::Team => self.root.join(rest),
            Some(rest) => match &self.team {
                Some(team) => team.root.join(rest),
                // Never a real file: `:` is in no name the store makes.
                None => self.root.join(rel),
            },
            None => self.root.join(rel),
        }
    }

    /// The team store of a personal memory, when it has one.
    pub(crate) fn team_store(&self) -> Option<&Memory> {
        self.team.as_deref()
    }

    /// The store-relative directory of the top of this store: `` or
    /// `team:`.
    fn top_dir(&self) -> &'static str {
        match self.layout {
            Layout::Personal => "",
            Layout::Team => team::TEAM_PREFIX,
        }
    }

    pub(crate) fn clock(&self) -> Clock {
        self.clock
    }

    /// How much history is kept.
    pub fn retention(&self) -> Retention {
        self.history.retention()
    }

    pub(crate) fn history_store(&self) -> &History {
        &self.history
    }

    pub(crate) fn long_term_rel(&self) -> Rel {
        Rel {
            dir: self.top_dir().to_string(),
            file: "MEMORY.md".into(),
        }
    }

    fn scratchpad_rel(&self) -> Rel {
        Rel {
            dir: self.project_dir(),
            file: "SCRATCHPAD.md".into(),
        }
    }

    fn daily_dir(&self) -> String {
        format!("{}/daily", self.project_dir())
    }

    pub(crate) fn notes_dir(&self) -> String {
        match self.layout {
            Layout::Personal => format!("{}/notes", self.project_dir()),
            Layout::Team => format!("{}notes", team::TEAM_PREFIX),
        }
    }

    fn daily_rel(&self, date: Date) -> Rel {
        Rel {
            dir: self.daily_dir(),
            file: format!("{date}.md"),
        }
    }

    pub(crate) fn note_rel(&self, name: Option<&str>) -> Result<Rel> {
        let name = name.ok_or_else(|| {
            Error::new(
                ErrorKind::MissingName,
                "target note needs a name (the note's file stem)",
            )
        })?;
        let name = note_name(name)?;
        Ok(match name.rsplit_once('/') {
            Some((folders, last)) => Rel {
                dir: format!("{}/{folders}", self.notes_dir()),
                file: format!("{last}.md"),
            },
            None => Rel {
                dir: self.notes_dir(),
                file: format!("{name}.md"),
            },
        })
    }

    /// Walk the store-relative directory `dir` from the root, one component
    /// at a time, never through a symbolic link: each component must be a
    /// real directory. A missing one is created when `create`; otherwise
    /// the answer is `Ok(false)`. Model-named note folders go through here,
    /// so a link planted in the store cannot lead a write or read outside.
    pub(crate) fn ensure_dir(&self, dir: &str, create: bool) -> Result<bool> {
        let mut at = String::new();
        for part in dir.split('/').filter(|p| !p.is_empty()) {
            if !at.is_empty() {
                at.push('/');
            }
            at.push_str(part);
            let abs = self.abs(&at);
            let found = match fs::symlink_metadata(&abs) {
                Ok(meta) => Some(meta),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(Error::io("inspect", &at, &e)),
            };
            let meta = match found {
                Some(meta) => meta,
                None if !create => return Ok(false),
                None => match fs::create_dir(&abs) {
                    Ok(()) => continue,
                    // Another writer made it meanwhile: look at what it is.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        fs::symlink_metadata(&abs).map_err(|e| Error::io("inspect", &at, &e))?
                    }
                    Err(e) => return Err(Error::io("create directory", &at, &e)),
                },
            };
            if !meta.is_dir() {
                let what = if meta.file_type().is_symlink() {
                    "a symbolic link (the store never follows links)"
                } else {
                    "not a folder"
                };
                return Err(Error::new(
                    ErrorKind::NotAFile,
                    format!("`{at}` exists but is {what}; a note cannot be stored beneath it"),
                ));
            }
        }
        Ok(true)
    }

    fn target_rel(&self, target: WriteTarget, name: Option<&str>) -> Result<Rel> {
        self.team_target(target.into())?;
        Ok(match target {
            WriteTarget::LongTerm => self.long_term_rel(),
            WriteTarget::Scratchpad => self.scratchpad_rel(),
            WriteTarget::Daily => self.daily_rel(self.today()),
            WriteTarget::Note => self.note_rel(name)?,
        })
    }

    /// The file `kind`, with a typed error when something other than a
    /// regular file sits at `rel`.
    pub(crate) fn file_kind(&self, rel: &str) -> Result<Kind> {
        let kind = fsio::kind(&self.abs(rel)).map_err(|e| Error::io("inspect", rel, &e))?;
        if let Kind::Other(what) = kind {
            return Err(Error::new(
                ErrorKind::NotAFile,
                format!("`{rel}` exists but is {what}, not a regular file the store can use"),
            ));
        }
        Ok(kind)
    }

    /// Store `content`. See the WIT `memory.write` for the rules.
    ///
    /// # Errors
    /// `missing-name`, `invalid-name`, `not-a-file`, `secret-detected`,
    /// `conflict`, `busy`, `io`.
    pub fn write(
        &self,
        target: WriteTarget,
        content: &str,
        mode: WriteMode,
        name: Option<&str>,
    ) -> Result<WriteReceipt> {
        let rel = self.target_rel(target, name)?;
        self.write_rel(rel, content, mode, |_, _| Ok(String::new()))
    }

    /// Overwrite a file with `content` only while it still holds the text
    /// an editor was given: its bytes must hash (SHA-256, lowercase hex)
    /// to `base_sha256`, a missing file hashing as the empty text. The
    /// check and the write are one change under the lock, so of two saves
    /// from the same base one is written and the other refused. Otherwise
    /// as [`Memory::write`] with [`WriteMode::Overwrite`].
    ///
    /// # Errors
    /// `conflict` when the file changed since (nothing is written);
    /// `invalid-arguments` when `base_sha256` is not 64 lowercase hex
    /// digits; then as [`Memory::write`].
    pub fn write_if_unchanged(
        &self,
        target: WriteTarget,
        content: &str,
        name: Option<&str>,
        base_sha256: &str,
    ) -> Result<WriteReceipt> {
        if base_sha256.len() != 64
            || !base_sha256
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(Error::new(
                ErrorKind::InvalidArguments,
                format!(
                    "{base_sha256:?} is not a SHA-256 digest: give the 64 lowercase hex digits of the text the edit started from"
                ),
            ));
        }
        let rel = self.target_rel(target, name)?;
        self.write_rel(rel, content, WriteMode::Overwrite, |tx, rel| {
            if tx.sha256(rel)? != base_sha256 {
                return Err(Error::new(
                    ErrorKind::Conflict,
                    format!(
                        "`{}` changed since the text this edit started from was read; nothing was written. Read it again and make the edit on what it holds now",
                        rel.path()
                    ),
                ));
            }
            Ok(String::new())
        })
    }

    /// Write `content` (cut at the write cap) to `rel` as one change.
    /// `lead` runs under the lock, checks what the change depends on and
    /// returns text to put before `content` (a daily entry's blank line).
    fn write_rel(
        &self,
        rel: Rel,
        content: &str,
        mode: WriteMode,
        lead: impl FnOnce(&Tx<'_>, &Rel) -> Result<String>,
    ) -> Result<WriteReceipt> {
        // The cap counts the text without its trailing line breaks: the
        // one `\n` the file ends with is the store's (see `settle_ending`).
        let cap = self.limits.max_write_bytes;
        let body = without_line_ends(content);
        let kept = prefix_at_char_boundary(body, cap);
        let truncated_from = (kept.len() < body.len()).then_some(content.len() as u64);
        let path = rel.path();
        let (existed, done) = self.change(Operation::Write, |tx| {
            let text = lead(tx, &rel)? + kept;
            let existed = tx.kind(&rel)? != Kind::Missing;
            Memory::stage_write(tx, rel, text, mode);
            Ok(existed)
        })?;
        let range = &done.written[0];
        let bytes = range.end - range.start;
        let mut message = match mode {
            WriteMode::Append => format!("Appended {bytes} bytes to {path}"),
            WriteMode::Overwrite if !existed => format!("Created {path} with {bytes} bytes"),
            WriteMode::Overwrite => format!("Overwrote {path} with {bytes} bytes"),
        };
        if let Some(original) = truncated_from {
            message.push_str(&format!(
                " (content truncated from {original} bytes to the {cap}-byte cap; write the rest in another call)"
            ));
        }
        done.finish(&mut message);
        Ok(WriteReceipt {
            path,
            bytes_written: bytes,
            truncated_from,
            warnings: done.warnings(),
            budget: done.budget,
            message,
        })
    }

    /// Stage a write of `text` to `rel`.
    pub(crate) fn stage_write(tx: &mut Tx<'_>, rel: Rel, text: String, mode: WriteMode) {
        match mode {
            WriteMode::Append => tx.push(Step::Append { rel, text }),
            WriteMode::Overwrite => tx.put(rel, text),
        }
    }

    /// Read a file whole, capped. `Ok(None)` when it does not exist.
    ///
    /// # Errors
    /// `missing-name`, `invalid-name`, `invalid-date`, `not-a-file`, `io`.
    pub fn read(&self, source: ReadSource, name: Option<&str>) -> Result<Option<String>> {
        self.recover_before_read();
        let rel = self.source_rel(source, name)?;
        let path = rel.path();
        if source == ReadSource::Note && !self.ensure_dir(&rel.dir, false)? {
            return Ok(None);
        }
        if self.file_kind(&path)? == Kind::Missing {
            return Ok(None);
        }
        // Staleness marks follow the text after a blank line, inside the
        // cap: they get at most a quarter of it.
        let marks = self.marks_text(&path, self.limits.max_read_bytes / 4);
        let cap = match marks.len() {
            0 => self.limits.max_read_bytes,
            n => self.limits.max_read_bytes.saturating_sub(n + 2),
        };
        let Some((text, total)) = fsio::read_head(&self.abs(&path), cap as u64 + 1)
            .map_err(|e| Error::io("read", &path, &e))?
        else {
            return Ok(None);
        };
        // `total` stays u64: in the component `usize` is 32 bits, and a file
        // over 4 GiB must not pass for a small one.
        let mut text = if text.len() <= cap && total <= cap as u64 {
            text
        } else {
            let marker = format!(
                "\n…[truncated: showing the first part of {total} bytes; use {} to find the rest]",
                words::name(self.audience, Act::Search)
            );
            // The file is larger than the cap: say so even when the part read
            // lost a cut character at its end and would fit on its own.
            cut_with_marker(&text, cap, &marker)
        };
        if !marks.is_empty() {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push('\n');
            text.push_str(&marks);
        }
        Ok(Some(text))
    }

    /// The file a read (or a history listing) of `source` and `name` names.
    pub(crate) fn source_rel(&self, source: ReadSource, name: Option<&str>) -> Result<Rel> {
        self.team_target(source)?;
        Ok(match source {
            ReadSource::LongTerm => self.long_term_rel(),
            ReadSource::Scratchpad => self.scratchpad_rel(),
            ReadSource::Daily => match name {
                Some(n) => self.daily_rel(daily_date(n)?),
                None => self.daily_rel(self.today()),
            },
            ReadSource::Note => self.note_rel(name)?,
        })
    }

    /// Regular `.md` files directly in the store-relative `dir`, as
    /// (file name, size), sorted. A missing directory is empty. Listed
    /// once and each file looked at relative to the open directory
    /// ([`Memory::md_names`]): in the sandbox a stat by path from the root
    /// is a checked walk, and the context block lists every daily log.
    fn md_files(&self, dir: &str) -> Result<Vec<(String, u64)>> {
        let Some((handle, names)) = self.md_names(dir)? else {
            return Ok(Vec::new());
        };
        // Not followed: a symlink, FIFO or hard-linked file is not listed.
        Ok(names
            .into_iter()
            .filter_map(|name| match handle.kind(&name) {
                Ok(Kind::File(len)) => Some((name, len)),
                _ => None,
            })
            .collect())
    }

    /// Secrets already stored anywhere under the root: `MEMORY.md` and every
    /// project's scratchpad, logs and notes (the first
    /// [`MAX_SEARCH_FILE_BYTES`] of each), in path order; then, with a team
    /// store, its `MEMORY.md`, notes and snapshot (`team:` paths); then
    /// every version saved in history (personal, then team), by path and
    /// version, each naming its version (`v12`). Names are read too: a
    /// secret in a file or folder name is reported once, with line 0 and the
    /// path of the file or folder whose own name holds it (a name only
    /// history still holds names the newest version that has it). Reports
    /// never hold a value, only its rule, line and a short masked prefix.
    ///
    /// # Errors
    /// `io` when the root cannot be listed.
    pub fn scan_secrets(&self) -> Result<Vec<StoredSecret>> {
        let mut files = vec!["MEMORY.md".to_string()];
        let projects = match fs::read_dir(self.abs("projects")) {
            Ok(entries) => entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| !n.starts_with('.'))
                .collect(),
            Err(_) => Vec::new(),
        };
        for project in projects {
            let dir = format!("projects/{project}");
            if !matches!(fsio::kind(&self.abs(&dir)), Ok(Kind::Other("a directory"))) {
                continue;
            }
            files.push(format!("{dir}/SCRATCHPAD.md"));
            for sub in ["daily", "notes"] {
                let mut pending = vec![(format!("{dir}/{sub}"), 0usize)];
                while let Some((dir, depth)) = pending.pop() {
                    let Ok(entries) = fs::read_dir(self.abs(&dir)) else {
                        continue;
                    };
                    for entry in entries.flatten() {
                        let Ok(name) = entry.file_name().into_string() else {
                            continue;
                        };
                        if name.starts_with('.') {
                            continue;
                        }
                        let path = format!("{dir}/{name}");
                        match fsio::kind(&entry.path()) {
                            Ok(Kind::File(_)) if name.ends_with(".md") => files.push(path),
                            Ok(Kind::Other("a directory")) if depth < MAX_NOTE_SEGMENTS => {
                                pending.push((path, depth + 1));
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        files.sort();
        let mut files: Vec<(&Memory, String)> = files.into_iter().map(|p| (self, p)).collect();
        // Team files travel through git to every clone: the likeliest place
        // for a leaked value to spread, whoever wrote it there.
        if let Some(team) = self.team_store() {
            files.extend(team.shared_files().iter().map(|rel| (team, rel.path())));
        }
        let mut found = Vec::new();
        let mut names = HashSet::new();
        for (store, path) in files {
            scan_name(&path, None, &mut names, &mut found);
            let Ok(Some((text, _))) = fsio::read_head(&store.abs(&path), MAX_SEARCH_FILE_BYTES)
            else {
                continue;
            };
            scan_text(&text, &path, None, &mut found);
        }
        for store in std::iter::once(self).chain(self.team_store()) {
            let mut saved = store.history.saved();
            // Newest first, so a name only history holds names its newest
            // version; contents are then reported by path and version.
            saved.reverse();
            let mut texts = Vec::new();
            for s in saved {
                let version = format!("v{}", s.id);
                for name in std::iter::once(&s.path).chain(&s.other) {
                    scan_name(name, Some(&version), &mut names, &mut found);
                }
                // An append's entry (`prefix`) has no text of its own: its
                // content is a prefix of a later saved version of the same
                // file or of the live file, both scanned here, so its
                // secrets are already found there.
                if let Some(text) = s.text {
                    texts.push((s.path, s.id, text));
                }
            }
            texts.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
            for (path, id, text) in texts {
                scan_text(&text, &path, Some(&format!("v{id}")), &mut found);
            }
        }
        // A report never carries a value whole, a name's neither.
        for f in &mut found {
            f.path = secrets::mask_names(&f.path);
        }
        Ok(found)
    }

    /// Redact every secret in every version saved in history, in place: the
    /// personal store's history, then the team store's when there is one,
    /// each as one change under its write lock. Version ids stay; each
    /// redacted version is marked purged in the journal, and afterwards no
    /// byte of a redacted secret is left under `.store/`. Live files are not
    /// changed (the user edits them); names are not changed either (rename
    /// the file).
    ///
    /// Each store's purge is one change of the store's own files (see
    /// [`Step::Mark`]): every redacted object written, the history journal
    /// replaced and the old objects deleted, journaled together, so a
    /// failure puts them all back and a crash is finished by the next
    /// writer.
    ///
    /// # Errors
    /// `busy` when a lock cannot be taken; `io` when a saved version, an
    /// object or the journal cannot be read or written (that store's history
    /// is then as it was: a personal store already purged stays purged).
    pub fn purge_secrets(&self) -> Result<history::Purged> {
        let mut out = history::Purged::default();
        for store in std::iter::once(self).chain(self.team_store()) {
            let (done, _) = store.change(Operation::Write, |tx| {
                let plan = store
                    .history
                    .purge_plan()
                    .map_err(|e| Error::io("purge the history of", history::HISTORY_DIR, &e))?;
                let Some(plan) = plan else {
                    return Ok(history::Purged::default());
                };
                let top = store.top_dir();
                let mark = |dir: &str, file: String, bytes: Option<Vec<u8>>| Step::Mark {
                    rel: Rel {
                        dir: format!("{top}{dir}"),
                        file,
                    },
                    bytes,
                    if_changed: false,
                };
                for (file, bytes) in plan.objects {
                    tx.push(mark(&plan.objects_dir, file, Some(bytes)));
                }
                tx.push(mark(
                    &plan.journal_dir,
                    plan.journal_file,
                    Some(plan.journal),
                ));
                for file in plan.stale {
                    tx.push(mark(&plan.objects_dir, file, None));
                }
                Ok(plan.purged)
            })?;
            out.add(done);
        }
        Ok(out)
    }

    /// Every `.md` file this project can see, sorted by path.
    ///
    /// # Errors
    /// `io` when a directory exists but cannot be listed.
    pub fn list_files(&self) -> Result<Vec<FileInfo>> {
        self.recover_before_read();
        let mut out = Vec::new();
        let top = self
            .md_files(self.top_dir())?
            .into_iter()
            .filter(|(n, _)| n == "MEMORY.md");
        out.extend(top.map(|(n, bytes)| FileInfo {
            path: format!("{}{n}", self.top_dir()),
            bytes,
            stale: Vec::new(),
        }));
        if self.layout == Layout::Team {
            self.walk_notes(&mut Listings::none(), &mut |dir, handle, names| {
                for name in names {
                    if let Ok(Kind::File(bytes)) = handle.kind(&name) {
                        out.push(FileInfo {
                            path: format!("{dir}/{name}"),
                            bytes,
                            stale: Vec::new(),
                        });
                    }
                }
            })?;
            out.sort_by(|a, b| a.path.cmp(&b.path));
            self.mark_files(&mut out);
            return Ok(out);
        }
        let pd = self.project_dir();
        let pad = self
            .md_files(&pd)?
            .into_iter()
            .filter(|(n, _)| n == "SCRATCHPAD.md");
        out.extend(pad.map(|(n, bytes)| FileInfo {
            path: format!("{pd}/{n}"),
            bytes,
            stale: Vec::new(),
        }));
        let daily = self.daily_dir();
        let files = self.md_files(&daily)?;
        out.extend(files.into_iter().map(|(n, bytes)| FileInfo {
            path: format!("{daily}/{n}"),
            bytes,
            stale: Vec::new(),
        }));
        self.walk_notes(&mut Listings::none(), &mut |dir, handle, names| {
            for name in names {
                // Not followed: a symlink, FIFO or hard-linked file is not
                // listed.
                if let Ok(Kind::File(bytes)) = handle.kind(&name) {
                    out.push(FileInfo {
                        path: format!("{dir}/{name}"),
                        bytes,
                        stale: Vec::new(),
                    });
                }
            }
        })?;
        out.sort_by(|a, b| a.path.cmp(&b.path));
        self.mark_files(&mut out);
        Ok(out)
    }

    /// Fill in the staleness marks of listed files (see [`crate::anchors`]).
    fn mark_files(&self, files: &mut [FileInfo]) {
        if self.project_root.is_some() {
            let mut marks = self.check_anchors(&|_| true);
            for file in files {
                file.stale = marks.remove(&file.path).unwrap_or_default();
            }
        }
    }

    /// Append `### HH:MM — heading` and the trimmed body to today's log.
    ///
    /// # Errors
    /// `invalid-arguments` for an empty or multi-line heading; then as
    /// [`Memory::write`].
    pub fn append_daily(&self, heading: &str, body: &str) -> Result<WriteReceipt> {
        let heading = heading.trim();
        if heading.is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidArguments,
                "daily entry heading is empty",
            ));
        }
        if let Some(c) = heading
            .chars()
            .find(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
        {
            return Err(Error::new(
                ErrorKind::InvalidArguments,
                format!(
                    "daily entry heading {heading:?} contains line break or control character U+{:04X}",
                    c as u32
                ),
            ));
        }
        // The team store has no daily logs: never write the personal
        // layout into it.
        self.team_target(ReadSource::Daily)?;
        let now = self.clock.now();
        let rel = self.daily_rel(now.date);
        let body = body.trim();
        let entry = if body.is_empty() {
            format!("### {} — {heading}\n", now.hh_mm())
        } else {
            format!("### {} — {heading}\n{body}\n", now.hh_mm())
        };
        // A blank line between entries; none before the first.
        self.write_rel(rel, &entry, WriteMode::Append, |tx, rel| {
            Ok(match tx.kind(rel)? {
                Kind::File(len) if len > 0 => "\n".to_string(),
                _ => String::new(),
            })
        })
    }

    /// Save a compaction summary to today's log.
    ///
    /// # Errors
    /// As [`Memory::append_daily`].
    pub fn flush_compaction(&self, summary: &str, count: Option<u32>) -> Result<WriteReceipt> {
        self.append_daily(&crate::prompt::compaction_heading(count), summary)
    }

    /// Keyword search over MEMORY.md, the project's notes and daily logs.
    ///
    /// # Errors
    /// `io` when a directory exists but cannot be listed.
    pub fn search(&self, query: &str) -> Result<SearchResults> {
        let query = parse_query(query)?;
        if query.is_empty() {
            return Ok(SearchResults::default());
        }
        let mut searcher = Searcher::new(query);
        // Remembered listings are used, never written: literal search
        // leaves the store as it found it.
        let mut listings = Listings::load(&self.abs(&self.listings_rel()), now_ns());
        self.each_search_file(Coverage::Literal, &mut listings, &mut |meta, text| {
            searcher.add_file(meta, text)
        })?;
        Ok(self.mark_hits(searcher.finish()))
    }

    /// Staleness marks at the head of each hit's body, right under its
    /// path line.
    fn mark_hits(&self, mut results: SearchResults) -> SearchResults {
        let mut marks = self.stale_marks(results.hits.iter().map(|h| h.path.as_str()));
        for hit in &mut results.hits {
            mark_hit(&mut marks, hit);
        }
        results
    }

    /// The staleness marks of the files at `paths` (store-relative; team
    /// hits, `team:` paths, are anchored in the team store), by path.
    fn stale_marks<'a>(
        &self,
        paths: impl Iterator<Item = &'a str>,
    ) -> std::collections::BTreeMap<String, Vec<crate::anchors::Stale>> {
        let paths: std::collections::HashSet<&str> = paths.collect();
        if self.project_root.is_none() || paths.is_empty() {
            return std::collections::BTreeMap::new();
        }
        let mut marks = self.check_anchors(&|k| paths.contains(k));
        if let Some(team) = self.team_store() {
            marks.extend(team.check_anchors(&|k| paths.contains(k)));
        }
        marks
    }

    /// Search in the given mode: [`SearchMode::Literal`] is
    /// [`Memory::search`]; [`SearchMode::Ranked`] ranks the same files with
    /// a [`Ranker`], time words resolved against today, taking unchanged
    /// files' statistics from the index under `.store/index/` (rebuilt
    /// when missing or unsound) and reading the best files again for their
    /// windows.
    ///
    /// # Errors
    /// `invalid-arguments` for more than [`MAX_QUERY_TERMS`] distinct terms;
    /// `io` when the root cannot be listed.
    pub fn search_with(&self, query: &str, mode: SearchMode) -> Result<SearchResults> {
        self.recover_before_read();
        if mode == SearchMode::Literal {
            return self.search(query);
        }
        // The ranker sees each distinct word once, in query order: a query
        // of millions of repeats must cost what its few words cost.
        let distinct = query_text(query)?;
        let (results, evidence) = self.search_ranked_evidence(&distinct)?;
        let (results, _) = self.semantic_fuse(&distinct, results, &evidence);
        Ok(self.mark_hits(results))
    }

    /// [`Memory::search_with`], rendered at most `max_bytes` long, as
    /// [`SearchResults::render`] would render it. A ranked search re-reads
    /// only the files its shown hits need (see [`crate::rank::Ordered`]),
    /// where the full results re-read the best 100. The one difference: a
    /// file that vanishes between the two phases still counts in the
    /// summary's number of files.
    ///
    /// # Errors
    /// As [`Memory::search_with`].
    pub fn search_rendered(
        &self,
        query: &str,
        mode: SearchMode,
        max_bytes: usize,
    ) -> Result<String> {
        if mode == SearchMode::Literal {
            return Ok(self.search(query)?.render(max_bytes));
        }
        let distinct = query_text(query)?;
        if self.semantic.embedder.is_some() || crate::semantic::fuse::asks_recency(&distinct) {
            // Fusion may reorder any hit: the whole list is settled first.
            let (results, evidence) = self.search_ranked_evidence(&distinct)?;
            let (results, note) = self.semantic_fuse(&distinct, results, &evidence);
            let rendered = self.mark_hits(results).render(max_bytes);
            return Ok(semantic::with_note(rendered, note));
        }
        let mut ordered = self.search_ranked_order(&distinct)?;
        let total = ordered.total();
        // Staleness marks, for every file that may be shown.
        let mut marks = self.stale_marks(ordered.paths());
        let terms = ordered.terms.clone();
        let mut reader = indexed::HitReader::default();
        let mut next = || {
            let mut hit = ordered.next_hit(&mut |m| reader.read(self, m))?;
            mark_hit(&mut marks, &mut hit);
            Some(hit)
        };
        // Semantic recall off for a reason: say so where a word is in no
        // file, which is where meaning would have decided.
        let note = self
            .semantic
            .off
            .as_ref()
            .filter(|_| terms.iter().any(|(_, count)| *count == 0))
            .map(|_| crate::semantic::OFF_NOTE.to_owned());
        let rendered = crate::search::render_hits(&terms, total, &mut next, max_bytes);
        Ok(semantic::with_note(rendered, note))
    }

    /// Ranked search that neither reads nor writes the index: every file
    /// is read and tokenized. What the indexed search must always equal.
    ///
    /// # Errors
    /// As [`Memory::search_with`].
    pub fn search_unindexed(&self, query: &str) -> Result<SearchResults> {
        let distinct = query_text(query)?;
        self.ranked_unindexed(&distinct).map(|r| self.mark_hits(r))
    }

    /// [`Memory::search_unindexed`] of distinct terms, without staleness
    /// marks.
    pub(crate) fn ranked_unindexed(&self, distinct: &str) -> Result<SearchResults> {
        Ok(self.drain(self.ranked_unindexed_order(distinct)?))
    }

    /// [`Memory::ranked_unindexed`] up to phase one: the indexed search's
    /// fallback.
    pub(crate) fn ranked_unindexed_order(&self, distinct: &str) -> Result<crate::rank::Ordered> {
        let mut ranker = Ranker::new(distinct, self.today());
        let mut listings = Listings::none();
        self.each_search_file(Coverage::Ranked, &mut listings, &mut |meta, text| {
            ranker.add_file(meta, text)
        })?;
        Ok(ranker.order())
    }

    /// Call `add` with every file search covers: `MEMORY.md`, the project's
    /// notes (nested ones by their whole topic, `a/b/c`), its scratchpad
    /// (ranked search only: see [`Coverage`]) and its daily logs, each up to
    /// [`MAX_SEARCH_FILE_BYTES`]. Each directory is opened once
    /// and its files read by name, one at a time: only one file's text is
    /// ever held. An unreadable file is skipped: one bad file must not fail
    /// search. Folders are listed afresh, or taken from `listings` while
    /// unchanged (see [`crate::listing`]).
    fn each_search_file(
        &self,
        coverage: Coverage,
        listings: &mut Listings,
        add: &mut dyn FnMut(FileMeta, &str),
    ) -> Result<()> {
        self.each_search_dir(coverage, listings, &mut |dir, handle, names| {
            let at = self.search_dir(dir);
            for name in names {
                let Ok(Some((text, _))) = handle.read_head(&name, MAX_SEARCH_FILE_BYTES) else {
                    continue;
                };
                add(at.file(name), &text);
            }
        })
    }

    /// [`Memory::each_search_dir`] of ranked search: the index and the
    /// vectors cover what it reads.
    pub(crate) fn each_ranked_dir(
        &self,
        listings: &mut Listings,
        visit: &mut dyn FnMut(&str, &fsio::Dir, Vec<String>),
    ) -> Result<()> {
        self.each_search_dir(Coverage::Ranked, listings, visit)
    }

    /// Call `visit` with every directory search covers, opened, and the
    /// names of the files in it that search reads (the root gives only
    /// `MEMORY.md`, the project's folder only `SCRATCHPAD.md`), in the order
    /// search reads them.
    fn each_search_dir(
        &self,
        coverage: Coverage,
        listings: &mut Listings,
        visit: &mut dyn FnMut(&str, &fsio::Dir, Vec<String>),
    ) -> Result<()> {
        if let Some((handle, listed)) = self.list_dir(self.top_dir(), listings)? {
            let names = listed.md.into_iter().filter(|n| n == "MEMORY.md").collect();
            visit(self.top_dir(), &handle, names);
        }
        self.walk_notes(listings, visit)?;
        if self.layout == Layout::Team {
            return Ok(());
        }
        if coverage == Coverage::Ranked {
            let pad = self.scratchpad_rel();
            if let Some((handle, listed)) = self.list_dir(&pad.dir, listings)? {
                let names = listed.md.into_iter().filter(|n| *n == pad.file).collect();
                visit(&pad.dir, &handle, names);
            }
        }
        let daily = self.daily_dir();
        if let Some((handle, listed)) = self.list_dir(&daily, listings)? {
            visit(&daily, &handle, listed.md);
        }
        if let Some(team) = &self.team {
            // A team directory that cannot be read leaves the personal
            // results whole: one bad file or folder never fails search.
            let _ = team.each_search_dir(coverage, listings, visit);
        }
        Ok(())
    }

    /// What search knows of the files in the store-relative `dir`, worked
    /// out once per folder: see [`SearchDir::file`].
    pub(crate) fn search_dir(&self, dir: &str) -> SearchDir {
        let notes = self.notes_dir();
        let team_notes = format!("{}notes", team::TEAM_PREFIX);
        let topic = dir
            .strip_prefix(notes.as_str())
            .or_else(|| dir.strip_prefix(team_notes.as_str()))
            .and_then(|sub| sub.strip_prefix('/'))
            .map(|sub| format!("{sub}/"));
        SearchDir {
            prefix: path_prefix(dir),
            topic: topic.unwrap_or_default(),
            daily: dir == self.daily_dir() && self.layout == Layout::Personal,
        }
    }

    /// Call `visit` with every notes folder (store-relative), opened, and
    /// the names of its `.md` files: `notes/` and the topic folders beneath
    /// it whose names are valid name segments, down to the depth a note
    /// name can reach ([`MAX_NOTE_SEGMENTS`]), never through a symbolic
    /// link. Only the folders on the current path are open at a time. A
    /// folder that cannot be listed is skipped.
    fn walk_notes(
        &self,
        listings: &mut Listings,
        visit: &mut dyn FnMut(&str, &fsio::Dir, Vec<String>),
    ) -> Result<()> {
        let notes = self.notes_dir();
        // As in `list_dir`: an unlistable notes folder is skipped. One
        // listing gives a folder's notes and its topic folders.
        let Ok(Some((handle, listed))) = self.list_dir(&notes, listings) else {
            return Ok(());
        };
        visit(&notes, &handle, listed.md);
        Self::walk_subdirs(&notes, &handle, listed.dirs, 1, listings, visit);
        Ok(())
    }

    fn walk_subdirs(
        dir: &str,
        handle: &fsio::Dir,
        subdirs: Vec<String>,
        depth: usize,
        listings: &mut Listings,
        visit: &mut dyn FnMut(&str, &fsio::Dir, Vec<String>),
    ) {
        if depth >= MAX_NOTE_SEGMENTS {
            return;
        }
        for name in subdirs {
            if check_segment(&name).is_err() {
                continue;
            }
            let Ok(Some(sub)) = handle.open_subdir(&name) else {
                continue;
            };
            let path = format!("{dir}/{name}");
            let Ok(listed) = listings.list(&path, || sub.sig().ok(), || Listed::of(&sub)) else {
                continue;
            };
            visit(&path, &sub, listed.md);
            Self::walk_subdirs(&path, &sub, listed.dirs, depth + 1, listings, visit);
        }
    }

    /// The store-relative `dir`, opened, and its listing (see
    /// [`fsio::Dir::md_and_subdir_names`]), remembered or taken now;
    /// `None` for a missing directory.
    fn list_dir(&self, dir: &str, listings: &mut Listings) -> Result<Option<(fsio::Dir, Listed)>> {
        let shown = if dir.is_empty() { "." } else { dir };
        let listed = fsio::Dir::open(&self.abs(dir)).and_then(|opened| {
            opened
                .map(|h| {
                    listings
                        .list(dir, || h.sig().ok(), || Listed::of(&h))
                        .map(|l| (h, l))
                })
                .transpose()
        });
        match listed {
            Ok(found) => Ok(found),
            // A directory under the root that cannot be listed (no
            // permission) is skipped like an unreadable file; only an
            // unreadable root fails the operation.
            Err(_) if !dir.is_empty() => Ok(None),
            Err(e) => Err(Error::io("list", shown, &e)),
        }
    }

    /// The store-relative `dir`, opened, and the names of the `.md` files it
    /// lists (see [`fsio::Dir::md_and_subdir_names`]); `None` for a missing
    /// directory.
    fn md_names(&self, dir: &str) -> Result<Option<(fsio::Dir, Vec<String>)>> {
        Ok(self
            .list_dir(dir, &mut Listings::none())?
            .map(|(h, listed)| (h, listed.md)))
    }

    /// The context block, or `None` when there is nothing to show.
    ///
    /// # Errors
    /// None in practice: unreadable files are skipped.
    pub fn context_block(&self) -> Result<Option<String>> {
        if self.layout == Layout::Team {
            return Ok(None);
        }
        self.recover_before_read();
        // Before anything is read: a project with no personal memory may
        // start from the team snapshot here.
        let notices = self.snapshot_on_open();
        Ok(self.build_context(self.gather().sources, notices))
    }

    /// What the context block is made of, read from disk now.
    pub(crate) fn gather(&self) -> Gathered {
        let max = self.limits.max_inject_bytes;
        let today = self.today();
        let head = |rel: &Rel, limit: u64| {
            fsio::read_head(&self.abs(&rel.path()), limit)
                .ok()
                .flatten()
        };
        // A log's tail, and the file offset it starts at.
        let tail = |rel: &Rel| {
            fsio::read_tail(&self.abs(&rel.path()), max as u64)
                .ok()
                .flatten()
                .map(|(t, total)| (total.saturating_sub(t.len() as u64), t))
        };
        let long_term = head(&self.long_term_rel(), INDEX_MAX_BYTES as u64 + 8);
        let scratchpad = head(&self.scratchpad_rel(), MAX_SCRATCHPAD_SCAN_BYTES).map(|(t, _)| t);
        let today_log = tail(&self.daily_rel(today)).map(|(at, t)| (at, (today.to_string(), t)));
        // The most recent earlier log with content: yesterday, or across a
        // gap. The last week is looked up by name first; only a longer gap
        // (or a week of blank logs) lists the directory, which costs a call
        // per log in the sandbox.
        let recent = (1..=EARLIER_LOGS_LOOKED_UP).find_map(|back| {
            let date = Date::from_days(today.to_days() - back);
            let rel = self.daily_rel(date);
            match fsio::kind(&self.abs(&rel.path())) {
                Ok(Kind::File(_)) => tail(&rel)
                    .filter(|(_, t)| !t.trim().is_empty())
                    .map(|(at, t)| (at, (date.to_string(), t))),
                _ => None,
            }
        });
        let earlier = recent.or_else(|| {
            // Logs are listed by name only; each one tried is checked to be
            // a regular file first, as a listing that stats every log would.
            let listed = self.md_names(&self.daily_dir()).ok().flatten();
            let mut dates: Vec<Date> = listed
                .iter()
                .flat_map(|(_, names)| names)
                .filter_map(|n| daily_date(&n[..n.len() - 3]).ok())
                .filter(|d| *d < today)
                .collect();
            dates.sort_unstable_by(|a, b| b.cmp(a));
            let is_file = |d: &Date| {
                listed.as_ref().is_some_and(|(dir, _)| {
                    matches!(dir.kind(&format!("{d}.md")), Ok(Kind::File(_)))
                })
            };
            dates
                .into_iter()
                .filter(is_file)
                .take(MAX_EARLIER_LOGS_TRIED)
                .filter_map(|d| tail(&self.daily_rel(d)).map(|(at, t)| (at, (d.to_string(), t))))
                .find(|(_, (_, t))| !t.trim().is_empty())
        });
        let (earlier_at, earlier) = earlier.unzip();
        let (today_at, today_log) = today_log.unzip();
        Gathered {
            sources: Sources {
                long_term,
                scratchpad,
                earlier,
                today: today_log,
                ..Sources::default()
            },
            earlier_at: earlier_at.unwrap_or(0),
            today_at: today_at.unwrap_or(0),
        }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// Report the secrets in `text`, the content of `path` (at `version`).
fn scan_text(text: &str, path: &str, version: Option<&str>, found: &mut Vec<StoredSecret>) {
    for f in secrets::scan(text) {
        found.push(StoredSecret {
            path: path.to_string(),
            line: f.line,
            rule_id: f.rule_id.to_string(),
            masked: secrets::masked_prefix(&text[f.range.clone()]),
            version: version.map(str::to_string),
        });
    }
}

/// Report the secrets in the names along `path` (line 0): each segment
/// once, as the path up to it, `seen` holding those already read.
fn scan_name(
    path: &str,
    version: Option<&str>,
    seen: &mut HashSet<String>,
    found: &mut Vec<StoredSecret>,
) {
    let mut end = 0;
    for segment in path.split('/') {
        end += segment.len();
        let upto = &path[..end];
        end += 1;
        if !seen.insert(upto.to_string()) {
            continue;
        }
        for f in secrets::scan(segment) {
            found.push(StoredSecret {
                path: upto.to_string(),
                line: 0,
                rule_id: f.rule_id.to_string(),
                masked: secrets::masked_prefix(&segment[f.range.clone()]),
                version: version.map(str::to_string),
            });
        }
    }
}

/// Why the store's write lock could not be taken, for a person and a model
/// alike: a root that refuses new files is named as such, since every
/// change starts by creating the lock file there.
fn lock_error(e: &std::io::Error) -> Error {
    let root = match e.kind() {
        std::io::ErrorKind::PermissionDenied => {
            Some("permission denied: the memory root is not writable")
        }
        std::io::ErrorKind::ReadOnlyFilesystem => {
            Some("read-only file system: the memory root is not writable")
        }
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => {
            Some("the memory root is gone or is not a directory")
        }
        _ => None,
    };
    match root {
        Some(why) => Error::new(
            ErrorKind::Io,
            format!(
                "failed to take the write lock `{}`: {why}; nothing was changed",
                fsio::LOCK_FILE
            ),
        ),
        None => Error::io("take the write lock", fsio::LOCK_FILE, e),
    }
}
