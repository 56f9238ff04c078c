//! Validation of everything a model names: notes, daily dates, and the
//! project slug derived from the host's project path.

use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind, Result};
use crate::time::Date;

/// Longest note name, in characters, after trimming.
pub const MAX_NOTE_NAME_CHARS: usize = 64;
/// Longest note name in UTF-8 bytes, after trimming. 64 characters of a
/// four-byte script would make a file name (`<stem>.md`, and the temp name
/// `.<stem>.md.<16 hex>.tmp` while it is replaced) longer than the 255 bytes
/// most filesystems allow; the name is refused up front instead of failing
/// as an I/O error.
pub const MAX_NOTE_NAME_BYTES: usize = 200;
/// Longest sanitized basename kept in a project slug, in bytes.
pub const MAX_SLUG_BASENAME_BYTES: usize = 40;

/// The project slug: `<sanitized-basename>-<first 8 hex of sha256(path)>`.
///
/// The basename is the last non-empty component of `project_path` (split on
/// `/` and `\`); every character other than ASCII alphanumerics, `-` and `_`
/// becomes `-`; the result is cut to 40 bytes and is `root` when empty.
pub fn project_slug(project_path: &str) -> String {
    let basename = project_path
        .split(['/', '\\'])
        .rev()
        .find(|part| !part.is_empty())
        .unwrap_or("");
    let mut base: String = basename
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    // Every char is ASCII now, so any byte index is a char boundary.
    base.truncate(MAX_SLUG_BASENAME_BYTES);
    if base.is_empty() {
        base.push_str("root");
    }
    let digest = Sha256::digest(project_path.as_bytes());
    let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    format!("{base}-{hex}")
}

/// Validate the guest path of a preopened memory root (the WIT
/// `options.root`): absolute, `/`-separated, no empty, `.` or `..` segment
/// (a trailing `/` is allowed), no NUL or backslash.
///
/// # Errors
/// [`ErrorKind::InvalidOptions`] naming the path.
pub fn guest_root(root: &str) -> Result<&str> {
    guest_dir("memory root", "\"/\"", root)
}

/// Validate the guest path of the read-only project preopen (the WIT
/// `options.project-dir`) by the rules of [`guest_root`].
///
/// # Errors
/// [`ErrorKind::InvalidOptions`] naming the path.
pub fn guest_project_dir(dir: &str) -> Result<&str> {
    guest_dir("project dir", "\"/project\"", dir)
}

fn guest_dir<'a>(what: &str, example: &str, root: &'a str) -> Result<&'a str> {
    let bad = |why: &str| {
        Err(Error::new(
            ErrorKind::InvalidOptions,
            format!(
                "{what} {root:?} {why}; pass the guest path the host preopened, e.g. {example}"
            ),
        ))
    };
    let Some(rest) = root.strip_prefix('/') else {
        return bad("is not an absolute guest path");
    };
    if root.contains(['\0', '\\']) {
        return bad("contains NUL or a backslash");
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if !rest.is_empty() && rest.split('/').any(|seg| matches!(seg, "" | "." | "..")) {
        return bad("has an empty, `.` or `..` segment");
    }
    Ok(root)
}

/// Most segments a nested note name may have: `a/b/c/d`.
pub const MAX_NOTE_SEGMENTS: usize = 4;

/// What a note name may hold, as every invalid-name error says it (the one
/// place the rule is phrased; [`check_segment`] and [`note_name`] enforce
/// it).
pub const NOTE_NAME_RULE: &str = "a note name is 1-64 letters or digits, `-`, `_`, single inner spaces and dots between two digits (`release-1.2`), in up to 4 topics joined by `/` (`ops/deploy`); one trailing `.md` is dropped";

/// Validate a single-segment note name and return its stem (the file is
/// `<stem>.md`).
///
/// Surrounding whitespace and one trailing `.md` are dropped; the rest must be
/// 1-64 Unicode letters, digits, `-`, `_`, single inner spaces or dots
/// between two ASCII digits (at most [`MAX_NOTE_NAME_BYTES`] bytes), with no
/// invisible (default-ignorable) character, and not a Windows device name
/// ([`NOTE_NAME_RULE`] says it to whoever gave the name). Nothing is ever rewritten
/// beyond that: a name that breaks the rule is an [`ErrorKind::InvalidName`]
/// error.
pub fn note_stem(raw: &str) -> Result<&str> {
    let trimmed = raw.trim();
    let stem = trimmed.strip_suffix(".md").unwrap_or(trimmed);
    check_segment(stem).map_err(|why| invalid_name(raw, &why))?;
    Ok(stem)
}

/// Validate a note name that may be nested, `a/b/c`, and return it without
/// surrounding whitespace and one trailing `.md`; the note is stored at
/// `notes/<name>.md`.
///
/// At most [`MAX_NOTE_SEGMENTS`] segments joined by single `/`, each by the
/// rule of [`note_stem`] (so no empty segment, no `.` or `..`, no leading or
/// trailing `/`, no `\`, no device name in any segment).
///
/// # Errors
/// [`ErrorKind::InvalidName`] naming the raw value and the broken rule.
pub fn note_name(raw: &str) -> Result<&str> {
    let trimmed = raw.trim();
    let name = trimmed.strip_suffix(".md").unwrap_or(trimmed);
    if name.is_empty() {
        return Err(invalid_name(raw, "it is empty"));
    }
    if name.starts_with('/') || name.ends_with('/') {
        return Err(invalid_name(
            raw,
            "it starts or ends with `/`; write topics as `a/b`",
        ));
    }
    let count = name.split('/').count();
    if count > MAX_NOTE_SEGMENTS {
        return Err(invalid_name(
            raw,
            &format!("it has {count} segments, the limit is {MAX_NOTE_SEGMENTS} (`a/b/c/d`)"),
        ));
    }
    for (i, segment) in name.split('/').enumerate() {
        if segment.is_empty() {
            return Err(invalid_name(raw, "it has an empty segment (`//`)"));
        }
        check_segment(segment).map_err(|why| {
            if count == 1 {
                invalid_name(raw, &why)
            } else {
                invalid_name(raw, &format!("segment {} {segment:?}: {why}", i + 1))
            }
        })?;
    }
    Ok(name)
}

fn invalid_name(raw: &str, why: &str) -> Error {
    Error::new(
        ErrorKind::InvalidName,
        format!("invalid note name {raw:?}: {why}; {NOTE_NAME_RULE}"),
    )
}

/// The single-name rule of [`note_stem`] for one segment, already without
/// `.md`: `Err` says which part of the rule it breaks.
pub(crate) fn check_segment(stem: &str) -> std::result::Result<(), String> {
    if stem.is_empty() {
        return Err("it is empty".into());
    }
    let chars = stem.chars().count();
    if chars > MAX_NOTE_NAME_CHARS {
        return Err(format!(
            "it has {chars} characters, the limit is {MAX_NOTE_NAME_CHARS}"
        ));
    }
    if stem.len() > MAX_NOTE_NAME_BYTES {
        return Err(format!(
            "it is {} bytes long in UTF-8, the limit is {MAX_NOTE_NAME_BYTES}",
            stem.len()
        ));
    }
    let mut prev_space = false;
    let all: Vec<char> = stem.chars().collect();
    for (i, &c) in all.iter().enumerate() {
        if c == '.' {
            // A version number (`release-1.2`): never `.` or `..`, never a
            // leading dot (hidden), a trailing one (Windows drops it) or a
            // second extension (`a.md.md`).
            let digit = |at: Option<usize>| {
                at.and_then(|at| all.get(at))
                    .is_some_and(char::is_ascii_digit)
            };
            if !(digit(i.checked_sub(1)) && digit(Some(i + 1))) {
                return Err("a dot is allowed only between two digits".into());
            }
            prev_space = false;
            continue;
        }
        if c == ' ' {
            if i == 0 || i + 1 == chars {
                return Err("it starts or ends with a space".into());
            }
            if prev_space {
                return Err("it has two spaces in a row".into());
            }
            prev_space = true;
            continue;
        }
        prev_space = false;
        if is_invisible(c) {
            return Err(format!("invisible character U+{:04X}", c as u32));
        }
        if !(c.is_alphanumeric() || c == '-' || c == '_') {
            return Err(match c {
                '/' | '\\' => "path separators are not allowed".to_string(),
                c if c.is_control() => format!("control character U+{:04X}", c as u32),
                c if c.is_whitespace() => format!("whitespace U+{:04X}", c as u32),
                c => format!("character {c:?} (U+{:04X}) is not allowed", c as u32),
            });
        }
    }
    if is_windows_device_name(stem) {
        return Err("it is a reserved Windows device name".into());
    }
    Ok(())
}

/// Letters and marks that render as nothing: the Unicode default-ignorable
/// code points that `char::is_alphanumeric` still accepts (Hangul fillers,
/// the combining grapheme joiner, Mongolian variation selectors, Khmer
/// inherent vowels, variation selectors). Two names differing only in these
/// would look identical.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FFA0}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// True for `CON`, `PRN`, `AUX`, `NUL`, `COM0`-`COM9`, `LPT0`-`LPT9`, with
/// the superscript digits `¹²³` as Windows also treats them, in any case.
fn is_windows_device_name(stem: &str) -> bool {
    let upper = stem.to_uppercase();
    if matches!(upper.as_str(), "CON" | "PRN" | "AUX" | "NUL") {
        return true;
    }
    for prefix in ["COM", "LPT"] {
        if let Some(rest) = upper.strip_prefix(prefix) {
            let mut it = rest.chars();
            if let (Some(d), None) = (it.next(), it.next())
                && (d.is_ascii_digit() || matches!(d, '¹' | '²' | '³'))
            {
                return true;
            }
        }
    }
    false
}

/// Validate a daily-log name: exactly `YYYY-MM-DD` in ASCII digits, and a
/// real calendar date (year 0001-9999).
pub fn daily_date(raw: &str) -> Result<Date> {
    let invalid = |why: &str| {
        Err(Error::new(
            ErrorKind::InvalidDate,
            format!("invalid daily log name {raw:?}: {why}"),
        ))
    };
    let b = raw.as_bytes();
    let shaped = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if !shaped {
        return invalid("expected YYYY-MM-DD");
    }
    let num = |r: std::ops::Range<usize>| raw[r].parse::<u32>().unwrap_or(0);
    let (year, month, day) = (num(0..4) as i32, num(5..7), num(8..10));
    match Date::new(year, month, day) {
        Some(date) => Ok(date),
        None => invalid("no such calendar date"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guest_roots_are_absolute_and_plain() {
        for ok in ["/", "/memory-1", "/a/b", "/a/b/"] {
            assert_eq!(guest_root(ok).unwrap(), ok);
        }
        for bad in [
            "", "memory", "./m", "/a/../b", "/..", "/a//b", "/./a", "/a\0", "\\m", "/a\\b",
        ] {
            let err = guest_root(bad).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidOptions, "{bad:?}");
            assert!(
                err.message().contains(&format!("{bad:?}")),
                "{}",
                err.message()
            );
        }
    }

    #[test]
    fn slug_matches_the_rule() {
        let slug = project_slug("/home/me/src/my repo.v2");
        let hex = &Sha256::digest(b"/home/me/src/my repo.v2")[..4];
        let hex: String = hex.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(slug, format!("my-repo-v2-{hex}"));
    }

    #[test]
    fn same_basename_different_paths_differ() {
        let a = project_slug("/a/app");
        let b = project_slug("/b/app");
        assert!(a.starts_with("app-") && b.starts_with("app-"));
        assert_ne!(a, b);
    }

    #[test]
    fn slug_edge_cases() {
        assert!(project_slug("/").starts_with("root-"));
        assert!(project_slug("/x/proj/").starts_with("proj-"));
        assert!(project_slug(r"C:\Users\me\Repo").starts_with("Repo-"));
        // Non-ASCII characters become one dash each.
        assert!(project_slug("/p/café").starts_with("caf--"));
        let long = format!("/p/{}", "a".repeat(100));
        let slug = project_slug(&long);
        assert_eq!(slug.len(), 40 + 1 + 8);
    }

    #[test]
    fn note_names_accepted() {
        for (raw, stem) in [
            ("auth", "auth"),
            ("  auth.md ", "auth"),
            ("deploy notes", "deploy notes"),
            ("über_straße-2", "über_straße-2"),
            ("日本語", "日本語"),
            ("console", "console"),
            ("COM10", "COM10"),
            ("a", "a"),
            ("release-1.2", "release-1.2"),
            ("v1.2.3", "v1.2.3"),
            ("release-1.2.md", "release-1.2"),
            ("10.0 notes", "10.0 notes"),
        ] {
            assert_eq!(note_stem(raw).unwrap(), stem, "{raw:?}");
        }
        assert_eq!(note_stem(&"x".repeat(64)).unwrap().len(), 64);
    }

    #[test]
    fn note_names_rejected() {
        for raw in [
            "",
            "   ",
            ".md",
            ".",
            "..",
            ".hidden",
            "a.b",
            "a.md.md",
            "1.2.md.md",
            "1..2",
            "1.",
            ".1",
            "a.1",
            "1.a",
            "1 .2",
            "notes.txt",
            "../etc/passwd",
            "a/b",
            r"a\b",
            "C:",
            "a:b",
            "a*b",
            "a?b",
            "a\"b",
            "a<b",
            "a>b",
            "a|b",
            "a%2e",
            "a\0b",
            "a\nb",
            "a\tb",
            "a\u{200b}b",
            "a\u{202e}b",
            "a  b",
            " a b .md",
            "CON",
            "con",
            "Nul",
            "aux",
            "prn",
            "COM1",
            "lpt9",
            "COM¹",
            "lpt³",
            "COM0",
        ] {
            let err = note_stem(raw).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidName, "{raw:?}");
        }
        assert!(note_stem(&"x".repeat(65)).is_err());
        // Every refusal says what a name may hold.
        let err = note_stem("release-1.2b.x").unwrap_err();
        assert_eq!(
            err.message(),
            format!(
                "invalid note name \"release-1.2b.x\": a dot is allowed only between two digits; {NOTE_NAME_RULE}"
            )
        );
    }

    #[test]
    fn note_names_are_bounded_in_bytes_too() {
        // 64 three-byte letters fit (192 bytes); 51 four-byte ones do not.
        assert!(note_stem(&"日".repeat(64)).is_ok());
        assert!(note_stem(&"\u{20000}".repeat(50)).is_ok());
        let err = note_stem(&"\u{20000}".repeat(51)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidName);
        assert!(err.message().contains("204 bytes"), "{}", err.message());
    }

    #[test]
    fn invisible_letters_are_rejected() {
        for raw in [
            "a\u{3164}b",
            "\u{115f}",
            "a\u{1160}",
            "a\u{ffa0}b",
            "a\u{34f}b",
            "a\u{fe0f}",
            "a\u{e0041}",
            "a\u{180b}b",
            "a\u{17b4}b",
        ] {
            let err = note_stem(raw).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidName, "{raw:?}");
        }
        // Vowel signs of real scripts (alphabetic marks) stay allowed.
        assert!(note_stem("भारत").is_ok());
    }

    #[test]
    fn nested_note_names_accepted() {
        for (raw, name) in [
            ("auth", "auth"),
            ("a/b", "a/b"),
            (" a/b/c.md ", "a/b/c"),
            ("a/b/c/d", "a/b/c/d"),
            ("deploy notes/staging db", "deploy notes/staging db"),
            ("日本/語", "日本/語"),
            ("console/COM10", "console/COM10"),
            ("releases/1.2/notes.md", "releases/1.2/notes"),
        ] {
            assert_eq!(note_name(raw).unwrap(), name, "{raw:?}");
        }
        let long = format!("{0}/{0}/{0}/{0}", "x".repeat(64));
        assert_eq!(note_name(&long).unwrap(), long);
    }

    #[test]
    fn hostile_nested_note_names_rejected() {
        for (raw, why) in [
            ("a/b/c/d/e", "it has 5 segments, the limit is 4 (`a/b/c/d`)"),
            ("a//b", "it has an empty segment (`//`)"),
            ("/a", "it starts or ends with `/`; write topics as `a/b`"),
            ("a/", "it starts or ends with `/`; write topics as `a/b`"),
            ("/", "it starts or ends with `/`; write topics as `a/b`"),
            (
                "a/../b",
                "segment 2 \"..\": a dot is allowed only between two digits",
            ),
            (
                "a/./b",
                "segment 2 \".\": a dot is allowed only between two digits",
            ),
            (
                "../a",
                "segment 1 \"..\": a dot is allowed only between two digits",
            ),
            (
                "a/b.md/c",
                "segment 2 \"b.md\": a dot is allowed only between two digits",
            ),
            (
                "a/b.md.md",
                "segment 2 \"b.md\": a dot is allowed only between two digits",
            ),
            (r"a\b", "path separators are not allowed"),
            (
                r"a/b\c",
                "segment 2 \"b\\\\c\": path separators are not allowed",
            ),
            (
                "a/CON",
                "segment 2 \"CON\": it is a reserved Windows device name",
            ),
            (
                "nul/a",
                "segment 1 \"nul\": it is a reserved Windows device name",
            ),
            (
                "a/b/lpt1/c",
                "segment 3 \"lpt1\": it is a reserved Windows device name",
            ),
            (
                "a/%2e%2e",
                "segment 2 \"%2e%2e\": character '%' (U+0025) is not allowed",
            ),
            ("a/ b", "segment 2 \" b\": it starts or ends with a space"),
            ("a /b", "segment 1 \"a \": it starts or ends with a space"),
            (
                "a/\u{200b}",
                "segment 2 \"\\u{200b}\": character '\\u{200b}' (U+200B) is not allowed",
            ),
            ("a/b\0", "segment 2 \"b\\0\": control character U+0000"),
            ("", "it is empty"),
            (".md", "it is empty"),
            (
                "C:/a",
                "segment 1 \"C:\": character ':' (U+003A) is not allowed",
            ),
        ] {
            let err = note_name(raw).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidName, "{raw:?}");
            assert_eq!(
                err.message(),
                format!("invalid note name {raw:?}: {why}; {NOTE_NAME_RULE}"),
                "{raw:?}"
            );
        }
        let long = format!("a/{}", "x".repeat(65));
        assert!(note_name(&long).is_err());
    }

    #[test]
    fn single_and_nested_rules_agree_on_one_segment() {
        for raw in [
            "auth",
            " x.md",
            "a.b",
            "CON",
            "a  b",
            "",
            "日本語",
            "x\u{3164}",
        ] {
            assert_eq!(note_name(raw).ok(), note_stem(raw).ok(), "{raw:?}");
        }
    }

    #[test]
    fn daily_dates() {
        assert_eq!(daily_date("2024-02-29").unwrap().to_string(), "2024-02-29");
        for raw in [
            "2023-02-29",
            "2026-02-30",
            "2026-13-01",
            "2026-00-10",
            "2026-01-00",
            "0000-01-01",
            "2026-1-01",
            "2026/01/01",
            "20260101",
            "２０２６-01-01",
            "2026-01-01 ",
            "",
            "1900-02-29",
            "../2026-01-01",
        ] {
            assert_eq!(
                daily_date(raw).unwrap_err().kind(),
                ErrorKind::InvalidDate,
                "{raw:?}"
            );
        }
        assert!(daily_date("2000-02-29").is_ok());
    }
}
