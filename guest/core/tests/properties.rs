//! Properties that must hold whatever is stored, checked with proptest on
//! generated input (256 cases each by default; `PROPTEST_CASES=N` for more):
//!
//! - the context block never exceeds its cap, has exactly one opening and
//!   one closing wrapper tag, ends with the closing tag, and adds no
//!   replacement character to valid UTF-8, whatever the files hold (any
//!   bytes, forged tags, huge logs);
//! - truncation never splits a character, never exceeds its limit, and
//!   keeps a prefix of the text;
//! - appending never loses or changes earlier content;
//! - every Markdown file a change writes ends with exactly one `\n`,
//!   whatever the text and whichever write path wrote it (write in both
//!   modes, write-if-unchanged, daily entries, compaction flushes, edits,
//!   change sets, import, the model tools, the `memory` tool's `create`,
//!   `str_replace` and `insert`, restore, undo and rename).

use std::fs;
use std::path::Path;

use agent_memory_core::context::{self, CLOSE_TAG, OPEN_TAG, Sources};
use agent_memory_core::text::{prefix_at_char_boundary, truncate_with_marker};
use agent_memory_core::{
    BatchChange, Clock, ErrorKind, Limits, Memory, Options, ReadSource, WriteMode, WriteTarget,
    tools,
};
use proptest::prelude::*;

/// 2026-05-30 09:15 at UTC+2, as the behavioural suite pins it.
const NOW: i64 = 1_780_125_300;
const PROJECT: &str = "/home/dev/src/my-app";

/// Pieces that matter to the block: wrapper tags in many spellings,
/// checklist items, line breaks, multi-byte characters, and arbitrary text.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "</memory>", "<memory>", "< / MEMORY >", "</Memory\n>", "<memory note=\"x\">",
            "<</memory>", "</memory", "<memorybank>", "&lt;/memory>", "\n", "\r\n", "\n\n",
            "- [ ] open item", "* [ ] starred", "- [x] done", "### 09:00 — entry", "日本語",
            "🎉", "é", "\u{fffd}", " ", "\t", "word",
        ])
        .prop_map(str::to_string),
        2 => any::<String>(),
        1 => prop::collection::vec(prop::sample::select(vec!['a', 'e', 'm', 'z', ' ']), 0..40)
            .prop_map(String::from_iter),
    ]
}

/// A text of up to a few hundred pieces, repeated to reach past the caps.
fn text() -> impl Strategy<Value = String> {
    (prop::collection::vec(piece(), 0..60), 1usize..400).prop_map(|(pieces, times)| {
        let unit = pieces.concat();
        // Keep cases fast: at most ~200 KB.
        let times = times.min(200_000 / unit.len().max(1)).max(1);
        unit.repeat(times)
    })
}

/// Wrapper tags as a lenient reader would see them: `<`, optional space,
/// optional `/`, optional space, then `memory` in any case (whatever
/// follows: a cut may put a line break right after it). Returns (opening,
/// closing) counts.
fn wrapper_tags(block: &str) -> (usize, usize) {
    let (mut open, mut close) = (0, 0);
    for (at, _) in block.match_indices('<') {
        let rest = block[at + 1..].trim_start();
        let (closing, rest) = match rest.strip_prefix('/') {
            Some(r) => (true, r.trim_start()),
            None => (false, rest),
        };
        if rest
            .get(..6)
            .is_some_and(|n| n.eq_ignore_ascii_case("memory"))
        {
            if closing {
                close += 1;
            } else {
                open += 1;
            }
        }
    }
    (open, close)
}

fn check_block(block: &str, cap: usize, inputs_clean: bool) -> Result<(), TestCaseError> {
    prop_assert!(
        block.len() <= cap,
        "{} bytes over the cap {cap}",
        block.len()
    );
    prop_assert!(block.starts_with(OPEN_TAG));
    prop_assert!(block.ends_with(CLOSE_TAG));
    prop_assert_eq!(wrapper_tags(block), (1, 1), "forged or missing tags");
    if inputs_clean {
        prop_assert!(!block.contains('\u{fffd}'), "a split character");
    }
    Ok(())
}

fn clean(texts: &[&str]) -> bool {
    texts.iter().all(|t| !t.contains('\u{fffd}'))
}

proptest! {
    #[test]
    fn the_block_respects_cap_and_wrapper_whatever_the_sections(
        long_term in text(),
        scratchpad in text(),
        earlier in text(),
        today in text(),
        cap in 512usize..70_000,
    ) {
        let sources = Sources {
            long_term: Some((long_term.clone(), long_term.len() as u64)),
            scratchpad: Some(scratchpad.clone()),
            earlier: Some(("2026-05-29".into(), earlier.clone())),
            today: Some(("2026-05-30".into(), today.clone())),
            team: Some((scratchpad.clone(), scratchpad.len() as u64)),
            notices: vec![earlier.clone()],
            // Stale marks take room too (their text is the store's, but
            // any text must keep the cap and the wrapper).
            marks: context::Marks {
                long_term: vec![today.clone()],
                team: vec![long_term.clone()],
                notes: vec![scratchpad.clone(), earlier.clone()],
            },
        };
        if let Some(block) = context::build(&sources, cap) {
            let inputs_clean = clean(&[&long_term, &scratchpad, &earlier, &today]);
            check_block(&block, cap, inputs_clean)?;
        }
    }

    #[test]
    fn the_block_from_a_store_of_arbitrary_bytes_is_capped_and_wrapped(
        memory_md in prop::collection::vec(any::<u8>(), 0..3000),
        log in text(),
        raw_log in prop::collection::vec(any::<u8>(), 0..3000),
        pad in text(),
        cap in 512usize..40_000,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let memory = open(dir.path(), cap);
        let pd = dir.path().join(memory.project_dir());
        fs::create_dir_all(pd.join("daily")).unwrap();
        fs::write(dir.path().join("MEMORY.md"), &memory_md).unwrap();
        fs::write(pd.join("SCRATCHPAD.md"), &pad).unwrap();
        fs::write(pd.join("daily/2026-05-30.md"), &log).unwrap();
        fs::write(pd.join("daily/2026-05-28.md"), &raw_log).unwrap();
        if let Some(block) = memory.context_block().unwrap() {
            check_block(&block, cap, false)?;
        }
    }

    #[test]
    fn the_block_from_valid_utf8_files_never_splits_a_character(
        memory_md in text(),
        log in text(),
        earlier in text(),
        cap in 512usize..40_000,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let memory = open(dir.path(), cap);
        let pd = dir.path().join(memory.project_dir());
        fs::create_dir_all(pd.join("daily")).unwrap();
        fs::write(dir.path().join("MEMORY.md"), &memory_md).unwrap();
        fs::write(pd.join("daily/2026-05-30.md"), &log).unwrap();
        fs::write(pd.join("daily/2026-05-29.md"), &earlier).unwrap();
        if let Some(block) = memory.context_block().unwrap() {
            check_block(&block, cap, clean(&[&memory_md, &log, &earlier]))?;
        }
    }

    #[test]
    fn truncation_never_splits_a_character(s in text(), max in 0usize..300_000, marker in piece()) {
        let max = max % (s.len() + 16);
        let p = prefix_at_char_boundary(&s, max);
        prop_assert!(p.len() <= max);
        prop_assert!(s.starts_with(p));
        if s.len() > max {
            prop_assert!(p.len() + 4 > max, "cut {} bytes short of {max}", max - p.len());
        } else {
            prop_assert_eq!(p, s.as_str());
        }
        let t = truncate_with_marker(&s, max, &marker);
        prop_assert!(t.len() <= max || s.len() <= max);
        if s.len() <= max {
            prop_assert_eq!(&t, &s);
        } else if marker.len() < max {
            let kept = t.strip_suffix(marker.as_str()).expect("ends with the marker");
            prop_assert!(s.starts_with(kept));
        } else {
            // No room for the marker: a plain prefix, never a cut marker.
            prop_assert!(s.starts_with(t.as_str()));
        }
    }

    #[test]
    fn capped_writes_and_reads_cut_at_character_boundaries(
        content in text(),
        write_cap in 1usize..5_000,
        read_cap in 512usize..5_000,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut options = Options::new(PROJECT);
        options.clock = Clock { utc_offset_minutes: 120, fixed_unix_seconds: Some(NOW) };
        options.limits = Limits { max_write_bytes: write_cap, max_read_bytes: read_cap, ..Limits::default() };
        let memory = Memory::open(dir.path(), options).unwrap();
        let receipt = memory
            .write(WriteTarget::Note, &content, WriteMode::Overwrite, Some("n"))
            .unwrap();
        let stored = fs::read(dir.path().join(&receipt.path)).unwrap();
        let stored = String::from_utf8(stored).expect("stored bytes are UTF-8");
        // The cap counts the text without its trailing line breaks; the
        // one `\n` the file ends with is the store's.
        let settled = one_line_end(&content);
        let body = settled.strip_suffix('\n').unwrap_or(&settled);
        let kept = prefix_at_char_boundary(body, write_cap);
        prop_assert_eq!(&stored, &one_line_end(kept));
        if body.len() > write_cap {
            prop_assert!(kept.len() + 4 > write_cap);
            prop_assert_eq!(receipt.truncated_from, Some(content.len() as u64));
        } else {
            prop_assert_eq!(receipt.truncated_from, None);
        }
        // Read back a larger file than the read cap, planted directly.
        fs::write(dir.path().join(&receipt.path), &content).unwrap();
        let read = memory.read(ReadSource::Note, Some("n")).unwrap().unwrap_or_default();
        prop_assert!(read.len() <= read_cap, "{} > {read_cap}", read.len());
        if content.len() <= read_cap {
            prop_assert_eq!(&read, &content);
        } else {
            let (kept, marker) = read.rsplit_once("\n…[truncated:").expect("a marker");
            let total = format!("of {} bytes", content.len());
            prop_assert!(marker.contains(&total), "marker {}", marker);
            prop_assert!(content.starts_with(kept));
            if clean(&[&content]) {
                prop_assert!(!read.contains('\u{fffd}'), "a split character");
            }
        }
    }

    #[test]
    fn append_never_loses_earlier_content(
        ops in prop::collection::vec((0usize..4, text()), 1..12),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let memory = open(dir.path(), 32 * 1024);
        let mut expected: [String; 4] = Default::default();
        for (which, content) in ops {
            let (target, name) = match which {
                0 => (WriteTarget::LongTerm, None),
                1 => (WriteTarget::Daily, None),
                2 => (WriteTarget::Note, Some("a")),
                _ => (WriteTarget::Scratchpad, None),
            };
            let content = prefix_at_char_boundary(&content, memory.limits().max_write_bytes);
            let before = expected[which].clone();
            let receipt = memory.write(target, content, WriteMode::Append, name).unwrap();
            let model = &mut expected[which];
            let added = one_line_end(content);
            if !added.is_empty() {
                if !model.is_empty() && !model.ends_with('\n') {
                    model.push('\n');
                }
                model.push_str(&added);
            }
            let on_disk = fs::read_to_string(dir.path().join(&receipt.path)).unwrap_or_default();
            prop_assert!(on_disk.starts_with(&before), "earlier content changed");
            prop_assert_eq!(&on_disk, model);
        }
    }
}

/// A change of the store through one of its write paths.
#[derive(Debug, Clone)]
enum Op {
    Write(usize, WriteMode, String),
    /// `write-if-unchanged` of note `a`, from what it holds.
    IfUnchanged(String),
    Daily(String),
    Flush(String),
    /// Replace the whole of note `a` through `edit`.
    Edit(String),
    /// Replace the whole of note `a` through the `memory_edit` tool.
    ToolEdit(String),
    /// A change set: a note overwritten, `MEMORY.md` appended to, note `a`
    /// replaced whole.
    Batch(String, String, String),
    Import(String),
    Tool(String),
    /// The `memory` tool's `create` of a new note.
    Create(String),
    /// The `memory` tool's `str_replace` of all of note `a`.
    StrReplace(String),
    /// The `memory` tool's `insert` into note `a` at a line (modulo its
    /// line count + 1).
    Insert(usize, String),
    /// `restore` of one of note `a`'s versions (modulo how many it has).
    Restore(usize),
    Undo,
    /// Note `a` renamed to `r` and back.
    Rename,
    /// Note `a` written from outside the store (an editor, an older
    /// version of it), so that history records text that does not end
    /// with one newline.
    Plant(String),
}

fn write_op() -> impl Strategy<Value = Op> {
    let content = || prop::collection::vec(piece(), 0..12).prop_map(|p| p.concat());
    let mode = prop::sample::select(vec![WriteMode::Append, WriteMode::Overwrite]);
    prop_oneof![
        4 => (0usize..4, mode, content()).prop_map(|(t, m, c)| Op::Write(t, m, c)),
        1 => content().prop_map(Op::IfUnchanged),
        1 => content().prop_map(Op::Daily),
        1 => content().prop_map(Op::Flush),
        2 => content().prop_map(Op::Edit),
        1 => content().prop_map(Op::ToolEdit),
        1 => (content(), content(), content()).prop_map(|(a, b, c)| Op::Batch(a, b, c)),
        1 => content().prop_map(Op::Import),
        1 => content().prop_map(Op::Tool),
        1 => content().prop_map(Op::Create),
        1 => content().prop_map(Op::StrReplace),
        1 => (0usize..8, content()).prop_map(|(l, c)| Op::Insert(l, c)),
        1 => (0usize..8).prop_map(Op::Restore),
        1 => Just(Op::Undo),
        1 => Just(Op::Rename),
        1 => content().prop_map(Op::Plant),
    ]
}

/// `text` as the store keeps it: trailing line breaks made one `\n`,
/// nothing for text that is only line breaks.
fn one_line_end(text: &str) -> String {
    let mut body = text;
    while let Some(rest) = body
        .strip_suffix("\r\n")
        .or_else(|| body.strip_suffix('\n'))
    {
        body = rest;
    }
    if body.is_empty() {
        String::new()
    } else {
        format!("{body}\n")
    }
}

/// Every `.md` file under `dir`, outside the store's hidden places.
fn markdown_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// What note `a` holds as a file (empty when missing).
fn note_a(dir: &Path) -> String {
    fs::read_to_string(dir.join("projects/my-app-f5485506/notes/a.md")).unwrap_or_default()
}

/// Run one write path; `Err` only for a refusal random text may earn.
fn run(memory: &Memory, dir: &Path, op: &Op) -> agent_memory_core::Result<()> {
    let memory_tool = |args: serde_json::Value| {
        agent_memory_core::anthropic::call(memory, &args.to_string()).map(drop)
    };
    match op {
        Op::Write(which, mode, content) => {
            let (target, name) = match which {
                0 => (WriteTarget::LongTerm, None),
                1 => (WriteTarget::Daily, None),
                2 => (WriteTarget::Note, Some("a")),
                _ => (WriteTarget::Scratchpad, None),
            };
            memory.write(target, content, *mode, name).map(drop)
        }
        Op::IfUnchanged(content) => {
            use sha2::{Digest, Sha256};
            let base: String = Sha256::digest(note_a(dir).as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            memory
                .write_if_unchanged(WriteTarget::Note, content, Some("a"), &base)
                .map(drop)
        }
        Op::Daily(body) => memory.append_daily("entry", body).map(drop),
        Op::Flush(summary) => memory.flush_compaction(summary, Some(3)).map(drop),
        Op::Edit(new_text) => memory
            .edit(WriteTarget::Note, Some("a"), &note_a(dir), new_text)
            .map(drop),
        Op::ToolEdit(new_text) => {
            let args = serde_json::json!({"target": "note", "name": "a", "old_text": note_a(dir), "new_text": new_text});
            tools::call(memory, "memory_edit", &args.to_string()).map(drop)
        }
        Op::Batch(a, b, c) => memory
            .apply(
                &[
                    BatchChange::Write {
                        target: WriteTarget::Note,
                        content: a.clone(),
                        mode: WriteMode::Overwrite,
                        name: Some("b".into()),
                    },
                    BatchChange::Write {
                        target: WriteTarget::LongTerm,
                        content: b.clone(),
                        mode: WriteMode::Append,
                        name: None,
                    },
                    BatchChange::Edit {
                        target: WriteTarget::Note,
                        name: Some("a".into()),
                        old_text: note_a(dir),
                        new_text: c.clone(),
                    },
                ],
                None,
            )
            .map(drop),
        Op::Import(content) => memory
            .import_file(WriteTarget::Note, Some("imported"), content, false)
            .map(drop),
        Op::Tool(content) => {
            let args = serde_json::json!({"target": "note", "name": "t", "content": content});
            tools::call(memory, "memory_write", &args.to_string()).map(drop)
        }
        Op::Create(text) => {
            // A fresh name each time: `create` refuses an existing file.
            let n =
                fs::read_dir(dir.join("projects/my-app-f5485506/notes")).map_or(0, |d| d.count());
            memory_tool(
                serde_json::json!({"command": "create", "path": format!("/memories/c{n}.md"), "file_text": text}),
            )
        }
        Op::StrReplace(new) => memory_tool(
            serde_json::json!({"command": "str_replace", "path": "/memories/a.md", "old_str": note_a(dir), "new_str": new}),
        ),
        Op::Insert(line, text) => {
            let lines = note_a(dir).lines().count();
            memory_tool(
                serde_json::json!({"command": "insert", "path": "/memories/a.md", "insert_line": line % (lines + 1), "insert_text": text}),
            )
        }
        Op::Restore(pick) => {
            let versions = memory.history(ReadSource::Note, Some("a"), None)?;
            match versions.get(pick % versions.len().max(1)) {
                Some(v) => memory.restore(&v.id).map(drop),
                None => Ok(()),
            }
        }
        Op::Undo => memory.undo(None).map(drop),
        Op::Rename => {
            memory.rename_note("a", "r")?;
            memory.rename_note("r", "a").map(drop)
        }
        Op::Plant(text) => {
            let notes = dir.join("projects/my-app-f5485506/notes");
            fs::create_dir_all(&notes).unwrap();
            fs::write(notes.join("a.md"), text).unwrap();
            Ok(())
        }
    }
}

/// Every Markdown file under `dir` (outside the store's hidden places)
/// with its text.
fn markdown_texts(dir: &Path) -> std::collections::BTreeMap<std::path::PathBuf, String> {
    let mut files = Vec::new();
    markdown_files(dir, &mut files);
    files
        .into_iter()
        .map(|f| {
            let text = fs::read_to_string(&f).unwrap();
            (f, text)
        })
        .collect()
}

proptest! {
    #[test]
    fn every_markdown_file_ends_with_exactly_one_newline(
        ops in prop::collection::vec(write_op(), 1..12),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let memory = open(dir.path(), 32 * 1024);
        for op in ops {
            // A refusal random text can earn (a secret in it, an empty
            // `old_text` on a missing note, a note to rename that is not
            // there) changes nothing; any other error fails the case, and
            // every change that succeeds must keep the rule.
            let before = markdown_texts(dir.path());
            if let Err(e) = run(&memory, dir.path(), &op) {
                prop_assert!(
                    matches!(
                        e.kind(),
                        ErrorKind::SecretDetected
                            | ErrorKind::InvalidArguments
                            | ErrorKind::NotFound
                            | ErrorKind::Ambiguous
                            | ErrorKind::AlreadyExists
                    ),
                    "{:?} failed: {}",
                    op,
                    e
                );
            }
            if matches!(op, Op::Plant(_)) {
                continue;
            }
            // Every file the change wrote (a planted file it left alone is
            // not the store's).
            for (file, text) in markdown_texts(dir.path()) {
                if before.get(&file) == Some(&text) {
                    continue;
                }
                prop_assert!(
                    text.is_empty()
                        || (text.ends_with('\n') && !text.ends_with("\n\n") && !text.ends_with("\n\r\n")),
                    "{} after {:?} ends {:?}",
                    file.display(),
                    op,
                    text.char_indices().rev().nth(11).map_or(&text[..], |(i, _)| &text[i..])
                );
            }
        }
    }
}

fn open(root: &Path, cap: usize) -> Memory {
    let mut options = Options::new(PROJECT);
    options.clock = Clock {
        utc_offset_minutes: 120,
        fixed_unix_seconds: Some(NOW),
    };
    options.limits.max_inject_bytes = cap;
    Memory::open(root, options).unwrap()
}
