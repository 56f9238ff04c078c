//! The budget feedback of a write: the context block rendered as
//! `context-block` would, right after the change, and where the text just
//! written ended up in it.

use std::ops::Range;

use super::Memory;
use crate::budget::{Budget, Cause, Hidden, Reach, Target};
use crate::context::{self, Part};
use crate::fsio;
use crate::limits::MAX_SEARCH_FILE_BYTES;

/// `range` of `text` without its leading and trailing whitespace.
fn trimmed(text: &str, range: Range<usize>) -> Range<usize> {
    let Some(part) = text.get(range.clone()) else {
        // Not at character boundaries (a file read lossily): keep it whole.
        return range;
    };
    let start = range.start + (part.len() - part.trim_start().len());
    start..start.max(range.start + part.trim_end().len())
}

impl Memory {
    /// How full the injected memory is now: the budget a change that wrote
    /// nothing would get (reach [`Reach::Whole`], no warning). Costs what
    /// the budget of a write costs: the block is rendered once.
    pub fn budget(&self) -> Budget {
        self.budget_after(&self.long_term_rel().path(), 0..0)
    }

    /// The budget after a call that wrote the bytes `range` (offsets in the
    /// file after the change; empty when it added nothing, e.g. a delete)
    /// of the store file `path`. Call it with the lock still held, so the
    /// block is the one this change made.
    pub(crate) fn budget_after(&self, path: &str, range: Range<u64>) -> Budget {
        let mut gathered = self.gather();
        let team = self.layout == super::Layout::Team;
        if team {
            // A team store's MEMORY.md is the team section of every
            // teammate's block: measured as that section alone, under the
            // same index limits (this store cannot see the personal one).
            let sources = &mut gathered.sources;
            *sources = context::Sources {
                team: sources.long_term.take(),
                ..context::Sources::default()
            };
        } else {
            // The personal block also shows the team's index and notices.
            self.add_team_sources(&mut gathered.sources);
            self.add_due_notice(&mut gathered.sources);
        }
        // Staleness marks take room in the block as they do in
        // `context-block`; the team's section alone has only its own.
        self.add_marks(&mut gathered.sources);
        if team {
            gathered.sources.marks.notes.clear();
        }
        let cap = self.limits.max_inject_bytes;
        let (block, layout) = context::build_with_layout(&gathered.sources, cap);
        let sources = &gathered.sources;
        let index = if team {
            &sources.team
        } else {
            &sources.long_term
        };
        let (index_lines, index_bytes) = match index {
            None => (0, 0),
            Some((text, total)) if text.len() as u64 == *total => (line_count(text), *total),
            Some((_, total)) => {
                let counted = fsio::count_lines(
                    &self.abs(&self.long_term_rel().path()),
                    MAX_SEARCH_FILE_BYTES,
                );
                (counted.unwrap_or(0), *total)
            }
        };
        let sizes = (
            index_lines,
            index_bytes,
            block.as_ref().map_or(0, String::len),
            cap,
        );
        let budget = |target, reach, cause| {
            let budget = Budget::new(sizes, target, reach, cause, path, self.audience);
            if team { budget.on_team() } else { budget }
        };
        // Which section shows the file, its text, and where that text starts
        // in the file.
        let today = self.daily_rel(self.today()).path();
        let (target, part, text, at) = if path == self.long_term_rel().path() {
            let text = index.as_ref().map(|(t, _)| t.as_str());
            let part = if team { Part::Team } else { Part::LongTerm };
            (Target::LongTerm, part, text, 0)
        } else if team {
            return budget(Target::Other(Hidden::Note), Reach::NotInjected, Cause::Cap);
        } else if path == self.scratchpad_rel().path() {
            let text = sources.scratchpad.as_deref();
            (Target::Scratchpad, Part::Scratchpad, text, 0)
        } else if path == today {
            let text = sources.today.as_ref().map(|(_, t)| t.as_str());
            (Target::Log, Part::Today, text, gathered.today_at)
        } else if let Some((date, text)) = &sources.earlier
            && path == format!("{}/{date}.md", self.daily_dir())
        {
            (
                Target::Log,
                Part::Earlier,
                Some(text.as_str()),
                gathered.earlier_at,
            )
        } else if path.starts_with(&format!("{}/", self.daily_dir())) {
            return budget(
                Target::Other(Hidden::OldLog),
                Reach::NotInjected,
                Cause::Cap,
            );
        } else {
            return budget(Target::Other(Hidden::Note), Reach::NotInjected, Cause::Cap);
        };
        let text = text.unwrap_or("");
        // The written bytes inside the text read, and whether some lie
        // beyond it (before a log's tail, past MEMORY.md's head).
        let start = range.start.saturating_sub(at).min(text.len() as u64) as usize;
        let end = range.end.saturating_sub(at).min(text.len() as u64) as usize;
        let outside = range.start < at || range.end > at + text.len() as u64;
        let written = trimmed(text, start..end);
        let (shown, kept) = layout
            .get(part)
            .map_or((0, 0), |s| s.count(written.clone()));
        let reach = if target == Target::Scratchpad {
            if shown == 0 {
                return budget(
                    Target::Other(Hidden::ClosedItems),
                    Reach::NotInjected,
                    Cause::Cap,
                );
            }
            match kept {
                k if k == shown => Reach::Whole,
                0 => Reach::Cut,
                _ => Reach::Partly,
            }
        } else if kept == written.len() && !outside {
            // Also when nothing visible was written (`written` empty).
            Reach::Whole
        } else if kept == 0 {
            Reach::Cut
        } else {
            Reach::Partly
        };
        // MEMORY.md text past what the index limits let through is cut by
        // them; anything else by the cap.
        let cause = match layout.get(part).and_then(|s| s.index_cut) {
            Some((end, lines)) if target == Target::LongTerm && (outside || written.end > end) => {
                if lines {
                    Cause::IndexLines
                } else {
                    Cause::IndexBytes
                }
            }
            _ => Cause::Cap,
        };
        budget(target, reach, cause)
    }
}

/// Lines as `str::lines` counts them.
fn line_count(text: &str) -> u64 {
    let breaks = text.bytes().filter(|&b| b == b'\n').count() as u64;
    breaks + u64::from(!text.is_empty() && !text.ends_with('\n'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;
    use crate::store::{Options, WriteMode, WriteTarget};
    use crate::time::Clock;

    /// 2026-05-30 07:15 UTC.
    const NOW: i64 = 1_780_125_300;

    fn store(max_inject_bytes: usize) -> (tempfile::TempDir, Memory) {
        let dir = tempfile::tempdir().unwrap();
        let mut options = Options::new("/src/app");
        options.clock = Clock {
            utc_offset_minutes: 0,
            fixed_unix_seconds: Some(NOW),
        };
        options.limits = Limits {
            max_inject_bytes,
            ..Limits::default()
        };
        let mem = Memory::open(dir.path(), options).unwrap();
        (dir, mem)
    }

    fn lines(from: usize, to: usize) -> String {
        (from..=to).map(|i| format!("- entry {i}\n")).collect()
    }

    fn append(mem: &Memory, target: WriteTarget, text: &str) -> crate::WriteReceipt {
        let name = (target == WriteTarget::Note).then_some("n");
        mem.write(target, text, WriteMode::Append, name).unwrap()
    }

    fn block_len(mem: &Memory) -> usize {
        mem.context_block().unwrap().map_or(0, |b| b.len())
    }

    #[test]
    fn line_200_reaches_the_block_and_line_201_does_not() {
        let (_dir, mem) = store(32768);
        append(&mem, WriteTarget::LongTerm, &lines(1, 199));
        let r = append(&mem, WriteTarget::LongTerm, "- entry 200\n");
        assert_eq!(r.budget.reach, Reach::Whole);
        assert_eq!(r.budget.warning, None);
        assert_eq!(
            r.message,
            format!(
                "Appended 12 bytes to MEMORY.md\nBudget: MEMORY.md 200/200 lines, 2292/25000 bytes; context block {}/32768 bytes",
                block_len(&mem)
            )
        );
        let r = append(&mem, WriteTarget::LongTerm, "- entry 201\n");
        assert_eq!(r.budget.reach, Reach::Cut);
        assert_eq!((r.budget.index_lines, r.budget.index_bytes), (201, 2304));
        assert_eq!(
            r.message,
            format!(
                "Appended 12 bytes to MEMORY.md\nBudget: MEMORY.md 201/200 lines, 2304/25000 bytes; context block {}/32768 bytes\n\
                 WARNING: MEMORY.md has 201 lines and the context block shows only the first 200, so what was just written will not reach it. \
                 Keep MEMORY.md an index: move detail into a note (memory_write target=note) with a one-line pointer in MEMORY.md, and shorten it with memory_edit.",
                block_len(&mem)
            )
        );
        // Across the limit: part of it.
        let (_dir, mem) = store(32768);
        append(&mem, WriteTarget::LongTerm, &lines(1, 198));
        let r = append(&mem, WriteTarget::LongTerm, &lines(199, 202));
        assert_eq!(r.budget.reach, Reach::Partly);
        assert!(
            r.message
                .ends_with("so part of what was just written will not reach it. Keep MEMORY.md an index: move detail into a note (memory_write target=note) with a one-line pointer in MEMORY.md, and shorten it with memory_edit."),
            "{}",
            r.message
        );
        // An edit above line 200 of a long index reaches it.
        let r = mem
            .edit(WriteTarget::LongTerm, None, "- entry 5\n", "- entry five\n")
            .unwrap();
        assert_eq!((r.budget.reach, r.budget.warning), (Reach::Whole, None));
    }

    #[test]
    fn past_25000_bytes_the_warning_names_the_byte_limit() {
        let (_dir, mem) = store(32768);
        let wide: String = (0..99)
            .map(|i| format!("- {i:02} {}\n", "w".repeat(245)))
            .collect();
        let r = append(&mem, WriteTarget::LongTerm, &wide);
        assert_eq!(r.budget.index_bytes, 24849);
        assert_eq!((r.budget.reach, r.budget.warning), (Reach::Whole, None));
        let r = append(
            &mem,
            WriteTarget::LongTerm,
            &format!("- {}\n", "x".repeat(300)),
        );
        assert_eq!(r.budget.reach, Reach::Cut);
        assert_eq!(
            r.message,
            format!(
                "Appended 303 bytes to MEMORY.md\nBudget: MEMORY.md 100/200 lines, 25152/25000 bytes; context block {}/32768 bytes\n\
                 WARNING: MEMORY.md is 25152 bytes and the context block shows only the first 25000, so what was just written will not reach it. \
                 Keep MEMORY.md an index: move detail into a note (memory_write target=note) with a one-line pointer in MEMORY.md, and shorten it with memory_edit.",
                block_len(&mem)
            )
        );
        // A file larger than the part of it the block reads: lines are
        // still counted to the end.
        let r = append(&mem, WriteTarget::LongTerm, &lines(1, 1000));
        assert_eq!((r.budget.index_lines, r.budget.reach), (1100, Reach::Cut));
    }

    #[test]
    fn the_cap_pushing_todays_log_out_is_a_warning() {
        let (_dir, mem) = store(1024);
        let items = |from: usize, to: usize| -> String {
            (from..to)
                .map(|i| format!("- [ ] open item number {i:02} to do soon\n"))
                .collect()
        };
        let r = append(&mem, WriteTarget::Scratchpad, &items(0, 12));
        assert_eq!((r.budget.reach, r.budget.warning), (Reach::Whole, None));
        // More open items than fit: the last ones are cut.
        let r = append(&mem, WriteTarget::Scratchpad, &items(12, 40));
        assert_eq!(r.budget.reach, Reach::Partly);
        assert!(r.message.ends_with(
            "WARNING: the context block is over its 1024-byte cap, so part of what was just written to projects/app-c0167fc9/SCRATCHPAD.md will not reach it. Close finished items (- [x]) and move detail into a note (memory_write target=note)."
        ), "{}", r.message);
        // Today's log then gets only its heading.
        let r = mem.append_daily("deploy", &"detail ".repeat(30)).unwrap();
        assert_eq!(r.budget.reach, Reach::Cut, "{}", r.message);
        let block = mem.context_block().unwrap().unwrap();
        assert!(
            block.ends_with("(today)\n…[memory truncated]\n</memory>"),
            "{block}"
        );
        assert_eq!(
            r.message.split_once('\n').unwrap().1,
            format!(
                "Budget: MEMORY.md 0/200 lines, 0/25000 bytes; context block {}/1024 bytes\n\
                 WARNING: the context block is over its 1024-byte cap, so what was just written to projects/app-c0167fc9/daily/2026-05-30.md will not reach it. \
                 Keep log entries short and move detail into a note (memory_write target=note); close finished scratchpad items (- [x]).",
                block.len()
            )
        );
    }

    #[test]
    fn hidden_files_say_so_and_never_warn() {
        let (_dir, mem) = store(32768);
        append(&mem, WriteTarget::LongTerm, "- a fact\n");
        let expect = |r: &crate::WriteReceipt, note: &str| {
            assert_eq!(r.budget.reach, Reach::NotInjected);
            assert_eq!(r.budget.warning, None);
            assert_eq!(
                r.message.split_once('\n').unwrap().1,
                format!(
                    "Budget: MEMORY.md 1/200 lines, 9/25000 bytes; context block {}/32768 bytes ({note})",
                    block_len(&mem)
                )
            );
        };
        let r = append(&mem, WriteTarget::Note, &"x".repeat(60_000));
        expect(&r, "notes are not in it; memory_search finds them");
        let r = append(&mem, WriteTarget::Scratchpad, "- [x] done already\n");
        expect(&r, "only open scratchpad items (- [ ]) are in it");
        // A log two days old while yesterday's has content.
        let dir = mem.abs(&mem.daily_dir());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("2026-05-28.md"), "old\n").unwrap();
        std::fs::write(dir.join("2026-05-29.md"), "yesterday\n").unwrap();
        let r = mem
            .edit(WriteTarget::Daily, Some("2026-05-28"), "old", "older")
            .unwrap();
        assert_eq!(r.budget.reach, Reach::NotInjected);
        assert!(
            r.message
                .ends_with("(only today's log and the latest earlier one are in it)")
        );
        let r = mem
            .edit(
                WriteTarget::Daily,
                Some("2026-05-29"),
                "yesterday",
                "the day before",
            )
            .unwrap();
        assert_eq!((r.budget.reach, r.budget.warning), (Reach::Whole, None));
    }

    /// Whatever the cap, the reach agrees with the block rendered: a
    /// line reported as reaching it is in it, one reported cut is not.
    #[test]
    fn reach_agrees_with_the_rendered_block() {
        let mut reaches = std::collections::BTreeSet::new();
        for cap in (512..4096).step_by(97) {
            let (_dir, mem) = store(cap);
            append(&mem, WriteTarget::LongTerm, "- index <memory> line\n");
            for i in 0..12 {
                let target = [
                    WriteTarget::LongTerm,
                    WriteTarget::Scratchpad,
                    WriteTarget::Daily,
                ][i % 3];
                let line = match target {
                    WriteTarget::Scratchpad => format!("- [ ] item {i} {}", "s".repeat(i * 9)),
                    _ => format!("line {i} {}", "d".repeat(i * 13 + 1)),
                };
                let r = append(&mem, target, &format!("{line}\n"));
                reaches.insert(format!("{:?}", r.budget.reach));
                let block = mem.context_block().unwrap().unwrap();
                assert_eq!(r.budget.block_bytes as usize, block.len());
                let seen = block.contains(&format!("{line}\n"))
                    || block.contains(&format!("{line}</"))
                    || block.ends_with(&format!("{line}\n</memory>"));
                assert_eq!(
                    r.budget.reach == Reach::Whole,
                    seen,
                    "cap {cap}, write {i}: {:?}\n{block}",
                    r.budget.reach
                );
            }
        }
        assert_eq!(
            reaches.into_iter().collect::<Vec<_>>(),
            ["Cut", "Partly", "Whole"]
        );
    }
}
