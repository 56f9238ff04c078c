//! Ranking cases, one per promise of the spec, on small inline stores.

use super::*;

fn d(s: &str) -> Date {
    crate::names::daily_date(s).unwrap()
}

/// Wednesday.
const TODAY: &str = "2026-05-13";

fn meta(path: &str) -> FileMeta {
    let stem = path
        .rsplit('/')
        .next()
        .unwrap()
        .trim_end_matches(".md")
        .to_string();
    let date = crate::names::daily_date(&stem).ok().map(|d| d.to_string());
    FileMeta {
        path: path.to_string(),
        is_memory_md: path == "MEMORY.md",
        stem,
        date,
    }
}

/// A small deterministic generator: `next(n)` is below `n`.
fn xorshift(mut state: u64) -> impl FnMut(usize) -> usize {
    move |n| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    }
}

fn rank(files: &[(&str, &str)], query: &str) -> SearchResults {
    let mut r = Ranker::new(query, d(TODAY));
    for (path, text) in files {
        r.add_file(meta(path), text);
    }
    r.finish(reader(files))
}

/// [`rank`] from each file's statistics, as an index feeds them, where
/// [`rank`] gives the text: the two must always agree.
fn rank_by_stats(files: &[(&str, &str)], query: &str) -> SearchResults {
    let mut r = Ranker::new(query, d(TODAY));
    for (path, text) in files {
        r.add_stats(meta(path), &FileStats::from_text(&meta(path).stem, text));
    }
    r.finish(reader(files))
}

/// Phase two's reader over `files`.
fn reader<'a>(files: &'a [(&str, &str)]) -> impl FnMut(&FileMeta) -> Option<String> + 'a {
    move |m| {
        files
            .iter()
            .find(|(p, _)| *p == m.path)
            .map(|(_, t)| t.to_string())
    }
}

fn paths(r: &SearchResults) -> Vec<&str> {
    r.hits.iter().map(|h| h.path.as_str()).collect()
}

/// Filler prose without any query word of these tests.
fn filler(n: usize) -> String {
    (0..n)
        .map(|i| format!("Line {i} of ordinary notes about the weather and lunch.\n"))
        .collect()
}

#[test]
fn search_mode_words() {
    assert_eq!(crate::search_mode("ranked").unwrap(), SearchMode::Ranked);
    assert_eq!(crate::search_mode("literal").unwrap(), SearchMode::Literal);
    assert_eq!(SearchMode::default(), SearchMode::Ranked);
    assert_eq!(SearchMode::Literal.tool_word(), "literal");
    assert_eq!(SearchMode::Ranked.to_string(), "ranked");
    let err = crate::search_mode("Ranked").unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::InvalidMode);
    assert_eq!(
        err.to_string(),
        "unknown search mode \"Ranked\": expected ranked or literal"
    );
}

#[test]
fn words_not_substrings() {
    let files = [
        ("n/a.md", "We fixed this two weeks ago."),
        ("n/b.md", "Build with go 1.22 and go vet."),
        ("n/c.md", "The feature flag is off."),
        ("n/d.md", "Replica lag spiked at noon."),
        ("n/e.md", "The API is slow under load."),
        ("n/f.md", "Our SLO is 99.9% availability."),
    ];
    assert_eq!(paths(&rank(&files, "go")), ["n/b.md"]);
    assert_eq!(paths(&rank(&files, "lag")), ["n/d.md"]);
    assert_eq!(paths(&rank(&files, "SLO")), ["n/f.md"]);
    assert_eq!(paths(&rank(&files, "slow")), ["n/e.md"]);
    // Case folds; stems meet.
    assert_eq!(paths(&rank(&files, "FLAGS")), ["n/c.md"]);
    assert_eq!(rank(&files, "go").terms, [("go".to_string(), 1)]);
}

#[test]
fn identifiers_match_whole_and_in_parts() {
    let files = [
        ("n/code.md", "Call get_user_name() before saving.\n"),
        ("n/prose.md", "The user picks a name for the project.\n"),
        ("n/other.md", "Nothing here.\n"),
    ];
    // The identifier, in any spelling, is the identifier only.
    for q in [
        "getUserName",
        "get-user-name",
        "GetUserNames",
        "getusername",
    ] {
        assert_eq!(paths(&rank(&files, q)), ["n/code.md"], "{q}");
    }
    // Its words find it too; next to each other, it comes first.
    let r = rank(&files, "user name");
    assert_eq!(paths(&r), ["n/code.md", "n/prose.md"]);
    assert_eq!(r.hits[0].matched_terms, ["user", "name"]);
    // A dotted path needs all its names in one file.
    let files = [
        ("n/a.md", "Edit guest/core/src/rank/mod.rs then test.\n"),
        ("n/b.md", "The rank of a mod.\n"),
        ("n/c.md", "rs and rank and mod, far apart: rank.\n"),
    ];
    let r = rank(&files, "rank/mod.rs");
    assert_eq!(paths(&r), ["n/a.md", "n/c.md"]);
    assert_eq!(r.terms, [("rank/mod.rs".to_string(), 2)]);
}

#[test]
fn a_note_named_for_the_word_beats_a_log_mentioning_it_once() {
    let log = format!(
        "### 09:00 — standup\n{}We may deploy on Friday.\n{}",
        filler(10),
        filler(10)
    );
    let files = [
        (
            "p/notes/deploy.md",
            "# Steps\n1. build the image\n2. push it\n3. roll out to staging\n",
        ),
        ("p/daily/2026-05-01.md", log.as_str()),
    ];
    let r = rank(&files, "deploy");
    assert_eq!(paths(&r), ["p/notes/deploy.md", "p/daily/2026-05-01.md"]);
    // The note matched by its name only: shown as a filename match.
    assert!(r.hits[0].filename_only);
    assert_eq!(
        r.hits[0].body,
        "(filename match)\n# Steps\n1. build the image\n2. push it"
    );
    assert_eq!(r.terms, [("deploy".to_string(), 1)]);
}

#[test]
fn memory_md_is_not_first_by_rule() {
    let files = [
        ("MEMORY.md", "- prefers tabs\n- deploy with care\n"),
        (
            "n/release.md",
            "# Deploy\nHow we deploy: tag, build, deploy.\n",
        ),
    ];
    assert_eq!(
        paths(&rank(&files, "deploy")),
        ["n/release.md", "MEMORY.md"]
    );
}

#[test]
fn a_heading_beats_the_body() {
    let files = [
        (
            "n/a.md",
            "# Notes\nWe talked about rollback today.\nMore text here.\n",
        ),
        (
            "n/b.md",
            "# Rollback\nWe talked about it today.\nMore text here.\n",
        ),
    ];
    assert_eq!(paths(&rank(&files, "rollback")), ["n/b.md", "n/a.md"]);
}

#[test]
fn a_rare_term_beats_a_common_one() {
    let mut files: Vec<(String, String)> = (0..8)
        .map(|i| {
            (
                format!("n/t{i}.md"),
                format!("A timeout again, number {i}.\n"),
            )
        })
        .collect();
    files.push(("n/pg.md".into(), "Postgres was restarted.\n".into()));
    files.push(("n/zz.md".into(), "Another timeout, once.\n".into()));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let r = rank(&files, "postgres timeout");
    assert_eq!(r.hits[0].path, "n/pg.md");
    assert_eq!(r.hits.len(), 10);
}

#[test]
fn words_adjacent_in_order_beat_scattered_ones() {
    let files = [
        ("n/a.md", "The pool filled up; the connection dropped.\n"),
        ("n/b.md", "The connection pool filled up; it dropped.\n"),
        ("n/c.md", "The pool connection filled up; it dropped.\n"),
    ];
    let r = rank(&files, "connection pool");
    assert_eq!(paths(&r), ["n/b.md", "n/c.md", "n/a.md"]);
    // The query's own spacing counts as adjacent: `deploy to staging`
    // drops `to`, yet the phrase itself is still the closest match.
    let files = [
        ("n/a.md", "deploy it, later, to the staging box\n"),
        ("n/b.md", "we deploy to staging daily\n"),
    ];
    assert_eq!(
        paths(&rank(&files, "deploy to staging")),
        ["n/b.md", "n/a.md"]
    );
}

#[test]
fn what_did_we_deploy_last_week() {
    // Today is Wednesday 2026-05-13; last week is 05-04 to 05-10.
    let files = [
        (
            "p/notes/deploy.md",
            "# Deploy\nHow to deploy: tag, build.\n",
        ),
        ("p/daily/2026-04-20.md", "deploy deploy deploy of the API\n"),
        (
            "p/daily/2026-05-05.md",
            "### 10:00 — release\nShipped api v2.\n",
        ),
        (
            "p/daily/2026-05-07.md",
            "### 11:00 — deploy\nWe deploy the worker.\n",
        ),
        ("p/daily/2026-05-12.md", "deploy of the cron job\n"),
    ];
    let r = rank(&files, "what did we deploy last week");
    assert_eq!(
        paths(&r),
        [
            "p/daily/2026-05-07.md",
            "p/daily/2026-05-05.md",
            "p/notes/deploy.md",
            "p/daily/2026-04-20.md",
            "p/daily/2026-05-12.md",
        ]
    );
    assert_eq!(
        r.terms,
        [("deploy".to_string(), 6), ("last week".to_string(), 2)]
    );
    assert_eq!(r.hits[0].matched_terms, ["deploy", "last week"]);
    assert_eq!(r.hits[1].matched_terms, ["last week"]);
    assert!(r.hits[1].filename_only);
    // Time words alone list the logs of those days, newest first.
    let r = rank(&files, "last week");
    assert_eq!(
        paths(&r),
        ["p/daily/2026-05-07.md", "p/daily/2026-05-05.md"]
    );
    let r = rank(&files, "what happened yesterday?");
    assert_eq!(paths(&r), ["p/daily/2026-05-12.md"]);
    assert_eq!(r.terms[0], ("happened".to_string(), 0));
    let r = rank(&files, "what did we do yesterday");
    assert_eq!(r.terms, [("yesterday".to_string(), 1)]);
    assert_eq!(
        r.render(1000),
        "Searched 1 term: yesterday(1) across 1 file. Showing top 1 by relevance.\n\n\
         p/daily/2026-05-12.md  [matched: yesterday]\n(filename match)\ndeploy of the cron job"
    );
}

#[test]
fn newer_logs_win_ties_then_paths() {
    let files = [
        ("p/daily/2026-05-01.md", "fixed the cache\n"),
        ("p/daily/2026-05-03.md", "fixed the cache\n"),
        ("n/b.md", "fixed the cache\n"),
        ("n/a.md", "fixed the cache\n"),
    ];
    assert_eq!(
        paths(&rank(&files, "cache")),
        [
            "p/daily/2026-05-03.md",
            "p/daily/2026-05-01.md",
            "n/a.md",
            "n/b.md"
        ]
    );
}

#[test]
fn stop_words_never_match_alone() {
    let files = [
        ("n/a.md", "What is the plan for the release?\n"),
        ("n/b.md", "Release notes.\n"),
    ];
    let r = rank(&files, "what is the release");
    assert_eq!(r.terms, [("release".to_string(), 2)]);
    assert_eq!(r.hits.len(), 2);
    // Only stop words: none is searched, each is named with 0.
    let r = rank(&files, "what is What");
    assert_eq!(r.terms, [("what".to_string(), 0), ("is".to_string(), 0)]);
    assert!(r.hits.is_empty());
    assert!(
        r.render(500)
            .starts_with("No matches for what(0) is(0): stop words never match alone."),
        "{}",
        r.render(500)
    );
    // Nothing searchable at all.
    assert_eq!(rank(&files, " ?! "), SearchResults::default());
}

#[test]
fn windows_go_around_the_best_lines_in_file_order() {
    // Eight single-term lines, then one line with both terms, far apart.
    let mut text = String::new();
    for i in 0..8 {
        text.push_str(&format!("cache note {i}\n{}", filler(8)));
    }
    text.push_str("cache eviction policy is LRU\n");
    text.push_str(&filler(8));
    let files = [("n/a.md", text.as_str())];
    let r = rank(&files, "cache eviction");
    let hit = &r.hits[0];
    assert_eq!(hit.total_hits, 9);
    assert_eq!(hit.body.matches("\n…\n").count(), MAX_WINDOWS_FOR_TEST - 1);
    // The line with both words is shown though it comes last; the windows
    // are in file order, the first four single-term lines before it.
    assert!(hit.body.contains("cache eviction policy is LRU"));
    let shown: Vec<usize> = (0..8)
        .filter(|i| hit.body.contains(&format!("cache note {i}\n")))
        .collect();
    assert_eq!(shown, [0, 1, 2, 3]);
    assert!(hit.body.find("cache note 3").unwrap() < hit.body.find("LRU").unwrap());
    assert_eq!(r.terms, [("cache".into(), 9), ("eviction".into(), 1)]);
}

const MAX_WINDOWS_FOR_TEST: usize = crate::search::MAX_WINDOWS;

#[test]
fn render_shape_is_the_literal_one() {
    let files = [
        (
            "n/deploy.md",
            "# Deploy\nWe deploy to staging first.\nThen production.\n",
        ),
        ("n/misc.md", "staging is flaky\n"),
    ];
    let r = rank(&files, "deploy staging");
    assert_eq!(
        r.render(10_000),
        "Searched 2 terms: deploy(2) staging(2) across 2 files. Showing top 2 by relevance.\n\n\
         n/deploy.md  [matched: deploy, staging]\n# Deploy\nWe deploy to staging first.\nThen production.\n\n\
         n/misc.md  [matched: staging]\nstaging is flaky"
    );
    let capped = r.render(200);
    assert!(capped.len() <= 200, "{capped}");
    assert!(capped.ends_with("…[1 more file omitted]"), "{capped}");
    assert_eq!(
        rank(&files, "nothing").render(100),
        "No matches for nothing(0)."
    );
}

#[test]
fn statistics_give_the_same_results_as_text() {
    let files = [
        ("MEMORY.md", "- deploy on Fridays never\n"),
        (
            "p/notes/deploy-checklist.md",
            "# Checklist\n- tag\n- deploy\n",
        ),
        ("p/notes/getUserName.md", "Returns the user's name.\n"),
        (
            "p/daily/2026-05-07.md",
            "### 11:00 — deploy\nWe deploy the worker.\n",
        ),
        ("p/daily/2026-05-12.md", "```sh\n# deploy\n```\nuser name\n"),
    ];
    for q in [
        "deploy",
        "deploy checklist",
        "getUserName user",
        "last week deploy",
        "yesterday",
        "what",
    ] {
        assert_eq!(rank(&files, q), rank_by_stats(&files, q), "{q}");
    }
    let s = FileStats::from_text("deploy-checklist", "# Checklist\n- tag\n- deploy\n");
    assert_eq!(s.lengths, [16, 11, 16]);
    let get = |t: &str| s.terms.iter().find(|x| x.0 == t).map(|x| x.1);
    assert_eq!(
        get("deploi"),
        Some(TermStats {
            tf: [1, 0, 1],
            lines: 1
        })
    );
    assert_eq!(
        get("deploychecklist"),
        Some(TermStats {
            tf: [1, 0, 0],
            lines: 0
        })
    );
}

#[test]
fn hostile_queries_and_files_are_bounded() {
    // More terms than the cap: the first ones are searched, and named.
    let words: Vec<String> = (0..MAX_QUERY_TERMS + 10)
        .map(|i| format!("w{i}x"))
        .collect();
    let r = rank(&[("n/a.md", "w0x w70x")], &words.join(" "));
    assert_eq!(r.terms.len(), MAX_QUERY_TERMS);
    assert_eq!(
        r.terms[MAX_QUERY_TERMS - 1].0,
        format!("w{}x", MAX_QUERY_TERMS - 1)
    );
    assert_eq!(r.hits[0].matched_terms, ["w0x"]);
    // A term of very many names keeps its first few.
    let long = vec!["ab"; 5000].join("/");
    let r = rank(&[("n/a.md", "ab ab")], &long);
    assert_eq!(r.hits.len(), 1);
    // Huge lines and identifiers, joiners everywhere, other scripts.
    let text = format!(
        "{}\n{}\n{}\n",
        "word_".repeat(100_000),
        "xY".repeat(50_000),
        "Σ日本-".repeat(10_000)
    );
    // `xYxY…` is the parts `x`, `Yx`, `Yx`, … (a capital starts a part).
    let r = rank(&[("n/big.md", text.as_str())], "word yx 日本");
    assert_eq!(r.hits[0].total_hits, 3);
    assert_eq!(
        r.terms,
        [("word".into(), 1), ("yx".into(), 1), ("日本".into(), 1)]
    );
}

#[test]
fn more_files_than_the_cap_return_the_best() {
    let files: Vec<(String, String)> = (0..MAX_HITS + 20)
        .map(|i| {
            let text = if i == 77 {
                "retry retry retry\n".to_string()
            } else {
                format!("one retry {i}\n{}", filler(i % 7))
            };
            (format!("n/{i:03}.md"), text)
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let r = rank(&files, "retries");
    assert_eq!(r.hits.len(), MAX_HITS);
    assert_eq!(r.hits[0].path, "n/077.md");
    // The counts cover every file, not only those returned.
    assert_eq!(r.terms, [("retries".into(), MAX_HITS + 20)]);
}

#[test]
fn the_prefilter_never_drops_a_file_that_matches() {
    // Texts from pieces that make tokens across joiners, case changes and
    // the Kelvin sign; each query's statistics from the ranker (which skips
    // files the prefilter rules out) must equal those of a full tokenization.
    const PIECES: &[&str] = &[
        "get", "_", "user", "-", "Name", "’", "\u{212A}", "o", "ok", " ", "\n", "# ", "x", "'",
        "names", "G", "e", "T", "é", "—",
    ];
    const QUERIES: &[&str] = &[
        "getusername",
        "ok",
        "user",
        "get_user",
        "namE",
        "xo",
        "getuser name",
        "o",
        "gEt-user-names",
    ];
    let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
    for round in 0..300 {
        let files: Vec<(String, String)> = (0..4)
            .map(|f| {
                let text: String = (0..next(30)).map(|_| PIECES[next(PIECES.len())]).collect();
                (format!("n/{round}-{f}.md"), text)
            })
            .collect();
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        for q in QUERIES {
            assert!(!Ranker::new(q, d(TODAY)).prefilter.off, "{q}");
            assert_eq!(
                rank(&files, q),
                rank_by_stats(&files, q),
                "{q:?} on {files:?}"
            );
        }
    }
}

#[test]
fn the_store_searches_in_either_mode() {
    use crate::{Clock, Memory, Options, WriteMode, WriteTarget};
    let dir = tempfile::tempdir().unwrap();
    let mut options = Options::new("/src/app");
    options.clock = Clock {
        utc_offset_minutes: 0,
        // 2026-05-13T12:00:00Z, a Wednesday.
        fixed_unix_seconds: Some(d(TODAY).to_days() * 86_400 + 12 * 3600),
    };
    let memory = Memory::open(dir.path(), options).unwrap();
    memory
        .write(
            WriteTarget::LongTerm,
            "- deploy carefully",
            WriteMode::Append,
            None,
        )
        .unwrap();
    memory
        .write(
            WriteTarget::Note,
            "# Checklist\n- tag\n- push\n",
            WriteMode::Append,
            Some("deploy-checklist"),
        )
        .unwrap();
    let daily = dir.path().join(memory.project_dir()).join("daily");
    std::fs::create_dir_all(&daily).unwrap();
    std::fs::write(
        daily.join("2026-05-07.md"),
        "### 10:00 — release\nWe deploy the worker.\n",
    )
    .unwrap();
    std::fs::write(daily.join("2026-05-12.md"), "deploy deploy deploy\n").unwrap();
    let r = memory
        .search_with("what did we deploy last week?", SearchMode::Ranked)
        .unwrap();
    let p = memory.project_dir();
    assert_eq!(
        paths(&r),
        [
            format!("{p}/daily/2026-05-07.md"),
            format!("{p}/daily/2026-05-12.md"),
            format!("{p}/notes/deploy-checklist.md"),
            "MEMORY.md".to_string(),
        ]
    );
    assert_eq!(r.hits[0].date.as_deref(), Some("2026-05-07"));
    assert_eq!(
        memory.search_with("deploy", SearchMode::Literal).unwrap(),
        memory.search("deploy").unwrap()
    );
    // Literal keeps MEMORY.md first by rule; ranked does not.
    assert_eq!(memory.search("deploy").unwrap().hits[0].path, "MEMORY.md");
    assert_ne!(
        memory
            .search_with("deploy", SearchMode::Ranked)
            .unwrap()
            .hits[0]
            .path,
        "MEMORY.md"
    );
}

#[test]
fn an_identifiers_parts_favour_the_note_about_them() {
    // Both hold the identifier once in bodies of the same length; without
    // its parts the tie would go to the first path.
    let files = [
        ("n/a-webhooks.md", "Deliveries: `max_retry_count` 8 here.\n"),
        ("n/retry-policy.md", "Defaults: `max_retry_count` 5 here.\n"),
        ("n/prose.md", "We retry at most a count of max times.\n"),
    ];
    let r = rank(&files, "max_retry_count");
    assert_eq!(paths(&r), ["n/retry-policy.md", "n/a-webhooks.md"]);
    assert_eq!(r.terms, [("max_retry_count".to_string(), 2)]);
    assert_eq!(r.hits[0].matched_terms, ["max_retry_count"]);
}

#[test]
fn memory_md_yields_to_a_file_matching_as_well() {
    // The same line in both: MEMORY.md would win the tie on its path.
    let files = [
        ("MEMORY.md", "- rotate the signing keys monthly\n"),
        ("n/keys.md", "- rotate the signing keys monthly\n"),
        ("n/other.md", "nothing relevant\n"),
    ];
    assert_eq!(
        paths(&rank(&files, "rotate signing keys")),
        ["n/keys.md", "MEMORY.md"]
    );
    // Alone, it is still found.
    assert_eq!(paths(&rank(&files, "monthly rotate")).len(), 2);
    assert_eq!(paths(&rank(&files, "relevant")), ["n/other.md"]);
    let only = [("MEMORY.md", "- prefers tabs\n"), ("n/a.md", "spaces\n")];
    assert_eq!(paths(&rank(&only, "tabs")), ["MEMORY.md"]);
}

#[test]
fn neighbouring_query_words_also_match_written_as_one() {
    let files = [
        (
            "n/laptop-setup.md",
            "# Laptop setup\nInstall the toolchain.\n",
        ),
        ("n/misc.md", "Ask for a laptop on day one. Set the clock.\n"),
        (
            "n/flags.md",
            "Rollout of `booking.new_calendar`: 10% then 100%.\n",
        ),
        (
            "n/calendar-colours.md",
            "The calendar view got new colours, rolled by hand.\n",
        ),
    ];
    let r = rank(&files, "how do I set up a laptop");
    assert_eq!(paths(&r), ["n/laptop-setup.md", "n/misc.md"]);
    // Joins nothing holds are not named; those found are.
    assert_eq!(
        r.terms,
        [
            ("set".to_string(), 1),
            ("setup".to_string(), 1),
            ("laptop".to_string(), 2)
        ]
    );
    assert_eq!(r.hits[0].matched_terms, ["setup", "laptop"]);
    // The first word joins by its stem; a join is listed at its first
    // word. The whole of `new_calendar` is a join too, but each of its
    // occurrences is one of `new` and `calendar` as well, and counts once.
    let r = rank(&files, "the new calendar rolled out");
    assert_eq!(r.hits[0].path, "n/flags.md");
    assert_eq!(r.hits[0].matched_terms, ["new", "calendar", "rollout"]);
    // Words that are not plain letters are never joined.
    let r = rank(&files, "v2 calendar");
    assert_eq!(
        r.terms,
        [("v2".to_string(), 0), ("calendar".to_string(), 2)]
    );
}

/// Phase two tokenizes only lines the prefilter cannot rule out, and
/// counts positions only as far as proximity reaches: the same proximity,
/// line scores and windows as tokenizing every line.
#[test]
fn phase_two_skipping_lines_changes_nothing() {
    const WORDS: &[&str] = &[
        "deploy",
        "deploys",
        "staging",
        "to",
        "the",
        "max_retry_count",
        "maxRetryCount",
        "retry",
        "count",
        "rollout",
        "roll",
        "out",
        "set-up",
        "setup",
        "don't",
        "cache",
        "TIMEOUT",
        "timeouts",
        "a",
        "of",
        "Kelvin",
        "\u{212A}elvin",
        "on\u{2019}call",
        "oncall",
        "é",
        "x",
        "-",
        "`",
        "#",
        "##",
        "```",
        "~~~",
        "1.2",
        "ipv6",
        "IPv6",
    ];
    const QUERIES: &[&str] = &[
        "deploy to staging",
        "max_retry_count",
        "retry count timeout",
        "rolled out",
        "set up cache",
        "don't deploy",
        "kelvin",
        "on call",
        "ipv6 staging deploy timeout cache retry count setup rollout the a",
        "timeout",
    ];
    let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
    for trial in 0..400 {
        let mut text = String::new();
        for _ in 0..1 + next(30) {
            // Blank, short and long lines, headings and fences among them.
            for w in 0..next(9) {
                if w > 0 {
                    text.push(if next(5) == 0 { '_' } else { ' ' });
                }
                text.push_str(WORDS[next(WORDS.len())]);
            }
            text.push('\n');
        }
        let query = QUERIES[trial % QUERIES.len()];
        let plan = Plan::new(query, d(TODAY));
        let on = Prefilter::new(&plan);
        let mut off = Prefilter::new(&plan);
        off.off = true;
        let idf: Vec<f64> = (0..plan.tokens.len()).map(|i| 1.0 + i as f64).collect();
        let mut tok = Tokenizer::default();
        let a = detail(&plan, &on, &idf, &mut tok, "deploy-notes", &text);
        let b = detail(&plan, &off, &idf, &mut tok, "deploy-notes", &text);
        let msg = format!("trial {trial}, query {query:?}, text {text:?}");
        assert_eq!(a.proximity.to_bits(), b.proximity.to_bits(), "{msg}");
        assert_eq!(a.lines.len(), b.lines.len(), "{msg}");
        for (x, y) in a.lines.iter().zip(&b.lines) {
            assert_eq!(
                (x.0, x.1.to_bits(), x.2),
                (y.0, y.1.to_bits(), y.2),
                "{msg}"
            );
        }
        assert_eq!(a.chosen, b.chosen, "{msg}");
    }
}

/// The proximity bonus that settles a candidate without its lines equals
/// the one of tokenizing it whole, bit for bit, or gives way to it (text
/// that is not all ASCII).
#[test]
fn proximity_alone_equals_the_full_pass() {
    const WORDS: &[&str] = &[
        "deploy",
        "Deployed",
        "deploys",
        "staging",
        "stage",
        "to",
        "the",
        "max_retry_count",
        "maxRetryCount",
        "MAX-RETRY",
        "retry",
        "count",
        "rollout",
        "roll",
        "out",
        "set-up",
        "set_up",
        "setup",
        "s-etup",
        "d-eploy",
        "don't",
        "cache",
        "cached",
        "TIMEOUT",
        "timeouts",
        "TimeOut",
        "HTTPServer",
        "URLs",
        "a",
        "of",
        "on-call",
        "oncall",
        "x",
        "-",
        "--",
        "_",
        "'",
        "`",
        "`deploy`",
        "#",
        "##",
        "```",
        "~~~",
        "|",
        "1.2",
        "v2.13.6",
        "ipv6",
        "IPv6",
        "deploy2staging",
        "(deploy)",
        "staging.",
        "deploy/staging",
        "é",
        "Kelvin",
    ];
    const QUERIES: &[&str] = &[
        "deploy to staging",
        "deploy staging",
        "max_retry_count",
        "retry count timeout",
        "rolled out",
        "set up cache",
        "don't deploy",
        "on call",
        "ipv6 staging deploy timeout cache retry count setup rollout the a",
        "deploy staging TIMEOUT migration cache token flaky rollback",
        "timeout",
        "staging of the cache",
        "http server urls",
    ];
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
    let (mut fast, mut full, mut near) = (0, 0, 0);
    // A memo is for one query's plan: one per query, kept across texts.
    let mut memos: Vec<FxHashMap<Box<[u8]>, Segment>> = vec![FxHashMap::default(); QUERIES.len()];
    for trial in 0..3000 {
        let mut text = String::new();
        for _ in 0..1 + next(40) {
            for w in 0..next(12) {
                if w > 0 {
                    text.push(match next(8) {
                        0 => '_',
                        1 => '-',
                        2 => '.',
                        3 => '\t',
                        _ => ' ',
                    });
                }
                let word = WORDS[next(WORDS.len())];
                // Most texts are ASCII, as the fast pass needs.
                if !word.is_ascii() && next(4) != 0 {
                    continue;
                }
                text.push_str(word);
            }
            text.push('\n');
        }
        let query = QUERIES[trial % QUERIES.len()];
        let plan = Plan::new(query, d(TODAY));
        let prefilter = Prefilter::new(&plan);
        let idf: Vec<f64> = (0..plan.tokens.len()).map(|i| 0.3 + i as f64).collect();
        let mut tok = Tokenizer::default();
        let name = ["deploy-notes", "staging", "notes", "Deploy Staging"][trial % 4];
        let want = detail(&plan, &prefilter, &idf, &mut tok, name, &text).proximity;
        near += usize::from(want > 0.0);
        let msg = format!("trial {trial}, query {query:?}, text {text:?}");
        // A fresh memo and one kept across texts give the same.
        let memo = &mut memos[trial % QUERIES.len()];
        let again = proximity_only(&plan, &prefilter, &idf, &mut tok, memo, name, &text);
        match proximity_only(
            &plan,
            &prefilter,
            &idf,
            &mut tok,
            &mut FxHashMap::default(),
            name,
            &text,
        ) {
            Some(got) => {
                assert_eq!(got.to_bits(), want.to_bits(), "{msg}");
                assert_eq!(again.map(f64::to_bits), Some(got.to_bits()), "{msg}");
                fast += 1;
            }
            None => {
                assert!(!text.is_ascii(), "{msg}");
                full += 1;
            }
        }
    }
    // Both ways were taken, the fast one far more often, and many texts
    // hold query words near each other.
    assert!(
        fast > 2000 && full > 0 && near > 1000,
        "fast {fast}, full {full}, near {near}"
    );
}

/// Hits given out one by one, re-reading only what the order needs, come
/// in the order of re-reading every candidate and sorting them all.
#[test]
fn lazy_phase_two_gives_the_order_of_reading_everything() {
    const WORDS: &[&str] = &[
        "deploy",
        "to",
        "staging",
        "the",
        "cache",
        "timeout",
        "retry",
        "count",
        "rollout",
        "deploying",
        "Staging",
        "cache-timeout",
        "#",
        "##",
        "\n",
        "\n\n",
    ];
    const QUERIES: &[&str] = &[
        "deploy",
        "deploy to staging",
        "cache timeout",
        "retry count rollout",
        "staging deploy cache",
        "deploy yesterday",
        "last week",
    ];
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
    for round in 0..60 {
        // Enough files that more than MAX_HITS match some queries.
        let files: Vec<(String, String)> = (0..20 + next(140))
            .map(|f| {
                let text: String = (0..next(60))
                    .map(|_| format!("{} ", WORDS[next(WORDS.len())]))
                    .collect();
                let path = if f % 5 == 0 {
                    let n = f / 5;
                    format!(
                        "projects/p/daily/2026-{:02}-{:02}.md",
                        4 + n / 28,
                        1 + n % 28
                    )
                } else {
                    format!("projects/p/notes/n{f}.md")
                };
                (path, text)
            })
            .collect();
        let read = |m: &FileMeta| {
            files
                .iter()
                .find(|(p, _)| *p == m.path)
                .map(|(_, t)| t.to_string())
        };
        for q in QUERIES {
            let ranker = |files: &[(String, String)]| {
                let mut r = Ranker::new(q, d(TODAY));
                for (path, text) in files {
                    r.add_file(meta(path), text);
                }
                r
            };
            // Lazily, as the tool call renders.
            let lazy = ranker(&files).finish(read);
            // Eagerly: every candidate re-read and tokenized whole (its
            // proximity from all its lines), then sorted.
            let mut o = ranker(&files).order();
            let mut all: Vec<(Scored, SearchHit)> = Vec::new();
            while o.next < o.scored.len() {
                let s = o.scored[o.next].clone();
                o.next += 1;
                let meta = o.ranker.files[s.file].meta.clone();
                if let Some(text) = read(&meta) {
                    all.push(o.build_hit(s, &text, None));
                }
            }
            all.sort_by(|a, b| compare(&o.ranker.files, &a.0, &b.0));
            let eager: Vec<SearchHit> = all.into_iter().map(|h| h.1).collect();
            let paths = |h: &[SearchHit]| h.iter().map(|h| h.path.clone()).collect::<Vec<_>>();
            assert_eq!(
                paths(&lazy.hits),
                paths(&eager),
                "round {round}, query {q:?}"
            );
            assert_eq!(lazy.hits, eager, "round {round}, query {q:?}");
            assert_eq!(lazy.terms, o.terms, "round {round}, query {q:?}");
        }
    }
}

/// Taking only the first hits re-reads only as many files as needed: with
/// one query word (no proximity), exactly the hits taken.
#[test]
fn taking_the_first_hits_reads_only_those_files() {
    let files: Vec<(String, String)> = (0..50)
        .map(|i| {
            (
                format!("projects/p/notes/n{i}.md"),
                "deploy\n".repeat(1 + i % 7),
            )
        })
        .collect();
    let mut r = Ranker::new("deploy", d(TODAY));
    for (path, text) in &files {
        r.add_file(meta(path), text);
    }
    let mut o = r.order();
    assert_eq!(o.total(), 50);
    let mut reads = 0;
    let mut read = |m: &FileMeta| {
        reads += 1;
        files
            .iter()
            .find(|(p, _)| *p == m.path)
            .map(|(_, t)| t.to_string())
    };
    for _ in 0..3 {
        assert!(o.next_hit(&mut read).is_some());
    }
    assert_eq!(reads, 3);
}

/// Files are re-read best bound first: one far down the phase-one order
/// whose many occurrences could lift it past the leader is read right
/// after the leader, not after the 30 files between them, which cannot
/// pass it. (Read in phase-one order, the first hit took all 32.)
#[test]
fn a_file_that_could_rise_far_is_read_before_the_ones_between() {
    let filler = |n: usize| "word ".repeat(n);
    let mut files: Vec<(String, String)> = vec![(
        "projects/p/notes/deploy-staging-leader.md".to_string(),
        format!(
            "deploy staging\n{}",
            "deploy word word word word word staging\n".repeat(2)
        ),
    )];
    // Named for the words, so they come before the riser by phase one.
    for i in 0..30 {
        files.push((
            format!("projects/p/notes/deploy-staging-{i:02}.md"),
            format!("deploy {} staging\n", filler(20 + i)),
        ));
    }
    // Many of both words, far apart, in a long file: a low phase-one
    // score and a large bound.
    files.push((
        "projects/p/notes/riser.md".to_string(),
        format!("deploy {} staging {}\n", filler(30), filler(30)).repeat(12),
    ));
    let mut r = Ranker::new("deploy staging", d(TODAY));
    for (path, text) in &files {
        r.add_file(meta(path), text);
    }
    let mut o = r.order();
    let name = |s: &Scored| o.ranker.files[s.file].meta.path.clone();
    // The riser comes last by phase one, right after the leader by bound.
    assert_eq!(name(&o.scored[0]), files[0].0);
    assert_eq!(name(o.scored.last().unwrap()), files[31].0);
    let order: Vec<String> = o.bounds.iter().map(|b| name(&b.0)).collect();
    assert_eq!(order[..2], [files[0].0.clone(), files[31].0.clone()]);
    let mut reads = Vec::new();
    let mut read = |m: &FileMeta| {
        reads.push(m.path.clone());
        files
            .iter()
            .find(|(p, _)| *p == m.path)
            .map(|(_, t)| t.to_string())
    };
    let first = o.next_hit(&mut read).unwrap();
    assert_eq!(first.path, files[0].0);
    assert_eq!(reads, [files[0].0.clone(), files[31].0.clone()]);
}

/// A note whose name holds a date is dated like a log of that day: in a
/// time word's range it comes before files that only match the words.
#[test]
fn a_date_in_a_notes_name_dates_the_note() {
    let date = |path: &str| file_date(&meta(path));
    assert_eq!(
        date("p/notes/incident-2026-04-20-cache.md"),
        Some(d("2026-04-20"))
    );
    assert_eq!(date("p/notes/2026-04-20.md"), Some(d("2026-04-20")));
    assert_eq!(date("p/daily/2026-04-21.md"), Some(d("2026-04-21")));
    // Not a day, part of a longer number, or no day at all.
    for path in [
        "p/notes/release-2026-04-31.md",
        "p/notes/build-12026-04-20.md",
        "p/notes/build-2026-04-201.md",
        "p/notes/deploy-2025.md",
        "p/notes/migration-2026-04.md",
    ] {
        assert_eq!(date(path), None, "{path}");
    }
    let files = [
        ("p/notes/incident-2026-04-20-cache.md", "Cache stampede.\n"),
        ("p/notes/incident-2026-03-02-dns.md", "DNS incident.\n"),
        ("p/daily/2026-04-21.md", "Wrote up the incident.\n"),
        ("p/notes/runbook.md", "Incident response: incident roles.\n"),
        ("p/notes/release-2026-04-31.md", "An incident.\n"),
    ];
    let r = rank(&files, "incident in April");
    let mut first = paths(&r)[..2].to_vec();
    first.sort_unstable();
    assert_eq!(
        first,
        [
            "p/daily/2026-04-21.md",
            "p/notes/incident-2026-04-20-cache.md"
        ]
    );
    assert_eq!(r.hits.len(), 5);
    assert_eq!(r.terms[1], ("in April".to_string(), 2));
}

/// A log in a time word's range comes first when it holds at least half
/// of the other words. In a short range, the other logs of the range come
/// next by relevance, one holding some of the words before one holding
/// none, and then everything else that matches.
#[test]
fn a_log_in_range_comes_first_when_it_holds_half_the_words() {
    let files = [
        ("p/daily/2026-05-06.md", "Loaded data into the lake.\n"),
        ("p/daily/2026-05-07.md", "Warehouse cost went up.\n"),
        ("p/daily/2026-05-08.md", "Lunch with the team.\n"),
        (
            "p/notes/warehouse-cost.md",
            "# Warehouse cost\nThe data warehouse cost is reviewed monthly.\n",
        ),
        ("p/daily/2026-04-02.md", "More data.\n"),
    ];
    let r = rank(&files, "cost of the data warehouse last week");
    assert_eq!(
        paths(&r),
        [
            "p/daily/2026-05-07.md",
            "p/daily/2026-05-06.md",
            "p/daily/2026-05-08.md",
            "p/notes/warehouse-cost.md",
            "p/daily/2026-04-02.md",
        ]
    );
    // Two words: one of them is half.
    let r = rank(&files, "data lake last week");
    assert_eq!(paths(&r)[0], "p/daily/2026-05-06.md");
}

/// The day's chat log names only one of the query's words, a name every
/// log names: it is still the first answer to a question about that day,
/// not ranked among the other logs by a word they all hold.
#[test]
fn a_log_of_the_day_holding_fewer_than_half_the_words_stays_above_other_days() {
    let mut files: Vec<(String, String)> = (1..=9)
        .map(|day| {
            (
                format!("p/daily/2026-05-0{day}.md"),
                "**Jun:** night shift again, Jun is tired. Jun out.\n".to_owned(),
            )
        })
        .collect();
    // Thursday 2026-05-07: Jun's news, in none of the query's other words.
    files[6].1 = "**Jun:** Mira got a solo show in the spring.\n".to_owned();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let r = rank(
        &files,
        "what news did Jun share about his sister last Thursday",
    );
    assert_eq!(paths(&r)[0], "p/daily/2026-05-07.md");
    assert_eq!(r.hits.len(), 9);
}

/// Japanese has no spaces: its words are found by Unicode's word
/// boundaries, an ideograph at a time, the adjacent pair first.
#[test]
fn words_are_found_in_text_without_spaces() {
    let files = [
        ("n/meeting.md", "# 会議\nミーティングは東京で行います。\n"),
        ("n/kyoto.md", "京都の東にある寺。\n"),
        ("n/english.md", "Meeting in Tokyo.\n"),
    ];
    let r = rank(&files, "東京");
    assert_eq!(paths(&r), ["n/meeting.md", "n/kyoto.md"]);
    let r = rank(&files, "ミーティング");
    assert_eq!(paths(&r), ["n/meeting.md"]);
    assert_eq!(r.terms, [("ミーティング".to_string(), 1)]);
}

/// `over the weekend` is Saturday and Sunday before today, so a weekend
/// log holding the word comes before a weekday's that says it more often.
#[test]
fn the_weekend_is_the_last_one_before_today() {
    let files = [
        ("p/daily/2026-05-09.md", "Pager: the queue broke.\n"),
        (
            "p/daily/2026-05-08.md",
            "Queue broke. Queue broke again. Queue.\n",
        ),
        (
            "p/daily/2026-05-02.md",
            "Queue broke on the other weekend.\n",
        ),
    ];
    let r = rank(&files, "what broke over the weekend");
    assert_eq!(r.terms[1], ("over the weekend".to_string(), 1));
    assert_eq!(paths(&r)[0], "p/daily/2026-05-09.md");
    assert_eq!(r.hits.len(), 3);
}

/// A note whose whole name the query says comes before a near namesake
/// that says the words as often, and stop words in a name do not count.
#[test]
fn a_query_naming_a_note_whole_puts_it_first() {
    let files = [
        (
            "p/notes/backfill-procedure.md",
            "# Backfill procedure\nPause the DAG, run the backfill, unpause it, then rebuild the models downstream of the orders table.\n",
        ),
        (
            "p/notes/backfill-procedure-2025.md",
            "# Backfill procedure (2025)\nSuperseded: use the backfill procedure note.\n",
        ),
        ("p/notes/how-to-deploy.md", "Tag, then deploy.\n"),
        ("p/notes/deploy-staging.md", "Deploy to staging first.\n"),
    ];
    assert_eq!(
        paths(&rank(&files, "backfill procedure"))[..2],
        [
            "p/notes/backfill-procedure.md",
            "p/notes/backfill-procedure-2025.md"
        ]
    );
    let plan = Plan::new("deploy", d(TODAY));
    assert!(plan.names("how-to-deploy"));
    assert!(!plan.names("deploy-staging"));
    assert!(!plan.names("to"));
    assert!(Plan::new("what goes into the on-call handoff", d(TODAY)).names("on-call"));
    assert!(!Plan::new("backfill procedure", d(TODAY)).names("backfill-procedure-2025"));
}

#[test]
fn a_word_finds_its_derivational_relatives_below_itself() {
    let files = [
        (
            "n/customer-escalations.md",
            "# Customer escalations\nPage the account lead.\n",
        ),
        ("n/on-call.md", "Escalating: page the lead.\n"),
        ("n/other.md", "Nothing relevant here.\n"),
    ];
    // The note says `escalations`: found, after the file with the word.
    let r = rank(&files, "escalating");
    assert_eq!(paths(&r), ["n/on-call.md", "n/customer-escalations.md"]);
    assert_eq!(
        r.terms,
        [("escalating".to_string(), 1), ("escalation".to_string(), 1)]
    );
    assert_eq!(r.hits[1].matched_terms, ["escalation"]);
    assert!(r.hits[1].body.contains("Customer escalations"));
    // Relatives nothing holds are not named.
    assert_eq!(rank(&files, "paging").terms, [("paging".to_string(), 2)]);
    // A relative adds nothing where the word itself is: these two tie, and
    // the tie goes to the path.
    let files = [
        ("n/a.md", "renewing the certs, xxxxxxx.\n"),
        ("n/b.md", "renewing the certs, renewal.\n"),
    ];
    assert_eq!(paths(&rank(&files, "renewing")), ["n/a.md", "n/b.md"]);
    // Without the word, the relative ranks the file.
    let files = [
        ("n/a.md", "the weather today\n"),
        ("n/b.md", "cert renewal is monthly\n"),
    ];
    let r = rank(&files, "renewing");
    assert_eq!(paths(&r), ["n/b.md"]);
    assert_eq!(r.hits[0].matched_terms, ["renewal"]);
    // A relative only a note's name holds is named too, with no lines, as
    // the hit that matched it says.
    let files = [(
        "n/escalation-policy.md",
        "# Policy
Page the lead.
",
    )];
    let r = rank(&files, "escalating");
    assert_eq!(r.hits[0].matched_terms, ["escalation"]);
    assert_eq!(
        r.terms,
        [("escalating".to_string(), 0), ("escalation".to_string(), 0)]
    );
}

#[test]
fn an_identifier_no_file_holds_is_searched_by_its_parts() {
    let files = [
        ("n/retry-policy.md", "Set `max_retry_count` to 5.\n"),
        ("n/prose.md", "Each retry adds to the count.\n"),
        ("n/split.md", "Count the retry then go on.\n"),
        ("n/other.md", "Nothing here.\n"),
    ];
    // Part of the identifier: every file holding all its parts, the one
    // with them next to each other, in order, first.
    let r = rank(&files, "retry_count");
    assert_eq!(paths(&r), ["n/retry-policy.md", "n/split.md", "n/prose.md"]);
    assert_eq!(r.terms, [("retry_count".to_string(), 3)]);
    assert_eq!(r.hits[0].matched_terms, ["retry_count"]);
    assert!(r.hits[0].body.contains("max_retry_count"));
    // An identifier some file holds is that identifier only.
    let r = rank(&files, "max_retry_count");
    assert_eq!(paths(&r), ["n/retry-policy.md"]);
    // Parts that are not all in one file find nothing.
    assert_eq!(paths(&rank(&files, "retry_budget")), Vec::<&str>::new());
}

#[test]
fn a_join_that_is_also_its_words_counts_once() {
    let files = [
        ("n/a.md", "Send the api version header.\n"),
        ("n/b.md", "Send the api-version header.\n"),
        ("n/c.md", "Send the apiversion header.\n"),
    ];
    // `api-version` holds `api`, `version` and the join `apiversion`: the
    // same words once, so it ties with the prose (the path decides).
    let r = rank(&files, "api version");
    assert_eq!(paths(&r), ["n/a.md", "n/b.md", "n/c.md"]);
    assert_eq!(r.hits[1].matched_terms, ["api", "version"]);
    // Written as one word, the join is all there is.
    assert_eq!(r.hits[2].matched_terms, ["apiversion"]);
    assert_eq!(
        r.terms,
        [
            ("api".to_string(), 2),
            ("apiversion".to_string(), 1),
            ("version".to_string(), 2)
        ]
    );
}

#[test]
fn a_row_that_names_a_code_outranks_a_passing_mention() {
    let table = "# Error codes\n| code | meaning |\n|---|---|\n| `E1001` | not authenticated |\n| `E1003` | not allowed for this tenant |\n| `E1101` | export too large: more rows than the cap |\n| `E1102` | export expired |\n| `E2040` | query timeout |\n";
    let mention = "Exports never retry: a failed export is marked failed and the user gets the E1101 email.\n";
    let files = [
        ("p/notes/error-codes.md", table),
        ("p/notes/exports.md", mention),
    ];
    let r = rank(&files, "E1101");
    assert_eq!(paths(&r), ["p/notes/error-codes.md", "p/notes/exports.md"]);
    // Its window is around the row.
    assert!(
        r.hits[0].body.contains("| `E1101` | export too large"),
        "{}",
        r.hits[0].body
    );
    // The same row with the code after plain words is only a mention: the
    // shorter file comes first.
    let prose = table.replace("| `E1101` | export", "| export `E1101` |");
    let files = [
        ("p/notes/error-codes.md", prose.as_str()),
        ("p/notes/exports.md", mention),
    ];
    assert_eq!(
        paths(&rank(&files, "E1101")),
        ["p/notes/exports.md", "p/notes/error-codes.md"]
    );
}

#[test]
fn a_long_range_does_not_put_logs_without_a_word_first() {
    let files = [
        (
            "p/daily/2026-02-02.md",
            "### 10:00 — standup\nNothing special.\n",
        ),
        (
            "p/daily/2026-05-05.md",
            "### 10:00 — review\nRenamed buckets.\n",
        ),
        (
            "p/notes/pager-history.md",
            "# Pager history\nEvery page, and who was paged.\n",
        ),
    ];
    // A year of logs is no answer by date alone: they follow the match.
    assert_eq!(
        paths(&rank(&files, "who got paged this year")),
        [
            "p/notes/pager-history.md",
            "p/daily/2026-05-05.md",
            "p/daily/2026-02-02.md",
        ]
    );
    // A week's are.
    assert_eq!(
        paths(&rank(&files, "who got paged last week")),
        ["p/daily/2026-05-05.md", "p/notes/pager-history.md"]
    );
}

#[test]
fn a_join_counts_as_the_words_it_spells_not_on_top_of_them() {
    let note = format!(
        "# Cloud SQL\nThe primary runs Postgres 16 on Cloud SQL, with one replica.\n{}",
        filler(12)
    );
    // Logs that say the words in passing make them common; the join is rare.
    let logs: Vec<(String, String)> = (1..=8)
        .map(|day| {
            (
                format!("p/daily/2026-04-{day:02}.md"),
                format!(
                    "### 10:00 — checks\nCloud SQL CPU at {day}0%.\n{}",
                    filler(3)
                ),
            )
        })
        .collect();
    let mut files = vec![
        ("p/notes/cloud-sql.md", note.as_str()),
        (
            "p/notes/incident-cloudsql-failover.md",
            "# Failover\nCloud SQL failed over at 14:02; pools kept stale connections.\n",
        ),
    ];
    files.extend(logs.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    let r = rank(&files, "cloud sql");
    assert_eq!(
        paths(&r)[..2],
        [
            "p/notes/cloud-sql.md",
            "p/notes/incident-cloudsql-failover.md"
        ]
    );
    // The join is still found and named where it is written.
    assert_eq!(r.hits[1].matched_terms, ["cloud", "cloudsql", "sql"]);
    assert_eq!(r.hits[0].matched_terms, ["cloud", "sql"]);
}

/// A note that names the month a query asks about, and matches its words,
/// comes after the logs of that month that match them, and before those
/// that match nothing; naming the month alone makes nothing a hit.
#[test]
fn a_note_naming_the_month_asked_about_is_in_it() {
    let files = [
        ("p/daily/2026-04-10.md", "Lunch with the team.\n"),
        ("p/daily/2026-04-20.md", "The cloud bill went up.\n"),
        (
            "p/notes/cloud-costs.md",
            "# Cloud costs\nApril 2026 bill: $40k.\n",
        ),
        (
            "p/notes/cloud-pricing.md",
            "# Cloud pricing\nThe bill per hour.\n",
        ),
        (
            "p/notes/holidays.md",
            "# Holidays\nTwo days off in April.\n",
        ),
    ];
    let expected = [
        "p/daily/2026-04-20.md",
        "p/notes/cloud-costs.md",
        "p/daily/2026-04-10.md",
        "p/notes/cloud-pricing.md",
    ];
    // Today is in May: `last month` is April too.
    for (query, month) in [
        ("what was the cloud bill in April", "in April"),
        ("cloud bill last month", "last month"),
    ] {
        let r = rank(&files, query);
        assert_eq!(paths(&r), expected, "{query}");
        assert_eq!(r.hits[1].matched_terms, ["cloud", "bill", month]);
        assert_eq!(r.hits[2].matched_terms, [month]);
        assert_eq!(r.hits[3].matched_terms, ["cloud", "bill"]);
    }
    // A week is not a month: the note is an ordinary match.
    let r = rank(&files, "cloud bill last week");
    let note = r
        .hits
        .iter()
        .find(|h| h.path == "p/notes/cloud-costs.md")
        .unwrap();
    assert_eq!(note.matched_terms, ["cloud", "bill"]);
    assert!(!paths(&r).contains(&"p/notes/holidays.md"));
}

/// Lowercasing can change a character's length: the Kelvin sign `K` (three
/// bytes) is `k` (one). A name holding one is still its token, from the
/// text as from the statistics an index keeps (a fuzz find).
#[test]
fn a_character_that_shrinks_when_lowercased_still_matches() {
    let files = [("p/notes/a.md", "y-ks3\u{212A}3ù and \u{212A}elvin\n")];
    for q in ["y-ks3k3ù", "kelvin"] {
        let r = rank(&files, q);
        assert_eq!(r.terms, [(q.to_string(), 1)], "{q}");
        assert_eq!(r, rank_by_stats(&files, q), "{q}");
    }
}
