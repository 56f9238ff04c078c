//! [`OpenOptions`]: how to open a memory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, FixedOffset, Local, Offset};

use crate::bindings::wit;

/// The default cap on an instance's linear memory: 256 MiB. Search reads
/// files of up to 16 MiB, so a few times that leaves ample room.
pub const DEFAULT_MAX_MEMORY_BYTES: usize = 256 << 20;

/// The default time bound on one call: 30 s. Longer than the 15 s a write
/// waits for another process's lock, so a busy store still answers `busy`.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// How to open a [`Memory`](crate::Memory): the memory root, the project, the
/// clock and optional size caps. Passed to [`Runtime::open`](crate::Runtime::open).
///
/// # Examples
///
/// ```no_run
/// use agent_memory::{OpenOptions, Runtime};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let now = chrono::DateTime::parse_from_rfc3339("2026-05-30T09:15:00+02:00")?;
/// let options = OpenOptions::new("/tmp/memory", "/home/me/src/my-app")
///     .now(now) // pin time: the log of 2026-05-30, at UTC+2
///     .max_inject_bytes(16 * 1024);
/// let memory = Runtime::shared()?.open(options)?;
/// assert_eq!(memory.today(), "2026-05-30");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct OpenOptions {
    pub(crate) root: PathBuf,
    pub(crate) project: PathBuf,
    pub(crate) utc_offset_minutes: Option<i32>,
    pub(crate) max_inject_bytes: Option<u32>,
    pub(crate) max_write_bytes: Option<u32>,
    pub(crate) max_read_bytes: Option<u32>,
    pub(crate) lock_lease: Option<Duration>,
    pub(crate) secret_policy: crate::SecretPolicy,
    pub(crate) source: String,
    pub(crate) history_max_versions: Option<u32>,
    pub(crate) history_max_bytes: Option<u64>,
    pub(crate) lock_wait: Option<Duration>,
    /// A pinned instant (Unix seconds) and the offset it came with.
    pub(crate) fixed_now: Option<(i64, i32)>,
    pub(crate) max_memory_bytes: usize,
    pub(crate) call_timeout: Duration,
    pub(crate) create_root: bool,
    pub(crate) inherit_stderr: bool,
    pub(crate) project_dir: Option<PathBuf>,
    pub(crate) team_dir: Option<PathBuf>,
    pub(crate) scope: crate::Scope,
    pub(crate) review: Vec<crate::Scope>,
    #[cfg(all(feature = "faults", unix))]
    pub(crate) faults: Option<std::sync::Arc<crate::faults::Faults>>,
    pub(crate) audience: crate::Audience,
}

/// The team directory's name in a project: `<project root>/.agent-memory`.
pub const TEAM_DIR_NAME: &str = ".agent-memory";

impl OpenOptions {
    /// Options for the memory stored under `root` (the directory the component
    /// is confined to), for the project at `project`.
    ///
    /// `project` only names the project: the component derives the project's
    /// storage slug from it and never touches that path. Pass a canonical path,
    /// such as [`detect_project`](crate::detect_project) returns, so every way
    /// of naming one project gives the same slug. A path that is not valid
    /// UTF-8 is converted lossily.
    pub fn new(root: impl Into<PathBuf>, project: impl Into<PathBuf>) -> Self {
        OpenOptions {
            root: root.into(),
            project: project.into(),
            utc_offset_minutes: None,
            max_inject_bytes: None,
            max_write_bytes: None,
            max_read_bytes: None,
            lock_lease: None,
            secret_policy: crate::SecretPolicy::Block,
            source: String::new(),
            history_max_versions: None,
            history_max_bytes: None,
            lock_wait: None,
            fixed_now: None,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            create_root: true,
            inherit_stderr: false,
            project_dir: None,
            team_dir: None,
            scope: crate::Scope::Personal,
            review: Vec::new(),
            #[cfg(all(feature = "faults", unix))]
            faults: None,
            audience: crate::Audience::Model,
        }
    }

    /// Who reads the memory's messages (receipts, errors, tool texts):
    /// [`Audience::Model`](crate::Audience::Model) (the default) gets tool
    /// names (`memory_restore`), [`Audience::Person`](crate::Audience::Person)
    /// gets `agent-memory` commands, for a command line that prints them.
    /// Only the wording changes.
    pub fn audience(mut self, audience: crate::Audience) -> Self {
        self.audience = audience;
        self
    }

    /// Gives the memory the project's team directory, normally
    /// `<project root>/.agent-memory` (see [`team_dir_of`](Self::team_dir_of)):
    /// Markdown shared through git, preopened read-write as a second
    /// directory. Model tools then take `"scope": "team"`, the context block
    /// gets a team section, and search covers it. Created (with its
    /// parents) when missing, like the root. It must be a real folder:
    /// [`Runtime::open`](crate::Runtime::open) refuses a symbolic link
    /// there (whose target would get the team's files) with a setup error
    /// naming it.
    pub fn team_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.team_dir = Some(dir.into());
        self
    }

    /// The same options for another project: the same root, clock, caps,
    /// policies, source and audience, for the project at `project`. The
    /// project directory ([`project_dir`](Self::project_dir)) and the team
    /// directory ([`team_dir`](Self::team_dir)) belong to a project, so
    /// they are dropped: give the new project's again. A server that serves
    /// several projects derives each one's options from its own this way.
    pub fn for_project(mut self, project: impl Into<PathBuf>) -> Self {
        self.project = project.into();
        self.project_dir = None;
        self.team_dir = None;
        self
    }

    /// The team directory of the project at `project`:
    /// `<project>/.agent-memory`.
    pub fn team_dir_of(project: &Path) -> PathBuf {
        project.join(TEAM_DIR_NAME)
    }

    /// Which store the typed methods ([`Memory::write`](crate::Memory::write),
    /// `read`, `search_with`, `edit`, …) act on: the personal one (the
    /// default) or, with [`team_dir`](Self::team_dir), the team's. Tool
    /// calls choose per call whatever this says.
    pub fn scope(mut self, scope: crate::Scope) -> Self {
        self.scope = scope;
        self
    }

    /// The team directory as given, if any.
    pub fn team_directory(&self) -> Option<&Path> {
        self.team_dir.as_deref()
    }

    /// Pins "now" to this instant instead of reading the system clock, and
    /// takes its offset as the local UTC offset (unless
    /// [`utc_offset_minutes`](Self::utc_offset_minutes) is set). For tests,
    /// scripts and reproducible output.
    pub fn now(mut self, now: DateTime<FixedOffset>) -> Self {
        self.fixed_now = Some((now.timestamp(), offset_minutes(now.offset())));
        self
    }

    /// Pins "now" to `unix_seconds` (UTC) at the local offset
    /// `utc_offset_minutes`, as [`now`](Self::now) does with a
    /// `chrono` value. The component accepts instants from 0001-01-02 to
    /// 9999-12-30 UTC and offsets in `-1439..=1439`; others make
    /// [`Runtime::open`](crate::Runtime::open) fail with
    /// `invalid-options`.
    pub fn fixed_clock(mut self, unix_seconds: i64, utc_offset_minutes: i32) -> Self {
        self.fixed_now = Some((unix_seconds, utc_offset_minutes));
        self
    }

    /// What the memory does with text that holds a secret, on every path
    /// that stores text: [`SecretPolicy::Block`](crate::SecretPolicy::Block)
    /// (the default) refuses the write with `secret-detected`, `Redact`
    /// stores `[REDACTED:<rule-id>]` instead of each value, `Off` stores the
    /// text as given. The model cannot change it.
    pub fn secret_policy(mut self, policy: crate::SecretPolicy) -> Self {
        self.secret_policy = policy;
        self
    }

    /// The review gate: the model's changes (through
    /// [`Memory::call_tool`](crate::Memory::call_tool)) to the stores in
    /// `scopes` wait for the user's decision
    /// ([`Memory::pending_changes`](crate::Memory::pending_changes),
    /// `approve`, `reject`) instead of being applied. The host's typed
    /// methods are never gated. Default: off.
    pub fn review(mut self, scopes: &[crate::Scope]) -> Self {
        self.review = scopes.to_vec();
        self
    }

    /// Labels every change made through this memory in its history
    /// (provenance: which agent, which session), e.g. `claude-code/4f2a`. At
    /// most 128 bytes, no line break or control character (else
    /// `invalid-options`). Default: no label.
    pub fn source(mut self, label: impl Into<String>) -> Self {
        self.source = label.into();
        self
    }

    /// History keeps at most `versions` versions of each file (default 50;
    /// 0 turns history off) and at most `bytes` in all (default 64 MiB),
    /// the oldest pruned first.
    pub fn history_retention(mut self, versions: u32, bytes: u64) -> Self {
        self.history_max_versions = Some(versions);
        self.history_max_bytes = Some(bytes);
        self
    }

    /// A write lock older than this counts as abandoned and is broken
    /// (default 10 s, at least 1 s).
    pub fn lock_lease(mut self, lease: Duration) -> Self {
        self.lock_lease = Some(lease);
        self
    }

    /// How long a write waits for another writer's lock before it fails
    /// with `busy` (default 15 s).
    pub fn lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = Some(wait);
        self
    }

    /// Sets the local UTC offset in minutes, east positive (UTC+2 is `120`).
    /// Takes precedence over the offset of [`now`](Self::now). Without it (and
    /// without `now`) the system's local offset is used and followed across
    /// daylight-saving changes. The component rejects values outside
    /// `-1439..=1439`.
    pub fn utc_offset_minutes(mut self, minutes: i32) -> Self {
        self.utc_offset_minutes = Some(minutes);
        self
    }

    /// Caps the context block, wrapper included (default 32 KiB).
    pub fn max_inject_bytes(mut self, bytes: u32) -> Self {
        self.max_inject_bytes = Some(bytes);
        self
    }

    /// Caps the content one write stores; longer content is cut at a UTF-8
    /// boundary (default 64 KiB).
    pub fn max_write_bytes(mut self, bytes: u32) -> Self {
        self.max_write_bytes = Some(bytes);
        self
    }

    /// Caps the text a read returns and the default search rendering
    /// (default 32 KiB).
    pub fn max_read_bytes(mut self, bytes: u32) -> Self {
        self.max_read_bytes = Some(bytes);
        self
    }

    /// Caps the component's linear memory (default
    /// [`DEFAULT_MAX_MEMORY_BYTES`], 256 MiB; `usize::MAX` leaves only
    /// wasm32's 4 GiB). An operation that needs more fails with
    /// [`Error::Limit`](crate::Error::Limit) ([`Limit::Memory`](crate::Limit::Memory))
    /// and the next one runs in a fresh instance. Leave room for the largest
    /// file the memory may hold: search reads files of up to 16 MiB, and the
    /// arguments of a call (a write's content) are copied in whole.
    pub fn max_memory_bytes(mut self, bytes: usize) -> Self {
        self.max_memory_bytes = bytes;
        self
    }

    /// Bounds how long one call may run (default [`DEFAULT_CALL_TIMEOUT`],
    /// 30 s). A call still running then is interrupted at its next loop or
    /// function entry and fails with [`Error::Limit`](crate::Error::Limit)
    /// ([`Limit::Time`](crate::Limit::Time)); the next call runs in a fresh
    /// instance. The bound has a granularity of 10 ms, covers only the
    /// component's own code (a host filesystem call in progress finishes
    /// first), and should exceed the 15 s a write may wait for the store's
    /// lock. `Duration::MAX` effectively disables it.
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// Whether to create the root directory (and its parents) when it is
    /// missing. Default `true`; with `false` a missing root is an error.
    pub fn create_root(mut self, create: bool) -> Self {
        self.create_root = create;
        self
    }

    /// Whether the component may write to this process's standard error
    /// (it only does so when it panics). Default `false`: no stdio at all.
    pub fn inherit_stderr(mut self, inherit: bool) -> Self {
        self.inherit_stderr = inherit;
        self
    }

    /// Count the filesystem calls the component makes for this memory and
    /// fail the one `faults` is armed for (tests only: the `faults`
    /// feature; see [`crate::faults`]).
    #[cfg(all(feature = "faults", unix))]
    pub fn faults(mut self, faults: std::sync::Arc<crate::faults::Faults>) -> Self {
        self.faults = Some(faults);
        self
    }

    /// Anchor memory to the project's files in `dir` (staleness anchors):
    /// the directory is preopened READ-ONLY, at a guest path of its own,
    /// for hashing the files notes and `MEMORY.md` name, and nothing else.
    /// Reads, listings, search hits and the context block then mark entries
    /// whose anchored files changed (`stale: src/auth.rs changed since
    /// 2026-05-01`). It must be an existing directory (else opening fails
    /// with a setup error); it may contain the memory root. Default: none,
    /// no anchoring.
    pub fn project_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.project_dir = Some(dir.into());
        self
    }

    /// The project directory for staleness anchors, as given.
    pub fn project_dir_path(&self) -> Option<&Path> {
        self.project_dir.as_deref()
    }

    /// The memory root as given.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The project path as given.
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// True when the offset must be re-read from the system before each call.
    pub(crate) fn follows_local_offset(&self) -> bool {
        self.fixed_now.is_none() && self.utc_offset_minutes.is_none()
    }

    /// The clock to hand the component now.
    pub(crate) fn clock(&self) -> wit::Clock {
        let utc_offset_minutes = self
            .utc_offset_minutes
            .or_else(|| self.fixed_now.map(|(_, offset)| offset))
            .unwrap_or_else(local_offset_minutes);
        wit::Clock {
            utc_offset_minutes,
            fixed_unix_seconds: self.fixed_now.map(|(unix, _)| unix),
        }
    }

    pub(crate) fn wit_options(
        &self,
        guest_root: &str,
        guest_project: Option<&str>,
        guest_team: Option<&str>,
        clock: wit::Clock,
    ) -> wit::Options {
        let ms = |d: Duration| u32::try_from(d.as_millis()).unwrap_or(u32::MAX);
        wit::Options {
            root: guest_root.to_string(),
            project: self.project.to_string_lossy().into_owned(),
            clock,
            limits: wit::LimitOverrides {
                max_inject_bytes: self.max_inject_bytes,
                max_write_bytes: self.max_write_bytes,
                max_read_bytes: self.max_read_bytes,
                lock_lease_ms: self.lock_lease.map(ms),
                lock_wait_ms: self.lock_wait.map(ms),
                history_max_versions: self.history_max_versions,
                history_max_bytes: self.history_max_bytes,
            },
            secret_policy: self.secret_policy.into(),
            source: self.source.clone(),
            project_dir: guest_project.map(str::to_string),
            team_dir: guest_team.map(str::to_string),
            scope: self.scope.into(),
            review: self.review.iter().map(|&s| s.into()).collect(),
        }
    }
}

fn offset_minutes(offset: &FixedOffset) -> i32 {
    offset.local_minus_utc() / 60
}

/// The system's current local UTC offset in minutes.
pub(crate) fn local_offset_minutes() -> i32 {
    offset_minutes(&Local::now().offset().fix())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(text).unwrap()
    }

    #[test]
    fn pinned_now_gives_its_offset_and_instant() {
        let clock = OpenOptions::new("r", "p")
            .now(at("2026-05-30T09:15:00+02:00"))
            .clock();
        assert_eq!(clock.utc_offset_minutes, 120);
        assert_eq!(clock.fixed_unix_seconds, Some(1_780_125_300));
    }

    #[test]
    fn explicit_offset_wins_over_the_pinned_one_in_any_order() {
        let a = OpenOptions::new("r", "p")
            .utc_offset_minutes(-300)
            .now(at("2026-05-30T09:15:00+02:00"));
        let b = OpenOptions::new("r", "p")
            .now(at("2026-05-30T09:15:00+02:00"))
            .utc_offset_minutes(-300);
        assert_eq!(a.clock().utc_offset_minutes, -300);
        assert_eq!(b.clock().utc_offset_minutes, -300);
        assert!(!a.follows_local_offset());
    }

    #[test]
    fn unpinned_clock_follows_the_system() {
        let options = OpenOptions::new("r", "p");
        assert!(options.follows_local_offset());
        assert_eq!(options.clock().fixed_unix_seconds, None);
    }

    #[test]
    fn caps_and_project_reach_the_component() {
        let options = OpenOptions::new("r", "/src/app")
            .max_inject_bytes(1)
            .max_write_bytes(2)
            .max_read_bytes(3);
        let wit = options.wit_options("/", None, None, options.clock());
        assert_eq!(wit.root, "/");
        assert_eq!(wit.project, "/src/app");
        assert_eq!(wit.limits.max_inject_bytes, Some(1));
        assert_eq!(wit.limits.max_write_bytes, Some(2));
        assert_eq!(wit.limits.max_read_bytes, Some(3));
    }
}
