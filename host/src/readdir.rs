//! `descriptor.read-directory` without a stat per entry.
//!
//! wasmtime-wasi 48 answers `read-directory` by stat-ing every entry for its
//! type, a type the kernel already gave in the listing itself (`d_type`). The
//! context block lists the daily logs on every call, to count those a
//! consolidation has not seen: on a store of 269 logs that was 288 stats a
//! block, most of its time. A search lists a folder whenever the folder
//! changed, and then stats each file for the index's freshness check; with
//! upstream's listing such a search stats each file twice.
//!
//! This module shadows the three definitions behind the directory-entry stream
//! in the linker: the resource, `read-directory` and `read-directory-entry`.
//! The type comes from the listing; cap-primitives stats an entry only where
//! the file system gives no type. Everything else is as upstream: entries are read when
//! the stream opens, `.` and `..` are left out, a name that is not UTF-8 is an
//! `illegal-byte-sequence` entry, a file descriptor is `not-directory`, and a
//! handle the table does not hold traps.
//!
//! The cause is upstream's, and so is the lasting fix: once wasmtime-wasi
//! types entries from the listing, this module can go. Until then the Python
//! host, which links wasmtime-wasi through wasmtime-py, still stats each
//! entry.

use cap_primitives::fs::{FileType, FileTypeExt};
use wasmtime::component::{Linker, Resource, ResourceType};
use wasmtime_wasi::filesystem::Descriptor;
use wasmtime_wasi::p2::bindings::filesystem::types::{DescriptorType, DirectoryEntry, ErrorCode};

use crate::bindings::HostState;

/// The interface name wasmtime-wasi 48 defines `wasi:filesystem/types` under.
/// The linker is reopened at this exact name; the test
/// `listing_goes_through_the_shadowed_stream` fails if a newer wasmtime-wasi
/// defines another, and the shadowing would then miss.
const TYPES: &str = "wasi:filesystem/types@0.2.12";

/// A directory's entries, read when the stream opened.
pub(crate) struct Entries(std::vec::IntoIter<Result<DirectoryEntry, ErrorCode>>);

/// How many streams this process opened, for the test that proves the
/// shadowing is in place.
#[cfg(test)]
pub(crate) static OPENED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Replaces the directory-entry stream that `add_to_linker_sync` defined.
pub(crate) fn shadow(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut types = linker.instance(TYPES)?;
    types.resource(
        "directory-entry-stream",
        ResourceType::host::<Entries>(),
        |mut store, rep| {
            store
                .data_mut()
                .table
                .delete(Resource::<Entries>::new_own(rep))?;
            Ok(())
        },
    )?;
    types.func_wrap(
        "[method]descriptor.read-directory",
        |mut store, (fd,): (Resource<Descriptor>,)| {
            let table = &mut store.data_mut().table;
            let listed = match table.get(&fd)? {
                Descriptor::Dir(dir) => list(&dir.dir),
                Descriptor::File(_) => Err(ErrorCode::NotDirectory),
            };
            Ok((match listed {
                Ok(entries) => Ok(table.push(Entries(entries.into_iter()))?),
                Err(e) => Err(e),
            },))
        },
    )?;
    types.func_wrap(
        "[method]directory-entry-stream.read-directory-entry",
        |mut store, (stream,): (Resource<Entries>,)| {
            let entries = store.data_mut().table.get_mut(&stream)?;
            Ok((entries.0.next().transpose(),))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

/// Reads every entry of `dir`, each with the type the listing gave.
fn list(dir: &std::fs::File) -> Result<Vec<Result<DirectoryEntry, ErrorCode>>, ErrorCode> {
    #[cfg(test)]
    OPENED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let listing = cap_primitives::fs::read_base_dir(dir)?;
    Ok(listing
        .map(|entry| {
            let entry = entry?;
            let type_ = descriptor_type(entry.file_type()?);
            let name = entry
                .file_name()
                .into_string()
                .map_err(|_| ErrorCode::IllegalByteSequence)?;
            Ok(DirectoryEntry { type_, name })
        })
        .collect())
}

/// The WASI type of a listed entry, as wasmtime-wasi maps it.
fn descriptor_type(ty: FileType) -> DescriptorType {
    if ty.is_dir() {
        DescriptorType::Directory
    } else if ty.is_symlink() {
        DescriptorType::SymbolicLink
    } else if ty.is_file() {
        DescriptorType::RegularFile
    } else if ty.is_block_device() {
        DescriptorType::BlockDevice
    } else if ty.is_char_device() {
        DescriptorType::CharacterDevice
    } else {
        DescriptorType::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    /// The types pinned are the ones wasmtime-wasi's own listing gives (its
    /// stat of each entry, links not followed; a fifo is `unknown` there).
    #[test]
    fn each_entry_has_the_type_upstream_gives() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        std::fs::write(dir.join("a.md"), "a").unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        std::os::unix::fs::symlink("a.md", dir.join("link.md")).unwrap();
        std::os::unix::fs::symlink("nowhere", dir.join("dangling")).unwrap();
        let fifo = std::ffi::CString::new(dir.join("pipe").as_os_str().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);

        let listed = list(&std::fs::File::open(dir).unwrap()).unwrap();
        let mut seen: Vec<(String, DescriptorType)> = listed
            .into_iter()
            .map(|entry| {
                let entry = entry.unwrap();
                (entry.name, entry.type_)
            })
            .collect();
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        let expected = [
            ("a.md", DescriptorType::RegularFile),
            ("dangling", DescriptorType::SymbolicLink),
            ("link.md", DescriptorType::SymbolicLink),
            ("pipe", DescriptorType::Unknown),
            ("sub", DescriptorType::Directory),
        ]
        .map(|(name, ty)| (name.to_string(), ty));
        assert_eq!(seen, expected);
    }

    #[test]
    fn a_name_that_is_not_utf8_is_an_illegal_byte_sequence_entry() {
        let temp = tempfile::tempdir().unwrap();
        let name = std::ffi::OsStr::from_bytes(b"bad\xff.md");
        std::fs::write(temp.path().join(name), "x").unwrap();
        std::fs::write(temp.path().join("good.md"), "x").unwrap();
        let listed = list(&std::fs::File::open(temp.path()).unwrap()).unwrap();
        assert_eq!(listed.len(), 2);
        let bad: Vec<_> = listed.iter().filter(|e| e.is_err()).collect();
        assert!(
            matches!(bad[..], [Err(ErrorCode::IllegalByteSequence)]),
            "{listed:?}"
        );
        assert!(
            listed
                .iter()
                .any(|e| matches!(e, Ok(entry) if entry.name == "good.md"))
        );
    }

    #[test]
    fn listing_goes_through_the_shadowed_stream() {
        use crate::{OpenOptions, Runtime, WriteMode, WriteTarget};
        let temp = tempfile::tempdir().unwrap();
        let mut memory = Runtime::shared()
            .unwrap()
            .open(OpenOptions::new(
                temp.path().join("root"),
                temp.path().join("app"),
            ))
            .unwrap();
        memory
            .write(WriteTarget::Note, "body", WriteMode::Append, Some("first"))
            .unwrap();
        let before = OPENED.load(std::sync::atomic::Ordering::Relaxed);
        let files = memory.list_files().unwrap();
        assert!(
            OPENED.load(std::sync::atomic::Ordering::Relaxed) > before,
            "the guest listed its folders without this module's stream: \
             does wasmtime-wasi still define `{TYPES}`?"
        );
        assert!(
            files.iter().any(|f| f.path.ends_with("notes/first.md")),
            "{files:?}"
        );
    }
}
