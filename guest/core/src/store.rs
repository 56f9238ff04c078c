//! The store: paths under the memory root, and the operations on them.

use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::context::{self, INDEX_MAX_BYTES, Sources};
use crate::error::{Error, ErrorKind, Result};
use crate::fsio::{self, Kind, LockGuard, LockPolicy};
use crate::history::{self, History, Operation, Retention};
use crate::names::{daily_date, note_stem, project_slug};
use crate::search::{FileMeta, Query, SearchResults, Searcher};
use crate::text::{cut_with_marker, prefix_at_char_boundary};
use crate::time::{Clock, Date};

/// Default hard cap on the context block, wrapper included.
pub const MAX_INJECT_BYTES: usize = 32 * 1024;
/// Default per-write content cap.
pub const MAX_WRITE_BYTES: usize = 64 * 1024;
/// Default cap on text returned by `read` and on rendered search.
pub const MAX_READ_BYTES: usize = 32 * 1024;
/// Smallest accepted inject or read cap: room for every heading and marker.
pub const MIN_OUTPUT_CAP: usize = 512;
/// Bytes of one file that search looks at; the rest of a larger file is not
/// searched.
pub const MAX_SEARCH_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Bytes of a scratchpad scanned for open items.
const MAX_SCRATCHPAD_SCAN_BYTES: u64 = 1024 * 1024;
/// How many blank earlier logs the context block skips looking for one with
/// content.
const MAX_EARLIER_LOGS_TRIED: usize = 31;
/// Days before today whose logs the context block looks up by name before
/// listing the daily directory. Less than [`MAX_EARLIER_LOGS_TRIED`], so the
/// shortcut finds exactly the log the listing would.
const EARLIER_LOGS_LOOKED_UP: i64 = 7;

/// Size limits; see the `Default` impl for the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Hard cap on the context block, wrapper included.
    pub max_inject_bytes: usize,
    /// Per-write content cap.
    pub max_write_bytes: usize,
    /// Cap on read output and the default search render.
    pub max_read_bytes: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            max_inject_bytes: MAX_INJECT_BYTES,
            max_write_bytes: MAX_WRITE_BYTES,
            max_read_bytes: MAX_READ_BYTES,
        }
    }
}

impl Caps {
    fn validate(&self) -> Result<()> {
        let bad = |what: &str, v: usize, min: usize| {
            Err(Error::new(
                ErrorKind::InvalidOptions,
                format!("{what} is {v}; it must be at least {min}"),
            ))
        };
        if self.max_inject_bytes < MIN_OUTPUT_CAP {
            return bad("max-inject-bytes", self.max_inject_bytes, MIN_OUTPUT_CAP);
        }
        if self.max_read_bytes < MIN_OUTPUT_CAP {
            return bad("max-read-bytes", self.max_read_bytes, MIN_OUTPUT_CAP);
        }
        if self.max_write_bytes == 0 {
            return bad("max-write-bytes", 0, 1);
        }
        Ok(())
    }
}

/// What the store needs from the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The project's path on the host; only hashed into the slug.
    pub project: String,
    /// Local time.
    pub clock: Clock,
    /// Size limits.
    pub caps: Caps,
    /// Who is writing (an agent, a session), recorded with every change in
    /// history: at most 128 bytes, no line break or control character.
    /// Empty means no label.
    pub source: String,
    /// How much history is kept.
    pub retention: Retention,
}

impl Options {
    /// Options for `project` with the UTC system clock and default caps.
    pub fn new(project: impl Into<String>) -> Options {
        Options {
            project: project.into(),
            clock: Clock::UTC,
            caps: Caps::default(),
            source: String::new(),
            retention: Retention::default(),
        }
    }
}

/// Which file a write goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteTarget {
    /// Global `MEMORY.md`.
    LongTerm,
    /// The project's `SCRATCHPAD.md`.
    Scratchpad,
    /// Today's log.
    Daily,
    /// A named note.
    Note,
}

impl FromStr for WriteTarget {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "long_term" => Ok(WriteTarget::LongTerm),
            "scratchpad" => Ok(WriteTarget::Scratchpad),
            "daily" => Ok(WriteTarget::Daily),
            "note" => Ok(WriteTarget::Note),
            _ => Err(Error::new(
                ErrorKind::InvalidTarget,
                format!("unknown target {s:?}: expected long_term, scratchpad, daily or note"),
            )),
        }
    }
}

/// How a write combines with what is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// Add to the end.
    #[default]
    Append,
    /// Replace the file.
    Overwrite,
}

impl FromStr for WriteMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "append" => Ok(WriteMode::Append),
            "overwrite" => Ok(WriteMode::Overwrite),
            _ => Err(Error::new(
                ErrorKind::InvalidMode,
                format!("unknown mode {s:?}: expected append or overwrite"),
            )),
        }
    }
}

/// Which file a read comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadSource {
    /// Global `MEMORY.md`.
    LongTerm,
    /// The project's `SCRATCHPAD.md`.
    Scratchpad,
    /// A daily log, today by default.
    Daily,
    /// A named note.
    Note,
}

impl From<WriteTarget> for ReadSource {
    fn from(t: WriteTarget) -> Self {
        match t {
            WriteTarget::LongTerm => ReadSource::LongTerm,
            WriteTarget::Scratchpad => ReadSource::Scratchpad,
            WriteTarget::Daily => ReadSource::Daily,
            WriteTarget::Note => ReadSource::Note,
        }
    }
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
    /// One line for the model.
    pub message: String,
}

/// A memory file in a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    /// Store-relative path.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
}

/// A store-relative file: its directory and file name.
pub(crate) struct Rel {
    dir: String,
    file: String,
}

impl Rel {
    pub(crate) fn path(&self) -> String {
        if self.dir.is_empty() {
            self.file.clone()
        } else {
            format!("{}/{}", self.dir, self.file)
        }
    }
}

/// The memory store for one project under one root.
#[derive(Debug, Clone)]
pub struct Memory {
    root: PathBuf,
    slug: String,
    clock: Clock,
    caps: Caps,
    lock: LockPolicy,
    history: History,
}

impl Memory {
    /// Open the store at `root` (which should exist) for `options.project`.
    /// Creates nothing on disk.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidOptions`] for an empty project path or one with
    /// NUL, an offset out of range, or a cap below its minimum.
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
        options.clock.validate()?;
        options.caps.validate()?;
        options.retention.validate()?;
        history::validate_source(&options.source)?;
        let root = root.into();
        Ok(Memory {
            history: History::new(&root, options.retention, options.source),
            root,
            slug: project_slug(&options.project),
            clock: options.clock,
            caps: options.caps,
            lock: LockPolicy::default(),
        })
    }

    /// Change how long the write lock waits and when it counts as abandoned.
    pub fn set_lock_policy(&mut self, lease: std::time::Duration, wait: std::time::Duration) {
        self.lock = LockPolicy { lease, wait };
    }

    /// Take the store's write lock; every mutation holds it, so writers in
    /// other processes never interleave.
    pub(crate) fn lock(&self) -> Result<LockGuard> {
        let guard = fsio::lock(&self.root, self.lock).map_err(|e| match e {
            fsio::LockError::Busy => Error::new(
                ErrorKind::Busy,
                format!(
                    "the memory store is busy: another writer held `{}` for over {} s",
                    fsio::LOCK_FILE,
                    self.lock.wait.as_secs()
                ),
            ),
            fsio::LockError::Io(e) => Error::io("take the write lock", fsio::LOCK_FILE, &e),
        })?;
        // Broken locks moved aside by a writer that then crashed.
        fsio::remove_leftovers(&self.root);
        Ok(guard)
    }

    /// Replace the clock.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidOptions`] for an offset out of range.
    pub fn set_clock(&mut self, clock: Clock) -> Result<()> {
        clock.validate()?;
        self.clock = clock;
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

    /// The caps in force.
    pub fn caps(&self) -> Caps {
        self.caps
    }

    fn abs(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub(crate) fn clock(&self) -> Clock {
        self.clock
    }

    pub(crate) fn history_store(&self) -> &History {
        &self.history
    }

    fn long_term_rel(&self) -> Rel {
        Rel {
            dir: String::new(),
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

    fn notes_dir(&self) -> String {
        format!("{}/notes", self.project_dir())
    }

    fn daily_rel(&self, date: Date) -> Rel {
        Rel {
            dir: self.daily_dir(),
            file: format!("{date}.md"),
        }
    }

    fn note_rel(&self, name: Option<&str>) -> Result<Rel> {
        let name = name.ok_or_else(|| {
            Error::new(
                ErrorKind::MissingName,
                "target note needs a name (the note's file stem)",
            )
        })?;
        let stem = note_stem(name)?;
        Ok(Rel {
            dir: self.notes_dir(),
            file: format!("{stem}.md"),
        })
    }

    fn target_rel(&self, target: WriteTarget, name: Option<&str>) -> Result<Rel> {
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
    /// `missing-name`, `invalid-name`, `not-a-file`, `io`.
    pub fn write(
        &self,
        target: WriteTarget,
        content: &str,
        mode: WriteMode,
        name: Option<&str>,
    ) -> Result<WriteReceipt> {
        let rel = self.target_rel(target, name)?;
        let _lock = self.lock()?;
        self.write_locked(rel, content, mode)
    }

    fn write_locked(&self, rel: Rel, content: &str, mode: WriteMode) -> Result<WriteReceipt> {
        let cap = self.caps.max_write_bytes;
        let kept = prefix_at_char_boundary(content, cap);
        let truncated_from = (kept.len() < content.len()).then_some(content.len() as u64);
        let path = rel.path();
        let dir = self.abs(&rel.dir);
        fs::create_dir_all(&dir).map_err(|e| Error::io("create directory", &rel.dir, &e))?;
        let kind = self.file_kind(&path)?;
        // We hold the lock, so no other writer's temp file is in flight here.
        fsio::remove_leftovers(&dir);
        // History records the previous content first, for every target; a
        // failure to record becomes a warning, never a failed write.
        let (mut message, warning) = match mode {
            WriteMode::Append => {
                let len = match kind {
                    Kind::File(len) => Some(len),
                    _ => None,
                };
                let warning = if kept.is_empty() {
                    None
                } else {
                    self.append_locked(&rel, len, kept)?
                };
                (format!("Appended {} bytes to {path}", kept.len()), warning)
            }
            WriteMode::Overwrite => {
                let warning = self.record_previous(
                    &path,
                    kind,
                    Operation::Write,
                    None,
                    Some(kept.as_bytes()),
                );
                fsio::replace(&dir, &rel.file, kept.as_bytes())
                    .map_err(|e| Error::io("replace", &path, &e))?;
                (
                    format!("Overwrote {path} with {} bytes", kept.len()),
                    warning,
                )
            }
        };
        if let Some(original) = truncated_from {
            message.push_str(&format!(
                " (content truncated from {original} bytes to the {cap}-byte cap; write the rest in another call)"
            ));
        }
        history::push_warning(&mut message, warning);
        Ok(WriteReceipt {
            path,
            bytes_written: kept.len() as u64,
            truncated_from,
            message,
        })
    }

    /// Append `kept` to the regular file `rel` of `len` bytes (`None`:
    /// missing), with a `\n` first when the file does not end with one,
    /// after recording the previous content in history (whose warning, if
    /// any, is returned). A file of up to [`fsio::MAX_REPLACE_APPEND_BYTES`]
    /// is rewritten whole through [`fsio::replace`], so a crash mid-append
    /// leaves it as before or as after and readers never see half an entry;
    /// a larger one is appended to in place.
    fn append_locked(&self, rel: &Rel, len: Option<u64>, kept: &str) -> Result<Option<String>> {
        let path = rel.path();
        let file = self.abs(&path);
        if let Some(len) = len.filter(|&l| l > fsio::MAX_REPLACE_APPEND_BYTES) {
            let warning = self.record_append(&path, Some(len), None);
            let newline =
                !fsio::ends_with_newline(&file, len).map_err(|e| Error::io("read", &path, &e))?;
            let mut bytes = Vec::with_capacity(kept.len() + 1);
            if newline {
                bytes.push(b'\n');
            }
            bytes.extend_from_slice(kept.as_bytes());
            fsio::append(&file, &bytes).map_err(|e| Error::io("append to", &path, &e))?;
            return Ok(warning);
        }
        let mut bytes = match len {
            None | Some(0) => Vec::with_capacity(kept.len()),
            Some(_) => fs::read(&file).map_err(|e| Error::io("read", &path, &e))?,
        };
        let warning = self.record_append(
            &path,
            len.map(|_| bytes.len() as u64),
            len.map(|_| bytes.as_slice()),
        );
        if bytes.last().is_some_and(|&b| b != b'\n') {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(kept.as_bytes());
        fsio::replace(&self.abs(&rel.dir), &rel.file, &bytes)
            .map_err(|e| Error::io("append to", &path, &e))?;
        Ok(warning)
    }

    /// Read a file whole, capped. `Ok(None)` when it does not exist.
    ///
    /// # Errors
    /// `missing-name`, `invalid-name`, `invalid-date`, `not-a-file`, `io`.
    pub fn read(&self, source: ReadSource, name: Option<&str>) -> Result<Option<String>> {
        let path = self.source_rel(source, name)?.path();
        if self.file_kind(&path)? == Kind::Missing {
            return Ok(None);
        }
        let cap = self.caps.max_read_bytes;
        let Some((text, total)) = fsio::read_head(&self.abs(&path), cap as u64 + 1)
            .map_err(|e| Error::io("read", &path, &e))?
        else {
            return Ok(None);
        };
        if text.len() <= cap && total as usize <= cap {
            return Ok(Some(text));
        }
        let marker = format!(
            "\n…[truncated: showing the first part of {total} bytes; use memory_search to find the rest]"
        );
        // The file is larger than the cap: say so even when the part read
        // lost a cut character at its end and would fit on its own.
        Ok(Some(cut_with_marker(&text, cap, &marker)))
    }

    /// The file a read (or a history listing) of `source` and `name` names.
    pub(crate) fn source_rel(&self, source: ReadSource, name: Option<&str>) -> Result<Rel> {
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
    /// (file name, size), sorted. A missing directory is empty.
    fn md_files(&self, dir: &str) -> Result<Vec<(String, u64)>> {
        let entries = match fs::read_dir(self.abs(dir)) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => return Ok(Vec::new()),
            // A project directory that cannot be listed (a symlink leading
            // out of the store, no permission) is skipped like an unreadable
            // file; only an unreadable root fails the operation.
            Err(_) if !dir.is_empty() => return Ok(Vec::new()),
            Err(e) => {
                return Err(Error::io(
                    "list",
                    if dir.is_empty() { "." } else { dir },
                    &e,
                ));
            }
        };
        let mut files = Vec::new();
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if !name.ends_with(".md") || name.starts_with('.') {
                continue;
            }
            // Not followed: a symlink, FIFO or hard-linked file is not listed.
            if let Ok(Kind::File(len)) = fsio::kind(&entry.path()) {
                files.push((name, len));
            }
        }
        files.sort();
        Ok(files)
    }

    /// Every `.md` file this project can see, sorted by path.
    ///
    /// # Errors
    /// `io` when a directory exists but cannot be listed.
    pub fn list_files(&self) -> Result<Vec<FileInfo>> {
        let mut out = Vec::new();
        let top = self
            .md_files("")?
            .into_iter()
            .filter(|(n, _)| n == "MEMORY.md");
        out.extend(top.map(|(n, bytes)| FileInfo { path: n, bytes }));
        let pd = self.project_dir();
        let pad = self
            .md_files(&pd)?
            .into_iter()
            .filter(|(n, _)| n == "SCRATCHPAD.md");
        out.extend(pad.map(|(n, bytes)| FileInfo {
            path: format!("{pd}/{n}"),
            bytes,
        }));
        for dir in [self.daily_dir(), self.notes_dir()] {
            let files = self.md_files(&dir)?;
            out.extend(files.into_iter().map(|(n, bytes)| FileInfo {
                path: format!("{dir}/{n}"),
                bytes,
            }));
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
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
        let now = self.clock.now();
        let rel = self.daily_rel(now.date);
        let _lock = self.lock()?;
        // A blank line between entries; none before the first.
        let lead = match fsio::kind(&self.abs(&rel.path())) {
            Ok(Kind::File(len)) if len > 0 => "\n",
            _ => "",
        };
        let body = body.trim();
        let entry = if body.is_empty() {
            format!("{lead}### {} — {heading}\n", now.hh_mm())
        } else {
            format!("{lead}### {} — {heading}\n{body}\n", now.hh_mm())
        };
        self.write_locked(rel, &entry, WriteMode::Append)
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
        let query = Query::parse(query);
        if query.is_empty() {
            return Ok(SearchResults::default());
        }
        let mut searcher = Searcher::new(query);
        // Each directory is opened once and its files read by name, one at a
        // time: only one file's text is ever held.
        for dir in [String::new(), self.notes_dir(), self.daily_dir()] {
            let Some((handle, names)) = self.md_names(&dir)? else {
                continue;
            };
            for name in names {
                if dir.is_empty() && name != "MEMORY.md" {
                    continue;
                }
                // An unreadable file is skipped: one bad file must not fail
                // search.
                let Ok(Some((text, _))) = handle.read_head(&name, MAX_SEARCH_FILE_BYTES) else {
                    continue;
                };
                let stem = name.trim_end_matches(".md").to_string();
                let date = if dir == self.daily_dir() {
                    daily_date(&stem).ok().map(|d| d.to_string())
                } else {
                    None
                };
                let rel = Rel {
                    dir: dir.clone(),
                    file: name,
                };
                let path = rel.path();
                let is_memory_md = path == "MEMORY.md";
                searcher.add_file(
                    FileMeta {
                        path,
                        stem,
                        date,
                        is_memory_md,
                    },
                    &text,
                );
            }
        }
        Ok(searcher.finish())
    }

    /// The store-relative `dir`, opened, and the names of the `.md` files it
    /// lists (see [`fsio::Dir::md_names`]); `None` for a missing directory.
    fn md_names(&self, dir: &str) -> Result<Option<(fsio::Dir, Vec<String>)>> {
        let shown = if dir.is_empty() { "." } else { dir };
        let listed = fsio::Dir::open(&self.abs(dir))
            .and_then(|opened| opened.map(|h| h.md_names().map(|n| (h, n))).transpose());
        match listed {
            Ok(found) => Ok(found),
            // As in `md_files`: an unlistable project directory is skipped.
            Err(_) if !dir.is_empty() => Ok(None),
            Err(e) => Err(Error::io("list", shown, &e)),
        }
    }

    /// The context block, or `None` when there is nothing to show.
    ///
    /// # Errors
    /// None in practice: unreadable files are skipped.
    pub fn context_block(&self) -> Result<Option<String>> {
        let max = self.caps.max_inject_bytes;
        let today = self.today();
        let head = |rel: &Rel, limit: u64| {
            fsio::read_head(&self.abs(&rel.path()), limit)
                .ok()
                .flatten()
        };
        let tail = |rel: &Rel| {
            fsio::read_tail(&self.abs(&rel.path()), max as u64)
                .ok()
                .flatten()
                .map(|(t, _)| t)
        };
        let long_term = head(&self.long_term_rel(), INDEX_MAX_BYTES as u64 + 8);
        let scratchpad = head(&self.scratchpad_rel(), MAX_SCRATCHPAD_SCAN_BYTES).map(|(t, _)| t);
        let today_log = tail(&self.daily_rel(today)).map(|t| (today.to_string(), t));
        // The most recent earlier log with content: yesterday, or across a
        // gap. The last week is looked up by name first; only a longer gap
        // (or a week of blank logs) lists the directory, which costs a call
        // per log in the sandbox.
        let recent = (1..=EARLIER_LOGS_LOOKED_UP).find_map(|back| {
            let date = Date::from_days(today.to_days() - back);
            let rel = self.daily_rel(date);
            match fsio::kind(&self.abs(&rel.path())) {
                Ok(Kind::File(_)) => tail(&rel)
                    .filter(|t| !t.trim().is_empty())
                    .map(|t| (date.to_string(), t)),
                _ => None,
            }
        });
        if recent.is_some() {
            return Ok(context::build(
                &Sources {
                    long_term,
                    scratchpad,
                    earlier: recent,
                    today: today_log,
                },
                max,
            ));
        }
        // Logs are listed by name only; each one tried is checked to be a
        // regular file first, as a listing that stats every log would.
        let listed = self.md_names(&self.daily_dir()).ok().flatten();
        let mut dates: Vec<Date> = listed
            .iter()
            .flat_map(|(_, names)| names)
            .filter_map(|n| daily_date(&n[..n.len() - 3]).ok())
            .filter(|d| *d < today)
            .collect();
        dates.sort_unstable_by(|a, b| b.cmp(a));
        let is_file = |d: &Date| {
            listed
                .as_ref()
                .is_some_and(|(dir, _)| matches!(dir.kind(&format!("{d}.md")), Ok(Kind::File(_))))
        };
        let earlier = dates
            .into_iter()
            .filter(is_file)
            .take(MAX_EARLIER_LOGS_TRIED)
            .filter_map(|d| tail(&self.daily_rel(d)).map(|t| (d.to_string(), t)))
            .find(|(_, t)| !t.trim().is_empty());
        let sources = Sources {
            long_term,
            scratchpad,
            earlier,
            today: today_log,
        };
        Ok(context::build(&sources, max))
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
}
