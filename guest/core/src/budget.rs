//! Budget feedback: what every write tells the model about how full the
//! injected memory is, and whether what it just wrote will be seen.
//!
//! The numbers come from rendering the context block exactly as
//! `context-block` would, right after the write and under the same lock
//! (see [`crate::context::build_with_layout`]), so the reach of the text
//! just written is decided on the block itself, not estimated.

use crate::limits::{INDEX_MAX_BYTES, INDEX_MAX_LINES};
use crate::words::{self, Act, Audience};

/// Whether the text a call just wrote reaches the next context block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// All of it is in the block; also when the call added nothing the
    /// block would show (a deletion, whitespace).
    Whole,
    /// Some of it is cut: by the index limits of `MEMORY.md` or by the
    /// block's cap.
    Partly,
    /// None of it is in the block.
    Cut,
    /// The file is never in the block: a note, a scratchpad line that is
    /// not an open item, a daily log other than today's and the latest
    /// earlier one.
    NotInjected,
}

/// Why a file that the block shows does not fully get in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// `MEMORY.md` is longer than the index's line limit.
    IndexLines,
    /// `MEMORY.md` is larger than the index's byte limit.
    IndexBytes,
    /// The block's byte cap.
    Cap,
}

/// Which file a call wrote, as the block sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    LongTerm,
    Scratchpad,
    /// Today's log, or the earlier one the block shows.
    Log,
    /// Anything the block never shows.
    Other(Hidden),
}

/// What kind of file the block never shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hidden {
    Note,
    /// A scratchpad write without an open item.
    ClosedItems,
    /// A daily log other than today's and the latest earlier one.
    OldLog,
}

/// How full the injected memory is after a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// Lines of `MEMORY.md` (counted in its first 16 MiB).
    pub index_lines: u64,
    /// The index's line limit (200).
    pub index_max_lines: u32,
    /// Bytes of `MEMORY.md`.
    pub index_bytes: u64,
    /// The index's byte limit (25,000).
    pub index_max_bytes: u32,
    /// Bytes of the context block as `context-block` renders it now,
    /// wrapper included; 0 when there is no block.
    pub block_bytes: u32,
    /// The block's cap (`max-inject-bytes`).
    pub block_max_bytes: u32,
    /// Whether what the call wrote reaches the next block.
    pub reach: Reach,
    /// What to do about a `Partly` or `Cut` reach; `None` otherwise.
    pub warning: Option<String>,
    /// For a file the block never shows, the line says so.
    note: Option<String>,
    /// Measured on a team store: its MEMORY.md and the team section alone.
    team: bool,
}

impl Budget {
    /// The budget line, then the warning on its own line when there is
    /// one: what the receipts' messages end with.
    pub fn text(&self) -> String {
        let (index, block) = if self.team {
            ("team MEMORY.md", "team section of the context block")
        } else {
            ("MEMORY.md", "context block")
        };
        let mut out = format!(
            "Budget: {index} {}/{} lines, {}/{} bytes; {block} {}/{} bytes",
            self.index_lines,
            self.index_max_lines,
            self.index_bytes,
            self.index_max_bytes,
            self.block_bytes,
            self.block_max_bytes
        );
        if let Some(note) = &self.note {
            out.push_str(" (");
            out.push_str(note);
            out.push(')');
        }
        if let Some(warning) = &self.warning {
            out.push('\n');
            out.push_str(warning);
        }
        out
    }

    /// The same budget, measured on a team store.
    pub(crate) fn on_team(mut self) -> Budget {
        self.team = true;
        self
    }

    /// A budget for sizes and a reach, with the line's note on hidden
    /// files and the warning it calls for.
    pub(crate) fn new(
        sizes: (u64, u64, usize, usize),
        target: Target,
        reach: Reach,
        cause: Cause,
        path: &str,
        audience: Audience,
    ) -> Budget {
        let write_note = words::name(audience, Act::WriteNote);
        let (index_lines, index_bytes, block_bytes, cap) = sizes;
        let mut budget = Budget {
            index_lines,
            index_max_lines: INDEX_MAX_LINES as u32,
            index_bytes,
            index_max_bytes: INDEX_MAX_BYTES as u32,
            block_bytes: u32::try_from(block_bytes).unwrap_or(u32::MAX),
            block_max_bytes: u32::try_from(cap).unwrap_or(u32::MAX),
            reach,
            warning: None,
            note: None,
            team: false,
        };
        if let Target::Other(hidden) = target {
            budget.reach = Reach::NotInjected;
            budget.note = Some(match hidden {
                Hidden::Note => format!(
                    "notes are not in it; {} finds them",
                    words::name(audience, Act::Search)
                ),
                Hidden::ClosedItems => "only open scratchpad items (- [ ]) are in it".to_string(),
                Hidden::OldLog => {
                    "only today's log and the latest earlier one are in it".to_string()
                }
            });
            return budget;
        }
        if !matches!(reach, Reach::Partly | Reach::Cut) {
            return budget;
        }
        let what = if reach == Reach::Partly {
            "part of what was just written"
        } else {
            "what was just written"
        };
        let index_advice = format!(
            "Keep MEMORY.md an index: move detail into a note ({write_note}) with a one-line pointer in MEMORY.md, and shorten it with {}.",
            words::name(audience, Act::Edit)
        );
        budget.warning = Some(match (cause, target) {
            (Cause::IndexLines, _) => format!(
                "WARNING: MEMORY.md has {index_lines} lines and the context block shows only the first {INDEX_MAX_LINES}, so {what} will not reach it. {index_advice}"
            ),
            (Cause::IndexBytes, _) => format!(
                "WARNING: MEMORY.md is {index_bytes} bytes and the context block shows only the first {INDEX_MAX_BYTES}, so {what} will not reach it. {index_advice}"
            ),
            (Cause::Cap, target) => {
                let advice = match target {
                    Target::Scratchpad => format!(
                        "Close finished items (- [x]) and move detail into a note ({write_note})."
                    ),
                    Target::LongTerm => format!(
                        "Close finished scratchpad items (- [x]) and keep MEMORY.md a short index: move detail into notes ({write_note})."
                    ),
                    _ => format!(
                        "Keep log entries short and move detail into a note ({write_note}); close finished scratchpad items (- [x])."
                    ),
                };
                format!(
                    "WARNING: the context block is over its {cap}-byte cap, so {what} to {path} will not reach it. {advice}"
                )
            }
        });
        budget
    }
}
