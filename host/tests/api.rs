//! The library API: setup errors, domain errors, the clock, the sandbox.

use std::fs;

use std::time::{Duration, Instant};

use agent_memory::{
    Error, ErrorKind, Limit, Memory, OpenOptions, ReadSource, Runtime, SearchMode, ToolSet,
    WriteMode, WriteTarget,
};
use chrono::DateTime;

const NOW: &str = "2026-05-30T09:15:00+02:00";

fn open(root: &std::path::Path) -> Memory {
    let now = DateTime::parse_from_rfc3339(NOW).unwrap();
    Runtime::shared()
        .unwrap()
        .open(OpenOptions::new(root, "/work/src/my-app").now(now))
        .unwrap()
}

#[test]
fn shared_runtime_is_compiled_once() {
    let a = Runtime::shared().unwrap();
    let b = Runtime::shared().unwrap();
    assert!(std::ptr::eq(a, b));
}

#[test]
fn memory_handles_can_move_between_threads() {
    fn send<T: Send>() {}
    fn send_sync<T: Send + Sync>() {}
    send::<Memory>();
    send_sync::<Runtime>();
    send_sync::<Error>();
}

#[test]
fn open_reports_the_project_and_today() {
    let temp = tempfile::tempdir().unwrap();
    let memory = open(&temp.path().join("new/root"));
    assert!(memory.project_slug().starts_with("my-app-"));
    assert_eq!(memory.project_slug().len(), "my-app-".len() + 8);
    assert_eq!(
        memory.project_dir(),
        format!("projects/{}", memory.project_slug())
    );
    assert_eq!(memory.today(), "2026-05-30");
    assert_eq!(
        memory.root(),
        temp.path().canonicalize().unwrap().join("new/root")
    );
}

#[test]
fn the_utc_offset_decides_the_local_date() {
    let temp = tempfile::tempdir().unwrap();
    let late = DateTime::parse_from_rfc3339("2026-05-30T23:30:00+00:00").unwrap();
    let runtime = Runtime::shared().unwrap();
    let utc = runtime
        .open(OpenOptions::new(temp.path(), "/p").now(late))
        .unwrap();
    assert_eq!(utc.today(), "2026-05-30");
    let east = runtime
        .open(
            OpenOptions::new(temp.path(), "/p")
                .now(late)
                .utc_offset_minutes(120),
        )
        .unwrap();
    assert_eq!(east.today(), "2026-05-31");
}

#[test]
fn write_read_and_list() {
    let temp = tempfile::tempdir().unwrap();
    let mut memory = open(temp.path());
    assert_eq!(memory.read(ReadSource::LongTerm, None).unwrap(), None);
    assert_eq!(memory.context_block().unwrap(), None);
    assert!(memory.list_files().unwrap().is_empty());

    let receipt = memory
        .write(
            WriteTarget::Note,
            "# Auth\n",
            WriteMode::Append,
            Some("auth"),
        )
        .unwrap();
    assert_eq!(
        receipt.path,
        format!("{}/notes/auth.md", memory.project_dir())
    );
    assert_eq!(receipt.bytes_written, 7);
    assert_eq!(receipt.truncated_from, None);
    assert_eq!(
        memory
            .read(ReadSource::Note, Some("auth"))
            .unwrap()
            .as_deref(),
        Some("# Auth\n")
    );
    let files = memory.list_files().unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path, receipt.path);
    assert_eq!(files[0].bytes, 7);
}

#[test]
fn write_cap_from_the_options_cuts_content() {
    let temp = tempfile::tempdir().unwrap();
    let mut memory = Runtime::shared()
        .unwrap()
        .open(OpenOptions::new(temp.path(), "/p").max_write_bytes(4))
        .unwrap();
    let receipt = memory
        .write(WriteTarget::LongTerm, "abcdefgh", WriteMode::Append, None)
        .unwrap();
    // The cut text, then the newline every stored file ends with (the cap
    // does not count it).
    assert_eq!(receipt.bytes_written, 5);
    assert_eq!(receipt.truncated_from, Some(8));
    assert_eq!(
        fs::read_to_string(temp.path().join("MEMORY.md")).unwrap(),
        "abcd\n"
    );
}

#[test]
fn domain_errors_carry_their_kind() {
    let temp = tempfile::tempdir().unwrap();
    let mut memory = open(temp.path());
    let error = memory
        .write(WriteTarget::Note, "x", WriteMode::Append, Some("../escape"))
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::InvalidName));
    let Error::Memory(inner) = &error else {
        panic!("not a memory error: {error:?}");
    };
    assert_eq!(inner.kind(), ErrorKind::InvalidName);
    assert_eq!(error.to_string(), inner.message());

    let error = memory
        .write(WriteTarget::Note, "x", WriteMode::Append, None)
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::MissingName));
    let error = memory
        .read(ReadSource::Daily, Some("2026-02-30"))
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::InvalidDate));
    let error = memory.call_tool("memory_forget", "{}").unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::UnknownTool));
    let error = memory
        .call_tool("memory_read", r#"{"source":"note","name":"nope"}"#)
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::NotFound));

    // A domain error leaves the instance usable.
    memory
        .write(WriteTarget::LongTerm, "still fine", WriteMode::Append, None)
        .unwrap();
}

#[test]
fn invalid_options_are_a_memory_error() {
    let temp = tempfile::tempdir().unwrap();
    let error = Runtime::shared()
        .unwrap()
        .open(OpenOptions::new(temp.path(), "/p").utc_offset_minutes(24 * 60))
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::InvalidOptions));
    let error = Runtime::shared()
        .unwrap()
        .open(OpenOptions::new(temp.path(), ""))
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::InvalidOptions));
}

#[test]
fn setup_errors_name_the_path() {
    let temp = tempfile::tempdir().unwrap();
    let runtime = Runtime::shared().unwrap();

    let file = temp.path().join("a-file");
    fs::write(&file, "x").unwrap();
    let error = runtime.open(OpenOptions::new(&file, "/p")).unwrap_err();
    assert!(matches!(error, Error::Setup { .. }), "{error:?}");
    assert!(error.to_string().contains("a-file"), "{error}");
    assert_eq!(error.kind(), None);

    let missing = temp.path().join("missing");
    let error = runtime
        .open(OpenOptions::new(&missing, "/p").create_root(false))
        .unwrap_err();
    assert!(error.to_string().contains("missing"), "{error}");
    assert!(!missing.exists());

    let error = Runtime::from_file(temp.path().join("nope.wasm")).unwrap_err();
    assert!(error.to_string().contains("nope.wasm"), "{error}");
    assert!(std::error::Error::source(&error).is_some());

    let error = Runtime::from_bytes(b"not wasm").unwrap_err();
    assert!(matches!(error, Error::Setup { .. }), "{error:?}");
}

#[test]
fn from_bytes_loads_the_same_component() {
    let runtime = Runtime::from_bytes(agent_memory::COMPONENT_WASM).unwrap();
    let names = |set| -> Vec<String> {
        runtime
            .tool_definitions(set)
            .unwrap()
            .into_iter()
            .map(|tool| tool.name)
            .collect()
    };
    assert_eq!(
        names(ToolSet::Seed),
        ["memory_write", "memory_read", "memory_search"]
    );
    assert_eq!(
        names(ToolSet::Full),
        [
            "memory_write",
            "memory_read",
            "memory_search",
            "memory_edit",
            "memory_delete",
            "memory_rename",
            "memory_history",
            "memory_restore",
            "memory_refresh",
            "memory_batch",
            "memory_consolidate"
        ]
    );
    assert_eq!(names(ToolSet::Anthropic), ["memory"]);
}

#[test]
fn prompt_helpers_go_through_the_component() {
    let temp = tempfile::tempdir().unwrap();
    let runtime = Runtime::shared().unwrap();
    let mut memory = open(temp.path());

    assert_eq!(runtime.estimate_tokens("").unwrap(), 0);
    assert_eq!(runtime.estimate_tokens("abcde").unwrap(), 2);
    assert_eq!(memory.estimate_tokens("abcd").unwrap(), 1);
    assert_eq!(
        runtime.effective_reserve(100, Some("abcdefgh")).unwrap(),
        102
    );
    assert_eq!(memory.effective_reserve(100, None).unwrap(), 100);
    assert_eq!(
        runtime
            .append_memory_block("pre", Some("<memory/>"))
            .unwrap(),
        "pre\n\n---\n\n<memory/>"
    );
    assert_eq!(memory.append_memory_block("pre", Some("")).unwrap(), "pre");
    assert_eq!(
        runtime.compaction_heading(Some(7)).unwrap(),
        "compaction summary (7 msgs)"
    );
    assert_eq!(
        memory.compaction_heading(None).unwrap(),
        "compaction summary"
    );
    for set in [ToolSet::Seed, ToolSet::Full, ToolSet::Anthropic] {
        assert_eq!(
            runtime.usage_prompt(set).unwrap(),
            memory.usage_prompt(set).unwrap()
        );
    }
}

#[test]
fn search_results_round_trip_through_render() {
    let temp = tempfile::tempdir().unwrap();
    let mut memory = open(temp.path());
    memory
        .write(
            WriteTarget::LongTerm,
            "deploy with make ship",
            WriteMode::Append,
            None,
        )
        .unwrap();
    let results = memory.search("deploy nothing-matches").unwrap();
    assert_eq!(results.hits.len(), 1);
    assert!(results.hits[0].is_memory_md);
    assert_eq!(results.hits[0].matched_terms, ["deploy"]);
    assert_eq!(results.terms.len(), 2);
    assert_eq!(results.terms[1].count, 0);
    let rendered = memory.render_search(&results, None).unwrap();
    assert!(rendered.contains("MEMORY.md"), "{rendered}");
    assert!(rendered.contains("deploy with make ship"), "{rendered}");
    assert!(memory.search("   ").unwrap().is_empty());
}

#[test]
fn search_top_is_the_head_of_the_whole_search() {
    let temp = tempfile::tempdir().unwrap();
    let mut memory = open(temp.path());
    for i in 0..8 {
        let text = "deploy staging\n".repeat(i + 1);
        memory
            .write(
                WriteTarget::Note,
                &text,
                WriteMode::Overwrite,
                Some(&format!("n{i}")),
            )
            .unwrap();
    }
    for mode in [SearchMode::Ranked, SearchMode::Literal] {
        let all = memory.search_with("deploy", mode).unwrap();
        assert_eq!(all.hits.len(), 8, "{mode:?}");
        let (top, total) = memory.search_top("deploy", mode, 3).unwrap();
        assert_eq!(total, 8, "{mode:?}");
        assert_eq!(top.terms, all.terms, "{mode:?}");
        assert_eq!(top.hits, all.hits[..3], "{mode:?}");
    }
    let err = memory
        .search_top("deploy", SearchMode::Ranked, 0)
        .unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::InvalidArguments), "{err}");
}

#[test]
fn read_version_gives_a_recorded_text_and_changes_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let mut memory = open(temp.path());
    memory
        .write(WriteTarget::Note, "one\n", WriteMode::Overwrite, Some("a"))
        .unwrap();
    memory
        .write(WriteTarget::Note, "two\n", WriteMode::Overwrite, Some("a"))
        .unwrap();
    let versions = memory.history(ReadSource::Note, Some("a"), None).unwrap();
    assert_eq!(versions.len(), 2);
    // Newest first: the overwrite replaced "one", the creation replaced nothing.
    assert_eq!(
        memory.read_version(&versions[0].id).unwrap().as_deref(),
        Some("one\n")
    );
    assert_eq!(memory.read_version(&versions[1].id).unwrap(), None);
    assert_eq!(
        memory.history(ReadSource::Note, Some("a"), None).unwrap(),
        versions
    );
    assert_eq!(
        memory.read(ReadSource::Note, Some("a")).unwrap().as_deref(),
        Some("two\n")
    );
    for bad in ["v999", "x", ""] {
        let err = memory.read_version(bad).unwrap_err();
        assert_eq!(err.kind(), Some(ErrorKind::NotFound), "{bad}: {err}");
    }
}

#[cfg(unix)]
#[test]
fn the_component_sees_nothing_outside_the_root() {
    let temp = tempfile::tempdir().unwrap();
    let secret = temp.path().join("secret.md");
    fs::write(&secret, "TOP SECRET").unwrap();
    let root = temp.path().join("root");
    let mut memory = open(&root);
    let notes = root.join(memory.project_dir()).join("notes");
    fs::create_dir_all(&notes).unwrap();
    std::os::unix::fs::symlink(&secret, notes.join("leak.md")).unwrap();
    std::os::unix::fs::symlink("../../../../secret.md", notes.join("rel.md")).unwrap();

    for name in ["leak", "rel"] {
        match memory.read(ReadSource::Note, Some(name)) {
            Ok(text) => assert!(
                !text.unwrap_or_default().contains("TOP SECRET"),
                "{name} leaked"
            ),
            Err(error) => assert!(
                matches!(error.kind(), Some(ErrorKind::NotAFile | ErrorKind::Io)),
                "{error:?}"
            ),
        }
    }
    let found = memory.search("SECRET").unwrap();
    assert!(
        found
            .hits
            .iter()
            .all(|hit| !hit.body.contains("TOP SECRET"))
    );
    // Writing through the link must not reach the outside file either.
    let _ = memory.write(
        WriteTarget::Note,
        "overwritten",
        WriteMode::Overwrite,
        Some("leak"),
    );
    assert_eq!(fs::read_to_string(&secret).unwrap(), "TOP SECRET");
}

#[test]
fn the_memory_cap_is_a_typed_limit_and_the_next_call_gets_a_fresh_instance() {
    let temp = tempfile::tempdir().unwrap();
    let now = DateTime::parse_from_rfc3339(NOW).unwrap();
    let mut memory = Runtime::shared()
        .unwrap()
        .open(
            OpenOptions::new(temp.path(), "/p")
                .now(now)
                .max_memory_bytes(8 << 20)
                .max_write_bytes(u32::MAX),
        )
        .unwrap();
    memory
        .write(WriteTarget::LongTerm, "before", WriteMode::Append, None)
        .unwrap();

    // More than the instance may allocate: the grow is refused.
    let huge = "x".repeat(16 << 20);
    let error = memory
        .write(WriteTarget::LongTerm, &huge, WriteMode::Append, None)
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::Limit {
                operation: "write",
                limit: Limit::Memory { max_bytes: 8388608 },
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the memory component hit its memory limit of 8388608 bytes: write"
    );
    assert_eq!(error.kind(), None);
    assert_eq!(error.limit(), Some(Limit::Memory { max_bytes: 8 << 20 }));

    // The next call runs in a fresh instance with the same options.
    assert_eq!(
        memory.read(ReadSource::LongTerm, None).unwrap().as_deref(),
        Some("before\n")
    );
    assert_eq!(memory.today(), "2026-05-30");
    memory
        .write(WriteTarget::LongTerm, " after", WriteMode::Append, None)
        .unwrap();
    assert_eq!(
        fs::read_to_string(temp.path().join("MEMORY.md")).unwrap(),
        "before\n after\n"
    );
}

#[test]
fn the_default_memory_cap_stops_a_runaway_argument() {
    let temp = tempfile::tempdir().unwrap();
    let mut memory = open(temp.path());
    // 300 MiB of content must be copied into the instance before the write
    // can cut it to 64 KiB: past the 256 MiB default.
    assert_eq!(agent_memory::DEFAULT_MAX_MEMORY_BYTES, 256 << 20);
    let huge = "y".repeat(300 << 20);
    let error = memory
        .write(WriteTarget::LongTerm, &huge, WriteMode::Append, None)
        .unwrap_err();
    assert_eq!(
        error.limit(),
        Some(Limit::Memory {
            max_bytes: agent_memory::DEFAULT_MAX_MEMORY_BYTES
        }),
        "{error:?}"
    );
    drop(huge);
    memory
        .write(WriteTarget::LongTerm, "small", WriteMode::Append, None)
        .unwrap();
    // Appends save no copy in history, and the failed write saved nothing.
    assert!(!temp.path().join("MEMORY.md.bak").exists());
    let saved =
        std::fs::read_dir(temp.path().join(".store/history/objects")).map_or(0, |d| d.count());
    assert_eq!(saved, 0);
}

#[test]
fn the_call_timeout_is_a_typed_limit_and_the_next_call_works() {
    let temp = tempfile::tempdir().unwrap();
    let now = DateTime::parse_from_rfc3339(NOW).unwrap();
    let runtime = Runtime::shared().unwrap();
    // 16 MiB of short matching lines: a search the component needs well
    // over 20 ms for (about 0.3 s on a 2-core CI machine).
    let line = "deploy the service with make ship\n";
    fs::write(
        temp.path().join("MEMORY.md"),
        line.repeat((16 << 20) / line.len()),
    )
    .unwrap();
    let mut memory = runtime
        .open(
            OpenOptions::new(temp.path(), "/p")
                .now(now)
                .call_timeout(Duration::from_millis(10)),
        )
        .unwrap();
    let started = Instant::now();
    let error = memory.search("ship").unwrap_err();
    let took = started.elapsed();
    assert!(
        matches!(
            error,
            Error::Limit {
                operation: "search",
                limit: Limit::Time { .. },
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the memory component hit its time limit of 10ms per call: search"
    );
    assert!(took < Duration::from_secs(2), "interrupted after {took:?}");

    // The same handle keeps working: a fresh instance, the same options.
    assert_eq!(memory.today(), "2026-05-30");
    assert!(
        memory
            .read(ReadSource::LongTerm, None)
            .unwrap()
            .unwrap()
            .starts_with(line)
    );
    assert_eq!(memory.list_files().unwrap().len(), 1);

    // With the default bound the same search completes. (The write is made
    // here: a durable write syncs the disk up to five times with history,
    // which alone can take over 10 ms on a slow disk.)
    let mut patient = runtime
        .open(OpenOptions::new(temp.path(), "/p").now(now))
        .unwrap();
    patient
        .append_daily("after the timeout", "still here")
        .unwrap();
    assert_eq!(memory.list_files().unwrap().len(), 2);
    let results = patient.search("ship").unwrap();
    assert_eq!(results.hits.len(), 1);
    assert_eq!(results.terms[0].count as usize, (16 << 20) / line.len());
}

#[test]
fn the_helper_instance_has_the_default_limits_and_recovers() {
    let runtime = Runtime::from_bytes(agent_memory::COMPONENT_WASM).unwrap();
    let huge = "z".repeat(300 << 20);
    let error = runtime.estimate_tokens(&huge).unwrap_err();
    assert!(
        matches!(
            error,
            Error::Limit {
                operation: "estimate-tokens",
                limit: Limit::Memory { .. },
            }
        ),
        "{error:?}"
    );
    drop(huge);
    assert_eq!(runtime.estimate_tokens("abcdefgh").unwrap(), 2);
}

#[test]
fn a_cap_below_the_initial_memory_fails_at_instantiation_as_a_limit() {
    let temp = tempfile::tempdir().unwrap();
    let error = Runtime::shared()
        .unwrap()
        .open(OpenOptions::new(temp.path(), "/p").max_memory_bytes(64 << 10))
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::Limit {
                operation: "instantiate",
                limit: Limit::Memory { .. },
            }
        ),
        "{error:?}"
    );
}

#[test]
fn two_memories_in_one_instance_stay_independent() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let runtime = Runtime::shared().unwrap();
    let mut memories = runtime
        .open_group(vec![
            OpenOptions::new(a.path(), "/src/alpha").fixed_clock(1_780_125_300, 120),
            OpenOptions::new(b.path(), "/src/beta")
                .fixed_clock(1_780_125_300 + 86_400, 0)
                .max_read_bytes(600),
        ])
        .unwrap();
    let mut beta = memories.pop().unwrap();
    let mut alpha = memories.pop().unwrap();
    alpha
        .write(
            WriteTarget::LongTerm,
            "- alpha fact",
            WriteMode::Append,
            None,
        )
        .unwrap();
    beta.write(WriteTarget::Note, "beta note", WriteMode::Append, Some("b"))
        .unwrap();
    // Each sees only its own root, project, clock and limits.
    assert_eq!(
        fs::read_to_string(a.path().join("MEMORY.md")).unwrap(),
        "- alpha fact\n"
    );
    assert!(!b.path().join("MEMORY.md").exists());
    assert_eq!(beta.read(ReadSource::LongTerm, None).unwrap(), None);
    assert_eq!(alpha.read(ReadSource::Note, Some("b")).unwrap(), None);
    assert!(alpha.project_slug().starts_with("alpha-"));
    assert!(beta.project_slug().starts_with("beta-"));
    assert_eq!(alpha.today(), "2026-05-30");
    assert_eq!(beta.today(), "2026-05-31");
    assert_eq!(alpha.limits().unwrap().max_read_bytes, 32768);
    assert_eq!(beta.limits().unwrap().max_read_bytes, 600);
    assert_eq!(
        alpha
            .list_files()
            .unwrap()
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        ["MEMORY.md"]
    );

    // A trap in the shared instance takes both down; both reopen on their
    // next call, with their own options, and dropping one leaves the other.
    let huge = "x".repeat(300 << 20);
    let error = beta
        .write(WriteTarget::Note, &huge, WriteMode::Append, Some("big"))
        .unwrap_err();
    assert!(matches!(error, Error::Limit { .. }), "{error:?}");
    drop(huge);
    assert_eq!(
        alpha.read(ReadSource::LongTerm, None).unwrap().as_deref(),
        Some("- alpha fact\n")
    );
    assert_eq!(beta.limits().unwrap().max_read_bytes, 600);
    drop(alpha);
    assert_eq!(
        beta.read(ReadSource::Note, Some("b")).unwrap().as_deref(),
        Some("beta note\n")
    );
}

#[test]
fn limits_report_the_contract_and_the_overrides() {
    let temp = tempfile::tempdir().unwrap();
    let mut memory = Runtime::shared()
        .unwrap()
        .open(
            OpenOptions::new(temp.path(), "/p")
                .lock_lease(Duration::from_secs(3))
                .lock_wait(Duration::from_millis(250)),
        )
        .unwrap();
    let limits = memory.limits().unwrap();
    assert_eq!(
        (
            limits.max_inject_bytes,
            limits.max_write_bytes,
            limits.max_read_bytes,
            limits.index_max_lines,
            limits.index_max_bytes,
            limits.max_search_file_bytes,
            limits.max_query_terms,
            limits.whole_file_append_max_bytes,
        ),
        (32768, 65536, 32768, 200, 25000, 16 << 20, 64, 1 << 20)
    );
    assert_eq!(limits.lock_lease, Duration::from_secs(3));
    assert_eq!(limits.lock_wait, Duration::from_millis(250));
    let error = Runtime::shared()
        .unwrap()
        .open(OpenOptions::new(temp.path(), "/p").lock_lease(Duration::from_millis(10)))
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::InvalidOptions));
    assert_eq!(
        error.to_string(),
        "lock-lease-ms is 10 ms; it must be at least 1000 ms"
    );
}

/// The team directory is preopened read-write: a symbolic link there (to
/// another folder, to `/`, or dangling) would let the memory write wherever
/// it points. It must be a real folder; the setup error names the link and
/// says what to do, and nothing is created or written through it.
#[cfg(unix)]
#[test]
fn a_team_directory_that_is_a_symbolic_link_is_refused() {
    let temp = tempfile::tempdir().unwrap();
    let runtime = Runtime::shared().unwrap();
    let project = temp.path().join("app");
    fs::create_dir_all(&project).unwrap();
    let elsewhere = temp.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let link = OpenOptions::team_dir_of(&project);
    let open = |team: &std::path::Path| {
        runtime.open(OpenOptions::new(temp.path().join("root"), &project).team_dir(team))
    };
    let dangling = temp.path().join("not-yet");
    for target in [elsewhere.as_path(), std::path::Path::new("/"), &dangling] {
        std::os::unix::fs::symlink(target, &link).unwrap();
        for given in [link.clone(), link.join(".")] {
            let error = open(&given).expect_err("a linked team directory is refused");
            assert!(matches!(error, Error::Setup { .. }), "{error:?}");
            let message = error.to_string();
            assert!(
                message.contains(&format!("`{}`", link.display())),
                "the link is not named: {message}"
            );
            assert!(message.contains("symbolic link"), "{message}");
            assert!(
                message.contains("replace the link with a real folder"),
                "{message}"
            );
        }
        fs::remove_file(&link).unwrap();
    }
    assert!(!dangling.exists());
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);

    // A real folder (created when missing) is the team directory.
    let mut memory = open(&link).unwrap();
    assert!(link.is_dir());
    memory
        .call_tool(
            "memory_write",
            r#"{"target":"note","name":"x","content":"hi","scope":"team"}"#,
        )
        .unwrap();
    assert_eq!(fs::read_to_string(link.join("notes/x.md")).unwrap(), "hi\n");
}

/// Issue 22's defects 7, 8, 10 and 11 through the component: import and
/// snapshots go through the same checks as a write, and team scope has no
/// daily logs on any path.
#[test]
fn import_snapshot_and_team_scope_paths_run_every_check() {
    let temp = tempfile::tempdir().unwrap();
    let runtime = Runtime::shared().unwrap();
    let now = DateTime::parse_from_rfc3339(NOW).unwrap();
    let project = temp.path().join("app");
    let team = OpenOptions::team_dir_of(&project);
    fs::create_dir_all(team.join("notes")).unwrap();
    let root = temp.path().join("root");
    let options = OpenOptions::new(&root, &project).now(now).team_dir(&team);
    let mut personal = runtime.open(options.clone()).unwrap();
    let mut shared = runtime
        .open(options.scope(agent_memory::Scope::Team))
        .unwrap();

    // 7: import refuses a team note with conflict markers.
    let conflicted = "a\n<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n";
    fs::write(team.join("notes/deploy.md"), conflicted).unwrap();
    let error = shared
        .import_file(WriteTarget::Note, Some("deploy"), "new fact\n", false)
        .unwrap_err();
    assert!(
        matches!(&error, Error::Memory(e) if e.kind() == ErrorKind::Conflict),
        "{error:?}"
    );
    assert_eq!(
        fs::read_to_string(team.join("notes/deploy.md")).unwrap(),
        conflicted
    );

    // 10: no path writes the personal layout into the team directory.
    let before: Vec<_> = walk(&team);
    for error in [
        shared.append_daily("h", "b").unwrap_err(),
        shared.flush_compaction("s", Some(2)).unwrap_err(),
        shared
            .import_file(WriteTarget::Daily, Some("2026-05-01"), "x", false)
            .unwrap_err(),
    ] {
        assert!(
            matches!(&error, Error::Memory(e) if e.kind() == ErrorKind::InvalidTarget),
            "{error:?}"
        );
    }
    assert_eq!(walk(&team), before);

    // 11: import never rewrites bytes it cannot read as UTF-8.
    personal
        .write(WriteTarget::Note, "x\n", WriteMode::Overwrite, Some("bin"))
        .unwrap();
    let bin = root.join(personal.project_dir()).join("notes/bin.md");
    fs::write(&bin, b"caf\xe9\n").unwrap();
    let error = personal
        .import_file(WriteTarget::Note, Some("bin"), "more\n", false)
        .unwrap_err();
    assert!(error.to_string().contains("UTF-8"), "{error}");
    assert_eq!(fs::read(&bin).unwrap(), b"caf\xe9\n");
    fs::remove_file(&bin).unwrap();

    // 8: a first snapshot with no notes works; a refused one leaves the
    // previous snapshot whole.
    fs::remove_file(team.join("notes/deploy.md")).unwrap();
    personal.take_snapshot().unwrap();
    assert!(team.join("snapshot/TAKEN").is_file());
    personal
        .write(
            WriteTarget::Note,
            "alpha\n",
            WriteMode::Overwrite,
            Some("a"),
        )
        .unwrap();
    personal.take_snapshot().unwrap();
    let taken = walk(&team.join("snapshot"));
    personal
        .write(
            WriteTarget::Note,
            "x\n<<<<<<< ours\ny\n=======\nz\n>>>>>>> theirs\n",
            WriteMode::Overwrite,
            Some("b"),
        )
        .unwrap();
    let error = personal.take_snapshot().unwrap_err();
    assert!(
        matches!(&error, Error::Memory(e) if e.kind() == ErrorKind::Conflict),
        "{error:?}"
    );
    assert_eq!(walk(&team.join("snapshot")), taken);
}

/// Every file under `dir` with its bytes, sorted.
fn walk(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn change_sets_the_review_gate_and_clear_through_the_component() {
    use agent_memory::{BatchChange, ClearTarget, Scope};
    let temp = tempfile::tempdir().unwrap();
    let now = DateTime::parse_from_rfc3339(NOW).unwrap();
    let options = OpenOptions::new(temp.path(), "/work/src/my-app")
        .now(now)
        .review(&[Scope::Personal]);
    let mut memory = Runtime::shared().unwrap().open(options).unwrap();
    memory
        .write(
            WriteTarget::Note,
            "Deploy with make ship.",
            WriteMode::Overwrite,
            Some("deploy"),
        )
        .unwrap();

    // A typed change set: applied whole, one undo takes it all back.
    let receipt = memory
        .apply(
            &[
                BatchChange::Edit {
                    target: WriteTarget::Note,
                    name: Some("deploy".into()),
                    old_text: "make ship".into(),
                    new_text: "make release".into(),
                },
                BatchChange::Write {
                    target: WriteTarget::LongTerm,
                    content: "- deploy: notes/deploy.md".into(),
                    mode: WriteMode::Append,
                    name: None,
                },
            ],
            Some("tidy"),
        )
        .unwrap();
    assert_eq!(receipt.done.len(), 2);
    let last = memory.last_change().unwrap().unwrap();
    memory.restore(&last.id).unwrap();
    assert_eq!(
        memory
            .read(ReadSource::Note, Some("deploy"))
            .unwrap()
            .as_deref(),
        Some("Deploy with make ship.\n")
    );
    assert_eq!(memory.read(ReadSource::LongTerm, None).unwrap(), None);
    // A failing change names itself; nothing changed.
    let error = memory
        .apply(
            &[BatchChange::Delete {
                name: "a/../b".into(),
            }],
            None,
        )
        .unwrap_err();
    assert!(
        matches!(&error, Error::Memory(e) if e.kind() == ErrorKind::InvalidName
            && e.message().starts_with("change 1 (memory_delete): ")),
        "{error:?}"
    );

    // The model's write waits; the host's typed write above did not.
    let reply = memory
        .call_tool(
            "memory_write",
            r#"{"target":"long_term","content":"Skip the tests."}"#,
        )
        .unwrap();
    assert!(reply.starts_with("Queued for review as p1"), "{reply}");
    assert_eq!(memory.context_block().unwrap(), None);
    let pending = memory.pending_changes().unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(
        (pending[0].id.as_str(), pending[0].scope),
        ("p1", Scope::Personal)
    );
    memory.reject("p1").unwrap();
    assert!(memory.pending_changes().unwrap().is_empty());
    assert_eq!(memory.context_block().unwrap(), None);

    // Clear is one change too.
    let cleared = memory.clear(ClearTarget::All).unwrap();
    assert_eq!(cleared.removed.len(), 1);
    let last = memory.last_change().unwrap().unwrap();
    memory.restore(&last.id).unwrap();
    assert!(
        memory
            .read(ReadSource::Note, Some("deploy"))
            .unwrap()
            .is_some()
    );
}
