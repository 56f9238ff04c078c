//! The behavioural suite: every case in `cases` runs against the native core
//! and through the real component in wasmtime; `agreement` replays one
//! session on both and compares every output; `golden` pins the exact text
//! of the context block and of rendered search.

/// Instantiate each case of the including module once per backend (cases
/// that live beside their own helpers; `suite!` below is for `cases`).
macro_rules! both {
    ($($case:ident),* $(,)?) => {
        mod native {
            $( #[test] fn $case() { super::$case::<agent_memory_tests::Native>() } )*
        }
        mod component {
            $( #[test] fn $case() { super::$case::<agent_memory_tests::Component>() } )*
        }
    };
}

mod agreement;
mod anchors;
mod cases;
mod durability;
mod golden;
mod hostile;
mod sandbox;
mod team;
mod vectors;

/// Instantiate each case once per backend.
macro_rules! suite {
    ($($case:ident),* $(,)?) => {
        mod native {
            $( #[test] fn $case() { crate::cases::$case::<agent_memory_tests::Native>() } )*
        }
        mod component {
            $( #[test] fn $case() { crate::cases::$case::<agent_memory_tests::Component>() } )*
        }
    };
}

suite! {
    layout_and_slug,
    same_basename_gets_distinct_storage,
    dates_are_local,
    append_inserts_newline_only_when_missing,
    append_empty_content_changes_nothing,
    overwrite_replaces_and_keeps_a_backup,
    write_cap_cuts_at_a_char_boundary,
    unknown_target_or_mode_is_an_error,
    note_name_rules,
    note_name_trimming,
    read_sources,
    read_is_capped_with_a_marker,
    read_daily_dates,
    list_covers_this_project_only,
    append_daily_entry_format,
    search_literal_case_insensitive_any_term,
    search_windows_merge_and_cap,
    search_filename_fallback,
    search_coverage,
    ranked_search_covers_the_scratchpad,
    search_ranking,
    search_render_cap,
    search_empty_query,
    context_none_when_empty,
    context_shape_and_open_items,
    context_index_line_limit,
    context_index_byte_limit,
    context_cap_keeps_freshest,
    context_weekend_gap,
    context_neutralizes_wrapper_tags,
    context_skips_special_files,
    flush_compaction_heading,
    prompt_helpers,
    tool_definitions_match_the_seed,
    tool_calls_round_trip,
    tool_call_argument_errors,
    invalid_options_are_rejected,
    concurrent_appends_are_serialized,
    stale_lock_is_broken,
    leftover_temp_files_are_hidden_and_cleaned,
    read_over_4_gib_keeps_its_size,
    overwrite_of_a_file_over_16_mib_warns_that_history_did_not_save_it,
    query_terms_are_capped,
    pinned_time_extremes_are_rejected,
    curation_tools_round_trip,
    writes_report_the_budget_and_warn_when_cut,
    ranked_search_of_many_repeats_is_bounded,
}
