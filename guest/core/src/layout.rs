//! Where things are in a store: store-relative paths and the team prefix.
//! Below the engines (history, anchors, index), which name files by these
//! paths and never by the store itself.

/// How team paths start: `team:MEMORY.md`, `team:notes/deploy.md`. No
/// personal path has a `:` (note names forbid it), so the two never meet.
pub const TEAM_PREFIX: &str = "team:";

/// A store-relative file: its directory and file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rel {
    pub(crate) dir: String,
    pub(crate) file: String,
}

impl Rel {
    pub(crate) fn path(&self) -> String {
        path_prefix(&self.dir) + &self.file
    }
}

/// What a file name in the store-relative folder `dir` is appended to for
/// its store-relative path: nothing at the root, nothing after the team
/// store's top (`team:`), else `dir/`.
pub(crate) fn path_prefix(dir: &str) -> String {
    if dir.is_empty() || dir.ends_with(':') {
        dir.to_string()
    } else {
        format!("{dir}/")
    }
}
