//! File access for the store: bounded reads that never block on special
//! files, and atomic replacement.

use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// What a path in the store turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Nothing there.
    Missing,
    /// A regular file of this many bytes.
    File(u64),
    /// A directory, FIFO, socket, device or symlink: never opened.
    Other,
}

/// Look at `path` without following a final symlink and without opening it
/// (opening a FIFO would block).
pub fn kind(path: &Path) -> io::Result<Kind> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_file() => Ok(Kind::File(meta.len())),
        Ok(_) => Ok(Kind::Other),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Kind::Missing),
        Err(e) => Err(e),
    }
}

/// Decode bytes as UTF-8, replacing invalid sequences with U+FFFD, but
/// dropping an incomplete sequence at the very end (a cut, not corruption).
fn decode(mut bytes: Vec<u8>, cut: bool) -> String {
    if cut
        && let Err(e) = std::str::from_utf8(&bytes)
        && e.error_len().is_none()
    {
        bytes.truncate(e.valid_up_to());
    }
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// A regular file's text, or the first `limit` bytes of it, and its full
/// length. `Ok(None)` when the path is missing or not a regular file.
pub fn read_head(path: &Path, limit: u64) -> io::Result<Option<(String, u64)>> {
    let Kind::File(len) = kind(path)? else {
        return Ok(None);
    };
    let file = File::open(path)?;
    let mut bytes = Vec::with_capacity(len.min(limit) as usize);
    file.take(limit).read_to_end(&mut bytes)?;
    let cut = (bytes.len() as u64) < len;
    Ok(Some((decode(bytes, cut), len)))
}

/// Like [`read_head`] but keeps the last `limit` bytes, starting at a line
/// break when one is near the cut.
pub fn read_tail(path: &Path, limit: u64) -> io::Result<Option<(String, u64)>> {
    let Kind::File(len) = kind(path)? else {
        return Ok(None);
    };
    if len <= limit {
        return read_head(path, limit);
    }
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(len - limit))?;
    let mut bytes = Vec::with_capacity(limit as usize);
    file.take(limit).read_to_end(&mut bytes)?;
    // Start after the first line break so no line is shown half.
    if let Some(nl) = bytes.iter().position(|&b| b == b'\n') {
        bytes.drain(..=nl);
    } else {
        // No line break: skip UTF-8 continuation bytes at the start.
        let skip = bytes.iter().take_while(|&&b| b & 0xC0 == 0x80).count();
        bytes.drain(..skip);
    }
    Ok(Some((decode(bytes, false), len)))
}

/// Does the regular file at `path` end with `\n`? `false` when empty.
pub fn ends_with_newline(path: &Path, len: u64) -> io::Result<bool> {
    if len == 0 {
        return Ok(false);
    }
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// Append `bytes` to `path` (created if missing) and sync them to disk.
pub fn append(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().append(true).create(true).open(path)?;
    file.write_all(bytes)?;
    file.sync_data()
}

/// A name no other writer will pick: random bits from the hasher seed
/// (which std draws from the OS or WASI random source).
fn unique_suffix() -> String {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0);
    format!("{:016x}", hasher.finish())
}

/// The temp-file name used while replacing `file_name`. Starts with a dot
/// and does not end in `.md`, so list, search and the context block never
/// see it.
pub fn temp_name(file_name: &str) -> String {
    format!(".{file_name}.{}.tmp", unique_suffix())
}

/// Remove temp files a crashed writer left in `dir`. Only safe while holding
/// the store's write lock, when no other replace can be in flight.
pub fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') && name.ends_with(".tmp") {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Replace `dir/file_name` with `bytes` so that a crash at any instant leaves
/// either the old or the new content: write a uniquely named temp file in the
/// same directory, sync it, rename it over the target, sync the directory.
pub fn replace(dir: &Path, file_name: &str, bytes: &[u8]) -> io::Result<()> {
    let tmp = dir.join(temp_name(file_name));
    let result = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, dir.join(file_name))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    sync_dir(dir);
    Ok(())
}

/// Copy `dir/file_name` to `dir/<file_name>.bak` through [`replace`], so the
/// previous version of a curated file survives an overwrite.
pub fn backup(dir: &Path, file_name: &str, limit: u64) -> io::Result<()> {
    let path = dir.join(file_name);
    let Kind::File(len) = kind(&path)? else {
        return Ok(());
    };
    if len > limit {
        // A file this large was not written through the store; leave it be.
        return Ok(());
    }
    let bytes = fs::read(&path)?;
    replace(dir, &format!("{file_name}.bak"), &bytes)
}

/// Make a rename durable. Best effort: some platforms cannot open or sync a
/// directory, and the data itself is already synced.
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Name of the store's write lock, at the root.
pub const LOCK_FILE: &str = ".agent-memory.lock";

/// How the write lock behaves.
#[derive(Debug, Clone, Copy)]
pub struct LockPolicy {
    /// A lock older than this is considered abandoned (its holder died) and
    /// is broken.
    pub lease: std::time::Duration,
    /// How long to wait for a live lock before giving up.
    pub wait: std::time::Duration,
}

impl Default for LockPolicy {
    fn default() -> Self {
        LockPolicy {
            lease: std::time::Duration::from_secs(10),
            wait: std::time::Duration::from_secs(15),
        }
    }
}

/// A held write lock; released (the file removed) on drop.
#[derive(Debug)]
pub struct LockGuard {
    path: std::path::PathBuf,
    token: String,
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        // Only remove the lock if it is still ours: after a lease expiry
        // another writer may have broken it and taken a new one.
        if let Ok(content) = fs::read_to_string(&self.path)
            && content.starts_with(&self.token)
        {
            let _ = fs::remove_file(&self.path);
        }
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Why [`lock`] failed.
#[derive(Debug)]
pub enum LockError {
    /// A live lock stayed for the whole wait.
    Busy,
    /// The filesystem refused.
    Io(io::Error),
}

/// Take the store's write lock: create `root/LOCK_FILE` exclusively (WASI has
/// no `flock`), holding a token and the time it was taken. A lock older than
/// the lease is broken; a younger one is waited for, up to `policy.wait`.
pub fn lock(root: &Path, policy: LockPolicy) -> Result<LockGuard, LockError> {
    let path = root.join(LOCK_FILE);
    let token = unique_suffix();
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(1);
    loop {
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut file) => {
                let stamp = format!("{token} {}\n", unix_now());
                file.write_all(stamp.as_bytes()).map_err(LockError::Io)?;
                return Ok(LockGuard { path, token });
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(LockError::Io(e)),
        }
        // Someone holds it. Break it if its lease ran out; a lock whose stamp
        // cannot be read yet (being written) counts as fresh.
        if let Ok(content) = fs::read_to_string(&path) {
            let taken = content
                .split_whitespace()
                .nth(1)
                .and_then(|t| t.parse::<u64>().ok());
            if let Some(taken) = taken
                && unix_now().saturating_sub(taken) > policy.lease.as_secs()
            {
                // Move the stale lock aside under a unique name, so of two
                // writers breaking it at once only one succeeds.
                let aside = root.join(format!("{LOCK_FILE}.stale.{}", unique_suffix()));
                if fs::rename(&path, &aside).is_ok() {
                    let _ = fs::remove_file(&aside);
                }
                continue;
            }
        }
        if start.elapsed() >= policy.wait {
            return Err(LockError::Busy);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_live_lock_makes_others_wait_then_busy() {
        let dir = tempfile::tempdir().unwrap();
        let policy = LockPolicy {
            lease: Duration::from_secs(60),
            wait: Duration::from_millis(50),
        };
        let held = lock(dir.path(), policy).unwrap();
        assert!(matches!(lock(dir.path(), policy), Err(LockError::Busy)));
        drop(held);
        assert!(!dir.path().join(LOCK_FILE).exists());
        let again = lock(dir.path(), policy).unwrap();
        drop(again);
    }

    #[test]
    fn a_broken_lock_is_not_removed_by_its_old_holder() {
        let dir = tempfile::tempdir().unwrap();
        let policy = LockPolicy::default();
        let old = lock(dir.path(), policy).unwrap();
        // Someone broke it and holds a new one.
        fs::write(dir.path().join(LOCK_FILE), "someoneelse 99999999999\n").unwrap();
        drop(old);
        assert!(dir.path().join(LOCK_FILE).exists());
    }

    #[test]
    fn replace_leaves_old_or_new_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        replace(dir.path(), "f.md", b"one").unwrap();
        replace(dir.path(), "f.md", b"two").unwrap();
        assert_eq!(fs::read(dir.path().join("f.md")).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn reads_stop_at_the_limit_on_a_char_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.md");
        fs::write(&p, "ab日本").unwrap();
        assert_eq!(read_head(&p, 4).unwrap().unwrap(), ("ab".to_string(), 8));
        assert_eq!(read_tail(&p, 4).unwrap().unwrap().0, "本");
        assert_eq!(read_head(&dir.path().join("none"), 4).unwrap(), None);
        assert_eq!(
            read_head(dir.path(), 4).unwrap(),
            None,
            "a directory is not read"
        );
    }
}
