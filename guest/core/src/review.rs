//! The review gate's queue: with the gate on for a scope, the model's tool
//! calls that would change that scope's memory wait here until the user
//! approves or rejects them. A queued call is checked like a real one when
//! it is queued (a call that would fail is refused at once) and again when
//! it is approved; until then it is never injected or searched: it lives
//! under the personal root's `.store/review/<project>/`, one file per call,
//! which no listing, search or block reads. Running a call (its dry run
//! when queued and listed, and the approval) is the tools' part
//! (`tools.rs`), which calls down into this queue; the queue never calls
//! the tools.
//!
//! Text a queued call would store is guarded when it is queued: under
//! `block` a secret refuses the call, under `redact` the queue keeps the
//! redacted text. A decided call keeps only its id and decision: a
//! rejected call leaves nothing of its text behind.

use std::fs;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::fsio;
use crate::layout::Rel;
use crate::store::{Memory, Preview, Step};
use agent_memory_vocab::Scope;

pub use crate::store::ReviewGate;

/// How a queued call was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Applied.
    Approved,
    /// Dropped, its text with it.
    Rejected,
}

/// A tool call waiting for review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// Its id, `p1`, `p2`, …
    pub id: String,
    /// When it was queued (Unix seconds, and the local offset then).
    pub time_unix: i64,
    /// The local offset at that time, in minutes.
    pub utc_offset_minutes: i32,
    /// Who made it (the memory's source label then).
    pub source: String,
    /// The store it changes.
    pub scope: Scope,
    /// The tool.
    pub tool: String,
    /// Its JSON arguments, text guarded.
    pub arguments: String,
    /// What it would change now, as a line diff per file; or why it would
    /// fail now.
    pub diff: String,
}

/// Most calls one project's queue holds undecided.
pub const MAX_PENDING: usize = 200;
/// Where queues live under the personal root.
const REVIEW_DIR: &str = ".store/review";
/// Where an approved team call's change leaves its token, in the team
/// store (git-ignored, as every dot file there).
const APPLIED_DIR: &str = ".store/review-applied";
/// Keys whose text must match the store as it is, so are never redacted
/// (a secret there is already stored).
const MATCHED_KEYS: [&str; 2] = ["old_text", "old_str"];
/// Lines of a diff shown per file before the rest is counted.
const MAX_DIFF_LINES: usize = 120;

/// One queue file.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub(crate) id: u64,
    pub(crate) time: i64,
    pub(crate) offset: i32,
    pub(crate) source: String,
    pub(crate) scope: String,
    pub(crate) tool: String,
    /// `None` once decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) arguments: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) decision: Option<Decision>,
    /// A call to the team store: the name of the file its approved change
    /// leaves in the team store (see [`Memory::applied_step`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) token: Option<String>,
}

impl Memory {
    /// The queue's directory, store-relative.
    fn review_dir(&self) -> String {
        format!("{REVIEW_DIR}/{}", self.slug())
    }

    /// Queue a model's tool call for review, its text guarded; the
    /// caller has checked it by a dry run (`tools::call` does). Returns
    /// the text for the model.
    pub(crate) fn enqueue(&self, tool: &str, arguments: &str, scope: Scope) -> Result<String> {
        let mut args: Value = serde_json::from_str(arguments).map_err(|e| {
            Error::new(
                ErrorKind::InvalidArguments,
                format!("{tool}: arguments are not JSON: {e}"),
            )
        })?;
        self.guard_queued(&mut args, tool)?;
        let lock = self.lock()?;
        let entries = self.queue_entries()?;
        let open = entries.iter().filter(|e| e.decision.is_none()).count();
        if open >= MAX_PENDING {
            return Err(Error::new(
                ErrorKind::Busy,
                format!(
                    "{open} changes already wait for review; nothing was queued. Ask the user to review them (agent-memory review) before making more"
                ),
            ));
        }
        let id = entries.iter().map(|e| e.id).max().unwrap_or(0) + 1;
        let clock = self.clock();
        let entry = Entry {
            id,
            time: clock.unix_seconds(),
            offset: clock.utc_offset_minutes,
            source: self.history_store().source().to_string(),
            scope: scope.tool_word().to_string(),
            tool: tool.to_string(),
            arguments: Some(args.to_string()),
            decision: None,
            token: (scope == Scope::Team).then(fsio::unique_suffix),
        };
        self.save_entry(&entry, &lock)?;
        Ok(format!(
            "Queued for review as p{id}: this {tool} call is not in memory until the user approves it (agent-memory review approve p{id}). Do not repeat it; go on with your task"
        ))
    }

    /// Guard every text a queued call would store: names refuse a secret,
    /// text is redacted or refused by the policy. Text that must match the
    /// store (`old_text`) is left as it is.
    fn guard_queued(&self, value: &mut Value, tool: &str) -> Result<()> {
        match value {
            Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    if MATCHED_KEYS.contains(&key.as_str()) {
                        continue;
                    }
                    if let Value::String(text) = v {
                        let guarded = self.guard(text, &format!("the queued {tool} call"))?;
                        if let std::borrow::Cow::Owned(t) = guarded.text {
                            *text = t;
                        }
                    } else {
                        self.guard_queued(v, tool)?;
                    }
                }
            }
            Value::Array(items) => {
                for v in items {
                    self.guard_queued(v, tool)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Drop the queued call `id` and its text.
    ///
    /// # Errors
    /// `not-found` for an id that was never queued; `invalid-arguments`
    /// for one already decided or not of the form `p12`.
    pub fn reject(&self, id: &str) -> Result<String> {
        let lock = self.lock()?;
        let mut entry = self.open_entry(id, &lock)?;
        entry.arguments = None;
        entry.decision = Some(Decision::Rejected);
        self.save_entry(&entry, &lock)?;
        Ok(format!(
            "Rejected {id} ({}): nothing of it was stored",
            entry.tool
        ))
    }

    /// The undecided entry `id`, or why not. Caller holds the lock.
    pub(crate) fn open_entry(&self, id: &str, lock: &fsio::LockGuard) -> Result<Entry> {
        let n = id
            .strip_prefix('p')
            .filter(|d| !d.is_empty() && d.len() <= 19 && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse::<u64>().ok())
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidArguments,
                    format!("{id:?} is not a review id: ids look like p12 (agent-memory review lists them)"),
                )
            })?;
        let mut entry = self
            .queue_entries()?
            .into_iter()
            .find(|e| e.id == n)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::NotFound,
                    format!("no queued change {id}: agent-memory review lists the ones waiting"),
                )
            })?;
        if entry.decision.is_none() && self.applied_in_team(&entry)? {
            // Its team change was made and the process stopped before the
            // decision was written: written now.
            entry.arguments = None;
            entry.decision = Some(Decision::Approved);
            self.save_entry(&entry, lock)?;
            self.forget_applied(&entry);
        }
        if let Some(decision) = entry.decision {
            let word = match decision {
                Decision::Approved => "approved",
                Decision::Rejected => "rejected",
            };
            return Err(Error::new(
                ErrorKind::InvalidArguments,
                format!("{id} was already {word}; nothing was changed"),
            ));
        }
        Ok(entry)
    }

    /// Every queue file of this project, by id. A file that is not an
    /// entry's JSON is skipped; one that cannot be listed or read is an
    /// error. A file that vanishes while the folder is listed (another
    /// process renaming an entry into place, or deciding the last one) ends
    /// the listing early, so the folder is listed again, a few times at most.
    pub(crate) fn queue_entries(&self) -> Result<Vec<Entry>> {
        const TRIES: usize = 5;
        for _ in 1..TRIES {
            if let Some(entries) = self.list_queue()? {
                return Ok(entries);
            }
        }
        let dir = self.review_dir();
        self.list_queue()?.ok_or_else(|| {
            let gone = std::io::Error::from(std::io::ErrorKind::NotFound);
            Error::io("list", &dir, &gone)
        })
    }

    /// One listing of the queue: `None` when a file vanished under it.
    fn list_queue(&self) -> Result<Option<Vec<Entry>>> {
        let dir = self.review_dir();
        let listed = match fs::read_dir(self.abs(&dir)) {
            Ok(listed) => listed,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Some(Vec::new())),
            Err(e) => return Err(Error::io("list", &dir, &e)),
        };
        let mut entries: Vec<Entry> = Vec::new();
        for e in listed {
            let e = match e {
                Ok(e) => e,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(err) => return Err(Error::io("list", &dir, &err)),
            };
            let Some(name) = e.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if !name.ends_with(".json") || name.starts_with('.') {
                continue;
            }
            // An entry that cannot be read is an error, not a missing entry
            // (`no queued change p1` for an I/O error misleads); one that is
            // not an entry's JSON is skipped.
            let bytes = match fs::read(e.path()) {
                Ok(bytes) => bytes,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
                Err(err) => return Err(Error::io("read", &format!("{dir}/{name}"), &err)),
            };
            if let Ok(entry) = serde_json::from_slice::<Entry>(&bytes) {
                entries.push(entry);
            }
        }
        entries.sort_by_key(|e| e.id);
        Ok(Some(entries))
    }

    /// Write `entry` atomically. Caller holds the lock.
    pub(crate) fn save_entry(&self, entry: &Entry, lock: &fsio::LockGuard) -> Result<()> {
        let (rel, bytes) = self.entry_file(entry)?;
        fsio::create_dir_all(&self.abs(&rel.dir))
            .map_err(|e| Error::io("create directory", &rel.dir, &e))?;
        fsio::replace(&self.abs(&rel.dir), &rel.file, &bytes, lock)
            .map_err(|e| Error::io("write", &rel.path(), &e))
    }

    /// The step that writes `entry` as a step of a change (an approval's
    /// decision rides on the change of the call it approves).
    pub(crate) fn entry_step(&self, entry: &Entry) -> Result<Step> {
        let (rel, bytes) = self.entry_file(entry)?;
        Ok(Step::Mark {
            rel,
            bytes: Some(bytes),
            if_changed: false,
        })
    }

    /// For a call to the team store: the step its change takes along in
    /// the team store, which says the call was applied until the decision
    /// is written (the decision is in this store, the change in the
    /// team's: no one change holds both).
    pub(crate) fn applied_step(&self, entry: &Entry) -> Option<Step> {
        self.team_store()?;
        Some(Step::Mark {
            rel: self.applied_rel(entry)?,
            bytes: Some(format!("p{} of {}\n", entry.id, self.slug()).into_bytes()),
            if_changed: false,
        })
    }

    fn applied_rel(&self, entry: &Entry) -> Option<Rel> {
        Some(Rel {
            dir: format!("{}{APPLIED_DIR}", crate::layout::TEAM_PREFIX),
            file: entry.token.clone()?,
        })
    }

    /// Whether the team change of `entry` was made (its decision may not
    /// be written yet).
    ///
    /// # Errors
    /// `io` when the team store cannot be looked at.
    pub(crate) fn applied_in_team(&self, entry: &Entry) -> Result<bool> {
        let (Some(rel), Some(team)) = (self.applied_rel(entry), self.team_store()) else {
            return Ok(false);
        };
        let path = rel.path();
        let kind = fsio::kind(&team.abs(&path)).map_err(|e| Error::io("inspect", &path, &e))?;
        Ok(kind != fsio::Kind::Missing)
    }

    /// Once the decision is written, the team store's mark of `entry` has
    /// done its work. Best effort: a mark left over names a decided call.
    pub(crate) fn forget_applied(&self, entry: &Entry) {
        if let (Some(rel), Some(team)) = (self.applied_rel(entry), self.team_store()) {
            let _ = fs::remove_file(team.abs(&rel.path()));
        }
    }

    /// Where `entry` is kept, and its bytes.
    fn entry_file(&self, entry: &Entry) -> Result<(Rel, Vec<u8>)> {
        let bytes = serde_json::to_vec(entry)
            .map_err(|e| Error::new(ErrorKind::Io, format!("cannot encode p{}: {e}", entry.id)))?;
        let rel = Rel {
            dir: self.review_dir(),
            file: format!("p{}.json", entry.id),
        };
        Ok((rel, bytes))
    }
}

/// A line diff per file: the lines both sides share at the start and end
/// are skipped, the rest shown as `-` and `+` lines.
pub(crate) fn render_diff(previews: &[Preview]) -> String {
    let mut out = String::new();
    for p in previews {
        let (a, b) = (p.before.as_deref(), p.after.as_deref());
        let what = match (a, b) {
            (None, Some(_)) => "new file",
            (Some(_), None) => "deleted",
            _ => "changed",
        };
        out.push_str(&format!("--- {} ({what})\n", p.path));
        let old: Vec<&str> = a.map(|t| t.lines().collect()).unwrap_or_default();
        let new: Vec<&str> = b.map(|t| t.lines().collect()).unwrap_or_default();
        let head = old.iter().zip(&new).take_while(|(x, y)| x == y).count();
        let tail = old[head..]
            .iter()
            .rev()
            .zip(new[head..].iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        let mut lines: Vec<String> = Vec::new();
        lines.extend(old[head..old.len() - tail].iter().map(|l| format!("-{l}")));
        lines.extend(new[head..new.len() - tail].iter().map(|l| format!("+{l}")));
        let total = lines.len();
        for l in lines.into_iter().take(MAX_DIFF_LINES) {
            out.push_str(&l);
            out.push('\n');
        }
        if total > MAX_DIFF_LINES {
            out.push_str(&format!("… {} more lines\n", total - MAX_DIFF_LINES));
        }
    }
    out
}
