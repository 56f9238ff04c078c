//! Search over arbitrary files and queries: never panics, counts agree
//! with hits, and the rendering never exceeds its cap.
#![no_main]

use agent_memory_core::search::{FileMeta, Query, Searcher};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, Vec<(&str, &str)>, u16)| {
    let (query, files, cap) = input;
    let parsed = Query::parse(query);
    let terms = parsed.terms().to_vec();
    let mut searcher = Searcher::new(parsed);
    for (i, (stem, text)) in files.iter().take(16).enumerate() {
        let meta = FileMeta {
            path: format!("notes/{i}.md"),
            stem: (*stem).to_string(),
            date: None,
            is_memory_md: i == 0,
        };
        searcher.add_file(meta, text);
    }
    let results = searcher.finish();
    assert_eq!(results.terms.len(), terms.len());
    for hit in &results.hits {
        for term in &hit.matched_terms {
            assert!(terms.contains(term), "{term:?} is not a query term");
        }
        assert!(!hit.matched_terms.is_empty());
        assert_eq!(hit.filename_only, hit.total_hits == 0);
    }
    for max in [usize::from(cap), 512, 32 * 1024] {
        let rendered = results.render(max);
        assert!(rendered.len() <= max, "{} > {max}", rendered.len());
    }
});
