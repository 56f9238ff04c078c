//! Words for the errors the operating system (or WASI) reports.
//!
//! An [`std::io::Error`] from the OS prints as `Permission denied (os error
//! 2)`, and the number is the raw code of whichever system made it: inside
//! the WebAssembly component it is WASI's (where 2 is `EACCES`), natively
//! the host's (where 2 is `ENOENT`). People see the cause in words and what
//! to do, never the number: [`os_cause`] is the one place that says it.

extern crate std;

use std::borrow::Cow;
use std::io;
use std::string::ToString;

/// The cause of `error` in words, lower case, without an OS error number:
/// `permission denied`, `read-only file system`, `the disk is full`, `the
/// disk quota is exceeded`, `I/O error`, `not a directory`, `no such file
/// or directory`, and so on. An error made with a message of its own
/// ([`io::Error::other`]) is its message.
pub fn os_cause(error: &io::Error) -> Cow<'static, str> {
    use io::ErrorKind as K;
    #[cfg(any(unix, target_os = "wasi"))]
    if error.raw_os_error() == Some(libc::EIO) {
        return Cow::Borrowed("I/O error");
    }
    let words = match error.kind() {
        K::PermissionDenied => "permission denied",
        K::ReadOnlyFilesystem => "read-only file system",
        K::StorageFull => "the disk is full",
        K::QuotaExceeded => "the disk quota is exceeded",
        K::NotFound => "no such file or directory",
        K::NotADirectory => "not a directory",
        K::IsADirectory => "is a directory",
        K::AlreadyExists => "it already exists",
        K::DirectoryNotEmpty => "the directory is not empty",
        K::FileTooLarge => "the file is too large",
        K::InvalidFilename => "the name is too long or not valid here",
        K::TooManyLinks => "too many links",
        K::CrossesDevices => "it would cross file systems",
        K::ResourceBusy => "the file is busy",
        K::WriteZero => "the disk took no more bytes",
        K::UnexpectedEof => "the file ended early",
        K::OutOfMemory => "out of memory",
        K::Unsupported => "the file system does not support it",
        _ if error.raw_os_error().is_none() => {
            // A message of its own (or just a kind): say it as is.
            return Cow::Owned(error.to_string());
        }
        // Some other OS code: the system's own words, without its number.
        _ => {
            let text = error.to_string();
            let words = match text.rfind(" (os error ") {
                Some(at) => &text[..at],
                None => &text,
            };
            return Cow::Owned(words.to_ascii_lowercase());
        }
    };
    Cow::Borrowed(words)
}

/// What a person can do about `error`, when there is something: free space
/// on a full disk, check the disk after an I/O error. `None` otherwise.
pub fn os_advice(error: &io::Error) -> Option<&'static str> {
    #[cfg(any(unix, target_os = "wasi"))]
    if error.raw_os_error() == Some(libc::EIO) {
        return Some("the disk or file system failed; check it, then try again");
    }
    match error.kind() {
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded | io::ErrorKind::WriteZero => {
            Some("free some space and try again")
        }
        io::ErrorKind::ReadOnlyFilesystem => {
            Some("the memory is on a read-only file system; choose a writable root")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_cause_carries_an_os_number() {
        let codes = [
            libc::EACCES,
            libc::EPERM,
            libc::EROFS,
            libc::ENOSPC,
            libc::EDQUOT,
            libc::EIO,
            libc::ENOENT,
            libc::ENOTDIR,
            libc::EISDIR,
            libc::EEXIST,
            libc::ENOTEMPTY,
            libc::EBADF,
            libc::EINVAL,
            libc::ENAMETOOLONG,
        ];
        for code in codes {
            let cause = os_cause(&io::Error::from_raw_os_error(code));
            assert!(!cause.contains("os error"), "{code}: {cause}");
            assert!(!cause.is_empty(), "{code}");
        }
    }

    #[test]
    fn each_cause_is_named_in_words() {
        let cause = |code| os_cause(&io::Error::from_raw_os_error(code)).into_owned();
        assert_eq!(cause(libc::EACCES), "permission denied");
        assert_eq!(cause(libc::EROFS), "read-only file system");
        assert_eq!(cause(libc::ENOSPC), "the disk is full");
        assert_eq!(cause(libc::EDQUOT), "the disk quota is exceeded");
        assert_eq!(cause(libc::EIO), "I/O error");
        assert_eq!(cause(libc::ENOENT), "no such file or directory");
        assert_eq!(cause(libc::ENOTDIR), "not a directory");
        assert_eq!(
            cause(libc::ENAMETOOLONG),
            "the name is too long or not valid here"
        );
        assert_eq!(
            os_cause(&io::Error::other("the write lock was lost")),
            "the write lock was lost"
        );
        let advice = |code| os_advice(&io::Error::from_raw_os_error(code));
        assert_eq!(advice(libc::ENOSPC), Some("free some space and try again"));
        assert_eq!(advice(libc::ENOENT), None);
    }
}
