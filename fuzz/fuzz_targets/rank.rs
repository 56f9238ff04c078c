//! Ranked search over arbitrary files, dates and queries: never panics,
//! ranks from statistics (as the index feeds it) exactly as from the text,
//! returns each file at most once, and renders within its cap.
#![no_main]

use std::collections::BTreeSet;

use agent_memory_core::rank::{FileStats, MAX_HITS, Ranker};
use agent_memory_core::search::FileMeta;
use agent_memory_core::time::Date;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, Vec<(&str, &str, u8)>, u16, u16)| {
    let (query, files, day, cap) = input;
    // Today within a few years of 2026, so time words land near the logs.
    let today = Date::from_days(Date::new(2026, 1, 1).unwrap().to_days() + i64::from(day % 1200));
    let files: Vec<(FileMeta, &str)> = files
        .iter()
        .take(16)
        .enumerate()
        .map(|(i, (stem, text, kind))| {
            // A kind below 128 makes a daily log dated up to 127 days before
            // today, else a note named `stem`; the first file is MEMORY.md.
            let date = (*kind < 128).then(|| Date::from_days(today.to_days() - i64::from(*kind)));
            let meta = match (i, date) {
                (0, _) => FileMeta {
                    path: "MEMORY.md".into(),
                    stem: "MEMORY".into(),
                    date: None,
                    is_memory_md: true,
                },
                (_, Some(d)) => FileMeta {
                    path: format!("p/daily/{d}.{i}.md"),
                    stem: d.to_string(),
                    date: Some(d.to_string()),
                    is_memory_md: false,
                },
                (_, None) => FileMeta {
                    path: format!("p/notes/{i}.md"),
                    stem: (*stem).to_string(),
                    date: None,
                    is_memory_md: false,
                },
            };
            (meta, *text)
        })
        .collect();
    let read = |m: &FileMeta| {
        files
            .iter()
            .find(|(f, _)| f.path == m.path)
            .map(|(_, t)| t.to_string())
    };
    let mut by_text = Ranker::new(query, today);
    let mut by_stats = Ranker::new(query, today);
    for (meta, text) in &files {
        by_text.add_file(meta.clone(), text);
        by_stats.add_stats(meta.clone(), &FileStats::from_text(&meta.stem, text));
    }
    let results = by_text.finish(read);
    assert_eq!(results, by_stats.finish(read));
    assert!(results.hits.len() <= MAX_HITS);
    let mut seen = BTreeSet::new();
    for hit in &results.hits {
        assert!(seen.insert(&hit.path), "{} twice", hit.path);
        assert!(files.iter().any(|(m, _)| m.path == hit.path));
    }
    for max in [usize::from(cap), 512, 32 * 1024] {
        let rendered = results.render(max);
        assert!(rendered.len() <= max, "{} > {max}", rendered.len());
    }
});
