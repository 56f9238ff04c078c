//! The compiled-component cache: Cranelift output saved next to the user's
//! other caches so a short-lived process (the `agent-memory` command) loads
//! the component in a millisecond instead of compiling it again.
//!
//! An artifact is only ever loaded when all of these hold:
//! - its file name carries the SHA-256 of the component bytes and wasmtime's
//!   compatibility hash of the engine (wasmtime version, settings, CPU
//!   features), so a different component, wasmtime or CPU never matches;
//! - its payload matches the SHA-256 stored in its header, so a truncated or
//!   corrupted file is rejected (and removed) instead of being mapped as code;
//! - on Unix, the file and its directory belong to the current user and are
//!   not writable by group or others, so another user cannot plant one.
//!
//! Any failure falls back to compiling; writing the cache is best effort.
//!
//! Why not wasmtime's own cache (`cache` feature, `Config::cache`): in 48.0.8
//! it checks neither who wrote an artifact nor a checksum of it (its zstd
//! frames carry none), starts a worker thread per engine, costs a C build of
//! zstd and 1.1 MB of binary, and was slower warm: `agent-memory context` took
//! a median 11.0 ms against 8.9 ms with this file (cold, ~290 ms, the same).

use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

const MAGIC: &[u8; 8] = b"AMCWASM1";
const HEADER: usize = MAGIC.len() + 32;

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

/// The artifact's path for `bytes` compiled by `engine`.
fn artifact_path(dir: &Path, engine: &Engine, bytes: &[u8]) -> PathBuf {
    let component: String = Sha256::digest(bytes)[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    dir.join(format!("{component}-{:016x}.cwasm", hasher.finish()))
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

/// The component compiled for `engine`: loaded from the cache in `dir` when a
/// valid artifact is there, otherwise compiled and saved.
pub(crate) fn load_or_compile(
    engine: &Engine,
    bytes: &[u8],
    dir: Option<&Path>,
) -> wasmtime::Result<Component> {
    let Some(dir) = dir else {
        return Component::new(engine, bytes);
    };
    let path = artifact_path(dir, engine, bytes);
    if let Some(component) = load(engine, dir, &path) {
        return Ok(component);
    }
    let component = Component::new(engine, bytes)?;
    if let Ok(serialized) = component.serialize() {
        store(dir, &path, &serialized);
    }
    Ok(component)
}

fn load(engine: &Engine, dir: &Path, path: &Path) -> Option<Component> {
    if !private(dir) || !private(path) {
        return None;
    }
    let file = fs::read(path).ok()?;
    let valid = file.len() > HEADER
        && &file[..MAGIC.len()] == MAGIC
        && file[MAGIC.len()..HEADER] == Sha256::digest(&file[HEADER..])[..];
    if !valid {
        let _ = fs::remove_file(path);
        return None;
    }
    // SAFETY: `deserialize` must only see bytes that `Component::serialize`
    // produced for a compatible engine. The checksum proves the payload is
    // exactly what this cache wrote, the ownership check that no other user
    // wrote it, and wasmtime itself rejects an artifact from an incompatible
    // engine (its name already encodes the compatibility hash).
    match unsafe { Component::deserialize(engine, &file[HEADER..]) } {
        Ok(component) => Some(component),
        Err(_) => {
            let _ = fs::remove_file(path);
            None
        }
    }
}

fn store(dir: &Path, path: &Path, serialized: &[u8]) {
    if create_private_dir(dir).is_err() || !private(dir) {
        return;
    }
    let tmp = dir.join(format!(".{}.{}.tmp", std::process::id(), unique()));
    let written = (|| {
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&tmp)?;
        file.write_all(MAGIC)?;
        file.write_all(&Sha256::digest(serialized))?;
        file.write_all(serialized)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
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

    // A tiny component: compiling it is cheap even in a debug build.
    const WAT: &str = "(component (core module (func (export \"f\"))))";

    fn artifacts(dir: &Path) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn second_load_comes_from_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let bytes = wat::parse_str(WAT).unwrap();
        load_or_compile(&engine(), &bytes, Some(&cache)).unwrap();
        let files = artifacts(&cache);
        assert_eq!(files.len(), 1);
        assert!(files[0].extension().is_some_and(|e| e == "cwasm"));
        assert!(load(&engine(), &cache, &files[0]).is_some());
    }

    #[test]
    fn a_corrupt_artifact_is_rejected_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let bytes = wat::parse_str(WAT).unwrap();
        load_or_compile(&engine(), &bytes, Some(&cache)).unwrap();
        let path = artifacts(&cache).remove(0);
        let mut data = fs::read(&path).unwrap();
        let last = data.len() - 1;
        data[last] ^= 0xff;
        fs::write(&path, &data).unwrap();
        assert!(load(&engine(), &cache, &path).is_none());
        assert!(!path.exists(), "the corrupt file is removed");
        // Truncated to nothing: also rejected, then rebuilt.
        load_or_compile(&engine(), &bytes, Some(&cache)).unwrap();
        fs::write(&path, b"AMCWASM1").unwrap();
        assert!(load(&engine(), &cache, &path).is_none());
        load_or_compile(&engine(), &bytes, Some(&cache)).unwrap();
        assert!(load(&engine(), &cache, &path).is_some());
    }

    #[test]
    fn another_component_gets_another_artifact() {
        let dir = tempfile::tempdir().unwrap();
        let a = wat::parse_str(WAT).unwrap();
        let b = wat::parse_str("(component (core module (func (export \"g\"))))").unwrap();
        assert_ne!(
            artifact_path(dir.path(), &engine(), &a),
            artifact_path(dir.path(), &engine(), &b)
        );
        let mut config = wasmtime::Config::new();
        config.cranelift_opt_level(wasmtime::OptLevel::None);
        let other = Engine::new(&config).unwrap();
        assert_ne!(
            artifact_path(dir.path(), &engine(), &a),
            artifact_path(dir.path(), &other, &a)
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_world_writable_cache_is_ignored() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let bytes = wat::parse_str(WAT).unwrap();
        load_or_compile(&engine(), &bytes, Some(&cache)).unwrap();
        let path = artifacts(&cache).remove(0);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
        assert!(load(&engine(), &cache, &path).is_none());
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        fs::set_permissions(&cache, fs::Permissions::from_mode(0o777)).unwrap();
        assert!(load(&engine(), &cache, &path).is_none());
    }
}
