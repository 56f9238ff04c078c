//! A fault-injecting `wasi:filesystem` for tests (cargo feature `faults`,
//! never in a release build).
//!
//! Every filesystem call the component makes goes through the host's
//! `wasi:filesystem/types` descriptor methods, or through the
//! `wasi:io/streams` streams those open on a file (wasi-libc writes with
//! `std::fs` go that way). This module shadows them in the linker, as
//! [`crate::readdir`] does for the listing, with wrappers that count each
//! call and pass it on to wasmtime-wasi, except the one a test chose: that
//! call fails with the chosen [`Fault`] instead, before it touches the disk,
//! or, for a short write, writes only half of what it was given.
//!
//! A test gives an [`OpenOptions`](crate::OpenOptions) a [`Faults`] (see
//! `OpenOptions::faults`), counts the calls an operation makes, then runs
//! it again with each call failed in turn: `host/tests/faults.rs` sweeps
//! every kind of change that way. The directory listing (shadowed by
//! `readdir.rs`) and the preopens are not injected.

use std::sync::{Arc, Mutex, PoisonError};

use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemCtxView, WasiFilesystemView as _};
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{
    self as fs, DescriptorFlags, ErrorCode, Filesize, OpenFlags, PathFlags,
};
use wasmtime_wasi::p2::bindings::sync::io::streams;
use wasmtime_wasi::p2::bindings::sync::io::streams::{InputStream, OutputStream};
use wasmtime_wasi::p2::{FsResult, StreamError, StreamResult};

use crate::bindings::HostState;

/// The interface names wasmtime-wasi 48 defines the shadowed functions
/// under (see `readdir.rs`, whose test checks the version).
const TYPES: &str = "wasi:filesystem/types@0.2.12";
const STREAMS: &str = "wasi:io/streams@0.2.12";

/// What the chosen call does instead of its work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// `EIO`: the disk failed.
    Io,
    /// `ENOSPC`: the disk is full.
    NoSpace,
    /// `EDQUOT`: the user's quota is used up.
    Quota,
    /// `EROFS`: the file system is read-only.
    ReadOnly,
    /// A `write` that writes only the first half of its bytes (at least
    /// one) and says so, as a disk filling up mid-write does. Counted over
    /// descriptor writes only ([`Faults::writes`]).
    ShortWrite,
}

impl Fault {
    /// Every fault, in the order a sweep reports them.
    pub const ALL: [Fault; 5] = [
        Fault::Io,
        Fault::NoSpace,
        Fault::Quota,
        Fault::ReadOnly,
        Fault::ShortWrite,
    ];

    /// The errno's name, e.g. `ENOSPC`; `short write` for a short write.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Io => "EIO",
            Fault::NoSpace => "ENOSPC",
            Fault::Quota => "EDQUOT",
            Fault::ReadOnly => "EROFS",
            Fault::ShortWrite => "short write",
        }
    }

    fn code(self) -> ErrorCode {
        match self {
            Fault::Io | Fault::ShortWrite => ErrorCode::Io,
            Fault::NoSpace => ErrorCode::InsufficientSpace,
            Fault::Quota => ErrorCode::Quota,
            Fault::ReadOnly => ErrorCode::ReadOnly,
        }
    }

    /// The same fault as the host's own OS error, for a stream (wasi-libc
    /// asks `filesystem-error-code` what a failed stream write was).
    fn os_error(self) -> std::io::Error {
        std::io::Error::from_raw_os_error(match self {
            Fault::Io | Fault::ShortWrite => libc::EIO,
            Fault::NoSpace => libc::ENOSPC,
            Fault::Quota => libc::EDQUOT,
            Fault::ReadOnly => libc::EROFS,
        })
    }
}

/// The calls an instance made and the one to fail. Shared between a test
/// and the instances of the memories it opened with it.
#[derive(Debug, Default)]
pub struct Faults {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The call to fail (1-based, counted from [`Faults::arm`]) and how.
    armed: Option<(u64, Fault)>,
    /// Every call since the last [`Faults::arm`] or [`Faults::count`].
    calls: Vec<&'static str>,
    /// Descriptor writes since then.
    writes: u64,
    /// The call that was failed.
    fired: Option<&'static str>,
}

/// What a wrapper does with the call it is in.
enum Verdict {
    Pass,
    Fail(Fault),
    Short,
}

impl Faults {
    /// A fresh set of counters, failing nothing.
    pub fn new() -> Arc<Faults> {
        Arc::new(Faults::default())
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Count from zero and fail the `n`th call from now (1-based) with
    /// `fault`; for [`Fault::ShortWrite`], the `n`th descriptor write.
    pub fn arm(&self, n: u64, fault: Fault) {
        *self.state() = State {
            armed: Some((n, fault)),
            ..State::default()
        };
    }

    /// Count from zero and fail nothing.
    pub fn count(&self) {
        *self.state() = State::default();
    }

    /// The calls made since [`arm`](Self::arm) or [`count`](Self::count),
    /// by their WIT names (`open-at`, `write`, `output-stream.write`…).
    pub fn calls(&self) -> Vec<&'static str> {
        self.state().calls.clone()
    }

    /// The descriptor writes made since then.
    pub fn writes(&self) -> u64 {
        self.state().writes
    }

    /// The call the armed fault hit, if the operation got that far.
    pub fn fired(&self) -> Option<&'static str> {
        self.state().fired
    }

    fn verdict(&self, name: &'static str) -> Verdict {
        let mut state = self.state();
        state.calls.push(name);
        let n = state.calls.len() as u64;
        if name == "write" {
            state.writes += 1;
        }
        let writes = state.writes;
        match state.armed {
            Some((at, Fault::ShortWrite)) if name == "write" && at == writes => {
                state.fired = Some(name);
                Verdict::Short
            }
            Some((at, fault)) if fault != Fault::ShortWrite && at == n => {
                state.fired = Some(name);
                Verdict::Fail(fault)
            }
            _ => Verdict::Pass,
        }
    }
}

fn verdict(store: &StoreContextMut<'_, HostState>, name: &'static str) -> Verdict {
    match &store.data().faults {
        Some(faults) => faults.verdict(name),
        None => Verdict::Pass,
    }
}

/// A wasmtime-wasi result as the WIT function returns it.
fn lower<T>(
    view: &mut WasiFilesystemCtxView<'_>,
    r: FsResult<T>,
) -> wasmtime::Result<Result<T, ErrorCode>> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(e) => Ok(Err(fs::Host::convert_error_code(view, e)?)),
    }
}

/// A descriptor method: `$name` its WIT name, the parameters as the
/// closure takes them, and the call on wasmtime-wasi's implementation.
macro_rules! descriptor {
    ($types:ident, $name:literal, ($($arg:ident: $ty:ty),*), $method:ident) => {
        $types.func_wrap(
            concat!("[method]descriptor.", $name),
            |mut store: StoreContextMut<'_, HostState>, (fd, $($arg,)*): (Resource<Descriptor>, $($ty,)*)| {
                if let Verdict::Fail(fault) = verdict(&store, $name) {
                    return Ok((Err(fault.code()),));
                }
                let mut view = store.data_mut().filesystem();
                let r = fs::HostDescriptor::$method(&mut view, fd, $($arg),*);
                Ok((lower(&mut view, r)?,))
            },
        )?;
    };
}

/// Shadows the filesystem calls the component makes with counting,
/// failing wrappers. Called after `readdir::shadow`, in builds with the
/// `faults` feature only.
pub(crate) fn shadow(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    {
        let mut types = linker.instance(TYPES)?;
        descriptor!(types, "read", (len: Filesize, offset: Filesize), read);
        descriptor!(types, "sync", (), sync);
        descriptor!(types, "sync-data", (), sync_data);
        descriptor!(types, "set-size", (size: Filesize), set_size);
        descriptor!(types, "stat", (), stat);
        descriptor!(types, "stat-at", (flags: PathFlags, path: String), stat_at);
        descriptor!(types, "metadata-hash", (), metadata_hash);
        descriptor!(types, "metadata-hash-at", (flags: PathFlags, path: String), metadata_hash_at);
        descriptor!(
            types,
            "open-at",
            (path_flags: PathFlags, path: String, open: OpenFlags, flags: DescriptorFlags),
            open_at
        );
        descriptor!(types, "create-directory-at", (path: String), create_directory_at);
        descriptor!(types, "remove-directory-at", (path: String), remove_directory_at);
        descriptor!(types, "unlink-file-at", (path: String), unlink_file_at);
        descriptor!(
            types,
            "rename-at",
            (from: String, to_dir: Resource<Descriptor>, to: String),
            rename_at
        );
        descriptor!(types, "read-via-stream", (offset: Filesize), read_via_stream);
        descriptor!(types, "write-via-stream", (offset: Filesize), write_via_stream);
        descriptor!(types, "append-via-stream", (), append_via_stream);
        // A write may also come back short.
        types.func_wrap(
            "[method]descriptor.write",
            |mut store: StoreContextMut<'_, HostState>,
             (fd, mut bytes, offset): (Resource<Descriptor>, Vec<u8>, Filesize)| {
                match verdict(&store, "write") {
                    Verdict::Fail(fault) => return Ok((Err(fault.code()),)),
                    Verdict::Short => bytes.truncate(bytes.len().div_ceil(2)),
                    Verdict::Pass => {}
                }
                let mut view = store.data_mut().filesystem();
                let r = fs::HostDescriptor::write(&mut view, fd, bytes, offset);
                Ok((lower(&mut view, r)?,))
            },
        )?;
    }
    let mut io = linker.instance(STREAMS)?;
    macro_rules! stream {
        ($name:literal, $resource:ty, ($($arg:ident: $ty:ty),*), $trait:ident :: $method:ident) => {
            io.func_wrap(
                concat!("[method]", $name),
                |mut store: StoreContextMut<'_, HostState>, (stream, $($arg,)*): (Resource<$resource>, $($ty,)*)| {
                    let fault = match verdict(&store, $name) {
                        Verdict::Fail(fault) => Some(fault),
                        _ => None,
                    };
                    let table = &mut store.data_mut().table;
                    let r: StreamResult<_> = match fault {
                        Some(fault) => Err(StreamError::LastOperationFailed(fault.os_error().into())),
                        None => streams::$trait::$method(table, stream, $($arg),*),
                    };
                    Ok((match r {
                        Ok(v) => Ok(v),
                        Err(e) => Err(streams::Host::convert_stream_error(table, e)?),
                    },))
                },
            )?;
        };
    }
    stream!(
        "output-stream.check-write",
        OutputStream,
        (),
        HostOutputStream::check_write
    );
    stream!("output-stream.write", OutputStream, (bytes: Vec<u8>), HostOutputStream::write);
    stream!(
        "output-stream.blocking-write-and-flush",
        OutputStream,
        (bytes: Vec<u8>),
        HostOutputStream::blocking_write_and_flush
    );
    stream!(
        "output-stream.flush",
        OutputStream,
        (),
        HostOutputStream::flush
    );
    stream!(
        "output-stream.blocking-flush",
        OutputStream,
        (),
        HostOutputStream::blocking_flush
    );
    stream!("input-stream.read", InputStream, (len: u64), HostInputStream::read);
    stream!("input-stream.blocking-read", InputStream, (len: u64), HostInputStream::blocking_read);
    linker.allow_shadowing(false);
    Ok(())
}
