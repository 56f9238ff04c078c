//! All or nothing across files, even through a crash.
//!
//! Each file of a change is replaced atomically, but a change of several
//! files (a change set, a rename, a folder rename, a snapshot, a clear) is
//! several replacements: a process killed between two of them would leave
//! some files new and some old. So before applying such a change the
//! pipeline writes what every file will be into `.store/applying` (synced),
//! and removes it once all are applied. The next writer or reader that
//! finds the journal finishes the change forward: every step is idempotent
//! (a file put whole, a removal, a move that is done when its source is
//! gone), so finishing it twice does no harm. A journal cut short (the
//! crash came while writing it) is dropped: no file had been touched yet.
//!
//! Format: a header line, then per step one line (`P <len> <path>` followed
//! by `len` bytes and a newline, `R <path>`, `M <from>\t<to>`, `D
//! <from>\t<to>`, `U <path>` for a link or FIFO unlinked, `F <path>` for a
//! folder removed), then `END`. Paths are store-relative and hold no line
//! break or tab (names forbid control characters).

use std::fs;

use super::{Memory, Rel, rel_of};
use crate::fsio::{self, LockGuard};

/// The journal, under the store's side directory.
const JOURNAL_DIR: &str = ".store";
const JOURNAL_FILE: &str = "applying";
const HEADER: &[u8] = b"agent-memory change journal 1\n";
const END: &[u8] = b"END\n";

/// One step as the journal replays it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Replay {
    /// The file holds exactly these bytes.
    Put(String, Vec<u8>),
    /// The file is gone.
    Remove(String),
    /// The file moved.
    Move(String, String),
    /// The note folder moved.
    MoveDir(String, String),
    /// The entry (a link, a FIFO: not a regular file) is gone.
    Unlink(String),
    /// The (by now empty) folder is gone.
    RemoveDir(String),
}

fn encode(steps: &[Replay]) -> Vec<u8> {
    let mut out = HEADER.to_vec();
    for step in steps {
        match step {
            Replay::Put(path, bytes) => {
                out.extend_from_slice(format!("P {} {path}\n", bytes.len()).as_bytes());
                out.extend_from_slice(bytes);
                out.push(b'\n');
            }
            Replay::Remove(path) => out.extend_from_slice(format!("R {path}\n").as_bytes()),
            Replay::Move(from, to) => out.extend_from_slice(format!("M {from}\t{to}\n").as_bytes()),
            Replay::MoveDir(from, to) => {
                out.extend_from_slice(format!("D {from}\t{to}\n").as_bytes());
            }
            Replay::Unlink(path) => out.extend_from_slice(format!("U {path}\n").as_bytes()),
            Replay::RemoveDir(path) => out.extend_from_slice(format!("F {path}\n").as_bytes()),
        }
    }
    out.extend_from_slice(END);
    out
}

/// The steps of a whole journal; `None` for one cut short or not ours.
fn decode(bytes: &[u8]) -> Option<Vec<Replay>> {
    let mut rest = bytes.strip_prefix(HEADER)?;
    let mut steps = Vec::new();
    loop {
        if rest == END {
            return Some(steps);
        }
        let nl = memchr::memchr(b'\n', rest)?;
        let line = std::str::from_utf8(&rest[..nl]).ok()?;
        rest = &rest[nl + 1..];
        let (tag, body) = line.split_once(' ')?;
        let pair = || {
            body.split_once('\t')
                .map(|(a, b)| (a.to_string(), b.to_string()))
        };
        steps.push(match tag {
            "P" => {
                let (len, path) = body.split_once(' ')?;
                let len: usize = len.parse().ok()?;
                if rest.len() < len + 1 || rest[len] != b'\n' {
                    return None;
                }
                let bytes = rest[..len].to_vec();
                rest = &rest[len + 1..];
                Replay::Put(path.to_string(), bytes)
            }
            "R" => Replay::Remove(body.to_string()),
            "M" => {
                let (a, b) = pair()?;
                Replay::Move(a, b)
            }
            "D" => {
                let (a, b) = pair()?;
                Replay::MoveDir(a, b)
            }
            "U" => Replay::Unlink(body.to_string()),
            "F" => Replay::RemoveDir(body.to_string()),
            _ => return None,
        });
    }
}

impl Memory {
    fn journal_path(&self) -> std::path::PathBuf {
        self.abs(JOURNAL_DIR).join(JOURNAL_FILE)
    }

    /// Write the journal of a change of several files, synced, before any
    /// of them is touched. A failure fails the change (nothing applied).
    pub(crate) fn write_journal(&self, lock: &LockGuard, steps: &[Replay]) -> crate::Result<()> {
        let dir = self.abs(JOURNAL_DIR);
        fsio::create_dir_all(&dir)
            .map_err(|e| crate::Error::io("create directory", JOURNAL_DIR, &e))?;
        fsio::replace(&dir, JOURNAL_FILE, &encode(steps), lock)
            .map_err(|e| crate::Error::io("write", ".store/applying", &e))
    }

    /// The change is applied (or put back): drop its journal.
    pub(crate) fn clear_journal(&self) {
        let _ = fs::remove_file(self.journal_path());
        fsio::sync_dir(&self.abs(JOURNAL_DIR));
    }

    /// Finish a change a crashed writer left half applied (see the module
    /// docs). Caller holds the lock. Never fails: what cannot be finished
    /// stays as it is, each file whole.
    pub(crate) fn finish_interrupted(&self, lock: &LockGuard) {
        let path = self.journal_path();
        let Ok(bytes) = fs::read(&path) else {
            return;
        };
        if let Some(steps) = decode(&bytes) {
            for step in steps {
                self.replay(lock, step);
            }
        }
        self.clear_journal();
    }

    fn replay(&self, lock: &LockGuard, step: Replay) {
        match step {
            Replay::Put(path, bytes) => {
                let rel: Rel = rel_of(&path);
                if self.make_dir_for_replay(&rel.dir) {
                    let _ = fsio::replace(&self.abs(&rel.dir), &rel.file, &bytes, lock);
                }
            }
            Replay::Remove(path) => {
                let rel: Rel = rel_of(&path);
                let _ = fs::remove_file(self.abs(&path));
                self.prune_note_dirs(&rel.dir);
            }
            Replay::Move(from, to) => {
                let (a, b) = (self.abs(&from), self.abs(&to));
                if fs::symlink_metadata(&a).is_ok() && fs::symlink_metadata(&b).is_err() {
                    let to_rel: Rel = rel_of(&to);
                    if self.make_dir_for_replay(&to_rel.dir) {
                        let _ = fs::rename(&a, &b);
                    }
                }
                self.prune_note_dirs(&rel_of(&from).dir);
            }
            Replay::MoveDir(from, to) => {
                let (a, b) = (self.abs(&from), self.abs(&to));
                if a.is_dir() && fs::symlink_metadata(&b).is_err() {
                    if let Some((parent, _)) = to.rsplit_once('/') {
                        let _ = self.ensure_dir(parent, true);
                    }
                    let _ = fs::rename(&a, &b);
                }
            }
            Replay::Unlink(path) => {
                let abs = self.abs(&path);
                if fs::symlink_metadata(&abs).is_ok_and(|m| !m.is_dir()) {
                    let _ = fs::remove_file(abs);
                }
            }
            Replay::RemoveDir(path) => {
                let abs = self.abs(&path);
                fsio::remove_leftovers(&abs);
                let _ = fs::remove_dir(abs);
            }
        }
    }

    /// Make the folders of `dir` as a change would; `false` when that
    /// fails (a link on the way).
    fn make_dir_for_replay(&self, dir: &str) -> bool {
        self.make_dir(dir).is_ok()
    }

    /// Finish an interrupted change before reading, when a journal is
    /// there (one `stat` otherwise), here and in the team store.
    pub(crate) fn recover_before_read(&self) {
        for store in std::iter::once(self).chain(self.team_store()) {
            if store.journal_path().exists() {
                // Taking the lock finishes it.
                let _ = store.lock();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_round_trips_and_a_cut_one_is_refused() {
        let steps = vec![
            Replay::Put("projects/p/notes/a.md".into(), b"one\ntwo\n".to_vec()),
            Replay::Put("MEMORY.md".into(), vec![0xff, b'\n', 0]),
            Replay::Remove("projects/p/notes/b.md".into()),
            Replay::Move(
                "projects/p/notes/c.md".into(),
                "projects/p/notes/d/c.md".into(),
            ),
            Replay::MoveDir("projects/p/notes/x".into(), "projects/p/notes/y".into()),
            Replay::Unlink("projects/p/notes/z/link.md".into()),
            Replay::RemoveDir("projects/p/notes/z".into()),
        ];
        let bytes = encode(&steps);
        assert_eq!(decode(&bytes), Some(steps));
        for cut in 0..bytes.len() {
            assert_eq!(decode(&bytes[..cut]), None, "cut at {cut}");
        }
    }

    #[test]
    fn a_reader_finishes_a_change_a_crash_left_half_applied() {
        let dir = tempfile::tempdir().unwrap();
        let m = Memory::open(dir.path(), crate::Options::new("/src/app")).unwrap();
        let note = |n: &str| m.note_rel(Some(n)).unwrap().path();
        let write = |n: &str, t: &str| {
            m.write(
                crate::WriteTarget::Note,
                t,
                crate::WriteMode::Overwrite,
                Some(n),
            )
            .unwrap();
        };
        write("a", "old a");
        write("b", "old b");
        write("c", "old c");
        // A change of four files, crashed after its first step.
        let lock = m.lock().unwrap();
        let steps = vec![
            Replay::Put(note("a"), b"new a".to_vec()),
            Replay::Put(note("b"), b"new b".to_vec()),
            Replay::Remove(note("c")),
            Replay::Move(note("b"), note("d/b")),
        ];
        m.write_journal(&lock, &steps).unwrap();
        fs::write(m.abs(&note("a")), "new a").unwrap();
        drop(lock);
        let read = |n: &str| m.read(crate::ReadSource::Note, Some(n)).unwrap();
        assert_eq!(read("d/b").as_deref(), Some("new b"));
        assert_eq!(read("a").as_deref(), Some("new a"));
        assert_eq!(read("b"), None);
        assert_eq!(read("c"), None);
        assert!(!m.journal_path().exists());
        // A journal cut short is dropped, touching nothing.
        let lock = m.lock().unwrap();
        m.write_journal(&lock, &[Replay::Put(note("a"), b"newer a".to_vec())])
            .unwrap();
        let whole = fs::read(m.journal_path()).unwrap();
        fs::write(m.journal_path(), &whole[..whole.len() - 2]).unwrap();
        drop(lock);
        assert_eq!(read("a").as_deref(), Some("new a"));
        assert!(!m.journal_path().exists());
    }
}
