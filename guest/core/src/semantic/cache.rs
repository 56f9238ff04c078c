//! The vectors file: `.store/vectors/<slug>.<model-id>.vec`.
//!
//! A cache and nothing more. It holds, for each searched file, the size and
//! modification time it had and the keys of its chunks; and for each key
//! the chunk's vector. A file whose signature changed is chunked again and
//! only keys never seen are embedded. A missing, truncated, corrupt or
//! other-model file is ignored (it decodes to nothing) and rebuilt.
//!
//! Layout, little-endian: `AMVEC001`, the model id (u32 length, bytes), the
//! width (u32), the files (u32 count; each: u32 path length, path, u64
//! size, i64 modification time in ns, u32 chunk count, each chunk a 16-byte
//! key and a u32 line), the vectors (u32 count; each a 16-byte key and
//! width f32s), and a u64 checksum of everything before it.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use crate::fsio::Sig;
use crate::index::checksum;

/// The first bytes of a vectors file.
const MAGIC: &[u8; 8] = b"AMVEC001";

/// A chunk's key: the first 16 bytes of the sha256 of its embedded text.
pub(crate) type Key = [u8; 16];

/// The key of a chunk whose embedded text is `text`.
pub(crate) fn key_of(text: &str) -> Key {
    let digest = Sha256::digest(text.as_bytes());
    let mut key = [0u8; 16];
    key.copy_from_slice(&digest[..16]);
    key
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
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Cache {
    /// The model's id.
    pub(crate) model: String,
    /// Width of every vector (0 until the first is added).
    pub(crate) dim: usize,
    /// Files by store-relative path.
    pub(crate) files: HashMap<String, FileChunks>,
    /// Vectors by chunk key.
    pub(crate) vectors: HashMap<Key, Vec<f32>>,
}

impl Cache {
    /// An empty cache for `model`.
    pub(crate) fn new(model: &str) -> Cache {
        Cache {
            model: model.to_owned(),
            ..Cache::default()
        }
    }

    /// Add `vector` under `key`; a vector of another width is refused
    /// (returns false) so the cache never holds two widths.
    pub(crate) fn add(&mut self, key: Key, vector: Vec<f32>) -> bool {
        if vector.is_empty() || vector.iter().any(|x| !x.is_finite()) {
            return false;
        }
        if self.dim == 0 {
            self.dim = vector.len();
        }
        if vector.len() != self.dim {
            return false;
        }
        self.vectors.insert(key, vector);
        true
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
                if self.vectors.contains_key(key) && seen.insert(*key) {
                    used.push(key);
                }
            }
        }
        out.extend_from_slice(&(used.len() as u32).to_le_bytes());
        for key in used {
            out.extend_from_slice(key);
            for x in &self.vectors[key] {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// The cache in `bytes` if they are a sound vectors file of `model`;
    /// `None` for anything else (the caller starts afresh).
    pub(crate) fn decode(bytes: &[u8], model: &str) -> Option<Cache> {
        let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
        if checksum(body) != u64::from_le_bytes(sum.try_into().ok()?) {
            return None;
        }
        let mut r = Reader { bytes: body, at: 0 };
        if r.take(8)? != MAGIC {
            return None;
        }
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
        let width = dim.checked_mul(4)?.checked_add(16)?;
        if n.checked_mul(width)? != r.left() {
            return None;
        }
        for _ in 0..n {
            let key: Key = r.take(16)?.try_into().ok()?;
            let raw = r.take(dim * 4)?;
            let v: Vec<f32> = raw
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            if v.iter().any(|x| !x.is_finite()) {
                return None;
            }
            cache.vectors.insert(key, v);
        }
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

    #[test]
    fn round_trip() {
        let c = sample();
        assert_eq!(Cache::decode(&c.encode(), "fake-1"), Some(c));
    }

    #[test]
    fn unused_vectors_are_dropped() {
        let mut c = sample();
        c.add(key_of("orphan"), vec![0.0, 1.0]);
        let back = Cache::decode(&c.encode(), "fake-1").unwrap();
        assert_eq!(back.vectors.len(), 2);
        assert!(!back.vectors.contains_key(&key_of("orphan")));
    }

    #[test]
    fn other_model_and_damage_decode_to_nothing() {
        let bytes = sample().encode();
        assert!(Cache::decode(&bytes, "fake-2").is_none());
        for cut in [0, 1, 8, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                Cache::decode(&bytes[..cut], "fake-1").is_none(),
                "cut {cut}"
            );
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(Cache::decode(&b, "fake-1").is_none(), "flip at {i}");
        }
    }

    #[test]
    fn a_second_width_is_refused() {
        let mut c = sample();
        assert!(!c.add(key_of("c"), vec![1.0, 0.0, 0.0]));
        assert!(!c.add(key_of("d"), vec![f32::NAN, 0.0]));
        assert_eq!(c.vectors.len(), 2);
    }
}
