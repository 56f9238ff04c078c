//! [`Dir`](super::Dir) inside the component: `wasi:filesystem` called
//! directly instead of through wasi-libc.
//!
//! wasi-libc turns every `fstatat` into two host calls, `stat-at` and
//! `metadata-hash-at` (to make up an `st_ino` nobody here reads), and its
//! `readdir` does the same for each entry's `d_ino`; each is a path walk
//! and a `statx` in the host. The store and the project directory only ever
//! need the type, link count, size and modification time, which one
//! `stat-at` gives, and the entry types, which `read-directory` already
//! carries. Everything else (writes, the lock, whole-path reads) stays on
//! std and wasi-libc.
//!
//! The values are exactly those wasi-libc derives from the same host
//! answers (a missing timestamp is 0, as its `struct stat` has it), so
//! signatures and stamps written by a native process, by the libc route and
//! by this one agree.

use std::cell::OnceCell;
use std::io;

use wasip2::filesystem::preopens;
use wasip2::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorStat, DescriptorType, ErrorCode, OpenFlags, PathFlags,
};

use super::{EntryType, Sig, Stamp, Stat};

thread_local! {
    /// The instance's preopened directories and their guest paths. The host
    /// fixes them when it instantiates the component and never changes
    /// them (wasi-libc keeps its own list the same way), so they are taken
    /// once; every folder beneath them is opened afresh per operation.
    static PREOPENS: OnceCell<Vec<(Descriptor, String)>> = const { OnceCell::new() };
}

/// Open the directory at the guest path `path` as `File::open` would:
/// beneath the preopen whose guest path is its longest prefix (whole
/// components), following symbolic links within it; then refuse anything
/// but a directory.
pub(super) fn open_dir(path: &str) -> io::Result<Descriptor> {
    PREOPENS.with(|cell| {
        let preopens = cell.get_or_init(preopens::get_directories);
        let (at, rest) = super::preopen_rest(preopens.iter().map(|(_, p)| p.as_str()), path)
            // wasi-libc's answer for a path under no preopen.
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))?;
        preopens[at]
            .0
            .open_at(
                PathFlags::SYMLINK_FOLLOW,
                &rest,
                OpenFlags::DIRECTORY,
                DescriptorFlags::READ,
            )
            .map_err(error)
    })
}

/// Open the entry `name` of `dir`, never through a symbolic link; a folder
/// only when `folder`.
pub(super) fn open_at(dir: &Descriptor, name: &str, folder: bool) -> io::Result<Descriptor> {
    let open = if folder {
        OpenFlags::DIRECTORY
    } else {
        OpenFlags::empty()
    };
    dir.open_at(PathFlags::empty(), name, open, DescriptorFlags::READ)
        .map_err(error)
}

/// Create the file `name` (which must not exist) in the directory at the
/// guest path `dir` and write `bytes` into it at offsets, synced when
/// `durable`. Written with the descriptor's own `write`, not through an
/// output stream, whose failures wasi-libc can only report as `EIO`: a
/// full disk says so.
pub(super) fn write_new(dir: &str, name: &str, bytes: &[u8], durable: bool) -> io::Result<()> {
    let dir = open_dir(dir)?;
    let file = dir
        .open_at(
            PathFlags::empty(),
            name,
            OpenFlags::CREATE | OpenFlags::EXCLUSIVE,
            DescriptorFlags::WRITE,
        )
        .map_err(error)?;
    let written = write_at(&file, bytes, 0).and_then(|()| match durable {
        true => file.sync().map_err(error),
        false => Ok(()),
    });
    if written.is_err() {
        // Made here, so removed here: nobody else's file.
        drop(file);
        let _ = dir.unlink_file_at(name);
    }
    written
}

/// Add `bytes` at the end of the existing file `name` (of `len` bytes) in
/// the directory at the guest path `dir`, never through a link, and sync
/// the data; as [`write_new`], a full disk says so.
pub(super) fn append(dir: &str, name: &str, len: u64, bytes: &[u8]) -> io::Result<()> {
    let file = open_dir(dir)?
        .open_at(
            PathFlags::empty(),
            name,
            OpenFlags::empty(),
            DescriptorFlags::WRITE,
        )
        .map_err(error)?;
    write_at(&file, bytes, len)?;
    file.sync_data().map_err(error)
}

fn write_at(file: &Descriptor, bytes: &[u8], offset: u64) -> io::Result<()> {
    let mut at = 0usize;
    while at < bytes.len() {
        let end = (at + (1 << 20)).min(bytes.len());
        let n = file
            .write(&bytes[at..end], offset + at as u64)
            .map_err(error)?;
        if n == 0 {
            return Err(io::Error::from(io::ErrorKind::WriteZero));
        }
        at += n as usize;
    }
    Ok(())
}

/// One `stat-at` of the entry `name`, not following a symbolic link.
pub(super) fn stat_at(dir: &Descriptor, name: &str) -> io::Result<DescriptorStat> {
    dir.stat_at(PathFlags::empty(), name).map_err(error)
}

/// The stat of an open descriptor.
pub(super) fn stat(fd: &Descriptor) -> io::Result<DescriptorStat> {
    fd.stat().map_err(error)
}

/// What [`super::Dir`] needs of a stat, as wasi-libc's `struct stat` would
/// give it.
pub(super) fn kind(st: &DescriptorStat) -> Stat {
    match st.type_ {
        DescriptorType::RegularFile => Stat::File {
            len: st.size,
            links: st.link_count,
        },
        DescriptorType::Directory => Stat::Dir,
        DescriptorType::SymbolicLink => Stat::Symlink,
        _ => Stat::Special,
    }
}

/// Modification time in nanoseconds, as wasi-libc fills `st_mtim` (seconds
/// and nanoseconds as given, zero when the host has none) and
/// [`super::Dir`] then folds it.
pub(super) fn mtime_ns(st: &DescriptorStat) -> i64 {
    let (secs, nanos) = st
        .data_modification_timestamp
        .map_or((0, 0), |t| (t.seconds as i64, t.nanoseconds));
    secs.saturating_mul(1_000_000_000)
        .saturating_add(i64::from(nanos))
}

/// The signature of a regular file with no other hard link.
pub(super) fn sig(st: &DescriptorStat) -> Option<Sig> {
    (st.type_ == DescriptorType::RegularFile && st.link_count <= 1).then(|| Sig {
        len: st.size,
        mtime_ns: mtime_ns(st),
    })
}

/// The stamp of a regular file, whatever its link count.
pub(super) fn stamp(st: &DescriptorStat) -> Option<Stamp> {
    (st.type_ == DescriptorType::RegularFile).then(|| Stamp {
        len: st.size,
        mtime_ns: mtime_ns(st),
    })
}

/// The names of `dir`'s entries that `keep` accepts, typed by the listing
/// itself, and whether the listing reached its end (an entry that vanished
/// while the host looked at it ends it early, as it ends wasi-libc's).
pub(super) fn list(
    dir: &Descriptor,
    keep: &dyn Fn(&str, EntryType) -> bool,
    names: &mut Vec<(String, EntryType)>,
) -> io::Result<bool> {
    let stream = dir.read_directory().map_err(error)?;
    loop {
        match stream.read_directory_entry() {
            Ok(Some(entry)) => {
                let kind = match entry.type_ {
                    DescriptorType::RegularFile => EntryType::File,
                    DescriptorType::Directory => EntryType::Dir,
                    _ => EntryType::Other,
                };
                if keep(&entry.name, kind) {
                    names.push((entry.name, kind));
                }
            }
            Ok(None) => return Ok(true),
            Err(_) => return Ok(false),
        }
    }
}

/// Up to `wanted` bytes of `fd` from `offset`, fewer at its end: one
/// `read` call per chunk the host hands back.
pub(super) fn read_range(fd: &Descriptor, offset: u64, wanted: usize) -> io::Result<Vec<u8>> {
    let mut bytes: Vec<u8> = Vec::with_capacity(wanted);
    while bytes.len() < wanted {
        let at = offset + bytes.len() as u64;
        match fd.read((wanted - bytes.len()) as u64, at) {
            Ok((chunk, end)) => {
                // Never more than asked, whatever the host sends.
                let room = wanted - bytes.len();
                let n = chunk.len().min(room);
                bytes.extend_from_slice(&chunk[..n]);
                if n == 0 || end {
                    break;
                }
            }
            Err(ErrorCode::Interrupted) => {}
            Err(e) => return Err(error(e)),
        }
    }
    Ok(bytes)
}

/// An open regular file read from the start, one `read` call per
/// [`io::Read::read`].
#[derive(Debug)]
pub struct File {
    fd: Descriptor,
    offset: u64,
}

impl File {
    pub(super) fn new(fd: Descriptor) -> File {
        File { fd, offset: 0 }
    }
}

impl io::Read for File {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let (chunk, _) = self.fd.read(buf.len() as u64, self.offset).map_err(error)?;
        let n = chunk.len().min(buf.len());
        buf[..n].copy_from_slice(&chunk[..n]);
        self.offset += n as u64;
        Ok(n)
    }
}

/// The `io::Error` wasi-libc would report: the same errno, so the same
/// kind and message.
fn error(code: ErrorCode) -> io::Error {
    use ErrorCode as E;
    let errno = match code {
        E::Access => libc::EACCES,
        E::WouldBlock => libc::EAGAIN,
        E::Already => libc::EALREADY,
        E::BadDescriptor => libc::EBADF,
        E::Busy => libc::EBUSY,
        E::Deadlock => libc::EDEADLK,
        E::Quota => libc::EDQUOT,
        E::Exist => libc::EEXIST,
        E::FileTooLarge => libc::EFBIG,
        E::IllegalByteSequence => libc::EILSEQ,
        E::InProgress => libc::EINPROGRESS,
        E::Interrupted => libc::EINTR,
        E::Invalid => libc::EINVAL,
        E::Io => libc::EIO,
        E::IsDirectory => libc::EISDIR,
        E::Loop => libc::ELOOP,
        E::TooManyLinks => libc::EMLINK,
        E::MessageSize => libc::EMSGSIZE,
        E::NameTooLong => libc::ENAMETOOLONG,
        E::NoDevice => libc::ENODEV,
        E::NoEntry => libc::ENOENT,
        E::NoLock => libc::ENOLCK,
        E::InsufficientMemory => libc::ENOMEM,
        E::InsufficientSpace => libc::ENOSPC,
        E::NotDirectory => libc::ENOTDIR,
        E::NotEmpty => libc::ENOTEMPTY,
        E::NotRecoverable => libc::ENOTRECOVERABLE,
        E::Unsupported => libc::ENOTSUP,
        E::NoTty => libc::ENOTTY,
        E::NoSuchDevice => libc::ENXIO,
        E::Overflow => libc::EOVERFLOW,
        E::NotPermitted => libc::EPERM,
        E::Pipe => libc::EPIPE,
        E::ReadOnly => libc::EROFS,
        E::InvalidSeek => libc::ESPIPE,
        E::TextFileBusy => libc::ETXTBSY,
        E::CrossDevice => libc::EXDEV,
    };
    io::Error::from_raw_os_error(errno)
}
