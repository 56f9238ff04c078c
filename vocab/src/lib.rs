//! The vocabulary of the `agent:memory` contract, written once for Rust: the
//! error kinds, write targets, read sources and write modes of `wit/types.wit`,
//! with their WIT spellings and the words model tools use (`long_term`).
//!
//! The memory core, the component adapter and the wasmtime host all use these
//! types, so no crate keeps its own copy; a test compares each list with the
//! WIT file.
#![deny(missing_docs)]
#![no_std]

#[cfg(feature = "std")]
mod os;
#[cfg(feature = "std")]
pub use os::{os_advice, os_cause};

/// The line a search result carries, under its summary, where meaning would
/// have decided and semantic recall is off. A model reads it, so it gives no
/// reason, path or command (the person's status says why); hosts that load
/// the model only when a query needs it look for it.
pub const SEMANTIC_OFF_NOTE: &str = "semantic recall is off";

/// `text` without its trailing line breaks (`\n`, `\r\n`): what the store
/// keeps of a written text before the one `\n` every stored Markdown file
/// ends with (see the `store` interface of `wit/store.wit`). The write cap
/// counts these bytes, so a text's own final newline never counts against
/// it, and `"a"`, `"a\n"` and `"a\n\n"` are stored alike.
pub fn without_line_ends(text: &str) -> &str {
    let mut end = text.len();
    loop {
        let t = &text[..end];
        if let Some(rest) = t.strip_suffix("\r\n") {
            end = rest.len();
        } else if let Some(rest) = t.strip_suffix('\n') {
            end = rest.len();
        } else {
            break;
        }
    }
    &text[..end]
}

/// What kind of failure an operation hit: the cases of the WIT
/// `error-kind`, plus [`ErrorKind::Other`] for a kind this crate does not
/// know (a newer component's), whose name the error carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Unusable options: a bad root, project path, clock or limit.
    InvalidOptions,
    /// A target or source word that is not one of the exact seed words.
    InvalidTarget,
    /// A mode that is not exactly `append` or `overwrite`.
    InvalidMode,
    /// A note was asked for without a name.
    MissingName,
    /// A note name that breaks the naming rule.
    InvalidName,
    /// A daily name that is not a real `YYYY-MM-DD` date.
    InvalidDate,
    /// Malformed tool-call arguments, an unusable heading, too many terms.
    InvalidArguments,
    /// A tool name that is not one of the memory tools.
    UnknownTool,
    /// The named note does not exist.
    NotFound,
    /// A memory path exists but is not a regular file.
    NotAFile,
    /// The store's write lock could not be had, or was lost.
    Busy,
    /// The filesystem refused an operation.
    Io,
    /// `old_text` of an edit occurs more than once.
    Ambiguous,
    /// A rename or create onto a name that is taken.
    AlreadyExists,
    /// Text to be stored holds a secret and the policy is `block`.
    SecretDetected,
    /// A team file holds unresolved git conflict markers (or the change
    /// would leave some): resolve them first.
    Conflict,
    /// Team scope was asked for but the host gave no team directory.
    NoTeamDir,
    /// A kind this version does not know; its name travels with the error.
    Other,
}

impl ErrorKind {
    /// Every kind with a case of its own in the WIT `error-kind`, in WIT
    /// order (`other` is the catch-all and not listed).
    pub const WIT: [ErrorKind; 17] = [
        ErrorKind::InvalidOptions,
        ErrorKind::InvalidTarget,
        ErrorKind::InvalidMode,
        ErrorKind::MissingName,
        ErrorKind::InvalidName,
        ErrorKind::InvalidDate,
        ErrorKind::InvalidArguments,
        ErrorKind::UnknownTool,
        ErrorKind::NotFound,
        ErrorKind::NotAFile,
        ErrorKind::Busy,
        ErrorKind::Io,
        ErrorKind::Ambiguous,
        ErrorKind::AlreadyExists,
        ErrorKind::SecretDetected,
        ErrorKind::Conflict,
        ErrorKind::NoTeamDir,
    ];

    /// The kebab-case name, e.g. `invalid-name` (`other` for [`Other`](Self::Other)).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidOptions => "invalid-options",
            ErrorKind::InvalidTarget => "invalid-target",
            ErrorKind::InvalidMode => "invalid-mode",
            ErrorKind::MissingName => "missing-name",
            ErrorKind::InvalidName => "invalid-name",
            ErrorKind::InvalidDate => "invalid-date",
            ErrorKind::InvalidArguments => "invalid-arguments",
            ErrorKind::UnknownTool => "unknown-tool",
            ErrorKind::NotFound => "not-found",
            ErrorKind::NotAFile => "not-a-file",
            ErrorKind::Busy => "busy",
            ErrorKind::Io => "io",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::AlreadyExists => "already-exists",
            ErrorKind::SecretDetected => "secret-detected",
            ErrorKind::Conflict => "conflict",
            ErrorKind::NoTeamDir => "no-team-dir",
            ErrorKind::Other => "other",
        }
    }

    /// The kind named `name`; [`Other`](Self::Other) for a name this crate
    /// does not know.
    pub fn from_name(name: &str) -> ErrorKind {
        ErrorKind::WIT
            .into_iter()
            .find(|k| k.as_str() == name)
            .unwrap_or(ErrorKind::Other)
    }
}

impl core::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Defines a closed set of words with a WIT spelling and a tool spelling.
macro_rules! words {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $wit:literal / $tool:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in WIT order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The WIT spelling, e.g. `long-term`.
            pub fn wit_word(self) -> &'static str {
                match self { $($name::$variant => $wit,)+ }
            }

            /// The spelling model tools and the command line use, e.g.
            /// `long_term`.
            pub fn tool_word(self) -> &'static str {
                match self { $($name::$variant => $tool,)+ }
            }

            /// The value whose tool word is exactly `word` (no other case,
            /// no surrounding space).
            pub fn from_tool_word(word: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|v| v.tool_word() == word)
            }

            /// The tool words, joined for a message: `a, b, c or d`.
            pub fn tool_words() -> &'static str {
                words!(@join $($tool),+)
            }
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.tool_word())
            }
        }
    };
    (@join $a:literal, $b:literal) => { concat!($a, " or ", $b) };
    (@join $a:literal, $($rest:literal),+) => { concat!($a, ", ", words!(@join $($rest),+)) };
}

words! {
    /// Which file a write goes to.
    WriteTarget {
        /// Global `MEMORY.md`.
        LongTerm = "long-term" / "long_term",
        /// The project's `SCRATCHPAD.md`.
        Scratchpad = "scratchpad" / "scratchpad",
        /// Today's log.
        Daily = "daily" / "daily",
        /// A named note.
        Note = "note" / "note",
    }
}

words! {
    /// Which file a read comes from (`list` is a tool word of its own, not a
    /// file).
    ReadSource {
        /// Global `MEMORY.md`.
        LongTerm = "long-term" / "long_term",
        /// The project's `SCRATCHPAD.md`.
        Scratchpad = "scratchpad" / "scratchpad",
        /// A daily log, today by default.
        Daily = "daily" / "daily",
        /// A named note.
        Note = "note" / "note",
    }
}

words! {
    /// How a write combines with what is there.
    WriteMode {
        /// Add to the end (the default).
        Append = "append" / "append",
        /// Replace the file.
        Overwrite = "overwrite" / "overwrite",
    }
}

words! {
    /// Which search algorithm runs.
    SearchMode {
        /// Words, relevance and time: finds the right note first (the default).
        Ranked = "ranked" / "ranked",
        /// The seeds' case-insensitive substring search, unchanged.
        Literal = "literal" / "literal",
    }
}

words! {
    /// What the store does with text that holds a secret: the host's
    /// setting, never the model's.
    SecretPolicy {
        /// Refuse the write with `secret-detected` (the default).
        Block = "block" / "block",
        /// Store the text with each value replaced by `[REDACTED:<rule-id>]`.
        Redact = "redact" / "redact",
        /// Store the text as given.
        Off = "off" / "off",
    }
}

words! {
    /// Which tool definitions a model is given.
    ToolSet {
        /// The three seed tools: `memory_write`, `memory_read`, `memory_search`.
        Seed = "seed" / "seed",
        /// Every tool of this memory (the default).
        Full = "full" / "full",
        /// Only `memory`, Anthropic's client-side memory tool.
        Anthropic = "anthropic" / "anthropic",
    }
}

words! {
    /// The change that replaced a recorded version of a file.
    Operation {
        /// Overwritten whole (or created by a write).
        Write = "write" / "write",
        /// Added to at the end.
        Append = "append" / "append",
        /// Part of it replaced.
        Edit = "edit" / "edit",
        /// Deleted.
        Delete = "delete" / "delete",
        /// Moved to or from another path.
        Rename = "rename" / "rename",
        /// Put back to a recorded version.
        Restore = "restore" / "restore",
        /// Brought in from outside the store.
        Import = "import" / "import",
    }
}

words! {
    /// Which store a model tool or an opened memory acts on.
    Scope {
        /// The user's own store under the memory root (the default).
        Personal = "personal" / "personal",
        /// The project's shared store, `<project>/.agent-memory/`, kept in
        /// git.
        Team = "team" / "team",
    }
}

words! {
    /// Who reads the messages a memory answers with: what an action is
    /// called in them.
    Audience {
        /// A model, in a tool result: tools by name (`memory_restore`) (the
        /// default).
        Model = "model" / "model",
        /// A person at the command line: commands (`agent-memory restore
        /// v13`).
        Person = "person" / "person",
    }
}

#[allow(clippy::derivable_impls)]
impl Default for Audience {
    fn default() -> Self {
        Audience::Model
    }
}

// The first word of each of these is the default.
#[allow(clippy::derivable_impls)]
impl Default for SearchMode {
    fn default() -> Self {
        SearchMode::Ranked
    }
}

#[allow(clippy::derivable_impls)]
impl Default for Scope {
    fn default() -> Self {
        Scope::Personal
    }
}

#[allow(clippy::derivable_impls)]
impl Default for SecretPolicy {
    fn default() -> Self {
        SecretPolicy::Block
    }
}

#[allow(clippy::derivable_impls)]
impl Default for ToolSet {
    fn default() -> Self {
        ToolSet::Full
    }
}

impl From<WriteTarget> for ReadSource {
    fn from(t: WriteTarget) -> Self {
        match t {
            WriteTarget::LongTerm => ReadSource::LongTerm,
            WriteTarget::Scratchpad => ReadSource::Scratchpad,
            WriteTarget::Daily => ReadSource::Daily,
            WriteTarget::Note => ReadSource::Note,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::{String, ToString};
    use std::vec::Vec;

    /// The case names of `variant`/`enum` `name` in `wit/types.wit`, with
    /// payloads and comments stripped.
    fn wit_cases(name: &str) -> Vec<String> {
        let wit = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../wit/types.wit"))
            .expect("wit/types.wit");
        let start = wit
            .lines()
            .position(|l| {
                let l = l.trim();
                l == std::format!("variant {name} {{") || l == std::format!("enum {name} {{")
            })
            .unwrap_or_else(|| panic!("no variant or enum {name} in wit/types.wit"));
        wit.lines()
            .skip(start + 1)
            .map(str::trim)
            .take_while(|l| *l != "}")
            .filter(|l| !l.is_empty() && !l.starts_with("//"))
            .map(|l| {
                // `%` escapes a case named like a WIT keyword (`%import`).
                l.trim_end_matches(',')
                    .trim_start_matches('%')
                    .split('(')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn error_kinds_are_the_wit_cases() {
        let mut ours: Vec<String> = ErrorKind::WIT.iter().map(|k| k.as_str().into()).collect();
        ours.push("other".into());
        assert_eq!(ours, wit_cases("error-kind"));
        for kind in ErrorKind::WIT {
            assert_eq!(ErrorKind::from_name(kind.as_str()), kind);
        }
        assert_eq!(ErrorKind::from_name("no-such-kind"), ErrorKind::Other);
    }

    #[test]
    fn words_are_the_wit_cases() {
        let wit = |all: &[&str]| all.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let targets: Vec<&str> = WriteTarget::ALL.iter().map(|t| t.wit_word()).collect();
        assert_eq!(wit(&targets), wit_cases("write-target"));
        let sources: Vec<&str> = ReadSource::ALL.iter().map(|t| t.wit_word()).collect();
        assert_eq!(wit(&sources), wit_cases("read-source"));
        let modes: Vec<&str> = WriteMode::ALL.iter().map(|t| t.wit_word()).collect();
        assert_eq!(wit(&modes), wit_cases("write-mode"));
        let modes: Vec<&str> = SearchMode::ALL.iter().map(|t| t.wit_word()).collect();
        assert_eq!(wit(&modes), wit_cases("search-mode"));
        let policies: Vec<&str> = SecretPolicy::ALL.iter().map(|t| t.wit_word()).collect();
        assert_eq!(wit(&policies), wit_cases("secret-policy"));
        let sets: Vec<&str> = ToolSet::ALL.iter().map(|t| t.wit_word()).collect();
        assert_eq!(wit(&sets), wit_cases("tool-set"));
        let ops: Vec<&str> = Operation::ALL.iter().map(|t| t.wit_word()).collect();
        assert_eq!(wit(&ops), wit_cases("operation"));
        let scopes: Vec<&str> = Scope::ALL.iter().map(|t| t.wit_word()).collect();
        assert_eq!(wit(&scopes), wit_cases("scope"));
        let audiences: Vec<&str> = Audience::ALL.iter().map(|t| t.wit_word()).collect();
        assert_eq!(wit(&audiences), wit_cases("audience"));
    }

    #[test]
    fn tool_words_are_exact() {
        assert_eq!(
            WriteTarget::from_tool_word("long_term"),
            Some(WriteTarget::LongTerm)
        );
        assert_eq!(WriteTarget::from_tool_word("long-term"), None);
        assert_eq!(WriteTarget::from_tool_word("Note"), None);
        assert_eq!(WriteTarget::from_tool_word(" note"), None);
        assert_eq!(
            WriteTarget::tool_words(),
            "long_term, scratchpad, daily or note"
        );
        assert_eq!(WriteMode::tool_words(), "append or overwrite");
    }
}
