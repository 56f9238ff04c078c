//! What the command prints when it fails: each cause of the chain in words.
//!
//! An OS error is said by its cause ([`agent_memory::os_cause`]: `permission
//! denied`, `the disk is full`, `read-only file system`), never by its
//! number, whichever step met it (the host preparing the root, the memory
//! itself, a file the CLI reads or writes). A failure of the memory's own
//! files names the memory root, which the memory's messages cannot: they
//! speak of store-relative paths only.

use std::io;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The memory root the command works on, once it is known.
static ROOT: OnceLock<PathBuf> = OnceLock::new();

/// Remember the memory root, for [`describe`] to name.
pub(crate) fn name_root(root: &std::path::Path) {
    let _ = ROOT.set(root.to_path_buf());
}

/// The error and its causes, outermost first, joined by `: `; an OS error
/// in words with what to do about it, and the memory root when the
/// memory's files failed.
pub(crate) fn describe(error: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut advice = None;
    for cause in error.chain() {
        match cause.downcast_ref::<io::Error>() {
            Some(io) if io.get_ref().is_none() => {
                parts.push(agent_memory::os_cause(io).into_owned());
                advice = advice.or(agent_memory::os_advice(io));
            }
            _ => parts.push(cause.to_string()),
        }
    }
    let mut text = parts.join(": ");
    if let Some(advice) = advice {
        text.push_str("; ");
        text.push_str(advice);
    }
    let memory_io = error
        .downcast_ref::<agent_memory::Error>()
        .is_some_and(|e| e.kind() == Some(agent_memory::ErrorKind::Io));
    if memory_io && let Some(root) = ROOT.get() {
        // wasmtime-wasi 48 has no error code for EROFS and hands the
        // component an I/O error instead: say what the file system is.
        if read_only(root) && !text.contains("read-only file system") {
            text.push_str(&format!(
                "\nthe memory root `{}` is on a read-only file system; choose a writable root",
                root.display()
            ));
        } else {
            text.push_str(&format!("\nthe memory root is `{}`", root.display()));
        }
    }
    text
}

/// Is `path` on a file system mounted read-only?
#[cfg(unix)]
fn read_only(path: &std::path::Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `statvfs` is plain old data, so all-zero is a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c_path` is NUL-terminated and `st` is a valid, writable statvfs.
    let rc = unsafe { libc::statvfs(c_path.as_ptr(), &mut st) };
    rc == 0 && st.f_flag & libc::ST_RDONLY != 0
}

#[cfg(not(unix))]
fn read_only(_: &std::path::Path) -> bool {
    false
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use anyhow::Context as _;

    #[test]
    fn an_os_error_is_named_in_words_without_its_number() {
        let failed: anyhow::Result<()> =
            Err(io::Error::from_raw_os_error(libc::EEXIST)).context("cannot write `/tmp/out.md`");
        let text = describe(&failed.unwrap_err());
        assert_eq!(text, "cannot write `/tmp/out.md`: it already exists");
        let full: anyhow::Result<()> =
            Err(io::Error::from_raw_os_error(libc::ENOSPC)).context("cannot write `x`");
        assert_eq!(
            describe(&full.unwrap_err()),
            "cannot write `x`: the disk is full; free some space and try again"
        );
    }
}
