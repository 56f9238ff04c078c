//! Staleness anchors through the store's operations, with pinned outputs.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tempfile::TempDir;

use super::*;
use crate::error::ErrorKind;
use crate::fsio;
use crate::{Clock, Memory, Options, ReadSource, WriteMode, WriteTarget, anthropic, tools};

const AUTH: &str = "pub fn login() {}\n";
/// 2026-05-30 07:15 UTC.
const NOW: i64 = 1_780_125_300;
const DAY: i64 = 86_400;

struct Fix {
    store: TempDir,
    project: TempDir,
    mem: Memory,
}

fn clock(unix: i64) -> Clock {
    Clock {
        utc_offset_minutes: 0,
        fixed_unix_seconds: Some(unix),
    }
}

fn open(store: &Path, project: Option<PathBuf>) -> Memory {
    let mut options = Options::new("/src/app");
    options.clock = clock(NOW);
    options.project_root = project;
    Memory::open(store, options).unwrap()
}

/// A project with `src/auth.rs`, `src/db.rs` and `README.md`, and a store
/// that anchors against it.
fn fix() -> Fix {
    let store = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    fs::create_dir(project.path().join("src")).unwrap();
    fs::write(project.path().join("src/auth.rs"), AUTH).unwrap();
    fs::write(project.path().join("src/db.rs"), "pub struct Db;\n").unwrap();
    fs::write(project.path().join("README.md"), "# app\n").unwrap();
    let mem = open(store.path(), Some(project.path().to_path_buf()));
    Fix {
        store,
        project,
        mem,
    }
}

impl Fix {
    fn p(&self, rel: &str) -> PathBuf {
        self.project.path().join(rel)
    }

    fn note(&self, name: &str, text: &str) {
        self.mem
            .write(WriteTarget::Note, text, WriteMode::Overwrite, Some(name))
            .unwrap();
    }

    fn read_note(&self, name: &str) -> String {
        self.mem
            .read(ReadSource::Note, Some(name))
            .unwrap()
            .unwrap()
    }

    fn side_path(&self) -> PathBuf {
        self.store
            .path()
            .join(ANCHORS_DIR)
            .join(format!("{}.json", self.mem.slug()))
    }

    /// The anchors file as JSON; null when there is none.
    fn side(&self) -> Value {
        match fs::read(self.side_path()) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap(),
            Err(_) => Value::Null,
        }
    }

    /// The anchors of a memory file as `(path, sha256 or null)`.
    fn anchored(&self, key: &str) -> Vec<(String, Value)> {
        let side = self.side();
        let Some(anchors) = side["files"][key]["anchors"].as_array() else {
            return Vec::new();
        };
        anchors
            .iter()
            .map(|a| (a["path"].as_str().unwrap().to_string(), a["sha256"].clone()))
            .collect()
    }

    fn note_key(&self, name: &str) -> String {
        format!("{}/{name}.md", self.mem.notes_dir())
    }
}

fn set_mtime(path: &Path, secs_ago: u64) {
    let when = SystemTime::now() - Duration::from_secs(secs_ago);
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

fn sha_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes).into())
}

#[test]
fn a_write_anchors_the_project_files_it_names() {
    let f = fix();
    f.note(
        "auth",
        "Login is in `src/auth.rs:42`; see README.md.\n\
         Not anchored: src/missing.rs, ../x.rs, /etc/passwd, https://x.io/src/db.rs\n",
    );
    assert_eq!(
        f.anchored(&f.note_key("auth")),
        [
            (
                "src/auth.rs".to_string(),
                Value::from(sha_hex(AUTH.as_bytes()))
            ),
            ("README.md".to_string(), Value::from(sha_hex(b"# app\n"))),
        ]
    );
    assert_eq!(
        f.side()["files"][f.note_key("auth")]["anchors"][0]["date"],
        "2026-05-30"
    );
    // Unchanged: no mark anywhere.
    assert!(!f.read_note("auth").contains("stale:"));
    assert!(
        f.mem
            .list_files()
            .unwrap()
            .iter()
            .all(|i| i.stale.is_empty())
    );
    // Daily logs and the scratchpad are not anchored.
    f.mem.append_daily("work", "touched src/db.rs").unwrap();
    f.mem
        .write(
            WriteTarget::Scratchpad,
            "- [ ] src/db.rs",
            WriteMode::Append,
            None,
        )
        .unwrap();
    let side = f.side();
    assert_eq!(side["files"].as_object().unwrap().len(), 1, "{side}");
}

#[test]
fn changed_files_are_marked_in_read_list_search_and_context() {
    let f = fix();
    f.note("auth", "- login: src/auth.rs\n");
    f.mem
        .write(
            WriteTarget::LongTerm,
            "- auth: see src/auth.rs and src/db.rs\n",
            WriteMode::Overwrite,
            None,
        )
        .unwrap();
    fs::write(f.p("src/auth.rs"), "pub fn login(user: &str) {}\n").unwrap();
    let mark = "stale: src/auth.rs changed since 2026-05-30";
    assert_eq!(
        f.read_note("auth"),
        format!("- login: src/auth.rs\n\n{mark}")
    );
    assert_eq!(
        f.mem.read(ReadSource::LongTerm, None).unwrap().unwrap(),
        format!("- auth: see src/auth.rs and src/db.rs\n\n{mark}")
    );
    let files = f.mem.list_files().unwrap();
    let note = files.iter().find(|i| i.path == f.note_key("auth")).unwrap();
    assert_eq!(
        note.stale,
        [Stale {
            path: "src/auth.rs".into(),
            change: Change::Changed,
            since: "2026-05-30".into(),
        }]
    );
    assert_eq!(
        tools::call(&f.mem, "memory_read", r#"{"source":"list"}"#).unwrap(),
        format!("MEMORY.md\n  {mark}\n{}\n  {mark}", f.note_key("auth"))
    );
    let hits = f.mem.search("login").unwrap();
    assert_eq!(hits.hits.len(), 1);
    assert_eq!(hits.hits[0].body, format!("{mark}\n- login: src/auth.rs"));
    let ranked = f
        .mem
        .search_with("login", crate::SearchMode::Ranked)
        .unwrap();
    assert!(
        ranked.hits[0].body.starts_with(&format!("{mark}\n")),
        "{:?}",
        ranked.hits[0]
    );
    assert_eq!(
        f.mem.context_block().unwrap().unwrap(),
        format!(
            "{}\n\n## Long-term memory (MEMORY.md)\n{mark}\n- auth: see src/auth.rs and src/db.rs\n\n\
             ## Stale notes\n{mark} (note auth)\n</memory>",
            crate::context::OPEN_TAG
        )
    );
}

#[test]
fn same_size_changes_are_found_by_hash_and_remembered() {
    let f = fix();
    f.note("auth", "src/auth.rs");
    fs::write(f.p("src/auth.rs"), AUTH.replace("login", "logon")).unwrap();
    set_mtime(&f.p("src/auth.rs"), 10);
    assert!(
        f.read_note("auth")
            .ends_with("stale: src/auth.rs changed since 2026-05-30")
    );
    // The stamp at which it differed is kept: the next check does not hash.
    let anchor = &f.side()["files"][f.note_key("auth")]["anchors"][0];
    assert_eq!(anchor["changed"][0], AUTH.len());
    assert_eq!(anchor["sha256"], sha_hex(AUTH.as_bytes()));
    assert!(f.read_note("auth").ends_with("changed since 2026-05-30"));
}

#[test]
fn deleted_and_renamed_project_files_are_marked() {
    let f = fix();
    f.note("a", "src/auth.rs and src/db.rs");
    fs::remove_file(f.p("src/db.rs")).unwrap();
    fs::rename(f.p("src/auth.rs"), f.p("src/login.rs")).unwrap();
    assert_eq!(
        f.read_note("a"),
        "src/auth.rs and src/db.rs\n\n\
         stale: src/auth.rs deleted or moved since 2026-05-30\n\
         stale: src/db.rs deleted or moved since 2026-05-30"
    );
    // The folder gone too, or replaced by a file: still deleted.
    fs::remove_file(f.p("src/login.rs")).unwrap();
    fs::remove_dir(f.p("src")).unwrap();
    fs::write(f.p("src"), "not a folder").unwrap();
    assert_eq!(f.read_note("a").matches("deleted or moved").count(), 2);
}

#[test]
fn touched_but_unchanged_is_fresh_and_the_new_mtime_is_kept() {
    let f = fix();
    f.note("auth", "src/auth.rs");
    let key = f.note_key("auth");
    let before = f.side()["files"][&key]["anchors"][0]["mtime_ns"]
        .as_i64()
        .unwrap();
    set_mtime(&f.p("src/auth.rs"), 3600);
    assert_eq!(f.read_note("auth"), "src/auth.rs\n");
    let after = f.side()["files"][&key]["anchors"][0].clone();
    let touched = fsio::Dir::open(&f.p("src"))
        .unwrap()
        .unwrap()
        .stamp("auth.rs")
        .unwrap()
        .unwrap();
    assert_ne!(before, touched.mtime_ns);
    assert_eq!(after["mtime_ns"], touched.mtime_ns);
    assert_eq!(after["sha256"], sha_hex(AUTH.as_bytes()));
    assert_eq!(after["date"], "2026-05-30", "a check does not re-date");
}

#[test]
fn paths_outside_the_project_are_never_followed() {
    let f = fix();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.rs"), "outside").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(outside.path().join("secret.rs"), f.p("src/link.rs")).unwrap();
        symlink(outside.path(), f.p("lib")).unwrap();
    }
    f.note(
        "n",
        "../secret.rs /etc/passwd src/link.rs lib/secret.rs ~/x.rs src/../README.md",
    );
    assert!(f.anchored(&f.note_key("n")).is_empty());
    assert!(!f.side_path().exists(), "nothing anchored, nothing written");
    // A file anchored, then swapped for a link to the same content.
    f.note("m", "src/db.rs");
    fs::copy(f.p("src/db.rs"), outside.path().join("db.rs")).unwrap();
    fs::remove_file(f.p("src/db.rs")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path().join("db.rs"), f.p("src/db.rs")).unwrap();
    assert!(
        f.read_note("m")
            .ends_with("stale: src/db.rs deleted or moved since 2026-05-30")
    );
}

#[test]
fn a_tampered_anchors_file_cannot_point_outside() {
    let f = fix();
    f.note("n", "src/auth.rs");
    let key = f.note_key("n");
    let mut side = f.side();
    side["files"][&key]["anchors"][0]["path"] = Value::from("../../etc/passwd");
    fs::write(f.side_path(), side.to_string()).unwrap();
    assert_eq!(f.read_note("n"), "src/auth.rs\n");
    assert!(
        f.mem
            .list_files()
            .unwrap()
            .iter()
            .all(|i| i.stale.is_empty())
    );
}

#[test]
fn a_corrupt_or_missing_anchors_file_fails_nothing() {
    let f = fix();
    f.note("n", "src/auth.rs");
    fs::write(f.p("src/auth.rs"), "changed").unwrap();
    for garbage in ["{not json", "", "{\"version\":99,\"files\":{}}", "[]"] {
        fs::write(f.side_path(), garbage).unwrap();
        assert_eq!(f.read_note("n"), "src/auth.rs\n");
        assert!(
            f.mem
                .list_files()
                .unwrap()
                .iter()
                .all(|i| i.stale.is_empty())
        );
        assert_eq!(f.mem.search("auth").unwrap().hits.len(), 1);
        assert!(
            !f.mem
                .context_block()
                .unwrap()
                .unwrap_or_default()
                .contains("stale:")
        );
    }
    // The next write starts a valid file again.
    f.note("n", "src/auth.rs again");
    assert_eq!(f.anchored(&f.note_key("n")).len(), 1);
    // A folder where the file should be, or the side folder a link.
    fs::remove_file(f.side_path()).unwrap();
    fs::create_dir(f.side_path()).unwrap();
    assert_eq!(f.read_note("n"), "src/auth.rs again\n");
    f.note("n", "src/auth.rs");
    assert_eq!(f.read_note("n"), "src/auth.rs\n");
}

#[test]
fn no_project_root_means_no_anchors_and_no_failures() {
    let store = tempfile::tempdir().unwrap();
    let mem = open(store.path(), None);
    mem.write(
        WriteTarget::Note,
        "src/auth.rs",
        WriteMode::Overwrite,
        Some("n"),
    )
    .unwrap();
    mem.write(
        WriteTarget::LongTerm,
        "README.md",
        WriteMode::Overwrite,
        None,
    )
    .unwrap();
    assert!(!store.path().join(ANCHORS_DIR).exists());
    assert_eq!(
        mem.read(ReadSource::Note, Some("n")).unwrap().unwrap(),
        "src/auth.rs\n"
    );
    let receipt = mem.refresh(WriteTarget::Note, Some("n")).unwrap();
    assert_eq!(
        receipt.message,
        format!(
            "Nothing anchored for {}/n.md: the host gave no project directory, so anchors are off\n\
             Budget: MEMORY.md 1/200 lines, 10/25000 bytes; context block 125/32768 bytes (notes are not in it; memory_search finds them)",
            mem.notes_dir()
        )
    );
    // A project root that is not there: the same.
    let gone = store.path().join("no-such-project");
    let mem = open(store.path(), Some(gone));
    mem.write(
        WriteTarget::Note,
        "src/auth.rs",
        WriteMode::Overwrite,
        Some("n"),
    )
    .unwrap();
    assert_eq!(
        mem.read(ReadSource::Note, Some("n")).unwrap().unwrap(),
        "src/auth.rs\n"
    );
    assert!(!mem.context_block().unwrap().unwrap().contains("stale:"));
    let receipt = mem.refresh(WriteTarget::Note, Some("n")).unwrap();
    assert_eq!(
        receipt.message,
        format!(
            "Nothing anchored for {}/n.md: the project directory cannot be opened\n\
             Budget: MEMORY.md 1/200 lines, 10/25000 bytes; context block 125/32768 bytes (notes are not in it; memory_search finds them)",
            mem.notes_dir()
        )
    );
    // A relative root is refused at open.
    let mut options = Options::new("/src/app");
    options.project_root = Some(PathBuf::from("project"));
    let err = Memory::open(store.path(), options).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidOptions);
    assert_eq!(
        err.message(),
        "project root \"project\" is not an absolute path; pass the directory where the project is visible, e.g. `/project`"
    );
}

#[test]
fn refresh_re_anchors_without_rewriting() {
    let mut f = fix();
    f.note("auth", "src/auth.rs and src/db.rs");
    let note = f.store.path().join(f.note_key("auth"));
    let written = fs::read(&note).unwrap();
    fs::write(f.p("src/auth.rs"), "fn changed() {}\n").unwrap();
    assert!(f.read_note("auth").contains("stale: src/auth.rs changed"));
    f.mem.set_clock(clock(NOW + 3 * DAY)).unwrap();
    let receipt = f.mem.refresh(WriteTarget::Note, Some("auth")).unwrap();
    assert_eq!(receipt.anchored, ["src/auth.rs", "src/db.rs"]);
    assert_eq!(
        receipt.message,
        format!(
            "Refreshed {}: anchored 2 project files as of 2026-06-02 (src/auth.rs, src/db.rs)\n\
             Budget: MEMORY.md 0/200 lines, 0/25000 bytes; context block 0/32768 bytes (notes are not in it; memory_search finds them)",
            f.note_key("auth")
        )
    );
    // Its stale line left the block, which is now empty.
    assert_eq!(f.mem.context_block().unwrap(), None);
    assert_eq!(
        fs::read(&note).unwrap(),
        written,
        "the note is not rewritten"
    );
    assert_eq!(f.read_note("auth"), "src/auth.rs and src/db.rs\n");
    fs::remove_file(f.p("src/db.rs")).unwrap();
    assert!(
        f.read_note("auth")
            .ends_with("stale: src/db.rs deleted or moved since 2026-06-02")
    );
    // MEMORY.md too; other targets and missing files are refused.
    f.mem
        .write(
            WriteTarget::LongTerm,
            "README.md",
            WriteMode::Overwrite,
            None,
        )
        .unwrap();
    let receipt = f.mem.refresh(WriteTarget::LongTerm, None).unwrap();
    assert_eq!(receipt.anchored, ["README.md"]);
    let err = f.mem.refresh(WriteTarget::Daily, None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidTarget);
    assert_eq!(
        err.message(),
        "cannot refresh target \"daily\": only long_term (MEMORY.md) and note files are anchored"
    );
    let err = f.mem.refresh(WriteTarget::Note, Some("nope")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(f.mem.refresh(WriteTarget::Note, None).is_err());
}

#[test]
fn any_write_re_anchors_the_file_written() {
    let f = fix();
    f.note("n", "src/auth.rs");
    fs::write(f.p("src/auth.rs"), "changed").unwrap();
    assert!(f.read_note("n").contains("stale:"));
    // An append re-anchors the whole note, new mentions included.
    f.mem
        .write(
            WriteTarget::Note,
            "and src/db.rs",
            WriteMode::Append,
            Some("n"),
        )
        .unwrap();
    assert_eq!(f.read_note("n"), "src/auth.rs\nand src/db.rs\n");
    let paths: Vec<String> = f
        .anchored(&f.note_key("n"))
        .into_iter()
        .map(|a| a.0)
        .collect();
    assert_eq!(paths, ["src/auth.rs", "src/db.rs"]);
    // An edit too, dropping what it no longer mentions.
    f.mem
        .edit(WriteTarget::Note, Some("n"), "src/auth.rs\n", "")
        .unwrap();
    let paths: Vec<String> = f
        .anchored(&f.note_key("n"))
        .into_iter()
        .map(|a| a.0)
        .collect();
    assert_eq!(paths, ["src/db.rs"]);
    // Rewritten with no mention: the entry goes.
    f.note("n", "nothing here");
    assert!(f.side()["files"].as_object().unwrap().is_empty());
}

#[test]
fn deleted_and_renamed_notes_take_their_anchors_along() {
    let f = fix();
    f.note("a", "src/auth.rs");
    f.note("topic/b", "src/db.rs");
    fs::write(f.p("src/auth.rs"), "changed").unwrap();
    f.mem.rename_note("a", "moved/a2").unwrap();
    assert_eq!(f.anchored(&f.note_key("moved/a2")).len(), 1);
    assert!(f.anchored(&f.note_key("a")).is_empty());
    assert!(
        f.read_note("moved/a2")
            .ends_with("stale: src/auth.rs changed since 2026-05-30")
    );
    f.mem.delete_note("moved/a2").unwrap();
    assert!(f.anchored(&f.note_key("moved/a2")).is_empty());
    // The memory tool's folder rename moves every note's anchors.
    anthropic::call(
        &f.mem,
        r#"{"command":"rename","old_path":"/memories/topic","new_path":"/memories/other"}"#,
    )
    .unwrap();
    assert_eq!(f.anchored(&f.note_key("other/b")).len(), 1);
    let keys: Vec<String> = f.side()["files"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, [f.note_key("other/b")]);
    // And its deletes forget them.
    anthropic::call(&f.mem, r#"{"command":"delete","path":"/memories/other"}"#).unwrap();
    assert!(f.side()["files"].as_object().unwrap().is_empty());
}

#[test]
fn a_memory_file_changed_elsewhere_keeps_only_what_it_still_mentions() {
    let f = fix();
    f.mem
        .write(
            WriteTarget::LongTerm,
            "- src/auth.rs\n- src/db.rs\n",
            WriteMode::Overwrite,
            None,
        )
        .unwrap();
    fs::write(f.p("src/auth.rs"), "changed").unwrap();
    fs::write(f.p("src/db.rs"), "changed").unwrap();
    // Another project (or an editor) rewrote the shared MEMORY.md.
    fs::write(f.store.path().join("MEMORY.md"), "- src/db.rs only\n").unwrap();
    assert_eq!(
        f.mem.read(ReadSource::LongTerm, None).unwrap().unwrap(),
        "- src/db.rs only\n\nstale: src/db.rs changed since 2026-05-30"
    );
}

#[test]
fn large_files_and_a_spent_budget_give_may_have_changed() {
    let f = fix();
    let big = vec![b'x'; MAX_HASH_FILE_BYTES as usize + 1];
    fs::write(f.p("big.txt"), &big).unwrap();
    let names: Vec<String> = (0..CHECK_HASH_BUDGET_FILES + 6)
        .map(|i| format!("src/f{i:03}.rs"))
        .collect();
    for n in &names {
        fs::write(f.p(n), n.as_bytes()).unwrap();
    }
    f.note("big", "big.txt");
    f.note("many", &names.join("\n"));
    assert_eq!(
        f.anchored(&f.note_key("big")),
        [("big.txt".into(), Value::Null)]
    );
    set_mtime(&f.p("big.txt"), 60);
    assert!(
        f.read_note("big")
            .ends_with("stale: big.txt may have changed since 2026-05-30 (modified, not rehashed)")
    );
    for n in &names {
        set_mtime(&f.p(n), 60);
    }
    // One check hashes 64 files; the other 6 stay unverified for now.
    let files = f.mem.list_files().unwrap();
    let many = files.iter().find(|i| i.path == f.note_key("many")).unwrap();
    assert_eq!(many.stale.len(), 6);
    assert!(many.stale.iter().all(|s| s.change == Change::Unverified));
    assert_eq!(many.stale[0].path, "src/f064.rs");
    // The 64 were restamped, so the next check hashes only the 6.
    let files = f.mem.list_files().unwrap();
    let many = files.iter().find(|i| i.path == f.note_key("many")).unwrap();
    assert!(many.stale.is_empty(), "{:?}", many.stale);
    // A read shows five marks and counts the rest.
    fs::write(f.p("big.txt"), b"small now").unwrap();
    for n in &names[..7] {
        fs::remove_file(f.p(n)).unwrap();
    }
    let text = f.read_note("many");
    let marks: Vec<&str> = text.lines().filter(|l| l.starts_with("stale:")).collect();
    assert_eq!(marks.len(), MAX_MARK_LINES + 1);
    assert_eq!(marks[5], "stale: 2 more anchored files changed or gone");
    assert!(
        f.read_note("big")
            .ends_with("stale: big.txt changed since 2026-05-30")
    );
}

#[test]
fn marks_stay_inside_the_read_and_context_caps() {
    let store = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let mut options = Options::new("/src/app");
    options.clock = clock(NOW);
    options.project_root = Some(project.path().to_path_buf());
    options.limits.max_read_bytes = 512;
    options.limits.max_inject_bytes = 512;
    let mem = Memory::open(store.path(), options).unwrap();
    let long = format!("{}/file.rs", "d".repeat(200));
    fs::create_dir(project.path().join("d".repeat(200))).unwrap();
    fs::write(project.path().join(&long), "x").unwrap();
    let text = format!("{long}\n{}", "filler line\n".repeat(100));
    mem.write(WriteTarget::Note, &text, WriteMode::Overwrite, Some("n"))
        .unwrap();
    mem.write(WriteTarget::LongTerm, &text, WriteMode::Overwrite, None)
        .unwrap();
    fs::remove_file(project.path().join(&long)).unwrap();
    let read = mem.read(ReadSource::Note, Some("n")).unwrap().unwrap();
    assert!(read.len() <= 512, "{}", read.len());
    assert!(read.contains("…[truncated"));
    // No room for a 250-byte line in a quarter of 512: it is counted.
    assert!(
        read.ends_with("\n\nstale: 1 more anchored file changed or gone"),
        "{read}"
    );
    let block = mem.context_block().unwrap().unwrap();
    assert!(block.len() <= 512, "{}", block.len());
    assert_eq!(block.matches("</memory>").count(), 1);
    assert!(block.ends_with("</memory>"));
    assert!(
        block.contains("## Long-term memory (MEMORY.md)\nstale: "),
        "{block}"
    );
}

#[test]
fn the_project_is_never_written() {
    fn snapshot(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>, SystemTime)>) {
        let mut entries: Vec<_> = fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let meta = fs::symlink_metadata(e.path()).unwrap();
            let bytes = if meta.is_file() {
                fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            out.push((e.path(), bytes, meta.modified().unwrap()));
            if meta.is_dir() {
                snapshot(&e.path(), out);
            }
        }
    }
    let f = fix();
    // Read-only, as the component's preopen is (root ignores the mode, so
    // the snapshot is the proof that holds everywhere).
    #[cfg(unix)]
    let set_mode = |mode: u32| {
        use std::os::unix::fs::PermissionsExt;
        for p in [
            f.p("src/auth.rs"),
            f.p("src/db.rs"),
            f.p("README.md"),
            f.p("src"),
            f.p(""),
        ] {
            fs::set_permissions(&p, fs::Permissions::from_mode(mode)).unwrap();
        }
    };
    #[cfg(unix)]
    set_mode(0o555);
    let mut before = Vec::new();
    snapshot(f.project.path(), &mut before);
    let project_mtime = fs::metadata(f.project.path()).unwrap().modified().unwrap();
    f.note("n", "src/auth.rs src/db.rs README.md");
    f.mem
        .write(
            WriteTarget::LongTerm,
            "src/auth.rs",
            WriteMode::Overwrite,
            None,
        )
        .unwrap();
    f.read_note("n");
    f.mem.list_files().unwrap();
    f.mem.search("auth").unwrap();
    f.mem.context_block().unwrap();
    f.mem.refresh(WriteTarget::Note, Some("n")).unwrap();
    f.mem.rename_note("n", "m").unwrap();
    f.mem.delete_note("m").unwrap();
    let mut after = Vec::new();
    snapshot(f.project.path(), &mut after);
    assert_eq!(before, after);
    assert_eq!(
        fs::metadata(f.project.path()).unwrap().modified().unwrap(),
        project_mtime
    );
    #[cfg(unix)]
    set_mode(0o755);
}

#[test]
fn another_instance_sees_a_refresh_and_a_busy_store_only_skips_the_cache_update() {
    let f = fix();
    f.note("n", "src/auth.rs");
    fs::write(f.p("src/auth.rs"), "changed").unwrap();
    assert!(f.read_note("n").contains("stale:"), "parsed and cached");
    let other = open(f.store.path(), Some(f.project.path().to_path_buf()));
    other.refresh(WriteTarget::Note, Some("n")).unwrap();
    assert_eq!(
        f.read_note("n"),
        "src/auth.rs\n",
        "the new file is read, not the cache"
    );
    // Touched while another writer holds the lock: still fresh, the new
    // mtime just is not stored yet.
    set_mtime(&f.p("src/auth.rs"), 600);
    let key = f.note_key("n");
    let stored = f.side()["files"][&key]["anchors"][0]["mtime_ns"].clone();
    let held = fsio::lock(f.store.path(), fsio::LockPolicy::default()).unwrap();
    assert_eq!(f.read_note("n"), "src/auth.rs\n");
    assert_eq!(f.side()["files"][&key]["anchors"][0]["mtime_ns"], stored);
    drop(held);
    assert_eq!(f.read_note("n"), "src/auth.rs\n");
    assert_ne!(f.side()["files"][&key]["anchors"][0]["mtime_ns"], stored);
}

#[test]
fn the_stale_notes_section_counts_what_it_does_not_show() {
    let f = fix();
    for i in 0..12 {
        f.note(&format!("n{i:02}"), "src/auth.rs");
    }
    fs::remove_file(f.p("src/auth.rs")).unwrap();
    let block = f.mem.context_block().unwrap().unwrap();
    let section = block.split("## Stale notes\n").nth(1).unwrap();
    let lines: Vec<&str> = section.lines().take_while(|l| *l != "</memory>").collect();
    assert_eq!(lines.len(), MAX_STALE_NOTE_LINES + 1, "{block}");
    assert_eq!(
        lines[0],
        "stale: src/auth.rs deleted or moved since 2026-05-30 (note n00)"
    );
    assert_eq!(
        lines[10],
        "stale: 2 more anchored files of notes changed or gone"
    );
}

#[test]
fn the_memory_tool_and_restore_anchor_what_they_write() {
    let f = fix();
    let paths = |f: &Fix, name: &str| -> Vec<String> {
        f.anchored(&f.note_key(name))
            .into_iter()
            .map(|a| a.0)
            .collect()
    };
    anthropic::call(
        &f.mem,
        r#"{"command":"create","path":"/memories/t.md","file_text":"see src/auth.rs\n"}"#,
    )
    .unwrap();
    assert_eq!(paths(&f, "t"), ["src/auth.rs"]);
    anthropic::call(
        &f.mem,
        r#"{"command":"str_replace","path":"/memories/t.md","old_str":"src/auth.rs","new_str":"src/db.rs"}"#,
    )
    .unwrap();
    assert_eq!(paths(&f, "t"), ["src/db.rs"]);
    anthropic::call(
        &f.mem,
        r#"{"command":"insert","path":"/memories/t.md","insert_line":0,"insert_text":"README.md"}"#,
    )
    .unwrap();
    assert_eq!(paths(&f, "t"), ["README.md", "src/db.rs"]);
    // Restoring the first version anchors its text again, dated today.
    let versions = f.mem.history(ReadSource::Note, Some("t"), None).unwrap();
    let first = versions
        .iter()
        .rfind(|v| v.bytes.is_some())
        .expect("the created version is kept");
    f.mem.restore(&first.id).unwrap();
    assert_eq!(f.read_note("t"), "see src/auth.rs\n");
    assert_eq!(paths(&f, "t"), ["src/auth.rs"]);
    // Restoring the version before the file existed deletes it: the
    // anchors go with it.
    let before = versions
        .iter()
        .find(|v| v.bytes.is_none())
        .expect("the create is recorded as a version with no content");
    f.mem.restore(&before.id).unwrap();
    assert!(f.side()["files"].as_object().unwrap().is_empty());
}

/// The fixture's project with a team directory in it, `.agent-memory/`,
/// and a memory that has both.
fn with_team(f: &Fix) -> Memory {
    let team = f.p(".agent-memory");
    fs::create_dir_all(&team).unwrap();
    open(f.store.path(), Some(f.project.path().to_path_buf())).with_team(team)
}

#[test]
fn team_files_are_anchored_marked_and_refreshed_in_the_team_store() {
    let f = fix();
    let mem = with_team(&f);
    let team = mem.scoped(crate::Scope::Team).unwrap();
    team.write(
        WriteTarget::Note,
        "deploy: src/auth.rs\n",
        WriteMode::Overwrite,
        Some("deploy"),
    )
    .unwrap();
    team.write(
        WriteTarget::LongTerm,
        "- login lives in src/auth.rs\n",
        WriteMode::Overwrite,
        None,
    )
    .unwrap();
    // The team's anchors are in its own (git-ignored) side folder.
    let side = f
        .p(".agent-memory")
        .join(ANCHORS_DIR)
        .join("app-c0167fc9.json");
    let json: Value = serde_json::from_slice(&fs::read(&side).unwrap()).unwrap();
    let keys: Vec<&String> = json["files"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["team:MEMORY.md", "team:notes/deploy.md"]);
    assert_eq!(f.side(), Value::Null, "nothing in the personal side file");

    fs::write(f.p("src/auth.rs"), "pub fn login(user: &str) {}\n").unwrap();
    let mark = "stale: src/auth.rs changed since 2026-05-30";
    assert_eq!(
        team.read(ReadSource::Note, Some("deploy"))
            .unwrap()
            .unwrap(),
        format!("deploy: src/auth.rs\n\n{mark}")
    );
    assert_eq!(
        tools::call(&mem, "memory_read", r#"{"source":"list","scope":"team"}"#).unwrap(),
        format!("team:MEMORY.md\n  {mark}\nteam:notes/deploy.md\n  {mark}")
    );
    // A search of both stores marks the team hit from the team's anchors.
    let hits = mem.search("deploy").unwrap();
    assert_eq!(hits.hits.len(), 1);
    assert_eq!(hits.hits[0].body, format!("{mark}\ndeploy: src/auth.rs"));
    assert_eq!(
        mem.context_block().unwrap().unwrap(),
        format!(
            "{}\n\n## Team memory (.agent-memory/MEMORY.md)\n{mark}\n- login lives in src/auth.rs\n\n\
             ## Stale notes\n{mark} (team note deploy)\n</memory>",
            crate::context::OPEN_TAG
        )
    );

    // memory_refresh with scope team re-anchors the team file.
    assert_eq!(
        tools::call(
            &mem,
            "memory_refresh",
            r#"{"name":"deploy","scope":"team"}"#
        )
        .unwrap(),
        "Refreshed team:notes/deploy.md: anchored 1 project file as of 2026-05-30 (src/auth.rs)\n\
         Budget: team MEMORY.md 1/200 lines, 29/25000 bytes; team section of the context block 197/32768 bytes (notes are not in it; memory_search finds them)"
    );
    // The team index's own mark is in its section until it is refreshed:
    // then the section is that line shorter.
    assert_eq!(
        tools::call(
            &mem,
            "memory_refresh",
            r#"{"target":"long_term","scope":"team"}"#
        )
        .unwrap(),
        format!(
            "Refreshed team:MEMORY.md: anchored 1 project file as of 2026-05-30 (src/auth.rs)\n\
             Budget: team MEMORY.md 1/200 lines, 29/25000 bytes; team section of the context block {}/32768 bytes",
            197 - mark.len() - 1
        )
    );
    assert_eq!(
        team.read(ReadSource::Note, Some("deploy"))
            .unwrap()
            .unwrap(),
        "deploy: src/auth.rs\n"
    );
    assert!(!mem.context_block().unwrap().unwrap().contains("stale:"));
    // The personal store has no such note; a memory without a team
    // directory refuses the scope.
    let err = tools::call(&mem, "memory_refresh", r#"{"name":"deploy"}"#).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    let err = tools::call(
        &f.mem,
        "memory_refresh",
        r#"{"name":"deploy","scope":"team"}"#,
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoTeamDir);
}

#[test]
fn imports_and_applied_snapshots_anchor_what_they_write() {
    let f = fix();
    let r = f
        .mem
        .import_file(WriteTarget::Note, Some("imp"), "see src/db.rs\n", true)
        .unwrap();
    assert_eq!(r.bytes_written, 14);
    assert_eq!(f.side(), Value::Null, "a dry run anchors nothing");
    f.mem
        .import_file(WriteTarget::Note, Some("imp"), "see src/db.rs\n", false)
        .unwrap();
    let paths = |f: &Fix, mem: &Memory, name: &str| -> Vec<String> {
        let side: Value = match fs::read(
            f.store
                .path()
                .join(ANCHORS_DIR)
                .join(format!("{}.json", mem.slug())),
        ) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap(),
            Err(_) => Value::Null,
        };
        let key = format!("{}/{name}.md", mem.notes_dir());
        side["files"][&key]["anchors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|a| a["path"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(paths(&f, &f.mem, "imp"), ["src/db.rs"]);
    // A snapshot taken from this project, applied to another one of the
    // same repository: its notes are anchored there as written.
    let mem = with_team(&f);
    mem.take_snapshot().unwrap();
    let mut options = Options::new("/src/other");
    options.clock = clock(NOW + DAY);
    options.project_root = Some(f.project.path().to_path_buf());
    let other = Memory::open(f.store.path(), options)
        .unwrap()
        .with_team(f.p(".agent-memory"));
    other.apply_snapshot().unwrap();
    assert_eq!(paths(&f, &other, "imp"), ["src/db.rs"]);
    fs::write(f.p("src/db.rs"), "pub struct Database;\n").unwrap();
    assert_eq!(
        other.read(ReadSource::Note, Some("imp")).unwrap().unwrap(),
        "see src/db.rs\n\nstale: src/db.rs changed since 2026-05-31"
    );
}

/// Stale marks take room in the block, so the budget of a write must see
/// them: whatever the cap, a write reported as reaching the block is in
/// it, and one reported cut is not, with marks under MEMORY.md's heading
/// and a stale-notes section in the way.
#[test]
fn the_budget_of_a_write_sees_the_marks_the_block_shows() {
    use crate::budget::Reach;
    let mut reaches = std::collections::BTreeSet::new();
    let mut marked = 0;
    for cap in (512..4096).step_by(131) {
        let store = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        fs::write(project.path().join("main.rs"), "fn main() {}\n").unwrap();
        let mut options = Options::new("/src/app");
        options.clock = clock(NOW);
        options.project_root = Some(project.path().to_path_buf());
        options.limits.max_inject_bytes = cap;
        let mem = Memory::open(store.path(), options).unwrap();
        for i in 0..3 {
            mem.write(
                WriteTarget::Note,
                "main.rs",
                WriteMode::Overwrite,
                Some(&format!("n{i}")),
            )
            .unwrap();
        }
        mem.write(
            WriteTarget::LongTerm,
            "- entry point main.rs <memory>\n",
            WriteMode::Append,
            None,
        )
        .unwrap();
        for i in 0..12 {
            // A new content each time: MEMORY.md (re-anchored by its own
            // writes) and the notes are stale again.
            fs::write(
                project.path().join("main.rs"),
                format!("fn main() {{ {} }}\n", "x".repeat(i)),
            )
            .unwrap();
            let target = [
                WriteTarget::LongTerm,
                WriteTarget::Scratchpad,
                WriteTarget::Daily,
            ][i % 3];
            let line = match target {
                WriteTarget::Scratchpad => format!("- [ ] item {i} {}", "s".repeat(i * 9)),
                _ => format!("line {i} {}", "d".repeat(i * 13 + 1)),
            };
            let r = mem
                .write(target, &format!("{line}\n"), WriteMode::Append, None)
                .unwrap();
            reaches.insert(format!("{:?}", r.budget.reach));
            let block = mem.context_block().unwrap().unwrap();
            marked += usize::from(block.contains("\nstale: main.rs changed"));
            assert_eq!(r.budget.block_bytes as usize, block.len(), "cap {cap}");
            let seen = block.contains(&format!("{line}\n"))
                || block.contains(&format!("{line}</"))
                || block.ends_with(&format!("{line}\n</memory>"));
            assert_eq!(
                r.budget.reach == Reach::Whole,
                seen,
                "cap {cap}, write {i}: {:?}\n{block}",
                r.budget.reach
            );
        }
    }
    assert_eq!(
        reaches.into_iter().collect::<Vec<_>>(),
        ["Cut", "Partly", "Whole"]
    );
    assert!(marked > 100, "marks were in most blocks: {marked}");
}
