//! The search index file: every searched file's [`FileStats`], inverted
//! into postings, so a ranked search reads only its query's tokens.
//!
//! It is a cache. Nothing in it is trusted that the file system can say
//! otherwise: an entry counts only for a file listed now whose size and
//! modification time ([`Sig`]) are still the ones recorded, and
//! whose modification time is older than the build by [`RACY_NS`] (a file
//! changed again within the same clock tick as it was read could keep its
//! signature; the next search re-reads it instead). Everything else is
//! read again. A file that fails any check (magic, version, lengths,
//! checksums, bounds) is ignored whole and rebuilt.
//!
//! # Layout (little-endian)
//! ```text
//! header   64 bytes: magic, version, files, built_at, terms, 0,
//!          postings_len, front_len, front checksum, header checksum
//! postings per term: df × (file id gap, tf name, tf headings, tf body,
//!          lines), varints, ids ascending
//! front    the file table: per file, path (u16 length + bytes), size,
//!          mtime, three field lengths (u32);
//!          the dictionary: per term, a 32-byte record (text offset and
//!          length, postings offset and length, df, checksum), sorted by
//!          term; then the terms' text
//! ```
//! The postings come first so a writer can stream them and put the small
//! front last; a reader takes the header, then the front in one read, then
//! one read per query token. The front is checksummed whole (every search
//! needs all of it); each term's postings alone, checked when read.
//!
//! The checksum ([`checksum`]) is not a signature: it catches truncation,
//! torn writes and flipped bytes, not a forgery made to pass it.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

use crate::fsio::{self, LockGuard, Sig};
use crate::rank::{FIELDS, FileStats, TermStats};

/// The first eight bytes of an index file.
pub const MAGIC: [u8; 8] = *b"AMIDX\0\r\n";
/// The format version; any other is rebuilt. 4: a list item's or table
/// row's leading code span counts in the heading field (3 counted a
/// leading bold span too).
pub const VERSION: u32 = 4;
/// How much older than the build a file's modification time must be for
/// its entry to be trusted: covers file systems with coarse timestamps
/// (FAT keeps two seconds).
pub const RACY_NS: i64 = 2_000_000_000;
const HEADER_LEN: usize = 64;
const RECORD_LEN: usize = 32;
/// Largest index file read; a larger one is ignored (and rebuilt).
const MAX_INDEX_BYTES: u64 = 1 << 31;

/// A 64-bit checksum, a word at a time. Each step is a bijection of the
/// state for a fixed word and of the word for a fixed state, so changing
/// any single word (or the length) always changes the result.
pub fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (bytes.len() as u64) ^ 0x243F_6A88_85A3_08D3;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(b)).wrapping_mul(K);
    }
    let rest = words.remainder();
    let mut b = [0u8; 8];
    b[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(23) ^ u64::from_le_bytes(b)).wrapping_mul(K);
    h ^ (h >> 29)
}

/// One searched file as the index records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Store-relative path.
    pub path: String,
    /// Its signature when it was read.
    pub sig: Sig,
    /// Bytes per field.
    pub lengths: [u32; FIELDS],
}

/// The index held something that does not add up: ignore it, rebuild.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corrupt;

/// A dictionary record.
#[derive(Debug, Clone, Copy)]
struct Record {
    text: (usize, usize),
    post: (u64, usize),
    df: u32,
    sum: u64,
}

/// A loaded index: the file table parsed, the dictionary kept as bytes.
#[derive(Debug)]
pub struct Index {
    file: File,
    /// When the build began, nanoseconds since the epoch.
    pub built_at: i64,
    /// The file table.
    pub entries: Vec<Entry>,
    /// Entry by path, made on the first lookup that the walk order does
    /// not answer (see [`Index::entry_of`]).
    by_path: std::cell::OnceCell<HashMap<String, u32>>,
    front: Vec<u8>,
    records_at: usize,
    terms: usize,
    postings_len: u64,
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*at)?;
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn varint32(b: &[u8], at: &mut usize) -> Option<u32> {
    u32::try_from(varint(b, at)?).ok()
}

/// Read exactly `len` bytes at `offset`, or fail.
fn read_at(file: &File, offset: u64, len: usize) -> io::Result<Vec<u8>> {
    let bytes = fsio::read_range(file, offset, len)?;
    if bytes.len() != len {
        return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
    }
    Ok(bytes)
}

impl Index {
    /// Open and check the index at `path`; `None` when it is missing or
    /// fails any check.
    pub fn load(path: &Path) -> Option<Index> {
        let file = File::open(path).ok()?;
        let size = file.metadata().ok()?.len();
        if size > MAX_INDEX_BYTES || size < HEADER_LEN as u64 {
            return None;
        }
        let header = read_at(&file, 0, HEADER_LEN).ok()?;
        let (postings_len, front_len) = Self::check_header(&header, size)?;
        let front = read_at(&file, HEADER_LEN as u64 + postings_len, front_len).ok()?;
        if checksum(&front) != u64_at(&header, 48)? {
            return None;
        }
        Self::parse(file, &header, front, postings_len)
    }

    /// The postings and front lengths a sound header gives for a file of
    /// `size` bytes.
    fn check_header(header: &[u8], size: u64) -> Option<(u64, usize)> {
        if header.get(..8)? != MAGIC
            || u32_at(header, 8)? != VERSION
            || checksum(header.get(..56)?) != u64_at(header, 56)?
        {
            return None;
        }
        let postings_len = u64_at(header, 32)?;
        let front_len = u64_at(header, 40)?;
        let total = (HEADER_LEN as u64)
            .checked_add(postings_len)?
            .checked_add(front_len)?;
        (total == size).then_some((postings_len, usize::try_from(front_len).ok()?))
    }

    fn parse(file: File, header: &[u8], front: Vec<u8>, postings_len: u64) -> Option<Index> {
        let files = u32_at(header, 12)? as usize;
        let built_at = u64_at(header, 16)? as i64;
        let terms = u32_at(header, 24)? as usize;
        // Each entry takes at least 30 bytes: a count cannot outgrow them.
        if files > front.len() / 30 {
            return None;
        }
        let mut entries = Vec::with_capacity(files);
        let mut at = 0;
        for _ in 0..files {
            let n = usize::from(u16::from_le_bytes(front.get(at..at + 2)?.try_into().ok()?));
            let path = std::str::from_utf8(front.get(at + 2..at + 2 + n)?).ok()?;
            at += 2 + n;
            let sig = Sig {
                len: u64_at(&front, at)?,
                mtime_ns: u64_at(&front, at + 8)? as i64,
            };
            let lengths = [
                u32_at(&front, at + 16)?,
                u32_at(&front, at + 20)?,
                u32_at(&front, at + 24)?,
            ];
            at += 28;
            entries.push(Entry {
                path: path.to_string(),
                sig,
                lengths,
            });
        }
        if terms > (front.len() - at) / RECORD_LEN {
            return None;
        }
        Some(Index {
            file,
            built_at,
            entries,
            by_path: std::cell::OnceCell::new(),
            front,
            records_at: at,
            terms,
            postings_len,
        })
    }

    /// The entry recorded for `path`, trying `guess` first: a search walks
    /// the store in the order the index was written, so the entry after the
    /// last one found is nearly always the next one wanted, and no path is
    /// hashed. (A planted index that names one path twice gets one of the
    /// two, as a planted index can say anything; see the module docs.)
    pub fn entry_of(&self, path: &str, guess: usize) -> Option<u32> {
        if self.entries.get(guess).is_some_and(|e| e.path == path) {
            return u32::try_from(guess).ok();
        }
        let by_path = self.by_path.get_or_init(|| {
            let mut m = HashMap::with_capacity(self.entries.len());
            for (id, e) in self.entries.iter().enumerate() {
                m.entry(e.path.clone()).or_insert(id as u32);
            }
            m
        });
        by_path.get(path).copied()
    }

    /// Number of terms.
    pub fn term_count(&self) -> usize {
        self.terms
    }

    fn record(&self, i: usize) -> Result<Record, Corrupt> {
        let r = self.records_at + i * RECORD_LEN;
        let f = &self.front;
        let heap = self.records_at + self.terms * RECORD_LEN;
        let field = |a| u32_at(f, r + a).ok_or(Corrupt);
        let text_at = heap.checked_add(field(0)? as usize).ok_or(Corrupt)?;
        let text_len = field(4)? as usize;
        let post_at = u64_at(f, r + 8).ok_or(Corrupt)?;
        let post_len = field(16)? as usize;
        if text_at
            .checked_add(text_len)
            .is_none_or(|end| end > f.len())
            || post_at
                .checked_add(post_len as u64)
                .is_none_or(|end| end > self.postings_len)
        {
            return Err(Corrupt);
        }
        Ok(Record {
            text: (text_at, text_len),
            post: (post_at, post_len),
            df: field(20)?,
            sum: u64_at(f, r + 24).ok_or(Corrupt)?,
        })
    }

    fn text(&self, r: &Record) -> &[u8] {
        &self.front[r.text.0..r.text.0 + r.text.1]
    }

    /// The term `i` of the dictionary, in order.
    pub fn term(&self, i: usize) -> Result<&[u8], Corrupt> {
        let r = self.record(i)?;
        Ok(self.text(&r))
    }

    /// The files holding `token` and its counts in each, by entry, or
    /// nothing when no file does.
    ///
    /// # Errors
    /// [`Corrupt`] when its postings fail their checksum or do not decode.
    pub fn postings(&self, token: &str) -> Result<Vec<(u32, TermStats)>, Corrupt> {
        let (mut lo, mut hi) = (0, self.terms);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let r = self.record(mid)?;
            match self.text(&r).cmp(token.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let block = read_at(&self.file, HEADER_LEN as u64 + r.post.0, r.post.1)
                        .map_err(|_| Corrupt)?;
                    return self.decode(&r, &block);
                }
            }
        }
        Ok(Vec::new())
    }

    /// Every postings block, in one read: for rewriting the index.
    fn all_postings(&self) -> Result<Vec<u8>, Corrupt> {
        let len = usize::try_from(self.postings_len).map_err(|_| Corrupt)?;
        read_at(&self.file, HEADER_LEN as u64, len).map_err(|_| Corrupt)
    }

    fn decode(&self, r: &Record, block: &[u8]) -> Result<Vec<(u32, TermStats)>, Corrupt> {
        if checksum(block) != r.sum {
            return Err(Corrupt);
        }
        // A posting takes at least five bytes.
        if r.df as usize > block.len() / 5 {
            return Err(Corrupt);
        }
        let mut out = Vec::with_capacity(r.df as usize);
        let mut at = 0;
        let mut next = 0u32;
        for _ in 0..r.df {
            let mut get = || varint32(block, &mut at).ok_or(Corrupt);
            let id = next.checked_add(get()?).ok_or(Corrupt)?;
            let stats = TermStats {
                tf: [get()?, get()?, get()?],
                lines: get()?,
            };
            if id as usize >= self.entries.len() {
                return Err(Corrupt);
            }
            next = id.checked_add(1).ok_or(Corrupt)?;
            out.push((id, stats));
        }
        if at != block.len() {
            return Err(Corrupt);
        }
        Ok(out)
    }
}

/// One term's postings being built.
#[derive(Debug, Default)]
pub struct Postings {
    bytes: Vec<u8>,
    next: u32,
    df: u32,
}

impl Postings {
    fn push(&mut self, id: u32, s: &TermStats) {
        put_varint(&mut self.bytes, u64::from(id - self.next));
        for v in [s.tf[0], s.tf[1], s.tf[2], s.lines] {
            put_varint(&mut self.bytes, u64::from(v));
        }
        self.next = id + 1;
        self.df += 1;
    }

    /// The postings, decoded.
    pub fn decode(&self) -> Vec<(u32, TermStats)> {
        let mut out = Vec::with_capacity(self.df as usize);
        let (mut at, mut next) = (0, 0u32);
        for _ in 0..self.df {
            let mut get = || varint32(&self.bytes, &mut at).unwrap_or(0);
            let id = next + get();
            out.push((
                id,
                TermStats {
                    tf: [get(), get(), get()],
                    lines: get(),
                },
            ));
            next = id + 1;
        }
        out
    }
}

/// Postings of files read by this search, by token, file ids ascending.
#[derive(Debug, Default)]
pub struct Fresh {
    /// Token to postings.
    pub terms: HashMap<String, Postings>,
}

impl Fresh {
    /// Add the file `id` (larger than any added before).
    pub fn add(&mut self, id: u32, stats: &FileStats) {
        for (token, s) in &stats.terms {
            match self.terms.get_mut(token.as_str()) {
                Some(p) => p.push(id, s),
                None => {
                    let mut p = Postings::default();
                    p.push(id, s);
                    self.terms.insert(token.clone(), p);
                }
            }
        }
    }
}

/// Write a new index to `dir/name` under the store's lock: `entries` in
/// their new order, postings from `old` (its entry `i` now being
/// `remap[i]`, if kept) merged with `fresh` (already in new ids).
/// Replaced atomically; a crash leaves the old file or the new one, and a
/// hidden temp file the next writer removes.
///
/// # Errors
/// When writing fails, or the old index turns out corrupt.
pub fn write(
    dir: &Path,
    name: &str,
    fence: &LockGuard,
    built_at: i64,
    entries: &[Entry],
    old: Option<(&Index, &[Option<u32>])>,
    fresh: &Fresh,
) -> io::Result<()> {
    let corrupt = |_| io::Error::other("the old index is corrupt");
    let old_postings = match old {
        Some((index, _)) => Some(index.all_postings().map_err(corrupt)?),
        None => None,
    };
    let tmp = dir.join(fsio::temp_name(name));
    let result = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        let mut out = io::BufWriter::with_capacity(1 << 16, &mut file);
        out.write_all(&[0; HEADER_LEN])?;
        let mut fresh_terms: Vec<&String> = fresh.terms.keys().collect();
        fresh_terms.sort_unstable();
        let mut fresh_terms = fresh_terms.into_iter().peekable();
        let old_terms = old.map_or(0, |(index, _)| index.term_count());
        let mut records: Vec<u8> = Vec::new();
        let mut heap: Vec<u8> = Vec::new();
        let mut offset = 0u64;
        let mut block = Postings::default();
        let mut emit = |token: &[u8], block: &Postings| -> io::Result<()> {
            if block.df == 0 {
                return Ok(());
            }
            out.write_all(&block.bytes)?;
            let to32 = |n: usize| u32::try_from(n).map_err(|_| io::Error::other("index too large"));
            records.extend_from_slice(&to32(heap.len())?.to_le_bytes());
            records.extend_from_slice(&to32(token.len())?.to_le_bytes());
            records.extend_from_slice(&offset.to_le_bytes());
            records.extend_from_slice(&to32(block.bytes.len())?.to_le_bytes());
            records.extend_from_slice(&block.df.to_le_bytes());
            records.extend_from_slice(&checksum(&block.bytes).to_le_bytes());
            heap.extend_from_slice(token);
            offset += block.bytes.len() as u64;
            Ok(())
        };
        let mut i = 0;
        loop {
            let old_term = match old {
                Some((index, _)) if i < old_terms => Some(index.term(i).map_err(corrupt)?),
                _ => None,
            };
            let fresh_term = fresh_terms.peek().map(|t| t.as_bytes());
            let token: Vec<u8> = match (old_term, fresh_term) {
                (None, None) => break,
                (Some(o), Some(f)) => o.min(f).to_vec(),
                (Some(o), None) => o.to_vec(),
                (None, Some(f)) => f.to_vec(),
            };
            let mut merged: Vec<(u32, TermStats)> = Vec::new();
            if old_term == Some(token.as_slice())
                && let (Some((index, remap)), Some(bytes)) = (old, &old_postings)
            {
                let r = index.record(i).map_err(corrupt)?;
                let start = usize::try_from(r.post.0).map_err(|_| corrupt(Corrupt))?;
                let list = index
                    .decode(&r, &bytes[start..start + r.post.1])
                    .map_err(corrupt)?;
                merged.extend(list.into_iter().filter_map(|(id, s)| {
                    remap.get(id as usize).copied().flatten().map(|n| (n, s))
                }));
                i += 1;
            }
            if fresh_term == Some(token.as_slice())
                && let Some(t) = fresh_terms.next()
            {
                merged.extend(fresh.terms[t].decode());
            }
            merged.sort_unstable_by_key(|p| p.0);
            block.bytes.clear();
            block.next = 0;
            block.df = 0;
            for (id, s) in &merged {
                block.push(*id, s);
            }
            emit(&token, &block)?;
        }
        let mut front = Vec::new();
        for e in entries {
            let n = u16::try_from(e.path.len()).map_err(|_| io::Error::other("path too long"))?;
            front.extend_from_slice(&n.to_le_bytes());
            front.extend_from_slice(e.path.as_bytes());
            front.extend_from_slice(&e.sig.len.to_le_bytes());
            front.extend_from_slice(&e.sig.mtime_ns.to_le_bytes());
            for l in e.lengths {
                front.extend_from_slice(&l.to_le_bytes());
            }
        }
        let terms = records.len() / RECORD_LEN;
        front.extend_from_slice(&records);
        front.extend_from_slice(&heap);
        out.write_all(&front)?;
        out.flush()?;
        drop(out);
        let mut header = Vec::with_capacity(HEADER_LEN);
        header.extend_from_slice(&MAGIC);
        header.extend_from_slice(&VERSION.to_le_bytes());
        let count = |n: usize| u32::try_from(n).map_err(|_| io::Error::other("index too large"));
        header.extend_from_slice(&count(entries.len())?.to_le_bytes());
        header.extend_from_slice(&built_at.to_le_bytes());
        header.extend_from_slice(&count(terms)?.to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        header.extend_from_slice(&offset.to_le_bytes());
        header.extend_from_slice(&(front.len() as u64).to_le_bytes());
        header.extend_from_slice(&checksum(&front).to_le_bytes());
        let sum = checksum(&header);
        header.extend_from_slice(&sum.to_le_bytes());
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&header)?;
        file.sync_all()?;
        drop(file);
        fence.check()?;
        std::fs::rename(&tmp, dir.join(name))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result?;
    fsio::sync_dir(dir);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_sees_every_single_byte_change_and_length() {
        let base: Vec<u8> = (0..100u8).collect();
        let sum = checksum(&base);
        for i in 0..base.len() {
            for bit in 0..8 {
                let mut b = base.clone();
                b[i] ^= 1 << bit;
                assert_ne!(checksum(&b), sum, "byte {i} bit {bit}");
            }
        }
        for n in 0..base.len() {
            assert_ne!(checksum(&base[..n]), sum, "cut at {n}");
        }
        assert_ne!(checksum(&[0; 8]), checksum(&[0; 7]));
    }

    #[test]
    fn varints_round_trip_and_refuse_overlong() {
        let mut b = Vec::new();
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            b.clear();
            put_varint(&mut b, v);
            let mut at = 0;
            assert_eq!(varint(&b, &mut at), Some(v));
            assert_eq!(at, b.len());
        }
        let mut at = 0;
        assert_eq!(varint(&[0x80; 11], &mut at), None);
        let mut at = 0;
        assert_eq!(varint32(&[0xff, 0xff, 0xff, 0xff, 0x7f], &mut at), None);
    }
}
