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
             Budget: MEMORY.md 1/200 lines, 9/25000 bytes; context block {}/32768 bytes",
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

both! {
    a_changed_file_is_marked_everywhere,
    a_deleted_or_renamed_file_is_marked,
    touched_but_unchanged_is_not_stale,
    paths_outside_the_project_are_never_followed,
    refresh_re_anchors_without_rewriting,
    without_a_project_dir_nothing_is_marked,
}
