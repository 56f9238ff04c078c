//! The context block from arbitrary sections: never panics, never exceeds
//! its cap, and has exactly one opening and one closing wrapper tag.
#![no_main]

use agent_memory_core::context::{self, CLOSE_TAG, OPEN_TAG, Sources};
use libfuzzer_sys::fuzz_target;

/// `<`, optional space, optional `/`, optional space, `memory` (any case).
fn tags(block: &str) -> (usize, usize) {
    let (mut open, mut close) = (0, 0);
    for (at, _) in block.match_indices('<') {
        let rest = block[at + 1..].trim_start();
        let (closing, rest) = match rest.strip_prefix('/') {
            Some(r) => (true, r.trim_start()),
            None => (false, rest),
        };
        if rest
            .get(..6)
            .is_some_and(|n| n.eq_ignore_ascii_case("memory"))
        {
            if closing {
                close += 1;
            } else {
                open += 1;
            }
        }
    }
    (open, close)
}

fuzz_target!(|input: (&str, &str, &str, &str, u16, u8)| {
    let (long_term, scratchpad, earlier, today, cap, repeat) = input;
    // Repetition reaches past the caps without huge inputs.
    let times = usize::from(repeat % 64) + 1;
    let long_term = long_term.repeat(times);
    let today = today.repeat(times);
    let cap = 512 + usize::from(cap);
    let sources = Sources {
        long_term: Some((long_term.clone(), long_term.len() as u64)),
        scratchpad: Some(scratchpad.to_string()),
        earlier: Some(("2026-05-29".into(), earlier.to_string())),
        today: Some(("2026-05-30".into(), today)),
        team: Some((scratchpad.to_string(), scratchpad.len() as u64)),
        notices: vec![earlier.to_string()],
        marks: context::Marks {
            long_term: vec![scratchpad.to_string()],
            team: vec![earlier.to_string()],
            notes: vec![long_term.clone()],
        },
    };
    if let Some(block) = context::build(&sources, cap) {
        assert!(block.len() <= cap, "{} > {cap}", block.len());
        assert!(block.starts_with(OPEN_TAG));
        assert!(block.ends_with(CLOSE_TAG));
        assert_eq!(tags(&block), (1, 1));
    }
});
