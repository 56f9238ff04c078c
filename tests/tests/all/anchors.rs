//! Staleness anchors (SPEC.md "Trust: secrets and staleness"), the same
//! cases against the native core and through the component, where the
//! project directory is a read-only preopen of its own: changed, deleted,
//! touched-but-unchanged, renamed and outside-the-project files, marked in
//! read, list, search hits and the context block, and `memory_refresh`.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use agent_memory_tests::{
    Backend, Fixture, PROJECT, ReadSource, WriteMode, WriteTarget, default_now, project_dir,
};

const AUTH: &str = "pub fn login() {}\n";
const CHANGED: &str = "stale: src/auth.rs changed since 2026-05-30";

/// A store and, beside it, a project with `src/auth.rs`, `src/db.rs` and
/// `README.md`, and an outside directory the project must never reach.
struct Anchored {
    fx: Fixture,
    files: tempfile::TempDir,
}

impl Anchored {
    fn new() -> Anchored {
        let files = tempfile::tempdir().unwrap();
        let project = files.path().join("project");
        fs::create_dir_all(project.join("src")).unwrap();
        fs::write(project.join("src/auth.rs"), AUTH).unwrap();
        fs::write(project.join("src/db.rs"), "pub struct Db;\n").unwrap();
        fs::write(project.join("README.md"), "# app\n").unwrap();
        fs::create_dir_all(files.path().join("outside")).unwrap();
        fs::write(files.path().join("outside/secret.rs"), "// outside\n").unwrap();
        Anchored {
            fx: Fixture::new(),
            files,
        }
    }

    fn project(&self) -> PathBuf {
        self.files.path().join("project")
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.project().join(rel)
    }

    fn outside(&self) -> PathBuf {
        self.files.path().join("outside")
    }

    fn open<B: Backend>(&self) -> B {
        B::open_anchored(
            self.fx.root(),
            PROJECT,
            default_now(),
            agent_memory_tests::CapsOverride::default(),
            &self.project(),
        )
        .expect("open")
    }
}

fn note<B: Backend>(m: &mut B, name: &str, text: &str) {
    m.write(WriteTarget::Note, text, WriteMode::Overwrite, Some(name))
        .unwrap();
}

fn read_note<B: Backend>(m: &mut B, name: &str) -> String {
    m.read(ReadSource::Note, Some(name)).unwrap().unwrap()
}

fn note_path(name: &str) -> String {
    format!("{}/notes/{name}.md", project_dir())
}

/// The marks `list-files` reports for `path`.
fn listed<B: Backend>(m: &mut B, path: &str) -> Vec<String> {
    m.list_stale()
        .unwrap()
        .into_iter()
        .find(|(p, _)| p == path)
        .map(|(_, marks)| marks)
        .unwrap_or_else(|| panic!("{path} is listed"))
}

/// Another mtime for `path`, its bytes untouched.
fn touch(path: &Path, secs_ago: u64) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(secs_ago))
        .unwrap();
}

pub fn a_changed_file_is_marked_everywhere<B: Backend>() {
    let a = Anchored::new();
    let mut m = a.open::<B>();
    note(&mut m, "auth", "- login lives in `src/auth.rs:1`\n");
    m.write(
        WriteTarget::LongTerm,
        "- auth: see src/auth.rs\n",
        WriteMode::Overwrite,
        None,
    )
    .unwrap();
    // Nothing changed yet: no mark anywhere.
    assert_eq!(
        read_note(&mut m, "auth"),
        "- login lives in `src/auth.rs:1`\n"
    );
    assert!(listed(&mut m, &note_path("auth")).is_empty());
    assert!(!m.context().unwrap().unwrap().contains("stale:"));

    fs::write(a.p("src/auth.rs"), "pub fn login(user: &str) {}\n").unwrap();
    assert_eq!(
        read_note(&mut m, "auth"),
        format!("- login lives in `src/auth.rs:1`\n\n{CHANGED}")
    );
    assert_eq!(
        m.read(ReadSource::LongTerm, None).unwrap().unwrap(),
        format!("- auth: see src/auth.rs\n\n{CHANGED}")
    );
    assert_eq!(listed(&mut m, &note_path("auth")), [CHANGED]);
    assert_eq!(listed(&mut m, "MEMORY.md"), [CHANGED]);
    let hits = m.search("login").unwrap();
    assert_eq!(hits.hits.len(), 1);
    assert_eq!(
        hits.hits[0].body,
        format!("{CHANGED}\n- login lives in `src/auth.rs:1`")
    );
    let block = m.context().unwrap().unwrap();
    assert!(
        block.contains(&format!(
            "## Long-term memory (MEMORY.md)\n{CHANGED}\n- auth: see src/auth.rs\n"
        )),
        "{block}"
    );
    assert!(
        block.contains(&format!("## Stale notes\n{CHANGED} (note auth)\n")),
        "{block}"
    );
    // The model's listing carries the marks too, indented under the path.
    let list = m.call("memory_read", r#"{"source":"list"}"#).unwrap();
    assert!(
        list.contains(&format!("{}\n  {CHANGED}", note_path("auth"))),
        "{list}"
    );
}

pub fn a_deleted_or_renamed_file_is_marked<B: Backend>() {
    let a = Anchored::new();
    let mut m = a.open::<B>();
    note(&mut m, "db", "src/db.rs and README.md\n");
    fs::rename(a.p("src/db.rs"), a.p("src/database.rs")).unwrap();
    fs::remove_file(a.p("README.md")).unwrap();
    assert_eq!(
        listed(&mut m, &note_path("db")),
        [
            "stale: src/db.rs deleted or moved since 2026-05-30",
            "stale: README.md deleted or moved since 2026-05-30",
        ]
    );
    // A directory where the file was is no file: still gone.
    fs::create_dir(a.p("README.md")).unwrap();
    assert!(
        read_note(&mut m, "db").ends_with("stale: README.md deleted or moved since 2026-05-30")
    );
    // Renaming the note keeps its anchors; deleting it drops them.
    m.call("memory_rename", r#"{"name":"db","new_name":"ops/db"}"#)
        .unwrap();
    assert_eq!(listed(&mut m, &note_path("ops/db")).len(), 2);
    // A write that names the new path re-anchors: no marks left.
    note(&mut m, "ops/db", "src/database.rs\n");
    assert!(listed(&mut m, &note_path("ops/db")).is_empty());
}

pub fn touched_but_unchanged_is_not_stale<B: Backend>() {
    let a = Anchored::new();
    let mut m = a.open::<B>();
    note(&mut m, "auth", "src/auth.rs\n");
    touch(&a.p("src/auth.rs"), 3600);
    assert_eq!(read_note(&mut m, "auth"), "src/auth.rs\n");
    // Rewritten with the same bytes, as a formatter or checkout does.
    fs::write(a.p("src/auth.rs"), AUTH).unwrap();
    assert_eq!(read_note(&mut m, "auth"), "src/auth.rs\n");
    assert!(listed(&mut m, &note_path("auth")).is_empty());
    assert!(!m.context().unwrap().unwrap_or_default().contains("stale:"));
    // Same size, other bytes: found by hashing.
    fs::write(a.p("src/auth.rs"), AUTH.replace("login", "logon")).unwrap();
    assert_eq!(listed(&mut m, &note_path("auth")), [CHANGED]);
}

pub fn paths_outside_the_project_are_never_followed<B: Backend>() {
    let a = Anchored::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(a.outside().join("secret.rs"), a.p("src/link.rs")).unwrap();
        symlink(a.outside(), a.p("linked")).unwrap();
    }
    let mut m = a.open::<B>();
    let outside = a.outside().join("secret.rs");
    let text = format!(
        "../outside/secret.rs\nsrc/../../outside/secret.rs\n{}\nsrc/link.rs\nlinked/secret.rs\nfile://{}\n",
        outside.display(),
        outside.display()
    );
    note(&mut m, "out", &text);
    let reply = m
        .call("memory_refresh", r#"{"name":"out"}"#)
        .expect("refresh");
    assert_eq!(
        reply,
        format!(
            "Refreshed {}: it names no project file that exists, so nothing is anchored\n\
             Budget: MEMORY.md 0/200 lines, 0/25000 bytes; context block 0/32768 bytes (notes are not in it; memory_search finds them)",
            note_path("out")
        )
    );
    fs::write(&outside, "// changed outside\n").unwrap();
    assert_eq!(read_note(&mut m, "out"), text);
    assert!(listed(&mut m, &note_path("out")).is_empty());
    // Nothing about the outside was recorded on the side either.
    let side = a.fx.root().join(".store/anchors");
    if side.exists() {
        for entry in fs::read_dir(&side).unwrap().flatten() {
            let json = fs::read_to_string(entry.path()).unwrap();
            assert!(!json.contains("secret.rs"), "{json}");
        }
    }
}

pub fn refresh_re_anchors_without_rewriting<B: Backend>() {
    let a = Anchored::new();
    let mut m = a.open::<B>();
    note(&mut m, "auth", "src/auth.rs and src/db.rs\n");
    let written = fs::read(a.fx.root().join(note_path("auth"))).unwrap();
    fs::write(a.p("src/auth.rs"), "changed\n").unwrap();
    assert_eq!(listed(&mut m, &note_path("auth")), [CHANGED]);
    let reply = m.call("memory_refresh", r#"{"name":"auth"}"#).unwrap();
    assert_eq!(
        reply,
        format!(
            "Refreshed {}: anchored 2 project files as of 2026-05-30 (src/auth.rs, src/db.rs)\n\
             Budget: MEMORY.md 0/200 lines, 0/25000 bytes; context block 0/32768 bytes (notes are not in it; memory_search finds them)",
            note_path("auth")
        )
    );
    assert!(listed(&mut m, &note_path("auth")).is_empty());
    assert_eq!(
        fs::read(a.fx.root().join(note_path("auth"))).unwrap(),
        written
    );
    // MEMORY.md by target; other targets and missing notes are errors.
    m.write(
        WriteTarget::LongTerm,
        "README.md",
        WriteMode::Overwrite,
        None,
    )
    .unwrap();
    let block = m.context().unwrap().unwrap();
    assert_eq!(
        m.call("memory_refresh", r#"{"target":"long_term"}"#)
            .unwrap(),
        format!(
            "Refreshed MEMORY.md: anchored 1 project file as of 2026-05-30 (README.md)\n\
             Budget: MEMORY.md 1/200 lines, 10/25000 bytes; context block {}/32768 bytes",
            block.len()
        )
    );
    let err = m
        .call("memory_refresh", r#"{"target":"daily"}"#)
        .unwrap_err();
    assert_eq!(err.kind, "InvalidTarget", "{}", err.message);
    let err = m.call("memory_refresh", r#"{"name":"nope"}"#).unwrap_err();
    assert_eq!(err.kind, "NotFound", "{}", err.message);
    let err = m.call("memory_refresh", r#"{}"#).unwrap_err();
    assert_eq!(err.kind, "MissingName", "{}", err.message);
    let err = m.call("memory_refresh", r#"{"name":"../x"}"#).unwrap_err();
    assert_eq!(err.kind, "InvalidName", "{}", err.message);
}

pub fn without_a_project_dir_nothing_is_marked<B: Backend>() {
    let a = Anchored::new();
    {
        let mut m = a.open::<B>();
        note(&mut m, "auth", "src/auth.rs\n");
    }
    fs::write(a.p("src/auth.rs"), "changed\n").unwrap();
    let mut m = a.fx.open::<B>();
    assert_eq!(read_note(&mut m, "auth"), "src/auth.rs\n");
    assert!(listed(&mut m, &note_path("auth")).is_empty());
    assert_eq!(
        m.call("memory_refresh", r#"{"name":"auth"}"#).unwrap(),
        format!(
            "Nothing anchored for {}: the host gave no project directory, so anchors are off\n\
             Budget: MEMORY.md 0/200 lines, 0/25000 bytes; context block 0/32768 bytes (notes are not in it; memory_search finds them)",
            note_path("auth")
        )
    );
}

/// Files that stop being plain files where they are: a FIFO (never opened:
/// that would block), a symbolic link to a file with the very same bytes,
/// and a folder reached through a symbolic link. Each is gone, and a note
/// naming them anchors nothing.
pub fn links_and_special_files_in_the_way_are_gone<B: Backend>() {
    let a = Anchored::new();
    fs::create_dir_all(a.p("lib")).unwrap();
    fs::write(a.p("lib/util.rs"), "pub fn util() {}\n").unwrap();
    let mut m = a.open::<B>();
    note(&mut m, "all", "src/auth.rs, src/db.rs and lib/util.rs\n");
    assert!(listed(&mut m, &note_path("all")).is_empty());
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        fs::remove_file(a.p("src/auth.rs")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(a.p("src/auth.rs"))
            .status()
            .unwrap();
        assert!(made.success());
        let same = a.outside().join("db.rs");
        fs::write(&same, "pub struct Db;\n").unwrap();
        fs::remove_file(a.p("src/db.rs")).unwrap();
        symlink(&same, a.p("src/db.rs")).unwrap();
        // The folder itself becomes a link to a copy of it.
        fs::rename(a.p("lib"), a.p("real_lib")).unwrap();
        symlink(a.p("real_lib"), a.p("lib")).unwrap();
        assert_eq!(
            listed(&mut m, &note_path("all")),
            [
                "stale: src/auth.rs deleted or moved since 2026-05-30",
                "stale: src/db.rs deleted or moved since 2026-05-30",
                "stale: lib/util.rs deleted or moved since 2026-05-30",
            ]
        );
        let reply = m.call("memory_refresh", r#"{"name":"all"}"#).unwrap();
        assert!(
            reply.contains("it names no project file that exists, so nothing is anchored"),
            "{reply}"
        );
        // The real folder is still reached by its own name.
        note(&mut m, "real", "real_lib/util.rs\n");
        assert!(listed(&mut m, &note_path("real")).is_empty());
        fs::write(a.p("real_lib/util.rs"), "pub fn util(x: u8) {}\n").unwrap();
        assert_eq!(
            listed(&mut m, &note_path("real")),
            ["stale: real_lib/util.rs changed since 2026-05-30"]
        );
    }
}

both! {
    a_changed_file_is_marked_everywhere,
    a_deleted_or_renamed_file_is_marked,
    touched_but_unchanged_is_not_stale,
    paths_outside_the_project_are_never_followed,
    refresh_re_anchors_without_rewriting,
    without_a_project_dir_nothing_is_marked,
    links_and_special_files_in_the_way_are_gone,
}

/// The modification time of `path` in nanoseconds, as the OS has it.
#[cfg(unix)]
fn os_stamp(path: &Path) -> (u64, i64) {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(path).unwrap();
    (meta.len(), meta.mtime() * 1_000_000_000 + meta.mtime_nsec())
}

/// The anchors the side file holds for the note `name`: path, size, mtime.
fn side_anchors(a: &Anchored, name: &str) -> Vec<(String, u64, i64)> {
    let dir = a.fx.root().join(".store/anchors");
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let json: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(entry.path()).unwrap()).unwrap();
        if let Some(file) = json["files"].get(note_path(name)) {
            for anchor in file["anchors"].as_array().unwrap() {
                out.push((
                    anchor["path"].as_str().unwrap().to_string(),
                    anchor["size"].as_u64().unwrap(),
                    anchor["mtime_ns"].as_i64().unwrap(),
                ));
            }
        }
    }
    out
}

/// Other bytes of the same size in `path`, its modification time put back
/// to the nanosecond: only a check that trusts the stamp misses it.
fn swap_keeping_the_stamp(path: &Path, bytes: &str) {
    let was = fs::metadata(path).unwrap().modified().unwrap();
    assert_eq!(fs::metadata(path).unwrap().len(), bytes.len() as u64);
    fs::write(path, bytes).unwrap();
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(was)
        .unwrap();
}

/// Stamps (size and mtime to the nanosecond) taken natively and inside the
/// component are the same numbers, the OS's own: anchors written by one are
/// trusted by the other without rehashing, so neither sees a same-size
/// change whose mtime was put back, until the mtime differs by 1 ns.
#[cfg(unix)]
#[test]
fn native_and_component_stamps_agree() {
    use agent_memory_tests::{Component, Native};
    let a = Anchored::new();
    let at = |secs, nanos| SystemTime::UNIX_EPOCH + Duration::new(secs, nanos);
    for (rel, t) in [
        ("src/auth.rs", at(1_700_000_000, 123_456_789)),
        ("README.md", at(1_700_000_001, 987_654_321)),
    ] {
        fs::File::options()
            .write(true)
            .open(a.p(rel))
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    let expect = |rel: &str| {
        let (len, mtime) = os_stamp(&a.p(rel));
        (rel.to_string(), len, mtime)
    };

    // Written natively, checked in the component.
    note(
        &mut a.open::<Native>(),
        "auth",
        "src/auth.rs
",
    );
    assert_eq!(side_anchors(&a, "auth"), [expect("src/auth.rs")]);
    swap_keeping_the_stamp(&a.p("src/auth.rs"), &AUTH.replace("login", "logon"));
    let mut c = a.open::<Component>();
    assert!(listed(&mut c, &note_path("auth")).is_empty());
    // One nanosecond later the component rehashes and sees the change.
    let (_, ns) = os_stamp(&a.p("src/auth.rs"));
    let later = at(0, 0) + Duration::from_nanos(u64::try_from(ns + 1).unwrap());
    fs::File::options()
        .write(true)
        .open(a.p("src/auth.rs"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert_eq!(listed(&mut c, &note_path("auth")), [CHANGED]);

    // Written in the component, checked natively.
    note(
        &mut c,
        "readme",
        "README.md
",
    );
    drop(c);
    assert_eq!(side_anchors(&a, "readme"), [expect("README.md")]);
    swap_keeping_the_stamp(
        &a.p("README.md"),
        "# ppa
",
    );
    let mut n = a.open::<Native>();
    assert!(listed(&mut n, &note_path("readme")).is_empty());
    let (_, ns) = os_stamp(&a.p("README.md"));
    let later = at(0, 0) + Duration::from_nanos(u64::try_from(ns + 1).unwrap());
    fs::File::options()
        .write(true)
        .open(a.p("README.md"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert_eq!(
        listed(&mut n, &note_path("readme")),
        ["stale: README.md changed since 2026-05-30"]
    );
}
