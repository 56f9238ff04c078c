//! Which words of a memory file name a project file: a pure, bounded scan of
//! text. See the module docs of [`crate::anchors`] for the rules in prose.

/// Longest path a mention may be, in bytes.
pub const MAX_MENTION_BYTES: usize = 256;
/// Most `/`-separated segments a mention may have.
pub const MAX_MENTION_SEGMENTS: usize = 16;
/// Most distinct mentions taken from one text; later ones are ignored. Each
/// costs a stat when the file is anchored.
pub const MAX_MENTIONS: usize = 512;

/// Characters that end a word: whitespace, quotes, brackets and list
/// punctuation around a path in prose or Markdown (`` `src/a.rs` ``,
/// `[x](src/a.rs)`, `(see src/a.rs)`, `**src/a.rs**`, `file=src/a.rs`).
fn is_delimiter(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '`' | '"'
                | '\''
                | '('
                | ')'
                | '['
                | ']'
                | '<'
                | '>'
                | '{'
                | '}'
                | '|'
                | ','
                | ';'
                | '*'
                | '='
        )
}

/// File extensions that make a word without a `/` a mention
/// (`README.md`, `Cargo.toml`); compared in ASCII lowercase.
const EXTENSIONS: &[&str] = &[
    "adoc",
    "astro",
    "bash",
    "bat",
    "c",
    "cc",
    "cfg",
    "cjs",
    "clj",
    "cmake",
    "conf",
    "cpp",
    "cs",
    "css",
    "csv",
    "cxx",
    "dart",
    "env",
    "erl",
    "ex",
    "exs",
    "fish",
    "fs",
    "go",
    "gradle",
    "graphql",
    "h",
    "hcl",
    "hh",
    "hpp",
    "hs",
    "htm",
    "html",
    "ini",
    "ipynb",
    "java",
    "jl",
    "js",
    "json",
    "json5",
    "jsonc",
    "jsx",
    "kt",
    "kts",
    "less",
    "lock",
    "lua",
    "md",
    "mdx",
    "mjs",
    "mk",
    "ml",
    "mli",
    "nim",
    "nix",
    "php",
    "properties",
    "proto",
    "ps1",
    "py",
    "pyi",
    "r",
    "rb",
    "rs",
    "rst",
    "sass",
    "scala",
    "scss",
    "sh",
    "sol",
    "sql",
    "svelte",
    "swift",
    "tf",
    "toml",
    "ts",
    "tsv",
    "tsx",
    "txt",
    "vue",
    "wat",
    "wit",
    "xml",
    "yaml",
    "yml",
    "zig",
    "zsh",
];

/// File names without such an extension that are mentions on their own.
const BARE_NAMES: &[&str] = &[
    ".editorconfig",
    ".env",
    ".gitattributes",
    ".gitignore",
    "CODEOWNERS",
    "Containerfile",
    "Dockerfile",
    "Gemfile",
    "Justfile",
    "LICENSE",
    "Makefile",
    "Procfile",
    "Rakefile",
    "justfile",
    "makefile",
];

/// The distinct project-relative paths `text` mentions, in order of first
/// appearance, at most [`MAX_MENTIONS`].
pub fn mentions(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for word in text.split(is_delimiter) {
        if word.is_empty() {
            continue;
        }
        if let Some(path) = mention(word)
            && seen.insert(path)
        {
            out.push(path.to_string());
            if out.len() == MAX_MENTIONS {
                break;
            }
        }
    }
    out
}

/// The project-relative path one word (already split at delimiters) names,
/// if it names one: sentence punctuation after it, a `./` before it and a
/// line suffix (`:42`, `:42:7`, `:10-20`, `#L42`, `#L10-L20`) are dropped.
pub fn mention(word: &str) -> Option<&str> {
    let word = word.trim_end_matches(['.', ':', '!', '?']);
    let word = word.strip_prefix("./").unwrap_or(word);
    let word = strip_line_suffix(word);
    is_valid_path(word).then_some(word)?;
    let last = word.rsplit('/').next().unwrap_or(word);
    let named = word.contains('/') || BARE_NAMES.contains(&last) || has_known_extension(last);
    named.then_some(word)
}

/// Is `path` a relative path that stays inside the project, in the
/// characters a mention may use? Also re-checks paths read back from the
/// side file, which might have been tampered with.
pub(crate) fn is_valid_path(path: &str) -> bool {
    if path.is_empty() || path.len() > MAX_MENTION_BYTES {
        return false;
    }
    // Letters and digits of any script, and `-_.+@/`: no `:` (URLs, drive
    // letters), `\`, `~`, `$`, `%`, glob characters or controls.
    if !path
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | '@' | '/'))
    {
        return false;
    }
    let mut count = 0;
    for segment in path.split('/') {
        count += 1;
        // An empty segment is a leading `/` (absolute), `//` or a trailing
        // `/` (a folder); `.` and `..` leave or restate the folder; `.git`
        // holds no file worth anchoring.
        if segment.is_empty() || segment == "." || segment == ".." || segment == ".git" {
            return false;
        }
    }
    if count > MAX_MENTION_SEGMENTS {
        return false;
    }
    // `www.example.com/page` is a web address, not a folder.
    !path.starts_with("www.")
}

fn has_known_extension(name: &str) -> bool {
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && ext.len() <= 10
        && EXTENSIONS
            .iter()
            .any(|known| known.eq_ignore_ascii_case(ext))
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `word` without a trailing line reference.
fn strip_line_suffix(word: &str) -> &str {
    if let Some((head, tail)) = word.rsplit_once('#') {
        // `#L42`, `#L10-L20`, `#L10-20`.
        let lines = tail.strip_prefix('L').is_some_and(|t| {
            let (a, b) = t.split_once('-').unwrap_or((t, "1"));
            all_digits(a) && all_digits(b.strip_prefix('L').unwrap_or(b))
        });
        return if lines { head } else { word };
    }
    let mut word = word;
    // `:42`, `:10-20`, and a column after either.
    for _ in 0..2 {
        match word.rsplit_once(':') {
            Some((head, tail)) => {
                let (a, b) = tail.split_once('-').unwrap_or((tail, "1"));
                if all_digits(a) && all_digits(b) {
                    word = head;
                } else {
                    break;
                }
            }
            None => break,
        }
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_in_prose_and_markdown() {
        let text = "Login lives in src/auth.rs:42 (see `host/src/memory.rs`).\n\
                    - [the parser](guest/core/src/names.rs#L10-L20), and README.md.\n\
                    **docs/a.md** file=conf/app.toml Cargo.toml: Makefile\n\
                    src/auth.rs again, ./scripts/ci.sh:3:14, src/x.rs:10-20";
        assert_eq!(
            mentions(text),
            [
                "src/auth.rs",
                "host/src/memory.rs",
                "guest/core/src/names.rs",
                "README.md",
                "docs/a.md",
                "conf/app.toml",
                "Cargo.toml",
                "Makefile",
                "scripts/ci.sh",
                "src/x.rs",
            ]
        );
    }

    #[test]
    fn what_is_never_a_mention() {
        for word in [
            "/etc/passwd",
            "../x.rs",
            "src/../../etc/passwd",
            "a/./b.rs",
            "~/notes.md",
            "$HOME/x.rs",
            "C:\\src\\a.rs",
            "C:/src/a.rs",
            "https://example.com/src/a.rs",
            "www.example.com/a",
            "src/*.rs",
            "src/",
            "a//b.rs",
            ".git/config",
            "notes",
            "v1.2.3",
            "e.g.",
            "i.e",
            "#L42",
            ":42",
            "%APPDATA%/x.json",
        ] {
            assert_eq!(mentions(word), Vec::<String>::new(), "{word}");
        }
        assert_eq!(mentions("a path of 2026/05/01"), ["2026/05/01"]);
    }

    #[test]
    fn bounded() {
        let long = format!("{}/x.rs", "a".repeat(MAX_MENTION_BYTES));
        assert_eq!(mention(&long), None);
        let deep = format!("{}x.rs", "d/".repeat(MAX_MENTION_SEGMENTS));
        assert_eq!(mention(&deep), None);
        let many: String = (0..MAX_MENTIONS + 10)
            .map(|i| format!("f{i}.rs "))
            .collect();
        assert_eq!(mentions(&many).len(), MAX_MENTIONS);
        // Any script's letters; cut nowhere inside a character.
        assert_eq!(mention("doc/überblick.md."), Some("doc/überblick.md"));
    }
}
