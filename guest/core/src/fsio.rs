//! File access for the store: bounded reads that never block on special
//! files, and atomic replacement.

#[cfg(not(target_os = "wasi"))]
use std::fs::OpenOptions;
use std::fs::{self, File};
use std::hash::{BuildHasher, Hasher};
#[cfg(not(target_os = "wasi"))]
use std::io::Write;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

#[cfg(target_os = "wasi")]
mod wasi;

/// What a path in the store turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Nothing there.
    Missing,
    /// A regular file of this many bytes, with no other hard link.
    File(u64),
    /// Something the store never opens: a directory, FIFO, socket, device,
    /// symlink, or a regular file with more than one hard link (another name
    /// for it may live outside the store). The text says which.
    Other(&'static str),
}

/// Look at `path` without following a final symlink and without opening it
/// (opening a FIFO would block).
pub fn kind(path: &Path) -> io::Result<Kind> {
    match stat(path) {
        Ok(Stat::File { len, links }) if links <= 1 => Ok(Kind::File(len)),
        Ok(Stat::File { .. }) => Ok(Kind::Other("a file with more than one hard link")),
        Ok(Stat::Dir) => Ok(Kind::Other("a directory")),
        Ok(Stat::Symlink) => Ok(Kind::Other("a symbolic link")),
        Ok(Stat::Special) => Ok(Kind::Other("not a regular file")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Kind::Missing),
        Err(e) => Err(e),
    }
}

/// The little of `lstat` the store needs.
enum Stat {
    File { len: u64, links: u64 },
    Dir,
    Symlink,
    Special,
}

#[cfg(not(target_os = "wasi"))]
fn stat(path: &Path) -> io::Result<Stat> {
    let meta = fs::symlink_metadata(path)?;
    let t = meta.file_type();
    Ok(if t.is_file() {
        #[cfg(unix)]
        let links = std::os::unix::fs::MetadataExt::nlink(&meta);
        #[cfg(not(unix))]
        let links = 1;
        Stat::File {
            len: meta.len(),
            links,
        }
    } else if t.is_dir() {
        Stat::Dir
    } else if t.is_symlink() {
        Stat::Symlink
    } else {
        Stat::Special
    })
}

/// WASI's `descriptor.stat-at` reports the link count, but std only exposes
/// it behind an unstable feature; wasi-libc's `lstat` is the stable way in.
#[cfg(target_os = "wasi")]
fn stat(path: &Path) -> io::Result<Stat> {
    let c_path = path
        .to_str()
        .and_then(|p| std::ffi::CString::new(p).ok())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path is not a C string"))?;
    // SAFETY: `stat` is plain old data, so all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `c_path` is NUL-terminated and `st` is a valid, writable stat.
    if unsafe { libc::lstat(c_path.as_ptr(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(match st.st_mode & libc::S_IFMT {
        libc::S_IFREG => Stat::File {
            len: st.st_size as u64,
            links: st.st_nlink,
        },
        libc::S_IFDIR => Stat::Dir,
        libc::S_IFLNK => Stat::Symlink,
        _ => Stat::Special,
    })
}

/// Decode bytes as UTF-8, replacing invalid sequences with U+FFFD, but
/// dropping an incomplete sequence at the very end (a cut, not corruption).
fn decode(mut bytes: Vec<u8>, cut: bool) -> String {
    if cut
        && let Err(e) = std::str::from_utf8(&bytes)
        && e.error_len().is_none()
    {
        bytes.truncate(e.valid_up_to());
    }
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// A regular file's text, or the first `limit` bytes of it, and its full
/// length. `Ok(None)` when the path is missing or not a regular file.
pub fn read_head(path: &Path, limit: u64) -> io::Result<Option<(String, u64)>> {
    let Kind::File(len) = kind(path)? else {
        return Ok(None);
    };
    let file = File::open(path)?;
    let mut bytes = Vec::with_capacity(len.min(limit) as usize);
    file.take(limit).read_to_end(&mut bytes)?;
    let cut = (bytes.len() as u64) < len;
    Ok(Some((decode(bytes, cut), len)))
}

/// Lines of a regular file as `str::lines` counts them, in its first
/// `limit` bytes, read a chunk at a time.
pub fn count_lines(path: &Path, limit: u64) -> io::Result<u64> {
    if !matches!(kind(path)?, Kind::File(_)) {
        return Ok(0);
    }
    let mut file = File::open(path)?.take(limit);
    let mut buf = vec![0u8; 64 * 1024];
    let (mut lines, mut last) = (0u64, b'\n');
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        last = buf[n - 1];
    }
    Ok(lines + u64::from(last != b'\n'))
}

/// Like [`read_head`] but keeps the last `limit` bytes, starting at a line
/// break when one is near the cut.
pub fn read_tail(path: &Path, limit: u64) -> io::Result<Option<(String, u64)>> {
    let Kind::File(len) = kind(path)? else {
        return Ok(None);
    };
    if len <= limit {
        return read_head(path, limit);
    }
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(len - limit))?;
    let mut bytes = Vec::with_capacity(limit as usize);
    file.take(limit).read_to_end(&mut bytes)?;
    // Start after the first line break so no line is shown half.
    if let Some(nl) = bytes.iter().position(|&b| b == b'\n') {
        bytes.drain(..=nl);
    } else {
        // No line break: skip UTF-8 continuation bytes at the start.
        let skip = bytes.iter().take_while(|&&b| b & 0xC0 == 0x80).count();
        bytes.drain(..skip);
    }
    Ok(Some((decode(bytes, false), len)))
}

/// What says a file changed: its size and modification time (nanoseconds
/// since the epoch). Not the inode: WASI's stat has none, and a native
/// process and the component must agree on one store's signatures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sig {
    /// Bytes.
    pub len: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
}

/// Listings of one directory tried before taking what was seen.
const LIST_ATTEMPTS: usize = 4;

/// A directory of the store opened once, whose files are then looked at and
/// read by name. Each stat or open is then one path component relative to
/// the open directory instead of a walk from the root: in the sandbox every
/// walk is checked to stay beneath the root (an `openat2`, a `statx` and a
/// `close` per stat, and WASI's preview-1 layer stats twice), which is what
/// dominated a search over thousands of notes.
#[derive(Debug)]
pub struct Dir {
    // Inside the component only `Debug` reads it.
    #[cfg_attr(target_os = "wasi", allow(dead_code))]
    path: std::path::PathBuf,
    #[cfg(unix)]
    handle: File,
    /// Inside the component the directory is a `wasi:filesystem`
    /// descriptor, called directly (see [`wasi`]).
    #[cfg(target_os = "wasi")]
    handle: wasip2::filesystem::types::Descriptor,
}

/// How a directory listing types an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum EntryType {
    File,
    Dir,
    Other,
}

/// An open regular file of a [`Dir`], read from its start.
#[cfg(not(target_os = "wasi"))]
pub type ReadFile = File;
/// An open regular file of a [`Dir`], read from its start.
#[cfg(target_os = "wasi")]
pub type ReadFile = wasi::File;

/// The preopen (by index into `preopens`, their guest paths) under which
/// the guest path `path` lies, and the rest of `path` relative to it ("."
/// for the preopen itself): the one whose path is the longest prefix of
/// `path` in whole components, so `/project` holds `/project/src` but not
/// `/projects/x`, which `/` holds. Empty and `.` components are skipped, and
/// a relative `path` counts from `/`, the component's working directory.
#[cfg(any(test, target_os = "wasi"))]
fn preopen_rest<'a>(
    preopens: impl Iterator<Item = &'a str>,
    path: &str,
) -> Option<(usize, String)> {
    let parts = |p: &'a str| p.split('/').filter(|c| !c.is_empty() && *c != ".");
    let wanted: Vec<&str> = path
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let mut best: Option<(usize, usize)> = None;
    for (i, preopen) in preopens.enumerate() {
        let mut n = 0;
        let mut under = true;
        for part in parts(preopen) {
            if wanted.get(n) != Some(&part) {
                under = false;
                break;
            }
            n += 1;
        }
        if under && best.is_none_or(|(_, m)| n > m) {
            best = Some((i, n));
        }
    }
    let (at, n) = best?;
    let rest = wanted[n..].join("/");
    Some((
        at,
        if rest.is_empty() {
            ".".to_string()
        } else {
            rest
        },
    ))
}

impl Dir {
    /// Open the directory at `path`. `Ok(None)` when it is missing or not a
    /// directory (as [`fs::read_dir`] would fail).
    pub fn open(path: &Path) -> io::Result<Option<Dir>> {
        let missing = |e: &io::Error| {
            matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            )
        };
        #[cfg(target_os = "wasi")]
        {
            let guest = path
                .to_str()
                .ok_or_else(|| io::Error::from_raw_os_error(libc::EILSEQ))?;
            match wasi::open_dir(guest) {
                Ok(handle) => Ok(Some(Dir {
                    path: path.to_path_buf(),
                    handle,
                })),
                Err(e) if missing(&e) => Ok(None),
                Err(e) => Err(e),
            }
        }
        #[cfg(unix)]
        {
            let handle = match File::open(path) {
                Ok(handle) => handle,
                Err(e) if missing(&e) => return Ok(None),
                Err(e) => return Err(e),
            };
            if !handle.metadata()?.is_dir() {
                return Ok(None);
            }
            Ok(Some(Dir {
                path: path.to_path_buf(),
                handle,
            }))
        }
        #[cfg(not(any(unix, target_os = "wasi")))]
        match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => Ok(Some(Dir {
                path: path.to_path_buf(),
            })),
            Ok(_) => Ok(None),
            Err(e) if missing(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The open directory's own size and modification time, from one stat
    /// of its descriptor: what a remembered listing is compared against.
    pub fn sig(&self) -> io::Result<Sig> {
        #[cfg(target_os = "wasi")]
        {
            let st = wasi::stat(&self.handle)?;
            Ok(Sig {
                len: st.size,
                mtime_ns: wasi::mtime_ns(&st),
            })
        }
        #[cfg(not(target_os = "wasi"))]
        {
            #[cfg(unix)]
            let meta = self.handle.metadata()?;
            #[cfg(not(unix))]
            let meta = fs::metadata(&self.path)?;
            let mtime_ns = meta
                .modified()?
                .duration_since(std::time::UNIX_EPOCH)
                .map_or_else(
                    |e| -i64::try_from(e.duration().as_nanos()).unwrap_or(i64::MAX),
                    |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
                );
            Ok(Sig {
                len: meta.len(),
                mtime_ns,
            })
        }
    }

    /// Names of the `.md` entries that the directory listing itself types as
    /// regular files (no stat of each), not starting with `.`, sorted, and
    /// the names of the entries that the same listing types as directories
    /// (a symbolic link is not one), not starting with `.`, sorted. Callers
    /// still check each file with [`Dir::kind`] or [`Dir::read_head`], which
    /// also refuse hard-linked files. wasmtime-wasi's own listing (the Python
    /// host's) stats every entry, so a notes folder of thousands is listed
    /// once, not once for notes and again for topic folders.
    pub fn md_and_subdir_names(&self) -> io::Result<(Vec<String>, Vec<String>)> {
        let is_md = |name: &str, t| name.ends_with(".md") && t == EntryType::File;
        let entries = self
            .names(|name, t| !name.starts_with('.') && (is_md(name, t) || t == EntryType::Dir))?;
        let (md, dirs): (Vec<_>, Vec<_>) = entries.into_iter().partition(|(n, t)| is_md(n, *t));
        let names = |v: Vec<(String, EntryType)>| v.into_iter().map(|(n, _)| n).collect();
        Ok((names(md), names(dirs)))
    }

    /// The names `keep` accepts, sorted. A listing that fails part-way is
    /// taken again, up to [`LIST_ATTEMPTS`] times, and the names of every
    /// attempt are kept: a host that stats each entry while listing
    /// (wasmtime-wasi's own) ends the listing early at an entry renamed away
    /// meanwhile (another writer's temp file), which would hide every later
    /// file.
    fn names(
        &self,
        keep: impl Fn(&str, EntryType) -> bool,
    ) -> io::Result<Vec<(String, EntryType)>> {
        let mut names = Vec::new();
        for _ in 0..LIST_ATTEMPTS {
            // Entry types from `read-directory`, no stat of each.
            #[cfg(target_os = "wasi")]
            let complete = wasi::list(&self.handle, &keep, &mut names)?;
            #[cfg(not(target_os = "wasi"))]
            let mut complete = true;
            #[cfg(not(target_os = "wasi"))]
            for entry in fs::read_dir(&self.path)? {
                let Ok(entry) = entry else {
                    complete = false;
                    break;
                };
                let Ok(name) = entry.file_name().into_string() else {
                    continue;
                };
                let t = entry.file_type().map(|t| {
                    if t.is_file() {
                        EntryType::File
                    } else if t.is_dir() {
                        EntryType::Dir
                    } else {
                        EntryType::Other
                    }
                });
                if let Ok(t) = t
                    && keep(&name, t)
                {
                    names.push((name, t));
                }
            }
            if complete {
                break;
            }
        }
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// Open the subdirectory `name` (one path component) when it is a real
    /// directory, never through a symbolic link; `Ok(None)` otherwise.
    pub fn open_subdir(&self, name: &str) -> io::Result<Option<Dir>> {
        // One `open-at` that refuses a link and anything but a folder.
        #[cfg(target_os = "wasi")]
        match wasi::open_at(&self.handle, name, true) {
            Ok(handle) => Ok(Some(Dir {
                path: self.path.join(name),
                handle,
            })),
            Err(e) => match e.raw_os_error() {
                Some(libc::ENOENT | libc::ENOTDIR | libc::ELOOP) => Ok(None),
                _ => Err(e),
            },
        }
        #[cfg(unix)]
        {
            use std::os::fd::{AsRawFd, FromRawFd};
            // One `openat` that refuses a link and anything but a folder:
            // no window for a link to be swapped in, no walk from the root.
            let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
            let c_name = Self::c_name(name)?;
            // SAFETY: the descriptor is open for the life of `self` and
            // `c_name` is NUL-terminated.
            let fd = unsafe { libc::openat(self.handle.as_raw_fd(), c_name.as_ptr(), flags) };
            if fd < 0 {
                let e = io::Error::last_os_error();
                return match e.raw_os_error() {
                    Some(libc::ENOENT | libc::ENOTDIR | libc::ELOOP) => Ok(None),
                    _ => Err(e),
                };
            }
            Ok(Some(Dir {
                path: self.path.join(name),
                // SAFETY: `fd` was just opened and nothing else owns it.
                handle: unsafe { File::from_raw_fd(fd) },
            }))
        }
        #[cfg(not(any(unix, target_os = "wasi")))]
        {
            if !matches!(self.stat(name), Ok(Stat::Dir)) {
                return Ok(None);
            }
            // Checked just above; a link swapped in between is the one race
            // left, and only another local process could make it.
            Dir::open(&self.path.join(name))
        }
    }

    /// As [`kind`] for the entry `name` (one path component).
    pub fn kind(&self, name: &str) -> io::Result<Kind> {
        match self.stat(name) {
            Ok(Stat::File { len, links }) if links <= 1 => Ok(Kind::File(len)),
            Ok(Stat::File { .. }) => Ok(Kind::Other("a file with more than one hard link")),
            Ok(Stat::Dir) => Ok(Kind::Other("a directory")),
            Ok(Stat::Symlink) => Ok(Kind::Other("a symbolic link")),
            Ok(Stat::Special) => Ok(Kind::Other("not a regular file")),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Kind::Missing),
            Err(e) => Err(e),
        }
    }

    /// As [`read_head`] for the entry `name` (one path component).
    pub fn read_head(&self, name: &str, limit: u64) -> io::Result<Option<(String, u64)>> {
        let Kind::File(len) = self.kind(name)? else {
            return Ok(None);
        };
        let bytes = self.read_prefix(name, len.min(limit))?;
        let cut = (bytes.len() as u64) < len;
        Ok(Some((decode(bytes, cut), len)))
    }

    /// Up to `wanted` bytes from the start of the entry `name`.
    #[cfg(not(target_os = "wasi"))]
    fn read_prefix(&self, name: &str, wanted: u64) -> io::Result<Vec<u8>> {
        let file = self.open_file(name)?;
        read_prefix(&file, wanted)
    }

    /// Up to `wanted` bytes from the start of the entry `name`, read by
    /// offset through its descriptor.
    #[cfg(target_os = "wasi")]
    fn read_prefix(&self, name: &str, wanted: u64) -> io::Result<Vec<u8>> {
        let file = wasi::open_at(&self.handle, name, false)?;
        wasi::read_range(&file, 0, usize::try_from(wanted).unwrap_or(usize::MAX))
    }

    #[cfg(unix)]
    fn c_name(name: &str) -> io::Result<std::ffi::CString> {
        std::ffi::CString::new(name)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "name holds NUL"))
    }

    /// The signature of the entry `name` (one path component) when it is a
    /// regular file with no other hard link, from one stat; `Ok(None)` for
    /// anything else or nothing.
    pub fn file_sig(&self, name: &str) -> io::Result<Option<Sig>> {
        match self.raw_stat(name) {
            Ok(st) => Ok(st.0),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The text of the entry `name` whose [`Dir::file_sig`] said it holds
    /// `len` bytes, or its first `limit` bytes, decoded as
    /// [`Dir::read_head`] does; no second stat. A file that shrank since is
    /// read to its end.
    pub fn read_known(&self, name: &str, len: u64, limit: u64) -> io::Result<String> {
        let bytes = self.read_prefix(name, len.min(limit))?;
        let cut = (bytes.len() as u64) < len;
        Ok(decode(bytes, cut))
    }

    #[cfg(any(unix, target_os = "wasi"))]
    fn stat(&self, name: &str) -> io::Result<Stat> {
        self.raw_stat(name).map(|s| s.1)
    }

    /// `lstat` of the entry `name`, relative to the open directory.
    #[cfg(unix)]
    fn lstat_at(&self, name: &str) -> io::Result<libc::stat> {
        use std::os::fd::AsRawFd;
        let c_name = Self::c_name(name)?;
        // SAFETY: `stat` is plain old data, so all-zero is a valid value.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: the descriptor is open for the life of `self`, `c_name` is
        // NUL-terminated and `st` is a valid, writable stat.
        let rc = unsafe {
            libc::fstatat(
                self.handle.as_raw_fd(),
                c_name.as_ptr(),
                &mut st,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(st)
    }

    /// One `stat-at` of `name` (not followed), as a signature (regular
    /// files with one link) and a [`Stat`]: one host call, where wasi-libc's
    /// `fstatat` makes two.
    #[cfg(target_os = "wasi")]
    fn raw_stat(&self, name: &str) -> io::Result<(Option<Sig>, Stat)> {
        let st = wasi::stat_at(&self.handle, name)?;
        Ok((wasi::sig(&st), wasi::kind(&st)))
    }

    /// One `fstatat` of `name`, as a signature (regular files with one link)
    /// and a [`Stat`].
    #[cfg(unix)]
    #[allow(clippy::useless_conversion)]
    fn raw_stat(&self, name: &str) -> io::Result<(Option<Sig>, Stat)> {
        let st = self.lstat_at(name)?;
        let (secs, nanos) = (st.st_mtime, st.st_mtime_nsec);
        #[allow(clippy::useless_conversion)]
        let links = u64::from(st.st_nlink);
        let kind = Self::stat_kind(&st);
        let sig = matches!(kind, Stat::File { .. } if links <= 1).then(|| Sig {
            len: st.st_size as u64,
            mtime_ns: i64::from(secs)
                .saturating_mul(1_000_000_000)
                .saturating_add(i64::from(nanos)),
        });
        Ok((sig, kind))
    }

    #[cfg(unix)]
    fn stat_kind(st: &libc::stat) -> Stat {
        match st.st_mode & libc::S_IFMT {
            libc::S_IFREG => Stat::File {
                len: st.st_size as u64,
                #[allow(clippy::useless_conversion)]
                links: u64::from(st.st_nlink),
            },
            libc::S_IFDIR => Stat::Dir,
            libc::S_IFLNK => Stat::Symlink,
            _ => Stat::Special,
        }
    }

    /// Opens the entry for reading without following a symlink put there
    /// since it was looked at.
    #[cfg(unix)]
    fn open_file(&self, name: &str) -> io::Result<File> {
        use std::os::fd::{AsRawFd, FromRawFd};
        let c_name = Self::c_name(name)?;
        let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: the descriptor is open for the life of `self` and `c_name`
        // is NUL-terminated.
        let fd = unsafe { libc::openat(self.handle.as_raw_fd(), c_name.as_ptr(), flags) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and nothing else owns it.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    /// The [`Stamp`] of the entry `name` (one path component) when it is a
    /// regular file, never following a symbolic link; `Ok(None)` when it is
    /// missing or anything else. Unlike [`Dir::kind`], a file with other
    /// hard links counts: this serves the read-only project directory,
    /// where another name for a file reveals nothing new.
    pub fn stamp(&self, name: &str) -> io::Result<Option<Stamp>> {
        #[cfg(target_os = "wasi")]
        let found = wasi::stat_at(&self.handle, name).map(|st| wasi::stamp(&st));
        #[cfg(unix)]
        let found = self.lstat_at(name).map(|st| regular_stamp(&st));
        #[cfg(not(any(unix, target_os = "wasi")))]
        let found = fs::symlink_metadata(self.path.join(name)).map(|m| std_stamp(&m));
        match found {
            Ok(stamp) => Ok(stamp),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Open the regular file `name` (one path component) for reading,
    /// never through a symbolic link, with the [`Stamp`] of what was
    /// opened; `Ok(None)` when it is missing or not a regular file.
    pub fn open_stamped(&self, name: &str) -> io::Result<Option<(ReadFile, Stamp)>> {
        // Looked at first so a FIFO is never opened (that would block).
        if self.stamp(name)?.is_none() {
            return Ok(None);
        }
        #[cfg(target_os = "wasi")]
        {
            let file = match wasi::open_at(&self.handle, name, false) {
                Ok(file) => file,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e),
            };
            let stamp = wasi::stamp(&wasi::stat(&file)?);
            Ok(stamp.map(|stamp| (wasi::File::new(file), stamp)))
        }
        #[cfg(not(target_os = "wasi"))]
        let file = match self.open_file(name) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        #[cfg(unix)]
        let stamp = {
            use std::os::fd::AsRawFd;
            // SAFETY: `stat` is plain old data, so all-zero is a valid value.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: the descriptor is open and `st` is a valid, writable stat.
            if unsafe { libc::fstat(file.as_raw_fd(), &mut st) } != 0 {
                return Err(io::Error::last_os_error());
            }
            regular_stamp(&st)
        };
        #[cfg(not(any(unix, target_os = "wasi")))]
        let stamp = std_stamp(&file.metadata()?);
        #[cfg(not(target_os = "wasi"))]
        Ok(stamp.map(|stamp| (file, stamp)))
    }

    #[cfg(not(any(unix, target_os = "wasi")))]
    fn stat(&self, name: &str) -> io::Result<Stat> {
        stat(&self.path.join(name))
    }

    #[cfg(not(any(unix, target_os = "wasi")))]
    fn raw_stat(&self, name: &str) -> io::Result<(Option<Sig>, Stat)> {
        let meta = fs::symlink_metadata(self.path.join(name))?;
        let kind = stat(&self.path.join(name))?;
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        let sig = matches!(kind, Stat::File { links, .. } if links <= 1).then_some(Sig {
            len: meta.len(),
            mtime_ns,
        });
        Ok((sig, kind))
    }

    #[cfg(not(any(unix, target_os = "wasi")))]
    fn open_file(&self, name: &str) -> io::Result<File> {
        File::open(self.path.join(name))
    }
}

/// A regular file's size and modification time, as a stat reports them:
/// what staleness anchors compare before hashing anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub len: u64,
    /// Modification time in nanoseconds since the Unix epoch (negative
    /// before it).
    pub mtime_ns: i64,
}

#[cfg(unix)]
fn regular_stamp(st: &libc::stat) -> Option<Stamp> {
    if st.st_mode & libc::S_IFMT != libc::S_IFREG {
        return None;
    }
    let (secs, nanos) = (st.st_mtime, st.st_mtime_nsec);
    #[allow(clippy::useless_conversion)]
    let mtime_ns = i64::from(secs)
        .saturating_mul(1_000_000_000)
        .saturating_add(i64::from(nanos));
    Some(Stamp {
        len: st.st_size as u64,
        mtime_ns,
    })
}

fn std_stamp(meta: &fs::Metadata) -> Option<Stamp> {
    if !meta.file_type().is_file() {
        return None;
    }
    let mtime_ns = match meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_nanos()).unwrap_or(i64::MAX),
    };
    Some(Stamp {
        len: meta.len(),
        mtime_ns,
    })
}

/// The [`Stamp`] of the regular file at `path`, not following a final
/// symbolic link; `Ok(None)` when it is missing or anything else. For the
/// store's own files; compare it only with stamps from this function.
pub fn file_stamp(path: &Path) -> io::Result<Option<Stamp>> {
    match fs::symlink_metadata(path) {
        Ok(meta) => Ok(std_stamp(&meta)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Up to `wanted` bytes from the start of `file`, fewer at its end. Reads
/// by offset (`pread`), and `Take` stops at the length already known
/// instead of probing for the end.
#[cfg(not(target_os = "wasi"))]
fn read_prefix(file: &File, wanted: u64) -> io::Result<Vec<u8>> {
    read_range(file, 0, usize::try_from(wanted).unwrap_or(usize::MAX))
}

/// Up to `wanted` bytes of `file` from `offset`, fewer at its end, read by
/// offset as [`read_prefix`] does.
pub fn read_range(file: &File, offset: u64, wanted: usize) -> io::Result<Vec<u8>> {
    let mut bytes: Vec<u8> = Vec::with_capacity(wanted);
    #[cfg(any(unix, target_os = "wasi"))]
    {
        use std::os::fd::AsRawFd;
        while bytes.len() < wanted {
            let filled = bytes.len();
            let spare = &mut bytes.spare_capacity_mut()[..wanted - filled];
            // SAFETY: the descriptor is open, and `pread` writes at most
            // `spare.len()` bytes into the vector's spare capacity.
            let n = unsafe {
                libc::pread(
                    file.as_raw_fd(),
                    spare.as_mut_ptr().cast(),
                    spare.len(),
                    (offset + filled as u64) as libc::off_t,
                )
            };
            match n {
                0 => break,
                n if n > 0 => {
                    // SAFETY: `pread` initialized the first `n` spare bytes.
                    unsafe { bytes.set_len(filled + n as usize) };
                }
                _ => {
                    let e = io::Error::last_os_error();
                    if e.kind() != io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        }
    }
    #[cfg(not(any(unix, target_os = "wasi")))]
    {
        let mut file = file;
        file.seek(SeekFrom::Start(offset))?;
        file.take(wanted as u64).read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

/// How many `\n` the first `len` bytes of the file at `path` hold, read a
/// block at a time.
pub fn count_newlines(path: &Path, len: u64) -> io::Result<usize> {
    let mut file = File::open(path)?.take(len);
    let mut buf = vec![0u8; 256 * 1024];
    let mut count = 0;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(count);
        }
        count += memchr::memchr_iter(b'\n', &buf[..n]).count();
    }
}

/// Does the regular file at `path` end with `\n`? `false` when empty.
pub fn ends_with_newline(path: &Path, len: u64) -> io::Result<bool> {
    if len == 0 {
        return Ok(false);
    }
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// Append `bytes` in place to the existing file `path` of `len` bytes and
/// sync them to disk, if the writer still holds the store's lock (`fence`).
/// Not atomic: a crash can leave part of `bytes` (the caller cuts a failed
/// append back to `len`).
pub fn append(path: &Path, len: u64, bytes: &[u8], fence: &LockGuard) -> io::Result<()> {
    fence.check()?;
    #[cfg(target_os = "wasi")]
    {
        let (dir, name) = match (path.parent().and_then(Path::to_str), path.file_name()) {
            (Some(dir), Some(name)) => (dir, name.to_str().unwrap_or_default()),
            _ => return Err(io::Error::from(io::ErrorKind::InvalidFilename)),
        };
        wasi::append(dir, name, len, bytes)
    }
    #[cfg(not(target_os = "wasi"))]
    {
        let _ = len;
        let mut file = OpenOptions::new().append(true).open(path)?;
        file.write_all(bytes)?;
        file.sync_data()
    }
}

/// [`fs::create_dir_all`], except that a folder that is there is never
/// reported as "already exists" because looking at it failed once: it is
/// looked at again, and a failure then is reported by its own cause.
pub fn create_dir_all(path: &Path) -> io::Result<()> {
    match fs::create_dir_all(path) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => Ok(()),
            Ok(_) => Err(e),
            Err(why) => Err(why),
        },
        done => done,
    }
}

/// A name no other writer will pick: random bits from the hasher seed
/// (which std draws from the OS or WASI random source).
pub(crate) fn unique_suffix() -> String {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0);
    format!("{:016x}", hasher.finish())
}

/// The temp-file name used while replacing `file_name`. Starts with a dot
/// and does not end in `.md`, so list, search and the context block never
/// see it.
pub fn temp_name(file_name: &str) -> String {
    format!(".{file_name}.{}.tmp", unique_suffix())
}

/// Is `name` a leftover of a writer that crashed: a temp file of
/// [`replace`] or a broken lock moved aside by [`lock`]?
pub fn is_leftover(name: &str) -> bool {
    (name.starts_with('.') && name.ends_with(".tmp"))
        || name.starts_with(&format!("{LOCK_FILE}.stale."))
}

/// Remove what crashed writers left in `dir` (see [`is_leftover`]). Only
/// safe while holding the store's write lock, when no other replace can be
/// in flight. Best effort: a leftover that cannot be removed stays hidden.
pub fn remove_leftovers(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if is_leftover(&name.to_string_lossy()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Replace `dir/file_name` with `bytes` so that a crash at any instant leaves
/// either the old or the new content: write a uniquely named temp file in the
/// same directory, sync it, check the writer still holds the store's lock
/// (`fence`), rename it over the target, sync the directory.
pub fn replace(dir: &Path, file_name: &str, bytes: &[u8], fence: &LockGuard) -> io::Result<()> {
    replace_checked(dir, file_name, bytes, || fence.check(), true)
}

/// As [`replace`] but without the syncs, for side data that is a cache:
/// readers still see the old or the new file whole, but after a crash
/// (of the machine, not the process) the file may be empty or cut, which
/// its readers must take for "no data". Half the cost of a synced write.
pub fn replace_cache(
    dir: &Path,
    file_name: &str,
    bytes: &[u8],
    fence: &LockGuard,
) -> io::Result<()> {
    replace_checked(dir, file_name, bytes, || fence.check(), false)
}

/// [`replace`] without the lock check, for files whose content is fixed by
/// their name (history's content-addressed objects): a writer that lost its
/// lock can only put the same bytes there as the next one.
pub fn replace_content_addressed(dir: &Path, file_name: &str, bytes: &[u8]) -> io::Result<()> {
    replace_checked(dir, file_name, bytes, || Ok(()), true)
}

fn replace_checked(
    dir: &Path,
    file_name: &str,
    bytes: &[u8],
    before_rename: impl FnOnce() -> io::Result<()>,
    durable: bool,
) -> io::Result<()> {
    let tmp_name = temp_name(file_name);
    let tmp = dir.join(&tmp_name);
    let result = (|| {
        write_new(dir, &tmp_name, bytes, durable)?;
        before_rename()?;
        fs::rename(&tmp, dir.join(file_name))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    if durable {
        sync_dir(dir);
    }
    Ok(())
}

/// Create `dir/name`, which must not exist, holding `bytes`; synced when
/// `durable`.
#[cfg(target_os = "wasi")]
fn write_new(dir: &Path, name: &str, bytes: &[u8], durable: bool) -> io::Result<()> {
    let guest = dir
        .to_str()
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidFilename))?;
    wasi::write_new(guest, name, bytes, durable)
}

#[cfg(not(target_os = "wasi"))]
fn write_new(dir: &Path, name: &str, bytes: &[u8], durable: bool) -> io::Result<()> {
    let path = dir.join(name);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    let written = file.write_all(bytes).and_then(|()| match durable {
        true => file.sync_all(),
        false => Ok(()),
    });
    if written.is_err() {
        drop(file);
        let _ = fs::remove_file(&path);
    }
    written
}

/// Make a rename durable. Best effort: some platforms cannot open or sync a
/// directory, and the data itself is already synced.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Name of the store's write lock, at the root.
pub const LOCK_FILE: &str = ".agent-memory.lock";

/// How the write lock behaves.
#[derive(Debug, Clone, Copy)]
pub struct LockPolicy {
    /// A lock older than this is considered abandoned (its holder died) and
    /// is broken.
    pub lease: std::time::Duration,
    /// How long to wait for a live lock before giving up.
    pub wait: std::time::Duration,
}

impl Default for LockPolicy {
    fn default() -> Self {
        LockPolicy {
            lease: std::time::Duration::from_secs(10),
            wait: std::time::Duration::from_secs(15),
        }
    }
}

/// A held write lock; released (the file removed) on drop, unless it is a
/// [`LockGuard::shared`] copy.
#[derive(Debug)]
pub struct LockGuard {
    path: std::path::PathBuf,
    token: String,
    /// Whether dropping it releases the lock.
    owned: bool,
}

impl LockGuard {
    /// Fails with [`LockLost`](crate::error::LockLost) unless the lock file still holds this
    /// guard's token. Writers call it just before they replace or extend a
    /// file, so a holder that lost its lease (a suspended process) never
    /// overwrites the work of the writer that took the lock after it.
    ///
    /// A lock file that cannot be read is not a lost lock: that error is
    /// returned as it is (an I/O error says so, not that another writer
    /// broke the lock). One that is gone, or holds another token, is lost.
    pub fn check(&self) -> io::Result<()> {
        match fs::read_to_string(&self.path) {
            Ok(content) if content.starts_with(&self.token) => Ok(()),
            Ok(_) => Err(io::Error::other(crate::error::LockLost)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Err(io::Error::other(crate::error::LockLost))
            }
            Err(e) => Err(e),
        }
    }

    /// The same lock, for work that runs inside the holder's: it checks as
    /// this guard does and never releases the lock (its holder does).
    pub fn shared(&self) -> LockGuard {
        LockGuard {
            path: self.path.clone(),
            token: self.token.clone(),
            owned: false,
        }
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        // Only remove the lock if it is still ours: after a lease expiry
        // another writer may have broken it and taken a new one.
        if let Ok(content) = fs::read_to_string(&self.path)
            && content.starts_with(&self.token)
        {
            let _ = fs::remove_file(&self.path);
        }
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// How long ago, in whole seconds, the lock at `path` was taken; `None`
/// when it vanished meanwhile. The stamp inside says when. A lock with no
/// readable stamp (its holder died between creating and writing it) is as
/// old as its modification time. A stamp in the future counts by its
/// distance too, so a lock from a clock that jumped, or a forged one, cannot
/// block the store forever.
fn lock_age(path: &Path) -> Option<u64> {
    let stamp = fs::read_to_string(path).ok().and_then(|content| {
        content
            .split_whitespace()
            .nth(1)
            .and_then(|t| t.parse::<u64>().ok())
    });
    if let Some(taken) = stamp {
        return Some(unix_now().abs_diff(taken));
    }
    let modified = fs::metadata(path).ok()?.modified().ok()?;
    let now = std::time::SystemTime::now();
    Some(match now.duration_since(modified) {
        Ok(age) => age.as_secs(),
        Err(ahead) => ahead.duration().as_secs(),
    })
}

/// Create the lock file at `path` holding `stamp`, exclusively
/// (`AlreadyExists` when it is there). A stamp that cannot be written takes
/// the file back: an empty lock would block every writer for a whole lease.
/// Tests make the stamp fail to check that.
fn create_lock(path: &Path, stamp: &[u8]) -> io::Result<()> {
    #[cfg(target_os = "wasi")]
    {
        let (dir, name) = match (path.parent(), path.file_name().and_then(|n| n.to_str())) {
            (Some(dir), Some(name)) => (dir, name),
            _ => return Err(io::Error::from(io::ErrorKind::InvalidFilename)),
        };
        write_new(dir, name, stamp, false)
    }
    #[cfg(not(target_os = "wasi"))]
    {
        let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
        #[cfg(test)]
        let written: io::Result<()> = if tests::FAIL_STAMP.with(std::cell::Cell::get) {
            Err(io::Error::other("injected stamp failure"))
        } else {
            file.write_all(stamp)
        };
        #[cfg(not(test))]
        let written = file.write_all(stamp);
        if written.is_err() {
            drop(file);
            let _ = fs::remove_file(path);
        }
        written
    }
}

/// Why [`lock`] failed.
#[derive(Debug)]
pub enum LockError {
    /// A live lock stayed for the whole wait.
    Busy,
    /// The filesystem refused.
    Io(io::Error),
}

/// Take the store's write lock: create `root/LOCK_FILE` exclusively (WASI has
/// no `flock`), holding a token and the time it was taken. A lock older than
/// the lease is broken; a younger one is waited for, up to `policy.wait`.
pub fn lock(root: &Path, policy: LockPolicy) -> Result<LockGuard, LockError> {
    let path = root.join(LOCK_FILE);
    let token = unique_suffix();
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(1);
    loop {
        let stamp = format!("{token} {}\n", unix_now());
        match create_lock(&path, stamp.as_bytes()) {
            Ok(()) => {
                return Ok(LockGuard {
                    path,
                    token,
                    owned: true,
                });
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(LockError::Io(e)),
        }
        // Someone holds it. Break it if its lease ran out.
        if lock_age(&path).is_some_and(|age| age > policy.lease.as_secs()) {
            // Move the stale lock aside under a unique name, so of two
            // writers breaking it at once only one succeeds.
            let aside = root.join(format!("{LOCK_FILE}.stale.{}", unique_suffix()));
            if fs::rename(&path, &aside).is_ok() {
                let _ = fs::remove_file(&aside);
            }
            continue;
        }
        if start.elapsed() >= policy.wait {
            return Err(LockError::Busy);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    thread_local! {
        pub(super) static FAIL_STAMP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    #[test]
    fn a_failed_stamp_leaves_no_lock_behind() {
        let dir = tempfile::tempdir().unwrap();
        FAIL_STAMP.with(|f| f.set(true));
        let result = lock(dir.path(), LockPolicy::default());
        FAIL_STAMP.with(|f| f.set(false));
        assert!(matches!(result, Err(LockError::Io(_))));
        assert!(!dir.path().join(LOCK_FILE).exists(), "no empty lock left");
        // The next writer gets the lock at once.
        let policy = LockPolicy {
            lease: Duration::from_secs(10),
            wait: Duration::ZERO,
        };
        drop(lock(dir.path(), policy).unwrap());
    }

    #[test]
    fn a_holder_that_lost_its_lock_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let guard = lock(dir.path(), LockPolicy::default()).unwrap();
        replace(dir.path(), "f.md", b"one", &guard).unwrap();
        // The holder is suspended past its lease; another writer breaks the
        // lock and takes it.
        fs::write(dir.path().join(LOCK_FILE), "another 99\n").unwrap();
        let err = replace(dir.path(), "f.md", b"two", &guard).unwrap_err();
        assert!(crate::error::is_lock_lost(&err), "{err}");
        let err = append(&dir.path().join("f.md"), 3, b"three", &guard).unwrap_err();
        assert!(crate::error::is_lock_lost(&err), "{err}");
        assert_eq!(fs::read(dir.path().join("f.md")).unwrap(), b"one");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != LOCK_FILE)
            .collect();
        assert_eq!(names, ["f.md"], "no temp file left");
    }

    #[test]
    fn a_lock_that_cannot_be_read_is_an_error_not_a_lost_lock() {
        // Found by the fault sweep (host/tests/faults.rs): an I/O error
        // reading the lock file was reported as "another writer broke it".
        let dir = tempfile::tempdir().unwrap();
        let guard = lock(dir.path(), LockPolicy::default()).unwrap();
        let path = dir.path().join(LOCK_FILE);
        fs::remove_file(&path).unwrap();
        fs::create_dir(&path).unwrap();
        let err = guard.check().unwrap_err();
        assert!(!crate::error::is_lock_lost(&err), "{err}");
        fs::remove_dir(&path).unwrap();
        let err = guard.check().unwrap_err();
        assert!(
            crate::error::is_lock_lost(&err),
            "a missing lock is lost: {err}"
        );
    }

    #[test]
    fn a_live_lock_makes_others_wait_then_busy() {
        let dir = tempfile::tempdir().unwrap();
        let policy = LockPolicy {
            lease: Duration::from_secs(60),
            wait: Duration::from_millis(50),
        };
        let held = lock(dir.path(), policy).unwrap();
        assert!(matches!(lock(dir.path(), policy), Err(LockError::Busy)));
        drop(held);
        assert!(!dir.path().join(LOCK_FILE).exists());
        let again = lock(dir.path(), policy).unwrap();
        drop(again);
    }

    #[test]
    fn a_broken_lock_is_not_removed_by_its_old_holder() {
        let dir = tempfile::tempdir().unwrap();
        let policy = LockPolicy::default();
        let old = lock(dir.path(), policy).unwrap();
        // Someone broke it and holds a new one.
        fs::write(dir.path().join(LOCK_FILE), "someoneelse 99999999999\n").unwrap();
        drop(old);
        assert!(dir.path().join(LOCK_FILE).exists());
    }

    #[test]
    fn stale_locks_by_stamp_mtime_or_future_are_broken() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        let policy = LockPolicy {
            lease: Duration::from_secs(10),
            wait: Duration::from_millis(100),
        };
        // From the future: broken at once.
        fs::write(&path, format!("future {}\n", unix_now() + 3600)).unwrap();
        drop(lock(dir.path(), policy).unwrap());
        // No stamp and an old modification time: broken at once.
        fs::write(&path, "").unwrap();
        let old = std::time::SystemTime::now() - Duration::from_secs(60);
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
        drop(lock(dir.path(), policy).unwrap());
        // No stamp yet but just created: a live holder, waited for.
        fs::write(&path, "").unwrap();
        assert!(matches!(lock(dir.path(), policy), Err(LockError::Busy)));
        // A stamp within the lease, slightly ahead or behind: live.
        fs::write(&path, format!("ahead {}\n", unix_now() + 2)).unwrap();
        assert!(matches!(lock(dir.path(), policy), Err(LockError::Busy)));
        fs::write(&path, format!("behind {}\n", unix_now() - 2)).unwrap();
        assert!(matches!(lock(dir.path(), policy), Err(LockError::Busy)));
    }

    #[test]
    fn taking_a_lock_leaves_no_stale_aside_file() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(LOCK_FILE), "dead 1000\n").unwrap();
        drop(lock(dir.path(), LockPolicy::default()).unwrap());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn leftovers_are_recognized_and_removed() {
        for name in [
            ".MEMORY.md.0123456789abcdef.tmp",
            ".x.tmp",
            ".agent-memory.lock.stale.0123",
        ] {
            assert!(is_leftover(name), "{name}");
        }
        for name in [
            "MEMORY.md",
            "x.tmp",
            ".agent-memory.lock",
            "a.md.bak",
            ".tmp.md",
        ] {
            assert!(!is_leftover(name), "{name}");
        }
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(".a.md.1.tmp"), "x").unwrap();
        fs::write(dir.path().join("keep.md"), "x").unwrap();
        remove_leftovers(dir.path());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["keep.md"]);
    }

    #[cfg(unix)]
    #[test]
    fn kinds_never_follow_links_or_open_special_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.md");
        fs::write(&file, "abc").unwrap();
        assert_eq!(kind(&file).unwrap(), Kind::File(3));
        assert_eq!(kind(&dir.path().join("none")).unwrap(), Kind::Missing);
        assert!(matches!(kind(dir.path()).unwrap(), Kind::Other(_)));
        let link = dir.path().join("l.md");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(kind(&link).unwrap(), Kind::Other("a symbolic link"));
        let hard = dir.path().join("h.md");
        fs::hard_link(&file, &hard).unwrap();
        let shared = Kind::Other("a file with more than one hard link");
        assert_eq!(kind(&hard).unwrap(), shared);
        assert_eq!(kind(&file).unwrap(), shared);
        assert_eq!(read_head(&hard, 10).unwrap(), None);
    }

    #[test]
    fn replace_leaves_old_or_new_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let store = tempfile::tempdir().unwrap();
        let guard = lock(store.path(), LockPolicy::default()).unwrap();
        replace(dir.path(), "f.md", b"one", &guard).unwrap();
        replace(dir.path(), "f.md", b"two", &guard).unwrap();
        assert_eq!(fs::read(dir.path().join("f.md")).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_guest_path_goes_to_the_preopen_that_is_its_longest_whole_prefix() {
        let preopens = ["/", "/project", "/project-1/", "/m/a"];
        let at = |path: &str| preopen_rest(preopens.iter().copied(), path);
        let some = |i: usize, rest: &str| Some((i, rest.to_string()));
        // The store's `projects/` is not under the project preopen.
        assert_eq!(at("/projects/app/notes"), some(0, "projects/app/notes"));
        assert_eq!(at("/project/src"), some(1, "src"));
        assert_eq!(at("/project"), some(1, "."));
        assert_eq!(at("/project/"), some(1, "."));
        assert_eq!(at("/project-1/src/lib"), some(2, "src/lib"));
        assert_eq!(at("/project-10"), some(0, "project-10"));
        assert_eq!(at("/m/a/./b//c"), some(3, "b/c"));
        assert_eq!(at("/m/ab"), some(0, "m/ab"));
        assert_eq!(at("/"), some(0, "."));
        // A relative path counts from `/`.
        assert_eq!(at("project/x"), some(1, "x"));
        // Without `/`, a path under no preopen has none; the first of two
        // equal preopens wins.
        let none = ["/project", "/project"];
        assert_eq!(preopen_rest(none.iter().copied(), "/other"), None);
        assert_eq!(
            preopen_rest(none.iter().copied(), "/project/a"),
            some(0, "a")
        );
    }

    #[test]
    fn reads_stop_at_the_limit_on_a_char_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.md");
        fs::write(&p, "ab日本").unwrap();
        assert_eq!(read_head(&p, 4).unwrap().unwrap(), ("ab".to_string(), 8));
        assert_eq!(read_tail(&p, 4).unwrap().unwrap().0, "本");
        assert_eq!(read_head(&dir.path().join("none"), 4).unwrap(), None);
        assert_eq!(
            read_head(dir.path(), 4).unwrap(),
            None,
            "a directory is not read"
        );
    }
}
