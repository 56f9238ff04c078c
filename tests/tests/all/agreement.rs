//! One scripted session, replayed on the native core and on the component:
//! every output, error and the final files must be identical.

use agent_memory_tests::{
    Backend, CapsOverride, Component, Fixture, Native, Now, PROJECT, ReadSource, WriteMode,
    WriteTarget,
};

fn session<B: Backend>() -> (Vec<String>, Vec<(String, String)>) {
    let fx = Fixture::new();
    let mut log = Vec::new();
    let mut m = fx.open::<B>();
    let mut note = |s: String| log.push(s);
    note(format!("{:?}", m.context()));
    note(format!(
        "{:?}",
        m.write(
            WriteTarget::LongTerm,
            "- user prefers tabs",
            WriteMode::Append,
            None
        )
    ));
    note(format!(
        "{:?}",
        m.write(
            WriteTarget::LongTerm,
            "- deploy with `make ship`\n",
            WriteMode::Append,
            None
        )
    ));
    note(format!(
        "{:?}",
        m.write(
            WriteTarget::Scratchpad,
            "- [ ] add tests\n- [x] write core\n",
            WriteMode::Overwrite,
            None
        )
    ));
    note(format!(
        "{:?}",
        m.write(
            WriteTarget::Note,
            "# Staging\nhost stage.internal\n",
            WriteMode::Append,
            Some("staging env")
        )
    ));
    note(format!(
        "{:?}",
        m.write(
            WriteTarget::Note,
            "x",
            WriteMode::Append,
            Some("../etc/passwd")
        )
    ));
    note(format!(
        "{:?}",
        m.write(
            WriteTarget::Note,
            &"ü".repeat(40_000),
            WriteMode::Overwrite,
            Some("big")
        )
    ));
    note(format!(
        "{:?}",
        m.append_daily("kickoff", "planned the sprint")
    ));
    note(format!(
        "{:?}",
        m.flush("we discussed staging deploys", Some(12))
    ));
    note(format!(
        "{:?}",
        m.read(ReadSource::Daily, Some("2026-02-30"))
    ));
    note(format!(
        "{:?}",
        m.read(ReadSource::Note, Some("staging env.md"))
    ));
    note(format!("{:?}", m.list()));
    note(format!("{:?}", m.search("Staging deploy tabs staging")));
    note(format!(
        "{:?}",
        m.search_render("staging deploy", Some(700))
    ));
    for (tool, args) in [
        ("memory_read", r#"{"source":"list"}"#),
        ("memory_read", r#"{"source":"long_term"}"#),
        ("memory_read", r#"{"source":"note","name":"missing"}"#),
        ("memory_search", r#"{"query":"sprint"}"#),
        (
            "memory_write",
            r#"{"target":"daily","content":"tool entry"}"#,
        ),
        ("memory_write", r#"{"target":"nowhere","content":"x"}"#),
        (
            "memory_write",
            r#"{"target":"daily","content":"x","mode":"merge"}"#,
        ),
        ("memory_write", "{"),
        ("memory_forget", "{}"),
    ] {
        note(format!("{tool} {args} => {:?}", m.call(tool, args)));
    }
    note(format!("{:?}", m.context()));
    let mut next_day = fx.open_at::<B>(PROJECT, Now::local("2026-05-31", "08:00", 120));
    note(format!("{:?}", next_day.context()));
    let mut capped = B::open(
        fx.root(),
        PROJECT,
        Now::local("2026-05-31", "08:00", 120),
        CapsOverride {
            max_inject_bytes: Some(600),
            ..Default::default()
        },
    )
    .unwrap();
    note(format!("{:?}", capped.context()));
    // History's journal carries a random token per rewrite; its entries are
    // pinned by the core's own tests.
    let files = fx
        .tree()
        .into_iter()
        .filter(|p| !p.starts_with(".store/"))
        .map(|p| {
            (
                p.clone(),
                String::from_utf8_lossy(&fx.get(&p).unwrap()).into_owned(),
            )
        })
        .collect();
    (log, files)
}

#[test]
fn native_and_component_agree_on_a_whole_session() {
    let (native_log, native_files) = session::<Native>();
    let (component_log, component_files) = session::<Component>();
    assert_eq!(native_log.len(), component_log.len());
    for (i, (n, c)) in native_log.iter().zip(&component_log).enumerate() {
        assert_eq!(n, c, "step {i} differs");
    }
    let names = |f: &[(String, String)]| {
        f.iter()
            .map(|(p, c)| format!("{p} ({} bytes)", c.len()))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&native_files), names(&component_files));
    for ((path, n), (_, c)) in native_files.iter().zip(&component_files) {
        assert!(n == c, "{path} differs");
    }
    // The session did real work: files, errors and a block.
    assert_eq!(native_files.len(), 5, "{:?}", names(&native_files));
    assert!(native_log.iter().any(|l| l.contains("InvalidName")));
    assert!(native_log.last().unwrap().contains("<memory note="));
}
