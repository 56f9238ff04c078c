//! Where memory lives and which project a directory belongs to.

use std::fs;
use std::path::{Path, PathBuf};

/// The default memory root: `$AGENT_MEMORY_DIR` when set and non-empty, else
/// the platform's data directory joined with `agent-memory`
/// (`~/.local/share/agent-memory` on Linux, `~/Library/Application
/// Support/agent-memory` on macOS, `%APPDATA%\agent-memory` on Windows).
/// Falls back to `.agent-memory` in the current directory when the platform
/// has no data directory (no home directory).
///
/// This skips the config file, the off switch and validation: hosts should
/// use [`resolve_root`](crate::resolve_root), the whole chain.
///
/// # Examples
///
/// ```
/// let root = agent_memory::default_root();
/// assert!(root.ends_with("agent-memory") || std::env::var_os("AGENT_MEMORY_DIR").is_some());
/// ```
pub fn default_root() -> PathBuf {
    match std::env::var_os("AGENT_MEMORY_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => dirs::data_dir()
            .map(|dir| dir.join("agent-memory"))
            .unwrap_or_else(|| PathBuf::from(".agent-memory")),
    }
}

/// The project a directory belongs to: the canonical root of the git
/// repository containing `cwd`, else `cwd` itself (canonical when it exists).
///
/// Walks up from `cwd` to the first directory holding a `.git` entry:
///
/// - a `.git` directory: that directory's parent is the project;
/// - a `.git` file (`gitdir: <path>`) of a linked worktree: the project is the
///   main repository's root — found through the `commondir` file of the
///   worktree's git directory, or from the `<root>/.git/worktrees/<name>`
///   shape of the path — so every worktree of one repository shares memory;
/// - any other `.git` file (a submodule, a bare repository's worktree, a git
///   directory that no longer exists): the directory holding the `.git` file.
///
/// Nothing is executed: no `git` binary is needed.
///
/// # Examples
///
/// ```no_run
/// // In /home/me/src/app/crates/core, a subdirectory of a repository:
/// let project = agent_memory::detect_project("/home/me/src/app/crates/core");
/// assert_eq!(project, std::path::Path::new("/home/me/src/app"));
/// ```
pub fn detect_project(cwd: impl AsRef<Path>) -> PathBuf {
    let cwd = cwd.as_ref();
    let cwd = fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    for dir in cwd.ancestors() {
        let dot_git = dir.join(".git");
        let Ok(meta) = fs::metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return dir.to_path_buf();
        }
        if meta.is_file() {
            return worktree_main_root(dir, &dot_git).unwrap_or_else(|| dir.to_path_buf());
        }
    }
    cwd
}

/// The checkout a directory is in, whose files staleness anchors hash
/// (see [`OpenOptions::project_dir`](crate::OpenOptions::project_dir)): the
/// canonical directory holding the first `.git` entry (directory or file)
/// above `cwd`, else `cwd` itself. Unlike [`detect_project`], a linked
/// worktree is its own checkout: the files an agent edits are there, while
/// its memory is shared with the main repository.
///
/// # Examples
///
/// ```no_run
/// let checkout = agent_memory::detect_checkout("/home/me/src/app/crates/core");
/// assert_eq!(checkout, std::path::Path::new("/home/me/src/app"));
/// ```
pub fn detect_checkout(cwd: impl AsRef<Path>) -> PathBuf {
    let cwd = cwd.as_ref();
    let cwd = fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    cwd.ancestors()
        .find(|dir| fs::symlink_metadata(dir.join(".git")).is_ok())
        .unwrap_or(&cwd)
        .to_path_buf()
}

/// For a `.git` file pointing into `<main>/.git/worktrees/<name>`, `<main>`.
fn worktree_main_root(dir: &Path, dot_git: &Path) -> Option<PathBuf> {
    let text = fs::read_to_string(dot_git).ok()?;
    let gitdir = text
        .lines()
        .find_map(|line| line.strip_prefix("gitdir:"))?
        .trim();
    let gitdir = dir.join(gitdir); // an absolute `gitdir` replaces `dir`

    let common = match fs::read_to_string(gitdir.join("commondir")) {
        Ok(common) => gitdir.join(common.trim()),
        // No `commondir` (or it cannot be read): trust only the worktree shape.
        Err(_) => {
            let worktrees = gitdir.parent()?;
            if worktrees.file_name()? != "worktrees" {
                return None;
            }
            worktrees.parent()?.to_path_buf()
        }
    };
    let common = fs::canonicalize(common).ok()?;
    // A bare repository's common dir is not `.git`: no main work tree.
    if common.file_name()? != ".git" {
        return None;
    }
    let main = common.parent()?.to_path_buf();
    main.is_dir().then_some(main)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(path: &Path) -> PathBuf {
        fs::canonicalize(path).unwrap()
    }

    #[test]
    fn repository_root_is_the_project() {
        let temp = tempfile::tempdir().unwrap();
        let repo = temp.path().join("app");
        fs::create_dir_all(repo.join(".git")).unwrap();
        assert_eq!(detect_project(&repo), canonical(&repo));
    }

    #[test]
    fn nested_subdirectory_resolves_to_the_repository_root() {
        let temp = tempfile::tempdir().unwrap();
        let repo = temp.path().join("app");
        fs::create_dir_all(repo.join(".git")).unwrap();
        let nested = repo.join("crates/core/src");
        fs::create_dir_all(&nested).unwrap();
        assert_eq!(detect_project(&nested), canonical(&repo));
        // A path spelled with `..` resolves the same way.
        assert_eq!(detect_project(nested.join("../..")), canonical(&repo));
    }

    #[test]
    fn without_a_repository_the_directory_is_the_project() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("plain/sub");
        fs::create_dir_all(&dir).unwrap();
        assert_eq!(detect_project(&dir), canonical(&dir));
    }

    #[test]
    fn missing_directory_is_returned_as_given() {
        let temp = tempfile::tempdir().unwrap();
        let missing = temp.path().join("not-there");
        assert_eq!(detect_project(&missing), missing);
    }

    /// Lays out `<temp>/main` with a `.git` dir and a linked worktree at
    /// `<temp>/wt`, as `git worktree add ../wt` does.
    fn worktree(commondir: bool, absolute: bool) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let temp = tempfile::tempdir().unwrap();
        let main = temp.path().join("main");
        let gitdir = main.join(".git/worktrees/wt");
        fs::create_dir_all(&gitdir).unwrap();
        if commondir {
            fs::write(gitdir.join("commondir"), "../..\n").unwrap();
        }
        let wt = temp.path().join("wt");
        fs::create_dir_all(wt.join("src")).unwrap();
        let pointer = if absolute {
            gitdir.display().to_string()
        } else {
            "../main/.git/worktrees/wt".to_owned()
        };
        fs::write(wt.join(".git"), format!("gitdir: {pointer}\n")).unwrap();
        (temp, main, wt)
    }

    #[test]
    fn worktree_shares_the_main_repository() {
        let (_temp, main, wt) = worktree(true, true);
        assert_eq!(detect_project(&wt), canonical(&main));
        assert_eq!(detect_project(wt.join("src")), canonical(&main));
    }

    #[test]
    fn worktree_with_relative_gitdir_and_no_commondir() {
        let (_temp, main, wt) = worktree(false, false);
        assert_eq!(detect_project(wt.join("src")), canonical(&main));
    }

    #[test]
    fn submodule_style_git_file_is_its_own_project() {
        let temp = tempfile::tempdir().unwrap();
        let outer = temp.path().join("outer");
        fs::create_dir_all(outer.join(".git/modules/sub")).unwrap();
        let sub = outer.join("sub");
        fs::create_dir_all(&sub).unwrap();
        fs::write(sub.join(".git"), "gitdir: ../.git/modules/sub\n").unwrap();
        assert_eq!(detect_project(&sub), canonical(&sub));
    }

    #[test]
    fn dangling_git_file_is_its_own_project() {
        let temp = tempfile::tempdir().unwrap();
        let wt = temp.path().join("wt");
        fs::create_dir_all(&wt).unwrap();
        fs::write(wt.join(".git"), "gitdir: /nowhere/.git/worktrees/wt\n").unwrap();
        assert_eq!(detect_project(&wt), canonical(&wt));
    }
}
