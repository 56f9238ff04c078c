//! The compiled-component cache: Cranelift output saved next to the user's
//! other caches so a short-lived process (the `agent-memory` command) loads
//! the component in a millisecond instead of compiling it again.
//!
//! When the cache has no artifact, the one host/build.rs compiled and the
//! crate embeds (the `precompile` feature) is used if wasmtime accepts it
//! for this engine and CPU, so a fresh install's first call compiles
//! nothing; wasmtime checks its version, the engine's settings and that
//! this CPU has every feature the code was compiled for, and when any
//! differs (a binary copied to an older machine) the component is compiled.
//! The embedded artifact is then saved to the cache too: loading it from
//! the binary copies its 5 MB into fresh executable memory in every
//! process, where a cached file is mapped from the page cache
//! (`agent-memory tools` on the bench's corpus M took 13.7 ms against 7.2
//! ms, 6.4 ms of it system time; `hyperfine -N`, both builds in one run).
//!
//! An artifact is exactly the bytes of [`Component::serialize`], so wasmtime
//! maps it from the page cache ([`Component::deserialize_file`]) instead of
//! reading it into memory and copying it again. Its name is
//! `{component}-{engine}-{crc}.cwasm`, and it is only ever loaded when all of
//! these hold:
//! - `component` is the start of the SHA-256 of the component's bytes and
//!   `engine` wasmtime's compatibility hash of the engine (wasmtime version,
//!   settings, CPU features), so a different component, wasmtime or CPU never
//!   matches; the embedded component's SHA-256 is computed when the crate is
//!   built, so a normal start hashes nothing;
//! - the file's CRC-32 equals the `crc` in its name, so a truncated or
//!   corrupted file is rejected (and removed) before wasmtime sees it, never
//!   mapped as code. The checksum guards against accidents (a torn write, a
//!   bad disk), not attackers: the ownership check below does that;
//! - on Unix, the file and its directory belong to the current user and are
//!   not writable by group or others, so another user cannot plant one.
//!
//! Artifacts are written to a temporary file, synced and renamed into place,
//! never changed in place: a process that maps one keeps its bytes even when
//! another replaces or removes it. Any failure falls back to compiling;
//! writing the cache is best effort. Files of the older format (a header in
//! front of the payload, named `{component}-{engine}.cwasm`) never match a
//! name looked up here; they are removed when the cache is next written.
//! So are all but the three newest artifacts of other components or
//! engines (other versions, other programs sharing the directory): each
//! version's first call saves its 5 MB here.
//!
//! Why not wasmtime's own cache (`cache` feature, `Config::cache`): in 48.0.8
//! it checks neither who wrote an artifact nor a checksum of it (its zstd
//! frames carry none), starts a worker thread per engine, costs a C build of
//! zstd and 1.1 MB of binary, and was slower warm: `agent-memory context` took
//! a median 11.0 ms against 8.9 ms with the first version of this file (cold,
//! ~290 ms, the same).

use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::component::Component;
use wasmtime::{Engine, Precompiled};

use crate::runtime::CodeOrigin;

const EXTENSION: &str = ".cwasm";

/// Hex digits of the component's SHA-256 kept in an artifact's name.
const COMPONENT_HEX: usize = 32;

/// Where compiled components are kept: `$AGENT_MEMORY_CACHE_DIR`, else the
/// platform cache directory + `agent-memory`. `None` when caching is off
/// (`AGENT_MEMORY_CACHE_DIR` set to the empty string) or no directory is known.
pub(crate) fn default_dir() -> Option<PathBuf> {
    match std::env::var_os("AGENT_MEMORY_CACHE_DIR") {
        Some(dir) if dir.is_empty() => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => dirs::cache_dir().map(|d| d.join("agent-memory")),
    }
}

/// The SHA-256 of `bytes` in lowercase hex, as host/build.rs computes it for
/// the embedded component.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The start of the name of every artifact of the component whose SHA-256
/// is `sha256` (hex) compiled by `engine`: `{component}-{engine}-`.
fn prefix(sha256: &str, engine: &Engine) -> String {
    let component = sha256.get(..COMPONENT_HEX).unwrap_or(sha256);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    format!("{component}-{:016x}-", hasher.finish())
}

/// The CRC-32 an artifact's name promises, when `name` is an artifact of
/// `prefix`: exactly eight lowercase hex digits between it and `.cwasm`.
fn named_crc(name: &str, prefix: &str) -> Option<u32> {
    let crc = name.strip_prefix(prefix)?.strip_suffix(EXTENSION)?;
    let lower_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if crc.len() != 8 || !crc.bytes().all(lower_hex) {
        return None;
    }
    u32::from_str_radix(crc, 16).ok()
}

/// Is `name` an artifact of the older format: `{32 hex}-{16 hex}.cwasm`?
fn old_format(name: &str) -> bool {
    hex_fields(name, &[COMPONENT_HEX, 16])
}

/// Is `name` an artifact of any component and engine:
/// `{32 hex}-{16 hex}-{8 hex}.cwasm`?
fn is_artifact(name: &str) -> bool {
    hex_fields(name, &[COMPONENT_HEX, 16, 8])
}

/// Is `name` `.cwasm` after fields of hex digits joined by `-`, of the
/// lengths `lengths`?
fn hex_fields(name: &str, lengths: &[usize]) -> bool {
    let Some(stem) = name.strip_suffix(EXTENSION) else {
        return false;
    };
    let fields: Vec<&str> = stem.split('-').collect();
    fields.len() == lengths.len()
        && fields
            .iter()
            .zip(lengths)
            .all(|(f, &n)| f.len() == n && f.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Is `path` ours alone? Unix: owned by the effective user and not writable
/// by group or others.
#[cfg(unix)]
fn private(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    fs::symlink_metadata(path).is_ok_and(|m| m.uid() == uid && m.mode() & 0o022 == 0)
}

#[cfg(not(unix))]
fn private(path: &Path) -> bool {
    path.exists()
}

/// The component compiled for `engine`: from the cache in `dir` when a
/// valid artifact is there, else the `precompiled` artifact when `engine`
/// accepts it (then saved to the cache), otherwise compiled and saved.
/// `sha256` is the hex SHA-256 of `bytes` when already known (the embedded
/// component's, from the build); otherwise it is computed here, and only
/// when `dir` is set.
///
/// `precompiled` must be what [`Engine::precompile_component`] made of
/// `bytes` (host/build.rs does that for the embedded component); it is never
/// read from anywhere a user could write.
pub(crate) fn load_or_compile(
    engine: &Engine,
    bytes: &[u8],
    sha256: Option<&str>,
    precompiled: &[u8],
    dir: Option<&Path>,
) -> wasmtime::Result<(Component, CodeOrigin)> {
    let Some(dir) = dir else {
        if let Some(component) = load_precompiled(engine, precompiled) {
            return Ok((component, CodeOrigin::Embedded));
        }
        return Ok((Component::new(engine, bytes)?, CodeOrigin::Compiled));
    };
    let prefix = match sha256 {
        Some(sha256) => prefix(sha256, engine),
        None => prefix(&sha256_hex(bytes), engine),
    };
    if let Some(component) = load(engine, dir, &prefix) {
        return Ok((component, CodeOrigin::Cache));
    }
    if let Some(component) = load_precompiled(engine, precompiled) {
        // Mapped from the cache, the next process skips the copy.
        store(dir, &prefix, precompiled);
        return Ok((component, CodeOrigin::Embedded));
    }
    let component = Component::new(engine, bytes)?;
    if let Ok(serialized) = component.serialize() {
        store(dir, &prefix, &serialized);
    }
    Ok((component, CodeOrigin::Compiled))
}

/// The component in `artifact` when `engine` can run it: `None` for an empty
/// artifact, or one that wasmtime refuses (another wasmtime, other settings,
/// CPU features this machine lacks).
fn load_precompiled(engine: &Engine, artifact: &[u8]) -> Option<Component> {
    if Engine::detect_precompiled(artifact) != Some(Precompiled::Component) {
        return None;
    }
    // SAFETY: `deserialize` must only see bytes that `serialize` or
    // `precompile_component` produced. The only caller passes the artifact
    // host/build.rs compiled from the embedded component with this crate's
    // wasmtime, embedded read-only in the binary: as trusted as the code that
    // runs it. wasmtime itself checks that its version, the engine's
    // settings and this CPU's features fit, and errs otherwise.
    unsafe { Component::deserialize(engine, artifact) }.ok()
}

/// The artifacts in `dir` named for `prefix`, with the CRC each name
/// promises, in name order.
fn candidates(dir: &Path, prefix: &str) -> Vec<(PathBuf, u32)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, u32)> = entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let crc = named_crc(entry.file_name().to_str()?, prefix)?;
            Some((entry.path(), crc))
        })
        .collect();
    found.sort();
    found
}

fn load(engine: &Engine, dir: &Path, prefix: &str) -> Option<Component> {
    if !private(dir) {
        return None;
    }
    candidates(dir, prefix)
        .into_iter()
        .find_map(|(path, crc)| load_artifact(engine, &path, crc))
}

fn load_artifact(engine: &Engine, path: &Path, crc: u32) -> Option<Component> {
    if !private(path) {
        return None;
    }
    match checksum(path) {
        Ok(actual) if actual == crc => {}
        Ok(_) => {
            let _ = fs::remove_file(path);
            return None;
        }
        // Unreadable (vanished, permissions): not evidence of corruption.
        Err(_) => return None,
    }
    // SAFETY: `deserialize_file` must only see bytes that
    // `Component::serialize` produced for a compatible engine, and the file
    // must not change while it is mapped. The CRC proves the bytes are what
    // this cache wrote (the name, checked above, carries it), the ownership
    // check that no other user wrote it; wasmtime itself rejects an artifact
    // from an incompatible engine (the name already encodes the
    // compatibility hash); and this cache never writes into an existing
    // artifact, it renames a new file over it.
    match unsafe { Component::deserialize_file(engine, path) } {
        Ok(component) => Some(component),
        Err(_) => {
            let _ = fs::remove_file(path);
            None
        }
    }
}

/// The CRC-32 of the file at `path`, over a read-only map of it: the bytes
/// come from the page cache without being copied (reading the 5 MB
/// artifact into a buffer was most of the check's cost).
fn checksum(path: &Path) -> std::io::Result<u32> {
    let file = fs::File::open(path)?;
    if file.metadata()?.len() == 0 {
        // An empty file cannot be mapped; its CRC is that of no bytes.
        return Ok(crc32fast::hash(&[]));
    }
    // SAFETY: the map is read-only and dropped before this returns. The
    // cache never writes into an artifact (it renames new files over old
    // ones), so the bytes do not change while they are hashed; if another
    // program truncated the file meanwhile, reading past its end would
    // fault, which no writer of this cache does.
    let map = unsafe { memmap2::Mmap::map(&file) }?;
    Ok(crc32fast::hash(&map))
}

fn store(dir: &Path, prefix: &str, serialized: &[u8]) {
    let name = format!("{prefix}{:08x}{EXTENSION}", crc32fast::hash(serialized));
    if write_private(dir, &name, serialized) {
        prune(dir, prefix, &name);
    }
}

/// Write `bytes` to `dir/name` as a whole: into a private temporary file,
/// synced, then renamed into place. `false` when `dir` is not ours alone or
/// any step failed (nothing is left behind).
fn write_private(dir: &Path, name: &str, bytes: &[u8]) -> bool {
    if create_private_dir(dir).is_err() || !private(dir) {
        return false;
    }
    let tmp = dir.join(format!(".{}.{}.tmp", std::process::id(), unique()));
    let written = (|| {
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, dir.join(name))
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written.is_ok()
}

/// Weights files smaller than this are checksummed every time: it costs
/// less than the lookup (the conformance model is 15 KB).
const REMEMBER_CHECKSUM_FROM: u64 = 1 << 20;

/// [`agent_memory_embed::checksum`] of the weights file `file`, whose bytes
/// are `bytes`, remembered in the cache directory: the checksum reads all
/// 25 MB, a tenth of what a one-shot search with the native model costs.
/// The entry is named by the file's device, inode, size and modification
/// time, so a file replaced or rewritten (derive.py renames a new one into
/// place) is never matched; an entry that is not ours alone or not 16 hex
/// digits is not trusted, and the checksum is taken again.
pub(crate) fn weights_checksum(file: &fs::File, bytes: &[u8]) -> u64 {
    weights_checksum_in(default_dir().as_deref(), file, bytes)
}

fn weights_checksum_in(dir: Option<&Path>, file: &fs::File, bytes: &[u8]) -> u64 {
    let compute = || agent_memory_embed::checksum(bytes);
    let (Some(dir), Some(name)) = (dir, weights_entry(file)) else {
        return compute();
    };
    let path = dir.join(&name);
    let remembered = private(&path)
        .then(|| fs::read_to_string(&path).ok())
        .flatten()
        .filter(|hex| hex.len() == 16)
        .and_then(|hex| u64::from_str_radix(&hex, 16).ok());
    if let Some(sum) = remembered {
        return sum;
    }
    let sum = compute();
    write_private(dir, &name, format!("{sum:016x}").as_bytes());
    sum
}

/// The cache entry's name for the weights file `file`: `None` for a small
/// file, or where the file's identity is not known.
#[cfg(unix)]
fn weights_entry(file: &fs::File) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let m = file.metadata().ok()?;
    (m.len() >= REMEMBER_CHECKSUM_FROM).then(|| {
        format!(
            "weights-{:x}-{:x}-{:x}-{:x}.{:x}.sum",
            m.dev(),
            m.ino(),
            m.len(),
            m.mtime(),
            m.mtime_nsec()
        )
    })
}

#[cfg(not(unix))]
fn weights_entry(_: &fs::File) -> Option<String> {
    None
}

/// Artifacts of other components or engines kept beside the newest: other
/// versions of this crate, or other programs sharing the cache, each
/// 5 MB. Each new version's first call saves one.
const KEEP_OTHERS: usize = 3;

/// Remove, after `keep` was written, what a load would never use again:
/// the other artifacts of `prefix` (another compile's bytes; the one just
/// written wins) and files of the older format; then all but the
/// [`KEEP_OTHERS`] newest artifacts of other components or engines. A
/// process that maps one removed keeps its bytes; the next process of its
/// version saves it again.
fn prune(dir: &Path, prefix: &str, keep: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut others = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name == keep {
            continue;
        }
        if named_crc(name, prefix).is_some() || old_format(name) {
            let _ = fs::remove_file(entry.path());
        } else if is_artifact(name)
            && let Ok(written) = entry.metadata().and_then(|m| m.modified())
        {
            others.push((written, entry.path()));
        }
    }
    others.sort_by_key(|(written, _)| std::cmp::Reverse(*written));
    for (_, path) in others.into_iter().skip(KEEP_OTHERS) {
        let _ = fs::remove_file(path);
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

fn unique() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(std::time::SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        Engine::default()
    }

    #[cfg(unix)]
    #[test]
    fn a_weights_checksum_is_remembered_until_the_file_changes() {
        let temp = tempfile::tempdir().unwrap();
        let cache = temp.path().join("cache");
        let weights = temp.path().join("w.safetensors");
        let mut bytes = vec![7u8; REMEMBER_CHECKSUM_FROM as usize];
        fs::write(&weights, &bytes).unwrap();
        let sum = |bytes: &[u8]| {
            let file = fs::File::open(&weights).unwrap();
            weights_checksum_in(Some(&cache), &file, bytes)
        };
        let want = agent_memory_embed::checksum(&bytes);
        assert_eq!(sum(&bytes), want);
        let entries = files(&cache);
        assert_eq!(entries.len(), 1, "{entries:?}");
        assert_eq!(
            fs::read_to_string(&entries[0]).unwrap(),
            format!("{want:016x}")
        );
        // Remembered: the bytes are not read again (here they differ).
        assert_eq!(sum(&[]), want);
        // A damaged entry is not trusted: taken again and rewritten.
        fs::write(&entries[0], "not a checksum").unwrap();
        assert_eq!(sum(&bytes), want);
        assert_eq!(
            fs::read_to_string(&entries[0]).unwrap(),
            format!("{want:016x}")
        );
        // A rewritten file (another modification time) is another entry.
        bytes[0] = 8;
        fs::write(&weights, &bytes).unwrap();
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        fs::File::options()
            .write(true)
            .open(&weights)
            .unwrap()
            .set_modified(later)
            .unwrap();
        assert_eq!(sum(&bytes), agent_memory_embed::checksum(&bytes));
        assert_ne!(agent_memory_embed::checksum(&bytes), want);
        // A small file is checksummed every time, and nothing is kept.
        let small = temp.path().join("small.safetensors");
        fs::write(&small, b"tiny").unwrap();
        let before = files(&cache).len();
        let file = fs::File::open(&small).unwrap();
        assert_eq!(
            weights_checksum_in(Some(&cache), &file, b"tiny"),
            agent_memory_embed::checksum(b"tiny")
        );
        assert_eq!(files(&cache).len(), before);
    }

    // A tiny component: compiling it is cheap even in a debug build.
    const WAT: &str = "(component (core module (func (export \"f\"))))";

    fn files(dir: &Path) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        v
    }

    /// A cache in a fresh temp dir holding the artifact of [`WAT`].
    fn warm() -> (tempfile::TempDir, PathBuf, Vec<u8>, String) {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let bytes = wat::parse_str(WAT).unwrap();
        load_or_compile(&engine(), &bytes, None, &[], Some(&cache)).unwrap();
        let prefix = prefix(&sha256_hex(&bytes), &engine());
        (dir, cache, bytes, prefix)
    }

    fn name(path: &Path) -> &str {
        path.file_name().unwrap().to_str().unwrap()
    }

    #[test]
    fn the_artifact_is_the_serialized_component_named_by_its_crc() {
        let (_dir, cache, bytes, prefix) = warm();
        let found = files(&cache);
        assert_eq!(found.len(), 1, "{found:?}");
        let data = fs::read(&found[0]).unwrap();
        // No header: wasmtime's own bytes (an ELF image), mapped as they are.
        assert_eq!(&data[..4], b"\x7fELF");
        let compiled = Component::new(&engine(), &bytes).unwrap();
        assert_eq!(data, compiled.serialize().unwrap());
        let expected = format!("{prefix}{:08x}.cwasm", crc32fast::hash(&data));
        assert_eq!(name(&found[0]), expected);
        assert_eq!(named_crc(&expected, &prefix), Some(crc32fast::hash(&data)));
        assert!(load(&engine(), &cache, &prefix).is_some());
    }

    #[test]
    fn the_embedded_components_digest_from_the_build_is_its_sha256() {
        assert_eq!(
            crate::COMPONENT_SHA256,
            sha256_hex(crate::COMPONENT_WASM),
            "host/build.rs hashed other bytes than the ones embedded"
        );
    }

    #[test]
    fn a_corrupt_artifact_is_rejected_and_replaced() {
        let (_dir, cache, bytes, prefix) = warm();
        let path = files(&cache).remove(0);
        let good = fs::read(&path).unwrap();

        // The last byte flipped.
        let mut data = good.clone();
        let last = data.len() - 1;
        data[last] ^= 0xff;
        fs::write(&path, &data).unwrap();
        assert!(load(&engine(), &cache, &prefix).is_none());
        assert!(!path.exists(), "the corrupt file is removed");

        // Truncated to half, then to nothing: rejected and removed too.
        for len in [good.len() / 2, 0] {
            fs::write(&path, &good[..len]).unwrap();
            assert!(load(&engine(), &cache, &prefix).is_none(), "{len} bytes");
            assert!(!path.exists(), "{len} bytes: the file is removed");
        }

        // The next start compiles again and writes the same artifact.
        load_or_compile(&engine(), &bytes, None, &[], Some(&cache)).unwrap();
        assert_eq!(files(&cache), vec![path.clone()]);
        assert_eq!(fs::read(&path).unwrap(), good);
        assert!(load(&engine(), &cache, &prefix).is_some());
    }

    #[test]
    fn a_flipped_byte_in_the_middle_of_the_payload_is_never_mapped() {
        let (_dir, cache, _bytes, prefix) = warm();
        let path = files(&cache).remove(0);
        let mut data = fs::read(&path).unwrap();
        let middle = data.len() / 2;
        data[middle] ^= 0x01;
        fs::write(&path, &data).unwrap();
        // wasmtime would map these bytes as they are: only the CRC stops them.
        assert!(load(&engine(), &cache, &prefix).is_none());
        assert!(!path.exists(), "the corrupt file is removed");
    }

    #[test]
    fn an_artifact_under_another_crc_is_rejected() {
        let (_dir, cache, _bytes, prefix) = warm();
        let path = files(&cache).remove(0);
        let crc = named_crc(name(&path), &prefix).unwrap();
        let renamed = cache.join(format!("{prefix}{:08x}.cwasm", crc ^ 1));
        fs::rename(&path, &renamed).unwrap();
        assert!(load(&engine(), &cache, &prefix).is_none());
        assert!(!renamed.exists(), "the mismatched file is removed");
    }

    #[test]
    fn names_that_are_not_an_artifact_of_the_prefix_are_never_read() {
        let prefix = "0123456789abcdef0123456789abcdef-0123456789abcdef-";
        assert_eq!(
            named_crc(&format!("{prefix}00c0ffee.cwasm"), prefix),
            Some(0xc0ffee)
        );
        for name in [
            format!("{prefix}00C0FFEE.cwasm"),
            format!("{prefix}c0ffee.cwasm"),
            format!("{prefix}+0c0ffee.cwasm"),
            format!("{prefix}00c0ffee.cwasm.tmp"),
            "0123456789abcdef0123456789abcdef-0123456789abcdef.cwasm".to_owned(),
            format!("x{prefix}00c0ffee.cwasm"),
        ] {
            assert_eq!(named_crc(&name, prefix), None, "{name}");
        }
    }

    #[test]
    fn an_old_format_artifact_is_ignored_then_removed() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        create_private_dir(&cache).unwrap();
        let bytes = wat::parse_str(WAT).unwrap();
        let sha = sha256_hex(&bytes);
        let prefix = prefix(&sha, &engine());
        // The previous format: magic, the payload's SHA-256, the payload,
        // named `{component}-{engine}.cwasm`; valid, but never read now.
        let payload = Component::new(&engine(), &bytes)
            .unwrap()
            .serialize()
            .unwrap();
        let mut old = b"AMCWASM1".to_vec();
        old.extend_from_slice(&Sha256::digest(&payload));
        old.extend_from_slice(&payload);
        let old_path = cache.join(format!("{}.cwasm", prefix.trim_end_matches('-')));
        assert!(old_format(name(&old_path)));
        fs::write(&old_path, &old).unwrap();
        let unrelated = cache.join("notes.txt");
        fs::write(&unrelated, "kept").unwrap();

        assert!(load(&engine(), &cache, &prefix).is_none());
        assert!(old_path.exists(), "a load alone changes nothing");
        load_or_compile(&engine(), &bytes, Some(&sha), &[], Some(&cache)).unwrap();
        assert!(
            !old_path.exists(),
            "writing the cache removes the old format"
        );
        assert!(unrelated.exists(), "and nothing else");
        assert_eq!(files(&cache).len(), 2);
        assert!(load(&engine(), &cache, &prefix).is_some());
    }

    #[test]
    fn a_precompiled_artifact_is_used_and_kept_in_the_cache_for_the_next_process() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let bytes = wat::parse_str(WAT).unwrap();
        let artifact = engine().precompile_component(&bytes).unwrap();
        let (_, origin) =
            load_or_compile(&engine(), &bytes, None, &artifact, Some(&cache)).unwrap();
        assert_eq!(origin, CodeOrigin::Embedded);
        let [saved] = files(&cache).try_into().unwrap();
        assert_eq!(
            fs::read(&saved).unwrap(),
            artifact,
            "the embedded bytes, as they are"
        );
        let (_, origin) =
            load_or_compile(&engine(), &bytes, None, &artifact, Some(&cache)).unwrap();
        assert_eq!(origin, CodeOrigin::Cache);
        // Without a cache directory it is used as it is.
        let (_, origin) = load_or_compile(&engine(), &bytes, None, &artifact, None).unwrap();
        assert_eq!(origin, CodeOrigin::Embedded);
    }

    #[test]
    fn a_missing_or_refused_precompiled_artifact_falls_back_to_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let bytes = wat::parse_str(WAT).unwrap();
        // Another engine's artifact: epoch interruption, other tunables.
        let foreign = Engine::new(&crate::engine_config::engine_config())
            .unwrap()
            .precompile_component(&bytes)
            .unwrap();
        let good = engine().precompile_component(&bytes).unwrap();
        let truncated = &good[..good.len() / 2];
        let module = engine()
            .precompile_module(&wat::parse_str("(module)").unwrap())
            .unwrap();
        let cases: [(&str, &[u8]); 5] = [
            ("empty", &[]),
            ("not an artifact", &bytes),
            ("another engine's", &foreign),
            ("truncated", truncated),
            ("a module's", &module),
        ];
        for (i, (what, artifact)) in cases.into_iter().enumerate() {
            let (_, origin) =
                load_or_compile(&engine(), &bytes, None, artifact, Some(&cache)).unwrap();
            let expected = if i == 0 {
                CodeOrigin::Compiled
            } else {
                CodeOrigin::Cache
            };
            assert_eq!(origin, expected, "{what}");
        }
        let (_, origin) = load_or_compile(&engine(), &bytes, None, &[], None).unwrap();
        assert_eq!(origin, CodeOrigin::Compiled, "no cache: compiled");
    }

    #[test]
    fn the_embedded_artifact_loads_into_the_runtimes_engine() {
        // Empty unless this build has the `precompile` feature.
        if crate::COMPONENT_CWASM.is_empty() {
            return;
        }
        let engine = Engine::new(&crate::engine_config::engine_config()).unwrap();
        assert!(load_precompiled(&engine, crate::COMPONENT_CWASM).is_some());
    }

    #[test]
    fn the_newest_artifacts_of_other_components_are_kept_and_older_ones_removed() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        create_private_dir(&cache).unwrap();
        let day = std::time::Duration::from_secs(86_400);
        let now = std::time::SystemTime::now();
        // Five artifacts of other components, one written each day back.
        let others: Vec<PathBuf> = (1..=5u32)
            .map(|i| {
                let path = cache.join(format!("{:032x}-{:016x}-{:08x}.cwasm", i, 7, i));
                assert!(is_artifact(name(&path)));
                let file = fs::File::create(&path).unwrap();
                file.set_modified(now - day * i).unwrap();
                path
            })
            .collect();
        let weights = cache.join("weights-1-2-3-4.sum");
        fs::write(&weights, "0123456789abcdef").unwrap();

        let bytes = wat::parse_str(WAT).unwrap();
        load_or_compile(&engine(), &bytes, None, &[], Some(&cache)).unwrap();
        let kept: Vec<bool> = others.iter().map(|p| p.exists()).collect();
        assert_eq!(
            kept,
            [true, true, true, false, false],
            "the three newest stay"
        );
        assert!(weights.exists(), "what is not an artifact stays");
        assert_eq!(
            files(&cache).len(),
            5,
            "three others, the new one, the weights entry"
        );
    }

    #[test]
    fn another_component_gets_another_artifact() {
        let a = sha256_hex(&wat::parse_str(WAT).unwrap());
        let b =
            sha256_hex(&wat::parse_str("(component (core module (func (export \"g\"))))").unwrap());
        assert_ne!(prefix(&a, &engine()), prefix(&b, &engine()));
        let mut config = wasmtime::Config::new();
        config.cranelift_opt_level(wasmtime::OptLevel::None);
        let other = Engine::new(&config).unwrap();
        assert_ne!(prefix(&a, &engine()), prefix(&a, &other));
    }

    #[test]
    fn a_supplied_digest_names_the_artifact_without_hashing() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let bytes = wat::parse_str(WAT).unwrap();
        let given = "f".repeat(64);
        load_or_compile(&engine(), &bytes, Some(&given), &[], Some(&cache)).unwrap();
        let found = files(&cache);
        assert_eq!(found.len(), 1);
        assert!(
            name(&found[0]).starts_with(&prefix(&given, &engine())),
            "{found:?}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_world_writable_cache_is_ignored() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, cache, _bytes, prefix) = warm();
        let path = files(&cache).remove(0);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
        assert!(load(&engine(), &cache, &prefix).is_none());
        assert!(path.exists(), "another's file is left alone");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        assert!(load(&engine(), &cache, &prefix).is_some());
        fs::set_permissions(&cache, fs::Permissions::from_mode(0o777)).unwrap();
        assert!(load(&engine(), &cache, &prefix).is_none());
    }
}
