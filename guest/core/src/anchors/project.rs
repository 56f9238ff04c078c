//! The project directory, read-only: looking files up by a validated
//! relative path one component at a time, never through a symbolic link,
//! and hashing them within a budget. Nothing here opens anything for
//! writing.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::mentions::is_valid_path;
use crate::fsio::{Dir, Stamp};

/// What a project-relative path turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Look {
    /// A regular file with this stamp.
    File(Stamp),
    /// Nothing usable there: missing, a folder, a special file, or a path
    /// through (or to) a symbolic link.
    Gone,
    /// The filesystem refused to say (no permission, an I/O error).
    Unknown,
}

/// A folder on the way to a file, opened or not.
enum Folder {
    Open(Dir),
    Gone,
    Unknown,
}

/// The project directory, opened once per operation, with the folders
/// already walked kept open: each file lookup is then one `fstatat`.
pub(crate) struct Project {
    folders: HashMap<String, Folder>,
}

impl Project {
    /// Open the project at `root`; `None` when it is not a directory that
    /// can be opened (then nothing is anchored and nothing is marked).
    pub(crate) fn open(root: &Path) -> Option<Project> {
        let dir = Dir::open(root).ok().flatten()?;
        let mut folders = HashMap::new();
        folders.insert(String::new(), Folder::Open(dir));
        Some(Project { folders })
    }

    /// Make sure the folder `rel` (project-relative, no trailing `/`, ""
    /// for the root) is in the cache, walking from its parent.
    fn walk(&mut self, rel: &str) {
        if self.folders.contains_key(rel) {
            return;
        }
        let (parent, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        self.walk(parent);
        let folder = match self.folders.get(parent) {
            Some(Folder::Open(dir)) => match dir.open_subdir(name) {
                Ok(Some(sub)) => Folder::Open(sub),
                Ok(None) => Folder::Gone,
                Err(_) => Folder::Unknown,
            },
            Some(Folder::Gone) | None => Folder::Gone,
            Some(Folder::Unknown) => Folder::Unknown,
        };
        self.folders.insert(rel.to_string(), folder);
    }

    /// The folder holding `path` and the file name, once walked.
    fn folder_of<'p>(&mut self, path: &'p str) -> (&Folder, &'p str) {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        self.walk(dir);
        // `walk` inserted it.
        (&self.folders[dir], name)
    }

    /// Look at the file `path` (a valid mention) without opening it.
    /// A path that is not a valid mention (from a tampered side file) is
    /// `Unknown`: never looked up, never marked.
    pub(crate) fn look(&mut self, path: &str) -> Look {
        if !is_valid_path(path) {
            return Look::Unknown;
        }
        match self.folder_of(path) {
            (Folder::Open(dir), name) => match dir.stamp(name) {
                Ok(Some(stamp)) => Look::File(stamp),
                Ok(None) => Look::Gone,
                Err(_) => Look::Unknown,
            },
            (Folder::Gone, _) => Look::Gone,
            (Folder::Unknown, _) => Look::Unknown,
        }
    }

    /// The SHA-256 of the file `path` and the stamp of what was read, when
    /// it is a regular file of at most `cap` bytes; `None` otherwise or on
    /// any error. Reads at most `cap + 1` bytes.
    pub(crate) fn hash(&mut self, path: &str, cap: u64) -> Option<(Stamp, [u8; 32])> {
        if !is_valid_path(path) {
            return None;
        }
        let (Folder::Open(dir), name) = self.folder_of(path) else {
            return None;
        };
        let (file, stamp) = dir.open_stamped(name).ok()??;
        if stamp.len > cap {
            return None;
        }
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut read = 0u64;
        let mut file = file.take(cap + 1);
        loop {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    hasher.update(&buf[..n]);
                    read += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        // Grown or shrunk while being read: the stamp would not describe
        // the bytes hashed.
        if read != stamp.len {
            return None;
        }
        Some((stamp, hasher.finalize().into()))
    }
}

/// Lowercase hex of a digest.
pub(crate) fn hex(digest: &[u8; 32]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(64);
    for b in digest {
        let _ = write!(out, "{b:02x}");
    }
    out
}
