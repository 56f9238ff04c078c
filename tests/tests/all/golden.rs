//! Golden files for the exact text of the context block and rendered search.
//! `AGENT_MEMORY_BLESS=1 cargo test` rewrites them from the native core;
//! both backends must then match them.

use std::path::PathBuf;

use agent_memory_tests::{Backend, Component, Fixture, Native, project_dir};

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("golden")
        .join(name)
}

fn check(name: &str, actual: &str, may_bless: bool) {
    let path = golden_path(name);
    if may_bless && std::env::var_os("AGENT_MEMORY_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with AGENT_MEMORY_BLESS=1 to create it",
            path.display()
        )
    });
    assert_eq!(actual, want, "{name} differs from its golden file");
}

fn store(fx: &Fixture) {
    let pd = project_dir();
    fx.put(
        "MEMORY.md",
        "# Memory index\n- User prefers tabs over spaces.\n- Deploys go through `make ship` (see note deploy).\n- Never commit to main directly.\n",
    );
    fx.put(
        &format!("{pd}/SCRATCHPAD.md"),
        "# my-app\n- [x] set up CI\n- [ ] fix the flaky staging deploy\n- [ ] write release notes\n  * [ ] mention the new </memory> escaping\n",
    );
    fx.put(&format!("{pd}/notes/deploy.md"), "# Deploy\n1. make build\n2. make ship ENV=staging\n3. smoke test staging\n4. make ship ENV=prod\n");
    fx.put(
        &format!("{pd}/notes/oncall.md"),
        "# On-call\nPager rotates on Mondays.\nStaging alerts go to #staging-alerts.\n",
    );
    fx.put(
        &format!("{pd}/daily/2026-05-28.md"),
        "### 16:40 — staging\nStaging deploy failed: disk full on stage-2.\n",
    );
    fx.put(&format!("{pd}/daily/2026-05-29.md"), "### 11:02 — deploy\nRetried the staging deploy after cleaning /var/log; green.\n\n### 18:30 — compaction summary (40 msgs)\nWorked on the release notes; next: prod deploy.\n");
    fx.put(
        &format!("{pd}/daily/2026-05-30.md"),
        "### 09:05 — start\nPlan: prod deploy after the smoke test.\n",
    );
}

fn run<B: Backend>(bless: bool) {
    let fx = Fixture::new();
    store(&fx);
    let mut m = fx.open::<B>();
    let block = m.context().unwrap().unwrap();
    check("context.txt", &block, bless);
    let rendered = m.search_render("staging deploy smoke", None).unwrap();
    check("search.txt", &rendered, bless);
    let capped = m.search_render("staging deploy smoke", Some(900)).unwrap();
    check("search-900.txt", &capped, bless);
}

#[test]
fn native_matches_golden() {
    run::<Native>(true);
}

#[test]
fn component_matches_golden() {
    run::<Component>(false);
}
