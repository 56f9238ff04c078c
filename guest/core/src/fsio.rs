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
    if cut && let Err(e) = std::str::from_utf8(&bytes) {
        if e.error_len().is_none() {
            bytes.truncate(e.valid_up_to());
        }
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
