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
//! header     72 bytes: magic, version, files, built_at, terms, blocks,
//!            postings_len, dictionary_len, front_len, front checksum,
//!            header checksum
//! postings   per term: df × (file id gap, tf name, tf headings, tf body,
//!            lines), varints, ids ascending
//! dictionary the terms in sorted order, in blocks of BLOCK_TERMS: per
//!            block, a 32-byte record per term (text offset in the block
//!            and length, postings offset and length, df, checksum), then
//!            the terms' text
//! front      the file table: per file, path (u16 length + bytes), size,
//!            mtime, three field lengths (u32);
//!            the block table: per block, a 32-byte record of the same
//!            shape (its first term's text offset and length, the block's
//!            offset in the dictionary and length, its term count,
//!            checksum); then the first terms' text
//! ```
//! The postings come first so a writer can stream them and put the small
//! front last. A reader takes the header, then the front in one read, then
//! per query token one read of a dictionary block and one of its postings.
//! The front is checksummed whole (every search needs all of it); each
//! block and each term's postings alone, checked when read, so a search
//! reads about a file table's worth plus a few kilobytes per token, not
//! the whole dictionary (most of an index's front before format 5).
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
/// The format version; any other is rebuilt. 6: Han, Hiragana and
/// Katakana split at Unicode word boundaries (5 kept a run of them as one
/// token). 5: the dictionary in blocks outside the front (4 kept it whole in
/// the front; 4 also began counting a list item's or table row's leading
/// code span in the heading field).
pub const VERSION: u32 = 6;
/// How much older than the build a file's modification time must be for
/// its entry to be trusted: covers file systems with coarse timestamps
/// (FAT keeps two seconds).
pub const RACY_NS: i64 = 2_000_000_000;
const HEADER_LEN: usize = 72;
const RECORD_LEN: usize = 32;
/// Terms per dictionary block: a lookup reads one block, about 2.5 KB.
const BLOCK_TERMS: usize = 64;
/// Largest index file read; a larger one is ignored (and rebuilt).
const MAX_INDEX_BYTES: u64 = 1 << 31;

/// The 64-bit checksum of every index file (one definition for the index
/// and the weights' identity).
pub use agent_memory_embed::checksum;

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

/// A dictionary record: a term's, or in the block table a block's (its
/// first term, where it lies in the dictionary, `df` its term count).
#[derive(Debug, Clone, Copy)]
struct Record {
    text: (usize, usize),
    post: (u64, usize),
    df: u32,
    sum: u64,
}

/// A loaded index: the file table parsed, the block table kept as bytes.
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
    blocks_at: usize,
    blocks: usize,
    terms: usize,
    postings_len: u64,
    dictionary_len: u64,
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

/// One record of `table` (32-byte records from `at`, `count` of them,
/// then their text heap): its text within `table`, its range within a
/// region of `region_len` bytes, its count and checksum.
fn record_in(
    table: &[u8],
    at: usize,
    count: usize,
    i: usize,
    region_len: u64,
) -> Result<Record, Corrupt> {
    let r = at + i * RECORD_LEN;
    let field = |a| u32_at(table, r + a).ok_or(Corrupt);
    let heap = at + count * RECORD_LEN;
    let text_at = heap.checked_add(field(0)? as usize).ok_or(Corrupt)?;
    let text_len = field(4)? as usize;
    let post_at = u64_at(table, r + 8).ok_or(Corrupt)?;
    let post_len = field(16)? as usize;
    if text_at
        .checked_add(text_len)
        .is_none_or(|end| end > table.len())
        || post_at
            .checked_add(post_len as u64)
            .is_none_or(|end| end > region_len)
    {
        return Err(Corrupt);
    }
    Ok(Record {
        text: (text_at, text_len),
        post: (post_at, post_len),
        df: field(20)?,
        sum: u64_at(table, r + 24).ok_or(Corrupt)?,
    })
}

/// Every term of a dictionary, in order, with its record.
type Terms = Vec<(Vec<u8>, Record)>;

/// A dictionary block, read and checked: `count` term records, then their
/// text.
struct Block {
    bytes: Vec<u8>,
    count: usize,
}

impl Block {
    /// The block `bytes` recorded by `r` in the block table, if it is the
    /// one written there.
    fn check(bytes: Vec<u8>, r: &Record) -> Result<Block, Corrupt> {
        let count = r.df as usize;
        if checksum(&bytes) != r.sum || count == 0 || count > bytes.len() / RECORD_LEN {
            return Err(Corrupt);
        }
        Ok(Block { bytes, count })
    }

    fn record(&self, i: usize, postings_len: u64) -> Result<Record, Corrupt> {
        record_in(&self.bytes, 0, self.count, i, postings_len)
    }

    fn text(&self, r: &Record) -> &[u8] {
        &self.bytes[r.text.0..r.text.0 + r.text.1]
    }
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
        let (postings_len, dictionary_len, front_len) = Self::check_header(&header, size)?;
        let front_at = HEADER_LEN as u64 + postings_len + dictionary_len;
        let front = read_at(&file, front_at, front_len).ok()?;
        if checksum(&front) != u64_at(&header, 56)? {
            return None;
        }
        Self::parse(file, &header, front, postings_len, dictionary_len)
    }

    /// The postings, dictionary and front lengths a sound header gives for
    /// a file of `size` bytes.
    fn check_header(header: &[u8], size: u64) -> Option<(u64, u64, usize)> {
        if header.get(..8)? != MAGIC
            || u32_at(header, 8)? != VERSION
            || checksum(header.get(..64)?) != u64_at(header, 64)?
        {
            return None;
        }
        let postings_len = u64_at(header, 32)?;
        let dictionary_len = u64_at(header, 40)?;
        let front_len = u64_at(header, 48)?;
        let total = (HEADER_LEN as u64)
            .checked_add(postings_len)?
            .checked_add(dictionary_len)?
            .checked_add(front_len)?;
        (total == size).then_some((
            postings_len,
            dictionary_len,
            usize::try_from(front_len).ok()?,
        ))
    }

    fn parse(
        file: File,
        header: &[u8],
        front: Vec<u8>,
        postings_len: u64,
        dictionary_len: u64,
    ) -> Option<Index> {
        let files = u32_at(header, 12)? as usize;
        let built_at = u64_at(header, 16)? as i64;
        let terms = u32_at(header, 24)? as usize;
        let blocks = u32_at(header, 28)? as usize;
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
        if blocks > (front.len() - at) / RECORD_LEN || blocks != terms.div_ceil(BLOCK_TERMS) {
            return None;
        }
        Some(Index {
            file,
            built_at,
            entries,
            by_path: std::cell::OnceCell::new(),
            front,
            blocks_at: at,
            blocks,
            terms,
            postings_len,
            dictionary_len,
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

    /// The block table's record of block `i`.
    fn block_record(&self, i: usize) -> Result<Record, Corrupt> {
        record_in(
            &self.front,
            self.blocks_at,
            self.blocks,
            i,
            self.dictionary_len,
        )
    }

    /// The first term of the block recorded by `r`.
    fn first_term(&self, r: &Record) -> &[u8] {
        &self.front[r.text.0..r.text.0 + r.text.1]
    }

    /// The files holding `token` and its counts in each, by entry, or
    /// nothing when no file does.
    ///
    /// # Errors
    /// [`Corrupt`] when the block or the postings fail their checksums or
    /// do not decode.
    pub fn postings(&self, token: &str) -> Result<Vec<(u32, TermStats)>, Corrupt> {
        let token = token.as_bytes();
        // The last block whose first term is not after the token.
        let (mut lo, mut hi) = (0, self.blocks);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let r = self.block_record(mid)?;
            if self.first_term(&r) <= token {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let Some(b) = lo.checked_sub(1) else {
            return Ok(Vec::new());
        };
        let br = self.block_record(b)?;
        let at = HEADER_LEN as u64 + self.postings_len + br.post.0;
        let block = Block::check(
            read_at(&self.file, at, br.post.1).map_err(|_| Corrupt)?,
            &br,
        )?;
        let (mut lo, mut hi) = (0, block.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let r = block.record(mid, self.postings_len)?;
            match block.text(&r).cmp(token) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let bytes = read_at(&self.file, HEADER_LEN as u64 + r.post.0, r.post.1)
                        .map_err(|_| Corrupt)?;
                    return self.decode(&r, &bytes);
                }
            }
        }
        Ok(Vec::new())
    }

    /// Every postings block and every term, in one read each: for
    /// rewriting the index. The terms come in order, each with its record.
    fn everything(&self) -> Result<(Vec<u8>, Terms), Corrupt> {
        let len = usize::try_from(self.postings_len).map_err(|_| Corrupt)?;
        let postings = read_at(&self.file, HEADER_LEN as u64, len).map_err(|_| Corrupt)?;
        let len = usize::try_from(self.dictionary_len).map_err(|_| Corrupt)?;
        let dictionary =
            read_at(&self.file, HEADER_LEN as u64 + self.postings_len, len).map_err(|_| Corrupt)?;
        let mut terms = Vec::with_capacity(self.terms);
        for b in 0..self.blocks {
            let br = self.block_record(b)?;
            let at = usize::try_from(br.post.0).map_err(|_| Corrupt)?;
            let block = Block::check(dictionary[at..at + br.post.1].to_vec(), &br)?;
            for i in 0..block.count {
                let r = block.record(i, self.postings_len)?;
                terms.push((block.text(&r).to_vec(), r));
            }
        }
        if terms.len() != self.terms || terms.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(Corrupt);
        }
        Ok((postings, terms))
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
    let (old_postings, old_terms) = match old {
        Some((index, _)) => index.everything().map_err(corrupt)?,
        None => (Vec::new(), Vec::new()),
    };
    let tmp = dir.join(fsio::temp_name(name));
    let result = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        let mut out = io::BufWriter::with_capacity(1 << 16, &mut file);
        out.write_all(&[0; HEADER_LEN])?;
        let mut fresh_terms: Vec<&String> = fresh.terms.keys().collect();
        fresh_terms.sort_unstable();
        let mut fresh_terms = fresh_terms.into_iter().peekable();
        let mut old_terms = old_terms.iter().peekable();
        let mut dictionary = Dictionary::default();
        let mut offset = 0u64;
        let mut block = Postings::default();
        loop {
            let old_term = old_terms.peek().map(|t| t.0.as_slice());
            let fresh_term = fresh_terms.peek().map(|t| t.as_bytes());
            let token: Vec<u8> = match (old_term, fresh_term) {
                (None, None) => break,
                (Some(o), Some(f)) => o.min(f).to_vec(),
                (Some(o), None) => o.to_vec(),
                (None, Some(f)) => f.to_vec(),
            };
            let mut merged: Vec<(u32, TermStats)> = Vec::new();
            if old_term == Some(token.as_slice())
                && let (Some((index, remap)), Some((_, r))) = (old, old_terms.next())
            {
                let start = usize::try_from(r.post.0).map_err(|_| corrupt(Corrupt))?;
                let list = index
                    .decode(r, &old_postings[start..start + r.post.1])
                    .map_err(corrupt)?;
                merged.extend(list.into_iter().filter_map(|(id, s)| {
                    remap.get(id as usize).copied().flatten().map(|n| (n, s))
                }));
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
            if block.df == 0 {
                continue;
            }
            out.write_all(&block.bytes)?;
            dictionary.push(&token, offset, &block)?;
            offset += block.bytes.len() as u64;
        }
        let (terms, blocks, dictionary, table) = dictionary.finish()?;
        out.write_all(&dictionary)?;
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
        front.extend_from_slice(&table);
        out.write_all(&front)?;
        out.flush()?;
        drop(out);
        let mut header = Vec::with_capacity(HEADER_LEN);
        header.extend_from_slice(&MAGIC);
        header.extend_from_slice(&VERSION.to_le_bytes());
        header.extend_from_slice(&to_u32(entries.len())?.to_le_bytes());
        header.extend_from_slice(&built_at.to_le_bytes());
        header.extend_from_slice(&to_u32(terms)?.to_le_bytes());
        header.extend_from_slice(&to_u32(blocks)?.to_le_bytes());
        header.extend_from_slice(&offset.to_le_bytes());
        header.extend_from_slice(&(dictionary.len() as u64).to_le_bytes());
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

fn to_u32(n: usize) -> io::Result<u32> {
    u32::try_from(n).map_err(|_| io::Error::other("index too large"))
}

/// A 32-byte record: text offset and length, a range (offset, length),
/// a count and a checksum.
fn put_record(
    out: &mut Vec<u8>,
    text: (usize, usize),
    range: (u64, usize),
    count: u32,
    sum: u64,
) -> io::Result<()> {
    out.extend_from_slice(&to_u32(text.0)?.to_le_bytes());
    out.extend_from_slice(&to_u32(text.1)?.to_le_bytes());
    out.extend_from_slice(&range.0.to_le_bytes());
    out.extend_from_slice(&to_u32(range.1)?.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(())
}

/// The dictionary being written, a block at a time, and its block table.
#[derive(Default)]
struct Dictionary {
    /// Finished blocks.
    bytes: Vec<u8>,
    /// The block table's records, then (in `first`) their first terms.
    table: Vec<u8>,
    first: Vec<u8>,
    /// The block being filled: its records and its terms' text.
    records: Vec<u8>,
    text: Vec<u8>,
    /// Its first term, and how many terms it holds.
    head: Vec<u8>,
    count: usize,
    terms: usize,
}

impl Dictionary {
    /// Add `token`, whose postings `block` start at `offset`.
    fn push(&mut self, token: &[u8], offset: u64, block: &Postings) -> io::Result<()> {
        if self.count == 0 {
            self.head = token.to_vec();
        }
        put_record(
            &mut self.records,
            (self.text.len(), token.len()),
            (offset, block.bytes.len()),
            block.df,
            checksum(&block.bytes),
        )?;
        self.text.extend_from_slice(token);
        self.count += 1;
        self.terms += 1;
        if self.count == BLOCK_TERMS {
            self.close()?;
        }
        Ok(())
    }

    /// Finish the block being filled (its records' text offsets count
    /// from the end of its records, as the block table's from the end of
    /// the table).
    fn close(&mut self) -> io::Result<()> {
        if self.count == 0 {
            return Ok(());
        }
        let mut block = std::mem::take(&mut self.records);
        block.append(&mut self.text);
        put_record(
            &mut self.table,
            (self.first.len(), self.head.len()),
            (self.bytes.len() as u64, block.len()),
            to_u32(self.count)?,
            checksum(&block),
        )?;
        self.first.extend_from_slice(&self.head);
        self.bytes.extend_from_slice(&block);
        self.count = 0;
        Ok(())
    }

    /// The term and block counts, the dictionary's bytes, and the block
    /// table with its text.
    fn finish(mut self) -> io::Result<(usize, usize, Vec<u8>, Vec<u8>)> {
        self.close()?;
        let blocks = self.table.len() / RECORD_LEN;
        self.table.append(&mut self.first);
        Ok((self.terms, blocks, self.bytes, self.table))
    }
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

    fn stats(i: u32) -> TermStats {
        TermStats {
            tf: [i % 2, i % 3, i + 1],
            lines: i % 5 + 1,
        }
    }

    fn entry(i: u32) -> Entry {
        Entry {
            path: format!("notes/n{i}.md"),
            sig: Sig {
                len: u64::from(i),
                mtime_ns: 1,
            },
            lengths: [i, i, i],
        }
    }

    /// Every term of a dictionary of several blocks is found, with its
    /// postings, after a build and after a merge that drops a file; words
    /// before the first, between two, and after the last are not.
    #[test]
    fn lookups_find_every_term_across_blocks_and_merges() {
        let dir = tempfile::tempdir().unwrap();
        let guard = fsio::lock(dir.path(), fsio::LockPolicy::default()).unwrap();
        let terms = BLOCK_TERMS * 3 + 5;
        let token = |t: usize| format!("w{:05}", t * 2);
        let mut fresh = Fresh::default();
        for id in 0..3u32 {
            let mut f = FileStats::default();
            for t in (0..terms).filter(|t| t % 3 != id as usize) {
                f.terms.push((token(t), stats(t as u32 + id)));
            }
            fresh.add(id, &f);
        }
        let entries: Vec<Entry> = (0..3).map(entry).collect();
        write(dir.path(), "a.idx", &guard, 7, &entries, None, &fresh).unwrap();
        let index = Index::load(&dir.path().join("a.idx")).unwrap();
        assert_eq!((index.terms, index.blocks), (terms, 4));
        assert_eq!(index.entries, entries);
        for t in 0..terms {
            let want: Vec<(u32, TermStats)> = (0..3u32)
                .filter(|&id| t % 3 != id as usize)
                .map(|id| (id, stats(t as u32 + id)))
                .collect();
            assert_eq!(index.postings(&token(t)).unwrap(), want, "{}", token(t));
            assert_eq!(
                index.postings(&format!("w{:05}", t * 2 + 1)).unwrap(),
                vec![]
            );
        }
        for absent in ["", "a", "w", "w99999", "z"] {
            assert_eq!(index.postings(absent).unwrap(), vec![], "{absent:?}");
        }

        // File 0 is gone, 1 and 2 become 0 and 1, and a new file 2 holds
        // one new term and one old.
        let mut fresh = Fresh::default();
        let f = FileStats {
            lengths: [0; FIELDS],
            terms: vec![(token(1), stats(9)), ("w00001".to_string(), stats(8))],
        };
        fresh.add(2, &f);
        let entries: Vec<Entry> = (1..4).map(entry).collect();
        let remap = [None, Some(0), Some(1)];
        write(
            dir.path(),
            "a.idx",
            &guard,
            8,
            &entries,
            Some((&index, &remap)),
            &fresh,
        )
        .unwrap();
        let merged = Index::load(&dir.path().join("a.idx")).unwrap();
        assert_eq!(merged.entries, entries);
        assert_eq!(merged.postings("w00001").unwrap(), vec![(2, stats(8))]);
        for t in 0..terms {
            let mut want: Vec<(u32, TermStats)> = (1..3u32)
                .filter(|&id| t % 3 != id as usize)
                .map(|id| (id - 1, stats(t as u32 + id)))
                .collect();
            if t == 1 {
                want.push((2, stats(9)));
            }
            assert_eq!(merged.postings(&token(t)).unwrap(), want, "{}", token(t));
        }
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
