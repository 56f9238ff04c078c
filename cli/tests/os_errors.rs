//! OS errors through the real `agent-memory` command, each named by its
//! cause in words and never by an OS error number: a root, a note and the
//! lock that refuse a write (`EACCES`, as an ordinary user), a root on a
//! read-only file system (`EROFS`), a full disk (`ENOSPC`), a missing file
//! (`ENOENT`) and a file where a folder belongs (`ENOTDIR`).
//!
//! The permission and read-only cases need root (to run the command as
//! `nobody` with `setpriv`, and to bind-mount read-only), as CI has; the
//! others run anywhere. A case that cannot run says it was skipped.

#![cfg(target_os = "linux")]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const PROJECT: &str = "/work/src/os-app";
const NOW: &str = "2026-05-30T09:15:00+02:00";

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The command on `root`; as `nobody` when `as_nobody`.
fn command(root: &Path, cache: &Path, as_nobody: bool) -> Command {
    let bin = env!("CARGO_BIN_EXE_agent-memory");
    let mut command = if as_nobody {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", bin]);
        c
    } else {
        Command::new(bin)
    };
    command
        .env("AGENT_MEMORY_CACHE_DIR", cache)
        .env("HOME", cache)
        .env("XDG_CONFIG_HOME", cache)
        .env_remove("AGENT_MEMORY_DIR")
        .env_remove("AGENT_MEMORY_NOW")
        .arg("--root")
        .arg(root)
        .args(["--project", PROJECT, "--now", NOW])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// A temp dir every user may enter.
struct Place {
    temp: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let temp = tempfile::tempdir().unwrap();
        fs::set_permissions(temp.path(), fs::Permissions::from_mode(0o755)).unwrap();
        Place { temp }
    }

    fn path(&self) -> &Path {
        self.temp.path()
    }

    /// The compiled-component cache, shared by the tests: one per user,
    /// since each keeps its entries to itself.
    fn cache(&self, as_nobody: bool) -> PathBuf {
        let name = if as_nobody {
            "os-errors-cache-nobody"
        } else {
            "os-errors-cache"
        };
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        fs::create_dir_all(&dir).unwrap();
        if as_nobody {
            fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
        }
        dir
    }

    fn run(&self, root: &Path, as_nobody: bool, args: &[&str]) -> Output {
        command(root, &self.cache(as_nobody), as_nobody)
            .args(args)
            .output()
            .unwrap()
    }

    fn ok(&self, root: &Path, args: &[&str]) {
        let out = self.run(root, false, args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The command failed, and its error says `cause` and no OS number.
fn refused(out: &Output, cause: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "succeeded: {stderr}");
    assert!(stderr.contains(cause), "does not say {cause:?}: {stderr}");
    assert!(!stderr.contains("os error"), "an OS number: {stderr}");
    stderr
}

fn notes_dir(place: &Place, root: &Path) -> PathBuf {
    let out = place.run(root, false, &["status"]);
    let status = String::from_utf8_lossy(&out.stdout).into_owned();
    let slug = status
        .lines()
        .find_map(|l| l.strip_prefix("slug:"))
        .unwrap()
        .trim()
        .to_string();
    root.join("projects").join(slug).join("notes")
}

#[test]
fn a_root_a_note_and_the_lock_that_refuse_writes_say_permission_denied() {
    if !is_root() {
        eprintln!("skipped: running the command as `nobody` needs root");
        return;
    }
    let place = Place::new();
    let root = place.path().join("memory");
    place.ok(&root, &["write", "note", "--name", "keep", "hello\n"]);
    let notes = notes_dir(&place, &root);
    // Everyone may read and enter; only root may write.
    for dir in [&root, &notes] {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let all = walk(&root);
    for path in &all {
        let mode = if path.is_dir() { 0o755 } else { 0o644 };
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    // The root (and so the lock file in it): no new file may be made there.
    let out = place.run(&root, true, &["write", "note", "--name", "keep", "more\n"]);
    let stderr = refused(&out, "permission denied: the memory root is not writable");
    assert!(stderr.contains(".agent-memory.lock"), "{stderr}");
    assert!(
        stderr.contains(&format!("the memory root is `{}`", root.display())),
        "{stderr}"
    );

    // The lock can be taken, but the note's folder refuses the new version.
    fs::set_permissions(&root, fs::Permissions::from_mode(0o777)).unwrap();
    for path in walk(&root.join(".store")) {
        let mode = if path.is_dir() { 0o777 } else { 0o666 };
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }
    let out = place.run(
        &root,
        true,
        &["write", "note", "--name", "keep", "--overwrite", "new\n"],
    );
    let stderr = refused(&out, "permission denied");
    assert!(stderr.contains("notes/keep.md"), "{stderr}");
    assert_eq!(
        fs::read_to_string(notes.join("keep.md")).unwrap(),
        "hello\n"
    );
}

#[test]
fn a_root_on_a_read_only_file_system_says_so() {
    if !is_root() {
        eprintln!("skipped: a read-only bind mount needs root");
        return;
    }
    let place = Place::new();
    let root = place.path().join("memory");
    place.ok(&root, &["write", "note", "--name", "keep", "hello\n"]);
    let status = Command::new("mount")
        .args(["--bind", "-o", "ro"])
        .arg(&root)
        .arg(&root)
        .status()
        .unwrap();
    if !status.success() {
        eprintln!("skipped: mount --bind -o ro failed");
        return;
    }
    let _ = Command::new("mount")
        .args(["-o", "remount,bind,ro"])
        .arg(&root)
        .status();
    let out = place.run(&root, false, &["write", "note", "--name", "keep", "more\n"]);
    let _ = Command::new("umount").arg(&root).status();
    // wasmtime-wasi 48 gives the component an I/O error for EROFS; the
    // command then looks at the root's file system.
    let stderr = refused(&out, "read-only file system");
    assert!(stderr.contains(&root.display().to_string()), "{stderr}");
    assert_eq!(
        fs::read_to_string(notes_dir(&place, &root).join("keep.md")).unwrap(),
        "hello\n"
    );
}

#[test]
fn a_file_where_a_folder_belongs_says_not_a_directory() {
    let place = Place::new();
    // The root's parent is a file.
    let file = place.path().join("plain-file");
    fs::write(&file, "x").unwrap();
    let out = place.run(
        &file.join("memory"),
        false,
        &["write", "note", "--name", "a", "b\n"],
    );
    refused(&out, "not a directory");

    // The notes folder is a file.
    let root = place.path().join("memory");
    place.ok(&root, &["write", "long_term", "- a line\n"]);
    let notes = notes_dir(&place, &root);
    fs::create_dir_all(notes.parent().unwrap()).unwrap();
    fs::write(&notes, "not a folder").unwrap();
    let out = place.run(&root, false, &["write", "note", "--name", "a", "b\n"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{stderr}");
    assert!(!stderr.contains("os error"), "{stderr}");
    assert!(stderr.contains("notes"), "{stderr}");
}

#[test]
fn a_missing_file_says_no_such_file() {
    let place = Place::new();
    let root = place.path().join("memory");
    let missing = place.path().join("AGENTS.md");
    // An import refuses a file it cannot read, and says why.
    let out = place.run(
        &root,
        false,
        &["import", "agents-md", missing.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`AGENTS.md` (-> note AGENTS): cannot open it (no such file or directory)"),
        "{stderr}"
    );
    assert!(!stderr.contains("os error"), "{stderr}");
}

#[test]
fn a_full_disk_says_the_disk_is_full() {
    if !is_root() {
        eprintln!("skipped: mounting a tmpfs needs root");
        return;
    }
    let place = Place::new();
    let mnt = place.path().join("mnt");
    fs::create_dir(&mnt).unwrap();
    let status = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
        .arg(&mnt)
        .status()
        .unwrap();
    assert!(status.success(), "mount -t tmpfs failed");
    let root = mnt.join("memory");
    place.ok(&root, &["write", "note", "--name", "keep", "hello\n"]);
    let filler = mnt.join("filler");
    let _ = fs::write(&filler, vec![0u8; 1 << 20]);
    let out = place.run(&root, false, &["write", "note", "--name", "keep", "more\n"]);
    let _ = Command::new("umount").arg(&mnt).status();
    refused(&out, "the disk is full");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}
