//! Directory listings kept between ranked searches, so a search over an
//! unchanged store stats each file but lists no folder.
//!
//! Why: in the sandbox, listing a folder costs a host call per entry, and
//! wasmtime-wasi's own listing (the Python host's) stats every entry to type
//! it; the Rust and Node hosts type entries from the listing. With the
//! listing remembered, a warm search makes one stat per file and no
//! per-entry calls.
//!
//! Why it is sound: a folder's set of names changes only by creating,
//! removing or renaming an entry in it, and each of those sets the folder's
//! modification time. A remembered listing is used only while the folder's
//! size and modification time ([`Sig`]) are still the ones stat'ed *before*
//! it was listed, and only when that time is older than the search that
//! listed it by [`RACY_NS`] (a folder changed again within the same clock
//! tick could keep its signature). Anything else is listed again. The files
//! themselves are still stat'ed one by one, so an edit in place is seen as
//! before; the known limit is the index's own: a folder whose modification
//! time is put back by hand after its names changed.
//!
//! It is a cache: a missing, cut, flipped or foreign file is ignored whole
//! (magic, version, lengths, checksum, bounds) and written again by the next
//! ranked search that can take the store's lock at once. Literal search
//! reads it but never writes it.
//!
//! # Layout (little-endian)
//! ```text
//! header  24 bytes: magic, version, folders, built_at
//! body    per folder: path (u16 length + bytes), size, mtime, md count,
//!         subfolder count (u32 each), then each name (u16 length + bytes)
//! sum     8 bytes: the [`checksum`] of everything before it
//! ```

use crate::fsio::{self, LockGuard, Sig};
use crate::index::{RACY_NS, checksum};
use std::collections::HashMap;
use std::path::Path;

/// Now, in nanoseconds since the epoch: a search's start, taken before any
/// stat.
pub(crate) fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// The first eight bytes of a listings file.
const MAGIC: [u8; 8] = *b"AMDIRS\0\n";
/// The format version; any other is ignored.
const VERSION: u32 = 1;
const HEADER_LEN: usize = 24;
const SUM_LEN: usize = 8;
/// Largest listings file read; a larger one is ignored. Ten thousand
/// notes take about 300 KB.
const MAX_BYTES: u64 = 1 << 26;
/// Names listed again in settled folders past which a search rewrites the
/// file: below it, listing again costs about what rewriting would.
pub(crate) const REWRITE_NAMES: usize = 64;

/// One folder as listed: its `.md` files and subfolders, sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Names of the `.md` files the listing types as regular files.
    pub md: Vec<String>,
    /// Names of the subfolders.
    pub dirs: Vec<String>,
}

impl Listed {
    /// What the open directory `dir` holds now
    /// ([`fsio::Dir::md_and_subdir_names`]).
    pub(crate) fn of(dir: &fsio::Dir) -> std::io::Result<Listed> {
        let (md, dirs) = dir.md_and_subdir_names()?;
        Ok(Listed { md, dirs })
    }
}

/// Remembered folders: each one's signature and listing, by path.
type Remembered = HashMap<String, (Sig, Listed)>;

/// The folders of one search: remembered ones in, this search's out.
#[derive(Debug)]
pub struct Listings {
    /// When the remembered listings were taken (before any of their stats).
    built_at: i64,
    remembered: Remembered,
    /// Every folder this search saw, in walk order, for writing back.
    seen: Vec<(String, Sig, Listed)>,
    /// Names listed again in folders that had settled: the file is behind.
    relisted: usize,
    /// The file was missing or unsound.
    unsound: bool,
    /// When this search began, before any stat.
    started: i64,
}

impl Listings {
    /// No remembered listings: every folder is listed (and nothing is
    /// written back).
    pub fn none() -> Listings {
        Listings {
            built_at: i64::MIN,
            remembered: HashMap::new(),
            seen: Vec::new(),
            relisted: 0,
            unsound: false,
            started: i64::MIN,
        }
    }

    /// The listings at `path`, for a search that began at `started`
    /// (nanoseconds since the epoch, taken before any stat).
    pub fn load(path: &Path, started: i64) -> Listings {
        let mut out = Listings::none();
        out.started = started;
        match read_capped(path).and_then(|b| parse(&b)) {
            Some((built_at, remembered)) => {
                out.built_at = built_at;
                out.remembered = remembered;
            }
            None => out.unsound = true,
        }
        out
    }

    /// The listing of the folder `dir` (store-relative): the remembered one
    /// while `sig()` (the folder's stat, taken first) still matches it, else
    /// `list()`'s. With nothing remembered ([`Listings::none`]) the folder
    /// is only listed, not stat'ed.
    pub fn list(
        &mut self,
        dir: &str,
        sig: impl FnOnce() -> Option<Sig>,
        list: impl FnOnce() -> std::io::Result<Listed>,
    ) -> std::io::Result<Listed> {
        if self.started == i64::MIN {
            return list();
        }
        let Some(sig) = sig() else {
            return list();
        };
        if let Some((was, listed)) = self.remembered.remove(dir)
            && was == sig
            && sig.mtime_ns < self.built_at.saturating_sub(RACY_NS)
        {
            self.seen.push((dir.to_string(), sig, listed.clone()));
            return Ok(listed);
        }
        let listed = list()?;
        if sig.mtime_ns < self.started.saturating_sub(RACY_NS) {
            self.relisted += listed.md.len() + listed.dirs.len() + 1;
        }
        self.seen.push((dir.to_string(), sig, listed.clone()));
        Ok(listed)
    }

    /// Should this search write the listings back: the file was unsound,
    /// or settled folders had to be listed again.
    pub fn behind(&self) -> bool {
        !self.seen.is_empty() && (self.unsound || self.relisted > REWRITE_NAMES)
    }

    /// Write this search's listings to `dir/name`, under the store's lock.
    /// Never fails: it is a cache.
    pub fn save(&self, dir: &Path, name: &str, fence: &LockGuard) {
        if let Some(bytes) = encode(self.started, &self.seen) {
            let _ = fsio::replace_cache(dir, name, &bytes, fence);
        }
    }
}

/// The bytes at `path`, unless it is missing or larger than [`MAX_BYTES`]
/// (read no further than that: a planted file cannot make a search read
/// gigabytes).
fn read_capped(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= MAX_BYTES).then_some(bytes)
}

fn encode(built_at: i64, dirs: &[(String, Sig, Listed)]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    let put_str = |body: &mut Vec<u8>, s: &str| -> Option<()> {
        body.extend_from_slice(&u16::try_from(s.len()).ok()?.to_le_bytes());
        body.extend_from_slice(s.as_bytes());
        Some(())
    };
    for (path, sig, listed) in dirs {
        put_str(&mut body, path)?;
        body.extend_from_slice(&sig.len.to_le_bytes());
        body.extend_from_slice(&sig.mtime_ns.to_le_bytes());
        body.extend_from_slice(&u32::try_from(listed.md.len()).ok()?.to_le_bytes());
        body.extend_from_slice(&u32::try_from(listed.dirs.len()).ok()?.to_le_bytes());
        for n in listed.md.iter().chain(&listed.dirs) {
            put_str(&mut body, n)?;
        }
    }
    let mut out = Vec::with_capacity(HEADER_LEN + body.len() + SUM_LEN);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&u32::try_from(dirs.len()).ok()?.to_le_bytes());
    out.extend_from_slice(&built_at.to_le_bytes());
    out.extend_from_slice(&body);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Some(out)
}

/// A sound file's build time and folders; `None` for anything else.
fn parse(b: &[u8]) -> Option<(i64, Remembered)> {
    if b.len() < HEADER_LEN + SUM_LEN || b[..8] != MAGIC {
        return None;
    }
    let (b, sum) = b.split_at(b.len() - SUM_LEN);
    if checksum(b).to_le_bytes() != sum {
        return None;
    }
    let u32_at = |at: usize| Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?));
    if u32_at(8)? != VERSION {
        return None;
    }
    let dirs = u32_at(12)? as usize;
    let built_at = u64_at(16)? as i64;
    let body = &b[HEADER_LEN..];
    if dirs > body.len() / 26 {
        return None;
    }
    let mut at = 0;
    let take_str = |at: &mut usize| -> Option<String> {
        let n = usize::from(u16::from_le_bytes(body.get(*at..*at + 2)?.try_into().ok()?));
        let s = std::str::from_utf8(body.get(*at + 2..*at + 2 + n)?).ok()?;
        *at += 2 + n;
        Some(s.to_string())
    };
    let u64_in = |at: usize| Some(u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?));
    let u32_in = |at: usize| Some(u32::from_le_bytes(body.get(at..at + 4)?.try_into().ok()?));
    let mut out = HashMap::with_capacity(dirs);
    for _ in 0..dirs {
        let path = take_str(&mut at)?;
        let sig = Sig {
            len: u64_in(at)?,
            mtime_ns: u64_in(at + 8)? as i64,
        };
        let (md, sub) = (u32_in(at + 16)? as usize, u32_in(at + 20)? as usize);
        at += 24;
        // Each name takes at least two bytes: counts cannot outgrow them.
        if md.checked_add(sub)? > (body.len() - at) / 2 {
            return None;
        }
        let mut names = (0..md + sub).map(|_| take_str(&mut at));
        let md: Vec<String> = names.by_ref().take(md).collect::<Option<_>>()?;
        let dirs: Vec<String> = names.collect::<Option<_>>()?;
        if out.insert(path, (sig, Listed { md, dirs })).is_some() {
            return None;
        }
    }
    (at == body.len()).then_some((built_at, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<(String, Sig, Listed)> {
        vec![
            (
                "projects/p/notes".into(),
                Sig {
                    len: 4096,
                    mtime_ns: 1_000_000_000_000,
                },
                Listed {
                    md: vec!["a.md".into(), "b.md".into()],
                    dirs: vec!["ops".into()],
                },
            ),
            (
                "projects/p/notes/ops".into(),
                Sig {
                    len: 0,
                    mtime_ns: -5,
                },
                Listed {
                    md: vec![],
                    dirs: vec![],
                },
            ),
        ]
    }

    #[test]
    fn round_trips_and_refuses_any_cut_or_flipped_byte() {
        let dirs = sample();
        let bytes = encode(77, &dirs).unwrap();
        let (built_at, back) = parse(&bytes).unwrap();
        assert_eq!(built_at, 77);
        assert_eq!(back.len(), 2);
        for (path, sig, listed) in &dirs {
            assert_eq!(back[path], (*sig, listed.clone()));
        }
        for n in 0..bytes.len() {
            assert!(parse(&bytes[..n]).is_none(), "cut at {n}");
        }
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x10;
            assert!(parse(&bad).is_none(), "flipped byte {i}");
        }
    }

    #[test]
    fn a_remembered_listing_counts_only_while_settled_and_unchanged() {
        let dirs = sample();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("l");
        let (path, sig, listed) = &dirs[0];
        let built_at = sig.mtime_ns + 10 * RACY_NS;
        std::fs::write(&file, encode(built_at, &dirs).unwrap()).unwrap();
        let fresh = Listed {
            md: vec!["c.md".into()],
            dirs: vec![],
        };
        let list = |l: &Listed| {
            let l = l.clone();
            move || Ok(l)
        };
        // Unchanged and settled: remembered, `list` never called.
        let mut l = Listings::load(&file, built_at + 1);
        let got = l
            .list(path, || Some(*sig), || panic!("listed again"))
            .unwrap();
        assert_eq!(&got, listed);
        assert!(!l.behind());
        // Another modification time: listed again.
        let mut l = Listings::load(&file, built_at + 1);
        let moved = Sig {
            mtime_ns: sig.mtime_ns + 1,
            ..*sig
        };
        assert_eq!(l.list(path, || Some(moved), list(&fresh)).unwrap(), fresh);
        // Changed within the racy window of the build: listed again.
        let racy = Sig {
            mtime_ns: built_at - RACY_NS + 1,
            ..*sig
        };
        std::fs::write(
            &file,
            encode(built_at, &[(path.clone(), racy, listed.clone())]).unwrap(),
        )
        .unwrap();
        let mut l = Listings::load(&file, built_at + 1);
        assert_eq!(l.list(path, || Some(racy), list(&fresh)).unwrap(), fresh);
        // No signature (the folder could not be stat'ed): always listed.
        let mut l = Listings::load(&file, built_at + 1);
        assert_eq!(l.list(path, || None, list(&fresh)).unwrap(), fresh);
    }

    #[test]
    fn falls_behind_when_missing_or_when_settled_folders_changed() {
        let dir = tempfile::tempdir().unwrap();
        let started = 100 * RACY_NS;
        let mut l = Listings::load(&dir.path().join("missing"), started);
        assert!(!l.behind(), "nothing seen, nothing to write");
        let empty = Listed {
            md: vec![],
            dirs: vec![],
        };
        let sig = Sig {
            len: 1,
            mtime_ns: 0,
        };
        l.list("d", || Some(sig), || Ok(empty.clone())).unwrap();
        assert!(l.behind(), "a missing file is written");

        let file = dir.path().join("l");
        std::fs::write(&file, encode(started, &[]).unwrap()).unwrap();
        let many = Listed {
            md: (0..REWRITE_NAMES).map(|i| format!("{i}.md")).collect(),
            dirs: vec![],
        };
        // A folder that changed just now: listing it again is expected.
        let mut l = Listings::load(&file, started);
        let just_now = Sig {
            len: 1,
            mtime_ns: started,
        };
        l.list("d", || Some(just_now), || Ok(many.clone())).unwrap();
        assert!(!l.behind());
        // A settled folder the file does not know: behind.
        let mut l = Listings::load(&file, started);
        l.list("d", || Some(sig), || Ok(many.clone())).unwrap();
        assert!(l.behind());
    }

    #[test]
    fn a_file_past_the_cap_is_not_read_whole_and_counts_as_missing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big");
        let mut bytes = encode(1, &sample()).unwrap();
        assert!(read_capped(&file).is_none(), "missing");
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!(read_capped(&file), Some(bytes.clone()));
        bytes.resize(MAX_BYTES as usize + 1, 0);
        std::fs::write(&file, &bytes).unwrap();
        assert!(read_capped(&file).is_none(), "one byte past the cap");
        let l = Listings::load(&file, 0);
        assert!(l.unsound && l.remembered.is_empty());
    }
}
