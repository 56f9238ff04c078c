//! Anthropic's client-side memory tool (`memory`, type `memory_20250818`),
//! command for command, over this project's notes: a runtime that already
//! gives Claude that tool can execute its calls here, sandboxed.
//!
//! The reference is `BetaLocalFilesystemMemoryTool` of the Anthropic Python
//! SDK (`anthropic.lib.tools`, checked against `anthropic` 2.12.0). For
//! `.md` paths every output text and every error text is the reference's,
//! byte for byte, and so is its folder behaviour: `create` and `rename` make
//! missing parent folders (`rename` even when the source then turns out to
//! be missing), `delete` and `rename` leave emptied folders in place. `tests/anthropic_diff.py` checks this by running random
//! command sequences through both.
//!
//! # Mapping
//!
//! `/memories` is the project's notes folder (`projects/<slug>/notes`);
//! `/memories/a/b.md` is the note `a/b`, `/memories/a` the topic folder
//! `a`. Viewing `/memories` creates the notes folder when it is missing (the
//! reference creates its root when constructed). A directory listing shows
//! the notes folder as the reference shows its root: everything not hidden,
//! two levels deep, with sizes.
//!
//! Errors are [`Error`]s whose message is the reference's text and whose
//! kind says what went wrong: `not-found`, `already-exists`, `ambiguous`,
//! `not-a-file`, `invalid-name` (a path outside the rules),
//! `invalid-arguments` (a malformed call, a line out of range).
//!
//! Our own notes follow the reference's text after a blank line, never
//! replace it: redactions and near-duplicate warnings when there are any,
//! then, for every command that changes something, the budget line (see
//! [`crate::budget`]; notes are never in the context block, so it never
//! warns).
//!
//! # Differences from the reference, and why
//!
//! 1. **Only `.md` files.** A path whose last segment has another
//!    extension, and a `create` or `rename` to a path without one, is
//!    refused (`invalid-name`, saying to use `.md`): the store holds
//!    Markdown notes. The reference stores any file.
//! 2. **Names follow the note rule.** Each segment must be a valid note name
//!    (letters, digits, `-`, `_`, single inner spaces, dots between two
//!    digits, at most 64 characters, no device names; a refusal says the
//!    rule) and a note has at most 4 segments
//!    (`/memories/a/b/c/d.md`); folders therefore at most 3. The reference
//!    takes any file name at any depth. Renaming a folder so that a note
//!    would end up deeper than 4 segments is refused too.
//! 3. **No `.` or `..`, no `//`, no encodings, no backslashes.** The
//!    reference resolves `..` and accepts it while it stays inside
//!    `/memories`, collapses `//` and `/./`, and takes `%2e` and `\` as
//!    plain characters. Here any such spelling is refused; when it would
//!    leave `/memories` the text is the reference's `Path … would escape
//!    /memories directory`.
//! 4. **`/memories` must be followed by `/` or nothing.** The reference only
//!    checks the prefix, so `/memoriesX/a.md` reaches `memories/X/a.md`;
//!    here it is refused.
//! 5. **Symbolic links are never followed.** The reference follows a link
//!    that stays inside `/memories`. Here a link on the way to a file is an
//!    error (`not-a-file`), a link in a listing is left out, a link as the
//!    file itself is an unsupported file type, and `delete` of a folder
//!    unlinks links inside it without following them (as `rmtree` does).
//!    A file with a second hard link is listed but not read or changed
//!    (`not-a-file`): its other name may be outside the store.
//! 6. **Size limits.** `create`, `str_replace` and `insert` refuse text
//!    larger than the store's write cap (64 KiB by default) instead of
//!    writing it; files over 16 MiB are not read. The reference has no
//!    limits.
//! 7. **An empty `old_str` is refused** (`invalid-arguments`). The reference
//!    counts the empty string at every position: it reports every line as
//!    a match, or on an empty file replaces "nothing" with `new_str`.
//! 8. **Malformed calls are typed errors.** A missing or mistyped field, a
//!    non-integer `insert_line` or `view_range` item, an unknown field or
//!    command, a repeated key: `invalid-arguments`. The reference raises a
//!    Python exception (not a tool error) for most of these, accepts `true`
//!    as the integer 1, and ignores unknown fields.
//! 9. **Moving a folder into itself** is `invalid-arguments`; the
//!    reference raises an `OSError` (also when the folder is missing, after
//!    making it as the destination's parent: here that case is `not-found`,
//!    with the same folder left behind).
//! 10. **Every file ends with one `\n`**, as every Markdown file the store
//!     writes does (see `wit/store.wit`): `create` and `str_replace` store
//!     the text's trailing line breaks as one `\n` where the reference keeps
//!     them as given (its `insert` already ends the file with one). `view`
//!     shows the stored bytes as the reference shows a file, so a file that
//!     ends with `\n` shows a last, empty numbered line. The write cap of
//!     `file_text` and `insert_text` does not count their trailing line
//!     breaks.
//! 11. **Text that is not UTF-8** in a stored file is an `io` error; the
//!     reference raises `UnicodeDecodeError`. Entries whose names are not
//!     UTF-8 are left out of listings, and a folder holding one is not
//!     deleted (`invalid-arguments`).
//! 12. **Concurrency.** Changes hold the store's write lock and replace
//!     files atomically (`create` too, where the reference writes in place).

use std::fs;
use std::path::Path;

use agent_memory_vocab::without_line_ends;
use serde_json::{Map, Value};

use crate::args::{parse_object, req_str, type_name};
use crate::dupes;
use crate::error::{Error, ErrorKind, Result, os_cause};
use crate::fsio::Kind;
use crate::history::Operation;
use crate::names::{MAX_NOTE_SEGMENTS, NOTE_NAME_RULE, check_segment, note_name};
use crate::store::{Committed, Memory, Step};

/// The tool's name.
pub const TOOL_NAME: &str = "memory";
/// The tool's type in the Messages API.
pub const TOOL_TYPE: &str = "memory_20250818";
/// The root every path starts with.
pub const ROOT: &str = "/memories";
/// Width of the right-aligned line numbers (the digits of 999999).
const LINE_NUMBER_WIDTH: usize = 6;
/// Files with more lines than this are not shown.
const MAX_LINES: usize = 999_999;
/// Entries a folder `delete` or a folder `rename` looks at before giving
/// up: the bound on one call's work.
const MAX_TREE_ENTRIES: usize = 100_000;
/// Folder depth a folder `delete` walks; deeper trees were not made here.
const MAX_TREE_DEPTH: usize = 16;

/// What a `/memories` path names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Loc {
    /// `/memories` itself: the notes folder.
    Root,
    /// A topic folder, `a/b`, relative to the notes folder.
    Dir(String),
    /// A note, `a/b` for `/memories/a/b.md`.
    Note(String),
}

fn err(kind: ErrorKind, message: impl Into<String>) -> Error {
    Error::new(kind, message)
}

fn missing(path: &str) -> Error {
    err(
        ErrorKind::NotFound,
        format!("The path {path} does not exist. Please provide a valid path."),
    )
}

fn not_a_file(path: &str) -> Error {
    err(
        ErrorKind::NotAFile,
        format!("The path {path} is not a file."),
    )
}

/// Map a model's path onto the notes, refusing every traversal spelling.
fn resolve(path: &str) -> Result<Loc> {
    let Some(rest) = path.strip_prefix(ROOT) else {
        return Err(err(
            ErrorKind::InvalidName,
            format!("Path must start with /memories, got: {path}"),
        ));
    };
    if !rest.is_empty() && !rest.starts_with('/') {
        return Err(err(
            ErrorKind::InvalidName,
            format!(
                "Path {path} is not inside /memories: put a `/` after /memories, e.g. /memories/notes.md"
            ),
        ));
    }
    // As the reference: any number of leading slashes, and one trailing.
    let rel = rest.trim_start_matches('/');
    let rel = rel.strip_suffix('/').unwrap_or(rel);
    if rel.is_empty() {
        return Ok(Loc::Root);
    }
    let segments: Vec<&str> = rel.split('/').collect();
    // A `..` that climbs above the root is what the reference refuses, with
    // this text; every other dot segment is refused here too.
    let mut depth: i64 = 0;
    for s in &segments {
        depth += match *s {
            ".." => -1,
            "." | "" => 0,
            _ => 1,
        };
        if depth < 0 {
            return Err(err(
                ErrorKind::InvalidName,
                format!("Path {path} would escape /memories directory"),
            ));
        }
    }
    let traversal = |why: &str| {
        Err(err(
            ErrorKind::InvalidName,
            format!("Path {path} {why}; name the file directly, e.g. /memories/topic/note.md"),
        ))
    };
    for s in &segments {
        if s.is_empty() {
            return traversal("has an empty segment (`//`)");
        }
        if matches!(*s, "." | "..") {
            return traversal("has a `.` or `..` segment");
        }
        if s.contains('\\') {
            return traversal("has a backslash");
        }
        if s.contains('%') {
            return traversal("has a `%` (percent-encoding is not decoded)");
        }
    }
    let last = segments[segments.len() - 1];
    if let Some(stem) = last.strip_suffix(".md") {
        let name = if segments.len() == 1 {
            stem.to_string()
        } else {
            format!("{}/{stem}", segments[..segments.len() - 1].join("/"))
        };
        note_name(&name).map_err(|e| {
            err(
                ErrorKind::InvalidName,
                format!(
                    "Path {path} is not a valid memory file name: {}",
                    e.message()
                        .split_once(": ")
                        .map_or(e.message(), |(_, why)| why)
                ),
            )
        })?;
        return Ok(Loc::Note(name));
    }
    if last.contains('.') {
        return Err(not_md(path));
    }
    if segments.len() >= MAX_NOTE_SEGMENTS {
        return Err(err(
            ErrorKind::InvalidName,
            format!(
                "Path {path} is too deep: folders go at most {} levels below /memories (a note at most {MAX_NOTE_SEGMENTS}, e.g. /memories/a/b/c/d.md)",
                MAX_NOTE_SEGMENTS - 1
            ),
        ));
    }
    for (i, s) in segments.iter().enumerate() {
        if let Err(why) = check_segment(s) {
            return Err(err(
                ErrorKind::InvalidName,
                format!(
                    "Path {path} is not a valid memory folder name: segment {} {s:?}: {why}; {NOTE_NAME_RULE}",
                    i + 1
                ),
            ));
        }
    }
    Ok(Loc::Dir(rel.to_string()))
}

fn not_md(path: &str) -> Error {
    err(
        ErrorKind::InvalidName,
        format!(
            "The path {path} is not a .md file: memory keeps Markdown notes only; use a path ending in .md, e.g. /memories/notes.md"
        ),
    )
}

/// What is at a store-relative path, never following a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    Missing,
    File(u64),
    Dir(u64),
    /// A symbolic link or a special file.
    Other,
}

fn entry(abs: &Path, rel: &str) -> Result<Entry> {
    match fs::symlink_metadata(abs) {
        Ok(m) if m.is_file() => Ok(Entry::File(m.len())),
        Ok(m) if m.is_dir() => Ok(Entry::Dir(m.len())),
        Ok(_) => Ok(Entry::Other),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Entry::Missing),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Ok(Entry::Missing),
        Err(e) => Err(Error::io("inspect", rel, &e)),
    }
}

/// A resolved location inside the store.
struct At {
    /// Store-relative path of the file or folder.
    rel: String,
    /// Store-relative folder holding it (empty for the root's parent).
    parent: String,
}

fn at(memory: &Memory, loc: &Loc) -> At {
    let notes = memory.notes_dir();
    match loc {
        Loc::Root => At {
            parent: notes
                .rsplit_once('/')
                .map_or(String::new(), |(p, _)| p.to_string()),
            rel: notes,
        },
        Loc::Dir(sub) | Loc::Note(sub) => {
            let rel = match loc {
                Loc::Note(_) => format!("{notes}/{sub}.md"),
                _ => format!("{notes}/{sub}"),
            };
            let parent = rel.rsplit_once('/').map_or(notes, |(p, _)| p.to_string());
            At { rel, parent }
        }
    }
}

impl At {
    /// What is there, after checking that every folder on the way is a
    /// real one (a link on the way is an error).
    fn entry(&self, memory: &Memory) -> Result<Entry> {
        if !memory.ensure_dir(&self.parent, false)? {
            return Ok(Entry::Missing);
        }
        entry(&memory.abs(&self.rel), &self.rel)
    }

    fn store_rel(&self) -> crate::store::Rel {
        let (dir, file) = self
            .rel
            .rsplit_once('/')
            .map_or((String::new(), self.rel.clone()), |(d, f)| {
                (d.to_string(), f.to_string())
            });
        crate::store::Rel { dir, file }
    }
}

/// The reference's size format: `0B`, `512B`, `4.0K`, `1.5M`.
fn format_size(bytes: u64) -> String {
    if bytes == 0 {
        return "0B".into();
    }
    let units = ["B", "K", "M", "G"];
    let bits = 64 - bytes.leading_zeros() as usize;
    let i = ((bits - 1) / 10).min(units.len() - 1);
    let size = bytes as f64 / 1024f64.powi(i as i32);
    if size == size.trunc() {
        format!("{}{}", size as u64, units[i])
    } else {
        format!("{size:.1}{}", units[i])
    }
}

fn numbered(n: usize, line: &str) -> String {
    format!("{n:>LINE_NUMBER_WIDTH$}\t{line}")
}

/// Execute one call of the memory tool: `arguments` is its JSON input,
/// `{"command": "view", "path": "/memories"}` and so on. Returns the text
/// for the model.
///
/// # Errors
/// See the module docs: the message is the reference's text, the kind
/// classifies it.
pub fn call(memory: &Memory, arguments: &str) -> Result<String> {
    let fields = [
        "command",
        "path",
        "view_range",
        "file_text",
        "old_str",
        "new_str",
        "insert_line",
        "insert_text",
        "old_path",
        "new_path",
    ];
    let mut map = parse_object(TOOL_NAME, arguments, &fields)?;
    let command = req_str(TOOL_NAME, &mut map, "command")?;
    let allowed: &[&str] = match command.as_str() {
        "view" => &["path", "view_range"],
        "create" => &["path", "file_text"],
        "str_replace" => &["path", "old_str", "new_str"],
        "insert" => &["path", "insert_line", "insert_text"],
        "delete" => &["path"],
        "rename" => &["old_path", "new_path"],
        other => {
            return Err(err(
                ErrorKind::InvalidArguments,
                format!(
                    "Unknown command: {other}; expected view, create, str_replace, insert, delete or rename"
                ),
            ));
        }
    };
    if let Some(extra) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(err(
            ErrorKind::InvalidArguments,
            format!("memory: field {extra:?} does not belong to the {command} command"),
        ));
    }
    let s = |map: &mut Map<String, Value>, f: &str| req_str(TOOL_NAME, map, f);
    if command == "view" {
        let path = s(&mut map, "path")?;
        let range = view_range(map.remove("view_range"))?;
        return view(memory, &path, range);
    }
    let text = match command.as_str() {
        "create" => {
            let path = s(&mut map, "path")?;
            let text = s(&mut map, "file_text")?;
            create(memory, &path, &text)
        }
        "str_replace" => {
            let path = s(&mut map, "path")?;
            let old = s(&mut map, "old_str")?;
            let new = s(&mut map, "new_str")?;
            str_replace(memory, &path, &old, &new)
        }
        "insert" => {
            let path = s(&mut map, "path")?;
            let line = int(map.remove("insert_line"), "insert_line")?;
            let text = s(&mut map, "insert_text")?;
            insert(memory, &path, line, &text)
        }
        "delete" => {
            let path = s(&mut map, "path")?;
            delete(memory, &path)
        }
        _ => {
            let old = s(&mut map, "old_path")?;
            let new = s(&mut map, "new_path")?;
            rename(memory, &old, &new)
        }
    }?;
    // Every change is to notes, which the context block never shows: the
    // budget line says so and how full the block is, after the reference's
    // text and a blank line.
    let budget = memory.budget_after(&memory.notes_dir(), 0..0);
    Ok(format!("{text}\n\n{}", budget.text()))
}

fn int(value: Option<Value>, field: &str) -> Result<i64> {
    match value {
        Some(Value::Number(n)) if n.as_i64().is_some() => Ok(n.as_i64().unwrap_or_default()),
        None | Some(Value::Null) => Err(err(
            ErrorKind::InvalidArguments,
            format!("memory: missing required field {field:?}"),
        )),
        Some(other) => Err(err(
            ErrorKind::InvalidArguments,
            format!(
                "memory: field {field:?} must be an integer, got {}",
                type_name(&other)
            ),
        )),
    }
}

/// `view_range` as the reference reads it: used only when it is a list of
/// exactly two items.
fn view_range(value: Option<Value>) -> Result<Option<(i64, i64)>> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) if items.len() == 2 => {
            let mut it = items.into_iter();
            let a = int(it.next(), "view_range")?;
            let b = int(it.next(), "view_range")?;
            Ok(Some((a, b)))
        }
        Some(Value::Array(_)) => Ok(None),
        Some(other) => Err(err(
            ErrorKind::InvalidArguments,
            format!(
                "memory: field \"view_range\" must be a list of two line numbers, got {}",
                type_name(&other)
            ),
        )),
    }
}

fn view(memory: &Memory, path: &str, range: Option<(i64, i64)>) -> Result<String> {
    let loc = resolve(path)?;
    let place = at(memory, &loc);
    if loc == Loc::Root {
        // The reference's root always exists.
        memory.ensure_dir(&place.rel, true)?;
    }
    match place.entry(memory)? {
        Entry::Missing => Err(missing(path)),
        Entry::Dir(size) => {
            let mut items = Vec::new();
            list_dir(&memory.abs(&place.rel), "", 1, &mut items);
            let mut out = format!(
                "Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:\n{}\t{path}",
                format_size(size)
            );
            for (size, rel) in items {
                out.push_str(&format!("\n{size}\t{path}/{rel}"));
            }
            Ok(out)
        }
        Entry::File(_) => {
            let text = read_text(memory, &place, path)?;
            let lines: Vec<&str> = text.split('\n').collect();
            if lines.len() > MAX_LINES {
                return Err(err(
                    ErrorKind::InvalidArguments,
                    format!("File {path} exceeds maximum line limit of 999,999 lines."),
                ));
            }
            let (shown, first) = match range {
                Some((a, b)) => {
                    let start = a.max(1) - 1;
                    let len = lines.len() as i64;
                    let end = if b == -1 { len } else { b };
                    // Python slice bounds: a negative end counts from the
                    // end; both are clamped to the list.
                    let end = if end < 0 {
                        (len + end).max(0)
                    } else {
                        end.min(len)
                    };
                    let lo = start.min(len);
                    let shown = if lo < end {
                        &lines[lo as usize..end as usize]
                    } else {
                        &lines[..0]
                    };
                    (shown, lo as usize + 1)
                }
                None => (&lines[..], 1),
            };
            let numbered: Vec<String> = shown
                .iter()
                .enumerate()
                .map(|(i, l)| numbered(i + first, l))
                .collect();
            Ok(format!(
                "Here's the content of {path} with line numbers:\n{}",
                numbered.join("\n")
            ))
        }
        Entry::Other => Err(err(
            ErrorKind::NotAFile,
            format!("Unsupported file type for {path}"),
        )),
    }
}

/// The reference's listing: entries not starting with `.`, sorted by name,
/// folders followed by their own entries, two levels deep. Links and
/// special files are left out.
fn list_dir(abs: &Path, rel: &str, depth: usize, out: &mut Vec<(String, String)>) {
    if depth > 2 {
        return;
    }
    let Ok(entries) = fs::read_dir(abs) else {
        return;
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    for name in names {
        let item = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let child = abs.join(&name);
        match entry(&child, &item) {
            Ok(Entry::Dir(size)) => {
                out.push((format_size(size), format!("{item}/")));
                if depth < 2 {
                    list_dir(&child, &item, depth + 1, out);
                }
            }
            Ok(Entry::File(size)) => out.push((format_size(size), item)),
            _ => {}
        }
    }
}

/// The note's text, strictly UTF-8.
fn read_text(memory: &Memory, place: &At, path: &str) -> Result<String> {
    memory
        .read_text_locked(&place.store_rel())?
        .ok_or_else(|| missing(path))
}

/// The note at `path` for `str_replace` and `insert`, with the reference's
/// errors for what is not one.
fn existing_note(memory: &Memory, path: &str) -> Result<At> {
    let loc = resolve(path)?;
    let place = at(memory, &loc);
    match place.entry(memory)? {
        Entry::Missing => Err(missing(path)),
        Entry::File(_) if matches!(loc, Loc::Note(_)) => Ok(place),
        _ => Err(not_a_file(path)),
    }
}

fn check_size(memory: &Memory, path: &str, what: &str, text: &str) -> Result<()> {
    let cap = memory.limits().max_write_bytes;
    if text.len() > cap {
        return Err(err(
            ErrorKind::InvalidArguments,
            format!(
                "memory: {what} for {path} is {} bytes, the limit is {cap}; write it in smaller parts",
                text.len()
            ),
        ));
    }
    Ok(())
}

/// The reference's text, then our notes after a blank line: lines the
/// change repeats, values redacted (`guarded`: as the tool's own guard
/// saw them), and what history could not record. Nothing the change
/// reported is dropped.
fn with_notes(
    text: String,
    done: &Committed,
    guarded: Option<&crate::secrets::Guarded<'_>>,
    path: &str,
) -> String {
    let mut notes = Vec::new();
    if !done.duplicates.is_empty() {
        let dups: Vec<dupes::Duplicate> = done.duplicates.iter().map(|(_, d)| *d).collect();
        notes.push(dupes::warning_text(&dups, path));
    }
    notes.extend(done.similar.iter().cloned());
    match guarded.and_then(crate::secrets::Guarded::note) {
        Some(note) => notes.push(note),
        None => notes.extend(done.redactions.iter().cloned()),
    }
    for w in &done.history {
        notes.push(format!("Warning: {w}."));
    }
    if notes.is_empty() {
        return text;
    }
    format!("{text}\n\n{}", notes.join("\n"))
}

fn create(memory: &Memory, path: &str, text: &str) -> Result<String> {
    let loc = resolve(path)?;
    let guarded = memory.guard(text, path)?;
    let text = guarded.text.as_ref();
    let exists = || {
        err(
            ErrorKind::AlreadyExists,
            format!("File {path} already exists"),
        )
    };
    let place = at(memory, &loc);
    let ((), done) = memory.change(Operation::Write, |tx| {
        match &loc {
            Loc::Note(_) => {}
            // The reference tries to create a file where a folder is.
            _ if place.entry(memory)? != Entry::Missing => return Err(exists()),
            _ => return Err(not_md(path)),
        }
        check_size(memory, path, "file_text", without_line_ends(text))?;
        if place.entry(memory)? != Entry::Missing {
            return Err(exists());
        }
        tx.put(place.store_rel(), text);
        Ok(())
    })?;
    Ok(with_notes(
        format!("File created successfully at: {path}"),
        &done,
        Some(&guarded),
        path,
    ))
}

fn str_replace(memory: &Memory, path: &str, old: &str, new: &str) -> Result<String> {
    if old.is_empty() {
        resolve(path)?;
        return Err(err(
            ErrorKind::InvalidArguments,
            format!(
                "No replacement was performed: old_str is empty in the call for {path}; give the exact text to replace"
            ),
        ));
    }
    check_size(memory, path, "new_str", new)?;
    let guarded = memory.guard(new, path)?;
    let new = guarded.text.as_ref();
    let (snippet, done) = memory.change(Operation::Edit, |tx| {
        let place = existing_note(memory, path)?;
        let content = read_text(memory, &place, path)?;
        let count = content.matches(old).count();
        if count == 0 {
            return Err(err(
                ErrorKind::NotFound,
                format!(
                    "No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
                ),
            ));
        }
        if count > 1 {
            // The reference lists overlapping matches: it searches again one
            // character after each.
            let mut lines = Vec::new();
            let (mut from, mut line, mut counted) = (0, 1usize, 0);
            while let Some(found) = content[from..].find(old) {
                let pos = from + found;
                line += content[counted..pos]
                    .bytes()
                    .filter(|&b| b == b'\n')
                    .count();
                counted = pos;
                lines.push(line.to_string());
                from = pos + content[pos..].chars().next().map_or(1, char::len_utf8);
            }
            return Err(err(
                ErrorKind::Ambiguous,
                format!(
                    "No replacement was performed. Multiple occurrences of old_str `{old}` in lines: {}. Please ensure it is unique",
                    lines.join(", ")
                ),
            ));
        }
        let pos = content.find(old).unwrap_or(0);
        let changed = content[..pos].bytes().filter(|&b| b == b'\n').count();
        let mut updated = String::with_capacity(content.len() - old.len() + new.len());
        updated.push_str(&content[..pos]);
        updated.push_str(new);
        updated.push_str(&content[pos + old.len()..]);
        let lines: Vec<&str> = updated.split('\n').collect();
        let first = changed.saturating_sub(2);
        let last = (changed + 3).min(lines.len());
        let snippet: Vec<String> = (first + 1..=last)
            .map(|n| numbered(n, lines[n - 1]))
            .collect();
        tx.push(Step::Put {
            rel: place.store_rel(),
            added: pos..pos + new.len(),
            bytes: updated.into_bytes(),
        });
        Ok(snippet)
    })?;
    Ok(with_notes(
        format!(
            "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n{}",
            snippet.join("\n")
        ),
        &done,
        Some(&guarded),
        path,
    ))
}

fn insert(memory: &Memory, path: &str, line: i64, text: &str) -> Result<String> {
    check_size(memory, path, "insert_text", without_line_ends(text))?;
    let guarded = memory.guard(text, path)?;
    let text = guarded.text.as_ref();
    let ((), done) = memory.change(Operation::Edit, |tx| {
        let place = existing_note(memory, path)?;
        let content = read_text(memory, &place, path)?;
        let mut lines: Vec<&str> = content.split('\n').collect();
        if lines.last() == Some(&"") {
            lines.pop();
        }
        if line < 0 || line as u64 > lines.len() as u64 {
            return Err(err(
                ErrorKind::InvalidArguments,
                format!(
                    "Invalid `insert_line` parameter: {line}. It should be within the range [0, {}].",
                    lines.len()
                ),
            ));
        }
        let at_line = line as usize;
        let inserted = text.trim_end_matches('\n');
        // Where the inserted text starts in the new file.
        let start: usize = lines[..at_line].iter().map(|l| l.len() + 1).sum();
        lines.insert(at_line, inserted);
        let mut updated = lines.join("\n");
        if !updated.ends_with('\n') {
            updated.push('\n');
        }
        tx.push(Step::Put {
            rel: place.store_rel(),
            added: start..start + inserted.len(),
            bytes: updated.into_bytes(),
        });
        Ok(())
    })?;
    Ok(with_notes(
        format!("The file {path} has been edited."),
        &done,
        Some(&guarded),
        path,
    ))
}

fn delete(memory: &Memory, path: &str) -> Result<String> {
    let loc = resolve(path)?;
    if loc == Loc::Root {
        return Err(err(
            ErrorKind::InvalidArguments,
            "Cannot delete the /memories directory itself",
        ));
    }
    let place = at(memory, &loc);
    let gone = || {
        err(
            ErrorKind::NotFound,
            format!("The path {path} does not exist"),
        )
    };
    let ((), done) = memory.change(Operation::Delete, |tx| {
        match place.entry(memory)? {
            Entry::Missing => Err(gone()),
            Entry::File(_) if matches!(loc, Loc::Note(_)) => {
                // As the reference: the folder it was in stays.
                tx.push(Step::Remove {
                    rel: place.store_rel(),
                    prune: false,
                });
                Ok(())
            }
            Entry::Dir(_) if matches!(loc, Loc::Dir(_)) => {
                // Look at the whole tree before removing anything.
                let mut files = Vec::new();
                let mut dirs = Vec::new();
                walk_tree(memory, &place.rel, 0, &mut files, &mut dirs).map_err(|why| {
                    err(
                        ErrorKind::InvalidArguments,
                        format!("The folder {path} {why}; delete what is inside it first"),
                    )
                })?;
                let mut unlink = Vec::new();
                for file in files {
                    let rel = crate::store::rel_of(&file);
                    let kind = crate::fsio::kind(&memory.abs(&file))
                        .map_err(|e| crate::Error::io("inspect", &file, &e))?;
                    match kind {
                        Kind::File(_) => tx.push(Step::Remove { rel, prune: false }),
                        Kind::Missing => {}
                        // Not memory (a link, a FIFO): unlinked, never
                        // followed, with the folders, as the reference's
                        // recursive delete does.
                        Kind::Other(_) => unlink.push(file),
                    }
                }
                // The folders deepest first (`walk_tree` lists a folder
                // before its own), as a step of the same change.
                dirs.insert(0, place.rel.clone());
                dirs.reverse();
                tx.push(Step::RemoveDir { dirs, unlink });
                Ok(())
            }
            _ => Err(err(
                ErrorKind::NotAFile,
                format!(
                    "The path {path} is not a regular file or folder; memory does not delete it"
                ),
            )),
        }
    })?;
    Ok(with_notes(
        format!("Successfully deleted {path}"),
        &done,
        None,
        path,
    ))
}

/// Everything under the store-relative folder `dir`, links and special
/// files counted as files (they are unlinked, never followed).
fn walk_tree(
    memory: &Memory,
    dir: &str,
    depth: usize,
    files: &mut Vec<String>,
    dirs: &mut Vec<String>,
) -> std::result::Result<(), String> {
    if depth > MAX_TREE_DEPTH {
        return Err(format!("is more than {MAX_TREE_DEPTH} levels deep"));
    }
    let entries = fs::read_dir(memory.abs(dir))
        .map_err(|e| format!("cannot be listed ({})", os_cause(&e)))?;
    for e in entries {
        let e = e.map_err(|e| format!("cannot be listed ({})", os_cause(&e)))?;
        if files.len() + dirs.len() >= MAX_TREE_ENTRIES {
            return Err(format!("holds more than {MAX_TREE_ENTRIES} entries"));
        }
        let Ok(name) = e.file_name().into_string() else {
            return Err("holds a name that is not UTF-8".into());
        };
        let rel = format!("{dir}/{name}");
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            dirs.push(rel.clone());
            walk_tree(memory, &rel, depth + 1, files, dirs)?;
        } else {
            files.push(rel);
        }
    }
    Ok(())
}

/// How many segments below the folder `dir` a note inside it has at most:
/// 1 for a note directly in it, 2 for one in a subfolder (an empty
/// subfolder counts as 2, a note could be put there), and so on. Stops
/// counting past the limit.
fn tree_depth(memory: &Memory, dir: &str, level: usize) -> usize {
    if level > MAX_NOTE_SEGMENTS {
        return MAX_NOTE_SEGMENTS + 1;
    }
    let Ok(entries) = fs::read_dir(memory.abs(dir)) else {
        return 0;
    };
    let mut deepest = 0;
    for e in entries.flatten().take(MAX_TREE_ENTRIES) {
        let here = if e.file_type().is_ok_and(|t| t.is_dir()) {
            let name = e.file_name().to_string_lossy().into_owned();
            1 + tree_depth(memory, &format!("{dir}/{name}"), level + 1).max(1)
        } else {
            1
        };
        deepest = deepest.max(here);
    }
    deepest
}

fn rename(memory: &Memory, old_path: &str, new_path: &str) -> Result<String> {
    let from_loc = resolve(old_path)?;
    let to_loc = resolve(new_path)?;
    if from_loc == Loc::Root {
        return Err(err(
            ErrorKind::InvalidArguments,
            "Cannot rename the /memories directory itself",
        ));
    }
    let from = at(memory, &from_loc);
    let to = at(memory, &to_loc);
    let ((), done) = memory.change(Operation::Rename, |tx| {
        if to_loc == Loc::Root || to.entry(memory)? != Entry::Missing {
            return Err(err(
                ErrorKind::AlreadyExists,
                format!("The destination {new_path} already exists"),
            ));
        }
        let source = from.entry(memory)?;
        match (&from_loc, &to_loc, source) {
            (_, _, Entry::Missing) => Err(err(
                ErrorKind::NotFound,
                format!("The path {old_path} does not exist"),
            )),
            // Unlike the reference, a refused rename makes no folders: the
            // destination's are made only when the note moves.
            (Loc::Note(_), Loc::Note(_), Entry::File(_)) => {
                tx.push(Step::Move {
                    from: from.store_rel(),
                    to: to.store_rel(),
                    prune: false,
                });
                Ok(())
            }
            (Loc::Dir(a), Loc::Dir(b), Entry::Dir(_)) => {
                if b.starts_with(&format!("{a}/")) {
                    return Err(err(
                        ErrorKind::InvalidArguments,
                        format!("Cannot move {old_path} into itself ({new_path})"),
                    ));
                }
                let below = tree_depth(memory, &from.rel, 1);
                let segments = b.split('/').count();
                if segments + below > MAX_NOTE_SEGMENTS {
                    return Err(err(
                        ErrorKind::InvalidName,
                        format!(
                            "Cannot rename {old_path} to {new_path}: notes inside would be more than {MAX_NOTE_SEGMENTS} levels deep (e.g. /memories/a/b/c/d.md is the limit)"
                        ),
                    ));
                }
                tx.push(Step::MoveDir {
                    from: from.rel.clone(),
                    to: to.rel.clone(),
                });
                Ok(())
            }
            (Loc::Note(_), _, Entry::File(_)) => Err(not_md(new_path)),
            (Loc::Dir(_), _, Entry::Dir(_)) => Err(err(
                ErrorKind::InvalidName,
                format!(
                    "Cannot rename the folder {old_path} to {new_path}: a folder name has no extension; only notes end in .md"
                ),
            )),
            _ => Err(err(
                ErrorKind::NotAFile,
                format!(
                    "The path {old_path} is not a regular file or folder; memory does not move it"
                ),
            )),
        }
    })?;
    Ok(with_notes(
        format!("Successfully renamed {old_path} to {new_path}"),
        &done,
        None,
        new_path,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Options;

    /// The budget line after a change in a store with nothing injected.
    const NOTE_BUDGET: &str = "Budget: MEMORY.md 0/200 lines, 0/25000 bytes; context block 0/32768 bytes (notes are not in it; memory_search finds them)";

    fn store() -> (tempfile::TempDir, Memory) {
        let dir = tempfile::tempdir().unwrap();
        let mem = Memory::open(dir.path(), Options::new("/src/app")).unwrap();
        (dir, mem)
    }

    fn run(mem: &Memory, args: serde_json::Value) -> Result<String> {
        call(mem, &args.to_string())
    }

    fn ok(mem: &Memory, args: serde_json::Value) -> String {
        run(mem, args).unwrap()
    }

    fn fails(mem: &Memory, args: serde_json::Value) -> (ErrorKind, String) {
        let e = run(mem, args).unwrap_err();
        (e.kind(), e.message().to_string())
    }

    #[test]
    fn sizes_format_as_the_reference() {
        for (bytes, want) in [
            (0, "0B"),
            (1, "1B"),
            (1023, "1023B"),
            (1024, "1K"),
            (1280, "1.2K"),
            (1536, "1.5K"),
            (4096, "4K"),
            (1_048_575, "1024.0K"),
            (1_048_576, "1M"),
            (3 << 30, "3G"),
            (5 << 40, "5120G"),
        ] {
            assert_eq!(format_size(bytes), want, "{bytes}");
        }
    }

    #[test]
    fn paths_map_onto_notes() {
        for (path, want) in [
            ("/memories", Loc::Root),
            ("/memories/", Loc::Root),
            ("//memories"[1..].as_ref(), Loc::Root),
            ("/memories//a.md", Loc::Note("a".into())),
            ("/memories/a/b.md", Loc::Note("a/b".into())),
            ("/memories/a/b/c/d.md", Loc::Note("a/b/c/d".into())),
            ("/memories/x.md/", Loc::Note("x".into())),
            ("/memories/a/b", Loc::Dir("a/b".into())),
            ("/memories/a/", Loc::Dir("a".into())),
        ] {
            assert_eq!(resolve(path).unwrap(), want, "{path}");
        }
    }

    #[test]
    fn every_traversal_spelling_is_refused() {
        let escape = |p: &str| format!("Path {p} would escape /memories directory");
        let direct = |p: &str, why: &str| {
            format!("Path {p} {why}; name the file directly, e.g. /memories/topic/note.md")
        };
        for (path, want) in [
            ("/memories/../x.md", escape("/memories/../x.md")),
            ("/memories/..", escape("/memories/..")),
            ("/memories/a/../../x.md", escape("/memories/a/../../x.md")),
            ("/memories/a/../b.md", direct("/memories/a/../b.md", "has a `.` or `..` segment")),
            ("/memories/./a.md", direct("/memories/./a.md", "has a `.` or `..` segment")),
            ("/memories/a//b.md", direct("/memories/a//b.md", "has an empty segment (`//`)")),
            ("/memories/a\\b.md", direct("/memories/a\\b.md", "has a backslash")),
            ("/memories/..\\x.md", direct("/memories/..\\x.md", "has a backslash")),
            (
                "/memories/%2e%2e/x.md",
                direct("/memories/%2e%2e/x.md", "has a `%` (percent-encoding is not decoded)"),
            ),
            (
                "/memories/a%2f..%2fb.md",
                direct("/memories/a%2f..%2fb.md", "has a `%` (percent-encoding is not decoded)"),
            ),
            ("/etc/passwd", "Path must start with /memories, got: /etc/passwd".into()),
            ("memories/a.md", "Path must start with /memories, got: memories/a.md".into()),
            (
                "/memoriesX/a.md",
                "Path /memoriesX/a.md is not inside /memories: put a `/` after /memories, e.g. /memories/notes.md".into(),
            ),
            (
                "/memories/x.txt",
                "The path /memories/x.txt is not a .md file: memory keeps Markdown notes only; use a path ending in .md, e.g. /memories/notes.md".into(),
            ),
            (
                "/memories/a/b/c/d/e.md",
                format!("Path /memories/a/b/c/d/e.md is not a valid memory file name: it has 5 segments, the limit is 4 (`a/b/c/d`); {NOTE_NAME_RULE}"),
            ),
            (
                "/memories/a/CON.md",
                format!("Path /memories/a/CON.md is not a valid memory file name: segment 2 \"CON\": it is a reserved Windows device name; {NOTE_NAME_RULE}"),
            ),
            (
                "/memories/a/b/c/d",
                "Path /memories/a/b/c/d is too deep: folders go at most 3 levels below /memories (a note at most 4, e.g. /memories/a/b/c/d.md)".into(),
            ),
            (
                "/memories/nul",
                format!("Path /memories/nul is not a valid memory folder name: segment 1 \"nul\": it is a reserved Windows device name; {NOTE_NAME_RULE}"),
            ),
        ] {
            let e = resolve(path).unwrap_err();
            assert_eq!((e.kind(), e.message()), (ErrorKind::InvalidName, want.as_str()), "{path}");
        }
    }

    #[test]
    fn a_session_matches_the_reference_texts() {
        let (dir, mem) = store();
        let notes = dir.path().join(mem.notes_dir());
        assert_eq!(
            ok(
                &mem,
                serde_json::json!({"command": "view", "path": "/memories"})
            ),
            "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n4K\t/memories"
        );
        assert_eq!(
            ok(
                &mem,
                serde_json::json!({"command": "create", "path": "/memories/a/b.md", "file_text": "one\ntwo\nthree\n"})
            ),
            format!("File created successfully at: /memories/a/b.md\n\n{NOTE_BUDGET}")
        );
        assert_eq!(
            fails(
                &mem,
                serde_json::json!({"command": "create", "path": "/memories/a/b.md", "file_text": ""})
            ),
            (
                ErrorKind::AlreadyExists,
                "File /memories/a/b.md already exists".into()
            )
        );
        assert_eq!(
            ok(
                &mem,
                serde_json::json!({"command": "view", "path": "/memories/a/b.md", "view_range": [2, -1]})
            ),
            "Here's the content of /memories/a/b.md with line numbers:\n     2\ttwo\n     3\tthree\n     4\t"
        );
        assert_eq!(
            ok(
                &mem,
                serde_json::json!({"command": "view", "path": "/memories"})
            ),
            "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n4K\t/memories\n4K\t/memories/a/\n14B\t/memories/a/b.md"
        );
        assert_eq!(
            ok(
                &mem,
                serde_json::json!({"command": "str_replace", "path": "/memories/a/b.md", "old_str": "two", "new_str": "2"})
            ),
            format!(
                "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tone\n     2\t2\n     3\tthree\n     4\t\n\n{NOTE_BUDGET}"
            )
        );
        assert_eq!(
            fails(&mem, serde_json::json!({"command": "str_replace", "path": "/memories/a/b.md", "old_str": "e", "new_str": "E"})),
            (
                ErrorKind::Ambiguous,
                "No replacement was performed. Multiple occurrences of old_str `e` in lines: 1, 3, 3. Please ensure it is unique".into()
            )
        );
        assert_eq!(
            fails(&mem, serde_json::json!({"command": "str_replace", "path": "/memories/a/b.md", "old_str": "four", "new_str": ""})),
            (
                ErrorKind::NotFound,
                "No replacement was performed, old_str `four` did not appear verbatim in /memories/a/b.md.".into()
            )
        );
        assert_eq!(
            fails(
                &mem,
                serde_json::json!({"command": "insert", "path": "/memories/a/b.md", "insert_line": 4, "insert_text": "x"})
            ),
            (
                ErrorKind::InvalidArguments,
                "Invalid `insert_line` parameter: 4. It should be within the range [0, 3].".into()
            )
        );
        assert_eq!(
            ok(
                &mem,
                serde_json::json!({"command": "insert", "path": "/memories/a/b.md", "insert_line": 3, "insert_text": "four\n\n"})
            ),
            format!("The file /memories/a/b.md has been edited.\n\n{NOTE_BUDGET}")
        );
        assert_eq!(
            fs::read_to_string(notes.join("a/b.md")).unwrap(),
            "one\n2\nthree\nfour\n"
        );
        assert_eq!(
            fails(
                &mem,
                serde_json::json!({"command": "insert", "path": "/memories/a", "insert_line": 0, "insert_text": "x"})
            ),
            (
                ErrorKind::NotAFile,
                "The path /memories/a is not a file.".into()
            )
        );
        assert_eq!(
            fails(
                &mem,
                serde_json::json!({"command": "view", "path": "/memories/zz.md"})
            ),
            (
                ErrorKind::NotFound,
                "The path /memories/zz.md does not exist. Please provide a valid path.".into()
            )
        );
        assert_eq!(
            ok(
                &mem,
                serde_json::json!({"command": "rename", "old_path": "/memories/a/b.md", "new_path": "/memories/c/d.md"})
            ),
            format!("Successfully renamed /memories/a/b.md to /memories/c/d.md\n\n{NOTE_BUDGET}")
        );
        // As the reference: the emptied folder stays.
        assert!(notes.join("a").is_dir());
        assert_eq!(
            fails(
                &mem,
                serde_json::json!({"command": "rename", "old_path": "/memories/a/b.md", "new_path": "/memories/c/d.md"})
            ),
            (
                ErrorKind::AlreadyExists,
                "The destination /memories/c/d.md already exists".into()
            )
        );
        assert_eq!(
            fails(
                &mem,
                serde_json::json!({"command": "rename", "old_path": "/memories/nope.md", "new_path": "/memories/e/f.md"})
            ),
            (
                ErrorKind::NotFound,
                "The path /memories/nope.md does not exist".into()
            )
        );
        // The reference makes the destination's folder before it looks for
        // the source; a refused command here changes nothing.
        assert!(!notes.join("e").exists());
        assert_eq!(
            ok(
                &mem,
                serde_json::json!({"command": "delete", "path": "/memories/c"})
            ),
            format!("Successfully deleted /memories/c\n\n{NOTE_BUDGET}")
        );
        assert!(!notes.join("c").exists());
        assert_eq!(
            fails(
                &mem,
                serde_json::json!({"command": "delete", "path": "/memories"})
            ),
            (
                ErrorKind::InvalidArguments,
                "Cannot delete the /memories directory itself".into()
            )
        );
        assert_eq!(
            fails(
                &mem,
                serde_json::json!({"command": "delete", "path": "/memories/c/d.md"})
            ),
            (
                ErrorKind::NotFound,
                "The path /memories/c/d.md does not exist".into()
            )
        );
    }

    #[test]
    fn our_notes_follow_the_reference_text_after_a_blank_line() {
        let (_dir, mem) = store();
        let text = ok(
            &mem,
            serde_json::json!({"command": "create", "path": "/memories/p.md", "file_text": "- use pnpm, not npm\n- Use PNPM not npm.\n"}),
        );
        assert_eq!(
            text,
            format!(
                "File created successfully at: /memories/p.md\n\nPossible duplicates (written anyway; if one of the two is stale or wrong, edit or delete it):\n- line 2 of /memories/p.md repeats line 1 (same words)\n\n{NOTE_BUDGET}"
            )
        );
    }

    #[test]
    fn refusals_change_nothing_and_stay_inside() {
        let (dir, mem) = store();
        ok(
            &mem,
            serde_json::json!({"command": "create", "path": "/memories/keep.md", "file_text": "k\n"}),
        );
        let outside = dir.path().join("MEMORY.md");
        fs::write(&outside, "global\n").unwrap();
        let listing = |d: &Path| {
            let mut v: Vec<_> = walkdir(d);
            v.sort();
            v
        };
        let before = listing(dir.path());
        for args in [
            serde_json::json!({"command": "create", "path": "/memories/../../MEMORY.md", "file_text": "x"}),
            serde_json::json!({"command": "delete", "path": "/memories/../../MEMORY.md"}),
            serde_json::json!({"command": "rename", "old_path": "/memories/keep.md", "new_path": "/memories/../x.md"}),
            serde_json::json!({"command": "rename", "old_path": "/memories/keep.md", "new_path": "/memories/keep.txt"}),
            serde_json::json!({"command": "str_replace", "path": "/memories/keep.md", "old_str": "", "new_str": "x"}),
            serde_json::json!({"command": "create", "path": "/memories/big.md", "file_text": "x".repeat(64 * 1024 + 1)}),
            serde_json::json!({"command": "insert", "path": "/memories/keep.md", "insert_line": "1", "insert_text": "x"}),
            serde_json::json!({"command": "view", "path": "/memories/keep.md", "extra": 1}),
            serde_json::json!({"command": "launch"}),
            serde_json::json!({"path": "/memories"}),
        ] {
            let e = run(&mem, args.clone()).unwrap_err();
            assert_ne!(e.kind(), ErrorKind::Io, "{args}: {e}");
            assert_eq!(listing(dir.path()), before, "{args}");
        }
        assert_eq!(fs::read_to_string(&outside).unwrap(), "global\n");
        assert_eq!(
            call(
                &mem,
                r#"{"command":"delete","path":"/memories/keep.md","path":"/memories"}"#
            )
            .unwrap_err()
            .kind(),
            ErrorKind::InvalidArguments
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_are_never_followed() {
        let (dir, mem) = store();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("s.md"), "secret\n").unwrap();
        ok(
            &mem,
            serde_json::json!({"command": "view", "path": "/memories"}),
        );
        let notes = dir.path().join(mem.notes_dir());
        std::os::unix::fs::symlink(outside.path(), notes.join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("s.md"), notes.join("l.md")).unwrap();
        let (kind, _) = fails(
            &mem,
            serde_json::json!({"command": "view", "path": "/memories/out/s.md"}),
        );
        assert_eq!(kind, ErrorKind::NotAFile);
        assert_eq!(
            fails(
                &mem,
                serde_json::json!({"command": "view", "path": "/memories/l.md"})
            ),
            (
                ErrorKind::NotAFile,
                "Unsupported file type for /memories/l.md".into()
            )
        );
        for args in [
            serde_json::json!({"command": "str_replace", "path": "/memories/out/s.md", "old_str": "secret", "new_str": "x"}),
            serde_json::json!({"command": "create", "path": "/memories/out/new.md", "file_text": "x"}),
            serde_json::json!({"command": "str_replace", "path": "/memories/l.md", "old_str": "secret", "new_str": "x"}),
        ] {
            assert!(run(&mem, args.clone()).is_err(), "{args}");
        }
        // The listing leaves links out.
        assert_eq!(
            ok(
                &mem,
                serde_json::json!({"command": "view", "path": "/memories"})
            ),
            "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n4K\t/memories"
        );
        // Deleting the folder link unlinks it; the target is untouched.
        assert_eq!(
            fails(
                &mem,
                serde_json::json!({"command": "delete", "path": "/memories/out"})
            )
            .0,
            ErrorKind::NotAFile
        );
        assert_eq!(
            fs::read_to_string(outside.path().join("s.md")).unwrap(),
            "secret\n"
        );
    }

    fn walkdir(d: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for e in fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            let name = p.to_string_lossy().into_owned();
            if fs::symlink_metadata(&p).unwrap().is_dir() {
                out.push((name, Vec::new()));
                out.extend(walkdir(&p));
            } else {
                out.push((name, fs::read(&p).unwrap_or_default()));
            }
        }
        out
    }
}
