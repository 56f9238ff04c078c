//! `scan` reads names and history; `purge_secrets` redacts secrets in
//! saved versions in place (ids kept), so a secret that was edited out of a
//! file leaves the disk for good.

use std::path::Path;

use agent_memory_core::secrets::SecretPolicy;
use agent_memory_core::{Clock, Memory, Options, ReadSource, StoredSecret, WriteMode, WriteTarget};

/// A fake GitHub token of the documented shape.
const TOKEN: &str = "ghp_Q3vN8xT2mL5pR9wK4yH7jD1sF6gB0cZ8aE3u";

fn open(root: &Path, secrets: SecretPolicy) -> Memory {
    let mut options = Options::new("/src/app");
    options.clock = Clock {
        utc_offset_minutes: 0,
        fixed_unix_seconds: Some(1_780_125_300),
    };
    options.secrets = secrets;
    Memory::open(root, options).unwrap()
}

/// Every file under `dir` (hidden ones included) whose bytes hold `needle`.
fn files_holding(dir: &Path, needle: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_holding(&path, needle));
        } else {
            let bytes = std::fs::read(&path).unwrap();
            if bytes.windows(needle.len()).any(|w| w == needle) {
                out.push(path.display().to_string());
            }
        }
    }
    out
}

fn note_history_ids(m: &Memory, name: &str) -> Vec<String> {
    m.history(ReadSource::Note, Some(name), None)
        .unwrap()
        .into_iter()
        .map(|v| v.id)
        .collect()
}

fn history_findings(found: &[StoredSecret]) -> Vec<(String, Option<String>, u32, String)> {
    found
        .iter()
        .filter(|s| s.version.is_some())
        .map(|s| (s.path.clone(), s.version.clone(), s.line, s.rule_id.clone()))
        .collect()
}

#[test]
fn a_secret_edited_out_is_found_in_history_and_purged_from_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let m = open(dir.path(), SecretPolicy::Off);
    let write = |text: &str| {
        m.write(
            WriteTarget::Note,
            text,
            WriteMode::Overwrite,
            Some("deploy"),
        )
        .unwrap()
    };
    write("deploy notes\n");
    write(&format!("deploy notes\ntoken {TOKEN}\n"));
    write("deploy notes\ntoken in the vault\n");
    let path = "projects/app-c0167fc9/notes/deploy.md";
    let ids = note_history_ids(&m, "deploy");
    // Newest first: v3 saved the content with the token.
    assert_eq!(ids, ["v3", "v2", "v1"]);
    let found = m.scan_secrets().unwrap();
    assert_eq!(
        history_findings(&found),
        [(
            path.to_string(),
            Some("v3".to_string()),
            2,
            "github-pat".to_string()
        )]
    );
    assert!(!found[0].masked.contains(TOKEN));
    assert!(!files_holding(dir.path(), TOKEN.as_bytes()).is_empty());

    let purged = m.purge_secrets().unwrap();
    assert_eq!((purged.versions, purged.secrets), (1, 1));
    assert_eq!(
        files_holding(dir.path(), TOKEN.as_bytes()),
        Vec::<String>::new()
    );
    assert_eq!(note_history_ids(&m, "deploy"), ids);
    let journal = std::fs::read_to_string(dir.path().join(".store/history/journal")).unwrap();
    assert!(journal.contains(r#""purged":true"#), "{journal}");
    assert_eq!(
        m.version_text("v3").unwrap().as_deref(),
        Some("deploy notes\ntoken [REDACTED:github-pat]\n")
    );
    m.restore("v3").unwrap();
    assert_eq!(
        m.read(ReadSource::Note, Some("deploy")).unwrap().as_deref(),
        Some("deploy notes\ntoken [REDACTED:github-pat]\n")
    );
    assert_eq!(m.scan_secrets().unwrap(), []);
    // A second purge finds nothing to do.
    assert_eq!(m.purge_secrets().unwrap().versions, 0);
}

#[test]
fn appends_reading_from_a_purged_version_stay_restorable_without_the_secret() {
    let dir = tempfile::tempdir().unwrap();
    let m = open(dir.path(), SecretPolicy::Off);
    let note = |text: &str, mode| {
        m.write(WriteTarget::Note, text, mode, Some("log")).unwrap();
    };
    note("a\n", WriteMode::Overwrite);
    // Appends' entries save no content of their own: the token reaches
    // history only through the overwrite's object, which they read from.
    note(&format!("token {TOKEN}\n"), WriteMode::Append);
    note("more\n", WriteMode::Append);
    note("more still\n", WriteMode::Append);
    note("clean\n", WriteMode::Overwrite);
    let before = note_history_ids(&m, "log");
    let texts: Vec<Option<String>> = before
        .iter()
        .map(|id| m.version_text(id).unwrap())
        .collect();
    assert!(
        texts.iter().flatten().any(|t| t.contains(TOKEN)),
        "{texts:?}"
    );

    let purged = m.purge_secrets().unwrap();
    assert!(purged.appends_saved >= 1, "{purged:?}");
    assert_eq!(note_history_ids(&m, "log"), before);
    assert_eq!(
        files_holding(dir.path(), TOKEN.as_bytes()),
        Vec::<String>::new()
    );
    for (id, old) in before.iter().zip(&texts) {
        let now = m.version_text(id).unwrap();
        match old {
            None => assert_eq!(now, None, "{id}"),
            Some(old) if !old.contains(TOKEN) => assert_eq!(now.as_ref(), Some(old), "{id}"),
            Some(_) => {
                let now = now.unwrap();
                assert!(now.contains("[REDACTED:github-pat]"), "{id}: {now}");
                assert!(!now.contains(TOKEN), "{id}: {now}");
            }
        }
    }
}

#[test]
fn a_secret_in_a_note_name_is_found_with_line_0() {
    let dir = tempfile::tempdir().unwrap();
    let m = open(dir.path(), SecretPolicy::Off);
    m.write(
        WriteTarget::Note,
        "nothing secret here\n",
        WriteMode::Overwrite,
        Some(&format!("keys/{TOKEN}")),
    )
    .unwrap();
    let found = m.scan_secrets().unwrap();
    let got: Vec<(String, u32, String, Option<String>)> = found
        .iter()
        .map(|s| (s.path.clone(), s.line, s.rule_id.clone(), s.version.clone()))
        .collect();
    assert_eq!(
        got,
        [(
            "projects/app-c0167fc9/notes/keys/ghp_….md".to_string(),
            0,
            "github-pat".to_string(),
            None
        )]
    );
    assert_eq!(found[0].masked, "ghp_…");
}

#[test]
fn a_secret_in_a_folder_name_is_reported_once_for_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let m = open(dir.path(), SecretPolicy::Off);
    for leaf in ["a", "b"] {
        m.write(
            WriteTarget::Note,
            "x\n",
            WriteMode::Overwrite,
            Some(&format!("{TOKEN}/{leaf}")),
        )
        .unwrap();
    }
    let found: Vec<(String, u32)> = m
        .scan_secrets()
        .unwrap()
        .into_iter()
        .map(|s| (s.path, s.line))
        .collect();
    // The path is masked too: the report never holds the value.
    assert_eq!(
        found,
        [("projects/app-c0167fc9/notes/ghp_…".to_string(), 0)]
    );
}

#[test]
fn the_team_stores_history_is_scanned_and_purged_too() {
    let dirs = tempfile::tempdir().unwrap();
    let root = dirs.path().join("root");
    let team = dirs.path().join("repo/.agent-memory");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&team).unwrap();
    let m = open(&root, SecretPolicy::Off).with_team(&team);
    // The team store always refuses secrets: this one came in by hand
    // (a teammate's commit), then was edited out through the store.
    std::fs::create_dir_all(team.join("notes")).unwrap();
    std::fs::write(team.join("notes/ci.md"), format!("ci token {TOKEN}\n")).unwrap();
    m.team()
        .unwrap()
        .write(
            WriteTarget::Note,
            "ci token in the vault\n",
            WriteMode::Overwrite,
            Some("ci"),
        )
        .unwrap();
    let found = history_findings(&m.scan_secrets().unwrap());
    assert_eq!(
        found,
        [(
            "team:notes/ci.md".to_string(),
            Some("v1".to_string()),
            1,
            "github-pat".to_string()
        )]
    );
    assert!(!files_holding(&team, TOKEN.as_bytes()).is_empty());
    assert_eq!(m.purge_secrets().unwrap().versions, 1);
    assert_eq!(
        files_holding(dirs.path(), TOKEN.as_bytes()),
        Vec::<String>::new()
    );
    assert_eq!(m.scan_secrets().unwrap(), []);
}
