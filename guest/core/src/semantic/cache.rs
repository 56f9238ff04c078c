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

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use agent_memory_embed::half;

use crate::fsio::Sig;
use crate::index::checksum;

/// The first bytes of a vectors file.
const MAGIC: &[u8; 8] = b"AMVEC002";
/// The first bytes of a vectors file of the first layout (f32 vectors).
const MAGIC_F32: &[u8; 8] = b"AMVEC001";

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
        true
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
            put_bytes(&mut out, path.as_bytes());
            out.extend_from_slice(&f.sig.len.to_le_bytes());
            out.extend_from_slice(&f.sig.mtime_ns.to_le_bytes());
            out.extend_from_slice(&(f.chunks.len() as u32).to_le_bytes());
            for (key, line) in &f.chunks {
                out.extend_from_slice(key);
                out.extend_from_slice(&line.to_le_bytes());
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
        let files = r.u32()?;
        for _ in 0..files {
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
            cache.files.insert(path, FileChunks { sig, chunks });
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
}
