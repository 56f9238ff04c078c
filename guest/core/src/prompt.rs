//! Pure helpers a runtime needs around the memory block.

/// One token per 4 bytes of UTF-8, rounded up: a deliberately simple,
/// tokenizer-free estimate that errs on the high side for English prose.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// `base` plus the block's token estimate, saturating; `base` for `None`.
pub fn effective_reserve(base: u64, block: Option<&str>) -> u64 {
    base.saturating_add(block.map_or(0, estimate_tokens))
}

/// `preamble`, then `\n\n---\n\n` and the block; `preamble` unchanged for
/// `None` or an empty block.
pub fn append_memory_block(preamble: &str, block: Option<&str>) -> String {
    match block {
        Some(b) if !b.is_empty() => format!("{preamble}\n\n---\n\n{b}"),
        _ => preamble.to_string(),
    }
}

/// `compaction summary (N msgs)`, or `compaction summary` for `None`.
pub fn compaction_heading(count: Option<u32>) -> String {
    match count {
        Some(n) => format!("compaction summary ({n} msgs)"),
        None => "compaction summary".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(effective_reserve(100, None), 100);
        assert_eq!(effective_reserve(100, Some("12345678")), 102);
        assert_eq!(effective_reserve(u64::MAX, Some("x")), u64::MAX);
        assert_eq!(
            append_memory_block("P", Some("<memory/>")),
            "P\n\n---\n\n<memory/>"
        );
        assert_eq!(append_memory_block("P", Some("")), "P");
        assert_eq!(append_memory_block("P", None), "P");
        assert_eq!(compaction_heading(Some(42)), "compaction summary (42 msgs)");
        assert_eq!(compaction_heading(None), "compaction summary");
    }
}
