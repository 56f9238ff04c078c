//! Note-name and daily-date validation: never panics, and whatever it
//! accepts is safe to use as one file name in the store.
#![no_main]

use std::path::{Component, Path};

use agent_memory_core::names::{MAX_NOTE_NAME_BYTES, MAX_NOTE_NAME_CHARS, daily_date, note_stem};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|raw: &str| {
    if let Ok(stem) = note_stem(raw) {
        assert!(!stem.is_empty());
        assert!(stem.chars().count() <= MAX_NOTE_NAME_CHARS);
        assert!(stem.len() <= MAX_NOTE_NAME_BYTES);
        assert!(!stem.starts_with(' ') && !stem.ends_with(' ') && !stem.contains("  "));
        let chars: Vec<char> = stem.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            // A dot only between two ASCII digits (`release-1.2`).
            let digit_dot = c == '.'
                && i > 0
                && chars[i - 1].is_ascii_digit()
                && chars.get(i + 1).is_some_and(char::is_ascii_digit);
            assert!(
                c == ' ' || c == '-' || c == '_' || c.is_alphanumeric() || digit_dot,
                "{c:?}"
            );
            assert!(!c.is_control());
        }
        // Exactly one ordinary path component, never a dot file.
        let file = format!("{stem}.md");
        let parts: Vec<Component> = Path::new(&file).components().collect();
        assert_eq!(parts, [Component::Normal(file.as_ref())]);
        assert!(!file.starts_with('.'));
        // Nothing was rewritten: the stem is what was given, trimmed.
        let trimmed = raw.trim();
        assert!(trimmed == stem || trimmed.strip_suffix(".md") == Some(stem));
        // Validation is idempotent.
        assert_eq!(note_stem(stem).ok(), Some(stem));
        let upper = stem.to_uppercase();
        assert!(!matches!(upper.as_str(), "CON" | "PRN" | "AUX" | "NUL"));
    }
    if let Ok(date) = daily_date(raw) {
        assert_eq!(date.to_string(), raw);
        assert!(raw.len() == 10 && raw.is_ascii());
    }
});
