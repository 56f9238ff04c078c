//! The vectors file: `.store/vectors/<slug>.<model-id>.vec`.
//!
//! A cache and nothing more. It holds, for each searched file, the size and
//! modification time it had and the keys of its chunks; and for each key
//! the chunk's vector. A file whose signature changed is chunked again and
//! only keys never seen are embedded. A missing, truncated, corrupt or
//! other-model file is ignored (it decodes to nothing) and rebuilt.
//!
//! Vectors are kept at half precision (IEEE binary16), in memory as on disk:
//! a weak-word search reads the whole file, and half the bytes is half the
//! read, which is most of its cost in the component. A unit vector's cosine
//! moves by about 1e-5.
//!
//! Layout, little-endian: `AMVEC002`, the model id (u32 length, bytes), the
//! width (u32), the files (u32 count; each: u32 path length, path, u64
//! size, i64 modification time in ns, u32 chunk count, each chunk a 16-byte
//! key and a u32 line), the vectors (u32 count, then every 16-byte key, then
//! every vector as width f16s, in the keys' order), and a u64 checksum of
//! everything before it. A file of the first layout, `AMVEC001` (each key
//! followed by its vector as f32s), is read too and written again in this
//! one, so no store embeds anything again for the change.
//!
//! Beside it, the log (`<same name>.log`) holds what was added since the
//! file was written, so that a write that embeds one chunk appends a
//! kilobyte instead of writing every vector again: `AMVLOG01`, the u64
//! checksum of the vectors file it extends, then records, each a u32
//! length, the body and the body's u64 checksum. A body is a file's new
//! record (`1`, then as in the file), a file gone (`2`, its path) or a
//! vector (`3`, its key and width f16s). Reading stops at the first record
//! that is cut short or fails its checksum (a write killed midway); a log
//! of another vectors file is ignored. When the log passes a quarter of
//! the file (at least 1 MiB), the file is written again whole and the log
//! removed.

use std::collections::{BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use agent_memory_embed::half;

use crate::fsio::Sig;
use crate::index::checksum;

/// The first bytes of a vectors file.
const MAGIC: &[u8; 8] = b"AMVEC002";
/// The first bytes of a vectors file of the first layout (f32 vectors).
const MAGIC_F32: &[u8; 8] = b"AMVEC001";
/// The first bytes of a vectors log.
const LOG_MAGIC: &[u8; 8] = b"AMVLOG01";
/// Bytes of a log's header: the magic and the file's checksum.
pub(crate) const LOG_HEADER: usize = 16;
/// Record kinds of the log.
const FILE_RECORD: u8 = 1;
const GONE_RECORD: u8 = 2;
const VECTOR_RECORD: u8 = 3;

/// A chunk's key: the first 16 bytes of the sha256 of its embedded text.
pub(crate) type Key = [u8; 16];

/// The key of a chunk whose embedded text has the sha256 `digest`.
pub(crate) fn key_from(digest: &[u8; 32]) -> Key {
    let mut key = [0u8; 16];
    key.copy_from_slice(&digest[..16]);
    key
}

/// The key of a chunk whose embedded text is `text`.
#[cfg(test)]
pub(crate) fn key_of(text: &str) -> Key {
    use sha2::{Digest, Sha256};
    key_from(&Sha256::digest(text.as_bytes()).into())
}

/// Hashes a [`Key`] by its first eight bytes: keys are sha256 digests
/// already, and SipHash over each of a few thousand keys showed in a
/// search's profile.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // A `[u8; 16]` hashes as its length, then its bytes: only the bytes
        // are mixed in.
        let mut word = [0u8; 8];
        let n = bytes.len().min(8);
        word[..n].copy_from_slice(&bytes[..n]);
        self.0 = self.0.rotate_left(5) ^ u64::from_le_bytes(word);
    }
    fn write_usize(&mut self, _: usize) {}
}

/// What the cache knows of one file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FileChunks {
    /// Size and modification time when it was chunked.
    pub(crate) sig: Sig,
    /// Its chunks' keys and lines, in file order.
    pub(crate) chunks: Vec<(Key, u32)>,
}

/// The vectors of one model.
#[derive(Debug, Clone, Default)]
pub(crate) struct Cache {
    /// The model's id.
    pub(crate) model: String,
    /// Width of every vector (0 until the first is added).
    pub(crate) dim: usize,
    /// Files by store-relative path.
    pub(crate) files: HashMap<String, FileChunks>,
    /// Row of each key's vector in `rows`.
    at: HashMap<Key, u32, BuildHasherDefault<KeyHasher>>,
    /// The vectors, `dim` f16s each (little-endian bytes). A key added
    /// again gets a new row; rows no key names are dropped when saved.
    rows: Vec<u8>,
    /// Decoded from the first layout: worth saving in this one.
    pub(crate) outdated: bool,
    /// The checksum of the vectors file this cache was read from, which a
    /// log must extend; 0 when there was none.
    pub(crate) base: u64,
    /// Bytes of the log read, up to the end of its last sound record; 0
    /// when there was none.
    pub(crate) log_len: u64,
    /// Paths whose record changed (or went) since the cache was read or
    /// last saved: the next append writes them.
    changed: BTreeSet<String>,
    /// Keys given a vector since then, in order.
    fresh: Vec<Key>,
}

impl PartialEq for Cache {
    /// The same model, files and vectors, wherever the rows sit.
    fn eq(&self, other: &Cache) -> bool {
        self.model == other.model
            && self.dim == other.dim
            && self.files == other.files
            && self.at.len() == other.at.len()
            && self.at.keys().all(|k| self.row(k) == other.row(k))
    }
}

impl Cache {
    /// An empty cache for `model`.
    pub(crate) fn new(model: &str) -> Cache {
        Cache {
            model: model.to_owned(),
            ..Cache::default()
        }
    }

    /// How many vectors the cache holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether `key` has a vector.
    pub(crate) fn has(&self, key: &Key) -> bool {
        self.at.contains_key(key)
    }

    /// The f16 bytes of `key`'s vector.
    fn row(&self, key: &Key) -> Option<&[u8]> {
        let i = *self.at.get(key)? as usize;
        self.rows.get(i * self.dim * 2..(i + 1) * self.dim * 2)
    }

    /// Add `vector` under `key`, rounded to half precision; a vector of
    /// another width, or with a value that is not finite or is past f16's
    /// range (65504), is refused (returns false), so the cache holds one
    /// width of finite numbers.
    pub(crate) fn add(&mut self, key: Key, vector: Vec<f32>) -> bool {
        if vector.is_empty() || vector.iter().any(|x| !x.is_finite() || x.abs() > half::MAX) {
            return false;
        }
        if self.dim == 0 {
            self.dim = vector.len();
        }
        if vector.len() != self.dim {
            return false;
        }
        let Ok(row) = u32::try_from(self.rows.len() / (self.dim * 2)) else {
            return false;
        };
        self.rows.reserve(self.dim * 2);
        for x in vector {
            self.rows
                .extend_from_slice(&half::from_f32(x).to_le_bytes());
        }
        self.at.insert(key, row);
        self.fresh.push(key);
        true
    }

    /// Replace the file records with `files`, noting the paths whose
    /// record changed or went for the next append.
    pub(crate) fn set_files(&mut self, files: HashMap<String, FileChunks>) {
        let old = std::mem::replace(&mut self.files, files);
        for (path, f) in &self.files {
            if old.get(path) != Some(f) {
                self.changed.insert(path.clone());
            }
        }
        for path in old.into_keys() {
            if !self.files.contains_key(&path) {
                self.changed.insert(path);
            }
        }
    }

    /// Whether anything changed since the cache was read or saved.
    pub(crate) fn is_dirty(&self) -> bool {
        !self.changed.is_empty() || !self.fresh.is_empty()
    }

    /// The log records of what changed since the cache was read or saved:
    /// each changed file's record (or its going) and each new vector.
    pub(crate) fn log_records(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut body = Vec::new();
        for path in &self.changed {
            body.clear();
            match self.files.get(path) {
                Some(f) => {
                    body.push(FILE_RECORD);
                    put_file(&mut body, path, f);
                }
                None => {
                    body.push(GONE_RECORD);
                    put_bytes(&mut body, path.as_bytes());
                }
            }
            put_record(&mut out, &body);
        }
        for key in &self.fresh {
            let Some(row) = self.row(key) else { continue };
            body.clear();
            body.push(VECTOR_RECORD);
            body.extend_from_slice(key);
            body.extend_from_slice(row);
            put_record(&mut out, &body);
        }
        out
    }

    /// Everything is saved: nothing for the next append.
    pub(crate) fn mark_saved(&mut self) {
        self.changed.clear();
        self.fresh.clear();
    }

    /// The header of a log extending the vectors file whose checksum is
    /// `base`.
    pub(crate) fn log_header(base: u64) -> Vec<u8> {
        let mut out = LOG_MAGIC.to_vec();
        out.extend_from_slice(&base.to_le_bytes());
        out
    }

    /// Apply the records of `log`, a log of the file this cache was read
    /// from, up to the first that is cut short or unsound; sets
    /// [`Cache::log_len`] to where they end (0 when the log is not this
    /// file's: it is then ignored whole). Marks nothing for saving.
    pub(crate) fn replay(&mut self, log: &[u8]) {
        self.log_len = 0;
        if self.base == 0
            || log.len() < LOG_HEADER
            || log[..LOG_HEADER] != Cache::log_header(self.base)
        {
            return;
        }
        let mut end = LOG_HEADER;
        for (body, next) in records(log, LOG_HEADER) {
            if !self.apply(body) {
                break;
            }
            end = next;
        }
        self.log_len = end as u64;
        self.mark_saved();
    }

    /// Apply one record's body; false (and nothing applied) when it is
    /// unsound.
    fn apply(&mut self, body: &[u8]) -> bool {
        let mut r = Reader { bytes: body, at: 1 };
        match body.first() {
            Some(&FILE_RECORD) => match read_file(&mut r) {
                Some((path, f)) if r.left() == 0 => {
                    self.files.insert(path, f);
                    true
                }
                _ => false,
            },
            Some(&GONE_RECORD) => match r.bytes_field().map(std::str::from_utf8) {
                Some(Ok(path)) if r.left() == 0 => {
                    self.files.remove(path);
                    true
                }
                _ => false,
            },
            Some(&VECTOR_RECORD) => {
                let Some(key) = r.take(16).and_then(|k| Key::try_from(k).ok()) else {
                    return false;
                };
                let row = &body[r.at..];
                let dim = row.len() / 2;
                let sound = dim > 0
                    && row.len().is_multiple_of(2)
                    && (self.dim == 0 || dim == self.dim)
                    && half::all_finite(row);
                let Some(i) = sound
                    .then(|| u32::try_from(self.rows.len() / (dim * 2)).ok())
                    .flatten()
                else {
                    return false;
                };
                self.dim = dim;
                self.rows.extend_from_slice(row);
                self.at.insert(key, i);
                true
            }
            _ => false,
        }
    }

    /// The cosine of the unit vector `q` with `key`'s vector (their dot
    /// product); `None` when `key` has no vector or `q` another width.
    pub(crate) fn cosine(&self, q: &[f32], key: &Key) -> Option<f32> {
        let row = self.row(key)?;
        if q.len() != self.dim {
            return None;
        }
        // Eight running sums, so the loop vectorizes.
        let mut sums = [0.0f32; 8];
        let (qs, rest_q) = q.split_at(q.len() - q.len() % 8);
        let (rs, rest_r) = row.split_at(qs.len() * 2);
        for (qc, rc) in qs.chunks_exact(8).zip(rs.chunks_exact(16)) {
            for j in 0..8 {
                sums[j] += qc[j] * half::to_f32(u16::from_le_bytes([rc[2 * j], rc[2 * j + 1]]));
            }
        }
        let tail: f32 = rest_q
            .iter()
            .zip(rest_r.chunks_exact(2))
            .map(|(x, b)| x * half::to_f32(u16::from_le_bytes([b[0], b[1]])))
            .sum();
        Some(sums.iter().sum::<f32>() + tail)
    }

    /// The bytes of the file, keeping only vectors some file still uses.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut used: Vec<&Key> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut paths: Vec<&String> = self.files.keys().collect();
        paths.sort();
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        put_bytes(&mut out, self.model.as_bytes());
        out.extend_from_slice(&(self.dim as u32).to_le_bytes());
        out.extend_from_slice(&(paths.len() as u32).to_le_bytes());
        for path in paths {
            let f = &self.files[path];
            put_file(&mut out, path, f);
            for (key, _) in &f.chunks {
                if self.has(key) && seen.insert(*key) {
                    used.push(key);
                }
            }
        }
        out.extend_from_slice(&(used.len() as u32).to_le_bytes());
        for key in &used {
            out.extend_from_slice(*key);
        }
        for key in &used {
            out.extend_from_slice(self.row(key).unwrap_or_default());
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// The cache in `bytes` if they are a sound vectors file of `model`,
    /// of either layout; `None` for anything else (the caller starts
    /// afresh).
    pub(crate) fn decode(mut bytes: Vec<u8>, model: &str) -> Option<Cache> {
        let body_len = bytes.len().checked_sub(8)?;
        let (body, sum) = bytes.split_at(body_len);
        if checksum(body) != u64::from_le_bytes(sum.try_into().ok()?) {
            return None;
        }
        let mut r = Reader { bytes: body, at: 0 };
        let magic = r.take(8)?;
        let f32_layout = match magic {
            m if m == MAGIC => false,
            m if m == MAGIC_F32 => true,
            _ => return None,
        };
        if r.bytes_field()? != model.as_bytes() {
            return None;
        }
        let dim = r.u32()? as usize;
        let mut cache = Cache::new(model);
        cache.dim = dim;
        cache.base = checksum(body);
        let files = r.u32()?;
        for _ in 0..files {
            let (path, f) = read_file(&mut r)?;
            cache.files.insert(path, f);
        }
        let n = r.u32()? as usize;
        let width = if f32_layout { 4 } else { 2 };
        let row = dim.checked_mul(width)?;
        if n.checked_mul(row.checked_add(16)?)? != r.left() || (n > 0 && dim == 0) {
            return None;
        }
        cache.at.reserve(n);
        if f32_layout {
            cache.outdated = true;
            for _ in 0..n {
                let key: Key = r.take(16)?.try_into().ok()?;
                let v: Vec<f32> = r
                    .take(row)?
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                if !cache.add(key, v) {
                    return None;
                }
            }
            // Written again whole, not appended.
            cache.mark_saved();
            return Some(cache);
        }
        for i in 0..n {
            let key: Key = r.take(16)?.try_into().ok()?;
            cache.at.insert(key, u32::try_from(i).ok()?);
        }
        let rows_at = r.at;
        // Infinities and NaNs (exponent all ones) are never written.
        if !half::all_finite(&body[rows_at..]) {
            return None;
        }
        bytes.truncate(body_len);
        bytes.drain(..rows_at);
        cache.rows = bytes;
        Some(cache)
    }
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// A file's record: path, size, modification time, chunks.
fn put_file(out: &mut Vec<u8>, path: &str, f: &FileChunks) {
    put_bytes(out, path.as_bytes());
    out.extend_from_slice(&f.sig.len.to_le_bytes());
    out.extend_from_slice(&f.sig.mtime_ns.to_le_bytes());
    out.extend_from_slice(&(f.chunks.len() as u32).to_le_bytes());
    for (key, line) in &f.chunks {
        out.extend_from_slice(key);
        out.extend_from_slice(&line.to_le_bytes());
    }
}

/// A file's record as [`put_file`] wrote it.
fn read_file(r: &mut Reader<'_>) -> Option<(String, FileChunks)> {
    let path = std::str::from_utf8(r.bytes_field()?).ok()?.to_owned();
    let len = r.u64()?;
    let mtime_ns = r.u64()? as i64;
    let n = r.u32()? as usize;
    // Each chunk takes 20 bytes: a count past the end is corrupt.
    if n > r.left() / 20 {
        return None;
    }
    let mut chunks = Vec::with_capacity(n);
    for _ in 0..n {
        let key: Key = r.take(16)?.try_into().ok()?;
        chunks.push((key, r.u32()?));
    }
    let sig = Sig { len, mtime_ns };
    Some((path, FileChunks { sig, chunks }))
}

/// Bytes a vectors log may reach however small its file is.
const MIN_LOG_BYTES: u64 = 1 << 20;

/// Whether a log of `end` sound bytes may take `add` more beside a
/// vectors file of `file_len` bytes: up to a quarter of the file, and at
/// least [`MIN_LOG_BYTES`]. Past it the file is written again whole.
pub(crate) fn log_fits(end: u64, add: u64, file_len: u64) -> bool {
    end.saturating_add(add) <= (file_len / 4).max(MIN_LOG_BYTES)
}

/// One log record: its length, `body`, the body's checksum.
fn put_record(out: &mut Vec<u8>, body: &[u8]) {
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    out.extend_from_slice(&checksum(body).to_le_bytes());
}

/// The sound records of `log` from byte `from` on, each body with the
/// offset just past it; stops at the first cut short or failing its
/// checksum.
pub(crate) fn records(log: &[u8], from: usize) -> impl Iterator<Item = (&[u8], usize)> {
    let mut at = from;
    std::iter::from_fn(move || {
        let mut r = Reader { bytes: log, at };
        let body = r.bytes_field()?;
        let sum = r.u64()?;
        if body.is_empty() || checksum(body) != sum {
            return None;
        }
        at = r.at;
        Some((body, at))
    })
}

/// Bounds-checked little-endian reads; `None` past the end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn bytes_field(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Cache {
        let mut c = Cache::new("fake-1");
        let (a, b) = (key_of("a"), key_of("b"));
        c.add(a, vec![0.6, 0.8]);
        c.add(b, vec![1.0, 0.0]);
        let sig = Sig {
            len: 12,
            mtime_ns: -3,
        };
        c.files.insert(
            "notes/x.md".into(),
            FileChunks {
                sig,
                chunks: vec![(a, 1), (b, 7)],
            },
        );
        c
    }

    /// `c` written in the first layout: each key, then its vector as f32s.
    fn encode_f32(c: &Cache, vectors: &[(Key, Vec<f32>)]) -> Vec<u8> {
        let v2 = c.encode();
        let mut r = Reader { bytes: &v2, at: 8 };
        r.bytes_field().unwrap();
        r.u32().unwrap();
        for _ in 0..r.u32().unwrap() {
            r.bytes_field().unwrap();
            r.take(16).unwrap();
            let n = r.u32().unwrap() as usize;
            r.take(n * 20).unwrap();
        }
        let mut out = MAGIC_F32.to_vec();
        out.extend_from_slice(&v2[8..r.at]);
        out.extend_from_slice(&(vectors.len() as u32).to_le_bytes());
        for (key, v) in vectors {
            out.extend_from_slice(key);
            for x in v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    #[test]
    fn round_trip() {
        let c = sample();
        let back = Cache::decode(c.encode(), "fake-1").unwrap();
        assert_eq!(back, c);
        assert!(!back.outdated);
    }

    #[test]
    fn a_file_of_the_first_layout_is_read_and_marked_for_saving() {
        let c = sample();
        let vectors = vec![(key_of("a"), vec![0.6, 0.8]), (key_of("b"), vec![1.0, 0.0])];
        let back = Cache::decode(encode_f32(&c, &vectors), "fake-1").unwrap();
        assert!(back.outdated);
        assert_eq!(back, c);
        let mut with_nan = vectors.clone();
        with_nan[1].1[0] = f32::NAN;
        assert!(Cache::decode(encode_f32(&c, &with_nan), "fake-1").is_none());
    }

    #[test]
    fn unused_vectors_are_dropped() {
        let mut c = sample();
        c.add(key_of("orphan"), vec![0.0, 1.0]);
        let back = Cache::decode(c.encode(), "fake-1").unwrap();
        assert_eq!(back.len(), 2);
        assert!(!back.has(&key_of("orphan")));
    }

    #[test]
    fn a_key_added_again_has_its_new_vector_after_saving() {
        let mut c = sample();
        assert!(c.add(key_of("a"), vec![0.0, 1.0]));
        let back = Cache::decode(c.encode(), "fake-1").unwrap();
        assert_eq!(back.cosine(&[0.0, 1.0], &key_of("a")), Some(1.0));
        assert_eq!(back.cosine(&[0.0, 1.0], &key_of("b")), Some(0.0));
    }

    #[test]
    fn other_model_and_damage_decode_to_nothing() {
        let bytes = sample().encode();
        assert!(Cache::decode(bytes.clone(), "fake-2").is_none());
        for cut in [0, 1, 8, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                Cache::decode(bytes[..cut].to_vec(), "fake-1").is_none(),
                "cut {cut}"
            );
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(Cache::decode(b, "fake-1").is_none(), "flip at {i}");
        }
    }

    #[test]
    fn an_infinite_half_with_a_sound_checksum_is_refused() {
        let mut bytes = sample().encode();
        let last_row = bytes.len() - 8 - 2;
        bytes[last_row..last_row + 2].copy_from_slice(&0x7c00u16.to_le_bytes());
        bytes.truncate(bytes.len() - 8);
        let sum = checksum(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        assert!(Cache::decode(bytes, "fake-1").is_none());
    }

    #[test]
    fn a_second_width_or_a_number_out_of_range_is_refused() {
        let mut c = sample();
        assert!(!c.add(key_of("c"), vec![1.0, 0.0, 0.0]));
        assert!(!c.add(key_of("d"), vec![f32::NAN, 0.0]));
        assert!(!c.add(key_of("e"), vec![f32::INFINITY, 0.0]));
        assert!(!c.add(key_of("f"), vec![65505.0, 0.0]));
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn cosine_is_the_dot_product_at_half_precision() {
        let mut c = Cache::new("fake-1");
        // 19 wide: two blocks of eight and a tail of three.
        let a: Vec<f32> = (0..19)
            .map(|i| ((i * 7 % 11) as f32 - 5.0) / 13.0)
            .collect();
        let q: Vec<f32> = (0..19).map(|i| ((i * 5 % 7) as f32 - 3.0) / 9.0).collect();
        assert!(c.add(key_of("a"), a.clone()));
        let exact: f32 = a.iter().zip(&q).map(|(x, y)| x * y).sum();
        let got = c.cosine(&q, &key_of("a")).unwrap();
        assert!((got - exact).abs() < 1e-3, "{got} against {exact}");
        assert_eq!(c.cosine(&q[..18], &key_of("a")), None);
        assert_eq!(c.cosine(&q, &key_of("b")), None);
    }

    /// `sample` as written, then changed: a vector added, a file's record
    /// changed, one gone; with the log of those changes.
    fn changed_with_log() -> (Vec<u8>, Cache, Vec<u8>) {
        let file = sample().encode();
        let mut c = Cache::decode(file.clone(), "fake-1").unwrap();
        assert!(!c.is_dirty());
        let mut files = c.files.clone();
        let sig = Sig {
            len: 40,
            mtime_ns: 9,
        };
        let chunks = vec![(key_of("a"), 1), (key_of("c"), 3)];
        files.insert(
            "notes/x.md".into(),
            FileChunks {
                sig,
                chunks: chunks.clone(),
            },
        );
        files.insert("notes/y.md".into(), FileChunks { sig, chunks });
        c.set_files(files);
        assert!(c.add(key_of("c"), vec![0.0, -1.0]));
        let mut files = c.files.clone();
        files.remove("notes/y.md");
        c.set_files(files);
        let mut log = Cache::log_header(c.base);
        log.extend_from_slice(&c.log_records());
        (file, c, log)
    }

    #[test]
    fn a_log_replayed_on_its_file_gives_the_cache_it_was_written_from() {
        let (file, c, log) = changed_with_log();
        let mut back = Cache::decode(file, "fake-1").unwrap();
        back.replay(&log);
        assert_eq!(back, c);
        assert_eq!(back.log_len, log.len() as u64);
        assert!(!back.is_dirty());
        assert_eq!(back.files.len(), 1);
        assert_eq!(back.cosine(&[0.0, 1.0], &key_of("c")), Some(-1.0));
        // Saved, nothing is left for the next append.
        let mut saved = c.clone();
        saved.mark_saved();
        assert!(saved.log_records().is_empty());
    }

    #[test]
    fn a_log_cut_anywhere_keeps_the_records_before_the_cut() {
        let (file, _, log) = changed_with_log();
        let ends: Vec<usize> = records(&log, LOG_HEADER).map(|(_, end)| end).collect();
        // The file's new record (x), y's going, the vector of c.
        assert_eq!(ends.len(), 3);
        for cut in LOG_HEADER..log.len() {
            let mut back = Cache::decode(file.clone(), "fake-1").unwrap();
            back.replay(&log[..cut]);
            let whole = ends.iter().filter(|&&e| e <= cut).count();
            let sound = if whole == 0 {
                LOG_HEADER
            } else {
                ends[whole - 1]
            };
            assert_eq!(back.log_len, sound as u64, "cut at {cut}");
            assert_eq!(back.has(&key_of("c")), whole == 3, "cut at {cut}");
            let x = &back.files["notes/x.md"];
            assert_eq!(x.sig.len, if whole >= 1 { 40 } else { 12 }, "cut at {cut}");
        }
    }

    #[test]
    fn a_log_of_another_file_or_with_a_bad_record_is_not_followed() {
        let (file, _, log) = changed_with_log();
        // Another file's log: ignored whole.
        let mut other = Cache::log_header(1);
        other.extend_from_slice(&log[LOG_HEADER..]);
        let mut back = Cache::decode(file.clone(), "fake-1").unwrap();
        back.replay(&other);
        assert_eq!(back.log_len, 0);
        assert_eq!(back, sample());
        // A vector record of another width under a sound checksum: the
        // records before it stand, it and those after do not.
        let mut wide = log.clone();
        let mut body = vec![VECTOR_RECORD];
        body.extend_from_slice(&key_of("d"));
        body.extend_from_slice(&[0u8; 6]);
        put_record(&mut wide, &body);
        let mut after = Vec::new();
        let mut gone = vec![GONE_RECORD];
        put_bytes(&mut gone, b"notes/x.md");
        put_record(&mut after, &gone);
        wide.extend_from_slice(&after);
        let mut back = Cache::decode(file, "fake-1").unwrap();
        back.replay(&wide);
        assert_eq!(back.log_len, log.len() as u64);
        assert!(!back.has(&key_of("d")));
        assert!(back.files.contains_key("notes/x.md"));
    }

    #[test]
    fn the_log_compacts_past_a_quarter_of_the_file_and_one_mib() {
        assert!(log_fits(0, 1 << 20, 100));
        assert!(!log_fits(1, 1 << 20, 100));
        assert!(log_fits(10 << 20, 2 << 20, 48 << 20));
        assert!(!log_fits(10 << 20, (2 << 20) + 1, 48 << 20));
    }
}
